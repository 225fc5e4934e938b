"""A privacy accountant for shuffled rounds, in the vocabulary of Google's dp_accounting — certified.

>>> from blanket.exact.accounting.accountant import ShuffleAccountant, ShuffledRR
>>> acc = ShuffleAccountant(neighbouring="replace-one")
>>> acc = acc.compose(ShuffledRR(k=2, epsilon0="1", n=1000), count=3)
>>> eps = acc.get_epsilon(target_delta="1e-6")
>>> eps.lower <= eps.upper and eps.pair_lower <= eps.upper, float(eps) >= eps.upper
(True, True)

* :class:`ShuffledRR` — one round: ``n`` users each randomise their value with
  k-ary randomized response at *local* level ``epsilon0``; a trusted shuffler
  releases the multiset of reports.  A frozen record (dp_accounting's
  ``DpEvent`` style); numbers are exact (strings, ints, Fractions; floats are
  accepted with their exact binary value).
* :class:`ShuffleAccountant` — ``compose(event, count)``,
  ``get_epsilon(target_delta)``, ``get_delta(target_epsilon)``; each answer is
  a :class:`CertifiedEpsilon` / :class:`CertifiedDelta` whose ``.upper`` is
  the safe answer (certified: the composed mechanism satisfies it) and whose
  ``.lower`` is a certified lower bound *on the mechanism itself* (the rounds
  run on one concrete pair of datasets, :func:`blanket.exact.accounting.pld.lower_pair`),
  so a claim below ``.lower`` is certainly false.  ``.pair_lower`` is the
  optimistic end of the PLD sandwich of the dominating pair (the
  discretisation's width is ``upper − pair_lower``).

How: dominating pairs → certified pessimistic/optimistic PLDs on a common grid
``Δ`` → ``arb_poly`` convolution (``exact.accounting.pld``, ``docs/composition.md``).
``rel_width`` (default 2 %) is the relative width ``(upper − lower)/upper`` of
the certified bracket of the *mechanism's* ε — what the CLI prints and what
``CertifiedEpsilon.rel_width`` reports.  The grid is the first of a few
passes, coarse to fine (``Δ ≈ ε0/400``, then ``Δ`` scaled by the observed PLD
sandwich width, which is about ``Σ count·Δ``), on which that bracket, with the
mechanism lower end at hand (binary RR's grid-free summed pair), is at most
``rel_width``, or else the dominating pairs' own sandwich ``(upper −
pair_lower)/upper`` is (the only criterion without a mechanism lower end;
``CertifiedEpsilon.sandwich_width``): never finer than the sandwich alone asks
(:meth:`ShuffleAccountant._auto_grid`, ``docs/composition.md`` §3 "Choosing
the grid").
Grids are dyadic rationals (exact in binary64, so the export to dp_accounting
keeps every loss on the grid it names).
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

from blanket.exact.accounting import banded as _banded
from blanket.exact.accounting import certified as _one
from blanket.exact.accounting import composition_cost as _cost
from blanket.exact.accounting import curve_pairs as _curve_pairs
from blanket.exact.accounting import curve_steps as _curve_steps
from blanket.exact.accounting import curves as _curves
from blanket.exact.accounting import geometric_lower as _geo_lower
from blanket.exact.accounting import matrix_lower as _matrix_lower
from blanket.exact.accounting import oracle_lower as _oracle_lower
from blanket.exact.accounting import pld as _pld
from blanket.exact.accounting import same_randomizer as _same
from blanket.exact.accounting import stratum_lower as _stratum
from blanket.exact.accounting import stronger_clones as _stronger
from blanket.exact.accounting import summed_lower as _summed
from blanket.exact.accounting.continuous_rounds import ShuffledContinuous
from blanket.exact.accounting.pairs import clone_pair  # noqa: F401  (moved below certified, re-exported here)
from blanket.exact.accounting.query import Query
from blanket.exact.mechanisms import oracles, registry
from blanket.exact.mechanisms.finite import KRR, Randomizer
from blanket.exact.mechanisms.registry import make_mechanism
from blanket.exact.numbers import arith
from blanket.exact.numbers import guards as _guards
from blanket.exact.numbers.errors import InvalidArgument, Undecided
from blanket.exact.numbers.types import Enclosure, NumberInput
from blanket.exact.shuffled import geometric_dataset as _geo_full
from blanket.exact.shuffled import matrix_view as _matrix_view
from blanket.exact.shuffled import oracle_third as _third
from blanket.exact.shuffled import sampled_binary as _sampled_binary
from flint import arb, fmpq

if TYPE_CHECKING:
    from blanket.exact.accounting.query import Query

NEIGHBOURING = ("replace-one",)
#: beyond ``LOWER_GRID_ROUNDS`` rounds the lower bound on the mechanism (a concrete pair of datasets) is composed on
#: the grid ``4Δ``: it is a bound, not one end of the sandwich, and its own discretisation slack (about ``4·T·Δ``)
#: is small beside its gap; this saves half of the work at T = 10^4.  (For binary RR that slack was most of the gap
#: at n = 10^4, T = 10^4: 0.15 of ε ≈ 5.12; the summed-count pair "low-sum", no grid, now decides there.)
LOWER_GRID_FACTOR = 4
LOWER_GRID_ROUNDS = 1000
#: a sampled round leaves its curve pair out of the curve route on a grid where that pair's discretised length
#: exceeds both CURVE_SKIP_POINTS and CURVE_SKIP_FACTOR times its dominating pair's
#: (:meth:`ShuffleAccountant._curve_too_long`; a choice only)
CURVE_SKIP_POINTS = 1 << 19
CURVE_SKIP_FACTOR = 16
#: the deciding lower kind refined (:meth:`ShuffleAccountant._refined_lower`): the finest of these factors (its grid
#: ``lower grid / f``) whose modelled cost (:func:`~blanket.exact.accounting.composition_cost.lower_refine_seconds`)
#: is at most ``REFINE_SHARE · max(REFINE_FACTORS)/f`` of the query's modelled cost (:meth:`ShuffleAccountant.estimate`
#: as in a fresh process): 10 % for ÷4, 20 % for ÷2.  The share grows as the factor falls, as the cost does (about
#: 2.1 times from ÷2 to ÷4), so a case is not decided on a knife edge between the two: 10-RR, ε0 = 1, n = 10⁶, T = 365
#: had ÷2 at 6.35 s modelled against a 6.67 s budget (one share for both, until session 12); now ÷4 13.2 s against
#: 6.67 and ÷2 6.35 against 13.3, each a factor 2 from its budget
REFINE_FACTORS = (4, 2)
REFINE_SHARE = 0.1


def refine_share(factor: int) -> float:
    """The share of the query's modelled cost the lower kind's refinement by ``factor`` may take (see
    :data:`REFINE_SHARE`).  O(1)."""
    return REFINE_SHARE * max(REFINE_FACTORS, default=factor) / factor


#: the composed lower pairs whose largest lower end is reported: the forward and backward concrete pairs of
#: ``lower_pair``, and the frequency oracles' third-value pair (``Shuffled.third_lower_pair``; issue 25); beside them,
#: not a PLD, the summed counts "low-sum" of binary RR, matrix and geometric rounds
#: (:meth:`ShuffleAccountant._summed_pairs`)
LOWER_KINDS = ("low-fwd", "low-bwd", "low-3", "low-3s")
#: the two-stratum lower pair ("low-3s") is composed up to this many users (its law's ball work grows like √n·log n;
#: OUE k = 128, ε0 = 1, T = 365: the query's CPU 6.8 -> 7.3 s at n = 10^4, 47 -> 55 s at 10^6, load 6-8)
STRATUM_MAX_N = 10**6
#: the JSON's name of the composed lower pair that gave the reported lower end
LOWER_NAMES = {
    "low-fwd": "concrete pair, forward",
    "low-bwd": "concrete pair, backward",
    "low-3": "third-value pair (frequency oracles; 3-ary RR for ldp; sampled rounds: k-RR with k >= 3 too, bottom an "
    "output; other rounds forward)",
    "low-3s": "third-value two-stratum count (frequency oracles; other rounds forward)",
    "low-sum": "summed counts of a concrete pair over the rounds (binary RR: the dataset c = 0; a matrix: its "
    "binarized count; geometric: its threshold count) (exact, no grid)",
    # the start of details["lower_pair"] when one round's own lower end decided; the rest names the one route used
    # (ShuffleAccountant._one_round_lower_name)
    "one-round": "one round alone, its own certified lower end on a concrete dataset",
}
#: the route of each one-round lower end (:meth:`ShuffleAccountant._one_round`'s ``lower_route``), in words
ONE_ROUND_LOWER_ROUTES = {
    "record": "a closed-form record's one-round lower search, exact.accounting.certified.lower_bound",
    "sampled-binary": "a sampled binary RR round's worst dataset (Lemma S4), exact.shuffled.sampled_binary",
    "sampled-full": "a sampled OUE/SUE round's third-value dataset, full view, "
    "exact.shuffled.oracle_third.sampled_full_lower",
}
#: binary RR rounds of at most this many users compose the worst-case privacy curve over all datasets
#: (:func:`blanket.exact.accounting.curves.binary_worst_pair`, O(n²): about a second at n = 256) instead of the
#: blanket view / stronger-clone pair; above it, the enumeration of every test of every dataset is too slow (the
#: windowed all-epsilon sweep that would lift this is issue 25's open part)
CURVE_AUTO_N = 256
#: above CURVE_AUTO_N and up to this many users, the worst-case curve is swept on a grid of CURVE_POINTS values of
#: alpha (:func:`blanket.exact.accounting.curves.binary_worst_curve_pair`, stepping datasets: O(n^{3/2}), seconds at
#: n = 10^5, minutes of CPU at n = 10^6) -- when the sweep's estimated cost
#: (:func:`blanket.exact.accounting.curve_steps.sweep_seconds`) is at most CURVE_SWEEP_SECONDS one-core seconds
#: (n = 10^6 at ε0 = 1: the model says 170 s, measured 161 one-core s on a loaded machine with the kernel of
#: 2026-11-29 morning (430 before), so a minute or two of wall time on two cores; the model now admits every ε0 up
#: to CURVE_GRID_N: at most 185 s, where the old one stopped near ε0 = 0.5); it brings binary RR's composed ε within
#: about 1 % of its lower end (n = 10^5, T = 365: ratio 1.005, against 1.25 for the blanket-view pair at n = 10^6).
#: Lower it to keep a run at n = 10^6 within seconds (the blanket-view pair then)
CURVE_GRID_N = 10**6
CURVE_SWEEP_SECONDS = 700.0
#: (512: binary RR n = 10^5, T = 365 composes to the same ratio 1.005 on 256 points as on 1024)
CURVE_POINTS = 512
#: rounds of k-RR (k >= 3), the four-value oracles and the geometric mechanism with at most this many users also
#: compose the hull of their best certified curve values (:func:`blanket.exact.accounting.curve_pairs.curve_pair`)
#: when the accountant's ``curves`` is "auto" (``True``: at every n); from curve_pairs.JENSEN_MIN_N = 10^3 users on,
#: k-RR and the oracles do so when the curve's estimated cost (:func:`blanket.exact.accounting.curve_pairs.curve_seconds`)
#: is at most CURVE_PAIR_SECONDS one-core seconds (the engine's Jensen route, O(sqrt n) per point: about 0.5-1 s at
#: n = 10^3, 1-2.5 s at 10^4, 9-21 s at 10^6 by the model; over the budget from about n = 2·10^8 for 10-RR and
#: 3.5·10^7 for OUE k = 128 at ε0 = 1); in between (the grid route, linear in n) when it is at most
#: CURVE_PAIR_MID_SECONDS
CURVE_PAIR_AUTO_N = 128
CURVE_PAIR_SECONDS = 120.0
#: between CURVE_PAIR_AUTO_N and curve_pairs.JENSEN_MIN_N users (the grid route, about 0.07 s per point at 10^3 users)
#: "auto" composes the curve when its estimated cost is at most this many one-core seconds (k-RR and the oracles: every
#: n there, at most about 6 s; 10-RR, ε0 = 1, n = 1000, T = 10, δ = 1e-6: upper end 0.482 -> 0.286, the one round's
#: blanket view being within 0.04 % of its third-value lower end).  Until 29 Nov 2026 the grid and blocked routes ran up
#: to 10^5 users and this budget kept the old pairs between about 2600 and 10^5 users (10-RR, n = 10^4, T = 365:
#: 0.6913 instead of 0.5504; docs/composition.md §5e "The mid range")
CURVE_PAIR_MID_SECONDS = 30.0
#: grid points of a curve pair under "auto" (``True`` uses curve_pairs.MAX_POINTS): about 0.1-0.2 s each at n = 128
CURVE_PAIR_AUTO_POINTS = 32
#: the pessimistic PLD of a curve pair (a FinitePair) splits each atom between its two neighbouring grid points
#: (keeping its P and Q masses: a dominating pair) instead of rounding its loss up
#: (:meth:`blanket.exact.accounting.curves.FinitePair.discretise`, ``split``): second-order error in the grid instead of
#: about Δ/2 per round (binary RR n = 10^4, T = 10^4: upper end 5.1751 -> 5.14 on the same grid)
SPLIT_ATOMS = True
#: the bracket within ``rel_width`` (:meth:`ShuffleAccountant._refine_bracket`): a query whose certified bracket is
#: wider than ``rel_width`` on the grid of the grid search runs again on the grid halved, at most this many times,
#: while the modelled cost of the passes (:meth:`ShuffleAccountant._bracket_pass_seconds`) stays within the budget:
#: ``refine_seconds`` (the CLI's ``--refine-seconds``), by default BRACKET_REFINE_SHARE times the query's modelled
#: cost and at least BRACKET_REFINE_MIN_SECONDS (10-RR, ε0 = 1, n = 10³, T = 365, δ = 10⁻⁶: 2.45 % on 5/32768, the
#: sandwich's grid, 1.74 % on 5/65536)
BRACKET_MAX_PASSES = 4
BRACKET_REFINE_SHARE = 2.0
BRACKET_REFINE_MIN_SECONDS = 10.0
#: a pass that narrows the bracket by less than this share of its width ends the refinement (the pairs' own gap)
BRACKET_MIN_GAIN = 0.05
ROUTES = {
    "PLD": "PLD (dominating pairs, pessimistic/optimistic discretisation, exact integer convolution)",
    "Renyi": "Renyi (the same dominating pairs: Renyi divergences added over rounds, CKS20 Prop. 12 conversion)",
    "basic": "basic composition of pure DP (each shuffled round is epsilon0-DP; epsilon <= sum of epsilon0, delta = 0)",
    "one round": "one round: the record's own certified one-round bounds (exact.accounting.certified: the smallest of "
    "its routes, the exact five-atom view among them)",
}
#: a single round (count 1) of a closed-form record (``ldp``, the four-value oracles, geometric;
#: :data:`blanket.exact.accounting.certified.ONE_ROUND_RECORDS`, not sampled) takes its own one-round certified ends
#: beside the composition's, the better of each; a composition with a record round that has no concrete lower pair
#: of its own (none since the geometric threshold count, geometric_lower; kept for such records) takes that round's one-round lower end (a composition is never below one of its rounds:
#: the others dropped, a post-processing).  docs/composition.md §5e "One round through the accountant".  (The
#: four-value and ``ldp`` rounds' one-round lower end was checked not to decide at T = 2: OUE k = 128, ε0 = 2,
#: n = 10³, δ = 1e-6: 0.2543 against the composed lower pairs' 0.3626, for 7.6 s more; ``ldp`` ε0 = 2: 0.3720 against
#: 0.5313.)  Not with ``curves=False`` (the fast route)
ONE_ROUND_NAME = "one round"


@runtime_checkable
class RoundEvent(Protocol):
    """A round record of another module that the accountant composes as it is (e.g.
    :class:`blanket.exact.accounting.sampled.Sampled`): its pair, lower pair, description, order and ε0."""

    @property
    def epsilon0(self) -> Fraction: ...

    def dominating_pair(self) -> Any: ...

    def lower_pair(self, direction: str = "forward") -> Any: ...

    def describe(self) -> str: ...

    def sort_key(self) -> tuple: ...


def _frac(q: fmpq) -> Fraction:
    return Fraction(int(q.p), int(q.q))


@dataclass(frozen=True)
class ShuffledRR:
    """One shuffled round of k-ary randomized response.

    ``k`` ≥ 2 (2 = binary RR), ``epsilon0`` ≥ 0 the *local* level (exact; a
    float is taken at its exact binary value), ``n`` ≥ 1 users (one report each).

    >>> ShuffledRR(k=2, epsilon0="1", n=10)
    ShuffledRR(k=2, epsilon0=Fraction(1, 1), n=10)
    >>> ShuffledRR(k=2, epsilon0="-1", n=10)
    Traceback (most recent call last):
    ...
    blanket.exact.numbers.errors.InvalidArgument: epsilon0 must be >= 0, got '-1'
    """

    k: int
    epsilon0: Fraction
    n: int

    def __init__(self, k=2, epsilon0=None, n=None):
        if epsilon0 is None:
            raise InvalidArgument("epsilon0", None, "must be given (the local level of the randomizer)")
        if n is None:
            raise InvalidArgument("n", None, "must be given (the number of users in the round)")
        object.__setattr__(self, "k", arith.integer_in(k, "k", lo=2))
        e0 = arith.exact_in(epsilon0, "epsilon0", lo=0, allow_float=True)
        object.__setattr__(self, "epsilon0", _frac(e0))
        object.__setattr__(self, "n", arith.integer_in(n, "n", lo=1))

    @classmethod
    def from_query(cls, q: Query) -> ShuffledRR:
        """The round of a validated :class:`~blanket.exact.accounting.query.Query` of k-ary RR given by an exact
        ε0 (nothing is validated again).

        >>> from blanket.exact.accounting.query import make_query
        >>> ShuffledRR.from_query(make_query(mechanism="krr", k=3, epsilon0="1/2", n=100))
        ShuffledRR(k=3, epsilon0=Fraction(1, 2), n=100)
        """
        if q.epsilon0 is None:  # given by e^{ε0}, or without a local level: not a ShuffledRR (use Shuffled)
            raise InvalidArgument("epsilon0", None, "must be given exactly for ShuffledRR (use Shuffled otherwise)")
        ev = object.__new__(cls)
        object.__setattr__(ev, "k", q.k)
        object.__setattr__(ev, "epsilon0", _frac(q.epsilon0))
        object.__setattr__(ev, "n", q.n)
        return ev

    def mechanism(self) -> KRR:
        return KRR(self.k, fmpq(self.epsilon0.numerator, self.epsilon0.denominator))

    def dominating_pair(self) -> _pld.ShiftPair | _curves.FinitePair:
        """Binary RR with ``2 ≤ n ≤ CURVE_AUTO_N``: the worst-case privacy curve over all datasets as a pair
        (:func:`blanket.exact.accounting.curves.binary_worst_pair`, the true curve up to float rounding); up to
        ``CURVE_GRID_N`` the hull of its certified values on ``CURVE_POINTS`` grid points
        (:func:`blanket.exact.accounting.curves.binary_worst_curve_pair`); otherwise the blanket-view pair
        (:func:`blanket.exact.accounting.pld.dominating_pair`)."""
        if _uses_curve(self.mechanism(), self.n):
            return _binary_curve_pair(self.mechanism(), self.n)
        return _pld.dominating_pair(self.mechanism(), self.n)

    def lower_pair(self, direction: str = "forward") -> _pld.ShiftPair | _banded.BandedPair:
        """A concrete pair of datasets, post-processed (a lower bound on the mechanism): :func:`krr_lower_pair`."""
        return krr_lower_pair(self.mechanism(), self.n, direction)

    def describe(self) -> str:
        return f"{'binary' if self.k == 2 else f'{self.k}-ary'} RR, epsilon0 = {self.epsilon0}, n = {self.n}"

    def sort_key(self) -> tuple:
        """Deterministic order of events in the composition (the result does not depend on it)."""
        return (0, self.k, self.epsilon0, self.n, "")


def krr_lower_pair(mech: KRR, n: int, direction: str = "forward") -> _pld.ShiftPair | _banded.BandedPair:
    """k-RR's concrete pair of datasets, post-processed (a lower bound on the mechanism).

    ``"forward"``: the count of the target's value (:func:`blanket.exact.accounting.pld.lower_pair`);
    ``"backward"``: for ``k = 2`` the same pair in the other order, for ``k ≥ 3`` the third-value family seen
    through the counts of ``x`` and ``x'`` with a garbling level per band of cells
    (:func:`blanket.exact.accounting.banded.lumped_banded_pair`; never below the one-level
    :func:`blanket.exact.accounting.pld.lumped_lower_pair`, tighter at large ``n``); the accountant uses the larger
    of the two.  O(bands).
    """
    if direction == "backward" and mech.k >= 3 and n >= 2:
        return _banded.lumped_banded_pair(mech, n)
    return _pld.lower_pair(mech, n, direction)


_CURVE_PAIRS: dict = {}
#: the local processes of the worst-case curve sweeps of the query being computed (:attr:`ShuffleAccountant.workers`,
#: set by :func:`_sweeps_on` around ``get_epsilon`` / ``get_delta``; ``None``: every core)
_SWEEP_WORKERS: list = [None]


@contextlib.contextmanager
def _sweeps_on(workers: int | None) -> Iterator[None]:
    old = _SWEEP_WORKERS[0]
    _SWEEP_WORKERS[0] = workers
    try:
        yield
    finally:
        _SWEEP_WORKERS[0] = old


def _binary_curve_pair(mech: KRR, n: int) -> _curves.FinitePair:
    """The worst-case privacy curve of shuffled binary RR ``mech`` with ``n`` users as a pair: the exact ROC hull
    (:func:`~blanket.exact.accounting.curves.binary_worst_pair`) for ``n ≤ CURVE_AUTO_N``, else the hull of its
    certified values on ``CURVE_POINTS`` grid points (:func:`~blanket.exact.accounting.curves.binary_worst_curve_pair`).
    Memoised per ``(ε0 or e^{ε0}, n)`` (a deterministic function of them; at most 64 kept)."""
    e0 = getattr(mech, "epsilon0_exact", None)
    key = (str(e0) if e0 is not None else "exp " + str(mech.exp_epsilon0()), n)
    if key not in _CURVE_PAIRS:
        if len(_CURVE_PAIRS) >= 64:
            _CURVE_PAIRS.clear()
        with arith.precision(128):
            _CURVE_PAIRS[key] = (
                _curves.binary_worst_pair(mech, n)
                if n <= CURVE_AUTO_N
                else _curves.binary_worst_curve_pair(
                    mech, n, points=CURVE_POINTS, progress=None, workers=_SWEEP_WORKERS[0]
                )
            )
    return _CURVE_PAIRS[key]


def _uses_curve(mech: Any, n: int, curves: bool | str = "auto") -> bool:
    """Whether a round of ``mech`` with ``n`` users composes the worst-case curve pair: binary RR with
    ``n ≤ CURVE_AUTO_N`` (the exact ROC hull, about a second), or ``n ≤ CURVE_GRID_N`` with (``curves="auto"``) the
    sweep's estimated cost within ``CURVE_SWEEP_SECONDS`` or (``curves=True``) at any cost; ``curves=False``: only
    the exact hull (the sweep is off: the blanket view above ``CURVE_AUTO_N``).  O(1)."""
    if not (isinstance(mech, KRR) and mech.k == 2 and 2 <= n <= CURVE_GRID_N):
        return False
    if n <= CURVE_AUTO_N:
        return True
    if curves is not True and curves != "auto":
        return False
    return curves is True or _sweep_seconds(mech, n) <= CURVE_SWEEP_SECONDS


def _sweep_seconds(mech: KRR, n: int) -> float:
    """The stepped sweep's estimated one-core seconds (:func:`curve_steps.sweep_seconds`) for binary RR ``mech``."""
    e0 = math.log(float(arb(mech.exp_epsilon0()).mid()))  # a cost model only, never a bound
    return _curve_steps.sweep_seconds(n, e0)


#: how a sampled matrix round's curve pair is named (docs/composition.md §5f, "A sampled matrix round's upper end")
SAMPLED_MATRIX_CURVE = "participation q exploited (the sampled round is the shuffle of R_q)"


def _kept_log_span(cp: _curves.FinitePair) -> float:
    """The span ``log r_max − log r_min`` of the finite positive likelihood ratios of ``cp`` whose atoms the
    discretisation keeps (:meth:`~blanket.exact.accounting.curves.FinitePair.discretise`: the tails of ``P``-mass at
    most ``DEFAULT_TRUNCATION/4`` each side are moved to ``+∞`` / the first kept point or dropped, the same rule on the
    atoms instead of the grid indices, so never narrower than the discretised PLD's span).  A tiny-``q`` curve pair
    keeps atoms at ``±ε0`` of mass about 10⁻⁴⁵ (the exact route's floor at the grid's flat top): the raw span was
    ``2ε0`` and the pair was left out (``_curve_too_long``) although its PLD spans ``O(q)``.  Floats choose only.
    O(atoms log atoms)."""
    tau = _pld.DEFAULT_TRUNCATION / 4
    atoms = sorted((r, p) for r, p, _q in cp.masses if r is not None and r > 0 and p > 0)
    if not atoms:
        return 0.0
    lo, s = 0, fmpq(0)
    while lo < len(atoms) - 1 and s + atoms[lo][1] <= tau:
        s += atoms[lo][1]
        lo += 1
    hi, s = len(atoms) - 1, fmpq(0)
    while hi > lo and s + atoms[hi][1] <= tau:
        s += atoms[hi][1]
        hi -= 1
    return math.log(float(atoms[hi][0])) - math.log(float(atoms[lo][0]))


def _plain_if_unsampled(ev: Any) -> Any:
    """``ev``, or for a :class:`~blanket.exact.accounting.sampled.Sampled` round with ``q = 1`` the plain round it
    wraps: every user takes part, so it is that round, and every route of the plain round applies (its one-round
    certified ends, its curve pair; the sampled views at ``q = 1`` are looser).  O(1)."""
    inner, q = getattr(ev, "event", None), getattr(ev, "q", None)
    if isinstance(inner, (ShuffledRR, Shuffled)) and q is not None and q == 1:
        return inner
    return ev


def _curve_event(ev: Any) -> Any:
    """``ev`` itself, or for a round with a ``curve_event()`` (:class:`~blanket.exact.accounting.sampled.Sampled`)
    the plain round it names (``None`` when it names none: then no curve pair).  O(1) after the first call."""
    ce = getattr(ev, "curve_event", None)
    return ce() if callable(ce) else ev


def _modelled_as(ev: Any) -> tuple:
    """``(event, None)``: ``ev`` costs what the plain round ``event`` costs (:meth:`ShuffleAccountant.estimate`'s
    models of :class:`ShuffledRR` / :class:`Shuffled`); ``(None, seconds)``: its own one-core estimate (the event's
    ``cost_model()``: sampled rounds, fleet rounds, continuous rounds; :mod:`~blanket.exact.accounting.composition_cost`);
    ``(ev, None)`` for a round without one (counted as unmodelled).  O(1) per event."""
    model = getattr(ev, "cost_model", None)
    return model() if callable(model) else (ev, None)


def _query_cost(ev: Any, rounds: int, discretise: bool = True) -> float:
    """The per-query seconds an event models apart from its pairs (``query_cost``: a fleet round's lower pairs with
    sampling), 0 for the others.  O(1)."""
    model = getattr(ev, "query_cost", None)
    return float(model(rounds, discretise=discretise)) if callable(model) else 0.0


def _binary_mechanism(ev: Any) -> KRR | None:
    """The binary RR record of a :class:`ShuffledRR` / :class:`Shuffled` round, else ``None``."""
    mech = ev.mechanism() if isinstance(ev, ShuffledRR) else getattr(ev, "mechanism", None)
    return mech if isinstance(ev, (ShuffledRR, Shuffled)) and isinstance(mech, KRR) and mech.k == 2 else None


def _summed_binary(ev: Any) -> KRR | None:
    """The binary RR whose summed counts are a lower pair of a :class:`ShuffledRR` / :class:`Shuffled` round: binary
    RR's own record, or for an ``ldp`` round binary RR with the same ε0 (one member of the class, as
    :meth:`Shuffled.lower_pair`: every such round run as binary RR is one concrete mechanism of the ledger, so the
    sum of its counts is a post-processing of it; docs/composition.md §5h), else ``None``.  O(1)."""
    mech = _binary_mechanism(ev)
    m = getattr(ev, "mechanism", None)
    if mech is None and isinstance(ev, Shuffled) and isinstance(m, oracles.LDP):
        mech = KRR(2, m.epsilon0) if m.epsilon0 is not None else KRR(2, exp_epsilon0=m.exp_epsilon0_exact)
    return mech


def _discretise_both(pair: Any, grid: fmpq, prec: int) -> tuple:
    """Both sides of a pair's PLD: a :class:`~blanket.exact.accounting.curves.FinitePair` by its own rounding, a
    ``ShiftPair`` by the survival kernel of :mod:`blanket.exact.accounting.pld`."""
    if isinstance(pair, _curves.FinitePair):
        return pair.discretise_both(grid, prec=prec, split=SPLIT_ATOMS)
    return _pld.discretise_both(pair, grid, prec=prec)


def _exp_epsilon0(mech: Randomizer) -> Enclosure:
    """``e^{ε0}`` of a :class:`Shuffled` round's ``mechanism``, refused when ε0 = ∞ (a randomizer that is not ε0-LDP
    for any finite ε0 has no dominating pair here; :func:`~blanket.exact.mechanisms.finite.finite_exp_epsilon0`
    with the argument's name)."""
    e = mech.exp_epsilon0()
    if e is None:
        raise InvalidArgument(
            "mechanism",
            getattr(mech, "name", mech),
            "has epsilon0 = infinity (supports differ): a shuffled round needs it finite",
        )
    return e


def _ldp_third_pair(mech: oracles.LDP, n: int) -> _pld.ShiftPair:
    """3-ary RR with the same ε0 as the ``ldp`` record, every other user on a third value, through the counts of
    ``x`` and ``x'`` (:func:`blanket.exact.accounting.pld.lumped_lower_pair`, a post-processing: a lower pair).
    O(1)."""
    return _pld.lumped_lower_pair(_ldp_three_rr(mech), n)


def _ldp_three_rr(mech: oracles.LDP) -> KRR:
    """3-ary RR with the same ε0 as the ``ldp`` record (one member of its class).  O(1)."""
    return KRR(3, mech.epsilon0) if mech.epsilon0 is not None else KRR(3, exp_epsilon0=mech.exp_epsilon0_exact)


def four_value_lower_pair(mech: oracles.FourValue, n: int, direction: str = "forward") -> _pld.ShiftPair:
    """A concrete pair of datasets for a four-value record of :mod:`exact.mechanisms.oracles`, post-processed.

    Datasets ``x^{n−1}x'`` vs ``x^n`` (forward) and the swap (backward).  Under ``Y ~ R(x)`` the ratio
    ``R(x')(Y)/R(x)(Y)`` is ``e`` w.p. ``b`` and ``1/e`` w.p. ``a`` (``ratio_law``); forward counts the reports
    with ratio ``e`` (others ``Bin(n−1, b)``, the differing user ``Bern(b·e)`` vs ``Bern(b)``), backward those
    with ratio ``1/e`` (``Bin(n−1, a)``; ``Bern(a)`` vs ``Bern(a/e)``).  A count is a post-processing of the
    shuffled view, so its δ is a certified lower bound on the mechanism's.

    Its entries are computed at :func:`~blanket.exact.mechanisms.oracles.cancellation_precision`: more bits at a
    large ε0 (SUE k = 3, n = 4, ε0 = 200: at 128 bits ``π_p`` was ``[± 7.5e27]`` and the loss range NaN).  O(1).
    """
    with arith.precision(oracles.cancellation_precision(mech)):
        a, b = mech.ratio_law()
        e = mech.exp_epsilon0()
        if direction == "forward":
            q, pp, pq = b, b * e, b
        else:
            q, pp, pq = a, a, a / e
    return _pld.ShiftPair(
        outer_n=n - 1,
        outer_q=None,
        inner_q=q,
        pi_p=pp,
        pi_q=pq,
        null=fmpq(0),
        kind="dataset",
        description=f"all other users hold x; the count of reports favouring {'x' if direction != 'forward' else 'x2'}",
    )


def geometric_as_binary(mech: Any) -> Any:
    """A truncated geometric mechanism with ``m = 2`` as binary RR (``e^{ε0} = 1/α``: the same 2 × 2 matrix, exactly;
    docs/mechanisms.md "m = 2 is binary RR"; registered ``Geometric m = 2 is binary RR``), every other record as it
    is.  O(1)."""
    if isinstance(mech, oracles.Geometric) and mech.m == 2:
        return mech.as_binary_rr()
    return mech


#: how a round of the plain ``ldp`` record is described: FMT21's model, which its bound (Lemma G1 [adaptive]) covers
LDP_MODEL_TITLE = (
    "any epsilon0-LDP randomizer (FMT21's model: randomizers chosen adaptively from earlier reports, applied to the "
    "randomly permuted data; Lemma G1; client-specific randomizers not covered)"
)
#: ... and of an ``ldp`` record stating one randomizer for every user (Lemma G1)
LDP_SAME_TITLE = "one epsilon0-LDP randomizer run by every user (Lemma G1)"


@dataclass(frozen=True, eq=False)
class Shuffled:
    """One shuffled round of any randomizer of the one vocabulary: ``Shuffled(mechanism, n)``.

    ``mechanism`` is a record (:func:`blanket.exact.mechanisms.registry.build`, ``make_mechanism``, ``blanket.KRR``)
    or a plain table such as ``{"type": "oue", "k": 128, "epsilon0": "1"}``.  Its dominating pair: k-ary RR the
    blanket-view pair (:func:`exact.accounting.pld.dominating_pair`); an ``ldp`` record the binary-RR blanket-view pair
    of Lemma G1 (FMT21's adaptive model, :func:`blanket.exact.accounting.same_randomizer.adaptive_pair`); every other
    ε0-LDP randomizer the FOCS 2021 clone pair (:func:`clone_pair`), or with ``same_randomizer=True`` (a matrix
    randomizer stated as one randomizer for every user) the same binary-RR blanket-view pair of Lemma G1.  Its lower pair (a concrete dataset): k-RR as :class:`ShuffledRR`; ``ldp`` binary
    RR with the same ε0 (one member of the class); the four-value records :func:`four_value_lower_pair`; a matrix
    its binarized concrete-dataset count (:mod:`blanket.exact.accounting.matrix_lower`); the geometric mechanism its
    threshold count (:mod:`blanket.exact.accounting.geometric_lower`), or up to its size limits the datasets' whole
    curve (:func:`blanket.exact.accounting.geometric_lower.curve_lower_pair`).  A geometric mechanism with ``m = 2`` is
    binary RR with ``e^{ε0} = 1/α`` (the same 2 × 2 matrix, docs/mechanisms.md) and is composed as that record.  The
    records with a triple hit law (OUE, SUE, subset selection, Hadamard response) also have the third-value pair
    (:meth:`third_lower_pair`) and, up to :data:`STRATUM_MAX_N` users, the two-stratum count
    (:meth:`stratum_lower_pair`), composed beside the others; the largest lower end is reported.

    >>> ev = Shuffled({"type": "ldp", "epsilon0": "1"}, 1000)
    >>> ev.dominating_pair().kind, ev.describe().startswith("any epsilon0-LDP randomizer (FMT21's model")
    ('lemma-g1', True)
    >>> one = Shuffled({"type": "ldp", "epsilon0": "1"}, 1000, same_randomizer=True)
    >>> one.dominating_pair().kind, one.describe()
    ('same-randomizer', 'one epsilon0-LDP randomizer run by every user (Lemma G1), epsilon0 = 1, n = 1000')
    """

    mechanism: Randomizer
    n: int
    stronger_clones: bool = False
    same_randomizer: bool = False

    def __init__(self, mechanism, n=None, *, stronger_clones: bool = False, same_randomizer: bool = False):
        if not isinstance(stronger_clones, bool):
            raise InvalidArgument("stronger_clones", stronger_clones, "must be True or False")
        if not isinstance(same_randomizer, bool):
            raise InvalidArgument("same_randomizer", same_randomizer, "must be True or False")
        object.__setattr__(self, "stronger_clones", stronger_clones)
        object.__setattr__(self, "same_randomizer", False)
        if isinstance(mechanism, Query):  # validated once: take its record and n as they are
            if n is not None:
                raise InvalidArgument("n", n, "must not be given with a Query (the query carries it)")
            if mechanism.mechanism is None:
                raise InvalidArgument("mechanism", mechanism.kind.value, "must have its local level (epsilon0)")
            _exp_epsilon0(mechanism.mechanism)
            object.__setattr__(self, "mechanism", geometric_as_binary(mechanism.mechanism))
            object.__setattr__(self, "n", mechanism.n)
            if stronger_clones:
                _stronger.check_condition(self.mechanism)
            self._state_same_randomizer(same_randomizer)
            return
        if isinstance(mechanism, dict):
            mechanism = make_mechanism(mechanism)
        if not hasattr(mechanism, "exp_epsilon0"):
            raise InvalidArgument(
                "mechanism",
                mechanism,
                "must be a randomizer record (blanket.exact.mechanisms.registry.build, make_mechanism, blanket.KRR)",
            )
        if n is None:
            raise InvalidArgument("n", None, "must be given (the number of users in the round)")
        mechanism = geometric_as_binary(mechanism)  # m = 2: binary RR itself (docs/mechanisms.md)
        _exp_epsilon0(mechanism)  # refused here, not at the first query: ε0 = ∞ has no dominating pair
        object.__setattr__(self, "mechanism", mechanism)
        object.__setattr__(self, "n", arith.integer_in(n, "n", lo=1))
        if stronger_clones:  # refused here when the randomizer is outside the class (or known only by epsilon0)
            _stronger.check_condition(mechanism)
        self._state_same_randomizer(same_randomizer)

    def _state_same_randomizer(self, asked: bool) -> None:
        """Record the statement "one randomizer for every user" (Lemma G1): asked here, or carried by an ``ldp``
        record (``LDP(…, same_randomizer=True)``, which it becomes).  Refused for any record other than ``ldp`` or a
        matrix (:func:`blanket.exact.accounting.same_randomizer.check_same_randomizer`).  O(1)."""
        m = self.mechanism
        if not (asked or getattr(m, "same_randomizer", False)):
            return
        _same.check_same_randomizer(m)
        if isinstance(m, oracles.LDP) and not m.same_randomizer:
            m = (
                oracles.LDP(m.epsilon0, same_randomizer=True)
                if m.epsilon0 is not None
                else oracles.LDP(exp_epsilon0=m.exp_epsilon0_exact, same_randomizer=True)
            )
            object.__setattr__(self, "mechanism", m)
        object.__setattr__(self, "same_randomizer", True)

    @property
    def epsilon0(self) -> Fraction:
        """A rational at or above ε0 (used only to choose the loss grid)."""
        e = _exp_epsilon0(self.mechanism)
        with arith.precision(64):
            return arith.endpoints(arith.ball(e).log())[1]

    def _is_krr(self) -> bool:
        return isinstance(self.mechanism, KRR)

    def dominating_pair(self) -> _pld.ShiftPair | _curves.FinitePair:
        """Binary RR up to ``CURVE_GRID_N`` users: the worst-case curve pair (as :class:`ShuffledRR`); other k-RR:
        the blanket-view pair; ``ldp``: Lemma G1's binary-RR blanket-view pair (FMT21's adaptive model,
        :func:`blanket.exact.accounting.same_randomizer.adaptive_pair`); every other randomizer: the clone pair, or with
        ``same_randomizer`` (one matrix randomizer for every user, Lemma G1) the binary-RR blanket-view pair
        (:func:`blanket.exact.accounting.same_randomizer.same_randomizer_pair`), or with ``stronger_clones`` (the
        condition checked on its matrix) the SODA 2023 stronger-clone pair
        (:func:`blanket.exact.accounting.stronger_clones.stronger_clone_pair`)."""
        if isinstance(self.mechanism, KRR) and _uses_curve(self.mechanism, self.n):
            return _binary_curve_pair(self.mechanism, self.n)
        if isinstance(self.mechanism, KRR):
            return _pld.dominating_pair(self.mechanism, self.n)
        if self.same_randomizer:  # Lemma G1: the binary-RR blanket-view pair dominates at every alpha
            return _same.same_randomizer_pair(self.mechanism, self.n)
        if isinstance(self.mechanism, oracles.LDP):  # FMT21's model: Lemma G1 [adaptive], the same pair
            return _same.adaptive_pair(self.mechanism, self.n)
        if self.stronger_clones:
            return _stronger.stronger_clone_pair(self.mechanism, self.n)
        return clone_pair(self.mechanism, self.n)

    def lower_pair(self, direction: str = "forward") -> _pld.ShiftPair | _banded.BandedPair | _curves.FinitePair | None:

        m = self.mechanism
        if isinstance(m, KRR):
            return krr_lower_pair(m, self.n, direction)
        if isinstance(m, oracles.LDP):
            rr = KRR(2, m.epsilon0) if m.epsilon0 is not None else KRR(2, exp_epsilon0=m.exp_epsilon0_exact)
            return _pld.lower_pair(rr, self.n, direction)
        if isinstance(m, oracles.FourValue):
            return four_value_lower_pair(m, self.n, direction)
        if isinstance(m, oracles.Geometric) and self.n >= 2:
            # the datasets (m-1, 0^(n-1)) vs 0^n through the ROC hull of their whole curve (geometric_lower.
            # curve_lower_pair, §5e); beyond its size limits the reports counted above a threshold (§5e)
            curve = _geo_lower.curve_lower_pair(m, self.n, direction)
            return curve if curve is not None else _geo_lower.shift_pair(m, self.n, direction)
        if _matrix_view.is_matrix(m) and self.n >= 2:
            # one concrete dataset, the reports binarized (exact.accounting.matrix_lower, docs/composition.md §5e)
            return _matrix_lower.shift_pair(_matrix_lower.composition_choice(m), self.n, direction)
        return None

    def has_lower_pair(self) -> bool:
        """Whether :meth:`lower_pair` gives a pair, decided without building a geometric round's (its dataset curve's
        lattice sums take seconds; :meth:`ShuffleAccountant.estimate` asks): a geometric round has one from 2 users on
        (its dataset curve or its threshold count).  O(1) for geometric, else :meth:`lower_pair`'s cost."""
        if isinstance(self.mechanism, oracles.Geometric):
            return self.n >= 2
        return self.lower_pair() is not None

    def third_lower_pair(self) -> _pld.ShiftPair | None:
        """The frequency oracles' composable third-value lower pair
        (:func:`blanket.exact.accounting.oracle_lower.third_value_lower_pair`, the zero-hit or the hits statistic;
        one pair for both orders); for ``ldp`` 3-ary RR with the same ε0 and every other user on a third value, seen
        through the counts of ``x`` and ``x'`` (:func:`blanket.exact.accounting.pld.lumped_lower_pair`; one member of
        the class, worse than binary RR at ε0 = 2, n = 10³: docs/mechanisms.md); or ``None`` (no triple law, e.g.
        local hashing without a stated ``triple``; not a four-value record).  O(1)."""
        m = self.mechanism
        if isinstance(m, oracles.FourValue):
            return _oracle_lower.third_value_lower_pair(m, self.n)
        if isinstance(m, oracles.LDP) and self.n >= 2:
            return _ldp_third_pair(m, self.n)
        return None

    def stratum_lower_pair(self) -> _stratum.StratumPair | None:
        """The frequency oracles' two-stratum lower pair (:func:`blanket.exact.accounting.stratum_lower.
        two_stratum_pair`: one weighted count of the informative reports of both strata ``h_z = 0, 1``), composed as
        "low-3s" beside "low-3"; ``None`` for the other records and above :data:`STRATUM_MAX_N` users (its law costs
        ``O(√n log n)`` ball work there).  O(1) (the law is computed when it is discretised)."""
        m = self.mechanism
        if isinstance(m, oracles.FourValue) and 2 <= self.n <= STRATUM_MAX_N:
            return _stratum.two_stratum_pair(m, self.n)
        return None

    def third_lower_bands(self) -> _banded.BandedPair | _pld.ShiftPair | None:
        """:meth:`third_lower_pair` with a garbling level per band of cells
        (:func:`blanket.exact.accounting.oracle_lower.third_value_banded_pair`): the pair the accountant composes as
        "low-3" (never below the one-level pair's lower end by more than rounding: each band's level is at least
        the one level).  O(bands)."""
        m = self.mechanism
        if isinstance(m, oracles.FourValue):
            return _oracle_lower.third_value_banded_pair(m, self.n)
        if isinstance(m, oracles.LDP) and self.n >= 2:  # ldp's 3-RR pair, banded the same way
            return _banded.lumped_banded_pair(_ldp_three_rr(m), self.n)
        return None

    def describe(self) -> str:

        kind = getattr(self.mechanism, "kind", None)
        if kind is None or kind not in registry.WORDS:
            title = f"{getattr(self.mechanism, 'k', '?')}-ary RR" if self._is_krr() else "randomizer"
        else:
            title = registry.SCHEMAS[registry.resolve(kind)].title
        if isinstance(self.mechanism, oracles.LDP):  # the model the bound covers, in words (docs/mechanisms.md)
            title = LDP_SAME_TITLE if self.same_randomizer else LDP_MODEL_TITLE
        elif self.same_randomizer:
            title += " run by every user (Lemma G1)"
        d = getattr(self.mechanism, "describe", None)
        ps = {k: v for k, v in d().items() if k not in ("type", "same_randomizer")} if callable(d) else {}
        params = ", ".join(f"{k} = {v}" for k, v in ps.items())
        return f"{title}, {params + ', ' if params else ''}n = {self.n}"

    def sort_key(self) -> tuple:
        return (1, 0, self.epsilon0, self.n, self.describe())


def _round_up_float(q: Fraction) -> float:
    x = float(q)
    if Fraction(x) < q:
        x = math.nextafter(x, math.inf)
    return x


@dataclass(frozen=True)
class _Certified:
    lower: Fraction
    upper: Fraction
    pair_lower: Fraction
    grid: Fraction
    rounds: int
    quantity: str = ""
    #: the route whose certified upper end is reported: "PLD" or "Renyi" (the smaller one wins)
    route: str = "PLD"
    #: the PLD route's and the Rényi route's certified upper ends (``None`` where a route certifies nothing finite)
    pld_upper: Fraction | None = None
    renyi_upper: Fraction | None = None
    renyi_order: Fraction | None = None
    details: dict = field(default_factory=dict, compare=False, repr=False)

    def __float__(self) -> float:
        """The safe answer: the upper end rounded up to a binary64."""
        if self.upper == math.inf:
            return math.inf
        return _round_up_float(self.upper)

    @property
    def rel_width(self) -> Fraction:
        """Relative width ``(upper − lower)/upper`` of the certified bracket of the *mechanism's* value (what the CLI
        prints; 1 when no round has a concrete lower pair, 0 when ``upper`` is 0).  The accountant's ``rel_width``
        bounds it when a mechanism lower end is at hand (:meth:`ShuffleAccountant._auto_grid`).  O(1)."""
        if self.upper == math.inf:
            return Fraction(1)
        return (self.upper - self.lower) / self.upper if self.upper else Fraction(0)

    @property
    def sandwich_width(self) -> Fraction:
        """Relative width ``(upper − pair_lower)/upper`` of the dominating pairs' PLD sandwich (the discretisation's
        width; what ``rel_width`` meant before 29 Nov 16:00; its upper end is the PLD route's when a single round's own
        bound decided the reported one, ``route`` "one round").  O(1)."""
        up = self.pld_upper if self.route == ONE_ROUND_NAME and self.pld_upper is not None else self.upper
        if up == math.inf:
            return Fraction(1)
        return (up - self.pair_lower) / up if up else Fraction(0)

    def __str__(self):
        lo = arith.decimal_string(fmpq(self.lower.numerator, self.lower.denominator), 8, up=False)
        up = (
            "inf"
            if self.upper == math.inf
            else arith.decimal_string(fmpq(self.upper.numerator, self.upper.denominator), 8, up=True)
        )
        return f"{self.quantity} in [{lo}, {up}] (certified; report {up})"


class CertifiedEpsilon(_Certified):
    """Certified ε(δ) of the composition: the true value lies in ``[lower, upper]``; report ``upper``."""


class CertifiedDelta(_Certified):
    """Certified δ(ε) of the composition: the true value lies in ``[lower, upper]``; report ``upper``."""


_C = TypeVar("_C", bound=_Certified)


def _dyadic_below(x: float) -> Fraction:
    """A dyadic rational ≤ x with 4 significant bits (exact in binary64)."""
    if not x > 0:
        raise InvalidArgument("grid", x, "must be > 0")
    m = math.floor(math.log2(x)) - 3
    num = max(1, math.floor(x / 2.0**m))
    return Fraction(num) * Fraction(2) ** m


#: the most rounds one accountant composes (the total over its ledger, checked when a round is added, before any
#: work): the composed PLD's support and the grid refinement both grow with the number of rounds
MAX_ROUNDS = 10**7  # "1e7" in the message below


def _sci(x: int) -> str:
    """``3.65e9`` style (``str`` of a small integer as is).  O(1)."""
    if x < 10**6:
        return str(x)
    m, e = f"{x:.3g}".split("e")
    return f"{m}e{int(e)}"


def check_total_rounds(total: int, *, name: str, value: object, what: str = "") -> None:
    """Refuse (InvalidArgument naming ``name``) a composition of ``total`` rounds above :data:`MAX_ROUNDS`. O(1)."""
    if total > MAX_ROUNDS:
        raise InvalidArgument(
            name,
            value,
            f"would compose {_sci(total)} rounds{what}; at most 1e7 are supported",
            hint="the composed privacy loss distribution grows with the number of rounds; compose fewer rounds",
        )


def _loss_scale(ev: Any) -> Fraction:
    """A scale of a round's privacy loss for choosing grids: ε0, or the round's own ``loss_scale`` (Gaussian)."""
    return getattr(ev, "loss_scale", None) or ev.epsilon0


def _unbounded(ledger: list) -> bool:
    """Whether some round's dominating pair has mass at ``+∞`` (a continuous round that is not ε0-LDP)."""
    return any(isinstance(ev, ShuffledContinuous) and ev.epsilon0 is None for ev, _ in ledger)


class ShuffleAccountant:
    """Composes shuffled rounds with certified privacy loss distributions (see the module docstring).

    ``neighbouring``: ``"replace-one"`` (the shuffle model keeps ``n`` fixed).
    ``grid``: the loss discretisation interval Δ (exact, > 0), or ``None`` to
    choose it (:meth:`_auto_grid`) so that the certified bracket of the mechanism's ε is at most ``rel_width`` wide
    relative to its upper end (``(upper − lower)/upper``, default 2 %), or, where no mechanism lower end is at hand
    or it cannot get there, the dominating pairs' PLD sandwich ``(upper − pair_lower)/upper`` is.
    ``curves``: ``"auto"`` (default), ``True`` or ``False``: whether rounds of k-RR (k ≥ 3), the four-value oracles,
    the geometric mechanism, matrix randomizers and stronger-clone randomizers also compose their *curve pairs* (the
    hull of the best certified values of their privacy curve, :func:`blanket.exact.accounting.curve_pairs.curve_pair`;
    a matrix's from its own blanket view, docs/composition.md §5e); ``"auto"`` does it up to
    :data:`CURVE_PAIR_AUTO_N` users, and above where the cost model admits it (matrices at every n).  The curve route is composed beside the dominating-pair route
    and the smaller certified upper end is reported (so it is never looser), ``details["pair_route"]`` naming it.
    ``workers``: the local processes of binary RR's worst-case curve sweeps (``None``: every core), also what
    :meth:`estimate` spreads the sweep over; the values do not depend on it.
    ``one_round_rel_tol``: the relative tolerance of the one-round searches of ε (:meth:`_one_round`: a single round
    of a closed-form record reports the better of its own certified one-round ends and the composition's).
    """

    def __init__(
        self,
        neighbouring: str = "replace-one",
        *,
        grid=None,
        rel_width="0.02",
        prec: int = 128,
        curves="auto",
        workers: int | None = None,
        one_round_rel_tol="1e-6",
        refine_seconds=None,
    ):
        if neighbouring not in NEIGHBOURING:
            raise InvalidArgument(
                "neighbouring",
                neighbouring,
                f"must be one of {NEIGHBOURING}",
                hint="add/remove neighbours change n, which a shuffled round fixes",
            )
        self.neighbouring = neighbouring
        self.grid = None if grid is None else _frac(_pld.parse_grid(grid))
        self.rel_width = _frac(arith.exact_in(rel_width, "rel_width", lo=0, hi=1, lo_open=True))
        self.prec = prec
        if curves not in ("auto", True, False):
            raise InvalidArgument("curves", curves, "must be 'auto', True or False")
        self.curves = curves
        if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
            raise InvalidArgument("workers", workers, "must be a positive integer (or None for every core)")
        self.workers = workers
        #: the relative tolerance of the one-round searches of ε (:meth:`_one_round`; ``blanket epsilon``'s default)
        self.one_round_rel_tol = arith.exact_in(one_round_rel_tol, "one_round_rel_tol", lo=0, hi="0.5", lo_open=True)
        #: inside ``estimate(budget=True)`` and the picture's ``get_delta(refine=False)``: a single round's curve pair
        #: is modelled / composed as before the skip (_one_round_only)
        self._curve_as_before = False
        #: inside :meth:`choose_grid`: the sampled full view's one-round lower search is left out (:meth:`_one_round`)
        self._without_lower_search = False
        #: the modelled one-core seconds the bracket's refinement may spend (:meth:`_bracket_budget`; ``None``: its
        #: default, 0: no refinement)
        self.refine_seconds = (
            None
            if refine_seconds is None
            else float(arith.exact_in(refine_seconds, "refine_seconds", lo=0, hi=10**7, allow_float=True))
        )
        self._ledger: list = []
        self._cache: dict = {}

    # ---------------------------------------------------------------- composition
    def compose(
        self, event: ShuffledRR | Shuffled | ShuffledContinuous | RoundEvent, count: int = 1
    ) -> ShuffleAccountant:
        """Add ``count`` rounds of ``event`` (returns ``self``, as dp_accounting does).

        ``event`` may also be a validated :class:`~blanket.exact.accounting.query.Query` (``blanket.make_query``):
        k-ary RR with an exact ε0 becomes a :class:`ShuffledRR`, any other randomizer a :class:`Shuffled` round.
        A ``Sampled(event, q=1)`` round is composed (and listed in :attr:`ledger`) as ``event`` itself.  O(1).
        """

        if isinstance(event, Query):
            rr = event.kind in registry.RR_KINDS and event.epsilon0 is not None
            event = ShuffledRR.from_query(event) if rr else Shuffled(event)
        if not isinstance(event, (ShuffledRR, Shuffled, ShuffledContinuous, RoundEvent)):  # RoundEvent: e.g. Sampled
            raise InvalidArgument(
                "event",
                event,
                "must be a ShuffledRR, Shuffled, ShuffledContinuous or Sampled record (or a query: blanket.make_query)",
                hint="dp_accounting events are not shuffled rounds; see to_dp_accounting() for the other way",
            )
        count = arith.integer_in(count, "count", lo=1)
        check_total_rounds(self.rounds + count, name="count", value=count, what=" in all")
        event = _plain_if_unsampled(event)
        self._ledger.append((event, count))
        self._cache.clear()
        return self

    @property
    def ledger(self) -> tuple:
        """``((event, count), …)`` in the order composed (the result does not depend on the order)."""
        return tuple(self._ledger)

    @property
    def rounds(self) -> int:
        return sum(c for _, c in self._ledger)

    def _need(self):
        if not self._ledger:
            raise InvalidArgument(
                "accountant", "empty", "has no rounds composed yet", hint="call compose(event, count) first"
            )

    def _curve_points(self, ev: Any) -> int | None:
        """The grid points of the round's curve pair when this accountant composes one for it (see ``curves``), else
        ``None``; decided from the parameters alone (the cost model, nothing is computed).  A round with a
        ``curve_event()`` (a sampled matrix round: the plain round of ``R_q``, docs/composition.md §5f) is decided
        as that plain round.  O(1)."""
        ev = _curve_event(ev)
        if self.curves is False or not isinstance(ev, (ShuffledRR, Shuffled)):
            return None  # another RoundEvent (e.g. sampled.Sampled) composes its own pair
        if self._one_round_only():
            return None  # "auto", one round: its own certified routes give both ends (_one_round_only)
        mech = ev.mechanism() if isinstance(ev, ShuffledRR) else ev.mechanism
        sc = bool(getattr(ev, "stronger_clones", False))
        if isinstance(mech, KRR) and mech.k == 2:
            return None  # binary RR composes its own worst-case curve (curves.py) or the blanket view, exact
        if not _curve_pairs.has_curve(mech, stronger_clones=sc) or ev.n < 2:
            return None
        if self.curves == "auto" and ev.n > CURVE_PAIR_AUTO_N:
            # a matrix randomizer's own views are cheap at every n (its three-atom view: O(sqrt n) per pair): the
            # cost model alone decides; the others' blanket views run the grid route below JENSEN_MIN_N
            mid = ev.n < _curve_pairs.jensen_min_n(mech) and not _matrix_view.is_matrix(mech)
            # the decision is on the base grid (a query's band adds at most curve_pairs.TARGET_POINTS, counted by
            # estimate()), so which rounds compose a curve does not depend on the band pass
            est = _curve_pairs.curve_seconds(mech, ev.n, CURVE_PAIR_AUTO_POINTS, 0)
            if est is None or est > (CURVE_PAIR_MID_SECONDS if mid else CURVE_PAIR_SECONDS):
                return None
        return CURVE_PAIR_AUTO_POINTS if self.curves == "auto" else _curve_pairs.MAX_POINTS

    def _one_round_only(self) -> bool:
        """Whether, under ``curves="auto"``, this ledger is a single round (``rounds == 1``) whose curve pair is not
        composed because it provably cannot narrow the answer beyond the search tolerance (docs/composition.md §5e
        "One round through the accountant", "No curve pair for one round"): one sampled binary RR round whose exact
        worst case over every dataset is affordable (:func:`~blanket.exact.shuffled.sampled_binary.affordable`;
        Lemma S4).  :meth:`_one_round` then gives both ends, the lower one attained by a dataset, so every certified
        upper end (the curve pair's included) is at or above it: leaving the curve pair out widens the upper end by
        at most the one-round bracket's own width (the search's ``one_round_rel_tol`` for ε, the enclosure's width
        for δ).  A plain round of a closed-form record (session 14 skipped its curve pair too) composes it: its
        one-round bracket is 2-30 % wide, and the curve's hull can lie below every one-round route between grid
        points where two of its sources cross, so nothing bounds what the skip would lose.  The dominating and lower
        pairs are composed as always.  ``curves=True`` composes the curve pair; two or more rounds too.  The
        refinement budgets (:meth:`_refine_factor`, :meth:`_bracket_budget`) still count the skipped curve pair
        (``estimate(budget=True)``), so the lower pairs are refined as before; the picture's
        ``get_delta(refine=False)`` (no one-round route per point) composes it as before (:meth:`picture_estimate`
        counts it).  Decided from the ledger alone.  O(1)."""
        if self.curves != "auto" or self.rounds != 1 or len(self._ledger) != 1 or self._curve_as_before:
            return False
        ev = self._ledger[0][0]
        plain = _curve_event(ev)
        return (
            plain is not ev
            and isinstance(plain, Shuffled)
            and plain.n >= 2
            and bool(getattr(plain.mechanism, "exact_binary_worst", False))
            and _sampled_binary.affordable(plain.n, getattr(plain.mechanism, "participation", 1))
        )

    def _curve_of(self, ev: Any, target: tuple | None = None) -> _curves.FinitePair | None:
        """The round's curve pair (:func:`blanket.exact.accounting.curve_pairs.curve_pair`) when this accountant
        composes one for it (see ``curves``; a sampled matrix / oracle round: its ``R_q``'s, ``_curve_event``), else ``None``; ``target``: the query's band of curve values
        (:func:`blanket.exact.accounting.curve_pairs.query_band`), refined on top of the base grid.  Memoised in
        curve_pairs."""
        pts = self._curve_points(ev)
        if pts is None:
            return None
        plain = _curve_event(ev)
        assert isinstance(plain, (ShuffledRR, Shuffled))  # _curve_points gave a grid
        mech = plain.mechanism() if isinstance(plain, ShuffledRR) else plain.mechanism
        sc = bool(getattr(plain, "stronger_clones", False))
        same = bool(getattr(plain, "same_randomizer", False))
        pair = _curve_pairs.curve_pair(
            mech, plain.n, stronger_clones=sc, same_randomizer=same, max_points=pts, target=target
        )
        if plain is not ev:  # the sampled round's: name R_q (the memoised pair keeps its own description)
            inner = getattr(getattr(ev, "event", None), "mechanism", None)
            what = (  # an ldp round: binary RR's R_q, Lemma G1 [sampled] (docs/mechanisms.md)
                f"{_same.SAMPLED_DESCRIPTION_START}: binary RR's sampled randomizer R_q"
                if isinstance(inner, oracles.LDP)
                else "the sampled randomizer R_q"
            )
            pair = dataclasses.replace(
                pair, description=f"{pair.description}; {what} of n = {plain.n} users, {SAMPLED_MATRIX_CURVE}"
            )
        return pair

    def _summed_pairs(self) -> list | None:
        """Both orders of binary RR's summed-count lower pair (:mod:`blanket.exact.accounting.summed_lower`) for each
        group of the ledger's binary RR rounds (``ldp`` rounds as binary RR with their ε0, :func:`_summed_binary`) with
        one ``e^{ε0}`` and one participation ``q`` (``Sampled`` rounds),
        and the forward summed binarized count of each group of matrix rounds with one choice and one ``q``
        (:func:`blanket.exact.accounting.matrix_lower.summed_pair`), and both orders of the summed threshold count of each
        group of geometric rounds with one record and one ``q`` (:func:`blanket.exact.accounting.geometric_lower.
        summed_pairs`); rounds of other kinds are left out (a
        post-processing); ``None`` without such rounds.  Memoised until the next ``compose``.  O(ledger entries)."""
        if "summed" not in self._cache:
            groups: dict = {}
            matrix_groups: dict = {}
            geo_groups: dict = {}
            for ev, cnt in self._ledger:
                inner, q = getattr(ev, "event", None), getattr(ev, "q", None)  # a sampled.Sampled round
                if isinstance(inner, (ShuffledRR, Shuffled)) and isinstance(q, Fraction):
                    mech, qq = _summed_binary(inner), fmpq(q.numerator, q.denominator)
                else:
                    mech, qq = _summed_binary(ev), fmpq(1)
                if mech is None:
                    base = inner if isinstance(q, Fraction) else ev  # a sampled matrix round: its inner Shuffled
                    if isinstance(base, Shuffled) and isinstance(base.mechanism, oracles.Geometric) and base.n >= 2:
                        # a geometric round: the sum of its threshold counts (one choice per record and q)
                        g = base.mechanism
                        gkey = ("geometric", g.m, str(g.alpha_exact), str(g.epsilon0), str(qq))
                        _g, _c, others, rounds = geo_groups.get(gkey, (g, _geo_lower.geometric_choice(g, qq), 0, 0))
                        geo_groups[gkey] = (g, _c, others + cnt * (base.n - 1), rounds + cnt)
                    elif isinstance(base, Shuffled) and _matrix_view.is_matrix(base.mechanism) and base.n >= 2:
                        # a matrix round: the sum of its binarized counts (one choice per matrix and q, matrix_lower)
                        c = _matrix_lower.sampled_choice(base.mechanism, qq)
                        mkey = ("matrix", c.q_z, c.q_x, c.q_x2, str(qq))
                        _c, _qq, others, rounds = matrix_groups.get(mkey, (c, qq, 0, 0))
                        matrix_groups[mkey] = (c, qq, others + cnt * (base.n - 1), rounds + cnt)
                    continue
                key = (str(mech.exp_epsilon0()), str(qq))
                m, _q, others, rounds = groups.get(key, (mech, qq, 0, 0))
                groups[key] = (m, qq, others + cnt * (ev.n - 1), rounds + cnt)
            pairs = [sp for m, qq, o, r in groups.values() for sp in _summed.summed_pairs(m, o, r, qq)]
            pairs += [_matrix_lower.summed_pair(c, o, r, qq) for c, qq, o, r in matrix_groups.values()]
            pairs += [sp for g, c, o, r in geo_groups.values() for sp in _geo_lower.summed_pairs(g, c, o, r)]
            self._cache["summed"] = pairs or None
        return self._cache["summed"]

    def _stratum_pair(self, ev: Any) -> _stratum.StratumPair | None:
        """The round's two-stratum lower pair (:meth:`Shuffled.stratum_lower_pair`), memoised per round (its law is
        computed once for every grid).  O(1)."""
        key = ("stratum", ev)
        if key not in self._cache:
            f = getattr(ev, "stratum_lower_pair", None)
            self._cache[key] = f() if f is not None else None
        return self._cache[key]

    def _has_third(self) -> bool:
        """Whether a round has the oracles' third-value lower pair (then the lower end also composes "low-3": that
        pair where a round has it, the forward lower pair elsewhere)."""
        return any(getattr(ev, "third_lower_pair", lambda: None)() is not None for ev, _ in self._ledger)

    def _dominating(self, ev: Any) -> Any:
        """The round's dominating pair as this accountant composes it: the event's own, except that binary RR follows
        ``curves`` (``False``: no sweep, the blanket view above ``CURVE_AUTO_N``; ``True``: the sweep up to
        ``CURVE_GRID_N`` whatever it costs)."""
        mech = _binary_mechanism(ev)
        if mech is None or self.curves == "auto":
            return ev.dominating_pair()
        if _uses_curve(mech, ev.n, self.curves):
            return _binary_curve_pair(mech, ev.n)
        return _pld.dominating_pair(mech, ev.n)

    def estimate(
        self,
        workers: int | None = None,
        *,
        fresh: bool = False,
        refine: bool = True,
        delta_band: bool = True,
        one_round: bool = True,
        budget: bool = False,
        quantity: str = "epsilon",
    ) -> _cost.CompositionCost:
        """An estimate of one composed query (``get_epsilon``/``get_delta``) of this ledger, from the cost models
        alone (:mod:`blanket.exact.accounting.composition_cost`): the worst-case curve sweeps of binary RR (on
        ``workers`` cores, default every available core, as the sweep runs), the curve pairs (a sampled round's: its
        ``R_q``'s, :meth:`_curve_pair_seconds`), a geometric round's dataset-curve lower pair
        (:func:`~blanket.exact.accounting.composition_cost.geometric_curve_seconds`), the PLDs.  Work already
        memoised in this process (a sweep, a curve pair) counts 0, unless ``fresh`` (as in a fresh process: a
        deterministic function of the ledger, for choices that change a reported number).  With ``refine`` (default),
        when a round's lower end is a composed lower pair (any round but binary RR, whose summed pair has no grid),
        the deciding lower kind's refinement is counted at its largest budget (:func:`refine_share`) of the rest
        (:meth:`_refine_factor`).  With ``delta_band`` (default), where curve pairs are composed, a second band (a
        ``get_delta`` whose δ is far from the bands already refined, :meth:`_delta_band`): its points.  Its ``memory``
        is the composed PLDs' modelled peak (:func:`~blanket.exact.accounting.composition_cost.products_bytes`: the
        dominating pairs' and the curve pairs' composed lengths; the sweep's own memory is
        :mod:`blanket.exact.runtime.budget`'s).  With ``one_round`` (default), a single round of a closed-form record
        also counts its own certified searches (:meth:`_one_round_seconds`; left out of the refinement budgets, so
        that they are as before).  With ``budget`` (the refinement budgets' view): a single round's curve pair that
        ``"auto"`` does not compose (:meth:`_one_round_only`) is counted as if it were, so that the budgets, and the
        lower ends they refine, are those of before the skip.  ``quantity``: the query modelled, ``"epsilon"``
        (``get_epsilon``, default) or ``"delta"`` (``blanket delta``'s path: :meth:`choose_grid`, then one
        ``get_delta``; the one-round searches as :meth:`_one_round_seconds` models them for it).  An estimate that
        chooses or refuses work, never a bound.  O(ledger entries)."""
        if quantity not in ("epsilon", "delta"):
            raise InvalidArgument("quantity", quantity, "must be 'epsilon' or 'delta'")
        if budget and not self._curve_as_before:
            self._curve_as_before = True
            try:
                return self.estimate(
                    workers,
                    fresh=fresh,
                    refine=refine,
                    delta_band=delta_band,
                    one_round=one_round,
                    budget=True,
                    quantity=quantity,
                )
            finally:
                self._curve_as_before = False
        from blanket.exact.runtime.executors import resolve_workers

        self._need()
        sweep = curves = pld = 0.0
        unmodelled = 0
        bracket_len = self._bracket_length()
        summed_n, summed_t, summed_e = self._summed_counts()
        if summed_t:
            pld += _cost.summed_seconds(summed_n, summed_t, summed_e)
        for entry, _cnt in self._ledger:
            pld += _query_cost(entry, self.rounds)  # a fleet round's concrete lower pairs (with sampling)
            ev, own = _modelled_as(entry)
            if own is not None:  # a sampled view, a fleet's blanket view or a continuous round: its own model
                pld += own
                # and the curve pair of its R_q where one is composed (a sampled k-RR round, a one-group fleet's
                # honest round: _curve_event), which that model leaves out; a sampled binary RR round's exact
                # worst case is prepared once, already in its own model
                c = self._curve_pair_seconds(entry, fresh, delta_band)
                if c:
                    plain = _curve_event(entry)
                    pm = getattr(plain, "mechanism", None)
                    pq = getattr(pm, "participation", None)
                    if getattr(pm, "exact_binary_worst", False) and _sampled_binary.affordable(plain.n, pq):
                        c = max(0.0, c - _sampled_binary.worst_seconds(plain.n, pq))
                    curves += c
                continue
            if not isinstance(ev, (ShuffledRR, Shuffled)):
                unmodelled += 1
                continue
            mech = ev.mechanism() if isinstance(ev, ShuffledRR) else ev.mechanism
            binary = _binary_mechanism(ev)
            on_curve = binary is not None and _uses_curve(binary, ev.n, self.curves)
            if binary is not None and on_curve:
                e0 = binary.epsilon0_exact
                key = (str(e0) if e0 is not None else "exp " + str(binary.exp_epsilon0()), ev.n)
                if fresh or key not in _CURVE_PAIRS:
                    if ev.n <= CURVE_AUTO_N:  # the exact ROC hull, in this process
                        curves += _cost.SECONDS_ROC_HULL * ev.n**2
                    else:
                        sweep += _sweep_seconds(binary, ev.n)
            curves += self._curve_pair_seconds(ev, fresh, delta_band)
            if binary is not None and on_curve:
                # the curve pair is a FinitePair, discretised in exact rationals (O(atoms + J): in the products'
                # model); the survival kernel runs on the lower pairs only (a fixed outer count: O(1) balls to build)
                pld += _cost.kernel_passes_seconds(_pld.lower_pair(binary, ev.n), _cost.LOWER_PASSES)
                continue
            # the survival kernel's passes, on the blanket-view / clone shape (cheap to build: O(1) balls)
            shape = _pld.dominating_pair(mech, ev.n) if isinstance(mech, KRR) else clone_pair(mech, ev.n)
            pld += _cost.kernel_passes_seconds(shape)
            if isinstance(mech, oracles.Geometric) and type(ev) is Shuffled:
                # its dataset-curve lower pair (two lattice sums, once per (record, n); memoised by an lru_cache,
                # counted every time)
                cells = _geo_lower.curve_lower_cells(mech, ev.n)
                pld += 0.0 if cells is None else _cost.geometric_curve_seconds(cells)
            # its law (once) and one more composed lower PLD; a sampled oracle round (modelled as its plain R_q round)
            # composes its own sampled two-stratum count (Sampled.stratum_lower_pair)
            if (sp := self._stratum_pair(entry if entry is not ev else ev)) is not None:
                lowf = 1 / LOWER_GRID_FACTOR if self.rounds > LOWER_GRID_ROUNDS else 1.0
                pld += sp.seconds() + 0.5 * (
                    _cost.products_seconds(self.rounds, 1, lowf) - _cost.products_seconds(self.rounds, 1, 0.0)
                )
        low = 1 / LOWER_GRID_FACTOR if self.rounds > LOWER_GRID_ROUNDS else 1.0  # the lower pairs' grid (_lower_grid)
        length = _cost.composed_length(self.rounds, bracket_len or None)
        curve_len = self._curve_length(length)
        pld += _cost.products_seconds(self.rounds, len(self._ledger), low, length=length, curve_len=curve_len)
        cores = resolve_workers(workers if workers is not None else self.workers) if sweep else 1
        est = _cost.CompositionCost(
            sweep=sweep,
            curves=curves,
            pld=pld,
            cores=cores,
            unmodelled=unmodelled,
            memory=_cost.products_bytes(self.rounds, length, curve_len),
            length=length + curve_len,
        )
        if (
            refine
            and self.grid is None
            and any(_binary_mechanism(getattr(e, "event", e)) is None for e, _ in self._ledger)
        ):
            # at most the largest share (_refine_factor)
            est = dataclasses.replace(est, pld=pld + max(map(refine_share, REFINE_FACTORS), default=0.0) * est.seconds)
        if one_round:
            est = dataclasses.replace(est, one_round=self._one_round_seconds(quantity))
        return est

    def _curve_pair_seconds(self, entry: Any, fresh: bool, delta_band: bool) -> float:
        """:meth:`estimate`'s modelled seconds of the curve pair this accountant composes for the ledger entry
        ``entry`` (:meth:`_curve_points`; a sampled round: its ``R_q``'s, :func:`_curve_event`), 0 without one:
        :func:`~blanket.exact.accounting.curve_pairs.curve_seconds` (with a query's band pass) when it is not memoised
        (or ``fresh``), else the band pass's points; with ``delta_band`` a second band's points.  O(1)."""
        pts = self._curve_points(entry)
        if pts is None:
            return 0.0
        plain = _curve_event(entry)
        mech = plain.mechanism() if isinstance(plain, ShuffledRR) else plain.mechanism
        sc = bool(getattr(plain, "stronger_clones", False))
        same = bool(getattr(plain, "same_randomizer", False))
        point = _curve_pairs.point_seconds(mech, plain.n) or 0.0
        if fresh or _curve_pairs._key(mech, plain.n, sc, pts, same) not in _curve_pairs._MEMO:
            out = _curve_pairs.curve_seconds(mech, plain.n, pts) or 0.0  # with the query's band pass
        else:  # the base grid is memoised: the band pass's points at most
            out = _curve_pairs.TARGET_POINTS * point
        # a get_delta reads its own band when its delta is not within a factor 2 of a band already refined
        # (_delta_band): at most TARGET_POINTS more points (its two compositions are inside the products'
        # calibration, measured on whole queries: docs/composition.md §3)
        return out + (_curve_pairs.TARGET_POINTS * point if delta_band else 0.0)

    def _one_round_seconds(self, quantity: str = "epsilon") -> float:
        """The modelled cost of :meth:`_one_round`'s searches (:func:`~blanket.exact.accounting.composition_cost.
        one_round_seconds`) when the ledger is a single round of a closed-form record (its two searches, the exact
        five-atom view counted where it is a route, a geometric record's dominating-law evaluations), 0 otherwise
        (the lower searches of record rounds without a lower pair take about 0.1 s; ``curves=False`` runs none).
        A sampled unary-encoding round's full view: its ε search (:data:`~blanket.exact.accounting.composition_cost.
        SAMPLED_FULL_EVALS` evaluations) for ``quantity="epsilon"``, one evaluation for ``"delta"`` (:meth:`choose_grid`
        leaves the search out, ``get_delta`` evaluates the view once at its ε); a closed-form record's δ path: its ε
        searches (:meth:`choose_grid` runs them) and one δ (``one_round_seconds(quantity="delta")``).  O(1)."""
        if self.curves is False:
            return 0.0
        recs = self._record_rounds()
        if len(self._ledger) == 1 and self.rounds == 1 and not recs:
            got = self._sampled_full_work()
            if got is None:
                return 0.0
            evals = 1 if quantity == "delta" else _cost.SAMPLED_FULL_EVALS
            if got[0] == "sorted":
                return _cost.sampled_full_seconds(got[1], evals)
            return _cost.sampled_binned_seconds(got[1], evals)
        if not (len(self._ledger) == 1 and self.rounds == 1 and len(recs) == 1):
            return 0.0
        mech, n, _ = recs[0]
        work = None
        if isinstance(mech, oracles.FourValue):
            from blanket.exact.shuffled import oracle_exact

            w = oracle_exact.exact_view_work(mech, n)
            work = w if n <= _one.EXACT_VIEW_MAX_N or w <= _one.EXACT_VIEW_MAX_WORK else None
        route = _curve_pairs.point_seconds(mech, n) if isinstance(mech, oracles.Geometric) else None
        full = (
            n
            if isinstance(mech, oracles.Geometric)
            and not _one._geometric_small(mech, n)
            and n <= _geo_full.FULL_VIEW_MAX_N
            else None
        )
        return _cost.one_round_seconds(work, route, full, quantity)

    def _summed_counts(self, fraction: Any = 1) -> tuple[int, int, float]:
        """``(N, T, e^{ε0})`` of binary RR's summed lower pair over this ledger's binary RR rounds (a sampled round's
        slots as well), each count scaled by ``fraction`` as :meth:`scaled` does; ``T = 0`` when there are none.
        O(ledger entries)."""
        n = t = 0
        e = 0.0
        for entry, cnt in self._ledger:
            ev0 = getattr(entry, "event", entry)
            b0 = _binary_mechanism(ev0)
            if b0 is not None:
                c = cnt if fraction == 1 else max(1, math.ceil(cnt * fraction))
                n, t = n + c * (ev0.n - 1), t + c
                e = float(arb(b0.exp_epsilon0()).mid())
        return n, t, e

    def _bracket_length(self) -> float | None:
        """The modelled composed length when the grid search stops at the mechanism's bracket, i.e. when every round
        is binary RR on its split curve pair (the summed lower end is at hand;
        :func:`~blanket.exact.accounting.composition_cost.bracket_grid_length` at this ledger's rounds, the largest
        over its rounds), else ``None`` (the PLD sandwich's grid).  O(ledger entries)."""
        out = 0.0
        for entry, _cnt in self._ledger:
            b0 = _binary_mechanism(getattr(entry, "event", entry))
            if b0 is None or getattr(entry, "event", entry) is not entry or not _uses_curve(b0, entry.n, self.curves):
                return None
            e = float(arb(b0.exp_epsilon0()).mid())
            out = max(out, _cost.bracket_grid_length(entry.n, e, self.rounds, float(self.rel_width)))
        return out or None

    def _curve_length(self, length: float, rounds: int | None = None) -> float:
        """The modelled composed length of the curve pairs (``cupper``/``clower``) of ``rounds`` rounds (default this
        ledger's) when some round composes one (:meth:`_curve_points`;
        :func:`~blanket.exact.accounting.composition_cost.curve_length` at the largest such ``n``), else 0; ``length``
        the dominating pairs' modelled composed length.  O(ledger entries)."""
        ns = [ev.n for ev, _ in self._ledger if self._curve_points(ev) is not None]
        return _cost.curve_length(max(ns), rounds or self.rounds, length) if ns else 0.0

    def picture_estimate(self, fractions: Any) -> float:
        """One-core seconds of a certificate's picture after a query of this ledger (:func:`blanket.reports.curve.
        composition`): a fixed part, and per fraction ``f < 1`` of ``fractions`` the query of :meth:`scaled` —
        the products of the scaled counts and the self-compositions of a fleet round's lower pairs, on this
        accountant's grid (nothing is discretised again).  An estimate, never a bound.  O(ledger entries ·
        fractions)."""
        self._need()
        low = 1 / LOWER_GRID_FACTOR if self.rounds > LOWER_GRID_ROUNDS else 1.0
        bracket = self._bracket_length()
        out = _cost.SECONDS_PICTURE_FIXED
        if self._one_round_only():  # the picture composes the single round's curve pair (get_delta(refine=False))
            out += self.estimate(refine=False, delta_band=False, one_round=False, budget=True).curves
        # the picture's δ(ε) grid: every point's get_delta evaluates binary RR's summed lower pair again (task calib11:
        # binary RR n = 10^5, T = 365: 17 points, 11.6 of the picture's 12.6 CPU s)
        sn, st, se = self._summed_counts()
        if st:
            out += _cost.picture_summed_seconds(sn, st, se)
        for f in fractions:
            if f >= 1:
                continue
            t = sum(max(1, math.ceil(cnt * f)) for _e, cnt in self._ledger)
            # on this accountant's grid: binary RR on its split curve pair composes on the bracket's grid, whose
            # composed support grows like sqrt(t) at a fixed step (the sandwich's model was longer: task calib11)
            length = _cost.composed_length(t, None if bracket is None else bracket * math.sqrt(t / self.rounds))
            out += _cost.products_seconds(
                t, len(self._ledger), low, length=length, curve_len=self._curve_length(length, t)
            )
            # the scaled query's own rounds (not this ledger's: the model before counted every scaled schedule at
            # the full count, 3 x 10 s for examples/fleet_daily.toml where the three took 0.9 CPU s)
            out += sum(_query_cost(entry, t, discretise=False) for entry, _c in self._ledger)
            sn, st, se = self._summed_counts(f)
            if st:
                out += _cost.summed_seconds(sn, st, se)
        return out

    def check_memory(self, est: Any = None, *, memory_option: str = "a higher memory limit") -> _cost.CompositionCost:
        """:meth:`estimate` (or ``est``), refused (:class:`~blanket.exact.runtime.budget.TooExpensive`, one line naming
        the estimated peak memory of the composed PLDs, the limit and the options: ``memory_option``, fewer rounds or
        users) when its ``memory`` exceeds the memory limit (:func:`blanket.exact.numbers.guards.max_memory`: the
        CLI's ``--max-memory``, by default half of the machine's memory); the time is not looked at (a time budget
        does not lift this refusal).  Nothing is computed.  O(ledger entries)."""
        return self.check_cost(est=est, memory_option=memory_option, time=False)

    def check_cost(
        self,
        *,
        max_seconds: float | None = None,
        workers: int | None = None,
        curves_option: str = "curves=False",
        budget_option: str = "a time budget",
        memory_option: str = "a higher memory limit",
        est: Any = None,
        time: bool = True,
        quantity: str = "epsilon",
    ) -> _cost.CompositionCost:
        """:meth:`estimate` (or ``est``), refused (:class:`~blanket.exact.runtime.budget.TooExpensive`, one line naming
        the estimate, its limit and the options) when its seconds exceed ``max_seconds`` (default the wall-clock limit
        ``BLANKET_MAX_SECONDS``, one hour; not looked at without ``time``) -- options ``curves_option`` with its own
        estimate when that is cheaper (it prints differently from the estimate; the curves can cost next to nothing
        beside the PLDs) and ``budget_option`` -- or when its peak memory (:attr:`CompositionCost.memory`, the composed
        PLDs) exceeds the memory limit (:func:`blanket.exact.numbers.guards.max_memory`, ``--max-memory``) -- option
        ``memory_option``; both when both are exceeded, and always "fewer rounds or users".  ``quantity``: the query
        modelled (:meth:`estimate`'s).  Nothing is computed.  O(ledger entries)."""
        from blanket.exact.numbers import guards
        from blanket.exact.runtime.budget import MAX_SECONDS_ENV, TooExpensive, human_duration, human_size, time_limit

        est = est if est is not None else self.estimate(workers, quantity=quantity)
        limit = (max_seconds if max_seconds is not None else time_limit()) if time else math.inf
        mem = guards.max_memory()
        too_slow, too_big = est.seconds > limit, est.memory > mem
        if not (too_slow or too_big):
            return est
        why, opts = [], []
        if too_slow:
            k = est.cores
            why.append(
                f"take about {human_duration(est.seconds)} on {k} core{'s' if k != 1 else ''} ({est.parts()}) "
                f"(limit {human_duration(limit)}, {MAX_SECONDS_ENV})"
            )
            fast = self.curves_off_estimate(workers, est, quantity)
            if fast is not None:  # offered only when cheaper
                opts.append(f"{curves_option} (the fast, looser blanket-view / clone pairs: about {fast})")
            opts.append(budget_option)
        if too_big:
            why.append(
                f"need about {human_size(est.memory)} of memory (composed PLDs of about {est.length:.2g} points; "
                f"limit {human_size(mem)}, --max-memory)"
            )
            opts.append(memory_option)
        opts.append("fewer rounds or users")
        raise TooExpensive(
            f"the composition of {self.rounds} rounds would {' and '.join(why)}; not started. "
            f"Options: {', '.join(opts[:-1])} or {opts[-1]}"
        )

    def curves_off_estimate(self, workers: int | None = None, est: Any = None, quantity: str = "epsilon") -> str | None:
        """The printed estimate of this ledger with ``curves=False`` (the fast, looser pairs) when that is cheaper than
        ``est`` (default :meth:`estimate`) and prints differently (the curves may cost next to nothing beside the
        PLDs: binary RR at n = 2 composes its exact ROC hull either way); ``None`` otherwise, or when this ledger has
        no curves to turn off; ``quantity`` as :meth:`estimate`'s.  Nothing is computed.  O(ledger entries)."""
        from blanket.exact.runtime.budget import human_duration

        est = est if est is not None else self.estimate(workers)
        if self.curves is False or not (est.sweep or est.curves):
            return None
        off = ShuffleAccountant(self.neighbouring, grid=self.grid, rel_width=self.rel_width, curves=False)
        off._ledger = list(self._ledger)
        off_seconds = off.estimate(workers, quantity=quantity).seconds
        fast = human_duration(off_seconds)
        return fast if off_seconds < est.seconds and fast != human_duration(est.seconds) else None

    def _has_curves(self) -> bool:
        return any(self._curve_of(ev) is not None for ev, _ in self._ledger)

    def statements_used(self) -> dict[str, bool]:
        """Which derived statements the certified ends of this ledger rest on, beyond the dominating pairs:
        ``"split"`` (a finite pair's atoms split between grid points, :data:`SPLIT_ATOMS`: a curve pair or a finite
        dominating pair is composed), ``"curve"`` (a worst-case curve pair, the hull of certified curve values: binary
        RR's own or a curve route of :mod:`~blanket.exact.accounting.curve_pairs`), ``"summed"`` (binary RR's
        summed-count lower pair: a binary RR round, sampled or not, is in the ledger) and ``"banded"`` (a third-value lower pair garbled per band,
        :class:`~blanket.exact.accounting.banded.BandedPair`: k-RR with k ≥ 3, the oracles with a triple law,
        ``ldp``), ``"stratum"`` (the oracles' two-stratum count, "low-3s", up to :data:`STRATUM_MAX_N` users) and
        ``"sampled_third"`` (a sampled round's third-value pair, Lemma S5).  O(ledger entries · bands) after a query
        (the pairs are memoised)."""
        doms = [self._dominating(ev) for ev, _ in self._ledger]
        finite = any(isinstance(d, _curves.FinitePair) for d in doms)
        curve = self._has_curves() or any(isinstance(d, _curves.FinitePair) and d.kind == "curve" for d in doms)
        return {
            "split": SPLIT_ATOMS and (finite or self._has_curves()),
            "curve": curve,
            # binary RR's statement; the matrix rounds' summed counts rest on the matrix binarized statement
            "summed": any(_summed_binary(getattr(ev, "event", ev)) is not None for ev, _ in self._ledger)
            and self._summed_pairs() is not None,
            "banded": any(self._banded_lower(ev) for ev, _ in self._ledger),
            "stratum": any(self._stratum_pair(ev) is not None for ev, _ in self._ledger),
            # a sampled round's third-value pair (sampled.Sampled with q < 1; docs/composition.md §5f, Lemma S5)
            "sampled_third": any(
                getattr(ev, "q", 1) != 1 and getattr(ev, "third_lower_pair", lambda: None)() is not None
                for ev, _ in self._ledger
            ),
        }

    @staticmethod
    def _banded_lower(ev: Any) -> bool:
        """Whether one of the round's composed lower pairs is a :class:`~blanket.exact.accounting.banded.BandedPair`.
        O(bands)."""
        third = getattr(ev, "third_lower_bands", None)
        low = getattr(ev, "lower_pair", None)
        pairs = [third() if third is not None else None, low("backward") if low is not None else None]
        return any(isinstance(p, _banded.BandedPair) for p in pairs)

    def _pld(self, grid: Fraction, kind: str, target: tuple | None = None):
        """Composed PLD on ``grid``: kind "upper"/"lower" (dominating pair), "cupper"/"clower" (the curve pair where a
        round has one, else its dominating pair; ``None`` when no round has one; ``target``: the query's band of curve
        values, :func:`blanket.exact.accounting.curve_pairs.query_band`), "low-fwd"/"low-bwd" (lower pair) or
        "low-3" (the third-value lower pair where a round has one, else its forward lower pair; ``None`` when no round
        has one)."""
        key = (grid, kind) if target is None else (grid, kind, target)
        if key in self._cache:
            return self._cache[key]
        g = fmpq(grid.numerator, grid.denominator)
        total = None
        if kind in ("cupper", "clower") and not self._has_curves():
            return None  # not memoised: the picture may compose a single round's curve pair later (_one_round_only)
        if kind == "low-3" and not self._has_third():
            self._cache[key] = None
            return None
        if kind == "low-3s" and not any(self._stratum_pair(ev) is not None for ev, _ in self._ledger):
            self._cache[key] = None
            return None
        used_curve = False
        for ev, cnt in sorted(self._ledger, key=lambda t: (t[0].sort_key(), t[1])):
            cp = self._curve_of(ev, target) if kind in ("cupper", "clower") else None
            if cp is not None and self._curve_too_long(ev, cp, grid):
                cp = None  # this round composes its dominating pair in the curve route too
            if cp is not None:
                used_curve = True
                ckey = ("cbase", grid, ev, target)
                if ckey not in self._cache:
                    self._cache[ckey] = cp.discretise_both(g, prec=self.prec, split=SPLIT_ATOMS)
                base = self._cache[ckey][0 if kind == "cupper" else 1]
            elif kind in ("upper", "lower", "cupper", "clower"):
                bkey = ("base", grid, ev)
                if bkey not in self._cache:  # both sides from one pass of the survival kernel
                    self._cache[bkey] = _discretise_both(self._dominating(ev), g, self.prec)
                base = self._cache[bkey][0 if kind in ("upper", "cupper") else 1]
            else:
                third = getattr(ev, "third_lower_bands", None) or getattr(ev, "third_lower_pair", None)
                pair, used = (third(), "low-3") if kind == "low-3" and third is not None else (None, kind)
                if kind == "low-3s":
                    pair, used = self._stratum_pair(ev), "low-3s"
                if pair is None:
                    used = "low-bwd" if kind == "low-bwd" else "low-fwd"
                    pair = ev.lower_pair("backward" if used == "low-bwd" else "forward")
                if pair is None:  # no concrete pair for this round: leaving it out is a post-processing
                    continue
                lkey = ("lbase", grid, ev, used)
                if lkey not in self._cache:
                    self._cache[lkey] = (
                        pair.discretise(g, "lower", prec=self.prec)
                        if isinstance(pair, (_curves.FinitePair, _banded.BandedPair, _stratum.StratumPair))
                        else _pld.discretise(pair, g, "lower", prec=self.prec)
                    )
                base = self._cache[lkey]
            p = base.self_compose(cnt)
            total = p if total is None else total.compose(p)
        if kind in ("cupper", "clower") and not used_curve:
            total = None  # every round's curve pair was left out: the curve route is the dominating pairs' own
        self._cache[key] = total
        return total

    def _curve_too_long(self, ev: Any, cp: _curves.FinitePair, grid: Fraction) -> bool:
        """Whether a sampled round (``q < 1``) leaves its curve pair ``cp`` out on ``grid``: when the pair's
        discretised length there exceeds :data:`CURVE_SKIP_POINTS` and :data:`CURVE_SKIP_FACTOR` times its dominating
        pair's.  At a tiny ``q`` the grid follows the tiny ε of the sampled view (its loss spans ``O(q)``), while the
        curve pair of ``R_q`` keeps atoms out to ``±ε0`` (of mass about 10⁻¹⁸ at q = 10⁻³, n = 10⁵): its dense PLD
        was 7·10⁵ points per round and its compositions took minutes and gigabytes for a route the dominating pair
        beat.  A choice only (the dominating pair's upper end is certified either way; the route that decides is
        reported).  The length is that of the losses the discretisation keeps (:func:`_kept_log_span`: the far atoms
        of ``P``-mass within ``DEFAULT_TRUNCATION/4`` each side are moved off the grid there, so they do not widen it).
        O(atoms log atoms) (floats choose), memoised per grid and round."""
        if getattr(ev, "q", 1) == 1:
            return False
        key = ("curve-long", grid, ev)
        if key not in self._cache:
            span = _kept_log_span(cp)
            length = span / float(grid) + 1
            dom = self._dominating(ev)
            bkey = ("base", grid, ev)
            if bkey not in self._cache:
                self._cache[bkey] = _discretise_both(dom, fmpq(grid.numerator, grid.denominator), self.prec)
            dom_len = len(self._cache[bkey][0].coeffs)
            self._cache[key] = length > max(CURVE_SKIP_POINTS, CURVE_SKIP_FACTOR * dom_len)
        return self._cache[key]

    def scaled(self, fraction: NumberInput) -> ShuffleAccountant:
        """A new accountant with each ledger entry's count scaled by ``fraction`` (rounded up, at least 1), on this
        accountant's grid, sharing its single-round distributions (no round is discretised again) and the bands its
        queries refined the curve pairs in (``curve_pairs.query_band`` at this accountant's rounds: they cover the
        scaled ones', so no curve point is computed again).

        For a curve of ε against the number of rounds (the certificate's picture).  Call it after a query has fixed
        the grid (``get_epsilon``); the scaled accountant's answers are certified exactly as this one's.  O(number of
        ledger entries) here; each query then costs the self-compositions of the scaled counts.
        """
        self._need()
        f = _frac(arith.exact_in(fraction, "fraction", lo=0, hi=1, lo_open=True))
        grid = self.grid if self.grid is not None else self._cache.get("auto")
        out = self._sibling(grid)
        for ev, cnt in self._ledger:
            out.compose(ev, count=max(1, math.ceil(cnt * f)))
        out._cache.update(
            {
                k: v
                for k, v in self._cache.items()
                if isinstance(k, tuple) and k[0] in ("base", "lbase", "cbase", "band")
            }
        )
        return out

    def _sibling(self, grid) -> ShuffleAccountant:
        """An empty accountant with this one's settings (neighbouring, precision, curves, widths, workers, one-round
        tolerance, refinement budget) on the loss grid ``grid`` (``None``: chosen by its queries).  O(1)."""
        return ShuffleAccountant(
            self.neighbouring,
            grid=grid,
            rel_width=self.rel_width,
            prec=self.prec,
            curves=self.curves,
            workers=self.workers,
            one_round_rel_tol=self.one_round_rel_tol,
            refine_seconds=self.refine_seconds,
        )

    def regridded(self, grid: NumberInput) -> ShuffleAccountant:
        """The same accountant (ledger, precision, curves, widths, workers) on the loss grid ``grid``, carrying over
        the one-round results its queries computed (:meth:`_one_round`: a single round's own certified ends do not
        depend on the grid, so a retry on a finer grid — a certificate's undecided claim — does not search them
        again).  Nothing grid-dependent is carried.  O(number of ledger entries)."""
        out = self._sibling(grid)
        for ev, cnt in self._ledger:
            out.compose(ev, count=cnt)
        out._cache.update({k: v for k, v in self._cache.items() if isinstance(k, tuple) and k[0] == "one-round"})
        return out

    def _lower_grid(self, grid: Fraction) -> Fraction:
        return grid * LOWER_GRID_FACTOR if self.rounds > LOWER_GRID_ROUNDS else grid

    def _renyi(self, grid: Fraction, band: tuple | None = None) -> list | None:
        """Upper balls of the composed ``(α−1)·D_α`` at ``pld.RENYI_ORDERS``: Σ count × single-round log-moments.

        The single-round moments come from the same pessimistic PLDs of the same dominating pairs
        (:func:`blanket.exact.accounting.pld.renyi_log_moments`); Rényi divergences add over the product pair.  A
        round whose curve pair (refined in ``band``) the query already discretised on ``grid`` takes, order by
        order, the smaller of the two rounds' moments (both pairs dominate the round: each bounds its
        ``(α−1)·D_α``; docs/composition.md §5).  O(ledger entries · orders · L).
        """
        key = ("renyi", grid, band)
        if _unbounded(self._ledger):  # a round without a finite largest loss (Gaussian): every D_alpha is infinite
            return None
        if key not in self._cache:
            self._pld(grid, "upper")  # fills the single-round bases
            total = None
            for ev, cnt in self._ledger:
                base = self._cache[("base", grid, ev)][0]
                # every pair used has loss <= epsilon0 (the garbled view's replaced cells use the split view); a
                # curve pair's largest ratio is its alpha_max, a rational at or above e^epsilon0
                pr = self._dominating(ev)
                cap = (
                    pr.max_loss()
                    if isinstance(pr, _curves.FinitePair)
                    else fmpq(ev.epsilon0.numerator, ev.epsilon0.denominator)
                )
                lm = _pld.renyi_log_moments(base, cap)
                cb = self._cache.get(("cbase", grid, ev, band))
                cp = self._curve_of(ev, band) if cb is not None else None
                if cb is not None and cp is not None and cp.mass_at_infinity == 0:  # the curve pair's, where smaller
                    lc = _pld.renyi_log_moments(cb[0], cp.max_loss())
                    lm = [c if c.upper() < x.upper() else x for x, c in zip(lm, lc)]
                lm = [cnt * x for x in lm]
                total = lm if total is None else [a + b for a, b in zip(total, lm)]
            self._cache[key] = total
        return self._cache[key]

    def basic_upper(self) -> Fraction | None:
        """Σ count·ε0 over the ledger: every (ε, 0)-claim with ε ≥ this holds (basic composition of pure DP).  O(rounds).

        Each shuffled round is ε0-DP on replace-one neighbours (the shuffled output is a post-processing of the
        report vector, and the two report vectors differ in one ε0-LDP report), and pure DP composes additively
        (:data:`blanket.proofs.composition.BASIC_COMPOSITION`).  For records known by ``e^{ε0}`` the rational used
        is an upper end of ε0, so the sum stays an upper bound.  ``None`` when a round is not ε0-LDP (Gaussian).
        """
        self._need()
        if any(ev.epsilon0 is None for ev, _ in self._ledger):
            return None
        return sum((Fraction(cnt) * ev.epsilon0 for ev, cnt in self._ledger), Fraction(0))

    def _summed_epsilon(self, dt: fmpq) -> fmpq | None:
        """The largest certified lower end of ε at ``dt`` over binary RR's summed-count pairs (:meth:`_summed_pairs`),
        or ``None`` without them.  Memoised per ``dt`` until the next ``compose`` (the grid search and the answer
        share it).  O(one float search and a few certified thresholds per pair: 1–2 s at N = 3.65·10⁸)."""
        key = ("sum-eps", str(dt))
        if key not in self._cache:
            sums = self._summed_pairs()
            self._cache[key] = None if sums is None else max(_summed.lower_epsilon(sp, dt) for sp in sums)
        return self._cache[key]

    def _mechanism_lower(self, grid: Fraction, dt: fmpq) -> fmpq | None:
        """The best certified lower end of the *mechanism's* ε at ``dt`` already at hand for the grid ``grid``: the
        grid-free summed pair (binary RR; the cheap one, computed here) and any composed lower pair already composed
        on ``grid``'s lower grid (none is composed here: they are first order in the grid, like the sandwich's
        optimistic end, and are composed once on the chosen grid by the query).  ``None`` when none is at hand."""
        vals = [v for v in (self._summed_epsilon(dt),) if v is not None]
        lg = self._lower_grid(grid)
        for k in LOWER_KINDS:
            p = self._cache.get((lg, k))
            if p is not None:
                v = p.get_epsilon(dt)
                if v is not None:
                    vals.append(v)
        return max(vals) if vals else None

    def _refine_factor(self, grid: Fraction, kind: str) -> int:
        """How much finer than its lower grid the deciding lower kind ``kind`` is composed again (1: not at all): the
        largest of :data:`REFINE_FACTORS` whose modelled cost (its composed length on the lower grid, ``f`` times
        longer; :func:`~blanket.exact.accounting.composition_cost.lower_refine_seconds`) is at most
        :func:`refine_share` ``(f)`` of the query's modelled cost (:meth:`estimate` with ``fresh``: the same choice in
        every process).  A choice only (floats), memoised per grid and kind.  O(ledger entries)."""
        key = ("refine", grid, kind)
        if key not in self._cache:
            p = self._pld(self._lower_grid(grid), kind)
            f = 1
            if p is not None and self.grid is None:  # a grid the caller fixed is kept as given
                query = self.estimate(fresh=True, refine=False, delta_band=False, one_round=False, budget=True).seconds
                length = len(p.coeffs)
                f = next(
                    (f for f in REFINE_FACTORS if _cost.lower_refine_seconds(length, f) <= refine_share(f) * query), 1
                )
            self._cache[key] = f
        return self._cache[key]

    def _refined_lower(self, grid: Fraction, dt: fmpq, lows: dict) -> tuple[str | None, Fraction | None]:
        """The deciding composed lower kind of ``lows`` (kind: certified lower end of ε at ``dt`` on the lower grid of
        ``grid``) composed again on a finer grid when that is cheap (:meth:`_refine_factor`); returns ``(kind, the
        finer grid)`` when it was, and puts the larger of the two lower ends into ``lows[kind]`` (both are certified:
        the optimistic PLD of one concrete pair is a lower bound on every grid, docs/composition.md §3; the reported
        end is the largest over the grids evaluated), else ``(None, None)``.  Cost: that kind's discretisation and
        self-compositions on the finer grid, within :func:`refine_share` of the query's modelled cost."""
        pld_kinds = [k for k in lows if k in LOWER_KINDS]
        if not pld_kinds:
            return None, None
        kind = max(pld_kinds, key=lambda k: lows[k])
        if "low-sum" in lows and lows["low-sum"] >= lows[kind]:
            return None, None  # the grid-free summed pair decides: no grid to refine
        f = self._refine_factor(grid, kind)
        if f == 1:
            return None, None
        fine = self._lower_grid(grid) / f
        p = self._pld(fine, kind)
        v = p.get_epsilon(dt) if p is not None else None
        if v is not None and v > lows[kind]:
            lows[kind] = v
        return kind, fine

    def _auto_grid(self, target_delta) -> Fraction:
        """The PLD grid Δ of this ledger (``grid`` when given; chosen once, at the first ``target_delta`` asked, then
        kept).  A first pass on ``Δ ≈ ε0/400``, then at most three refinements, each scaling Δ by the observed sandwich
        width (the width is about ``Σ count·Δ``; at least halved, at most 64 times finer per step).  A grid is accepted
        as soon as either

        * the **mechanism's bracket** is narrow: ``(upper − lower)/upper ≤ rel_width``, with ``upper`` the dominating
          pairs' certified upper end on that grid and ``lower`` the best certified lower end of the mechanism at hand
          (:meth:`_mechanism_lower`: binary RR's grid-free summed pair; the reported bracket is at least as narrow: its
          upper end is the smallest of the routes, its lower end the largest of every lower pair on this grid); or
        * (the criterion before 29 Nov 16:00, and the only one without a mechanism lower end) the dominating pairs'
          **PLD sandwich** is narrow: ``(upper − pair_lower)/upper ≤ rel_width``.

        So the grid is never finer than the sandwich criterion alone chooses.  With split atoms (``SPLIT_ATOMS``) a
        curve pair's upper end is second order in Δ while the sandwich's optimistic end is first order, so the
        bracket is met on a grid 5–100 times coarser (binary RR n = 10⁴, T = 10⁴: one pass on 5·2⁻¹¹ instead of four
        down to 2⁻¹⁷).  A choice only: every grid gives certified ends.  Cost: one upper PLD per pass, the summed
        pair once, the optimistic PLD on the passes that the bracket does not accept."""
        if self.grid is not None:
            return self.grid
        if "auto" in self._cache:
            return self._cache["auto"]
        T = self.rounds
        e0 = max(float(_loss_scale(ev)) for ev, _ in self._ledger)
        g = _dyadic_below(min(max(e0, 1e-6) / 400.0, 1.0))  # a grid is at most 1 (ε0 up to 500)
        rel = float(self.rel_width)
        for _ in range(4):
            up = self._pld(g, "upper").get_epsilon(target_delta)
            if up is None:
                break
            up_f = float(up)
            if up_f == 0:
                break
            mech = self._mechanism_lower(g, target_delta)
            if mech is not None and (up_f - float(mech)) / up_f <= rel:  # the bracket the user reads
                break
            lo_f = float(self._pld(g, "lower").get_epsilon(target_delta))
            width = (up_f - lo_f) / up_f
            if width <= rel:  # the dominating pairs' own sandwich
                break
            # width ≈ Σ count·Δ: scale Δ (with a margin), never by more than 64x per step
            target = rel * 0.8 * up_f / max(1, T)
            g_new = _dyadic_below(min(target, g * 0.5, float(g)))
            g_new = max(g_new, Fraction(g) / 64)
            for k in list(self._cache):
                if isinstance(k, tuple) and g in k[:2]:
                    del self._cache[k]
            g = g_new
        self._cache["auto"] = g
        return g

    # ---------------------------------------------------------------- the bracket within rel_width
    def _bracket_lengths(self, g: Fraction) -> list[int]:
        """The lengths of the composed PLDs a query on the grid ``g`` composed (cached: the dominating pairs', the
        curve pairs', the lower kinds' on the lower grid and the refined lower kind's), for
        :meth:`_bracket_pass_seconds`.  O(cache entries)."""
        grids = {g, self._lower_grid(g)}
        out = []
        for k, v in self._cache.items():
            if isinstance(k, tuple) and k and k[0] in grids and isinstance(v, _pld.PLD):
                out.append(len(v))
        return out

    def _bracket_pass_seconds(self, g: Fraction, factor: int = 2) -> float:
        """Modelled one-core seconds of one more query on the grid ``g / factor``
        (:func:`~blanket.exact.accounting.composition_cost.bracket_pass_seconds` of the lengths composed on ``g``:
        every composed PLD ``factor`` times longer, the rounds' pairs discretised again).  Deterministic: a function of
        the ledger and the lengths composed (no clock).  A choice only.  O(cache entries + ledger entries)."""
        shapes = 0.0
        for ev, _ in self._ledger:
            mech = _binary_mechanism(ev)
            inner = getattr(ev, "mechanism", None)
            if mech is not None:
                shapes += _cost.kernel_passes_seconds(_pld.lower_pair(mech, ev.n), _cost.LOWER_PASSES)
            elif isinstance(ev, (ShuffledRR, Shuffled)) and inner is not None:
                m = ev.mechanism() if isinstance(ev, ShuffledRR) else inner
                shape = _pld.dominating_pair(m, ev.n) if isinstance(m, KRR) else clone_pair(m, ev.n)
                shapes += _cost.kernel_passes_seconds(shape, 1 + _cost.LOWER_PASSES)
        return shapes + _cost.bracket_pass_seconds(self._bracket_lengths(g), factor)

    def _bracket_pass_bytes(self, g: Fraction, factor: int = 2) -> float:
        """Modelled peak bytes while a whole pass on ``g / factor`` runs: the composed PLDs of ``g`` (kept until it
        succeeds) and the pass's, ``factor`` times longer (:data:`~blanket.exact.accounting.composition_cost.
        PLD_BYTES_PER_POINT` a point, :data:`~blanket.exact.accounting.composition_cost.PLD_BYTES_FIXED`).  A choice
        only.  O(cache entries)."""
        points = sum(self._bracket_lengths(g)) * (1 + factor)
        return _cost.PLD_BYTES_FIXED + _cost.PLD_BYTES_PER_POINT * points

    def _bracket_budget(self) -> float:
        """The modelled one-core seconds the bracket's refinement (:meth:`_refine_bracket`) may spend in all:
        ``refine_seconds`` when given, else :data:`BRACKET_REFINE_SHARE` times the query's modelled cost
        (:meth:`estimate` as in a fresh process), at least :data:`BRACKET_REFINE_MIN_SECONDS`; never more than what
        ``BLANKET_MAX_SECONDS`` leaves beside that estimate.  O(ledger entries)."""
        from blanket.exact.runtime.budget import time_limit

        est = self.estimate(fresh=True, delta_band=False, one_round=False, budget=True).seconds
        if self.refine_seconds is not None:
            return float(self.refine_seconds)
        return max(0.0, min(max(BRACKET_REFINE_MIN_SECONDS, BRACKET_REFINE_SHARE * est), time_limit() - est))

    def _drop_grids(self, grids: set) -> None:
        """Forget the composed PLDs and single-round bases on ``grids`` (the refinement moved to a finer grid;
        memory).  O(cache entries)."""
        for k in list(self._cache):
            if isinstance(k, tuple) and any(isinstance(x, Fraction) and x in grids for x in k[:2]):
                del self._cache[k]

    def _lower_at(self, g: Fraction, dt: fmpq, finest: dict) -> tuple[str, Fraction, Any] | None:
        """``(kind, grid, PLD)``: the deciding composed lower kind of the answer on the grid ``g`` and its finest
        composed PLD so far (``finest``: kind -> the finest grid of the lower steps), or ``None`` when the lower end is
        not a composed lower kind.  O(1)."""
        kind, lg = self._cache.get(("low-used", str(dt), g), (None, None))
        if kind not in LOWER_KINDS:
            return None
        lg = min(lg, finest.get(kind, lg))
        p = self._cache.get((lg, kind))
        return None if p is None else (kind, lg, p)

    def _lower_step(self, ans: CertifiedEpsilon, kind: str, grid: Fraction, dt: fmpq) -> CertifiedEpsilon:
        """``ans`` with the lower kind ``kind`` composed again on ``grid`` (twice finer than the finest so far: the
        lower end only; with split atoms the upper end is second order in the grid, the lower pairs' optimistic ends
        first order): the larger of the two lower ends is kept (both certified).  Cost: :func:`~blanket.exact.
        accounting.composition_cost.lower_refine_seconds` of that kind's length, factor 2."""
        p = self._pld(grid, kind)
        v = p.get_epsilon(dt) if p is not None else None
        if v is not None and _frac(v) > ans.lower:
            ans = dataclasses.replace(
                ans, lower=_frac(v), details={**ans.details, "lower_pair": LOWER_NAMES[kind], "lower_grid": str(grid)}
            )
        return ans

    @staticmethod
    def _merge(old: _C, new: _C) -> _C:
        """The better ends of two certified answers for the same query on two grids: the one with the smaller upper
        end (a tie: ``new``), with the larger of the two lower ends (and that end's lower pair and grid in ``details``).
        Both ends are certified on every grid, so the merged bracket is.  O(1)."""
        best = new if new.upper <= old.upper else old
        low = old if old.lower > new.lower else new
        if low is best:
            return best
        details = {**best.details}
        for k in ("lower_pair", "lower_grid"):
            if k in low.details:
                details[k] = low.details[k]
        return dataclasses.replace(best, lower=low.lower, details=details)

    def _own_sandwich_wide(self, ans: _Certified) -> bool:
        """Whether the reported upper end's own pair (the curve pairs' or the dominating pairs', whichever the PLD
        route reported) has a PLD sandwich ``(upper − pair_lower)/upper`` wider than ``rel_width`` — the width a finer
        grid narrows (about ``Σ count·Δ``).  Only for the PLD route (a Rényi, basic or one-round upper end does not
        move with the grid).  A choice only.  O(1)."""
        return ans.route == "PLD" and ans.upper != math.inf and ans.sandwich_width > self.rel_width

    def _refine_bracket(self, ans: CertifiedEpsilon, g: Fraction, dt: fmpq) -> CertifiedEpsilon:
        """``ans`` (on the grid ``g``) refined while its bracket ``(upper − lower)/upper`` is wider than ``rel_width``
        (docs/composition.md §3 "The bracket within rel_width"), each step within the budget:

        * a **lower step** (:meth:`_lower_step`): the deciding composed lower kind on a grid twice finer than the
          finest it was composed on (the larger lower end kept), again while a step narrows the bracket by at least
          :data:`BRACKET_MIN_GAIN` of itself;
        * else a **whole pass**: the query on the grid ``g/2`` (:meth:`_epsilon_on`), which becomes this accountant's
          grid (the coarser grid's PLDs are dropped), the better end of each side kept (:meth:`_merge`).

        At most :data:`BRACKET_MAX_PASSES` steps of each kind.  It stops (``details["bracket"]["stopped_by"]``) on

        * ``"grid"``: the caller fixed the grid (``grid=...``): kept as given;
        * ``"gap"``: the excess over ``rel_width`` is at least the discretisation's own width (the reported pair's
          PLD sandwich ``(upper − pair_lower)/upper``, times the lower grid's factor), or a whole pass narrowed the
          bracket by less than :data:`BRACKET_MIN_GAIN` of itself: the rest is the pairs' own gap — unless the
          reported pair's own sandwich is itself above ``rel_width`` (:meth:`_own_sandwich_wide`: the curve pairs'
          sandwich, which the grid search does not judge): then whole passes go on (no lower steps; counted in
          ``details["bracket"]["sandwich_passes"]``) within the same budget until it is within;
        * ``"budget"``: the next step's modelled cost (:func:`~blanket.exact.accounting.composition_cost.
          lower_refine_seconds`, :meth:`_bracket_pass_seconds`) would take the refinement past its budget
          (:meth:`_bracket_budget`: ``refine_seconds``, the CLI's ``--refine-seconds``);
        * ``"time budget"``: the run's ``--time-budget`` has less time left than that, or ran out during a step (the
          step's partial work is dropped; the answer is the last one, certified);
        * ``"passes"``: :data:`BRACKET_MAX_PASSES` steps of a kind were made;
        * ``"memory"``: a whole pass's modelled peak memory (:meth:`_bracket_pass_bytes`) is over the memory limit
          (``--max-memory``).

        ``details["bracket"]``: ``width``, ``rel_width`` (decimal strings), ``within``, ``passes``, ``grids`` (the
        whole passes' grids), ``lower_steps`` and ``lower_grids`` (when any), ``stopped_by`` (``None`` when within),
        ``budget_seconds``, ``next_seconds`` (modelled).  A choice only (floats choose the grids; the ends are
        certified on every grid).  Cost: within the budget; nothing when the bracket is within ``rel_width`` or the
        gap decides at once."""
        from blanket.exact.numbers.errors import OutOfTime
        from blanket.exact.runtime import progress as _progress

        rel = self.rel_width
        info: dict[str, Any] = {"rel_width": str(rel), "passes": 0, "grids": [str(g)], "stopped_by": None}
        budget = next_s = None
        spent = 0.0
        dropped: list = []  # the lower steps' grids (dropped with the coarser grid's PLDs)
        finest: dict = {}  # lower kind -> the finest grid of the lower steps
        tried_low = False  # the last lower step gained too little: the next step is a whole pass
        width = float(ans.rel_width)
        while ans.rel_width > rel:
            if self.grid is not None:
                info["stopped_by"] = "grid"
                break
            if info["passes"] >= BRACKET_MAX_PASSES or info.get("lower_steps", 0) >= BRACKET_MAX_PASSES:
                info["stopped_by"] = "passes"
                break
            if ans.upper == math.inf or self._cache.get(("low-used", str(dt), g), (None, None))[0] is None:
                info["stopped_by"] = "gap"  # no finite upper end, or no lower end at all: a grid does not help
                break
            up = float(ans.upper)
            disc = 1.0 if not up else max(0.0, (up - float(ans.pair_lower)) / up)
            lf = LOWER_GRID_FACTOR if self.rounds > LOWER_GRID_ROUNDS else 1
            # the excess is the pairs' gap; still, while the reported pair's own PLD sandwich is above rel_width, a
            # whole pass narrows it (the grid search judged the dominating pairs' sandwich, not the curve pairs')
            own = width - float(rel) >= lf * disc
            if own and not self._own_sandwich_wide(ans):
                info["stopped_by"] = "gap"
                break
            if budget is None:
                budget = self._bracket_budget()
            low = None if own else self._lower_at(g, dt, finest)
            if low is not None and not tried_low:
                kind, lg, p = low
                low_s = _cost.lower_refine_seconds(len(p), 2)
                if spent + low_s > budget or low_s > _progress.time_left():
                    next_s = low_s  # the cheapest next step does not fit
                    info["stopped_by"] = "budget" if spent + low_s > budget else "time budget"
                    break
                try:
                    ans = self._lower_step(ans, kind, lg / 2, dt)
                except OutOfTime:
                    info["stopped_by"] = "time budget"
                    break
                spent += low_s
                if lg in dropped:  # the previous lower step's PLD, superseded (memory)
                    self._drop_grids({lg})
                    dropped.remove(lg)
                finest[kind] = lg / 2
                info["lower_steps"] = info.get("lower_steps", 0) + 1
                info.setdefault("lower_grids", []).append(str(lg / 2))
                dropped.append(lg / 2)
                old, width = width, float(ans.rel_width)
                # another lower step while they gain, else the whole query on a finer grid
                tried_low = old - width < BRACKET_MIN_GAIN * old
                continue
            next_s = self._bracket_pass_seconds(g)
            if spent + next_s > budget:
                info["stopped_by"] = "budget"
                break
            if self._bracket_pass_bytes(g) > _guards.max_memory():
                info["stopped_by"] = "memory"
                break
            if next_s > _progress.time_left():
                info["stopped_by"] = "time budget"
                break
            fine = g / 2
            try:
                new = self._epsilon_on(fine, dt)
            except OutOfTime:
                info["stopped_by"] = "time budget"
                break
            spent += next_s
            tried_low = False
            info["passes"] += 1
            info["grids"].append(str(fine))
            keep = {fine, self._lower_grid(fine), self._cache.get(("low-used", str(dt), fine), (None, None))[1]}
            keep |= {x for x in dropped if x <= min(keep - {None})}  # the lower steps' grids at or below the new ones
            self._drop_grids({g, self._lower_grid(g), *dropped} - keep)
            dropped = [x for x in dropped if x in keep]
            self._cache["auto"] = fine
            g = fine
            ans = self._merge(ans, new)
            if own:
                info["sandwich_passes"] = info.get("sandwich_passes", 0) + 1
            old, width = width, float(ans.rel_width)
            if ans.rel_width > rel and old - width < BRACKET_MIN_GAIN * old and not self._own_sandwich_wide(ans):
                info["stopped_by"] = "gap"
                break
        info.update(
            width=arith.decimal_string(fmpq(ans.rel_width.numerator, ans.rel_width.denominator), 4, up=True)
            if ans.upper != math.inf
            else "1",
            within=ans.rel_width <= rel,
            budget_seconds=None if budget is None else round(budget, 1),
            next_seconds=None
            if next_s is None or info["stopped_by"] not in ("budget", "time budget")
            else round(next_s, 1),
        )
        return dataclasses.replace(ans, details={**ans.details, "bracket": info})

    # ---------------------------------------------------------------- one round's own ends
    def _record_rounds(self) -> list:
        """The distinct ``(record, n, has a lower pair)`` of the ledger's plain rounds of a closed-form record
        (:data:`~blanket.exact.accounting.certified.ONE_ROUND_RECORDS`; a :class:`Shuffled` round, not sampled, no
        colluders), in ledger order; the flag says whether the round composes a concrete lower pair of its own
        (every record with ``n ≥ 2`` does now; the geometric mechanism did not before its threshold count).  O(ledger
        entries), nothing costly built."""
        out: list = []
        for ev, _ in self._ledger:
            if type(ev) is Shuffled and isinstance(ev.mechanism, _one.ONE_ROUND_RECORDS):
                item = (ev.mechanism, ev.n, ev.has_lower_pair())
                if item not in out:
                    out.append(item)
        return out

    def _one_round(self, quantity: str, at: fmpq) -> dict | None:
        """One round's own certified ends beside the composition (docs/composition.md §5e "One round through the
        accountant"), or ``None`` when none applies (``curves=False``, the fast route, never takes them):

        * the ledger is **one round** (count 1) of a closed-form record: its one-round certified bracket
          (:func:`~blanket.exact.accounting.certified.one_round_epsilon` at ``target = at`` for ``quantity``
          "epsilon", searched to :attr:`one_round_rel_tol`; :func:`~blanket.exact.accounting.certified.one_round_delta`
          at ``ε = at`` for "delta", at doubling precision as ``blanket delta``), ``upper`` and ``lower``;
        * else the largest one-round lower end over the ledger's record rounds without a concrete lower pair of their
          own (none at present; a composition is never below one of its rounds), ``upper`` ``None``;
        * the ledger is one sampled round of a binary RR record: its exact worst case (:meth:`_sampled_binary_one_round`);
          of unary encoding (OUE, SUE): the full view of its third-value dataset as a lower end
          (:meth:`_sampled_full_one_round`; for "epsilon" its search starts where the composition's lower end is
          certified to fail, which :meth:`_epsilon_on` leaves in the cache), ``upper`` ``None`` (the upper end stays
          the composition's).

        Returns ``{"lower", "lower_from", "lower_route", "upper", "upper_from", "upper_results"}`` (Fractions or
        ``None``; δ ends clamped to [0, 1]; ``lower_route``: a key of :data:`ONE_ROUND_LOWER_ROUTES`;
        ``upper_results``: the registry keys the upper end's route rests on).  Memoised per (quantity, at) until the next ``compose``.  Cost: the one-round searches (seconds
        at n = 10³ where the exact five-atom view is a route; a geometric lower search about 0.1 s at n = 10³);
        nothing without such a round."""
        if self.curves is False:
            return None
        key = ("one-round", quantity, str(at))
        if key in self._cache:
            return self._cache[key]
        recs = self._record_rounds()
        single = len(self._ledger) == 1 and self.rounds == 1 and len(recs) == 1
        todo = recs if single else [r for r in recs if not r[2]]
        out: dict[str, Any] | None = None
        if todo:
            out = {"lower": None, "lower_from": None, "upper": None, "upper_from": None, "lower_route": "record"}
            for mech, n, _ in todo:
                if quantity == "epsilon":
                    lo, where, up, name, _every = _one.one_round_epsilon(
                        mech, n, at, rel_tol=self.one_round_rel_tol, upper=single
                    )
                    lo = None if lo is None else Fraction(str(lo))
                    up = None if up is None else Fraction(str(up))
                else:
                    ((uv, name, _every), (lv, where)), _prec = _one.one_round_delta(mech, n, at, upper=single)
                    up = None if uv is None else min(Fraction(1), arith.endpoints(uv)[1])
                    lo = None if lv is None else max(Fraction(0), arith.endpoints(lv)[0])
                if lo is not None and (out["lower"] is None or lo > out["lower"]):
                    prefix = "" if single else f"one round alone ({Shuffled(mech, n).describe()}): "
                    out["lower"], out["lower_from"] = lo, f"{prefix}the dataset where {where}"
                if up is not None:
                    keys = next((r.results for r in _one.upper_routes(mech, n) if r.name == name), ())
                    out["upper"], out["upper_from"], out["upper_results"] = up, f"the {name}", list(keys)
        if len(self._ledger) == 1 and self.rounds == 1:
            sb = self._sampled_binary_one_round(quantity, at)
            if sb is not None:
                out = sb
            if self._without_lower_search:  # choose_grid: the lower-only full-view search left out, nothing kept
                return out
            sf = self._sampled_full_one_round(quantity, at, self._cache.get(("one-round-hint", str(at))))
            if sf is not None and (out is None or out["lower"] is None or sf["lower"] > out["lower"]):
                out = (
                    sf
                    if out is None
                    else {**out, "lower": sf["lower"], "lower_from": sf["lower_from"], "lower_route": "sampled-full"}
                )
        self._cache[key] = out
        return out

    def _sampled_full_work(self) -> tuple[str, int] | None:
        """``("sorted", work)`` (:func:`blanket.exact.shuffled.oracle_third.sampled_full_work` within
        :data:`~blanket.exact.shuffled.oracle_third.SAMPLED_MAX_WORK`) or ``("binned", work)``
        (:func:`~blanket.exact.shuffled.oracle_third.sampled_binned_work` within
        :data:`~blanket.exact.shuffled.oracle_third.SAMPLED_BINNED_MAX_WORK`) for the ledger's single round when it
        is one sampled (``q < 1``) round of unary encoding (``k ≥ 3``, ``n ≥ 2``): the route
        :func:`~blanket.exact.shuffled.oracle_third.sampled_full_lower` takes; else ``None``.  O(1) ball operations."""
        if not (len(self._ledger) == 1 and self.rounds == 1):
            return None
        ev = self._ledger[0][0]
        inner, q = getattr(ev, "event", None), getattr(ev, "q", None)
        if type(inner) is not Shuffled or not isinstance(q, Fraction) or not q < 1 or inner.n < 2:
            return None
        mech = inner.mechanism
        if not isinstance(mech, oracles.UnaryEncoding) or mech.k < 3:
            return None
        fq = fmpq(q.numerator, q.denominator)
        work = _third.sampled_full_work(mech, inner.n, fq)
        if work <= _third.SAMPLED_MAX_WORK:
            return "sorted", work
        work = _third.sampled_binned_work(mech, inner.n, fq)
        return ("binned", work) if work <= _third.SAMPLED_BINNED_MAX_WORK else None

    def _sampled_full_one_round(self, quantity: str, at: fmpq, hint: fmpq | None) -> dict | None:
        """A ledger of one sampled round (``q < 1``) of unary encoding (OUE, SUE): the full view of the third-value
        dataset of the sampled round (:func:`blanket.exact.shuffled.oracle_third.sampled_full_lower`, docs/reference/
        oracles.md §2 "Sampled rounds: the full view") as a certified lower end, as :meth:`_one_round`'s dict with
        ``upper`` ``None``; ``None`` when it does not apply, is refused by its work guard, or (for "epsilon") does not
        fail the target at ``hint`` (then it cannot raise the lower end there).  "delta": its value at ``ε = at``;
        "epsilon": the crossing above ``hint`` (:func:`blanket.exact.numbers.guided.crossing_from_failing`, searched
        to :attr:`one_round_rel_tol`).  Cost: 1 to about 6 evaluations (about a second each at n = 10³, q = 1/10;
        the binned route above the sorted one's guard, a few seconds each at n = 10⁴)."""
        from blanket.exact.numbers.guided import crossing_from_failing

        if self._sampled_full_work() is None:
            return None
        ev = self._ledger[0][0]
        inner, q = ev.event, ev.q
        mech = inner.mechanism
        fq = fmpq(q.numerator, q.denominator)

        def full(e: fmpq) -> fmpq:
            v = _third.sampled_full_lower(mech, inner.n, fq, epsilon=e)
            return fmpq(0) if v is None else v

        if quantity == "delta":
            lo = full(at)
        else:
            if hint is None:
                return None
            bad_value = full(hint)
            if not bad_value > at:
                return None
            br = crossing_from_failing(
                full, at, bad=hint, bad_value=bad_value, hi=_one.epsilon_hi(mech), rel_tol=self.one_round_rel_tol
            )
            lo = br.lower
        where = (
            f"all other {inner.n - 1} users hold a third value z (x z^(n-1) versus x' z^(n-1)), each taking part "
            f"w.p. q = {fq}, full view"
        )
        return {
            "lower": Fraction(int(lo.p), int(lo.q)),
            "lower_from": f"the dataset where {where}",
            "lower_route": "sampled-full",
            "upper": None,
            "upper_from": None,
            "upper_results": [],
        }

    def _sampled_binary_one_round(self, quantity: str, at: fmpq) -> dict | None:
        """A ledger of one sampled binary RR round whose exact worst case is affordable
        (:func:`~blanket.exact.shuffled.sampled_binary.affordable`): its exact worst case over every dataset (docs/composition.md §5f, Lemma S4) gives both ends (the lower
        end is attained by a dataset), as :meth:`_one_round`'s dict; else ``None``.  Never for an ``ldp`` record
        (binary RR's worst case is not a bound for it).  sampled_binary.worst_seconds once, then O(n + log L) per value."""
        ev = self._ledger[0][0]
        plain = _curve_event(ev)
        if plain is ev or not isinstance(plain, Shuffled) or plain.n < 2:
            return None
        mech: Any = plain.mechanism  # a SampledBinaryRR (accounting.sampled imports this module: duck-typed)
        if not getattr(mech, "exact_binary_worst", False):
            return None
        if not _sampled_binary.affordable(plain.n, mech.participation):
            return None
        with arith.precision(128):  # the same ball as the curve source's: one preparation (the memo's key)
            e0 = mech.exp_epsilon0()
        w = _sampled_binary.sampled_binary_worst(e0, mech.participation, plain.n)
        if quantity == "epsilon":
            e_hi = arith.endpoints(arith.ball(e0))[1]
            lo, up = _sampled_binary.one_round_epsilon(
                w, at, fmpq(e_hi.numerator, e_hi.denominator), rel_tol=self.one_round_rel_tol
            )
        else:
            lo, up = _sampled_binary.one_round_delta(w, at)
        name = "exact worst case over every dataset (sampled binary RR, Lemma S4)"
        upper_from, upper_results = f"the {name}", ["Sampled binary RR, exact worst case"]
        if quantity == "delta":
            # the exact worst case's upper end stops at its window cut (left-out mass <= 2^-140 of M's law); deep in
            # the tail the blanket view of R_q with its Chernoff bound (Lemma S0, Lemma 5.3, Lemma K5) is far below
            # (eps0 = 1, n = 1000, q = 1/10, eps = 0.3: 1.25e-43 -> 9.0e-114); both bound the same round's delta
            from blanket.exact.shuffled.oracles import blanket_view_upper_end

            try:
                bv: fmpq | None = blanket_view_upper_end(mech, plain.n, at)
            except Undecided:  # the engine's enclosure not finite (huge eps0): Lemma S4's end stays
                bv = None
            if bv is not None and bv < up:
                up = bv
                upper_from = (
                    "the blanket view of the sampled randomizer R_q (Lemma S0, Lemma 5.3) capped by its Chernoff bound "
                    "(Lemma K5), below the exact worst case's upper end (Lemma S4) cut at its window"
                )
                upper_results = ["Sampled four-value round through R_q"]
        return {
            "lower": Fraction(int(lo.p), int(lo.q)),
            "lower_from": "the worst dataset of the sampled round (Lemma S4: the exact maximum over every dataset)",
            "lower_route": "sampled-binary",
            "upper": Fraction(int(up.p), int(up.q)),
            "upper_from": upper_from,
            "upper_results": upper_results,
        }

    def _one_round_lower_name(self, one: dict) -> str:
        """``details["lower_pair"]`` when :meth:`_one_round`'s lower end ``one`` decided: :data:`LOWER_NAMES`
        ``["one-round"]`` and the one route used (:data:`ONE_ROUND_LOWER_ROUTES`); with more than one round, that the
        other rounds are dropped (a post-processing).  O(1)."""
        route = ONE_ROUND_LOWER_ROUTES[one.get("lower_route") or "record"]
        others = "" if self.rounds == 1 else "the other rounds dropped: a post-processing; "
        return f"{LOWER_NAMES['one-round']} ({others}{route})"

    @staticmethod
    def _one_round_details(one: dict | None, upper_by: bool, lower_by: bool) -> dict | None:
        """The answer's ``details["one_round"]``: :meth:`_one_round`'s ends as decimal strings (8 digits, outward)
        and which end each of them decided (``"one round"`` or ``"composition"``).  O(1)."""
        if one is None:
            return None

        def dec(x: Fraction | None, up: bool) -> str | None:
            return None if x is None else arith.decimal_string(fmpq(x.numerator, x.denominator), 8, up=up)

        return {
            "lower": dec(one["lower"], False),
            "lower_from": one["lower_from"],
            "upper": dec(one["upper"], True),
            "upper_from": one["upper_from"],
            "upper_results": one.get("upper_results", []),
            "upper_decided_by": ONE_ROUND_NAME if upper_by else "composition",
            "lower_decided_by": ONE_ROUND_NAME if lower_by else "composition",
        }

    # ---------------------------------------------------------------- queries
    def choose_grid(self, target_delta: NumberInput | float = "1e-6") -> Fraction:
        """The grid this accountant keeps for its later queries, chosen as :meth:`get_epsilon` at ``target_delta``
        chooses it (:meth:`_auto_grid`, then the bracket's refinement) but without the one-round ε search that only
        raises a lower end (:meth:`_sampled_full_one_round`: a sampled unary-encoding round's full view, about six
        evaluations): a ``blanket delta`` query reads one δ, and its ``get_delta`` evaluates that view once at its ε
        (docs/composition.md §5e).  The other one-round ends (a closed-form record's bracket, sampled binary RR's
        exact worst case) are taken as in :meth:`get_epsilon`, so the grid is the same wherever the full view did not
        decide the ε bracket.  The answer is not kept (nothing of the left-out search is memoised): a choice only
        (every grid gives certified ends).  Cost: :meth:`get_epsilon`'s less that search."""
        self._without_lower_search = True
        try:
            self.get_epsilon(target_delta)
        finally:
            self._without_lower_search = False
        return self.grid if self.grid is not None else self._cache.get("auto", self._first_grid())

    def get_epsilon(self, target_delta: NumberInput | float) -> CertifiedEpsilon:
        """:meth:`_get_epsilon` with the curve sweeps on :attr:`workers` processes."""
        with _sweeps_on(self.workers):
            return self._get_epsilon(target_delta)

    def _get_epsilon(self, target_delta: NumberInput | float) -> CertifiedEpsilon:
        """Certified ε for ``target_delta`` (0 < δ < 1): ``.upper`` is safe, ``.lower`` certified unattainable below.
        On the grid of :meth:`_auto_grid`, then on finer grids while the bracket is wider than ``rel_width`` and the
        refinement's budget admits them (:meth:`_refine_bracket`; ``details["bracket"]`` says how it ended)."""
        self._need()
        dt = arith.exact_in(target_delta, "target_delta", lo=0, hi=1, lo_open=True, hi_open=True, allow_float=True)
        g = self._auto_grid(dt)
        return self._refine_bracket(self._epsilon_on(g, dt), g, dt)

    def _epsilon_on(self, g: Fraction, dt: fmpq) -> CertifiedEpsilon:
        """The certified ε at ``dt`` on the grid ``g`` (every route, every lower pair; see :meth:`_get_epsilon`)."""
        up = self._pld(g, "upper").get_epsilon(dt)
        pl = self._pld(g, "lower").get_epsilon(dt)
        both = {"dominating pairs": None if up is None else str(_frac(up))}
        curve = False
        # the curve pairs refined where this query reads them (curve_pairs.query_band; every grid is valid); a scaled
        # accountant (fewer rounds, scaled()) keeps its parent's band at this delta, which covers its own
        band = self._cache.setdefault(("band", dt), _curve_pairs.query_band(dt, self.rounds))
        if (cpl := self._pld(g, "cupper", band)) is not None:
            cu = cpl.get_epsilon(dt)
            both["curve pairs"] = None if cu is None else str(_frac(cu))
            if cu is not None and (up is None or cu < up):  # the smaller certified upper end wins
                up, pl, curve = cu, self._pld(g, "clower", band).get_epsilon(dt), True
        lows = {k: p.get_epsilon(dt) for k in LOWER_KINDS if (p := self._pld(self._lower_grid(g), k)) is not None}
        if (s_eps := self._summed_epsilon(dt)) is not None:
            lows["low-sum"] = s_eps
        refined_kind, fine = self._refined_lower(g, dt, lows)
        low_kind = max(lows, key=lambda k: lows[k]) if lows else None
        # the deciding lower kind and its grid, for the bracket's refinement (_lower_step)
        low_grid = fine if refined_kind is not None and refined_kind == low_kind else self._lower_grid(g)
        self._cache[("low-used", str(dt), g)] = (low_kind, low_grid)
        lo = lows[low_kind] if low_kind is not None else fmpq(0)  # no round has a concrete pair: 0
        # a single record round's own bracket; a short composition's lower end (hint: where lo is certified to fail)
        lo_q = _frac(lo)
        if lo_q > 0:  # where the composed lower end is certified to fail: the start of a one-round search above it
            self._cache.setdefault(("one-round-hint", str(dt)), fmpq(lo_q.numerator, lo_q.denominator))
        one = self._one_round("epsilon", dt)
        if one is not None and one["lower"] is not None and one["lower"] > _frac(lo):
            lo, low_kind = fmpq(one["lower"].numerator, one["lower"].denominator), "one-round"
        renyi = self._renyi(g, band)
        r_eps, r_order = None, None
        if renyi is not None:
            with arith.precision(self.prec):
                rdp = _pld.rdp_epsilon(renyi, _pld.RENYI_ORDERS, dt)
            assert rdp is not None  # rdp_epsilon is None only for no orders; RENYI_ORDERS is not empty
            r_eps, r_order = rdp
        return self._certified(
            CertifiedEpsilon,
            g,
            lower=_frac(lo),
            pair_lower=_frac(pl),
            # many rounds of a large epsilon0: the pure-DP sum can be the smallest certified end
            uppers={
                "PLD": None if up is None else _frac(up),
                "Renyi": None if r_eps is None else _frac(r_eps),
                "basic": self.basic_upper(),
                ONE_ROUND_NAME: None if one is None else one["upper"],  # last: a tie goes to the composition
            },
            renyi_order=None if r_order is None else _frac(r_order),
            details={
                "target_delta": str(dt),
                "ledger": [(e.describe(), c) for e, c in self._ledger],
                "pld_routes": both,
                "lower_pair": LOWER_NAMES[low_kind] if low_kind is not None else "none",
                "lower_grid": str(low_grid),
            },
            curve=curve,
            band=band,
            one=one,
            one_lower=low_kind == "one-round",
        )

    def get_delta(self, target_epsilon: NumberInput | float, *, refine: bool = True) -> CertifiedDelta:
        """:meth:`_get_delta` with the curve sweeps on :attr:`workers` processes."""
        with _sweeps_on(self.workers):
            return self._get_delta(target_epsilon, refine=refine)

    def _first_grid(self) -> Fraction:
        """The first grid of :meth:`_auto_grid`'s search, ``Δ ≈ ε0/400`` (dyadic).  O(ledger entries)."""
        return _dyadic_below(min(max(max(float(_loss_scale(ev)) for ev, _ in self._ledger), 1e-6) / 400.0, 1.0))

    def _curve_delta(self, grid: Fraction, eps: fmpq, band: tuple | None) -> arb | None:
        """δ(ε) of the composed curve pairs on ``grid`` refined in ``band`` (``None``: no round has one)."""
        p = self._pld(grid, "cupper", band)
        return None if p is None else p.get_delta(eps)

    def _delta_grid(self, eps: fmpq) -> tuple[Fraction, Fraction | None]:
        """``(grid, δ₁)`` for :meth:`get_delta`: the fixed ``grid``, or the grid already chosen (``_auto_grid``), or
        else :meth:`_auto_grid` at ``δ₁``, the upper end of δ(ε) on the search's first grid ``Δ ≈ ε0/400`` (the
        smaller of the dominating pairs and the curve pairs there, no band) rounded down to a dyadic number — the
        grid ``get_epsilon(δ₁)`` would choose, so that the bracket of ε at ``δ₁`` is at most ``rel_width``.  ``δ₁``
        is returned when computed (``None`` otherwise); when it is 0 or not below 1 no grid is chosen (the first
        grid is used and not kept).  A choice only: every grid gives certified ends.  Cost: the first pass of
        ``_auto_grid`` (reused by it) and the curve pairs composed on that coarse grid."""
        if self.grid is not None:
            return self.grid, None
        if "auto" in self._cache:
            return self._cache["auto"], None
        g0 = self._first_grid()
        with arith.precision(self.prec):
            d0 = arith.endpoints(self._pld(g0, "upper").get_delta(eps))[1]
            c0 = self._curve_delta(g0, eps, None)
            if c0 is not None:
                d0 = min(d0, arith.endpoints(c0)[1])
        if not 0 < d0 < 1:
            return g0, None
        d1 = _dyadic_below(float(d0)) if float(d0) > 0 else Fraction(d0)
        return self._auto_grid(fmpq(d1.numerator, d1.denominator)), d1

    def _delta_band(self, grid: Fraction, eps: fmpq, d_est: Fraction | None) -> tuple | None:
        """The band of curve values (:func:`~blanket.exact.accounting.curve_pairs.query_band`) a ``get_delta`` at
        ``eps`` reads: around ``δ_est`` (``d_est``, else the upper end of δ(ε) on ``grid`` from the curve pairs
        refined in the last band a query used, else unrefined), reusing a band already refined for a δ within a
        factor 2 of it (so ``get_delta(get_epsilon(δ).upper)`` reads ``get_epsilon(δ)``'s band), else a new one,
        kept.  ``None`` when ``δ_est`` is 0 or not below 1.  A choice only (every band gives certified ends).
        O(cached bands) beyond the curve-pair work."""
        bands = [(k[1], v) for k, v in self._cache.items() if isinstance(k, tuple) and k[0] == "band"]
        if d_est is None:
            with arith.precision(self.prec):
                c = self._curve_delta(grid, eps, bands[-1][1] if bands else None)
            if c is None:
                return None
            d_est = Fraction(arith.endpoints(c)[1])
        if not 0 < d_est < 1:
            return bands[-1][1] if bands else None
        ratios = [(Fraction(int(d.p), int(d.q)) / d_est, b) for d, b in bands]  # exact: no float underflow
        near = [(max(r, 1 / r), b) for r, b in ratios if Fraction(1, 2) <= r <= 2]
        if near:
            return min(near, key=lambda t: t[0])[1]
        dq = _dyadic_below(float(d_est)) if float(d_est) > 0 else d_est
        key = fmpq(dq.numerator, dq.denominator)
        return self._cache.setdefault(("band", key), _curve_pairs.query_band(key, self.rounds))

    def _get_delta(self, target_epsilon: NumberInput | float, refine: bool = True) -> CertifiedDelta:
        """Certified δ at ``target_epsilon`` (exact, any real ≥ 0): ``.upper`` is safe, ``.lower`` certified.

        With ``refine`` (default) the same machinery as :meth:`get_epsilon`: the grid is the accountant's (fixed or
        already chosen), or the one ``get_epsilon`` would choose at a first estimate of δ (:meth:`_delta_grid`); the
        curve pairs are refined in the band this query reads (:meth:`_delta_band`; the smallest upper end over the
        curve-pair PLDs evaluated on the grid is reported, each certified); the deciding composed lower pair is
        composed again on a finer grid when cheap (:meth:`_refine_factor`, the larger lower end reported).  Without
        ``refine``: the grid chosen (else ``Δ ≈ ε0/400/T·4``), the curve pairs in the last band a query refined them
        in (else unrefined) and the lower grid only (the certificate's picture: many ε on one set of composed
        distributions).  Cost: as ``get_epsilon`` (one band
        pass of at most ``curve_pairs.TARGET_POINTS`` curve points and its two compositions when the band is new).
        """
        self._need()
        if not refine and not self._curve_as_before and self._one_round_only():
            # the picture's many ε: no one-round route per point, so the curve pair as before the skip
            self._curve_as_before = True
            try:
                return self._get_delta(target_epsilon, refine=False)
            finally:
                self._curve_as_before = False
        eps = arith.exact_in(target_epsilon, "target_epsilon", lo=0, allow_float=True)
        d1: Fraction | None = None
        if not refine:
            g = (
                self.grid
                or self._cache.get("auto")
                or _dyadic_below(
                    min(max(float(_loss_scale(ev)) for ev, _ in self._ledger) / 400.0 / max(1, self.rounds) * 4, 1.0)
                )
            )
        else:
            g, d1 = self._delta_grid(eps)
        both: dict = {}
        curve = False
        band = None
        with arith.precision(self.prec):
            up = self._pld(g, "upper").get_delta(eps)
            pl = self._pld(g, "lower").get_delta(eps)
            both["dominating pairs"] = str(arith.endpoints(up)[1])
            if self._has_curves():
                known = [v for k, v in self._cache.items() if isinstance(k, tuple) and k[0] == "band"]
                tried = [known[-1] if known else None]  # without refine: the last band a query refined, if any
                if refine:
                    band = self._delta_band(g, eps, d1)
                    known = [v for k, v in self._cache.items() if isinstance(k, tuple) and k[0] == "band"]
                    # the curve-pair PLDs already composed on this grid (other bands) are certified too: the smallest
                    # upper end of those and of this query's band is reported
                    tried = [band] + [b for b in known if b != band and (g, "cupper", b) in self._cache]
                    if band is not None and (g, "cupper") in self._cache:  # the unrefined curve pairs, if composed
                        tried.append(None)
                best = None
                for b in tried:
                    cu = self._curve_delta(g, eps, b)
                    if cu is None:  # every round's curve pair left out on this grid (_curve_too_long)
                        continue
                    if best is None or arith.endpoints(cu)[1] < arith.endpoints(best[0])[1]:
                        best = (cu, b)
                if best is not None:
                    cu, cb = best
                    both["curve pairs"] = str(arith.endpoints(cu)[1])
                    if arith.endpoints(cu)[1] < arith.endpoints(up)[1]:  # the smaller certified upper end wins
                        up, pl, curve, band = cu, self._pld(g, "clower", cb).get_delta(eps), True, cb
            lows = {
                k: max(Fraction(0), arith.endpoints(p.get_delta(eps))[0])
                for k in LOWER_KINDS
                if (p := self._pld(self._lower_grid(g), k)) is not None
            }
            if (sums := self._summed_pairs()) is not None:
                lows["low-sum"] = max(_summed.lower_delta(sp, eps) for sp in sums)
            fine = self._refined_lower_delta(g, eps, lows) if refine else None
            u = min(Fraction(1), arith.endpoints(up)[1])
            pl_lo = max(Fraction(0), arith.endpoints(pl)[0])
            low_kind = max(lows, key=lambda k: lows[k]) if lows else None
            lo = lows[low_kind] if low_kind is not None else Fraction(0)
            # a single record round's own ends; a short composition's one-round lower end (not for the picture)
            one = self._one_round("delta", eps) if refine else None
            if one is not None and one["upper"] is not None and band is None and self._one_round_only():
                # no curve pair composed: the band of curve values around the round's own δ is registered for the
                # picture, which composes the curve pair later (as a δ query with the curve pair registers its own)
                self._delta_band(g, eps, one["upper"])
            if one is not None and one["lower"] is not None and one["lower"] > lo:
                lo, low_kind = one["lower"], "one-round"
            renyi = self._renyi(g, band)
            r_d, r_order = _pld.rdp_delta(renyi, _pld.RENYI_ORDERS, eps) if renyi is not None else (None, None)
        b_up = self.basic_upper()
        basic = Fraction(0) if b_up is not None and _frac(eps) >= b_up else None  # the composition is (Σ ε0, 0)-DP
        return self._certified(
            CertifiedDelta,
            g,
            lower=lo,
            pair_lower=pl_lo,
            uppers={
                "PLD": u,
                "Renyi": None if r_d is None else _frac(r_d),
                "basic": basic,
                ONE_ROUND_NAME: None if one is None else one["upper"],  # last: a tie goes to the composition
            },
            renyi_order=None if r_order is None else _frac(r_order),
            details={
                "target_epsilon": str(eps),
                "pld_routes": both,
                "lower_pair": LOWER_NAMES[low_kind] if low_kind is not None else "none",
                "lower_grid": str(fine[1] if fine is not None and fine[0] == low_kind else self._lower_grid(g)),
            },
            curve=curve,
            band=band if curve else None,
            one=one,
            one_lower=low_kind == "one-round",
        )

    def _refined_lower_delta(self, grid: Fraction, eps: fmpq, lows: dict) -> tuple[str, Fraction] | None:
        """:meth:`_refined_lower` for a δ query: the deciding composed lower kind of ``lows`` (kind: certified lower
        end of δ at ``eps``) composed again on its lower grid ÷ :meth:`_refine_factor` when cheap; the larger of the
        two lower ends goes into ``lows[kind]`` (both certified, docs/composition.md §3); returns ``(kind, the finer
        grid)`` when it was refined, else ``None``.  Cost: as :meth:`_refined_lower` (the same PLD when the same kind
        decides both queries: memoised)."""
        pld_kinds = [k for k in lows if k in LOWER_KINDS]
        if not pld_kinds:
            return None
        kind = max(pld_kinds, key=lambda k: lows[k])
        if "low-sum" in lows and lows["low-sum"] >= lows[kind]:
            return None  # the grid-free summed pair decides
        f = self._refine_factor(grid, kind)
        if f == 1:
            return None
        fine = self._lower_grid(grid) / f
        p = self._pld(fine, kind)
        if p is not None:
            v = max(Fraction(0), arith.endpoints(p.get_delta(eps))[0])
            lows[kind] = max(lows[kind], v)
        return kind, fine

    def _certified(
        self,
        cls: type[_C],
        grid: Fraction,
        *,
        lower: Fraction,
        pair_lower: Fraction,
        uppers: dict[str, Fraction | None],
        renyi_order: Fraction | None,
        details: dict,
        curve: bool = False,
        band: tuple | None = None,
        one: dict | None = None,
        one_lower: bool = False,
    ) -> _C:
        """The answer record: the smallest certified upper end of ``uppers`` (route: upper end, ``None`` where the route
        certifies nothing finite; a tie goes to the earlier route) is reported, its route named in ``details``;
        ``one`` (:meth:`_one_round`) goes into ``details["one_round"]`` with which end it decided (``one_lower``: the
        lower end)."""
        route, upper = min(((r, v) for r, v in uppers.items() if v is not None), key=lambda rv: rv[1])
        if one is not None:
            details = {**details, "one_round": self._one_round_details(one, route == ONE_ROUND_NAME, one_lower)}
            if one_lower:  # the one route that gave the lower end, not every possible one
                details["lower_pair"] = self._one_round_lower_name(one)
        return cls(
            lower=lower,
            upper=upper,
            pair_lower=pair_lower,
            grid=grid,
            rounds=self.rounds,
            quantity="epsilon" if cls is CertifiedEpsilon else "delta",
            route=route,
            pld_upper=uppers["PLD"],
            renyi_upper=uppers["Renyi"],
            renyi_order=renyi_order,
            details={
                **details,
                "route": ROUTES[route],
                "pairs": self.pair_descriptions(curve=curve, band=band),
                "pair_route": "curve pairs" if curve else "dominating pairs",
            },
        )

    def pair_descriptions(self, curve: bool = False, band: tuple | None = None) -> list[str]:
        """What each distinct round composes: its dominating pair's description (the worst-case curve, the
        blanket view, the clone pair, …), or with ``curve`` its curve pair's where it has one (the hull of certified
        curve values, naming the sources that gave them; ``band``: the query's band it was refined in), in the order
        of the ledger, without repeats."""
        out: list[str] = []
        g = self.grid if self.grid is not None else self._cache.get("auto")
        for ev, _ in self._ledger:
            cp = self._curve_of(ev, band) if curve else None
            if cp is not None and self._cache.get(("curve-long", g, ev)):  # left out on the grid (_curve_too_long)
                cp = None
            d = (cp if cp is not None else self._dominating(ev)).description
            if d not in out:
                out.append(d)
        return out

    # ---------------------------------------------------------------- interoperability
    def to_dp_accounting(self, grid: NumberInput | None = None) -> Any:
        """The composed **pessimistic** PLD as a ``dp_accounting.pld.privacy_loss_distribution.PrivacyLossDistribution``.

        Needs the optional extra ``blanket[dp-accounting]``.  Every mass is the
        upper end of its certified ball rounded up to a binary64, the mass at
        ``+∞`` likewise; losses are the grid points ``jΔ`` with a dyadic Δ (exact
        in binary64).  **From then on the arithmetic is dp_accounting's (float64,
        FFT convolution), not certified**: use it to compose shuffled rounds with
        other mechanisms there, and treat its answers as estimates.  The grid: ``grid``, else the accountant's
        (fixed or chosen by a query), else ``Δ ≈ ε0/400``; the curve pairs (where rounds have them) are those of
        the last band a query refined them in (a query first makes the export tighter where it read).

        It is the dominating pairs' PLD, never a single round's own certified bracket (the one-round route, not a
        PLD): for one round the export can be looser than :meth:`get_epsilon` (sampled binary RR ε0 = 1,
        n = 1000, q = 1/10, δ = 10⁻⁶: get_epsilon ≤ 0.03675, the export's ε 0.0486).  Cost: one composition
        of the pessimistic PLD (as :meth:`get_delta`), plus O(grid points) to copy the masses.
        """
        self._need()
        try:
            from dp_accounting.pld import privacy_loss_distribution as _dpl
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise InvalidArgument(
                "dp_accounting",
                "not installed",
                "is needed for to_dp_accounting()",
                hint="pip install 'blanket[dp-accounting]'",
            ) from exc
        g = (
            _frac(_pld.parse_grid(grid))
            if grid is not None
            else (
                self.grid
                or self._cache.get("auto")
                or _dyadic_below(min(max(float(_loss_scale(e)) for e, _ in self._ledger) / 400.0, 1.0))
            )
        )
        if Fraction(float(g)) != g:
            raise InvalidArgument(
                "grid",
                str(g),
                "must be exactly representable in binary64 for the export",
                hint="use a dyadic rational such as 1/1024",
            )
        p = self._pld(g, "upper")
        # the curve pairs refined in the last band a query read (docs/composition.md §3), else unrefined
        known = [v for k, v in self._cache.items() if isinstance(k, tuple) and k[0] == "band"]
        cp = self._pld(g, "cupper", known[-1] if known else None)
        if cp is not None:  # both are pessimistic PLDs of dominating pairs: export the one smaller at delta = 1e-6
            a, b = cp.get_epsilon(fmpq(1, 10**6)), p.get_epsilon(fmpq(1, 10**6))
            if a is not None and (b is None or a < b):
                p = cp
        masses = {}
        for i, c in enumerate(p.coeffs):
            hi = arith.endpoints(c)[1]
            if hi > 0:
                masses[p.offset + i] = _round_up_float(hi)
        inf = _round_up_float(arith.endpoints(p.inf)[1]) if p.inf is not None else 0.0
        return _dpl.PrivacyLossDistribution.create_from_rounded_probability(
            masses, inf, float(g), pessimistic_estimate=True
        )
