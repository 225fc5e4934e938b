"""The oracle example deployments (examples/rappor_128.toml, olh_2_20.toml, generic_ldp.toml).

Each file's [mechanism] table builds with exact.mechanisms.registry.make_mechanism (exactly its keys), and every
[[claims]] entry is decided — certified to hold — by one evaluation of the fast certified upper bound
(exact.shuffled.oracles.blanket_view_delta_fast for frequency oracles, exact.shuffled.oracles.clone_delta for a
generic ε0-LDP randomizer) at n = 10^6: the budget is one evaluation per claim, counted, never seconds.  The
decision is three-valued (certified ≤, certified >, undecided) on the enclosure's upper end.
"""

import pathlib

import pytest
import tomllib
from blanket.exact.mechanisms.oracles import LDP
from blanket.exact.mechanisms.registry import make_mechanism
from blanket.exact.numbers import arith
from blanket.exact.shuffled.oracles import blanket_view_delta_fast, clone_delta

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"
FILES = ["rappor_128.toml", "olh_2_20.toml", "generic_ldp.toml"]
#: evaluations of a δ-function allowed per claim
BUDGET_PER_CLAIM = 1


@pytest.mark.parametrize("name", FILES)
def test_example_builds_and_its_claims_hold(name):
    data = tomllib.loads((EXAMPLES / name).read_text(encoding="utf-8"))
    mech = make_mechanism(dict(data["mechanism"]))
    n = data["users"]["n"]
    assert n == 10**6
    claims = data["claims"]
    assert claims
    calls = 0

    def upper(eps):
        nonlocal calls
        calls += 1
        e = arith.exact(eps)
        return clone_delta(mech, n, epsilon=e) if isinstance(mech, LDP) else blanket_view_delta_fast(mech, n, epsilon=e)

    with arith.precision(128):
        for c in claims:
            v = upper(c["epsilon"])
            assert arith.le(v, arith.exact(c["delta"])) is True, (name, c)
    assert calls <= BUDGET_PER_CLAIM * len(claims)
