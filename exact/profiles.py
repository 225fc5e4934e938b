"""Privacy profiles δ(ε) and certified ε(δ) of shuffled randomized response, per dataset — the dispatcher
used by the ``blanket delta`` / ``blanket epsilon`` commands and by the certificates.

``dataset`` selects which neighbouring datasets the number is about:

========== ===================================================== ===================================
dataset    meaning                                               relation to the DP δ of the protocol
========== ===================================================== ===================================
worst      maximum over *all* datasets and both directions        exact (binary RR, k = 2, only)
c=INT      binary RR: INT ones among the other n−1 users          a lower bound (one pair of datasets)
same       others all hold the target's value (exact.krr)        a lower bound
neighbour  others all hold the neighbour's value (exact.krr)     a lower bound
third      others all hold a third value, k ≥ 3 (exact.krr)      a lower bound
blanket    the Lemma 5.3 blanket view (exact.krr)                 an upper bound (every dataset)
========== ===================================================== ===================================

Every δ is an enclosure (ball or exact rational) computed with precision
escalation until its relative width is at most 2⁻⁴⁰ (or the cap); every ε
is a certified :class:`~exact.calibrate.Bracket` (the reported ε is its upper
end, proven to meet the target).  ``δ(ε) = 0`` exactly for ε ≥ ε0.

For the worst case over all datasets of binary RR, ε is calibrated on a
*candidate* dataset (first c = 0, then the maximiser found by the last sweep)
with cheap single-dataset evaluations, and the upper end is then certified by
a full sweep over all datasets (repeated with the new maximiser if that sweep
finds a worse dataset).  The lower end fails on the candidate dataset, hence
also in the worst case.  Cost: two sweeps (see
:func:`exact.binary.delta_binary_worst`) plus 5–9 single-dataset evaluations.

k > 2 datasets (``same``/``neighbour``/``third``/``blanket``) are computed
by :mod:`exact.krr`.

>>> from blanket.exact.mechanisms import BinaryRR
>>> r = delta(BinaryRR(exp_epsilon0=3), 6, exp_epsilon=2, dataset="c=0")
>>> r.value, r.relation
(243/4096, 'lower')
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Optional

from flint import arb, fmpq

from . import arith
from .calibrate import Bracket, epsilon0_for, epsilon_for_delta, gaussian_epsilon_guess
from .errors import InvalidArgument, Undecided

DATASETS = ("worst", "c=INT", "same", "neighbour", "third", "blanket")
RELATION = {"worst": "exact", "c": "lower", "same": "lower", "neighbour": "lower", "third": "lower",
            "blanket": "upper"}
#: relative width at which :func:`delta` stops escalating precision
REL_WIDTH_BITS = 40


def parse_dataset(dataset, n: Optional[int] = None):
    """``(kind, c)`` from a dataset string: ``"worst"``, ``"c=INT"``, ``"same"``, ``"neighbour"`` (or
    ``"neighbor"``), ``"third"``, ``"blanket"``.

    >>> parse_dataset("c=3", 10), parse_dataset("worst")
    (('c', 3), ('worst', None))
    >>> parse_dataset("c=10", 10)
    Traceback (most recent call last):
    ...
    blanket.exact.errors.InvalidArgument: dataset must be c=INT with 0 <= INT <= n-1 = 9, got 'c=10'
    """
    if not isinstance(dataset, str):
        raise InvalidArgument("dataset", dataset, f"must be one of {', '.join(DATASETS)}")
    s = dataset.strip().lower()
    if s == "neighbor":
        s = "neighbour"
    if s in ("worst", "same", "neighbour", "third", "blanket"):
        return s, None
    m = re.fullmatch(r"c\s*=\s*(\d+)", s)
    if m:
        c = int(m.group(1))
        if n is not None and not 0 <= c <= n - 1:
            raise InvalidArgument("dataset", dataset, f"must be c=INT with 0 <= INT <= n-1 = {n - 1}")
        return "c", c
    raise InvalidArgument("dataset", dataset, f"must be one of {', '.join(DATASETS)}")


@dataclass(frozen=True)
class DeltaProfile:
    """δ at one ε: ``value`` (enclosure), the dataset it is about, and how it relates to the protocol's DP δ.

    ``relation``: ``"exact"`` (the worst case over all datasets), ``"lower"``
    (one pair of datasets: a lower bound on the DP δ) or ``"upper"`` (the
    blanket view: an upper bound).  ``attained``: the dataset attaining the
    worst case (``worst``) or the dataset itself.  ``ties``: further datasets
    not separated from the maximum (worst case only).
    """

    value: object
    dataset: str
    relation: str
    attained: str
    prec: int
    c: Optional[int] = None
    direction: Optional[str] = None
    ties: tuple = ()
    note: str = ""   # why the enclosure is wider than the requested relative width (empty when it is not)


@dataclass(frozen=True)
class EpsilonProfile:
    """The smallest ε with δ(ε) ≤ target: a certified bracket (report ``upper``)."""

    bracket: Bracket
    dataset: str
    relation: str
    attained: str
    c: Optional[int] = None
    direction: Optional[str] = None
    sweeps: int = 0
    total_evaluations: Optional[int] = None

    @property
    def evaluations(self) -> int:
        """Single-dataset evaluations of δ over all calibration rounds (full sweeps counted in ``sweeps``)."""
        return self.total_evaluations if self.total_evaluations is not None else self.bracket.evaluations

    @property
    def lower(self):
        return self.bracket.lower

    @property
    def upper(self):
        return self.bracket.upper


# ---------------------------------------------------------------- helpers
def _k(mech) -> int:
    k = getattr(mech, "k", None)
    if k is None:
        raise InvalidArgument("mech", getattr(mech, "name", mech), "must be k-ary randomized response (exact.mechanisms.KRR)")
    return k


def _need_binary(mech, kind):
    if _k(mech) != 2:
        hint = ("use dataset same|neighbour|third (exact on those families, lower bounds on the worst case) "
                "or blanket (an upper bound on every dataset)")
        raise InvalidArgument("dataset", kind, f"is only available for binary RR (k = 2), not k = {_k(mech)}", hint=hint)


def _delta_raw(mech, n, kind, c, epsilon=None, exp_epsilon=None, progress=False):
    """The δ enclosure at the current precision (no escalation): value, extra info."""
    if kind == "worst":
        _need_binary(mech, kind)
        from .binary import delta_binary_worst
        w = delta_binary_worst(mech, n, epsilon=epsilon, exp_epsilon=exp_epsilon, progress=progress)
        return w.value, w
    if kind == "c":
        _need_binary(mech, "c=INT")
        from .binary import delta_binary
        return delta_binary(mech, n, c, epsilon=epsilon, exp_epsilon=exp_epsilon), None
    from . import krr  # engineer B's module (lazy: profiles works for k = 2 without it)
    if kind == "blanket":
        return krr.delta_blanket_view(mech, n, epsilon=epsilon, exp_epsilon=exp_epsilon), None
    return krr.delta_krr_family(mech, n, kind, epsilon=epsilon, exp_epsilon=exp_epsilon), None


def _tight(v, prec, rel_tol=None) -> bool:
    """True when the enclosure's relative width ``rad/|mid|`` is at most ``rel_tol`` (default 2^-40).

    A ball that still contains 0 is never tight (its relative width is unbounded): precision escalates, so a
    tiny δ (1e-72) gets a meaningful enclosure instead of [0, 1e-49].
    """
    if isinstance(v, fmpq):
        return True
    if not v.is_finite():
        return False
    if v.rad() == 0:
        return True
    mid = abs(v.mid())
    if mid == 0 or not (v > 0):
        return False
    tol = arb(2) ** (-REL_WIDTH_BITS) if rel_tol is None else arb(rel_tol)
    return v.rad() <= mid * tol


def _stalled(prev, v) -> bool:
    """True when doubling the precision did not even halve the radius: the width comes from the method
    (a certified truncation tolerance), not from rounding, so more precision would not help."""
    if prev is None or isinstance(v, fmpq) or isinstance(prev, fmpq) or not v.is_finite() or not prev.is_finite():
        return False
    if v > 0:  # a ball away from 0 escalates to the cap as before (only the new "contains 0" path may stop early)
        return False
    return prev.rad() > 0 and v.rad() * 2 > prev.rad()


def _width_note(v, rel_tol, cap, stalled=False) -> str:
    """Why the enclosure at the cap is wider than asked (empty when it is not)."""
    if _tight(v, cap, rel_tol):
        return ""
    want = "2^-40" if rel_tol is None else arith.decimal_string(arith.exact(rel_tol), 3, up=True)
    if stalled:
        return (f"the enclosure's relative width is above {want} and doubling the precision (now {cap} bits) no "
                "longer narrows it: its width comes from the method's certified truncation, not from rounding")
    if isinstance(v, arb) and v.is_finite() and not (v > 0):
        return (f"the enclosure still contains 0 at the precision cap of {cap} bits (relative width above {want}); "
                "raise the cap with --precision BITS")
    return (f"the enclosure's relative width is above {want} at the precision cap of {cap} bits; "
            "raise the cap with --precision BITS")


def _attained(kind, c, n, w=None):
    if kind == "worst":
        return w.dataset if w is not None else "all datasets (exact value 0)"
    if kind == "c":
        return f"c={c} ones among the other {n - 1} users, differing user 0 vs 1 (both directions)"
    return {"same": "the other users all hold the target's value",
            "neighbour": "the other users all hold the neighbour's value",
            "third": "the other users all hold a third value",
            "blanket": "the blanket view of Lemma 5.3 (an upper bound over all datasets)"}[kind]


# ---------------------------------------------------------------- δ(ε)
def delta(mech, n, *, epsilon=None, exp_epsilon=None, dataset="worst", start_prec: int = arith.DEFAULT_PREC,
          cap: int = arith.MAX_PREC, progress: bool = False, rel_tol=None) -> DeltaProfile:
    """δ(ε) of the shuffled mechanism on ``dataset`` (see the module table), as a :class:`DeltaProfile`.

    Precision escalates (doubling from ``start_prec``) until the enclosure's
    relative width is ≤ ``rel_tol`` (default 2⁻⁴⁰; an enclosure containing 0
    is never accepted early); at the cap the last (valid, wider) enclosure is
    returned and ``note`` says why it is wider than asked.  Cost: one evaluation per precision step — see
    :mod:`exact.binary` (k = 2) and :mod:`exact.krr` (families, blanket).
    """
    n = arith.integer_in(n, "n", lo=2)
    kind, c = parse_dataset(dataset, n)
    _k(mech)
    prec = start_prec
    prev = None
    stalled = False
    while True:
        with arith.precision(prec):
            v, w = _delta_raw(mech, n, kind, c, epsilon, exp_epsilon, progress)
            done = _tight(v, prec, rel_tol)
        if done or prec >= cap:
            break
        if _stalled(prev, v):
            stalled = True
            break
        prev = v
        prec = min(2 * prec, cap)
    note = "" if done else _width_note(v, rel_tol, prec, stalled)
    if kind == "worst" and w is not None:
        return DeltaProfile(v, "worst", "exact", _attained(kind, c, n, w), prec, w.c, w.direction, w.ties, note)
    return DeltaProfile(v, dataset if kind != "c" else f"c={c}", RELATION[kind], _attained(kind, c, n), prec, c,
                        note=note)


# ---------------------------------------------------------------- ε(δ)
def _guess(mech, n, target) -> Optional[float]:
    """Float estimate of ε (Gaussian approximation of the count; only seeds the certified search)."""
    try:
        ee0 = mech.exp_epsilon0()
        e = float(arith.ball(ee0).mid())
        k = _k(mech)
        p, f = e / (e + k - 1), 1 / (e + k - 1)
        var = n * (p * f if k == 2 else 2 * f)
        mu = (p - f) / math.sqrt(var)
        tq = int(target.p) / int(target.q)
        return gaussian_epsilon_guess(mu, tq)
    except (OverflowError, ValueError, ZeroDivisionError):
        return None


def _epsilon_hi(mech) -> fmpq:
    """An exact rational ≥ ε0 (δ(ε) = 0 from ε0 on)."""
    e0 = getattr(mech, "epsilon0_exact", None)
    if e0 is not None:
        return e0
    with arith.precision(arith.DEFAULT_PREC):
        lo, hi = arith.endpoints(mech.epsilon0())
    return fmpq(hi.numerator, hi.denominator)


def epsilon(mech, n, *, delta, dataset="worst", rel_tol="1e-6", start_prec: int = arith.DEFAULT_PREC,
            cap: int = arith.MAX_PREC, progress: bool = False) -> EpsilonProfile:
    """The smallest central ε with δ(ε) ≤ ``delta`` on ``dataset``, certified (see the module docstring).

    ``result.upper`` is proven to meet the target; ``result.lower`` is proven
    to fail it (on the dataset; for ``worst``, on the attaining dataset and
    hence in the worst case).  Relative width ≤ ``rel_tol``.
    """
    n = arith.integer_in(n, "n", lo=2)
    target = arith.exact_in(delta, "delta", lo=0, hi=1, lo_open=True, hi_open=True)
    kind, c = parse_dataset(dataset, n)
    _k(mech)
    hi = _epsilon_hi(mech)
    guess = _guess(mech, n, target)
    if guess is not None and not (0 < guess < float(hi.p) / float(hi.q)):
        guess = None
    if kind != "worst":
        if kind == "c":
            _need_binary(mech, "c=INT")

        def fun(eps):
            return _delta_raw(mech, n, kind, c, epsilon=eps)[0]

        br = epsilon_for_delta(fun, target, hi=hi, rel_tol=rel_tol, guess=guess, start_prec=start_prec, cap=cap)
        return EpsilonProfile(br, dataset if kind != "c" else f"c={c}", RELATION[kind], _attained(kind, c, n), c)
    _need_binary(mech, "worst")
    from .binary import _forward_single, _rr, delta_binary_worst

    def sweep(eps, what):
        def compute(prec):
            return delta_binary_worst(mech, n, epsilon=eps, progress=progress)
        return arith.escalate(compute, lambda w: arith.le(w.value, target) is not None, start=start_prec, cap=cap,
                              what=what)[0]

    # 1. first candidate: c = 0 in the reverse direction (forward index n−1), cheap to calibrate on; the
    #    certifying sweep at its ε then names the true maximiser if it is another dataset
    j = n - 1
    sweeps = 0
    total = 0
    tried = set()
    while True:
        tried.add(j)

        def fun(eps, j=j):
            ee0, p, f = _rr(mech)
            return _forward_single(n, j, ee0, p, f, arith.exp_param(epsilon=eps))

        br = epsilon_for_delta(fun, target, hi=hi, rel_tol=rel_tol, guess=guess, start_prec=start_prec, cap=cap)
        total += br.evaluations
        if br.upper == br.lower:
            cert = sweep(br.upper, f"worst case at epsilon={br.upper}")
            sweeps += 1
            if arith.le(cert.value, target):
                return EpsilonProfile(br, "worst", "exact", cert.dataset, cert.c, cert.direction, sweeps, total)
        else:
            cert = sweep(br.upper, f"worst case at epsilon={br.upper}")
            sweeps += 1
            if arith.le(cert.value, target):
                from .binary import WorstCase
                att = WorstCase(cert.value, j, "1|0", (j,), n).dataset
                return EpsilonProfile(br, "worst", "exact", att, j, "1|0", sweeps, total)
        # a worse dataset exists at br.upper: calibrate on it
        if cert.c in tried:
            raise Undecided("the worst-case calibration did not settle on a dataset (the maximiser changes with epsilon); "
                            "try a larger precision cap")
        j = cert.c
        guess = float(br.upper.p) / float(br.upper.q)


def epsilon0(n, *, epsilon, delta, k=2, dataset="worst", rel_tol="1e-6", hi="20",
             start_prec: int = arith.DEFAULT_PREC, cap: int = arith.MAX_PREC) -> Bracket:
    """The largest local ε0 of k-RR such that the shuffled mechanism meets (ε, δ) on ``dataset``.

    A certified :class:`~exact.calibrate.Bracket` with ``lower`` proven to
    meet the target and ``upper`` proven to fail (δ is non-decreasing in ε0:
    RR with a smaller ε0 is a post-processing of RR with a larger one).  For
    ``worst`` every evaluation is a full sweep over all datasets (cost: about
    8 sweeps).  ``hi`` caps the search domain.
    """
    from .mechanisms import KRR
    n = arith.integer_in(n, "n", lo=2)
    k = arith.integer_in(k, "k", lo=2)
    eps = arith.exact_in(epsilon, "epsilon", lo=0)
    target = arith.exact_in(delta, "delta", lo=0, hi=1, lo_open=True, hi_open=True)
    kind, c = parse_dataset(dataset, n)
    if k != 2 and kind in ("worst", "c"):
        raise InvalidArgument("dataset", dataset, f"is only available for binary RR (k = 2), not k = {k}")
    hi_q = arith.exact_in(hi, "hi", lo=0, lo_open=True)
    lo_q = eps if eps < hi_q else fmpq(0)  # below ε0 = ε the target is met trivially (δ = 0)

    def fun(e0):
        return _delta_raw(KRR(k, epsilon0=e0), n, kind, c, epsilon=eps)[0]

    return epsilon0_for(fun, target, lo=lo_q, hi=hi_q, rel_tol=rel_tol, start_prec=start_prec, cap=cap)
