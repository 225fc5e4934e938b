"""Every docstring example of the installed package, and every ``>>>`` example of the README and docs/**/*.md, runs.

The package's modules are imported under their installed names (``blanket.exact.…``), never as top-level
``exact``/``proofs``/``reports`` (which would load a second copy of every module).
"""

from __future__ import annotations

import doctest
import importlib
import pathlib
import pkgutil

import pytest

import blanket

ROOT = pathlib.Path(__file__).resolve().parent.parent
FLAGS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS


def _modules():
    names = ["blanket"]
    for sub in ("exact", "proofs", "reports"):
        pkg = importlib.import_module(f"blanket.{sub}")
        names.append(pkg.__name__)
        names += [m.name for m in pkgutil.walk_packages(pkg.__path__, prefix=pkg.__name__ + ".")]
    return sorted(names)


@pytest.mark.parametrize("name", _modules())
def test_module_doctests(name):
    mod = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    from flint import ctx

    for test in finder.find(mod, name, globs=dict(vars(mod))):
        old = ctx.prec
        try:
            runner.run(test)
        finally:
            ctx.prec = old
    res = runner.summarize(verbose=False)
    assert res.failed == 0, f"{res.failed} of {res.attempted} doctest examples failed in {name}"


def _text_files():
    files = [ROOT / "README.md"]
    files += sorted((ROOT / "docs").rglob("*.md")) if (ROOT / "docs").is_dir() else []
    return [f for f in files if ">>> " in f.read_text(encoding="utf-8")]


@pytest.mark.parametrize("path", _text_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_text_doctests(path):
    res = doctest.testfile(str(path), module_relative=False, optionflags=FLAGS, verbose=False)
    assert res.failed == 0, f"{res.failed} of {res.attempted} examples failed in {path.name}"


def test_blanket_package_lists_its_api():
    assert "delta" in blanket.__all__ and callable(blanket.delta)
    with pytest.raises(AttributeError):
        blanket.no_such_name  # noqa: B018
