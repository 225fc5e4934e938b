"""The shuffled geometric mechanism's full view of one pair of datasets: a certified lower end (issue 25).

On the neighbouring datasets ``D0 = (0, z^{n−1})`` and ``D1 = (m−1, z^{n−1})`` (the other ``n − 1`` users hold
``z``, the differing user 0 versus ``m − 1``), both histograms of shuffled reports have a likelihood ratio against the
histogram of ``z^n``: ``P_{D_x}/P_{z^n} = (1/n)Σ_i R_x(Y_i)/R_z(Y_i)`` with ``Y_i ~ R_z`` i.i.d. (the changed user is
any one of the n, each with probability 1/n).  So

    δ(D1 ‖ D0)(ε) = E_{z^n}[(P_{D1} − e^ε P_{D0})_+ / P_{z^n}] = (1/n)·E[(Σ_i L(Y_i))_+],
    L(y) = (R_{m−1}(y) − e^ε R_0(y)) / R_z(y),

and ``δ(D0 ‖ D1)`` with the roles of 0 and ``m − 1`` exchanged: Balle et al.'s blanket-view formula with the blanket
``ω = R_z``, ``γ = 1``.  The law of ``L`` has ``m`` atoms; its lower side on a lattice of step ``h`` (Jensen on
chunks of atoms — a conditional expectation, so ``≤_icx`` — each chunk's average rounded down to a lattice point, the
residuals ``r ≥ 0`` given back through Bernstein's bound on their sum except with probability ``2^-160``;
:mod:`blanket.exact.shuffled.continuous`, docs/reference/blanket.md §4) bounds ``E[(Σ_i L(Y_i))_+]`` from below, so
its value is a certified **lower** bound on this pair's δ, hence on the mechanism's worst-case δ (docs/mechanisms.md
"The geometric mechanism's lower end", status derived; registered ``Geometric dataset full-view lower end``).  Every
count of reports (thresholds, intervals) is a post-processing of the histogram, so the exact full view is never below
them; the lattice's loss is of order ``h²`` per user.

>>> from blanket.exact.mechanisms.oracles import Geometric
>>> from blanket.exact.shuffled.enumerate import delta_dataset
>>> g = Geometric(3, alpha="1/2")
>>> v = full_view_lower(g, 4, exp_epsilon=fmpq(3, 2))
>>> 0 < v <= delta_dataset(g.matrix(), [0, 0, 0], 2, 0, exp_epsilon=fmpq(3, 2))
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from blanket.exact.mechanisms.oracles import Geometric
from blanket.exact.numbers import arith, guards
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.shuffled import continuous as C
from blanket.exact.shuffled import continuous_dataset as _cdataset
from flint import arb, fmpq

if TYPE_CHECKING:
    from blanket.exact.numbers.types import At
    from typing_extensions import Unpack

__all__ = [
    "dataset_roc_points",
    "full_view_lower",
    "best_full_view",
    "default_step",
    "DEFAULT_H",
    "DIRECTIONS",
    "FULL_VIEW_MAX_N",
]

#: the lattice step of the full view (values of ``L`` lie in ``[e^{-ε0} − e^ε, e^{ε0} − e^ε]``)
DEFAULT_H = fmpq(1, 64)
#: the largest n whose one-round lower end uses the full view (its lattice sum costs about 1.5 CPU s at n = 10⁵
#: and 6 s at 10⁶, m = 20, step 1/64; a search takes about seven): above it the counts alone
FULL_VIEW_MAX_N = 200_000
#: ``forward``: δ(D0 ‖ D1) (target 0 first, ``L = (R_0 − e^ε R_{m−1})/R_z``); ``backward``: δ(D1 ‖ D0)
DIRECTIONS = ("forward", "backward")

#: the most lattice cells :func:`full_view_lower` lets the sum of ``n`` copies span, ``(max L − min L)·√n/h``: above it
#: the step is coarsened (any step gives a certified lower bound; a coarser one a smaller one).  At ε0 = 10, m = 3,
#: n = 100 the values of ``L`` span ``e^{ε0} ≈ 2.2e4``, so at ``h = 1/128`` the lattice sum ran for minutes (killed)
MAX_LATTICE_CELLS = 2**20


def _bounded_step(pts: list, n: int, hq: fmpq) -> fmpq:
    """``hq``, or a coarser dyadic step when the sum of ``n`` copies of the law ``pts`` would span more than
    :data:`MAX_LATTICE_CELLS` cells at ``hq`` (a float estimate chooses the step; the value at any step is
    certified).  O(len(pts))."""
    vals = [float(v.mid()) for v, _ in pts]
    span = (max(vals) - min(vals)) * max(1.0, float(n) ** 0.5)
    if not span < float("inf") or span <= MAX_LATTICE_CELLS * float(hq):
        return hq
    out = hq
    while span > MAX_LATTICE_CELLS * float(out):
        out *= 2
    return out


def _law(mech: Geometric, z: int, direction: str, ee) -> list:
    """``[(L(y), R_z(y))]`` as balls: the ``m`` atoms of the full view's variable.  O(m)."""
    rows = mech.rows()
    m = mech.m
    x, x2 = (0, m - 1) if direction == "forward" else (m - 1, 0)
    out = []
    for y in range(m):
        w = arith.ball(rows[z][y])
        out.append(((arith.ball(rows[x][y]) - arith.ball(ee) * arith.ball(rows[x2][y])) / w, w))
    return out


def full_view_lower(
    mech: Geometric,
    n: int,
    *,
    z: int = 0,
    direction: str = "backward",
    h: object = DEFAULT_H,
    bits: int = C.BITS,
    drop_bits: int = C.DROP,
    **at: Unpack[At],
) -> fmpq:
    """A certified lower bound (an exact rational ``≥ 0``) on δ(ε) of the shuffled geometric mechanism on the datasets
    "the other ``n − 1`` users hold ``z``, the differing user 0 versus ``m − 1``" (``direction``: :data:`DIRECTIONS`),
    hence on its worst-case δ (module docstring).

    Cost: ``O(m)`` ball operations for the chunks, then the lower-side lattice sum of ``n`` copies (``O(log n)``
    products of integer polynomials whose length is the window of the sum, about ``40·σ√n/h`` for the per-user
    standard deviation ``σ`` of ``L``; ``O(√n/h · log)`` each): m = 100, n = 10⁴ about a second.

    Keywords (:class:`~blanket.exact.numbers.types.At`): ``epsilon`` or ``exp_epsilon``.
    """
    guards.require_instance(mech, Geometric, "mech", "must be a Geometric record (exact.mechanisms.oracles.Geometric)")
    ee = guards.exp_at("full_view_lower", at)
    n = arith.integer_in(n, "n", lo=1)
    if not isinstance(z, int) or isinstance(z, bool) or not 0 <= z < mech.m:
        raise InvalidArgument("z", z, f"must be an input value in 0..{mech.m - 1} (the others' value)")
    if direction not in DIRECTIONS:
        raise InvalidArgument("direction", direction, "must be 'forward' or 'backward'")
    hq = arith.exact_in(h, "h", lo=0)
    if hq == 0:
        raise InvalidArgument("h", h, "must be > 0 (the lattice step)")
    with arith.precision(192):
        pts = _law(mech, z, direction, ee)
        hq = _bounded_step(pts, n, hq)
        hb = arb(hq)
        lo, resid = _lattice_lower(pts, hb, bits)
        if not any(u > 0 for u in lo.values()):
            return fmpq(0)
        node = C._power(C._law(lo, bits), n, "lower", drop_bits)
        return C._lower_value(node, resid, n, hq, arb(1))


def _lattice_lower(pts: list, hb: arb, bits: int) -> tuple[dict, tuple]:
    """``(lo, (mean, second moment, max))``: the full view's one-report law ``pts`` merged onto the lattice of step
    ``hb`` (the continuous engine's chunks, lower side: integer units of ``2^-bits``) and the residual moments its
    lower value needs.  Call at the caller's working precision.  O(len(pts)) ball operations."""
    chunks, _ = C._chunks(pts, hb, arb(0))
    lo: dict[int, int] = {}
    rmean = rsq = rmax = arb(0)
    for k, gm, r in chunks:
        lo[k] = lo.get(k, 0) + C._units(gm, False, bits)
        rmean += gm * r
        rsq += gm * r * r
        rmax = r.upper() if r.upper() > rmax else rmax
    return lo, (rmean, rsq, rmax)


def _side(mech: Geometric, n: int, direction: str, hq: fmpq, bits: int, drop_bits: int) -> tuple:
    """``(lo, resid)``: the lower-side lattice law of ``n`` copies of the full view's variable at ``e^ε = 1`` on the
    datasets "others on 0" (``direction``: :data:`DIRECTIONS`) and its residuals, or ``None`` if the law is empty.
    O(m) ball operations and one lower-side lattice sum of ``n`` copies."""
    with arith.precision(192):
        hb = arb(hq)
        lo, resid = _lattice_lower(_law(mech, 0, direction, fmpq(1)), hb, bits)
        return C._power(C._law(lo, bits), n, "lower", drop_bits), resid


def dataset_roc_points(
    mech: Geometric,
    n: int,
    *,
    h: object = DEFAULT_H,
    lines: int = _cdataset.DEFAULT_LINES,
    bits: int = C.BITS,
    drop_bits: int = C.DROP,
) -> list:
    """Inner ROC points ``(x̄, y̲)`` of the pair ``(P, Q) = (D1, D0)``, ``D1 = (m−1, 0^{n−1})``, ``D0 = 0^n``: for every
    ``β ≥ 0``, ``H_β(P‖Q) ≥ y̲ − β·x̄`` (exact rationals), so the ROC pair of the points
    (:func:`blanket.exact.accounting.curves.pair_from_roc`) is Blackwell-dominated by ``(P, Q)`` and its T-fold
    product's δ is a certified lower bound on T geometric rounds (docs/composition.md §5e, "A geometric round's
    dataset-curve lower pair"; registered ``Dataset-curve lower pair``; status derived).

    With the others on ``0`` the base law is ``D0``'s own: the likelihood ratio is ``R/n``, ``R = Σ_i r(Y_i)``,
    ``r = R_{m−1}/R_0``, ``Y_i ~ R_0`` — the Laplace/Gaussian structure of
    :func:`blanket.exact.shuffled.continuous_dataset.dataset_roc_points` with ``m`` atoms instead of cells: the two
    laws are the full view's at ``e^ε = 1`` (``"backward"``: ``W = R − n``; ``"forward"``: ``V = n − R``), and the lines
    are read off them by the same :func:`~blanket.exact.shuffled.continuous_dataset.suffix_lines`.

    Cost: two lower-side lattice sums of ``n`` copies (each as :func:`full_view_lower`) and ``O(length)`` integer
    additions; ``O(lines)`` points."""
    guards.require_instance(mech, Geometric, "mech", "must be a Geometric record (exact.mechanisms.oracles.Geometric)")
    n, lines, hq = _cdataset.roc_arguments(n, lines, h)
    sides = []
    for d in ("backward", "forward"):  # W = R − n, then V = n − R
        lo, resid = _side(mech, n, d, hq, bits, drop_bits)
        sides.append(_cdataset.suffix_lines(lo, resid, n, hq, lines))
    return _cdataset.roc_points_from_lines(sides[0], sides[1], n)


def default_step(n: int) -> fmpq:
    """The lattice step of :func:`best_full_view`: ``1/128`` up to ``n = 2·10⁴``, else :data:`DEFAULT_H` (the loss
    relative to the sum's spread does not depend on n, the cost grows as ``√n/h``).  O(1)."""
    return fmpq(1, 128) if n <= 20000 else DEFAULT_H


def best_full_view(mech: Geometric, n: int, *, zs: tuple = (0,), h: object = None, **at: Unpack[At]) -> tuple:
    """``(value, z, direction)``: a certified lower bound on the mechanism's δ(ε), the full view of the datasets
    "others on ``z``" in the order that looks larger: both orders at the coarse step ``1/32`` choose (each value is
    itself certified), the chosen one is evaluated again at ``h`` (default :func:`default_step`) and the largest
    value is returned.  ``zs``: the others' values tried (default ``0``; the middle value measured lower at
    ε0 = 1, m = 20 and 100, n = 10⁴; ``m − 1`` is 0's mirror image).  Cost: ``2·len(zs)`` coarse lattice sums and
    one fine one (m = 100, n = 10⁴: about 0.4 s + 0.9 s)."""
    hq = default_step(arith.integer_in(n, "n", lo=1)) if h is None else arith.exact_in(h, "h", lo=0)
    found = []
    for z in zs:
        for d in DIRECTIONS:
            found.append((full_view_lower(mech, n, z=z, direction=d, h=fmpq(1, 32), **at), z, d))
    best = max(found, key=lambda t: t[0])
    if hq != fmpq(1, 32):
        v = full_view_lower(mech, n, z=best[1], direction=best[2], h=hq, **at)
        if v > best[0]:
            best = (v, best[1], best[2])
    return best
