"""The certificate chain of a composed sampled binary RR deployment (task polish14, item 2).  Before, every such
certificate (with colluding users or a plain ``binary_rr`` file) listed "Sampled four-value round through R_q",
although its curve pair's points may all come from the round's exact worst case over every dataset (Lemma S4,
"Sampled binary RR, exact worst case"); R_q's four-value view is a source of that curve pair and is among the results
only where it gave points (near ``e^ε = e^{ε0}``, where the exact search's tolerance is wider than the view's value).

Independent check: the sources that gave the composed curve pairs' points, read from the curve pairs themselves
(``curve_pairs._MEMO``, cleared first), not from the chain's code."""

from __future__ import annotations

import pytest
from blanket.exact.accounting import curve_pairs

FOUR_VALUE = "Sampled four-value round through R_q"
S4 = "Sampled binary RR, exact worst case"


def _chain_and_winners(tmp_path, n: int, q: str, colluding: bool) -> tuple[dict, bool]:
    from blanket.reports.composition import certify_composition

    from tests.test_seams11 import _dep

    col = "colluding = 4\n" if colluding else ""
    body = (
        f'[mechanism]\ntype = "binary_rr"\nepsilon0 = 1\n[users]\nn = {n}\n{col}'
        f'[[rounds]]\ncount = 2\nsampling = "{q}"\n'
    )
    curve_pairs._MEMO.clear()
    cert = certify_composition(_dep(tmp_path, body), plot=False)
    chain = {e["key"]: e for e in cert["chain"]}
    won = [p.description for p in curve_pairs._MEMO.values()]
    assert won and all("exact worst case (sampled binary RR, Lemma S4): " in d for d in won)
    four = any("blanket view (Lemma 5.3, fast): " in d or "clone pair (FOCS 2021): " in d for d in won)
    return chain, four


@pytest.mark.parametrize("colluding", [True, False])
def test_four_value_entry_absent_where_only_the_exact_worst_case_gave_points(tmp_path, colluding):
    chain, four = _chain_and_winners(tmp_path, 100, "1/10", colluding)
    assert not four  # the instance: every point of the curve pair is Lemma S4's
    assert FOUR_VALUE not in chain
    assert "points of its curve pair" in chain[S4]["used_for"]
    assert "Worst-case curve pair" in chain


def test_four_value_entry_named_where_the_view_gave_points(tmp_path):
    chain, four = _chain_and_winners(tmp_path, 20, "1/2", True)
    assert four  # the instance: R_q's four-value view gave points near e^eps0
    assert "4 colluding" in chain[FOUR_VALUE]["used_for"]
    assert "points of its curve pair" in chain[FOUR_VALUE]["used_for"]
    assert S4 in chain
