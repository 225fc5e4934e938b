"""The privacy curve of one deployment: δ(ε) certified upper and lower, the claims, the registered bounds; for
composed rounds a second panel, the certified ε against the number of rounds.

Drawn by every certificate (``<stem>-curve.png`` beside it, a figure in its PDF) and by
``blanket delta|epsilon --plot FILE``.  This module only draws: it takes plain data (:class:`Picture`: lists of ε,
upper and lower δ, labels) and knows no engine, so any producer of certified values can feed it (the
certificate's sources, :mod:`blanket.reports.curve`; a privacy-curve object later).  The numbers it receives are
floats *for drawing only*: each is a certified end (an upper end of an upper bound, a lower end of a lower bound)
rounded to the nearest binary64, and the picture says so; the certified numbers are those of the tables.

The δ axis is logarithmic; a value ``None`` or ≤ 0 (an enclosure whose lower end is 0, or δ below the smallest
binary64) is left out of its line.  Cost: drawing only, O(points); about 0.5 s for a certificate's picture.
"""

from __future__ import annotations

import dataclasses
import io
import math
import os
import pathlib
from collections.abc import Sequence
from dataclasses import dataclass, field

from blanket.exact.numbers.errors import InvalidArgument
from blanket.reports.output import atomic_write, refuse_symlink

#: the sentence every picture carries: its numbers are for the eye only
FLOAT_NOTE = (
    "Drawn from certified enclosures rounded to floats, for the eye only; the certified numbers are the printed ones."
)
#: pixels per inch of the PNG (a 7.5-inch figure is 975 pixels wide)
DPI = 130
#: colours of the verdicts' markers
VERDICT_STYLE = {
    "HOLDS": ("o", "tab:green"),
    "FAILS": ("X", "tab:red"),
    "INCONCLUSIVE": ("D", "tab:orange"),
}


@dataclass(frozen=True)
class Line:
    """One drawn δ(ε) line: ``delta[i]`` at ``eps[i]`` (``None``: not drawn there).  ``what`` says what it is."""

    label: str
    eps: Sequence[float]
    delta: Sequence[float | None]
    what: str = ""


@dataclass(frozen=True)
class Marker:
    """A point (ε, δ) marked and labelled: a claim (``verdict`` HOLDS/FAILS/INCONCLUSIVE) or a queried point.

    ``eps_range``: a certified ε bracket ``(lower, upper)`` at this δ (a target), drawn as a segment.
    ``kind``: ``"claim"`` (a claim or query: it sets the δ range shown and gets a guide line at its δ) or
    ``"upper"`` (the certified upper bound at a claim's ε from a route too slow to draw as a line: a downward
    triangle, held at the axis floor when its value is below the range shown).
    """

    label: str
    eps: float
    delta: float
    verdict: str | None = None
    eps_range: tuple[float, float] | None = None
    kind: str = "claim"


@dataclass(frozen=True)
class Rounds:
    """The second panel of a composition: certified ε at δ = ``delta_label`` against the number of rounds."""

    rounds: Sequence[int]
    upper: Sequence[float | None]
    lower: Sequence[float | None]
    delta_label: str
    upper_label: str = "certified upper end of epsilon"
    lower_label: str = "certified lower end (a concrete pair of datasets)"
    rounds_label: str = "number of composed rounds"
    #: a claim at the panel's δ, drawn at (its number of rounds, its ε): ``eps`` holds the rounds, ``delta`` the ε
    claim: Marker | None = None


@dataclass(frozen=True)
class Picture:
    """Everything one picture draws.  ``upper``/``lower``: the certified δ(ε) ends (the bracket between them is
    shaded); ``bounds``: registered bounds on δ (or on ε, drawn as (ε̄(δ), δ)); ``markers``: claims or the queried
    point; ``skipped``: what applies but is not drawn, with why (printed under the plot)."""

    title: str
    upper: Line | None
    lower: Line | None = None
    bounds: Sequence[Line] = ()
    markers: Sequence[Marker] = ()
    skipped: Sequence[str] = ()
    rounds: Rounds | None = None
    eps_label: str = r"central $\varepsilon$"
    notes: Sequence[str] = field(default_factory=tuple)

    def describe(self) -> dict:
        """What is drawn, as plain data (the certificate's JSON lists it beside the file name)."""
        out: dict = {
            "upper": self.upper.label if self.upper else None,
            "lower": self.lower.label if self.lower else None,
            "bounds": [b.label for b in self.bounds],
            "marked": [m.label for m in self.markers],
            "not_drawn": list(self.skipped),
            "points": (len(self.lower.eps) if self.lower else len(self.upper.eps)) if self.upper else 0,
            "note": FLOAT_NOTE,
        }
        out["caption"] = self.caption()
        if self.rounds is not None:
            out["rounds_panel"] = {
                "rounds": list(self.rounds.rounds),
                "delta": self.rounds.delta_label,
                "upper": self.rounds.upper_label,
                "lower": self.rounds.lower_label,
            }
        return out

    def as_data(self) -> dict:
        """The picture as plain JSON-able data (:meth:`from_data` reads it back)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_data(cls, data: dict) -> Picture:
        """The picture from :meth:`as_data`'s plain data."""

        def line(d):
            return None if d is None else Line(**d)

        def marker(d):
            if d is None:
                return None
            rng = d.get("eps_range")
            return Marker(**{**d, "eps_range": None if rng is None else tuple(rng)})

        r = data.get("rounds")
        return cls(
            title=data["title"],
            upper=line(data["upper"]),
            lower=line(data.get("lower")),
            bounds=[Line(**b) for b in data.get("bounds", ())],
            markers=[marker(m) for m in data.get("markers", ())],
            skipped=list(data.get("skipped", ())),
            rounds=None if r is None else Rounds(**{**r, "claim": marker(r.get("claim"))}),
            eps_label=data.get("eps_label", cls.eps_label),
            notes=tuple(data.get("notes", ())),
        )

    def caption(self) -> str:
        """The picture in words (the certificate's figure caption)."""
        parts = []
        if self.upper is not None:
            xs = [x for x in self.upper.eps]
            grid = len(self.lower.eps) if self.lower is not None else len(xs)
            parts.append(
                ("Left: " if self.rounds is not None else "")
                + f"delta(epsilon) on a log scale at {grid} values of epsilon in [0, {max(xs):.4g}]: the "
                f"{self.upper.label} (solid)"
                + (
                    f" and the {self.lower.label} (dashed); the band between them is the certified bracket, where "
                    "the worst-case delta lies"
                    if self.lower is not None
                    else ""
                )
                + "."
            )
        elif self.lower is not None:  # no upper line (none cheap enough to draw): the lower line alone
            parts.append(
                ("Left: " if self.rounds is not None else "")
                + f"delta(epsilon) on a log scale at {len(self.lower.eps)} values of epsilon in "
                f"[0, {max(self.lower.eps):.4g}]: the {self.lower.label} (dashed); no certified upper line is drawn."
            )
        if self.bounds:
            parts.append("Registered bounds drawn: " + "; ".join(b.label for b in self.bounds) + ".")
        if self.markers:
            parts.append("Marked: " + "; ".join(m.label for m in self.markers) + ".")
        if self.skipped:
            parts.append("Not drawn: " + "; ".join(self.skipped) + ".")
        if self.rounds is not None:
            r = self.rounds
            parts.append(
                f"Right: the certified epsilon at delta = {r.delta_label} against the number of composed rounds "
                f"({', '.join(str(t) for t in r.rounds)}): {r.upper_label} (solid) and {r.lower_label} (dashed)."
            )
        parts.append(FLOAT_NOTE)
        return " ".join(parts)


def _positive(xs: Sequence[float], ys: Sequence[float | None]) -> tuple[list, list]:
    """The ε (or rounds) and values with ``y`` drawable on a log axis; a gap (nan) where it is not."""
    out_x, out_y = [], []
    for x, y in zip(xs, ys):
        out_x.append(x)
        out_y.append(y if (y is not None and y > 0 and math.isfinite(y)) else math.nan)
    return out_x, out_y


def _finite_positive(values) -> list:
    return [v for v in values if v is not None and math.isfinite(v) and v > 0]


def _delta_limits(pic: Picture) -> tuple[float, float] | None:
    """The δ range shown: from a few decades under the lowest marked point (or the curves) up to the largest value."""
    curves = [line for line in (pic.upper, pic.lower) if line is not None]
    data = _finite_positive(v for line in curves for v in line.delta)
    marks = _finite_positive(m.delta for m in pic.markers if m.kind != "upper")
    if not data and not marks:
        return None
    top = max(data + marks)
    if marks:
        bottom = min(marks) * 1e-6
        if data:
            bottom = max(bottom, min(data))
        bottom = min(bottom, min(marks) / 10)
    else:
        bottom = max(min(data), top * 1e-40)
    return bottom / 2, min(1.5, top * 3)


def _band(upper: Line, lower: Line) -> tuple[list, list, list]:
    """The shaded bracket between the two lines *as drawn*: at every point of the upper line inside the lower line's
    range (the upper line may hold chords between its grid points, drawn at more points than the lower), the upper
    value, and the lower line interpolated as a log axis draws it (geometrically between its two neighbours; a zero
    lower value is the axis floor).  Filling only at the lower line's points would join the grid points straight on
    the log axis, under the upper line's chords: a band below the certified upper bound.  O(len(upper) + len(lower))."""
    pts = sorted((e, d) for e, d in zip(lower.eps, lower.delta) if d is not None and math.isfinite(d))
    x: list = []
    lo: list = []
    up: list = []
    if not pts:
        return x, lo, up
    floor = 1e-300
    j = 0
    for e, d in zip(upper.eps, upper.delta):
        if e < pts[0][0] or e > pts[-1][0]:
            continue
        while j + 1 < len(pts) and pts[j + 1][0] < e:
            j += 1
        (e0, d0), (e1, d1) = pts[j], pts[min(j + 1, len(pts) - 1)]
        a, b = max(d0, floor), max(d1, floor)
        t = 0.0 if e1 == e0 else (e - e0) / (e1 - e0)
        x.append(e)
        lo.append(a if t <= 0 else b if t >= 1 else math.exp(math.log(a) + t * (math.log(b) - math.log(a))))
        up.append(d if (d is not None and d > 0 and math.isfinite(d)) else math.nan)
    return x, lo, up


def _curve_panel(ax, pic: Picture) -> None:
    if pic.upper is not None and pic.lower is not None:
        x, lo, up = _band(pic.upper, pic.lower)
        if any(math.isfinite(v) for v in up):
            ax.fill_between(
                x,
                lo,
                up,
                color="tab:blue",
                alpha=0.15,
                lw=0,
                label="certified bracket: the worst-case delta lies here",
            )
    if pic.upper is not None:
        ax.plot(*_positive(pic.upper.eps, pic.upper.delta), "-", color="tab:blue", lw=2, label=pic.upper.label)
    if pic.lower is not None:
        ax.plot(*_positive(pic.lower.eps, pic.lower.delta), "--", color="tab:blue", lw=1.6, label=pic.lower.label)
    styles = [":", "-.", (0, (5, 2)), (0, (1, 1)), (0, (3, 1, 1, 1))]
    colours = ["tab:purple", "tab:brown", "tab:olive", "tab:cyan", "tab:pink", "tab:gray"]
    lim = _delta_limits(pic)
    for i, b in enumerate(pic.bounds):
        shown = _finite_positive(b.delta)
        above = lim is not None and bool(shown) and min(shown) > lim[1]  # a legend entry with no visible line
        ax.plot(
            *_positive(b.eps, b.delta),
            linestyle=styles[i % len(styles)],
            color=colours[i % len(colours)],
            lw=1.2,
            label=b.label + (" - above the range shown" if above else ""),
        )
    for m in pic.markers:
        if m.kind == "upper":  # held at the floor when below the range shown (its label gives the value)
            y = m.delta if lim is None else max(m.delta, lim[0] * 1.5)
            ax.plot([m.eps], [y], "v", color="tab:blue", ms=8, mec="black", mew=0.8, label=m.label, zorder=5)
            continue
        shape, colour = VERDICT_STYLE.get(m.verdict or "", ("*", "black"))
        if m.eps_range is not None:
            ax.plot(list(m.eps_range), [m.delta, m.delta], "-", color=colour, lw=3, alpha=0.7)
        ax.plot([m.eps], [m.delta], shape, color=colour, ms=9, mec="black", mew=0.8, label=m.label, zorder=5)
        ax.axhline(m.delta, color=colour, lw=0.6, alpha=0.4)
    ax.set_yscale("log")
    if lim is not None:
        ax.set_ylim(*lim)
    xs = [x for line in (pic.upper, pic.lower) if line is not None for x in line.eps]
    xs += [m.eps for m in pic.markers]
    if xs:
        ax.set_xlim(0, max(xs) * 1.02 or 1)
    ax.set_xlabel(pic.eps_label)
    ax.set_ylabel(r"$\delta(\varepsilon)$ (log scale)")
    ax.grid(True, which="major", alpha=0.3)


def _rounds_panel(ax, r: Rounds) -> None:
    x, up = _positive(r.rounds, r.upper)
    _, lo = _positive(r.rounds, r.lower)
    ax.fill_between(x, lo, up, color="tab:blue", alpha=0.15, lw=0)
    ax.plot(x, up, "-o", color="tab:blue", lw=2, ms=4, label=r.upper_label)
    ax.plot(x, lo, "--s", color="tab:blue", lw=1.4, ms=3, label=r.lower_label)
    if r.claim is not None:
        shape, colour = VERDICT_STYLE.get(r.claim.verdict or "", ("*", "black"))
        ax.plot([r.claim.eps], [r.claim.delta], shape, color=colour, ms=9, mec="black", mew=0.8, label=r.claim.label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(r.rounds_label)
    ax.set_ylabel(rf"certified $\varepsilon$ at $\delta$ = {r.delta_label}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", framealpha=0.8)


def draw_png(pic: Picture) -> bytes:
    """The picture as PNG bytes (Agg, no time stamp or version in the file: the same data give the same bytes).

    Layout in inches: the title, the panel(s) 3.4 in high, then the legend (two columns) and the notes under it,
    so that nothing covers a curve however many bounds are drawn.
    """
    # matplotlib's Figure on the Agg canvas directly, not through pyplot: no figure manager, no global state, and
    # pyplot's import (state machine, backend switch) is skipped; the PNG bytes are the same
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    two = pic.rounds is not None
    width = 11.0 if two else 7.5
    title = _wrap(pic.title, 120 if two else 85)
    foot = [FLOAT_NOTE, *pic.notes]
    if pic.skipped:
        foot.append("Not drawn: " + "; ".join(pic.skipped) + ".")
    notes = "\n".join(_wrap(t, 180 if two else 128) for t in foot)
    fig = Figure(figsize=(width, 6.0))
    FigureCanvasAgg(fig)
    left, right, panel_h = 0.85, 0.25, 3.4
    title_h = 0.25 + 0.2 * (title.count("\n") + 1)
    gap = 0.35 if two else 0.0
    panel_w = (width - left - right - (gap + 0.75 if two else 0)) / (2 if two else 1)
    axes = []
    for i in range(2 if two else 1):
        x0 = left + i * (panel_w + gap + 0.75)
        axes.append((x0, panel_w))
    _curve = axes[0]
    ax = fig.add_axes((0, 0, 1, 1))  # placed below, once the figure's height is known
    _curve_panel(ax, pic)
    handles, labels = ax.get_legend_handles_labels()
    ax2 = None
    if two and pic.rounds is not None:
        ax2 = fig.add_axes((0, 0, 1, 1))
        _rounds_panel(ax2, pic.rounds)
    cols = 2 if max(map(len, labels), default=0) <= (80 if two else 58) else 1
    if cols == 1:  # a long label (several routes named) wraps instead of running off the figure
        labels = [_wrap(label, 115) for label in labels]
        rows = sum(label.count("\n") + 1 for label in labels)
    else:
        rows = math.ceil(len(labels) / cols)
    legend_h = 0.185 * rows + 0.1
    notes_h = 0.14 * (notes.count("\n") + 1) + 0.15
    height = title_h + panel_h + 0.6 + legend_h + notes_h
    fig.set_size_inches(width, height)
    bottom_of_panel = height - title_h - panel_h
    ax.set_position((_curve[0] / width, bottom_of_panel / height, _curve[1] / width, panel_h / height))
    if ax2 is not None:
        x0, w = axes[1]
        ax2.set_position((x0 / width, bottom_of_panel / height, w / width, panel_h / height))
    fig.text(0.5, 1 - 0.12 / height, title, fontsize=10.5, va="top", ha="center")
    if labels:
        fig.legend(
            handles,
            labels,
            loc="upper left",
            bbox_to_anchor=(0.1 / width, (bottom_of_panel - 0.55) / height),
            ncol=cols,
            fontsize=7.5,
            frameon=False,
            handlelength=3,
        )
    fig.text(0.12 / width, 0.1 / height, notes, fontsize=7, va="bottom", ha="left", color="0.25")
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, metadata={"Software": None})
    return buf.getvalue()


def _wrap(s: str, width: int) -> str:
    import textwrap

    return "\n".join(textwrap.wrap(s, width)) or s


def write_png(pic: Picture, path: str | os.PathLike) -> pathlib.Path:
    """Draw ``pic`` and write it to ``path`` atomically (temporary file beside it, then rename); returns the path."""
    return atomic_write(pathlib.Path(path), draw_png(pic))


def check_plot_path(path: str, option: str = "--plot") -> pathlib.Path:
    """``--plot FILE`` checked before any computation: a ``.png`` file name in an existing writable directory, not a
    directory or a symbolic link; :class:`InvalidArgument` naming ``option`` otherwise (the CLI exits 2)."""
    p = pathlib.Path(path)
    if not str(path).strip():
        raise InvalidArgument(option, path, "must be a file name ending in .png")
    if p.is_dir():
        raise InvalidArgument(option, path, "is a directory", hint="give a file name ending in .png")
    if p.suffix.lower() != ".png":
        raise InvalidArgument(option, path, "must end in .png (the picture is a PNG image)")
    refuse_symlink(p, option)
    parent = p.parent if str(p.parent) else pathlib.Path(".")
    if not parent.is_dir():
        raise InvalidArgument(option, path, f"is in {parent}, which is not an existing directory")
    if not os.access(parent, os.W_OK | os.X_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise InvalidArgument(option, path, "is not writable", hint="choose a writable location")
    return p
