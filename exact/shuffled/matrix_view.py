"""The Lemma 5.3 blanket view of a randomizer given by its matrix, at any n: the four-atom engine after a spread.

For a :class:`~blanket.exact.mechanisms.finite.FiniteRandomizer` ``R`` (one randomizer run by every user) and an
ordered pair of inputs ``(x, x')``, Balle et al.'s Lemma 5.3 bounds δ(ε) of every pair of neighbouring datasets whose
differing user holds ``x`` versus ``x'`` by ``(1/(γn)) E[(Σ_{i≤n} V_i)_+]``, ``V = L^ε_{x,x'}`` w.p. ``γ`` and 0
otherwise (``docs/reference/blanket.md`` §4; :func:`blanket.exact.shuffled.krr.delta_blanket_view` sums it by
enumeration, ``O(n^{A−1})`` terms, small n only).  Here the law of ``V`` is brought to at most four atoms and the
sum is the binomial engine's (:func:`blanket.exact.shuffled.positive_part.expected_positive_part`, ``O(√n)`` ball
operations per call above ``GRID_MAX_N``):

* atoms with exactly equal values are merged (the same law);
* beyond four atoms (or three, ``atoms=3``), every atom strictly between two kept values ``a < v < b`` is split onto them with its mean
  kept (``π(b − v)/(b − a)`` at ``a``, ``π(v − a)/(b − a)`` at ``b``): a mean-preserving spread, so the new ``V``
  dominates the old in the convex order; independent sums keep that order and ``(·)_+`` is convex, so the value
  can only grow (the same argument as Lemma G1's spread, ``docs/mechanisms.md``).  Kept: the largest and the
  smallest value, 0 and (four atoms) the atom of largest probability among the others.  With four atoms and three
  outputs in the blanket's support (e.g. ``examples/matrix_3x3.csv``) nothing is spread: the value is Lemma 5.3's
  itself.

The view is the maximum over ordered pairs ``x ≠ x'``; a pair whose certified Chernoff bound
(:func:`blanket.exact.shuffled.positive_part.chernoff_upper`, ``docs/numerics.md`` Lemma K5) is at most the upper end
reached so far cannot raise the maximum's upper end and is skipped.  The spread needs the values ordered, so a ball
``e^ε`` is replaced by a rational at or below it (δ is non-increasing in ε: still an upper bound).

``docs/composition.md`` §5e ("The matrix randomizer") says why this view, taken at every α, gives a dominating pair
for composition.  Complexity: ``k_in(k_in − 1)`` engine calls at most (fewer when the Chernoff bound skips a pair),
each ``O(√n·√log(1/tol))`` ball operations on the one-dimensional route (``O(n log(1/tol))`` on the grid route,
``n ≤ GRID_MAX_N``), plus ``O(k_in² · k_out)`` exact operations.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeGuard

from blanket.exact.mechanisms.finite import KRR, FiniteRandomizer, amplification_law
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.numbers.types import DeltaOptions, Enclosure
from blanket.exact.shuffled.krr import delta_args
from blanket.exact.shuffled.positive_part import chernoff_upper, expected_positive_part
from flint import fmpq

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["atom_count", "check_matrix", "is_matrix", "matrix_blanket_view", "pair_atoms", "spread_atoms"]


def is_matrix(mech: object) -> TypeGuard[FiniteRandomizer]:
    """Whether ``mech`` is a randomizer given by its exact matrix (a :class:`FiniteRandomizer` with rational entries,
    not k-RR, which has its own engine).  O(k_in · k_out)."""
    if not isinstance(mech, FiniteRandomizer) or isinstance(mech, KRR):
        return False
    return all(isinstance(v, fmpq) for row in mech.matrix() for v in row)


def check_matrix(
    mech: object, hint: str = "k-RR has its own engine: exact.shuffled.krr.delta_blanket_view"
) -> FiniteRandomizer:
    """``mech`` as a :class:`FiniteRandomizer` given by its exact matrix, or :class:`InvalidArgument` naming it (with
    ``hint``: where k-RR, which is refused here, is handled).  O(size of the matrix)."""
    if not is_matrix(mech):
        raise InvalidArgument(
            "mech",
            getattr(mech, "kind", type(mech).__name__),
            "must be a randomizer given by its exact matrix (exact.mechanisms.finite.FiniteRandomizer)",
            hint=hint,
        )
    assert isinstance(mech, FiniteRandomizer)
    return mech


_check = check_matrix


def pair_atoms(mech: FiniteRandomizer, x: int, x2: int, ee: fmpq) -> list[tuple[fmpq, fmpq]]:
    """The law of ``V`` (``L^ε_{x,x'}`` w.p. γ, else 0) as exact ``[(π, v)]``, equal values merged, sorted by value.
    ``ee`` an exact ``e^ε ≥ 1``.  O(k_out)."""
    g = mech.gamma()
    merged: dict = {fmpq(0): 1 - g}
    for v, w in amplification_law(mech, x, x2, exp_epsilon=ee):
        merged[v] = merged.get(v, fmpq(0)) + g * w
    return sorted(((p, v) for v, p in merged.items() if p != 0), key=lambda t: t[1])


def spread_atoms(atoms: list[tuple[fmpq, fmpq]], most: int = 4) -> list[tuple[fmpq, fmpq]]:
    """At most ``most`` (3 or 4) atoms ``[(π, v)]`` (sorted by value) whose law dominates ``atoms``' in the convex order:
    the extreme values and 0 are kept (and, for ``most = 4``, the most probable other atom), every other atom is split
    onto its two neighbouring kept values with its mean kept (see the module docstring).  Exact.
    O(len(atoms) log len(atoms))."""
    if most not in (3, 4):
        raise InvalidArgument("most", most, "must be 3 or 4 (the binomial engine takes four atoms)")
    if len(atoms) <= most:
        return list(atoms)
    lo, hi = atoms[0][1], atoms[-1][1]
    keep = {lo, hi, fmpq(0)}
    others = [(p, v) for p, v in atoms if v not in keep]
    if len(keep) < most and others:
        keep.add(max(others, key=lambda t: (t[0], t[1]))[1])
    kept = sorted(keep)
    mass = {v: fmpq(0) for v in kept}
    for p, v in atoms:
        if v in mass:
            mass[v] += p
            continue
        b = next(u for u in kept if u > v)
        a = max(u for u in kept if u < v)
        mass[a] += p * (b - v) / (b - a)
        mass[b] += p * (v - a) / (b - a)
    return [(mass[v], v) for v in kept if mass[v] != 0]


def atom_count(mech: FiniteRandomizer) -> int:
    """The number of atoms of ``V`` for a general ``e^ε`` (at special values some merge): one per output in the
    blanket's support, and the atom 0 when ``γ < 1``.  3 or fewer: the three-atom view is Lemma 5.3's own value.
    O(k_in · k_out)."""
    m = _check(mech)
    return sum(1 for w in m.blanket() if w != 0) + (1 if m.gamma() < 1 else 0)


def _engine_atoms(atoms: list[tuple[fmpq, fmpq]]) -> list:
    """The engine's order ``[bulk, t, t', rest]``: ``t`` the largest value, ``t'`` the smallest, ``rest`` the atom at 0
    when there is one, ``bulk`` the remaining one; zero-mass atoms fill the missing places.  ``atoms``: two to four
    atoms of positive mass, sorted by value, distinct values.  O(1)."""
    zero = fmpq(0)
    t, tn = atoms[-1], atoms[0]
    mid = list(atoms[1:-1]) + [(zero, zero)] * (4 - len(atoms))
    j = next((i for i, a in enumerate(mid) if a[1] == 0 and a[0] != 0), None)
    if j is None:
        j = next((i for i, a in enumerate(mid) if a[0] == 0), 1)
    return [mid[1 - j], t, tn, mid[j]]


def _hi(v: Enclosure) -> fmpq:
    """The upper end of an enclosure (an exact value is its own), as an ``fmpq``."""
    if isinstance(v, fmpq):
        return v
    hi = arith.endpoints(v)[1]
    return fmpq(hi.numerator, hi.denominator)


def _exact_exp(ee: Enclosure) -> fmpq:
    """``e^ε`` as an exact rational at or below it (at least 1 when ``e^ε ≥ 1``)."""
    if isinstance(ee, fmpq):
        return ee
    lo = arith.endpoints(arith.ball(ee))[0]
    return max(fmpq(1), fmpq(lo.numerator, lo.denominator))


def matrix_blanket_view(
    mech: FiniteRandomizer, n: int, *, atoms: int = 4, engine: str | None = None, **opts: Unpack[DeltaOptions]
) -> Enclosure:
    """A certified upper bound on δ(ε) of the shuffled matrix randomizer ``mech`` among ``n`` users, every pair of
    neighbouring datasets and both orders: Lemma 5.3's blanket view, maximised over ordered input pairs, on at most
    ``atoms`` (3 or 4) atoms per pair (exactly Lemma 5.3's value when no atom is spread).  With three atoms the
    engine's weak count is degenerate (exact up to the windowing, O(√n) at every n, but the spread loosens the
    value: a 3 × 3 matrix at n = 10⁴, δ ≈ 3·10⁻⁶, gives 1.4 times the four-atom δ); with four the engine's weak
    count carries a Jensen-gap enclosure (0.1–2 % wide at n = 10⁴..10⁶ for that matrix, seconds per call above
    n = 10³).  ``engine`` is passed to the binomial
    engine (``"1d-jensen"`` at large n, as the privacy curves use it).  Exactly 0 when ``ε ≥ ε0`` is certified.

    Keywords (:class:`~blanket.exact.numbers.types.DeltaOptions`): ``epsilon`` or ``exp_epsilon``; ``tol``,
    ``exact_max_n``.  Complexity: see the module docstring.

    >>> from blanket.exact.mechanisms.finite import FiniteRandomizer
    >>> from blanket.exact.shuffled.krr import delta_blanket_view
    >>> m = FiniteRandomizer([["1/2", "1/4", "1/4"], ["1/4", "1/2", "1/4"], ["1/6", "1/3", "1/2"]])
    >>> matrix_blanket_view(m, 6, exp_epsilon=fmpq(3, 2)) == delta_blanket_view(m, 6, exp_epsilon=fmpq(3, 2))
    True
    """
    m = _check(mech)
    if atoms not in (3, 4):
        raise InvalidArgument("atoms", atoms, "must be 3 or 4 (the binomial engine takes four atoms)")
    q = delta_args(m, n, opts, "matrix_blanket_view")
    if q is None:
        return fmpq(0)
    n, ee, tol, exact_max_n = q
    ee = _exact_exp(ee)
    g = m.gamma()
    if g == 0:
        raise InvalidArgument("mech", m.name, "has total-variation similarity gamma = 0: the blanket view is undefined")
    k = len(m.matrix())
    cands = []
    for x in range(k):
        for x2 in range(k):
            if x != x2:
                law = pair_atoms(m, x, x2, ee)
                if law[-1][1] <= 0:
                    continue  # Σ V ≤ 0 always: this pair's view is 0
                at = spread_atoms(law, atoms)
                cands.append((at, chernoff_upper(n, at)))
    if not cands:
        return fmpq(0)
    # the largest Chernoff bound first: it is likely the largest view, so the others are skipped sooner
    cands.sort(key=lambda c: -_hi(c[1]))
    best: Enclosure | None = None
    best_hi = fmpq(0)
    for at, ch in cands:
        if best is not None and _hi(ch) <= best_hi * (g * n):
            continue  # its view is at most the upper end reached: the maximum's upper end stays
        e = expected_positive_part(
            n, _engine_atoms(at), tol=tol, exact_max_n=exact_max_n, engine=engine, label=f"matrix blanket view n={n}"
        )
        v = e / (g * n)
        if best is None or _hi(v) > best_hi:
            best, best_hi = v, _hi(v)
    assert best is not None  # the first candidate is always evaluated
    return best
