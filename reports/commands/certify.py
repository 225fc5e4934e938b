"""``blanket certify FILE [-o DIR] [--max-prec BITS] [--no-pdf] [--json] [--workers N] [--scheduler ADDRESS]`` —
an auditor's certificate for a deployment.

Writes ``certificate.tex``, ``certificate.json`` and (with TeX Live)
``certificate.pdf`` into ``DIR`` (default ``./certificate``), and prints the
one-paragraph statement.  Exit codes: 0 HOLDS, 1 FAILS, 3 INCONCLUSIVE, 2 bad
input.  A LaTeX failure is reported with the log excerpt on stderr (the .tex
and .json are still written) and does not change the verdict's exit code.
"""

from __future__ import annotations

import json
import sys


def register(sub):
    p = sub.add_parser("certify", help="certify a deployment's (epsilon, delta) claims: HOLDS / FAILS / INCONCLUSIVE, "
                                       "with a LaTeX/PDF and JSON certificate")
    p.add_argument("file", help="deployment file (TOML), e.g. examples/telemetry.toml")
    p.add_argument("-o", "--output", default="certificate", help="output directory (default: ./certificate)")
    p.add_argument("--max-prec", type=int, default=None, metavar="BITS",
                   help="precision cap in bits (overrides options.precision_cap; a low cap may give INCONCLUSIVE)")
    p.add_argument("--no-pdf", action="store_true", help="write only the .tex and .json")
    p.add_argument("--json", action="store_true", help="print the certificate JSON instead of the statement")
    from blanket.reports.commands._profile_common import add_executor_arguments
    add_executor_arguments(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from blanket.exact.errors import InvalidArgument
    from blanket.exact.progress import Progress
    from blanket.reports.certificate import EXIT_CODES, certify, to_json, write
    from blanket.reports.deployment import load_deployment
    from blanket.reports.latex import INSTALL_HINT, tex_available

    from blanket.reports.commands._profile_common import executor_options
    workers, scheduler = executor_options(args)
    dep = load_deployment(args.file)
    if args.max_prec is not None and not 32 <= args.max_prec <= 1 << 16:
        raise InvalidArgument("--max-prec", args.max_prec, "must be between 32 and 65536 bits")
    command = f"blanket certify {dep.source}" + (f" --max-prec {args.max_prec}" if args.max_prec is not None else "")
    with Progress(len(dep.claims) + len(dep.targets), "certify") as bar:
        cert = certify(dep, max_prec=args.max_prec, command=command, progress=bar, workers=workers, scheduler=scheduler)
    want_pdf = not args.no_pdf
    written = write(cert, args.output, pdf=want_pdf and tex_available())
    if args.json:
        sys.stdout.write(to_json(cert))
    else:
        print(cert["statement"])
        print(f"wrote {written.tex}, {written.json}" + (f", {written.pdf}" if written.pdf else ""))
    if want_pdf and not tex_available():
        sys.stderr.write(f"blanket: note: {INSTALL_HINT}\n")
    elif want_pdf and written.pdf is None:
        sys.stderr.write(f"blanket: warning: {written.latex_message}; the .tex and .json were written. Log excerpt:\n"
                         f"{written.latex_log}\n")
    return EXIT_CODES[cert["verdict"]]
