"""Session 15's audit of the certificates (task auditor15): what an auditor reading them was misled by, each fixed
here with a check that can fail.

* the chain names the variant of a result the deployment's numbers rest on (a binary RR blanket view rests on Lemma
  5.3's k-RR instance, not on its Gaussian or mixed-fleet variants);
* the picture's shaded bracket follows the upper line as drawn (its chords between grid points), never the straight
  log-axis segment under them;
* a lower line drawn from several routes says it is the *largest* of them (it was labelled "the smallest of");
* a claim decided by a route too slow to draw as a line gets its certified upper bound marked at its ε;
* the caption says "Left:" only when there is a right panel;
* the terminal statement, the JSON and the PDF state the same verdict and the same digits.
"""

from __future__ import annotations

import json
import math
import pathlib
import shutil
import subprocess

import pytest
from blanket.reports import curve
from blanket.reports.certificate import _chain_variants, certify
from blanket.reports.claims import Source, _find_results
from blanket.reports.cli import main
from blanket.reports.deployment import parse_deployment
from blanket.reports.figures.privacy_curve import Line, Marker, Picture, Rounds, _band
from flint import fmpq

EX = pathlib.Path(__file__).resolve().parents[1] / "examples"


def test_chain_names_only_the_variant_the_blanket_view_rests_on():
    found = _find_results("BBGN19", "Lemma 5.3")
    assert {r.variant for r in found} >= {None, "gaussian", "fleet"}  # the registry still holds all three
    assert [r.variant for r in _chain_variants(found, "krr")] == [None]
    assert [r.variant for r in _chain_variants(found, "gaussian")] == ["gaussian"]
    # end to end: binary RR, n = 2000, a claim the exact blanket view decides
    dep = parse_deployment(
        'name = "t"\n[mechanism]\ntype = "krr"\nk = 2\nepsilon0 = "2"\n[users]\nn = 2000\n'
        '[[claims]]\nepsilon = "0.3"\ndelta = "1e-4"\n'
    )
    cert = certify(dep, plot=False)
    assert cert["claims"][0]["upper"]["key"] == "blanket-view"
    keys = [e["key"] for e in cert["chain"]]
    assert "BBGN19 Lemma 5.3" in keys
    assert not any(k.startswith("BBGN19 Lemma 5.3 [") for k in keys), keys
    # the deciding end names the result it rests on with its status (the registry's, read independently here)
    from blanket.proofs import core
    from blanket.reports.certificate import render_tex

    status = core.get("BBGN19 Lemma 5.3").status
    assert cert["claims"][0]["upper"]["rests_on"] == [f"BBGN19 Lemma 5.3 ({status})"]
    assert cert["claims"][0]["lower"]["rests_on"] == []  # an exact delta on one dataset: no registered result
    assert f"rests on BBGN19 Lemma 5.3 ({status})" in " ".join(render_tex(cert).split())
    # registered bounds that also certify the claim are in the chain as independent checks, the decider is not
    by_key = {e["key"]: e for e in cert["chain"]}
    assert by_key["BBGN19 Theorem 5.3 [rr]"]["used_for"].startswith("an independent check")
    assert "used_for" not in by_key["BBGN19 Lemma 5.3"]
    # a registered bound that decides (holds.toml's claim: BBGN19 Theorem 5.3 [rr]) is what the end rests on
    rr = parse_deployment(
        'name = "t"\n[mechanism]\ntype = "binary_rr"\nexp_epsilon0 = "3"\n[users]\nn = 1000\n'
        '[[claims]]\nepsilon = "1/2"\ndelta = "1e-6"\n'
    )
    cert = certify(rr, plot=False)
    up = cert["claims"][0]["upper"]
    # since probe15 (the Chernoff cap on the k-RR blanket view's deep tail) the exact blanket view (8e-30) decides
    # this claim; before, its windowing tolerance (~1e-23) let the registered bound decide.  Either way the end
    # names what it rests on, and the decider is not marked as an independent check.
    if up["kind"] == "registered bound":
        assert up["source"] == "BBGN19 Theorem 5.3 [rr]"
        assert up["rests_on"] == [f"BBGN19 Theorem 5.3 [rr] ({core.get('BBGN19 Theorem 5.3 [rr]').status})"]
        assert "used_for" not in {e["key"]: e for e in cert["chain"]}["BBGN19 Theorem 5.3 [rr]"]
    else:
        assert up["key"] == "blanket-view" and up["rests_on"] == [f"BBGN19 Lemma 5.3 ({status})"]
        assert "used_for" not in {e["key"]: e for e in cert["chain"]}["BBGN19 Lemma 5.3"]
        assert {e["key"]: e for e in cert["chain"]}["BBGN19 Theorem 5.3 [rr]"]["used_for"].startswith("an independent")


def test_band_follows_the_upper_chords():
    # upper drawn at five points (chords between the grid points 0, 1, 2), lower at the grid points only
    upper = Line("u", [0.0, 0.5, 1.0, 1.5, 2.0], [1e-2, 5e-3, 1e-8, 5e-9, 1e-14])
    lower = Line("l", [0.0, 1.0, 2.0], [1e-3, 1e-10, 0.0])
    x, lo, up = _band(upper, lower)
    assert x == [0.0, 0.5, 1.0, 1.5, 2.0]
    assert up == [1e-2, 5e-3, 1e-8, 5e-9, 1e-14]  # the band's top is the drawn upper line at every point
    # the straight log-axis segment from 1e-2 to 1e-8 is 1e-5 at 0.5: the old band top, far under the chord 5e-3
    assert math.isclose(lo[1], math.sqrt(1e-3 * 1e-10), rel_tol=1e-9)  # lower: as a log axis draws it
    assert lo[4] == 1e-300 and all(a <= b for a, b in zip(lo, up))  # a zero lower end: the band reaches the floor


def _source(key, role, title, values, expensive=False):
    return Source(key, role, title, lambda e, v=values: (fmpq(*v[e]), None), expensive=expensive)


def test_lower_line_is_the_largest_route_and_says_so():
    grid = curve.grid(fmpq(1), (), 4)
    lo_a = {e: (1, 10**6) for e in grid}
    lo_b = {e: (3, 10**6) for e in grid}
    up = {e: (1, 10) for e in grid}
    srcs = [
        _source("upper-x", "upper", "route U (an upper bound on every dataset)", up),
        _source("lower-a", "lower", "route A (a lower bound on the worst case)", lo_a),
        _source("lower-b", "lower", "route B (a lower bound on the worst case)", lo_b),
    ]
    pic = curve.single_round(
        srcs, [], lambda r, e, d: {}, title="t", focus=[], eps0=fmpq(1), delta=fmpq(1, 10**6), points=4
    )
    assert pic.lower is not None
    assert all(math.isclose(v, 3e-6) for v in pic.lower.delta)  # the largest lower end is drawn
    assert "the largest of: route A; route B" in pic.lower.label
    assert "smallest" not in pic.lower.label


def test_undrawn_deciding_upper_is_marked_at_its_claim():
    grid = curve.grid(fmpq(1), (fmpq(1, 2),), 4)
    up = {e: (1, 10) for e in grid}
    srcs = [
        _source("upper-x", "upper", "route U (an upper bound on every dataset)", up),
        # a frequency oracle's blanket-view route: too slow to draw (curve.slow_for_plot)
        _source("upper: blanket view", "upper", "blanket view (an upper bound on every dataset)", up),
    ]
    mark = Marker("claim 1: certified upper bound delta <= 1e-9", 0.5, 1e-9, kind="upper")
    drawn = Marker("claim 2: certified upper bound delta <= 0.1", 0.5, 0.1, kind="upper")
    pic = curve.single_round(
        srcs,
        [],
        lambda r, e, d: {},
        title="t",
        focus=[fmpq(1, 2)],
        eps0=fmpq(1),
        delta=fmpq(1, 10**6),
        points=4,
        claim_uppers=[("upper: blanket view", mark), ("upper-x", drawn)],
    )
    assert mark in pic.markers and drawn not in pic.markers
    assert "route U" in pic.upper.label and "blanket view" not in pic.upper.label


def test_caption_says_left_only_beside_a_right_panel():
    one = Picture(title="t", upper=Line("u", [0.0, 1.0], [1e-3, 1e-6]))
    assert not one.caption().startswith("Left:") and "Right:" not in one.caption()
    two = Picture(
        title="t", upper=Line("u", [0.0, 1.0], [1e-3, 1e-6]), rounds=Rounds([1, 2], [0.1, 0.2], [0.05, 0.1], "1e-6")
    )
    assert two.caption().startswith("Left:") and "Right:" in two.caption()
    # no upper line (k-RR with k > 2: its blanket view is too slow to draw): the caption still names the lower line
    low = Picture(title="t", upper=None, lower=Line("certified lower bound (X)", [0.0, 1.0], [1e-3, 1e-6]))
    assert "the certified lower bound (X) (dashed)" in low.caption() and "no certified upper line" in low.caption()


@pytest.mark.tex
def test_terminal_json_and_pdf_agree(tmp_path, capsys):
    """holds.toml (a claim and a target): the terminal's first line is the JSON statement; its verdict opens the
    PDF; every printed end (the claim's δ upper and lower ends, the target's ε bracket) appears with the same digits
    in the PDF, and the target's in the terminal; the ends are ordered (upper end rounded up, lower end down)."""
    from fractions import Fraction

    from tests.test_latex import require_tex

    require_tex()
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext (poppler-utils) is not installed")
    rc = main(["certify", str(EX / "holds.toml"), "-o", str(tmp_path)])
    assert rc == 0
    out = capsys.readouterr().out.splitlines()[0]
    data = json.loads((tmp_path / "certificate.json").read_text())
    assert out == data["statement"] and out.startswith(data["verdict"] + ":")
    pdf = subprocess.run(["pdftotext", str(tmp_path / "certificate.pdf"), "-"], capture_output=True, text=True).stdout
    flat = " ".join(pdf.split())
    assert flat.split("Verdict: ")[1].startswith(data["verdict"])
    claim = data["claims"][0]
    up, lo = claim["upper"]["value"], claim["lower"]["value"]
    assert Fraction(up["lower"]) <= Fraction(up["upper"]) and Fraction(lo["lower"]) <= Fraction(lo["upper"])
    for v in (up["upper"], lo["lower"]):
        assert v.split("e")[0] in flat, v
    t = data["targets"][0]
    assert Fraction(t["epsilon_lower"]) <= Fraction(t["epsilon_upper"])
    for v in (t["epsilon_lower"], t["epsilon_upper"]):
        assert v in flat and v in out, v


def test_composition_upper_line_is_drawn_as_chords():
    """The composed upper line between its grid points is the chord in e^eps of the certified values (at or above
    the straight log-axis segment, which can pass under the worst-case curve), and equals them at the grid points."""
    from blanket.exact.accounting.accountant import ShuffleAccountant, ShuffledRR

    acc = ShuffleAccountant(curves=False).compose(ShuffledRR(k=2, epsilon0="1", n=1000), 4)
    acc.get_epsilon("1e-6")
    pic = curve.composition(acc, title="t", focus=[], eps0_total=fmpq(4), delta=fmpq(1, 10**6), rounds=False, points=6)
    assert pic.upper is not None and pic.lower is not None
    grid = list(pic.lower.eps)
    assert len(pic.upper.eps) == (len(grid) - 1) * (curve.CHORD_POINTS + 1) + 1
    at = dict(zip(pic.upper.eps, pic.upper.delta))
    exact = {float(e): float(acc.get_delta(e, refine=False).upper) for e in curve.grid(fmpq(4), [], 6)}
    for x in grid:  # at the grid points: the certified values, or the convex minorant below a step (never above)
        assert at[x] <= exact[x] * (1 + 1e-12)
    for x0, x1 in zip(grid, grid[1:]):
        inner = [x for x in pic.upper.eps if x0 < x < x1]
        for x in inner:
            t = (x - x0) / (x1 - x0)
            geo = math.exp(math.log(exact[x0]) * (1 - t) + math.log(exact[x1]) * t) if exact[x1] > 0 else 0.0
            assert at[x] >= geo * (1 - 1e-9), (x, at[x], geo)


def test_bound_line_above_the_range_says_so_in_the_legend():
    from blanket.reports.figures.privacy_curve import _curve_panel
    from matplotlib.figure import Figure

    pic = Picture(
        title="t",
        upper=Line("u", [0.0, 1.0], [1e-3, 1e-6]),
        bounds=[Line("high", [0.0, 1.0], [1.0, 0.9]), Line("seen", [0.0, 1.0], [1e-3, 1e-5])],
        markers=[Marker("claim", 0.5, 1e-4, "HOLDS")],
    )
    ax = Figure().add_subplot()
    _curve_panel(ax, pic)
    labels = ax.get_legend_handles_labels()[1]
    assert "high - above the range shown" in labels and "seen" in labels
