"""Best certified bound wins: every applicable certified bound on δ(ε) of a shuffled oracle record, and the smallest.

For the records of :mod:`blanket.exact.mechanisms.oracles` (``ldp``, ``oue``, ``sue``, ``olh``,
``hadamard``, ``subset``, ``geometric``) and ``n`` users (replace-one neighbours):

* **upper bounds** (valid for every pair of neighbouring datasets; :func:`upper_bounds`):
  the FOCS 2021 clone pair (every ε0-LDP randomizer; the only assumption is ε0-LDP), for an ``ldp`` record Lemma G1
  (the binary-RR blanket view: Lemma G1 [adaptive] in FMT21's model, or Lemma G1 [same randomizer] when the record
  states one randomizer for every user, ``same_randomizer``), the Rényi route
  (:func:`renyi_route_delta`: the same pair's Rényi divergences, CKS20 Prop. 12 conversion), the blanket
  view of Balle et al. Lemma 5.3 for the four-value records (the upper end of the fast five-atom
  bracket, O(√n), which already takes the smaller of the convex-order spread and the merged view; and the exact
  five-atom Lemma 5.3 value, :func:`blanket.exact.shuffled.oracle_exact.blanket_view_exact`, where its cost guard
  allows: n ≤ :data:`EXACT_VIEW_MAX_N` or cost ≤ :data:`EXACT_VIEW_MAX_WORK`, and δ not below
  :data:`EXACT_VIEW_MIN_DELTA`) and, for the geometric mechanism, the dominating-law bound of :mod:`blanket.exact.shuffled.geometric`
  (every ``n``, docs/numerics.md Lemma O2) and at small ``n`` the Lemma 5.3 enumeration.  :func:`best_upper`
  evaluates them all and returns the one with the smallest certified upper end, naming it.
* **lower bound** (:func:`lower_bound`): the exact δ of a concrete pair of datasets (``x^n`` vs
  ``x^{n−1}x'``, and for the four-value records the third value post-processed — for unary encoding also its full
  view, within a cost guard — :func:`blanket.exact.shuffled.oracle_exact.best_lower`; for ``ldp`` the larger of binary RR and 3-ary RR with the
  same ε0, members of the class), so a claim can FAIL.

The blanket-view engine is the name :data:`BLANKET_VIEW` (:func:`blanket.exact.shuffled.oracles.blanket_view_upper`);
setting it back to the slow exact mixture :func:`blanket.exact.shuffled.oracles.blanket_view_delta` restores the
merged view as a separate route and limits the exact one to ``n ≤ 200``.

>>> from blanket.exact.mechanisms.oracles import OUE
>>> m = OUE(4, exp_epsilon0=3)
>>> v, name, every = best_upper(m, 6, exp_epsilon=2)
>>> name in every and all(v <= w for w in every.values())
True
>>> lower_bound(m, 6, exp_epsilon=2)[0] <= v
True
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from blanket.exact.accounting import pld as _pld
from blanket.exact.accounting.pairs import clone_pair
from blanket.exact.mechanisms import oracles
from blanket.exact.mechanisms.finite import Randomizer, finite_exp_epsilon0
from blanket.exact.numbers import arith, guards
from blanket.exact.numbers.calibrate import Bracket, epsilon_for_delta, validated_search
from blanket.exact.numbers.errors import BlanketError, Undecided
from blanket.exact.numbers.guided import crossing_from_failing, guided_epsilon_for_delta
from blanket.exact.numbers.types import At, Enclosure, NumberInput
from blanket.exact.shuffled import generic_ldp, geometric, oracle_exact
from blanket.exact.shuffled import oracles as fast_oracles
from blanket.exact.shuffled.enumerate import delta_dataset
from flint import arb, ctx, fmpq

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = [
    "BLANKET_VIEW",
    "EXACT_BLANKET_MAX_N",
    "EXACT_FIVE",
    "EXACT_VIEW_MAX_N",
    "EXACT_VIEW_MAX_WORK",
    "EXACT_VIEW_MIN_DELTA",
    "GEOMETRIC_ENUMERATION_MAX",
    "GEOMETRIC_ENUMERATION_SECONDS",
    "geometric_enumeration_seconds",
    "GEOMETRIC_FAST",
    "RENYI",
    "SAME_RANDOMIZER",
    "renyi_route_delta",
    "CLONE",
    "BLANKET_MERGED",
    "BLANKET_EXACT",
    "Route",
    "upper_routes",
    "upper_bounds",
    "best_upper",
    "lower_bound",
    "upper_end",
    "upper_value",
    "lower_value",
    "lower_epsilon",
    "upper_epsilon",
    "ONE_ROUND_RECORDS",
    "epsilon_hi",
    "one_round_epsilon",
    "one_round_delta",
]

#: the Lemma 5.3 engine for four-value records: the upper end of the fast five-atom bracket
#: (:func:`blanket.exact.shuffled.oracles.blanket_view_upper`, O(√n), docs/numerics.md Lemma O1); the slow exact
#: mixture :func:`blanket.exact.shuffled.oracles.blanket_view_delta` (O(n^{3/2})) has the same meaning
BLANKET_VIEW = fast_oracles.blanket_view_upper
#: the exact Lemma 5.3 mixture costs O(n^{3/2}) with the engine above: evaluated up to this n (a faster
#: engine in BLANKET_VIEW lifts the limit)
EXACT_BLANKET_MAX_N = 200 if BLANKET_VIEW is fast_oracles.blanket_view_delta else 10**12
#: the geometric mechanism's small-n routes (explicit histograms) run up to this many histograms
GEOMETRIC_ENUMERATION_MAX = 20000
#: ... and while :func:`geometric_enumeration_seconds` models at most this many one-core seconds (a choice)
GEOMETRIC_ENUMERATION_SECONDS = 60.0

CLONE = "clone pair (Feldman-McMillan-Talwar FOCS 2021)"
BLANKET_MERGED = "blanket view, merged (Balle et al. Lemma 5.3)"
BLANKET_EXACT = "blanket view (Balle et al. Lemma 5.3)"
GEOMETRIC_ENUM = "blanket view by enumeration (Balle et al. Lemma 5.3)"
GEOMETRIC_FAST = "blanket view, dominating law (Balle et al. Lemma 5.3, convex order)"
EXACT_FIVE = "blanket view, exact five-atom sum (Balle et al. Lemma 5.3)"
#: the exact five-atom blanket view (:func:`blanket.exact.shuffled.oracle_exact.blanket_view_exact`) is a route up to
#: this n (its cost grows like n^{3/2}: about 1 s per δ at n = 200 and 10 s at n = 1000 on a loaded core)
EXACT_VIEW_MAX_N = 300
#: above EXACT_VIEW_MAX_N the exact five-atom view is still a route while its cost measure
#: (:func:`blanket.exact.shuffled.oracle_exact.exact_view_work`: engine calls × n) is at most this: every record of
#: ``bench_oracles.py --bracket`` at n = 10³ (55–160 calls, 4–13 s per δ on a loaded core), OUE k = 128 up to
#: n ≈ 3000; not at n = 10⁴ (OUE: 198 calls, 100 s per δ, for 4 % of δ there)
EXACT_VIEW_MAX_WORK = 3 * 10**5
#: the exact five-atom view is left out (its route raises Undecided) where the fast view's upper end is below this:
#: its enclosure carries an absolute windowing error (measured: width 3·10⁻¹⁷ at OUE k = 128, ε0 = 1, n = 10³,
#: ε = 0.3, where the fast view gives 1.2·10⁻²⁷) and costs seconds for nothing there
EXACT_VIEW_MIN_DELTA = Fraction(1, 10**12)
RENYI = "Rényi route (clone pair, CKS20 Prop. 12 conversion)"
#: ``ldp`` with ``same_randomizer=True`` only (one randomizer for every user): Lemma G1, docs/mechanisms.md
SAME_RANDOMIZER = "one-randomizer bound (Lemma G1: binary-RR blanket view)"
#: the plain ``ldp`` record (FMT21's adaptive model): Lemma G1 [adaptive], docs/mechanisms.md
ADAPTIVE_G1 = "Lemma G1 bound in FMT21's adaptive model (binary-RR blanket view)"


def upper_end(v: Enclosure) -> Fraction:
    """The certified upper end of an enclosure (an exact value is its own end), as a ``Fraction`` (comparable)."""
    return Fraction(int(v.p), int(v.q)) if isinstance(v, fmpq) else arith.endpoints(v)[1]


def geometric_enumeration_seconds(m: int, n: int, alpha: fmpq) -> float:
    """Modelled one-core seconds of the geometric mechanism's exact-rational enumeration at ``n`` users
    (:func:`~blanket.exact.shuffled.oracles.blanket_view_delta_enumerate`: ``m(m−1)`` ordered pairs, each
    ``C(n+m, m)`` compositions over ``≤ m+1`` atoms): ``1e-5`` s a term plus ``1.5e-8·n·h`` for the growth of its
    rationals, ``h`` the bit height of ``α`` (``α^c`` and the running sum grow by ``≈ h`` bits per user).  Fitted
    to (m = 3, exact_epsilon 3; one core at load 5-6): α = 1/3 n = 60, 120: 2.0, 18.7 s (model 2.8, 24.7);
    α = 1e-10, 1e-50, n = 30: 0.52, 2.4 s (model 0.83, 2.8).  A choice, never a bound.  O(1)."""
    h = max(int(alpha.p).bit_length(), int(alpha.q).bit_length())
    return m * (m - 1) * math.comb(n + m, m) * (1e-5 + 1.5e-8 * n * h)


def _geometric_small(mech, n) -> bool:
    """Whether the geometric mechanism's small-n exact routes (the enumeration upper bound, the exact dataset lower
    bound) run: exact ``α``, at most :data:`GEOMETRIC_ENUMERATION_MAX` histograms and
    :func:`geometric_enumeration_seconds` at most :data:`GEOMETRIC_ENUMERATION_SECONDS` (``--alpha 1e-50``, m = 3,
    n = 100 ran > 120 s in big rationals; now the every-n routes answer).  O(1)."""
    return (
        mech.is_exact
        and math.comb(n + mech.m - 1, mech.m - 1) <= GEOMETRIC_ENUMERATION_MAX
        and geometric_enumeration_seconds(mech.m, n, mech.alpha_exact) <= GEOMETRIC_ENUMERATION_SECONDS
    )


@dataclass(frozen=True)
class Route:
    """One certified upper bound that applies: ``name``, ``compute(epsilon=…, exp_epsilon=…)`` and the registered
    results it rests on (registry keys, for the certificate's lemma chain)."""

    name: str
    compute: Callable
    results: tuple
    module: str


def _exact_key(v: object) -> object:
    """A memo key that determines ``v`` exactly (a ball by its exact midpoint and radius, a rational by its numerator
    and denominator; ``str`` of a ball rounds, so two different balls can print alike).  O(size of v)."""
    if isinstance(v, arb):
        return ("arb", v.mid().man_exp(), v.rad().man_exp())
    if isinstance(v, fmpq):
        return ("fmpq", int(v.p), int(v.q))
    return (type(v).__name__, repr(v))


def upper_routes(mech: Randomizer, n: int) -> list:
    """The certified upper bounds on δ(ε) that apply to ``mech`` at ``n`` users, cheapest first.

    Cost: the clone pair and the merged view ``O(n log(1/tol))``; the exact view ``O(n^{3/2})``
    (only for ``n ≤`` :data:`EXACT_BLANKET_MAX_N`); the exact five-atom view (``O(√n)`` engine calls of
    ``O(n log(1/tol))``) for ``n ≤`` :data:`EXACT_VIEW_MAX_N` or while its cost measure is at most
    :data:`EXACT_VIEW_MAX_WORK`; the geometric enumeration only for few histograms.
    """
    out = [
        Route(
            CLONE,
            lambda **kw: fast_oracles.clone_delta(mech, n, **kw),
            ("FMT21 clone pair", "FO clone identity"),
            "exact.shuffled.oracles.clone_delta",
        ),
        Route(
            RENYI,
            lambda **kw: renyi_route_delta(mech, n, **kw),
            ("FMT21 clone pair", "FO clone identity", "RDP to DP conversion (CKS20 Prop. 12)"),
            "exact.accounting.certified.renyi_route_delta",
        ),
    ]
    if isinstance(mech, oracles.LDP) and mech.same_randomizer:  # the deployment states one randomizer for all users
        out.append(
            Route(
                SAME_RANDOMIZER,
                lambda **kw: generic_ldp.same_randomizer_delta(mech, n, **kw),
                ("Lemma G1 [same randomizer]",),
                "exact.shuffled.generic_ldp.same_randomizer_delta",
            )
        )
    elif isinstance(mech, oracles.LDP):  # FMT21's adaptive model: Lemma G1 holds there too (docs/mechanisms.md)
        out.append(
            Route(
                ADAPTIVE_G1,
                lambda **kw: generic_ldp.adaptive_model_delta(mech, n, **kw),
                ("Lemma G1 [adaptive]",),
                "exact.shuffled.generic_ldp.adaptive_model_delta",
            )
        )
    if isinstance(mech, oracles.FourValue):
        gamma = f"FO gamma [{'ue' if isinstance(mech, oracles.UnaryEncoding) else mech.kind}]"
        law = f"FO L law [{'ue' if isinstance(mech, oracles.UnaryEncoding) else mech.kind}]"
        # the merged view (exact.shuffled.oracles.blanket_view_delta_merged) is not a separate route: the fast engine's upper end
        # is the smaller of the convex-order spread and the merged view (docs/numerics.md Lemma O1)
        if BLANKET_VIEW is fast_oracles.blanket_view_delta or n > EXACT_BLANKET_MAX_N:
            out.append(
                Route(
                    BLANKET_MERGED,
                    lambda **kw: fast_oracles.blanket_view_delta_merged(mech, n, **kw),
                    ("BBGN19 Lemma 5.3", gamma, law, "FO L values", "FO merged blanket view"),
                    "exact.shuffled.oracles.blanket_view_delta_merged",
                )
            )
        fast_memo: dict = {}

        def fast_view(**kw):
            # the fast view at (ε, precision), computed once for this route and the exact view's guard below
            key = (tuple(sorted((k, _exact_key(v)) for k, v in kw.items())), ctx.prec)
            if key not in fast_memo:
                if len(fast_memo) >= 64:
                    fast_memo.pop(next(iter(fast_memo)))
                fast_memo[key] = BLANKET_VIEW(mech, n, **kw)
            return fast_memo[key]

        def exact_five(**kw):
            if upper_end(fast_view(**kw)) < EXACT_VIEW_MIN_DELTA:
                raise Undecided(
                    "the exact five-atom view is left out where the fast view's upper end is below "
                    f"{float(EXACT_VIEW_MIN_DELTA):g}: its windowing error is not negligible there"
                )
            return oracle_exact.blanket_view_exact(mech, n, **kw)

        if n <= EXACT_BLANKET_MAX_N:
            out.append(
                Route(
                    BLANKET_EXACT,
                    fast_view,
                    ("BBGN19 Lemma 5.3", gamma, law, "FO L values"),
                    f"{BLANKET_VIEW.__module__.removeprefix('blanket.')}.{BLANKET_VIEW.__name__}",
                )
            )
        if n <= EXACT_VIEW_MAX_N or oracle_exact.exact_view_work(mech, n) <= EXACT_VIEW_MAX_WORK:
            out.append(
                Route(
                    EXACT_FIVE,
                    exact_five,
                    ("BBGN19 Lemma 5.3", gamma, law, "FO L values"),
                    "exact.shuffled.oracle_exact.blanket_view_exact",
                )
            )
    elif isinstance(mech, oracles.Geometric):
        if mech.m <= geometric.MAX_GEOMETRIC_M:
            # every n: one law dominating every pair in the increasing convex order (docs/numerics.md Lemma O2)
            out.append(
                Route(
                    GEOMETRIC_FAST,
                    lambda **kw: geometric.geometric_upper(mech, n, **kw),
                    ("BBGN19 Lemma 5.3", "FO gamma [geometric]", "FO geometric dominating law"),
                    "exact.shuffled.geometric.geometric_upper",
                )
            )
        if _geometric_small(mech, n):
            out.append(
                Route(
                    GEOMETRIC_ENUM,
                    lambda **kw: fast_oracles.blanket_view_delta_enumerate(mech, n, **kw),
                    ("BBGN19 Lemma 5.3", "FO gamma [geometric]"),
                    "exact.shuffled.oracles.blanket_view_delta_enumerate",
                )
            )
    return out


def _rational_below(x) -> fmpq:
    lo = arith.endpoints(x)[0]
    return fmpq(lo.numerator, lo.denominator)


def _rational_above(x) -> fmpq:
    hi = arith.endpoints(x)[1]
    return fmpq(hi.numerator, hi.denominator)


#: the Rényi route's log-moments per (e^{ε0}, n, grid, ε0 bound): they do not depend on ε
_RENYI_MOMENTS: dict = {}


def renyi_route_delta(mech: Randomizer, n: int, *, grid: NumberInput | None = None, **at: Unpack[At]) -> fmpq:
    """The Rényi route: a certified upper bound on δ(ε) from Rényi divergences of a dominating pair, exact rational.

    Pair: the FOCS 2021 clone pair of ``n`` users (:func:`blanket.exact.accounting.pairs.clone_pair`), which
    dominates the shuffled round of every ε0-LDP randomizer (in every ``H_α``, hence in every Rényi divergence:
    ``E_Q[(P/Q)^λ]`` is an f-divergence and the shuffled pair is a post-processing of the clone pair; the same pair
    the composition accountant uses for these records, docs/composition.md §1).  Its Rényi moments come from its
    pessimistic PLD on the grid ``Δ`` (:func:`blanket.exact.accounting.pld.renyi_log_moments`, loss ``≤ ε0``;
    docs/composition.md §5) at the orders :data:`blanket.exact.accounting.pld.RENYI_ORDERS`, converted by
    Canonne–Kamath–Steinke 2020 Prop. 12 (:func:`blanket.exact.accounting.pld.rdp_delta`), minimised over the
    orders.  (The SODA 2023 stronger-clone pair is *not* used: by its erratum it dominates only a restricted class
    of randomizers, docs/mechanisms.md.)  ``exp_epsilon`` given: the conversion is evaluated at a rational
    ``ε' ≤ ε`` (δ is non-increasing in ε, so this stays an upper bound).  It relaxes the clone pair's own
    ``H_{e^ε}`` (:func:`blanket.exact.shuffled.oracles.clone_delta`), so it never wins against it for one
    round; it is listed because every applicable bound is.  ``grid`` defaults to a dyadic ``≤ ε0/100``.
    Cost: the discretisation of the pair, about ``W_C·(W + J)`` float operations (``W_C = O(√n)``, ``J = ε0/Δ``),
    plus ``O(J)`` per order, once per (record, n): the moments are cached, a further ε costs ``O(#orders)``.
    Exactly 0 when ``ε ≥ ε0`` is certified.

    Keywords (:class:`~blanket.exact.numbers.types.At`): ``epsilon`` or ``exp_epsilon``.
    """
    guards.check_options("renyi_route_delta", at, At)
    n = arith.integer_in(n, "n", lo=1)
    epsilon = at.get("epsilon")
    ee = arith.exp_param(epsilon, at.get("exp_epsilon"))
    e = finite_exp_epsilon0(mech, "the clone pair")
    if arith.le(e, ee) is True:
        return fmpq(0)
    if epsilon is not None and not isinstance(epsilon, arb):
        eps = arith.exact(epsilon, "epsilon", allow_float=True)
    else:  # e^ε given (or ε a ball): a rational at or below ε
        eps = max(fmpq(0), _rational_below(arith.ball(ee).log()))
    eps0 = _rational_above(arith.ball(e).log())
    if grid is None:
        x = float(eps0) / 100
        grid_q = fmpq(2) ** (math.floor(math.log2(x))) if x > 0 else fmpq(1, 2**20)
    else:  # parsed as discretise parses it (fmpq(grid) refused a decimal string or a Fraction)
        grid_q = _pld.parse_grid(grid)
    key = (str(e), n, grid_q, eps0)  # the clone pair depends on e^{ε0} and n only
    lms = _RENYI_MOMENTS.get(key)
    if lms is None:  # the moments do not depend on ε: one discretisation serves every ε (a calibration's search)
        base = _pld.discretise(clone_pair(mech, n), grid_q, "upper")
        lms = _pld.renyi_log_moments(base, eps0)
        if len(_RENYI_MOMENTS) >= 64:
            _RENYI_MOMENTS.pop(next(iter(_RENYI_MOMENTS)))
        _RENYI_MOMENTS[key] = lms
    d, _ = _pld.rdp_delta(lms, _pld.RENYI_ORDERS, eps)
    return min(fmpq(1), d if isinstance(d, fmpq) else _q(d))


def upper_bounds(mech: Randomizer, n: int, **at: Unpack[At]) -> dict:
    """``{name: certified upper bound on δ(ε)}`` for every route of :func:`upper_routes` (one that fails on its
    own resource guard is left out; the clone pair always applies)."""
    guards.check_options("upper_bounds", at, At)
    out = {}
    for r in upper_routes(mech, n):
        try:
            out[r.name] = r.compute(**at)
        except BlanketError:
            if r.name == CLONE:
                raise
    return out


def _q(x) -> fmpq:
    return x if isinstance(x, fmpq) else fmpq(x.numerator, x.denominator)


def upper_value(mech: Randomizer, n: int, **at: Unpack[At]) -> fmpq:
    """The exact upper end of :func:`best_upper`: itself a certified upper bound on δ(ε), and always comparable.

    For calibration: an enclosure whose width comes from a windowing tolerance (not from the precision) can
    straddle a target at every precision; its upper end never does, and stays on the safe side.

    Keywords (:class:`~blanket.exact.numbers.types.At`): ``epsilon`` or ``exp_epsilon``.
    """
    v = best_upper(mech, n, **at)[0]
    return v if isinstance(v, fmpq) else _q(arith.endpoints(v)[1])


def lower_value(mech: Randomizer, n: int, *, full_view: bool = True, **at: Unpack[At]) -> fmpq | None:
    """The exact lower end (at least 0) of :func:`lower_bound`: a certified lower bound, always comparable
    (``full_view``: as there)."""
    v = lower_bound(mech, n, full_view=full_view, **at)[0]
    if v is None:
        return None
    return v if isinstance(v, fmpq) else max(fmpq(0), _q(arith.endpoints(v)[0]))


def lower_epsilon(
    mech: Randomizer, n: int, target: fmpq, *, hi: fmpq, rel_tol: fmpq, cap: int = arith.MAX_PREC
) -> Bracket:
    """The calibration of :func:`lower_value` at ``target`` (δ non-increasing in ε): a bracket whose ``lower`` is
    certified to fail the target (the best lower bound on δ is above it there: no smaller ε can be claimed) and whose
    ``upper`` has every candidate at or below it, ``(upper − lower)/upper ≤ rel_tol``.

    The search runs on the cheap candidates (``full_view=False``: engine calls of a few tenths of a second); unary
    encoding's full view (:func:`blanket.exact.shuffled.oracle_third.third_full_delta`, 1–2 s per δ at n = 10³), or
    the geometric datasets' whole histogram (:func:`blanket.exact.shuffled.geometric_dataset.best_full_view`, about
    1.3 s per δ at n = 10⁴), is evaluated once, at the bracket's upper end: if it meets the target there, the bracket is the one of the maximum of
    every candidate too (the cheap ones fail at ``lower`` and meet at ``upper``); else its own crossing, above that
    point, is searched from it (a certified failing end; secant steps on ``log δ``,
    :func:`blanket.exact.numbers.guided.crossing_from_failing`).  So the answer is the calibration of the largest
    candidate, as a search on :func:`lower_value` gives, with the full view at a few points instead of at every
    step.  Raises :class:`~blanket.exact.numbers.errors.InfeasibleTarget` when the target is met nowhere on
    ``[0, hi]``.  Cost: 8–12 cheap evaluations, 1 to about 6 of the full view."""
    from blanket.exact.shuffled.geometric_dataset import FULL_VIEW_MAX_N, best_full_view, default_step, full_view_lower
    from blanket.exact.shuffled.oracle_third import third_full_delta

    br = epsilon_for_delta(
        lambda e: lower_value(mech, n, full_view=False, epsilon=e), target, hi=hi, rel_tol=rel_tol, cap=cap
    )
    geo_full = isinstance(mech, oracles.Geometric) and not _geometric_small(mech, n) and n <= FULL_VIEW_MAX_N
    if not (isinstance(mech, oracles.FourValue) or geo_full) or not br.lower < br.upper:
        return br

    chosen: list = []

    def full(e: fmpq) -> fmpq:
        if isinstance(mech, oracles.Geometric):  # the datasets' whole histogram (exact.shuffled.geometric_dataset)
            if not chosen:  # the order chosen at the first point is kept (one fine lattice sum per later point)
                v, _z, d = best_full_view(mech, n, epsilon=e)
                chosen.append(d)
                return v
            return full_view_lower(mech, n, direction=chosen[0], h=default_step(n), epsilon=e)
        assert isinstance(mech, oracles.FourValue)
        v = third_full_delta(mech, n, epsilon=e)  # None above its cost guard or for other encodings: 0 is a bound
        if v is None:
            return fmpq(0)
        return v if isinstance(v, fmpq) else max(fmpq(0), _q(arith.endpoints(v)[0]))

    fb = full(br.upper)
    if not fb > target:
        return br
    return crossing_from_failing(full, target, bad=br.upper, bad_value=fb, hi=hi, rel_tol=rel_tol, cap=cap)


def best_upper(mech: Randomizer, n: int, **at: Unpack[At]) -> tuple:
    """``(value, name, {name: value})``: the smallest certified upper bound (by upper ends) and every candidate."""
    every = upper_bounds(mech, n, **at)
    name = min(every, key=lambda k: upper_end(every[k]))
    return every[name], name, every


def upper_epsilon(
    mech: Randomizer,
    n: int,
    target: fmpq,
    *,
    hi: fmpq,
    rel_tol: fmpq,
    lo: fmpq | None = None,
    cap: int = arith.MAX_PREC,
) -> tuple[Bracket, str, dict]:
    """``(bracket, name, {name: value})``: the smallest ε with :func:`upper_value` ``≤ target`` as a certified
    bracket (:func:`blanket.exact.numbers.calibrate.epsilon_for_delta`'s meaning: ``upper`` certified to meet), and
    :func:`best_upper`'s name and candidates at ``bracket.upper``.

    ``lo``: a point where the true δ is certified above the target (e.g. the failing end of a certified lower bound's
    calibration), so every upper bound fails there: the search starts from it without evaluating it (default 0).
    Where the exact five-atom view is a route (seconds per δ, :data:`EXACT_FIVE`) the search is guided by the other
    routes (:func:`blanket.exact.numbers.guided.guided_epsilon_for_delta`: 4–6 evaluations of the exact view
    instead of 8–10; OUE k = 128, ε0 = 2, n = 10³: 26 → about 12 CPU s); else the plain search.  Every route is
    evaluated at most once per ε (the fast view once for its route and the exact view's guard).
    Cost: that of the evaluations, at ``arith.DEFAULT_PREC`` (every value compared is an exact upper end).
    """
    routes = upper_routes(mech, n)
    seen: dict = {}

    def every(eps: fmpq, with_exact: bool) -> dict:
        got = seen.setdefault((eps, ctx.prec), {})
        for r in routes:
            if r.name in got or (r.name == EXACT_FIVE and not with_exact):
                continue
            try:
                got[r.name] = r.compute(epsilon=eps)
            except BlanketError:
                if r.name == CLONE:
                    raise
                got[r.name] = None
        return {k: v for k, v in got.items() if v is not None and (with_exact or k != EXACT_FIVE)}

    def value(d: dict) -> fmpq:
        return min((v if isinstance(v, fmpq) else _q(arith.endpoints(v)[1]) for v in d.values()), key=lambda v: v)

    start = fmpq(0) if lo is None else lo
    with arith.precision(arith.DEFAULT_PREC):
        if any(r.name == EXACT_FIVE for r in routes):
            br = guided_epsilon_for_delta(
                lambda e: value(every(e, True)),
                lambda e: value(every(e, False)),
                target,
                lo=start,
                hi=hi,
                rel_tol=rel_tol,
                lo_fails=lo is not None,
            )
        else:
            br = validated_search(
                lambda e: value(every(e, True)), target, start, hi, meets_high=True, rel_tol=rel_tol, cap=cap
            )
        cands = every(br.upper, True)
    name = min(cands, key=lambda k: upper_end(cands[k]))
    return br, name, cands


def lower_bound(mech: Randomizer, n: int, *, full_view: bool = True, **at: Unpack[At]) -> tuple:
    """``(value, dataset text)``: the exact δ(ε) of a concrete neighbouring pair, or ``(None, reason)``.

    ``ldp``: the larger of binary RR (``c = 0``) and 3-ary RR with every other user on a third value, both with the
    same ε0 (:func:`blanket.exact.shuffled.generic_ldp.generic_lower`, two engine calls).  The four-value records:
    ``x^n`` vs ``x^{n−1}x'`` (:func:`blanket.exact.shuffled.oracles.same_family_delta`, ``O(n log(1/tol))``).  Geometric: all other users hold 0, the differing user 0 vs m−1 (explicit
    histograms at small ``n``; above, the same datasets post-processed to the number of reports above a threshold,
    :func:`blanket.exact.shuffled.geometric.geometric_lower_dataset`, O(√n) per threshold).

    ``full_view=False``: the four-value records leave unary encoding's full view out
    (:func:`~blanket.exact.shuffled.oracle_exact.best_lower`; the cheap candidates only).

    Precision: evaluated at the caller's precision, and again at doubling precision (up to :data:`arith.MAX_PREC
    <blanket.exact.numbers.arith.MAX_PREC>`, stopping when doubling no longer narrows it) while the value's ball is
    not finite or wider than :data:`LOWER_WIDE` (geometric α = 1e-50, n = 100 at 53 bits: ``[± 2.7e35]``; the
    rows' masses ``~α`` cancel); a ball still not finite or wider than 1 (it says nothing about a δ in [0, 1]) is
    refused as ``(None, reason)``.  Where the first ball is narrow (every case measured but such tiny α) the cost
    and the answer are unchanged; else one to about six more evaluations.

    Keywords (:class:`~blanket.exact.numbers.types.At`): ``epsilon`` or ``exp_epsilon``.
    """
    guards.check_options("lower_bound", at, At)
    prec = max(2, ctx.prec)
    out = _lower_bound_at(mech, n, full_view, at)
    last = _width(out[0])
    while not _lower_ok(out[0]) and prec < arith.MAX_PREC:
        prec = min(2 * prec, arith.MAX_PREC)
        with arith.precision(prec):
            out = _lower_bound_at(mech, n, full_view, at)
        width = _width(out[0])
        if _STALL_FACTOR * width > last and arith.ball(out[0]).is_finite():
            break
        last = width
    v = out[0]
    if isinstance(v, arb) and (not v.is_finite() or _width(v) > 1):
        return None, (
            f"the concrete dataset's delta is not enclosed at up to {prec} bits (ball {v}): no certified lower end "
            "from it; raise arith.MAX_PREC or use a coarser mechanism parameter"
        )
    return out


#: :func:`lower_bound` re-evaluates at doubling precision while its value's ball is wider than this (or not finite)
LOWER_WIDE = fmpq(1, 1024)


def _lower_ok(v: Any) -> bool:
    """Whether :func:`lower_bound`'s value needs no more precision: ``None``, exact, or a finite ball of width at most
    :data:`LOWER_WIDE`.  O(1)."""
    return not isinstance(v, arb) or (v.is_finite() and _width(v) <= LOWER_WIDE)


def _lower_bound_at(mech: Randomizer, n: int, full_view: bool, kw: Any) -> tuple:
    """:func:`lower_bound`'s body at the current precision.  Same cost."""
    if isinstance(mech, oracles.Geometric):
        if not _geometric_small(mech, n):
            # every n: the same datasets, post-processed to a threshold count (exact.shuffled.geometric)
            return geometric.geometric_lower_dataset(mech, n, full_view=full_view, **kw)

        v = delta_dataset(mech.matrix(), [0] * (n - 1), 0, mech.m - 1, **kw)
        return getattr(v, "value", v), f"all other {n - 1} users hold 0; the differing user holds 0 versus {mech.m - 1}"
    if isinstance(mech, oracles.LDP):
        # two members of the class, the larger: binary RR (dataset c = 0) and 3-ary RR with every other user on a
        # third value (exact.shuffled.generic_ldp, docs/mechanisms.md "Generic epsilon0-LDP: the bracket")
        return generic_ldp.generic_lower(mech, n, **kw)
    if isinstance(mech, oracles.FourValue):
        # the larger of x^n vs x^(n-1) x' and the third-value family (post-processed to the hit bits)
        return oracle_exact.best_lower(mech, n, full_view=full_view, **kw)
    return (
        fast_oracles.same_family_delta(mech, n, **kw),
        f"all other {n - 1} users hold the differing user's first value x (x^n versus x^(n-1) x')",
    )


#: the records whose one-round certified routines (this module) the accountant uses beside its composition
#: (:meth:`blanket.exact.accounting.accountant.ShuffleAccountant.get_epsilon`; docs/composition.md §5e)
ONE_ROUND_RECORDS = (oracles.LDP, oracles.FourValue, oracles.Geometric)


def epsilon_hi(mech: Randomizer) -> fmpq:
    """A rational ``≥ ε0`` (at least 1e-6): every certified bound here is 0 at ``ε ≥ ε0``, so the searches of ε
    stay in ``[0, epsilon_hi]``.  O(1)."""
    with arith.precision(128):
        e = finite_exp_epsilon0(mech, "the one-round search")
        hi = arith.endpoints(arith.ball(e).log())[1]
    return max(fmpq(hi.numerator, hi.denominator), fmpq(1, 10**6))


def one_round_epsilon(
    mech: Randomizer,
    n: int,
    target: fmpq,
    *,
    rel_tol: fmpq,
    cap: int = arith.MAX_PREC,
    lower: bool = True,
    upper: bool = True,
) -> tuple:
    """``(lower ε or None, where, upper ε or None, its bound's name, every bound)``: one round's certified ends of
    ε(δ = ``target``) — the lower end first (:func:`lower_epsilon`, a concrete dataset; ``where`` says which, or why
    there is none), whose certified failing end starts the upper end's search (:func:`upper_epsilon`, the smallest
    certified bound; ``every``: each route's value at its end).  ``lower``/``upper`` False: that end is not searched
    (``None``).  What ``blanket epsilon`` prints for one round and what the accountant takes for a single round
    (and, the lower end alone, for a composition: a composition is never below one of its rounds).
    Cost: the two searches (seconds at n = 10³ where the exact five-atom view is a route)."""
    from blanket.exact.numbers.errors import InfeasibleTarget

    hi = epsilon_hi(mech)
    lo_eps = lo_fail = where = None
    if lower:  # the lower end first: its certified failing end starts the upper end's search
        try:
            with arith.precision(arith.DEFAULT_PREC):
                geo = isinstance(mech, oracles.Geometric)  # its full view only at the end (below), not at ε = 0
                lv, where = lower_bound(mech, n, full_view=not geo, epsilon=0)
            if lv is not None:
                # the cheap candidates steer the search; the full view is evaluated at its end (lower_epsilon)
                lbr = lower_epsilon(mech, n, target, hi=hi, rel_tol=rel_tol, cap=cap)
                if lbr.lower < lbr.upper:
                    lo_eps = lbr.lower
                    if geo and lo_eps > 0:  # the dataset's view that is certified above the target there
                        with arith.precision(arith.DEFAULT_PREC):
                            where = lower_bound(mech, n, epsilon=lo_eps)[1]
                    # δ ≥ the lower bound > target there (certified): every upper bound fails at lo_eps
                    lo_fail = lo_eps if lo_eps > 0 else None
        except (InfeasibleTarget, Undecided):
            lo_eps = None
    up_eps = name = None
    every: dict = {}
    if upper:
        br, name, every = upper_epsilon(mech, n, target, hi=hi, rel_tol=rel_tol, lo=lo_fail, cap=cap)
        up_eps = br.upper
    return lo_eps, where, up_eps, name, every


_REL = arith.exact("1e-12")
_ABS = arith.exact("1e-30")


#: a doubling of the precision that narrows the total width by less than this factor shows that the width comes
#: from a method's tolerance (which some engines tie loosely to the precision), not from rounding: a
#: rounding-limited width shrinks by about ``2^prec`` per doubling
_STALL_FACTOR = 1024


def _at_precision(fun, cap: int):
    """``fun()`` at doubling precision until every ball in its result is narrow (relative 1e-12, or absolute
    1e-30), the cap is hit, or doubling stops narrowing them fast (by less than :data:`_STALL_FACTOR`: a windowing
    tolerance, not precision, limits them — e.g. OLH's blanket view at n = 10^6 narrows about 4× per doubling,
    and 4096 bits would cost minutes for a fourth digit of a certified upper bound).  Every answer is certified
    whichever precision stops; only its width depends on the rule.  At most ``log2(cap/DEFAULT_PREC) + 1`` calls."""
    prec, last = arith.DEFAULT_PREC, None
    while True:
        with arith.precision(prec):
            out = fun()
            vals = [v for v in _values(out) if v is not None]
            width = sum(_width(v) for v in vals)
            if prec >= cap or all(_narrow(v) for v in vals) or (last is not None and _STALL_FACTOR * width > last):
                return out, prec
        last = width
        prec = min(2 * prec, cap)


def _width(v):
    if not isinstance(v, arb):
        return 0
    if not v.is_finite():
        return fmpq(10) ** 300
    lo, hi = arith.endpoints(v)
    return arith.exact(hi - lo)


def _values(out):
    for x in out if isinstance(out, tuple) else (out,):
        if isinstance(x, tuple):
            yield from _values(x)
        elif isinstance(x, dict):
            yield from x.values()
        elif not isinstance(x, str):
            yield x


def _narrow(v) -> bool:
    if not isinstance(v, arb):
        return True
    if not v.is_finite():
        return False
    lo, hi = arith.endpoints(v)
    return arith.exact(hi - lo) <= max(_REL * arith.exact(abs(hi)), _ABS)


def one_round_delta(
    mech: Randomizer, n: int, epsilon: fmpq, *, lower: bool = True, upper: bool = True, cap: int = arith.MAX_PREC
) -> tuple:
    """``(((upper ball, its bound's name, every bound), (lower ball, where)), precision)``: one round's certified ends
    of δ(ε) (:func:`best_upper`, :func:`lower_bound`; ``lower``/``upper`` False: that part is ``(None, None, {})`` /
    ``(None, None)``) at doubling precision up to ``cap`` (:func:`_at_precision`).  What ``blanket delta`` prints for
    one round and what the accountant takes for a single round.  Cost: every route and the lower candidates once per
    precision tried (at most ``log2(cap/DEFAULT_PREC) + 1`` times, usually once or twice)."""

    def fun():
        up = best_upper(mech, n, epsilon=epsilon) if upper else (None, None, {})
        lo = lower_bound(mech, n, epsilon=epsilon) if lower else (None, None)
        return up, lo

    return _at_precision(fun, cap)
