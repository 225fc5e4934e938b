"""Frequency oracles, the generic ε0-LDP randomizer and the clamped geometric mechanism: exact records.

Every randomizer here is described by a frozen record with **exact**
parameters (ε0 is given either as an exact ``epsilon0`` — then ``e^{ε0}`` is a
ball at flint's current precision — or as an exact rational
``exp_epsilon0 = e^{ε0}`` — then every closed form below is an exact
``fmpq``, which is what the tests use).  Output spaces of size ``2^k`` are
never enumerated except by :meth:`~FourValue.matrix`, which refuses large
sizes and exists for the brute-force tests.

The blanket decomposition (Balle et al. §5.1): ``γ = Σ_y min_x R(x)(y)``,
``ω(y) = min_x R(x)(y)/γ``; the privacy amplification variable
``L = (R(x)(W) − e^ε R(x')(W))/ω(W)``, ``W ~ ω``.  For ``oue``, ``sue``,
``olh``, ``hadamard``, ``subset`` (and k-RR) **L takes four values** (derived
in ``proofs/oracles.py``, checked against brute force in
``tests/test_oracles.py``), with ``e = e^{ε0}``, ``ee = e^ε``::

    γ·e(1 − ee)   w.p. π_both   (W "hits" both x and x')
    γ·(e − ee)    w.p. π_t      (W hits x only)
    γ·(1 − ee·e)  w.p. π_t      (W hits x' only)
    γ·(1 − ee)    w.p. π_rest   (neither, or a W that every input hits alike)

so a mechanism is its ``(γ, π_both, π_t, π_rest)`` (:meth:`FourValue.l_probs`).
What "hit" means: unary encoding — bit x of W is 1 and W is not all ones;
local hashing — ``y = h(x)`` and h is not constant on the domain; Hadamard
response — ``W ∈ C_x`` and W is not the first row; subset selection —
``x ∈ W``.  Every ordered pair ``x ≠ x'`` has the same law (symmetry; for
local hashing: every pair has the same collision probability).

The shuffled δ of these records (certified upper bounds, the concrete-dataset lower bound, a published pair)
is computed in :mod:`blanket.exact.shuffled.oracles`; a record from plain data is built by
:func:`blanket.exact.mechanisms.registry.make_mechanism`.

>>> m = OUE(4, exp_epsilon0=3)
>>> m.gamma(), m.gamma() == m.matrix().gamma()     # closed form vs the 16-output matrix
(43/64, True)
>>> Subset(4, 2, exp_epsilon0=2).gamma()
2/3
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from blanket.exact.mechanisms.finite import (
    KRR,
    FiniteRandomizer,
    eps0_description,
    eps0_pair,
)
from blanket.exact.numbers import arith, guards
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.numbers.types import Enclosure, IntegerInput, NumberInput, NumberOrBall
from flint import arb, ctx, fmpq

if TYPE_CHECKING:
    pass

__all__ = [
    "LDP",
    "OUE",
    "SUE",
    "OLH",
    "Hadamard",
    "Subset",
    "Geometric",
    "UnaryEncoding",
    "FourValue",
    "MAX_MATRIX_OUTPUTS",
]

#: the explicit matrix of a record (tests only) is refused above this many outputs
MAX_MATRIX_OUTPUTS = 4096


# ================================================================ parameters
def _is_exact(x) -> bool:
    return isinstance(x, fmpq)


def _is_zero(x) -> bool:
    return (isinstance(x, fmpq) and x == 0) or (isinstance(x, arb) and x.is_zero())


class _Eps0:
    """Mixin: ``e^{ε0}`` exact if given so, else a ball at the current precision."""

    epsilon0: fmpq | None
    exp_epsilon0_exact: fmpq | None

    def exp_epsilon0(self) -> Enclosure:
        if self.exp_epsilon0_exact is not None:
            return self.exp_epsilon0_exact
        return fmpq(1) if self.epsilon0 == 0 else arb(self.epsilon0).exp()

    def epsilon0_ball(self) -> arb:
        if self.epsilon0 is not None:
            return arb(self.epsilon0)
        return arb(self.exp_epsilon0_exact).log()

    @property
    def is_exact(self) -> bool:
        return self.exp_epsilon0_exact is not None

    def _eps0_describe(self) -> dict:
        return eps0_description(self.epsilon0, "exp_epsilon0", self.exp_epsilon0_exact)


def _eps0_checked(epsilon0: NumberInput | None, exp_epsilon0: NumberInput | None) -> tuple[fmpq | None, fmpq | None]:
    """:func:`~blanket.exact.mechanisms.finite.eps0_pair` within the supported range (ε0 ≤ 500, the CLI's
    :func:`~blanket.exact.numbers.guards.check_epsilon0` message; ``Hadamard(8, epsilon0='1000')`` was accepted).
    O(1)."""
    e, ee = eps0_pair(epsilon0, exp_epsilon0)
    if e is not None:
        guards.check_epsilon0(e)
    if ee is not None:
        guards.check_exp_epsilon0(ee)
    return e, ee


def _set(obj, **kw):
    for k, v in kw.items():
        object.__setattr__(obj, k, v)


class _PerPrecision:
    """Mixin for a record whose balls are memoised per precision in ``_memo``: the memo is not part of its pickled
    (or copied) state, a copy starts with an empty one."""

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "_memo"}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        object.__setattr__(self, "_memo", {})


def cancellation_bits(mech: Any) -> int:
    """The extra bits a frequency oracle's blanket view or lower pair needs at a large ε0:
    :func:`~blanket.exact.numbers.arith.cancellation_bits` of ``e^{ε0}`` at depth 2, i.e. ``2·(⌈log2 e^{ε0}⌉ + 1)``
    from ``e^{ε0} ≥ 2^20`` (ε0 ≥ 13.86), else 0.  Depth 2: its atoms' probabilities are ``~e^{−2ε0}`` (OUE: two bits
    set w.p. ``q²``) and their values ``~e^{ε0}``; at the caller's precision (53 or 256 bits) the balls lost every
    digit (NaN: OUE k = 3, n = 4 sampled from ε0 = 100, unsampled upper end 1 from ε0 = 100; SUE from ε0 = 40; depth
    1 was still NaN at SUE ε0 = 200).  A precision choice, not a bound.  O(1)."""
    return arith.cancellation_bits(mech.exp_epsilon0(), depth=2)


def cancellation_precision(mech: Any, floor: int = 64) -> int:
    """The working precision for a frequency oracle's blanket view or lower pair: the current one when
    :func:`cancellation_bits` is 0, else ``max(current, floor)`` plus those bits
    (:func:`~blanket.exact.numbers.arith.cancellation_precision`).  O(1)."""
    return arith.cancellation_precision(cancellation_bits(mech), floor)


# ================================================================ generic ε0-LDP
@dataclass(frozen=True)
class LDP(_Eps0):
    """Any ε0-LDP local randomizer, known only by ε0: Feldman–McMillan–Talwar's model (FOCS 2021).

    The model: the randomizers ``R^(1), …, R^(n)`` may be chosen adaptively (each from the earlier reports) and are
    applied to the randomly permuted data; its certified bounds here are the FOCS 2021 clone pair (:func:`clone_delta`)
    and Lemma G1 [adaptive] (the binary-RR blanket view with the same ε0,
    :func:`blanket.exact.shuffled.generic_ldp.adaptive_model_delta`; docs/mechanisms.md, this project's derivation,
    status *derived*).  Client-specific randomizers (user ``i`` always runs its own ``R_i``) are **not** covered:
    users 2..n on a constant randomizer give no amplification at all.  Its blanket is unknown; every ε0-LDP
    randomizer has ``γ ≥ e^{−ε0}`` (Balle et al. Lemma 5.2), which is exactly the clone probability of the pair.  The
    SODA 2023 "stronger clone" pair is **not** used: by its erratum it holds only for a restricted class.

    ``same_randomizer=True`` states a narrower model: **one** ε0-LDP randomizer, fixed before the round, run by every
    user on their own value.  Lemma G1 (docs/mechanisms.md, this project's derivation, status *derived*) bounds
    δ(ε) there by the same blanket view of binary RR (:func:`blanket.exact.shuffled.generic_ldp.same_randomizer_delta`).

    >>> LDP(exp_epsilon0=3).gamma_lower()
    1/3
    >>> LDP(exp_epsilon0=3, same_randomizer=True).describe()["same_randomizer"]
    True
    """

    epsilon0: fmpq | None = None
    exp_epsilon0_exact: fmpq | None = None
    same_randomizer: bool = False
    kind: str = field(default="ldp", init=False)

    def __init__(self, epsilon0=None, *, exp_epsilon0=None, same_randomizer: bool = False):
        if not isinstance(same_randomizer, bool):
            raise InvalidArgument("same_randomizer", same_randomizer, "must be True or False")
        e, ee = _eps0_checked(epsilon0, exp_epsilon0)
        _set(self, epsilon0=e, exp_epsilon0_exact=ee, same_randomizer=same_randomizer, kind="ldp")

    def gamma_lower(self) -> Enclosure:
        """``e^{−ε0}``: a lower bound on the TV similarity of every ε0-LDP randomizer."""
        return 1 / self.exp_epsilon0()

    def describe(self) -> dict:
        extra = {"same_randomizer": True} if self.same_randomizer else {}
        return {"type": "ldp", **self._eps0_describe(), **extra}


# ================================================================ the four-value mechanisms
class FourValue(_Eps0):
    """Common part of the mechanisms whose L takes the four values γ·{e(1−ee), e−ee, 1−ee·e, 1−ee}."""

    kind = "?"

    # -- to be provided
    def gamma(self) -> Enclosure:  # pragma: no cover - abstract
        raise NotImplementedError

    def gamma_complement(self) -> Enclosure:
        """``1 − γ``, the blanket's missing mass (the engine's atom at 0).  Here ``1 − gamma()``; a record whose ``γ``
        is within a ball's rounding of 1 computes it without the cancellation (:class:`~blanket.exact.accounting.
        sampled.SampledFourValue`: ``q·(1 − γ)``, exact in form).  O(1)."""
        return 1 - self.gamma()

    def l_probs(self) -> tuple:  # pragma: no cover - abstract
        """``(π_both, π_t, π_rest)`` of the law of L under W ~ ω (π_t' = π_t; π_both + 2π_t + π_rest = 1)."""
        raise NotImplementedError

    def ratio_law(self) -> tuple:  # pragma: no cover - abstract
        """``(a, b)``: under ``Y ~ R(x)``, ``R(x')(Y)/R(x)(Y) = 1/e`` w.p. ``a``, ``= e`` w.p. ``b``, else 1."""
        raise NotImplementedError

    def rows(self) -> list:  # pragma: no cover - abstract
        """The explicit matrix as a list of rows (tests only; small sizes)."""
        raise NotImplementedError

    def output_count(self) -> int:  # pragma: no cover - abstract
        raise NotImplementedError

    # -- derived
    def l_law(self, *, epsilon: NumberOrBall | None = None, exp_epsilon: NumberOrBall | None = None) -> list:
        """The law of ``L^ε_{x,x'}`` as four ``(value, prob)`` atoms: both, t, t', rest (any ordered pair x ≠ x')."""
        ee = arith.exp_param(epsilon, exp_epsilon)
        e, g = self.exp_epsilon0(), self.gamma()
        pb, pt, pr = self.l_probs()
        return [(g * e * (1 - ee), pb), (g * (e - ee), pt), (g * (1 - ee * e), pt), (g * (1 - ee), pr)]

    def matrix(self) -> FiniteRandomizer:
        """The explicit randomizer (exact entries; ``exp_epsilon0`` must be given).  Refused above MAX_MATRIX_OUTPUTS outputs."""
        if not self.is_exact:
            raise InvalidArgument(
                "exp_epsilon0", None, "must be given (an exact rational e^{ε0}) to build the explicit matrix"
            )
        if self.output_count() > MAX_MATRIX_OUTPUTS:
            raise InvalidArgument(
                "output space",
                self.output_count(),
                f"must be <= {MAX_MATRIX_OUTPUTS} to build the explicit matrix",
                hint="the closed forms of this record need no matrix",
            )
        return FiniteRandomizer(self.rows(), name=self.kind)


# ---------------------------------------------------------------- unary encoding
@dataclass(frozen=True)
class UnaryEncoding(_PerPrecision, FourValue):
    """Unary encoding on a domain of size ``k ≥ 2``: one-hot encode x, then bit j is 1 w.p. ``p`` if j = x, else ``q``.

    Output space ``{0,1}^k``.  Requires ``0 < q < p < 1``; ``e^{ε0} = p(1−q)/((1−p)q)``.
    Use :func:`OUE` (p = 1/2, q = 1/(e^{ε0}+1)) or :func:`SUE` (basic RAPPOR:
    p = e^{ε0/2}/(e^{ε0/2}+1), q = 1 − p).  ``p``, ``q`` given here are exact rationals (or balls, kept as given).

    ``p`` and ``q`` are read as attributes.  An OUE or SUE record made from an exact ``ε0`` (irrational ``e^{ε0}``)
    stores only ``ε0``: its ``p``, ``q`` are balls computed at flint's *current* precision each time they are read
    (memoised per precision), so precision escalation narrows everything computed from them.  Equality and hash
    compare the stored inputs (``k``, the given ``p``/``q``, ``ε0``, ``e^{ε0}``, kind), never a ball.  O(1) per read.

    Blanket (derived): with ``ρ0 = (1−p)/(1−q)`` and ``B`` the product
    Bernoulli(q) law, ``min_x R(x)(y) = ρ0·B(y)`` unless y is all ones
    (then ``p·q^{k−1}``): ``γ = ρ0(1 − q^k) + p·q^{k−1}``.

    >>> from flint import ctx
    >>> m = OUE(4, epsilon0=2)
    >>> with arith.precision(200):
    ...     m.q.rad() < arb(2) ** -190
    True
    >>> m == OUE(4, epsilon0=2), hash(m) == hash(OUE(4, epsilon0=2))
    (True, True)
    """

    k: int = 2
    p_given: Any = None  # the exact p (or a ball given as such); None: computed from ε0 at the current precision
    q_given: Any = None
    epsilon0: fmpq | None = None
    exp_epsilon0_exact: fmpq | None = None
    kind: str = "ue"
    _memo: dict = field(default_factory=dict, compare=False, hash=False, repr=False)

    def __init__(
        self,
        k: int = 2,
        p: Any = None,
        q: Any = None,
        epsilon0: fmpq | None = None,
        exp_epsilon0_exact: fmpq | None = None,
        kind: str = "ue",
    ):
        if not isinstance(k, int) or isinstance(k, bool) or k < 2:
            raise InvalidArgument("k", k, "must be an integer >= 2 (the number of bits)")
        if p is None or q is None:
            if p is not None or q is not None or kind not in ("oue", "sue") or epsilon0 is None:
                raise InvalidArgument(
                    "p", p, "must be given with q (only OUE and SUE made from epsilon0 compute them at each precision)"
                )
        elif _is_exact(p) and _is_exact(q) and not (0 < q <= p < 1):
            raise InvalidArgument("p", f"{p} (q = {q})", "must satisfy 0 < q <= p < 1")
        if epsilon0 is not None:
            guards.check_epsilon0(epsilon0)
        if exp_epsilon0_exact is not None:
            guards.check_exp_epsilon0(exp_epsilon0_exact)
        _set(
            self,
            k=k,
            p_given=p,
            q_given=q,
            epsilon0=epsilon0,
            exp_epsilon0_exact=exp_epsilon0_exact,
            kind=kind,
            _memo={},
        )

    def _pq(self) -> tuple:
        """``(p, q)``: as given, or (OUE/SUE from ε0) balls at the current precision, memoised per precision.  O(1)."""
        if self.q_given is not None:
            return self.p_given, self.q_given
        prec = ctx.prec
        out = self._memo.get(prec)
        if out is None:
            assert self.epsilon0 is not None
            if self.kind == "oue":  # p = 1/2, q = 1/(e^{ε0} + 1)
                out = (fmpq(1, 2), 1 / (arb(self.epsilon0).exp() + 1))
            else:  # sue: s = e^{ε0/2}, p = s/(s + 1), q = 1/(s + 1)
                s = (arb(self.epsilon0) / 2).exp()
                out = (s / (s + 1), 1 / (s + 1))
            if len(self._memo) >= 8:
                self._memo.clear()
            self._memo[prec] = out
        return out

    @property
    def p(self) -> Enclosure:
        """The probability that bit x of ``R(x)`` is 1 (exact, or a ball at the current precision)."""
        return self._pq()[0]

    @property
    def q(self) -> Enclosure:
        """The probability that bit j ≠ x of ``R(x)`` is 1 (exact, or a ball at the current precision)."""
        return self._pq()[1]

    def output_count(self) -> int:
        return 2**self.k

    def exp_epsilon0(self) -> Enclosure:
        if self.exp_epsilon0_exact is not None:
            return self.exp_epsilon0_exact
        if self.q_given is None:  # OUE/SUE from ε0: e^{ε0} directly (the same number as the ratio below)
            return arb(self.epsilon0).exp()
        p, q = self._pq()
        return p * (1 - q) / ((1 - p) * q)

    def gamma(self) -> Enclosure:
        (p, q), k = self._pq(), self.k
        rho0 = (1 - p) / (1 - q)
        return rho0 * (1 - arith.int_power(q, k)) + p * arith.int_power(q, k - 1)

    def l_probs(self) -> tuple:
        (p, q), k = self._pq(), self.k
        g = self.gamma()
        rho0 = (1 - p) / (1 - q)
        both = rho0 * q * q * (1 - arith.int_power(q, k - 2)) / g
        t = rho0 * q * (1 - q) / g
        rest = (rho0 * arith.int_power(1 - q, 2) + p * arith.int_power(q, k - 1)) / g
        return both, t, rest

    def ratio_law(self) -> tuple:
        p, q = self._pq()
        return p * (1 - q), (1 - p) * q

    def rows(self) -> list:
        p, q = self._pq()
        out = []
        for x in range(self.k):
            row = []
            for y in itertools.product((0, 1), repeat=self.k):
                pr = fmpq(1)
                for j, b in enumerate(y):
                    pj = p if j == x else q
                    pr *= pj if b else 1 - pj
                row.append(pr)
            out.append(row)
        return out

    def describe(self) -> dict:
        """The record as data; ``p``, ``q`` of a record made from ε0 are printed at 53 bits whatever the working
        precision (a record's description is also a key: it must not depend on the precision)."""
        with arith.precision(53):
            p, q = self._pq()
            return {"type": self.kind, "k": self.k, "p": str(p), "q": str(q), **self._eps0_describe()}


def OUE(
    k: IntegerInput, epsilon0: NumberInput | None = None, *, exp_epsilon0: NumberInput | None = None
) -> UnaryEncoding:
    """Optimized unary encoding (Wang et al. 2017): ``p = 1/2``, ``q = 1/(e^{ε0}+1)`` (a ball at the current
    precision when ``ε0`` is given, see :class:`UnaryEncoding`).

    >>> OUE(3, exp_epsilon0=3).q
    1/4
    """
    k = arith.integer_in(k, "k", lo=2)
    e, ee = eps0_pair(epsilon0, exp_epsilon0)
    if ee is None and e == 0:
        ee = fmpq(1)
    if ee is None:
        return UnaryEncoding(k=k, epsilon0=e, kind="oue")
    return UnaryEncoding(k=k, p=fmpq(1, 2), q=1 / (ee + 1), epsilon0=e, exp_epsilon0_exact=ee, kind="oue")


def SUE(
    k: IntegerInput, epsilon0: NumberInput | None = None, *, exp_half_epsilon0: NumberInput | None = None
) -> UnaryEncoding:
    """Symmetric unary encoding = basic RAPPOR: ``p = e^{ε0/2}/(e^{ε0/2}+1)``, ``q = 1 − p``.

    Exact mode takes ``exp_half_epsilon0 = e^{ε0/2}`` (exact rational ≥ 1), so
    that ``p`` and ``q`` are rational; ``e^{ε0}`` is its square.  Given ``ε0``, ``p`` and ``q`` are balls at the
    current precision (:class:`UnaryEncoding`).

    >>> m = SUE(3, exp_half_epsilon0=2)
    >>> m.p, m.q, m.exp_epsilon0()
    (2/3, 1/3, 4)
    """
    k = arith.integer_in(k, "k", lo=2)
    if (epsilon0 is None) == (exp_half_epsilon0 is None):
        raise InvalidArgument("epsilon0", epsilon0, "must be given (or exp_half_epsilon0 instead), not both or neither")
    if exp_half_epsilon0 is not None:
        s = arith.exact_in(exp_half_epsilon0, "exp_half_epsilon0", lo=1)
        e, ee = None, s * s
        guards.check_exp_epsilon0(ee, "exp_half_epsilon0 squared (e^{epsilon0})")
    else:
        e = arith.exact_in(epsilon0, "epsilon0", lo=0)
        if e != 0:
            return UnaryEncoding(k=k, epsilon0=e, kind="sue")
        s, ee = fmpq(1), fmpq(1)
    return UnaryEncoding(k=k, p=s / (s + 1), q=1 / (s + 1), epsilon0=e, exp_epsilon0_exact=ee, kind="sue")


# ---------------------------------------------------------------- local hashing
@dataclass(frozen=True)
class OLH(FourValue):
    """Local hashing: draw h from a family H of maps [k] → [g], report ``(h, y)``; ``y = h(x)`` w.p. ``e/(e+g−1)``, each other value w.p. ``1/(e+g−1)``.

    OLH takes ``g = round(e^{ε0} + 1)``, BLH ``g = 2``; here ``g ≥ 2`` is a parameter.
    The hash family enters through two exact numbers, both **stated assumptions**:

    * ``collision`` = ``P_h[h(x) = h(x')]`` for every pair ``x ≠ x'`` (default
      ``1/g``: a pairwise-independent family);
    * ``constant`` = ``P_h[h is constant on the domain]`` (default 0).  With
      ``constant = 0`` the blanket is uniform on H × [g] and
      ``γ = g/(e+g−1)``: a valid decomposition for *every* family, equal to
      the TV similarity when no h is constant.  A positive value (≤ collision)
      credits the constant hashes to the blanket: ``γ = (g + constant·(e−1))/(e+g−1)``,
      the TV similarity of such a family.
    * ``triple`` (optional, default unknown) = ``P_h[h(x) = h(x') = h(z)]`` for a triple of distinct values
      (``1/g²`` for a 3-wise independent family).  Only the third-value **lower** end uses it
      (:func:`blanket.exact.shuffled.oracle_exact.triple_hit_law`); without it that lower end is not offered.
      It must satisfy ``constant ≤ triple ≤ collision`` and ``1 − 3·collision + 2·triple ≥ 0`` (the three
      values all distinct), with equality there when ``g = 2``.  With an explicit ``family`` it is computed
      for the values ``0, 1, 2``.

    >>> OLH(4, 2, exp_epsilon0=3).gamma()
    1/2
    """

    k: int = 2
    g: int = 2
    epsilon0: fmpq | None = None
    exp_epsilon0_exact: fmpq | None = None
    collision: fmpq = fmpq(0)  # set by __init__ (default 1/g)
    constant: fmpq = fmpq(0)
    family: tuple | None = None  # explicit family (tests): tuple of tuples h(0..k-1)
    kind: str = "olh"
    triple: fmpq | None = None

    def __init__(self, k, g, epsilon0=None, *, exp_epsilon0=None, collision=None, constant=0, family=None, triple=None):
        k = arith.integer_in(k, "k", lo=2)
        g = arith.integer_in(g, "g", lo=2)
        e, ee = _eps0_checked(epsilon0, exp_epsilon0)
        if family is not None:
            fam = tuple(tuple(int(v) for v in h) for h in family)
            if not fam or any(len(h) != k or any(not 0 <= v < g for v in h) for h in fam):
                raise InvalidArgument(
                    "family", family, f"must be a non-empty list of maps, each a list of {k} values in 0..{g - 1}"
                )
            # the stated numbers are computed from the family (and must be pair-independent)
            cols = {sum(1 for h in fam if h[a] == h[b]) for a in range(k) for b in range(k) if a != b}
            if len(cols) != 1:
                raise InvalidArgument(
                    "family", "given", "must have the same collision probability for every pair x != x'"
                )
            collision = fmpq(cols.pop(), len(fam))
            if constant == "family":
                constant = fmpq(sum(1 for h in fam if len(set(h)) == 1), len(fam))
            if triple is not None:
                raise InvalidArgument("triple", triple, "must not be given with an explicit family (it is computed)")
            if k >= 3:
                triple = fmpq(sum(1 for h in fam if h[0] == h[1] == h[2]), len(fam))
        else:
            fam = None
        c = fmpq(1, g) if collision is None else arith.exact_in(collision, "collision", lo=0, hi=1)
        kap = arith.exact_in(constant, "constant", lo=0, hi=1)
        if kap > c:
            raise InvalidArgument(
                "constant", str(kap), f"must be <= collision ({c}): a constant hash collides on every pair"
            )
        if c == 1:
            raise InvalidArgument(
                "collision",
                str(c),
                "must be < 1 (a family whose hashes always collide reveals nothing and has no x-only outputs)",
            )
        t = None if triple is None else arith.exact_in(triple, "triple", lo=0, hi=1)
        if t is not None:
            if not kap <= t <= c:
                raise InvalidArgument(
                    "triple", str(t), f"must be between constant ({kap}) and collision ({c}): P[h(x) = h(x') = h(z)]"
                )
            distinct = 1 - 3 * c + 2 * t
            if distinct < 0 or (g == 2 and distinct != 0):
                raise InvalidArgument(
                    "triple",
                    str(t),
                    f"is inconsistent with collision {c} and g = {g}: P[x, x', z hashed to three distinct values] = "
                    f"1 - 3*collision + 2*triple = {distinct}"
                    + (" must be 0 (two buckets)" if g == 2 else " must be >= 0"),
                )
        _set(
            self,
            k=k,
            g=g,
            epsilon0=e,
            exp_epsilon0_exact=ee,
            collision=c,
            constant=kap,
            family=fam,
            kind="olh",
            triple=t,
        )

    def _pq(self):
        e = self.exp_epsilon0()
        return e / (e + self.g - 1), 1 / (e + self.g - 1)

    def output_count(self) -> int:
        if self.family is None:
            raise InvalidArgument(
                "family", None, "must be given explicitly to build the matrix of a local-hashing randomizer"
            )
        return len(self.family) * self.g

    def gamma(self) -> Enclosure:
        ph, pl = self._pq()
        return self.g * pl + self.constant * (ph - pl)

    def l_probs(self) -> tuple:
        ph, pl = self._pq()
        gm = self.gamma()
        both = (self.collision - self.constant) * pl / gm
        t = (1 - self.collision) * pl / gm
        return both, t, 1 - both - 2 * t

    def ratio_law(self) -> tuple:
        ph, pl = self._pq()
        return (1 - self.collision) * ph, (1 - self.collision) * pl

    def rows(self) -> list:
        ph, pl = self._pq()
        assert self.family is not None, "rows() needs an explicit family"
        H = len(self.family)
        return [[(ph if h[x] == y else pl) / H for h in self.family for y in range(self.g)] for x in range(self.k)]

    def describe(self) -> dict:
        return {
            "type": "olh",
            "k": self.k,
            "g": self.g,
            "collision": str(self.collision),
            "constant": str(self.constant),
            **({} if self.triple is None else {"triple": str(self.triple)}),
            **self._eps0_describe(),
        }


# ---------------------------------------------------------------- Hadamard response
@dataclass(frozen=True)
class Hadamard(FourValue):
    """Hadamard response (Acharya–Sun–Zhang, AISTATS 2019), the standard K-ary version.

    ``K = 2^⌈log2(k+1)⌉`` (smallest power of two > k); input x ∈ [k] uses
    column x+1 of the Sylvester–Hadamard matrix ``H_K`` (column 0 unused):
    ``C_x = {y ∈ [K] : popcount((x+1) & y) even}`` (|C_x| = K/2);
    ``R(x)(y) = 2e/(K(e+1))`` for y ∈ C_x, ``2/(K(e+1))`` otherwise.
    As in the authors' ``Hadamard_Rand_high_priv`` (their code: a uniform y,
    and its partner with one bit of x+1 flipped; output the one in C_x w.p.
    e/(e+1)).  Row 0 lies in every C_x, so ``γ = 2(K−1+e)/(K(e+1))``.

    >>> Hadamard(3, exp_epsilon0=3).gamma()
    3/4
    """

    k: int = 2
    epsilon0: fmpq | None = None
    exp_epsilon0_exact: fmpq | None = None
    kind: str = "hadamard"

    def __init__(self, k, epsilon0=None, *, exp_epsilon0=None):
        k = arith.integer_in(k, "k", lo=2)
        e, ee = _eps0_checked(epsilon0, exp_epsilon0)
        _set(self, k=k, epsilon0=e, exp_epsilon0_exact=ee, kind="hadamard")

    @property
    def K(self) -> int:
        return 1 << (self.k).bit_length()  # smallest power of 2 strictly above k

    def output_count(self) -> int:
        return self.K

    def _pq(self):
        e, K = self.exp_epsilon0(), self.K
        return 2 * e / (K * (e + 1)), fmpq(2, K) / (e + 1)

    def gamma(self) -> Enclosure:
        ph, pl = self._pq()
        return (self.K - 1) * pl + ph

    def l_probs(self) -> tuple:
        ph, pl = self._pq()
        g, q4 = self.gamma(), self.K // 4
        both = (q4 - 1) * pl / g
        t = q4 * pl / g
        return both, t, (q4 * pl + ph) / g

    def ratio_law(self) -> tuple:
        ph, pl = self._pq()
        q4 = self.K // 4
        return q4 * ph, q4 * pl

    def rows(self) -> list:
        ph, pl = self._pq()
        return [[ph if bin((x + 1) & y).count("1") % 2 == 0 else pl for y in range(self.K)] for x in range(self.k)]

    def describe(self) -> dict:
        return {"type": "hadamard", "k": self.k, "K": self.K, **self._eps0_describe()}


# ---------------------------------------------------------------- subset selection
@dataclass(frozen=True)
class Subset(FourValue):
    """Subset selection (Ye–Barg 2018; Wang et al. 2016's k-subset): report a d-subset S of [k], ``1 ≤ d ≤ k−1``.

    ``R(x)(S) = e/Z`` if x ∈ S, ``1/Z`` otherwise, ``Z = e·C(k−1,d−1) + C(k−1,d)``
    (the authors' code: include x w.p. ``de/(de+k−d)``, fill uniformly —
    the same law).  Blanket uniform on d-subsets, ``γ = C(k,d)/Z``.
    ``d = 1`` is k-RR.  Ye–Barg's choice is ``d = ⌈k/(e+1)⌉``.

    >>> Subset(5, 1, exp_epsilon0=3).gamma()   # = 5/(3+5-1), k-RR
    5/7
    """

    k: int = 2
    d: int = 1
    epsilon0: fmpq | None = None
    exp_epsilon0_exact: fmpq | None = None
    kind: str = "subset"

    def __init__(self, k, d, epsilon0=None, *, exp_epsilon0=None):
        k = arith.integer_in(k, "k", lo=2)
        d = arith.integer_in(d, "d", lo=1, hi=k - 1)
        e, ee = _eps0_checked(epsilon0, exp_epsilon0)
        _set(self, k=k, d=d, epsilon0=e, exp_epsilon0_exact=ee, kind="subset")

    def output_count(self) -> int:
        return math.comb(self.k, self.d)

    def _Z(self):
        return self.exp_epsilon0() * math.comb(self.k - 1, self.d - 1) + math.comb(self.k - 1, self.d)

    def gamma(self) -> Enclosure:
        return math.comb(self.k, self.d) / self._Z()

    def l_probs(self) -> tuple:
        k, d = self.k, self.d
        den = k * (k - 1)
        return fmpq(d * (d - 1), den), fmpq(d * (k - d), den), fmpq((k - d) * (k - d - 1), den)

    def ratio_law(self) -> tuple:
        Z, e = self._Z(), self.exp_epsilon0()
        c = math.comb(self.k - 2, self.d - 1)
        return c * e / Z, c / Z

    def rows(self) -> list:
        e, Z = self.exp_epsilon0(), self._Z()
        subsets = list(itertools.combinations(range(self.k), self.d))
        return [[(e if x in S else fmpq(1)) / Z for S in subsets] for x in range(self.k)]

    def describe(self) -> dict:
        return {"type": "subset", "k": self.k, "d": self.d, **self._eps0_describe()}


# ================================================================ clamped geometric mechanism
@dataclass(frozen=True)
class Geometric(_PerPrecision):
    """The truncated (clamped) geometric mechanism on ``{0, …, m−1}`` (Ghosh–Roughgarden–Sundararajan 2009).

    ``Y = clamp(x + Z, 0, m−1)`` with ``Z`` two-sided geometric,
    ``P(Z = z) = (1−α)/(1+α)·α^{|z|}``: interior outputs have mass
    ``(1−α)/(1+α)·α^{|y−x|}``, the end points ``α^x/(1+α)`` and
    ``α^{m−1−x}/(1+α)``.  Every pair of inputs is a neighbour (local model),
    so ``e^{ε0} = α^{−(m−1)}``.  Give ``alpha`` exactly (rational in (0,1):
    exact entries) or ``epsilon0`` (then ``α = e^{−ε0/(m−1)}`` is a ball).

    Blanket (derived): ``min_x`` is at the farther end point; with ``N = m−1``
    and ``a = ⌊N/2⌋+1``, ``γ = (2α^a + [N even](1−α)α^{N/2})/(1+α)``.
    L takes up to m values (no four-value structure): at every n the certified
    upper bound is one dominating three-valued law
    (:func:`blanket.exact.shuffled.geometric.geometric_upper`, docs/numerics.md
    Lemma O2); for small n also the exact enumeration
    :func:`blanket_view_delta_enumerate`.

    >>> Geometric(2, alpha="1/3").gamma()   # binary RR with e^{ε0} = 3
    1/2
    """

    m: int = 2
    alpha_exact: fmpq | None = None  # set by __init__: α as given, or None (then α = e^{−ε0/(m−1)}, see ``alpha``)
    epsilon0: fmpq | None = None
    kind: str = "geometric"
    _memo: dict = field(default_factory=dict, compare=False, hash=False, repr=False)

    def __init__(self, m, *, alpha=None, epsilon0=None):
        m = arith.integer_in(m, "m", lo=2)
        if (alpha is None) == (epsilon0 is None):
            raise InvalidArgument("alpha", alpha, "must be given (or epsilon0 instead), not both or neither")
        if alpha is not None:
            a = arith.exact_in(alpha, "alpha", lo=0, hi=1, lo_open=True, hi_open=True)
            e = None
            with arith.precision(
                64
            ):  # ε0 = (m−1)·log(1/α): the supported range of every mechanism (guards.MAX_EPSILON0)
                too_big = bool(arith.ball(a).log() * (m - 1) < -500)
            if too_big:  # '--alpha 1e-400' was an internal error (a float overflow)
                shown = str(alpha)
                if len(shown) > 40:  # an exact decimal as such (1e-400 had 400 zeros), else marked
                    d = arith.decimal_string(a, 10, up=True)
                    shown = d if arith.exact(d) == a else f"{d} (rounded up)"
                raise InvalidArgument(
                    "alpha",
                    shown,
                    f"must be at least e^(-500/(m-1)) with m = {m} (epsilon0 = (m-1)*log(1/alpha) at most 500, the "
                    "supported range)",
                )
        else:
            e = arith.exact_in(epsilon0, "epsilon0", lo=0, lo_open=True)
            guards.check_epsilon0(e)
            a = None
        _set(self, m=m, alpha_exact=a, epsilon0=e, kind="geometric", _memo={})

    @property
    def alpha(self) -> Enclosure:
        """``α``: exact as given, or ``e^{−ε0/(m−1)}`` as a ball at flint's *current* precision (memoised per
        precision), so precision escalation narrows everything computed from it.  O(1)."""
        if self.alpha_exact is not None:
            return self.alpha_exact
        prec = ctx.prec
        a = self._memo.get(prec)
        if a is None:
            a = (-arb(self.epsilon0) / (self.m - 1)).exp()
            if len(self._memo) >= 8:
                self._memo.clear()
            self._memo[prec] = a
        return a

    @property
    def is_exact(self) -> bool:
        return self.alpha_exact is not None

    def exp_epsilon0(self) -> Enclosure:
        if self.alpha_exact is None:  # e^{ε0} directly (the same number as α^{−(m−1)})
            return arb(self.epsilon0).exp()
        return 1 / self.alpha_exact ** (self.m - 1)

    def rows(self) -> list:
        a, N = self.alpha, self.m - 1
        c = (1 - a) / (1 + a)
        out = []
        for x in range(self.m):
            row = []
            for y in range(self.m):
                if y == 0:
                    row.append(a**x / (1 + a))
                elif y == N:
                    row.append(a ** (N - x) / (1 + a))
                else:
                    row.append(c * a ** abs(y - x))
            out.append(row)
        return out

    def l_law(
        self, x: int, x2: int, *, epsilon: NumberOrBall | None = None, exp_epsilon: NumberOrBall | None = None
    ) -> list:
        """The law of ``L^ε_{x,x'}`` as ``m`` atoms ``(value, ω(y))`` from the closed-form entries.  O(m^2)."""
        for nm, v in (("x", x), ("x2", x2)):
            if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v < self.m:
                raise InvalidArgument(nm, v, f"must be an input value in 0..{self.m - 1}")
        ee = arith.exp_param(epsilon, exp_epsilon)
        rows, g = self.rows(), self.gamma()
        out = []
        for y in range(self.m):
            col = [rows[z][y] for z in range(self.m)]
            mn = col[0]
            for c in col[1:]:
                mn = min(mn, c) if _is_exact(mn) and _is_exact(c) else arith.ball(mn).min(arith.ball(c))
            out.append((g * (rows[x][y] - ee * rows[x2][y]) / mn, mn / g))
        return out

    def matrix(self) -> FiniteRandomizer:
        if not self.is_exact:
            raise InvalidArgument("alpha", None, "must be given exactly to build the explicit matrix")
        return FiniteRandomizer(self.rows(), name="geometric")

    def as_binary_rr(self) -> KRR:
        """``m = 2``: binary RR with ``e^{ε0} = 1/α`` (the same 2 × 2 matrix ``[[1, α], [α, 1]]/(1 + α)``, exactly;
        docs/mechanisms.md "m = 2 is binary RR"), given by ``ε0`` when this record is, else by ``e^{ε0} = 1/α``
        (exact).  Refused for ``m > 2``.  O(1).

        >>> Geometric(2, alpha="1/3").as_binary_rr().matrix() == Geometric(2, alpha="1/3").rows()
        True
        """
        if self.m != 2:
            raise InvalidArgument("m", self.m, "must be 2 for binary RR (a larger range is not randomized response)")
        if self.alpha_exact is not None:
            return KRR(2, exp_epsilon0=1 / self.alpha_exact)
        return KRR(2, self.epsilon0)

    def gamma(self) -> Enclosure:
        a, N = self.alpha, self.m - 1
        h = N // 2 + 1
        out = 2 * a**h
        if N % 2 == 0:
            out = (1 - a) * a ** (N // 2) + out
        return out / (1 + a)

    def describe(self) -> dict:
        return {"type": "geometric", "m": self.m, **eps0_description(self.epsilon0, "alpha", self.alpha_exact)}
