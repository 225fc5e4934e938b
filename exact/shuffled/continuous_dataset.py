"""The shuffled Laplace and Gaussian mechanisms' own δ on one pair of datasets: a certified lower end (issue 27).

On the neighbouring datasets ``D0 = 0^n`` and ``D1 = (1, 0^{n−1})`` the histogram of shuffled outputs has the
likelihood ratio ``P_{D1}/P_{D0} = (1/n)Σ_i r(Y_i)`` with ``r = μ_1/μ_0`` and ``Y_i ~ μ_0`` i.i.d. under ``D0``
(the changed user is any one of the n, each with probability 1/n).  So

    δ(D1 ‖ D0)(ε) = E_{D0}[(LR − e^ε)_+] = (1/n)·E[(Σ_i (r(Y_i) − e^ε))_+],
    δ(D0 ‖ D1)(ε) = E_{D0}[(1 − e^ε·LR)_+] = (1/n)·E[(Σ_i (1 − e^ε r(Y_i)))_+],

which is the blanket view's formula (:mod:`blanket.exact.shuffled.continuous`) with the blanket ``ω = μ_0``,
``γ = 1`` and the pair ``(x, x') = (1, 0)`` (``L = r − e^ε``), resp. ``(0, 1)`` (``L = 1 − e^ε r``).  Its *lower* side (Jensen on cells, lattice
chunks, docs/reference/blanket.md §4) is therefore a certified lower bound on the mechanism's δ on this pair of
datasets, hence on its worst-case δ: the lower end of the mechanism's bracket, beside the thresholded outputs
(which are a post-processing, so never above it).  Status: derived (docs/reference/blanket.md §4, "The
mechanism's lower end").  Only the lower side is used (the Gaussian's upper-side tail replacement assumes the
blanket's orientation).

Cost: one lower-side lattice sum (as :func:`~blanket.exact.shuffled.continuous.blanket_view`), plus about eight
float FFT views to place it.

>>> from blanket.exact.mechanisms.continuous import Laplace
>>> d = dataset_delta_lower(Laplace(1), 100, epsilon=fmpq(1, 4), h=fmpq(1, 32))
>>> 0 < d < fmpq(1, 100)
True
"""

from __future__ import annotations

from typing import Any

from blanket.exact.mechanisms.continuous import Continuous, Gaussian, Laplace, normal_cdf
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.shuffled import continuous as C
from flint import arb, fmpq

__all__ = [
    "roc_arguments",
    "at_zero",
    "dataset_delta_lower",
    "dataset_epsilon_lower",
    "dataset_roc_points",
    "roc_points_from_lines",
    "suffix_lines",
    "DEFAULT_LINES",
]

ONE, ZERO = fmpq(1), fmpq(0)


class _LaplaceAtZero(Laplace):
    """The Laplace record re-based on ``ω = μ_0``, ``γ = 1``: ``ratio(x, y) = μ_x(y)/μ_0(y)``."""

    def __repr__(self) -> str:
        return f"LaplaceAtZero(epsilon0={self.epsilon0})"

    def gamma(self) -> arb:
        """``1``: the whole of ``μ_0`` is the 'blanket'."""
        return arb(1)

    def floor_cdf(self, y: arb) -> arb:
        """``F_0(y)``."""
        return self.cdf(ZERO, y)

    def ratio(self, x: fmpq, y: arb) -> arb:
        """``exp(−ε0(|y − x| − |y|))``."""
        e0 = arb(self.epsilon0)
        return (-e0 * (abs(y - arb(x)) - abs(y))).exp()


class _GaussianAtZero(Gaussian):
    """The Gaussian record re-based on ``ω = μ_0``, ``γ = 1``: ``ratio(x, y) = exp(x(2y − x)/(2σ²))``."""

    def __repr__(self) -> str:
        return f"GaussianAtZero(sigma={self.sigma})"

    def gamma(self) -> arb:
        """``1``."""
        return arb(1)

    def floor_cdf(self, y: arb) -> arb:
        """``Φ(y/σ)``."""
        return normal_cdf(y / arb(self.sigma))

    def ratio(self, x: fmpq, y: arb) -> arb:
        """``μ_x(y)/μ_0(y)``."""
        return (arb(x) * (2 * y - arb(x)) / (2 * arb(self.sigma * self.sigma))).exp()


def at_zero(mech: Continuous) -> Continuous:
    """The record re-based on the blanket ``ω = μ_0`` (``γ = 1``), whose view at the pair (1, 0) is the exact δ on
    ``(1, 0^{n−1})`` vs ``0^n``.  O(1)."""
    if isinstance(mech, Laplace):
        return _LaplaceAtZero(mech.epsilon0)
    if isinstance(mech, Gaussian):
        return _GaussianAtZero(mech.sigma)
    raise InvalidArgument("mech", mech, "must be a Laplace or Gaussian record (exact.mechanisms.continuous)")


def dataset_delta_lower(
    mech: Continuous,
    n: int,
    *,
    epsilon: object,
    h: object = C.DEFAULT_H,
    bits: int = C.BITS,
    drop_bits: int = C.DROP,
    direction: str = "1|0",
) -> fmpq:
    """A certified lower bound on the mechanism's δ(ε) on ``(1, 0^{n−1})`` vs ``0^n`` (``direction = "1|0"``:
    δ(D1 ‖ D0); ``"0|1"``: δ(D0 ‖ D1); module docstring), hence on its worst-case δ.  Cost: one lower-side
    lattice sum of n copies (see :func:`blanket_view`)."""
    if direction not in ("1|0", "0|1"):
        raise InvalidArgument("direction", direction, "must be '1|0' or '0|1'")
    x, x2 = (ONE, ZERO) if direction == "1|0" else (ZERO, ONE)
    n = arith.integer_in(n, "n", lo=1)
    eq = arith.exact_in(epsilon, "epsilon", lo=0)
    hq = arith.exact_in(h, "h", lo=0)
    if hq == 0:
        raise InvalidArgument("h", h, "must be > 0 (the lattice step)")
    m = at_zero(mech)
    ee = arith.exp_ball(eq)
    C.check_cost(m, ee, hq)
    with arith.precision(192):
        hq = C.aligned_step(m, x, x2, ee, hq)
        _, lo_law, _, resid, _ = C.leaf_laws(m, x, x2, ee, hq, bits)
        lo = C._power(lo_law, n, "lower", drop_bits)
        return C._lower_value(lo, resid, n, hq, arb(1))


def dataset_epsilon_lower(
    mech: Continuous, n: int, delta: object, *, h: object = C.DEFAULT_H, max_evaluations: int = 4
) -> fmpq:
    """A certified lower bound on the shuffled mechanism's ε at ``δ``: the larger over both directions of an ε at
    which :func:`dataset_delta_lower` exceeds ``δ`` (``0`` if none was certified within ``max_evaluations`` per
    direction).  A float FFT estimate of the lower law's root places it (just below: ``1 − 10^-5``, then farther
    if the certified value misses).  Cost: about eight float views and one or two lower-side lattice sums per
    direction."""
    n = arith.integer_in(n, "n", lo=2)
    dq = arith.exact_in(delta, "delta", lo=0)
    if dq == 0 or dq >= 1:
        raise InvalidArgument("delta", delta, "must be in (0, 1)")
    hq = arith.exact_in(h, "h", lo=0)
    m = at_zero(mech)
    guess = C._clt_guess(mech, n, float(dq))
    found = []
    for direction, (x, x2) in (("1|0", (ONE, ZERO)), ("0|1", (ZERO, ONE))):
        try:
            roots = C._float_roots(m, n, float(dq), hq, x, x2, guess)
        except (ValueError, OverflowError, ZeroDivisionError):  # pragma: no cover - a float guess only
            roots = None
        if roots is not None:
            found.append((roots[0], direction))
    best = fmpq(0)
    for root, direction in sorted(found, reverse=True):  # the larger float root first; certify one direction
        bits, drop = C.view_bits(m, n, float(dq), 2 * root, hq)
        s = 1e-5
        for _ in range(max_evaluations):
            e = C._rat(root * (1 - s))
            if e <= best:
                break
            if dataset_delta_lower(mech, n, epsilon=e, h=hq, bits=bits, drop_bits=drop, direction=direction) > dq:
                best = e
                break
            s *= 8
        if best > 0:
            break
    return best


#: the number of tests (supporting lines of the curve) :func:`dataset_roc_points` reads off each of its two lattice laws
DEFAULT_LINES = 512


def _continuous_side(mech: Continuous, n: int, x: fmpq, x2: fmpq, hq: fmpq, bits: int, drop: int) -> tuple:
    """``(lo, resid, h)``: the lower-side lattice law of ``n`` copies of ``L = r_x − r_{x2}`` (the view at
    ``e^ε = 1``, blanket ``μ_0``), its residuals ``(mean, second moment, max)`` and the (aligned) step.  One lower-side
    lattice sum of ``n`` copies."""
    m = at_zero(mech)
    ee = arb(1)
    C.check_cost(m, ee, hq)
    with arith.precision(192):
        hq = C.aligned_step(m, x, x2, ee, hq)
        _, lo_law, _, resid, _ = C.leaf_laws(m, x, x2, ee, hq, bits)
        return C._power(lo_law, n, "lower", drop), resid, hq


def suffix_lines(lo: Any, resid: tuple, n: int, hq: fmpq, lines: int) -> list:
    """``[(M, S)]`` (at most ``2·lines + 1``) for a lower-side lattice law ``lo`` of a sum ``V`` of ``n`` i.i.d.
    per-user values (step ``hq``, residuals ``resid = (mean, second moment, max)`` as returned by the lattice engine):
    for ``lines`` cut indices ``k0``, ``M = Σ_{k≥k0} w_k`` and ``S = Σ_{k≥k0} w_k(z_k + c) − η_c`` with ``η_c`` the cost
    of the residuals' exceptional event (``η·(top·h + c)``; the caller adds ``η·max(0, −t)``).  For every ``t`` and
    every cut, ``E[(V − t)_+] ≥ S − t·M − η·max(0, −t)``.  Any record whose dataset pair has such a law uses it
    (Laplace/Gaussian: :func:`dataset_roc_points`; geometric:
    :func:`blanket.exact.shuffled.geometric_dataset.dataset_roc_points`).  Exact rationals; ``O(length)`` integer
    additions."""
    with arith.precision(192):
        rmean, rsq, rmax = resid
        log_eta = arb(2).log() * C.ETA_BITS
        b3 = rmax * log_eta / 3
        u = b3 + (b3 * b3 + 2 * n * rsq * log_eta).sqrt()
        cb = n * rmean.lower() - u
        c = C._exact_point(cb.lower()) if cb.lower() > 0 else ZERO
    eta_c = (max(0, lo.top) * hq + c) / fmpq(2) ** C.ETA_BITS if c > 0 else ZERO
    coeffs = [int(v) for v in lo.poly.coeffs()]
    L = len(coeffs)
    scale = fmpq(2) ** lo.bits
    step = max(1, L // lines)
    starts = set(range(0, L, step)) | {L - 1}
    total = sum(coeffs)
    level = 1  # also a cut each time the suffix mass crosses j/lines of the total (the bulk of a wide law)
    out = []
    mass = first = 0  # suffix sums in units of 2^-bits: the mass, and the sum of (offset + k)·mass
    for k in range(L - 1, -1, -1):
        mass += coeffs[k]
        first += coeffs[k] * (lo.offset + k)
        crossed = mass * lines >= level * total
        if crossed:
            level = mass * lines // total + 1
        if (k in starts or crossed) and mass > 0:
            out.append((fmpq(mass) / scale, (first * hq + c * mass) / scale - eta_c))
    return out


def roc_points_from_lines(w_lines: list, v_lines: list, n: int) -> list:
    """Inner ROC points ``(x̄, y̲)`` of a dataset pair ``(P, Q)`` from the :func:`suffix_lines` of its two sums under
    ``Q``'s base law: ``W`` (``n·H_β(P‖Q) = E[(W − n(β − 1))_+]``) and ``V`` (``n·H_γ(Q‖P) = γ·E[(V − n(1 −
    1/γ))_+]``); see :func:`dataset_roc_points` for the lines.  O(lines) exact operations."""
    eta = fmpq(1) / fmpq(2) ** C.ETA_BITS
    out = []
    for M, S in w_lines:  # W = R − n: β ≥ 1 mostly
        y = M + (S - eta * n) / n
        if y > 0 and M <= 1:  # a line dropped is a weaker (still valid) curve; y clipped at 1 likewise
            out.append((M, min(y, ONE)))
    for M, S in v_lines:  # V = n − R: β < 1 mostly
        y2, x2 = M - eta, M - S / n
        if 0 <= y2 <= 1 and x2 < 1:
            out.append((1 - y2, min(1 - x2, ONE)))
    return out


def roc_arguments(n: object, lines: object, h: object) -> tuple[int, int, fmpq]:
    """``(n, lines, h)`` of a dataset ROC-point routine checked (``n ≥ 1``, ``1 ≤ lines ≤ 2^16``, the lattice step
    ``h > 0`` read exactly), or InvalidArgument naming the argument.  O(1)."""
    n = arith.integer_in(n, "n", lo=1)
    lines = arith.integer_in(lines, "lines", lo=1, hi=1 << 16)
    hq = arith.exact_in(h, "h", lo=0)
    if hq == 0:
        raise InvalidArgument("h", h, "must be > 0 (the lattice step)")
    return n, lines, hq


def dataset_roc_points(
    mech: Continuous,
    n: int,
    *,
    h: object = C.DEFAULT_H,
    lines: int = DEFAULT_LINES,
    bits: int = C.BITS,
    drop_bits: int = C.DROP,
) -> list:
    """Inner ROC points ``(x̄, y̲)`` of the pair ``(P, Q) = (D1, D0)``, ``D1 = (1, 0^{n−1})``, ``D0 = 0^n``: for
    every ``β ≥ 0``, ``H_β(P‖Q) ≥ y̲ − β·x̄`` (exact rationals, ``0 ≤ x̄ ≤ 1``, ``y̲ ≤ 1``), so the ROC pair of the
    points (:func:`blanket.exact.accounting.curves.pair_from_roc`) is Blackwell-dominated by ``(P, Q)``: its T-fold
    product's δ is a certified lower bound on the composed mechanism's (docs/reference/blanket.md §4, "The dataset
    pair's whole curve", status: derived).

    Under ``D0`` the likelihood ratio is ``R/n``, ``R = Σ_i r(Y_i)``, ``r = μ_1/μ_0``, so
    ``n·H_β(P‖Q) = E[(W − n(β − 1))_+]`` with ``W = R − n`` and ``n·H_γ(Q‖P) = γ·E[(V − n(1 − 1/γ))_+]`` with
    ``V = n − R``: two increasing convex functions of two sums.  The lower side of the lattice engine
    (:func:`dataset_delta_lower`) bounds ``E[φ(sum)]`` from below for *every* increasing convex ``φ`` at once (cell
    means: Jensen; chunks: a conditional expectation, then the residuals ``Σr_i ≥ c`` except with probability ``η``,
    which costs at most ``η·φ(largest value)``), so one law of ``W`` (the view ``(1, 0)`` at ``e^ε = 1``) and one of
    ``V`` (the view ``(0, 1)``) give the whole curve.  For a cut ``A = {k ≥ k0}`` of a law with weights ``w_k`` at
    ``z_k``, ``(v)_+ ≥ v·1_A`` gives a line: from ``W``, ``x̄ = M``, ``y̲ = M + S/n`` (with ``t = n(β − 1) ≥ −n``:
    ``η·n`` more is taken off ``S``); from ``V``, ``H_γ(Q‖P) ≥ M − η − γ(M − S/n)``, which is the line
    ``H_β(P‖Q) ≥ 1 − x' − β(1 − y')`` of the ROC point ``(1 − y', 1 − x')``.  ``lines`` cuts evenly spaced over
    each law's window and ``lines`` more at its quantiles ``j/lines``.

    Cost: two lower-side lattice sums of ``n`` copies (each as :func:`dataset_delta_lower`) and ``O(length)`` exact
    integer additions for the suffix sums; ``O(lines)`` points."""
    n, lines, hq = roc_arguments(n, lines, h)
    sides = []
    for x, x2 in ((ONE, ZERO), (ZERO, ONE)):  # W = R − n (the view (1, 0)), V = n − R (the view (0, 1))
        lo, resid, hx = _continuous_side(mech, n, x, x2, hq, bits, drop_bits)
        sides.append(suffix_lines(lo, resid, n, hx, lines))
    return roc_points_from_lines(sides[0], sides[1], n)
