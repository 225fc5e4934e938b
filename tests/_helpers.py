"""Helpers shared by several test files (import as ``from tests._helpers import …``)."""

from flint import arb, fmpq


def merged_atoms(atoms):
    """Merge privacy-loss atoms ``(label, P, Q)`` with equal exact ratio ``P/Q``: the loss law, for cheaper exact
    products (labels become ``(ratio,)``; atoms with ``P = 0`` are dropped).  Atoms given as balls are not merged
    (a ball is no dictionary key): then only the exact ``P = 0`` atoms are dropped."""
    if any(isinstance(P, arb) or isinstance(Q, arb) for _, P, Q in atoms):
        return [a for a in atoms if not (isinstance(a[1], fmpq) and a[1] == 0)]
    d = {}
    for _, P, Q in atoms:
        if P == 0:
            continue
        r = P / Q
        a, b = d.get(r, (fmpq(0), fmpq(0)))
        d[r] = (a + P, b + Q)
    return [((r,), P, Q) for r, (P, Q) in d.items()]


def paper_check_report(papers: list, *, grid_points: int, counterexamples: int, quick: bool, command: str) -> dict:
    """A ``blanket check-papers`` report around ``papers`` (``[{"key", "title", "results"}]``) with an otherwise
    empty summary, for rendering tests."""
    return {
        "papers": papers,
        "summary": {
            "results": sum(len(p["results"]) for p in papers),
            "grid_points": grid_points,
            "counterexamples": counterexamples,
            "false_statements": [],
            "known_false_caught": [],
            "known_false_missed": [],
            "symbolically_proved": 0,
            "by_status": {},
        },
        "paper": "all",
        "quick": quick,
        "reproducibility": {"command": command, "precision_start": 128, "precision_cap": 4096, "versions": {}},
    }
