"""exact.runtime.progress: tqdm bars with remaining time, shown only when allowed (terminal, --quiet, BLANKET_PROGRESS)."""

from __future__ import annotations

import io

import pytest
from blanket.exact.runtime import progress
from blanket.exact.runtime.progress import Progress, bars_enabled, set_quiet

from tests._helpers import run_cli


class Tty(io.StringIO):
    def isatty(self):
        return True


@pytest.fixture(autouse=True)
def _clean(monkeypatch):
    monkeypatch.delenv("BLANKET_PROGRESS", raising=False)
    set_quiet(False)
    yield
    set_quiet(False)


def test_rules(monkeypatch):
    assert bars_enabled(None, Tty()) is True
    assert bars_enabled(None, io.StringIO()) is False  # not a terminal
    assert bars_enabled(False, Tty()) is False
    assert bars_enabled(True, io.StringIO()) is True
    monkeypatch.setenv("BLANKET_PROGRESS", "1")
    assert bars_enabled(None, io.StringIO()) is True
    assert bars_enabled(False, Tty()) is False  # the caller's "no" wins over the forcing variable
    monkeypatch.setenv("BLANKET_PROGRESS", "0")
    assert bars_enabled(True, Tty()) is False
    monkeypatch.delenv("BLANKET_PROGRESS")
    set_quiet(True)
    assert progress.is_quiet() and bars_enabled(True, Tty()) is False


def test_bar_draws_with_remaining_time_after_the_delay():
    import re
    import time

    out = Tty()
    with Progress(50, "sweep", stream=out, delay=0) as bar:
        for _ in range(2):
            time.sleep(0.3)  # past tqdm's redraw interval
            bar.update(25, note="c=3")
    text = out.getvalue()
    assert "sweep" in text and "25/50" in text and "c=3" in text
    assert re.search(r"25/50 \[\d\d:\d\d<\d\d:\d\d", text)  # elapsed < estimated remaining time
    assert bar.done == 50


def test_short_computations_and_disabled_bars_print_nothing():
    out = Tty()
    with Progress(10, "short", stream=out) as bar:  # default delay: nothing within 2 s
        bar.update(10)
    assert out.getvalue() == "" and bar.done == 10
    out = Tty()
    set_quiet(True)
    with Progress(10, "quiet", stream=out, delay=0) as bar:
        bar.update(3)
        bar.update(20)  # clamped to the total
    assert out.getvalue() == "" and bar.done == 10


def test_cli_without_terminal_prints_no_bar(tmp_path):
    import os

    env = dict(os.environ, BLANKET_PROGRESS="")
    r = run_cli("delta --mechanism rr --epsilon0 1 -n 300 --epsilon 0.1", env=env)
    assert r.returncode == 0 and r.stderr == ""


def test_counter_without_total():
    import time

    out = Tty()
    with Progress(None, "calibrating", stream=out, delay=0, unit="eval") as bar:
        for _ in range(3):
            time.sleep(0.25)
            bar.update(1, note="epsilon=0.1")
    assert bar.done == 3 and "calibrating" in out.getvalue() and "eval" in out.getvalue()
