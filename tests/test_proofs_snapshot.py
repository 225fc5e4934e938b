"""The proofs registry is unchanged by refactoring (issue 15): every result's data fields, typeset statement and
display, and (slow) the full paper-check report, against snapshots written by the code before the refactoring
(see tests/proofs_snapshot.py)."""

import json

import pytest

from tests.proofs_snapshot import REGISTRY_FILE, REPORT_FILE, registry_snapshot, report_snapshot


def test_registry_matches_snapshot():
    want = json.loads(REGISTRY_FILE.read_text())
    got = json.loads(json.dumps(registry_snapshot()))
    assert [r["key"] for r in got] == [r["key"] for r in want]
    for g, w in zip(got, want):
        assert g == w, g["key"]


@pytest.mark.slow
def test_paper_check_report_matches_snapshot():
    want = json.loads(REPORT_FILE.read_text())
    got = report_snapshot()
    assert got["summary"] == want["summary"]
    for gp, wp in zip(got["papers"], want["papers"]):
        for g, w in zip(gp["results"], wp["results"]):
            assert g == w, g["key"]
    assert got == want
