"""``blanket check-bound FILE | --registered LABEL`` — search for a certified counterexample to an amplification bound.

Exit codes: 1 refuted (a certified violation was found), 0 not refuted within
the budget, 3 nothing could be compared (every evaluation failed or was
undecided), 2 bad input.  See :mod:`reports.bound_check` for the file format.
"""

from __future__ import annotations

import pathlib
import sys

EPILOG = """bound file (Python):
  MECHANISM = "krr"        # or "binary"
  QUANTITY = "delta"       # define delta(epsilon, epsilon0, n, k); or "epsilon": epsilon(delta, epsilon0, n, k)
  DOMAIN = {"epsilon0": ("0.1", "3"), "n": (2, 10**6), "k": (2, 10), "epsilon": ("0.01", "2")}
  def delta(epsilon, epsilon0, n, k): ...   # inputs are fractions.Fraction (n, k int); floats may be returned
symbolic file (.txt): lines 'mechanism: krr', 'quantity: delta', 'epsilon0: 0.1 .. 3', 'n: 2 .. 1000000',
  'k: 2 .. 10', 'epsilon: 0.01 .. 2', 'bound: <sympy formula in epsilon, epsilon0, n, k>'.
exit codes: 1 refuted, 0 not refuted within the budget, 3 nothing comparable, 2 bad input."""


def register(sub):
    import argparse
    p = sub.add_parser("check-bound", help="search for a certified counterexample to a researcher's amplification bound",
                       description="Check an amplification-by-shuffling bound against exact values: exhaustive small-n "
                                   "worst cases, a grid at larger n (dataset families), and a hypothesis-driven search. "
                                   "Writes a JSON + LaTeX/PDF report.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", nargs="?", help="bound file: a Python module (.py) or a symbolic bound (.txt)")
    p.add_argument("--registered", metavar="LABEL", help="check a registered result instead, e.g. 'BBGN19 Theorem 5.3'")
    p.add_argument("--variant", help="variant of the registered result")
    p.add_argument("--mechanism", help="rr / krr (k-ary randomized response) or binary; must agree with the file")
    p.add_argument("--domain", action="append", metavar="NAME=LO..HI",
                   help="narrow the searched region, e.g. --domain epsilon0=0.1..0.5 (repeatable; for a file it must "
                        "stay inside the declared DOMAIN, for --registered it replaces the default region)")
    p.add_argument("--k", help="check only this k (must lie in the declared domain)")
    p.add_argument("--n-max", help="largest n checked (default: the domain's upper end)")
    p.add_argument("--n-exhaustive", default="8", help="largest n of the exhaustive all-datasets phase (default 8)")
    p.add_argument("--budget", default="120", help="time budget in seconds (default 120)")
    p.add_argument("-o", "--output", default="bound_check", help="output directory (default ./bound_check)")
    p.add_argument("--no-pdf", action="store_true", help="write .json and .tex only")
    p.add_argument("--json", action="store_true", help="also print the JSON report on stdout")
    p.set_defaults(func=run)


def run(args) -> int:
    import json

    from blanket.exact.errors import InvalidArgument
    from blanket.reports import bound_check as bc

    if (args.file is None) == (args.registered is None):
        raise InvalidArgument("FILE", args.file, "must be given, or --registered LABEL instead (not both)")
    if args.variant and not args.registered:
        raise InvalidArgument("--variant", args.variant, "only applies with --registered")
    mech = bc._norm_mechanism(args.mechanism, "--mechanism") if args.mechanism else None
    if args.registered:
        bound = bc.registered_bound(args.registered, args.variant, mechanism=mech)
    else:
        bound = bc.load_bound(args.file)
        if mech is not None and mech != bound.mechanism:
            raise InvalidArgument("--mechanism", args.mechanism,
                                  f"contradicts the file's MECHANISM ({bound.mechanism}); drop --mechanism or fix the file")
    if args.domain:
        bound = bc.restrict_domain(bound, args.domain, within_declared=not args.registered)
    if args.k is not None and bound.mechanism == "binary" and str(args.k).strip() != "2":
        raise InvalidArgument("--k", args.k, "must be 2 for a binary-RR bound")
    report = bc.check_bound(bound, k=args.k, n_max=args.n_max, n_exhaustive=args.n_exhaustive, budget=args.budget,
                            progress=True)
    stem = "bound_check"
    paths = bc.write_report(report, pathlib.Path(args.output), stem=stem, pdf=not args.no_pdf)
    out = sys.stdout
    if args.json:  # the JSON alone on stdout; the summary goes to stderr
        print(json.dumps(report, indent=2, ensure_ascii=False, default=str))
        out = sys.stderr
    v = report["violations"]
    if v:
        first = v[0]
        head = f"REFUTED: {report['violations_total']} violating point(s); smallest: n={first['n']} k={first['k']} " \
               f"epsilon0={first['epsilon0']}"
        if bound.quantity == "delta":
            b = "+inf" if first["bound"]["enclosure"] == "+inf" else first["bound"]["enclosure"]["upper"]
            print(f"{head} epsilon={first['epsilon']}: exact delta >= {first['exact']['lower']} > bound {b}", file=out)
        else:
            print(f"{head} delta={first['delta']}: the bound claims epsilon = {first['bound']['enclosure']['upper']}, "
                  f"but the exact delta there is >= {first['exact']['lower']} > {first['delta']}", file=out)
    else:
        print(f"{report['verdict']} in {report['elapsed_seconds']} s ({report['counts']})", file=out)
    for p in paths:
        print(p, file=out)
    if report["verdict"] == "REFUTED":
        return 1
    if report["verdict"] == "NOT CHECKED":
        inv = report["invalid_evaluations"]
        if inv:
            sys.stderr.write(f"blanket: inconclusive: no point could be compared; first failure: {inv[0].get('note', '')}\n")
        return 3
    return 0
