"""The estimate a composition certificate prints before the work (issue 25 session 8): a fleet round with sampling
counts its concrete lower pairs, and a certificate counts its picture (one query per scaled schedule) and its PDF.

A cost model, never a bound: the tests check which parts are counted and how they move with the parameters, not
seconds (no test depends on the machine's speed).  The measured times behind the constants are in
exact/accounting/composition_cost.py and README.md (examples/fleet_daily.toml)."""

from __future__ import annotations

import pytest
from blanket.exact.accounting import composition_cost as cost
from blanket.exact.accounting.accountant import ShuffleAccountant, ShuffledRR
from blanket.exact.accounting.fleet_rounds import FleetRound
from blanket.exact.mechanisms.finite import KRR
from blanket.reports import composition
from blanket.reports.curve import ROUND_FRACTIONS

GROUPS = [(400000, KRR(2, epsilon0=1)), (600000, KRR(2, epsilon0=2))]


def test_fleet_lower_pairs_are_counted_with_sampling_only():
    sampled = FleetRound(GROUPS, q="1/100", colluding=100)
    assert sampled.query_cost(365) == pytest.approx(cost.fleet_lower_seconds(10**6 - 100, 365))
    assert sampled.query_cost(365, discretise=False) < sampled.query_cost(365)
    assert FleetRound(GROUPS, colluding=100).query_cost(365) == 0  # q = 1: the blanket view's kernel passes
    with_lower = ShuffleAccountant().compose(sampled, count=365).estimate()
    assert with_lower.pld >= sampled.cost_model()[1] + sampled.query_cost(365)
    # more users and more rounds: a finer grid, a longer support
    assert cost.fleet_lower_seconds(10**4, 365) < cost.fleet_lower_seconds(10**6, 365)
    assert cost.fleet_lower_seconds(10**6, 10) < cost.fleet_lower_seconds(10**6, 365)


def test_picture_and_pdf_are_printed_apart_and_not_refused(monkeypatch, capsys):
    acc = ShuffleAccountant().compose(FleetRound(GROUPS, q="1/100", colluding=100), count=365)
    plain = acc.estimate()
    pic = acc.picture_estimate(ROUND_FRACTIONS)
    scaled = [f for f in ROUND_FRACTIONS if f < 1]
    # one query per scaled schedule: its products and the fleet's lower pairs (already discretised), plus drawing
    assert pic >= cost.SECONDS_PICTURE_FIXED + len(scaled) * cost.fleet_lower_seconds(
        10**6 - 100, 365, discretise=False
    )
    monkeypatch.setattr(composition, "ESTIMATE_SHOWN_SECONDS", 0.0)
    d = composition.announce_cost(acc, picture=True, pdf=True)
    err = capsys.readouterr().err
    assert "picture " in err and "PDF " in err and err.startswith("blanket: composing 365 rounds: about ")
    assert d["seconds"] == pytest.approx(plain.seconds + pic + cost.SECONDS_PDF, abs=0.2)
    assert d["picture_seconds"] == pytest.approx(pic, abs=0.1) and d["pdf_seconds"] == cost.SECONDS_PDF
    bare = composition.announce_cost(acc)
    assert "picture" not in capsys.readouterr().err and bare["picture_seconds"] == 0
    # the refusal is about the composition alone: a limit between the two totals does not refuse the certificate
    monkeypatch.setenv("BLANKET_MAX_SECONDS", str(int(plain.seconds + 5)))
    composition.announce_cost(acc, picture=True, pdf=True)


def test_picture_of_a_plain_round_counts_the_scaled_products():
    acc = ShuffleAccountant(curves=False).compose(ShuffledRR(k=3, epsilon0=1, n=2000), count=10**4)
    pic = acc.picture_estimate(ROUND_FRACTIONS)
    assert pic > cost.SECONDS_PICTURE_FIXED + cost.products_seconds(10**4 // 4, 1, 0.25)  # (the lower pairs at 4Δ)
    assert pic < cost.SECONDS_PICTURE_FIXED + 3 * cost.products_seconds(10**4)
