"""The code is linted, formatted and type-checked as configured in pyproject.toml (ruff, mypy).

These run the tools on the source tree, so CI (which installs the ``test`` extra) enforces them.
"""

from __future__ import annotations

import ast
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
    """mypy on the package as it is imported, from the source tree (tests/typecheck.py: ``mypy -p blanket`` at the
    repository root, through the committed blanket/<layer> links), so that every call between modules is checked."""
    pytest.importorskip("mypy", reason="mypy is not installed (pip install -e '.[test]')")
    r = _run(sys.executable, str(ROOT / "tests" / "typecheck.py"))
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]


def test_mypy_sees_across_modules(tmp_path):
    """The check can fail on a call between modules: a wrong keyword to a δ-function of another module is an error
    (on a layout mypy cannot resolve, it would see every ``from blanket.exact... import`` as ``Any`` and pass it)."""
    pytest.importorskip("mypy", reason="mypy is not installed (pip install -e '.[test]')")
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from blanket.exact.mechanisms.finite import BinaryRR\n"
        "from blanket.exact.shuffled.binary import delta_binary\n"
        "delta_binary(BinaryRR(exp_epsilon0=3), 3, 0, epsilom=1)\n"
    )
    sys.path.insert(0, str(ROOT / "tests"))
    try:
        import typecheck
    finally:
        sys.path.remove(str(ROOT / "tests"))
    r = typecheck.run(["--follow-imports=silent"], targets=[str(probe)])
    assert 'Unexpected keyword argument "epsilom"' in r.stdout, r.stdout[-2000:] + r.stderr[-2000:]


def _unannotated(fn: ast.FunctionDef | ast.AsyncFunctionDef, method: bool) -> list[str]:
    """Names of ``fn``'s parameters (and ``return``) without an annotation; ``self``/``cls`` of a method excepted."""
    a = fn.args
    params = a.posonlyargs + a.args + a.kwonlyargs
    static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in fn.decorator_list)
    if method and not static and params:
        params = params[1:]
    out = [p.arg for p in params if p.annotation is None]
    out += ["*" + v.arg for v in (a.vararg, a.kwarg) if v is not None and v.annotation is None]
    return out + (["return"] if fn.returns is None else [])


def _public_functions(body: list[ast.stmt], method: bool = False, prefix: str = ""):
    """``(qualified name, line, missing)`` for each function and method whose name has no leading underscore (in
    any class, not nested in a function)."""
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.name.startswith("_"):
            yield prefix + node.name, node.lineno, _unannotated(node, method)
        elif isinstance(node, ast.ClassDef):
            yield from _public_functions(node.body, True, prefix + node.name + ".")
        elif isinstance(node, (ast.If, ast.Try)):
            for block in (node.body, node.orelse, *(h.body for h in getattr(node, "handlers", []))):
                yield from _public_functions(block, method, prefix)


def test_public_functions_annotated():
    """Every public function and method of the package has annotated parameters and return (issue 15)."""
    missing = []
    for top in ("blanket", "exact", "proofs", "reports"):
        for path in sorted((ROOT / top).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            for name, line, miss in _public_functions(ast.parse(path.read_text(encoding="utf-8")).body):
                if miss:
                    missing.append(f"{rel}:{line} {name}: {', '.join(miss)}")
    assert not missing, f"{len(missing)} public functions lack annotations:\n" + "\n".join(missing[:60])


def test_annotation_check_can_fail():
    """The walker above sees a missing parameter, return or ``*args`` annotation, and skips ``self``."""
    src = (
        "def f(x: int) -> int: ...\n"
        "def g(x, y: int): ...\n"
        "def _private(x): ...\n"
        "class C:\n"
        "    def m(self, *args) -> None: ...\n"
        "    @staticmethod\n"
        "    def s(v) -> None: ...\n"
        "class _P:\n"
        "    def m(self, x): ...\n"
    )
    found = {name: miss for name, _, miss in _public_functions(ast.parse(src).body)}
    assert found == {"f": [], "g": ["x", "return"], "C.m": ["*args"], "C.s": ["v"], "_P.m": ["x", "return"]}
