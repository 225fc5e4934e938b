"""Figure ``oracles-epsilon``: the central ε(n) at δ = 1e-6 of every frequency oracle and of a generic ε0-LDP
randomizer, shuffled, at one ε0 (= 2): certified upper and lower curves on a log-n axis.

* upper curve (solid): the certified upper end of the smallest ε with δ(ε) ≤ 1e-6 for the best fast certified
  upper bound — the blanket view's certified upper end, exact.shuffled.oracles.blanket_view_upper, for OUE, SUE, OLH, Hadamard
  response and subset selection; the FOCS 2021 clone pair (exact.shuffled.oracles.clone_delta) for ``ldp``;
* lower curve (dashed): the certified lower end of ε for the exact δ of the dataset pair x^n vs x^{n−1}x'
  (exact.shuffled.oracles.same_family_delta; for ``ldp``: binary RR, one member of the class) — every ε
  below it certainly fails δ = 1e-6 for that mechanism.

Calibration: exact.numbers.calibrate.epsilon_for_delta (one-sided, certified) with relative tolerance 1e-2
between the two ends of each bracket.  Floats appear only for plotting; the CSV carries the exact bracket
ends.  Cost: about 10 evaluations per curve point, each O(√n) ball operations (a few CPU seconds at n = 10^6).
"""

from __future__ import annotations

import math
import pathlib

from blanket.exact.mechanisms import oracles as O
from blanket.exact.mechanisms.oracles import LDP
from blanket.exact.numbers import arith
from blanket.exact.numbers.calibrate import epsilon_for_delta
from blanket.exact.runtime.progress import Progress
from blanket.exact.shuffled.oracles import blanket_view_upper, clone_delta, same_family_delta
from flint import fmpq

from . import Figure, output_dir, pyplot, save, write_csv

EPS0 = "2"
TARGET = fmpq(1, 10**6)
REL_TOL = "1e-2"


def mechanisms(eps0: str = EPS0) -> list:

    e = math.exp(float(eps0))
    g = max(2, round(e + 1))
    d = max(1, math.ceil(100 / (e + 1)))
    return [
        ("OUE k=128", O.OUE(128, epsilon0=eps0)),
        ("SUE (RAPPOR) k=128", O.SUE(128, epsilon0=eps0)),
        (f"OLH k=2^20 g={g}", O.OLH(2**20, g, epsilon0=eps0)),
        ("Hadamard k=1000", O.Hadamard(1000, epsilon0=eps0)),
        (f"subset k=100 d={d}", O.Subset(100, d, epsilon0=eps0)),
        ("any eps0-LDP (clone)", O.LDP(eps0)),
    ]


def _upper_fn(mech, n):
    if isinstance(mech, LDP):
        return lambda e: clone_delta(mech, n, epsilon=e), "clone pair (FOCS 2021)"
    return lambda e: blanket_view_upper(mech, n, epsilon=e), "blanket view (fast upper end, Lemma 5.3)"


def _lower_fn(mech, n):
    return lambda e: same_family_delta(mech, n, epsilon=e)


def _zero_at_eps0(fn, mech):
    """δ(ε) = 0 for ε ≥ ε0 (exact comparison of the rationals; a ball comparison of e^ε with e^{ε0} cannot decide it)."""
    e0 = mech.epsilon0

    def f(e):
        return fmpq(0) if e >= e0 else fn(e)

    return f


def _series(quick: bool, ns=None, only=None):
    ns = ns or ([10**3, 10**4] if quick else [10**3, 10**4, 10**5, 10**6])
    mechs = [(a, b) for a, b in mechanisms() if only is None or a in only]
    rows = []
    hi = arith.exact(EPS0)
    with arith.precision(128), Progress(len(ns) * len(mechs), "oracles-epsilon") as bar:
        for name, mech in mechs:
            guess_u = guess_l = None
            for n in ns:
                up_fn, route = _upper_fn(mech, n)
                up_fn, lo_fn = _zero_at_eps0(up_fn, mech), _zero_at_eps0(_lower_fn(mech, n), mech)
                bu = epsilon_for_delta(up_fn, TARGET, hi=hi, rel_tol=REL_TOL, guess=guess_u)
                bl = epsilon_for_delta(lo_fn, TARGET, hi=hi, rel_tol=REL_TOL, guess=guess_l)
                guess_u = bu.upper * fmpq(1, 3)  # ε ∝ 1/√n: one decade of n is a factor √10 ≈ 3.16
                guess_l = bl.lower * fmpq(1, 3)
                rows.append(
                    {
                        "mechanism": name,
                        "n": n,
                        "eps_upper": bu.upper,
                        "eps_lower": bl.lower,
                        "upper_route": route,
                        "evaluations": bu.evaluations + bl.evaluations,
                    }
                )
                bar.update(1)
    return rows


def make(outdir: pathlib.Path, *, quick: bool = False) -> list:
    plt = pyplot()
    outdir = output_dir(outdir)
    rows = _series(quick)
    csv_path = outdir / "oracles-epsilon.csv"
    table = []
    for r in rows:
        table.append(
            [
                r["mechanism"],
                EPS0,
                "1e-6",
                r["n"],
                arith.decimal_string(r["eps_upper"], 8, up=True),
                arith.decimal_string(r["eps_lower"], 8, up=False),
                r["upper_route"],
                r["evaluations"],
            ]
        )
    write_csv(
        csv_path,
        ["mechanism", "epsilon0", "delta", "n", "epsilon_upper", "epsilon_lower", "upper_route", "evaluations"],
        table,
    )
    fig, ax = plt.subplots(figsize=(7.5, 5))
    names = list(dict.fromkeys(r["mechanism"] for r in rows))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, name in enumerate(names):
        pts = [r for r in rows if r["mechanism"] == name]
        xs = [r["n"] for r in pts]
        c = colors[i % len(colors)]
        ax.plot(xs, [float(r["eps_upper"]) for r in pts], "-o", color=c, ms=3, label=f"{name} (upper)")
        ax.plot(xs, [float(r["eps_lower"]) for r in pts], "--", color=c, lw=1)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("n (users)")
    ax.set_ylabel(r"central $\varepsilon$ at $\delta = 10^{-6}$")
    ax.set_title(
        f"Shuffled frequency oracles, $\\varepsilon_0$ = {EPS0}\ncertified upper (solid) and lower (dashed) bounds",
        fontsize=11,
    )
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return [*save(fig, outdir, "oracles-epsilon"), csv_path]


FIGURES = {
    "oracles-epsilon": Figure(
        "oracles-epsilon",
        "epsilon(n) at delta = 1e-6 for every frequency oracle and generic LDP at eps0 = 2 (certified upper/lower)",
        make,
    )
}
