"""The published variation-ratio bounds of Wang et al. (proofs/published_oracles.py) in the paper-check report.

The bound side (their pair, exact.shuffled.oracles.variation_ratio_delta) and the reference (the exact worst case
over all datasets of the mechanism's own matrix, exact.shuffled.enumerate) are separate computations; the n = 2
counterexample is also re-derived by brute force with mpmath in tests/test_bound_check_oracles.py.
"""

import pytest
from blanket.proofs import core
from blanket.reports.paper_check import check_result

EXPECTED = {
    "krr": "known false: refutation caught",
    "rappor": "known false: refutation caught",
    "hadamard": "known false: refutation caught",
    "subset": "known false: refutation caught",
    "oue": "consistent with exact values",
    "olh": "consistent with exact values",
}


def test_registered_under_wang24():
    keys = {r.key for r in core.results("wang")}
    assert keys == {f"WANG24 variation ratio [{v}]" for v in EXPECTED}


@pytest.mark.parametrize("variant", sorted(EXPECTED))
def test_findings(variant):
    out = check_result(core.get(f"WANG24 variation ratio [{variant}]"))
    assert out["finding"] == EXPECTED[variant]
    assert core.get(f"WANG24 variation ratio [{variant}]").mechanisms[0].startswith("judged-only:")  # never certify
    small = out["rows"][0]
    assert small["params"]["n"] == "2" and small["reference_relation"] == "exact"
