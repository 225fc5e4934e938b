"""A prompt stop inside a long call into C (reports/supervise.py): the ``blanket`` command runs in a forked worker,
and a worker that does not answer a signal within its grace period (Python runs no handler inside a C call) is
killed by its parent, which removes what the worker registered and prints the same one line.

The long C call is the builtin ``sum`` over a range of 10^13 integers (it never checks for signals, as a
python-flint product does not; about an hour of one core, no memory), called by a stand-in for the ``certify``
command's ``run`` after it has locked its output directory and staged a temporary file.  The signal is sent once
the stand-in has said it started; the wall clock only bounds the exit (60 s against a job of an hour), so the test
does not depend on the machine's speed.  Real signals during real commands: tests/test_signals_sweep.py (the
sweep, the composition, check-bound) and tests/test_fault_injection.py (LaTeX); they still pass with the worker.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
ENDS = 60  # wall seconds for the run to end after the signal (it takes about two); the job runs for an hour
HANG = 300  # wall seconds for the stand-in to start: only a broken start exceeds this
TAIL = "; temporary files removed, no partial output left"

STUCK = textwrap.dedent("""\
    import sys
    from blanket.reports.commands import certify

    def run(args):
        from blanket.reports import output
        from blanket.reports.atomic import stage
        import pathlib
        with output.OutputDir(args.output, option="-o") as out:
            stage(pathlib.Path(out.path) / "certificate.json", "{}")  # a temporary file beside the target
            sys.stderr.write("stand-in: started\\n")
            sys.stderr.flush()
            return sum(range(10**13))  # one C call of about an hour, no signal check inside

    certify.run = run
""")

SLOW_COMMIT = textwrap.dedent("""\
    import sys, time
    from blanket.reports.commands import certify

    def run(args):
        from blanket.reports import output, supervise
        import pathlib, signal
        with output.OutputDir(args.output, option="-o") as out:
            final = pathlib.Path(out.path) / "certificate.json"
            tmp = output.stage(final, '{"complete": true}')
            with supervise.committing():  # as reports.output._commit: signals held while renaming
                old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
                sys.stderr.write("stand-in: started\\n")
                sys.stderr.flush()
                time.sleep(4)  # a commit slower than the grace period (a slow disk's fsync)
                import os
                os.replace(tmp, final)
                signal.pthread_sigmask(signal.SIG_SETMASK, old)
            return 0

    certify.run = run
""")


def _start(
    tmp_path: pathlib.Path, prelude: str, out: pathlib.Path, supervise: bool = True, sigint=signal.SIG_DFL
) -> tuple:
    """``blanket certify`` with ``prelude`` run first (its console entry point, as the installed command), in a new
    session; stderr read by a thread that sets an event at the stand-in's first line."""
    toml = tmp_path / "d.toml"
    toml.write_text((ROOT / "examples" / "holds.toml").read_text())
    code = prelude + "\nfrom blanket.reports.cli import console_main\nconsole_main()\n"
    env = dict(os.environ, PYTHONPATH=str(ROOT), TMPDIR=str(tmp_path / "tmp"), BLANKET_PROGRESS="0")
    env.pop("BLANKET_DEBUG", None)
    env.pop("BLANKET_SUPERVISE", None)
    if not supervise:
        env["BLANKET_SUPERVISE"] = "0"
    (tmp_path / "tmp").mkdir(exist_ok=True)
    p = subprocess.Popen(
        [sys.executable, "-c", code, "certify", str(toml), "-o", str(out), "--no-pdf"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, sigint),  # SIG_DFL: not ignored, as a background job's
    )
    chunks: list = []
    seen = threading.Event()

    def read() -> None:
        assert p.stderr is not None
        while True:
            b = p.stderr.read1(4096)
            if not b:
                seen.set()  # the run ended before it started (a failure the caller reports)
                return
            chunks.append(b)
            if b"stand-in: started" in b"".join(chunks):
                seen.set()

    t = threading.Thread(target=read, daemon=True)
    t.start()
    if not seen.wait(HANG) or b"stand-in: started" not in b"".join(chunks):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, signal.SIGKILL)
        raise AssertionError(b"".join(chunks).decode("utf-8", "replace")[-2000:])
    return p, chunks, t


def _group_gone(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return True
    return False


def _finish(p, chunks, t) -> tuple:
    try:
        p.wait(timeout=ENDS)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        raise AssertionError("the run did not end after the signal") from None
    deadline = time.monotonic() + ENDS
    while not _group_gone(p.pid):  # the worker too (it is in the same process group)
        if time.monotonic() > deadline:
            os.killpg(p.pid, signal.SIGKILL)
            raise AssertionError("the worker outlived the run")
        time.sleep(0.05)
    out = p.stdout.read()
    t.join(timeout=ENDS)
    return out.decode(), b"".join(chunks).decode("utf-8", "replace")


@pytest.mark.parametrize(
    "sig,rc,group",
    [(signal.SIGINT, 130, True), (signal.SIGTERM, 143, False), (signal.SIGINT, 130, False)],
)
def test_a_run_inside_a_long_c_call_stops_promptly_one_line_nothing_left(tmp_path, sig, rc, group) -> None:
    out = tmp_path / "out"
    p, chunks, t = _start(tmp_path, STUCK, out)
    assert (out / ".blanket.lock").exists() and [n for n in os.listdir(out) if n.endswith(".tmp")]
    time.sleep(0.5)  # from its line to its C call (a signal before it is answered in Python: also a pass)
    start = time.monotonic()
    if group:  # Ctrl-C: the whole process group (the parent and the worker) gets it
        os.killpg(p.pid, sig)
    else:  # `kill PID` / `timeout`: the parent alone, which passes it on
        p.send_signal(sig)
    stdout, err = _finish(p, chunks, t)
    took = time.monotonic() - start
    assert p.returncode == rc, err[-2000:]
    assert took < ENDS
    assert "Traceback" not in err and "Exception ignored" not in err and stdout == ""
    verb = "interrupted" if sig == signal.SIGINT else "terminated"
    lines = [s for s in err.replace("\r", "\n").splitlines() if s.strip()]
    assert lines == ["stand-in: started", f"blanket: {verb} ({signal.Signals(sig).name}){TAIL}"], err
    # no partial output: the output directory the run created is gone (its lock and temporary file removed)
    assert not out.exists(), os.listdir(out)
    assert os.listdir(tmp_path / "tmp") == []


def test_a_run_renaming_its_outputs_is_not_killed_midway(tmp_path) -> None:
    """A worker inside :func:`reports.supervise.committing` (signals held) past the grace period is left to finish:
    its file is put in place whole, then the signal is answered by the worker itself (one line, exit 130)."""
    out = tmp_path / "out"
    p, chunks, t = _start(tmp_path, SLOW_COMMIT, out)
    os.killpg(p.pid, signal.SIGINT)
    stdout, err = _finish(p, chunks, t)
    assert p.returncode == 130, err[-2000:]
    assert "Traceback" not in err
    lines = [s for s in err.replace("\r", "\n").splitlines() if s.strip()]
    assert lines == ["stand-in: started", f"blanket: interrupted (SIGINT){TAIL}"], err
    assert (out / "certificate.json").read_text() == '{"complete": true}'
    assert sorted(os.listdir(out)) == ["certificate.json"]  # the lock released, no temporary file


def test_without_supervision_the_same_run_sits_in_c(tmp_path) -> None:
    """The control (the stand-in really is deaf to signals): with ``BLANKET_SUPERVISE=0`` (one process, as before the
    worker) the same run is still running 5 s after SIGTERM — more than three times the supervised grace period."""
    out = tmp_path / "out"
    p, chunks, t = _start(tmp_path, STUCK, out, supervise=False)
    try:
        time.sleep(0.5)  # from its line to its C call
        p.send_signal(signal.SIGTERM)
        time.sleep(5)
        assert p.poll() is None, b"".join(chunks).decode("utf-8", "replace")
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, signal.SIGKILL)
        p.wait()


def test_a_signal_the_command_was_started_ignoring_stays_ignored(tmp_path) -> None:
    """A shell's background job starts with SIGINT ignored (``nohup``: SIGHUP): neither the parent nor the worker
    answers it then (the run is still there well past the grace period); SIGTERM still stops it (exit 143)."""
    out = tmp_path / "out"
    p, chunks, t = _start(tmp_path, STUCK, out, sigint=signal.SIG_IGN)
    time.sleep(0.5)
    os.killpg(p.pid, signal.SIGINT)
    time.sleep(3)
    assert p.poll() is None, b"".join(chunks).decode("utf-8", "replace")
    os.killpg(p.pid, signal.SIGTERM)
    stdout, err = _finish(p, chunks, t)
    assert p.returncode == 143, err
    lines = [s for s in err.replace("\r", "\n").splitlines() if s.strip()]
    assert lines == ["stand-in: started", f"blanket: terminated (SIGTERM){TAIL}"], err
    assert not out.exists()


def test_the_registry_removes_only_what_the_killed_run_left(tmp_path, monkeypatch) -> None:
    """The parent's cleanup (in-process, records written as the worker writes them): a temporary file and a
    directory tree are removed, a lock only when it still names the run (not a later run's), a directory the run
    created only when empty, a withdrawn process group is not killed."""
    from blanket.reports import supervise

    r, w = os.pipe()
    monkeypatch.setattr(supervise, "_REGISTRY", w)
    monkeypatch.setattr(supervise, "_WORKER_PID", os.getpid())
    monkeypatch.setattr(supervise, "_PARENT_PID", 4242)
    assert supervise.run_pid() == 4242
    tmp, tree, made, kept = tmp_path / ".a.json.x.tmp", tmp_path / "tree", tmp_path / "made", tmp_path / "kept"
    tmp.write_text("partial")
    (tree / "sub").mkdir(parents=True)
    (tree / "sub" / "f").write_text("x")
    made.mkdir()
    kept.mkdir()
    (kept / "certificate.json").write_text("{}")  # a directory that is not empty stays
    ours, theirs = made / ".blanket.lock", kept / ".blanket.lock"
    ours.write_text("4242 blanket certify\n")
    theirs.write_text("4243 blanket certify (a later run)\n")
    for kind, what in [(supervise.MADE_DIR, made), (supervise.MADE_DIR, kept), (supervise.LOCK, ours)]:
        supervise.note(kind, what)
    supervise.note(supervise.LOCK, theirs)
    supervise.note(supervise.TEMP, tmp)
    supervise.note(supervise.TREE, tree)
    supervise.note(supervise.GROUP, 999999)
    supervise.note(supervise.GROUP, 999999, withdraw=True)
    killed: list = []
    monkeypatch.setattr(os, "killpg", lambda pgid, sig: killed.append(pgid))
    os.close(w)
    reg = supervise._Registry(r)
    os.set_blocking(r, False)
    reg.read()
    reg.clean(4242)
    os.close(r)
    assert not tmp.exists() and not tree.exists() and not made.exists()
    assert theirs.read_text().startswith("4243") and (kept / "certificate.json").exists()
    assert killed == []
    assert reg.closed
