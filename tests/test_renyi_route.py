"""The Rényi route of exact/accounting/certified.py (renyi_route_delta) against independent routes.

Independent routes: the exhaustive worst case over all datasets (exact.shuffled.enumerate.worst_case on the
explicit matrix; exact.shuffled.binary.delta_binary_worst for binary RR, a member of the ldp class), and the
clone pair's own hockey-stick divergence (exact.shuffled.shuffled_oracles.clone_delta, the four-atom engine), which the
Rényi conversion relaxes: a conversion that forgot its factor, a moment from the optimistic PLD or an order's
δ below the pair's H would fall below one of them.
"""

import json

import pytest
from blanket.exact.accounting import certified as cb
from blanket.exact.mechanisms import oracles
from blanket.exact.mechanisms.finite import KRR
from blanket.exact.shuffled import oracles as shuffled_oracles
from blanket.exact.shuffled.binary import delta_binary_worst
from blanket.exact.shuffled.enumerate import worst_case
from blanket.reports.certificate import certify
from blanket.reports.cli import main
from blanket.reports.deployment import parse_deployment
from flint import fmpq

RECORDS = [
    oracles.OUE(3, exp_epsilon0=3),
    oracles.Subset(4, 2, exp_epsilon0=2),
    oracles.Geometric(3, alpha="1/2"),
]


@pytest.mark.parametrize("mech", RECORDS, ids=lambda m: m.kind)
def test_renyi_route_above_the_exhaustive_worst_case(mech):
    for n in (2, 3):
        for ee in (fmpq(1), fmpq(3, 2)):
            worst = worst_case(mech.matrix(), n, exp_epsilon=ee).value
            assert cb.renyi_route_delta(mech, n, exp_epsilon=ee) >= worst


def test_renyi_route_above_binary_rr_worst_case_for_ldp():
    m = oracles.LDP(exp_epsilon0=3)
    for n in (3, 6):
        worst = delta_binary_worst(KRR(2, exp_epsilon0=3), n, exp_epsilon=fmpq(3, 2))
        worst = getattr(worst, "value", worst)
        assert cb.upper_end(cb.renyi_route_delta(m, n, exp_epsilon=fmpq(3, 2))) >= cb.upper_end(worst)


@pytest.mark.parametrize("n,eps", [(5, "1/2"), (50, "3/10"), (2000, "1/10"), (10**5, "1/50")])
def test_renyi_route_relaxes_the_clone_pair(n, eps):
    for m in (oracles.LDP(epsilon0="1"), oracles.OUE(16, epsilon0="1")):
        r = cb.renyi_route_delta(m, n, epsilon=eps)
        h = shuffled_oracles.clone_delta(m, n, epsilon=eps)
        assert cb.upper_end(r) >= cb.upper_end(h)
        assert 0 <= r <= 1


def test_renyi_route_zero_at_epsilon0_and_exp_epsilon_form():
    m = oracles.LDP(exp_epsilon0=3)
    assert cb.renyi_route_delta(m, 10, exp_epsilon=3) == 0
    # exp_epsilon given: evaluated at a rational below log(ee), so it is at least the value at that rational
    a = cb.renyi_route_delta(m, 40, exp_epsilon=fmpq(3, 2))
    assert a >= cb.renyi_route_delta(m, 40, epsilon="0.4055")


def test_route_listed_in_best_upper_and_certificate():
    m = oracles.OUE(16, epsilon0="1")
    _, name, every = cb.best_upper(m, 300, epsilon="1/5")
    assert cb.RENYI in every and name != cb.RENYI  # it is listed; for one round it does not win
    text = (
        'name = "t"\n[mechanism]\ntype = "ldp"\nepsilon0 = "1"\n[users]\nn = 8\n'
        '[[claims]]\nepsilon = "2"\ndelta = "1e-9"\n'
    )
    cert = certify(parse_deployment(text), plot=False)
    names = [u["source"] for u in cert["claims"][0]["upper_candidates"]]
    assert any(cb.RENYI in s for s in names)


def test_cli_delta_lists_the_renyi_route(capsys):
    code = main(["delta", "--mechanism", "ldp", "--epsilon0", "1", "-n", "12", "--epsilon", "0.2", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    r = json.loads(out)
    assert cb.RENYI in r["upper_bounds"]
