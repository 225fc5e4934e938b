"""Certificates of deployments with ``type = "laplace"`` / ``"gaussian"`` (issue 27): the bracket and the decisive bound.

Independent references: the FAILS witness is recomputed here from exact binomial sums in rationals (the thresholded
binary channel on the datasets 0^n vs 1 0^(n-1), at the record's rational level), and a HOLDS is checked against the
blanket view's enclosure computed directly.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from blanket.exact.mechanisms.continuous import Laplace
from blanket.exact.numbers import arith
from blanket.exact.shuffled.continuous import blanket_view, quantised_rr
from blanket.exact.shuffled.continuous_dataset import dataset_delta_lower
from blanket.reports.certificate import certify
from blanket.reports.deployment import load_deployment
from flint import fmpq

N = 30
DIRS = ("1|0", "0|1")


def _dep(tmp_path, body: str):
    p = tmp_path / "d.toml"
    p.write_text(body)
    return load_deployment(p)


LAPLACE = f"""name = "laplace"
[randomizer]
mechanism = "laplace"
epsilon0 = "1"
[users]
n = {N}
[[claims]]
epsilon = "1"
delta = "1e-9"
[[claims]]
epsilon = "1/100"
delta = "1e-3"
[[targets]]
delta = "1e-3"
"""


def _threshold_delta(n: int, e: Fraction, eps: float) -> float:
    """max over both directions of the exact hockey-stick divergence of the count of ones: binary RR with
    P(report 1 | 0) = q = 1/(1+e), datasets 0^n vs 1·0^(n−1) (exact binomials, one float at the end)."""
    q = 1 / (1 + e)
    p1 = 1 - q

    def law(first: Fraction) -> list:
        # the count of ones: Bin(n-1, q) + Bern(first)
        b = [Fraction(math.comb(n - 1, k)) * q**k * (1 - q) ** (n - 1 - k) for k in range(n)]
        out = [Fraction(0)] * (n + 1)
        for k, m in enumerate(b):
            out[k] += m * (1 - first)
            out[k + 1] += m * first
        return out

    P, Q = law(p1), law(q)
    a = Fraction(math.exp(eps))
    fwd = sum((x - a * y for x, y in zip(P, Q) if x > a * y), Fraction(0))
    bwd = sum((y - a * x for x, y in zip(P, Q) if y > a * x), Fraction(0))
    return float(max(fwd, bwd))


def test_laplace_certificate_bracket_and_deciders(tmp_path):
    dep = _dep(tmp_path, LAPLACE)
    cert = certify(dep, plot=False)
    hold, fail = cert["claims"]
    assert hold["verdict"] == "HOLDS" and hold["decided_by"]["bound"] == "upper"
    assert hold["upper"]["key"].startswith("blanket-view-continuous")
    # the blanket view itself, computed directly, is below the claimed delta at this epsilon
    v = blanket_view(Laplace(1), N, epsilon=fmpq(1), h=fmpq(1, 64))
    assert v.upper <= fmpq(1, 10**9)
    assert fail["verdict"] == "FAILS" and fail["decided_by"]["bound"] == "lower"
    # the stronger lower end decides: the mechanism's own delta on 0^n vs 1 0^(n-1), above the thresholded outputs'
    # exact delta (exact binomials here) and below the blanket view of the same pair of inputs (0, 1)
    assert fail["lower"]["key"] == "dataset-lower-continuous"
    assert "the mechanism's own outputs" in fail["witness"]["dataset"]
    e = quantised_rr(Laplace(1)).exp_epsilon0()
    exact = _threshold_delta(N, Fraction(int(e.p), int(e.q)), 0.01)
    lo = float(arith.exact(fail["lower"]["value"]["lower"]))
    assert exact < lo <= float(blanket_view(Laplace(1), N, epsilon=fmpq(1, 100), h=fmpq(1, 64)).upper)
    (t,) = cert["targets"]
    assert t["verdict"] == "HOLDS" and t["kind"] == "bracket"
    lo_t, hi_t = arith.exact(t["epsilon_lower"]), arith.exact(t["epsilon_upper"])
    assert 0 < lo_t < hi_t
    # the upper end is certified: the blanket view at it is at most the target delta
    assert blanket_view(Laplace(1), N, epsilon=hi_t, h=fmpq(1, 64)).upper <= fmpq(1, 1000)
    # the JSON names the deciding lower end and both candidates; the larger decides
    cands = {k: arith.exact(v) for k, v in t["lower_candidates"].items()}
    assert t["lower_key"] == max(cands, key=lambda k: cands[k]) == "dataset-lower-continuous"
    assert cands[t["lower_key"]] == lo_t and "(0, 1)" in t["assumption"]
    # the thresholded candidate fails on the thresholded datasets (exact, independent), and the deciding one on the
    # mechanism's own outputs; both lie below the blanket view's own epsilon (same pair of inputs)
    e_f = Fraction(int(e.p), int(e.q))
    assert _threshold_delta(N, e_f, float(cands["quantised-threshold"]) * (1 - 1e-9)) > 1e-3
    assert max(dataset_delta_lower(Laplace(1), N, epsilon=lo_t, h=fmpq(1, 32), direction=d) for d in DIRS) > fmpq(
        1, 1000
    )
    assert lo_t <= arith.exact(t["blanket_view_epsilon"]["lower"])


def test_inconclusive_hint_names_what_limits(tmp_path):
    # between the bounds: above both lower ends (thresholded datasets, the mechanism's own delta's lower side; the
    # latter only places the claim), below the blanket view's
    v = blanket_view(Laplace(1), N, epsilon=fmpq(1, 5), h=fmpq(1, 64))
    e = quantised_rr(Laplace(1)).exp_epsilon0()
    own = max(dataset_delta_lower(Laplace(1), N, epsilon=fmpq(1, 5), h=fmpq(1, 32), direction=d) for d in DIRS)
    low = max(_threshold_delta(N, Fraction(int(e.p), int(e.q)), 0.2), float(own) * (1 + 1e-9))
    assert low < float(v.lower)
    mid = math.sqrt(low * float(v.lower))
    dep = _dep(
        tmp_path,
        f'name = "x"\n[randomizer]\nmechanism = "laplace"\nepsilon0 = "1"\n[users]\nn = {N}\n'
        f'[[claims]]\nepsilon = "1/5"\ndelta = "{mid:.6e}"\n',
    )
    cert = certify(dep, plot=False)
    assert cert["verdict"] == "INCONCLUSIVE"
    assert "more precision cannot decide it" in cert["_inconclusive_hint"]
    assert "lattice" in cert["_inconclusive_hint"]


@pytest.mark.parametrize("word", ["gaussian"])
def test_gaussian_certificate_holds_by_the_blanket_view(tmp_path, word):
    dep = _dep(
        tmp_path,
        f'name = "g"\n[randomizer]\nmechanism = "{word}"\nsigma = "2"\n[users]\nn = 10\n'
        '[[claims]]\nepsilon = "1"\ndelta = "1e-2"\n',
    )
    cert = certify(dep, plot=False)
    (c,) = cert["claims"]
    assert c["verdict"] == "HOLDS" and c["upper"]["key"].startswith("blanket-view-continuous")


def test_a_view_too_large_is_refused_not_attempted(tmp_path):
    from blanket.exact.mechanisms.continuous import Gaussian
    from blanket.exact.runtime.budget import TooExpensive

    for mech in (Laplace(1000), Gaussian(fmpq(1, 100))):
        with pytest.raises(TooExpensive, match="lattice points"):
            blanket_view(mech, 10, epsilon=fmpq(1), h=fmpq(1, 64))
    # a certificate then rests on what else applies (here the thresholded datasets' exact delta), with the reason
    dep = _dep(
        tmp_path,
        'name = "big"\n[randomizer]\nmechanism = "laplace"\nepsilon0 = "400"\n[users]\nn = 10\n'
        '[[claims]]\nepsilon = "1"\ndelta = "1e-6"\n',
    )
    (c,) = certify(dep, plot=False)["claims"]
    assert c["verdict"] in ("FAILS", "INCONCLUSIVE")
    assert any("lattice points" in e["error"] for e in c["source_errors"])
