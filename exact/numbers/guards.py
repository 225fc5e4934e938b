"""Resource guards: input-size ranges checked before anything is expanded, and a memory limit.

Every guard raises :class:`~blanket.exact.numbers.errors.InvalidArgument` (the CLI:
one line, exit 2) naming the argument, the value, the estimate and what to
do — *before* the expensive step, so that a hostile or careless input never
hangs, never ends in ``MemoryError`` and never reaches an internal error.

* :data:`~blanket.exact.numbers.arith.MAX_DECIMAL_EXPONENT` — the largest ``|e|`` accepted in a decimal
  ``"1e-e"`` (checked on the text by :func:`~blanket.exact.numbers.arith.check_decimal_text`, before ``10**e`` is
  built; it lives in ``arith``, which parses the text).
* :data:`MAX_EPSILON0` — the supported range of a local ε0 (above it randomized
  response is the identity to within ``e^-MAX_EPSILON0``, and the shuffled
  ``δ(ε)`` of the identity is 1 for every ε).
* :func:`max_memory` / :func:`set_max_memory` — the memory limit (default
  :data:`DEFAULT_MEMORY_FRACTION` of the machine's physical memory), set by
  the CLI's ``--max-memory``.
* :func:`check_memory` — refuse a computation whose *estimated* peak memory
  exceeds the limit; the estimate is part of the message.  Callers estimate
  before they allocate (e.g. ``n`` arb balls of ``prec`` bits each).
* :func:`read_capped` — read a file given by the user: only a regular file, at most a cap of bytes, both
  checked on the open descriptor *before* reading (a FIFO, a device such as ``/dev/zero`` or a directory
  is refused by name at once).
* :func:`require_instance` — refuse a record of the wrong class (a k-RR
  routine given another randomizer), naming the record.
* :func:`check_options` — refuse an unknown keyword of a function that takes
  its shared keywords as ``**opts`` (the δ(ε)-functions); :func:`exp_at` —
  that, and the ``e^ε`` the keywords give.

Complexity: every function here is O(1) (or O(len(text)) for parsing).
"""

from __future__ import annotations

import difflib
import math
import os
import re
import stat
from collections.abc import Mapping
from typing import TypeVar

from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.numbers.types import At, Enclosure, NumberOrBall

#: supported range of a local epsilon0 (see the module docstring)
MAX_EPSILON0 = 500
#: default memory limit as a fraction of physical memory
DEFAULT_MEMORY_FRACTION = 0.5
#: bytes per arb ball of ``prec`` bits (struct + mantissa limbs + Python object), an over-estimate
BALL_OVERHEAD = 96

_max_memory: int | None = None

_T = TypeVar("_T")


def physical_memory() -> int:
    """Bytes of physical memory (``sysconf``), or 4 GiB when it cannot be read."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):  # pragma: no cover - non-POSIX
        return 4 << 30


def max_memory() -> int:
    """The memory limit in bytes (``--max-memory``; default half of physical memory)."""
    if _max_memory is not None:
        return _max_memory
    return int(physical_memory() * DEFAULT_MEMORY_FRACTION)


def set_max_memory(nbytes: int | None) -> None:
    """Set the limit used by :func:`check_memory` (``None`` restores the default)."""
    global _max_memory
    _max_memory = nbytes


_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(i?b?)\s*$", re.IGNORECASE)


def parse_size(text: str | int, name: str = "--max-memory") -> int:
    """Bytes from ``"2G"``, ``"500M"``, ``"1.5GiB"``, ``"2000000"`` (between 1 MiB and 1 PiB).

    >>> parse_size("2G"), parse_size("512M"), parse_size("2000000")
    (2147483648, 536870912, 2000000)
    >>> parse_size("lots")
    Traceback (most recent call last):
    ...
    blanket.exact.numbers.errors.InvalidArgument: --max-memory must be a size such as 2G, 500M or 2000000 (bytes), got 'lots'
    """
    m = _SIZE.match(str(text))
    if not m:
        raise InvalidArgument(name, text, "must be a size such as 2G, 500M or 2000000 (bytes)")
    value = float(m.group(1)) * 1024 ** "bkmgt".index((m.group(2) or "b").lower())
    if not 1 << 20 <= value <= 1 << 50:
        raise InvalidArgument(name, text, "must be between 1M and 1P")
    return int(value)


def human(nbytes: float) -> str:
    """``1.5 GB`` style.

    >>> human(3 * 2**30), human(2048)
    ('3.0 GiB', '2.0 KiB')
    """
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if abs(nbytes) < 1024 or unit == "PiB":
            return f"{nbytes:.1f} {unit}" if unit != "B" else f"{int(nbytes)} B"
        nbytes /= 1024
    return f"{nbytes:.1f} PiB"  # pragma: no cover


def ball_bytes(prec: int) -> int:
    """Estimated bytes of one arb ball at ``prec`` bits (over-estimate)."""
    return BALL_OVERHEAD + 2 * (prec // 8 + 8)


def check_memory(estimate: float, what: str, *, name: str, value: object, hint: str = "") -> None:
    """Refuse (InvalidArgument, exit 2) when ``estimate`` bytes exceed :func:`max_memory`.

    >>> set_max_memory(1 << 30)
    >>> check_memory(2 << 30, "the count distribution", name="n", value=10**9)
    Traceback (most recent call last):
    ...
    blanket.exact.numbers.errors.InvalidArgument: n needs an estimated 2.0 GiB for the count distribution, above the memory limit of 1.0 GiB (--max-memory), got 1000000000
    >>> set_max_memory(None)
    """
    limit = max_memory()
    if estimate > limit:
        raise InvalidArgument(
            name,
            value,
            f"needs an estimated {human(estimate)} for {what}, above the memory limit of {human(limit)} (--max-memory)",
            hint=hint or None,
        )


#: memory model of one certified evaluation at n users (one dataset, a family, the blanket view, a Rényi
#: moment): the kernels keep windows of O(sqrt(n)) values.  Measured peak RSS at n = 10^9: 72-477 MB
#: (tests/benchmarks/bench_binary.py, bench_krr.py, bench_renyi.py); the model is above every measurement.
EVALUATION_BASE_BYTES = 64 << 20
EVALUATION_BYTES_PER_SQRT_N = 16 << 10


def evaluation_bytes(n: int) -> int:
    """Estimated peak bytes of one certified evaluation at ``n`` users: ``64 MiB + 16 KiB·⌈√n⌉``.

    The exact worst case over all datasets is estimated separately (:mod:`exact.runtime.budget`).

    >>> human(evaluation_bytes(10**9))
    '558.1 MiB'
    """
    return EVALUATION_BASE_BYTES + EVALUATION_BYTES_PER_SQRT_N * (math.isqrt(max(int(n), 0)) + 1)


def check_evaluation_memory(n: int, *, name: str) -> None:
    """Refuse (exit 2, with the estimate) an ``n`` whose single certified evaluation would exceed the memory limit."""
    check_memory(
        evaluation_bytes(n),
        "one certified evaluation (windows of O(sqrt n) values)",
        name=name,
        value=n,
        hint="use a smaller n, or raise --max-memory",
    )


def check_epsilon0(q: NumberOrBall, name: str = "epsilon0") -> None:
    """Refuse a local ε0 above :data:`MAX_EPSILON0` with what the answer would be.

    >>> check_epsilon0(100000)
    Traceback (most recent call last):
    ...
    blanket.exact.numbers.errors.InvalidArgument: epsilon0 must be at most 500 (the supported range), got 100000 (above it randomized response equals the identity to within e^-500, and the shuffled identity has delta(epsilon) = 1 for every epsilon: no central privacy)
    """

    if arith.exact(q) > MAX_EPSILON0:
        raise InvalidArgument(
            name,
            _shown(q),
            f"must be at most {MAX_EPSILON0} (the supported range)",
            hint=f"above it randomized response equals the identity to within e^-{MAX_EPSILON0}, and the "
            "shuffled identity has delta(epsilon) = 1 for every epsilon: no central privacy",
        )


def _shown(v: NumberOrBall) -> object:
    """``v`` as an error message shows it: a text of more than 40 characters (``'--epsilon0 1e400'`` with its 400
    zeros, ``10**300``) as 10 significant digits, said to be rounded down where it is.  O(len)."""
    shown = v if isinstance(v, (int, str)) else str(v)
    if len(str(shown)) > 40:
        d = arith.decimal_string(arith.exact(v), 10, up=False)
        shown = d if arith.exact(d) == arith.exact(v) else f"{d} (rounded down)"
    return shown


def check_exp_epsilon0(e: NumberOrBall, name: str = "exp_epsilon0") -> None:
    """Refuse an exact ``e^{ε0}`` (``name``) above ``e^MAX_EPSILON0`` (:func:`check_epsilon0`'s range, for records
    given ``exp_epsilon0``); a value whose ``log`` straddles the limit at 64 bits is let through (the limit is a
    supported range, not a soundness condition).  O(1) (one 64-bit ``log``).

    >>> check_exp_epsilon0(10**300)
    Traceback (most recent call last):
    ...
    blanket.exact.numbers.errors.InvalidArgument: exp_epsilon0 must be at most e^500 (epsilon0 at most 500, the supported range), got '1e+300' (above it randomized response equals the identity to within e^-500, and the shuffled identity has delta(epsilon) = 1 for every epsilon: no central privacy)
    """
    with arith.precision(64):
        too_big = bool(arith.ball(e).log() > MAX_EPSILON0)
    if too_big:
        raise InvalidArgument(
            name,
            _shown(e),
            f"must be at most e^{MAX_EPSILON0} (epsilon0 at most {MAX_EPSILON0}, the supported range)",
            hint=f"above it randomized response equals the identity to within e^-{MAX_EPSILON0}, and the "
            "shuffled identity has delta(epsilon) = 1 for every epsilon: no central privacy",
        )


def _file_kind(mode: int) -> str:
    for test, word in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return word
    return "not a regular file"


def not_regular_file(path: str | os.PathLike) -> str | None:
    """Why ``path`` cannot be read as a regular file (``"does not exist"``, ``"must be a regular file, not a
    character device"``, ...), or ``None`` when it is one.  One ``stat`` call (following symbolic links), O(1).

    >>> not_regular_file("/dev/zero")
    'must be a regular file, not a character device'
    """
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return "does not exist"
    except OSError as exc:
        return f"could not be read ({exc.strerror or exc})"
    return None if stat.S_ISREG(st.st_mode) else f"must be a regular file, not {_file_kind(st.st_mode)}"


def read_capped(path: str | os.PathLike, limit: int, *, name: str, shown: str | None = None) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them; else InvalidArgument naming ``name``.

    The file is opened without blocking (a FIFO with no writer does not hang the open) and without following
    into a terminal; its type and size are checked on the open descriptor before anything is read, and at most
    ``limit + 1`` bytes are ever read (a file growing meanwhile is refused too).  ``shown`` is the path as shown
    in messages (default ``str(path)``).  O(limit).

    >>> read_capped("/dev/zero", 100, name="deployment file")
    Traceback (most recent call last):
    ...
    blanket.exact.numbers.errors.InvalidArgument: deployment file must be a regular file, not a character device, got '/dev/zero'
    """
    where = shown if shown is not None else str(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        raise InvalidArgument(name, where, f"could not be read ({exc.strerror or exc})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise InvalidArgument(name, where, f"must be a regular file, not {_file_kind(st.st_mode)}")
        if st.st_size > limit:
            raise InvalidArgument(name, where, f"is {st.st_size} bytes; at most {limit} are accepted")
        chunks, total = [], 0
        while total <= limit:
            chunk = os.read(fd, min(1 << 16, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except OSError as exc:
        raise InvalidArgument(name, where, f"could not be read ({exc.strerror or exc})") from None
    finally:
        os.close(fd)
    if total > limit:
        raise InvalidArgument(name, where, f"is larger than {limit} bytes")
    return b"".join(chunks)


def require_instance(
    value: object, cls: type[_T], name: str, requirement: str, *, shown: str = "name", hint: str | None = None
) -> _T:
    """``value`` when it is a ``cls``; otherwise :class:`InvalidArgument` naming ``name``, showing the value by its
    attribute ``shown`` (a record's ``name`` or ``kind``; the value itself when it has none).  O(1).

    >>> from blanket.exact.mechanisms.finite import KRR, FiniteRandomizer
    >>> require_instance(KRR(3, exp_epsilon0=2), KRR, "mech", "must be k-RR").name
    '3-RR'
    >>> require_instance(FiniteRandomizer([[1, 0], [0, 1]], name="identity"), KRR, "mech", "must be k-RR", hint="see krr")
    Traceback (most recent call last):
    ...
    blanket.exact.numbers.errors.InvalidArgument: mech must be k-RR, got 'identity' (see krr)
    """
    if not isinstance(value, cls):
        raise InvalidArgument(name, getattr(value, shown, value), requirement, hint=hint)
    return value


def check_options(fn: str, given: Mapping[str, object], spec: type) -> None:
    """Refuse a keyword of ``given`` that the ``TypedDict`` ``spec`` does not declare, as Python does for a signature.

    The δ(ε)-functions take their shared keywords as ``**opts: Unpack[spec]``
    (:class:`blanket.exact.numbers.types.DeltaOptions`); a type checker checks them at each call, this checks them at
    run time, so that a misspelt ``tol`` is never silently replaced by its default.  O(len(given)).

    >>> from blanket.exact.numbers.types import At
    >>> check_options("f", {"epsilon": 1}, At)
    >>> check_options("f", {"epsilom": 1}, At)
    Traceback (most recent call last):
    ...
    TypeError: f() got an unexpected keyword argument 'epsilom' (did you mean 'epsilon'?)
    """
    # typing has no type for "a TypedDict class" (``type[TypedDict]`` is refused), so ``spec`` is a plain ``type``
    # and its key sets, set on every TypedDict class, are invisible to the checker
    allowed = spec.__required_keys__ | spec.__optional_keys__  # type: ignore[attr-defined]
    for key in given:
        if key not in allowed:
            close = difflib.get_close_matches(key, sorted(allowed), n=1, cutoff=0.6)
            hint = f" (did you mean {close[0]!r}?)" if close else f"; accepted: {', '.join(sorted(allowed))}"
            raise TypeError(f"{fn}() got an unexpected keyword argument {key!r}{hint}")


def exp_at(fn: str, at: At) -> Enclosure:
    """``e^ε`` of the keywords ``at`` of a function ``fn`` that takes ``**at: Unpack[At]``, checked.

    The keywords are checked (:func:`check_options`: only ``epsilon``, ``exp_epsilon``), then exactly one must be
    given (:func:`blanket.exact.numbers.arith.exp_param`).  O(1).

    >>> exp_at("f", {"exp_epsilon": "3/2"})
    3/2
    """
    check_options(fn, at, At)
    return arith.exp_param(at.get("epsilon"), at.get("exp_epsilon"))
