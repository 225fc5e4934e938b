"""Published amplification bounds for frequency oracles, judged: the variation-ratio bound of Wang et al., and
Su–Cheng–Wang's generic general-clone value (``SCW25 general clone [generic]``, refuted; docs/mechanisms.md).

Paper key ``WANG24``.  Each result is the δ(ε) of the variation-ratio pair with the per-mechanism parameters of
the authors' README table (p = q = e^{ε0} and a β per randomizer), evaluated in ball arithmetic by
:func:`exact.shuffled.oracles.variation_ratio_delta` (this project's exact reading of the authors' ``Delta``,
agreeing with their float code to 7+ digits, docs/mechanisms.md).  It is compared with the exact worst case over
all datasets of the mechanism itself (:mod:`exact.shuffled.enumerate` on its explicit matrix, small k and n) —
relation "exact" — or, at larger n, with the exact δ of a dataset family (relation "lower").

The grid holds the smallest certified counterexample found by ``blanket check-bound`` on
``examples/bounds/wang_vr_*.py`` (n = 2) and one point at larger n.  A false result is not marked
``known_false`` once a certified counterexample is registered in its grid (k-RR, RAPPOR, Hadamard, subset), so that
no command ever uses it as a bound; ``mechanisms`` is ``"judged-only:<kind>"`` for every variant, so that
``blanket certify`` never takes one of them as a candidate bound (none is certified).  Caveat: the paper's theorem
may carry conditions that the code and the README table do not state; they were not read.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

import sympy as sp
from blanket.exact.mechanisms import finite, oracles
from blanket.exact.numbers import arith
from blanket.exact.numbers.types import Enclosure, IntegerInput, NumberInput, NumberOrBall
from blanket.exact.shuffled.enumerate import worst_case
from blanket.exact.shuffled.generic_ldp import generic_lower, scw_generic_delta
from blanket.exact.shuffled.krr import delta_krr_family
from blanket.exact.shuffled.oracles import OracleMatrix, same_family_delta, variation_ratio_delta
from blanket.proofs.core import Hypothesis, Reference, ResultTable
from flint import arb, fmpq

TABLE = ResultTable("published_oracles.toml", globals())

epsilon = sp.Symbol("epsilon", nonnegative=True)
epsilon0 = sp.Symbol("epsilon0", positive=True)
delta = sp.Symbol("delta")
n = sp.Symbol("n", integer=True, positive=True)
k = sp.Symbol("k", integer=True, positive=True)
VR = sp.Function("delta_VR")

#: the smallest counterexample found by check-bound (ε0 = 0.67, ε = 0.51215, n = 2) and its neighbour point
_SMALL = {"epsilon0": "67/100", "epsilon": "10243/20000", "n": 2}


def variation_ratio_bound(
    epsilon: NumberInput, epsilon0: NumberOrBall, n: IntegerInput, beta: Callable[[arb], arb]
) -> Enclosure:
    """Wang et al.'s δ(ε) for ``n`` users with p = q = e^{ε0} and the β that ``beta`` gives for the ball e^{ε0}.

    ``epsilon`` and ``epsilon0`` are exact (``Fraction``, ``fmpq``, ``int``, a decimal or ``p/q`` string;
    ``epsilon0`` may be a ball); the pair is evaluated by :func:`exact.shuffled.oracles.variation_ratio_delta`.
    The ``WANG24`` results and the bound files ``examples/bounds/wang_vr_*.py`` evaluate the bound here, each with
    its README β.  Cost that of ``variation_ratio_delta``: O(n log(1/tol)).
    """

    e = (epsilon0 if isinstance(epsilon0, arb) else arb(arith.exact(epsilon0))).exp()
    return variation_ratio_delta(n, e, beta(e), epsilon=arith.exact(epsilon))


def _beta(kind, kk, e):
    if kind == "krr":
        return (e - 1) / (e + kk - 1)
    if kind == "rappor":
        s = e.sqrt()
        return (s - 1) / (s + 1)
    if kind in ("oue", "generic"):
        return (e - 1) / (e + 1)
    if kind == "olh":  # local hash with length l = 2
        return (e - 1) / (e + 1)
    if kind == "hadamard":
        K = 1 << int(kk).bit_length()
        s = K // 2
        return (s * (e - 1) / 2) / (s * e + K - s)
    if kind == "subset":  # subset size d = 2
        c, d = math.comb, 2
        return (e - 1) * (c(kk - 1, d - 1) - c(kk - 2, d - 2)) / (e * c(kk - 1, d - 1) + c(kk - 1, d))
    raise ValueError(kind)


def _mech(kind, kk, eps0, *, exact_e=None):

    e0 = eps0 if isinstance(eps0, fmpq) else fmpq(eps0)
    if kind == "krr":
        return finite.KRR(int(kk), epsilon0=e0)
    rec = {
        "rappor": lambda: oracles.SUE(int(kk), epsilon0=e0),
        "oue": lambda: oracles.OUE(int(kk), epsilon0=e0),
        "olh": lambda: oracles.OLH(
            int(kk), 2, epsilon0=e0, family=list(itertools.product(range(2), repeat=int(kk))), constant="family"
        ),
        "hadamard": lambda: oracles.Hadamard(int(kk), epsilon0=e0),
        "subset": lambda: oracles.Subset(int(kk), 2, epsilon0=e0),
    }[kind]()
    return rec


def _bound(kind):
    def f(**p):
        return variation_ratio_bound(p["epsilon"], p["epsilon0"], p["n"], lambda e: _beta(kind, int(p["k"]), e))

    return f


def _reference(kind):
    def f(**p):
        nn, kk, eps = int(p["n"]), int(p["k"]), fmpq(p["epsilon"])
        mech = _mech(kind, kk, p["epsilon0"])
        if nn <= 4:
            mat = mech if kind == "krr" else OracleMatrix(mech)
            return Reference(worst_case(mat, nn, epsilon=eps).value, "exact worst case over all datasets", "exact")
        if kind == "krr":
            return Reference(
                delta_krr_family(mech, nn, "third", epsilon=eps), "exact δ on the third-value family", "lower"
            )
        return Reference(same_family_delta(mech, nn, epsilon=eps), "exact δ on the same-value family", "lower")

    return f


#: variants refuted by a certified counterexample in their grid
REFUTED = ("krr", "rappor", "hadamard", "subset")

_VARIANTS = {
    "krr": (
        "k-RR, β = (e−1)/(e+k−1)",
        (("k", 3),),
        {"k": 10, "epsilon0": "2079/1000", "n": 1000, "epsilon": "131/500"},
    ),
    "rappor": ("RAPPOR / SUE, β = (e^{ε0/2}−1)/(e^{ε0/2}+1)", (("k", 2),), None),
    "oue": ("OUE with the generic β = (e−1)/(e+1)", (("k", 2),), None),
    "olh": ("local hashing l = 2, β = (e−1)/(e+1)", (("k", 2),), None),
    "hadamard": ("Hadamard response s = K/2, β = (s(e−1)/2)/(se+K−s)", (("k", 2),), None),
    "subset": ("subset selection d = 2, README β", (("k", 3),), None),
}

RESULTS = {}
for _kind, (_title, _ks, _large) in _VARIANTS.items():
    _grid = [{**_SMALL, **dict(_ks)}, {**_SMALL, **dict(_ks), "n": 3}]
    if _large:
        _grid.append(_large)
    RESULTS[_kind] = TABLE.register(
        f"WANG24 variation ratio [{_kind}]",
        statement=sp.Le(delta, VR(epsilon0, n, k, epsilon), evaluate=False),
        hypotheses=(Hypothesis(sp.Ge(n, 2), "n >= 2"),),
        numeric={"rhs": _bound(_kind)},
        exact=_reference(_kind),
    )


# ---------------------------------------------------------------- Su–Cheng–Wang's generic general-clone value (false)
def _scw_bound(**p):
    return scw_generic_delta(oracles.LDP(arith.exact(p["epsilon0"])), int(p["n"]), epsilon=arith.exact(p["epsilon"]))


def _scw_reference(**p):
    v, where = generic_lower(oracles.LDP(arith.exact(p["epsilon0"])), int(p["n"]), epsilon=arith.exact(p["epsilon"]))
    return Reference(v, f"exact δ of a concrete ε0-LDP randomizer and dataset: {where}", "lower")


SCW_GENERIC = TABLE.register(
    "SCW25 general clone [generic]",
    statement=sp.Le(delta, sp.Function("delta_GC")(epsilon0, n, epsilon), evaluate=False),
    hypotheses=(Hypothesis(sp.Ge(n, 2), "n >= 2"),),
    numeric={"rhs": _scw_bound},
    exact=_scw_reference,
)

TABLE.complete()
