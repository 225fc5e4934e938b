"""Honest labels and hints (session 14, hints14).  Each test failed before its change.

* ``blanket delta --mechanism laplace|gaussian --json``: ``delta.lower`` was the lower end of the *blanket view's*
  enclosure (``relation: "upper"``), above the mechanism's own δ on 0 0 vs 1 0 (n = 2: 0.2276 against the
  quadrature reference 0.2162) — misread as a bracket on the mechanism.  Now ``delta`` is the mechanism's bracket
  (``relation: "bracket"``, as k-RR and the oracles), the blanket view's enclosure ``blanket_view_delta``.
* an undecided calibration whose enclosure stopped narrowing with precision (a windowing tolerance) hinted
  ``--precision 8192``; a composed claim whose upper end did not move on finer grids hinted ``--refine-seconds``.
"""

from __future__ import annotations

import argparse
import pathlib
import sys
from types import SimpleNamespace

import mpmath as mp
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent / "benchmarks"))
import probe14 as R  # noqa: E402


def test_laplace_delta_json_is_the_mechanisms_bracket(capsys):
    # reference: the mechanism's exact delta on the datasets 0 0 vs 1 0 (mpmath quadrature, tests/benchmarks/probe14.py),
    # a lower bound on its worst case, which the blanket view bounds from above
    rc, d = R.cli_json("delta", "--mechanism", "laplace", "--epsilon0", 1, "-n", 2, "--epsilon", "1/4")
    assert rc == 0, d
    with mp.workdps(30):
        ref = R.laplace_pair_ref("1", mp.mpf(1) / 4)
    lo, hi = mp.mpf(d["delta"]["lower"]), mp.mpf(d["delta"]["upper"])
    assert d["relation"] == "bracket" and d["bracket"]["lower"]["value"] == d["delta"]["lower"]
    assert d["bracket"]["upper"]["value"] == d["delta"]["upper"]
    assert lo <= ref <= hi and lo >= ref * (1 - mp.mpf("1e-3")), (lo, ref, hi)
    # the blanket view's own enclosure, kept under its own name: an upper bound, here above the datasets' delta
    bv_lo, bv_hi = mp.mpf(d["blanket_view_delta"]["lower"]), mp.mpf(d["blanket_view_delta"]["upper"])
    assert bv_hi == hi and bv_lo > ref


def test_laplace_delta_text_names_the_bracket(capsys):
    from blanket.reports.cli import main

    assert main(["delta", "--mechanism", "laplace", "--epsilon0", "1", "-n", "2", "--epsilon", "1/4"]) == 0
    out = capsys.readouterr().out
    assert "Certified bracket of the mechanism's delta: [0.216" in out and "The blanket view's own delta" in out


def _stalling(target, narrowing: bool):
    """A δ enclosure that straddles ``target`` at every precision: its width halves with each doubling of the
    precision (``narrowing``) or stays fixed (a windowing tolerance)."""
    from flint import arb, ctx

    def fun(_x):
        rad = target * (arb(2) ** (-ctx.prec // 16) if narrowing else arb(1, 0))
        return arb(target) + arb(0, 1) * rad

    return fun


@pytest.mark.parametrize("narrowing", [False, True])
def test_calibration_names_a_window_limit(narrowing):
    from blanket.exact.numbers.calibrate import _Classifier
    from blanket.exact.numbers.errors import Undecided, WindowLimited
    from blanket.reports.commands._options import inconclusive_hint
    from flint import fmpq

    target = fmpq(1, 10**300)
    cl = _Classifier(_stalling(target, narrowing), target, 64, 256)
    with pytest.raises(Undecided) as exc:
        cl(fmpq(1, 2))
    args = argparse.Namespace(precision=None, mechanism="sue")
    hint = inconclusive_hint(args, exc.value)
    if narrowing:  # precision is what limits it: the next cap is the hint
        assert not isinstance(exc.value, WindowLimited) and "--precision 8192" in hint, hint
    else:
        assert isinstance(exc.value, WindowLimited) and "e-300 wide up to the precision cap of 256 bits" in str(
            exc.value
        ), exc.value
        assert "--precision" not in hint.replace("a higher --precision will not help", ""), hint
        assert "windowing/tail tolerance (about 2." in hint and "e-300)" in hint, hint


def _claim(uppers):
    return {
        "epsilon": "0.05",
        "delta": "1e-300",
        "verdict": "INCONCLUSIVE",
        "reason": "delta(0.05) lies in [0, x], which contains 1e-300, on grids 5/2048, 5/8192, 5/32768",
        "grid": "5/32768",
        "delta_lower": "0",
        "delta_upper": uppers[-1],
        "pair_route": "dominating pairs",
        "delta_upper_by_grid": uppers,
    }


def test_composition_hint_names_what_limits_it():
    # certify of examples/fleet_daily.toml with the claim at delta = 1e-300: upper ends 1.77e-6, 3.14e-14, 7.69e-20 on
    # grids 5/2048, 5/8192, 5/32768 (measured); the hint was `--refine-seconds 600`, which cannot reach 1e-300
    from blanket.reports.composition import composition_hint

    dep = SimpleNamespace(precision=128, source="fleet.toml")
    far = composition_hint(dep, [_claim(["1.7724593e-6", "3.1357912e-14", "7.6908984e-20"])], [], "auto")
    assert "--refine-seconds 600`" not in far and "will not reach a delta that small" in far, far
    assert "more quarterings of the grid" in far, far
    stuck = composition_hint(dep, [_claim(["7.7e-20", "7.69e-20", "7.69e-20"])], [], "auto")
    assert "--refine-seconds 600`" not in stuck and "windowing/tail tolerances" in stuck, stuck
    # a claim a few quarterings away keeps the --refine-seconds hint
    near = _claim(["8e-10", "5e-11", "3e-12"])
    near["delta"] = "1e-13"
    moving = composition_hint(dep, [near], [], "auto")
    assert "--refine-seconds 600`" in moving and "will not reach" not in moving, moving


def test_cli_prints_the_window_hint(monkeypatch, capsys):
    # the CLI's one line for an undecided calibration limited by a tolerance: exit 3, the width, no higher cap
    from fractions import Fraction

    from blanket.exact.numbers import calibrate
    from blanket.exact.numbers.errors import WindowLimited
    from blanket.reports.cli import main

    def stalled(self, x):
        raise WindowLimited("delta(1/2) could not be separated from the target 1e-300", width=Fraction(1, 10**19))

    monkeypatch.setattr(calibrate._Classifier, "__call__", stalled)
    assert main(["epsilon", "--mechanism", "rr", "--epsilon0", "1", "-n", "100", "--delta", "1e-300"]) == 3
    err = capsys.readouterr().err
    assert "windowing/tail tolerance (about 1e-19)" in err and "--precision 8192" not in err, err
