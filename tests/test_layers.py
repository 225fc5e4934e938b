"""The import graph of the package has no circles and no upward arrows (CONTRIBUTING.md, "The layers").

Every ``import`` and ``from … import`` of the package's own modules is read from the source (``ast``), at module
level, under ``if TYPE_CHECKING:`` and inside functions alike (an import moved into a function still runs, and
still ties the two modules together), relative imports resolved, ``from package import module`` read as an arrow
to the module.  Two rules:

* **no circle**: no module reaches itself through the arrows (Tarjan's strongly connected components);
* **no upward arrow**: the layers are ranked bottom-up, ``exact → proofs → reports`` and inside ``exact/``
  :data:`EXACT_ORDER`; a module may import its own layer (subpackage) or a lower one, never a higher one.

The checker is run on the package and, to show that it can fail, on small fake trees holding a circle (at module
level and through a function-level import) and an upward arrow.  O(total source size).
"""

from __future__ import annotations

import ast
import functools
import pathlib
from collections.abc import Iterator
from dataclasses import dataclass

ROOT = pathlib.Path(__file__).resolve().parent.parent
#: the folders installed as ``blanket.<folder>``, and the package's own ``blanket/`` (the public API, on top)
FOLDERS = {"exact": "blanket.exact", "proofs": "blanket.proofs", "reports": "blanket.reports", "blanket": "blanket"}
#: the subpackages of exact/, bottom-up (exact/__init__.py and exact/lazy.py sit below all of them)
EXACT_ORDER = ("numbers", "runtime", "laws", "mechanisms", "shuffled", "accounting", "protocols")
#: the layers above exact/, bottom-up
UPPER_ORDER = ("blanket.proofs", "blanket.reports", "blanket")


@dataclass(frozen=True)
class Arrow:
    """``source`` imports ``target`` at ``line`` (``where``: "module", "TYPE_CHECKING" or "function")."""

    source: str
    target: str
    line: int
    where: str
    #: written as a top-level ``exact``/``proofs``/``reports`` (a second copy of every module): refused
    top_level: bool = False

    def __str__(self) -> str:
        return f"{self.source} -> {self.target} (line {self.line}, {self.where} level)"


def modules(root: pathlib.Path) -> dict[str, tuple[pathlib.Path, bool]]:
    """Dotted name -> (file, is a package ``__init__``) for every ``.py`` file of the folders under ``root``."""
    out = {}
    for folder, package in FOLDERS.items():
        # blanket/ holds the API modules only (its layer folders, if any, are the three above: not walked twice)
        for f in sorted((root / folder).glob("*.py") if folder == "blanket" else (root / folder).rglob("*.py")):
            parts = list(f.relative_to(root / folder).with_suffix("").parts)
            is_pkg = parts[-1] == "__init__"
            if is_pkg:
                parts = parts[:-1]
            out[".".join([package, *parts])] = (f, is_pkg)
    return out


def _targets(node: ast.Import | ast.ImportFrom, name: str, is_pkg: bool, known) -> Iterator[str]:
    if isinstance(node, ast.Import):
        for alias in node.names:
            yield alias.name
        return
    if node.level:
        base = name.split(".") if is_pkg else name.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)]
        module = ".".join(base + ([node.module] if node.module else []))
    else:
        module = node.module or ""
    for alias in node.names:
        sub = f"{module}.{alias.name}"
        yield sub if sub in known else module


def _statements(node: ast.AST) -> Iterator[ast.stmt]:
    """The statements directly inside ``node`` (a module, a function or class body, an if/for/while/with/try)."""
    for field in ("body", "orelse", "finalbody", "handlers", "cases"):
        for child in getattr(node, field, None) or ():
            if isinstance(child, (ast.ExceptHandler, getattr(ast, "match_case", ast.ExceptHandler))):
                yield from _statements(child)
            elif isinstance(child, ast.stmt):
                yield child


def arrows(root: pathlib.Path) -> list[Arrow]:
    """Every import of one of the package's modules by another, wherever it sits in the source."""
    known = modules(root)
    out = []
    for name, (path, is_pkg) in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        # imports are statements: walk the statement lists only (bodies, branches, handlers), not expressions
        stack: list[tuple[ast.AST, str]] = [(tree, "module")]
        while stack:
            node, where = stack.pop()
            for child in _statements(node):
                inner = where
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    inner = "function"
                elif isinstance(child, ast.If) and where == "module" and "TYPE_CHECKING" in ast.unparse(child.test):
                    inner = "TYPE_CHECKING"
                if isinstance(child, (ast.Import, ast.ImportFrom)):
                    for target in _targets(child, name, is_pkg, known):
                        top_level = target.split(".")[0] in FOLDERS.keys() - {"blanket"}
                        if top_level:
                            target = f"blanket.{target}"
                        if target in known and target != name:
                            out.append(Arrow(name, target, child.lineno, inner, top_level))
                else:
                    stack.append((child, inner))
    return sorted(out, key=lambda a: (a.source, a.line, a.target))


def circles(arcs: list[Arrow]) -> list[list[str]]:
    """The strongly connected components with more than one module (each a set of modules importing each other)."""
    graph: dict[str, set[str]] = {}
    for a in arcs:
        graph.setdefault(a.source, set()).add(a.target)
        graph.setdefault(a.target, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return sorted(found)


def rank(module: str) -> tuple[int, int]:
    """Where ``module`` sits, bottom-up: ``(0, i)`` inside exact/ (``i`` its subpackage in :data:`EXACT_ORDER`,
    -1 for exact/__init__ and exact/lazy.py), then ``(1 + j, 0)`` for proofs/, reports/ and the package's API."""
    parts = module.split(".")
    if parts[:2] == ["blanket", "exact"]:
        sub = parts[2] if len(parts) > 2 else ""
        return (0, EXACT_ORDER.index(sub) if sub in EXACT_ORDER else -1)
    layer = ".".join(parts[:2]) if parts[:2] in (["blanket", "proofs"], ["blanket", "reports"]) else "blanket"
    return (1 + UPPER_ORDER.index(layer), 0)


def upward(arcs: list[Arrow]) -> list[Arrow]:
    """The arrows from a lower layer (or subpackage of exact/) to a higher one."""
    return [a for a in arcs if rank(a.target) > rank(a.source)]


# ---------------------------------------------------------------------------------------------------- the package
@functools.lru_cache(maxsize=1)
def _package() -> list[Arrow]:
    return arrows(ROOT)


def test_the_graph_is_read():
    """The reader sees the package: hundreds of arrows, the layers' known arrows among them (a reader that saw
    nothing would pass the two checks below)."""
    arcs = _package()
    assert len(arcs) > 300
    pairs = {(a.source, a.target) for a in arcs}
    assert ("blanket.exact.shuffled.krr", "blanket.exact.numbers.calibrate") in pairs  # absolute, module level
    assert ("blanket.reports.latex", "blanket.reports.tex_build") in pairs  # relative import
    # a command module loads its engines inside run(): read, as a function-level arrow
    assert any(a.source.startswith("blanket.reports.commands.") and a.where == "function" for a in arcs)


def test_no_circles():
    found = circles(_package())
    assert not found, "modules that import each other (move the shared piece down):\n" + "\n".join(map(str, found))


def test_no_upward_arrows():
    found = upward(_package())
    assert not found, "imports that run up the layers (CONTRIBUTING.md):\n" + "\n".join(map(str, found))


def test_no_top_level_layer_imports():
    found = [a for a in _package() if a.top_level]
    assert not found, "import with the installed names (blanket.exact…):\n" + "\n".join(map(str, found))


def test_the_source_tree_is_the_installed_layout():
    """blanket/exact, blanket/proofs, blanket/reports are committed relative links to the folders (CONTRIBUTING.md,
    "The layout"): tools resolve ``blanket.exact…`` from the source tree, and the package is imported from them."""
    import blanket.exact

    for layer in ("exact", "proofs", "reports"):
        link = ROOT / "blanket" / layer
        assert link.is_symlink() and str(link.readlink()) == f"../{layer}", link
    assert pathlib.Path(blanket.exact.__file__).resolve() == (ROOT / "exact" / "__init__.py").resolve()


# ---------------------------------------------------------------------------------------------- the checker fails
def _tree(tmp_path: pathlib.Path, files: dict[str, str]) -> pathlib.Path:
    for folder in FOLDERS:
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "__init__.py").write_text("")
    for rel, text in files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if p.parent != tmp_path and not (p.parent / "__init__.py").exists():
            (p.parent / "__init__.py").write_text("")
        p.write_text(text)
    return tmp_path


def test_checker_flags_a_circle_and_an_upward_arrow(tmp_path):
    root = _tree(
        tmp_path,
        {
            "exact/numbers/a.py": "from blanket.exact.numbers import b\n",
            # the circle is closed inside a function: still a circle
            "exact/numbers/b.py": "def f():\n    from . import a\n    return a\n",
            # a law that knows about shuffling: an upward arrow (relative import, two levels up)
            "exact/laws/c.py": "from ..shuffled.d import x\n",
            "exact/shuffled/d.py": "from blanket.exact.laws import c\nx = 1\n",
            # exact/ importing proofs/ under TYPE_CHECKING: an upward arrow too
            "exact/shuffled/e.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import blanket.proofs.p\n",
            "proofs/p.py": "import exact.numbers.a\n",
        },
    )
    arcs = arrows(root)
    assert circles(arcs) == [
        ["blanket.exact.laws.c", "blanket.exact.shuffled.d"],
        ["blanket.exact.numbers.a", "blanket.exact.numbers.b"],
    ]
    up = {(a.source, a.target, a.where) for a in upward(arcs)}
    assert up == {
        ("blanket.exact.laws.c", "blanket.exact.shuffled.d", "module"),
        ("blanket.exact.shuffled.e", "blanket.proofs.p", "TYPE_CHECKING"),
    }
    assert [(a.source, a.target) for a in arcs if a.top_level] == [("blanket.proofs.p", "blanket.exact.numbers.a")]


def test_checker_passes_a_clean_tree(tmp_path):
    root = _tree(
        tmp_path,
        {
            "exact/numbers/a.py": "X = 1\n",
            "exact/shuffled/d.py": "from blanket.exact.numbers.a import X\n",
            "proofs/p.py": "from blanket.exact.shuffled import d\n",
            "reports/r.py": "def run():\n    from blanket.proofs import p\n    return p\n",
        },
    )
    arcs = arrows(root)
    assert len(arcs) == 3 and not circles(arcs) and not upward(arcs)
