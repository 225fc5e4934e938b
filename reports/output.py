"""Atomic, locked outputs: every file Blanket writes goes through this module.

* :func:`atomic_write` / :func:`atomic_open` — write to a temporary file *in the
  target directory*, ``fsync`` it, then ``os.replace`` it into place: a reader
  (or an auditor) only ever sees a complete file, never a truncated one; a
  failed write (full disk, file-size limit, read-only directory) leaves the old
  file untouched and raises :class:`OutputError` (exit 3, one line:
  ``could not write certificate.json: No space left on device``).  Writing
  through a symlink is refused (:class:`~blanket.exact.numbers.errors.InvalidArgument`,
  exit 2): the target is replaced, never followed.
* :class:`OutputDir` — checks the destination *before* the computation
  (an existing file, a read-only directory or ``/dev/full`` as ``-o`` is
  refused at once, exit 2) and locks it: a lock file ``.blanket.lock`` names
  the holder's pid and command, and a second concurrent run into the same
  directory is refused (exit 2) naming the first.  A lock left by a dead
  process is taken over.  The lock is released on every exit path.
* :func:`write_document` — the JSON + LaTeX + PDF triple of a report, written
  as a transaction: every file is staged first, then all are renamed into place
  with the signals held back (an old PDF this run does not replace is removed
  then, and the caller is told); an interruption or a full disk before that
  leaves the directory as it was.
* :func:`install_signal_handlers` — SIGTERM (and SIGHUP) become a
  :class:`Terminated` exception (SIGINT is already ``KeyboardInterrupt``), so
  every ``finally`` runs: temporary files and LaTeX directories are removed,
  the LaTeX process group is killed, the lock is released.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import pathlib
import signal
import sys

from blanket.exact.numbers import guards
from blanket.exact.numbers.errors import InvalidArgument
from blanket.reports.atomic import (  # noqa: F401  (re-exported: every file Blanket writes goes through this module)
    OutputError,
    atomic_open,
    atomic_write,
    refuse_symlink,
    stage,
)
from blanket.reports.tex_build import INSTALL_HINT, compile_pdf, tex_available

LOCK_NAME = ".blanket.lock"


class Terminated(BaseException):
    """Raised in the main thread when the process receives SIGTERM or SIGHUP (cleanup then exit 143)."""

    def __init__(self, signum: int):
        self.signum = signum
        super().__init__(signal.Signals(signum).name)


def _raise_terminated(signum, frame):  # pragma: no cover - exercised by the fault-injection tests
    from blanket.reports import supervise

    supervise.stopping()  # the supervising parent (reports/supervise.py) lets the cleanup run
    supervise.ignore_signals()  # a run answers its first signal only (a second one would break off the cleanup)
    raise Terminated(signum)


def _raise_interrupt(signum, frame):  # pragma: no cover - exercised by the signal tests
    """SIGINT: ``KeyboardInterrupt`` once (as Python's own handler), then every further signal is ignored."""
    from blanket.reports import supervise

    supervise.stopping()
    supervise.ignore_signals()
    raise KeyboardInterrupt


def install_signal_handlers() -> None:
    """Turn SIGTERM and SIGHUP into :class:`Terminated` and SIGINT into ``KeyboardInterrupt``, each for the first
    signal only: the handler ignores every later SIGINT/SIGTERM/SIGHUP, so that a second Ctrl-C (or the copy a
    supervising parent passes on, :mod:`reports.supervise`) cannot break off the cleanup.  A signal this process
    was started ignoring stays ignored (``nohup``: SIGHUP; a shell's background job: SIGINT).  Main thread only; a
    no-op elsewhere."""
    for sig, handler in (
        (signal.SIGINT, _raise_interrupt),
        (signal.SIGTERM, _raise_terminated),
        (getattr(signal, "SIGHUP", None), _raise_terminated),
    ):
        if sig is None:
            continue
        try:
            if signal.getsignal(sig) == signal.SIG_IGN:
                continue
            signal.signal(sig, handler)
        except (ValueError, OSError):  # not the main thread
            return


def check_path_length(path: str | os.PathLike, option: str = "output file") -> None:
    """Refuse (InvalidArgument, exit 2) a path the file system cannot hold: a component longer than its
    ``NAME_MAX`` or a whole path longer than ``PATH_MAX`` (``File name too long`` otherwise ends the run late).
    O(length of the path)."""
    text = os.fspath(path)
    try:
        name_max = os.pathconf(".", "PC_NAME_MAX")
        path_max = os.pathconf(".", "PC_PATH_MAX")
    except (OSError, ValueError, AttributeError):  # pragma: no cover - non-POSIX
        name_max, path_max = 255, 4096
    longest = max((len(os.fsencode(c)) for c in pathlib.PurePath(text).parts), default=0)
    if longest > name_max:
        raise InvalidArgument(
            option,
            text if len(text) <= 80 else text[:60] + f"... ({len(text)} characters)",
            f"has a name of {longest} bytes; the file system allows at most {name_max}",
            hint="choose a shorter name",
        )
    if len(os.fsencode(os.path.abspath(text))) + 64 > path_max:  # + room for the files written inside
        raise InvalidArgument(
            option,
            text[:60] + f"... ({len(text)} characters)",
            f"is too long; the file system allows paths of at most {path_max} bytes",
            hint="choose a shorter path",
        )


# ------------------------------------------------------------------ the output directory and its lock
def _pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


_HELD: list = []  # lock files held by this process (released by OutputDir.close and at exit)


class OutputDir:
    """The checked, locked output directory of one run (use as a context manager).

    ``OutputDir(path, option="-o", command="blanket certify …")`` checks at
    construction that ``path`` is (or can be made) a writable directory and
    takes its lock; both failures are :class:`InvalidArgument` naming
    ``option`` (exit 2), raised before any computation starts.
    """

    def __init__(self, path, *, option: str = "-o", command: str | None = None, stem: str | None = None):
        self.path = pathlib.Path(path)
        self.option = option
        self.command = command or " ".join(["blanket"] + sys.argv[1:])
        self.lock: pathlib.Path | None = None
        self._check()
        if stem is not None:  # the files this run will write: a symlink among them is refused before computing
            for ext in (".json", ".tex", ".pdf", ".latex.log", "-curve.png"):
                refuse_symlink(self.path / f"{stem}{ext}")
        self._acquire()

    def _invalid(self, requirement: str, hint: str | None = None) -> InvalidArgument:
        """The refusal of this directory: :class:`InvalidArgument` naming the option and the path."""
        return InvalidArgument(self.option, str(self.path), requirement, hint=hint)

    def _check(self):
        check_path_length(self.path, self.option)
        try:
            self._check_dir()
        except OSError as exc:  # e.g. a path the file system refuses (ENAMETOOLONG, ELOOP, EACCES on a parent)
            raise self._invalid(f"is not usable ({exc.strerror or exc})", "give a writable directory") from None

    def _check_dir(self):
        p = self.path
        if os.path.islink(p) and not p.exists():
            raise self._invalid("is a dangling symbolic link", "give a directory")
        if p.exists() and not p.is_dir():
            raise self._invalid("is an existing file, not a directory", "give a directory (it is created if missing)")
        self.created = not p.exists()
        if self.created:
            from blanket.reports import supervise

            supervise.note(supervise.MADE_DIR, p)  # removed (if left empty) when a signal has the run killed
        try:
            p.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise self._invalid(f"could not be created ({exc.strerror or exc})", "give a writable directory") from None
        if not os.access(p, os.W_OK | os.X_OK):
            raise self._invalid("is not writable", "give a writable directory")

    def _acquire(self):
        from blanket.reports import supervise

        lock = self.path / LOCK_NAME
        body = f"{supervise.run_pid()} {self.command}\n".encode("utf-8", errors="replace")
        for _ in range(3):
            try:
                fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                holder = self._holder(lock)
                if holder is None:  # stale (dead process) or unreadable: take it over
                    with contextlib.suppress(OSError):
                        os.unlink(lock)
                    continue
                pid, cmd = holder
                raise self._invalid(
                    f"is in use by another blanket run (pid {pid}: {cmd})",
                    "wait for it to finish or choose another output directory",
                ) from None
            except OSError as exc:
                raise self._invalid(f"is not writable ({exc.strerror or exc})", "give a writable directory") from None
            try:
                os.write(fd, body)
                os.fsync(fd)
            except OSError as exc:
                os.close(fd)
                with contextlib.suppress(OSError):
                    os.unlink(lock)
                raise self._invalid(
                    f"cannot be written to ({exc.strerror or exc})",
                    "free some space or choose another output directory",
                ) from None
            os.close(fd)
            self.lock = lock
            _HELD.append(lock)
            from blanket.reports import supervise

            supervise.note(supervise.LOCK, lock)
            return
        raise self._invalid("could not be locked (a lock file keeps reappearing)")

    @staticmethod
    def _holder(lock: pathlib.Path):
        try:  # a planted FIFO or device as the lock must not block or flood this read
            text = guards.read_capped(lock, 4096, name="lock").decode("utf-8", errors="replace")
        except InvalidArgument:
            return None
        head, _, cmd = text.strip().partition(" ")
        try:
            pid = int(head)
        except ValueError:
            return None
        from blanket.reports import supervise

        if pid in (os.getpid(), supervise.run_pid()) or not _pid_alive(pid):
            return None
        return pid, cmd.strip()[:200] or "?"

    def close(self) -> None:
        if self.lock is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.lock)
            with contextlib.suppress(ValueError):
                _HELD.remove(self.lock)
            self.lock = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        self.close()
        if exc_type is not None and self.created:  # a failed run leaves no empty directory behind
            with contextlib.suppress(OSError):
                os.rmdir(self.path)
        return False

    def __truediv__(self, name):
        return self.path / name


def release_all() -> None:
    """Remove every lock this process holds (called by the CLI on every exit path)."""
    for lock in list(_HELD):
        with contextlib.suppress(OSError):
            os.unlink(lock)
        _HELD.remove(lock)


# ------------------------------------------------------------------ a report: JSON + .tex + PDF
@dataclasses.dataclass
class Written:
    """Paths written by :func:`write_document` and the LaTeX outcome.

    ``pdf`` is ``None`` when no PDF was made; ``pdf_failed`` is true when
    LaTeX ran and failed (the run then exits 3); ``stale_pdf_removed`` names
    an old PDF that was deleted because this run could not replace it.
    """

    tex: pathlib.Path
    json: pathlib.Path
    pdf: pathlib.Path | None
    latex_message: str = ""
    latex_log: str = ""  # on failure: the path of the LaTeX log excerpt (<stem>.latex.log)
    pdf_failed: bool = False
    stale_pdf_removed: pathlib.Path | None = None
    files: tuple[pathlib.Path, ...] = ()  # the further files written (e.g. the certificate's picture)


def write_document(
    outdir: str | os.PathLike,
    stem: str,
    json_text: str,
    tex_text: str,
    *,
    pdf: bool = True,
    files: dict[str, bytes] | None = None,
    stale_files: tuple[str, ...] = (),
) -> Written:
    """Write ``<stem>.json``, ``<stem>.tex`` and (with ``pdf`` and TeX Live) ``<stem>.pdf`` into ``outdir``.

    ``files``: further files of the document (name -> bytes, e.g. the certificate's picture), written beside it
    and given to LaTeX (the ``.tex`` may include them); ``stale_files``: names of files an earlier run may have
    left that this run does not write (removed, like an old PDF).

    A transaction: every file of the run is first staged beside its target (``.<name>.*.tmp``, fsynced; the PDF
    is compiled in a temporary directory and staged the same way); only then, with SIGINT/SIGTERM/SIGHUP held
    back, are the staged files renamed into place — and an old ``<stem>.pdf`` that this run does not replace
    (LaTeX absent or failed) and the ``stale_files`` removed.  An interruption or a write error (a full disk)
    before that moment removes the staged files and leaves the directory exactly as it was: everything of the
    run is in place, or nothing of it.  A LaTeX *failure* is an outcome, not an interruption: the JSON and
    ``.tex`` are put in place with ``<stem>.latex.log``, and the old PDF is removed (the caller is told).
    """
    out = pathlib.Path(outdir)
    files = dict(files or {})
    pdf_path, tex_path, json_path = out / f"{stem}.pdf", out / f"{stem}.tex", out / f"{stem}.json"
    log_path = out / f"{stem}.latex.log"
    extra = [out / name for name in files]
    for p in (pdf_path, tex_path, json_path, log_path, *extra):
        refuse_symlink(p)
    stale_extra = [out / name for name in stale_files if name not in files]
    staged: list[tuple[pathlib.Path, pathlib.Path]] = []
    pdf_staged = out / f".{stem}.pdf.{os.getpid()}.stage.tmp"
    from blanket.reports import supervise

    supervise.note(supervise.TEMP, pdf_staged)  # removed if a signal has the run killed before its commit
    try:
        for path, data in zip(extra, files.values()):
            staged.append((stage(path, data), path))
        staged.append((stage(json_path, json_text), json_path))
        staged.append((stage(tex_path, tex_text), tex_path))
        note, pdf_ok, failed = "", False, False
        if not pdf:
            note = "PDF not requested"
        elif not tex_available():
            note = INSTALL_HINT
        else:
            res = compile_pdf(tex_text, pdf_staged, jobname=stem, files=files)
            if res.ok:
                staged.append((pdf_staged, pdf_path))
                pdf_ok = True
            else:
                failed, note = True, res.message
                log = (res.message + "\n" + (res.log_excerpt or "")).rstrip() + "\n"
                staged.append((stage(log_path, log), log_path))
        remove = stale_extra + ([] if pdf_ok else [pdf_path])
        stale = _commit(staged, remove=remove, drop_log=log_path if pdf_ok else None, pdf_path=pdf_path)
    except BaseException:
        for tmp, _ in staged:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        with contextlib.suppress(OSError):
            os.unlink(pdf_staged)
        raise
    if pdf_ok:
        return Written(tex_path, json_path, pdf_path, files=tuple(extra))
    if failed:
        return Written(
            tex_path, json_path, None, note, str(log_path), pdf_failed=True, stale_pdf_removed=stale, files=tuple(extra)
        )
    return Written(tex_path, json_path, None, note, stale_pdf_removed=stale, files=tuple(extra))


_HELD_SIGNALS = {signal.SIGINT, signal.SIGTERM} | ({signal.SIGHUP} if hasattr(signal, "SIGHUP") else set())


def _backup_name(path: pathlib.Path) -> pathlib.Path:
    return path.with_name(f".{path.name}.{os.getpid()}.{id(path)}.bak")


def _commit(staged, *, remove, drop_log, pdf_path=None) -> pathlib.Path | None:
    """Rename the staged files into place and remove ``remove`` (an old PDF, stale files) with the signals held
    back; returns the removed old PDF (``pdf_path``), if any.  All or nothing: a file this run replaces or removes
    is first kept aside (a hard link, or a rename for a removal), and if any step fails every step already taken
    is undone (the new files removed, the old ones put back) before OutputError is raised.  O(number of files)."""
    from blanket.reports import supervise

    with supervise.committing():  # a supervising parent does not kill the run while it renames
        return _commit_held(staged, remove=remove, drop_log=drop_log, pdf_path=pdf_path)


def _commit_held(staged, *, remove, drop_log, pdf_path=None) -> pathlib.Path | None:
    can_block = hasattr(signal, "pthread_sigmask")
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD_SIGNALS) if can_block else set()
    stale = None
    done: list[tuple[pathlib.Path, pathlib.Path | None]] = []  # (final, its old file kept aside or None)
    aside: list[tuple[pathlib.Path, pathlib.Path]] = []  # (removed path, where its file was moved)
    try:
        try:
            for tmp, final in staged:
                refuse_symlink(final)
                backup = None
                if os.path.isfile(final) and not os.path.islink(final):
                    backup = _backup_name(final)
                    try:
                        os.link(final, backup)
                    except OSError:
                        backup = None  # no hard links here: the old file cannot be put back if a later step fails
                try:
                    os.replace(tmp, final)
                except OSError as exc:
                    if backup is not None:
                        with contextlib.suppress(OSError):
                            os.unlink(backup)
                    raise OutputError(final, exc) from None
                done.append((final, backup))
            for p in remove:
                if os.path.lexists(p):
                    b = _backup_name(pathlib.Path(p))
                    try:
                        os.replace(p, b)
                    except OSError as exc:
                        raise OutputError(p, exc) from None
                    aside.append((pathlib.Path(p), b))
                    if pdf_path is None or p == pdf_path:
                        stale = p
        except BaseException:
            for final, backup in reversed(done):  # undo: the old files back, the new ones gone
                with contextlib.suppress(OSError):
                    if backup is not None:
                        os.replace(backup, final)
                    else:
                        os.unlink(final)
            for p, b in reversed(aside):
                with contextlib.suppress(OSError):
                    os.replace(b, p)
            raise
        for _, backup in done:
            if backup is not None:
                with contextlib.suppress(OSError):
                    os.unlink(backup)
        for _, b in aside:
            with contextlib.suppress(OSError):
                os.unlink(b)
        if drop_log is not None and os.path.lexists(drop_log):  # the log of an earlier failed run
            with contextlib.suppress(OSError):
                os.unlink(drop_log)
        if staged:  # the renames reach the disk (as atomic_write does)
            with contextlib.suppress(OSError):
                fd = os.open(staged[0][1].parent, os.O_RDONLY)
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)
    finally:
        if can_block:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)
    return stale


def commit_staged_dir(staging: str | os.PathLike, target: str | os.PathLike) -> list:
    """Move every file written into the directory ``staging`` to the same name in ``target``, all or nothing
    (:func:`_commit`: signals held back, every replaced file kept aside until all renames succeeded, undone on a
    failure), then remove ``staging``; returns the final paths in name order.  A subdirectory in ``staging`` is
    refused (OutputError) before anything is moved.  O(number of files)."""
    staging, target = pathlib.Path(staging), pathlib.Path(target)
    names = sorted(os.listdir(staging))
    for name in names:
        if not (staging / name).is_file() or (staging / name).is_symlink():
            raise OutputError(staging / name, OSError("not a regular file written by this run"))
    pairs = [(staging / name, target / name) for name in names]
    _commit(pairs, remove=(), drop_log=None)
    with contextlib.suppress(OSError):
        os.rmdir(staging)
    return [final for _, final in pairs]


def report_pdf_outcome(written: Written, want_pdf: bool) -> bool:
    """Tell the user (stderr) what happened to the PDF; return True when the PDF *failed* (exit 3)."""
    if written.stale_pdf_removed is not None and written.pdf is None:
        sys.stderr.write(
            f"blanket: note: removed {written.stale_pdf_removed} from an earlier run "
            "(this run did not produce a PDF to replace it)\n"
        )
    if not want_pdf:
        return False
    if written.pdf_failed:
        sys.stderr.write(
            f"blanket: error: the PDF could not be made ({written.latex_message}; see {written.latex_log}); "
            f"{written.json} and {written.tex} were written\n"
        )
        return True
    if written.pdf is None:
        sys.stderr.write(f"blanket: note: {INSTALL_HINT}\n")
    return False
