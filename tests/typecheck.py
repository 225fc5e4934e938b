"""Type-check Blanket as it is imported — ``blanket.exact``, ``blanket.proofs``, ``blanket.reports`` — with mypy.

The source tree is the installed layout: ``blanket/exact``, ``blanket/proofs`` and ``blanket/reports`` are committed
relative symbolic links to the top-level folders ``exact/``, ``proofs/`` and ``reports/`` (CONTRIBUTING.md, "The
layout"), so mypy resolves every ``from blanket.exact… import …`` from the repository root, with no generated tree:
``mypy`` alone (``packages = ["blanket"]`` in pyproject.toml) or ``mypy -p blanket`` checks every call between
modules.  This script runs exactly that with the configuration of pyproject.toml and prints the errors with the
paths of the folders (``exact/…`` rather than ``blanket/exact/…``).  Usage::

    python3 tests/typecheck.py            # exit status: mypy's

It is what ``tests/test_lint.py::test_mypy`` runs.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
LAYERS = ("exact", "proofs", "reports")


def check_layout() -> None:
    """Refuse a checkout whose ``blanket/<layer>`` links are missing or are not links to the folders (e.g. a clone
    with ``core.symlinks=false``): mypy would then see no ``blanket.exact`` at all."""
    for layer in LAYERS:
        link = ROOT / "blanket" / layer
        if not (link.is_symlink() and link.resolve() == (ROOT / layer).resolve()):
            raise SystemExit(
                f"{link} must be a symbolic link to ../{layer} (git clone with symlinks enabled: "
                "git config core.symlinks true, then git checkout -- blanket)"
            )


def run(extra: list[str] | None = None, targets: list[str] | None = None) -> subprocess.CompletedProcess:
    """mypy on the package from the repository root (``targets``: other files to check against it instead of the
    package); the output's paths are rewritten to the folders'."""
    check_layout()
    cmd = [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"), "--no-incremental"]
    env = {**os.environ, "MYPYPATH": str(ROOT)}  # files outside the tree (``targets``) resolve ``blanket`` here too
    what = targets if targets is not None else ["-p", "blanket"]
    r = subprocess.run([*cmd, *(extra or []), *what], cwd=ROOT, capture_output=True, text=True, env=env)
    out = r.stdout
    for layer in LAYERS:
        out = out.replace(f"blanket/{layer}/", f"{layer}/")
    return subprocess.CompletedProcess(r.args, r.returncode, out, r.stderr)


if __name__ == "__main__":
    r = run(sys.argv[1:])
    sys.stdout.write(r.stdout)
    sys.stderr.write(r.stderr)
    sys.exit(r.returncode)
