"""``blanket figure summation-mse``: the summation protocol's MSE against n, with both bounds.

Against ``n`` from 10^2 to 10^8 (log axes), at central ``(ε, δ)`` (panels
ε = 1 and ε = 0.25, δ = 10^{-6}):

* the protocol's **exact** worst-case MSE at Theorem 4.1's certified
  parameters (``proofs.summation.protocol_mse``: k from Theorem 4.1, γ =
  Theorem 3.1's γ with k+1 levels rounded up) — drawn where that γ is < 1;
* the explicit **Theorem 4.1** upper bound (where its hypotheses hold);
* the **Theorem 4.2** lower bound for any single-message (ε,δ)-DP protocol,
  at the best grid size m (``theorem_4_2_best``) and at m = ⌈n^{1/3}⌉
  (explicit form, where positive);
* a dotted n^{1/3} reference slope;
* (full mode only) ``summation-calibrated.csv`` and black squares: the
  protocol's exact MSE with Theorem 4.1's k but the smallest γ whose exact
  blanket-view δ is certified ≤ δ at ε = 1 (``calibrated_protocol``);
* (full mode only) ``summation-privacy.csv`` and an annotation: the
  certified central ε of the protocol at Theorem 4.1's γ (exact blanket view
  + one-sided calibration) for target ε = 1, δ = 10^{-6} — how much
  Theorem 3.1's closed-form γ over-provisions.

The CSV holds every value as an outward-rounded decimal interval (lower and
upper end); the plot uses floats of the midpoints (display only, nothing
certified is read back from it).
"""

from __future__ import annotations

import pathlib
from typing import Any

from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import BlanketError
from blanket.exact.protocols.summation import calibrated_protocol
from blanket.exact.runtime.progress import Progress
from blanket.proofs import summation as S
from blanket.reports.figures import Figure, pyplot, save, write_csv

DELTA = "1e-6"
EPSILONS = ("1", "0.25")


def _ns(quick: bool) -> list:
    if quick:
        return [10**e for e in (2, 4, 6, 8)]
    out = []
    for e in range(2, 9):
        for mant in (1, 2, 5):
            if e == 8 and mant > 1:
                break
            out.append(mant * 10**e)
    return out


def _f(v):
    lo, hi = arith.endpoints(v)
    return float((lo + hi) / 2)


def compute(quick: bool = False) -> list:
    """Rows ``{epsilon, n, k, gamma, mse_exact, thm41, thm42_best, m_best, thm42}``: decimal strings ("" = not applicable)."""

    rows = []
    ns = _ns(quick)
    with Progress(len(ns) * len(EPSILONS), "summation-mse") as bar:
        for eps in EPSILONS:
            for n in ns:
                row = {"epsilon": eps, "delta": DELTA, "n": n}
                with arith.precision(arith.DEFAULT_PREC):
                    try:
                        k, g, P = S.theorem_4_1_parameters(n, eps, DELTA)
                        row.update(k=k, gamma=arith.decimal_string(g, 8, up=True), mse_exact=P.worst_mse(n))
                    except BlanketError:
                        row.update(k="", gamma="", mse_exact=None)
                    try:
                        row["thm41"] = S.THEOREM_4_1.bound(n=n, epsilon=eps, delta=DELTA)
                    except BlanketError:
                        row["thm41"] = None
                    m, lb = S.theorem_4_2_best(n, eps, DELTA)
                    row.update(m_best=m, thm42_best=lb)
                    try:
                        v = S.THEOREM_4_2.bound(n=n, epsilon=eps, delta=DELTA)
                        row["thm42"] = v if arith.gt(v, 0) else None
                    except BlanketError:
                        row["thm42"] = None
                rows.append(row)
                bar.update()
    return rows


PRIVACY_NS = (10**4, 10**5, 10**6)
CALIBRATED_NS = (10**2, 10**3, 10**4, 10**5, 10**6)


def privacy_rows() -> list:
    """``[(n, k, gamma_upper, eps_lower, eps_upper)]``: certified ε at Theorem 4.1's γ (ε target 1, δ = 1e-6)."""

    out = []
    with Progress(len(PRIVACY_NS), "summation-privacy") as bar:
        for n in PRIVACY_NS:
            k, g, _ = S.theorem_4_1_parameters(n, "1", DELTA)
            br = S.certified_epsilon_at_parameters(n, "1", DELTA)
            out.append(
                (
                    n,
                    k,
                    arith.decimal_string(g, 8, up=True),
                    arith.decimal_string(br.lower, 6, up=False),
                    arith.decimal_string(br.upper, 6, up=True),
                )
            )
            bar.update()
    return out


def calibrated_rows() -> list:
    """``[(n, k, gamma, mse)]``: the protocol with Theorem 4.1's k and the smallest γ certified by the exact blanket view (ε = 1, δ = 1e-6)."""

    out = []
    with Progress(len(CALIBRATED_NS), "summation-calibrated") as bar:
        for n in CALIBRATED_NS:
            k = S.theorem_4_1_k(n, "1", DELTA)
            P = calibrated_protocol(k, n, "1", DELTA)
            out.append((n, k, P.gamma, P.worst_mse(n)))
            bar.update()
    return out


def make(outdir: pathlib.Path, *, quick: bool = False) -> list:
    plt = pyplot()

    outdir = pathlib.Path(outdir)
    rows = compute(quick)
    keys = ("mse_exact", "thm41", "thm42_best", "thm42")
    csv_path = outdir / "summation-mse.csv"
    head = ["epsilon", "delta", "n", "k", "gamma_upper", "m_best"]
    for key in keys:
        head += [f"{key}_lower", f"{key}_upper"]
    table = []
    for r in rows:
        line = [r["epsilon"], r["delta"], r["n"], r["k"], r["gamma"], r["m_best"]]
        for key in keys:
            v = r[key]
            line += (
                ["", ""] if v is None else [arith.decimal_string(v, 10, up=False), arith.decimal_string(v, 10, up=True)]
            )
        table.append(line)
    write_csv(csv_path, head, table)

    extra = []
    priv = []
    if not quick:
        try:
            priv = privacy_rows()
        except (BlanketError, ImportError):  # the blanket-view engine is optional for the figure
            priv = []
        if priv:
            p_path = outdir / "summation-privacy.csv"
            table = []
            for n, k, g, lo, hi in priv:
                table.append([n, k, g, "1", DELTA, lo, hi])
            write_csv(
                p_path,
                [
                    "n",
                    "k",
                    "gamma_upper",
                    "target_epsilon",
                    "delta",
                    "certified_epsilon_lower",
                    "certified_epsilon_upper",
                ],
                table,
            )
            extra.append(p_path)

    cal = []
    if not quick:
        try:
            cal = calibrated_rows()
        except (BlanketError, ImportError):
            cal = []
        if cal:
            c_path = outdir / "summation-calibrated.csv"
            table = []
            for n, k, g, mse in cal:
                table.append(
                    [
                        n,
                        k,
                        arith.decimal_string(g, 8, up=True),
                        "1",
                        DELTA,
                        arith.decimal_string(mse, 10, up=False),
                        arith.decimal_string(mse, 10, up=True),
                    ]
                )
            write_csv(
                c_path,
                ["n", "k", "gamma_calibrated_upper", "epsilon", "delta", "mse_exact_lower", "mse_exact_upper"],
                table,
            )
            extra.append(c_path)

    fig, axes = plt.subplots(1, len(EPSILONS), figsize=(6.2 * len(EPSILONS), 4.6), sharey=True)
    styles: dict[str, dict[str, Any]] = {
        "thm41": dict(label="Theorem 4.1 upper bound (explicit)", color="tab:red", ls="--"),
        "mse_exact": dict(
            label="protocol, exact MSE at Thm 4.1 parameters", color="tab:blue", ls="-", marker="o", ms=3
        ),
        "thm42_best": dict(label="Theorem 4.2 lower bound (best m)", color="tab:green", ls="-"),
        "thm42": dict(label="Theorem 4.2 lower bound (m = ⌈n^{1/3}⌉)", color="tab:olive", ls=":"),
    }
    for ax, eps in zip(axes, EPSILONS):
        sub = [r for r in rows if r["epsilon"] == eps]
        for key, st in styles.items():
            pts = [(r["n"], _f(r[key])) for r in sub if r[key] is not None]
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], **st)
        # n^{1/3} reference slope anchored at the largest exact point
        ex = [(r["n"], _f(r["mse_exact"])) for r in sub if r["mse_exact"] is not None]
        if ex:
            n0, v0 = ex[-1]
            xs_ = [sub[0]["n"], sub[-1]["n"]]
            ax.plot(xs_, [v0 * (x / n0) ** (1 / 3) for x in xs_], color="grey", ls=":", lw=1, label="slope n^{1/3}")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("n (users)")
        ax.set_title(f"ε = {eps}, δ = {DELTA}")
        ax.grid(True, which="both", alpha=0.3)
    if cal:
        axes[0].plot(
            [r[0] for r in cal],
            [_f(r[3]) for r in cal],
            color="black",
            ls="none",
            marker="s",
            ms=4,
            label="protocol, exact MSE, γ calibrated by exact blanket view",
        )
    if priv:
        txt = "certified ε at Thm 4.1's γ (target ε = 1):\n" + "\n".join(
            f"n = 10^{len(str(n)) - 1}: ε ≤ {hi}" for n, _, _, _, hi in priv
        )
        axes[0].text(
            0.97,
            0.03,
            txt,
            transform=axes[0].transAxes,
            ha="right",
            va="bottom",
            fontsize=7,
            bbox=dict(boxstyle="round", fc="white", ec="grey", alpha=0.9),
        )
    axes[0].set_ylabel("worst-case MSE of the sum")
    axes[0].legend(fontsize=7, loc="upper left")
    fig.suptitle("Real summation in the shuffle model (Balle et al. 2019, §4): exact MSE vs the bounds", fontsize=10)
    fig.tight_layout()
    png, pdf = save(fig, outdir, "summation-mse")
    return [png, pdf, csv_path] + extra


FIGURES = {
    "summation-mse": Figure(
        "summation-mse",
        "summation protocol (BBGN19 §4): exact MSE at Theorem 4.1's parameters, Theorem 4.1 and Theorem 4.2 bounds vs n",
        make,
    ),
}
