"""Figure ``pure-dp-llr``: the pairwise LLR (5) of the Cheu–Yan relaxed aggregator against the scale s.

Statement in this project's reading of the construction (spec
``pure_dp_intermediaries.md`` §3).  Curves, for m = 3, q = 1e-3 and
tau = ceil(2 s ln(1/q)):

* the exact pairwise LLR ``max_{a,b} d_LLR(hat D_a*hat D_b, hat D_c*hat D_0)``
  (certified enclosure; its upper end is plotted);
* the claims' bound in closed form, ``log K(s, tau, q, m)``
  (:func:`proofs.pure_dp.claims_closed_factor`: Corollary 3.7 and the closed-form
  Claim 3.8, no convolution; 1–8 % above the exact value here);
* the pointwise combination of Claims 3.3/3.4/3.8
  (:func:`proofs.pure_dp.claims_pair_bound`: the pairing right-hand sides
  evaluated on exact masses; ratios to the exact value in the CSV);
* Corollary 3.7's explicit ``eps_1`` (lattice group only, this project's constant);
* the reference ``1/s``.

Floats appear only for plotting; the CSV carries outward-rounded decimal
intervals of the certified values.
"""

from __future__ import annotations

import pathlib
from typing import Any

from blanket.exact.numbers import arith
from blanket.exact.numbers.types import NumberOrBall
from blanket.exact.protocols import tdlap as xt
from blanket.exact.runtime.progress import Progress
from blanket.proofs import pure_dp as P
from blanket.proofs.core import get
from flint import fmpq

from . import Figure, output_dir, pyplot, save, write_csv


def _series(quick: bool):
    s_values = (
        [fmpq(1), fmpq(2), fmpq(4)]
        if quick
        else [fmpq(1), fmpq(3, 2), fmpq(2), fmpq(3), fmpq(4), fmpq(6), fmpq(8), fmpq(12), fmpq(16)]
    )
    q = fmpq(1, 1000)
    m = 3
    rows = []

    with arith.precision(128), Progress(len(s_values), "pure-dp-llr") as bar:
        for s in s_values:
            tau_z = arith.ball(2 * s).__mul__(arith.ball(1 / q).log()).ceil().unique_fmpz()
            # 2s·log(1/q) is irrational and at least 0.04 from an integer for these s: 128 bits give a unique ceiling
            assert tau_z is not None
            tau = int(tau_z)
            agg = xt.RelaxedAggregator(m, tau, q=q, s=s)
            ex, pair = agg.pairwise_llr()
            bd = P.claims_pair_bound(agg)
            cf = P.claims_closed_llr(s, tau, q, m)
            e1 = arith.log_ball(P.eps1_factor(agg.r, tau, q, m))
            rows.append({"s": s, "tau": tau, "exact": ex, "pair": pair, "claims_bound": bd, "closed": cf, "eps1": e1})
            bar.update(1)
    return rows, m, q


def up(v: NumberOrBall) -> float:
    """The upper end of an enclosure as a float, rounded up (display only: the curves are drawn from it)."""
    return float(arith.decimal_string(v, 12, up=True))


def make(outdir: pathlib.Path, *, quick: bool = False) -> list:
    plt = pyplot()

    outdir = output_dir(outdir)
    rows, m, q = _series(quick)
    csv_path = outdir / "pure-dp-llr.csv"
    table = []
    for r in rows:
        ex = arith.decimal_interval(r["exact"], 10)
        cf = arith.decimal_interval(r["closed"], 10)
        bd = arith.decimal_interval(r["claims_bound"], 10)
        e1 = arith.decimal_interval(r["eps1"], 10)
        rc = arith.decimal_interval(arith.ball(r["closed"]) / arith.ball(r["exact"]), 6)
        rp = arith.decimal_interval(arith.ball(r["claims_bound"]) / arith.ball(r["exact"]), 6)
        table.append(
            [
                str(r["s"]),
                r["tau"],
                m,
                str(q),
                ex["lower"],
                ex["upper"],
                "%d,%d" % r["pair"],
                cf["lower"],
                cf["upper"],
                rc["upper"],
                bd["lower"],
                bd["upper"],
                rp["upper"],
                e1["lower"],
                e1["upper"],
            ]
        )
    write_csv(
        csv_path,
        [
            "s",
            "tau",
            "m",
            "q",
            "exact_lower",
            "exact_upper",
            "worst_pair",
            "closed_form_lower",
            "closed_form_upper",
            "ratio_closed_over_exact_upper",
            "pointwise_bound_lower",
            "pointwise_bound_upper",
            "ratio_pointwise_over_exact_upper",
            "cor37_eps1_lower",
            "cor37_eps1_upper",
        ],
        table,
    )

    xs = [float(r["s"].p) / float(r["s"].q) for r in rows]  # display only
    fig, (ax, axr) = plt.subplots(2, 1, figsize=(6.4, 6.2), sharex=True, gridspec_kw={"height_ratios": [3, 1.4]})
    ax.plot(xs, [up(r["exact"]) for r in rows], "o-", label="exact pairwise LLR (5)")
    ax.plot(xs, [up(r["closed"]) for r in rows], "D-", ms=4, label="Claims 3.3–3.8, closed form (certified)")
    ax.plot(xs, [up(r["claims_bound"]) for r in rows], "s--", label="Claims 3.3/3.4/3.8 pairing, pointwise (certified)")
    ax.plot(xs, [up(r["eps1"]) for r in rows], "^:", label=r"Cor. 3.7 $\varepsilon_1$ (lattice group only)")
    ax.plot(xs, [1 / x for x in xs], "k-", lw=0.8, alpha=0.6, label=r"$1/s$")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylabel("LLR (nats)")
    ratio = lambda key: [up(arith.ball(r[key]) / arith.ball(r["exact"])) for r in rows]  # noqa: E731 (display only)
    axr.plot(xs, ratio("closed"), "D-", ms=4, color="C1", label="closed form / exact")
    axr.plot(xs, ratio("claims_bound"), "s--", color="C2", label="pointwise / exact")
    axr.axhline(1, color="k", lw=0.8, alpha=0.6)
    axr.set_xscale("log")
    axr.set_ylabel("bound / exact")
    axr.set_xlabel(r"scale $s$  ($r = e^{-1/s}$)")
    axr.grid(True, which="both", alpha=0.3)
    axr.legend(fontsize=8)
    title = (
        f"Cheu–Yan relaxed aggregator, m={m}, q={float(q):g}, tau=ceil(2 s ln(1/q))\n"
        "(this project's reading of the construction)"
    )
    return _finish(fig, ax, title, 8, outdir, "pure-dp-llr", csv_path)


def _finish(fig: Any, ax: Any, title: str, legend_size: float, outdir: pathlib.Path, name: str, csv_path) -> list:
    """Title, grid and legend of the main axes, then ``name.png`` / ``name.pdf``: returns ``[png, pdf, csv_path]``."""
    ax.set_title(title, fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=legend_size)
    fig.tight_layout()
    return [*save(fig, outdir, name), csv_path]


def _error_series(quick: bool):
    """Exact RMSE of Theorem 4.1's protocol (this project's reading) and its certified bounds, per epsilon.

    Binary data (k = 1, all users honest): the error is the centred residue of eta_1 + eta_2 mod m
    (:func:`proofs.pure_dp.error_second_moment`); full protocol: n = 4 users, k = 2 rounding levels, inputs
    1/(2k) (largest rounding variance) (:func:`proofs.pure_dp.protocol_mse`).  The modulus grows like 1/eps so
    that the noise does not wrap; the noise window ``W = 80 k/eps`` leaves out mass ``< e^{-39}``, which the
    enclosures include.
    """

    eps_values = (
        [fmpq(1, 8), fmpq(1, 2), fmpq(2)]
        if quick
        else [fmpq(1, 32), fmpq(1, 16), fmpq(1, 8), fmpq(1, 4), fmpq(1, 2), fmpq(1), fmpq(2)]
    )
    n, k = 4, 2
    bound_bin = get("CY21 Theorem 4.1 [error]")
    bound_prot = get("CY21 Theorem 4.1 [protocol error]")
    rows = []
    with arith.precision(128), Progress(len(eps_values), "pure-dp-error") as bar:
        for e in eps_values:
            W1 = int((80 / e).ceil())
            m1 = 2 * W1
            mse_bin = P.error_second_moment(e, m1, window=W1)
            W2 = int((80 * k / e).ceil())
            m2 = n * k + 2 * W2
            mse_prot = P.protocol_mse(n, k, m2, e, window=W2)
            rows.append(
                {
                    "epsilon": e,
                    "m_binary": m1,
                    "m_protocol": m2,
                    "rmse_binary": arith.ball(mse_bin).sqrt(),
                    "bound_binary": arith.ball(bound_bin.bound(epsilon=e, m=m1)).sqrt(),
                    "rmse_protocol": arith.ball(mse_prot).sqrt(),
                    "bound_protocol": arith.ball(bound_prot.bound(n=n, k=k, m=m2, epsilon=e)).sqrt(),
                }
            )
            bar.update(1)
    return rows, n, k


def make_error(outdir: pathlib.Path, *, quick: bool = False) -> list:
    plt = pyplot()

    outdir = output_dir(outdir)
    rows, n, k = _error_series(quick)
    csv_path = outdir / "pure-dp-error.csv"
    cols = ("rmse_binary", "bound_binary", "rmse_protocol", "bound_protocol")
    table = []
    for r in rows:
        vals = []
        for c in cols:
            iv = arith.decimal_interval(r[c], 10)
            vals += [iv["lower"], iv["upper"]]
        table.append([str(r["epsilon"]), r["m_binary"], r["m_protocol"]] + vals)
    write_csv(
        csv_path, ["epsilon", "m_binary", "m_protocol"] + [f"{c}_{e}" for c in cols for e in ("lower", "upper")], table
    )

    xs = [float(r["epsilon"].p) / float(r["epsilon"].q) for r in rows]  # display only
    fig, ax = plt.subplots(figsize=(6.4, 4.6))
    curves: tuple[tuple[str, str, dict[str, Any], str], ...] = (  # column, line style, colour and opacity, label
        ("rmse_binary", "o-", {}, "exact RMSE, binary data (k = 1)"),
        ("bound_binary", "--", {"color": "C0", "alpha": 0.7}, r"Thm 4.1 bound $2/\varepsilon$ (certified)"),
        ("rmse_protocol", "s-", {"color": "C1"}, f"exact RMSE, full protocol (n = {n}, k = {k}, rounding)"),
        ("bound_protocol", "--", {"color": "C1", "alpha": 0.7}, "its bound (noise + rounding + wrap, certified)"),
    )
    for col, style, look, label in curves:
        ax.plot(xs, [up(r[col]) for r in rows], style, **look, label=label)
    ref = up(rows[-1]["rmse_binary"]) * xs[-1] ** 1.5
    ax.plot(
        xs,
        [ref / x**1.5 for x in xs],
        "k:",
        lw=0.9,
        label=r"$\propto 1/\varepsilon^{3/2}$ (previous pure-DP rate, shape only)",
    )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(r"central $\varepsilon$")
    ax.set_ylabel("root mean squared error of the sum")
    title = "Cheu–Yan Theorem 4.1: pure-DP bounded sum, error O(1/ε)\n(this project's reading; all users honest)"
    return _finish(fig, ax, title, 7.5, outdir, "pure-dp-error", csv_path)


FIGURES = {
    "pure-dp-llr": Figure(
        "pure-dp-llr",
        "Cheu–Yan pairwise LLR (5) against s: exact, the claims' closed-form and pointwise bounds, Cor. 3.7",
        make,
    ),
    "pure-dp-error": Figure(
        "pure-dp-error",
        "Cheu–Yan Theorem 4.1: exact RMSE of the pure-DP sum protocol against epsilon, with its certified bounds",
        make_error,
    ),
}
