"""PDF compilation of a report's LaTeX source (:func:`compile_pdf`), apart from :mod:`blanket.reports.latex`.

This module imports neither sympy nor Jinja2, so that :mod:`blanket.reports.output` (imported by every CLI
run) stays cheap to import; :mod:`blanket.reports.latex` re-exports its names.

* :func:`compile_pdf` — ``latexmk -pdf -halt-on-error -no-shell-escape`` in a temporary directory, with
  ``openin_any=p``/``openout_any=p`` (kpathsea's paranoid mode), a timeout, and a log excerpt when it fails.
"""

from __future__ import annotations

import dataclasses
import os
import pathlib
import re
import shutil
import signal
import subprocess
import tempfile

from .atomic import atomic_write

INSTALL_HINT = (
    "TeX Live is not installed, so no PDF was made (the .tex and .json were written); install it with "
    "`apt-get install texlive-latex-base texlive-latex-recommended latexmk` (Debian/Ubuntu) or "
    "`brew install --cask mactex-no-gui` (macOS) and run the command again, or compile the .tex with pdflatex"
)


# ------------------------------------------------------------ compilation
@dataclasses.dataclass(frozen=True)
class CompileResult:
    """Outcome of :func:`compile_pdf`: ``ok``, the PDF path (or ``None``) and, on failure, a message and log excerpt."""

    ok: bool
    pdf: pathlib.Path | None
    message: str = ""
    log_excerpt: str = ""


def tex_available() -> bool:
    """True when ``latexmk`` and ``pdflatex`` are on the PATH."""
    return shutil.which("latexmk") is not None and shutil.which("pdflatex") is not None


def log_excerpt(log: str, *, context: int = 6, limit: int = 40) -> str:
    """The error lines of a LaTeX log (lines starting with ``!`` or ``file:line:`` and a few after), at most ``limit`` lines."""
    lines = log.splitlines()
    keep = []
    for i, line in enumerate(lines):
        if line.startswith("!") or re.match(r"^[^:\s]+\.tex:\d+:", line):
            keep.extend(lines[i : i + context])
            keep.append("...")
        if len(keep) >= limit:
            break
    if not keep:
        keep = lines[-limit:]
    return "\n".join(keep[:limit])


def compile_pdf(
    tex_source: str,
    pdf_path: pathlib.Path,
    *,
    jobname: str = "document",
    timeout: int = 600,
    files: dict[str, bytes] | None = None,
) -> CompileResult:
    """Compile ``tex_source`` to ``pdf_path`` with latexmk in a fresh temporary directory.

    Runs ``latexmk -pdf -halt-on-error -no-shell-escape -interaction=nonstopmode``
    with kpathsea's paranoid file access (``openin_any=p``, ``openout_any=p``);
    ``files`` (name -> bytes, e.g. a PNG the source includes) are put beside the source.
    Returns a :class:`CompileResult`; never raises for a LaTeX error (the
    caller has already written the .tex and .json).
    """
    pdf_path = pathlib.Path(pdf_path)
    if not tex_available():
        return CompileResult(False, None, INSTALL_HINT)
    env = dict(os.environ)
    env.update(openin_any="p", openout_any="p", shell_escape="f")
    if "SOURCE_DATE_EPOCH" in env:
        env["FORCE_SOURCE_DATE"] = "1"
    with tempfile.TemporaryDirectory(prefix="blanket-tex-") as tmp:
        tmpdir = pathlib.Path(tmp)
        from blanket.reports import supervise

        supervise.note(supervise.TREE, tmpdir)
        (tmpdir / f"{jobname}.tex").write_text(tex_source, encoding="utf-8")
        for name, data in (files or {}).items():  # files the source includes (a figure), beside it
            (tmpdir / pathlib.Path(name).name).write_bytes(data)
        cmd = [
            "latexmk",
            "-pdf",
            "-halt-on-error",
            "-no-shell-escape",
            "-interaction=nonstopmode",
            "-file-line-error",
            f"-jobname={jobname}",
            f"{jobname}.tex",
        ]
        # own process group, so that an interruption (SIGTERM, Ctrl-C, timeout) kills pdflatex too before
        # the temporary directory is removed
        try:
            proc = subprocess.Popen(
                cmd,
                cwd=tmpdir,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        except OSError as exc:
            return CompileResult(False, None, f"could not run latexmk: {exc}")
        try:
            out, _ = proc.communicate(timeout=timeout)
        except BaseException as exc:
            _kill_group(proc)
            if isinstance(exc, subprocess.TimeoutExpired):
                return CompileResult(False, None, f"LaTeX compilation timed out after {timeout} s")
            raise
        produced = tmpdir / f"{jobname}.pdf"
        if proc.returncode != 0 or not produced.exists():
            log_file = tmpdir / f"{jobname}.log"
            log = (
                log_file.read_text(encoding="utf-8", errors="replace")
                if log_file.exists()
                else (out or b"").decode("utf-8", errors="replace")
            )
            return CompileResult(False, None, f"LaTeX failed (latexmk exit {proc.returncode})", log_excerpt(log))

        pdf_path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(pdf_path, produced.read_bytes())
    return CompileResult(True, pdf_path)


def _kill_group(proc) -> None:
    """Kill ``proc``'s whole process group (latexmk and its pdflatex) and reap it."""

    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:  # pragma: no cover
        pass
