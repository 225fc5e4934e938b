"""``blanket certify FILE [-o DIR] [--precision BITS] [--no-pdf] [--json] [--workers N] [--scheduler ADDRESS]``
— an auditor's certificate for a deployment.

Writes ``certificate.tex``, ``certificate.json``, the picture of the privacy
curve ``certificate-curve.png`` (unless ``--no-plot``) and (with TeX Live)
``certificate.pdf`` into ``DIR`` (default ``./certificate``), and prints the
one-paragraph statement.  Exit codes: 0 HOLDS, 1 FAILS, 3 INCONCLUSIVE, 2 bad
input.  The destination is checked and locked before the computation (exit 2
if it is not a writable directory or another run holds it); every file is
written atomically.  If LaTeX fails, the .tex and .json are kept, an old PDF is
removed and the run exits 3 (a certificate without its PDF is reported as
such); without TeX Live the PDF is skipped with a note.
"""

from __future__ import annotations

import shlex
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse


PARSER = {
    "help": "certify a deployment's (epsilon, delta) claims: HOLDS / FAILS / INCONCLUSIVE, "
    "with a LaTeX/PDF and JSON certificate",
}


def add_arguments(p: argparse.ArgumentParser) -> None:
    from blanket.reports.commands._options import add_max_memory, add_precision, add_time_budget

    p.add_argument("file", help="deployment file (TOML), e.g. examples/telemetry.toml")
    p.add_argument("-o", "--output", default="certificate", help="output directory (default: ./certificate)")
    add_precision(p, old="--max-prec")
    add_max_memory(p)
    add_time_budget(p)
    p.add_argument(
        "--allow-path",
        action="append",
        default=[],
        metavar="DIR",
        help="also accept a matrix_file under DIR (by default only files under the deployment file's "
        "directory are read)",
    )
    p.add_argument("--no-pdf", action="store_true", help="write only the .tex and .json")
    p.add_argument(
        "--no-plot",
        action="store_true",
        help="do not draw the privacy curve (certificate-curve.png and its figure in the PDF; a few seconds)",
    )
    p.add_argument("--json", action="store_true", help="print the certificate JSON instead of the statement")
    p.add_argument(
        "--sampling",
        default=None,
        metavar="Q",
        help="as sampling = Q in the file's [users]: each user takes part w.p. Q (one round; k-RR, ldp, matrix, the records)",
    )
    p.add_argument(
        "--colluding",
        default=None,
        metavar="M",
        help="as colluding = M in the file ([users], or top level for [[users]] groups): M users (or a fraction) "
        "reveal everything",
    )
    from blanket.reports.commands._options import add_curves
    from blanket.reports.commands._profile_common import add_executor_arguments

    add_executor_arguments(p)
    add_curves(p, rounds="a deployment's [[rounds]]")


def run(args: argparse.Namespace) -> int:
    from blanket.exact.numbers import arith
    from blanket.exact.runtime.progress import Progress
    from blanket.reports.commands._options import apply_max_memory, curves_mode, inconclusive_hint
    from blanket.reports.commands._profile_common import executor_options
    from blanket.reports.deployment import check_deployment_size, load_deployment
    from blanket.reports.output import OutputDir, report_pdf_outcome

    workers, scheduler = executor_options(args)
    apply_max_memory(args)
    if args.json:  # the JSON alone: no bars, no estimate line
        from blanket.exact.runtime.progress import set_quiet

        set_quiet(True)
    cap = None
    if args.precision is not None:
        cap = arith.integer_in(args.precision, "--precision", lo=32, hi=1 << 16)
    dep = load_deployment(args.file, allow_paths=args.allow_path)
    if args.sampling is not None or args.colluding is not None:
        from blanket.reports.deployment import with_overrides

        dep = with_overrides(dep, sampling=args.sampling, colluding=args.colluding)
    check_deployment_size(dep)
    # the certificate machinery (sympy, Jinja2) only for a deployment that is read and accepted: a refusal stays fast
    from blanket.reports.certificate import EXIT_CODES, certify, to_json, write

    command = (
        "blanket certify "
        + shlex.quote(str(args.file))
        + " -o "
        + shlex.quote(str(args.output))
        + (f" --precision {cap}" if cap is not None else "")
        + (" --no-pdf" if args.no_pdf else "")
        + (" --no-plot" if args.no_plot else "")
        + (f" --sampling {shlex.quote(str(args.sampling))}" if args.sampling is not None else "")
        + (f" --colluding {shlex.quote(str(args.colluding))}" if args.colluding is not None else "")
        + (f" --curves {args.curves}" if getattr(args, "curves", "auto") != "auto" else "")
    )
    with OutputDir(
        args.output, option="-o", stem="certificate", command=command
    ) as out:  # checked and locked before computing
        with Progress(len(dep.claims) + len(dep.targets), "certify") as bar:
            cert = certify(
                dep,
                precision=cap,
                command=command,
                progress=bar,
                workers=workers,
                scheduler=scheduler,
                plot=not args.no_plot,
                curves=curves_mode(args),
                pdf=not args.no_pdf,
            )
        want_pdf = not args.no_pdf
        written = write(cert, out.path, pdf=want_pdf)
    if args.json:
        sys.stdout.write(to_json({k: v for k, v in cert.items() if not k.startswith("_")}))
    else:
        print(cert["statement"])
        print(
            f"wrote {written.tex}, {written.json}"
            + "".join(f", {p}" for p in written.files)
            + (f", {written.pdf}" if written.pdf else "")
        )
    if cert["verdict"] == "INCONCLUSIVE":
        sys.stderr.write(f"blanket: inconclusive: {cert.get('_inconclusive_hint') or inconclusive_hint(args)}\n")
    if report_pdf_outcome(written, want_pdf):
        return 3
    return EXIT_CODES[cert["verdict"]]
