"""Hostile probes (session 14): independent references and the sweep of session 14 (large ε0 at real n, rounds,
sampling, geometric, continuous, sampled binary RR near n = 160, certify with odd edits).

References (this file's own, from the definitions; the brute force over every dataset is probe_sampled13's):
* ``same_family_ref``: δ of the concrete pair ``x^n`` vs ``x^{n−1} x'`` for a randomizer whose likelihood ratio
  ``Λ = R(x')(Y)/R(x)(Y)``, ``Y ~ R(x)``, takes the values ``1/e`` (w.p. ``a``), ``e`` (w.p. ``b``) and 1 (the rest):
  the shuffled output's ratio is ``(1/n)ΣΛ_i`` (the differing user is any of the n, uniformly), so
  ``H_ee(x^n ‖ x^{n−1}x') = E[(1 − ee·L)_+]`` and the other order ``E[(L − ee)_+]``, summed over the trinomial law
  of the counts of the two informative values in mpmath (O(n²) terms).  ``a``, ``b`` of each oracle are derived
  here from its textbook definition (``oracle_ratio_law``).
* ``laplace_pair_ref``: δ of n users on [0, 1] with the Laplace randomizer (scale 1/ε0), datasets ``0^n`` vs
  ``0^{n−1} 1``, by the shuffled likelihood ratio over mpmath quadrature (n = 2) — see its docstring.

Usage: python3 tests/benchmarks/probe14.py [area ...]   (areas: oracles, geometric, binary160, certify; prints one line
per case with its seconds and the load)
"""

from __future__ import annotations

import math
import os
import pathlib
import subprocess
import sys
import time

import mpmath as mp

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import probe_sampled13 as P  # noqa: E402  (the shared brute force and cli_json)

cli_json = P.cli_json
SLACK = P.SLACK


# ------------------------------------------------------------------ references
def oracle_ratio_law(kind: str, e, k: int = 0, g: int = 0, d: int = 0) -> tuple:
    """``(a, b)``: P_{R(x)}[Λ = 1/e] and P_{R(x)}[Λ = e] for the oracle ``kind`` at ``e = e^{ε0}`` (mpf), from its
    definition (the report's probability under x' over that under x is e^{±ε0} or 1).

    * ``olh`` (collision 1/g, no constant hash): ``Λ ≠ 1`` only when ``h(x) ≠ h(x')`` (w.p. 1 − 1/g); then
      ``y = h(x)`` w.p. ``e/(e+g−1)`` gives ``1/e`` and ``y = h(x')`` w.p. ``1/(e+g−1)`` gives ``e``.
    * ``subset`` (d of k, x in the set w.p. ∝ e): ``Λ = 1/e`` when x ∈ S ∌ x', ``e`` when x' ∈ S ∌ x.
    * ``oue`` (bit x kept w.p. 1/2, others 1 w.p. q = 1/(e+1)) and ``sue`` (p = √e/(√e+1), q = 1 − p): the pair of
      bits (y_x, y_x') decides; ``Λ = 1/e`` at (1, 0), ``e`` at (0, 1) (both unary encodings satisfy p(1−q)/(q(1−p)) = e).
    """
    if kind == "olh":
        z = e + g - 1
        return (1 - mp.mpf(1) / g) * e / z, (1 - mp.mpf(1) / g) / z
    if kind == "subset":
        z = e * mp.binomial(k - 1, d - 1) + mp.binomial(k - 1, d)
        return e * mp.binomial(k - 2, d - 1) / z, mp.binomial(k - 2, d - 1) / z
    if kind == "oue":
        p, q = mp.mpf(1) / 2, 1 / (e + 1)
    elif kind == "sue":
        s = mp.sqrt(e)
        p, q = s / (s + 1), 1 / (s + 1)
    else:
        raise ValueError(kind)
    return p * (1 - q), q * (1 - p)


def same_family_ref(a, b, e, n: int, ee) -> mp.mpf:
    """max of the two orders of H_ee between x^n and x^{n−1}x' (module docstring).  O(n²) mpmath terms."""
    c = 1 - a - b
    fwd = bwd = mp.mpf(0)
    for i in range(n + 1):  # i values 1/e
        for j in range(n - i + 1):  # j values e
            r = n - i - j
            pr = mp.factorial(n) / (mp.factorial(i) * mp.factorial(j) * mp.factorial(r)) * a**i * b**j * c**r
            if pr == 0:
                continue
            L = (i / e + j * e + r) / n
            fwd += pr * max(mp.mpf(0), 1 - ee * L)
            bwd += pr * max(mp.mpf(0), L - ee)
    return max(fwd, bwd)


def load() -> str:
    return "load %.1f" % os.getloadavg()[0]


# ------------------------------------------------------------------ the sweep (not a test)
def _cli_line(args: list, timeout: int = 600) -> str:
    t = time.time()
    try:
        r = subprocess.run(
            [sys.executable, "-m", "blanket.reports.cli", *map(str, args), "--json", "-q"],
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return f"TIMEOUT {timeout}s | {' '.join(map(str, args))}"
    import json

    try:
        d = json.loads(r.stdout)
        key = "delta" if isinstance(d.get("delta"), dict) else "epsilon" if isinstance(d.get("epsilon"), dict) else None
        res = f"[{d[key]['lower']}, {d[key]['upper']}]" if key else d.get("verdict", list(d)[:6])
    except ValueError:
        res = (r.stdout + r.stderr).strip().splitlines()[-1:] if (r.stdout + r.stderr).strip() else ""
    return f"{time.time() - t:7.1f}s {load()} rc={r.returncode} {res} | {' '.join(map(str, args))}"


def sweep_oracles() -> None:
    mechs = [["oue", "--k", 8], ["sue", "--k", 8], ["olh", "--k", 64, "--g", 8], ["hadamard", "--k", 16],
             ["subset", "--k", 8, "--d", 2]]  # fmt: skip
    for m in mechs:
        for e0 in (14, 40, 100):
            for n in (1000, 10**6):
                print(_cli_line(["delta", "--mechanism", *m, "--epsilon0", e0, "-n", n, "--epsilon", 1]), flush=True)
                print(_cli_line(["delta", "--mechanism", *m, "--epsilon0", e0, "-n", n, "--epsilon", 1,
                                 "--sampling", "0.01"]), flush=True)  # fmt: skip
                for T in (2, 10, 365):
                    print(_cli_line(["epsilon", "--mechanism", *m, "--epsilon0", e0, "-n", n, "--delta", "1e-6",
                                     "--rounds", T]), flush=True)  # fmt: skip


def sweep_geometric() -> None:
    for m in (2, 3, 5, 10, 20):
        for n in (100, 10**4):
            base = ["--mechanism", "geometric", "--m", m, "--epsilon0", 1, "-n", n]
            print(_cli_line(["delta", *base, "--epsilon", "0.3"]), flush=True)
            print(_cli_line(["delta", *base, "--epsilon", "0.3", "--sampling", "0.1"]), flush=True)
            print(_cli_line(["epsilon", *base, "--delta", "1e-6", "--rounds", 10]), flush=True)
            print(_cli_line(["delta", *base, "--epsilon", "0.3", "--colluding", 2]), flush=True)


def sweep_binary160() -> None:
    for n in (159, 160, 161):
        for q in ("0.000001", "0.5", "1"):
            print(_cli_line(["epsilon", "--mechanism", "rr", "--epsilon0", 1, "-n", n, "--sampling", q,
                             "--delta", "1e-6"]), flush=True)  # fmt: skip


AREAS = {"oracles": sweep_oracles, "geometric": sweep_geometric, "binary160": sweep_binary160}


# ------------------------------------------------------------------ reference: shuffled Laplace, n = 2
def laplace_pair_ref(e0, eps) -> mp.mpf:
    """max of both orders of H_{e^eps} between the datasets ``0 0`` and ``1 0`` (two users on [0, 1], the Laplace
    randomizer of scale 1/e0, the shuffled pair of reports).

    Under ``0 0`` the reports are i.i.d. with density ``f_0``; the likelihood ratio of ``1 0`` is
    ``L = (R_1 + R_2)/2``, ``R = f_1(Y)/f_0(Y) = e^{e0(|Y| − |Y − 1|)}``: ``e^{−e0}`` w.p. 1/2 (Y < 0), ``e^{e0}`` w.p.
    ``e^{−e0}/2`` (Y > 1), ``e^{e0(2y−1)}`` for ``y ∈ (0, 1)`` (density ``(e0/2)e^{−e0 y}``).  ``H(10‖00) = E[(L − α)_+]``,
    ``H(00‖10) = E[(1 − αL)_+]``: the inner expectation over ``R_2`` in closed form, the outer by mpmath quadrature
    (breakpoints where the inner threshold leaves (0, 1)).
    """
    e0, a = mp.mpf(e0), mp.e ** mp.mpf(eps)
    lo, hi = mp.e ** (-e0), mp.e**e0

    def inner(s, sign):
        """E[(s + sign·R/2)_+] over one report R (sign = ±1)."""
        tot = mp.mpf(0)
        for w, r in ((mp.mpf(1) / 2, lo), (lo / 2, hi)):
            tot += w * max(mp.mpf(0), s + sign * r / 2)
        # continuous part: y in (0, 1), R = e^{e0(2y−1)}; s + sign·R/2 > 0 on y > t (sign +) or y < t (sign −)
        c = 2 * (-s) * sign  # R > c (sign +) or R < c (sign −)
        if c <= 0:
            t = mp.mpf(0) if sign > 0 else mp.mpf(1)
            t = None if sign < 0 else t
            if sign < 0:
                return tot  # R < c <= 0 never
        else:
            t = min(max((1 + mp.log(c) / e0) / 2, mp.mpf(0)), mp.mpf(1))
        a0, a1 = (t, mp.mpf(1)) if sign > 0 else (mp.mpf(0), t)
        # ∫_{a0}^{a1} (e0/2) e^{−e0 y} (s + sign·e^{e0(2y−1)}/2) dy
        m0 = (mp.e ** (-e0 * a0) - mp.e ** (-e0 * a1)) / 2
        m1 = (mp.e ** (e0 * a1) - mp.e ** (e0 * a0)) * mp.e ** (-e0) / 4
        return tot + s * m0 + sign * m1

    def outer(f):
        tot = mp.mpf(1) / 2 * f(lo) + lo / 2 * f(hi)
        dens = lambda y: e0 / 2 * mp.e ** (-e0 * y) * f(mp.e ** (e0 * (2 * y - 1)))  # noqa: E731
        return tot + mp.quad(dens, mp.linspace(0, 1, 9))

    fwd = outer(lambda r1: inner(r1 / 2 - a, 1))
    bwd = outer(lambda r1: a * inner(1 / a - r1 / 2, -1))
    return max(fwd, bwd)


def laplace_mc(e0, eps, n=2, draws=400000, seed=1) -> float:
    """A float Monte Carlo of :func:`laplace_pair_ref` (checks the reference only; never a test's expected value)."""
    import numpy as np

    g = np.random.default_rng(seed)
    y = g.laplace(0, 1 / float(e0), size=(draws, n))
    r = np.exp(float(e0) * (np.abs(y) - np.abs(y - 1)))
    L = r.mean(axis=1)
    a = math.exp(float(eps))
    return max(np.maximum(L - a, 0).mean(), np.maximum(1 - a * L, 0).mean())


# ------------------------------------------------------------------ reference: plain binary RR, every dataset
def binary_rr_worst(n: int, e0, eps) -> tuple:
    """max over datasets (C ones among n, both orders) of H_{e^eps} of the number of ones reported, binary RR at e0:
    ``K = Bin(C, p) + Bin(n − C, 1 − p)``, ``p = e^{e0}/(e^{e0}+1)``; each law by direct convolution in mpmath.
    O(n³) mpmath operations (n = 160: about a minute).  Returns (δ, C, order)."""
    e, a = mp.e ** mp.mpf(e0), mp.e ** mp.mpf(eps)
    p = e / (e + 1)
    f = 1 - p
    pb = [[mp.binomial(m, i) * p**i * f ** (m - i) for i in range(m + 1)] for m in range(n + 1)]

    def law(C):
        A, B = pb[C], pb[n - C][::-1]  # ones among the C: Bin(C, p); among the others: Bin(n − C, f)
        out = [mp.mpf(0)] * (n + 1)
        for i, x in enumerate(A):
            for j, y in enumerate(B):
                out[i + j] += x * y
        return out

    best, arg, prev = mp.mpf(0), None, law(0)
    for C in range(1, n + 1):
        cur = law(C)
        for p1, q1, tag in ((cur, prev, "1->0"), (prev, cur, "0->1")):
            v = sum((max(mp.mpf(0), x - a * y) for x, y in zip(p1, q1)), mp.mpf(0))
            if v > best:
                best, arg = v, (C, tag)
        prev = cur
    return best, *arg


def sampled_binary_worst_float(n: int, q, e0, eps) -> tuple:
    """Sampled binary RR (each user reports w.p. q; the server sees the reports): max over datasets (C ones, both
    orders) of H_{e^eps} of the law of (M reports, K ones), in float64 (a check with a relative slack, not a
    certified value).  The C ones and the n − C zeros are independent groups; a group of c users with bit b gives
    ``(m, k)``: ``m ~ Bin(c, q)``, ``k | m ~ Bin(m, p_b)``; the joint law is their 2-D convolution (direct, exact
    sums of products).  O(n⁵) flops at worst (n = 160: a minute or two)."""
    import numpy as np
    from scipy.signal import convolve2d
    from scipy.stats import binom

    e = math.exp(float(e0))
    p, f, qq, a = e / (e + 1), 1 / (e + 1), float(q), math.exp(float(eps))

    def group(c, pb):
        g = np.zeros((c + 1, c + 1))
        for m in range(c + 1):
            g[m, : m + 1] = binom.pmf(m, c, qq) * binom.pmf(np.arange(m + 1), m, pb)
        return g

    ones = [group(c, p) for c in range(n + 1)]
    zeros = [group(c, f) for c in range(n + 1)]
    laws = [convolve2d(ones[C], zeros[n - C]) for C in range(n + 1)]
    best, arg = 0.0, None
    for C in range(1, n + 1):
        for p1, q1, tag in ((laws[C], laws[C - 1], "1->0"), (laws[C - 1], laws[C], "0->1")):
            v = float(np.maximum(p1 - a * q1, 0).sum())
            if v > best:
                best, arg = v, (C, tag)
    return best, *arg


def sweep_geometric_small() -> None:
    """Geometric m = 2..5 at n = 3 (plain, sampled q = 1/2, 1 of 4 colluding) against probe12's brute force over
    every dataset (probe12's rows from the definition, α = e^{−ε0/(m−1)})."""
    sys.path.insert(0, str(pathlib.Path(__file__).parent.parent))
    import test_probe12 as T12

    for m in (2, 3, 4, 5):
        for e0 in ("0.5", "2"):
            with mp.workdps(40):
                rows = T12._geometric(m, mp.e ** (-mp.mpf(e0) / (m - 1)))
                cases = [
                    ([], rows, 3),
                    (["--sampling", "1/2"], T12._sampled(rows, mp.mpf(1) / 2), 3),
                    (["--colluding", 1], rows, 3),
                ]
                for extra, rr, nn in cases:
                    n = 4 if "--colluding" in extra else 3
                    t = time.time()
                    args = [
                        "delta",
                        "--mechanism",
                        "geometric",
                        "--m",
                        m,
                        "--epsilon0",
                        e0,
                        "-n",
                        n,
                        "--epsilon",
                        "0.3",
                    ]
                    rc, d = cli_json(*args, *extra)
                    ex = T12.worst_delta(rr, nn, "0.3")
                    if rc != 0:
                        print(f"BAD rc={rc} {d} | {args + extra}", flush=True)
                        continue
                    lo, hi = mp.mpf(d["delta"]["lower"]), mp.mpf(d["delta"]["upper"])
                    ok = lo <= ex * (1 + SLACK) and hi >= ex * (1 - SLACK)
                    print(f"{'ok ' if ok else 'BAD'} {time.time() - t:6.1f}s {load()} [{lo}, {hi}] exact {mp.nstr(ex, 10)}"
                          f" | {' '.join(map(str, args + extra))}", flush=True)  # fmt: skip


AREAS["geometric_small"] = sweep_geometric_small


if __name__ == "__main__":
    for area in sys.argv[1:] or list(AREAS):
        AREAS[area]()
