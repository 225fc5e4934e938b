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

if __name__ == "__main__":
    for area in sys.argv[1:] or list(AREAS):
        AREAS[area]()
