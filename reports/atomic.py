"""Atomic file writes, the lowest piece of every output (:mod:`reports.output` re-exports them; :mod:`reports.latex`
writes the PDF with them).

* :func:`atomic_write` / :func:`atomic_open` — write to a temporary file *in the
  target directory*, ``fsync`` it, then ``os.replace`` it into place: a reader
  only ever sees a complete file; a failed write leaves the old file untouched
  and raises :class:`OutputError` (exit 3, one line).
* :func:`refuse_symlink` — Blanket never writes through a symbolic link
  (:class:`~blanket.exact.numbers.errors.InvalidArgument`, exit 2).

Complexity: O(size of the data) plus one ``fsync`` of the file and of its directory.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import tempfile
from collections.abc import Iterator
from typing import IO

from blanket.exact.numbers.errors import BlanketError, InvalidArgument


class OutputError(BlanketError):
    """An output could not be written (disk full, file-size limit, I/O error): the CLI exits 3."""

    def __init__(self, path, exc: OSError):
        self.path = str(path)
        reason = exc.strerror or str(exc)
        super().__init__(f"could not write {path}: {reason} (nothing partial was left in place)")


def refuse_symlink(path: pathlib.Path, option: str = "output file") -> None:
    """Raise InvalidArgument if ``path`` is a symlink (Blanket never writes through one)."""
    if os.path.islink(path):
        raise InvalidArgument(
            option,
            str(path),
            "is a symbolic link; Blanket does not write through symlinks",
            hint="remove the link or choose another output directory",
        )


def _note_temp(tmp: str) -> None:
    """Register a temporary file with the supervising parent (removed if a signal has the run killed)."""
    from blanket.reports import supervise

    supervise.note(supervise.TEMP, tmp)


def _fsync_dir(directory: pathlib.Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _default_mode(tmp: str) -> None:
    """Give a ``mkstemp`` file (mode 0600) the mode a plain ``open`` would: ``0o666`` less the umask."""
    mask = os.umask(0)
    os.umask(mask)
    os.chmod(tmp, 0o666 & ~mask)


def _temp_beside(path: pathlib.Path) -> tuple[int, str]:
    """A new temporary file ``.NAME.*.tmp`` in ``path``'s folder, noted for the clean-up on a signal: ``(fd, name)``
    (OutputError when it cannot be created).  O(1)."""
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=str(path.parent))
    except OSError as exc:
        raise OutputError(path, exc) from None
    _note_temp(tmp)
    return fd, tmp


def stage(path: pathlib.Path, data: str | bytes) -> pathlib.Path:
    """Write ``data`` (``str`` as UTF-8) to a fsynced temporary file beside ``path`` with the mode a plain ``open``
    would give; return it, for the caller to rename into place (OutputError when it fails; nothing left behind)."""
    fd, tmp = _temp_beside(path)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode("utf-8") if isinstance(data, str) else data)
            fh.flush()
            os.fsync(fh.fileno())
        _default_mode(tmp)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise OutputError(path, exc) from None
        raise
    return pathlib.Path(tmp)


@contextlib.contextmanager
def atomic_open(
    path: str | os.PathLike, mode: str = "w", *, encoding: str | None = "utf-8", newline: str | None = None
) -> Iterator[IO]:
    """Open a temporary file beside ``path`` for writing; on success it is fsynced and renamed onto ``path``.

    On any exception (including :class:`reports.output.Terminated` and ``KeyboardInterrupt``)
    the temporary file is removed and ``path`` is left as it was.
    """
    path = pathlib.Path(path)
    refuse_symlink(path)
    binary = "b" in mode
    fd, tmp = _temp_beside(path)
    try:
        with os.fdopen(  # type: ignore[call-overload]  # mode and text options are chosen together at run time
            fd, "wb" if binary else "w", **({} if binary else {"encoding": encoding, "newline": newline})
        ) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        _default_mode(tmp)
        refuse_symlink(path)
        os.replace(tmp, path)
        _fsync_dir(path.parent)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise OutputError(path, exc) from None
        raise


def atomic_write(path: str | os.PathLike, data: str | bytes) -> pathlib.Path:
    """Write ``data`` (``str`` as UTF-8, or ``bytes``) to ``path`` atomically; returns the path."""
    path = pathlib.Path(path)
    if isinstance(data, str):
        data = data.encode("utf-8")
    with atomic_open(path, "wb") as fh:
        fh.write(data)
    return path
