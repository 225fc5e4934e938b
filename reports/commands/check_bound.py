"""``blanket check-bound FILE | --registered LABEL`` — search for a certified counterexample to an amplification bound.

Exit codes: 1 refuted (a certified violation was found), 0 not refuted within
the budget, 3 nothing could be compared (every evaluation failed or was
undecided), 2 bad input.  See :mod:`reports.bound_load` for the file format.
"""

from __future__ import annotations

import argparse
import sys

EPILOG = """bound file (Python):
  MECHANISM = "krr"        # or "binary", or a frequency oracle: "oue", "sue", "hadamard", "olh:g=2", "subset:d=2"
  QUANTITY = "delta"       # define delta(epsilon, epsilon0, n, k); or "epsilon": epsilon(delta, epsilon0, n, k)
  DOMAIN = {"epsilon0": ("0.1", "3"), "n": (2, 10**6), "k": (2, 10), "epsilon": ("0.01", "2")}
  def delta(epsilon, epsilon0, n, k): ...   # inputs are fractions.Fraction (n, k int); floats may be returned
  A .py bound file is CODE: it is run (in a separate process, with --budget as a hard time limit and
  --max-memory as a memory limit); SystemExit, a crash or a timeout in it means the bound could not be
  evaluated (exit 2). Only check files you would run.
symbolic file (.txt): lines 'mechanism: krr', 'quantity: delta', 'epsilon0: 0.1 .. 3', 'n: 2 .. 1000000',
  'k: 2 .. 10', 'epsilon: 0.01 .. 2', 'bound: <formula in epsilon, epsilon0, n, k>'; a formula has numbers,
  those names, pi, e, + - * / ^, parentheses and exp log sqrt min max abs floor ceiling erf erfc sinh cosh
  tanh binomial gamma -- nothing else (it is data, never run as code).
exit codes: 1 refuted, 0 not refuted within the budget, 3 nothing comparable (or the PDF failed), 2 bad
  input (including a bound that could not be evaluated)."""


PARSER = {
    "help": "search for a certified counterexample to a researcher's amplification bound",
    "description": "Check an amplification-by-shuffling bound against exact values: exhaustive small-n "
    "worst cases, a grid at larger n (dataset families), and a hypothesis-driven search. "
    "Writes a JSON + LaTeX/PDF report.",
    "epilog": EPILOG,
    "formatter_class": argparse.RawDescriptionHelpFormatter,
}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "file",
        nargs="?",
        help="bound file: a Python module (.py: this is CODE; it runs in a separate "
        "process with the time budget and a memory limit — only check files you "
        "would run) or a symbolic bound (.txt: a formula, never run as code)",
    )
    p.add_argument("--registered", metavar="LABEL", help="check a registered result instead, e.g. 'BBGN19 Theorem 5.3'")
    p.add_argument("--variant", help="variant of the registered result")
    p.add_argument(
        "--mechanism",
        help="rr / krr (k-ary randomized response), binary, or a frequency oracle on k values: oue, sue, hadamard, "
        "olh:g=<range>, subset:d=<size>; must agree with the file",
    )
    p.add_argument(
        "--domain",
        action="append",
        metavar="NAME=LO..HI",
        help="narrow the searched region, e.g. --domain epsilon0=0.1..0.5 (repeatable; for a file it must "
        "stay inside the declared DOMAIN, for --registered it replaces the default region)",
    )
    p.add_argument("--k", help="check only this k (must lie in the declared domain)")
    p.add_argument("--n-max", help="largest n checked (default: the domain's upper end)")
    p.add_argument("--n-exhaustive", default="8", help="largest n of the exhaustive all-datasets phase (default 8)")
    p.add_argument(
        "--budget",
        default="120",
        help="time budget in seconds (default 120): a hard wall-clock limit, "
        "also for the bound's own code, which is stopped when it runs out",
    )
    p.add_argument(
        "--max-evaluations",
        default=None,
        metavar="N",
        help="also stop after N evaluations of the bound (a deterministic budget: same result on any machine)",
    )
    from blanket.reports.commands._options import add_max_memory

    add_max_memory(p)
    p.add_argument("-o", "--output", default="bound_check", help="output directory (default ./bound_check)")
    p.add_argument("--no-pdf", action="store_true", help="write .json and .tex only")
    p.add_argument("--json", action="store_true", help="also print the JSON report on stdout")


def run(args: argparse.Namespace) -> int:
    import json
    import time

    from blanket.exact.numbers import arith, guards
    from blanket.exact.numbers.errors import InvalidArgument
    from blanket.reports import bound_check as bc
    from blanket.reports.commands._options import apply_max_memory
    from blanket.reports.output import OutputDir, report_pdf_outcome

    apply_max_memory(args)
    if (args.file is None) == (args.registered is None):
        raise InvalidArgument("FILE", args.file, "must be given, or --registered LABEL instead (not both)")
    if args.variant and not args.registered:
        raise InvalidArgument("--variant", args.variant, "only applies with --registered")
    budget = arith.exact_in(args.budget, "--budget", lo=1, hi=10**6)
    if args.max_evaluations is not None:
        arith.integer_in(args.max_evaluations, "--max-evaluations", lo=1, hi=10**9)
    deadline = time.monotonic() + float(budget) + bc.DEADLINE_GRACE
    mech = bc._norm_mechanism(args.mechanism, "--mechanism") if args.mechanism else None
    problem = guards.not_regular_file(args.file) if args.file is not None else None
    if problem is not None:  # cheap input checks before the output dir
        raise InvalidArgument("FILE", args.file, f"{problem} (give the bound's .py or .txt file)")
    with OutputDir(args.output, option="-o", stem="bound_check") as out:  # checked and locked before any computation
        if args.registered:
            bound = bc.registered_bound(args.registered, args.variant, mechanism=mech)
        else:
            bound = bc.load_bound(args.file, deadline=deadline)
        try:
            if args.file and mech is not None and mech != bound.mechanism:
                raise InvalidArgument(
                    "--mechanism",
                    args.mechanism,
                    f"contradicts the file's MECHANISM ({bound.mechanism}); drop --mechanism or fix the file",
                )
            if args.domain:
                worker = bound.worker
                bound = bc.restrict_domain(bound, args.domain, within_declared=not args.registered)
                bound.worker = worker
            if args.k is not None and bound.mechanism == "binary" and str(args.k).strip() != "2":
                raise InvalidArgument("--k", args.k, "must be 2 for a binary-RR bound")
            report = bc.check_bound(
                bound,
                k=args.k,
                n_max=args.n_max,
                n_exhaustive=args.n_exhaustive,
                budget=budget,
                progress=True,
                max_evaluations=args.max_evaluations,
            )
        finally:
            if getattr(bound, "worker", None) is not None:
                bound.worker.close()
        want_pdf = not args.no_pdf
        written = bc.write_report_files(report, out.path, stem="bound_check", pdf=want_pdf)
    paths = [written.json, written.tex] + ([written.pdf] if written.pdf else [])
    stream = sys.stdout
    if args.json:  # the JSON alone on stdout; the summary goes to stderr
        print(json.dumps(report, indent=2, ensure_ascii=False, default=str))
        stream = sys.stderr
    print(summary(report, bound.quantity), file=stream)
    print("wrote " + ", ".join(str(p) for p in paths), file=stream)
    pdf_failed = report_pdf_outcome(written, want_pdf)
    if report["verdict"] == "REFUTED":
        return 3 if pdf_failed else 1
    if report["verdict"] == "NOT CHECKED":
        inv = report["invalid_evaluations"]
        if inv:
            sys.stderr.write(
                f"blanket: inconclusive: no point could be compared; first failure: {inv[0].get('note', '')}\n"
            )
        else:
            sys.stderr.write("blanket: inconclusive: no point could be compared within the budget; raise --budget\n")
        return 3
    return 3 if pdf_failed else 0


_OUTCOMES = (
    ("holds", "hold"),
    ("violated", "violated"),
    ("within-float-error", "within float error"),
    ("undecided", "undecided"),
    ("outside-hypotheses", "outside the bound's hypotheses"),
    ("invalid", "invalid evaluations"),
)


def summary(report: dict, quantity: str) -> str:
    """A readable summary of a check-bound report (what was checked, the verdict, the first counterexample)."""
    c = report["counts"]
    counted = ", ".join(f"{c[key]} {label}" for key, label in _OUTCOMES if c.get(key))
    region = report["checked_region"]
    ns = region.get("n")
    where = f"n = {ns[0]}..{ns[1]}, k = {region['k'][0]}..{region['k'][1]}" if ns else "no point compared"
    budget = (
        f"{report.get('evaluations', '?')} evaluations"
        if report.get("budget_evaluations")
        else f"{report['elapsed_seconds']} s of a {report['budget_seconds']:g} s budget"
    )
    lines = [
        f"{report['verdict']}: {report['bound']['name']} checked at {sum(c.values())} points ({counted or 'none'}); "
        f"{where}; {budget}."
    ]
    v = report["violations"]
    if v:
        first = v[0]
        other = "epsilon" if quantity == "delta" else "delta"
        head = (
            f"smallest of {report['violations_total']} distinct counterexamples (n, k, epsilon0, {other}; a point "
            f"checked in two phases counts once): n = {first['n']}, k = {first['k']}, "
            f"epsilon0 = {first['epsilon0']}"
        )
        if quantity == "delta":
            b = "+inf" if first["bound"]["enclosure"] == "+inf" else first["bound"]["enclosure"]["upper"]
            lines.append(f"{head}, epsilon = {first['epsilon']}: exact delta >= {first['exact']['lower']} > bound {b}")
        else:
            lines.append(
                f"{head}, delta = {first['delta']}: the bound claims epsilon = "
                f"{first['bound']['enclosure']['upper']}, but the exact delta there is >= "
                f"{first['exact']['lower']} > {first['delta']}"
            )
    t = report.get("tightness") or {}
    if not v and t.get("min") and t.get("max"):
        lines.append(
            f"tightness ({t['measure']}): from {t['min']['lower']} to {t['max']['upper']} over {t['points']} points"
        )
    for note in report.get("notes", [])[:3]:
        lines.append(f"note: {note}")
    return "\n".join(lines)
