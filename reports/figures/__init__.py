"""Figures: one module per figure family; each defines ``FIGURES = {name: Figure(...)}``.

Modules in this package are discovered automatically for ``--list``; each figure's
name is also listed in :data:`FIGURE_MODULES` (so that ``blanket figure NAME``
refuses an unknown name before importing any figure module, and imports only the
module of a known one; tests/test_figure_registry.py checks the two agree).
``blanket figure NAME [-o DIR] [--quick]`` runs ``Figure.make(outdir, quick=...)``, which must write
PNG + PDF + CSV files and return their paths.  ``quick`` uses a reduced grid
(for tests); the full grid is the default.
"""

from __future__ import annotations

import csv
import importlib
import pathlib
import pkgutil
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from blanket.exact.numbers.errors import InvalidArgument
from blanket.reports.output import atomic_open

if TYPE_CHECKING:
    from typing import Any


@dataclass(frozen=True)
class Figure:
    name: str
    description: str
    make: Callable[..., list]  # make(outdir: pathlib.Path, *, quick: bool = False) -> list[pathlib.Path]


def pyplot() -> Any:
    """matplotlib's ``pyplot`` on the non-interactive Agg backend (figures are only written to files)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def output_dir(outdir: str | pathlib.Path) -> pathlib.Path:
    """``outdir`` as a path, created (with its parents) if it does not exist yet."""
    outdir = pathlib.Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    return outdir


def save(fig: Any, outdir: str | pathlib.Path, name: str, *, dpi: int = 130) -> list:
    """Write ``name.png`` and ``name.pdf`` into ``outdir``, close ``fig``, return the two paths."""
    import matplotlib.pyplot as plt

    png, pdf = pathlib.Path(outdir) / f"{name}.png", pathlib.Path(outdir) / f"{name}.pdf"
    try:
        with atomic_open(png, "wb") as fh:
            fig.savefig(fh, format="png", dpi=dpi)
        with atomic_open(pdf, "wb") as fh:
            fig.savefig(fh, format="pdf")
    finally:
        plt.close(fig)
    return [png, pdf]


def write_csv(path: str | pathlib.Path, header: list, rows: Iterable[Sequence]) -> pathlib.Path:
    """Write ``header`` and then ``rows`` (lists of cells) to the CSV file ``path`` atomically; returns the path."""

    path = pathlib.Path(path)
    with atomic_open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)
    return path


def all_figures() -> dict:
    out = {}
    import blanket.reports.figures as pkg

    for m in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
        if m.name.startswith("_"):
            continue
        mod = importlib.import_module(f"blanket.reports.figures.{m.name}")
        for name, fig in getattr(mod, "FIGURES", {}).items():
            if name in out:
                raise InvalidArgument("figure", name, "is defined twice")
            out[name] = fig
    return out


#: every registered figure's name and the module (of this package) that defines it: a name is refused from this
#: table before any figure module is imported (tests/test_figure_registry.py checks it against the modules' FIGURES)
FIGURE_MODULES = {
    "blanket-fig3": "blanket_fig3",
    "oracles-epsilon": "oracles",
    "pure-dp-error": "pure_dp",
    "pure-dp-llr": "pure_dp",
    "renyi-epsilon": "renyi",
    "summation-mse": "summation",
}


def get_figure(name: str) -> Figure:
    """The figure ``name``: an unknown name is refused from :data:`FIGURE_MODULES` (no figure module imported),
    a known one imports its own module only.  O(1) plus that import."""
    mod_name = FIGURE_MODULES.get(name) if isinstance(name, str) else None
    if mod_name is None:
        raise InvalidArgument("figure", name, f"is not a known figure (known: {', '.join(sorted(FIGURE_MODULES))})")
    mod = importlib.import_module(f"blanket.reports.figures.{mod_name}")
    figs = getattr(mod, "FIGURES", {})
    if name not in figs:  # pragma: no cover - the registry is checked against the modules by a test
        raise InvalidArgument("figure", name, f"is registered for module {mod_name}, which does not define it")
    return figs[name]
