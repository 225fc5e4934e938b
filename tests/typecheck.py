"""Type-check Blanket as it is installed — ``blanket.exact``, ``blanket.proofs``, ``blanket.reports`` — with mypy.

The folders ``exact/``, ``proofs/`` and ``reports/`` install under the names ``blanket.*`` (``package-dir`` in
pyproject.toml), a mapping mypy cannot follow from the source tree: run on the folders, every
``from blanket.exact… import …`` would be ``Any`` and no call between modules would be checked.  This script builds
the installed layout as a tree of symbolic links in a temporary folder (``blanket/__init__.py``, ``blanket/exact →
exact/``, …), runs ``mypy -p blanket`` there with the configuration of pyproject.toml, and prints the errors with
the paths of the source tree.  Usage::

    python3 tests/typecheck.py            # exit status: mypy's

It is what ``tests/test_lint.py::test_mypy`` runs.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
LAYERS = ("exact", "proofs", "reports")


def run(extra: list[str] | None = None, targets: list[str] | None = None) -> subprocess.CompletedProcess:
    """mypy on the installed layout (``targets``: other files to check against it instead of the package); the
    output's paths are rewritten to the source tree's."""
    with tempfile.TemporaryDirectory(prefix="blanket-typecheck-") as tmp:
        pkg = pathlib.Path(tmp) / "blanket"
        pkg.mkdir()
        for f in (ROOT / "blanket").glob("*.py"):
            (pkg / f.name).symlink_to(f)
        for layer in LAYERS:
            (pkg / layer).symlink_to(ROOT / layer, target_is_directory=True)
        cmd = [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"), "--no-incremental"]
        env = {**os.environ, "MYPYPATH": tmp}
        what = targets if targets is not None else ["-p", "blanket"]
        r = subprocess.run([*cmd, *(extra or []), *what], cwd=tmp, capture_output=True, text=True, env=env)
    out = r.stdout
    for layer in LAYERS:
        out = out.replace(f"blanket/{layer}/", f"{layer}/")
    return subprocess.CompletedProcess(r.args, r.returncode, out, r.stderr)


if __name__ == "__main__":
    r = run(sys.argv[1:])
    sys.stdout.write(r.stdout)
    sys.stderr.write(r.stderr)
    sys.exit(r.returncode)
