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
    import shutil
    import tempfile

    from blanket.reports.output import OutputDir, commit_staged_dir

    fig = get_figure(args.name)
    with OutputDir(args.output, option="-o") as out:  # checked and locked before computing
        # all or nothing: the figure's files are drawn into a staging directory beside their targets and renamed
        # into place together (a failure, a full disk or a signal while drawing leaves the old files untouched)
        staging = pathlib.Path(tempfile.mkdtemp(prefix=".blanket-figure.", dir=str(out.path)))
        from blanket.reports import supervise

        supervise.note(supervise.TREE, staging)  # removed if a signal has the run killed mid-figure
        try:
            made = fig.make(staging, quick=args.quick)
            final = commit_staged_dir(staging, out.path)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    by_name = {p.name: p for p in final}
    for path in made:
        print(by_name.get(pathlib.Path(path).name, path))
    return 0
