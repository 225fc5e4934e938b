"""The ``blanket`` command line.

Subcommands live in ``reports/commands/<name>.py`` (the command is the module's name with ``-`` for ``_``);
each module declares ``PARSER`` (the keyword arguments of its ``add_parser``: ``help``, and where it has them
``description``, ``epilog``, ``formatter_class``), ``add_arguments(parser)`` (its options) and ``run(args)`` (a
callable ``(args) -> int`` returning the exit code).  They are discovered automatically, so adding a subcommand
needs no edit here.

Exit codes: 0 holds / success, 1 fails, 3 inconclusive (also: --time-budget ran out; an output could not be
written, e.g. a full disk, or the PDF failed — the JSON/.tex are kept), 2 bad usage or
input, 4 internal error (a bug: one line, the traceback with ``BLANKET_DEBUG=1``),
130 interrupted (Ctrl-C), 143 terminated (SIGTERM; 129 SIGHUP): one line naming the signal, e.g.
``blanket: interrupted (SIGINT); temporary files removed, no partial output left`` (temporary files and the output
directory's lock are removed, no partial file is left in place), within about two seconds of the signal even inside
a long call into C: :func:`console_main` runs the command in a forked worker that its parent kills when it does not
answer (:mod:`blanket.reports.supervise`).
Any :class:`exact.numbers.errors.BlanketError` becomes one line on stderr and exit 2;
no traceback is ever shown for bad input.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import re
import sys
from typing import TYPE_CHECKING, Any, NoReturn

from blanket.exact.numbers.errors import BlanketError, HypothesisViolation, InvalidArgument, OutOfTime, Undecided

if TYPE_CHECKING:
    from collections.abc import Sequence

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_INCONCLUSIVE, EXIT_INTERNAL = 0, 1, 2, 3, 4


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # a negative number in scientific notation (`--delta -1e-6`) is a value, not an option, so that the
        # range check names it ("--delta must be > 0, got '-1e-6'") instead of argparse's "expected one argument"
        self._negative_number_matcher = re.compile(r"^-(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")

    def error(self, message: str) -> NoReturn:  # one line, exit 2
        sys.stderr.write(f"blanket: error: {message} (see `{self.prog} --help`)\n")
        raise SystemExit(EXIT_USAGE)

    def parse_args(self, args: Any = None, namespace: Any = None) -> Any:  # type: ignore[override]
        """argparse's, except that arguments no parser recognised are reported by the chosen subcommand's parser,
        so that the hint names its help (``blanket bounds --foo`` -> ``see `blanket bounds --help```; argparse
        leaves them to the top-level parser, whose hint is ``blanket --help``).  Arguments given before the
        command name are the top-level parser's (``blanket --foo bounds`` -> ``see `blanket --help```): the
        top-level options take no value, so the command is the first argument that is not an option.
        O(arguments)."""
        argv = list(sys.argv[1:] if args is None else args)
        ns, extras = self.parse_known_args(argv, namespace)
        if extras:
            sub = None
            for action in self._actions:
                if isinstance(action, argparse._SubParsersAction):
                    sub = action.choices.get(getattr(ns, action.dest, None) or "")
            if isinstance(sub, _Parser):
                at = next((i for i, a in enumerate(argv) if not a.startswith("-")), len(argv))
                before = [a for a in argv[:at] if a in extras]
                if before:
                    self.error(f"unrecognized arguments: {' '.join(before)}")
                sub.error(f"unrecognized arguments: {' '.join(extras)}")
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return ns


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="blanket", description="Certified privacy accounting for the shuffle model.")
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    parser.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="no progress bars (they are also off when stderr is not a terminal; BLANKET_PROGRESS=0|1)",
    )
    sub = parser.add_subparsers(dest="command", parser_class=_Parser, metavar="COMMAND")
    import blanket.reports.commands as cmds

    for m in sorted(pkgutil.iter_modules(cmds.__path__), key=lambda m: m.name):
        if m.name.startswith("_"):
            continue
        mod = importlib.import_module(f"blanket.reports.commands.{m.name}")
        p = sub.add_parser(m.name.replace("_", "-"), **mod.PARSER)
        mod.add_arguments(p)
        p.set_defaults(func=mod.run)
    for p in sub.choices.values():  # --quiet also after the command name (`blanket certify --quiet FILE`)
        flags = [f for f in ("-q", "--quiet") if f not in p._option_string_actions]  # a command may define its own
        if flags:
            p.add_argument(
                *flags, dest="quiet", action="store_true", default=argparse.SUPPRESS, help="no progress bars"
            )
    return parser


def _bol() -> str:
    """What starts a closing message on a line of its own when a progress bar may have been left on stderr (a
    signal or the time budget can stop a run between a bar's redraws): a carriage return, and on a terminal the
    erase-line sequence; nothing when bars are off."""
    from blanket.exact.runtime.progress import bars_enabled

    if not bars_enabled():
        return ""
    try:
        tty = sys.stderr.isatty()
    except (AttributeError, ValueError):
        tty = False
    return "\r\033[K" if tty else "\r"


def _ignore_signals() -> None:
    """Once a run is stopped by a signal, further SIGINT/SIGTERM/SIGHUP are ignored while it cleans up and exits
    (a second Ctrl-C must not interrupt the cleanup with a traceback)."""
    import signal

    for sig in (signal.SIGINT, signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if sig is not None:
            try:
                signal.signal(sig, signal.SIG_IGN)
            except (ValueError, OSError):  # pragma: no cover - not the main thread
                pass


def _stopped_line(signum: int) -> str:
    """The one line of a run stopped by a signal, the same shape for each: ``blanket: interrupted (SIGINT); ...``
    (Ctrl-C), ``blanket: terminated (SIGTERM); ...`` (also SIGHUP), naming the cleanup that follows (the temporary
    files and the output directory's lock are removed as :func:`main` returns).  O(1)."""
    import signal

    verb = "interrupted" if signum == signal.SIGINT else "terminated"
    name = signal.Signals(signum).name
    return f"{_bol()}blanket: {verb} ({name}); temporary files removed, no partial output left\n"


def main(argv: Sequence[str] | None = None) -> int:
    import signal

    from blanket.exact.runtime.progress import is_quiet, set_quiet
    from blanket.reports import output

    held = (signal.SIGINT, signal.SIGTERM, getattr(signal, "SIGHUP", None))
    saved = {sig: signal.getsignal(sig) for sig in held if sig is not None}  # restored at the end (in-process calls)
    was_quiet = is_quiet()
    output.install_signal_handlers()
    try:
        return _main(argv)
    except output.Terminated as exc:
        _ignore_signals()
        sys.stderr.write(_stopped_line(exc.signum))
        return 128 + exc.signum
    finally:
        output.release_all()
        from blanket.exact.numbers import guards

        guards.set_max_memory(None)  # --max-memory holds for one run (matters when main() is called in-process)
        from blanket.exact.runtime.progress import set_time_budget

        set_time_budget(None)  # so does --time-budget
        set_quiet(was_quiet)  # and --quiet / --json's silence (a later in-process caller's estimate line is printed)
        for sig, handler in saved.items():
            try:
                signal.signal(sig, handler if handler is not None else signal.SIG_DFL)
            except (ValueError, OSError):  # pragma: no cover - not the main thread
                pass


def _main(argv=None) -> int:
    from blanket.reports.output import OutputError

    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except RecursionError:  # pragma: no cover - argparse on absurd input
        sys.stderr.write("blanket: error: the command line could not be parsed\n")
        return EXIT_USAGE
    from blanket.exact.runtime.progress import set_quiet

    set_quiet(bool(getattr(args, "quiet", False)))
    if args.version:
        from importlib.metadata import PackageNotFoundError, version

        try:
            print(version("blanket"))
        except PackageNotFoundError:
            print("blanket (not installed)")
        return EXIT_OK
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    try:
        return int(args.func(args) or 0)
    except OutputError as exc:
        sys.stderr.write(f"blanket: error: {exc}\n")
        return EXIT_INCONCLUSIVE
    except MemoryError:
        sys.stderr.write(
            "blanket: error: the computation ran out of memory (limit: --max-memory, default "
            "a fraction of this machine's memory); try a smaller input\n"
        )
        return EXIT_USAGE
    except RecursionError:
        sys.stderr.write("blanket: error: the input is nested too deeply to be processed\n")
        return EXIT_USAGE
    except (HypothesisViolation, InvalidArgument, BlanketError) as exc:
        if isinstance(exc, OutOfTime):
            sys.stderr.write(f"{_bol()}blanket: inconclusive: {exc}; raise --time-budget\n")
            return EXIT_INCONCLUSIVE
        if isinstance(exc, Undecided):
            from blanket.reports.commands._options import inconclusive_hint

            sys.stderr.write(f"blanket: inconclusive: {exc}; {inconclusive_hint(args, exc)}\n")
            return EXIT_INCONCLUSIVE
        sys.stderr.write(f"blanket: error: {exc}\n")
        return EXIT_USAGE
    except KeyboardInterrupt:
        _ignore_signals()
        import signal

        sys.stderr.write(_stopped_line(signal.SIGINT))
        return 130
    except BrokenPipeError:  # e.g. `blanket ... | head`: stop quietly
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
    except Exception as exc:  # a bug, not bad input: one line, the traceback only on request
        import os

        if os.environ.get("BLANKET_DEBUG"):
            raise
        sys.stderr.write(
            f"blanket: internal error: {type(exc).__name__}: {exc} "
            "(this is a bug in Blanket; rerun with BLANKET_DEBUG=1 for the traceback and report it)\n"
        )
        return EXIT_INTERNAL


def console_main() -> None:
    """The ``blanket`` command (and ``python -m blanket.reports.cli``): :func:`main` in a forked worker process whose
    parent only waits (:mod:`blanket.reports.supervise`), then exit with its code.

    A signal reaches the worker as before; when the worker is inside one long call into C (where Python runs no
    handler) and has not begun to stop within 1.5 s, the parent kills it, removes its temporary files, its lock and
    an output directory it created empty, prints the same one line and exits 128 + the signal: every command stops
    within about two seconds.  ``BLANKET_SUPERVISE=0`` runs in one process (a profiler, a debugger).  The in-process
    :func:`main` (the tests') has no worker.  O(1) beyond the command."""
    from blanket.reports import supervise

    if supervise.enabled():
        supervise.run(_console_main, _stopped_line)
    _console_main()


def _console_main() -> None:
    """:func:`main`, then exit with its code (in the worker of :func:`console_main`, or alone).

    A run stopped by a signal (exit 129/130/143) has removed its temporary files and printed its one line inside
    :func:`main`; it then leaves with :func:`os._exit`, skipping the interpreter's shutdown.  That shutdown joins the
    worker-pool threads of :mod:`concurrent.futures`, and a signal handled at an arbitrary instruction of the main
    thread can leave a lock of a pool's future held (a ``with`` block's window, or a ``wait`` acquiring its futures
    one by one), so that the join would wait forever; so do multiprocessing's joins of live children.  Every pool
    worker and bound process is killed first (SIGKILL; ``PR_SET_PDEATHSIG`` would also end a pool's workers with
    the parent).  O(processes)."""
    import os

    code = main()
    if code in (128 + 1, 128 + 2, 128 + 15):  # SIGHUP, SIGINT, SIGTERM
        worker = sys.modules.get("blanket.reports.bound_worker")
        if worker is not None:  # a .py bound's process runs in a session of its own: stop it here
            worker.close_all()
        executors = sys.modules.get("blanket.exact.runtime.executors")
        if executors is not None:  # every pool's workers (the stopped sweep's were killed already)
            executors.kill_pools()
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):  # pragma: no cover - a closed or broken stream
                pass
        os._exit(code)
    sys.exit(code)


if __name__ == "__main__":  # pragma: no cover
    console_main()
