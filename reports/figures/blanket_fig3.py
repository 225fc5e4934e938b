"""Figure 3 of Balle et al. (privacy blanket), reproduced with certified calibration, plus the exact curves.

Four panels (grids from the authors' notebook, ``docs/reference/blanket.md`` §5):

* (i)   ε vs n, n ∈ [1e3, 1e6], ε0 = 0.5, δ = 1e−6: EFMRTT'19, Hoeffding Generic, Bennett Generic;
* (ii)  ε0 vs n, n ∈ [1e2, 1e5], ε = 0.1, δ = 1e−6: EFMRTT'19, Hoeffding Generic, Hoeffding RR (k = 2, 100),
        Hoeffding Laplace;
* (iii) ε0 vs n, same range: Hoeffding and Bennett for RR k = 2, RR k = 100, Laplace;
* (iv)  ε0 vs n for RR with k = ⌊n^{1/3}⌋, δ = n^{−2}, ε = 0.1, n ∈ [1e2, 1e5]: Hoeffding vs Bennett.

Every plotted bound value is a certified one-sided end from
:func:`proofs.blanket.calibrated_epsilon` / :func:`calibrated_epsilon0`
(``exact.numbers.calibrate``): an ε whose bound is proven ≤ δ, an ε0 whose bound is
proven ≤ δ.  The paper could not show the exact curves; we add them:

* binary RR (k = 2): the ε (resp. largest ε0) certified from the *exact* δ of
  the shuffled mechanism — the worst case over all datasets
  (``exact.shuffled.binary.delta_binary_worst``) for n ≤ ``WORST_N_MAX``, and beyond
  that the maximum over the extreme datasets c ∈ {0, 1, n−2, n−1} (exact δ on
  those datasets, a lower bound on the worst case; on every n where both
  were computed the worst case sat at an extreme dataset);
* k-RR (k = 100, and k = ⌊n^{1/3}⌋): the exact Lemma 5.3 blanket view
  (``exact.shuffled.krr.delta_blanket_view``), on fewer points (n ≤ ``BLANKET_N_MAX``).

The CSV has one row per (panel, curve, n) with the certified value as an
exact decimal string (ε rounded up, ε0 rounded down) and the bracket.
Floats are used only for drawing.
"""

from __future__ import annotations

import pathlib
from collections.abc import Callable
from functools import partial
from typing import Any

import blanket.proofs.blanket as B
from blanket.exact.mechanisms.finite import KRR
from blanket.exact.numbers import arith
from blanket.exact.numbers.calibrate import Search, epsilon0_for, epsilon_for_delta
from blanket.exact.numbers.errors import BlanketError
from blanket.exact.runtime.progress import Progress
from blanket.exact.shuffled.binary import delta_binary, delta_binary_worst
from blanket.exact.shuffled.krr import delta_blanket_view
from blanket.reports.figures import Figure, output_dir, pyplot, save, write_csv
from flint import fmpq

WORST_N_MAX = 2000
#: relative width of every calibration bracket in the figure (the plotted end is certified whatever the width)
REL_TOL = "1e-4"
BLANKET_N_MAX = 30000
#: the exact blanket view of the Laplace mechanism (a lattice enclosure per evaluation) up to this n
LAPLACE_N_MAX = 10000


def _logspace(lo_exp: float, hi_exp: float, count: int) -> list[int]:
    if count == 1:
        return [int(round(10**lo_exp))]
    return sorted({int(round(10 ** (lo_exp + (hi_exp - lo_exp) * i / (count - 1)))) for i in range(count)})


def _binary_exact_delta(n: int):
    """δ(ε0, ε) of shuffled binary RR: exact worst case (n ≤ WORST_N_MAX) or max over the extreme datasets."""

    def f(eps0, eps):
        mech = KRR(2, epsilon0=eps0)
        if n <= WORST_N_MAX:
            return delta_binary_worst(mech, n, epsilon=eps).value
        vals = [delta_binary(mech, n, c, epsilon=eps) for c in sorted({0, 1, n - 2, n - 1})]
        out = vals[0]
        for v in vals[1:]:
            out = arith.ball(out).max(arith.ball(v))
        return out

    return f


def _blanket_view_delta(n: int, k: int):
    def f(eps0, eps):
        return delta_blanket_view(KRR(k, epsilon0=eps0), n, epsilon=eps, x=0, x2=1)

    return f


def _laplace_view_delta(n: int):
    """The certified upper end of the exact blanket view of the shuffled Laplace mechanism (issue 27), inputs (0, 1)."""
    from blanket.exact.accounting.continuous_rounds import default_lattice
    from blanket.exact.mechanisms.continuous import Laplace
    from blanket.exact.shuffled.continuous import blanket_view

    def f(eps0, eps):
        return blanket_view(Laplace(eps0), n, epsilon=eps, h=default_lattice(n)).upper

    return f


def _panels(quick: bool):
    C = B.FIGURE3_CURVES
    if quick:
        n1, n2, n4 = _logspace(3, 6, 3), _logspace(2, 5, 3), _logspace(2, 5, 3)
        ex1, ex2, ex4 = [1000, 10000], [100, 1000], [100, 1000]
    else:
        n1, n2, n4 = _logspace(3, 6, 100), _logspace(2, 5, 100), _logspace(2, 5, 50)
        ex1, ex2, ex4 = _logspace(3, 6, 16), _logspace(2, 5, 12), [n for n in _logspace(2, 5, 10) if n <= BLANKET_N_MAX]
    six = fmpq(1, 10**6)
    tenth = fmpq(1, 10)
    half = fmpq(1, 2)
    panels = []
    # (i) ε vs n
    curves: list[tuple[str, object, dict]] = [
        (name, C[name][0], {}) for name in ("EFMRTT'19", "Hoeffding, Generic", "Bennett, Generic")
    ]
    panels.append(
        _panel(
            "i",
            r"(i) $\varepsilon$ vs $n$: $\varepsilon_0=0.5$, $\delta=10^{-6}$",
            "epsilon",
            {"epsilon0": half, "delta": six},
            n1,
            curves,
            [("exact, binary RR", ex1, lambda n: _binary_exact_delta(n))],
        )
    )
    # (ii) ε0 vs n
    curves = [
        ("EFMRTT'19", C["EFMRTT'19"][0], {}),
        ("Hoeffding, Generic", C["Hoeffding, Generic"][0], {}),
        ("Hoeffding, RR (k=2)", C["Hoeffding, RR"][0], {"k": 2}),
        ("Hoeffding, RR (k=100)", C["Hoeffding, RR"][0], {"k": 100}),
        ("Hoeffding, Laplace", C["Hoeffding, Laplace"][0], {}),
    ]
    exact_rr = [
        ("exact, binary RR", ex2, lambda n: _binary_exact_delta(n)),
        (
            "exact blanket view, RR (k=100)",
            [n for n in ex2 if n <= BLANKET_N_MAX],
            lambda n: _blanket_view_delta(n, 100),
        ),
        ("exact blanket view, Laplace", [n for n in ex2 if n <= LAPLACE_N_MAX], _laplace_view_delta),
    ]
    panels.append(
        _panel(
            "ii",
            r"(ii) $\varepsilon_0$ vs $n$: $\varepsilon=0.1$, $\delta=10^{-6}$",
            "epsilon0",
            {"epsilon": tenth, "delta": six},
            n2,
            curves,
            exact_rr,
        )
    )
    # (iii) Hoeffding vs Bennett per mechanism
    curves = []
    for mech, extra in (("RR (k=2)", {"k": 2}), ("RR (k=100)", {"k": 100}), ("Laplace", {})):
        base = "RR" if mech.startswith("RR") else "Laplace"
        curves.append((f"Hoeffding, {mech}", C[f"Hoeffding, {base}"][0], extra))
        curves.append((f"Bennett, {mech}", C[f"Bennett, {base}"][0], extra))
    panels.append(
        _panel(
            "iii",
            r"(iii) $\varepsilon_0$ vs $n$: $\varepsilon=0.1$, $\delta=10^{-6}$",
            "epsilon0",
            {"epsilon": tenth, "delta": six},
            n2,
            curves,
            exact_rr,
            reuse_exact_from="ii",
        )
    )
    # (iv) k = ⌊n^{1/3}⌋, δ = n^{-2}
    curves = [
        ("Hoeffding, RR", C["Hoeffding, RR"][0], {"k": "cube_root"}),
        ("Bennett, RR", C["Bennett, RR"][0], {"k": "cube_root"}),
    ]
    panels.append(
        _panel(
            "iv",
            r"(iv) RR, $k=\lfloor n^{1/3}\rfloor$, $\delta=n^{-2}$, $\varepsilon=0.1$",
            "epsilon0",
            {"epsilon": tenth, "delta": "n^-2"},
            n4,
            curves,
            [("exact blanket view, RR", ex4, lambda n: _blanket_view_delta(n, _cube_root(n)))],
        )
    )
    return panels


def _panel(pid: str, title: str, solve: str, fixed: dict, ns: list, curves: list, exact: list, **extra) -> dict:
    """One panel of the figure: solve for ``solve`` (``"epsilon"``/``"epsilon0"``, also the y axis) at ``fixed``
    over ``ns``, the bound ``curves`` against the ``exact`` references; ``extra`` keys are passed along."""
    ylabel = r"$\varepsilon$" if solve == "epsilon" else r"$\varepsilon_0$"
    return {
        "id": pid,
        "title": title,
        "solve": solve,
        "ylabel": ylabel,
        "fixed": fixed,
        "ns": ns,
        "curves": curves,
        "exact": exact,
        **extra,
    }


def _cube_root(n: int) -> int:
    k = int(round(n ** (1 / 3)))
    while k**3 > n:
        k -= 1
    while (k + 1) ** 3 <= n:
        k += 1
    return max(k, 2)


def _params_at(panel, extra, n):
    p = dict(panel["fixed"])
    if p.get("delta") == "n^-2":
        p["delta"] = fmpq(1, n * n)
    out = {}
    for key, v in extra.items():
        out[key] = _cube_root(n) if v == "cube_root" else v
    return p, out


def _calibrate_bound(panel, result, extra, n, guess):
    p, ex = _params_at(panel, extra, n)
    kw = dict(ex, n=n)
    search: Search = {"rel_tol": REL_TOL, "guess": guess}
    if panel["solve"] == "epsilon":
        br = B.calibrated_epsilon(result, delta=p["delta"], epsilon0=p["epsilon0"], search=search, **kw)
        return br, br.upper
    br = B.calibrated_epsilon0(result, epsilon=p["epsilon"], delta=p["delta"], search=search, **kw)
    return br, br.lower


def _calibrate_exact(panel, delta_fn, n, guess):
    p, _ = _params_at(panel, {}, n)
    if panel["solve"] == "epsilon":
        eps0 = p["epsilon0"]
        br = epsilon_for_delta(
            lambda e: delta_fn(eps0, e), p["delta"], lo=fmpq(1, 10**6), hi=eps0, rel_tol=REL_TOL, guess=guess
        )
        return br, br.upper
    eps = p["epsilon"]
    br = epsilon0_for(lambda e0: delta_fn(e0, eps), p["delta"], lo=eps, hi=10, rel_tol=REL_TOL, guess=guess)
    return br, br.lower


def _sweep(pn: dict, name: str, ns: list, point: Callable, bar: Any) -> list:
    """``[(n, value fmpq | None, bracket | reason)]`` over ``ns``: ``point(n, guess)`` gives ``(bracket, value)``
    (``value`` None: the bracket is the reason there is none); a :class:`BlanketError` becomes the reason.  Each
    value is the guess of the next search."""
    pts, guess = [], None
    for n in ns:
        try:
            br, val = point(n, guess)
            pts.append((n, val, br))
            if val is not None:
                guess = float(val)
        except BlanketError as exc:
            pts.append((n, None, f"{type(exc).__name__}: {exc}"[:160]))
        bar.update(note=f"{pn['id']} {name} n={n}")
    return pts


def _bound_point(pn, result, extra, n, guess):
    br, val = _calibrate_bound(pn, result, extra, n, guess)
    if result is B.THEOREM_5_1 and pn["solve"] == "epsilon0" and br.lower == br.upper:
        # the search hit Theorem 5.1's hypothesis ε0 ≤ 1/2: the theorem says nothing beyond
        return "Theorem 5.1 hypothesis epsilon0 <= 1/2 binds: no value beyond it", None
    return br, val


def _exact_point(pn, make, n, guess):
    with arith.precision(arith.DEFAULT_PREC):
        return _calibrate_exact(pn, make(n), n, guess)


def compute(quick: bool = False) -> tuple[list, dict]:
    """``(panels, data)``: the panels and all curves of all panels, ``data = {panel_id: {curve: [(n, value fmpq | None, bracket | reason)]}}``."""
    panels = _panels(quick)
    total = sum(len(pn["ns"]) * len(pn["curves"]) for pn in panels) + sum(
        len(ns) for pn in panels if "reuse_exact_from" not in pn for _, ns, _ in pn["exact"]
    )
    data: dict = {}
    with Progress(total, "blanket-fig3") as bar:
        for pn in panels:
            rows = {}
            for name, result, extra in pn["curves"]:
                rows[name] = _sweep(pn, name, pn["ns"], partial(_bound_point, pn, result, extra), bar)
            if "reuse_exact_from" in pn:
                for name, _, _ in pn["exact"]:
                    rows[name] = data[pn["reuse_exact_from"]][name]
            else:
                for name, ns, make in pn["exact"]:
                    rows[name] = _sweep(pn, name, ns, partial(_exact_point, pn, make), bar)
            data[pn["id"]] = rows
    return panels, data


def _write_csv(path: pathlib.Path, panels, data):
    table = []
    for pn in panels:
        for curve, pts in data[pn["id"]].items():
            for n, val, br in pts:
                if val is None:
                    table.append([pn["id"], curve, n, pn["solve"], "", "", "", br])
                    continue
                up = pn["solve"] == "epsilon"  # ε: report the upper end rounded up; ε0: lower end rounded down
                table.append(
                    [
                        pn["id"],
                        curve,
                        n,
                        pn["solve"],
                        arith.decimal_string(val, 12, up=up),
                        arith.decimal_string(br.lower, 12, up=False),
                        arith.decimal_string(br.upper, 12, up=True),
                        "exact reference" if curve.startswith("exact") else "certified bound calibration",
                    ]
                )
    write_csv(
        path, ["panel", "curve", "n", "solved_for", "certified_value", "bracket_lower", "bracket_upper", "note"], table
    )


def _plot(outdir: pathlib.Path, panels, data, quick):
    plt = pyplot()
    fig, axes = plt.subplots(2, 2, figsize=(13, 10))
    for ax, pn in zip(axes.flat, panels):
        for curve, pts in data[pn["id"]].items():
            xs = [n for n, v, _ in pts if v is not None]
            ys = [float(v) for n, v, _ in pts if v is not None]  # display only
            if not xs:
                continue
            is_exact = curve.startswith("exact")
            ax.plot(
                xs,
                ys,
                "k--" if is_exact and "binary" in curve else ("k:" if is_exact else "-"),
                marker="o" if is_exact else None,
                markersize=3,
                label=curve,
                linewidth=1.6 if is_exact else 1.2,
            )
        ax.set_xscale("log")
        ax.set_yscale("log" if pn["solve"] == "epsilon" else "linear")
        ax.set_xlabel("n")
        ax.set_ylabel(pn["ylabel"])
        ax.set_title(pn["title"], fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(
        "Balle et al., Figure 3 — certified one-sided calibration; exact curves added"
        + (" (quick grid)" if quick else ""),
        fontsize=11,
    )
    fig.tight_layout()
    png, pdf = save(fig, outdir, "blanket-fig3", dpi=110)
    return [png, pdf]


def make(outdir: pathlib.Path, *, quick: bool = False) -> list:
    outdir = output_dir(outdir)
    panels, data = compute(quick)
    csv_path = outdir / "blanket-fig3.csv"
    _write_csv(csv_path, panels, data)
    return _plot(outdir, panels, data, quick) + [csv_path]


FIGURES = {
    "blanket-fig3": Figure(
        "blanket-fig3", "Balle et al. Figure 3 (four panels, seven bounds, certified calibration, exact curves)", make
    )
}
