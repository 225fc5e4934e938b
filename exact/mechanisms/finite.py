"""Finite local randomizers as exact row-stochastic matrices, and their blanket decomposition.

A :class:`FiniteRandomizer` holds ``P[x][y] = Pr[R(x) = y]`` for inputs
``x in range(k_in)`` and outputs ``y in range(k_out)``.  Entries are exact
rationals (``fmpq``) when the mechanism is given exactly; a k-ary randomized
response parametrised by a decimal ``epsilon0`` has transcendental entries,
which are produced as ``arb`` balls at flint's *current* precision each time
they are asked for (so precision escalation re-computes them).

Every mechanism knows

* its LDP level: :meth:`~FiniteRandomizer.exp_epsilon0` (``e^{ε0}``, exact
  when the entries are exact; ``None`` for ε0 = ∞ when supports differ) and
  :meth:`~FiniteRandomizer.epsilon0` (a ball, or ``None`` for ∞);
* its blanket decomposition (Balle et al. §5.1, ``docs/reference/blanket.md`` §0):
  the total-variation similarity ``γ = Σ_y min_x P[x][y]`` and the blanket
  distribution ``ω(y) = min_x P[x][y] / γ``;
* the exact law of the privacy amplification variable
  ``L^ε_{x,x'} = (μ_x(W) − e^ε μ_{x'}(W)) / ω(W)``, ``W ~ ω``.

>>> from flint import fmpq
>>> rr = KRR(3, exp_epsilon0=2)
>>> rr.row(0)
[1/2, 1/4, 1/4]
>>> rr.gamma(), rr.exp_epsilon0()
(3/4, 2)
>>> sorted(amplification_law(rr, 0, 1, exp_epsilon=1))
[(-3/4, 1/3), (0, 1/3), (3/4, 1/3)]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from blanket.exact.numbers import arith, guards
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.numbers.types import At, Enclosure, IntegerInput, NumberInput, NumberOrBall
from flint import arb, fmpq

if TYPE_CHECKING:
    from typing_extensions import Unpack


class Randomizer(Protocol):
    """What every local randomizer record offers (a :class:`FiniteRandomizer` or a record of
    :mod:`blanket.exact.mechanisms.oracles`): ``e^{ε0}``, exact or a ball, ``None`` for ε0 = ∞."""

    def exp_epsilon0(self) -> fmpq | arb | None: ...


def eps0_pair(epsilon0: NumberInput | None, exp_epsilon0: NumberInput | None) -> tuple[fmpq | None, fmpq | None]:
    """The checked local level of a record given by exactly one of ``epsilon0`` (exact, ≥ 0) or ``exp_epsilon0``
    (exact, ≥ 1): ``(ε0, None)`` or ``(None, e^{ε0})``.  O(1).

    >>> eps0_pair("1/2", None), eps0_pair(None, 3)
    ((1/2, None), (None, 3))
    """
    if (epsilon0 is None) == (exp_epsilon0 is None):
        raise InvalidArgument("epsilon0", epsilon0, "must be given (or exp_epsilon0 instead), not both or neither")
    if epsilon0 is not None:
        return arith.exact_in(epsilon0, "epsilon0", lo=0), None
    return None, arith.exact_in(exp_epsilon0, "exp_epsilon0", lo=1)


def eps0_description(epsilon0: fmpq | None, key: str, value: object) -> dict:
    """A record's local level as it was given, for its ``describe()``: ``{"epsilon0": …}`` when ε0 was given
    exactly, else ``{key: value}`` (``exp_epsilon0``, or the parameter that gives the level, e.g. ``alpha``),
    as strings.  O(1).

    >>> eps0_description(None, "alpha", fmpq(1, 3))
    {'alpha': '1/3'}
    """
    return {"epsilon0": str(epsilon0)} if epsilon0 is not None else {key: str(value)}


def _min(values):
    if all(isinstance(v, fmpq) for v in values):
        return min(values)
    out = None
    for v in values:
        b = v if isinstance(v, arb) else arb(v)
        out = b if out is None else out.min(b)
    return out


class FiniteRandomizer:
    """A local randomizer with finite input and output alphabets, given by its exact matrix.

    ``matrix`` is a list of rows; every entry is parsed exactly with
    :func:`exact.numbers.arith.exact` (ints, ``Fraction``, ``fmpq``, decimal or
    ``"p/q"`` strings; floats refused).  Validation: at least two rows, all
    rows the same length ≥ 1, entries ≥ 0, each row sums to exactly 1.

    >>> FiniteRandomizer([["1/2", "1/2"], ["1/3", "1/3"]])
    Traceback (most recent call last):
    ...
    blanket.exact.numbers.errors.InvalidArgument: matrix row 1 must sum to exactly 1, got '2/3'
    """

    symmetric = False  #: True when outputs can be relabelled with inputs (k-RR): allows merging unused values

    def __init__(self, matrix: Sequence[Sequence], *, name: str = "matrix"):
        if not isinstance(matrix, (list, tuple)) or len(matrix) < 2:
            raise InvalidArgument(
                "matrix",
                matrix if not isinstance(matrix, (list, tuple)) else f"{len(matrix)} rows",
                "must have at least two rows (one per input value)",
            )
        width = None
        rows = []
        for i, row in enumerate(matrix):
            if not isinstance(row, (list, tuple)) or len(row) == 0:
                raise InvalidArgument(f"matrix row {i}", row, "must be a non-empty list of probabilities")
            if width is None:
                width = len(row)
            elif len(row) != width:
                raise InvalidArgument(
                    f"matrix row {i}",
                    f"{len(row)} entries",
                    f"must have {width} entries like row 0 (the matrix must be rectangular)",
                )
            parsed = []
            for j, v in enumerate(row):
                q = arith.exact(v, f"matrix[{i}][{j}]")
                if q < 0:
                    raise InvalidArgument(f"matrix[{i}][{j}]", str(q), "must be >= 0")
                parsed.append(q)
            if sum(parsed, fmpq(0)) != 1:
                raise InvalidArgument(f"matrix row {i}", str(sum(parsed, fmpq(0))), "must sum to exactly 1")
            rows.append(parsed)
        self._rows = rows
        self.k_in = len(rows)
        self.k_out = len(rows[0])
        self.name = name

    # -------------------------------------------------------------- entries
    def row(self, x: int) -> list:
        """``[Pr[R(x)=y] for y]`` — exact ``fmpq`` entries, or balls at the current precision."""
        if not 0 <= x < self.k_in:
            raise InvalidArgument("x", x, f"must be an input value in 0..{self.k_in - 1}")
        return list(self._rows[x])

    def matrix(self) -> list:
        return [self.row(x) for x in range(self.k_in)]

    @property
    def is_exact(self) -> bool:
        return True

    # -------------------------------------------------------------- LDP level
    def exp_epsilon0(self) -> fmpq | arb | None:
        """``e^{ε0} = max_{x,x',y} P[x][y] / P[x'][y]`` (exact); ``None`` if some ratio is infinite (supports differ).

        Outputs that no input can produce are ignored.

        >>> FiniteRandomizer([[1, 0], ["1/2", "1/2"]]).exp_epsilon0() is None
        True
        """
        best = fmpq(1)
        for y in range(self.k_out):
            col = [self._rows[x][y] for x in range(self.k_in)]
            if max(col) == 0:
                continue
            if min(col) == 0:
                return None
            best = max(best, max(col) / min(col))
        return best

    def epsilon0(self) -> arb | None:
        """The LDP level ε0 as a ball (``None`` for ε0 = ∞)."""
        e = self.exp_epsilon0()
        return None if e is None else arb(e).log()

    # -------------------------------------------------------------- blanket decomposition
    def blanket_mass(self) -> list:
        """``[min_x P[x][y] for y]`` (the unnormalised blanket)."""
        m = self.matrix()
        return [_min([m[x][y] for x in range(self.k_in)]) for y in range(self.k_out)]

    def gamma(self) -> Enclosure:
        """Total-variation similarity ``γ = Σ_y min_x P[x][y]`` (Balle et al. §5.1)."""
        out: Enclosure = fmpq(0)
        for v in self.blanket_mass():
            out = v + out if isinstance(v, arb) else out + v
        return out

    def blanket(self) -> list:
        """Blanket distribution ``ω(y) = min_x P[x][y] / γ``; raises if γ = 0."""
        g = self.gamma()
        if isinstance(g, fmpq) and g == 0:
            raise InvalidArgument(
                "mechanism", self.name, "has total-variation similarity 0, so no blanket distribution exists"
            )
        return [v / g for v in self.blanket_mass()]

    def describe(self) -> dict:
        return {
            "type": "matrix",
            "k_in": self.k_in,
            "k_out": self.k_out,
            "matrix": [[str(v) for v in r] for r in self._rows],
        }


class KRR(FiniteRandomizer):
    """k-ary randomized response: ``Pr[y=x] = e^{ε0}/(e^{ε0}+k−1)``, ``Pr[y=z] = 1/(e^{ε0}+k−1)`` for ``z ≠ x``.

    Give exactly one of ``epsilon0`` (exact: decimal string, int, Fraction,
    fmpq; entries become balls) or ``exp_epsilon0`` (the exact value of
    ``e^{ε0}`` ≥ 1; entries stay exact rationals — use this for exact tests).
    ``k >= 2``; ``k = 2`` is binary randomized response.

    >>> KRR(2, epsilon0="-1")
    Traceback (most recent call last):
    ...
    blanket.exact.numbers.errors.InvalidArgument: epsilon0 must be >= 0, got '-1'
    >>> KRR(1, epsilon0=1)
    Traceback (most recent call last):
    ...
    blanket.exact.numbers.errors.InvalidArgument: k must be >= 2, got 1
    """

    symmetric = True

    def __init__(self, k, epsilon0=None, *, exp_epsilon0=None):
        self.k = arith.integer_in(k, "k", lo=2)
        self._eps0, self._e0 = eps0_pair(epsilon0, exp_epsilon0)
        if self._eps0 == 0:
            self._e0 = fmpq(1)
        self.k_in = self.k_out = self.k
        self.name = f"{self.k}-RR"

    # e^{ε0}: exact if given so, else a ball at the current precision
    def exp_epsilon0(self) -> Enclosure:
        return self._e0 if self._e0 is not None else arb(self._eps0).exp()

    def epsilon0(self) -> arb:
        if self._eps0 is not None:
            return arb(self._eps0)
        return arb(self._e0).log() if self._e0 != 1 else arb(0)

    @property
    def epsilon0_exact(self) -> fmpq | None:
        """ε0 as given (exact), or ``None`` when the mechanism was given by ``exp_epsilon0``."""
        return self._eps0

    @property
    def is_exact(self) -> bool:
        return self._e0 is not None

    def keep(self) -> Enclosure:
        """``Pr[y = x] = e^{ε0}/(e^{ε0}+k−1)``."""
        e = self.exp_epsilon0()
        return e / (e + self.k - 1)

    def flip(self) -> Enclosure:
        """``Pr[y = z]`` for each ``z ≠ x``: ``1/(e^{ε0}+k−1)``."""
        e = self.exp_epsilon0()
        return 1 / (e + self.k - 1)

    def row(self, x: int) -> list:
        if not 0 <= x < self.k:
            raise InvalidArgument("x", x, f"must be an input value in 0..{self.k - 1}")
        p, f = self.keep(), self.flip()
        return [p if y == x else f for y in range(self.k)]

    def gamma(self) -> Enclosure:
        """Lemma 5.1(1): ``γ = k/(e^{ε0}+k−1)``; blanket uniform on ``[k]``."""
        return self.k * self.flip()

    def blanket(self) -> list:
        return [fmpq(1, self.k)] * self.k

    def describe(self) -> dict:
        return {"type": "krr", "k": self.k, **eps0_description(self._eps0, "exp_epsilon0", self._e0)}


def delta_query(
    mech: Randomizer, n: IntegerInput, epsilon: NumberOrBall | None, exp_epsilon: NumberOrBall | None
) -> tuple[int, Enclosure] | None:
    """The checked arguments ``(n, e^ε)`` of a δ(ε)-function of the shuffled ``mech``, or ``None`` when δ = 0.

    ``n`` must be an integer ≥ 1 and exactly one of ``epsilon``, ``exp_epsilon``
    be given (:func:`blanket.exact.numbers.arith.exp_param`); ``None`` means
    ``e^ε ≥ e^{ε0}`` is certified, where every δ(ε) of an ε0-LDP randomizer is
    exactly 0.  Cost ``O(1)``.

    >>> delta_query(BinaryRR(exp_epsilon0=3), 4, None, 2), delta_query(BinaryRR(exp_epsilon0=3), 4, None, 3)
    ((4, 2), None)
    """
    n_ = arith.integer_in(n, "n", lo=1)
    ee = arith.exp_param(epsilon, exp_epsilon)
    e0 = mech.exp_epsilon0()
    if e0 is not None and arith.le(e0, ee) is True:
        return None
    # ε ≥ ε0 compared exactly when both are exact: at ε = ε0 the two balls e^ε and e^{ε0} overlap, and an
    # engine asked for δ there gets degenerate laws (a weight that is 0 exactly, enclosed by a ball around 0)
    eps0 = exact_epsilon0(mech)
    if eps0 is not None and epsilon is not None and not isinstance(epsilon, arb) and arith.exact(epsilon) >= eps0:
        return None
    return n_, ee


def delta_at(mech: Randomizer, n: IntegerInput, opts: At, fn: str, spec: type = At) -> tuple[int, Enclosure] | None:
    """:func:`delta_query` for a δ-function ``fn`` that takes its keywords as ``**opts: Unpack[spec]``.

    The keywords are checked against ``spec`` first (:func:`blanket.exact.numbers.guards.check_options`: an
    unknown one is a ``TypeError`` with "did you mean"), then ``(n, e^ε)`` as :func:`delta_query` does.  Cost ``O(1)``.

    >>> delta_at(BinaryRR(exp_epsilon0=3), 4, {"exp_epsilon": 2}, "f")
    (4, 2)
    """
    guards.check_options(fn, opts, spec)
    return delta_query(mech, n, opts.get("epsilon"), opts.get("exp_epsilon"))


def finite_exp_epsilon0(mech: Randomizer, needed_by: str) -> Enclosure:
    """``e^{ε0}`` of ``mech``, which ``needed_by`` needs finite: ``InvalidArgument`` naming the mechanism when its ε0
    is infinite (a matrix whose rows' supports differ).  O(1) after the record's own ``exp_epsilon0()``."""
    e = mech.exp_epsilon0()
    if e is None:
        raise InvalidArgument(
            "mech",
            getattr(mech, "name", mech),
            f"has epsilon0 = infinity (supports differ): {needed_by} needs it finite",
        )
    return e


def exact_epsilon0(mech: Randomizer) -> fmpq | None:
    """``ε0`` of ``mech`` as an exact rational when the record was given it exactly, else ``None``.  Cost ``O(1)``.

    >>> exact_epsilon0(BinaryRR("1/2")), exact_epsilon0(BinaryRR(exp_epsilon0=3))
    (1/2, None)
    """
    for attr in ("epsilon0_exact", "epsilon0"):  # k-RR records / the oracle, clone and geometric records
        v = getattr(mech, attr, None)
        if isinstance(v, fmpq):
            return v
    return None


def BinaryRR(epsilon0: NumberInput | None = None, *, exp_epsilon0: NumberInput | None = None) -> KRR:
    """Binary randomized response (k = 2)."""
    return KRR(2, epsilon0, exp_epsilon0=exp_epsilon0)


def amplification_law(mech: FiniteRandomizer, x: int, x2: int, **at: Unpack[At]) -> list:
    """Exact law of ``L^ε_{x,x'} = (μ_x(W) − e^ε μ_{x'}(W))/ω(W)``, ``W ~ ω``, as ``[(value, prob), …]``.

    Outputs with ``ω(y) = 0`` carry no mass under ``ω`` and are left out.
    Give ``epsilon`` (exact, ≥ 0) or ``exp_epsilon`` (exact, ≥ 1).
    Values with equal ``y``-atoms are *not* merged (so the list has one entry
    per output in the blanket's support).  Cost O(k_in·k_out).

    Keywords (:class:`~blanket.exact.numbers.types.At`): ``epsilon`` or ``exp_epsilon``.
    """
    guards.check_options("amplification_law", at, At)
    epsilon, exp_epsilon = at.get("epsilon"), at.get("exp_epsilon")
    if (epsilon is None) == (exp_epsilon is None):
        raise InvalidArgument("epsilon", epsilon, "must be given (or exp_epsilon instead), not both or neither")
    ee = (
        arith.exact_in(exp_epsilon, "exp_epsilon", lo=1)
        if exp_epsilon is not None
        else arb(arith.exact_in(epsilon, "epsilon", lo=0)).exp()
    )
    om = mech.blanket()
    mu, mu2 = mech.row(x), mech.row(x2)
    law = []
    for y, w in enumerate(om):
        if isinstance(w, fmpq) and w == 0:
            continue
        law.append(((mu[y] - ee * mu2[y]) / w, w))
    return law
