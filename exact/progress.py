"""A dependency-free progress bar for long computations (stderr, only on a terminal).

>>> with Progress(3, "demo", enabled=False) as bar:
...     for _ in range(3):
...         bar.update()
>>> bar.done
3

Set ``BLANKET_PROGRESS=0`` to silence every bar, ``BLANKET_PROGRESS=1`` to
force bars even when stderr is not a terminal.
"""

from __future__ import annotations

import os
import sys
import time


class Progress:
    """``with Progress(total, label) as bar: ... bar.update(k)`` — draws ``label [#####.....] 50% 3.1s``."""

    def __init__(self, total: int, label: str = "", *, enabled: bool | None = None, stream=None, width: int = 30):
        self.total = max(int(total), 1)
        self.label = label
        self.stream = stream or sys.stderr
        env = os.environ.get("BLANKET_PROGRESS")
        if enabled is None:
            enabled = env == "1" or (env != "0" and hasattr(self.stream, "isatty") and self.stream.isatty())
        self.enabled = enabled
        self.width = width
        self.done = 0
        self._t0 = time.monotonic()
        self._last = 0.0

    def __enter__(self):
        self._draw(force=True)
        return self

    def update(self, k: int = 1, note: str = ""):
        self.done = min(self.done + k, self.total)
        self._draw(note=note)

    def _draw(self, force=False, note=""):
        if not self.enabled:
            return
        now = time.monotonic()
        if not force and now - self._last < 0.1 and self.done < self.total:
            return
        self._last = now
        frac = self.done / self.total
        filled = int(frac * self.width)
        bar = "#" * filled + "." * (self.width - filled)
        self.stream.write(f"\r{self.label} [{bar}] {100 * frac:3.0f}% {now - self._t0:6.1f}s {note}"[:120])
        self.stream.flush()

    def __exit__(self, *exc):
        if self.enabled:
            self._draw(force=True)
            self.stream.write("\n")
            self.stream.flush()
        return False
