"""Sums over the privacy-amplification variable ``L`` of Balle et al. (Lemma 5.3, Lemma A.3, Lemma 5.7).

Moved here from the former ``proofs/_blanket_numeric.py`` (issue 14: numerics live in
``exact/``; ``proofs/blanket.py`` imports this module directly).  Each routine
is the *evaluation* of a sympy expression held by a :class:`proofs.core.Result`
in ``proofs/blanket.py``, or an exact reference value a bound is compared
with.

* :func:`krr_law` — the three atoms of ``L^ε_{x,x'}`` for k-RR, O(1).
* :func:`eplus_krr` — ``E[(Σ_{i≤m} L_i)_+]`` through the shared four-atom
  engine :func:`exact.shuffled.krr.expected_positive_part` (exact rationals for
  ``m ≤ 64`` with exact inputs, else the one-dimensional O(√m) route or the
  grid); :func:`eplus_krr_sum` keeps the direct trinomial sum, O(m²), as an
  independent reference.
* :func:`eplus_law` — the same for any finite law, by exact convolution
  (small ``m``).
* :func:`blanket_sum` — the Lemma 5.3 sum term by term (small ``n``);
  :func:`geometric_binomial_sum` — its closed form for geometric terms.
* :func:`multiset_divergence` — the left side of Lemma A.3 by enumeration.

All routines accept exact rationals (``fmpq``) or ``arb`` balls and return
exact rationals when every input is exact (and the engine's exact range
applies), balls otherwise.  No binary float enters.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from blanket.exact.mechanisms.finite import FiniteRandomizer
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.numbers.types import Enclosure
from blanket.exact.shuffled.krr import compositions, expected_positive_part
from flint import arb, fmpq


# ----------------------------------------------------------------- the amplification variable L
def krr_law(k: int, exp_epsilon0: Enclosure, exp_epsilon: Enclosure) -> list:
    """Law of ``L^ε_{x,x'}`` for k-RR (Lemma 5.7 (1)): three atoms ``[(value, prob), ...]``.

    ``L = γ(1−e^ε) + k(1−γ)(1[W=x] − e^ε 1[W=x'])``, ``W`` uniform on ``[k]``,
    ``γ = k/(e^{ε0}+k−1)``.  Atoms: ``W = x`` (prob 1/k), ``W = x'`` (1/k),
    any other value (``(k−2)/k``, absent for ``k = 2``).  O(1).

    >>> krr_law(3, fmpq(2), fmpq(1))
    [(3/4, 1/3), (-3/4, 1/3), (0, 1/3)]
    """
    g = fmpq(k) / (exp_epsilon0 + k - 1) if not isinstance(exp_epsilon0, arb) else k / (exp_epsilon0 + k - 1)
    base = g * (1 - exp_epsilon)
    kk = k * (1 - g)
    law = [(base + kk, fmpq(1, k)), (base - kk * exp_epsilon, fmpq(1, k))]
    if k > 2:
        law.append((base, fmpq(k - 2, k)))
    return law


def _count(m: int) -> int:
    """A number of summands ``m``, checked ``>= 0`` (:class:`InvalidArgument` otherwise)."""
    if m < 0:
        raise InvalidArgument("m", m, "must be >= 0")
    return m


def eplus_krr(
    m: int, k: int, exp_epsilon0: Enclosure, exp_epsilon: Enclosure, *, engine: str | None = None
) -> Enclosure:
    """``E[(Σ_{i=1}^m L_i)_+]`` for i.i.d. k-RR amplification variables, through the four-atom engine.

    The atoms of ``L`` (:func:`krr_law`) are the engine's "t" (``W = x``),
    "t'" (``W = x'``) and "bulk" (any other value) atoms, so this is
    :func:`exact.shuffled.krr.expected_positive_part` with ``n = m``: exact for
    ``m ≤ 64`` and exact inputs, else a ball — O(√m·√log(1/tol)) for
    ``k = 2`` or ``m > GRID_MAX_N``, O(m log(1/tol)) otherwise
    (``engine`` forces one).  :func:`eplus_krr_sum` is the independent
    O(m²) reference.  ``m = 0`` gives 0.

    >>> eplus_krr(1, 2, fmpq(3), fmpq(1))   # γ = 1/2, L = ±1 w.p. 1/2
    1/2
    >>> eplus_krr(7, 3, fmpq(2), fmpq(5, 4)) == eplus_krr_sum(7, 3, fmpq(2), fmpq(5, 4))
    True
    """
    if _count(m) == 0:
        return fmpq(0)
    law = krr_law(k, exp_epsilon0, exp_epsilon)
    (v1, p1), (v2, p2) = law[0], law[1]
    bulk = (law[2][1], law[2][0]) if k > 2 else (fmpq(0), fmpq(0))
    return expected_positive_part(
        m, [bulk, (p1, v1), (p2, v2), (fmpq(0), fmpq(0))], engine=engine, label=f"E[(sum L)_+] m={m}"
    )


def eplus_krr_sum(m: int, k: int, exp_epsilon0: Enclosure, exp_epsilon: Enclosure) -> Enclosure:
    """``E[(Σ_{i=1}^m L_i)_+]`` for i.i.d. k-RR amplification variables by the direct trinomial sum (reference route).

    Sums over the counts ``(i, j)`` of the atoms ``W = x`` and ``W = x'``:
    ``Σ m!/(i! j! (m−i−j)!) k^{−i−j} ((k−2)/k)^{m−i−j} (i v_x + j v_{x'} + (m−i−j) v_0)_+``.
    O(m²) for k > 2, O(m) for k = 2.  ``m = 0`` gives 0.

    >>> eplus_krr_sum(1, 2, fmpq(3), fmpq(1))   # γ = 1/2, L = ±1 w.p. 1/2
    1/2
    """
    if _count(m) == 0:
        return fmpq(0)
    law = krr_law(k, exp_epsilon0, exp_epsilon)
    (v1, _), (v2, _) = law[0], law[1]
    v0: Any = law[2][0] if k > 2 else None
    out = fmpq(0)
    if k == 2:
        for i in range(m + 1):
            w = fmpq(math.comb(m, i), 2**m)
            out = arith.add(out, arith.mul(w, arith.positive_part(i * v1 + (m - i) * v2)))
        return out
    pk, p0 = fmpq(1, k), fmpq(k - 2, k)
    for i in range(m + 1):
        for j in range(m - i + 1):
            r = m - i - j
            w = fmpq(math.comb(m, i) * math.comb(m - i, j)) * pk ** (i + j) * p0**r
            out = arith.add(out, arith.mul(w, arith.positive_part(i * v1 + j * v2 + r * v0)))
    return out


def eplus_law(law: Sequence, m: int) -> Enclosure:
    """``E[(Σ_{i=1}^m L_i)_+]`` for i.i.d. copies of a finite law ``[(value, prob), ...]``.

    Exact convolution of the law of the sum (values merged when equal and
    exact).  O(m · s^m) in the worst case for ``s`` atoms without merging —
    for tests at small ``m`` only.
    """
    dist = {fmpq(0): fmpq(1)} if all(isinstance(v, fmpq) for v, _ in law) else None
    if dist is None:
        pts = [(fmpq(0), fmpq(1))]
        for _ in range(m):
            pts = [(s + v, p * q) for s, p in pts for v, q in law]
        out = fmpq(0)
        for s, p in pts:
            out = arith.add(out, arith.mul(p, arith.positive_part(s)))
        return out
    for _ in range(m):
        new: dict = {}
        for s, p in dist.items():
            for v, q in law:
                new[s + v] = new.get(s + v, fmpq(0)) + p * q
        dist = new
    out = fmpq(0)
    for s, p in dist.items():
        out = arith.add(out, arith.mul(p, arith.positive_part(s)))
    return out


# ----------------------------------------------------------------- Lemma 5.3 sum
def blanket_sum(n: int, gamma: Enclosure, eplus: Callable) -> object:
    """``(1/(γn)) Σ_{m=1}^n C(n,m) γ^m (1−γ)^{n−m} eplus(m)`` — the right side of Lemma 5.3, term by term.

    ``eplus(m)`` gives ``E[(Σ_{i≤m} L_i)_+]``.  O(n · cost(eplus)); for small
    ``n`` (tests and the check-papers grid).  The binomial weights are exact
    when ``γ`` is.
    """
    out = fmpq(0)
    for m in range(1, n + 1):
        w = arith.mul(fmpq(math.comb(n, m)), arith.mul(gamma**m, (1 - gamma) ** (n - m)))
        out = arith.add(out, arith.mul(w, eplus(m)))
    return out / (gamma * n)


def geometric_binomial_sum(n: int, gamma: Enclosure, K: Enclosure, r: Enclosure) -> Enclosure:
    """``(1/(γn)) Σ_{m=1}^n C(n,m) γ^m (1−γ)^{n−m} K r^m`` in closed form.

    By the binomial theorem the sum equals
    ``K ((1−γ+γr)^n − (1−γ)^n) / (γn)`` — exact, O(log n) multiplications, no
    windowing and no left-out mass.  This evaluates the ``Sum`` of the Bennett
    amplification bounds (per-m term ``K r^m`` with
    ``K = b₊/log(1+ab₊/c)``, ``r = exp(−(c/b₊²) h(ab₊/c))``).

    >>> geometric_binomial_sum(3, fmpq(1, 2), fmpq(1), fmpq(1, 3))
    37/324
    """
    if n < 1:
        raise InvalidArgument("n", n, "must be >= 1")
    return K * ((1 - gamma + gamma * r) ** n - (1 - gamma) ** n) / (gamma * n)


# ----------------------------------------------------------------- Lemma A.3 (multiset identity)
def multiset_divergence(mech: FiniteRandomizer, m: int, x: int, x2: int, exp_epsilon: Enclosure) -> Enclosure:
    """``D_{e^ε}(W_{1..m} ∪ {Y} ‖ W_{1..m} ∪ {Y'})`` with ``W_i ~ ω`` i.i.d., ``Y ~ μ_x``, ``Y' ~ μ_{x'}``.

    The left side of Lemma A.3, by enumerating every histogram ``h`` of
    ``m+1`` outputs: ``P(h) = Σ_y μ_x(y) Mult(h − e_y; m, ω)``.  Exact when the
    mechanism and ``e^ε`` are.  O(C(m+K, K) · K) for ``K`` outputs.
    """
    om = mech.blanket()
    mu, mu2 = mech.row(x), mech.row(x2)
    K = len(om)
    out = fmpq(0)
    for h in compositions(m + 1, K):
        p = q = fmpq(0)
        for y in range(K):
            if h[y] == 0:
                continue
            g = list(h)
            g[y] -= 1
            # multinomial probability of g under m draws of ω
            c = math.factorial(m)
            for gi in g:
                c //= math.factorial(gi)
            w = fmpq(c)
            for yy, gi in enumerate(g):
                if gi:
                    w = arith.mul(w, om[yy] ** gi)
            p = arith.add(p, arith.mul(w, mu[y]))
            q = arith.add(q, arith.mul(w, mu2[y]))
        out = arith.add(out, arith.positive_part(p - arith.mul(exp_epsilon, q)))
    return out
