"""Real summation in the shuffle model (Balle et al. 2019, Section 4; ``docs/reference/blanket.md`` §§2–3).

Upper bound — the protocol :class:`Protocol1D` (Algorithms 2 and 3):

* **Algorithm 2** ``R^{1D}_{γ,k,n}(x)``, ``x ∈ [0, 1]``: randomized rounding
  ``x̄ = ⌊xk⌋ + Ber(xk − ⌊xk⌋) ∈ {0..k}`` (source-confirmed, slides), then
  randomized response with blanket probability γ over the ``k+1`` levels
  (Algorithm 1 with domain size ``k+1``): keep ``x̄`` w.p. ``1−γ``, else a
  uniform level.
* **Algorithm 3** ``A^{1D}``: ``ẑ = (1/k)Σ y_i``, ``z = (ẑ − γn/2)/(1 − γ)``
  (the de-bias is *derived* ✔: the slides only say "de-bias").

Everything here is exact (``fmpq``) for rational inputs and rational γ:
the per-user law of the report, the per-user mean and MSE by enumeration
(:meth:`Protocol1D.user_moments`, O(k)), the worst-case input
(:meth:`Protocol1D.worst_input`, O(1)) and the worst-case MSE
``n · sup_x Var`` (users are independent, so the sup of the sum is the sum
of the sups).  :meth:`Protocol1D.mechanism` gives the (k+1)-ary RR whose
blanket probability is γ — ``e^{ε0} = 1 + (k+1)(1−γ)/γ`` (Algorithm 1's
LDP level, derived ✔ via Lemma 5.1) — exactly when γ is rational, and
:func:`certified_epsilon` the certified central ε of the shuffled protocol
through the exact blanket view (``exact.shuffled.krr.delta_blanket_view``) and the
one-sided calibration (``exact.numbers.calibrate.epsilon_for_delta``);
:func:`calibrated_protocol` the protocol with the smallest γ whose exact
blanket-view δ is certified ≤ the target (``exact.numbers.calibrate.epsilon0_for``).

The seeded sampler (:meth:`Protocol1D.simulate`) is for tests and demos
only; no certified number comes from it.

Lower bound — exact tools for Lemmas 4.1–4.5 on finite randomizers over the
grid ``M = {(2i−1)/(2m)}`` (inputs labelled by their values):
:func:`posterior_mean_randomizer` (Lemma 4.1), :func:`sum_protocol_mse` and
:func:`protocol_mse_bruteforce` (Lemma 4.2), :func:`midpoint_sum_min`
(Lemma 4.3), :func:`interval_probabilities` and :func:`lemma_4_4_terms`
(Lemma 4.4), :func:`histogram_law` / :func:`pair_delta` /
:func:`worst_delta_bruteforce` (the exact shuffled δ used by Lemmas 4.1(3)
and 4.5 on small cases).

>>> from flint import fmpq
>>> P = Protocol1D(4, "1/10")
>>> mean, mse = P.user_moments("1/3")
>>> mean == fmpq(1, 3)
True
>>> P.worst_input()   # p* = (1 - 4/10)/(2 * 9/10) = 1/3 in the first cell
1/12
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING

from blanket.exact.mechanisms.finite import KRR, FiniteRandomizer
from blanket.exact.numbers import arith
from blanket.exact.numbers.calibrate import Bracket, Search, epsilon0_for, epsilon_for_delta
from blanket.exact.numbers.errors import InvalidArgument, Undecided
from blanket.exact.numbers.types import IntegerInput, NumberOrBall
from blanket.exact.shuffled.krr import delta_blanket_view
from flint import arb, fmpq

if TYPE_CHECKING:
    from typing_extensions import Unpack


def _frac(q: fmpq) -> Fraction:
    return Fraction(int(q.p), int(q.q))


def rational_upper(x: NumberOrBall, digits: int = 30) -> fmpq:
    """An exact rational ``≥`` every point of the ball ``x`` (its upper end rounded up to ``digits`` digits).

    Exact inputs are returned unchanged.  Used to turn a ball-valued γ (e.g.
    Theorem 3.1's, which contains a logarithm) into a rational γ' ≥ γ so that
    the mechanism stays exact; Theorem 3.1's proof only needs γ at least the
    formula's value, so rounding γ *up* keeps its guarantee.

    >>> from flint import arb
    >>> rational_upper(fmpq(1, 3))
    1/3
    >>> with arith.precision(128):
    ...     q = rational_upper(arb(2).sqrt(), 10)
    >>> q, q * q >= 2
    (1414213563/1000000000, True)
    """
    if arith.is_exact_number(x):
        return arith.exact(x)
    return arith.exact(arith.decimal_string(x, digits, up=True))


# ============================================================ the protocol
class Protocol1D:
    """The single-message shuffle protocol ``P^{1D}_{γ,k,n}`` for real summation (Algorithms 2–3).

    ``k >= 1`` integer (``k+1`` levels ``0, 1/k, …, 1``); ``gamma`` exact in
    ``[0, 1)`` (the blanket probability; ``γ = 1`` makes the de-bias divide
    by zero).  ``n`` is not a parameter of the randomizer itself; it enters
    through the analyzer and the MSE.

    >>> Protocol1D(0, "1/2")
    Traceback (most recent call last):
    ...
    blanket.exact.numbers.errors.InvalidArgument: k must be >= 1, got 0
    >>> Protocol1D(3, 1)
    Traceback (most recent call last):
    ...
    blanket.exact.numbers.errors.InvalidArgument: gamma must be < 1, got 1
    """

    def __init__(self, k, gamma):
        self.k = arith.integer_in(k, "k", lo=1)
        self.gamma = arith.exact_in(gamma, "gamma", lo=0, hi=1, hi_open=True)

    def __repr__(self):
        return f"Protocol1D(k={self.k}, gamma={self.gamma})"

    # ------------------------------------------------------------ laws
    @property
    def levels(self) -> int:
        """Number of report values, ``k + 1``."""
        return self.k + 1

    def _x(self, x) -> fmpq:
        return arith.exact_in(x, "x", lo=0, hi=1)

    def rounding_law(self, x: NumberOrBall) -> list:
        """``[(level, prob)]`` of ``x̄ = ⌊xk⌋ + Ber(xk − ⌊xk⌋)`` (one or two atoms), exact. O(1)."""
        x = self._x(x)
        xk = x * self.k
        j = int(xk.floor())
        p = xk - j
        if p == 0:
            return [(j, fmpq(1))]
        return [(j, 1 - p), (j + 1, p)]

    def report_law(self, x: NumberOrBall) -> list:
        """``[Pr[y = l] for l in 0..k]``: ``(1−γ)·rounding + γ·uniform{0..k}``, exact. O(k)."""
        g = self.gamma
        law = [g / self.levels] * self.levels
        for level, pr in self.rounding_law(x):
            law[level] = law[level] + (1 - g) * pr
        return law

    def estimate(self, level: int) -> fmpq:
        """A single report's de-biased contribution ``(y/k − γ/2)/(1 − γ)`` (Algorithm 3 is their sum)."""
        return (fmpq(level, self.k) - self.gamma / 2) / (1 - self.gamma)

    def analyzer(self, reports: Sequence[int]) -> fmpq:
        """Algorithm 3: ``z = (ẑ − γn/2)/(1−γ)`` with ``ẑ = (1/k)Σ y_i``; ``reports`` are levels in 0..k."""
        n = len(reports)
        zhat = fmpq(sum(int(r) for r in reports), self.k)
        return (zhat - self.gamma * n / 2) / (1 - self.gamma)

    # ------------------------------------------------------------ exact moments
    def user_moments(self, x: NumberOrBall) -> tuple:
        """``(E[e(y)], E[(e(y) − x)^2])`` for one user with input ``x``, by enumeration of the report law.

        ``e(y)`` is the user's de-biased contribution; the mean equals ``x``
        (unbiasedness) and the second value is the per-user MSE = variance.
        Exact, O(k).  This is the ground truth the sympy variance formula of
        ``proofs.summation`` is checked against.
        """
        x = self._x(x)
        mean, sq = fmpq(0), fmpq(0)
        for level, pr in enumerate(self.report_law(x)):
            e = self.estimate(level)
            mean += pr * e
            sq += pr * (e - x) ** 2
        return mean, sq

    def user_central_moment4(self, x: NumberOrBall) -> fmpq:
        """``E[(e(y) − x)^4]`` for one user, exact by enumeration, O(k) (for simulation tolerances)."""
        x = self._x(x)
        out = fmpq(0)
        for level, pr in enumerate(self.report_law(x)):
            out += pr * (self.estimate(level) - x) ** 4
        return out

    def mse(self, xs: Sequence) -> fmpq:
        """Exact ``E[(z − Σ x_i)^2]`` at the input vector ``xs`` (unbiased, independent users: sum of per-user MSEs). O(nk)."""
        return sum((self.user_moments(x)[1] for x in xs), fmpq(0))

    def worst_input(self) -> fmpq:
        """The input ``x*`` maximising the per-user MSE (the smallest maximiser; ``1 − x*`` is the other).

        Derivation (exact): with ``x = (j+p)/k``, ``p ∈ [0,1]``, the per-user
        MSE is ``[(1−γ)p(1−p)/k² + γ(1−γ)(x−½)² + γ(k+2)/(12k)]/(1−γ)²``.  It is
        symmetric under ``x ↦ 1−x``, and on the left half moving ``x`` to the
        first cell with the same ``p`` can only increase ``(x−½)²``; so the sup
        is attained in ``[0, 1/k]``, where the MSE is a concave quadratic in
        ``p`` (leading coefficient ``−(1−γ)²/k²``) with stationary point
        ``p* = (1 − γk)/(2(1−γ))``, clamped to ``[0, 1]``.  O(1).

        >>> Protocol1D(1, "1/2").worst_input(), Protocol1D(10, "1/5").worst_input()
        (1/2, 0)
        """
        g, k = self.gamma, self.k
        p = (1 - g * k) / (2 * (1 - g))
        p = max(fmpq(0), min(fmpq(1), p))
        return p / k

    def worst_user_mse(self) -> fmpq:
        """``sup_{x∈[0,1]}`` of the per-user MSE (exact), attained at :meth:`worst_input`. O(k)."""
        return self.user_moments(self.worst_input())[1]

    def worst_mse(self, n: IntegerInput) -> fmpq:
        """``MSE(P^{1D}) = sup_{x⃗} E[(z − Σx_i)²] = n · sup_x Var`` (exact). O(k)."""
        n = arith.integer_in(n, "n", lo=1)
        return n * self.worst_user_mse()

    # ------------------------------------------------------------ privacy
    def exp_epsilon0(self) -> fmpq:
        """``e^{ε0} = 1 + (k+1)(1−γ)/γ`` of the report randomizer (exact); γ must be > 0."""
        if self.gamma == 0:
            raise InvalidArgument(
                "gamma",
                str(self.gamma),
                "must be > 0 for a finite local epsilon0 (gamma = 0 sends the rounded value in the clear)",
            )
        return 1 + self.levels * (1 - self.gamma) / self.gamma

    def mechanism(self) -> KRR:
        """The report randomizer as a ``KRR(k+1, exp_epsilon0=…)`` over the levels, exact (γ rational).

        Its flip probability ``1/(e^{ε0}+k)`` equals ``γ/(k+1)``: the (k+1)-RR with
        blanket probability γ (Algorithm 1 with domain size ``k+1``).
        """
        return KRR(self.levels, exp_epsilon0=self.exp_epsilon0())

    # ------------------------------------------------------------ simulation (never certified)
    def sample_report(self, x: NumberOrBall, rng: random.Random) -> int:
        """One seeded draw of Algorithm 2 (tests and demos only; uses ``rng.random()`` floats)."""
        if not isinstance(rng, random.Random):
            raise InvalidArgument("rng", rng, "must be a random.Random with an explicit seed, e.g. random.Random(1)")
        law = self.rounding_law(x)
        if len(law) == 1:
            level = law[0][0]
        else:
            (j, _), (_, p) = law
            level = j + 1 if rng.random() < float(p) else j
        if rng.random() < float(self.gamma):
            return rng.randrange(self.levels)
        return level

    def simulate(self, xs: Sequence, rng: random.Random) -> Fraction:
        """One seeded run of the protocol: every user reports, the analyzer de-biases; returns ``z`` exactly as a Fraction."""
        reports = [self.sample_report(x, rng) for x in xs]
        return _frac(self.analyzer(reports))


def certified_epsilon(protocol: Protocol1D, n: IntegerInput, delta: NumberOrBall, **search: Unpack[Search]) -> Bracket:
    """Certified central ε of the shuffled report randomizer at ``delta``, through the exact blanket view.

    ``δ(ε)`` is ``exact.shuffled.krr.delta_blanket_view(mech, n, epsilon=ε)`` — the
    exact value of Lemma 5.3's right-hand side for the (k+1)-RR, an upper
    bound on the true δ — and ``exact.numbers.calibrate.epsilon_for_delta`` inverts it
    one-sidedly: the returned bracket's upper end is a certified ε (the
    protocol is (upper, delta)-DP).  ``search``: the keywords of the search
    (:class:`blanket.exact.numbers.calibrate.Search`); ``hi`` defaults to a rational ≥ ε0.
    Cost: that of the calibration (a few dozen blanket-view evaluations).

    Keywords (:class:`~blanket.exact.numbers.calibrate.Search`): ``hi``, ``lo``, ``rel_tol``, ``guess``, ``start_prec``, ``cap``.
    """

    n = arith.integer_in(n, "n", lo=2)
    mech = protocol.mechanism()
    if "hi" not in search:
        with arith.precision(arith.DEFAULT_PREC):
            search["hi"] = rational_upper(arb(protocol.exp_epsilon0()).log(), 10) + 1
    return epsilon_for_delta(lambda eps: delta_blanket_view(mech, n, epsilon=eps), delta, **search)


def calibrated_protocol(
    k: IntegerInput, n: IntegerInput, epsilon: NumberOrBall, delta: NumberOrBall, **search: Unpack[Search]
) -> Protocol1D:
    """The protocol with ``k`` and the smallest certified γ (rational) for central ``(epsilon, delta)`` by the exact blanket view.

    Search (``search``: its keywords, :class:`blanket.exact.numbers.calibrate.Search`; here ``hi`` defaults to 30
    and ``rel_tol`` to ``"1e-4"``): ``exact.numbers.calibrate.epsilon0_for`` finds the largest local ε0 of
    the (k+1)-RR whose blanket-view δ at ``epsilon`` is ≤ ``delta`` (its
    ``lower`` end is certified); γ = (k+1)/(e^{ε0}+k) at that ε0 is rounded
    *up* to a rational (a larger γ is a smaller ε0, i.e. a post-processing);
    then the exact mechanism of the returned protocol is re-checked:
    its blanket-view δ at ``epsilon`` is certified ≤ ``delta`` (else
    :class:`~exact.numbers.errors.Undecided`).  Cost: the calibration (a dozen or so
    blanket-view evaluations) plus one.

    Keywords (:class:`~blanket.exact.numbers.calibrate.Search`): ``hi``, ``lo``, ``rel_tol``, ``guess``, ``start_prec``, ``cap``.
    """

    k = arith.integer_in(k, "k", lo=1)
    n = arith.integer_in(n, "n", lo=2)
    target = arith.exact_in(delta, "delta", lo=0, hi=1, lo_open=True, hi_open=True)
    eps = arith.exact_in(epsilon, "epsilon", lo=0)
    K = k + 1
    search = {"hi": fmpq(30), "rel_tol": "1e-4", **search}  # the defaults of this search
    br = epsilon0_for(lambda e0: delta_blanket_view(KRR(K, epsilon0=e0), n, epsilon=eps), target, **search)
    with arith.precision(arith.DEFAULT_PREC):
        g = rational_upper(K / (arb(br.lower).exp() + K - 1), 30)
    P = Protocol1D(k, g)
    with arith.precision(arith.DEFAULT_PREC):
        d = delta_blanket_view(P.mechanism(), n, epsilon=eps)
        if arith.le(d, target) is not True:
            raise Undecided(f"blanket-view delta {d} of the calibrated protocol not certified <= {target}")
    return P


# ============================================================ lower bound tools
def midpoints(m: int) -> list:
    """The grid ``M = [(2i−1)/(2m) for i in 1..m]`` (exact). O(m)."""
    m = arith.integer_in(m, "m", lo=1)
    return [fmpq(2 * i - 1, 2 * m) for i in range(1, m + 1)]


def midpoint_sum(m: int, y_index: int) -> fmpq:
    """``Σ_{x∈M, x≠y} (|x−y| − 1/(2m))²`` for ``y = M[y_index]`` (exact, O(m))."""
    M = midpoints(m)
    y = M[y_index]
    h = fmpq(1, 2 * arith.integer_in(m, "m"))
    return sum(((abs(x - y) - h) ** 2 for i, x in enumerate(M) if i != y_index), fmpq(0))


def midpoint_sum_min(m: int) -> fmpq:
    """``min_{y∈M} Σ_{x≠y}(|x−y| − 1/(2m))²`` by brute force over all ``y`` (exact, O(m²)); Lemma 4.3's left side."""
    m = arith.integer_in(m, "m", lo=2)
    return min(midpoint_sum(m, i) for i in range(m))


def _check_prior(prior, m):
    if prior is None:
        return [fmpq(1, m)] * m
    pr = [arith.exact(p, "prior") for p in prior]
    if len(pr) != m or any(p < 0 for p in pr) or sum(pr, fmpq(0)) != 1:
        raise InvalidArgument(
            "prior", [str(p) for p in pr], f"must be {m} non-negative exact probabilities summing to 1"
        )
    return pr


def _check_values(values, name, lo=0, hi=1):
    return [arith.exact_in(v, name, lo=lo, hi=hi) for v in values]


def posterior_mean_randomizer(mech: FiniteRandomizer, inputs: Sequence, prior: Sequence | None = None) -> tuple:
    """Lemma 4.1's construction: ``R'(x) = g(R(x))`` with ``g(y) = E[X | R(X) = y]``, exact.

    ``inputs[i]`` is the value of input ``i`` (``X = inputs[i]`` w.p.
    ``prior[i]``, uniform by default).  Returns ``(mech2, values2)``: the
    randomizer whose outputs are the *distinct* posterior means (outputs of
    ``mech`` with equal ``g`` merged; outputs of marginal probability 0 are
    dropped — they never occur) and the list of those values in ``[min inputs, max inputs]``.
    ``mech2`` is a post-processing of ``mech`` (a deterministic map of each
    report), so the shuffled ``mech2`` is a post-processing of the shuffled
    ``mech`` and inherits its (ε, δ).  O(k_in · k_out).
    """
    xs = _check_values(inputs, "inputs", lo=None, hi=None)
    if len(xs) != mech.k_in:
        raise InvalidArgument("inputs", len(xs), f"must give one value per input of the randomizer ({mech.k_in})")
    pr = _check_prior(prior, mech.k_in)
    P = mech.matrix()
    groups: dict = {}
    for y in range(mech.k_out):
        marg = sum((pr[i] * P[i][y] for i in range(mech.k_in)), fmpq(0))
        if marg == 0:
            continue
        g = sum((pr[i] * P[i][y] * xs[i] for i in range(mech.k_in)), fmpq(0)) / marg
        groups.setdefault(g, []).append(y)
    values = sorted(groups)
    matrix = [[sum((P[i][y] for y in groups[v]), fmpq(0)) for v in values] for i in range(mech.k_in)]
    return FiniteRandomizer(matrix, name="posterior-mean"), values


def sum_protocol_mse(
    mech: FiniteRandomizer, out_values: Sequence, inputs: Sequence, n: int, prior: Sequence | None = None
) -> fmpq:
    """Exact ``MSE(P, X⃗) = E[(Σ_i v(R(X_i)) − Σ_i X_i)²]`` for i.i.d. ``X_i`` and the summation analyzer.

    With ``D = v(R(X)) − X``: ``n E[D²] + n(n−1) E[D]²`` (independence).
    Exact, O(k_in · k_out).
    """
    n = arith.integer_in(n, "n", lo=1)
    xs = _check_values(inputs, "inputs", lo=None, hi=None)
    vs = _check_values(out_values, "out_values", lo=None, hi=None)
    pr = _check_prior(prior, mech.k_in)
    P = mech.matrix()
    e1 = e2 = fmpq(0)
    for i in range(mech.k_in):
        for y in range(mech.k_out):
            w = pr[i] * P[i][y]
            d = vs[y] - xs[i]
            e1 += w * d
            e2 += w * d * d
    return n * e2 + n * (n - 1) * e1 * e1


def single_error(mech: FiniteRandomizer, out_values: Sequence, inputs: Sequence, prior: Sequence | None = None) -> fmpq:
    """``E[(R(X) − X)²]`` (exact) for a randomizer with numeric outputs ``out_values``. O(k_in · k_out)."""
    return sum_protocol_mse(mech, out_values, inputs, 1, prior)


def protocol_mse_bruteforce(
    mech: FiniteRandomizer, inputs: Sequence, n: int, analyzer: Callable, prior: Sequence | None = None
) -> fmpq:
    """Exact ``E[(A(multiset of reports) − Σ X_i)²]`` by enumerating all inputs and reports (tiny cases only).

    ``analyzer`` maps the sorted tuple of report indices to an exact number.
    Cost O((k_in · k_out)^n) — ground truth for Lemmas 4.1/4.2 with n ≤ 4.
    """
    n = arith.integer_in(n, "n", lo=1, hi=6)
    xs = _check_values(inputs, "inputs", lo=None, hi=None)
    pr = _check_prior(prior, mech.k_in)
    P = mech.matrix()
    total = fmpq(0)
    for xv in itertools.product(range(mech.k_in), repeat=n):
        px = fmpq(1)
        for i in xv:
            px *= pr[i]
        if px == 0:
            continue
        s = sum((xs[i] for i in xv), fmpq(0))
        for yv in itertools.product(range(mech.k_out), repeat=n):
            p = px
            for i, y in zip(xv, yv):
                p *= P[i][y]
            if p == 0:
                continue
            a = arith.exact(analyzer(tuple(sorted(yv))), "analyzer output")
            total += p * (a - s) ** 2
    return total


def interval_index(v: NumberOrBall, m: int) -> int:
    """Index ``i`` (0-based) of the interval ``I_{i+1} = [i/m, (i+1)/m)`` containing ``v ∈ [0,1]`` (the last is closed)."""
    v = arith.exact_in(v, "value", lo=0, hi=1)
    i = int((v * m).floor())
    return min(i, m - 1)


def interval_probabilities(mech: FiniteRandomizer, out_values: Sequence, m: int) -> list:
    """``p[x][y] = Pr[R(x) ∈ I_y]`` for a randomizer with outputs ``out_values ⊆ [0,1]`` (exact). O(k_in · k_out)."""
    m = arith.integer_in(m, "m", lo=2)
    if mech.k_in != m:
        raise InvalidArgument("mech", f"{mech.k_in} inputs", f"must have one input per grid point (m = {m})")
    vs = _check_values(out_values, "out_values")
    idx = [interval_index(v, m) for v in vs]
    P = mech.matrix()
    out = [[fmpq(0)] * m for _ in range(m)]
    for x in range(m):
        for y in range(mech.k_out):
            out[x][idx[y]] += P[x][y]
    return out


def lemma_4_4_terms(mech: FiniteRandomizer, out_values: Sequence, m: int) -> tuple:
    """Lemma 4.4's two lower bounds on ``E[(R(X)−X)²]``, ``X ~ Unif(M)`` (exact). O(m² + m·k_out).

    ``(1/(4m³)) Σ_x (1 − p_xx)`` and ``(1/m) Σ_y Σ_{x≠y} p_xy (|x−y| − 1/(2m))²``.
    """
    m = arith.integer_in(m, "m", lo=2)
    p = interval_probabilities(mech, out_values, m)
    M = midpoints(m)
    h = fmpq(1, 2 * m)
    t1 = sum((1 - p[x][x] for x in range(m)), fmpq(0)) / (4 * m**3)
    t2 = sum((p[x][y] * (abs(M[x] - M[y]) - h) ** 2 for x in range(m) for y in range(m) if x != y), fmpq(0)) / m
    return t1, t2


# ------------------------------------------------------------ exact shuffled laws (small cases)
def histogram_law(rows: Sequence[Sequence]) -> dict:
    """Exact law of the histogram of independent reports, user ``i`` drawn from ``rows[i]``.

    Dict ``{counts tuple: prob}``; convolution user by user over
    compositions, O(n · K · C(n+K−1, K−1)) for K outputs.
    """
    K = len(rows[0])
    law = {tuple([0] * K): fmpq(1)}
    for row in rows:
        new: dict = {}
        for h, p in law.items():
            for y, q in enumerate(row):
                if q == 0:
                    continue
                counts = list(h)
                counts[y] += 1
                h2 = tuple(counts)
                new[h2] = new.get(h2, fmpq(0)) + p * q
        law = new
    return law


def pair_delta(mech: FiniteRandomizer, d1: Sequence[int], d2: Sequence[int], *, exp_epsilon: NumberOrBall) -> fmpq:
    """Exact ``D_{e^ε}(S∘R^n(d1) ‖ S∘R^n(d2))`` for datasets of input indices (exact rational ``e^ε``)."""
    ee = arith.exact_in(exp_epsilon, "exp_epsilon", lo=1)
    P = mech.matrix()
    a = histogram_law([P[x] for x in d1])
    b = histogram_law([P[x] for x in d2])
    return sum((max(fmpq(0), p - ee * b.get(h, fmpq(0))) for h, p in a.items()), fmpq(0))


def worst_delta_bruteforce(mech: FiniteRandomizer, n: int, *, exp_epsilon: NumberOrBall) -> fmpq:
    """Exact ``sup`` over neighbouring datasets of the shuffled hockey-stick divergence (small n, k_in).

    Enumerates every multiset of the other ``n−1`` inputs and every ordered
    pair ``x ≠ x'`` for the differing user: O(C(n+k−2, k−1) · k² · law size).
    """
    n = arith.integer_in(n, "n", lo=1, hi=12)
    best = fmpq(0)
    for others in itertools.combinations_with_replacement(range(mech.k_in), n - 1):
        for x, x2 in itertools.permutations(range(mech.k_in), 2):
            d = pair_delta(mech, list(others) + [x], list(others) + [x2], exp_epsilon=exp_epsilon)
            best = max(best, d)
    return best


def cbrt_ceil(n: int) -> int:
    """``⌈n^{1/3}⌉`` for a positive integer, exactly (integer bisection, O(log n)).

    >>> cbrt_ceil(1000), cbrt_ceil(1001), cbrt_ceil(10**8)
    (10, 11, 465)
    """
    n = arith.integer_in(n, "n", lo=1)
    lo, hi = 0, 1
    while hi**3 < n:
        hi *= 2
    while hi - lo > 1:  # invariant: lo^3 < n <= hi^3
        mid = (lo + hi) // 2
        if mid**3 < n:
            lo = mid
        else:
            hi = mid
    return hi
