"""Shuffled rounds of the continuous randomizers (Laplace, Gaussian) for the accountant: a dominating pair from the
certified blanket view's ``δ(ε)`` upper values (docs/composition.md §5d, "Certified values are enough").

:class:`ShuffledContinuous` is an accountant event (``ShuffleAccountant.compose``).  Its dominating pair is
:func:`blanket.exact.accounting.curves.pair_from_values` of the points ``(α_j, U_j)`` with ``U_j`` the certified
upper end of the blanket view ``δ_BV`` (Balle et al. Lemma 5.3, :func:`blanket.exact.shuffled.continuous.blanket_view`,
pair of inputs ``(0, 1)``) at ``e^ε = α_j`` (exact rationals): ``U_j ≥ δ_BV ≥ E(α_j)`` for every pair of neighbouring
datasets, so the greatest convex minorant of the points (with their reflections, ``(0, 1)`` and for Laplace
``(α_max, 0)``, ``α_max ≥ e^{ε0}``) is a curve above the mechanism's at every ``α``: a dominating pair.  The Gaussian
mechanism is not ε0-LDP: its pair keeps the last value ``U_m`` as a mass at ``+∞`` (its Rényi divergences are
infinite and there is no pure-DP basic bound: the accountant's PLD route alone certifies it).

The lower pair (a concrete pair of datasets, certified lower end of the mechanism): the datasets ``0^n`` vs
``1·0^{n−1}`` through the ROC hull of certified tests of their lattice law
(:func:`blanket.exact.shuffled.continuous_dataset.dataset_roc_points`): its curve lies below the datasets' exact
privacy curve at every α, so they Blackwell-dominate it and its composed δ is a lower bound (docs/reference/blanket.md
§4, "The dataset pair's whole curve").  It replaced the outputs thresholded at 1/2 (session 13: Laplace ε0 = 1,
n = 10⁴, T = 10, δ = 10⁻⁶: lower end 0.098227 → 0.1067).

Status: derived (the blanket view bounds every dataset pair for the inputs ``(0, 1)``; that ``(0, 1)`` is the worst
input pair is proved for Laplace and a certified grid search, not a proof, for the Gaussian:
docs/reference/blanket.md §4).

Cost: ``points`` (to ``2·points`` for the Gaussian) blanket-view enclosures at ``n`` (see
:mod:`blanket.exact.shuffled.continuous`), computed once per event (cached); the lower pair two lower-side lattice
sums at ``n`` on the step ``h/2`` (a few CPU seconds at n = 10⁴ to 10⁶), once per event.

>>> ev = ShuffledContinuous({"type": "laplace", "epsilon0": "1"}, 50, points=4, h="1/8")
>>> pr = ev.dominating_pair()
>>> pr.mass_at_infinity, pr.hockey_stick(3) == 0, ev.epsilon0
(0, True, Fraction(1, 1))
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from blanket.exact.accounting import composition_cost as _cost
from blanket.exact.accounting import curves as _curves
from blanket.exact.mechanisms.continuous import Continuous, Gaussian, Laplace
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.runtime.budget import TooExpensive
from blanket.exact.shuffled import continuous as _view
from blanket.exact.shuffled import continuous_dataset as _dataset
from flint import fmpq

__all__ = ["ShuffledContinuous", "continuous_record", "curve_values", "default_lattice", "DEFAULT_POINTS"]

#: the lower pair's lattice step is the round's ``h`` divided by this: its two lattice sums are cheap beside the
#: curve's views (CPU, load 10: Laplace ε0 = 1, n = 10⁶: 3.5 s at h = 1/16, 6.7 s at 1/32), and the finer step
#: raises the curve (there δ at ε = 0.002 by 5 %; Gaussian σ = 2, n = 10⁴, h = 1/64 → 1/128: 4–8 % → 1–2 % below a
#: float estimate)
LOWER_STEP_DIVISOR = 2
#: default number of grid points of the curve (uniform in ε)
DEFAULT_POINTS = 16
#: the curve stops once a certified value is below this (the hull then runs to α_max, or to a mass at +∞)
NEGLIGIBLE = fmpq(1, 2**200)
#: Gaussian: the curve is extended until its value is below this, or stops decreasing (the cut-off's floor); the
#: last value stays as a mass at +∞ (added to δ once per round): enclosures at larger ε cost far more cells
GAUSS_TAIL = fmpq(1, 10**9)


def continuous_record(spec: Mapping | Continuous) -> Continuous:
    """A :class:`Laplace` or :class:`Gaussian` record from plain data (``{"type": "laplace", "epsilon0": "1"}``,
    ``scale`` instead of ``epsilon0``; ``{"type": "gaussian", "sigma": "1"}``) or the record itself.  O(1)."""
    if isinstance(spec, Continuous):
        return spec
    if not isinstance(spec, Mapping):
        raise InvalidArgument(
            "mechanism", spec, "must be a Laplace/Gaussian record or a table with type = laplace|gaussian"
        )
    d = dict(spec)
    kind = d.pop("type", d.pop("mechanism", None))
    if kind == "laplace":
        unknown = set(d) - {"epsilon0", "scale"}
        if unknown:
            raise InvalidArgument(sorted(unknown)[0], d[sorted(unknown)[0]], "is not a key of the Laplace randomizer")
        return Laplace(d.get("epsilon0"), scale=d.get("scale"))
    if kind == "gaussian":
        unknown = set(d) - {"sigma"}
        if unknown:
            raise InvalidArgument(
                sorted(unknown)[0], d[sorted(unknown)[0]], "is not a key of the Gaussian randomizer (give sigma only)"
            )
        if "sigma" not in d:
            raise InvalidArgument(
                "sigma", None, "is required for the Gaussian randomizer (the noise's standard deviation)"
            )
        return Gaussian(d["sigma"])
    raise InvalidArgument("type", kind, "must be 'laplace' or 'gaussian'")


def default_lattice(n: int) -> fmpq:
    """The lattice step of ``L`` used by default: ``1/64`` up to ``n = 10^5``, ``1/16`` above (the commands' choice)."""
    return fmpq(1, 64) if n <= 10**5 else fmpq(1, 16)


def _alpha(eps: float) -> fmpq:
    """A dyadic rational near ``e^eps`` (≥ 1): any rational α is a valid grid point."""
    if eps <= 0:
        return fmpq(1)
    return max(fmpq(1), fmpq(int(math.exp(eps) * 2**30), 2**30))


def _alpha_max(mech: Laplace) -> fmpq:
    """A rational at or above ``e^{ε0}`` (the upper end of its ball)."""
    with arith.precision(128):
        hi = arith.endpoints(arith.exp_ball(mech.epsilon0))[1]
    return fmpq(hi.numerator, hi.denominator)


def _stop_epsilon(mech: Continuous, n: int) -> float:
    """Where the curve's grid ends (a float: only steers effort): for Laplace ε0 (``δ = 0`` beyond) or 1.5 times the
    normal approximation's ε at δ = 10⁻⁴⁰ if smaller, for Gaussian 1.5 times its ε at δ = 10⁻⁹ (the loop extends the
    grid while the values still fall)."""
    if isinstance(mech, Laplace):
        return min(float(mech.epsilon0), 1.5 * _view._clt_guess(mech, n, 1e-40))
    return 1.5 * _view._clt_guess(mech, n, 1e-9)


def curve_values(mech: Continuous, n: int, *, h: object = None, points: int = DEFAULT_POINTS) -> tuple[list, Any]:
    """``([(α_j, U_j)], alpha_max)``: certified ``U_j ≥ δ_BV(log α_j)`` (exact rationals, α_0 = 1) on a grid uniform
    in ε, and for Laplace a rational ``α_max ≥ e^{ε0}`` (``None`` for Gaussian).  Stops at a zero or negligible value;
    the Gaussian grid is extended (same spacing, up to ``2·points``) until the value is below 10⁻⁹ or stops falling.
    Then the grid is refined where the values fall fastest (:func:`_refine`, at most ``points`` more).
    Cost: one :func:`~blanket.exact.shuffled.continuous.blanket_view` per point."""
    n = arith.integer_in(n, "n", lo=1)
    points = arith.integer_in(points, "points", lo=2, hi=4096)
    hq = default_lattice(n) if h is None else arith.exact_in(h, "h", lo=0, lo_open=True)
    top = _stop_epsilon(mech, n)
    step = top / (points - 1)
    amax = _alpha_max(mech) if isinstance(mech, Laplace) else None
    vals: list = []
    j = 0
    while True:
        a = _alpha(j * step)
        if amax is not None and a >= amax:
            break
        try:
            v = _view.blanket_view(mech, n, exp_epsilon=a, h=hq)
        except TooExpensive:
            if not vals:
                raise
            break  # the hull runs on from the last value (to alpha_max, or as a mass at +infinity)
        vals.append((a, v.upper))
        if v.upper == 0:
            amax = a  # E(α) = 0 from here on (non-increasing, ≥ 0)
            break
        if v.upper < NEGLIGIBLE:
            break
        j += 1
        if isinstance(mech, Laplace) and j >= points:
            break
        else:
            falling = len(vals) < 2 or v.upper < vals[-2][1] * fmpq(9, 10)
            if j >= 2 * points or (j >= points and (v.upper < GAUSS_TAIL or not falling)):
                break
    return _refine(mech, n, hq, vals, points), amax


#: refinement stops when consecutive certified values differ by at most this factor
REFINE_RATIO = 8
#: intervals whose larger value is below this are not refined (they cannot matter at any δ asked in practice)
REFINE_FLOOR = fmpq(1, 10**20)


def _refine(mech: Continuous, n: int, hq: fmpq, vals: list, points: int) -> list:
    """Halve (in ε) the grid interval with the largest drop whose value falls by more than ``REFINE_RATIO``, while
    fewer than ``points`` points were added, where the value is above 10⁻²⁰ (the hull's chords are what the
    composition pays for)."""
    vals = sorted(vals)
    for _ in range(points):
        worst, at = fmpq(0), None
        for i in range(len(vals) - 1):
            (a0, u0), (a1, u1) = vals[i], vals[i + 1]
            steep = u0 > REFINE_RATIO * u1 and u0 > REFINE_FLOOR and a1 - a0 > fmpq(1, 2**20)
            if steep and u0 - u1 > worst:  # the largest drop first: where the chord is farthest above the curve
                worst, at = u0 - u1, i
        if at is None:
            break
        e = (math.log(float(vals[at][0])) + math.log(float(vals[at + 1][0]))) / 2
        a = _alpha(e)
        if not vals[at][0] < a < vals[at + 1][0]:
            break
        try:
            vals.insert(at + 1, (a, _view.blanket_view(mech, n, exp_epsilon=a, h=hq).upper))
        except TooExpensive:
            break
    return vals


class ShuffledContinuous:
    """One shuffled round of a continuous randomizer: ``ShuffledContinuous(mechanism, n, h=None, points=16)``.

    ``mechanism``: a :class:`~blanket.exact.mechanisms.continuous.Laplace` / ``Gaussian`` record or a table
    (:func:`continuous_record`); ``h`` the lattice step of the blanket view (default :func:`default_lattice`);
    ``points`` the curve's grid.  See the module docstring for the pairs.  Hashable by identity (the accountant
    caches per event); the dominating pair is computed once.
    """

    def __init__(
        self, mechanism: Mapping | Continuous, n: object = None, *, h: object = None, points: int = DEFAULT_POINTS
    ):
        self.mechanism: Continuous = continuous_record(mechanism)
        if n is None:
            raise InvalidArgument("n", None, "must be given (the number of users in the round)")
        self.n: int = arith.integer_in(n, "n", lo=2)
        self.h: fmpq = default_lattice(self.n) if h is None else arith.exact_in(h, "h", lo=0, lo_open=True)
        self.points: int = arith.integer_in(points, "points", lo=2, hi=4096)
        self._pair: _curves.FinitePair | None = None
        self._lower: _curves.FinitePair | None = None

    def __repr__(self) -> str:
        return f"ShuffledContinuous({self.mechanism!r}, n={self.n})"

    @property
    def epsilon0(self) -> Fraction | None:
        """ε0 for Laplace (exact); ``None`` for the Gaussian (not ε0-LDP: no pure-DP bound, no finite Rényi)."""
        if isinstance(self.mechanism, Laplace):
            e = self.mechanism.epsilon0
            return Fraction(int(e.p), int(e.q))
        return None

    @property
    def loss_scale(self) -> Fraction:
        """A scale of the privacy loss for choosing the accountant's grid: ε0 for Laplace, ``1/σ²`` for Gaussian (the
        loss of the two extreme inputs at one standard deviation)."""
        if isinstance(self.mechanism, Laplace):
            return Fraction(self.epsilon0 or 1)
        assert isinstance(self.mechanism, Gaussian)
        s = self.mechanism.sigma
        return Fraction(int(s.q) ** 2, int(s.p) ** 2)

    def cost_model(self) -> tuple:
        """``(None, seconds)``: an estimate of this round's pair (its curve points' blanket views,
        :func:`~blanket.exact.accounting.composition_cost.continuous_seconds`).  Never a bound.  O(1)."""
        return None, _cost.continuous_seconds(self.n, self.points, float(self.h.p) / float(self.h.q))

    def curve_values(self) -> tuple[list, Any]:
        """The certified points of the curve (:func:`curve_values`)."""
        return curve_values(self.mechanism, self.n, h=self.h, points=self.points)

    def dominating_pair(self) -> _curves.FinitePair:
        """The pair of the hull of the certified blanket-view values (computed once)."""
        if self._pair is None:
            vals, amax = self.curve_values()
            self._pair = _curves.pair_from_values(
                vals,
                alpha_max=amax,
                description=f"privacy curve from the certified blanket view (Lemma 5.3, inputs (0, 1), lattice step "
                f"{self.h}, {len(vals)} points) of {self.describe()}",
            )
        return self._pair

    def lower_pair(self, direction: str = "forward") -> _curves.FinitePair:
        """The datasets ``0^n`` vs ``1·0^{n−1}`` seen through a Blackwell-dominated finite pair: the ROC hull of inner
        test points of their whole privacy curve (:func:`blanket.exact.shuffled.continuous_dataset.dataset_roc_points`,
        computed once); ``"forward"`` is ``(P, Q) = (1·0^{n−1}, 0^n)``, ``"backward"`` the swapped pair."""
        if self._lower is None:
            h = self.h / LOWER_STEP_DIVISOR
            pts = _dataset.dataset_roc_points(self.mechanism, self.n, h=h)
            self._lower = _curves.pair_from_roc(
                pts,
                description=f"datasets 0^n vs 1 0^(n-1): ROC hull of {len(pts)} certified tests of their exact "
                f"lattice law (lattice step {h}) of {self.describe()}",
            )
        pr = self._lower
        if direction == "forward":
            return pr
        if direction != "backward":
            raise InvalidArgument("direction", direction, "must be 'forward' or 'backward'")
        return _curves.swapped(pr)

    def describe(self) -> str:
        ps = ", ".join(f"{k} = {v}" for k, v in self.mechanism.describe().items() if k != "type")
        title = "the Laplace randomizer" if isinstance(self.mechanism, Laplace) else "the Gaussian randomizer"
        return f"{title}, {ps}, n = {self.n}"

    def sort_key(self) -> tuple:
        return (2, 0, self.loss_scale, self.n, self.describe())
