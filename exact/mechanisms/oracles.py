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

Certified upper bounds (δ(ε) of the shuffled mechanism, replace-one
neighbours, n users):

* :func:`blanket_view_delta` — Balle et al. Lemma 5.3,
  ``(1/(γn)) E[(Σ_{i≤M} L_i)_+]``, ``M ~ Bin(n, γ)``, evaluated as the
  binomial mixture over ``M`` of the four-atom engine
  :func:`exact.shuffled.krr.expected_positive_part` applied to the law of ``L``.
  Cost ``O(W_M · n log(1/tol))`` (``W_M`` the window of ``M``): fine for
  ``n`` up to a few thousand, **not** the ``n = 10^6`` target — that needs a
  five-atom engine (V = 0 and the four values of L; two informative atoms
  and *three* ancillary ones instead of two).
* :func:`clone_delta` — Feldman–McMillan–Talwar FOCS 2021 clone pair, valid
  for *every* ε0-LDP randomizer: equal to ``(1/(p n)) E[(Σ_{i=1}^n V_i)_+]``
  with ``p = e^{−ε0}`` and ``V ∈ {2(e−ee)/(e+1), 2(1−ee·e)/(e+1)}`` w.p. ``p/2``
  each, else 0 — three atoms, so the fast engine applies directly
  (``O(n log(1/tol))``).  The identity with the pair's definition is
  checked by enumerating the pair in the tests.

Certified lower bound: :func:`same_family_delta` — the exact δ between the
datasets ``x^n`` and ``x^{n−1}x'`` (both directions), from the law of the
likelihood ratio ``R(x')(Y)/R(x)(Y)``, ``Y ~ R(x)``, which takes the values
``e, 1/e, 1`` (:meth:`FourValue.ratio_law`).

>>> m = OUE(4, exp_epsilon0=3)
>>> m.gamma(), m.gamma() == m.matrix().gamma()     # closed form vs the 16-output matrix
(43/64, True)
>>> Subset(4, 2, exp_epsilon0=2).gamma()
2/3
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from blanket.exact.mechanisms import registry
from blanket.exact.mechanisms.finite import (
    KRR,
    FiniteRandomizer,
    Randomizer,
    eps0_description,
    eps0_pair,
    finite_exp_epsilon0,
)
from blanket.exact.numbers import arith, guards
from blanket.exact.numbers.calibrate import epsilon_for_delta
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.numbers.types import At, DeltaOptions, Enclosure, IntegerInput, NumberInput, NumberOrBall
from blanket.exact.shuffled.krr import (
    delta_args,
    delta_blanket_view,
    delta_krr_family,
    engine_options,
    expected_positive_part,
)
from flint import arb, fmpq

if TYPE_CHECKING:
    from blanket.exact.numbers.calibrate import Bracket
    from typing_extensions import Unpack

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
    "blanket_view_delta",
    "blanket_view_delta_merged",
    "best_upper_delta",
    "epsilon_upper",
    "clone_delta",
    "clone_pair_law",
    "same_family_delta",
    "blanket_view_delta_enumerate",
    "MAX_MATRIX_OUTPUTS",
    "make_mechanism",
    "variation_ratio_delta",
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


def _set(obj, **kw):
    for k, v in kw.items():
        object.__setattr__(obj, k, v)


# ================================================================ generic ε0-LDP
@dataclass(frozen=True)
class LDP(_Eps0):
    """Any ε0-LDP local randomizer, known only by ε0 (adaptive choice allowed).

    Its only certified bound here is the FOCS 2021 clone pair
    (:func:`clone_delta`).  Its blanket is unknown; every ε0-LDP randomizer
    has ``γ ≥ e^{−ε0}`` (Balle et al. Lemma 5.2), which is exactly the clone
    probability of the pair.  The SODA 2023 "stronger clone" pair is **not**
    used: by its erratum it holds only for a restricted class of randomizers.

    >>> LDP(exp_epsilon0=3).gamma_lower()
    1/3
    """

    epsilon0: fmpq | None = None
    exp_epsilon0_exact: fmpq | None = None
    kind: str = field(default="ldp", init=False)

    def __init__(self, epsilon0=None, *, exp_epsilon0=None):
        e, ee = eps0_pair(epsilon0, exp_epsilon0)
        _set(self, epsilon0=e, exp_epsilon0_exact=ee, kind="ldp")

    def gamma_lower(self) -> Enclosure:
        """``e^{−ε0}``: a lower bound on the TV similarity of every ε0-LDP randomizer."""
        return 1 / self.exp_epsilon0()

    def describe(self) -> dict:
        return {"type": "ldp", **self._eps0_describe()}


# ================================================================ the four-value mechanisms
class FourValue(_Eps0):
    """Common part of the mechanisms whose L takes the four values γ·{e(1−ee), e−ee, 1−ee·e, 1−ee}."""

    kind = "?"

    # -- to be provided
    def gamma(self) -> Enclosure:  # pragma: no cover - abstract
        raise NotImplementedError

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
class UnaryEncoding(FourValue):
    """Unary encoding on a domain of size ``k ≥ 2``: one-hot encode x, then bit j is 1 w.p. ``p`` if j = x, else ``q``.

    Output space ``{0,1}^k``.  Requires ``0 < q < p < 1``; ``e^{ε0} = p(1−q)/((1−p)q)``.
    Use :func:`OUE` (p = 1/2, q = 1/(e^{ε0}+1)) or :func:`SUE` (basic RAPPOR:
    p = e^{ε0/2}/(e^{ε0/2}+1), q = 1 − p).  ``p``, ``q`` are exact rationals or balls.

    Blanket (derived): with ``ρ0 = (1−p)/(1−q)`` and ``B`` the product
    Bernoulli(q) law, ``min_x R(x)(y) = ρ0·B(y)`` unless y is all ones
    (then ``p·q^{k−1}``): ``γ = ρ0(1 − q^k) + p·q^{k−1}``.
    """

    k: int = 2
    p: Any = None  # given as any exact number (or a ball); __post_init__ validates and stores it
    q: Any = None
    epsilon0: fmpq | None = None
    exp_epsilon0_exact: fmpq | None = None
    kind: str = "ue"

    def __post_init__(self):
        if not isinstance(self.k, int) or isinstance(self.k, bool) or self.k < 2:
            raise InvalidArgument("k", self.k, "must be an integer >= 2 (the number of bits)")
        if _is_exact(self.p) and _is_exact(self.q) and not (0 < self.q <= self.p < 1):
            raise InvalidArgument("p", f"{self.p} (q = {self.q})", "must satisfy 0 < q <= p < 1")

    def output_count(self) -> int:
        return 2**self.k

    def exp_epsilon0(self) -> Enclosure:
        if self.exp_epsilon0_exact is not None:
            return self.exp_epsilon0_exact
        return self.p * (1 - self.q) / ((1 - self.p) * self.q)

    def gamma(self) -> Enclosure:
        p, q, k = self.p, self.q, self.k
        rho0 = (1 - p) / (1 - q)
        return rho0 * (1 - q**k) + p * q ** (k - 1)

    def l_probs(self) -> tuple:
        p, q, k = self.p, self.q, self.k
        g = self.gamma()
        rho0 = (1 - p) / (1 - q)
        both = rho0 * q * q * (1 - q ** (k - 2)) / g
        t = rho0 * q * (1 - q) / g
        rest = (rho0 * (1 - q) ** 2 + p * q ** (k - 1)) / g
        return both, t, rest

    def ratio_law(self) -> tuple:
        p, q = self.p, self.q
        return p * (1 - q), (1 - p) * q

    def rows(self) -> list:
        out = []
        for x in range(self.k):
            row = []
            for y in itertools.product((0, 1), repeat=self.k):
                pr = fmpq(1)
                for j, b in enumerate(y):
                    pj = self.p if j == x else self.q
                    pr *= pj if b else 1 - pj
                row.append(pr)
            out.append(row)
        return out

    def describe(self) -> dict:
        return {"type": self.kind, "k": self.k, "p": str(self.p), "q": str(self.q), **self._eps0_describe()}


def OUE(
    k: IntegerInput, epsilon0: NumberInput | None = None, *, exp_epsilon0: NumberInput | None = None
) -> UnaryEncoding:
    """Optimized unary encoding (Wang et al. 2017): ``p = 1/2``, ``q = 1/(e^{ε0}+1)``.

    >>> OUE(3, exp_epsilon0=3).q
    1/4
    """
    k = arith.integer_in(k, "k", lo=2)
    e, ee = eps0_pair(epsilon0, exp_epsilon0)
    E = ee if ee is not None else (fmpq(1) if e == 0 else arb(e).exp())
    if ee is None and e == 0:
        ee = fmpq(1)
    return UnaryEncoding(k=k, p=fmpq(1, 2), q=1 / (E + 1), epsilon0=e, exp_epsilon0_exact=ee, kind="oue")


def SUE(
    k: IntegerInput, epsilon0: NumberInput | None = None, *, exp_half_epsilon0: NumberInput | None = None
) -> UnaryEncoding:
    """Symmetric unary encoding = basic RAPPOR: ``p = e^{ε0/2}/(e^{ε0/2}+1)``, ``q = 1 − p``.

    Exact mode takes ``exp_half_epsilon0 = e^{ε0/2}`` (exact rational ≥ 1), so
    that ``p`` and ``q`` are rational; ``e^{ε0}`` is its square.

    >>> m = SUE(3, exp_half_epsilon0=2)
    >>> m.p, m.q, m.exp_epsilon0()
    (2/3, 1/3, 4)
    """
    k = arith.integer_in(k, "k", lo=2)
    if (epsilon0 is None) == (exp_half_epsilon0 is None):
        raise InvalidArgument("epsilon0", epsilon0, "must be given (or exp_half_epsilon0 instead), not both or neither")
    s: Enclosure  # e^{ε0/2}
    if exp_half_epsilon0 is not None:
        s = arith.exact_in(exp_half_epsilon0, "exp_half_epsilon0", lo=1)
        e, ee = None, s * s
    else:
        e, ee = arith.exact_in(epsilon0, "epsilon0", lo=0), None
        s = fmpq(1) if e == 0 else (arb(e) / 2).exp()
        if e == 0:
            ee = fmpq(1)
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

    def __init__(self, k, g, epsilon0=None, *, exp_epsilon0=None, collision=None, constant=0, family=None):
        k = arith.integer_in(k, "k", lo=2)
        g = arith.integer_in(g, "g", lo=2)
        e, ee = eps0_pair(epsilon0, exp_epsilon0)
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
        _set(self, k=k, g=g, epsilon0=e, exp_epsilon0_exact=ee, collision=c, constant=kap, family=fam, kind="olh")

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
        e, ee = eps0_pair(epsilon0, exp_epsilon0)
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
        e, ee = eps0_pair(epsilon0, exp_epsilon0)
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
class Geometric:
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
    alpha: Enclosure = fmpq(0)  # set by __init__
    epsilon0: fmpq | None = None
    kind: str = "geometric"

    def __init__(self, m, *, alpha=None, epsilon0=None):
        m = arith.integer_in(m, "m", lo=2)
        if (alpha is None) == (epsilon0 is None):
            raise InvalidArgument("alpha", alpha, "must be given (or epsilon0 instead), not both or neither")
        if alpha is not None:
            a = arith.exact_in(alpha, "alpha", lo=0, hi=1, lo_open=True, hi_open=True)
            e = None
        else:
            e = arith.exact_in(epsilon0, "epsilon0", lo=0, lo_open=True)
            a = (-arb(e) / (m - 1)).exp()
        _set(self, m=m, alpha=a, epsilon0=e, kind="geometric")

    @property
    def is_exact(self) -> bool:
        return _is_exact(self.alpha)

    def exp_epsilon0(self) -> Enclosure:
        return 1 / self.alpha ** (self.m - 1)

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

    def gamma(self) -> Enclosure:
        a, N = self.alpha, self.m - 1
        h = N // 2 + 1
        out = 2 * a**h
        if N % 2 == 0:
            out = (1 - a) * a ** (N // 2) + out
        return out / (1 + a)

    def describe(self) -> dict:
        return {"type": "geometric", "m": self.m, **eps0_description(self.epsilon0, "alpha", self.alpha)}


# ================================================================ certified upper bounds
def _check_n(n: object) -> int:
    return arith.integer_in(n, "n", lo=1)


def _chernoff_tail(N: int, rho, m: int, upper: bool):
    """Chernoff–Hoeffding ``P(X ≥ m)`` (upper, needs m ≥ Nρ) or ``P(X ≤ m)`` (m ≤ Nρ) for ``X ~ Bin(N, ρ)``, as a ball."""
    mean = N * arith.ball(rho)
    expo = arb(0)
    if m > 0:
        expo += m * (arb(m) / mean).log()
    if m < N:
        expo += (N - m) * (arb(N - m) / (N * (1 - arith.ball(rho)))).log()
    return (-expo).exp()


def _binom_window(N: int, rho, tol):
    """``[lo, hi]`` around ``Nρ`` with a certified bound on the mass outside (each side ≤ tol/2)."""
    r = float(arith.ball(rho).mid())
    mu, sd = N * r, math.sqrt(max(N * r * (1 - r), 1.0))
    z = math.sqrt(2 * max(1.0, math.log(2 / float(tol)))) + 2
    while True:
        lo, hi = max(0, int(mu - z * sd)), min(N, int(math.ceil(mu + z * sd)))
        tail = arb(0)
        ok = True
        if lo > 0:
            if not (lo <= N * arith.ball(rho)):
                ok = False
            else:
                tail += _chernoff_tail(N, rho, lo - 1, upper=False)
        if hi < N and ok:
            if not (hi + 1 >= N * arith.ball(rho)):
                ok = False
            else:
                tail += _chernoff_tail(N, rho, hi + 1, upper=True)
        if ok and (tail <= arb(tol) or (lo == 0 and hi == N)):
            return lo, hi, tail
        z *= 1.5


def _binom_pmf_range(N: int, rho, lo: int, hi: int, exact_mode: bool) -> list:
    if exact_mode:
        return [math.comb(N, j) * rho**j * (1 - rho) ** (N - j) for j in range(lo, hi + 1)]
    r = arith.ball(rho)
    lr, l1r = r.log(), (1 - r).log()
    first = (arb(N + 1).lgamma() - arb(lo + 1).lgamma() - arb(N - lo + 1).lgamma() + lo * lr + (N - lo) * l1r).exp()
    out = [first]
    ratio = r / (1 - r)
    for j in range(lo, hi):
        out.append(out[-1] * ratio * (N - j) / (j + 1))
    return out


def _mixture_over_M(n: int, gamma, l_atoms, *, tol, exact_max_n: int):
    """``(1/(γn)) Σ_M Bin(n, γ)(M) · E[(Σ_{i≤M} L_i)_+]`` for a four-atom L (both, t, t', rest)."""
    (vb, pb), (vt, pt), (vn, pn), (vr, pr) = l_atoms
    vals = [gamma, vb, pb, vt, pt, vn, pn, vr, pr]
    exact_mode = all(_is_exact(v) for v in vals) and n <= exact_max_n
    engine_atoms = [(pr, vr), (pt, vt), (pn, vn), (pb, vb)]
    if exact_mode:
        lo, hi, tail = 0, n, fmpq(0)
    else:
        lo, hi, tail = _binom_window(n, gamma, tol)
    weights = _binom_pmf_range(n, gamma, lo, hi, exact_mode)
    total: Enclosure = fmpq(0)
    for M, w in zip(range(lo, hi + 1), weights):
        if M == 0:
            continue
        v = expected_positive_part(
            M, engine_atoms, tol=tol, exact_max_n=exact_max_n if exact_mode else -1, label=f"blanket view M={M}"
        )
        total = w * v + total if not (_is_exact(w) and _is_exact(v)) else total + w * v
    if not _is_zero(tail):
        vmax: Enclosure = fmpq(0)
        for v, p in ((vb, pb), (vt, pt), (vn, pn), (vr, pr)):
            if not _is_zero(p):
                vmax = arith.ball(vmax).max(arith.ball(v))
        err = arith.ball(tail) * arith.ball(vmax).max(arb(0)) * n
        t = arith.ball(total)
        total = t.union(t + err)
    return total / (gamma * n)


def _four_value(
    mech: Randomizer, accepted: str = "OUE, SUE, OLH, Hadamard, Subset", hint: str | None = None
) -> FourValue:
    """``mech`` when it is a four-value mechanism, else :class:`InvalidArgument` naming ``accepted`` (and ``hint``)."""
    return guards.require_instance(mech, FourValue, "mech", f"must be one of {accepted}", shown="kind", hint=hint)


def blanket_view_delta(mech: Randomizer, n: IntegerInput, **opts: Unpack[DeltaOptions]) -> Enclosure:
    """Balle et al. Lemma 5.3 for a four-value mechanism: ``(1/(γn)) E[(Σ_{i≤M} L_i)_+]``, ``M ~ Bin(n, γ)``.

    A certified **upper bound** on δ(ε) of the shuffled mechanism over every
    pair of neighbouring datasets (it is the hockey-stick divergence of the
    view that reveals the other users' blanket draws; all ordered pairs
    x ≠ x' have the same L-law).  Exact ``fmpq`` when ``e^{ε0}`` and ``e^ε``
    are exact and ``n ≤ exact_max_n``; otherwise a ball (the window of M and
    each engine call carry their certified left-out mass).  Exactly 0 when
    ``ε ≥ ε0``.  Cost ``O(W_M · n log(1/tol))``, ``W_M = O(sqrt(n log(1/tol)))``.

    Keywords (:class:`~blanket.exact.numbers.types.DeltaOptions`): ``epsilon`` or ``exp_epsilon``; ``tol``, ``exact_max_n``.

    >>> blanket_view_delta(Subset(3, 1, exp_epsilon0=2), 2, exp_epsilon=1)   # = 3-RR, exact.shuffled.krr gives 3/16
    3/16
    """
    hint = "for the geometric mechanism use blanket_view_delta_enumerate; for LDP use clone_delta"
    mech = _four_value(mech, hint=hint)
    q = delta_args(mech, n, opts, "blanket_view_delta")
    if q is None:
        return fmpq(0)
    n, ee, tol, exact_max_n = q
    return _mixture_over_M(n, mech.gamma(), mech.l_law(exp_epsilon=ee), tol=tol, exact_max_n=exact_max_n)


def blanket_view_delta_merged(mech: Randomizer, n: IntegerInput, **opts: Unpack[DeltaOptions]) -> Enclosure:
    """A certified upper bound on :func:`blanket_view_delta`, fast: the "both" atom of L merged into "rest".

    For ``ε ≥ 0`` the value ``γe(1−ee)`` of the "both" atom is ``≤ γ(1−ee)``
    (the "rest" value, itself ``≤ 0``), and ``x ↦ (x)_+`` is non-decreasing,
    so replacing it by the rest value can only increase
    ``E[(Σ V_i)_+]``.  The merged ``V`` has four atoms (0, t, t', rest): one
    call of the four-atom engine, ``O(n log(1/tol))`` — the speed of the
    k-RR blanket view.  The loss against the exact Lemma 5.3 value is
    reported by ``tests/benchmarks/bench_oracles.py`` (it vanishes when
    ``π_both = 0``, e.g. subset selection with d = 1 = k-RR).

    Keywords (:class:`~blanket.exact.numbers.types.DeltaOptions`): ``epsilon`` or ``exp_epsilon``; ``tol``, ``exact_max_n``.

    >>> m = OUE(3, exp_epsilon0=3)
    >>> blanket_view_delta_merged(m, 4, exp_epsilon=1) >= blanket_view_delta(m, 4, exp_epsilon=1)
    True
    """
    mech = _four_value(mech)
    q = delta_args(mech, n, opts, "blanket_view_delta_merged")
    if q is None:
        return fmpq(0)
    n, ee, tol, exact_max_n = q
    gm = mech.gamma()
    (vb, pb), (vt, pt), (vn, pn), (vr, pr) = mech.l_law(exp_epsilon=ee)
    atoms = [(1 - gm, fmpq(0)), (gm * pt, vt), (gm * pn, vn), (gm * (pb + pr), vr)]
    return expected_positive_part(
        n, atoms, tol=tol, exact_max_n=exact_max_n, label=f"{mech.kind} blanket view (merged) n={n}"
    ) / (gm * n)


def best_upper_delta(
    mech: Randomizer, n: IntegerInput, *, exhaustive_max_n: int = 2000, **opts: Unpack[DeltaOptions]
) -> tuple[Enclosure, str, dict[str, Enclosure]]:
    """Every applicable certified upper bound on δ(ε), and the smallest: ``(value, name, {name: value})``.

    Candidates: the FOCS 2021 clone pair (every mechanism), the fast
    blanket view's certified upper end (four-value mechanisms:
    :func:`exact.shuffled.oracles.blanket_view_upper`, the convex-order
    spread or the merged view), and the exact Lemma 5.3 mixture
    when ``n ≤ exhaustive_max_n`` (it is ``O(n^{3/2})``).  The smallest is
    chosen by upper ends of the enclosures (a ball's upper end is what is
    certified).  An :class:`LDP` record has only the clone bound.

    Keywords (:class:`~blanket.exact.numbers.types.DeltaOptions`): ``epsilon`` or ``exp_epsilon``; ``tol``, ``exact_max_n``.
    """
    guards.check_options("best_upper_delta", opts, DeltaOptions)
    n = _check_n(n)
    cands = {"clone pair (FOCS 2021)": clone_delta(mech, n, **opts)}
    if isinstance(mech, FourValue):
        # here, not at the top: blanket.exact.shuffled.oracles imports this module
        from blanket.exact.shuffled.oracles import blanket_view_upper

        # the convex-order upper end (exact.shuffled.oracles) already takes the merged view when it is smaller
        cands["blanket view, fast upper end (Lemma 5.3)"] = blanket_view_upper(mech, n, **opts)
        if n <= exhaustive_max_n:
            cands["blanket view (Lemma 5.3)"] = blanket_view_delta(mech, n, **opts)

    def upper(v):
        return v if _is_exact(v) else arith.endpoints(v)[1]

    name = min(cands, key=lambda k: upper(cands[k]))
    return cands[name], name, cands


def epsilon_upper(
    delta_of_epsilon: Callable[[fmpq], Enclosure],
    target_delta: NumberInput,
    *,
    hi: NumberInput,
    rel_tol: NumberInput = "1e-4",
) -> Bracket:
    """Certified upper end of the smallest ε with ``δ(ε) ≤ target`` for one of this module's δ-functions.

    ``delta_of_epsilon(ε)`` is e.g. ``lambda e: clone_delta(mech, n, epsilon=e)``
    (non-increasing in ε); ``hi`` a point where the target is met (ε0 always
    is: every bound here is 0 at ε ≥ ε0).  Delegates to
    :func:`exact.numbers.calibrate.epsilon_for_delta`; returns its Bracket.
    """

    return epsilon_for_delta(delta_of_epsilon, target_delta, hi=hi, rel_tol=rel_tol)


def clone_delta(mech: Randomizer, n: IntegerInput, **opts: Unpack[DeltaOptions]) -> Enclosure:
    """``H_{e^ε}(P‖Q)`` of the FOCS 2021 clone pair: a certified upper bound on δ(ε) for **every** ε0-LDP randomizer.

    Pair (Feldman–McMillan–Talwar, FOCS 2021; structure corroborated by the
    authors' code, see docs/mechanisms.md): ``C ~ Bin(n−1, e^{−ε0})``,
    ``A ~ Bin(C, 1/2)``, ``Δ ~ Bern(e/(e+1))``, ``P = (A+Δ, C−A+1−Δ)``,
    ``Q = (A+1−Δ, C−A+Δ)``.  Evaluated through the identity (derived; tested
    against the enumerated pair) ``H = (1/(p n)) E[(Σ_{i=1}^n V_i)_+]``,
    ``p = e^{−ε0}``, ``V = 2(e−ee)/(e+1)`` or ``2(1−ee·e)/(e+1)`` w.p. ``p/2``
    each, else 0.  ``mech`` is anything with ``exp_epsilon0()`` (an
    :class:`LDP` record, or any mechanism of this module).  The pair is
    symmetric, so one direction suffices.  Cost ``O(n log(1/tol))``.

    Keywords (:class:`~blanket.exact.numbers.types.DeltaOptions`): ``epsilon`` or ``exp_epsilon``; ``tol``, ``exact_max_n``.

    >>> P, Q = clone_pair_law(2, 3)                     # the pair by its definition
    >>> clone_delta(LDP(exp_epsilon0=3), 2, exp_epsilon=2), sum(max(P[o] - 2 * Q.get(o, 0), 0) for o in P)
    (5/24, 5/24)
    """
    q = delta_args(mech, n, opts, "clone_delta")
    if q is None:
        return fmpq(0)
    n, ee, tol, exact_max_n = q
    e = finite_exp_epsilon0(mech, "the clone pair")
    p = 1 / e
    atoms = [(fmpq(0), fmpq(0)), (p / 2, 2 * (e - ee) / (e + 1)), (p / 2, 2 * (1 - ee * e) / (e + 1)), (1 - p, fmpq(0))]
    return expected_positive_part(n, atoms, tol=tol, exact_max_n=exact_max_n, label=f"clone pair n={n}") / (p * n)


def clone_pair_law(n: int, exp_epsilon0: NumberInput, clone_prob: NumberInput | None = None) -> tuple[dict, dict]:
    """The clone pair ``(P, Q)`` by its definition, as exact dicts ``{(u, v): prob}`` (small n; tests).

    ``clone_prob`` defaults to ``e^{−ε0}`` (FOCS 2021).  Cost ``O(n^2)``.
    """
    n = _check_n(n)
    e = arith.exact_in(exp_epsilon0, "exp_epsilon0", lo=1)
    pc = 1 / e if clone_prob is None else arith.exact_in(clone_prob, "clone_prob", lo=0, hi=1)
    dl = e / (e + 1)
    P: dict = {}
    Q: dict = {}
    for c in range(n):
        wc = math.comb(n - 1, c) * pc**c * (1 - pc) ** (n - 1 - c)
        for a in range(c + 1):
            wa = wc * fmpq(math.comb(c, a), 2**c)
            for d, wd in ((1, dl), (0, 1 - dl)):
                kp = (a + d, c - a + 1 - d)
                kq = (a + 1 - d, c - a + d)
                P[kp] = P.get(kp, fmpq(0)) + wa * wd
                Q[kq] = Q.get(kq, fmpq(0)) + wa * wd
    return P, Q


def same_family_delta(mech: Randomizer, n: IntegerInput, **opts: Unpack[DeltaOptions]) -> Enclosure:
    """Exact δ(ε) between the datasets ``x^n`` and ``x^{n−1} x'`` (max of both directions): a certified **lower** bound.

    By the sufficient statistic of ``exact/shuffled/krr.py`` (others i.i.d. ``R(x)``):
    forward ``(1/n) E[(Σ_i (1 − ee·Λ_i))_+]``, backward
    ``(1/n) E[(Σ_i (Λ_i − ee))_+]``, ``Λ = R(x')(Y)/R(x)(Y)``, ``Y ~ R(x)``,
    which takes the values ``1/e`` (w.p. a), ``e`` (w.p. b), 1.
    For an :class:`LDP` record (any ε0-LDP randomizer) the witness is
    binary randomized response with the same ε0 — one member of the class.
    Cost: the bulk count is degenerate (the engine's fourth atom has mass 0), so each
    direction is one call of the engine's one-dimensional route, O(√n·√log(1/tol)) ball operations
    (about 0.08 CPU s at n = 10⁶), exact rationals for exact inputs and ``n ≤ EXACT_MAX_N``.

    Keywords (:class:`~blanket.exact.numbers.types.DeltaOptions`): ``epsilon`` or ``exp_epsilon``; ``tol``, ``exact_max_n``.

    >>> from blanket.exact.shuffled.krr import delta_krr_family
    >>> from blanket.exact.mechanisms.finite import KRR
    >>> same_family_delta(Subset(3, 1, exp_epsilon0=2), 2, exp_epsilon=1), delta_krr_family(KRR(3, exp_epsilon0=2), 2, "same", exp_epsilon=1)
    (3/16, 3/16)
    """
    if isinstance(mech, LDP):
        # a concrete ε0-LDP randomizer: binary randomized response, through the k-RR family engine (the
        # subset-selection route k = 2, d = 1 has a 'rest' mass that is a ball around 0 when ε0 is given, and
        # the engine then returned nan)
        rr = KRR(2, mech.epsilon0, exp_epsilon0=mech.exp_epsilon0_exact)
        return delta_krr_family(rr, _check_n(n), "same", **opts)
    mech = _four_value(mech, accepted="LDP, OUE, SUE, OLH, Hadamard, Subset")
    q = delta_args(mech, n, opts, "same_family_delta")
    if q is None:
        return fmpq(0)
    n, ee, tol, exact_max_n = q
    e = mech.exp_epsilon0()
    a, b = mech.ratio_law()
    rest = 1 - a - b
    out = []
    for forward in (True, False):
        # the two informative atoms in decreasing order of value (the sum is symmetric in the atoms): the
        # engine's one-dimensional route needs v_t > v_t', and this law's bulk count is degenerate (π_r = 0),
        # so both directions take it (exact up to the windowing, O(√n)); in the other order the backward
        # direction fell back to the two-dimensional grid, O(n log(1/tol)) -- 5 s at n = 10^6
        if forward:
            hi_atom, lo_atom, v1 = (a, 1 - ee / e), (b, 1 - ee * e), 1 - ee
        else:
            hi_atom, lo_atom, v1 = (b, e - ee), (a, 1 / e - ee), 1 - ee
        atoms = [(rest, v1), hi_atom, lo_atom, (fmpq(0), v1)]
        out.append(expected_positive_part(n, atoms, tol=tol, exact_max_n=exact_max_n, label="same family") / n)
    return arith.maximum(out)  # exact max of exact values, else the ball max


# ================================================================ small-n enumeration (any finite L law)
def blanket_view_delta_enumerate(mech: Randomizer, n: IntegerInput, **at: Unpack[At]) -> Enclosure:
    """Lemma 5.3 for a mechanism with an explicit matrix (here: :class:`Geometric`), max over ordered pairs; small n.

    Sums over the multinomial counts of the atoms of ``V`` (``L`` w.p. γ,
    else 0): cost ``O(m^2 · C(n+A−1, A−1))``, ``A ≤ m+1`` atoms.  Exact for
    exact inputs; more than 10⁶ terms are refused (``InvalidArgument`` naming ``n``).  A fast engine for this
    case needs a sum over an m-atom law — e.g. a lattice convolution when the values of L are commensurable —
    which is left for the engine rewrite.

    Keywords (:class:`~blanket.exact.numbers.types.At`): ``epsilon`` or ``exp_epsilon``.

    >>> from blanket.exact.shuffled.krr import delta_blanket_view
    >>> from blanket.exact.mechanisms.finite import KRR
    >>> blanket_view_delta_enumerate(Geometric(2, alpha="1/2"), 2, exp_epsilon=1), delta_blanket_view(KRR(2, exp_epsilon0=2), 2, exp_epsilon=1)
    (2/9, 2/9)
    """

    guards.check_options("blanket_view_delta_enumerate", at, At)
    # a record's explicit matrix; a FiniteRandomizer is used as it is (its own matrix() is the list of rows)
    fr = mech.matrix() if isinstance(mech, (FourValue, Geometric)) else mech
    fr = guards.require_instance(
        fr, FiniteRandomizer, "mech", "must be a finite randomizer (exact.mechanisms.finite.FiniteRandomizer or KRR)"
    )
    n = _check_n(n)
    return delta_blanket_view(fr, n, method="enumerate", **at)


# ================================================================ records from plain data (deployment TOML / CLI)
def make_mechanism(spec: dict) -> Randomizer | None:
    """A record from plain data, e.g. a deployment's ``[mechanism]`` table: ``{"type": "oue", "k": 128, "epsilon0": "1"}``.

    The words, keys and parsing are those of :mod:`blanket.exact.mechanisms.registry` (the one
    vocabulary): ``type`` ∈ ldp, oue, sue, olh, hadamard, subset, geometric (and krr, binary_rr,
    matrix); ε0 as ``epsilon0`` (exact string) or ``exp_epsilon0`` (``exp_half_epsilon0`` for
    sue, ``alpha`` for geometric).  Unknown or missing keys are refused with the key named.

    >>> make_mechanism({"type": "subset", "k": 6, "d": 2, "exp_epsilon0": "3"}).gamma()   # k/(de+k-d) = 6/10
    3/5
    >>> make_mechanism({"type": "oue", "k": 4, "epsilon": "1"})
    Traceback (most recent call last):
    ...
    blanket.exact.numbers.errors.InvalidArgument: mechanism key epsilon is not a parameter of optimized unary encoding (OUE) (type 'oue'); accepted: epsilon0, exp_epsilon0, k, type, got 'epsilon' (did you mean 'epsilon0'?)
    """

    if not isinstance(spec, dict):
        raise InvalidArgument("mechanism", spec, "must be a table of parameters")
    kind = registry.resolve(spec.get("type"), k=spec.get("k"), name="mechanism type")
    params = registry.parse_params(
        kind, {k: v for k, v in spec.items() if k != "type"}, name=lambda key: f"mechanism key {key}", extra=("type",)
    )
    return registry.build(kind, params)


# ================================================================ a published bound, to be judged (not a certified bound)
def variation_ratio_delta(
    n: IntegerInput, p: NumberOrBall, beta: NumberOrBall, q: NumberOrBall | None = None, **opts: Unpack[DeltaOptions]
) -> Enclosure:
    """δ(ε) of the variation-ratio pair of Wang et al. (VLDB 2024) — **a published bound, not certified by Blanket**.

    This is this project's exact reading of the authors' ``Delta(ep, alpha, r0, r1, n, p)``
    (``wangsw/PrivacyAmplification``, ``unifiedamplification.py``, HEAD 34ca048) for
    ``q0 = q1 = q``.  ``α = β/(p−1)``, ``r = αp/q``.  The other users are i.i.d.
    on {0, 1, N} with masses ``(r, r, 1−2r)``.  The differing user has
    ``(pα, α, 1−α−pα)`` under one hypothesis and ``(α, pα, ·)`` under the other.
    By the sufficient statistic of exact/shuffled/krr.py,
    ``δ = (1/n) E[(Σ_i V_i)_+]`` with ``V = (p−ee)α/r``, ``(1−ee·p)α/r`` (mass ``r`` each)
    or ``(1−α−pα)(1−ee)/(1−2r)``.  The authors' float code agrees to 7+ digits at
    5 test points (docs/mechanisms.md).  ``p, beta, q`` are exact (``q`` defaults to ``p``).
    Cost ``O(n log(1/tol))``.

    For k-RR with the README's parameters ``p = q = e``, ``β = (e−1)/(e+k−1)`` it equals
    the *lumped* third-value view (exact.shuffled.krr.delta_krr_third_lumped).  That view is
    below the exact worst case for k ≥ 4: see tests/test_oracles.py for the counterexample.

    With the generic β = (e−1)/(e+1) it is the SODA 2023 stronger-clone pair, that is, the blanket view of binary RR:

    Keywords (:class:`~blanket.exact.numbers.types.DeltaOptions`): ``epsilon`` or ``exp_epsilon``; ``tol``, ``exact_max_n``.

    >>> from blanket.exact.shuffled.krr import delta_blanket_view
    >>> from blanket.exact.mechanisms.finite import KRR
    >>> variation_ratio_delta(4, 3, fmpq(1, 2), exp_epsilon=fmpq(3, 2)) == delta_blanket_view(KRR(2, exp_epsilon0=3), 4, exp_epsilon=fmpq(3, 2))
    True
    """
    guards.check_options("variation_ratio_delta", opts, DeltaOptions)
    n = _check_n(n)
    ee = arith.exp_param(opts.get("epsilon"), opts.get("exp_epsilon"))
    tol, exact_max_n = engine_options(opts)
    p = p if isinstance(p, arb) else arith.exact_in(p, "p", lo=1, lo_open=True)
    beta = beta if isinstance(beta, arb) else arith.exact_in(beta, "beta", lo=0, hi=1, lo_open=True)
    q = p if q is None else (q if isinstance(q, arb) else arith.exact_in(q, "q", lo=1))
    alpha = beta / (p - 1)
    r = alpha * p / q
    neutral_n = 1 - alpha - p * alpha
    if _is_exact(r) and not (0 < r and 2 * r <= 1) or (_is_exact(neutral_n) and neutral_n < 0):
        raise InvalidArgument("beta", str(beta), "gives clone masses outside [0, 1]; check (p, beta, q)")
    vN = fmpq(0) if _is_zero(neutral_n) else neutral_n * (1 - ee) / (1 - 2 * r)
    rest = 1 - 2 * r
    atoms = [(rest, vN), (r, (p - ee) * alpha / r), (r, (1 - ee * p) * alpha / r), (fmpq(0), vN)]
    # every value ≤ 0 (ε ≥ log p): the positive part of the sum is exactly 0, returned as the rational 0 rather than a
    # ball around 0.  vN ≤ 0 needs only ee ≥ 1: the neutral mass 1 − α − pα of the pair is ≥ 0 (checked exactly
    # above for exact inputs; for balls, e.g. 0 as a ball when β = (p−1)/(p+1), part of the pair's definition)
    if arith.le(1, ee) is True and all(arith.le(v, 0) is True for _, v in atoms[1:3]):
        return fmpq(0)
    return expected_positive_part(n, atoms, tol=tol, exact_max_n=exact_max_n, label="variation-ratio pair") / n
