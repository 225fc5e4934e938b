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

from blanket.exact.mechanisms.continuous import Continuous, Gaussian, Laplace, normal_cdf
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.shuffled import continuous as C
from flint import arb, fmpq

__all__ = ["at_zero", "dataset_delta_lower", "dataset_epsilon_lower"]

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
