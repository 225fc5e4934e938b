"""``blanket figure NAME [-o DIR] [--quick]`` — draw a registered figure (PNG, PDF, CSV)."""

from __future__ import annotations

import pathlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse


PARSER = {
    "help": "draw a figure (PNG + PDF + CSV); `blanket figure --list` lists them",
}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", nargs="?", help="figure name, e.g. blanket-fig3")
    p.add_argument("-o", "--output", default="figures", help="output directory (default: ./figures)")
    p.add_argument("--quick", action="store_true", help="reduced grid (seconds instead of minutes)")
    p.add_argument("--list", action="store_true", help="list the figures and exit")


def run(args: argparse.Namespace) -> int:
    from blanket.reports.figures import all_figures, get_figure

    if args.list or not args.name:
        for name, fig in sorted(all_figures().items()):
            print(f"{name:24s} {fig.description}")
        return 0
    from blanket.reports.output import OutputDir

    fig = get_figure(args.name)
    with OutputDir(args.output, option="-o") as out:  # checked and locked before computing; files written atomically
        paths = fig.make(pathlib.Path(out.path), quick=args.quick)
    for path in paths:
        print(path)
    return 0
