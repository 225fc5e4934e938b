"""Figure ``renyi-epsilon``: ε(λ) of the shuffle model — exact binary RR versus the Girgis et al. bounds.

Curves per panel (one panel per (n, ε0) setting): the exact worst case over
all datasets of shuffled binary RR (certified balls, :func:`exact.accounting.renyi.renyi_binary_worst`),
upper bound 1 (Theorem 3.1, integer λ; the non-integer remark in between),
upper bound 2 (Theorem 3.3), the lower bound (Theorem 3.4, integer λ) and
bound (9).  The CSV holds the outward-rounded certified intervals; floats
appear only in the plot.
"""

from __future__ import annotations

import pathlib

from blanket.exact.accounting import renyi as xr
from blanket.exact.mechanisms.finite import BinaryRR
from blanket.exact.numbers import arith
from blanket.exact.runtime.progress import Progress
from blanket.proofs import renyi as R
from blanket.reports.figures import Figure, output_dir, pyplot, save, write_csv

SETTINGS_FULL = (("1000", "1/2"), ("1000", "2"), ("300", "1"))
SETTINGS_QUICK = (("100", "1/2"), ("100", "2"))
ORDERS_FULL = ("3/2", "2", "5/2", "3", "4", "6", "8", "12", "16", "24", "32")
ORDERS_QUICK = ("3/2", "2", "3", "5")


def _curves(n, e0, orders):
    rows = []
    mech = BinaryRR(epsilon0=e0)
    for o in orders:
        lam = arith.exact(o)
        integer = lam.q == 1
        p = {"n": n, "epsilon0": e0, "lambda": o}
        with arith.precision(128):
            row = {
                "n": n,
                "epsilon0": e0,
                "lambda": o,
                "exact": xr.renyi_binary_worst(mech, int(n), order=lam).value,
                "ub2": R.THEOREM_3_3.bound(**p),
                "bound9": R.BOUND_9.bound(**p),
            }
            if integer:
                row["ub1"] = R.THEOREM_3_1.bound(**p)
                row["lb"] = R.THEOREM_3_4.bound(**p)
            elif lam >= 2:
                row["ub1"] = R.NONINTEGER_REMARK.bound(**p)
            row = {
                k: (arith.decimal_interval(v, 12) if k not in ("n", "epsilon0", "lambda") else v)
                for k, v in row.items()
            }
        rows.append(row)
    return rows


def make(outdir: pathlib.Path, *, quick: bool = False) -> list:
    plt = pyplot()

    settings = SETTINGS_QUICK if quick else SETTINGS_FULL
    orders = ORDERS_QUICK if quick else ORDERS_FULL
    outdir = output_dir(outdir)
    all_rows = []
    with Progress(len(settings), "renyi-epsilon") as bar:
        for n, e0 in settings:
            all_rows.append(_curves(n, e0, orders))
            bar.update(1)

    keys = ("exact", "ub1", "ub2", "lb", "bound9")
    csv_path = outdir / "renyi-epsilon.csv"
    table = []
    for rows in all_rows:
        for r in rows:
            table.append(
                [r["n"], r["epsilon0"], r["lambda"]]
                + [r[k][e] if k in r else "" for k in keys for e in ("lower", "upper")]
            )
    write_csv(csv_path, ["n", "epsilon0", "lambda"] + [f"{k}_{e}" for k in keys for e in ("lower", "upper")], table)

    style = {
        "exact": ("k", "-", "o", "exact worst case, binary RR"),
        "ub1": ("tab:blue", "--", "s", "upper bound 1 (Thm 3.1; remark between integers)"),
        "ub2": ("tab:green", "-.", "^", "upper bound 2 (Thm 3.3)"),
        "lb": ("tab:red", ":", "v", "lower bound (Thm 3.4)"),
        "bound9": ("tab:purple", (0, (3, 1, 1, 1)), "d", "bound (9) (prior work)"),
    }
    fig, axes = plt.subplots(1, len(settings), figsize=(5.2 * len(settings), 4.4), squeeze=False)
    for ax, rows, (n, e0) in zip(axes[0], all_rows, settings):
        for k in keys:
            pts = [(float(fmpq_to_float(r["lambda"])), float(r[k]["upper"])) for r in rows if k in r]
            if not pts:
                continue
            c, ls, mk, lab = style[k]
            ax.plot([x for x, _ in pts], [y for _, y in pts], color=c, linestyle=ls, marker=mk, ms=4, label=lab)
        ax.set_xscale("log")
        ax.set_yscale("log")
        from matplotlib.ticker import NullFormatter, ScalarFormatter

        ax.set_xticks(sorted({fmpq_to_float(r["lambda"]) for r in rows}))  # a tick at each order computed
        ax.xaxis.set_major_formatter(ScalarFormatter())
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xlabel("Rényi order λ")
        ax.set_ylabel("ε(λ)")
        ax.set_title(f"n = {n}, ε0 = {e0}")
        ax.grid(True, which="both", alpha=0.3)
    # one legend below the panels: inside a panel it covered the top curve
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=8, frameon=False)
    fig.suptitle("RDP of the shuffled ε0-LDP mechanism: exact binary RR vs Girgis et al. bounds", fontsize=10)
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    png, pdf = save(fig, outdir, "renyi-epsilon")
    return [png, pdf, csv_path]


def fmpq_to_float(s: str) -> float:
    """Display only: a decimal or p/q string as a float."""
    q = arith.exact(s)
    return int(q.p) / int(q.q)


FIGURES = {
    "renyi-epsilon": Figure(
        "renyi-epsilon", "ε(λ) of shuffled binary RR (exact) vs upper bounds 1, 2, lower bound and bound (9)", make
    )
}
