"""The δ-functions' shared keywords (``**opts: Unpack[DeltaOptions]``) and the inputs the cross-module type check
showed were mishandled.

Each input case is checked against an independent route (the same value given in another exact spelling, the
enumerated law, brute force), or against the refusal the package promises (``InvalidArgument`` naming the
argument; ``TypeError`` for an unknown keyword, as Python gives for a signature).
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from blanket.exact.accounting import renyi as R
from blanket.exact.accounting import renyi_families as rf
from blanket.exact.accounting.certified import renyi_route_delta
from blanket.exact.mechanisms.finite import KRR, FiniteRandomizer
from blanket.exact.mechanisms.oracles import LDP, OUE
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.shuffled.binary import delta_binary, delta_binary_worst
from blanket.exact.shuffled.bruteforce import delta_brute
from blanket.exact.shuffled.enumerate import dataset_deltas, worst_case
from blanket.exact.shuffled.krr import delta_blanket_view, delta_krr_family
from blanket.exact.shuffled.oracles import blanket_view_delta, blanket_view_delta_enumerate, clone_delta
from flint import arb, fmpq

#: a randomizer with ε0 = ∞: the second input's row puts mass where the first's has none
INFINITE_EPS0 = FiniteRandomizer([[1, 0], ["1/2", "1/2"]], name="support-changing")


# ---------------------------------------------------------------- the keywords are checked by name
@pytest.mark.parametrize(
    "call",
    [
        lambda: delta_binary(KRR(2, exp_epsilon0=3), 3, 0, epsilom=1),
        lambda: delta_krr_family(KRR(3, exp_epsilon0=2), 4, "same", exp_epsilon=1, tols=fmpq(1, 2**40)),
        lambda: blanket_view_delta(OUE(3, exp_epsilon0=3), 4, exp_epsilon=1, exact_max=5),
        lambda: worst_case(KRR(2, exp_epsilon0=3), 3, exp_epsilon=1, progres=False),
        lambda: clone_delta(LDP(exp_epsilon0=3), 4, exp_epsilon=1, workers=2),
    ],
)
def test_an_unknown_keyword_is_refused_not_ignored(call):
    """A misspelt ``tol`` silently replaced by its default would change nothing visible: it must be an error."""
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        call()


def test_the_refusal_suggests_the_keyword():
    with pytest.raises(TypeError, match=r"'epsilom' \(did you mean 'epsilon'\?\)"):
        delta_binary(KRR(2, exp_epsilon0=3), 3, 0, epsilom=1)


def test_keywords_give_the_same_value_as_before_the_change():
    """Each keyword still reaches the routine: exact_max_n switches between the exact sum and the windowed engine
    (the two must agree, exact inside the ball), tol narrows the ball, and a keyword that is not given takes its
    default."""
    rr = KRR(3, exp_epsilon0=2)
    exact = delta_krr_family(rr, 40, "third", exp_epsilon=fmpq(3, 2))
    windowed = delta_krr_family(rr, 40, "third", exp_epsilon=fmpq(3, 2), exact_max_n=0, tol=fmpq(1, 2**100))
    assert isinstance(exact, fmpq) and isinstance(windowed, arb)
    assert windowed.contains(exact)
    # brute force over every output histogram, an independent route (n small)
    assert delta_krr_family(rr, 4, "same", exp_epsilon=fmpq(3, 2)) == max(
        delta_brute(rr, [0, 0, 0, 0], [0, 0, 0, 1], exp_epsilon=fmpq(3, 2)),
        delta_brute(rr, [0, 0, 0, 1], [0, 0, 0, 0], exp_epsilon=fmpq(3, 2)),
    )


@pytest.mark.parametrize("tol", ["1e-20", Fraction(1, 2**66), fmpq(1, 2**66), "1/73786976294838206464"])
def test_tol_in_any_exact_spelling_gives_the_same_enclosure(tol):
    """tol is read once as an exact number: a Fraction crashed the one-dimensional engine before."""
    rr = KRR(4, epsilon0=1)
    ref = delta_krr_family(rr, 200, "third", epsilon="1/2", tol=fmpq(1, 10**20) if tol == "1e-20" else fmpq(1, 2**66))
    v = delta_krr_family(rr, 200, "third", epsilon="1/2", tol=tol)
    assert (v.mid(), v.rad()) == (ref.mid(), ref.rad())


@pytest.mark.parametrize("tol, why", [(0, "> 0"), ("1", "< 1"), (arb(2) ** -60, "exact number"), (1e-20, "float")])
def test_a_bad_tol_is_named(tol, why):
    with pytest.raises(InvalidArgument, match=r"^tol "):
        delta_krr_family(KRR(4, epsilon0=1), 200, "third", epsilon="1/2", tol=tol)


def test_exact_max_n_is_an_integer():
    with pytest.raises(InvalidArgument, match=r"^exact_max_n "):
        delta_blanket_view(KRR(2, exp_epsilon0=3), 10, exp_epsilon=2, exact_max_n="many")


# ---------------------------------------------------------------- inputs the cross-module type check showed mishandled
def test_enumerated_blanket_view_accepts_a_finite_randomizer():
    """It took ``mech.matrix()`` of anything with a ``matrix`` attribute -- a FiniteRandomizer's is its list of rows,
    so k-RR was refused.  Cross-check: the fast k-RR engine (another route) and the enumeration of the matrix."""
    rr = KRR(3, exp_epsilon0=2)
    for n in (2, 3):
        enum = blanket_view_delta_enumerate(rr, n, exp_epsilon=fmpq(3, 2))
        assert enum == delta_blanket_view(rr, n, exp_epsilon=fmpq(3, 2), method="fast")


@pytest.mark.parametrize(
    "call",
    [
        lambda: clone_delta(INFINITE_EPS0, 5, exp_epsilon=2),
        lambda: renyi_route_delta(INFINITE_EPS0, 5, exp_epsilon=2),
    ],
)
def test_clone_routes_refuse_an_infinite_epsilon0_by_name(call):
    """exp_epsilon0() is None here: the clone pair divided by it (a bare TypeError) before."""
    assert INFINITE_EPS0.exp_epsilon0() is None
    with pytest.raises(InvalidArgument, match=r"^mech .*epsilon0 = infinity"):
        call()


def test_renyi_route_grid_in_any_exact_spelling():
    """The grid was turned into a cache key by fmpq(grid): a decimal string or a Fraction crashed."""
    m = LDP(epsilon0="1")
    values = {
        renyi_route_delta(m, 50, epsilon="1/2", grid=g)
        for g in ("1/1024", "0.0009765625", Fraction(1, 1024), fmpq(1, 1024))
    }
    assert len(values) == 1
    (v,) = values
    lo = arith.endpoints(clone_delta(m, 50, epsilon="1/2"))[0]
    assert 0 < v <= 1 and arith.le(arith.exact(lo), v) is True  # it relaxes the clone pair's own value


def test_binomial_window_reads_an_exact_p_in_any_spelling():
    """An exact p given as a string or Fraction was treated as a ball (no exact route, no range check)."""
    ref = R.binomial_window(6, fmpq(1, 3))
    for p in ("1/3", Fraction(1, 3)):
        w = R.binomial_window(6, p)
        assert w.mass == ref.mass and w.tail == 0
    with pytest.raises(InvalidArgument, match=r"^p "):
        R.binomial_window(6, "4/3")


def test_renyi_reads_n_as_an_integer_in_any_spelling():
    rr = KRR(2, exp_epsilon0=3)
    ref = rf.renyi(rr, 30, order=2, dataset="c=0")
    for n in ("30", "3e1", fmpq(30)):
        assert rf.renyi(rr, n, order=2, dataset="c=0").moment == ref.moment  # exact: e^eps0 rational
    with pytest.raises(InvalidArgument, match=r"^n "):
        rf.renyi(rr, "30.5", order=2, dataset="c=0")


def test_sweeps_take_their_execution_keywords():
    """workers/scheduler/progress reach the sweep (the same bits on one or two processes), and the generic
    enumeration agrees with the binary sweep."""
    rr = KRR(2, exp_epsilon0=3)
    one = delta_binary_worst(rr, 9, exp_epsilon=2, workers=1, progress=False)
    two = delta_binary_worst(rr, 9, exp_epsilon=2, workers=2, progress=False)
    assert one.value == two.value == max(e.value for e in dataset_deltas(rr, 9, exp_epsilon=2))


# ---------------------------------------------------------------- the search keywords pass through the front-ends
def test_front_ends_pass_the_search_keywords_on():
    """rel_tol reaches the search (a tighter one gives a bracket inside the looser one's), hi its domain (a target
    not met at hi is InfeasibleTarget), and an unknown search keyword is refused by name."""
    from blanket.exact.numbers.errors import InfeasibleTarget
    from blanket.exact.protocols import summation as xs

    P = xs.Protocol1D(1, fmpq(1, 2))
    loose = xs.certified_epsilon(P, 200, "1e-3", rel_tol="1e-2")
    tight = xs.certified_epsilon(P, 200, "1e-3", rel_tol="1e-6")
    assert loose.lower <= tight.lower <= tight.upper <= loose.upper and tight.rel_width() < loose.rel_width()
    with pytest.raises(InfeasibleTarget):
        xs.certified_epsilon(P, 200, "1e-3", hi=tight.lower / 2)
    with pytest.raises(TypeError, match="'rel_tl' \\(did you mean 'rel_tol'\\?\\)"):
        xs.certified_epsilon(P, 200, "1e-3", rel_tl="1e-2")


def test_calibrated_epsilon0_refuses_a_left_end_it_sets_itself():
    import blanket.proofs.blanket as B

    with pytest.raises(InvalidArgument, match=r"^search "):
        B.calibrated_epsilon0(B.THEOREM_5_3_RR, epsilon="1/10", delta="1e-6", n=5000, k=2, search={"lo": "1/5"})
    # and the search keywords it does take reach the search: a looser rel_tol, a wider bracket around the same ε0
    loose = B.calibrated_epsilon0(
        B.THEOREM_5_3_RR, epsilon="1/10", delta="1e-6", n=5000, k=2, search={"rel_tol": "1e-2"}
    )
    tight = B.calibrated_epsilon0(B.THEOREM_5_3_RR, epsilon="1/10", delta="1e-6", n=5000, k=2)
    assert loose.lower <= tight.lower <= tight.upper <= loose.upper and tight.rel_width() < loose.rel_width()
