"""Generic ε0-LDP: a worse concrete randomizer than binary RR, the same-randomizer bound, and a refuted published one.

The mathematics and its status are in ``docs/mechanisms.md`` ("Generic ε0-LDP: the bracket"); this module holds the
three computations (issue 25).

* **Lower end** (:func:`generic_lower`): the larger of two concrete ε0-LDP randomizers with a concrete pair of
  datasets, each an exact (or certified-ball) δ: binary RR with every other user holding the differing user's
  first value (``c = 0``), and **3-ary RR with every other user holding a third value**
  (:func:`three_rr_third_delta`).  With every other user on one input ``x`` the δ is ``(1/n)E[(Σ V_i)_+]`` with
  ``V = Λ0 − e^ε·Λ1``, ``(Λ0, Λ1) = (R(x0), R(x1))/R(x)`` at ``Y ~ R(x)``; ε0-LDP confines ``(Λ0, Λ1)`` to a hexagon
  and splitting an output towards the hexagon's vertices is a mean-preserving spread of V, so the worst randomizer
  of this dataset shape uses the six vertices only.  3-RR (vertices ``(e,1), (1,e), (1/e,1/e)``) is a local maximum
  of that three-dimensional polytope (every edge from it lowers δ, checked numerically at ε0 = 2, n = 10³); binary
  RR (``c = 0``) is another vertex.  At ε0 = 2, n = 10³, δ = 10⁻⁶ the 3-RR dataset needs ε ≥ 0.37197 (binary RR:
  0.32328).
* **Upper end for one randomizer run by every user** (:func:`same_randomizer_delta`; this project's derivation,
  status *derived*): Lemma 5.3 of Balle et al. with the blanket ``β = e^{−ε0}·max(R(x0), R(x1))`` of the differing
  pair (``β ≤ R(x)`` for every input ``x`` by ε0-LDP), then a mean-preserving spread of the view's variable onto
  the likelihood ratios ``e`` and ``1/e``, whose only pair is binary RR's: the δ of the binary-RR blanket view (the
  SODA 2023 "stronger clone" pair) at the same ε0.
* **The same value in FMT21's adaptive model** (:func:`adaptive_model_delta`, Lemma G1 [adaptive]; this project's
  derivation, status *derived*, 29 Nov 2026): the plain ``ldp`` record allows a sequence of randomizers chosen from
  earlier reports and applied to the permuted data; flags from each step's pair-specific blanket, a Bayesian filter
  over the other users' placements and Lemma G1's spread step by step (convex order of adapted sums) give the same
  bound (docs/mechanisms.md, "Lemma G1 in FMT21's adaptive model"; exact small-n evidence in
  ``tests/test_adaptive_ldp.py``).  So the plain record's upper end is the smaller of this and the FOCS 2021 pair.
* **Sampled participation** (:func:`sampled_model_delta`, Lemma G1 [sampled]; this project's derivation, status
  *derived*, 30 Nov 2026): each user takes part w.p. ``q``; Lemma G1-A's proof run on ``R_{i,q} = (1 − q)·⊥ +
  q·R_i`` with the blanket ``(1 − q)·⊥ + q·β_i`` (all of ``⊥``'s mass, common to every input) gives the blanket view
  of binary RR's sampled randomizer: ``G`` is ``1 − e^ε`` w.p. ``1 − q``, ``e − e^ε`` and ``1 − e^ε·e`` w.p.
  ``q/(e+1)`` each, else 0 (docs/mechanisms.md, "Lemma G1 under sampled participation").
* **Refuted** (:func:`scw_generic_delta`): the "general clone" GPARV that Su–Cheng–Wang's code uses for a generic
  ε0-LDP randomizer (values ``e − e^ε`` and ``1 − e^{ε+ε0}`` with probability ``e^{−ε0}/2`` each, else 0); it equals
  exactly ``(e^{ε0}+1)/(2e^{ε0})`` times the FOCS 2021 clone pair's δ, and binary RR and 3-RR exceed it
  (certified counterexamples in the docs and ``tests/test_generic_ldp.py``).

Complexity: each function is one or two calls of the four-atom engine
(:func:`blanket.exact.shuffled.positive_part.expected_positive_part`), O(√n) to O(n log(1/tol)) ball operations,
exact rationals for exact inputs and small n.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from blanket.exact.mechanisms.finite import KRR, Randomizer, exact_epsilon0, finite_exp_epsilon0
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.numbers.types import At, DeltaOptions, Enclosure, IntegerInput, NumberInput
from blanket.exact.shuffled.binary_dataset import delta_binary
from blanket.exact.shuffled.krr import delta_args, delta_krr_family, delta_stronger_clones
from blanket.exact.shuffled.positive_part import expected_positive_part
from flint import fmpq

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = [
    "krr_member",
    "three_rr_third_delta",
    "generic_lower",
    "same_randomizer_delta",
    "adaptive_model_delta",
    "sampled_model_delta",
    "scw_generic_delta",
]


def krr_member(mech: Randomizer, k: int) -> KRR:
    """k-ary RR with the same ε0 as ``mech`` (an ``ldp`` record, a k-RR record, an exact matrix, …):
    one member of the ε0-LDP class, built from the record's exact ε0 when it has one, else its exact ``e^{ε0}``.
    O(1)."""
    eps0 = exact_epsilon0(mech)
    if eps0 is not None:
        return KRR(k, eps0)
    e = getattr(mech, "exp_epsilon0_exact", None)
    if not isinstance(e, fmpq):
        e = finite_exp_epsilon0(mech, f"{k}-ary RR with the same epsilon0")
    if not isinstance(e, fmpq):
        raise InvalidArgument(
            "mech",
            getattr(mech, "kind", type(mech).__name__),
            "needs an exact epsilon0 or e^epsilon0 for a k-RR member",
        )
    return KRR(k, exp_epsilon0=e)


def three_rr_third_delta(mech: Randomizer, n: IntegerInput, **opts: Unpack[DeltaOptions]) -> Enclosure:
    """Exact δ(ε) of 3-ary RR with the same ε0, every other user holding the third value (both orders are equal).

    A certified **lower** bound on the worst case of every ε0-LDP randomizer (3-RR is one).  Through
    :func:`blanket.exact.shuffled.krr.delta_krr_family` (``"third"``): the grid engine ``O(n log(1/tol))`` up to its
    limit, else O(√n); exact rationals for exact inputs and small n.

    Keywords (:class:`~blanket.exact.numbers.types.DeltaOptions`): ``epsilon`` or ``exp_epsilon``; ``tol``, ``exact_max_n``.

    >>> from blanket.exact.mechanisms.oracles import LDP
    >>> three_rr_third_delta(LDP(exp_epsilon0=3), 2, exp_epsilon=1)
    8/25
    """
    return delta_krr_family(krr_member(mech, 3), arith.integer_in(n, "n", lo=2), "third", **opts)


def generic_lower(mech: Randomizer, n: IntegerInput, **at: Unpack[At]) -> tuple:
    """``(value, dataset text)``: the larger certified lower bound on δ(ε) of the ε0-LDP class from two concrete
    randomizers and datasets (binary RR, ``c = 0``; 3-RR, others on a third value); ``n ≥ 2``.  Cost: the two calls
    (about 0.1 s at n = 10³ and 10⁴, ε0 = 2).

    Keywords (:class:`~blanket.exact.numbers.types.At`): ``epsilon`` or ``exp_epsilon``.

    >>> from blanket.exact.mechanisms.oracles import LDP
    >>> v, text = generic_lower(LDP(exp_epsilon0=7), 10, exp_epsilon="3/2")
    >>> float(v) > 0.235, text.startswith("the randomizer is 3-ary")
    (True, True)
    """
    n = arith.integer_in(n, "n", lo=2)
    rr = krr_member(mech, 2)
    two = delta_binary(rr, n, 0, **at)
    three = three_rr_third_delta(mech, n, **at)
    texts = {
        2: (
            "the randomizer is binary randomized response with the same epsilon0 (one epsilon0-LDP randomizer); "
            f"all other {n - 1} users hold 0, the differing user holds 1 versus 0"
        ),
        3: (
            "the randomizer is 3-ary randomized response with the same epsilon0 (one epsilon0-LDP randomizer); "
            f"all other {n - 1} users hold a third value, the differing user holds 0 versus 1"
        ),
    }
    # the larger by certified lower ends (a lower bound: its lower end is what is certified)
    lo2, lo3 = arith.endpoints(arith.ball(two))[0], arith.endpoints(arith.ball(three))[0]
    return (three, texts[3]) if lo3 >= lo2 else (two, texts[2])


def same_randomizer_delta(mech: Randomizer, n: IntegerInput, **opts: Unpack[DeltaOptions]) -> Enclosure:
    """Certified upper bound on δ(ε) of ``n`` users who all run **one** ε0-LDP randomizer (not chosen per user).

    Equal to the binary-RR blanket view with the same ``e^{ε0}``
    (:func:`blanket.exact.shuffled.krr.delta_stronger_clones`); why it bounds every such randomizer:
    ``docs/mechanisms.md`` ("Generic ε0-LDP: the bracket", Lemma G1, this project's derivation, status *derived*).
    The special case of :func:`adaptive_model_delta` (FMT21's adaptive model); a certificate route for
    ``LDP(…, same_randomizer=True)``.
    O(√n·√log(1/tol)) ball operations (exact rationals for exact inputs and small n).

    Keywords (:class:`~blanket.exact.numbers.types.DeltaOptions`): ``epsilon`` or ``exp_epsilon``; ``tol``, ``exact_max_n``.

    >>> from blanket.exact.mechanisms.oracles import LDP
    >>> same_randomizer_delta(LDP(exp_epsilon0=3), 5, exp_epsilon="3/2")
    33/256
    """
    rr = krr_member(mech, 2)  # the binary-RR blanket view with the record's exact ε0 (or exact e^{ε0})
    n = arith.integer_in(n, "n", lo=1)
    if rr.epsilon0_exact is not None:
        return delta_stronger_clones(n, epsilon0=rr.epsilon0_exact, **opts)
    return delta_stronger_clones(n, exp_epsilon0=rr.exp_epsilon0(), **opts)


def adaptive_model_delta(mech: Randomizer, n: IntegerInput, **opts: Unpack[DeltaOptions]) -> Enclosure:
    """Certified upper bound on δ(ε) in FMT21's adaptive model (the plain ``ldp`` record): every ``R_i`` ε0-LDP and
    chosen from the earlier reports, applied to the uniformly permuted data; both orders, every ε ≥ 0.

    Lemma G1 [adaptive] (``docs/mechanisms.md``, "Lemma G1 in FMT21's adaptive model"; this project's derivation,
    status *derived*): the same value as :func:`same_randomizer_delta`, the binary-RR blanket view with the record's
    ``e^{ε0}``.  Not for client-specific randomizers (user ``j`` always running its own ``R_j``).
    O(√n·√log(1/tol)) ball operations (exact rationals for exact inputs and small n).

    Keywords (:class:`~blanket.exact.numbers.types.DeltaOptions`): ``epsilon`` or ``exp_epsilon``; ``tol``, ``exact_max_n``.

    >>> from blanket.exact.mechanisms.oracles import LDP
    >>> adaptive_model_delta(LDP(exp_epsilon0=3), 5, exp_epsilon="3/2")
    33/256
    """
    return same_randomizer_delta(mech, n, **opts)


def sampled_model_delta(mech: Randomizer, n: IntegerInput, q: NumberInput, **opts: Unpack[DeltaOptions]) -> Enclosure:
    """Certified upper bound on δ(ε) of one round of FMT21's adaptive model (or one randomizer for every user) in which
    each user takes part independently w.p. ``q`` (``0 < q ≤ 1``; the multiset of the reports, hence their number, is
    released); both orders, every ε ≥ 0.

    Lemma G1 [sampled] (``docs/mechanisms.md``, "Lemma G1 under sampled participation"; this project's derivation,
    status *derived*): ``(1/n)·E[(Σ_{i≤n} G_i)_+]`` with ``G_i`` i.i.d. ``1 − e^ε`` w.p. ``1 − q``, ``e − e^ε`` and
    ``1 − e^ε·e`` w.p. ``q/(e+1)`` each (``e = e^{ε0}``), else 0: the blanket view of binary RR's sampled randomizer
    (equal to Lemma S1's pair with k = 2, docs/composition.md §5f).  ``q = 1`` is :func:`adaptive_model_delta`.
    One call of the four-atom engine: O(√n·√log(1/tol)) ball operations (exact rationals for exact inputs and
    ``n ≤ exact_max_n``).

    Keywords (:class:`~blanket.exact.numbers.types.DeltaOptions`): ``epsilon`` or ``exp_epsilon``; ``tol``, ``exact_max_n``.

    >>> from blanket.exact.mechanisms.oracles import LDP
    >>> sampled_model_delta(LDP(exp_epsilon0=3), 5, 1, exp_epsilon="3/2") == adaptive_model_delta(
    ...     LDP(exp_epsilon0=3), 5, exp_epsilon="3/2")
    True
    >>> sampled_model_delta(LDP(exp_epsilon0=3), 2, "1/2", exp_epsilon=1)  # = binary RR's sampled worst case at n = 2
    7/32
    """
    qq = arith.exact_in(q, "q", lo=0, hi=1, lo_open=True)
    qq = qq if isinstance(qq, fmpq) else fmpq(qq)
    args = delta_args(mech, n, opts, "sampled_model_delta")
    if args is None:
        return fmpq(0)
    n, ee, tol, exact_max_n = args
    e = krr_member(mech, 2).exp_epsilon0()
    s = qq / (e + 1)
    atoms = [(1 - qq, 1 - ee), (s, e - ee), (s, 1 - ee * e), (qq - 2 * s, fmpq(0))]
    return expected_positive_part(n, atoms, tol=tol, exact_max_n=exact_max_n, label=f"sampled G1 n={n}") / n


def scw_generic_delta(mech: Randomizer, n: IntegerInput, **opts: Unpack[DeltaOptions]) -> Enclosure:
    """The generic-ε0 "general clone" value of Su–Cheng–Wang's code, ``(1/n)E[(Σ_{i≤n} G_i)_+]`` — **not a bound**.

    ``G = e − e^ε`` or ``1 − e^{ε+ε0}`` with probability ``e^{−ε0}/2`` each, else 0 (their
    ``LDPMechanism.get_gparv_distribution``).  It equals ``(e+1)/(2e)`` times the FOCS 2021 clone pair's δ at every
    ``(n, ε)`` and is exceeded by concrete ε0-LDP randomizers (``docs/mechanisms.md``); kept to certify that.
    One call of the four-atom engine, O(n log(1/tol)).

    Keywords (:class:`~blanket.exact.numbers.types.DeltaOptions`): ``epsilon`` or ``exp_epsilon``; ``tol``, ``exact_max_n``.

    >>> from blanket.exact.mechanisms.oracles import LDP
    >>> scw_generic_delta(LDP(exp_epsilon0=7), 2, exp_epsilon="3/2")
    143/392
    """
    q = delta_args(mech, n, opts, "scw_generic_delta")
    if q is None:
        return fmpq(0)
    n, ee, tol, exact_max_n = q
    e = finite_exp_epsilon0(mech, "the general-clone value")
    p = 1 / e
    atoms = [(fmpq(0), fmpq(0)), (p / 2, e - ee), (p / 2, 1 - ee * e), (1 - p, fmpq(0))]
    return expected_positive_part(n, atoms, tol=tol, exact_max_n=exact_max_n, label=f"general clone n={n}") / n
