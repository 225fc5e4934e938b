"""Progress bars for long computations: tqdm on stderr, with the remaining-time estimate.

>>> with Progress(3, "demo", enabled=False) as bar:
...     for _ in range(3):
...         bar.update()
>>> bar.done
3

A bar appears only when the computation has run for :data:`DELAY` seconds
(shorter ones stay silent) and only when it is allowed, in this order:

* off after :func:`set_quiet` (the CLI's global ``--quiet``) or with
  ``BLANKET_PROGRESS=0``;
* off when the caller passes ``enabled=False``;
* on when the caller passes ``enabled=True`` or ``BLANKET_PROGRESS=1`` is set
  (even when stderr is not a terminal, e.g. in a log);
* otherwise (``enabled=None``, the default) on only when the stream is a terminal.

``BLANKET_PROGRESS=0|1`` is read when a bar is created.  The bar shows
``label  42%|████▏     | 420/1000 [00:03<00:04, 120.1/s]``: elapsed and
*remaining* time (tqdm's estimate from the rate so far).
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

from blanket.exact.numbers.errors import OutOfTime

#: seconds a computation runs before its bar is drawn (shorter ones print nothing)
DELAY = 2.0

_QUIET = False
#: ``(monotonic deadline, budget seconds)`` of the run's time budget (``--time-budget``), or None
_DEADLINE: tuple[float, float] | None = None


def set_time_budget(seconds: float | None) -> None:
    """Start (``seconds``) or clear (``None``) the time budget of this run: from now on, every progress update and
    every :func:`check_time` raises :class:`~blanket.exact.numbers.errors.OutOfTime` once it has passed."""
    global _DEADLINE
    _DEADLINE = None if seconds is None else (time.monotonic() + float(seconds), float(seconds))


def time_budget() -> float | None:
    """The run's time budget in seconds (:func:`set_time_budget`), or ``None`` when none is running."""
    return None if _DEADLINE is None else _DEADLINE[1]


def time_left() -> float:
    """Seconds left of the run's time budget (:func:`set_time_budget`; at most 0 once it has passed), ``math.inf``
    when none is running.  O(1)."""
    if _DEADLINE is None:
        return float("inf")
    return _DEADLINE[0] - time.monotonic()


def check_time(what: str, done: str = "") -> None:
    """Raise :class:`~blanket.exact.numbers.errors.OutOfTime` when the run's time budget has passed, saying what
    was being computed (``what``) and how far it got (``done``).  O(1)."""
    if _DEADLINE is None or time.monotonic() <= _DEADLINE[0]:
        return
    far = f" ({done})" if done else ""
    raise OutOfTime(
        f"the time budget of {_DEADLINE[1]:g} s (--time-budget) ran out during {what}{far}; nothing was certified "
        "for this query (the partial work is not an enclosure)"
    )


def set_quiet(quiet: bool = True) -> None:
    """Silence (``True``) or re-allow (``False``) every progress bar of this process (CLI ``--quiet``)."""
    global _QUIET
    _QUIET = bool(quiet)


def is_quiet() -> bool:
    """Whether :func:`set_quiet` silenced the bars."""
    return _QUIET


def bars_enabled(enabled: bool | None = None, stream: Any = None) -> bool:
    """Whether a bar would be drawn for ``enabled`` on ``stream`` (see the module docstring for the rules)."""
    stream = stream if stream is not None else sys.stderr
    env = os.environ.get("BLANKET_PROGRESS", "").strip()
    if _QUIET or env == "0":
        return False
    if enabled is not None:
        return bool(enabled)
    if env == "1":
        return True
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


class Progress:
    """``with Progress(total, label) as bar: ... bar.update(k)`` — a tqdm bar with remaining-time estimate.

    ``done`` counts the units reported so far (also when no bar is drawn).
    ``total=None`` draws a counter with the rate (for searches of unknown length).
    ``delay`` (default :data:`DELAY`) is how long the computation must run
    before the bar appears.  ``width`` is accepted for compatibility and
    ignored (tqdm adapts to the terminal).
    """

    def __init__(
        self,
        total: int | None,
        label: str = "",
        *,
        enabled: bool | None = None,
        stream=None,
        width: int = 30,
        delay: float | None = None,
        unit: str = "it",
    ):
        self.total = None if total is None else max(int(total), 1)  # None: a counter (no remaining time)
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = bars_enabled(enabled, self.stream)
        self.done = 0
        self._delay = DELAY if delay is None else delay
        self._unit = unit
        self._bar = None

    def __enter__(self):
        if self.enabled:
            # tqdm imported here, when a bar may be drawn: a run without bars (--quiet, no terminal) does not pay its
            # import (tqdm.auto brings asyncio and importlib.metadata, about 0.1 s of CPU)
            from tqdm.auto import tqdm

            # no monitor thread: the worst-case sweep forks worker processes (exact.runtime.executors), and forking a
            # process that runs extra threads is fragile
            tqdm.monitor_interval = 0
            self._bar = tqdm(
                total=self.total,
                desc=self.label,
                file=self.stream,
                delay=self._delay,
                mininterval=0.2,
                dynamic_ncols=True,
                leave=False,
                unit=self._unit,
            )
        return self

    def update(self, k: int = 1, note: str = "") -> None:
        """Advance by ``k`` units; ``note`` is shown after the bar."""
        if self.total is not None:
            k = min(k, self.total - self.done)
        self.done += k
        unit = "" if self._unit == "it" else f" {self._unit}"
        check_time(self.label or "the computation", f"{self.done}/{self.total}{unit} done" if self.total else "")
        if self._bar is not None:
            if note:
                self._bar.set_postfix_str(note, refresh=False)
            self._bar.update(k)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __exit__(self, *exc):
        self.close()
        return False
