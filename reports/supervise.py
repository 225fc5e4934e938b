"""A prompt stop on a signal: the ``blanket`` command runs in a forked worker process, its parent only waits.

Python runs a signal handler only between two bytecodes, so a run inside one long call into C (an ``arb_poly``
product of a million coefficients, a power series, a hypergeometric function at a high precision) ignored Ctrl-C
until that call returned — minutes (a fleet certificate at 10^11 users: up to 23 s; a certificate in session 11: 12 min).
:func:`run` forks the command into a worker (``os.fork``: no re-import, a few milliseconds) and the parent waits:

* the worker runs the command exactly as before (its own handlers, its one line ``blanket: interrupted (SIGINT);
  ...``, its exit code; stdin, stdout, stderr, progress bars and ``--json`` are the same file descriptors, and it
  stays in the terminal's process group, so Ctrl-C and Ctrl-Z reach it as before);
* a SIGINT / SIGTERM / SIGHUP the parent receives is passed on to the worker once (the worker ignores every signal
  after its first, so Ctrl-C, which reaches both, is answered once); when the worker has not begun to stop within
  :data:`GRACE` seconds — it is inside a C call — the parent kills it (SIGKILL), removes what the worker had
  registered (:func:`note`: its temporary files and directories, its output directory's lock, an output directory
  it created and left empty, a ``.py`` bound's process group), prints the same one line and exits 128 + the signal;
* a worker that has begun to stop (its handler ran: it is cleaning up in Python) gets :data:`CLEANUP_GRACE` seconds,
  and one that is renaming its outputs into place (:func:`committing`, signals held for a few milliseconds) is not
  killed before it is done: an output is all there or not there, never half;
* the worker dies with the parent (``PR_SET_PDEATHSIG``: SIGTERM), and a pool's processes die with the worker
  (:mod:`blanket.exact.runtime.executors`), so no process of the run outlives it.

The tests call :func:`blanket.reports.cli.main` in-process (no worker); ``BLANKET_SUPERVISE=0`` runs the command in
one process as before (for a profiler or a debugger).  Cost: one fork per command and a wake-up every
:data:`POLL` seconds in the parent (no measurable CPU).
"""

from __future__ import annotations

import contextlib
import mmap
import os
import select
import shutil
import signal
import sys
import time
from collections.abc import Callable, Iterator
from typing import NoReturn

GRACE = 1.5  #: seconds a worker has to begin stopping after a signal before it is killed (it is then inside C)
CLEANUP_GRACE = 20.0  #: seconds a worker that is stopping (in Python: removing files, killing its pools) may take
COMMIT_GRACE = 60.0  #: seconds a worker that is renaming its outputs into place may take before it is killed
POLL = 0.05  #: seconds between the parent's checks

_SIGNALS = tuple(s for s in (signal.SIGINT, signal.SIGTERM, getattr(signal, "SIGHUP", None)) if s is not None)

# the worker's side: the shared state (byte 0: committing, byte 1: stopping) and the registry pipe's write end
_STATE: mmap.mmap | None = None
_REGISTRY: int | None = None
_WORKER_PID: int | None = None
_PARENT_PID: int | None = None

#: registry records: a kind letter and a path or process group; ``-`` before a letter withdraws it
TEMP, TREE, LOCK, MADE_DIR, GROUP = "F", "T", "L", "D", "K"


def enabled() -> bool:
    """Whether :func:`run` applies: a POSIX ``fork``, the main thread, and not ``BLANKET_SUPERVISE=0``.  O(1)."""
    import threading

    return (
        hasattr(os, "fork")
        and hasattr(signal, "pthread_sigmask")
        and os.environ.get("BLANKET_SUPERVISE", "1") != "0"
        and threading.current_thread() is threading.main_thread()
    )


def in_worker() -> bool:
    """True in the worker process of :func:`run` (not in a process it forks, e.g. a pool's).  O(1)."""
    return _WORKER_PID is not None and os.getpid() == _WORKER_PID


def run_pid() -> int:
    """The process id that names this run (in its lock file): the supervising parent's in the worker — the process
    the user started, the one to signal — else this process's.  O(1)."""
    return _PARENT_PID if _PARENT_PID is not None and in_worker() else os.getpid()


def note(kind: str, what: str | os.PathLike | int, withdraw: bool = False) -> None:
    """Tell the parent about something to remove (or kill) if the worker has to be killed: ``kind`` one of
    :data:`TEMP` (a file), :data:`TREE` (a directory and its content), :data:`LOCK` (a lock file naming this
    run, :func:`run_pid`), :data:`MADE_DIR` (a directory removed only if empty), :data:`GROUP` (a process group to SIGKILL);
    ``withdraw``: it is gone (needed for a process group, whose id may be reused).  A no-op outside the worker.
    O(length of the path)."""
    if _REGISTRY is None or not in_worker():
        return
    text = os.fsencode(os.fspath(what)) if not isinstance(what, int) else str(what).encode()
    record = (b"-" if withdraw else b"+") + kind.encode() + text + b"\0"
    with contextlib.suppress(OSError):
        os.write(_REGISTRY, record)


@contextlib.contextmanager
def committing() -> Iterator[None]:
    """Mark the worker as renaming its outputs into place: the parent does not kill it meanwhile (up to
    :data:`COMMIT_GRACE` seconds).  A no-op outside the worker.  O(1)."""
    if _STATE is None or not in_worker():
        yield
        return
    _STATE[0] = 1
    try:
        yield
    finally:
        _STATE[0] = 0


def stopping() -> None:
    """Mark the worker as stopping (its signal handler ran): the parent waits :data:`CLEANUP_GRACE` for it.  O(1)."""
    if _STATE is not None and in_worker():
        _STATE[1] = 1


def ignore_signals() -> None:
    """Ignore SIGINT/SIGTERM/SIGHUP from now on in this process (a stopping run answers its first signal only).
    O(1)."""
    for sig in _SIGNALS:
        with contextlib.suppress(ValueError, OSError):  # pragma: no cover - not the main thread
            signal.signal(sig, signal.SIG_IGN)


def _die_with_parent() -> None:
    """Ask the kernel to send SIGTERM to this process when its parent dies (Linux; a no-op elsewhere)."""
    try:  # pragma: no cover - platform dependent
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGTERM), 0, 0, 0)  # PR_SET_PDEATHSIG = 1
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        pass


class _Registry:
    """The parent's copy of what the worker registered (records ``±kind text\\0`` read from the pipe)."""

    def __init__(self, fd: int):
        self.fd = fd
        self.buf = b""
        self.closed = False  # every writer gone (then the pipe is always "readable": the parent sleeps instead)
        self.items: dict[tuple[str, bytes], None] = {}  # ordered: removed in the order registered, reversed

    def read(self) -> None:
        while True:
            try:
                data = os.read(self.fd, 65536)
            except BlockingIOError:
                return
            except OSError:  # pragma: no cover
                return
            if not data:
                self.closed = True
                return
            self.buf += data
            *records, self.buf = self.buf.split(b"\0")
            for rec in records:
                if len(rec) < 2:
                    continue
                key = (chr(rec[1]), rec[2:])
                if rec[:1] == b"+":
                    self.items[key] = None
                else:
                    self.items.pop(key, None)

    def clean(self, run: int) -> None:
        """Remove (kill) what the killed worker left, last registered first.  O(number of records + files)."""
        for kind, raw in reversed(list(self.items)):
            with contextlib.suppress(Exception):
                if kind == GROUP:
                    pgid = int(raw)
                    if pgid > 1 and pgid != os.getpgrp():
                        os.killpg(pgid, signal.SIGKILL)
                elif kind == TEMP:
                    if os.path.isfile(raw) and not os.path.islink(raw):
                        os.unlink(raw)
                elif kind == TREE:
                    if os.path.isdir(raw) and not os.path.islink(raw):
                        shutil.rmtree(raw, ignore_errors=True)
                elif kind == LOCK:
                    with open(raw, "rb") as fh:  # only a lock the worker still holds (not a later run's)
                        head = fh.read(64).split(b" ", 1)[0]
                    if head == str(run).encode():
                        os.unlink(raw)
                elif kind == MADE_DIR:
                    os.rmdir(raw)  # only when empty


def run(body: Callable[[], object], stopped_line: Callable[[int], str]) -> NoReturn:
    """Run ``body`` (the command: it exits the process itself) in a forked worker and wait for it as the module
    docstring describes; ``stopped_line(signum)`` is the one line printed when the parent had to kill the worker.
    Exits with the worker's exit code (128 + the signal when a signal stopped it).  O(1) beyond the command."""
    global _STATE, _REGISTRY, _WORKER_PID, _PARENT_PID

    old_mask = signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)  # no signal between the fork and the handlers
    answered = [s for s in _SIGNALS if signal.getsignal(s) != signal.SIG_IGN]  # nohup, background jobs: as given
    state = mmap.mmap(-1, 2)  # anonymous, shared with the worker
    r, w = os.pipe()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError, AttributeError):
            stream.flush()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # the worker: the command as before
        os.close(r)
        _STATE, _REGISTRY, _WORKER_PID, _PARENT_PID = state, w, os.getpid(), parent
        _die_with_parent()  # its handlers are the ones the command started with (the parent's are set below)
        signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)
        if os.getppid() != parent:  # pragma: no cover - the parent died before PR_SET_PDEATHSIG was set
            os._exit(128 + signal.SIGTERM)
        body()
        sys.exit(0)  # pragma: no cover - body exits itself
    os.close(w)
    os.set_blocking(r, False)
    registry = _Registry(r)
    received: list[int] = []

    def handler(signum, frame):
        received.append(signum)

    for sig in answered:
        signal.signal(sig, handler)
    signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)

    stop: int | None = None
    since = 0.0
    killed = False
    status = 0
    while True:
        if registry.closed:
            time.sleep(POLL)
        else:
            with contextlib.suppress(OSError, ValueError):
                select.select([r], [], [], POLL)
        registry.read()
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if received and stop is None:
            stop, since = received[0], time.monotonic()
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, stop)  # the worker answers its first signal only: Ctrl-C reached it already
        if stop is not None and not killed:
            waited = time.monotonic() - since
            limit = COMMIT_GRACE if state[0] else CLEANUP_GRACE if state[1] else GRACE
            if waited > limit:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
                killed = True
    registry.read()
    for sig in _SIGNALS:  # from here on the parent finishes what it started
        with contextlib.suppress(ValueError, OSError):
            signal.signal(sig, signal.SIG_IGN)
    if os.WIFEXITED(status):
        os._exit(os.WEXITSTATUS(status))
    dead_by = os.WTERMSIG(status) if os.WIFSIGNALED(status) else signal.SIGKILL
    registry.clean(parent)
    sig = stop if killed and stop is not None else dead_by
    if sig in _SIGNALS:
        line = stopped_line(sig)
    else:  # killed from outside (the kernel's out-of-memory killer, SIGSEGV): say so, as a shell would by the code
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else f"signal {sig}"
        line = f"blanket: error: the run was killed by {name}; temporary files removed, no partial output left\n"
    with contextlib.suppress(OSError):
        os.write(2, line.encode("utf-8", "replace"))
    os._exit(128 + sig)
