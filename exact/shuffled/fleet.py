"""Mixed fleets of k-ary randomized response in one shuffle: the Poisson-binomial blanket view.

A *fleet* is a list of groups ``(n_g, R_g)``: ``n_g`` users run the k-RR ``R_g`` with their own
``ε0,g`` on one common alphabet ``[k]`` (binary RR is ``k = 2``).  Every k-RR has the same blanket,
the uniform law ``ω`` on ``[k]``, with its own weight ``γ_g = k/(e^{ε0,g}+k−1)``
(``docs/reference/fleets.md`` §1).  For a target in group ``t`` the other users draw from the
blanket independently, user ``j`` with probability ``γ_j``, so the number ``B`` of blanket draws
is Poisson-binomial, and (Lemma F1, the generalisation of Balle et al. Lemma 5.3, derived)

    δ(ε) ≤ V_t(ε) = E_B[ h_t(B + 1) ],   h_t(m) = (1/m)·E[(Σ_{i≤m} L_i)_+],

``L_i`` i.i.d. copies of ``L^ε_{x,x'}`` of the *target's* randomizer (``W ~ ω``).  With one group
``V_t`` is today's blanket view (``(1/(γn)) E[(Σ_{i≤M} L_i)_+]``, ``M ~ Bin(n, γ)``).  ``h_t`` is
non-increasing in ``m`` (Lemma F2), which gives the block bracket used here for large fleets:

    Σ_j P(B ∈ [b_j, e_j])·h_t(e_j + 1)  ≤  V_t  ≤  Σ_j P(B ∈ [b_j, e_j])·h_t(b_j + 1) + Λ·h_t(1),

``Λ`` the certified mass of ``B`` left out of its window.  The law of ``B`` is the product of one
windowed binomial per group (``exact.laws.binomial.window``), multiplied as ``arb`` polynomials;
``h_t`` is :func:`blanket.exact.shuffled.krr.expected_positive_part` (exact up to its windowing:
the bulk count of ``L`` is degenerate).  Blocks are split where the bracket is widest until its
relative width is below ``rel`` (or ``max_evals`` values of ``h_t`` were used).  With exact inputs
and ``n ≤ exact_max_n`` the sum over ``B`` is exact (``fmpq``).

The worst target is the maximum over groups (:func:`delta_fleet_view`).  The lower end of the
certificate's bracket is :func:`delta_fleet_dataset`, the exact δ (up to windowing, rounded down)
of a concrete pair of datasets of the fleet.  Colluding users are removed by
:func:`honest_fleet` (Lemma F3: worst case over the choice of colluders).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from blanket.exact.laws import binomial as laws
from blanket.exact.mechanisms.finite import KRR
from blanket.exact.numbers import arith, guards
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.numbers.types import DeltaOptions, Enclosure, IntegerInput
from blanket.exact.shuffled.krr import engine_options, expected_positive_part
from flint import arb, arb_poly, fmpq, fmpq_poly

if TYPE_CHECKING:
    from typing_extensions import Unpack

#: default target relative width of a target's block bracket
DEFAULT_REL = fmpq(1, 100)
#: default cap on the evaluations of ``h_t`` per target
DEFAULT_MAX_EVALS = 200
#: blocks of the first pass of the bracket
_FIRST_BLOCKS = 8


class Group(NamedTuple):
    """``n`` users running the k-RR ``mech``."""

    n: int
    mech: KRR


def check_fleet(groups: object, name: str = "groups") -> list[Group]:
    """The groups of a k-RR fleet, checked: a non-empty list of ``(n, KRR)`` with ``n ≥ 1`` and one alphabet ``k``.

    A group with ``n = 0`` is refused (remove it instead).  O(number of groups).

    >>> check_fleet([(3, KRR(2, epsilon0=1)), (2, KRR(3, epsilon0=1))])
    Traceback (most recent call last):
    ...
    blanket.exact.numbers.errors.InvalidArgument: groups[1].mech must be a k-RR on the same alphabet as groups[0] (k = 2): users of different output spaces are distinguishable and each is its own shuffle, got '3-RR'
    """
    if not isinstance(groups, (list, tuple)) or len(groups) == 0:
        raise InvalidArgument(name, groups, "must be a non-empty list of (n, KRR) groups")
    out: list[Group] = []
    for i, g in enumerate(groups):
        if not isinstance(g, (list, tuple)) or len(g) != 2:
            raise InvalidArgument(f"{name}[{i}]", g, "must be a pair (n, KRR)")
        n = arith.integer_in(g[0], f"{name}[{i}].n", lo=1)
        mech = g[1]
        guards.require_instance(mech, KRR, f"{name}[{i}].mech", "must be a k-ary randomized response (KRR)")
        if out and mech.k != out[0].mech.k:
            raise InvalidArgument(
                f"{name}[{i}].mech",
                mech.name,
                f"must be a k-RR on the same alphabet as {name}[0] (k = {out[0].mech.k}): users of different "
                "output spaces are distinguishable and each is its own shuffle",
            )
        out.append(Group(n, mech))
    return out


def _exact_mode(groups: list[Group], ee: Enclosure, exact_max_n: int) -> bool:
    return isinstance(ee, fmpq) and all(g.mech.is_exact for g in groups) and sum(g.n for g in groups) <= exact_max_n


def fleet_count_law(parts: Sequence[tuple[int, Enclosure]], exact_mode: bool, tol: fmpq) -> tuple[list, int, Enclosure]:
    """The law of ``Σ_g Bin(N_g, q_g)`` (independent): ``(pmf, offset, left-out mass)``.

    ``pmf[i]`` encloses a lower bound of ``P(Σ = offset + i)`` (the product of the groups' windows);
    every outcome left out has total mass ``≤`` the third value (union bound over the groups'
    certified window tails and the ends trimmed after each product, each end of upper mass ``≤ tol``).
    Exact (``fmpq``, full support, left-out 0) in ``exact_mode``.
    Cost: one window of ``O(σ_g √log(1/tol))`` per group and a balanced tree of ``arb`` polynomial products
    (``O(W log W)`` each, ``W`` the trimmed width), at twice the working precision.
    """
    offset = 0
    leftout: Enclosure = fmpq(0)
    if exact_mode:
        poly = fmpq_poly([1])
        for N, q in parts:
            if N == 0:
                continue
            qq = arith.exact(q, "q")  # exact_mode: every γ and flip probability is an exact rational
            poly = poly * fmpq_poly([1 - qq, qq]) ** N
        return [fmpq(c) for c in poly.coeffs()], 0, fmpq(0)
    with arith.precision(2 * arith.DEFAULT_PREC):
        polys: list[tuple[arb_poly, int]] = []
        for N, q in parts:
            if N == 0:
                continue
            if isinstance(q, fmpq) and q in (0, 1):
                offset += N if q == 1 else 0
                continue
            vals, off, tail = laws.window(N, q, tol)
            offset += off
            leftout = arith.ball(leftout) + tail
            polys.append((arb_poly(vals), 0))
        # a balanced product tree; after each product the ends whose total upper mass is ≤ tol are trimmed
        # (their mass joins the left-out mass): the windows' far tails multiply to masses far below tol,
        # and carrying them makes every later product wider and its exponent range larger
        while len(polys) > 1:
            nxt = []
            for i in range(0, len(polys) - 1, 2):
                (a, oa), (b, ob) = polys[i], polys[i + 1]
                prod, shift, dropped = _trim(a * b, tol)
                leftout = arith.ball(leftout) + dropped
                nxt.append((prod, oa + ob + shift))
            if len(polys) % 2:
                nxt.append(polys[-1])
            polys = nxt
        if polys:
            apoly, extra = polys[0]
            offset += extra
        else:
            apoly = arb_poly([1])
        coeffs = apoly.coeffs()
    return [+c for c in coeffs], offset, leftout


def _trim(poly: arb_poly, tol: fmpq) -> tuple[arb_poly, int, arb]:
    """``poly`` without its two ends of total upper mass ``≤ tol`` each: ``(trimmed, index shift, dropped mass)``.

    The dropped mass is the sum of the dropped coefficients' upper ends (an upper bound on their true mass).
    O(degree)."""
    cs = poly.coeffs()
    lo, hi = 0, len(cs)
    acc = arb(0)
    while lo < hi - 1:
        nxt = acc + arb(arith.ball(cs[lo]).upper())
        if nxt.upper() > tol:
            break
        acc, lo = nxt, lo + 1
    acc_hi = arb(0)
    while hi - 1 > lo:
        nxt = acc_hi + arb(arith.ball(cs[hi - 1]).upper())
        if nxt.upper() > tol:
            break
        acc_hi, hi = nxt, hi - 1
    if lo == 0 and hi == len(cs):
        return poly, 0, arb(0)
    return arb_poly(cs[lo:hi]), lo, acc + acc_hi


def _atoms(mech: KRR, ee: Enclosure) -> list:
    """The law of ``L^ε_{x,x'}`` of a k-RR as the four atoms of :func:`expected_positive_part`."""
    k = mech.k
    f, p = mech.flip(), mech.keep()
    return [
        (fmpq(k - 2, k), k * f * (1 - ee)),
        (fmpq(1, k), k * (p - ee * f)),
        (fmpq(1, k), k * (f - ee * p)),
        (fmpq(0), fmpq(0)),
    ]


class _H:
    """``h_t(m) = E[(Σ_{i≤m} L_i)_+]/m``, memoised."""

    def __init__(self, mech: KRR, ee: Enclosure, tol: fmpq, exact_max_n: int):
        self.atoms = _atoms(mech, ee)
        self.tol, self.exact_max_n = tol, exact_max_n
        self.memo: dict[int, Enclosure] = {}

    def __call__(self, m: int) -> Enclosure:
        v = self.memo.get(m)
        if v is None:
            v = expected_positive_part(m, self.atoms, tol=self.tol, exact_max_n=self.exact_max_n, label="fleet h") / m
            self.memo[m] = v
        return v


def _others(groups: list[Group], t: int) -> list[tuple[int, Enclosure]]:
    return [(g.n - (1 if i == t else 0), g.mech.gamma()) for i, g in enumerate(groups)]


def fleet_view_target(
    groups: Sequence[tuple[int, KRR]],
    target: int,
    *,
    rel: object = DEFAULT_REL,
    max_evals: int = DEFAULT_MAX_EVALS,
    **opts: Unpack[DeltaOptions],
) -> Enclosure:
    """An enclosure of ``V_t(ε)``, the Poisson-binomial blanket view for a target in group ``target``.

    Lemma F1 (``docs/reference/fleets.md`` §2): ``V_t`` upper-bounds the shuffled δ of every pair of
    neighbouring datasets whose differing user is in group ``target``.  Exact ``fmpq`` when every input is
    exact and ``n ≤ exact_max_n``; else a ball ``[lower end of the block bracket, upper end]``
    (module docstring), whose upper end is the certified bound.  Cost: the law of ``B`` (see
    :func:`fleet_count_law`) and at most ``max_evals + 9`` evaluations of ``h_t``, each ``O(√n·√log(1/tol))``.
    """
    fleet = check_fleet(groups)
    t = arith.integer_in(target, "target", lo=0, hi=len(fleet) - 1)
    ee, tol, exact_max_n, rel_q, evals = _checked_options("fleet_view_target", opts, rel, max_evals)
    return _view_target(fleet, t, ee, tol, exact_max_n, rel_q, evals, {})


def _checked_options(
    name: str, opts: DeltaOptions, rel: object, max_evals: object
) -> tuple[Enclosure, fmpq, int, fmpq, int]:
    """The checked common options of the fleet routes (``name`` is the route in messages): ``(e^ε, tol,
    exact_max_n, rel, max_evals)``, in the order they are checked.  O(1)."""
    guards.check_options(name, opts, DeltaOptions)
    ee = arith.exp_param(opts.get("epsilon"), opts.get("exp_epsilon"))
    tol, exact_max_n = engine_options(opts)
    rel_q = arith.exact_in(rel, "rel", lo=0, lo_open=True)
    evals = arith.integer_in(max_evals, "max_evals", lo=0)
    return ee, tol, exact_max_n, rel_q, evals


def _view_target(
    fleet: list[Group], t: int, ee: Enclosure, tol: fmpq, exact_max_n: int, rel: fmpq, evals: int, cache: dict
) -> Enclosure:
    """:func:`fleet_view_target` on checked arguments; ``cache`` keeps the law of ``B`` and ``h_t`` per target."""
    mech = fleet[t].mech
    if arith.le(mech.exp_epsilon0(), ee) is True:
        return fmpq(0)  # L ≤ 0: the view is 0
    exact_mode = _exact_mode(fleet, ee, exact_max_n)
    if t not in cache:
        cache[t] = _H(mech, ee, tol, exact_max_n)
    h = cache[t]
    if exact_mode:
        P, off, _ = fleet_count_law(_others(fleet, t), True, tol)
        total = fmpq(0)
        for i, p in enumerate(P):
            total += p * h(off + i + 1)
        return total
    # one law for every target: B_all = Σ_g Bin(n_g, γ_g) (the target included) brackets B_t pointwise under the
    # obvious coupling, B_all − 1 ≤ B_t ≤ B_all, so h(B_all + 1) ≤ h(B_t + 1) ≤ h(max(B_all, 1)) (Lemma F2)
    if "all" not in cache:
        cache["all"] = fleet_count_law([(g.n, g.mech.gamma()) for g in fleet], False, tol)
    P, off, leftout = cache["all"]
    return _bracket(P, off, leftout, h, rel, evals, shift=1)


def _bracket(P: list, off: int, leftout: Enclosure, h: _H, rel: fmpq, max_evals: int, shift: int = 0) -> arb:
    """The block bracket of ``E[h(B+1)]`` (module docstring) refined until its relative width is ``≤ rel``.

    ``P`` is the law of ``B`` (``shift = 0``) or of a ``B'`` with ``B' − 1 ≤ B ≤ B'`` (``shift = 1``: every
    target's ``B`` from the law of all users).
    Block ``[a, b]`` contributes ``P(B ∈ [a, b])·h(max(a+1−shift, 1))`` to the upper end and ``P(B ∈ [a, b])·h(b+2)`` to
    the lower end (``h`` non-increasing, Lemma F2; ``b + 2`` is the next block's ``a + 1``, so a split costs one
    evaluation of ``h``).  The first cuts are at quantiles of ``B``; then the block with the widest share is split.
    """
    W = len(P)
    prefix = [arb(0)]
    for p in P:
        prefix.append(prefix[-1] + p)
    h1 = arith.ball(h(1))
    floor = arb(h.tol) * 2**20
    tail_term = arith.ball(leftout) * h1
    start = len(h.memo)
    cuts = {0}
    qs = iter((fmpq(1, 10**6), fmpq(1, 100), fmpq(1, 5), fmpq(1, 2), fmpq(4, 5)))
    q = next(qs, None)
    for i in range(W):
        while q is not None and prefix[i + 1].mid() >= q:
            cuts.add(i)
            q = next(qs, None)
    cs = sorted(cuts) + [W]
    blocks = [(cs[j], cs[j + 1] - 1) for j in range(len(cs) - 1) if cs[j + 1] > cs[j]]
    while True:
        terms = []
        for a, b in blocks:
            m = prefix[b + 1] - prefix[a]
            terms.append((m * arith.ball(h(max(off + a + 1 - shift, 1))), m * arith.ball(h(off + b + 2))))
        upper = sum((u for u, _ in terms), tail_term)
        lower = sum((lo for _, lo in terms), arb(0))
        lo_end = arb(lower.lower()) if lower.lower() > 0 else arb(0)
        hi_end = arb(upper.upper())
        # done: relative width reached, budget spent, or the value is at the windows' own resolution
        if hi_end - lo_end <= rel * hi_end or len(h.memo) - start >= max_evals or hi_end <= floor:
            return lo_end.union(hi_end)
        best, best_gap = -1, -1.0
        for j, (a, b) in enumerate(blocks):
            gap = float((terms[j][0] - terms[j][1]).mid())
            if b > a and gap > best_gap:
                best, best_gap = j, gap
        if best < 0:
            return lo_end.union(hi_end)
        a, b = blocks[best]
        c = (a + b) // 2
        blocks[best : best + 1] = [(a, c), (c + 1, b)]


def delta_fleet_view(
    groups: Sequence[tuple[int, KRR]],
    *,
    rel: object = DEFAULT_REL,
    max_evals: int = DEFAULT_MAX_EVALS,
    **opts: Unpack[DeltaOptions],
) -> Enclosure:
    """``max_t V_t(ε)``: a certified upper bound (its upper end) on the shuffled δ of the fleet.

    Exact inputs and ``n ≤ exact_max_n``: the exact ``max_t V_t``.  Otherwise a ball enclosing ``W ≥ max_t V_t``
    (Lemma F4(a′): one law, the largest ε0's ``h``; :func:`_shared_view`).

    Every user can be the target, so the bound is the maximum over the groups of
    :func:`fleet_view_target` (groups with the same ``e^{ε0}`` give the same value; each distinct one is
    evaluated once).  Groups whose upper end is certainly below the largest lower end are not refined.
    Cost: ``G`` times that of :func:`fleet_view_target` at most.

    >>> from blanket.exact.mechanisms.finite import KRR
    >>> delta_fleet_view([(3, KRR(2, exp_epsilon0=3))], exp_epsilon=1)  # one group: today's blanket view
    5/16
    """
    fleet = check_fleet(groups)
    ee, tol, exact_max_n, rel_q, evals = _checked_options("delta_fleet_view", opts, rel, max_evals)
    if _exact_mode(fleet, ee, exact_max_n):
        seen: dict[str, int] = {}
        for i, g in enumerate(fleet):
            seen.setdefault(repr(g.mech.describe()), i)
        cache: dict = {}
        out = [_view_target(fleet, t, ee, tol, exact_max_n, rel_q, evals, cache) for t in sorted(seen.values())]
    else:
        out = [_shared_view(fleet, fleet[_order(fleet)[-1]].mech, ee, tol, exact_max_n, rel_q, evals)]
    return arith.maximum(out)


def _shared_view(
    law: list[Group], mech: KRR, ee: Enclosure, tol: fmpq, exact_max_n: int, rel: fmpq, evals: int
) -> Enclosure:
    """A ball whose upper end is a certified bound on every target's view, from one law (Lemma F4,
    ``docs/reference/fleets.md`` §3).

    Every target's others ``O_t`` contain ``law`` minus one user of its largest-``γ`` group (``B'`` below), so
    ``B_t ≥_st B'`` (Lemma F4(a′): the colluders are ``law``'s complement, chosen as in Lemma F3) and
    ``V_t ≤ E[h_t(B' + 1)] ≤ E[h_{t*}(B' + 1)] =: W`` with ``t*`` = ``mech``, the largest ε0 (Lemma F2, F4(b)).
    The ball encloses ``W`` (its block bracket, one evaluation of ``h`` per cut); ``W ≥ max_t V_t``.
    """
    if arith.le(mech.exp_epsilon0(), ee) is True:
        return fmpq(0)
    h = _H(mech, ee, tol, exact_max_n)
    top = _order(law)[0]  # a group of the largest γ (smallest ε0)
    parts = [(g.n - (1 if i == top else 0), g.mech.gamma()) for i, g in enumerate(law)]
    P, off, leftout = fleet_count_law(parts, False, tol)
    return _bracket(P, off, leftout, h, rel, evals, shift=0)


def _remove_top(fleet: list[Group], m: int) -> list[Group]:
    """The fleet without the ``m`` users of largest ``γ`` (smallest ``e^{ε0}``), order certified by :func:`_order`."""
    left = [g.n for g in fleet]
    rest = m
    for i in _order(fleet):
        take = min(rest, left[i])
        left[i] -= take
        rest -= take
    return [Group(left[i], g.mech) for i, g in enumerate(fleet) if left[i] > 0]


def delta_fleet_dataset(groups: Sequence[tuple[int, KRR]], **opts: Unpack[DeltaOptions]) -> Enclosure:
    """A certified *lower* bound on the fleet's shuffled δ(ε): a concrete pair of neighbouring datasets.

    Every user holds ``x``; the target (in each group in turn) holds ``x`` or ``x'``.  The adversary
    counts the reports equal to ``x'`` (post-processing: its δ is ``≤`` that of the datasets; for ``k = 2``
    it is the whole view): the others' count is ``Σ_g Bin(n_g − [g = t], f_g)`` (``f_g`` the flip
    probability), the target adds ``Bern(f_t)`` or ``Bern(p_t)``.  Both directions, maximum over groups.
    Exact for exact inputs and ``n ≤ exact_max_n``; else each term's lower end, minus ``e^ε·Λ`` for the
    left-out mass ``Λ`` (``docs/reference/fleets.md`` §4).  Cost: one :func:`fleet_count_law` per group
    and ``O(W)`` ball operations.

    >>> from blanket.exact.mechanisms.finite import KRR
    >>> delta_fleet_dataset([(3, KRR(2, exp_epsilon0=3))], exp_epsilon=1)
    9/32
    """
    fleet = check_fleet(groups)
    guards.check_options("delta_fleet_dataset", opts, DeltaOptions)
    ee = arith.exp_param(opts.get("epsilon"), opts.get("exp_epsilon"))
    tol, exact_max_n = engine_options(opts)
    exact_mode = _exact_mode(fleet, ee, exact_max_n)
    best: Enclosure = fmpq(0)
    done: set[str] = set()
    star = _order(fleet)[-1]
    for t, g in enumerate(fleet):
        key = repr(g.mech.describe())
        if not exact_mode and t != star:
            continue  # in balls only the target with the largest ε0 (any one target gives a valid lower end)
        if key in done:
            continue
        done.add(key)
        O, _, leftout = fleet_count_law(
            [(h.n - (1 if i == t else 0), h.mech.flip()) for i, h in enumerate(fleet)], exact_mode, tol
        )
        f, p = g.mech.flip(), g.mech.keep()
        vals = []
        for c in range(len(O) + 1):
            cur = O[c] if c < len(O) else 0
            prev = O[c - 1] if c >= 1 else 0
            P = cur * (1 - f) + prev * f
            Q = cur * (1 - p) + prev * p
            vals.append((P, Q))
        for a_i, b_i in ((0, 1), (1, 0)):
            if exact_mode:
                s: Enclosure = sum((max(v[a_i] - ee * v[b_i], fmpq(0)) for v in vals), fmpq(0))
            else:
                acc = arb(0)
                for v in vals:
                    d = arith.ball(v[a_i] - ee * v[b_i])
                    if d.upper() > 0:
                        acc += arb(max(d.lower(), arb(0)))
                lo = acc - arith.ball(ee) * arith.ball(leftout)
                s = arb(lo.lower()) if lo.lower() > 0 else fmpq(0)
            best = arith.maximum([best, s])
    return best


def honest_fleet(groups: Sequence[tuple[int, KRR]], target: int, colluding: IntegerInput) -> tuple[list[Group], int]:
    """The honest users a target in group ``target`` rests on when ``colluding`` users reveal everything.

    Returns ``(honest groups, index of the target's group among them)``.  Lemma F3
    (``docs/reference/fleets.md`` §5): whichever users collude, the view is a post-processing of the
    shuffle of the honest users; among the choices, removing the users with the largest ``γ`` (the
    smallest ``ε0``; the target itself is honest) gives the largest Poisson-binomial view, so this one
    choice bounds them all.  ``colluding`` must leave the target: ``≤ n − 1``.  Emptied groups are
    dropped.  O(G²) certified comparisons.

    >>> g, t = honest_fleet([(5, KRR(2, exp_epsilon0=3)), (4, KRR(2, exp_epsilon0=2))], 0, 6)
    >>> [h.n for h in g], t
    ([3], 0)
    """
    fleet = check_fleet(groups)
    t = arith.integer_in(target, "target", lo=0, hi=len(fleet) - 1)
    n = sum(g.n for g in fleet)
    m = arith.integer_in(colluding, "colluding", lo=0, hi=n - 1)
    left = [g.n - (1 if i == t else 0) for i, g in enumerate(fleet)]
    rest = m
    for i in _order(fleet):
        take = min(rest, left[i])
        left[i] -= take
        rest -= take
    out: list[Group] = []
    new_t = 0
    for i, g in enumerate(fleet):
        k = left[i] + (1 if i == t else 0)
        if i == t:
            new_t = len(out)
        if k > 0:
            out.append(Group(k, g.mech))
    return out, new_t


def _le_e0(a: KRR, b: KRR) -> bool | None:
    """Certified ``e^{ε0}(a) ≤ e^{ε0}(b)`` (exact when both are given the same exact way)."""
    if a.epsilon0_exact is not None and b.epsilon0_exact is not None:
        return bool(a.epsilon0_exact <= b.epsilon0_exact)
    if a.epsilon0_exact is None and b.epsilon0_exact is None and a.is_exact and b.is_exact:
        return bool(a.exp_epsilon0() <= b.exp_epsilon0())
    return arith.le(a.exp_epsilon0(), b.exp_epsilon0())


def _order(fleet: list[Group]) -> list[int]:
    """Group indices by ``γ`` decreasing (``e^{ε0}`` increasing), each step certified; refuses an undecided order."""
    idx = sorted(range(len(fleet)), key=lambda i: float(arith.ball(fleet[i].mech.exp_epsilon0()).mid()))
    for a, b in zip(idx, idx[1:]):
        ma, mb = fleet[a].mech, fleet[b].mech
        if ma.describe() != mb.describe() and _le_e0(ma, mb) is not True:
            raise InvalidArgument(
                "groups",
                f"{ma.describe()} vs {mb.describe()}",
                "have e^ε0 too close to order certifiably (the colluders' worst choice needs the order)",
                hint="merge the two groups or give their ε0 exactly",
            )
    return idx


def largest_epsilon0(groups: Sequence[tuple[int, KRR]]) -> int:
    """The index of a group with the largest ``e^{ε0}`` (certified order, :func:`_order`; refuses an undecided one).
    O(G log G) certified comparisons.

    >>> largest_epsilon0([(5, KRR(2, epsilon0=2)), (4, KRR(2, epsilon0=1))])
    0
    """
    return _order(check_fleet(groups))[-1]


def delta_fleet_colluding(
    groups: Sequence[tuple[int, KRR]],
    colluding: IntegerInput,
    *,
    rel: object = DEFAULT_REL,
    max_evals: int = DEFAULT_MAX_EVALS,
    **opts: Unpack[DeltaOptions],
) -> Enclosure:
    """:func:`delta_fleet_view` when ``colluding`` users reveal their inputs and randomness (Lemma F3).

    For each target group the colluders are chosen worst-case (:func:`honest_fleet`); the maximum over
    targets.  ``colluding = 0`` is :func:`delta_fleet_view` target by target.  Cost: ``G`` target views.

    >>> from blanket.exact.mechanisms.finite import KRR
    >>> delta_fleet_colluding([(4, KRR(2, exp_epsilon0=3))], 1, exp_epsilon=1)  # = the view of 3 users
    5/16
    """
    fleet = check_fleet(groups)
    ee, tol, exact_max_n, rel_q, evals = _checked_options("delta_fleet_colluding", opts, rel, max_evals)
    m = arith.integer_in(colluding, "colluding", lo=0, hi=sum(g.n for g in fleet) - 1)
    if not _exact_mode(fleet, ee, exact_max_n):
        # every target's honest others lie between B_H − 1 and B_H, H = all but the m largest γ (fleets.md §5)
        return _shared_view(_remove_top(fleet, m), fleet[_order(fleet)[-1]].mech, ee, tol, exact_max_n, rel_q, evals)
    out = []
    seen: set[str] = set()
    for t, g in enumerate(fleet):
        key = repr(g.mech.describe())
        if key in seen:
            continue
        seen.add(key)
        honest, t2 = honest_fleet(fleet, t, m)
        out.append(fleet_view_target(honest, t2, rel=rel, max_evals=max_evals, **opts))
    return arith.maximum(out)
