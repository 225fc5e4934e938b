"""The figure registry: names are refused before any figure module is imported (issue 26), and the static table
of names agrees with the modules' own ``FIGURES``."""

from __future__ import annotations

import ast
import pathlib
import pkgutil
import subprocess
import sys

import pytest
from blanket.exact.numbers.errors import InvalidArgument


def test_registry_matches_the_modules() -> None:
    """Every module's ``FIGURES`` keys (read from its source: importing them all takes seconds) are the registry's
    names for that module; ``get_figure`` of each name is exercised by the figures' own tests."""
    import blanket.reports.figures as pkg

    found = {}
    for m in pkgutil.iter_modules(pkg.__path__):
        if m.name.startswith("_"):
            continue
        tree = ast.parse(pathlib.Path(pkg.__path__[0], f"{m.name}.py").read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "FIGURES" for t in node.targets):
                assert isinstance(node.value, ast.Dict)
                for k in node.value.keys:
                    assert isinstance(k, ast.Constant) and isinstance(k.value, str)
                    assert k.value not in found, f"{k.value} defined twice"
                    found[k.value] = m.name
    assert found and found == pkg.FIGURE_MODULES


def test_unknown_figure_refused_without_importing_figure_modules() -> None:
    code = (
        "import sys\n"
        "from blanket.reports.figures import get_figure, FIGURE_MODULES\n"
        "try:\n"
        "    get_figure('no-such-figure')\n"
        "except Exception as exc:\n"
        "    print(type(exc).__name__, exc)\n"
        "mods = sorted(m for m in sys.modules if m.startswith('blanket.reports.figures.'))\n"
        "print('imported:', mods)\n"
        "print('mpl' if 'matplotlib' in sys.modules else 'no-mpl')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "InvalidArgument" in out and "no-such-figure" in out and "blanket-fig3" in out
    assert "imported: []" in out
    assert "no-mpl" in out


def test_cli_unknown_figure_one_line_exit_2(tmp_path) -> None:
    r = subprocess.run(
        [sys.executable, "-m", "blanket.reports.cli", "figure", "no-such-figure", "-o", str(tmp_path / "f")],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "no-such-figure" in lines[0] and "Traceback" not in r.stderr
    assert not (tmp_path / "f").exists()


@pytest.mark.parametrize("bad", [None, 3, ""])
def test_get_figure_bad_types(bad) -> None:
    from blanket.reports.figures import get_figure

    with pytest.raises(InvalidArgument):
        get_figure(bad)
