"""End-to-end time of the README's main command, ``blanket certify examples/telemetry.toml`` (TeX included).

Run: ``PYTHONPATH=. python3 tests/benchmarks/bench_certify.py [--no-pdf] [--repeat K]`` from the top of the
repository.  Prints, per run, the wall-clock seconds of the whole command (a fresh process: imports, the
certified computations, writing .tex/.json and compiling the PDF), the peak RSS of the command, the verdict,
which bound decided each claim and whether the exact sweep over all datasets ran.  Target (issue 14): <= 20 s.
Times are wall-clock on a shared machine: expect noise; the CPU seconds (user + system of the command and its
children, LaTeX included) are the column to compare on a loaded machine.  Issue 18's oracle examples:
``bench_certify.py examples/rappor_128.toml`` (and ``olh_2_20.toml``, ``generic_ldp.toml``), target <= 10 s.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import resource
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--no-pdf", action="store_true")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("file", nargs="?", default=str(ROOT / "examples" / "telemetry.toml"))
    args = ap.parse_args()
    print(f"{'run':>3} {'seconds':>8} {'CPU s':>6} {'peak RSS MB':>11} {'verdict':>8}  decided by / exact sweep")
    for i in range(args.repeat):
        dt, cpu, rss, verdict, how, rc = run_certify(args.file, args.no_pdf)
        print(f"{i + 1:>3} {dt:>8.2f} {cpu:>6.2f} {rss:>11.0f} {verdict:>8}  {how}  (exit {rc})")


def run_certify(file=str(ROOT / "examples" / "telemetry.toml"), no_pdf=False):
    """``(seconds, CPU seconds, peak RSS MB, verdict, which bound decided / exact sweep, exit code)`` of one
    ``blanket certify``."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    with tempfile.TemporaryDirectory() as out:
        cmd = [sys.executable, "-m", "blanket.reports.cli", "--quiet", "certify", file, "-o", out]
        if no_pdf:
            cmd.append("--no-pdf")
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        r = subprocess.run(cmd, capture_output=True, text=True, env=env)
        dt = time.perf_counter() - t
        ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)
        rss = max(before, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024
        data = json.loads((pathlib.Path(out) / "certificate.json").read_text())
        how = "; ".join(
            f"{(c.get('decided_by') or {}).get('bound', '-')} / {(c.get('exact_sweep') or '-')[:40]}"
            for c in data["claims"]
        )
        return dt, cpu, rss, data["verdict"], how, r.returncode


if __name__ == "__main__":
    main()
