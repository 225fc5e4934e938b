"""Run a researcher's bound in a separate process with a hard time and memory limit.

A ``.py`` bound file is code: it is imported and called only in a child
process (``multiprocessing``, *spawn* start method) whose address space is
capped with ``resource.setrlimit(RLIMIT_AS)``.  The parent waits for each
answer at most until the search's wall-clock deadline (``--budget``) and kills
the child when it passes.  A ``.txt`` symbolic bound is data (parsed by
:mod:`reports.formula`), but its evaluation can be expensive, so it runs in the
same kind of child.

Whatever the child does — ``SystemExit`` with any code, ``os._exit``, a crash,
running out of memory, an infinite loop — the parent gets
:class:`BoundNotEvaluable`, which the CLI reports as "the bound could not be
evaluated" (exit 2), never as a verdict.  An ordinary exception raised by the
bound at one point is recorded as an invalid evaluation at that point (as
before).

Protocol (pickled tuples over a pipe): the child sends ``("ready", meta)`` or
``("fatal", message)``; then for each ``("eval", params)`` it answers
``("ok", value)``, ``("skip", kind, message)`` or ``("fatal", message)``.
Values cross as exact rationals (``fractions.Fraction`` endpoints), never as
floats.
"""

from __future__ import annotations

import contextlib
import importlib.util
import inspect
import multiprocessing
import os
import signal
import time
import weakref
from fractions import Fraction

from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import BlanketError, HypothesisViolation, InvalidArgument, Undecided
from blanket.reports.bound_values import BoundValue, call_with, convert_result, user_params
from flint import fmpq

#: seconds allowed for importing a bound file (also capped by the budget)
LOAD_TIMEOUT = 60.0
#: seconds allowed for one evaluation when no deadline is set (the CLI always sets the budget's deadline)
EVAL_TIMEOUT = 600.0


class BoundNotEvaluable(BlanketError):
    """The bound's code could not be evaluated (SystemExit, crash, timeout, memory): exit 2."""


def _limit_memory(nbytes: int | None) -> None:
    if not nbytes:
        return
    try:
        import resource  # POSIX only: imported where the limit is set, skipped elsewhere

        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        lim = nbytes if hard == resource.RLIM_INFINITY else min(nbytes, hard)
        resource.setrlimit(resource.RLIMIT_AS, (lim, hard))
    except (ImportError, ValueError, OSError):  # pragma: no cover - non-POSIX
        pass


def _plain(v):
    """DOMAIN entries in a picklable, float-preserving form (the parent validates them)."""

    if isinstance(v, bool) or isinstance(v, (int, float, str)):
        return v
    if isinstance(v, Fraction):
        return f"{v.numerator}/{v.denominator}"
    if isinstance(v, fmpq):
        return f"{int(v.p)}/{int(v.q)}"
    if isinstance(v, (tuple, list)):
        return tuple(_plain(x) for x in v)
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    return repr(v)[:200]


def _serialize(bv):

    if bv.value is None:
        val = None
    else:
        lo, hi = arith.endpoints(bv.value)
        val = (lo, hi, bv.value.__class__.__name__ == "fmpq")
    return val, bv.floating, bv.raw[:500], bv.center


def _load(path: str, kind: str, names):
    """In the child: import the module or parse the formula; return (meta, evaluate)."""

    if kind == "python":
        spec = importlib.util.spec_from_file_location("_blanket_user_bound", path)
        if spec is None or spec.loader is None:
            raise ImportError(f"{path} cannot be loaded as a Python module")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        quantity_guess = getattr(mod, "QUANTITY", "delta" if hasattr(mod, "delta") else "epsilon")
        meta = {
            "has": {a: hasattr(mod, a) for a in ("MECHANISM", "DOMAIN", "NAME", "QUANTITY")},
            "MECHANISM": _plain(getattr(mod, "MECHANISM", None)),
            "DOMAIN": _plain(getattr(mod, "DOMAIN", None)),
            "QUANTITY": _plain(quantity_guess),
            "NAME": str(getattr(mod, "NAME", ""))[:200],
        }
        q = str(quantity_guess).strip().lower()
        fn = getattr(mod, q, None) if q in ("delta", "epsilon") else None
        meta["callable"] = callable(fn)
        if callable(fn):
            sig = inspect.signature(fn)
            meta["params"] = [(nm, p.kind.name, p.default is not p.empty) for nm, p in sig.parameters.items()]
            try:
                meta["text"] = inspect.getsource(fn).strip()
            except (OSError, TypeError):
                meta["text"] = ""

        def evaluate(params):
            return convert_result(call_with(fn, user_params(params)))

        return meta, evaluate

    # a .txt bound: sympy only here (a .py bound's worker starts without importing it)
    from blanket.proofs.core import arb_eval
    from blanket.reports.formula import parse_formula

    expr = parse_formula(path, names)  # for a symbolic bound, ``path`` is the formula's text

    def evaluate_formula(params):
        env = {nm: arith.exact(params[nm]) for nm in names if nm in params}
        return BoundValue(arb_eval(expr, env), False, "")

    return {}, evaluate_formula


def _fatal_reason(what: str, exc: BaseException) -> str:
    """Why the worker stops: ``what`` (``"it"``, ``"importing it"``) raised SystemExit or ran out of memory."""
    if isinstance(exc, SystemExit):
        return f"{what} raised SystemExit({exc.code!r})"
    return f"{what} ran out of the memory limit"


def _isolate(conn) -> None:  # pragma: no cover - runs in the child
    """Its own session (and process group): a signal it sends to its group (``kill(0, …)``) or the terminal's
    Ctrl-C no longer reaches Blanket, and the parent kills the whole group — every process the bound forks —
    at the budget.  Its stdout and stderr go to an anonymous temporary file: a bound's ``print`` never reaches
    Blanket's output (``--json`` stays JSON).  The session id is the first message."""
    import tempfile

    sid = None
    with contextlib.suppress(OSError, AttributeError):
        os.setsid()
        sid = os.getsid(0)
    with contextlib.suppress(OSError):
        sink = tempfile.TemporaryFile()
        for fd in (1, 2):
            os.dup2(sink.fileno(), fd)
    conn.send(("session", sid))


def _child(conn, path: str, kind: str, names, memory: int | None) -> None:  # pragma: no cover - runs in the child
    _isolate(conn)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    try:
        import blanket.proofs.core  # noqa: F401  (imported before the limit: the library itself is not the bound)
    except BaseException as exc:
        conn.send(("fatal", f"the worker could not start ({type(exc).__name__}: {exc})"))
        return
    _limit_memory(memory)
    try:
        meta, evaluate = _load(path, kind, names)
    except (SystemExit, MemoryError) as exc:
        conn.send(("fatal", _fatal_reason("importing it", exc)))
        return
    except BlanketError as exc:
        conn.send(("error", str(exc)))
        return
    except BaseException as exc:
        conn.send(("import-error", f"{type(exc).__name__}: {exc}"[:500]))
        return
    conn.send(("ready", meta))

    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        _, params, prec = msg
        try:
            with arith.precision(prec):
                bv = evaluate({k: (arith.exact(v) if not isinstance(v, int) else v) for k, v in params.items()})
                conn.send(("ok", _serialize(bv)))
        except (SystemExit, MemoryError) as exc:
            conn.send(("fatal", _fatal_reason("it", exc)))
            return
        except HypothesisViolation as exc:
            conn.send(("skip", "outside-hypotheses", str(exc)[:500]))
        except Undecided as exc:
            conn.send(("skip", "undecided", str(exc)[:500]))
        except BlanketError as exc:
            conn.send(("skip", "invalid", str(exc)[:500]))
        except Exception as exc:
            conn.send(("skip", "invalid", f"{type(exc).__name__}: {exc}"[:500]))
        except BaseException as exc:
            conn.send(("fatal", f"it raised {type(exc).__name__}"))
            return


#: every :class:`BoundProcess` not yet garbage-collected (:func:`close_all` stops them)
_LIVE: weakref.WeakSet = weakref.WeakSet()


def close_all() -> None:
    """Stop every live bound process and its process group now (the CLI calls it before leaving with
    :func:`os._exit` after a signal, when the interpreter's finalizers do not run).  O(live processes)."""
    for bp in list(_LIVE):
        with contextlib.suppress(Exception):
            _kill(bp.proc, bp.conn, bp._group)


class BoundProcess:
    """The child process that holds one bound; ``evaluate(params)`` with the deadline of the search."""

    def __init__(
        self,
        path,
        kind: str,
        *,
        names=(),
        memory: int | None = None,
        deadline: float | None = None,
        label: str | None = None,
    ):
        self.path = label or str(path)
        self.deadline = deadline
        ctx = multiprocessing.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_child, args=(child, str(path), kind, list(names), memory), daemon=True)
        self.proc.start()
        child.close()
        self._group: list = [None]  # the child's own session and process group, once it says (None: none made)
        # the child (and its process group) is killed when this object is garbage-collected (dropped without close())
        self._finalizer = weakref.finalize(self, _kill, self.proc, self.conn, self._group)
        _LIVE.add(self)
        msg = self._recv(LOAD_TIMEOUT, "while starting")
        if msg[0] == "session":
            self._group[0] = msg[1]
            if msg[1] is not None:
                from blanket.reports import supervise

                supervise.note(supervise.GROUP, int(msg[1]))  # killed if a signal has the run killed
            msg = self._recv(LOAD_TIMEOUT, "while loading")
        if msg[0] == "ready":
            self.meta = msg[1]
            return
        self.close()
        if msg[0] == "error":
            raise _Passthrough(msg[1])
        if msg[0] == "import-error":
            raise InvalidArgument("FILE", self.path, f"could not be imported ({msg[1]})")
        raise BoundNotEvaluable(f"the bound could not be evaluated: {self.path}: {msg[1]}")

    def _recv(self, timeout: float, when: str):
        limit = timeout
        if self.deadline is not None:
            limit = min(limit, max(0.0, self.deadline - time.monotonic()))
        try:
            ready = self.conn.poll(limit)
        except (EOFError, OSError):
            ready = True
        if not ready:
            self.close()
            raise BoundNotEvaluable(
                f"the bound could not be evaluated: {self.path} did not answer {when} within the "
                "time budget (--budget); it was stopped"
            )
        try:
            return self.conn.recv()
        except (EOFError, OSError):
            self.proc.join(2)
            code = self.proc.exitcode
            self.close()
            how = f"exit code {code}" if code is not None and code >= 0 else f"signal {-code}" if code else "no answer"
            raise BoundNotEvaluable(f"the bound could not be evaluated: {self.path} stopped {when} ({how})") from None

    def evaluate(self, params: dict, prec: int, where: str) -> tuple:
        """``("ok", serialized)`` or ``("skip", kind, message)``; BoundNotEvaluable on fatal errors and timeouts."""
        plain = {k: (v if isinstance(v, int) else Fraction(int(v.p), int(v.q))) for k, v in params.items()}
        try:
            self.conn.send(("eval", plain, prec))
        except (OSError, ValueError):
            self.close()
            raise BoundNotEvaluable(f"the bound could not be evaluated: {self.path} is no longer running") from None
        msg = self._recv(EVAL_TIMEOUT, f"at {where}")
        if msg[0] == "fatal":
            self.close()
            raise BoundNotEvaluable(f"the bound could not be evaluated at {where}: {msg[1]}")
        return msg

    def close(self) -> None:
        """Stop the child and every process of its group (a process the bound forked dies with it)."""
        with contextlib.suppress(Exception):
            if self.proc.is_alive():
                with contextlib.suppress(Exception):
                    self.conn.send(None)
                self.proc.join(0.2)
        _kill(self.proc, self.conn, self._group)


def _kill_group(pgid: int | None) -> None:
    """SIGKILL the bound's own process group (never Blanket's: ``pgid`` is the child's session, not ours)."""
    if pgid is None or pgid <= 1 or pgid == os.getpgrp():
        return
    with contextlib.suppress(OSError, AttributeError):
        os.killpg(pgid, getattr(signal, "SIGKILL", signal.SIGTERM))
    from blanket.reports import supervise

    supervise.note(supervise.GROUP, int(pgid), withdraw=True)


def _kill(proc, conn, group=(None,)) -> None:
    with contextlib.suppress(Exception):
        _kill_group(group[0])
    with contextlib.suppress(Exception):
        if proc.is_alive():
            proc.kill()
        proc.join(2)
    with contextlib.suppress(Exception):
        conn.close()


class _Passthrough(BlanketError):
    """A validation error raised in the child (e.g. a formula token refused): shown as is."""
