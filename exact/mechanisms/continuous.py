"""The continuous local randomizers of Balle et al.: Laplace and Gaussian noise on the input range [0, 1].

``Laplace(epsilon0)`` (or ``Laplace(scale=b)``, ``ε0 = 1/b``): ``R(x) = x + Lap(1/ε0)``, ε0-LDP on [0, 1];
``Gaussian(sigma)``: ``R(x) = x + N(0, σ²)``, not ε0-LDP for any finite ε0.

Each record gives its exact parameters, its TV similarity ``γ`` (Lemma 5.1 (2), (3)), the blanket
``ω = inf_x μ_x / γ`` through its distribution function, the output distribution functions ``F_x`` and the
density ratio ``μ_x(y)/ω(y)``, all in ``arb`` ball arithmetic (docs/reference/blanket.md §4, "The continuous
randomizers", status: derived).  These are the inputs of the certified blanket view of
:mod:`blanket.exact.shuffled.continuous`.  Each function costs O(1) ball operations.

>>> m = Laplace(1)
>>> m.gamma().overlaps((arb(-1) / 2).exp()), m.epsilon0
(True, 1)
>>> Gaussian(1).gamma().overlaps(2 * arb(1 / 2 / arb(2).sqrt()).erfc() / 2)
True
"""

from __future__ import annotations

from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.numbers.types import NumberInput
from flint import arb, fmpq

__all__ = ["Laplace", "Gaussian", "Continuous", "normal_cdf"]

HALF = fmpq(1, 2)


def normal_cdf(z: arb) -> arb:
    """``Φ(z) = erfc(−z/√2)/2`` as a ball (arb's erfc is rigorous, also far in the tails).  O(1)."""
    return (-z / arb(2).sqrt()).erfc() / 2


class Continuous:
    """Common part of the continuous randomizers on [0, 1] (inputs ``x`` exact rationals in [0, 1])."""

    kind = "?"

    def gamma(self) -> arb:  # pragma: no cover - abstract
        raise NotImplementedError

    def cdf(self, x: fmpq, y: arb) -> arb:  # pragma: no cover - abstract
        """``P(R(x) ≤ y)``."""
        raise NotImplementedError

    def floor_cdf(self, y: arb) -> arb:  # pragma: no cover - abstract
        """``∫_{−∞}^y inf_x μ_x = γ·Ω(y)`` (the blanket's distribution function times γ)."""
        raise NotImplementedError

    def ratio(self, x: fmpq, y: arb) -> arb:  # pragma: no cover - abstract
        """``μ_x(y)/ω(y)/γ = μ_x(y)/inf_z μ_z(y)`` — so ``L = γ(ratio_x − e^ε ratio_x')``."""
        raise NotImplementedError

    def exp_epsilon0(self) -> arb | None:  # pragma: no cover - abstract
        raise NotImplementedError

    def describe(self) -> dict:  # pragma: no cover - abstract
        """The record as data (``type`` and its parameters as exact strings)."""
        raise NotImplementedError

    @staticmethod
    def check_input(x: object, name: str) -> fmpq:
        """An input value: exact, in [0, 1]."""
        return arith.exact_in(x, name, lo=0, hi=1)


class Laplace(Continuous):
    """``R(x) = x + Lap(b)``, ``b = 1/ε0``, on inputs ``x ∈ [0, 1]``: ε0-LDP, ``γ = e^{−ε0/2}``, ``ω = Lap(1/2, b)``.

    Exactly one of ``epsilon0`` (exact, > 0) or ``scale`` (exact, > 0) gives the level.
    """

    kind = "laplace"

    def __init__(self, epsilon0: NumberInput | None = None, *, scale: NumberInput | None = None):
        if (epsilon0 is None) == (scale is None):
            raise InvalidArgument(
                "epsilon0", epsilon0, "must be given (or scale = 1/epsilon0 instead), not both or neither"
            )
        if epsilon0 is not None:
            e0 = arith.exact_in(epsilon0, "epsilon0", lo=0)
            if e0 == 0:
                raise InvalidArgument(
                    "epsilon0",
                    epsilon0,
                    "must be > 0 (the Laplace mechanism with ε0 = 0 is constant noise of infinite scale)",
                )
        else:
            b = arith.exact_in(scale, "scale", lo=0)
            if b == 0:
                raise InvalidArgument("scale", scale, "must be > 0")
            e0 = 1 / b
        self.epsilon0: fmpq = e0

    def __repr__(self) -> str:
        return f"Laplace(epsilon0={self.epsilon0})"

    def describe(self) -> dict:
        """The record as data."""
        return {"type": "laplace", "epsilon0": str(self.epsilon0)}

    def exp_epsilon0(self) -> arb:
        """``e^{ε0}`` (a ball)."""
        return arith.exp_ball(self.epsilon0)

    def gamma(self) -> arb:
        """``e^{−ε0/2}`` (Lemma 5.1 (2))."""
        return arith.exp_ball(-self.epsilon0 / 2)

    def cdf(self, x: fmpq, y: arb) -> arb:
        """``P(x + Lap(1/ε0) ≤ y)``; ``y`` a ball on one side of ``x`` (the caller splits at ``x``)."""
        e0 = arb(self.epsilon0)
        t = y - arb(x)
        if t <= 0:
            return (e0 * t).exp() / 2
        if t >= 0:
            return 1 - (-e0 * t).exp() / 2
        raise InvalidArgument("y", y, f"must lie on one side of x = {x} (split the cell at x)")

    def floor_cdf(self, y: arb) -> arb:
        """``γ·Ω(y)`` with ``Ω`` the ``Lap(1/2, 1/ε0)`` distribution function."""
        e0 = arb(self.epsilon0)
        t = y - arb(HALF)
        g = self.gamma()
        if t <= 0:
            return g * (e0 * t).exp() / 2
        if t >= 0:
            return g * (1 - (-e0 * t).exp() / 2)
        raise InvalidArgument("y", y, "must lie on one side of 1/2 (split the cell at 1/2)")

    def ratio(self, x: fmpq, y: arb) -> arb:
        """``exp(−ε0(|y − x| − max(|y|, |y − 1|)))``."""
        e0 = arb(self.epsilon0)
        far = abs(y - arb(HALF)) + arb(HALF)
        return (-e0 * (abs(y - arb(x)) - far)).exp()


class Gaussian(Continuous):
    """``R(x) = x + N(0, σ²)`` on inputs ``x ∈ [0, 1]``: ``γ = 2Φ(−1/(2σ))``, not ε0-LDP (``exp_epsilon0()`` is None)."""

    kind = "gaussian"

    def __init__(self, sigma: NumberInput):
        s = arith.exact_in(sigma, "sigma", lo=0)
        if s == 0:
            raise InvalidArgument("sigma", sigma, "must be > 0 (the noise's standard deviation)")
        self.sigma: fmpq = s

    def __repr__(self) -> str:
        return f"Gaussian(sigma={self.sigma})"

    def describe(self) -> dict:
        """The record as data."""
        return {"type": "gaussian", "sigma": str(self.sigma)}

    def exp_epsilon0(self) -> None:
        """``None``: the Gaussian mechanism is not ε0-LDP for any finite ε0."""
        return None

    def gamma(self) -> arb:
        """``2Φ(−1/(2σ))`` (Lemma 5.1 (3))."""
        return 2 * normal_cdf(-1 / (2 * arb(self.sigma)))

    def cdf(self, x: fmpq, y: arb) -> arb:
        """``Φ((y − x)/σ)``."""
        return normal_cdf((y - arb(x)) / arb(self.sigma))

    def floor_cdf(self, y: arb) -> arb:
        """``γ·Ω(y)``: ``Φ((y − 1)/σ)`` below 1/2, ``Φ(−1/(2σ)) + Φ(y/σ) − Φ(1/(2σ))`` above."""
        s = arb(self.sigma)
        t = y - arb(HALF)
        if t <= 0:
            return normal_cdf((y - 1) / s)
        if t >= 0:
            return normal_cdf(-1 / (2 * s)) + normal_cdf(y / s) - normal_cdf(1 / (2 * s))
        raise InvalidArgument("y", y, "must lie on one side of 1/2 (split the cell at 1/2)")

    def ratio(self, x: fmpq, y: arb) -> arb:
        """``exp((x − c)(2y − x − c)/(2σ²))`` with ``c = 1`` below 1/2 and ``c = 0`` above (the farthest input)."""
        s2 = arb(self.sigma * self.sigma)
        t = y - arb(HALF)
        if t <= 0:
            c = 1
        elif t >= 0:
            c = 0
        else:
            raise InvalidArgument("y", y, "must lie on one side of 1/2 (split the cell at 1/2)")
        return (arb(x - c) * (2 * y - arb(x) - c) / (2 * s2)).exp()
