"""The lazy registry (proofs.core._index): a paper module is imported only when one of its results is asked for,
and every answer is the one the fully loaded registry gives (same results, same order)."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest
from blanket.proofs import core

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


def _meta(r: core.Result) -> core._Meta:
    return core._Meta(r.paper, r.label, r.kind, r.quantity, tuple(r.mechanisms), r.known_false)


def test_index_is_the_registry_read_from_the_tables():
    """Every key of the tables is registered, by the module the index names, with the metadata the index holds;
    every registered result of a paper module is in the index."""
    everything = core.results()
    index = core._index()
    registered = {r.key: r for r in everything if core._ORIGIN.get(r.key, "").startswith("blanket.proofs.")}
    assert set(index) == set(registered)
    for key, (module, meta) in index.items():
        assert core._ORIGIN[key] == f"blanket.proofs.{module}", key
        assert _meta(registered[key]) == meta, key


@pytest.mark.parametrize(
    "selection",
    [
        {"paper": "BBGN19"},
        {"paper": "CY21", "include_false": False},
        {"paper": "BBGN19", "label": "Lemma 5.1", "include_false": False},
        {"kind": "upper_bound", "quantities": ("delta", "epsilon"), "mechanisms": ("any", "krr", "rr")},
        {"kind": "upper_bound", "quantities": ("delta",), "mechanisms": ("laplace",), "include_false": False},
    ],
)
def test_a_selection_is_the_full_list_filtered(selection):
    full = core.results()
    paper = core.PAPER_ALIASES.get(selection.get("paper"), selection.get("paper"))
    mechs = set(selection.get("mechanisms", ()))
    want = [
        r
        for r in full
        if (paper is None or r.paper == paper)
        and (selection.get("include_false", True) or not r.known_false)
        and ("label" not in selection or r.label == selection["label"])
        and ("kind" not in selection or r.kind == selection["kind"])
        and ("quantities" not in selection or r.quantity in selection["quantities"])
        and ("mechanisms" not in selection or {str(m).lower() for m in r.mechanisms} & mechs)
    ]
    assert want  # the selection is not empty: the test can fail
    assert [r.key for r in core.results(**selection)] == [r.key for r in want]


# a fresh process: what a `blanket certify` run imports and finds, against this process's fully loaded registry
_PROBE = """
import json, sys
from blanket.proofs import core
from blanket.reports.claims import candidate_results
from blanket.reports.deployment import load_deployment
cands = [r.key for r in candidate_results(load_deployment(sys.argv[1]))]
lemma = [r.key for r in core.results("BBGN19", label="Lemma 5.1", include_false=False)]
loaded = sorted(m for m in sys.modules if m.startswith("blanket.proofs.") and m != "blanket.proofs.core")
print(json.dumps({"cands": cands, "lemma": lemma, "loaded": loaded}))
"""


def test_a_certify_run_imports_only_the_modules_it_needs_and_finds_the_same_results():
    from blanket.reports.claims import _find_results, candidate_results
    from blanket.reports.deployment import load_deployment

    dep = EXAMPLES / "holds.toml"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, "-c", _PROBE, str(dep)], env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    got = json.loads(r.stdout)
    core.results()  # this process: everything loaded
    assert got["cands"] == [x.key for x in candidate_results(load_deployment(dep))]
    assert got["lemma"] == [x.key for x in _find_results("BBGN19", "Lemma 5.1")]
    assert got["cands"] and got["lemma"]
    # the pure-DP paper (CY21), the summation protocol and the oracles hold no bound on a k-RR deployment's delta
    assert "blanket.proofs.pure_dp" not in got["loaded"] and "blanket.proofs.summation" not in got["loaded"]


def test_get_and_lookup_import_the_owning_module():
    key = next(iter(core._index()))
    assert core.lookup(key) is core.get(key)
    assert core.lookup("no such key") is None
    with pytest.raises(core.InvalidArgument, match="not a registered result"):
        core.get("no such key")
