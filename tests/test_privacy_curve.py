"""The privacy-curve picture: a certificate's ``certificate-curve.png`` (JSON entry, PDF figure, all-or-nothing
outputs), ``blanket delta|epsilon --plot FILE`` (refusals before the computation, exit 2), the drawn data against
an independent route (the exhaustive worst case over all datasets at small n), and the rounds panel's scaled
accountant against a fresh one.

One certificate run (the README's example, ``examples/telemetry.toml``) serves the whole module.
"""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
from fractions import Fraction
from pathlib import Path

import pytest
from blanket.exact.accounting.accountant import ShuffleAccountant, ShuffledRR
from blanket.exact.numbers import arith
from blanket.exact.shuffled import enumerate as en
from blanket.reports import certificate as C
from blanket.reports import curve
from blanket.reports.cli import main
from blanket.reports.deployment import load_deployment
from blanket.reports.figures.privacy_curve import DPI, Picture, draw_png
from blanket.reports.output import OutputError
from flint import fmpq

from tests.test_latex import require_tex
from tests.test_typesetting import _check, _compile

EXAMPLES = Path(__file__).parent.parent / "examples"


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's signature and IHDR chunk (raises if it is not a PNG)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG signature"
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


@pytest.fixture(scope="module")
def telemetry(tmp_path_factory):
    """``blanket certify telemetry.toml -o DIR`` once (the README's command), with its PDF when TeX is here.

    The README's deployment without its ``target_delta``: the target's ε runs the exact sweeps over all datasets
    (a minute and more on two busy cores), which the picture does not draw; the claim is decided in seconds.
    """
    out = tmp_path_factory.mktemp("telemetry")
    text = (EXAMPLES / "telemetry.toml").read_text(encoding="utf-8")
    assert 'target_delta = "1e-8"' in text
    dep = out / "telemetry.toml"
    dep.write_text(text.replace('target_delta = "1e-8"', ""), encoding="utf-8")
    here = os.getcwd()
    os.chdir(out)  # short relative names, as a user types them (a long temporary path would overfill the PDF's lines)
    try:
        rc = main(["certify", dep.name, "-o", "certificate"])
    finally:
        os.chdir(here)
    assert rc == 0
    return out / "certificate"


def test_certificate_writes_a_png_and_lists_it(telemetry):
    png = (telemetry / "certificate-curve.png").read_bytes()
    width, height = png_size(png)
    assert width == round(7.5 * DPI)  # one panel, 7.5 inches
    assert 5 * DPI < height < 12 * DPI
    cert = json.loads((telemetry / "certificate.json").read_text(encoding="utf-8"))
    pic = cert["picture"]
    assert pic["file"] == "certificate-curve.png"
    assert pic["upper"].startswith("certified upper bound") and "blanket view" in pic["upper"]
    assert pic["lower"].startswith("certified lower bound") and "c = 0" in pic["lower"]
    assert pic["marked"][0].startswith("claim 1: (0.05, 1e-6) HOLDS")
    # every registered bound on delta that applies at the claim is drawn, or named as not drawn with why
    applying = [b for b in cert["claims"][0]["bounds"] if b["applies"]]
    for b in applying:
        name = f"{b['paper']} {b['label']}" + (f" [{b['variant']}]" if b["variant"] else "")
        drawn = any(x.startswith(name + " ") for x in pic["bounds"])
        skipped = any(x.startswith(name) for x in pic["not_drawn"])
        is_upper_line = b["label"] == "Lemma 5.3"  # the blanket view: the upper line itself
        assert drawn or skipped or is_upper_line, name
    assert any("exact worst case over all datasets" in x for x in pic["not_drawn"])
    assert "for the eye only" in pic["note"]


def test_targets_are_marked_with_their_bracket():
    cert = {
        "claims": [{"epsilon": "0.05", "delta": "1e-6", "verdict": "FAILS"}],
        "targets": [
            {"delta": "1e-8", "epsilon_lower": "0.03", "epsilon_upper": "0.04"},
            {"delta": "1e-9", "epsilon_lower": None, "epsilon_upper": None},  # nothing certified: not marked
        ],
    }
    markers, focus = curve.claim_markers(cert)
    assert [m.label for m in markers] == [
        "claim 1: (0.05, 1e-6) FAILS",
        "target delta = 1e-8: epsilon in [0.03, 0.04]",
    ]
    assert markers[0].verdict == "FAILS" and markers[1].eps_range == (0.03, 0.04) and markers[1].delta == 1e-8
    assert focus == [fmpq(1, 20), fmpq(1, 25)]


@pytest.mark.tex
def test_pdf_includes_the_picture(telemetry, tmp_path):
    require_tex()
    if not shutil.which("pdfimages"):
        pytest.skip("pdfimages (poppler-utils) is not installed")
    listing = subprocess.run(
        ["pdfimages", "-list", str(telemetry / "certificate.pdf")], capture_output=True, text=True, check=True
    ).stdout
    width, height = png_size((telemetry / "certificate-curve.png").read_bytes())
    assert any(line.split()[3:5] == [str(width), str(height)] for line in listing.splitlines()[2:]), listing
    # and the page typesets cleanly (no overfull box, no raw TeX in the text layer)
    shutil.copy(telemetry / "certificate-curve.png", tmp_path / "certificate-curve.png")
    text, log = _compile(tmp_path, (telemetry / "certificate.tex").read_text(encoding="utf-8"), "certificate")
    _check(text, log)
    flat = " ".join(text.split())  # the caption's line breaks move with its length
    assert "The privacy curve" in flat and "for the eye only" in flat
    assert "chords in exp(epsilon)" in flat  # what the upper line is between grid points


def test_plotted_lines_bracket_the_exhaustive_worst_case():
    """At small n the drawn upper line is >= the exact worst case over all datasets (exhaustive enumeration, an
    independent route) >= the drawn lower line, at every grid point; and upper >= lower everywhere."""
    dep = load_deployment(EXAMPLES / "telemetry.toml")
    dep = type(dep)(**{**dep.__dict__, "n": 12, "params": {"k": 2, "epsilon0": fmpq(1)}})
    mech = dep.build_mechanism()
    srcs, cands = C.sources(dep, mech), C.candidate_results(dep)
    pic = curve.single_round(
        srcs,
        cands,
        lambda r, e, d: C.evaluate_bound(r, dep, mech, e, d),
        title="t",
        focus=[fmpq(1, 4)],
        eps0=fmpq(1),
        delta=fmpq(1, 10**3),
        points=8,
    )
    assert pic.upper is not None and pic.lower is not None
    grid = curve.grid(curve.eps_max([fmpq(1, 4)], fmpq(1)), [fmpq(1, 4)], 8)
    assert [float(e) for e in grid] == list(pic.lower.eps)
    # the upper line: the grid and CHORD_POINTS more points per interval (chords in e^eps, curved on the log axis)
    assert set(pic.lower.eps) <= set(pic.upper.eps)
    assert len(pic.upper.eps) == (len(grid) - 1) * (curve.CHORD_POINTS + 1) + 1
    at = dict(zip(pic.upper.eps, pic.upper.delta))
    checked = 0
    for e, lo in zip(grid, pic.lower.delta):
        up = at[float(e)]
        assert up is not None
        if lo is not None:
            assert up >= lo
        with arith.precision(128):
            hi_w = arith.endpoints(en.worst_case(mech, 12, epsilon=e).value)[1]
        if lo is not None:
            assert lo <= float(hi_w) * (1 + 1e-12)
            checked += 1
    assert checked >= 5
    # every drawn upper value, between grid points too, is >= the exhaustive worst case at that very epsilon
    for x, up in zip(pic.upper.eps, pic.upper.delta):
        assert up is not None
        with arith.precision(128):
            lo_w = arith.endpoints(
                en.worst_case(mech, 12, epsilon=fmpq(Fraction(x).numerator, Fraction(x).denominator)).value
            )[0]
        assert up >= float(lo_w) * (1 - 1e-12), (x, up, lo_w)


def test_convex_upper_removes_a_step_and_stays_above_the_curve():
    """A staircase of certified upper values (the curve at the left end of each coarse step: E is non-increasing) is
    drawn as the chords of its lower convex hull in e^eps: never above the staircase, strictly below it inside the
    steps, and never below the exact worst-case curve (binary RR n = 10, its exact ROC hull pair, evaluated at a
    rational alpha >= e^eps: an independent exact value at or below E(e^eps))."""
    from blanket.exact.accounting import curves
    from blanket.exact.mechanisms.finite import KRR

    mech = KRR(2, epsilon0=1)
    pair = curves.binary_worst_pair(mech, 10)

    def exact_at(x: float, side: int) -> float:
        with arith.precision(128):
            a = arith.endpoints(arith.ball(fmpq(Fraction(x).numerator, Fraction(x).denominator)).exp())[side]
        return float(pair.hockey_stick(fmpq(a.numerator, a.denominator)))

    xs = [i / 32 for i in range(33)]  # eps in [0, 1]
    step = [exact_at(4 * (i // 4) / 32, 0) * (1 + 1e-12) for i in range(33)]  # E at the step's left end: >= E here
    dx, dy = curve.convex_upper(xs, step, between=3)
    assert dx[0] == 0 and dx[-1] == 1 and len(dx) == 32 * 4 + 1 and set(xs) <= set(dx)
    stair = dict(zip(xs, step))
    strictly = 0
    for x, y in zip(dx, dy):
        assert y is not None and y >= exact_at(x, 1) * (1 - 1e-12), (x, y)
        left = max(v for v in xs if v <= x)
        assert y <= stair[left] * (1 + 1e-15)  # never above the certified value to its left
        strictly += y < stair[left] * (1 - 1e-3)
    assert strictly > len(dx) // 2
    # a point with no certified value is skipped; fewer than two points: drawn as they are
    assert curve.convex_upper([0.0, 0.5], [None, 0.25]) == ([0.5], [0.25])


def test_upper_line_is_the_worst_case_curve_where_it_was_swept():
    """Binary RR whose worst-case curve was swept in this process: the upper line is at most the cheap sources'
    line, at least the exhaustive worst case over all datasets (enumeration, an independent route), the legend names
    the curve, and it is below the blanket view somewhere (the point of drawing it)."""
    from blanket.exact.accounting import curves

    n = 12
    dep = load_deployment(EXAMPLES / "telemetry.toml")
    dep = type(dep)(**{**dep.__dict__, "n": n, "params": {"k": 2, "epsilon0": fmpq(1)}})
    mech = dep.build_mechanism()
    srcs, cands = C.sources(dep, mech), C.candidate_results(dep)

    def draw(pair):
        return curve.single_round(
            srcs,
            cands,
            lambda r, e, d: C.evaluate_bound(r, dep, mech, e, d),
            title="t",
            focus=[fmpq(1, 4)],
            eps0=fmpq(1),
            delta=fmpq(1, 10**3),
            points=8,
            curve_pair=pair,
        )

    pair = curves.binary_worst_curve_pair(mech, n, points=64, workers=1, progress=False)
    assert curves.computed_curve_pair(mech, n) is pair and curves.computed_curve_pair(mech, n + 1) is None
    plain, with_curve = draw(None), draw(pair)
    assert curve.CURVE_TITLE in with_curve.upper.label and curve.CURVE_TITLE not in plain.upper.label
    assert list(with_curve.upper.eps) == list(plain.upper.eps)
    below = 0
    for x, up, old in zip(with_curve.upper.eps, with_curve.upper.delta, plain.upper.delta):
        assert up is not None and up <= old
        below += up < old * (1 - 1e-6)
        e = fmpq(Fraction(x).numerator, Fraction(x).denominator)
        with arith.precision(128):
            lo_w = arith.endpoints(en.worst_case(mech, n, epsilon=e).value)[0]
        assert up >= float(lo_w) * (1 - 1e-12)
    assert below >= 3


def test_bound_lines_are_the_registered_values():
    """A drawn registered bound is the bound's own certified value at each grid point (evaluated independently)."""
    dep = load_deployment(EXAMPLES / "telemetry.toml")
    mech = dep.build_mechanism()
    cands = [r for r in C.candidate_results(dep) if r.key == "BBGN19 Theorem 5.3 [rr]"]
    pic = curve.single_round(
        [],
        cands,
        lambda r, e, d: C.evaluate_bound(r, dep, mech, e, d),
        title="t",
        focus=[fmpq(1, 20)],
        eps0=fmpq(2),
        delta=fmpq(1, 10**6),
        points=4,
    )
    (line,) = pic.bounds
    for x, y in zip(line.eps, line.delta):
        e = arith.exact(repr(x)) if x else fmpq(0)
        if y is None:
            continue
        v = cands[0].bound(n=dep.n, k=2, epsilon0=fmpq(2), epsilon=e, delta=fmpq(1, 10**6))
        assert y == pytest.approx(float(arith.endpoints(v)[1]), rel=1e-9)


def test_plot_option_refuses_bad_paths_before_computing(tmp_path, capsys):
    # -n 1 is itself invalid: the --plot refusal comes first, so it is checked before any input is used
    base = ["delta", "--mechanism", "rr", "--epsilon0", "1", "-n", "1", "--epsilon", "0.5", "--plot"]
    link = tmp_path / "link.png"
    link.symlink_to(tmp_path / "elsewhere.png")
    bad = [str(tmp_path), str(tmp_path / "curve.jpg"), str(tmp_path / "missing" / "c.png"), str(link)]
    if os.geteuid() != 0:  # root may write anywhere
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o500)
        bad.append(str(ro / "c.png"))
    for path in bad:
        assert main([*base, path]) == 2, path
        err = capsys.readouterr().err.strip()
        assert "--plot" in err and len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert main(["epsilon", "--deployment", str(EXAMPLES / "telemetry.toml"), "--plot", str(tmp_path)]) == 2
    capsys.readouterr()
    bound = ["epsilon", "--bound", "BBGN19 Theorem 5.3", "--variant", "rr", "--k", "2", "-n", "1000", "--delta", "1e-6"]
    assert main([*bound, "--plot", str(tmp_path / "b.png")]) == 2  # a bound alone has no mechanism to draw
    assert "needs a mechanism" in capsys.readouterr().err
    assert [p.name for p in tmp_path.glob("*.png")] == ["link.png"] and not link.exists()  # nothing written


def test_plot_option_draws_the_answer(tmp_path, capsys):
    target = tmp_path / "curve.png"
    rc = main(
        [
            "epsilon",
            "--mechanism",
            "rr",
            "--epsilon0",
            "1",
            "-n",
            "200",
            "--delta",
            "1e-3",
            "--json",
            "--plot",
            str(target),
        ]
    )
    assert rc == 0
    out = capsys.readouterr()
    json.loads(out.out)  # stdout stays one JSON object; the note goes to stderr
    assert str(target) in out.err
    png_size(target.read_bytes())
    assert [p.name for p in tmp_path.iterdir()] == ["curve.png"]  # no temporary file left


def test_rounds_panel_scaled_accountant_equals_a_fresh_one():
    """``ShuffleAccountant.scaled`` (sharing the single-round distributions) gives the same certified ends as a fresh
    accountant with the scaled counts on the same grid; the panel's ε grows with the rounds."""
    acc = ShuffleAccountant(curves=False).compose(ShuffledRR(k=3, epsilon0="1", n=1000), 8)  # not the curve's test
    e = acc.get_epsilon("1e-6")
    sub = acc.scaled(Fraction(1, 4))
    fresh = ShuffleAccountant(grid=e.grid, curves=False).compose(ShuffledRR(k=3, epsilon0="1", n=1000), 2)
    a, b = sub.get_epsilon("1e-6"), fresh.get_epsilon("1e-6")
    assert sub.rounds == 2 and (a.upper, a.lower) == (b.upper, b.lower)
    pic = curve.composition(acc, title="t", focus=[fmpq(1, 2)], eps0_total=fmpq(8), delta=fmpq(1, 10**6), points=6)
    r = pic.rounds
    assert r is not None and list(r.rounds) == [1, 2, 8]
    assert all(u >= lo for u, lo in zip(r.upper, r.lower) if u is not None and lo is not None)
    assert list(r.upper) == sorted(r.upper)
    assert r.upper[-1] == pytest.approx(float(e.upper))
    assert pic.upper is not None and pic.lower is not None
    at = dict(zip(pic.upper.eps, pic.upper.delta))  # the upper line holds chords: compare at the grid's points
    assert set(pic.lower.eps) <= set(at)
    assert all(at[x] >= lo for x, lo in zip(pic.lower.eps, pic.lower.delta) if at[x] is not None and lo is not None)
    png = draw_png(Picture.from_data(pic.as_data()))
    width, _ = png_size(png)
    assert width == 11 * DPI  # two panels, 11 inches
    assert draw_png(pic) == png  # the same data give the same bytes (no time stamp in the file)


def test_outputs_are_all_or_nothing(tmp_path):
    """If the picture cannot be written, no file of the run is left; if the JSON cannot, the new picture goes too;
    without a picture an old one is removed (it would contradict the JSON)."""
    dep = load_deployment(EXAMPLES / "fails.toml")
    cert = C.certify(dep)
    assert cert["picture"]["file"] is None and cert["_picture"]
    (tmp_path / "certificate-curve.png").mkdir()  # the picture cannot be put in place
    with pytest.raises(OutputError):
        C.write(cert, tmp_path, pdf=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["certificate-curve.png"]
    (tmp_path / "certificate-curve.png").rmdir()
    (tmp_path / "certificate.json").mkdir()  # now the JSON cannot
    with pytest.raises(OutputError):
        C.write(cert, tmp_path, pdf=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["certificate.json"]
    (tmp_path / "certificate.json").rmdir()
    w = C.write(cert, tmp_path, pdf=False)
    assert [p.name for p in w.files] == ["certificate-curve.png"]
    assert json.loads(w.json.read_text(encoding="utf-8"))["picture"]["file"] == "certificate-curve.png"
    plain = {k: v for k, v in cert.items() if k not in ("picture", "_picture")}
    C.write(plain, tmp_path, pdf=False)
    assert not (tmp_path / "certificate-curve.png").exists()


def test_no_plot_option(tmp_path):
    assert main(["certify", str(EXAMPLES / "fails.toml"), "-o", str(tmp_path), "--no-pdf", "--no-plot"]) == 1
    cert = json.loads((tmp_path / "certificate.json").read_text(encoding="utf-8"))
    assert "picture" not in cert and not (tmp_path / "certificate-curve.png").exists()
    assert "--no-plot" in cert["reproducibility"]["command"]


def test_upper_line_at_a_tiny_claimed_delta_is_not_the_default_tolerance():
    """tryout12: for a claim (0.2, 1e-100) (binary RR, eps0 = 0.62, n = 5000) the picture's upper line was the blanket
    view evaluated at the default windowing tolerance 2^-80: flat near 1e-25 from eps = 0.1 on, above even the
    registered closed form of Lemma 5.3, while the certified value at 0.2 is 3.9e-90.  With the claim's tolerance
    (claims.claim_tolerance, as the certificate passes it) the drawn value at 0.2 lies inside an independent
    enclosure of the blanket view (tolerance 1e-120, 256 bits).  Fails on the old single_round (no tol)."""
    from blanket.exact.shuffled.krr import delta_blanket_view
    from blanket.reports.claims import claim_tolerance

    dep = load_deployment(EXAMPLES / "telemetry.toml")
    dep = type(dep)(**{**dep.__dict__, "n": 5000, "params": {"k": 2, "epsilon0": fmpq(62, 100)}})
    mech = dep.build_mechanism()
    e, delta = fmpq(1, 5), fmpq(1, 10**100)
    pic = curve.single_round(
        C.sources(dep, mech),
        [],
        lambda r, e, d: C.evaluate_bound(r, dep, mech, e, d),
        title="t",
        focus=[e],
        eps0=fmpq(62, 100),
        delta=delta,
        points=4,
        tol=claim_tolerance(delta),
    )
    assert pic.upper is not None
    up = dict(zip(pic.upper.eps, pic.upper.delta))[0.2]
    with arith.precision(256):
        lo_b, hi_b = arith.endpoints(delta_blanket_view(mech, 5000, x=1, x2=0, epsilon=e, tol=fmpq(1, 10**120)))
    assert up is not None and float(lo_b) * (1 - 1e-9) <= up <= float(hi_b) * (1 + 1e-6) + 1e-101, (up, lo_b, hi_b)
    assert up < 1e-80
