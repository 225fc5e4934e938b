"""The proofs registry is unchanged by refactoring (issue 15): every result's data fields, typeset statement and
display, and (slow) the full paper-check report, against snapshots written by the code before the refactoring
(see tests/proofs_snapshot.py).  Results are matched by key: the registration order across paper modules depends
on which module a test session imports first."""

import json

import pytest

from tests.proofs_snapshot import REGISTRY_FILE, REPORT_FILE, registry_snapshot, report_snapshot


def test_registry_matches_snapshot():
    want = {r["key"]: r for r in json.loads(REGISTRY_FILE.read_text())}
    got = {r["key"]: r for r in json.loads(json.dumps(registry_snapshot()))}
    assert sorted(got) == sorted(want)
    for key, g in got.items():
        assert g == want[key], key


@pytest.mark.slow
def test_paper_check_report_matches_snapshot():
    want = json.loads(REPORT_FILE.read_text())
    got = report_snapshot()
    assert got["summary"] == want["summary"]
    assert [p["key"] for p in got["papers"]] == [p["key"] for p in want["papers"]]
    for gp, wp in zip(got["papers"], want["papers"]):
        g = {r["key"]: r for r in gp["results"]}
        w = {r["key"]: r for r in wp["results"]}
        assert sorted(g) == sorted(w)
        for key in g:
            assert g[key] == w[key], key
    assert {k: v for k, v in got.items() if k != "papers"} == {k: v for k, v in want.items() if k != "papers"}
