"""proofs.composition: registered results, and instances of the composition theorem checked by exact enumeration."""

import itertools

import pytest
from blanket.exact.accounting import pld
from blanket.exact.mechanisms.finite import KRR
from blanket.exact.shuffled.bruteforce import shuffled_law
from blanket.proofs import composition as comp
from blanket.proofs import core


def test_results_registered_and_typeset():
    keys = {r.key for r in core.results("composition")} | {r.key for r in core.results("pld")}
    assert {
        "ZDW22 Theorem 10",
        "PLD delta formula",
        "PLD pessimistic discretisation",
        "PLD blanket view dominating pair",
        "RDP to DP conversion (CKS20 Prop. 12)",
    } <= keys
    for r in (comp.THEOREM_10, comp.PLD_FORMULA, comp.PESSIMISTIC, comp.BLANKET_PAIR, comp.RDP_CONVERSION):
        assert r.status == "derived" and r.status_note and "docs/composition.md" in r.status_note
        assert "\\delta" in r.latex() or "H_" in r.latex()
        assert r.check_symbolic().proved is None
    # not a candidate bound for single-round certificates (it bounds a composed quantity)
    assert comp.THEOREM_10.quantity == "delta_composed"


def _atoms(law_p, law_q):
    keys = set(law_p) | set(law_q)
    return [(h, law_p.get(h, 0), law_q.get(h, 0)) for h in keys]


@pytest.mark.parametrize("k,e0,n", [(2, 3, 4), (3, 2, 3)])
def test_theorem_10_instances(k, e0, n):
    """Two rounds on every pair of neighbouring datasets (exact shuffled laws, both directions; the second round may
    use a different neighbouring pair, as an adaptive analyst could): δ ≤ H of the product of the dominating pairs."""
    m = KRR(k, exp_epsilon0=e0)
    dom = pld.dominating_pair(m, n).atoms()
    dom2 = pld.product_atoms(dom, dom)
    rounds = []
    for others in itertools.combinations_with_replacement(range(k), n - 1):
        for x, x2 in itertools.permutations(range(k), 2):
            rounds.append(_atoms(shuffled_law(m, list(others) + [x]), shuffled_law(m, list(others) + [x2])))
    for ee in ("1", "3/2", "2"):
        bound = pld.hockey_stick(dom2, ee)
        worst = max(pld.hockey_stick(pld.product_atoms(a, b), ee) for a in rounds[:6] for b in rounds)
        assert worst <= bound
        one = max(pld.hockey_stick(a, ee) for a in rounds)
        assert one <= pld.hockey_stick(dom, ee)


def test_split_and_summed_statements_are_registered_with_checks_that_can_fail(monkeypatch):
    """Issue 25: the split-atom refinement (§3) and binary RR's summed-count lower pair (§5h), derived statements of
    certified paths, are registered with their status and a check; a wrong split or a wrong closed form fails it."""
    keys = {r.key for r in core.results("pld")}
    assert {"PLD split atoms", "Binary RR summed-count lower pair"} <= keys
    for r, proved in ((comp.SPLIT_ATOMS, True), (comp.SUMMED_PAIR, None)):
        assert r.status == "derived" and "this project's" in r.status_note and "docs/composition.md" in r.spec
        assert r.check_symbolic().proved is proved
    assert "Doroshenko" in comp.SPLIT_ATOMS.status_note
    assert "post-processing" in comp.SUMMED_PAIR.status_note
    assert comp.SUMMED_PAIR.quantity == "delta_composed"  # not a single-round candidate bound
    # weights linear in the ratio instead of the split's (the Q-masses no longer add up): refuted
    good = comp._split_atom
    monkeypatch.setattr(
        comp,
        "_split_atom",
        lambda pp, qq, a, b: (
            (pp - pp * (pp / qq - a) / (b - a), (pp - pp * (pp / qq - a) / (b - a)) / a),
            (pp * (pp / qq - a) / (b - a), pp * (pp / qq - a) / (b - a) / b),
        ),
    )
    assert comp.SPLIT_ATOMS.check_symbolic().proved is False
    monkeypatch.setattr(comp, "_split_atom", good)
    # a perturbed binomial law of the two-user part (the product and the closed form no longer agree): refuted
    law = comp._bin_law
    monkeypatch.setattr(comp, "_bin_law", lambda m, pr: law(m, pr * 9 / 10 + comp.sp.Rational(1, 20) if m == 2 else pr))
    assert comp.SUMMED_PAIR.check_symbolic().proved is False


def test_curve_pair_statement_is_registered_with_a_check_that_can_fail(monkeypatch):
    """Issue 25 (the mathematics): the worst-case curve pair (docs/composition.md §5d) is registered with its status
    and an exact instance; values below the worst case (not upper values) or a wrong pair of the hull fail it."""
    from blanket.exact.accounting import curves

    r = comp.CURVE_PAIR
    assert r.key in {x.key for x in core.results("pld")}
    assert r.status == "derived" and "this project's" in r.status_note and "§5d" in r.spec
    assert "Lebeda" in r.status_note  # the worst dataset's pair is not composed
    assert r.check_symbolic().proved is None
    good = curves.pair_from_values
    # 9/10 of the worst case: not upper values, so the hull falls below E somewhere
    monkeypatch.setattr(curves, "pair_from_values", lambda vals, **kw: good([(a, u * 9 / 10) for a, u in vals], **kw))
    assert r.check_symbolic().proved is False
    monkeypatch.setattr(curves, "pair_from_values", good)
    # a wrong pair of the hull (every P-mass 9/10 of the slope increment's): its curve falls below E
    vert = curves._pair_from_vertices

    def wrong(v, d):
        return curves.FinitePair(
            tuple((x if x is None else x * 9 / 10, pp * 9 / 10, qq) for x, pp, qq in vert(v, d).masses), d
        )

    monkeypatch.setattr(curves, "_pair_from_vertices", wrong)
    assert r.check_symbolic().proved is False
    # too large P-masses (11/10): the curve rises above the certified values at the grid points
    monkeypatch.setattr(
        curves,
        "_pair_from_vertices",
        lambda v, d: curves.FinitePair(
            tuple((x if x is None else x * 11 / 10, pp * 11 / 10, qq) for x, pp, qq in vert(v, d).masses), d
        ),
    )
    assert r.check_symbolic().proved is False


def test_banded_pair_statement_is_registered_with_a_check_that_can_fail(monkeypatch):
    """The banded third-value lower pair (docs/composition.md §1) is registered with its status and an exact instance;
    bands garbled to the level of a higher cell (not a post-processing) or no garbling at all fail it."""
    from blanket.exact.accounting import banded
    from flint import fmpq

    r = comp.BANDED_PAIR
    assert r.key in {x.key for x in core.results("pld")}
    assert r.status == "derived" and "this project's" in r.status_note and "§1" in r.spec
    assert r.quantity == "delta_composed" and r.kind == "lower_bound"
    assert r.check_symbolic().proved is None
    good = banded.band_level
    # each band at the level of its cell three above the lowest: w > w_s on the band's first cells (theta < 0)
    monkeypatch.setattr(banded, "band_level", lambda n, pi, a, b, m: good(n, pi, a, b, min(n, m + 3)))
    assert r.check_symbolic().proved is False
    monkeypatch.setattr(banded, "band_level", good)
    # the bands not garbled (level 1 = the target surely among the s): above the statistic
    monkeypatch.setattr(banded, "band_level", lambda n, pi, a, b, m: fmpq(1) if m > 1 else good(n, pi, a, b, m))
    assert r.check_symbolic().proved is False


def test_stratum_pair_statement_is_registered_with_a_check_that_can_fail(monkeypatch):
    """The two-stratum count lower pair (docs/composition.md §1) is registered with its status and an exact instance;
    the strata's weights swapped in the pair's law, or the law's target term left out, fail it."""
    from blanket.exact.accounting import stratum_lower

    r = comp.STRATUM_PAIR
    assert r.key in {x.key for x in core.results("pld")}
    assert r.status == "derived" and "this project's" in r.status_note and "§1" in r.spec
    assert r.quantity == "delta_composed" and r.kind == "lower_bound"
    assert r.check_symbolic().proved is None
    good = stratum_lower._classes
    # h_z = 1 reports counted with w_0 and h_z = 0 with w_1: not the statistic the brute force reads
    monkeypatch.setattr(stratum_lower, "_classes", lambda m, w0, w1: good(m, w1, w0))
    assert r.check_symbolic().proved is False
    # the target's report drawn from R(z) as well (its term's mass left out of the law): P = Q, not the brute force
    monkeypatch.setattr(
        stratum_lower, "_classes", lambda m, w0, w1: {y: (v[0], v[0], v[0]) for y, v in good(m, w0, w1).items()}
    )
    assert r.check_symbolic().proved is False


def test_one_round_statement_is_registered_with_a_check_that_can_fail(monkeypatch):
    """Session 11: the lower end "a composition is never below one of its rounds" (Laplace/Gaussian, geometric and
    single record rounds) is a registered statement; its exact check fails when the "composition" is a random choice
    of one round (a mixture, for which H can lie below the larger round's)."""
    r = comp.ONE_ROUND_LOWER
    assert r.key in {x.key for x in core.results("pld")} and r.status == "derived"
    assert "data-processing" in r.status_note and r.quantity == "delta_composed"
    assert r.check_symbolic().proved is None
    half = comp.sp.Rational(1, 2)
    monkeypatch.setattr(
        comp,
        "_product_law",
        lambda u, v: {**{("a", i): half * x for i, x in u.items()}, **{("b", j): half * y for j, y in v.items()}},
    )
    assert r.check_symbolic().proved is False
