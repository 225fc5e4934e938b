"""The code is linted, formatted and type-checked as configured in pyproject.toml (ruff, mypy).

These run the tools on the source tree, so CI (which installs the ``test`` extra) enforces them.
"""

from __future__ import annotations

import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _run(*cmd):
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=900)


def test_ruff_check():
    if shutil.which("ruff") is None:
        pytest.skip("ruff is not installed (pip install -e '.[test]')")
    r = _run("ruff", "check", "--no-cache", ".")
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]


def test_ruff_format():
    if shutil.which("ruff") is None:
        pytest.skip("ruff is not installed (pip install -e '.[test]')")
    r = _run("ruff", "format", "--check", "--no-cache", ".")
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]


def test_mypy():
    pytest.importorskip("mypy", reason="mypy is not installed (pip install -e '.[test]')")
    r = _run(sys.executable, "-m", "mypy", "--no-incremental")
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
