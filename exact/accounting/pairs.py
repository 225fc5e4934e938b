"""Dominating pairs of shuffled k-RR rounds, and the concrete pairs of datasets that bound them from below.

A *dominating pair* ``(P, Q)`` of a shuffled round is a pair of finite
distributions with ``H_{e^ε}(M(D)‖M(D')) ≤ H_{e^ε}(P‖Q)`` for **every real**
ε (every ``α = e^ε ≥ 0``) and every pair of neighbouring datasets; products of
dominating pairs dominate the adaptive composition of the rounds (Zhu, Dong,
Wang 2022; :mod:`blanket.proofs.composition`).  The argument for each pair is
written out in ``docs/composition.md``.  Pairs supplied here (``e = e^{ε0}``,
``f = 1/(e+k−1)``, ``p = e·f`` for k-RR):

* :func:`blanket_view_atoms` — the Lemma 5.3 blanket view of k-RR read as a
  pair: the others' blanket draws revealed; outcome ``(m, a, b)`` with
  ``m ~ Bin(n−1, γ)`` blanket users among the others and ``a``, ``b`` the
  counts of ``x`` and ``x'`` among their ``m`` draws plus the target's report.
  Its hockey-stick divergence is exactly :func:`blanket.exact.shuffled.krr.delta_blanket_view`
  (tests).  Enumerated exactly, ``O(n³)`` atoms: small ``n`` only.
* :func:`dominating_pair` — a :class:`ShiftPair`, the structured form used at
  large ``n``.  For ``k = 2`` it *is* the blanket view (= the stronger-clone
  pair of Feldman–McMillan–Talwar): ``C ~ Bin(n−1, 2f)`` blanket users,
  ``A | C ~ Bin(C, ½)`` ones among their draws, the target adds a one w.p.
  ``e/(e+1)`` under ``P`` and ``1/(e+1)`` under ``Q``.  For ``k ≥ 3`` it is
  the blanket view with *also* revealed which blanket draws fell on
  ``{x, x'}`` (``C ~ Bin(n−1, 2f)`` such draws): a mixture of a loss-0 atom
  of weight ``(k−2)f`` (the target reported a third value) and the same
  clone form with weight ``p+f``.  It reveals more than the blanket view, so
  it dominates it (and is looser for ``k ≥ 3``).
* :func:`lower_pair` — a concrete pair of datasets, post-processed: every
  other user holds a value ``z ≠ x`` (for binary RR: the dataset ``c = 0``),
  the target holds ``x`` vs ``x'``, and the adversary looks only at the number
  ``K`` of reports equal to ``x``: ``K ~ Bin(n−1, f) + Bern(p)`` vs
  ``Bin(n−1, f) + Bern(f)``.  Its δ is a *lower* bound on the mechanism's δ,
  and its ``T``-fold product a lower bound on ``T`` rounds (the rounds may
  be run on those fixed datasets).  For binary RR it is the exact ``c = 0``
  dataset pair.

Their privacy loss distributions and composition are in :mod:`blanket.exact.accounting.pld` (which re-exports
these names); the worst-case curve pairs of binary RR in :mod:`blanket.exact.accounting.curves`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from math import comb

from blanket.exact.mechanisms.finite import KRR, Randomizer, finite_exp_epsilon0
from blanket.exact.numbers import arith, guards
from blanket.exact.numbers.errors import InvalidArgument, Undecided
from blanket.exact.numbers.types import Enclosure, IntegerInput, NumberOrBall
from flint import arb, ctx, fmpq


def upper_rational(x: arb) -> fmpq:
    """The upper end of the ball ``x`` as an exact rational."""
    lo, hi = arith.endpoints(x)
    return fmpq(hi.numerator, hi.denominator)


def lower_rational(x: arb) -> fmpq:
    """The lower end of the ball ``x`` as an exact rational."""
    lo, hi = arith.endpoints(x)
    return fmpq(lo.numerator, lo.denominator)


def _check_krr(mech):
    guards.require_instance(
        mech, KRR, "mechanism", "must be k-ary randomized response (blanket.KRR / blanket.BinaryRR)"
    )


def _krr_params(mech):
    """``(e, f, p)`` exact when the mechanism is exact, else balls."""
    e = mech.exp_epsilon0()
    f = 1 / (e + mech.k - 1)
    return e, f, e * f


def krr_cancellation_bits(mech: KRR) -> int:
    """Extra bits for k-RR's concrete lower pairs (:func:`lower_pair`, :func:`lumped_params`, the banded pairs):
    they read ``1 − f``, ``1 − p``, ``p + f`` and ``1 − u = f/(p + f)`` with ``f = 1/(e^{ε0} + k − 1)``, so ``f``'s
    digits must survive next to ``O(1)`` terms: :func:`~blanket.exact.numbers.arith.cancellation_bits` of
    ``1/f = e^{ε0} + k − 1`` at depth 1 (0 below ``2^20``, i.e. ε0 below about 13.9: nothing changes there).  At ε0 = 60
    and 53 bits ``π_p = p/(p + f)`` was the ball ``[1 ± 5e-16]`` and the loss range NaN (an internal error).  O(1)."""
    with arith.precision(64):
        return arith.cancellation_bits(arith.ball(mech.exp_epsilon0()) + mech.k - 1)


@dataclass(frozen=True)
class ShiftPair:
    """A mixture-of-binomials pair, the structured form of every pair used at large ``n``.

    Outcome ``(C, K)``: ``C ~ Bin(outer_n, outer_q)`` (``C = outer_n`` when
    ``outer_q`` is ``None``), then ``K = B + Δ`` with ``B | C ~ Bin(C, inner_q)``
    (``inner_q = None`` means ½) and ``Δ ~ Bern(pi_p)`` under ``P``,
    ``Bern(pi_q)`` under ``Q``; in addition an atom of weight ``null`` with loss
    0 (equal mass under ``P`` and ``Q``), the rest scaled by ``1 − null``.
    Loss at ``(C, K)``: ``log((π_P ρ + 1 − π_P)/(π_Q ρ + 1 − π_Q))`` with
    ``ρ = K(1−q)/((C+1−K)q)``, non-decreasing in ``K`` when ``π_P > π_Q``; it
    lies in ``[log((1−π_P)/(1−π_Q)), log(π_P/π_Q)]`` and ``Q > 0`` wherever
    ``P > 0`` (no mass at ``+∞``).  Parameters are exact ``fmpq`` or balls.
    """

    outer_n: int
    outer_q: Enclosure | None
    inner_q: Enclosure | None
    pi_p: Enclosure
    pi_q: Enclosure
    null: Enclosure
    kind: str
    description: str = ""
    #: ``None``, or ``(a, b, m_lo, tau)``: the outer law is then that of ``C = N − 1`` with
    #: ``N ~ a·(Bin(outer_n, outer_q) + 1) + b·Bin(outer_n, outer_q)`` (weights ``a·bin(C) + b·bin(C+1)``);
    #: ``N < m_lo`` is dropped (``m_lo ≥ 1``: a sub-probability pair, lower side only); ``tau`` bounds the mass of
    #: cells where the pair is replaced by a stronger view (the pessimistic side puts ``tau`` at ``+∞``, the
    #: optimistic side subtracts it); ``N = 0`` is a loss-0 cell (at ``+∞`` on the pessimistic side)
    outer_mix: tuple | None = None
    #: ``None``, or (with ``outer_mix``) the largest ``N`` kept: the cells ``N > outer_hi`` are dropped too (a band of
    #: cells, lower side only: :class:`blanket.exact.accounting.oracle_lower.BandedPair`)
    outer_hi: int | None = None

    # ---- exact enumeration (small n)
    def atoms(self) -> list:
        """All atoms ``(key, P, Q)`` (exact for exact parameters).  ``O(outer_n²)`` atoms."""
        half = fmpq(1, 2)
        qi = half if self.inner_q is None else self.inner_q
        out: list[tuple] = []
        Cs = range(self.outer_n + 1) if self.outer_q is not None else [self.outer_n]

        def binw(C):
            if C < 0 or C > self.outer_n:
                return 0
            assert self.outer_q is not None  # binw is used only when the outer law is binomial
            return comb(self.outer_n, C) * self.outer_q**C * (1 - self.outer_q) ** (self.outer_n - C)

        for C in Cs:
            if self.outer_mix is not None:
                a, b, m_lo, _tau = self.outer_mix
                if C + 1 < m_lo or (self.outer_hi is not None and C + 1 > self.outer_hi):
                    continue
                wC = a * binw(C) + b * binw(C + 1)
            else:
                wC = 1 if self.outer_q is None else binw(C)
            b = [comb(C, i) * qi**i * (1 - qi) ** (C - i) for i in range(C + 1)]
            for K in range(C + 2):
                bm1 = b[K - 1] if K >= 1 else 0
                bk = b[K] if K <= C else 0
                P = (1 - self.null) * wC * (self.pi_p * bm1 + (1 - self.pi_p) * bk)
                Q = (1 - self.null) * wC * (self.pi_q * bm1 + (1 - self.pi_q) * bk)
                out.append(((C, K), P, Q))
        if not (isinstance(self.null, fmpq) and self.null == 0):
            out.append((("null",), self.null, self.null))
        if self.outer_mix is not None and self.outer_mix[3] != 0:
            out.append((("inf",), self.outer_mix[3], fmpq(0)))  # the replaced cells, at loss +inf (pessimistic)
        return out

    @property
    def max_loss(self) -> arb:
        return arith.ball(self.pi_p / self.pi_q).log()

    @property
    def min_loss(self) -> arb:
        return arith.ball((1 - self.pi_p) / (1 - self.pi_q)).log()


#: mass bound of the replaced cells of the garbled blanket view (k >= 3); above it the split view is used
GARBLE_TAU = 1e-20


def count_pair(
    n: int,
    qz: Enclosure,
    qx: Enclosure,
    qx2: Enclosure,
    direction: str,
    *,
    kind: str,
    description: str,
    complements: tuple | None = None,
) -> ShiftPair:
    """The pair of one count on a concrete dataset pair (``outer_q = None``): ``S = Bin(n − 1, qz) + Bern(qx)`` vs
    ``+ Bern(qx2)`` — each other user's report lands in the counted set w.p. ``qz``, the target's w.p. ``qx`` (resp.
    ``qx2``).  ``"forward"``: ``(P, Q)`` with ``S``; ``"backward"``: ``(Q, P)`` written with ``n − S`` (the loss again
    non-decreasing in the count).  ``complements``: ``(1 − qz, 1 − qx, 1 − qx2)`` computed by the caller (to keep
    their digits), else formed here.  Used by the binarized matrix count and the geometric threshold count.  O(1)."""
    if direction not in ("forward", "backward"):
        raise InvalidArgument("direction", direction, "must be 'forward' or 'backward'")
    fw = direction == "forward"
    if not fw:  # (Q, P) with n − S: every probability complemented, the target's two swapped
        qz, qx, qx2 = complements if complements is not None else (1 - qz, 1 - qx, 1 - qx2)
        qx, qx2 = qx2, qx
    return ShiftPair(
        outer_n=n - 1,
        outer_q=None,
        inner_q=qz,
        pi_p=qx,
        pi_q=qx2,
        null=fmpq(0),
        kind=kind,
        description=description + ("" if fw else " (backward direction)"),
    )


def _pi_precision(e: NumberOrBall) -> int:
    """The precision for ``π_p = e/(e+1)``, ``π_q = 1/(e+1)`` of the clone and blanket-view pairs: a pair's loss range
    reads ``1 − π_p``, so ``1/(e+1)``'s digits must survive in ``π_p`` (ε0 = 60: ``1/(e+1) ≈ 9e-27``, a ball of
    ``π_p`` at 53 bits contained 1 and the loss range was NaN, an internal error).
    :func:`~blanket.exact.numbers.arith.cancellation_bits` of ``e`` at depth 1 at every ε0 (``threshold=1``:
    ``⌈log2 e⌉ + 1`` more bits, at least 64 bits in all; at the usual ε0 these few bits also narrow the loss balls the
    composition discretises, and its answers depend on them in the last digits).  O(1)."""
    return max(ctx.prec, 64) + arith.cancellation_bits(e, threshold=1)


def clone_pair(mech: Randomizer, n: int) -> ShiftPair:
    """The FOCS 2021 clone pair of ``n`` users as a :class:`~exact.accounting.pld.ShiftPair`: dominating for the
    shuffled round of **every** ε0-LDP randomizer (Feldman–McMillan–Talwar 2021).

    ``C ~ Bin(n−1, e^{−ε0})``, ``K = Bin(C, ½) + Δ``, ``Δ ~ Bern(e/(e+1))`` under P and ``Bern(1/(e+1))`` under Q
    (:func:`exact.shuffled.oracles.clone_pair_law` read through the first coordinate, which determines the second);
    its hockey-stick divergence is :func:`exact.shuffled.oracles.clone_delta` (tests).  The pair is symmetric.
    (Here, below both :mod:`~blanket.exact.accounting.accountant` and :mod:`~blanket.exact.accounting.certified`,
    so that the accountant can call the one-round certified routines.)  O(1).
    """
    e = finite_exp_epsilon0(mech, "the clone pair")
    with arith.precision(_pi_precision(e)):
        e = finite_exp_epsilon0(mech, "the clone pair")
        pi_p, pi_q, outer_q = e / (e + 1), 1 / (e + 1), 1 / e
    return ShiftPair(
        outer_n=n - 1,
        outer_q=outer_q,
        inner_q=None,
        pi_p=pi_p,
        pi_q=pi_q,
        null=fmpq(0),
        kind="clone",
        description="clone pair (Feldman-McMillan-Talwar FOCS 2021; any epsilon0-LDP randomizer)",
    )


def _garbled_lambda(n: int, gamma: float, k: int, log_tau: float) -> float:
    """Largest ``λ`` with the Hoeffding bound ``exp(−2t²/((n−1)λ²)) ≤ τ``, ``t = (n−1)γ(1 − 2λ/k) − (λ − 1)``."""
    r = math.sqrt(-log_tau * (n - 1) / 2)
    return ((n - 1) * gamma + 1) / (1 + r + 2 * (n - 1) * gamma / k)


def garbled_blanket_view(mech: KRR, n: IntegerInput, *, tau: float = GARBLE_TAU) -> ShiftPair | None:
    """k ≥ 3: a dominating pair close to the Lemma 5.3 blanket view at large n (``None`` when n is too small).

    The blanket view is sufficient through ``(m, s, a)``: ``m`` blanket users among the others, ``s`` symbols in
    ``{x, x'}`` among their draws and the target's report, ``a`` of them equal to ``x``.  Given ``(m, s)`` (same
    law under both datasets), ``a ~ Bin(s−1, ½) + Bern(π(w))`` with ``w = w(m, s)`` the posterior weight of "the
    target reported in {x, x'}" and ``π_P(w) = w·p/(p+f) + (1−w)/2``, ``π_Q(w) = w·f/(p+f) + (1−w)/2``;
    ``w ≤ w*`` iff ``m + 1 ≥ λ s`` with ``w* = (p+f)/(p + f + 2f(λ−1))``.  On those cells the view is the
    reflection garbling (``a → s − a`` w.p. θ, ``1 − 2θ = w/w*``) of the clone pair with ``π(w*)``; the other
    cells (probability ≤ ``τ'``, a Hoeffding bound on ``Σ_i B_i(1 − λD_i) < λ − 1`` over the others' blanket
    coins ``B_i`` and ``D_i = [draw ∈ {x, x'}]``) get the split view (loss ≤ ε0; at ``+∞`` on the pessimistic
    side).  Marginally ``s − 1 = C`` with ``P(s) = (p+f)·bin(s−1) + (k−2)f·bin(s)``, ``bin = Bin(n−1, 2f)``.
    Proof in ``docs/composition.md`` §1; tests compare with :func:`blanket.exact.shuffled.krr.delta_blanket_view`.
    """
    _check_krr(mech)
    n = arith.integer_in(n, "n", lo=1)
    k = mech.k
    if k < 3:
        return None
    e, f, p = _krr_params(mech)
    gamma = k * f
    g_f = float(arith.ball(gamma).lower())
    lam_f = _garbled_lambda(n, g_f, k, math.log(float(tau)))
    if not lam_f > 1.001:
        return None
    lam = fmpq(math.floor(lam_f * 1024), 1024)
    with arith.precision(128):
        t = (n - 1) * arith.ball(gamma) * (1 - 2 * arith.ball(lam) / k) - (arith.ball(lam) - 1)
        if not t > 0:
            return None
        tau_b = (-2 * t * t / ((n - 1) * arith.ball(lam) ** 2)).exp()
    tau_q = upper_rational(tau_b)
    a, b = p + f, (k - 2) * f
    w_star = a / (a + 2 * f * (lam - 1))
    half = fmpq(1, 2)
    return ShiftPair(
        outer_n=n - 1,
        outer_q=2 * f,
        inner_q=None,
        pi_p=w_star * p / a + (1 - w_star) * half,
        pi_q=w_star * f / a + (1 - w_star) * half,
        null=fmpq(0),
        kind="blanket-view-garbled",
        description=(
            f"blanket view of {k}-RR (Lemma 5.3) dominated by a reflection-garbled clone pair "
            f"(lambda = {lam}, replaced cells <= {float(tau_q):.1e})"
        ),
        outer_mix=(a, b, 0, tau_q),
    )


def dominating_pair(mech: KRR, n: IntegerInput) -> ShiftPair:
    """The dominating pair of one shuffled round of k-RR with ``n`` users (see the module docstring).

    ``k = 2``: the blanket view (= stronger clones), exact equality with
    :func:`blanket.exact.shuffled.krr.delta_blanket_view` (tests).  ``k ≥ 3``: the garbled blanket view
    (:func:`garbled_blanket_view`) when ``n`` is large enough for its Hoeffding bound, else the blanket view with
    the ``{x, x'}``-membership of the blanket draws revealed (a valid, looser pair).

    >>> from blanket.exact.mechanisms.finite import BinaryRR
    >>> pr = dominating_pair(BinaryRR(exp_epsilon0=3), 4)
    >>> pr.outer_q, pr.pi_p, pr.pi_q, pr.null
    (1/2, 3/4, 1/4, 0)
    """
    _check_krr(mech)
    n = arith.integer_in(n, "n", lo=1)
    if mech.k >= 3 and n >= 2:
        g = garbled_blanket_view(mech, n)
        if g is not None:
            # both are valid; keep the one with the smaller loss variance (clone forms with the same C law:
            # Fisher information ∝ weight·(π_P − π_Q)², i.e. w*² for the garbled view against p + f for the split)
            e, f, p = _krr_params(mech)
            w_star = float(arith.ball((g.pi_p - g.pi_q) * (p + f) / (p - f)).mid())
            if w_star**2 < float(arith.ball(p + f).mid()):
                return g
    return split_blanket_view(mech, n)


def split_blanket_view(mech: KRR, n: IntegerInput) -> ShiftPair:
    """The blanket view with the ``{x, x'}``-membership of the blanket draws revealed (k = 2: the blanket view)."""
    _check_krr(mech)
    n = arith.integer_in(n, "n", lo=1)
    with arith.precision(_pi_precision(_krr_params(mech)[0])):  # 1 − pi_p keeps f's digits
        e, f, p = _krr_params(mech)
        pi_p, pi_q, outer_q, null = e / (e + 1), 1 / (e + 1), 2 * f, (mech.k - 2) * f
    k = mech.k
    desc = (
        "blanket view of binary RR (Balle et al. Lemma 5.3; = stronger clones)"
        if k == 2
        else f"blanket view of {k}-RR with the {{x,x'}}-membership of blanket draws revealed (dominates Lemma 5.3's view)"
    )
    return ShiftPair(
        outer_n=n - 1,
        outer_q=outer_q,
        inner_q=None,
        pi_p=pi_p,
        pi_q=pi_q,
        null=null,
        kind="blanket-view" if k == 2 else "blanket-view-split",
        description=desc,
    )


def lower_pair(mech: KRR, n: IntegerInput, direction: str = "forward") -> ShiftPair:
    """A concrete pair of datasets (others hold ``z ≠ x``), post-processed to the count of ``x`` reports.

    A certified *lower* bound on the mechanism's δ; for binary RR the exact
    dataset ``c = 0`` (all others hold 0).  ``direction="forward"`` is
    ``(P, Q)`` = (target holds ``x``, target holds ``x'``); ``"backward"`` the
    swapped pair, written with the reflected count ``n − K`` (so that the loss
    is again non-decreasing in the count): ``Bin(n−1, 1−f)`` and shifts
    ``Bern(1−f)`` vs ``Bern(1−p)``.

    >>> from blanket.exact.mechanisms.finite import BinaryRR
    >>> lp = lower_pair(BinaryRR(exp_epsilon0=3), 4)
    >>> lp.outer_n, lp.inner_q, lp.pi_p, lp.pi_q
    (3, 1/4, 3/4, 1/4)
    """
    _check_krr(mech)
    n = arith.integer_in(n, "n", lo=1)
    if direction not in ("forward", "backward"):
        raise InvalidArgument("direction", direction, "must be 'forward' or 'backward'")
    with arith.precision(arith.cancellation_precision(krr_cancellation_bits(mech))):
        e, f, p = _krr_params(mech)
        one_f, one_p = 1 - f, 1 - p
    desc = (
        "dataset c = 0 (all other users hold 0)"
        if mech.k == 2
        else "all other users hold a third value; only the count of x reports is used"
    )
    if direction == "forward":
        return ShiftPair(
            outer_n=n - 1, outer_q=None, inner_q=f, pi_p=p, pi_q=f, null=fmpq(0), kind="dataset", description=desc
        )
    return ShiftPair(
        outer_n=n - 1,
        outer_q=None,
        inner_q=one_f,
        pi_p=one_f,
        pi_q=one_p,
        null=fmpq(0),
        kind="dataset",
        description=desc + " (backward direction)",
    )


def lumped_lower_pair(mech: KRR, n: IntegerInput) -> ShiftPair:
    """k ≥ 3: the third-value dataset family seen through the counts of ``x`` and ``x'`` (a tighter lower pair).

    Every other user holds a third value ``z``, the target holds ``x`` vs ``x'``; the adversary keeps
    ``N = h_x + h_{x'}`` and ``A = h_x`` (a function of the shuffled output).  Exactly (``docs/composition.md``
    §1): ``N ~ (p+f)·(Bin(n−1, 2f) + 1) + (k−2)f·Bin(n−1, 2f)`` under both datasets, and
    ``A | N = m  ~  Bin(m−1, ½) + Bern(π(m))`` with ``π_P(m) = w(m)·p/(p+f) + (1−w(m))/2``,
    ``π_Q(m) = w(m)·f/(p+f) + (1−w(m))/2``, ``w(m) = (p+f)b(m−1)/P(N = m)`` (``b`` the Bin(n−1, 2f) pmf;
    ``w`` increases with ``m``).  Post-processing by reflection ``A → m − A`` with probability ``θ_m``
    (``1 − 2θ_m = w*/w(m)``) makes the shift probabilities constant (``w*``), which is the
    :class:`ShiftPair` clone form; the values ``m < m_lo`` (where ``w(m) < w*``) are dropped, so the pair is a
    sub-probability: its δ is a lower bound on the mechanism's (lower side only).  ``m_lo`` is 6 standard
    deviations below the mode of ``N``.  The accountant composes its banded form
    (:func:`blanket.exact.accounting.banded.lumped_banded_pair`, never a smaller δ).  O(1).
    """
    return lumped_params(mech, n)[0]


def lumped_params(mech: KRR, n: IntegerInput) -> tuple:
    """``(pair, (q, a, b, u, m_lo, w*, mean, sd))``: :func:`lumped_lower_pair`'s pair and its statistic's
    parameters (``q = 2f`` the others' probability of ``{x, x'}``, ``a = p + f``, ``b = (k−2)f``, ``u = p/(p+f)``;
    ``mean``, ``sd`` floats of ``Bin(n−1, q)``, only to choose cuts).  O(1)."""
    _check_krr(mech)
    n = arith.integer_in(n, "n", lo=2)
    if mech.k < 3:
        raise InvalidArgument("mechanism", f"k = {mech.k}", "must have k >= 3 (for k = 2 use lower_pair)")
    with arith.precision(arith.cancellation_precision(krr_cancellation_bits(mech))):
        return _lumped_params(mech, n)


def _lumped_params(mech: KRR, n: int) -> tuple:
    e, f, p = _krr_params(mech)
    q = 2 * f
    qf = float(arith.ball(q).mid())
    sd = math.sqrt((n - 1) * qf * (1 - qf))
    m_lo = max(1, int(math.floor((n - 1) * qf - 6 * sd)))
    a, b = p + f, (mech.k - 2) * f
    # w(m_lo) = a / (a + b·ρ), ρ = b(m)/b(m−1) = (n−m)/m · q/(1−q); w* a rational at or below it
    rho = fmpq(n - m_lo, m_lo) * (q / (1 - q)) if not isinstance(q, arb) else arb(fmpq(n - m_lo, m_lo)) * q / (1 - q)
    w = a / (a + b * rho)
    w_star = w if not isinstance(w, arb) else lower_rational(w)
    if isinstance(w_star, fmpq) and w_star <= 0:
        raise Undecided("lumped_lower_pair: w* is not positive at this precision")
    half = fmpq(1, 2)
    pair = ShiftPair(
        outer_n=n - 1,
        outer_q=q,
        inner_q=None,
        pi_p=w_star * p / a + (1 - w_star) * half,
        pi_q=w_star * f / a + (1 - w_star) * half,
        null=fmpq(0),
        kind="dataset-lumped",
        description="all other users hold a third value; the counts of x and x' are used (reflection-garbled)",
        outer_mix=(a, b, m_lo, fmpq(0)),
    )
    return pair, (q, a, b, p / a, m_lo, w_star, (n - 1) * qf, sd)


def blanket_view_atoms(mech: KRR, n: IntegerInput) -> list:
    """The Lemma 5.3 blanket view of k-RR as an explicit pair: atoms ``((m, a, b), P, Q)``.

    ``m ~ Bin(n−1, γ)`` others draw from the blanket (uniform on ``[k]``);
    ``a``/``b`` count ``x``/``x'`` among their draws and the target's report
    (``R(x)`` under ``P``, ``R(x')`` under ``Q``).  ``O(n³)`` atoms; exact for
    exact mechanisms.

    >>> from blanket.exact.mechanisms.finite import KRR
    >>> at = blanket_view_atoms(KRR(3, exp_epsilon0=2), 2)
    >>> hockey_stick(at, 1)
    3/16
    """
    _check_krr(mech)
    n = arith.integer_in(n, "n", lo=1)
    k = mech.k
    e, f, p = _krr_params(mech)
    g = k * f
    out = []
    for M in range(n):
        wM = comb(n - 1, M) * g**M * (1 - g) ** (n - 1 - M)

        def mult(a, b):
            r = M - a - b
            if a < 0 or b < 0 or r < 0 or (k == 2 and r > 0):
                return 0
            return comb(M, a) * comb(M - a, b) * fmpq(1, k) ** (a + b) * fmpq(k - 2, k) ** r

        for a in range(M + 2):
            for b in range(M + 2 - a):
                ma, mb, m0 = mult(a - 1, b), mult(a, b - 1), mult(a, b)
                P = wM * (p * ma + f * mb + (k - 2) * f * m0)
                Q = wM * (f * ma + p * mb + (k - 2) * f * m0)
                if (isinstance(P, fmpq) and P == 0) and (isinstance(Q, fmpq) and Q == 0):
                    continue
                out.append(((M, a, b), P, Q))
    return out


def hockey_stick(atoms: list, exp_epsilon: NumberOrBall) -> Enclosure:
    """``H_{e^ε}(P‖Q) = Σ (P − e^ε Q)_+`` over explicit atoms (exact for exact inputs)."""
    ee = exp_epsilon if isinstance(exp_epsilon, arb) else arith.exact(exp_epsilon, "exp_epsilon")
    tot: Enclosure = fmpq(0)
    for _, P, Q in atoms:
        tot = tot + arith.positive_part(P - ee * Q)
    return tot


def product_atoms(a1: list, a2: list) -> list:
    """Atoms of the product pair ``(P1×P2, Q1×Q2)``."""
    return [((k1, k2), P1 * P2, Q1 * Q2) for k1, P1, Q1 in a1 for k2, P2, Q2 in a2]
