"""The sampled k-RR pair memo (exact/accounting/sampled._memo_pair) never hands a pair built at a lower working
precision to a caller at a higher one: precision escalation must be able to narrow the composed enclosure."""

from blanket.exact.accounting import sampled
from blanket.exact.mechanisms.finite import KRR
from blanket.exact.numbers import arith
from flint import fmpq


def test_memo_rebuilds_at_higher_precision_and_reuses_downwards(monkeypatch):
    monkeypatch.setattr(sampled, "_PAIRS", {})
    mech = KRR(3, epsilon0="1")  # irrational e^{eps0}: the pair's balls depend on the precision
    q = fmpq(1, 3)
    with arith.precision(64):
        low = sampled._memo_pair(mech, 5, q)
        assert sampled._memo_pair(mech, 5, q) is low
    with arith.precision(256):
        high = sampled._memo_pair(mech, 5, q)
    assert high is not low
    with arith.precision(64):
        assert sampled._memo_pair(mech, 5, q) is high  # built at more bits: reused
