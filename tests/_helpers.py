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
