"""check-bound where the ε compared is ≥ ε0: δ(ε) = 0 exactly (the shuffled mechanism is ε0-DP), so points decide.

Independent route: the theorem's consequence is checked against brute force (mpmath, every output tuple of
binary RR at n = 3) in :func:`test_zero_above_eps0_brute_force`; the search tests check that every point with
ε ≥ ε0 is decided (holds for a bound ≥ 0, violated for a negative one), never undecided.
"""

from __future__ import annotations

import itertools
import pathlib
from collections import Counter

import mpmath
from blanket.reports import bound_check as bc
from flint import fmpq

from tests._helpers import write_dedented

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples" / "bounds"
SAFETY_SECONDS = 900


def _run(bound, evals=60):
    s = bc.Search(bound, n_max=200, n_exhaustive=3, budget=SAFETY_SECONDS, max_evaluations=evals, progress=False)
    s.run()
    return s


def test_zero_above_eps0_brute_force():
    # binary RR with e^{eps0} = 3 at n = 3: the hockey-stick divergence between any neighbouring datasets is 0 at
    # every e^eps >= 3 and positive just below (the theorem is sharp at eps = eps0)
    e = mpmath.mpf(3)
    rows = [[e / (e + 1), 1 / (e + 1)], [1 / (e + 1), e / (e + 1)]]

    def law(data):
        out: Counter = Counter()
        for ys in itertools.product(range(2), repeat=len(data)):
            p = mpmath.mpf(1)
            for x, y in zip(data, ys):
                p *= rows[x][y]
            out[sum(ys)] += p
        return out

    for others in ([0, 0], [0, 1], [1, 1]):
        P, Q = law(others + [0]), law(others + [1])
        for ee, positive in ((mpmath.mpf(3), False), (mpmath.mpf(4), False), (mpmath.mpf("2.9"), True)):
            d = sum(max(P[h] - ee * Q[h], 0) for h in P)
            assert (d > mpmath.mpf("1e-40")) is positive


def test_delta_bound_above_eps0_is_decided(tmp_path):
    # the whole epsilon range lies above the whole epsilon0 range: every point is decided by delta = 0
    p = write_dedented(
        tmp_path,
        "zero.txt",
        """\
        mechanism: oue
        quantity: delta
        epsilon0: 0.1 .. 0.5
        n: 2 .. 200
        k: 2 .. 3
        epsilon: 0.5 .. 2
        bound: exp(-n*epsilon)
        """,
    )
    s = _run(bc.load_bound(p))
    assert s.points
    assert all(pt.outcome == "holds" and pt.exact == 0 and pt.exact_kind == bc.EPS0_ZERO_KIND for pt in s.points)


def test_negative_bound_above_eps0_fails(tmp_path):
    p = write_dedented(
        tmp_path,
        "neg.txt",
        """\
        mechanism: krr
        quantity: delta
        epsilon0: 0.1 .. 0.5
        n: 2 .. 200
        k: 2 .. 3
        epsilon: 0.5 .. 2
        bound: -exp(-n)
        """,
    )
    s = _run(bc.load_bound(p))
    assert s.points and all(pt.outcome == "violated" for pt in s.points)
    r = bc._report(s)
    assert r["verdict"] == "REFUTED"


def test_epsilon_bound_at_or_above_eps0_holds(tmp_path):
    p = write_dedented(
        tmp_path,
        "eps.txt",
        """\
        mechanism: sue
        quantity: epsilon
        epsilon0: 0.1 .. 1
        n: 2 .. 200
        k: 2 .. 3
        delta: 1e-9 .. 1e-3
        bound: epsilon0
        """,
    )
    s = _run(bc.load_bound(p))
    assert s.points
    assert all(pt.outcome == "holds" and pt.exact_kind == bc.EPS0_ZERO_KIND for pt in s.points)


def test_published_oue_bound_above_eps0_is_decided():
    # the variation-ratio bound evaluates to 0 for eps > eps0 (computed as a ball around 0 before): decided now.
    # (At eps = eps0 exactly its value p - e^eps is a ball around 0 -- p = e^{eps0} is a ball -- and stays undecided.)
    b = bc.restrict_domain(bc.load_bound(EXAMPLES / "wang_vr_oue.py"), ["epsilon0=1/2..9/10", "epsilon=1..2"])
    s = _run(b, evals=30)
    assert s.points
    assert [pt.outcome for pt in s.points if pt.outcome != "holds"] == []
    assert all(pt.exact_kind == bc.EPS0_ZERO_KIND for pt in s.points)


def test_below_eps0_still_computed(tmp_path):
    p = write_dedented(
        tmp_path,
        "below.txt",
        """\
        mechanism: krr
        quantity: delta
        epsilon0: 1 .. 2
        n: 2 .. 200
        k: 2 .. 3
        epsilon: 0.1 .. 0.5
        bound: 1
        """,
    )
    s = _run(bc.load_bound(p), evals=20)
    assert s.points and all(pt.exact_kind != bc.EPS0_ZERO_KIND for pt in s.points)
    assert all(pt.outcome == "holds" for pt in s.points)
    assert fmpq(0) not in {pt.epsilon0 for pt in s.points}
