"""``blanket check-papers [--paper NAME] [-o DIR] [--quick] [--no-pdf]`` — every registered result against exact values.

Writes ``paper-check.tex``, ``paper-check.json`` and (with TeX Live)
``paper-check.pdf`` into ``DIR`` (default ``./paper-check``), with a progress
bar on stderr.  Exit code 0 when no *unexpected* counterexample was found
(known-false variants are expected to be refuted), 1 otherwise, 3 when the PDF failed
(the .tex and .json are kept), 2 when the output directory is unusable or locked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse


PARSER = {
    "help": "check every registered result against exact values (LaTeX/PDF + JSON report)",
}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--paper",
        default=None,
        help="one paper or group of results, as in `blanket bounds --paper`: BBGN19 (blanket), CY21 (pure-dp), "
        "GDDSK21 (renyi), EFMRTT19 (erlingsson), FMT21, FO, WANG24, ZDW22, PLD, SCW25",
    )
    p.add_argument("-o", "--output", default="paper-check", help="output directory (default: ./paper-check)")
    p.add_argument("--quick", action="store_true", help="reduced grid (one point per result)")
    p.add_argument("--no-pdf", action="store_true", help="write only the .tex and .json")


def run(args: argparse.Namespace) -> int:
    from blanket.reports.output import OutputDir, report_pdf_outcome
    from blanket.reports.paper_check import check_papers, write

    with OutputDir(args.output, option="-o", stem="paper-check") as out:  # checked and locked before computing
        report = check_papers(args.paper, quick=args.quick)
        want_pdf = not args.no_pdf
        written = write(report, out.path, pdf=want_pdf)
    s = report["summary"]
    print(
        f"{s['results']} results, {s['grid_points']} grid points, {s['counterexamples']} certified counterexamples; "
        f"false statements: {', '.join(s['false_statements']) or 'none'}; known-false variants caught: "
        f"{len(s['known_false_caught'])}, missed: {', '.join(s['known_false_missed']) or 'none'}"
    )
    print(f"wrote {written.tex}, {written.json}" + (f", {written.pdf}" if written.pdf else ""))
    if report_pdf_outcome(written, want_pdf):
        return 3
    return 1 if (s["false_statements"] or s["known_false_missed"]) else 0
