"""Certificates for mixed fleets (``[[users]]`` groups) and colluding users (``colluding``).

The groups are split into *shuffles*: k-RR groups on one alphabet share the blanket and are certified together by
the Poisson-binomial blanket view (:mod:`blanket.exact.shuffled.fleet`, ``docs/reference/fleets.md`` Lemma F1);
a group of any other mechanism is its own shuffle (distinguishable reports; two such groups with a common output
space are refused) and is certified by the one-group certificate at its honest users.  Colluders: each group's
own ``colluding`` are removed, then the fleet-wide ``colluding`` are placed worst-case (Lemma F3: in the target's
shuffle, the largest blanket weights first).  A claim HOLDS when every shuffle's certified upper end is ``≤ δ``,
FAILS when one shuffle's concrete-dataset lower end is ``> δ``, else INCONCLUSIVE (after one refinement).
Cost per claim: one Poisson-binomial view per distinct ε0 of each k-RR shuffle (:func:`delta_fleet_view`).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from blanket.exact.mechanisms.finite import KRR
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.shuffled import fleet as F
from blanket.exact.shuffled import fleet_clones as FC
from blanket.exact.shuffled import fleet_lower as FL
from blanket.proofs import blanket as bb
from blanket.proofs import fleets as pf
from blanket.reports.latex import exact_string
from flint import arb, fmpq

from .deployment import Claim, Deployment
from .fleet import FleetGroup
from .verdict import ASSUMPTIONS, FAILS, HOLDS, INCONCLUSIVE, reproducibility, result_entry, statement

if TYPE_CHECKING:
    from blanket.exact.runtime.progress import Progress

DIGITS = 6
_EPS0_KEYS = ("epsilon0", "exp_epsilon0", "exp_half_epsilon0", "alpha")


@dataclasses.dataclass
class Shuffle:
    """One shuffle of the fleet: k-RR groups on one alphabet (``krr``), or one group of another mechanism."""

    groups: list[FleetGroup]
    krr: bool
    colluding: int  # the fleet-wide colluders, all placed in this shuffle (worst case)

    @property
    def honest(self) -> int:
        return sum(g.honest for g in self.groups) - self.colluding

    def fleet(self) -> list[tuple[int, KRR]]:
        out = []
        for g in self.groups:
            if g.honest > 0:
                mech = g.build_mechanism()
                assert isinstance(mech, KRR)
                out.append((g.honest, mech))
        return out

    def label(self) -> str:
        return ", ".join(g.field for g in self.groups)


def groups_of(dep: Deployment) -> list[FleetGroup]:
    """The deployment's groups (one group for a single ``[users]``)."""
    if dep.groups:
        return list(dep.groups)
    return [FleetGroup(dep.mechanism, dict(dep.params), dep.n, dep.n_is_lower_bound, 0, "users")]


def shuffles(dep: Deployment) -> list[Shuffle]:
    """Split the groups into shuffles (module docstring); refuses two non-k-RR groups with one output space."""
    krr: dict[int, list[FleetGroup]] = {}
    other: dict[str, FleetGroup] = {}
    for g in groups_of(dep):
        if g.kind in ("krr", "binary_rr"):
            krr.setdefault(int(g.params.get("k", 2)), []).append(g)
            continue
        space = repr((g.kind, sorted((k, str(v)) for k, v in g.params.items() if k not in _EPS0_KEYS)))
        if space in other:
            raise InvalidArgument(
                g.field,
                g.kind,
                f"shares its output space with {other[space].field}: only k-RR groups on one alphabet can be "
                "certified together yet",
                hint="give such groups different mechanisms, or use krr",
            )
        other[space] = g
    out = [Shuffle(gs, True, 0) for _, gs in sorted(krr.items())] + [Shuffle([g], False, 0) for g in other.values()]
    for s in out:
        if sum(g.honest for g in s.groups) < 1:
            continue
        s.colluding = min(dep.colluding, sum(g.honest for g in s.groups) - 1)
    return [s for s in out if sum(g.honest for g in s.groups) >= 1]


def _eps0_text(params: dict) -> str:
    """The group's local level as given (exact)."""
    for key, text in (("epsilon0", "{}"), ("exp_epsilon0", "log({})"), ("exp_half_epsilon0", "2 log({})")):
        if key in params:
            return text.format(exact_string(params[key]))
    return ""


def _dec(x: Any, up: bool) -> str:
    return arith.decimal_string(x, DIGITS, up=up)


def _krr_bounds(s: Shuffle, eps: fmpq, rel: fmpq, clone: bool = False) -> tuple[Any, Any, str]:
    """(enclosure whose upper end is certified, certified lower end, which upper candidate decided) of δ(ε) of a
    k-RR shuffle.  ``clone``: also the clone pair (Lemma F7) for ``k ≥ 3``, the smaller upper end kept
    (:func:`blanket.exact.shuffled.fleet_clones.delta_fleet_upper`); for ``k = 2`` the two are one bound."""
    fleet = s.fleet()
    if clone and fleet[0][1].k > 2:
        up, name = FC.delta_fleet_upper(fleet, s.colluding, epsilon=eps, rel=rel, max_evals=400)
    else:
        up = F.delta_fleet_colluding(fleet, s.colluding, epsilon=eps, rel=rel, max_evals=400)
        name = FC.VIEW if fleet[0][1].k > 2 else "both"
    return up, _krr_lower(s, eps), name


def _krr_lower(s: Shuffle, eps: fmpq) -> Any:
    """Certified lower end of δ(ε) of a k-RR shuffle: the exact δ of concrete datasets (the target at the largest
    ε0; for k ≥ 3 also both counts, Lemma F8).  Cost: that of the datasets' δ (O(√n) ball evaluations)."""
    fleet = s.fleet()
    # one target: the group with the largest ε0 (any target's concrete datasets give a valid lower end)
    star = max(range(len(fleet)), key=lambda i: float(arith.ball(fleet[i][1].exp_epsilon0()).mid()))
    honest, _ = F.honest_fleet(fleet, star, s.colluding)
    lower = F.delta_fleet_dataset(honest, epsilon=eps)
    if fleet[0][1].k > 2:  # both counts (Lemma F8): for k ≥ 3 the one-count pair misses most of the divergence
        lower = arith.maximum([lower, FL.delta_fleet_two_counts(fleet, s.colluding, epsilon=eps)])
    return lower


_DECIDED = {
    FC.VIEW: "Poisson-binomial blanket view (BBGN19 Lemma 5.3 [fleet])",
    FC.CLONE: "clone pair with per-user clone probabilities (FMT21 clone pair [fleet])",
    "both": "Poisson-binomial blanket view = clone pair (BBGN19 Lemma 5.3 [fleet], FMT21 clone pair [fleet])",
}


def _decide(s: Shuffle, claim: Claim, dep: Deployment, certify_one: Callable[..., dict]) -> dict:
    eps, delta = claim.epsilon, claim.delta
    v: str | None = None
    why = ""
    if not s.krr:
        g = s.groups[0]
        sub = dataclasses.replace(
            dep,
            mechanism=g.kind,
            params=dict(g.params),
            n=max(g.honest - s.colluding, 2),
            n_is_lower_bound=g.n_is_lower_bound,
            groups=(),
            colluding=0,
            claims=(claim,),
            targets=(),
        )
        if g.honest - s.colluding < 2:
            raise InvalidArgument(g.field, g.honest - s.colluding, "leaves fewer than 2 honest users in its shuffle")
        c = certify_one(sub, plot=False)["claims"][0]
        return {
            "verdict": c["verdict"],
            "upper": c.get("delta_upper"),
            "lower": c.get("delta_lower"),
            "reason": c["reason"],
            "route": "one-group certificate of this mechanism",
        }
    for rel in (fmpq(1, 100), fmpq(1, 10000)):
        view, lo, decided = _krr_bounds(s, eps, rel, clone=True)
        up = arb(arith.ball(view).upper()) if isinstance(view, arb) else view
        if arith.le(up, delta) is True:
            v = HOLDS
            why = f"delta({exact_string(eps)}) <= {_dec(up, True)} <= {exact_string(delta)}"
            break
        if arith.gt(lo, delta) is True:
            v = FAILS
            why = f"on one concrete pair of datasets delta({exact_string(eps)}) >= {_dec(lo, False)} > {exact_string(delta)}"
            break
        if not (isinstance(view, arb) and arith.le(arb(view.lower()), delta) is True):
            break  # delta is below the view's own bracket: a narrower bracket cannot decide
    if v is None:
        v = INCONCLUSIVE
        why = f"delta({exact_string(eps)}) lies in [{_dec(lo, False)}, {_dec(up, True)}], which contains {exact_string(delta)}"
    return {
        "verdict": v,
        "upper": _dec(up, True),
        "lower": _dec(lo, False),
        "reason": why,
        "route": f"{_DECIDED[decided]} / concrete datasets",
        "upper_decided_by": decided,
    }


def _epsilon_for(s: Shuffle, delta: fmpq) -> tuple[fmpq, fmpq]:
    """Smallest ε on a dyadic bisection of [0, max ε0] whose certified δ upper end is ``≤ delta`` (a certified ε),
    and the largest ε on a second dyadic bisection of [0, that ε] whose certified lower end is ``> delta`` (ε below
    it fails).  Before session 15 the lower end was the largest failing midpoint of the first bisection, which
    follows the upper end: 0.125 where the concrete datasets give 0.1269 (binary RR ε0 = 1, 990 honest users,
    δ = 10⁻⁶).  O(24) evaluations of each end."""
    fleet = s.fleet()
    hi = max(arith.exact(m.epsilon0_exact) if m.epsilon0_exact is not None else fmpq(1000) for _, m in fleet)
    lo_ok, hi_ok = fmpq(0), hi
    lower = fmpq(0)
    for _ in range(24):
        mid = (lo_ok + hi_ok) / 2
        view, lo, _ = _krr_bounds(s, mid, fmpq(1, 20))
        if arith.le(arb(arith.ball(view).upper()), delta) is True:
            hi_ok = mid
        else:
            lo_ok = mid
            if arith.gt(lo, delta) is True:
                lower = max(lower, mid)
    a, b = lower, hi_ok  # lo(a) > delta is certified (or a = 0); refine the failing end below the upper end
    for _ in range(24):
        mid = (a + b) / 2
        if arith.gt(_krr_lower(s, mid), delta) is True:
            a = mid
        else:
            b = mid
    return hi_ok, max(lower, a)


def certify_fleet(
    dep: Deployment,
    *,
    certify_one: Callable[..., dict],
    max_prec: int | None = None,
    command: str | None = None,
    progress: Progress | None = None,
    plot: bool = True,
) -> dict:
    """The certificate (plain data) of a deployment with ``[[users]]`` groups or colluding users; ``plot``: with its
    picture when every shuffle is k-RR (:func:`fleet_picture`: δ(ε) upper and lower ends, the claims).

    ``certify_one`` is the one-group certificate (:func:`blanket.reports.certificate.certify`), used for a shuffle
    of one group of a mechanism other than k-RR (passed in: the one-group module calls this one).
    """
    t0 = time.time()
    sh = shuffles(dep)
    claims = []
    for c in dep.claims:
        per = [_decide(s, c, dep, certify_one) for s in sh]
        vs = [p["verdict"] for p in per]
        v = FAILS if FAILS in vs else HOLDS if all(x == HOLDS for x in vs) else INCONCLUSIVE
        reason = "; ".join(f"shuffle {i + 1} ({s.label()}): {p['reason']}" for i, (s, p) in enumerate(zip(sh, per)))
        claims.append(
            {
                "epsilon": exact_string(c.epsilon),
                "delta": exact_string(c.delta),
                "verdict": v,
                "reason": reason,
                "shuffles": per,
                "bounds": [],
            }
        )
        if progress:
            progress.update()
    targets = []
    for t in dep.targets:
        ups: list[fmpq] = []
        los: list[fmpq] = []
        for s in sh:
            if not s.krr:
                raise InvalidArgument(
                    t.field,
                    exact_string(t.delta),
                    "is supported only when every shuffle is k-ary randomized response (with [[users]] groups or "
                    f"colluding users; shuffle {sh.index(s) + 1} ({s.label()}) is {s.groups[0].kind})",
                    hint="drop the target delta and state [[claims]] (epsilon, delta) instead",
                )
            u, lo = _epsilon_for(s, t.delta)
            ups.append(u)
            los.append(lo)
        e_up, e_lo = max(ups), max(los)
        # which bound decided each end (the bisections' δ routes: _krr_bounds without the clone pair, _krr_lower)
        ups_from = sorted({_DECIDED[FC.VIEW if s.fleet()[0][1].k > 2 else "both"] for s in sh})
        targets.append(
            {
                "delta": exact_string(t.delta),
                "kind": "fleet",
                "verdict": HOLDS,
                "epsilon_upper": _dec(e_up, True),
                "epsilon_lower": _dec(e_lo, False) if e_lo > 0 else None,
                "reason": "dyadic bisections on the certified upper end and on the certified lower end",
                "upper_source": "; ".join(ups_from) + " (honest users), dyadic bisection",
                "lower_source": (
                    "the exact delta of concrete datasets (the target at the largest epsilon0, every other honest "
                    "user holding another value; for k >= 3 also both counts, Lemma F8), dyadic bisection"
                    if e_lo > 0
                    else None
                ),
            }
        )
        if progress:
            progress.update()
    verdicts = [c["verdict"] for c in claims] + [t["verdict"] for t in targets]
    verdict = FAILS if FAILS in verdicts else INCONCLUSIVE if INCONCLUSIVE in verdicts else HOLDS
    honest_total = sum(s.honest for s in sh)
    n_total = sum(g.n for g in groups_of(dep))
    rows = []
    for i, s in enumerate(sh):
        for g in s.groups:
            mech = g.build_mechanism()
            rows.append(
                {
                    "shuffle": i + 1,
                    "field": g.field,
                    "mechanism": getattr(mech, "name", g.kind),
                    "epsilon0": _eps0_text(g.params),
                    "n": g.n,
                    "n_min": g.n_is_lower_bound,
                    "colluding": g.colluding,
                    "honest": g.honest,
                }
            )
    shuffle_rows = [
        {
            "index": i + 1,
            "groups": s.label(),
            "krr": s.krr,
            "colluding": s.colluding,
            "honest": s.honest,
            "route": "Poisson-binomial blanket view (shared blanket)" if s.krr else "its own shuffle",
        }
        for i, s in enumerate(sh)
    ]
    chain = [result_entry(r) for r in (pf.FLEET_VIEW, pf.H_MONOTONE, pf.ONE_LAW, pf.COLLUDING, bb.LEMMA_A_3)]
    decided_by = {p.get("upper_decided_by") for c in claims for p in c["shuffles"] if isinstance(p, dict)}
    if decided_by & {FC.CLONE, "both"}:
        chain.append(result_entry(pf.FLEET_CLONE))
    if any(s.krr and s.fleet() and s.fleet()[0][1].k > 2 for s in sh):
        chain.append(result_entry(pf.FLEET_TWO_COUNTS))
    kinds = [
        f"{r['n']} x {r['mechanism']}" + (f" at epsilon0 = {r['epsilon0']}" if r["epsilon0"] else "") for r in rows
    ]
    cert = {
        "format": "blanket-certificate/1",
        "verdict": verdict,
        "deployment": dep.as_dict(),
        "mechanism_text": f"mixed fleet of {len(rows)} group(s) in {len(sh)} shuffle(s): {', '.join(kinds)}",
        "n_text": f"n = {n_total} users, the certificate rests on {honest_total} honest users "
        f"({n_total - honest_total} colluding, chosen worst-case)",
        "claims": claims,
        "targets": targets,
        "fleet": {
            "groups": rows,
            "shuffles": shuffle_rows,
            "honest_users": honest_total,
            "colluding": n_total - honest_total,
            "lower_bound": "every user holds the same value, the target changes it; the count of the changed "
            "value (exact for binary RR), both directions, maximum over target groups; for k >= 3 also: every other "
            "honest user holds a third value and the adversary keeps the counts of both of the target's values "
            "(Lemma F8)",
        },
        "chain": chain,
        "sources": [
            {
                "key": "exact.shuffled.fleet",
                "role": "upper and lower",
                "title": "Poisson-binomial blanket view and concrete datasets",
                "module": "blanket.exact.shuffled.fleet",
            }
        ],
        "assumptions": [a for a in ASSUMPTIONS if not a.startswith("One randomizer for all")]
        + [
            "Groups: each group's users apply the group's randomizer with fresh independent randomness; groups "
            "with different output spaces are distinguishable (each is its own shuffle).",
            f"Colluding users: {n_total - honest_total} users may reveal their values and randomness to the "
            f"adversary (placed worst-case); the claims rest on the {honest_total} honest users, and the target is "
            "honest.",
        ],
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
        cert["_inconclusive_hint"] = fleet_hint(claims)
    if plot and all(x.krr for x in sh):
        from . import curve

        curve.attach(cert, fleet_picture(cert, sh))
    return cert


def fleet_hint(claims: list) -> str:
    """The INCONCLUSIVE hint of a fleet certificate: each undecided shuffle's bracket and route, and that the
    fleet routes do not use the precision cap (``--precision`` does not change them): a k-RR shuffle's bracket is
    its blanket view (or clone pair) at relative tolerance 1/100, then 1/10000, against concrete datasets, so what
    remains is the gap between those bounds; a one-group shuffle of another mechanism is that group's own
    certificate (``blanket certify`` of a file holding that group alone says what limits it).  O(claims ×
    shuffles)."""
    parts = []
    for c in claims:
        if c["verdict"] != INCONCLUSIVE:
            continue
        for i, p in enumerate(c.get("shuffles", ())):
            if isinstance(p, dict) and p.get("verdict") == INCONCLUSIVE:
                parts.append(
                    f"claim ({c['epsilon']}, {c['delta']}), shuffle {i + 1}: [{p.get('lower')}, {p.get('upper')}] "
                    f"({p.get('route')})"
                )
    return (
        "this fleet run stopped with "
        + ("; ".join(parts) or "an undecided claim")
        + "; the fleet routes do not use the precision cap (--precision does not change them): a k-RR shuffle's "
        "upper end was tightened to a relative 1/10000 already, so the rest is the gap between its blanket view "
        "and the concrete datasets; a shuffle of another mechanism: certify a file with that group alone for its "
        "own hint"
    )


#: grid intervals of the fleet picture (each point: one Poisson-binomial view and one concrete pair per shuffle)
PICTURE_POINTS = 8


def fleet_picture(cert: dict, sh: list[Shuffle], points: int = PICTURE_POINTS) -> Any:
    """The picture of a one-round fleet certificate (k-RR shuffles): on a grid of ε the largest certified upper end
    of δ(ε) over the shuffles (the Poisson-binomial blanket view at relative width 1/20, worst-case colluders) and
    the largest certified lower end (a concrete pair of datasets), with the claims and targets as markers.  O(points
    × shuffles) evaluations of :func:`_krr_bounds` (each one view of a few ``h`` values and one count law)."""
    from . import curve
    from .figures.privacy_curve import Line, Picture

    markers, focus = curve.claim_markers(cert)
    e0 = max(
        (arith.exact(m.epsilon0_exact) if m.epsilon0_exact is not None else fmpq(8)) for s in sh for _, m in s.fleet()
    )
    eps = curve.grid(curve.eps_max(focus, e0), focus, points)
    xs = [curve.to_float(e) for e in eps]
    up: list[float | None] = []
    lo: list[float | None] = []
    for e in eps:
        us: list[Fraction] = []
        ls: list[Fraction] = []
        for s in sh:
            view, low, _ = _krr_bounds(s, e, fmpq(1, 20))
            us.append(arith.endpoints(arith.ball(view))[1])
            ls.append(max(arith.endpoints(arith.ball(low))[0], Fraction(0)))
        u: Fraction = min(max(us), Fraction(1))
        lw: Fraction = max(ls)
        up.append(float(u))
        lo.append(float(lw) if lw > 0 else None)
    upper = Line("certified upper end: Poisson-binomial blanket view (Lemma F1), worst-case colluders", xs, up, "upper")
    lower = Line("certified lower end: a concrete pair of datasets (the count of the changed value)", xs, lo, "lower")
    title = f"{cert['deployment']['name']}: the privacy curve ({cert['mechanism_text']})"
    return Picture(title=title, upper=upper, lower=lower, markers=markers)
