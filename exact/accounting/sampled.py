"""Shuffled rounds with sampled participation: ``Sampled(event, q)`` (``docs/composition.md`` §5f).

Each of the ``n`` users takes part in the round independently with probability ``q`` (Poisson sampling) and the
shuffler releases the multiset of the reports that arrive, so the adversary sees their number.  The round is the
shuffle of ``n`` reports of the *sampled randomizer* ``R_q(x) = (1 − q)·⊥ + q·R(x)`` (``⊥``: no report; the
multiset of ``R_q`` outputs and the multiset of reports determine each other).  ``R_q`` is ε0-LDP, so every pair
that dominates the shuffle of ``n`` reports of *every* ε0-LDP randomizer (the FOCS 2021 clone pair) still
dominates; for k-ary RR the Lemma 5.3 blanket view of ``R_q`` keeps the amplification by sampling:

* blanket ``γ = 1 − q + k·q·f`` (``f = 1/(e^{ε0} + k − 1)``), blanket law ``ω``: ``⊥`` w.p. ``(1 − q)/γ``, each
  value w.p. ``q f/γ``; ``m ~ Bin(n − 1, γ)`` blanket draws among the others, ``N = m + 1`` items with the
  target's;
* the likelihood ratio of the view (§5f, Lemma S1) is ``(N + 2c·v_x)/(N + 2c·v_{x'})``, ``c = (e^{ε0} − 1)/2``,
  ``v_x``, ``v_{x'}`` the counts of ``x`` and ``x'`` among the ``N`` items;
* with ``D = v_x − v_{x'}`` and ``S = v_x + v_{x'}`` it is ``(N + c(S + D))/(N + c(S − D))``, non-increasing in
  ``N`` and ``S`` when ``D ≥ 0`` (Lemma S2): on windows ``N ≥ N_lo``, ``S ≥ S_lo`` of certified left-out mass
  ``τ`` it is at most ``r̄(D)``, a rational of ``D`` alone.  The law of ``D`` under ``P`` is a one-dimensional
  law (the others add ``±1`` w.p. ``q f`` each), computed in ball arithmetic (:func:`difference_law`).

:func:`sampled_krr_values` gives certified upper values of the pair's ``H_α`` (hence of the round's worst-case
curve) at ``α ≥ 1``; :func:`sampled_krr_pair` the dominating :class:`~blanket.exact.accounting.curves.FinitePair` of
their hull (:func:`~blanket.exact.accounting.curves.pair_from_values`), which composes through the PLD machinery.

>>> from blanket.exact.accounting.accountant import ShuffleAccountant, ShuffledRR
>>> acc = ShuffleAccountant().compose(Sampled(ShuffledRR(k=2, epsilon0="1", n=1000), q="1/10"), count=2)
>>> e = acc.get_epsilon("1e-6")
>>> e.lower <= e.upper
True
"""

from __future__ import annotations

import bisect
import dataclasses
from fractions import Fraction
from typing import Any

from blanket.exact.accounting import composition_cost as _cost
from blanket.exact.accounting import curves as _curves
from blanket.exact.accounting import geometric_lower as _geo_lower
from blanket.exact.accounting import matrix_lower as _matrix_lower
from blanket.exact.accounting import pairs as _pairs
from blanket.exact.accounting import same_randomizer as _same
from blanket.exact.accounting import sampled_binary_lower as _sb_lower
from blanket.exact.accounting import sampled_lower as _slow
from blanket.exact.accounting.accountant import (
    STRATUM_MAX_N,
    Shuffled,
    ShuffledRR,
    clone_pair,
    four_value_lower_pair,
)
from blanket.exact.laws import binomial as laws
from blanket.exact.mechanisms.finite import KRR, FiniteRandomizer
from blanket.exact.mechanisms.oracles import LDP, FourValue, Geometric, Subset, cancellation_precision
from blanket.exact.numbers import arith
from blanket.exact.numbers.calibrate import first_true
from blanket.exact.numbers.errors import FloatRefused, InvalidArgument
from blanket.exact.numbers.types import NumberInput
from blanket.exact.shuffled import geometric as _geometric
from blanket.exact.shuffled import matrix_view as _matrix_view
from blanket.exact.shuffled import sampled_binary as _sampled_binary
from flint import arb, arb_poly, ctx, fmpq

#: certified left-out mass of each binomial window of the sampled blanket view (the windows' tails go to loss ε0)
WINDOW_TOL = fmpq(1, 2**100)
#: points of the α grid of the sampled pair's hull
SAMPLED_POINTS = 1024
#: the grid's top ε is the smallest ``ε0·k/TOP_STEPS`` where the certified value is below TOP_NEGLIGIBLE
TOP_STEPS = 256
TOP_NEGLIGIBLE = fmpq(1, 2**90)


def _q(x: Any) -> fmpq:
    return x if isinstance(x, fmpq) else fmpq(x.numerator, x.denominator)


def _rat_hi(x: Any) -> fmpq:
    return _q(arith.endpoints(arith.ball(x))[1])


def _rat_lo(x: Any) -> fmpq:
    return _q(arith.endpoints(arith.ball(x))[0])


#: bands of the window of S_b (the others' blanket draws on {x, x'}): each band uses its own lower ends of S and N
BANDS = 64


def _band_law(vals: list, start: int) -> tuple:
    """``Σ_t vals[t]·z^{−S}((1 + z²)/2)^S`` over ``S = start + t``: the law of ``D_b = 2·Bin(S, ½) − S`` weighted by
    ``vals`` (balls), as ``(coefficients, offset)`` (coefficient ``i`` is ``D = offset + i``).  Horner's rule on
    ``arb_poly``: O(len·(start + len)) ball operations in C."""
    L = len(vals) - 1
    w = arb_poly([arb(1) / 2, 0, arb(1) / 2])  # (1 + z²)/2
    K = arb_poly([vals[L]])  # Σ_t vals[t] w^t z^{L−t}
    for j in range(1, L + 1):
        cs = (K * w).coeffs()
        cs += [arb(0)] * (j + 1 - len(cs))
        cs[j] += vals[L - j]
        K = arb_poly(cs)
    if start:
        K = K * w**start
    return K.coeffs(), -(start + L)


def difference_law(n_others: int, a: Any, tol: Any = WINDOW_TOL, bands: int = BANDS) -> tuple:
    """The law of ``D = Σ X_i`` over ``n_others`` independent ``X_i ∈ {+1, −1, 0}`` with probabilities ``(a, a,
    1 − 2a)``, by bands of ``S = #{X_i ≠ 0} ~ Bin(n_others, 2a)``: ``(bands, tail)``, each band
    ``(S_first, S_last, values, offset)`` with ``values[i]`` a ball of ``P(D = offset + i, S_first ≤ S ≤ S_last)``;
    the bands cover a window of ``S`` whose left-out mass is at most ``tail``.  O(W²) ball operations in C for a
    window of ``W ≈ 24·sqrt(2a·n_others)`` values of ``S``."""
    vals, off, tail = laws.window_to_tail(n_others, 2 * arith.ball(a), arb(tol))
    W = len(vals)
    nb = max(1, min(bands, W))
    cuts = [W * j // nb for j in range(nb + 1)]
    out = []
    for j in range(nb):
        i0, i1 = cuts[j], cuts[j + 1]
        if i1 <= i0:
            continue
        cs, o = _band_law(vals[i0:i1], off + i0)
        out.append((off + i0, off + i1 - 1, cs, o))
    return out, tail


#: the smallest participation probability taken (:func:`check_sampling` refuses below it, by name).  Not a NaN any
#: more (the sampled frequency-oracle view computes ``1 − γ_q`` as ``q(1 − γ)``: finite and narrow at any q, session 12
#: nan12); the limits that remain: (1) a sampled round's δ is at most ``q`` (amplification by subsampling), and below
#: ``2^-100 ≈ 7.9e-31``, the PLD's mass unit (:data:`~blanket.exact.accounting.pld.SCALE_BITS`), the composed bracket
#: can only be ``[0, ~T·2^-100]`` (q = 1e-40 .. 1e-100 measured: OUE k = 3, n = 3, T = 1: [0, 7.9e-31] against
#: 1.9e-41 .. 1.9e-101); (2) the PLD survival kernel's float windows (``Bin(n−1, q·f)`` pmf values ``≈ (n q f)^3``,
#: products with ``q·f``) leave the normal range their error bound assumes, and below the float range the kernel
#: fails (q = 1e-400: log(0))
MIN_SAMPLING = fmpq(1, 10**30)


def check_sampling(q: fmpq | Fraction, name: str, value: object) -> None:
    """Refuse a participation probability below :data:`MIN_SAMPLING` (``InvalidArgument`` naming ``name`` and
    ``value``, the text the user gave).  O(1)."""
    if (q if isinstance(q, fmpq) else fmpq(int(q.numerator), int(q.denominator))) < MIN_SAMPLING:
        raise InvalidArgument(
            name,
            value,
            "must be >= 1e-30 (a sampled round's delta is at most q; below 1e-30 it is under the composition's mass unit"
            " 2^-100 = 7.9e-31, and the float kernels leave their proved range: nothing certified to gain)",
        )


#: how the sampled k-RR blanket view's pair description starts (a pair resting on the registered "Sampled blanket
#: view dominating pair", docs/composition.md §5f: a sampled k-RR round's, or a fleet's through Lemma F3 / F5)
SAMPLED_VIEW_START = "sampled blanket view"


@dataclasses.dataclass(frozen=True)
class SampledView:
    """The ingredients of the sampled blanket view's certified values (:func:`sampled_view`), per band of ``S_b``."""

    ratios: list  # per band: r̄(d) for d = 1, 2, … (exact rationals, non-decreasing)
    suffix_p: list  # per band: Σ_{j ≥ i} P̂(D = j, band)
    suffix_q: list  # per band: Σ_{j ≥ i} P̂(D = j, band)/r̄(j)
    rest: arb  # left-out mass and window tails: placed at ratio e_hi
    e_hi: fmpq
    description: str

    def value(self, alpha: NumberInput) -> fmpq:
        """Certified upper value of ``H_α`` (``α ≥ 1``) of the sampled round, any dataset pair.  O(bands·log W)."""
        al = arith.exact(alpha, "alpha")
        al = al if isinstance(al, fmpq) else fmpq(al)
        if al < 1:
            raise InvalidArgument("alpha", str(al), "must be >= 1")
        v = arb(0)
        for rs, sp, sq in zip(self.ratios, self.suffix_p, self.suffix_q):
            i = bisect.bisect_right(rs, al)  # first index with r̄ > α (r̄ non-decreasing)
            if i < len(rs):
                v += sp[i] - al * sq[i]
        if al < self.e_hi:
            v += self.rest * (1 - al / self.e_hi)
        hi = _q(arith.endpoints(v)[1])
        return min(fmpq(1), max(fmpq(0), hi))


def sampled_view(mech: KRR, n: int, q: NumberInput, *, prec: int = 128) -> SampledView:
    """The sampled blanket view of k-ary RR ``mech`` with ``n`` users and participation probability ``q``, read for
    certified values of ``H_α`` at ``α ≥ 1`` (``docs/composition.md`` §5f, Lemmas S1–S3).  O(W²) ball operations in
    C plus O(W) in Python, ``W ≈ 24·sqrt(2 q f n)``: about a second at ``n = 10^6``, ``q = 10^{−2}``."""
    if not isinstance(mech, KRR):
        raise InvalidArgument("mechanism", mech, "must be k-ary randomized response for the sampled blanket view")
    n = arith.integer_in(n, "n", lo=2)
    qq = arith.exact_in(q, "q", lo=0, hi=1, lo_open=True)
    qq = qq if isinstance(qq, fmpq) else fmpq(qq)
    k = mech.k
    with arith.precision(prec):
        e = mech.exp_epsilon0()
        eb = arith.ball(e)
        e_hi = _rat_hi(eb)
        f = 1 / (eb + k - 1)
        p = eb * f
        # Y_b | S_b ~ Bin(n − 1 − S_b, rho_y): the others' blanket draws off {x, x'} (⊥ or a third value)
        rho_y = (1 - qq + (k - 2) * qq * f) / (1 - 2 * qq * f)
        bands, tail_s = difference_law(n - 1, qq * f)
        pp, pm = qq * p, qq * f
        p0 = 1 - pp - pm
        c_hi = (e_hi - 1) / 2
        total = arb(0)
        tail_y = arb(0)
        R: list = []
        SP: list = []
        SQ: list = []
        for s_first, s_last, s, off in bands:
            # P-law of D on this band: the target adds +1 w.p. q p, −1 w.p. q f, 0 otherwise
            W = len(s)
            P = [arb(0)] * (W + 2)  # index i ↔ d = off − 1 + i
            for i, v in enumerate(s):
                P[i] += pm * v
                P[i + 1] += p0 * v
                P[i + 2] += pp * v
            total += sum(P, arb(0))
            # Y_b is stochastically smallest at the band's largest S_b: one window serves the band
            if qq == 1 and k == 2:
                y_lo, ty = 0, arb(0)
            else:
                y_lo, _y_hi, ty = laws.window_bounds(n - 1 - s_last, rho_y, WINDOW_TOL)
            tail_y = arb(max(tail_y.upper(), arb(ty).upper()))
            N_lo = fmpq(1 + y_lo + s_first)  # N = 1 + Y_b + S_b (+ nothing: the target is the 1)
            S_lo = fmpq(s_first)
            ratios: list = []
            masses: list = []
            for i, v in enumerate(P):
                d = off - 1 + i
                if d < 1:
                    continue
                Sp = max(S_lo, fmpq(d))
                r = (N_lo + c_hi * (Sp + d)) / (N_lo + c_hi * (Sp - d))
                ratios.append(min(r, e_hi))
                masses.append(v)
            for a_, b_ in zip(ratios, ratios[1:]):
                if b_ < a_:  # Lemma S2: r̄ is non-decreasing in d; a failure here is a bug, never a silent answer
                    raise AssertionError("the sampled view's ratio bound is not monotone")
            sp: list = [arb(0)] * (len(masses) + 1)
            sq: list = [arb(0)] * (len(masses) + 1)
            for i in range(len(masses) - 1, -1, -1):
                sp[i] = sp[i + 1] + masses[i]
                sq[i] = sq[i + 1] + masses[i] / ratios[i]
            R.append(ratios)
            SP.append(sp)
            SQ.append(sq)
        rest = (1 - total) + arb((tail_s + tail_y).upper())
    desc = (
        f"{SAMPLED_VIEW_START} of shuffled {'binary' if k == 2 else f'{k}-ary'} RR (Poisson participation "
        f"q = {qq}, n = {n}; the count of reports is seen)"
    )
    return SampledView(R, SP, SQ, rest, e_hi, desc)


def sampled_krr_values(mech: KRR, n: int, q: NumberInput, alphas: list) -> list:
    """Certified upper values ``(α, U)``, ``U ≥ sup H_α(M(D)‖M(D'))`` over ordered neighbouring datasets of the
    sampled round, at each ``α ≥ 1`` of ``alphas``.  O(W²) once, then O(log W) per ``α``."""
    view = sampled_view(mech, n, q)
    return [(_q(arith.exact(a, "alpha")), view.value(a)) for a in alphas]


#: below the first step ``ε0/TOP_STEPS`` the top is halved up to this many times (a tiny ``q``: the loss spans
#: ``O(q)``, and a top of ``ε0/256`` made the pair's PLD 10⁶ points long on the grid such a query chooses)
TOP_HALVINGS = 30


def _grid_top(view: SampledView, e0_hi: fmpq) -> fmpq:
    """The smallest ``ε0·j/TOP_STEPS`` whose certified value is below :data:`TOP_NEGLIGIBLE` (else ``ε0``), and when
    that is the first step, the smallest ``ε0/TOP_STEPS·2^{−h}`` (``h ≤`` :data:`TOP_HALVINGS`) still below it: only
    where the grid points go and where :func:`compact` cuts (any top is valid).  O(log TOP_STEPS + TOP_HALVINGS)
    values."""
    lo, hi = 0, TOP_STEPS
    with arith.precision(96):

        def small_at(x: fmpq) -> bool:
            a = max(fmpq(1), _rat_lo(arith.ball(x).exp()))
            return view.value(a) < TOP_NEGLIGIBLE

        def small(j: int) -> bool:
            return small_at(e0_hi * j / TOP_STEPS)

        if not small(hi - 1):
            return e0_hi
        hi = first_true(small, lo, hi)
        top = e0_hi * hi / TOP_STEPS
        if hi == 1:  # a tiny q: the value is negligible already at the first step, halve it while it stays so
            for _ in range(TOP_HALVINGS):
                if not small_at(top / 2):
                    break
                top = top / 2
    return top


def sampled_krr_pair(mech: KRR, n: int, q: NumberInput, *, points: int = SAMPLED_POINTS) -> _curves.FinitePair:
    """The dominating pair of the sampled round of k-ary RR: the hull of :func:`sampled_krr_values` on
    :func:`~blanket.exact.accounting.curves.curve_grid` (``points``), ``α_max`` the upper end of ``e^{ε0}``
    (``docs/composition.md`` §5f).  O(W² + points·log W)."""
    view = sampled_view(mech, n, q)
    with arith.precision(96):
        e0_hi = _rat_hi(arith.ball(view.e_hi).log())
    grid = _curves.curve_grid(_grid_top(view, e0_hi), points)
    vals = [(a, view.value(a)) for a in grid]
    pr = _curves.pair_from_values(vals, alpha_max=view.e_hi, description=view.description)
    return compact(pr, view.e_hi, grid[-1])


def compact(pair: _curves.FinitePair, cap: fmpq, top: fmpq) -> CappedPair:
    """The §5f compaction of a hull pair with ``α_max = cap``: the atom at ratio ``cap`` goes to ``+∞`` and every atom
    with a finite ratio below ``1/top`` moves up to ``1/top`` (same ``P``-mass; the ``Q``-mass freed goes to the
    ratio-0 atom).  Each step lowers ``Q`` on some atom and keeps ``P``, so ``H_α`` never decreases (the result
    still dominates), and the PLD spans ``[−log top, log top]`` instead of ``[−ε0, ε0]``.  O(atoms)."""
    lo = 1 / top
    out: list[tuple] = []
    freed = fmpq(0)
    for r, p, q in pair.masses:
        if r is not None and r >= cap and p > 0:
            out.append((None, p, fmpq(0)))
            freed += q
        elif r is not None and 0 < r < lo:
            out.append((lo, p, p / lo))
            freed += q - p / lo
        else:
            out.append((r, p, q))
    zero = [i for i, (r, p, q) in enumerate(out) if r == 0]
    if zero:
        r, p, q = out[zero[0]]
        out[zero[0]] = (r, p, q + freed)
    elif freed > 0:
        out.insert(0, (fmpq(0), fmpq(0), freed))
    return CappedPair(tuple(out), pair.description, cap=cap)


@dataclasses.dataclass(frozen=True)
class CappedPair(_curves.FinitePair):
    """A :class:`~blanket.exact.accounting.curves.FinitePair` made by :func:`compact`: its atom at ``+∞`` was the
    hull's atom at ``cap ≥ e^{ε0}``, so :meth:`max_loss` is ``log(cap)`` (the Rényi route places the mass at ``+∞``
    there: the moment is then that of a pair obtained from the hull pair by moving ``P``-mass up, docs §5f)."""

    cap: fmpq = fmpq(1)

    def max_loss(self) -> arb:
        """A ball containing ``log(cap)``."""
        return arith.ball(self.cap).log()


def sampled_randomizer(mech: Any, q: NumberInput) -> Any:
    """The sampled randomizer ``R_q(x) = (1 − q)·⊥ + q·R(x)`` of a randomizer ``mech`` given by its exact matrix: the
    matrix with every entry times ``q`` and one more output column ``⊥`` (no report) of ``1 − q`` in every row, exact
    rationals (``docs/composition.md`` §5f, Lemma S0: the sampled round *is* the shuffle of ``n`` outputs of ``R_q``,
    so every certified upper bound on that shuffle, the matrix's own blanket views included, bounds the sampled
    round).  ``R_q`` has the same ``e^{ε0}`` as ``R`` (the ``⊥`` column's ratio is 1) and ``γ_q = 1 − q + q·γ``.
    O(k_in · k_out) exact operations.

    >>> from blanket.exact.mechanisms.finite import FiniteRandomizer
    >>> sampled_randomizer(FiniteRandomizer([["1/2", "1/2"], ["1/4", "3/4"]]), "1/2").matrix()
    [[1/4, 1/4, 1/2], [1/8, 3/8, 1/2]]
    """
    m = _matrix_view.check_matrix(mech, hint="the sampled randomizer is built here for a matrix randomizer only")
    qq = arith.exact_in(q, "q", lo=0, hi=1, lo_open=True)
    qq = qq if isinstance(qq, fmpq) else fmpq(qq)
    rows = [[qq * v for v in m.row(x)] + [1 - qq] for x in range(m.k_in)]
    return FiniteRandomizer(rows, name=f"{m.name}, participation q = {qq}")


@dataclasses.dataclass(frozen=True)
class SampledFourValue(FourValue):
    """The sampled randomizer ``R_q = (1 − q)·⊥ + q·R`` of a four-value record ``R`` (OUE, SUE, OLH, Hadamard,
    subset), again a four-value record (``docs/composition.md`` §5f, "A sampled oracle round's upper end"): its blanket
    has ``γ_q = 1 − q + q·γ`` (``⊥``'s column minimum is ``1 − q``, an output ``y`` of ``R`` has ``q·min_u R(u)(y)``);
    on ``R``'s outputs ``L_q = (γ_q/γ)·L`` and on ``⊥`` ``L_q = γ_q(1 − e^ε)``, ``L``'s "rest" value times ``γ_q/γ``: the
    same four values ``γ_q·{e(1−e^ε), e−e^ε, 1−e^ε·e, 1−e^ε}`` with ``π_both``, ``π_t`` times ``s = qγ/γ_q`` and
    ``π_rest' = s·π_rest + (1 − q)/γ_q`` (the ``⊥`` mass of ``ω_q``).  ``e^{ε0}`` is ``R``'s.  O(1) per method
    (``rows``: ``R``'s matrix, tests only)."""

    base: Any = None
    participation: Any = None
    epsilon0: fmpq | None = None
    exp_epsilon0_exact: fmpq | None = None
    kind: str = "sampled"

    def __init__(self, base: FourValue, q: NumberInput) -> None:
        if not isinstance(base, FourValue) or isinstance(base, SampledFourValue):
            raise InvalidArgument("base", base, "must be a four-value record (OUE, SUE, OLH, Hadamard, subset)")
        qq = arith.exact_in(q, "q", lo=0, hi=1, lo_open=True)
        qq = qq if isinstance(qq, fmpq) else fmpq(qq)
        for k, v in (
            ("base", base),
            ("participation", qq),
            ("epsilon0", base.epsilon0),
            ("exp_epsilon0_exact", base.exp_epsilon0_exact),
            ("kind", f"{base.kind}, participation q = {qq}"),
        ):
            object.__setattr__(self, k, v)

    def exp_epsilon0(self) -> Any:
        return self.base.exp_epsilon0()

    def gamma(self) -> Any:
        qq = self.participation
        return 1 - qq + qq * self.base.gamma()

    def gamma_complement(self) -> Any:
        """``1 − γ_q = q·(1 − γ)``: no cancellation (``1 − gamma()`` at the working precision is ``[0 ± 2^-prec]``
        once ``q`` is below ``2^-prec``: the NaN of session 12's probe at q = 1e-40).  O(1)."""
        return self.participation * self.base.gamma_complement()

    def l_probs(self) -> tuple:
        qq, g = self.participation, self.base.gamma()
        gq = 1 - qq + qq * g
        sc = qq * g / gq
        pb, pt, pr = self.base.l_probs()
        return sc * pb, sc * pt, sc * pr + (1 - qq) / gq

    def ratio_law(self) -> tuple:
        a, b = self.base.ratio_law()
        return self.participation * a, self.participation * b

    def rows(self) -> list:
        qq = self.participation
        return [[qq * v for v in row] + [1 - qq] for row in self.base.rows()]

    def output_count(self) -> int:
        return self.base.output_count() + 1

    def describe(self) -> dict:
        return {"type": "sampled", "q": str(self.participation), "base": str(sorted(self.base.describe().items()))}


@dataclasses.dataclass(frozen=True)
class SampledBinaryRR(SampledFourValue):
    """Binary RR's ``R_q`` as the four-value record :class:`SampledFourValue` of ``Subset(2, 1)``, for a sampled
    *binary RR* round only (never an ``ldp`` record's: binary RR's worst case over datasets is not a bound for another
    ε0-LDP randomizer, docs/composition.md §5g).  Its curve has one more source, the exact worst case over every
    dataset of the sampled round (:mod:`blanket.exact.shuffled.sampled_binary`, Lemma S4), when its modelled cost is
    affordable (:func:`~blanket.exact.shuffled.sampled_binary.affordable`).  O(1)."""

    exact_binary_worst: bool = True

    def __init__(self, base: FourValue, q: NumberInput) -> None:
        if not (isinstance(base, Subset) and base.k == 2 and base.d == 1):
            raise InvalidArgument("base", base, "must be binary RR as Subset(2, 1)")
        super().__init__(base, q)
        object.__setattr__(self, "exact_binary_worst", True)
        object.__setattr__(self, "kind", f"binary RR, participation q = {self.participation}")

    def describe(self) -> dict:
        return {**super().describe(), "exact worst case": "sampled binary RR"}


def binary_four_value(mech: LDP) -> Subset:
    """Binary RR with the ``ldp`` record's exact ``ε0`` (or ``e^{ε0}``) as a four-value record: subset selection with
    ``k = 2``, ``d = 1`` (rows ``(e, 1)/(e+1)`` and ``(1, e)/(e+1)``, ``γ = 2/(e+1)``, ``π_t = 1/2``).  Its sampled
    record :class:`SampledFourValue` is binary RR's ``R_q``, whose blanket view is Lemma G1 [sampled]'s bound
    (docs/mechanisms.md, "Lemma G1 under sampled participation").  O(1)."""
    if mech.epsilon0 is not None:
        return Subset(2, 1, mech.epsilon0)
    return Subset(2, 1, exp_epsilon0=mech.exp_epsilon0_exact)


def krr_four_value(mech: KRR) -> Subset:
    """k-ary RR with ``mech``'s exact ``ε0`` (or ``e^{ε0}``) as a four-value record: subset selection with ``k``,
    ``d = 1`` (the same rows ``e/(e+k−1)``, ``1/(e+k−1)``; :class:`~blanket.exact.mechanisms.oracles.Subset`'s
    docstring).  Its sampled record :class:`SampledFourValue` is k-RR's ``R_q``, so a sampled k-RR round composes
    that record's curve pair (the registered sampled four-value statement) beside the sampled blanket view (Lemma
    S1), which is loose at small ``n``.  O(1)."""
    e0 = mech.epsilon0_exact
    if e0 is not None:
        return Subset(mech.k, 1, e0)
    return Subset(mech.k, 1, exp_epsilon0=mech.exp_epsilon0())


#: the largest input range of an exact geometric mechanism whose sampled round composes the curve pair of its ``R_q``
#: as a matrix (``m + 1`` outputs; the matrix views' cost grows with the matrix)
GEOMETRIC_MATRIX_MAX_M = 10


def geometric_matrix(mech: Geometric) -> FiniteRandomizer | None:
    """The exact matrix of a truncated geometric mechanism (its :meth:`~blanket.exact.mechanisms.oracles.Geometric.rows`)
    when ``α`` is an exact rational and ``m ≤`` :data:`GEOMETRIC_MATRIX_MAX_M`, else ``None``.  Its sampled round is
    the shuffle of that matrix's ``R_q`` (Lemma S0), so the registered "Sampled matrix round through R_q" applies
    (docs/composition.md §5f).  O(m²)."""
    if not mech.is_exact or mech.m > GEOMETRIC_MATRIX_MAX_M:
        return None
    return FiniteRandomizer(mech.rows(), name=f"truncated geometric, m = {mech.m}, alpha = {mech.alpha}")


_PAIRS: dict = {}


def _memo_pair(mech: KRR, n: int, q: fmpq) -> _curves.FinitePair:
    e0 = getattr(mech, "epsilon0_exact", None)
    key = (mech.k, str(e0) if e0 is not None else "exp " + str(mech.exp_epsilon0()), n, str(q))
    prec = ctx.prec
    held = _PAIRS.get(key)
    if held is None or held[0] < prec:  # a pair built at a lower precision is not reused: escalation must narrow
        if len(_PAIRS) >= 64:
            _PAIRS.clear()
        _PAIRS[key] = held = (prec, sampled_krr_pair(mech, n, q))
    return held[1]


@dataclasses.dataclass(frozen=True, eq=False)
class Sampled:
    """A shuffled round in which each user takes part independently with probability ``q`` (``0 < q ≤ 1``); the
    adversary sees the shuffled multiset of the reports, hence their number.

    ``event`` is a :class:`~blanket.exact.accounting.accountant.ShuffledRR` or
    :class:`~blanket.exact.accounting.accountant.Shuffled` round of ``n`` users.  ``q = 1`` is the event itself.
    k-ary RR composes the sampled blanket view (:func:`sampled_krr_pair`); any other randomizer the event's own clone
    pair (valid: the sampled randomizer is ε0-LDP; the sampling is then not exploited), and a matrix or four-value
    record also the curve pair of its sampled randomizer ``R_q`` (:meth:`curve_event`), the accountant keeping the
    smaller end.

    ``q`` is exact (an int, ``Fraction``, ``fmpq`` or decimal string); a binary float is refused, as everywhere
    in the package (README "Rigour conventions"): ``0.1`` is not 1/10, and nothing needs the float (the rounds are
    not dp_accounting events).

    >>> Sampled(ShuffledRR(k=2, epsilon0="1", n=10), q="0")
    Traceback (most recent call last):
    ...
    blanket.exact.numbers.errors.InvalidArgument: q must be > 0, got '0' (the participation probability, in (0, 1])
    >>> Sampled(ShuffledRR(k=2, epsilon0="1", n=10), q=0.1)
    Traceback (most recent call last):
    ...
    blanket.exact.numbers.errors.FloatRefused: q must be exact (...), not a binary float, got 0.1 (pass q="0.1" or Fraction("0.1") instead)
    """

    event: ShuffledRR | Shuffled
    q: Fraction

    def __init__(self, event: ShuffledRR | Shuffled, q: NumberInput) -> None:
        if isinstance(event, Sampled) or not isinstance(event, (ShuffledRR, Shuffled)):
            raise InvalidArgument("event", event, "must be a ShuffledRR or Shuffled round (sample it once, with one q)")
        if isinstance(q, float):
            raise FloatRefused("q", q, hint=f'pass q="{q!r}" or Fraction("{q!r}") instead')
        try:
            qq = arith.exact_in(q, "q", lo=0, hi=1, lo_open=True)
        except InvalidArgument as exc:
            raise InvalidArgument(
                "q", exc.value, exc.requirement, hint="the participation probability, in (0, 1]"
            ) from None
        fq = Fraction(int(qq.p), int(qq.q)) if isinstance(qq, fmpq) else Fraction(qq)
        check_sampling(fq, "q", q)
        object.__setattr__(self, "event", event)
        object.__setattr__(self, "q", fq)

    @property
    def n(self) -> int:
        return self.event.n

    @property
    def epsilon0(self) -> Fraction:
        """The event's (an upper end of) ε0: each sampled round is still ε0-DP."""
        return self.event.epsilon0

    def _fq(self) -> fmpq:
        return fmpq(self.q.numerator, self.q.denominator)

    def _krr(self) -> KRR | None:
        ev = self.event
        if isinstance(ev, ShuffledRR):
            return ev.mechanism()
        return ev.mechanism if isinstance(ev.mechanism, KRR) else None

    def curve_event(self) -> Shuffled | None:
        """The plain round whose curve pair dominates this one, or ``None``: a matrix randomizer ``R`` (``q < 1``,
        ``n ≥ 2``): the shuffle of ``n`` outputs of the sampled randomizer ``R_q`` (:func:`sampled_randomizer`),
        which *is* this round (§5f, Lemma S0), with ``same_randomizer`` as stated (``R_q`` is then one randomizer for
        every user too); a four-value record (OUE, SUE, OLH, Hadamard, subset): the shuffle of
        :class:`SampledFourValue`, its ``R_q`` as a four-value record; an ``ldp`` record: the shuffle of binary RR's
        ``R_q`` as that record (:func:`binary_four_value`), whose blanket view is Lemma G1 [sampled]'s bound (any
        ε0-LDP randomizer in FMT21's model, docs/mechanisms.md; its clone pair is FMT21's, valid for every ε0-LDP
        randomizer); an exact truncated geometric mechanism (``m ≤`` :data:`GEOMETRIC_MATRIX_MAX_M`): its matrix's
        ``R_q`` (:func:`geometric_matrix`).  The accountant composes that round's curve pair (the matrix's own blanket views of ``R_q``
        and the clone pair, pointwise the smaller) beside this round's :meth:`dominating_pair` and keeps the smaller
        end.  O(k_in · k_out)."""
        ev = self.event
        if self.q == 1 or self.n < 2:
            return None
        krr = self._krr()
        if krr is not None:  # k-RR is subset selection with d = 1 (exactly): its R_q as that four-value record
            if "_curve_event" not in self.__dict__:
                rec = krr_four_value(krr)  # binary RR: the record whose curve adds the exact worst case (Lemma S4)
                rq = SampledBinaryRR(rec, self._fq()) if krr.k == 2 else SampledFourValue(rec, self._fq())
                object.__setattr__(self, "_curve_event", Shuffled(rq, self.n))
            return self.__dict__["_curve_event"]
        if not isinstance(ev, Shuffled):
            return None
        m: Any = ev.mechanism
        if isinstance(m, Geometric):  # an exact truncated geometric mechanism is a matrix randomizer (its rows)
            g = m
            m = geometric_matrix(g)
            if m is None:  # irrational α or m > GEOMETRIC_MATRIX_MAX_M: R_q's four-knot law (§5f)
                if g.m > _geometric.MAX_GEOMETRIC_M:
                    return None
                if "_curve_event" not in self.__dict__:
                    object.__setattr__(
                        self, "_curve_event", Shuffled(_geometric.SampledGeometric(g, self._fq()), self.n)
                    )
                return self.__dict__["_curve_event"]
        if not (
            isinstance(m, LDP) or _matrix_view.is_matrix(m) or (isinstance(m, FourValue) and not ev.same_randomizer)
        ):
            return None
        key = "_curve_event"
        if key not in self.__dict__:
            if isinstance(
                m, LDP
            ):  # Lemma G1 [sampled]: binary RR's R_q, a four-value record (subset selection with k = 2, d = 1)
                plain = Shuffled(SampledFourValue(binary_four_value(m), self._fq()), self.n)
            elif isinstance(m, FourValue):
                plain = Shuffled(SampledFourValue(m, self._fq()), self.n)
            else:
                plain = Shuffled(sampled_randomizer(m, self._fq()), self.n, same_randomizer=bool(ev.same_randomizer))
            object.__setattr__(self, key, plain)
        return self.__dict__[key]

    def cost_model(self) -> tuple:
        """``(event, None)`` when this round costs what its plain ``event`` does (``q = 1``), ``(plain, None)`` for a
        matrix or four-value record (:meth:`curve_event`: the plain round of ``R_q``, whose curve pair and clone-pair
        shape it composes), else ``(None, seconds)``: k-RR the sampled blanket view's model
        (:func:`~blanket.exact.accounting.composition_cost.sampled_view_seconds`); another randomizer the survival
        kernel's passes on the clone-pair shape (:meth:`dominating_pair` composes that pair or Lemma G1's, never the
        event's curve pair, whose sweep the plain event's model would count).  An estimate, never a bound; builds
        nothing but an O(1) pair shape.  O(1)."""
        if self.q == 1:
            return self.event, None
        krr = self._krr()
        plain = None if krr is not None else self.curve_event()
        if plain is not None:  # a matrix / oracle: the plain round of R_q (its curve pair and its clone-pair shape)
            return plain, None
        if krr is None:
            ev = self.event
            rand = ev.mechanism() if isinstance(ev, ShuffledRR) else ev.mechanism
            try:
                shape = clone_pair(rand, self.n)
            except InvalidArgument:  # no finite e^{ε0} to shape it: the plain event's model
                return self.event, None
            return None, _cost.kernel_passes_seconds(shape)
        g = _cost.blanket_gamma(krr.k, float(arb(krr.exp_epsilon0()).mid()))
        # binary RR: its exact worst case is prepared once when affordable (Lemma S4, sampled_binary.worst_seconds)
        aff = krr.k == 2 and _sampled_binary.affordable(self.n, self.q)
        # and then its dataset-curve lower pair (sampled_binary_lower: the test points and their hull)
        once = _sampled_binary.worst_seconds(self.n, self.q) + _cost.SECONDS_SAMPLED_DATASET_CURVE if aff else 0.0
        return None, _cost.sampled_view_seconds(self.n, float(self.q), g) + once

    def dominating_pair(self) -> Any:
        """``q = 1``: the event's pair; k-ary RR (``n ≥ 2``): the sampled blanket view's hull pair; a round stating one
        randomizer for every user (``same_randomizer``) or an ``ldp`` record (FMT21's adaptive model): Lemma G1's pair
        (the sampled randomizer is ε0-LDP too, docs/composition.md §5g; participation not exploited here: an ``ldp``
        record's :meth:`curve_event` exploits it, Lemma G1 [sampled]); otherwise the event's clone pair (dominating
        for every ε0-LDP randomizer, the sampled one included)."""
        if self.q == 1:
            return self.event.dominating_pair()
        mech = self._krr()
        if mech is not None and self.n >= 2:
            return _memo_pair(mech, self.n, self._fq())
        # the clone pair itself, never the event's own pair: a pair specific to R (a curve pair, the stronger-clone
        # pair) need not dominate the sampled randomizer R_q; the clone pair dominates every ε0-LDP one (§5f, S0)
        ev = self.event
        rand = ev.mechanism() if isinstance(ev, ShuffledRR) else ev.mechanism
        if getattr(ev, "same_randomizer", False):
            # one randomizer for every user: R_q is one ε0-LDP randomizer too, so Lemma G1's pair dominates (§5g)
            pr = _same.same_randomizer_pair(rand, self.n)
            return dataclasses.replace(pr, description=pr.description + f"; participation q = {self.q} not exploited")
        if isinstance(rand, LDP):
            # FMT21's model: each user's R_q is an ε0-LDP randomizer of the sequence, so Lemma G1 [adaptive] holds (§5g)
            pr = _same.adaptive_pair(rand, self.n)
            return dataclasses.replace(pr, description=pr.description + f"; participation q = {self.q} not exploited")
        pr = clone_pair(rand, self.n)
        return dataclasses.replace(pr, description=pr.description + f"; participation q = {self.q} not exploited")

    def lower_pair(self, direction: str = "forward") -> Any:
        """A concrete dataset pair of the sampled round (every other user holds ``x'``), post-processed to the number
        of ``x`` reports: ``Bin(n−1, q f) + Bern(q p)`` vs ``+ Bern(q f)`` (``"backward"``: swapped); ``ldp``: that of
        binary RR with the same ε0 (a member of the class).  A matrix randomizer: its binarized pair with every
        ``q_u`` scaled by ``q`` (:func:`blanket.exact.accounting.matrix_lower.shift_pair`, the pair of the sampled
        randomizer ``R_q``); a four-value record (the frequency oracles): its count of reports in a set of outputs
        (:func:`~blanket.exact.accounting.accountant.four_value_lower_pair`) with every probability scaled by ``q``
        (a user who does not take part sends nothing; docs/composition.md §5f); a geometric record that is not a small
        exact matrix (:func:`geometric_matrix`): its threshold count with every probability scaled by ``q``
        (:func:`blanket.exact.accounting.geometric_lower.shift_pair`).  ``None`` for another randomizer
        (leaving a round out of the lower end is a post-processing).  O(1); a matrix ``O(k_in³ · k_out)`` exact
        additions (its choice)."""
        if self.q == 1:
            return self.event.lower_pair(direction)
        if direction not in ("forward", "backward"):
            raise InvalidArgument("direction", direction, "must be 'forward' or 'backward'")
        mech = self._krr()
        if mech is None:
            ev = self.event
            m = ev.mechanism if isinstance(ev, Shuffled) else None
            if isinstance(m, Geometric) and self.n >= 2:
                gm = geometric_matrix(m)
                if gm is None:  # irrational α or m > 10: the threshold count with every probability scaled by q (§5f)
                    return _geo_lower.shift_pair(m, self.n, direction, q=self._fq())
                m = gm  # an exact geometric mechanism with m <= 10: its matrix's binarized count (as a matrix)
            if isinstance(m, LDP):  # binary RR with the same ε0, one member of the class (as Shuffled.lower_pair)
                mech = KRR(2, m.epsilon0) if m.epsilon0 is not None else KRR(2, exp_epsilon0=m.exp_epsilon0_exact)
            elif isinstance(m, FourValue) and self.n >= 2:
                pr = four_value_lower_pair(m, self.n, direction)  # counts of reports in a set: scale each by q
                q = self._fq()
                assert pr.inner_q is not None  # four_value_lower_pair always gives the count's probability
                with arith.precision(cancellation_precision(m)):  # as four_value_lower_pair's entries
                    return dataclasses.replace(
                        pr,
                        inner_q=q * pr.inner_q,
                        pi_p=q * pr.pi_p,
                        pi_q=q * pr.pi_q,
                        description=pr.description + f", participation q = {self.q}",
                    )
            elif m is not None and _matrix_view.is_matrix(m) and self.n >= 2:
                choice = _matrix_lower.sampled_choice(m, self._fq())
                return _matrix_lower.shift_pair(choice, self.n, direction, q=self._fq())
            else:
                return None
        elif mech.k == 2 and self.n >= 2:
            # binary RR where its exact worst case is affordable: the chosen dataset's whole curve (an ROC pair of its
            # exact law, sampled_binary_lower; docs/composition.md §5f), which the count below post-processes
            plain = self.curve_event()
            rq: Any = plain.mechanism if plain is not None else None
            if getattr(rq, "exact_binary_worst", False):
                with arith.precision(128):  # the same ball as the curve source's: one preparation (the memo's key)
                    e0 = rq.exp_epsilon0()
                curve = _sb_lower.curve_lower_pair(e0, rq.participation, self.n, direction)
                if curve is not None:
                    return curve
        q = self._fq()
        # the backward pair's complements 1 − (1 − q·f) must keep q·f's digits (q = 1e-20 at 53 bits, or ε0 = 60 at 64
        # bits: q·f below the radius of 1 − q·f, a NaN loss range): arith.cancellation_bits of 1/(q·f) =
        # (e^{ε0} + k − 1)/q, i.e. ⌈log2(1/(q·f))⌉ + 1 more bits from q·f ≤ 2^-20 (at most about 790 at ε0 = 500)
        with arith.precision(64):
            bits = arith.cancellation_bits((mech.exp_epsilon0() + mech.k - 1) / q)
        with arith.precision(arith.cancellation_precision(bits)):
            e = mech.exp_epsilon0()
            f = 1 / (e + mech.k - 1)
            pp, pf = q * e * f, q * f
            one_pf, one_pp = 1 - pf, 1 - pp
        fw = direction == "forward"
        # backward: the reflected count n − K (loss non-decreasing in the count, as pairs.lower_pair)
        return _pairs.ShiftPair(
            outer_n=self.n - 1,
            outer_q=None,
            inner_q=pf if fw else one_pf,
            pi_p=pp if fw else one_pf,
            pi_q=pf if fw else one_pp,
            null=fmpq(0),
            kind="dataset",
            description=f"all other users hold x2, participation q = {self.q}; the count of x reports"
            + ("" if fw else " (backward direction)"),
        )

    def _third(self) -> tuple | None:
        """``(one level, banded)`` third-value pair of the sampled round (:mod:`blanket.exact.accounting.sampled_lower`,
        Lemma S5, docs/composition.md §5f), memoised, or ``None``: k-RR with ``k ≥ 3``; ``ldp`` through 3-ary RR with the
        same ε0; a four-value record with a triple hit law.  O(bands)."""
        if "_third_pairs" not in self.__dict__:
            got = None
            ev = self.event
            mech = self._krr()
            m = ev.mechanism if isinstance(ev, Shuffled) else None
            if self.n >= 2:
                if mech is not None:
                    got = _slow.krr_third_pair(mech, self.n, self._fq())
                elif isinstance(m, LDP):  # 3-ary RR with the same ε0, one member of the class (as Shuffled's)
                    three = KRR(3, m.epsilon0) if m.epsilon0 is not None else KRR(3, exp_epsilon0=m.exp_epsilon0_exact)
                    got = _slow.krr_third_pair(three, self.n, self._fq())
                elif isinstance(m, FourValue):
                    got = _slow.four_value_third_pair(m, self.n, self._fq())
            object.__setattr__(self, "_third_pairs", got)
        return self.__dict__["_third_pairs"]

    def third_lower_pair(self) -> Any:
        """The sampled third-value lower pair garbled to one level (:meth:`_third`), or ``None``; ``q = 1``: the
        event's own (if it has one).  Composed by the accountant as "low-3" (through :meth:`third_lower_bands`).
        O(bands)."""
        if self.q == 1:
            own = getattr(self.event, "third_lower_pair", None)
            return own() if own is not None else None
        got = self._third()
        return None if got is None else got[0]

    def third_lower_bands(self) -> Any:
        """:meth:`third_lower_pair` with a garbling level per band of ``N`` (a
        :class:`~blanket.exact.accounting.banded.BandedPair`; never below the one-level pair).  O(bands)."""
        if self.q == 1:
            own = getattr(self.event, "third_lower_bands", None)
            return own() if own is not None else None
        got = self._third()
        return None if got is None else got[1]

    def stratum_lower_pair(self) -> Any:
        """The oracles' two-stratum count of the sampled round (:func:`blanket.exact.accounting.sampled_lower.
        four_value_stratum_pair`, ``⊥`` counted 0; Lemma S5), composed as "low-3s", for a four-value record with a
        triple law and ``2 ≤ n ≤`` :data:`~blanket.exact.accounting.accountant.STRATUM_MAX_N`; ``q = 1``: the event's
        own; else ``None``.  O(1) (the law is computed when the pair is discretised)."""
        if self.q == 1:
            own = getattr(self.event, "stratum_lower_pair", None)
            return own() if own is not None else None
        ev = self.event
        m = ev.mechanism if isinstance(ev, Shuffled) else None
        if isinstance(m, FourValue) and 2 <= self.n <= STRATUM_MAX_N:
            return _slow.four_value_stratum_pair(m, self.n, self._fq())
        return None

    def describe(self) -> str:
        return f"{self.event.describe()}, participation q = {self.q}"

    def sort_key(self) -> tuple:
        return (2, self.q, *self.event.sort_key())
