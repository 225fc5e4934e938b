"""Run independent blocks of a computation on every local core or on a Dask cluster, with identical results.

:func:`map_blocks` applies a module-level (picklable) function to a list of
tasks and returns the results **in task order**:

* ``workers=1``: in this process, one task after the other (no pool);
* ``workers=N`` (``None`` = every core this process may use): a local
  :class:`concurrent.futures.ProcessPoolExecutor` with ``N`` processes;
* ``scheduler="tcp://HOST:8786"`` (or the environment variable
  ``BLANKET_SCHEDULER``): the tasks run on a Dask distributed cluster
  (``dask.distributed.Client(scheduler)``, ``client.map`` / gather); ``workers``
  is then ignored (the cluster's workers decide).  Needs the optional
  dependency ``pip install 'blanket[dask]'``.

Results are identical, bit for bit, whichever executor ran them: every task
runs under the caller's arb working precision (``flint.ctx.prec`` is sent with
the task and set in the worker), and arguments and results cross as bytes
pickled exactly once on each side -- also with ``workers=1`` -- so every
executor decodes the same bytes.  This module registers pickling for
``arb``, ``acb`` and ``arb_poly`` (python-flint has none): the midpoint and
radius travel as exact mantissa/exponent pairs; rebuilding a ball rounds its
radius *up* by at most one unit in its 30th bit (flint's ``mag`` conversion),
so a decoded ball still encloses the true value.  The cluster's workers must
run the same versions of Blanket and python-flint (checked once per connection).

>>> map_blocks(pow, [(2, 3), (3, 2), (10, 0)], workers=1)
[8, 9, 1]

Cost: one pickled round trip per task (local pool or cluster) on top of the
tasks themselves; choose blocks that each take ≥ 0.1 s.

Stopping: the local pool's workers ignore SIGINT/SIGTERM/SIGHUP (so a signal sent
to the whole process group, as Ctrl-C or ``timeout`` do, reaches only the caller,
which turns it into one line and exit 130/143) and die with the caller (Linux
``PR_SET_PDEATHSIG``); when :func:`map_blocks` stops early (a signal, the run's
``--time-budget``, a task's exception) it kills the pool's workers at once and
forgets the pool: their running tasks are abandoned, not finished.
"""

from __future__ import annotations

import atexit
import contextlib
import copyreg
import importlib
import multiprocessing
import os
import pickle
import queue
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import TYPE_CHECKING, Any

import flint
from blanket.exact.numbers import guards
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.numbers.types import Execution
from blanket.exact.runtime.progress import Progress
from flint import acb, arb, arb_poly

if TYPE_CHECKING:
    from typing_extensions import Unpack

#: environment variable naming a Dask scheduler address used when ``scheduler`` is not given
SCHEDULER_ENV = "BLANKET_SCHEDULER"

__all__ = [
    "map_blocks",
    "resolve_workers",
    "resolve_scheduler",
    "block_ranges",
    "available_cores",
    "executor_cores",
    "shutdown",
    "SCHEDULER_ENV",
]


# ---------------------------------------------------------------- exact pickling of flint balls
def _arf_parts(x: arb):
    """``('f', man, exp)`` for an exact finite midpoint/radius, else a tag for ±inf / nan."""
    if x.is_finite():
        m, e = x.man_exp()
        return ("f", int(m), int(e))
    if x.is_nan():
        return ("nan",)
    return ("+inf",) if x > 0 else ("-inf",)


def _arf_build(parts):
    """An exact midpoint/radius from :func:`_arf_parts`: an ``(man, exp)`` pair or an infinite/nan ``arb``."""
    tag = parts[0]
    if tag == "f":
        return (parts[1], parts[2])
    if tag == "nan":
        return arb("nan")
    return arb("inf") if tag == "+inf" else -arb("inf")


def _rebuild_arb(mid, rad):
    """Inverse of :func:`_reduce_arb` (exact at any working precision)."""
    if mid[0] == "nan":
        return arb("nan")
    return arb(mid=_arf_build(mid), rad=_arf_build(rad))


def _reduce_arb(x: arb):
    if x.mid().is_nan():
        return _rebuild_arb, (("nan",), ("nan",))
    return _rebuild_arb, (_arf_parts(x.mid()), _arf_parts(x.rad()))


def _rebuild_acb(re, im):
    return acb(re, im)


def _reduce_acb(z: acb):
    return _rebuild_acb, (z.real, z.imag)


def _rebuild_arb_poly(coeffs):
    return arb_poly(coeffs)


def _reduce_arb_poly(p: arb_poly):
    return _rebuild_arb_poly, (p.coeffs(),)


copyreg.pickle(arb, _reduce_arb)
copyreg.pickle(acb, _reduce_acb)
copyreg.pickle(arb_poly, _reduce_arb_poly)


# ---------------------------------------------------------------- arguments
def available_cores() -> int:
    """The number of cores this process may run on (``os.sched_getaffinity``, else ``os.cpu_count()``)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - non-Linux
        return max(1, os.cpu_count() or 1)


def resolve_workers(workers: int | str | None) -> int:
    """``workers`` as a positive int (``None`` = :func:`available_cores`); anything else is refused.

    >>> resolve_workers(3)
    3
    >>> resolve_workers(0)
    Traceback (most recent call last):
    ...
    blanket.exact.numbers.errors.InvalidArgument: workers must be a positive integer (or None for every core), got 0
    """
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise InvalidArgument("workers", workers, "must be a positive integer (or None for every core)")
    if _in_daemon_process():
        # a daemonic process (a pool worker, check-bound's bound sandbox) may not start children: run in-process
        return 1
    return available_cores() if workers is None else workers


def _in_daemon_process() -> bool:
    """True inside a daemonic ``multiprocessing`` process, which cannot start a process pool of its own."""

    return bool(multiprocessing.current_process().daemon)


def resolve_scheduler(scheduler: Any = None) -> object | None:
    """The Dask scheduler to use: ``scheduler`` if given, else ``$BLANKET_SCHEDULER`` if set and non-empty, else None.

    A ``dask.distributed.Client`` may be passed instead of an address.
    """
    if scheduler is None:
        scheduler = os.environ.get(SCHEDULER_ENV, "").strip() or None
    if scheduler is None:
        return None
    if isinstance(scheduler, str):
        s = scheduler.strip()
        if not s:
            raise InvalidArgument("scheduler", scheduler, "must be a Dask scheduler address such as tcp://HOST:8786")
        return s
    if hasattr(scheduler, "map") and hasattr(scheduler, "gather"):
        return scheduler
    raise InvalidArgument(
        "scheduler", scheduler, "must be a Dask scheduler address (tcp://HOST:8786) or a dask.distributed.Client"
    )


def block_ranges(n: int, blocks: int, *, min_size: int = 1) -> list:
    """Split ``range(n)`` into at most ``blocks`` consecutive ``(start, stop)`` ranges of near-equal size
    (each at least ``min_size`` long, except when ``n`` is smaller).

    >>> block_ranges(10, 3)
    [(0, 4), (4, 7), (7, 10)]
    >>> block_ranges(10, 4, min_size=5)
    [(0, 5), (5, 10)]
    >>> block_ranges(0, 4)
    []
    """
    if n <= 0:
        return []
    blocks = max(1, min(int(blocks), n // max(1, min_size) or 1))
    q, r = divmod(n, blocks)
    out, start = [], 0
    for i in range(blocks):
        stop = start + q + (1 if i < r else 0)
        out.append((start, stop))
        start = stop
    return out


# ---------------------------------------------------------------- the task wrapper (runs in the worker)
class _Task:
    """One task as shipped to a worker: the pickled ``(fn, args)`` and the caller's arb precision.

    (A plain object, so that Dask never mistakes a tuple of arguments for a task graph.)
    """

    __slots__ = ("payload", "prec")

    def __init__(self, payload: bytes, prec: int):
        self.payload, self.prec = payload, prec

    def __getstate__(self):
        return (self.payload, self.prec)

    def __setstate__(self, state):
        self.payload, self.prec = state


def _run_task(task: _Task) -> bytes:
    """Unpickle ``(fn, args)``, run ``fn(*args)`` at the task's precision, return the pickled result.

    Arguments and results travel as bytes made once (in the caller, in the
    worker), so every executor -- in-process, local pool, Dask with any number
    of hops -- decodes exactly the same bytes.
    """
    old = flint.ctx.prec
    flint.ctx.prec = task.prec
    try:
        fn, args = pickle.loads(task.payload)
        return pickle.dumps(fn(*args), protocol=pickle.HIGHEST_PROTOCOL)
    finally:
        flint.ctx.prec = old


def _versions():
    """What must agree between the caller and every Dask worker for bit-identical results."""

    # importlib.metadata (email, zipfile, …: ~0.05 s) only for a Dask run, not at every command's start-up
    from importlib.metadata import version

    try:
        blanket_version = version("blanket")
    except Exception:  # pragma: no cover - not installed as a distribution
        blanket_version = "unknown"
    return {"python-flint": flint.__version__, "blanket": blanket_version, "python": "%d.%d" % sys.version_info[:2]}


# ---------------------------------------------------------------- local pool
_POOLS: dict = {}
_LOCK = threading.RLock()  # re-entrant: a signal's handler may run while this thread holds it


def _pool_alive(workers: int) -> bool:
    """Whether this process already holds a usable pool of ``workers`` processes (:func:`_pool` would reuse it)."""
    pool = _POOLS.get((os.getpid(), workers))
    return pool is not None and not getattr(pool, "_broken", False) and not getattr(pool, "_shutdown_thread", False)


#: the signals the calling process answers (the CLI turns them into one line and exit 130/143); a pool's workers
#: ignore them: the caller kills its workers on its way out (:func:`_kill_pool`), so that a signal sent to the whole
#: process group (Ctrl-C, ``timeout``, ``kill -- -PGID``) never prints a worker's traceback
_SIGNALS = tuple(s for s in (signal.SIGINT, signal.SIGTERM, getattr(signal, "SIGHUP", None)) if s is not None)


def _worker_init(from_main_thread: bool = True) -> None:
    """In each pool worker, before its first task: ignore :data:`_SIGNALS`, unblock them (they were blocked while
    the caller forked it, :func:`_signals_held`), and, when the pool was made by the caller's main thread, ask the
    kernel to kill the worker when its parent dies (Linux ``PR_SET_PDEATHSIG``, which follows the forking *thread*:
    not set for a pool made by another thread; elsewhere a worker ends when its task queue closes)."""
    for sig in _SIGNALS:
        signal.signal(sig, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _SIGNALS)
    if not from_main_thread:
        return
    try:  # pragma: no cover - platform dependent
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG = 1
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        pass


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Block :data:`_SIGNALS` in this thread while a pool forks its workers (a worker must not run the caller's
    handlers before :func:`_worker_init` has set its own); a signal that arrives meanwhile is delivered on exit."""
    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _pool(workers: int) -> ProcessPoolExecutor:
    """The cached pool of ``workers`` processes of this process (a forked child never reuses its parent's)."""
    key = (os.getpid(), workers)
    with _LOCK:
        pool = _POOLS.get(key)
        if pool is None or getattr(pool, "_broken", False) or getattr(pool, "_shutdown_thread", False):
            main = threading.current_thread() is threading.main_thread()
            pool = ProcessPoolExecutor(max_workers=workers, initializer=_worker_init, initargs=(main,))
            _POOLS[key] = pool
        return pool


def _kill_pool(pool: ProcessPoolExecutor) -> None:
    """Kill the pool's worker processes at once (SIGKILL: their running tasks are abandoned), forget the pool and
    reap its processes.  Used when a run stops before its tasks are done (a signal, ``--time-budget``, a task's
    exception): the workers stop with it instead of finishing tasks nobody will read.  O(workers)."""
    with _LOCK:
        for key, p in list(_POOLS.items()):
            if p is pool:
                del _POOLS[key]
    procs = list((getattr(pool, "_processes", None) or {}).values())
    for proc in procs:
        with contextlib.suppress(Exception):
            proc.kill()
    with contextlib.suppress(Exception):
        pool.shutdown(wait=False, cancel_futures=True)
    for proc in procs:
        with contextlib.suppress(Exception):
            proc.join(timeout=5)


def kill_pools() -> None:
    """SIGKILL every worker of every local pool of this process, and forget the pools (for a process that is about
    to leave with :func:`os._exit` after a signal: no worker may outlive it).  O(workers)."""
    with _LOCK:
        pools = [p for (pid, _), p in _POOLS.items() if pid == os.getpid()]
        for key in [k for k in _POOLS if k[0] == os.getpid()]:
            del _POOLS[key]
    for pool in pools:
        for proc in list((getattr(pool, "_processes", None) or {}).values()):
            with contextlib.suppress(Exception):
                proc.kill()


def shutdown(wait: bool = False) -> None:
    """Stop the cached local process pools (``wait``: until their processes have exited) and close the cached
    Dask clients."""
    with _LOCK:
        pools = [p for (pid, _), p in _POOLS.items() if pid == os.getpid()]
        _POOLS.clear()
        clients = list(_CLIENTS.values())
        _CLIENTS.clear()
    for p in pools:
        p.shutdown(wait=wait, cancel_futures=True)
    for c in clients:
        try:
            c.close()
        except Exception:  # pragma: no cover - closing a dead connection
            pass


atexit.register(shutdown)


def _run_local(packed, workers, bar, sizes, preload=()):
    if workers == 1 or len(packed) <= 1:
        out = []
        for t, s in zip(packed, sizes):
            out.append(pickle.loads(_run_task(t)))
            bar.update(s)
        return out
    if preload and not _pool_alive(workers):
        # the pool's processes are forked from this one when it starts: a module imported here first is imported
        # once, not once per process (an existing pool's processes import it themselves, as before)
        for name in preload:
            importlib.import_module(name)
    pool = _pool(workers)
    futures: list = []
    out = [None] * len(packed)
    # finished futures arrive on a C-level queue (their done-callbacks put them there): the main thread waits on it
    # holding no lock of any future, so a signal that interrupts the wait (an exception raised by a handler) never
    # leaves a future's lock held — which concurrent.futures.wait, acquiring every pending future's lock one by one,
    # could, and the pool's manager thread (and the interpreter's exit, which joins it) would then wait forever
    finished: queue.SimpleQueue = queue.SimpleQueue()
    try:
        with _signals_held():  # the first submit forks the workers
            futures = [pool.submit(_run_task, t) for t in packed]
        index = {f: i for i, f in enumerate(futures)}
        for f in futures:
            f.add_done_callback(finished.put)
        for _ in range(len(futures)):
            f = finished.get()
            out[index[f]] = pickle.loads(f.result())  # re-raises the task's exception
            bar.update(sizes[index[f]])  # raises OutOfTime when the run's --time-budget has passed
    except BaseException:
        for f in futures:
            f.cancel()
        if any(not f.done() for f in futures) or not futures:
            _kill_pool(pool)  # tasks still running (or the fork was interrupted): stop the workers too
        raise
    return out


# ---------------------------------------------------------------- Dask
_CLIENTS: dict = {}
_CHECKED: set = set()

DASK_MISSING = (
    "needs Dask: install the optional dependency with  pip install 'blanket[dask]'  "
    "(or run without --scheduler / BLANKET_SCHEDULER to use the local cores)"
)


def _client(scheduler):
    try:  # Dask is an optional extra (blanket[dask]): imported on first use, its absence named with the fix
        from dask.distributed import Client
    except ImportError:
        raise InvalidArgument("scheduler", scheduler, DASK_MISSING) from None
    if not isinstance(scheduler, str):
        return scheduler
    with _LOCK:
        c = _CLIENTS.get(scheduler)
        if c is not None and getattr(c, "status", "") == "running":
            return c
    try:
        c = Client(scheduler, set_as_default=False, timeout="20s")
    except (OSError, TimeoutError) as exc:
        raise InvalidArgument(
            "scheduler",
            scheduler,
            f"could not be reached ({exc.__class__.__name__}: {exc})",
            hint="start one with `dask scheduler` and workers with `dask worker ADDRESS`",
        ) from None
    with _LOCK:
        _CLIENTS[scheduler] = c
    return c


def _check_versions(client):
    key = id(client)
    if key in _CHECKED:
        return
    mine = _versions()
    theirs = client.run(_versions)
    for worker, v in theirs.items():
        if v != mine:
            raise InvalidArgument(
                "scheduler",
                getattr(client, "scheduler", client),
                f"has a worker ({worker}) with {v}, this process has {mine}",
                hint="install the same Blanket and python-flint on every worker",
            )
    _CHECKED.add(key)


def _run_dask(packed, scheduler, bar, sizes):
    client = _client(scheduler)
    _check_versions(client)
    futures = client.map(_run_task, packed, pure=False)
    out = [None] * len(futures)
    try:
        for i, f in enumerate(futures):  # in task order (the bar advances as the blocks arrive)
            out[i] = pickle.loads(f.result())  # re-raises the task's exception
            bar.update(sizes[i])
    except BaseException:
        client.cancel(futures)
        raise
    return out


def executor_cores(workers: int | None = None, scheduler: Any = None) -> tuple:
    """``(cores, description)`` of the executor :func:`map_blocks` would use with these arguments.

    For a Dask cluster (connecting to it): the total number of worker threads.
    """
    sched = resolve_scheduler(scheduler)
    if sched is None:
        w = resolve_workers(workers)
        return w, f"on {w} local core{'s' if w != 1 else ''}"
    client = _client(sched)
    cores = sum(int(t) for t in client.nthreads().values())
    name = sched if isinstance(sched, str) else getattr(client, "scheduler", "the cluster")
    return max(1, cores), f"on the Dask cluster at {name} ({cores} worker threads)"


# ---------------------------------------------------------------- the entry point
class _NoBar:
    def update(self, k: int = 1, note: str = "") -> None:
        pass


def map_blocks(
    fn: Callable,
    tasks: list,
    *,
    desc: str = "",
    sizes: list | None = None,
    preload: Sequence[str] = (),
    **run: Unpack[Execution],
) -> list:
    """``[fn(*task) for task in tasks]``, computed on local processes or a Dask cluster (module docstring).

    ``fn`` must be a module-level function (picklable by reference) and each
    task a tuple of picklable arguments (a non-tuple task is passed as the
    single argument).  ``workers``, ``scheduler``: :class:`blanket.exact.numbers.types.Execution`.
    ``progress``: ``None`` (the default) shows a bar when stderr is a
    terminal and the work lasts > 2 s (see :mod:`exact.runtime.progress`), ``False``
    none, ``True`` always, or an object with ``update(k)`` to advance instead;
    ``desc`` labels the bar; ``sizes`` (optional, one int per task) is how far
    each task advances it (default 1).  ``preload``: modules that ``fn`` imports
    on first use, imported here before a new local pool forks its processes
    (once instead of once per process; for a module slow to import).  The
    first exception raised by a task is re-raised here (the remaining tasks
    are cancelled).

    Keywords (:class:`~blanket.exact.numbers.types.Execution`): ``workers``, ``scheduler``, ``progress``.

    >>> map_blocks(divmod, [(7, 2), (9, 4)], workers=2)
    [(3, 1), (2, 1)]
    """
    guards.check_options("map_blocks", run, Execution)
    workers, scheduler, progress = run.get("workers"), run.get("scheduler"), run.get("progress")
    tasks = list(tasks)
    if not callable(fn):
        raise InvalidArgument("fn", fn, "must be a module-level function")
    if sizes is None:
        sizes = [1] * len(tasks)
    elif len(sizes) != len(tasks):
        raise InvalidArgument("sizes", sizes, f"must have one entry per task ({len(tasks)})")
    prec = flint.ctx.prec
    try:
        packed = [
            _Task(pickle.dumps((fn, t if isinstance(t, tuple) else (t,)), protocol=pickle.HIGHEST_PROTOCOL), prec)
            for t in tasks
        ]
    except (pickle.PicklingError, TypeError, AttributeError) as exc:
        raise InvalidArgument(
            "fn", getattr(fn, "__qualname__", fn), f"and its tasks must be picklable (a module-level function; {exc})"
        ) from None
    sched = resolve_scheduler(scheduler)
    nworkers = resolve_workers(workers) if sched is None else None
    if not tasks:
        return []
    if progress is not None and not isinstance(progress, bool) and hasattr(progress, "update"):
        bar_cm = None
        bar = progress
    else:
        bar_cm = Progress(sum(sizes), desc, enabled=progress)
        bar = None
    if bar_cm is None:
        if sched is not None:
            return _run_dask(packed, sched, bar, sizes)
        return _run_local(packed, nworkers, bar, sizes, preload)
    with bar_cm as b:
        if sched is not None:
            return _run_dask(packed, sched, b, sizes)
        return _run_local(packed, nworkers, b, sizes, preload)
