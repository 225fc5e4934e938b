"""Issue 26's closing table: every case the issue lists, run as a user would, and how it ends now.

    PYTHONPATH=. python3 tests/benchmarks/probe_issue26.py [--only SUBSTRING] [--timeout SECONDS]

Each case runs the ``blanket`` CLI (or a short Python call of the public API) in a fresh subprocess in a scratch
directory and prints one table row: the case, the exit code, the wall seconds, the first line of stderr that is
not a progress bar (or of stdout when stderr is empty), and the test that covers it in the suite.  Wall seconds
depend on the machine and its load: they show the order of magnitude, never a pass/fail (the tests count work).
A case that is still running at ``--timeout`` is killed with its process group and shown as TIMEOUT.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import resource
import signal
import subprocess
import sys
import tempfile
import textwrap
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
EX = ROOT / "examples"
sys.path.insert(0, str(ROOT))

from tests.test_fault_injection import TINY, bin_dir_without_tex, fake_tex  # noqa: E402
from tests.test_hostile import HOSTILE_BOUND, KRR_DOMAIN  # noqa: E402

CLI = [sys.executable, "-m", "blanket.reports.cli"]


def env(scratch: pathlib.Path, **extra: str) -> dict:
    e = dict(os.environ)
    e.update(PYTHONPATH=str(ROOT), BLANKET_PROGRESS="0", TMPDIR=str(scratch / "tmp"))
    e.pop("BLANKET_DEBUG", None)
    (scratch / "tmp").mkdir(exist_ok=True)
    e.update(extra)
    return e


def first_line(err: str, out: str) -> str:
    if not err.strip() and out.lstrip().startswith("{"):  # --json: the verdicts
        import json

        try:
            doc = json.loads(out)
            return "JSON: " + ", ".join(str(c.get("verdict")) for c in doc.get("claims", []))
        except (ValueError, AttributeError):
            pass
    for text in (err, out):
        for raw in text.replace("\r", "\n").splitlines():
            s = raw.replace("\x1b[A", "").replace("\x1b[K", "").strip()
            if s and "it/s]" not in s and "s/it]" not in s and not s.startswith("blanket: composing"):
                return s
    return ""


def run(argv: list, scratch: pathlib.Path, timeout: float, *, extra_env=None, preexec=None, signal_after=None):
    """(exit code or 'TIMEOUT', seconds, first line).  ``signal_after``: ``(needle, signum, group)`` -- send the
    signal once ``needle`` shows in the run's stderr (or, for a path, once it exists)."""
    t = time.monotonic()
    p = subprocess.Popen(
        argv,
        cwd=scratch,
        env=env(scratch, **(extra_env or {})),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        preexec_fn=lambda: _child_setup(preexec),
    )
    err_chunks: list = []
    if signal_after is not None:
        needle, sig, group = signal_after
        while time.monotonic() - t < timeout:
            if isinstance(needle, float):  # seconds after the start (a case with no output to wait on)
                if time.monotonic() - t >= needle:
                    break
                time.sleep(0.05)
                continue
            if isinstance(needle, pathlib.Path):
                if any(needle.parent.glob(needle.name)):
                    break
                time.sleep(0.05)
                continue
            b = p.stderr.read1(4096)
            if not b:
                break
            err_chunks.append(b)
            if needle.encode() in b"".join(err_chunks[-3:]):
                break
        time.sleep(0.2)
        (os.killpg if group else os.kill)(p.pid, sig)
    try:
        out, err = p.communicate(timeout=max(1.0, timeout - (time.monotonic() - t)))
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        return "TIMEOUT", time.monotonic() - t, first_line((b"".join(err_chunks) + err).decode(), out.decode())
    err = (b"".join(err_chunks) + err).decode("utf-8", "replace")
    return p.returncode, time.monotonic() - t, first_line(err, out.decode("utf-8", "replace"))


def _child_setup(preexec) -> None:
    """In the child before exec: SIGINT back to its default (a shell starts background jobs with SIGINT ignored,
    and Python keeps it ignored), then the case's own setup."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    if preexec is not None:
        preexec()


def py(code: str) -> list:
    return [sys.executable, "-c", textwrap.dedent(code)]


def small_fsize() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (3000, 3000))


def cases(s: pathlib.Path) -> list:
    """``(case, argv, options, covering test)`` for every item of issue 26 (and the ones this session added)."""
    (s / "in").mkdir(exist_ok=True)
    tiny = s / "in" / "tiny.toml"
    tiny.write_text(TINY)
    big = s / "in" / "big.toml"
    big.write_text(
        'name = "big"\n[randomizer]\nmechanism = "binary_rr"\nepsilon0 = 1\n[users]\nn = 1000000000\n'
        "[[claims]]\nepsilon = 0.9\ndelta = 1e-6\n"
    )
    fifo = s / "in" / "fifo.toml"
    if not fifo.exists():
        os.mkfifo(fifo)
    (s / "in" / "dir.toml").mkdir(exist_ok=True)
    for name, formula in (("floor", "floor(1e100000)"), ("gamma", "gamma(1e100000)")):
        (s / "in" / f"{name}.txt").write_text(KRR_DOMAIN + f"bound: {formula}\n")
    (s / "in" / "two.txt").write_text(KRR_DOMAIN + "bound: 1\nbound: 1/2\n")
    (s / "in" / "unknown.txt").write_text(KRR_DOMAIN + "foo: 3\nbound: 1\n")
    (s / "in" / "neg.py").write_text(
        'MECHANISM = "krr"\nQUANTITY = "delta"\n'
        'DOMAIN = {"epsilon0": ("0.5", "1"), "n": (2, 20), "k": (2, 3), "epsilon": ("0.1", "0.5")}\n'
        "def delta(epsilon, epsilon0, n, k):\n    return -1\n"
    )
    (s / "in" / "hostile.py").write_text(HOSTILE_BOUND)
    (s / "in" / "loop.py").write_text(
        'MECHANISM = "krr"\nQUANTITY = "delta"\n'
        'DOMAIN = {"epsilon0": ("0.5", "1"), "n": (2, 20), "k": (2, 3), "epsilon": ("0.1", "0.5")}\n'
        "def delta(epsilon, epsilon0, n, k):\n    while True:\n        pass\n"
    )
    base = 'name = "x"\n[users]\nn = 100\n[[claims]]\nepsilon = 1\ndelta = 1e-6\n'
    krr3 = '[randomizer]\nmechanism = "krr"\nk = 3\nepsilon0 = 1\n'
    (s / "in" / "both.toml").write_text(base + krr3 + '[mechanism]\ntype = "krr"\nk = 5\nepsilon0 = 2\n')
    (s / "in" / "nmin.toml").write_text(
        'name = "x"\n' + krr3 + "[users]\nn_min = 100\n[[claims]]\nepsilon = 1\ndelta = 1e-6\n[[rounds]]\nn = 1000\n"
    )
    for key, val in (("epsilon0", "0"), ("exp_epsilon0", "1"), ("exp_half_epsilon0", "1")):
        kind = "sue" if key == "exp_half_epsilon0" else "oue"  # SUE's own spelling of e^{ε0/2}
        (s / "in" / f"zero_{key}.toml").write_text(
            base + f'[randomizer]\nmechanism = "{kind}"\nk = 3\n{key} = "{val}"\n'
        )
    (s / "in" / "rounds.toml").write_text(
        'name = "signalled"\n[mechanism]\ntype = "krr"\nk = 2\nepsilon0 = "1"\n[users]\nn = 100000\n'
        '[[rounds]]\ncount = 3\n[[claims]]\nepsilon = "0.1"\ndelta = "1e-6"\n'
    )
    old = s / "pdfout"
    old.mkdir(exist_ok=True)
    (old / "certificate.pdf").write_bytes(b"%PDF-1.4 an OLD certificate")
    (old / "certificate.json").write_text('{"old": true}')
    sleep_tex = fake_tex(s, "sleep")
    no_tex = bin_dir_without_tex(s)
    long_out = s / ("x" * 300)
    H = "tests/test_hostile.py::"
    F = "tests/test_fault_injection.py::"
    B = "tests/test_budget_grain.py::"
    krr_esc = ["delta", "--mechanism", "krr", "--k", "10", "--epsilon0", "1", "-n", "1000000", "--epsilon", "0.002"]
    rr40k = ["delta", "--mechanism", "rr", "--epsilon0", "0.62", "-n", "40000", "--epsilon", "0.14", "--workers", "1"]
    return [
        (
            "krr k=10 n=1e6 --dataset blanket (89 s escalation)",
            CLI + krr_esc + ["--dataset", "blanket"],
            {},
            H + "test_escalation_stops_when_the_doublings_left_cannot_reach_the_width",
        ),
        (
            "rr e0=0.62 n=40000 delta (280 s), BLANKET_MAX_SECONDS=30",
            CLI + rr40k,
            {"extra_env": {"BLANKET_MAX_SECONDS": "30"}},
            H + "test_ball_route_cost_refuses_a_million_tiny_deltas_up_front",
        ),
        (
            "rr e0=0.62 n=40000 delta --time-budget 20",
            CLI + rr40k + ["--time-budget", "20"],
            {},
            H + "test_time_budget_cli_exit_3_on_the_slow_worst_case",
        ),
        (
            "binary RR n=1e9 generous claim (huge exponent)",
            CLI + ["certify", str(big), "-o", str(s / "o_big"), "--no-pdf", "--no-plot", "--json"],
            {},
            H + "test_binary_rr_a_billion_users_generous_claim_ends",
        ),
        (
            "epsilon --deployment /dev/zero",
            CLI + ["epsilon", "--deployment", "/dev/zero", "--delta", "1e-6"],
            {},
            H + "test_non_regular_inputs_refused_by_name_at_once",
        ),
        (
            "epsilon --deployment FIFO",
            CLI + ["epsilon", "--deployment", str(fifo), "--delta", "1e-6"],
            {},
            H + "test_non_regular_inputs_refused_by_name_at_once",
        ),
        (
            "certify DIRECTORY",
            CLI + ["certify", str(s / "in" / "dir.toml"), "-o", str(s / "o_dir")],
            {},
            H + "test_non_regular_inputs_refused_by_name_at_once",
        ),
        (
            "telemetry_daily --rounds 10^7",
            CLI
            + ["epsilon", "--deployment", str(EX / "telemetry_daily.toml"), "--rounds", "10000000", "--delta", "1e-6"],
            {},
            H + "test_rounds_times_schedule_refused_with_the_total",
        ),
        (
            "ShuffleAccountant.compose(count=10**30)",
            py("""
            import sys
            from blanket.exact.accounting.accountant import ShuffleAccountant, ShuffledRR
            try:
                ShuffleAccountant().compose(ShuffledRR(k=2, epsilon0="1", n=1000), count=10**30)
            except Exception as exc:
                sys.exit(f"{type(exc).__name__}: {exc}")
            """),
            {},
            H + "test_accountant_refuses_a_total_above_the_cap_before_any_work",
        ),
        (
            ".txt bound floor(1e100000)",
            CLI + ["check-bound", str(s / "in" / "floor.txt"), "-o", str(s / "o_f")],
            {},
            H + "test_txt_bound_huge_literal_cli_exit_2",
        ),
        (
            ".txt bound gamma(1e100000)",
            CLI + ["check-bound", str(s / "in" / "gamma.txt"), "-o", str(s / "o_g")],
            {},
            H + "test_txt_bound_huge_literal_refused_naming_the_field",
        ),
        (
            ".py bound returning -1",
            CLI
            + [
                "check-bound",
                str(s / "in" / "neg.py"),
                "--budget",
                "60",
                "--n-max",
                "6",
                "--n-exhaustive",
                "4",
                "--no-pdf",
                "-o",
                str(s / "o_neg"),
            ],
            {},
            H + "test_negative_py_bound_is_refuted_exit_1",
        ),
        (
            "certify -o <300-character name>",
            CLI + ["certify", str(EX / "holds.toml"), "-o", str(long_out)],
            {},
            H + "test_over_long_output_path_exit_2_naming_the_path",
        ),
        (
            "blanket.certify(None)",
            py("""
            import sys, blanket
            try:
                blanket.certify(None)
            except Exception as exc:
                sys.exit(f"{type(exc).__name__}: {exc}")
            """),
            {},
            H + "test_certify_api_validates_its_argument",
        ),
        (
            "blanket.certify({})",
            py("""
            import sys, blanket
            try:
                blanket.certify({})
            except Exception as exc:
                sys.exit(f"{type(exc).__name__}: {exc}")
            """),
            {},
            H + "test_certify_api_validates_its_argument",
        ),
        (
            "blanket.certify('examples/holds.toml') (a str path)",
            py(f"""
            import sys, blanket
            c = blanket.certify({str(EX / 'holds.toml')!r}, plot=False)
            print("verdicts:", [x["verdict"] for x in c["claims"]], file=sys.stderr)
            """),
            {},
            H + "test_certify_api_reads_a_path_and_refuses_a_missing_file",
        ),
        (
            "delta --bound 'BBGN19 Theorem 3.1' --variant nope",
            CLI
            + [
                "delta",
                "--mechanism",
                "krr",
                "--k",
                "3",
                "--epsilon0",
                "1",
                "-n",
                "100",
                "--epsilon",
                "0.5",
                "--bound",
                "BBGN19 Theorem 3.1",
                "--variant",
                "nope",
            ],
            {},
            H + "test_bad_variant_names_the_variant_and_lists_the_variants",
        ),
        (
            ".txt bound with two bound: lines",
            CLI + ["check-bound", str(s / "in" / "two.txt"), "-o", str(s / "o_2")],
            {},
            H + "test_txt_bound_conflicts_refused",
        ),
        (
            ".txt bound with an unknown key",
            CLI + ["check-bound", str(s / "in" / "unknown.txt"), "-o", str(s / "o_u")],
            {},
            H + "test_txt_bound_conflicts_refused",
        ),
        (
            "[randomizer] and [mechanism]",
            CLI + ["certify", str(s / "in" / "both.toml"), "-o", str(s / "o_b")],
            {},
            H + "test_conflicting_deployment_inputs_refused",
        ),
        (
            "users.n_min beside [[rounds]] n",
            CLI + ["certify", str(s / "in" / "nmin.toml"), "-o", str(s / "o_n")],
            {},
            H + "test_conflicting_deployment_inputs_refused",
        ),
        (
            'oue epsilon0 = "0"',
            CLI + ["certify", str(s / "in" / "zero_epsilon0.toml"), "-o", str(s / "o_z1")],
            {},
            H + "test_epsilon0_zero_refused_in_every_spelling",
        ),
        (
            'oue exp_epsilon0 = "1"',
            CLI + ["certify", str(s / "in" / "zero_exp_epsilon0.toml"), "-o", str(s / "o_z2")],
            {},
            H + "test_epsilon0_zero_refused_in_every_spelling",
        ),
        (
            'sue exp_half_epsilon0 = "1"',
            CLI + ["certify", str(s / "in" / "zero_exp_half_epsilon0.toml"), "-o", str(s / "o_z3")],
            {},
            H + "test_epsilon0_zero_refused_in_every_spelling",
        ),
        (
            "--epsilon0 0 on the command line",
            CLI + ["delta", "--mechanism", "krr", "--k", "3", "--epsilon0", "0", "-n", "100", "--epsilon", "0.5"],
            {},
            "tests/test_fault_injection.py::test_bad_input_table_one_line_exit_2",
        ),
        (
            "SIGTERM during the PDF step (old PDF+JSON in place)",
            CLI + ["certify", str(tiny), "-o", str(old)],
            {
                "extra_env": {"PATH": os.pathsep.join([str(sleep_tex), str(no_tex)])},
                "signal_after": (s / "tmp" / "blanket-tex-*", signal.SIGTERM, False),
            },
            F + "test_item5_signal_during_latex_cleans_up",
        ),
        (
            "disk full (RLIMIT_FSIZE 3000 bytes)",
            CLI + ["certify", str(tiny), "-o", str(s / "o_full"), "--no-pdf"],
            {"preexec": small_fsize},
            F + "test_item2_full_disk_leaves_nothing_truncated_and_exits_3",
        ),
        (
            ".py bound that forks, prints and signals its group",
            CLI
            + [
                "check-bound",
                str(s / "in" / "hostile.py"),
                "--budget",
                "20",
                "--n-max",
                "6",
                "--n-exhaustive",
                "4",
                "--no-pdf",
                "-o",
                str(s / "o_h"),
            ],
            {"extra_env": {"MARK": str(s / "mark"), "KILL_GROUP": "1"}},
            H + "test_py_bound_sandbox_own_session_group_killed_prints_captured",
        ),
        (
            "certify telemetry_daily --time-budget 20 (sweep at n=1e6)",
            CLI
            + ["certify", str(EX / "telemetry_daily.toml"), "-o", str(s / "o_t"), "--no-pdf", "--time-budget", "20"],
            {},
            B + "test_sweep_stops_after_the_task_at_which_the_budget_ran_out",
        ),
        (
            "SIGTERM to the group during the parallel sweep",
            CLI + ["certify", str(s / "in" / "rounds.toml"), "-o", str(s / "o_sig"), "--no-pdf", "--workers", "2"],
            {"extra_env": {"BLANKET_PROGRESS": "1"}, "signal_after": ("worst-case curve over", signal.SIGTERM, True)},
            "tests/test_signals_sweep.py::test_signal_during_the_sweep_one_line_workers_killed_no_output",
        ),
        (
            "SIGINT to the group during the parallel sweep",
            CLI + ["certify", str(s / "in" / "rounds.toml"), "-o", str(s / "o_int"), "--no-pdf", "--workers", "2"],
            {"extra_env": {"BLANKET_PROGRESS": "1"}, "signal_after": ("worst-case curve over", signal.SIGINT, True)},
            "tests/test_signals_sweep.py::test_signal_during_the_sweep_one_line_workers_killed_no_output",
        ),
        (
            "SIGTERM to the group during k-RR curve pairs and PLDs (365 rounds)",
            CLI
            + [
                "epsilon",
                "--mechanism",
                "krr",
                "--k",
                "4",
                "--epsilon0",
                "1",
                "-n",
                "1000000",
                "--rounds",
                "365",
                "--delta",
                "1e-6",
            ],
            {"signal_after": ("blanket: composing", signal.SIGTERM, True)},
            "tests/test_signals_sweep.py::test_signal_during_the_composition_or_check_bound_one_line_nothing_left",
        ),
        (
            "SIGTERM to the group during check-bound (a .py bound that loops)",
            CLI + ["check-bound", str(s / "in" / "loop.py"), "--budget", "60", "--no-pdf", "-o", str(s / "o_loop")],
            {"signal_after": (8.0, signal.SIGTERM, True)},
            "tests/test_signals_sweep.py::test_signal_during_the_composition_or_check_bound_one_line_nothing_left",
        ),
        (
            "figure no-such-figure",
            CLI + ["figure", "no-such-figure", "-o", str(s / "o_fig")],
            {},
            "tests/test_figure_registry.py::test_cli_unknown_figure_one_line_exit_2",
        ),
    ]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="run only the cases whose name contains this")
    ap.add_argument("--timeout", type=float, default=600.0, help="wall seconds per case (default 600)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="probe26.") as d:
        s = pathlib.Path(d)
        print("| case | exit | seconds | first line of stderr | test |")
        print("|---|---|---|---|---|")
        for name, argv, opts, test in cases(s):
            if a.only and a.only not in name:
                continue
            rc, secs, line = run(argv, s, a.timeout, **opts)
            line = line.replace("|", "\\|")
            if len(line) > 220:
                line = line[:217] + "..."
            print(f"| {name} | {rc} | {secs:.1f} | {line} | {test.split('::')[-1]} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
