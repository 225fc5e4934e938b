"""Certificates for deployments with several shuffled rounds (``[[rounds]]``): claims apply to the composition.

The numbers come from :class:`blanket.exact.accounting.accountant.ShuffleAccountant` (dominating pairs, certified
pessimistic/optimistic PLDs, exact integer convolution; and the Rényi route on the same pairs). A claim
``(ε, δ)`` HOLDS when the smaller of the two certified upper ends of the composed δ(ε) is ``≤ δ``; FAILS when the composed δ(ε) of the rounds run on one concrete pair of
datasets (a certified lower bound on the mechanism) is certainly ``> δ``; otherwise the grid is refined
(up to twice) and the claim is INCONCLUSIVE if still undecided. The certificate typesets the composition
theorem (ZDW22 Theorem 10), the discretisation statement, the grid, the sandwich and the deciding route
(PLD or Rényi, per claim and per target). One accountant serves all claims and targets of a file (its PLDs
are cached per grid).
"""

from __future__ import annotations

import math
import time
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from blanket.exact.accounting import same_randomizer
from blanket.exact.accounting.accountant import LOWER_NAMES, ONE_ROUND_NAME, SAMPLED_MATRIX_CURVE, ShuffleAccountant
from blanket.exact.accounting.curves import FinitePair
from blanket.exact.accounting.sampled import SAMPLED_VIEW_START, SampledFourValue
from blanket.exact.numbers import arith
from blanket.exact.shuffled.geometric import SampledGeometric
from blanket.proofs import composition as comp
from blanket.proofs import core
from blanket.proofs import fleets as pf
from blanket.reports.latex import exact_string
from flint import fmpq

from . import continuous_certificate, curve
from .deployment import ContinuousRound, Deployment, RecordRound, Round
from .verdict import ASSUMPTIONS, FAILS, HOLDS, INCONCLUSIVE, reproducibility, result_entry, statement

if TYPE_CHECKING:
    from blanket.exact.runtime.progress import Progress

    from .deployment import Claim, Target

ROUTE = (
    "PLD route: dominating pairs, pessimistic/optimistic discretisation, exact integer convolution; "
    "Renyi route beside it (the same pairs, CKS20 conversion); the smaller certified upper end decides"
)
ROUTE_NAMES = {
    "PLD": "PLD route",
    "Renyi": "Renyi route",
    "basic": "basic composition of pure DP",
    "one round": "one-round route (the round's own certified bounds)",
}
UPPER_SOURCES = {
    "PLD": "pessimistic PLD of the product of dominating pairs",
    "Renyi": "Renyi divergences of the same dominating pairs, added over rounds (CKS20 conversion)",
    "basic": "the sum of the rounds' epsilon0 (each shuffled round is epsilon0-DP; basic composition, delta = 0)",
    "one round": "the single round's own certified one-round bounds (the smallest of its routes; "
    "exact.accounting.certified, as the one-round certificate)",
}


def _upper_source(e: Any) -> str:
    """The certificate's ``upper_source``: the route's text; for the one-round route, the bound that decided it
    (``details["one_round"]["upper_from"]``, e.g. a sampled binary RR round's exact worst case), when known.  O(1)."""
    one = e.details.get("one_round") or {}
    if e.route == "one round" and one.get("upper_from") and one.get("upper_decided_by") != "composition":
        return f"the single round's own certified one-round bound: {one['upper_from']}"
    return UPPER_SOURCES[e.route]


def _q(x: Fraction) -> fmpq:
    return fmpq(x.numerator, x.denominator)


def _dec(x: Fraction, up: bool, digits: int = 8) -> str:
    return arith.decimal_string(_q(x), digits, up=up)


def _accountant(
    dep: Deployment, grid=None, curves: bool | str = "auto", workers: int | None = None
) -> ShuffleAccountant:
    acc = ShuffleAccountant(neighbouring="replace-one", grid=grid, prec=dep.precision, curves=curves, workers=workers)
    for r in dep.rounds:
        acc.compose(r.event(), count=r.count)
    return acc


def _singles(dep: Deployment) -> list:
    """The Laplace/Gaussian rounds as ``[(record, n)]`` (their one-round lower ends bound the composition)."""
    return [(r.event().mechanism, r.n) for r in dep.rounds if isinstance(r, ContinuousRound)]


#: a composition whose estimate reaches this many seconds says so on stderr before it starts (unless quiet)
ESTIMATE_SHOWN_SECONDS = 10.0
#: the time-budget option a refused composition names
BUDGET_OPTION = "--time-budget SECONDS (start anyway; exit 3 when it runs out)"
#: the memory option a composition refused for its memory names (a time budget does not lift that refusal)
MEMORY_OPTION = "a higher --max-memory SIZE (default: half of this machine's memory)"


def announce_cost(
    acc: ShuffleAccountant,
    *,
    workers: int | None = None,
    picture: bool = False,
    pdf: bool = False,
    quantity: str = "epsilon",
) -> dict:
    """Estimate the composition before any work (:meth:`ShuffleAccountant.estimate`): refuse it
    (:class:`~blanket.exact.runtime.budget.TooExpensive`, exit 2, one line naming the estimate and the options) when
    its peak memory exceeds ``--max-memory`` (:meth:`ShuffleAccountant.check_memory`, with or without a time budget),
    or when it exceeds ``BLANKET_MAX_SECONDS`` and no time budget is running (with one, the budget bounds the run: exit 3 when
    it runs out; the options named: ``--curves off``, ``--time-budget``, fewer rounds or users); print it on stderr when it reaches :data:`ESTIMATE_SHOWN_SECONDS` and the run is not quiet.
    A certificate's ``picture`` (its scaled schedules, :meth:`ShuffleAccountant.picture_estimate`) and ``pdf`` are
    added to the printed estimate (not to the refusal, which is about the composition).  ``quantity``: the query
    modelled, ``"epsilon"`` or ``"delta"`` (``blanket delta``: :meth:`ShuffleAccountant.estimate`'s).
    Returns the estimate as plain data.  O(ledger entries)."""
    import sys

    from blanket.exact.runtime import progress as _progress

    if _progress.time_budget() is not None:  # the budget bounds the time, not the memory
        est = acc.check_memory(acc.estimate(workers, quantity=quantity), memory_option=MEMORY_OPTION)
    else:
        est = acc.check_cost(
            workers=workers,
            curves_option="--curves off",
            budget_option=BUDGET_OPTION,
            memory_option=MEMORY_OPTION,
            quantity=quantity,
        )
    if picture or pdf:
        import dataclasses

        from blanket.exact.accounting import composition_cost as _cost
        from blanket.reports.curve import ROUND_FRACTIONS

        est = dataclasses.replace(
            est,
            picture=acc.picture_estimate(ROUND_FRACTIONS) if picture else 0.0,
            pdf=_cost.SECONDS_PDF if pdf else 0.0,
        )
    if est.seconds >= ESTIMATE_SHOWN_SECONDS and not _progress.is_quiet():
        fast = acc.curves_off_estimate(workers, quantity=quantity) if (est.sweep or est.curves) else None
        hint = f"; --curves off for the fast, looser pairs (about {fast})" if fast is not None else ""
        rounds = f"{acc.rounds} round" + ("" if acc.rounds == 1 else "s")
        sys.stderr.write(f"blanket: composing {rounds}: {est.text()}; starting{hint}\n")
    return est.as_dict()


def decide_claim(dep: Deployment, claim: Claim, acc: ShuffleAccountant | None = None) -> dict:

    acc = acc or _accountant(dep)
    singles = _singles(dep)
    one = continuous_certificate.one_round_lower(singles, epsilon=claim.epsilon) if singles else None
    one_lower = Fraction(int(one[0].p), int(one[0].q)) if one is not None else Fraction(0)
    acc.get_epsilon(claim.delta)  # chooses the grid (bracket, else sandwich, within 2 % at this δ)
    tried, uppers = [], []
    for _attempt in range(3):
        d = acc.get_delta(claim.epsilon)
        tried.append(str(d.grid))
        uppers.append(d.upper)
        if d.upper <= Fraction(int(claim.delta.p), int(claim.delta.q)):
            verdict, reason = (
                HOLDS,
                (
                    f"the pessimistic composed delta({_s(claim.epsilon)}) <= {_dec(d.upper, True)} "
                    f"<= {_s(claim.delta)} (dominating pairs, grid {d.grid}; {ROUTE_NAMES[d.route]})"
                ),
            )
            break
        if max(d.lower, one_lower) > Fraction(int(claim.delta.p), int(claim.delta.q)):
            by_one = one_lower > d.lower
            verdict, reason = (
                FAILS,
                (
                    f"on one concrete pair of datasets the composed delta({_s(claim.epsilon)}) >= "
                    f"{_dec(max(d.lower, one_lower), False)} > {_s(claim.delta)}"
                    + (f" ({one[1]})" if by_one and one is not None else "")
                ),
            )
            break
        acc = acc.regridded(d.grid / 4)  # the one round's own ends (grid-free) are not searched again
    else:
        verdict, reason = (
            INCONCLUSIVE,
            (
                f"delta({_s(claim.epsilon)}) lies in [{_dec(d.lower, False)}, {_dec(d.upper, True)}], "
                f"which contains {_s(claim.delta)}, on grids {', '.join(tried)}"
            ),
        )
    assert d.pld_upper is not None and d.renyi_upper is not None  # get_delta reports both routes' upper ends
    return {
        "epsilon": _s(claim.epsilon),
        "delta": _s(claim.delta),
        "verdict": verdict,
        "reason": reason,
        "delta_upper": _dec(d.upper, True),
        "delta_lower": _dec(max(d.lower, one_lower), False),
        # a lower end of 0 says nothing: why there is none above 0 (printed instead of "mechanism lower bound >= 0")
        **({"delta_lower_none": _no_delta_lower(d.details.get("lower_pair"))} if max(d.lower, one_lower) == 0 else {}),
        "delta_pair_lower": _dec(d.pair_lower, False),
        "grid": str(d.grid),
        "route": ROUTE_NAMES[d.route],
        "delta_pld_upper": _dec(d.pld_upper, True),
        "delta_renyi_upper": _dec(d.renyi_upper, True),
        "pair_route": d.details.get("pair_route", "dominating pairs"),
        "precision": dep.precision,
        "bounds": [],
        **({"one_round": d.details["one_round"]} if d.details.get("one_round") else {}),
        # the upper end on each grid tried (each a quarter of the last), for composition_hint: whether a finer grid
        # (--refine-seconds) can reach the claim's delta at the rate it fell
        **(
            {"delta_upper_by_grid": [_dec(u, True) for u in uppers]}
            if verdict == INCONCLUSIVE and len(uppers) > 1
            else {}
        ),
    }


def _no_delta_lower(lower_pair: str | None) -> str:
    """Why a composed claim has no mechanism lower bound above 0 (its lower end is 0), in words.  O(1)."""
    if lower_pair is None:
        return "none: no round has a concrete pair of datasets"
    return f"none above 0: on the concrete pair ({lower_pair}) the composed delta at this epsilon, rounded down, is 0"


def _s(q) -> str:

    return exact_string(q)


def certify_target(dep: Deployment, target: Target, acc: ShuffleAccountant | None = None) -> dict:

    acc = acc or _accountant(dep)
    e = acc.get_epsilon(target.delta)
    singles = _singles(dep)
    one = continuous_certificate.one_round_lower(singles, delta=target.delta) if singles else None
    e_lower = max(e.lower, Fraction(int(one[0].p), int(one[0].q))) if one is not None else e.lower
    # get_epsilon always has the Renyi route's end and order (rdp_epsilon decides over a non-empty list of orders)
    assert e.renyi_upper is not None and e.renyi_order is not None
    rec = {
        "delta": _s(target.delta),
        "verdict": HOLDS,
        "epsilon_upper": None if e.upper == float("inf") else _dec(e.upper, True),
        "epsilon_lower": _dec(e_lower, False),
        "epsilon_pair_lower": _dec(e.pair_lower, False),
        # the certified bracket's relative width (what the accountant's rel_width bounds), and the PLD sandwich's
        "rel_width": f"{float((e.upper - e_lower) / e.upper) * 100:.3f}%" if 0 < e.upper < math.inf else "100.000%",
        "sandwich_width": f"{float(e.sandwich_width) * 100:.3f}%",
        "grid": str(e.grid),
        "epsilon_pld_upper": None if e.pld_upper is None else _dec(e.pld_upper, True),
        "epsilon_renyi_upper": _dec(e.renyi_upper, True),
        "renyi_order": _s(fmpq(e.renyi_order.numerator, e.renyi_order.denominator)),
        "route": ROUTE_NAMES[e.route],
        "pair_route": e.details.get("pair_route", "dominating pairs"),
        "upper_source": _upper_source(e),
        "kind": "composed",
        "lower_source": lower_source(acc, e.details.get("lower_pair"))
        + (
            f": {e.details['one_round']['lower_from']}"
            if str(e.details.get("lower_pair")).startswith(LOWER_NAMES["one-round"])
            else ""
        )
        if e.lower > 0
        else "none (no round has a concrete pair)"
        if e.details.get("lower_pair") is None
        else f"none above 0 (the concrete pair, {e.details['lower_pair']}, certifies no positive epsilon at this "
        "delta)",
        "reason": f"certified by the {ROUTE_NAMES[e.route]}"
        if e.upper != float("inf")
        else "no finite epsilon is certified by either route",
    }
    if e.details.get("one_round"):  # a single record round's own bracket, or a geometric round's lower end
        rec["one_round"] = e.details["one_round"]
    if singles:  # which lower end decided (Laplace/Gaussian rounds: possibly one round alone)
        rec["epsilon_lower_from"] = (
            one[1]
            if one is not None and e_lower > e.lower
            else "the rounds run on one concrete pair of datasets (the accountant's lower pair)"
        )
    return rec


def _one_round_lower_used(rec: dict) -> bool:
    """Whether a claim's or target's reported lower end is one round's alone (a composition is never below one of its
    rounds, ``comp.ONE_ROUND_LOWER``): the accountant's ("one-round": a single record round, a geometric round) or a
    Laplace / Gaussian round's (``continuous_certificate.one_round_lower``).  O(1)."""
    if (rec.get("one_round") or {}).get("lower_decided_by") == ONE_ROUND_NAME:
        return True
    texts = (rec.get("epsilon_lower_from"), rec.get("lower_source"), rec.get("reason"))
    return any(isinstance(t, str) and "one round alone" in t for t in texts)


def lower_source(acc: ShuffleAccountant, decided: str | None = None) -> str:
    """Which concrete pair gives the composed lower end, in words: each distinct round's lower pair (the backward
    direction when ``decided`` names it, e.g. k-RR's banded third-value pair; the oracles' two-stratum count when it
    names that; else the forward one) or that it is left out; when ``decided`` (the result's ``details["lower_pair"]``) names binary RR's summed counts, their description
    (no grid is involved).  O(rounds) (pairs memoised)."""
    if decided is not None and decided.startswith(LOWER_NAMES["one-round"]):
        return decided  # the one route used (ShuffleAccountant._one_round_lower_name)
    if decided is not None and decided == LOWER_NAMES["low-sum"]:
        sums = acc._summed_pairs() or []
        return (
            "the rounds run on one concrete pair of datasets, seen through the sum of their counts ("
            + "; ".join(sp.description for sp in sums)
            + ")"
        )
    out: list[str] = []
    direction = "backward" if decided is not None and decided == LOWER_NAMES["low-bwd"] else "forward"
    stratum = decided is not None and decided == LOWER_NAMES["low-3s"]
    for ev, _ in acc.ledger:
        pr = (acc._stratum_pair(ev) if stratum else None) or ev.lower_pair(direction)
        d = pr.description if pr is not None else f"{ev.describe()}: no concrete pair (left out, a post-processing)"
        if d not in out:
            out.append(d)
    return "the rounds run on one concrete pair of datasets, optimistic discretisation (" + "; ".join(out) + ")"


def pairs_used(acc: ShuffleAccountant, pair_routes: set) -> list[tuple[str, str]]:
    """Which registered pair each distinct round's certified upper ends rest on, as ``(kind, the rounds in words)``:
    ``"curve"`` (the round's worst-case curve pair, where a result was decided by the curve pairs and the round has
    one, or where its dominating pair is itself a curve pair), ``"blanket"`` (the k-RR blanket view as a pair:
    a k-RR round's dominating pair, or an ldp round's through Lemma G1, binary RR with the round's ε0) and ``"clone"``
    (the FOCS 2021 clone pair: a matrix / record round's dominating pair, sampled or not, or a source that won points
    of its curve pair), ``"sampled-matrix"`` / ``"sampled-oracle"`` / ``"sampled-geometric"`` (a sampled matrix / four-value / geometric round whose curve pair is that of ``R_q``), ``"sampled-binary"`` (a sampled binary RR round whose curve pair has points of its exact worst case, Lemma S4), ``"sampled-view"`` (the sampled k-RR blanket view as the dominating pair: a sampled k-RR round, a sampled fleet round through Lemma F3 / F5; not an ``ldp`` round, whose pair is Lemma G1's).  Other pairs (the sampled view, continuous hulls) are named by their own entries.  ``pair_routes``: the accountant's
    ``details["pair_route"]`` of every claim and target.  O(rounds) (pairs memoised)."""
    out: list[tuple[str, str]] = []
    curve_route = "curve pairs" in pair_routes
    dominating_route = "dominating pairs" in pair_routes or not pair_routes
    for ev, _ in acc.ledger:
        cp = acc._curve_of(ev) if curve_route else None
        dom = acc._dominating(ev)
        kind = getattr(dom, "kind", "")
        what = ev.describe()
        if kind in ("lemma-g1", "same-randomizer"):  # the long model text is the Lemma G1 entry's
            what = "ldp, " + what.rsplit("), ", 1)[-1]
        if cp is not None or (isinstance(dom, FinitePair) and kind == "curve"):
            out.append(("curve", what))
        if cp is not None and "clone pair" in cp.description:  # a source of the curve's certified values
            out.append(("clone", f"{what}: points of its curve pair"))
        if cp is not None and SAMPLED_MATRIX_CURVE in cp.description:  # a sampled matrix / oracle round: R_q's
            plain = ev.curve_event()
            if same_randomizer.SAMPLED_DESCRIPTION_START in cp.description:  # an ldp round: binary RR's R_q
                out.append(("g1-sampled", what))
            elif getattr(plain.mechanism, "exact_binary_worst", False):  # sampled binary RR: R_q's only where won
                if _rq_sources_won(plain, cp.description):
                    out.append(("sampled-oracle", f"{what}: points of its curve pair"))
            else:
                out.append(
                    (
                        "sampled-oracle"
                        if isinstance(plain.mechanism, SampledFourValue)
                        else "sampled-geometric"
                        if isinstance(plain.mechanism, SampledGeometric)
                        else "sampled-matrix",
                        what,
                    )
                )
        if cp is not None and "Lemma S4" in cp.description:  # a sampled binary RR round: its exact worst case won
            out.append(("sampled-binary", f"{what}: points of its curve pair"))
        if dominating_route or cp is None:
            if SAMPLED_VIEW_START in getattr(dom, "description", ""):  # a sampled k-RR round's, or a fleet's (F3 / F5)
                out.append(("sampled-view", what))
            if kind == "clone":
                out.append(("clone", what))
            if kind.startswith("blanket-view"):
                out.append(("blanket", what))
            elif same_randomizer.SAMPLED_DESCRIPTION_START in getattr(dom, "description", ""):
                out.append(
                    ("g1-sampled", what)
                )  # an ldp / one-randomizer round with participation q: Lemma G1 [sampled]
            elif kind in ("lemma-g1", "same-randomizer"):
                out.append(
                    (
                        "blanket",
                        f"{what}: through Lemma G1, the pair of binary randomized response with the same epsilon0",
                    )
                )
    return out


def _rq_sources_won(plain: Any, description: str) -> bool:
    """Whether a sampled binary RR round's curve pair (``description``: its hull's, naming the sources that gave its
    values) has a point from a source other than its exact worst case (Lemma S4), i.e. from ``R_q`` through the
    four-value view or the clone pair, so that "Sampled four-value round through R_q" is among the results its numbers
    rest on.  O(sources)."""
    from blanket.exact.accounting.curve_pairs import curve_sources

    names = [name for name, _ in curve_sources(plain.mechanism, n=plain.n) if "Lemma S4" not in name]
    return any(f"{name}: " in description for name in names)


def _ldp_round_entry(r: Round) -> dict:
    """An ldp round of the certificate's ``rounds`` list: its words (``text``), numbers and pair.  O(1)."""
    q = "" if r.sampling is None else f", each user takes part w.p. q = {_s(r.sampling)}"
    return r.as_dict() | {
        "mechanism": "ldp (same randomizer)" if r.same_randomizer else "ldp",
        "text": f"{r.count} x {r.title()} (epsilon0 = {_s(r.epsilon0)}, n = {r.n}{q})",
        "pair": r.event().dominating_pair().description,
    }


def _round_entry(r: Round | ContinuousRound | RecordRound) -> dict:
    """One round of the certificate's ``composition.rounds``: its own randomizer (``mechanism`` and parameters, as the
    deployment's ``rounds[i]``), its words (``text``) and its dominating pair (``pair``).  O(1) (pairs memoised)."""
    if isinstance(r, (ContinuousRound, RecordRound)):
        return r.as_dict() | {"text": r.text(), "pair": r.event().dominating_pair().description}
    if r.ldp:
        return _ldp_round_entry(r)
    entry = (
        {
            "mechanism": "krr",
            "k": r.k,
            "epsilon0": _s(r.epsilon0),
            "n": r.n,
            "count": r.count,
            "pair": r.event().dominating_pair().description,
        }
        | ({} if r.sampling is None else {"sampling": _s(r.sampling)})
        | ({"written_as": "geometric, m = 2"} if r.geometric else {})
        | (
            {
                "groups": [{"n": n, "epsilon0": _s(m.epsilon0_exact)} for n, m in r.groups],
                "colluding": r.colluding,
                "honest": r.n - r.colluding,
            }
            if r.groups
            else {}
        )
    )
    return entry | {"text": _round_text(entry)}


def _round_text(r: dict) -> str:
    """One ledger entry in words: the randomizer(s), ε0 of each group, users, participation, colluders."""
    if "text" in r:  # a Laplace / Gaussian / matrix / record / ldp round, or an entry already in words
        return r["text"]
    rr = ("binary" if r["k"] == 2 else f"{r['k']}-ary") + " randomized response"
    if "written_as" in r:  # a geometric m = 2 round composed as binary RR (with colluding users)
        rr += " (the geometric mechanism with m = 2: the same 2 x 2 matrix)"
    q = f", each user takes part w.p. q = {r['sampling']}" if "sampling" in r else ""
    if "groups" in r and len(r["groups"]) == 1:
        return (
            f"{r['count']} x {rr} (epsilon0 = {r['epsilon0']}, n = {r['n']}, "
            f"{r['colluding']} colluding, {r['honest']} honest users{q})"
        )
    if "groups" in r:
        gs = ", ".join(f"{g['n']} users at epsilon0 = {g['epsilon0']}" for g in r["groups"])
        col = f", {r['colluding']} of them colluding" if r["colluding"] else ""
        return f"{r['count']} x one shuffle of a mixed fleet of {rr} ({gs}{col}; {r['honest']} honest users{q})"
    return f"{r['count']} x {rr} (epsilon0 = {r['epsilon0']}, n = {r['n']}{q})"


def _n_text(dep: Deployment) -> str:
    fr = [r for r in dep.rounds if r.groups]
    if fr:
        r = fr[0]
        total = sum(g.n for g in dep.groups) if dep.groups else r.n
        return (
            f"n = {total} users in all, the certificate rests on {r.n - r.colluding} honest users "
            f"({total - r.n + r.colluding} colluding, chosen worst-case)"
        )
    return "users per round as listed"


def _base_assumptions(dep: Deployment) -> list[str]:
    """The one-round assumptions, as far as they hold for these rounds: a mixed fleet's users do not share one
    randomizer, and with sampled participation a user sends at most one report per round."""
    out = list(ASSUMPTIONS)
    plain_ldp = any(getattr(r, "ldp", False) and not r.same_randomizer for r in dep.rounds)
    if plain_ldp or any(r.groups and len(r.groups) > 1 for r in dep.rounds):  # (FMT21's model: stated separately)
        out = [a for a in out if not a.startswith("One randomizer for all")]
    if any(r.sampling is not None for r in dep.rounds):
        out = [
            "At most one message per user and round: a user who takes part sends exactly one report, the output of "
            "its randomizer on its value; a user who does not take part sends nothing."
            if a.startswith("Single message per user")
            else a
            for a in out
        ]
    return out


def _extra_assumptions(dep: Deployment) -> list[str]:
    """What a fleet, a sampled round, an ldp round or colluders assume, in words (the certificate's assumptions
    list)."""
    from .claims import LDP_LOWER, LDP_MODEL

    out = []
    ldp = [r for r in dep.rounds if getattr(r, "ldp", False)]
    if any(not r.same_randomizer for r in ldp):
        out.append("ldp rounds: " + LDP_MODEL + " " + LDP_LOWER)
    if any(r.same_randomizer for r in ldp):
        out.append("ldp rounds with same_randomizer = true: " + same_randomizer.ASSUMPTION + " " + LDP_LOWER)
    kinds = sorted({r.kind for r in dep.rounds if isinstance(r, ContinuousRound)})
    if kinds:
        out.append(
            "Laplace / Gaussian rounds: the dominating pair of such a round is the hull of certified upper values of "
            "the blanket view delta_BV(epsilon) of Lemma 5.3 (docs/composition.md section 5d); "
            + "; ".join(continuous_certificate.worst_pair(k).split("; the lower ends")[0] for k in kinds)
            + "; the lower ends do not depend on it."
        )
    qs = sorted({r.sampling for r in dep.rounds if r.sampling is not None})
    if qs:
        out.append(
            "Sampled participation: in a round with sampling q each user takes part independently with probability "
            f"q (here q = {', '.join(_s(q) for q in qs)}), independently of the data and of other rounds; the "
            "shuffler releases the multiset of the reports that arrive, so their number is seen."
        )
    fr = [r for r in dep.rounds if r.groups]
    if fr:
        r = fr[0]
        if len(r.groups) > 1:
            gs = "; ".join(f"{n} users at epsilon0 = {_s(m.epsilon0_exact)}" for n, m in r.groups)
            out.append(
                "Mixed fleet: every round is one shuffle of all groups' reports (k-RR on one alphabet); each group's "
                f"users run its randomizer with fresh randomness ({gs}). The pair of a fleet round is the blanket view "
                "of the honest users all at the largest epsilon0 (docs/reference/fleets.md Lemma F5): it does not use "
                "the extra noise of the groups with smaller epsilon0. The lower end runs every round on one concrete "
                "pair of datasets (Lemma F6: the target at the largest epsilon0, the others holding another value)."
            )
        total = sum(g.n for g in dep.groups) if dep.groups else r.n
        out.append(
            f"Colluding users: {total - r.n + r.colluding} users may reveal their values and randomness to the "
            f"adversary in each round (any choice, possibly different per round); the claims rest on the "
            f"{r.n - r.colluding} honest users, and the target is honest."
        )
    return out


def certify_composition(
    dep: Deployment,
    *,
    max_prec: int | None = None,
    command: str | None = None,
    progress: Progress | None = None,
    plot: bool = True,
    curves: bool | str = "auto",
    workers: int | None = None,
    pdf: bool = False,
) -> dict:
    """The certificate (plain data) of a deployment with ``[[rounds]]``; ``plot``: with its picture
    (:func:`blanket.reports.curve.composition_picture`: δ(ε) of the composition, ε against the number of rounds);
    ``curves``: the accountant's (:class:`ShuffleAccountant`); ``workers``: the local processes of its curve sweeps
    (``None``: every core); ``pdf``: a PDF will be made of it (counted in the estimate).  The cost is estimated first
    (:func:`announce_cost`, on those workers, with the picture and the PDF)."""

    t0 = time.time()
    acc = _accountant(dep, curves=curves, workers=workers)
    announce_cost(acc, picture=plot, pdf=pdf)
    claims = []
    for c in dep.claims:
        claims.append(decide_claim(dep, c, acc))
        if progress:
            progress.update()
    targets = []
    for t in dep.targets:
        targets.append(certify_target(dep, t, acc))
        if progress:
            progress.update()
    verdicts = [c["verdict"] for c in claims] + [t["verdict"] for t in targets]
    verdict = FAILS if FAILS in verdicts else INCONCLUSIVE if INCONCLUSIVE in verdicts else HOLDS
    total = sum(r.count for r in dep.rounds)
    rounds = [_round_entry(r) for r in dep.rounds]
    continuous = any(isinstance(r, ContinuousRound) for r in dep.rounds)
    mech = "; ".join(_round_text(r) for r in rounds)
    pair_routes = {c.get("pair_route") for c in claims} | {t.get("pair_route") for t in targets}
    used_pairs = pairs_used(acc, pair_routes)
    chain = []
    blanket_uses = [u for u in used_pairs if u[0] == "blanket"]
    if blanket_uses:  # the k-RR blanket view as a pair: k-RR rounds, and ldp rounds through Lemma G1 (binary RR)
        chain.append(result_entry(comp.BLANKET_PAIR) | {"used_for": "; ".join(sorted({u[1] for u in blanket_uses}))})
    chain += [result_entry(r) for r in (comp.THEOREM_10, comp.PLD_FORMULA, comp.PESSIMISTIC, comp.RDP_CONVERSION)]
    view_uses = [u for u in used_pairs if u[0] == "sampled-view"]
    if view_uses:  # a sampled k-RR round's dominating pair (a fleet's through Lemma F3 / F5; §5f), where it is composed
        chain.append(result_entry(comp.SAMPLED_PAIR) | {"used_for": "; ".join(sorted({u[1] for u in view_uses}))})
    clone_uses = [u for u in used_pairs if u[0] == "clone"]
    if clone_uses:  # FMT21's reduction: any ε0-LDP randomizer's round (a sampled one through R_q) is dominated by it
        chain.append(result_entry(comp.CLONE_PAIR) | {"used_for": "; ".join(sorted({u[1] for u in clone_uses}))})
    g1_sampled = [u for u in used_pairs if u[0] == "g1-sampled"]
    sampled_what = {u[1] for u in g1_sampled}
    ldp_rounds = [r for r in dep.rounds if getattr(r, "ldp", False)]
    keys = {
        "Lemma G1 [same randomizer]" if r.same_randomizer else "Lemma G1 [adaptive]"
        for r in ldp_rounds
        if r.sampling is None or r.sampling == 1 or r.event().describe() not in sampled_what
    }
    for key in sorted(keys):  # an ldp round's pair: Lemma G1's (FMT21's model, or one randomizer; docs/mechanisms.md)
        found = core.lookup(key)
        if found is not None:
            chain.append(result_entry(found))
    if g1_sampled:  # an ldp / one-randomizer round with participation q: binary RR's sampled view (docs/mechanisms.md)
        found = core.lookup(same_randomizer.SAMPLED_KEY)
        if found is not None:
            chain.append(result_entry(found) | {"used_for": "; ".join(sorted(sampled_what))})
    used = acc.statements_used()
    curve_uses = [u for u in used_pairs if u[0] == "curve"]
    if curve_uses:  # a worst-case curve pair (the hull of certified curve values) is composed and decided
        chain.append(result_entry(comp.CURVE_PAIR) | {"used_for": "; ".join(sorted({u[1] for u in curve_uses}))})
    for kind, entry in (
        ("sampled-matrix", comp.SAMPLED_MATRIX),
        ("sampled-oracle", comp.SAMPLED_ORACLE),
        ("sampled-geometric", comp.SAMPLED_GEOMETRIC),
        ("sampled-binary", comp.SAMPLED_BINARY),
    ):
        rq_uses = [u for u in used_pairs if u[0] == kind]
        if rq_uses:  # a sampled matrix / oracle round's curve pair is R_q's (docs/composition.md §5f)
            chain.append(result_entry(entry) | {"used_for": "; ".join(sorted({u[1] for u in rq_uses}))})
    if any(  # their lower pair (§5e); a sampled exact geometric round's too (its matrix's binarized count, §5f)
        isinstance(r, RecordRound)
        and (r.kind == "matrix" or (r.kind == "geometric" and r.sampling is not None and r.sampling != 1))
        for r in dep.rounds
    ):
        chain.append(result_entry(comp.MATRIX_BINARIZED))
    geo = [r for r in dep.rounds if isinstance(r, RecordRound) and r.kind == "geometric"]
    if any(dict(r.params).get("m") != 2 for r in geo):  # their threshold-count lower pair (§5e; docs/mechanisms.md)
        chain.append(result_entry(comp.GEOMETRIC_COUNT))
        # and, up to its size limits, the datasets' whole curve (geometric_lower.curve_lower_pair; §5e)
        chain.append(result_entry(comp.DATASET_CURVE))
        # one round's lower end may be the datasets' full view (exact.shuffled.geometric_dataset; docs/mechanisms.md)
        chain.append(result_entry(comp.GEOMETRIC_FULL))
    if any(dict(r.params).get("m") == 2 for r in geo) or any(  # m = 2: composed as binary RR (docs/mechanisms.md)
        getattr(r, "geometric", False) for r in dep.rounds
    ):
        chain.append(result_entry(comp.GEOMETRIC_BINARY))
    if used["split"]:  # a finite pair (curve pair, sampled or continuous round) is composed with split atoms
        chain.append(result_entry(comp.SPLIT_ATOMS))
    if used["summed"]:  # binary RR rounds: the summed-count lower pair is among the lower ends
        chain.append(result_entry(comp.SUMMED_PAIR))
    if used["banded"]:  # k-RR (k >= 3), the oracles, ldp: a banded third-value lower pair is among the lower ends
        chain.append(result_entry(comp.BANDED_PAIR))
    if used.get("sampled_third"):  # a sampled round (k-RR k >= 3, ldp, oracles): its third-value pair (§5f, Lemma S5)
        chain.append(result_entry(comp.SAMPLED_THIRD))
    if used.get("stratum"):  # the oracles (up to STRATUM_MAX_N users): the two-stratum count is among the lower ends
        chain.append(result_entry(comp.STRATUM_PAIR))
    if any(_one_round_lower_used(rec) for rec in claims + targets):  # a reported lower end is one round's alone
        chain.append(result_entry(comp.ONE_ROUND_LOWER))
    if any(r.groups for r in dep.rounds):
        chain += [result_entry(pf.FLEET_ROUND), result_entry(pf.COLLUDING)]
        if any(len(r.groups) > 1 for r in dep.rounds if r.groups):
            chain.append(result_entry(pf.FLEET_ROUND_LOWER))
    one_keys = sorted(
        {
            k
            for rec in claims + targets
            if (rec.get("one_round") or {}).get("upper_decided_by") == ONE_ROUND_NAME
            for k in rec["one_round"].get("upper_results", [])
        }
    )
    for key in one_keys:  # a single record round's own upper end decided: the results its route rests on
        found = core.lookup(key)
        if found is not None and all(e["key"] != found.key for e in chain):
            chain.append(result_entry(found) | {"used_for": "the single round's own certified upper end"})
    decided = sorted({c["route"] for c in claims} | {t["route"] for t in targets})
    cert = {
        "format": "blanket-certificate/1",
        "verdict": verdict,
        "deployment": dep.as_dict(),
        "mechanism_text": f"{total} composed shuffled round{'' if total == 1 else 's'}: {mech}",
        "n_text": _n_text(dep),
        "claims": claims,
        "targets": targets,
        "composition": {
            "rounds": rounds,
            "total_rounds": total,
            "route": ROUTE,
            "decided_by": ", ".join(decided) if decided else "none",
            "renyi": result_entry(comp.RDP_CONVERSION),
            "theorem": result_entry(comp.THEOREM_10),
            "discretisation": result_entry(comp.PESSIMISTIC),
            # the statement "a dominating pair bounds the round" as the rounds use it: the k-RR blanket view's where a
            # round rests on it, else the curve pair's (each round's own pair is named in its row of the table)
            "pair": result_entry(comp.CURVE_PAIR if curve_uses and not blanket_uses else comp.BLANKET_PAIR),
            "grids": sorted({c["grid"] for c in claims} | {t["grid"] for t in targets}),
            "lower_bound": "the rounds run on one concrete pair of datasets (all other users hold a value other "
            "than the target's; binary RR: c = 0), counting the target's value, optimistic discretisation"
            + (
                "; a Laplace / Gaussian round: the datasets 0^n vs 1 0^(n-1) through a pair their exact privacy "
                "curve dominates (the ROC hull of certified tests of their lattice law)"
                if continuous
                else ""
            ),
        },
        "sources": [
            {
                "key": "exact.accounting.pld",
                "role": "upper and lower",
                "title": ROUTE,
                "module": "blanket.exact.accounting.pld",
            }
        ],
        "chain": chain,
        "assumptions": _base_assumptions(dep)
        + [
            "Rounds: each round is an independent run of its randomizer with fresh randomness; the analyst may choose "
            "later rounds adaptively; the claims are about all rounds together."
        ]
        + _extra_assumptions(dep),
        "monotonicity": None,
        "reproducibility": reproducibility(
            dep,
            command or f"blanket certify {dep.source}",
            dep.precision,
            max_prec if max_prec is not None else dep.precision_cap,
            dep.precision,
        ),
    }
    # this run's wall clock: kept out of the certified content (the .tex and the rest of the JSON are
    # byte-reproducible), in a block of its own that only the JSON carries
    cert["run"] = {"seconds": round(time.time() - t0, 1)}
    cert["statement"] = statement(cert)
    if verdict == INCONCLUSIVE:  # what limits the answer, for the command's hint (not part of the JSON file)
        cert["_inconclusive_hint"] = composition_hint(dep, claims, targets, curves)
    if plot:
        curve.attach(cert, curve.composition_picture(cert, acc))
    return cert


def composition_hint(dep: Deployment, claims: list, targets: list, curves: bool | str = "auto") -> str:
    """The INCONCLUSIVE hint of a composed certificate: what this run tried (each undecided claim's bracket, the PLD
    grids :func:`decide_claim` tried, the pairs), that a composed bracket does not use the precision cap (the
    accountant works at the file's ``precision``; ``--precision`` does not change it), and what may narrow it: a finer grid
    (``blanket delta --deployment FILE --epsilon E --refine-seconds S``: the accountant's ``refine_seconds``) where
    the grid limits it, the curve pairs at any cost (``--curves on``) where they were not used.  O(claims)."""
    open_ = [c for c in claims if c["verdict"] == INCONCLUSIVE]
    parts = []
    for c in open_:
        grids = c["reason"].rsplit("on grids ", 1)[-1] if "on grids " in c["reason"] else c["grid"]
        parts.append(
            f"claim ({c['epsilon']}, {c['delta']}) in [{c['delta_lower']}, {c['delta_upper']}] after PLD grids "
            f"{grids} ({c['pair_route']})"
        )
    parts += [f"target delta {t['delta']}: {t['reason']}" for t in targets if t["verdict"] == INCONCLUSIVE]
    eps = open_[0]["epsilon"] if open_ else "E"
    curve_used = any(c.get("pair_route") == "curve pairs" for c in open_)
    on = curves is True or curves == "on"
    head = (
        "this composed run stopped with "
        + "; ".join(parts)
        + f"; a composed bracket does not use the precision cap (it ran at {dep.precision} bits; --precision does "
        "not change it): its ends are the rounds' dominating pairs (upper) and one concrete pair of datasets (lower) on "
        "a PLD grid"
    )
    far = [(c, _quarterings(c)) for c in open_]
    if open_ and all(k is not None and k > REFINE_QUARTERINGS for _c, k in far):
        trend = "; ".join(
            f"claim ({c['epsilon']}, {c['delta']}): upper end "
            + " -> ".join(c["delta_upper_by_grid"])
            + (
                " (not halved: the pairs' windowing/tail tolerances, not the grid, set it)"
                if k == math.inf
                else f" (at that rate about {k} more quarterings of the grid, a grid 4^{k} times finer)"
            )
            for c, k in far
        )
        return (
            head + f"; {trend}: a finer grid (--refine-seconds, each quartering at least 4 times the time) will not "
            "reach a delta that small in practice; a claim delta near or above the upper end can be decided"
            + ("" if on or curve_used else "; the tight curve pairs may lower it: --curves on")
        )
    return (
        head + f"; a finer grid, where the grid limits it: `blanket delta --deployment {dep.source} --epsilon "
        f"{eps} --refine-seconds 600`"
        + ("" if on or curve_used else "; the tight curve pairs at any cost: --curves on")
    )


#: more quarterings of the PLD grid than this (a grid 4^8 = 65536 times finer) are out of reach of --refine-seconds
REFINE_QUARTERINGS = 8


def _quarterings(claim: dict) -> float | None:
    """How many more quarterings of the PLD grid an undecided claim's upper end needs to reach its δ, extrapolating
    the geometric rate it fell at over the grids tried (``delta_upper_by_grid``, each a quarter of the last): floats,
    only to choose the hint.  ``math.inf`` when it did not halve over them (a tolerance, not the grid, limits it),
    ``None`` when unknown.  O(grids)."""
    ups = claim.get("delta_upper_by_grid") or []
    try:
        vals = [float(Fraction(u)) for u in ups]
        target = float(Fraction(claim["delta"]))
    except (ValueError, ZeroDivisionError, KeyError, OverflowError):
        return None
    if len(vals) < 2 or vals[-1] <= 0 or target <= 0 or vals[0] <= 0:
        return None
    if 2 * vals[-1] > vals[0]:
        return math.inf
    rate = (vals[0] / vals[-1]) ** (1 / (len(vals) - 1))  # the factor per quartering
    return max(0, math.ceil(math.log(vals[-1] / target) / math.log(rate)))
