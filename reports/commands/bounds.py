"""``blanket bounds [--paper NAME] [--json]`` — list every registered result (all papers, from the registry).

One line per result: its key (``BBGN19 Theorem 5.3 [rr]`` — pass the label
with ``--bound`` and the bracketed part with ``--variant`` to
``blanket delta|epsilon``), paper, status, kind/quantity and the mechanisms
it applies to.  Known-false variants are listed and marked ``FALSE``.
``--json`` prints the plain-data descriptions (``Result.describe()``).
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse


PARSER = {
    "help": "list every registered result: the four papers and the results beyond them (label, paper, status, "
    "mechanisms)",
    "description": "List the registered results: label, paper, status (see docs/reference/README.md), what they bound "
    "and for which mechanisms. Use a label with `blanket delta|epsilon --bound LABEL "
    "[--variant V]`.",
}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--paper",
        help="only this paper's results: BBGN19 (blanket), CY21 (pure-dp), GDDSK21 (renyi), EFMRTT19 (erlingsson), "
        "FMT21 (clones), FO (frequency oracles), WANG24 (published oracle bounds), ZDW22 and PLD (composition), "
        "SCW25 (Su-Cheng-Wang's general-clone value)",
    )
    p.add_argument("--json", action="store_true", help="print JSON (one object per result) instead of a table")


def rows(paper: str | None = None) -> list[dict]:
    """Plain-data rows for every registered result (of ``paper`` if given); raises InvalidArgument for an unknown paper."""
    from blanket.proofs.core import results

    out = []
    for r in results(paper):
        d = r.describe()
        d["label_full"] = f"{r.paper} {r.label}"
        out.append(d)
    return out


def run(args: argparse.Namespace) -> int:
    data = rows(args.paper)
    if args.json:
        json.dump(data, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
        return 0
    if not data:
        print("no registered results" + (f" for paper {args.paper}" if args.paper else ""))
        return 0
    kinds = [d["kind"] + (" FALSE" if d["known_false"] else "") for d in data]
    quantities = [d["quantity"] or "-" for d in data]
    w_key = max(len(d["key"]) for d in data)
    w_status = max(len(d["status"]) for d in data)
    w_kind = max(len("kind"), *map(len, kinds))
    w_q = max(len("quantity"), *map(len, quantities))
    print(f"{'result':{w_key}s}  {'status':{w_status}s}  {'kind':{w_kind}s}  {'quantity':{w_q}s}  mechanisms")
    for d, kind, q in zip(data, kinds, quantities):
        print(
            f"{d['key']:{w_key}s}  {d['status']:{w_status}s}  {kind:{w_kind}s}  {q:{w_q}s}  {', '.join(d['mechanisms'])}"
        )
    print(f"\n{len(data)} results. Papers: " + ", ".join(sorted({d['paper'] for d in data})))
    return 0
