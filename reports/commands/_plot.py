"""``--plot FILE`` for ``blanket delta`` / ``blanket epsilon``: the privacy curve of the queried mechanism and n.

The same picture as a certificate's (:mod:`blanket.reports.curve`, drawn by
:mod:`blanket.reports.figures.privacy_curve`), with the command's answer marked: δ(ε) certified upper and lower
from the certificate's cheap sources for this mechanism and n, every registered closed-form bound that applies, and
for composed rounds (``--rounds``, a ``[[rounds]]`` file) the composition's δ(ε) and ε against the number of rounds.
FILE is checked before any computation (a writable ``.png`` path; else one line, exit 2) and written atomically
after the answer has been printed.  The engines are imported inside the functions (a command module's rule).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from ._profile_common import PAYLOAD  # the attribute emit() leaves the answer's payload under

if TYPE_CHECKING:
    import argparse

    from ._profile_common import Inputs

#: attribute of the parsed arguments under which a composed run leaves its accountant for the picture
ACCOUNTANT = "_plot_accountant"


def check(args: argparse.Namespace) -> None:
    """Refuse a bad ``--plot FILE`` (exit 2, one line) before anything is computed."""
    path = getattr(args, "plot", None)
    if path is None:
        return
    from blanket.reports.figures.privacy_curve import check_plot_path

    check_plot_path(path)


def check_inputs(args: argparse.Namespace, inp: Inputs) -> None:
    """Refuse ``--plot`` without a mechanism to draw (``--bound`` alone), before anything is computed."""
    if getattr(args, "plot", None) is not None and inp.mechanism is None:
        from blanket.exact.numbers.errors import InvalidArgument

        raise InvalidArgument("--plot", args.plot, "needs a mechanism (--mechanism, --epsilon0, -n) to draw its curve")


def _num(text: Any) -> Any:
    from blanket.exact.numbers import arith
    from blanket.exact.numbers.errors import BlanketError

    try:
        return arith.exact(text)
    except BlanketError:
        return None  # "inf" or a missing end: not marked


def _marker(quantity: str, inp: Inputs, payload: dict) -> tuple[Any, list]:
    """The answer as a marker, and the ε of interest (the queried ε, or the certified upper end)."""
    from blanket.reports.curve import to_float as _f
    from blanket.reports.figures.privacy_curve import Marker

    if quantity == "delta":
        eps, d = inp.epsilon, payload.get("delta") or {}
        up = _num(d.get("upper"))
        if eps is None or up is None or up <= 0:
            return None, [eps] if eps is not None else []
        label = f"the answer: delta({payload.get('epsilon')}) in [{d.get('lower')}, {d.get('upper')}]"
        return Marker(label, _f(eps), _f(up)), [eps]
    e = payload.get("epsilon") or {}
    up, lo, delta = _num(e.get("upper")), _num(e.get("lower")), inp.delta
    if up is None or delta is None:
        return None, []
    rng = (_f(lo), _f(up)) if lo is not None else None
    label = f"the answer: epsilon in [{e.get('lower')}, {e.get('upper')}] at delta = {payload.get('delta')}"
    return Marker(label, _f(up), _f(delta), None, rng), [up]


def draw(args: argparse.Namespace, inp: Inputs, quantity: str) -> None:
    """Draw the picture for the run just made and write it to ``--plot FILE`` (a no-op without ``--plot``)."""
    path = getattr(args, "plot", None)
    if path is None:
        return
    from blanket.reports import curve
    from blanket.reports.figures.privacy_curve import Marker, write_png

    payload = getattr(args, PAYLOAD, None) or {}
    marker, focus = _marker(quantity, inp, payload)
    markers = [marker] if marker is not None else []
    acc = getattr(args, ACCOUNTANT, None)
    if acc is not None:  # composed rounds
        basic = acc.basic_upper()
        from flint import fmpq

        delta = inp.delta if inp.delta is not None else fmpq(1, 10**6)
        pic = curve.composition(
            acc,
            title=f"The privacy curve of {acc.rounds} composed shuffled round{'' if acc.rounds == 1 else 's'} "
            f"(n = {inp.n} per round)",
            focus=focus,
            eps0_total=None if basic is None else fmpq(basic.numerator, basic.denominator),
            delta=delta,
            markers=markers,
            claim=Marker(marker.label, float(acc.rounds), marker.eps) if marker and quantity == "epsilon" else None,
        )
    else:
        pic = _single_round(inp, payload, focus, markers)
    written = write_png(pic, path)
    sys.stderr.write(f"blanket: wrote the privacy curve to {written}\n")


def _single_round(inp: Inputs, payload: dict, focus: list, markers: list) -> Any:
    from blanket.reports import certificate as C
    from blanket.reports import curve
    from blanket.reports.commands._matrix import deployment_of
    from blanket.reports.commands._profile_common import mechanism_phrase
    from flint import fmpq

    assert inp.query is not None and inp.mechanism is not None  # checked by the caller
    dep = deployment_of(inp)
    mech = inp.mechanism
    srcs = C.sources(dep, mech, workers=inp.workers, scheduler=inp.scheduler)
    cands = C.candidate_results(dep)
    answer = _num((payload.get("delta") or {}).get("upper")) if inp.delta is None else None
    delta = inp.delta if inp.delta is not None else answer if answer else fmpq(1, 10**6)
    return curve.single_round(
        srcs,
        cands,
        lambda r, e, d: C.evaluate_bound(r, dep, mech, e, d),
        title=f"The privacy curve of {mechanism_phrase(inp)}, shuffled among n = {inp.n} users",
        focus=focus,
        eps0=curve.epsilon0_upper(mech, dep.params),
        delta=delta,
        markers=markers,
        mech=mech,
        curve_pair=curve.computed_curve_pair(mech, inp.n),
    )
