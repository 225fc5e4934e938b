"""The number types the signatures of :mod:`blanket.exact` speak of (type aliases only; nothing here runs).

* :data:`Enclosure` — a certified value: an exact rational (``fmpq``) or a ball (``arb``) that contains the true
  value;
* :data:`NumberInput` — a number as a caller gives it, read exactly by :func:`blanket.exact.numbers.arith.exact`
  (``int``, a decimal or fraction string such as ``"1e-6"`` or ``"1/3"``, ``Fraction``, ``fmpq``, ``fmpz``);
* :data:`NumberOrBall` — the same, or a ball (routines that evaluate at the current precision accept one);
* :data:`IntegerInput` — an integer as a caller gives it (``int``, ``fmpz``, an integral ``fmpq`` or a string),
  read by :func:`blanket.exact.numbers.arith.integer_in`.
"""

from __future__ import annotations

from fractions import Fraction

from flint import arb, fmpq, fmpz

Enclosure = fmpq | arb
NumberInput = int | str | Fraction | fmpq | fmpz
NumberOrBall = int | str | Fraction | fmpq | fmpz | arb
IntegerInput = int | str | fmpz | fmpq

__all__ = ["Enclosure", "IntegerInput", "NumberInput", "NumberOrBall"]
