"""Composed (and sampled) rounds of a mixed k-RR fleet: ``FleetRound`` (docs/reference/fleets.md Lemma F5)."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from blanket.exact.accounting import sampled as S
from blanket.exact.accounting.accountant import ShuffleAccountant, ShuffledRR
from blanket.exact.accounting.fleet_rounds import FleetRound
from blanket.exact.mechanisms.finite import KRR
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from flint import fmpq

ALPHAS = [fmpq(1), fmpq(21, 20), fmpq(6, 5), fmpq(3, 2), fmpq(2)]


def _user_law(k: int, e: fmpq, q: fmpq, value: int) -> dict:
    """One user's sampled k-RR output law (e = e^{ε0}): None (no report) w.p. 1 − q, else k-RR of ``value``."""
    f = 1 / (e + k - 1)
    law = {None: 1 - q}
    for y in range(k):
        law[y] = q * (e * f if y == value else f)
    return law


def _view_law(k: int, q: fmpq, users: list) -> dict:
    """Exact law of the shuffled view (the count of each value among the reports) of ``users`` = [(e, value)], by
    enumerating every participation pattern and every output (independent of the code under test)."""
    out: dict = {}
    for outs in itertools.product(*[list(_user_law(k, e, q, v).items()) for e, v in users]):
        pr = fmpq(1)
        cnt = [0] * k
        for y, w in outs:
            pr *= w
            if y is not None:
                cnt[y] += 1
        out[tuple(cnt)] = out.get(tuple(cnt), fmpq(0)) + pr
    return out


def _hs(P: dict, Q: dict, a: fmpq) -> fmpq:
    return sum((max(fmpq(0), P.get(v, fmpq(0)) - a * Q.get(v, fmpq(0))) for v in set(P) | set(Q)), fmpq(0))


def _pair_hs(pair, a: fmpq) -> fmpq:
    """``H_α`` of a dominating pair: its own method, or the sum over its exact atoms (a ShiftPair at small n)."""
    if hasattr(pair, "hockey_stick"):
        return pair.hockey_stick(a)
    return sum((max(fmpq(0), P - a * Q) for _k, P, Q in pair.atoms()), fmpq(0))


def _pairs_of(k: int, q: fmpq, sizes: list, es: list):
    """Every concrete neighbouring pair of the fleet: the target in each group, every value of every other user."""
    for t in range(len(sizes)):
        others = [es[g] for g in range(len(sizes)) for _ in range(sizes[g] - (1 if g == t else 0))]
        for vals in itertools.product(range(k), repeat=len(others)):
            rest = list(zip(others, vals))
            yield _view_law(k, q, [(es[t], 0), *rest]), _view_law(k, q, [(es[t], 1), *rest])


@pytest.mark.parametrize(
    ("k", "sizes", "es", "q"),
    [
        (2, [2, 2], [3, 2], "1/2"),
        (2, [1, 3], [3, 2], "1/3"),
        (2, [3, 2], [2, 4], "1"),
        (3, [2, 1], [3, 2], "1/2"),
    ],
)
def test_fleet_round_pair_dominates_brute_force(k, sizes, es, q):
    """Lemma F5: every concrete pair of a small mixed (sampled) fleet, the target in every group, both orders, has
    exact H_α below the fleet round's dominating pair."""
    qq = fmpq(Fraction(q).numerator, Fraction(q).denominator)
    ef = [fmpq(e) for e in es]
    ev = FleetRound([(n, KRR(k, exp_epsilon0=e)) for n, e in zip(sizes, es)], q=q)
    pair = ev.dominating_pair()
    worst = [fmpq(0)] * len(ALPHAS)
    for P, Q in _pairs_of(k, qq, sizes, ef):
        for i, a in enumerate(ALPHAS):
            worst[i] = max(worst[i], _hs(P, Q, a), _hs(Q, P, a))
    for a, x in zip(ALPHAS, worst):
        assert x <= _pair_hs(pair, a), (a, x)
    assert worst[0] > 0  # not vacuous


def test_smaller_epsilon0_groups_are_dominated_not_ignored():
    """The pair is that of n_h users at the largest ε0 (the weaker groups count as users): one group at the largest ε0
    gives the same pair as Sampled(ShuffledRR); replacing a group's ε0 by the largest gives the same pair; colluders
    lower n_h."""
    q = Fraction(1, 2)
    mixed = FleetRound([(12, KRR(2, epsilon0=1)), (8, KRR(2, epsilon0=2))], q=q)
    same = FleetRound([(20, KRR(2, epsilon0=2))], q=q)
    sampled = S.Sampled(ShuffledRR(k=2, epsilon0="2", n=20), q)
    a = ShuffleAccountant(curves=False).compose(mixed, 3).get_epsilon("1e-6")
    b = ShuffleAccountant(curves=False).compose(same, 3).get_epsilon("1e-6")
    c = ShuffleAccountant(curves=False).compose(sampled, 3).get_epsilon("1e-6")
    assert a.upper == b.upper == c.upper
    # with curve pairs, one group composes its honest users' sampled round's R_q curve pair, as Sampled does
    # (session 12); a mixed fleet keeps Lemma F5's pair
    b2 = ShuffleAccountant().compose(same, 3).get_epsilon("1e-6")
    c2 = ShuffleAccountant().compose(sampled, 3).get_epsilon("1e-6")
    assert b2.upper == c2.upper < c.upper
    col = FleetRound([(12, KRR(2, epsilon0=1)), (8, KRR(2, epsilon0=2))], q=q, colluding=10)
    assert col.honest == 10 and mixed.honest == 20
    d = ShuffleAccountant(curves=False).compose(col, 3).get_epsilon("1e-6")
    assert d.upper > a.upper  # fewer honest users, weaker claim
    assert FleetRound([(20, KRR(2, epsilon0=2))], q=1).q is None  # q = 1: every user reports


def _product(P: dict, Q: dict) -> tuple:
    return ({(u, v): P[u] * P[v] for u in P for v in P}, {(u, v): Q[u] * Q[v] for u in Q for v in Q})


def test_composed_two_fleet_rounds_above_every_dataset():
    """T = 2: the exact 2-fold product of every concrete dataset pair of a small sampled fleet lies below the
    composed certified upper end; the certified lower end (the fleet lower pair) is positive and below the largest
    of them."""
    k, q, sizes, es = 2, fmpq(1, 2), [2, 2], [fmpq(3), fmpq(2)]
    ev = FleetRound([(n, KRR(k, exp_epsilon0=e)) for n, e in zip(sizes, es)], q="1/2")
    acc = ShuffleAccountant().compose(ev, 2)
    for eps in ("1/4", "1/2"):
        d = acc.get_delta(eps)
        hi_a = fmpq(
            *[
                int(x)
                for x in str(
                    arith.endpoints(arith.ball(fmpq(Fraction(eps).numerator, Fraction(eps).denominator)).exp())[1]
                ).split("/")
            ]
        )
        lo_a = fmpq(
            *[
                int(x)
                for x in str(
                    arith.endpoints(arith.ball(fmpq(Fraction(eps).numerator, Fraction(eps).denominator)).exp())[0]
                ).split("/")
            ]
        )
        best = fmpq(0)
        for P, Q in _pairs_of(k, q, sizes, es):
            PP, QQ = _product(P, Q)
            below = max(_hs(PP, QQ, hi_a), _hs(QQ, PP, hi_a))
            assert Fraction(int(below.p), int(below.q)) <= d.upper
            best = max(best, _hs(PP, QQ, lo_a), _hs(QQ, PP, lo_a))
        assert 0 < d.lower <= Fraction(int(best.p), int(best.q)) and d.lower < d.upper


@pytest.mark.parametrize(
    ("k", "sizes", "es", "q", "col"),
    [
        (2, [2, 2], [3, 2], "1/2", 0),
        (2, [3, 2], [2, 4], "1", 1),
        (3, [2, 2], [2, 3], "1/3", 1),
    ],
)
def test_fleet_lower_pair_is_the_count_of_a_concrete_dataset(k, sizes, es, q, col):
    """The fleet round's lower pair (exact at small n) is the law of the number of reports equal to the target's
    value x = 0, the target in the largest-ε0 group holding 0 vs 1, every other honest user holding 1 and the
    colluders taken from the smallest ε0 (brute force over every participation pattern and output)."""
    qq = fmpq(Fraction(q).numerator, Fraction(q).denominator)
    ef = [fmpq(e) for e in es]
    ev = FleetRound([(n, KRR(k, exp_epsilon0=e)) for n, e in zip(sizes, es)], q=q, colluding=col)
    t = max(range(len(es)), key=lambda g: ef[g])
    left = list(sizes)
    left[t] -= 1
    rest = col
    for g in sorted(range(len(es)), key=lambda g: ef[g]):
        take = min(rest, left[g])
        left[g] -= take
        rest -= take
    others = [(ef[g], 1) for g in range(len(es)) for _ in range(left[g])]
    P, Q = _view_law(k, qq, [(ef[t], 0), *others]), _view_law(k, qq, [(ef[t], 1), *others])
    cnt_p: dict = {}
    cnt_q: dict = {}
    for v, w in P.items():
        cnt_p[v[0]] = cnt_p.get(v[0], fmpq(0)) + w
    for v, w in Q.items():
        cnt_q[v[0]] = cnt_q.get(v[0], fmpq(0)) + w
    for direction, (a, b) in (("forward", (cnt_p, cnt_q)), ("backward", (cnt_q, cnt_p))):
        pr = ev.lower_pair(direction)
        want = sorted((a[c], b.get(c, fmpq(0))) for c in a if a[c] > 0)
        assert sorted((p, q2) for _r, p, q2 in pr.masses) == want
        assert all(r == p / q2 for r, p, q2 in pr.masses)


def test_fleet_lower_pair_in_balls_below_exact():
    """Above the exact limit the pair's masses and ratios are lower ends: every H_α of the ball pair is at most the
    exact one and close to it (the same fleet with the limit lowered below its size)."""
    import blanket.exact.accounting.fleet_rounds as FR

    groups = [(120, KRR(2, exp_epsilon0=3)), (70, KRR(2, exp_epsilon0=5))]
    exact = FR.fleet_lower_pair(groups, fmpq(1, 4), 3)
    old = FR.LOWER_EXACT_MAX_N
    try:
        FR.LOWER_EXACT_MAX_N = 10
        balls = FR.fleet_lower_pair(groups, fmpq(1, 4), 3)
    finally:
        FR.LOWER_EXACT_MAX_N = old
    assert sum(p for _r, p, _q in exact.masses) == 1
    for a in ALPHAS + [fmpq(3), fmpq(4)]:
        x, y = balls.hockey_stick(a), exact.hockey_stick(a)
        assert x <= y and y - x <= fmpq(1, 2**80)  # what is left out: windows' tails, ball radii
    assert balls.hockey_stick(1) > fmpq(1, 50)  # not vacuous
    # the losses stay within the true range (a ball ratio at a window edge is raised to the smallest true ratio)
    assert min(r for r, _p, _q in balls.masses) >= min(r for r, _p, _q in exact.masses) * (1 - fmpq(1, 10**9))


def test_refusals_by_name():
    with pytest.raises(InvalidArgument, match="^q "):
        FleetRound([(5, KRR(2, epsilon0=1))], q=0)
    with pytest.raises(InvalidArgument, match="^colluding "):
        FleetRound([(5, KRR(2, epsilon0=1))], colluding=4)
    with pytest.raises(InvalidArgument, match=r"^groups\[1\]\.mech "):
        FleetRound([(5, KRR(2, epsilon0=1)), (5, KRR(3, epsilon0=1))])
    with pytest.raises(InvalidArgument, match="^direction "):
        FleetRound([(5, KRR(2, epsilon0=1))]).lower_pair("sideways")


_DEP = """
name = "fleet rounds"
colluding = {col}
[[users]]
n = {n1}
[users.mechanism]
type = "{kind}"
epsilon0 = "1"
[[users]]
n = {n2}
[users.mechanism]
type = "binary_rr"
epsilon0 = "2"
[[rounds]]
count = {count}
{extra}
[[claims]]
epsilon = "{eps}"
delta = "{delta}"
"""


def _fmt(
    col: int = 0,
    kind: str = "binary_rr",
    extra: str = "",
    n1: int = 6,
    n2: int = 4,
    count: int = 3,
    eps: str = "5",
    delta: str = "0.1",
) -> str:
    return _DEP.format(col=col, kind=kind, extra=extra, n1=n1, n2=n2, count=count, eps=eps, delta=delta)


def test_deployment_fleet_rounds_certify(tmp_path):
    """A small fleet with sampling and colluders certifies; the statement names the groups' ε0, q, the colluders
    and the honest users; q = 1 is the unsampled round; colluding = 0 is the whole fleet."""
    from blanket.reports.certificate import certify
    from blanket.reports.deployment import load_deployment

    f = tmp_path / "d.toml"
    f.write_text(_fmt(col=1, extra='sampling = "0.5"'))
    dep = load_deployment(f)
    r = dep.rounds[0]
    ev = r.event()
    assert isinstance(ev, FleetRound) and ev.q == Fraction(1, 2) and ev.honest == 9 and r.count == 3
    cert = certify(dep, plot=False)
    assert cert["verdict"] == "HOLDS"
    st = cert["statement"]
    for words in ("6 users at epsilon0 = 1", "4 users at epsilon0 = 2", "q = 0.5", "9 honest users", "1 colluding"):
        assert words in st, words
    assert any("Sampled participation" in a for a in cert["assumptions"])
    assert any("Lemma F5" in a for a in cert["assumptions"])
    # the groups' sizes count the colluders (6 + 4 users, 1 of them colluding, 9 honest), and the text says so
    assert "1 of them colluding" in st and "more colluding" not in st
    fleet_text = next(a for a in cert["assumptions"] if a.startswith("Mixed fleet"))
    assert "6 users at epsilon0 = 1; 4 users at epsilon0 = 2" in fleet_text and "honest users at" not in fleet_text
    # a mixed fleet does not share one randomizer, and a sampled user sends at most one report
    assert not any(a.startswith("One randomizer for all") for a in cert["assumptions"])
    assert not any(a.startswith("Single message per user") for a in cert["assumptions"])
    assert any(a.startswith("At most one message per user and round") for a in cert["assumptions"])
    assert "Fleet round dominating pair" in [c["key"] for c in cert["chain"]]
    # sampling q = 1 is the same round as no sampling
    f.write_text(_fmt(col=1, extra='sampling = "1"'))
    a = ShuffleAccountant().compose(load_deployment(f).rounds[0].event(), 3).get_epsilon("1e-6")
    f.write_text(_fmt(col=1))
    b = ShuffleAccountant().compose(load_deployment(f).rounds[0].event(), 3).get_epsilon("1e-6")
    assert a.upper == b.upper
    # colluding = 0 is the honest fleet
    f.write_text(_fmt())
    assert load_deployment(f).rounds[0].event().honest == 10


@pytest.mark.slow
def test_deployment_fleet_rounds_certify_larger(tmp_path, slow_level):
    """The same at 1000 users (10 colluding, q = 1/10; 20 rounds, 200 at the full level): HOLDS, and the claim's
    certified upper end lies below the same rounds with every user at the largest ε0 and no sampling."""
    from blanket.reports.certificate import certify
    from blanket.reports.deployment import load_deployment

    count = 20 if slow_level == "reduced" else 200
    f = tmp_path / "d.toml"
    f.write_text(_fmt(col=10, extra='sampling = "0.1"', n1=600, n2=400, count=count, eps="2", delta="1e-6"))
    cert = certify(load_deployment(f), plot=False)
    assert cert["verdict"] == "HOLDS" and "990 honest users" in cert["statement"]
    plain = ShuffleAccountant().compose(ShuffledRR(k=2, epsilon0="2", n=990), count).get_epsilon("1e-6")
    ours = ShuffleAccountant().compose(load_deployment(f).rounds[0].event(), count).get_epsilon("1e-6")
    assert ours.upper < plain.upper


@pytest.mark.parametrize(
    ("kind", "extra", "name"),
    [
        ("binary_rr", 'epsilon0 = "1"', "rounds[0].epsilon0 "),
        ("binary_rr", "n = 5", "rounds[0].n "),
        ("binary_rr", 'sampling = "0"', "rounds[0].sampling "),
        ("krr\"\nk = \"3", "", "users"),
        ("laplace", "", "users[0].mechanism.type "),
    ],
)
def test_deployment_fleet_rounds_refusals(tmp_path, kind, extra, name):
    from blanket.reports.deployment import load_deployment

    f = tmp_path / "d.toml"
    f.write_text(_fmt(kind=kind, extra=extra))
    with pytest.raises(InvalidArgument) as ei:
        load_deployment(f)
    assert str(ei.value).startswith(name), str(ei.value)


_ONE = """
name = "one round"
[mechanism]
type = "{kind}"
epsilon0 = "2"
{k}
[users]
n = 50
{extra}
[[claims]]
epsilon = "5"
delta = "0.1"
"""


def test_users_sampling_is_one_sampled_round(tmp_path):
    """``sampling`` in [users]: one composed round (Sampled k-RR; with colluders a one-group fleet round on the honest
    users); the statement mentions the sampling; refusals by name."""
    from blanket.reports.certificate import certify
    from blanket.reports.deployment import load_deployment

    f = tmp_path / "d.toml"
    f.write_text(_ONE.format(kind="binary_rr", k="", extra='sampling = "0.5"'))
    dep = load_deployment(f)
    assert len(dep.rounds) == 1 and isinstance(dep.rounds[0].event(), S.Sampled) and dep.rounds[0].count == 1
    cert = certify(dep, plot=False)
    assert cert["verdict"] == "HOLDS" and "sampled participation" in cert["statement"]
    assert "q = 0.5" in cert["statement"]
    f.write_text(_ONE.format(kind="binary_rr", k="", extra='sampling = "0.5"\ncolluding = 3'))
    ev = load_deployment(f).rounds[0].event()
    assert isinstance(ev, FleetRound) and ev.honest == 47 and ev.q == Fraction(1, 2)
    assert ev.lower_pair() is not None  # one group: the honest users' concrete pair
    for kind, k, extra, name in (
        ("laplace", "", 'sampling = "0.5"', "users.sampling "),  # (oue, ldp, matrix: one sampled round, seams11)
        ("binary_rr", "", 'sampling = "2"', "users.sampling "),
        ("binary_rr", "", 'sampling = "0.5"\n[[rounds]]\ncount = 2', "users.sampling "),
    ):
        f.write_text(_ONE.format(kind=kind, k=k, extra=extra))
        with pytest.raises(InvalidArgument) as ei:
            load_deployment(f)
        assert str(ei.value).startswith(name), str(ei.value)


def test_users_colluding_with_rounds(tmp_path):
    """``colluding`` in [users] with [[rounds]]: each round rests on the honest users (no longer refused)."""
    from blanket.reports.deployment import load_deployment

    f = tmp_path / "d.toml"
    f.write_text(_ONE.format(kind="binary_rr", k="", extra='colluding = 5\n[[rounds]]\ncount = 2\nsampling = "0.5"'))
    r = load_deployment(f).rounds[0]
    ev = r.event()
    assert isinstance(ev, FleetRound) and ev.honest == 45 and r.count == 2


def test_cli_sampling_and_colluding(tmp_path, capsys):
    """``--sampling`` / ``--colluding`` on epsilon (one composed round) and certify; refusals by name, exit 2."""
    import json

    from blanket.reports.cli import main

    args = ["epsilon", "--mechanism", "rr", "--epsilon0", "2", "-n", "50", "--delta", "0.1", "--json"]
    assert main([*args, "--sampling", "0.5", "--colluding", "3"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert "n = 47" in " ".join(out["pairs"]) and out["total_rounds"] == 1  # the 47 honest users' round
    assert main([*args, "--sampling", "0"]) == 2
    assert capsys.readouterr().err.startswith("blanket: error: --sampling ")
    assert main([*args, "--colluding", "49"]) == 2
    assert capsys.readouterr().err.startswith("blanket: error: --colluding ")
    f = tmp_path / "d.toml"
    f.write_text(_fmt(count=1))
    code = main(["certify", str(f), "-o", str(tmp_path / "c"), "--no-pdf", "--no-plot", "--sampling", "0.5"])
    assert code == 2 and capsys.readouterr().err.startswith("blanket: error: --sampling ")
    f.write_text(_ONE.format(kind="binary_rr", k="", extra=""))
    code = main(["certify", str(f), "-o", str(tmp_path / "c"), "--no-pdf", "--no-plot", "--sampling", "0.5"])
    assert code == 0 and "sampled participation" in capsys.readouterr().out


@pytest.mark.parametrize(
    "extra",
    [pytest.param('[[rounds]]\ncount = 2\nsampling = "0.5"', marks=pytest.mark.slow), "[[rounds]]\ncount = 2"],
)
def test_colluding_zero_is_todays_answer(tmp_path, extra):
    """``colluding = 0`` in [users] composes to the same certified ε as no ``colluding`` key (sampled and plain rounds);
    for one round, ``colluding = 0`` parses to the deployment without it (certify dispatches on ``dep.colluding``)."""
    from blanket.reports.deployment import load_deployment

    f = tmp_path / "d.toml"
    f.write_text(_ONE.format(kind="binary_rr", k="", extra=extra))
    today = ShuffleAccountant().compose(load_deployment(f).rounds[0].event(), 2).get_epsilon("1e-3")
    f.write_text(_ONE.format(kind="binary_rr", k="", extra="colluding = 0\n" + extra))
    zero = ShuffleAccountant().compose(load_deployment(f).rounds[0].event(), 2).get_epsilon("1e-3")
    assert (zero.upper, zero.lower) == (today.upper, today.lower) and 0 < today.lower < today.upper
    f.write_text(_ONE.format(kind="binary_rr", k="", extra="colluding = 0"))
    one = load_deployment(f)
    f.write_text(_ONE.format(kind="binary_rr", k="", extra=""))
    assert (
        one.colluding == 0
        and not one.groups
        and (one.n, one.params) == (load_deployment(f).n, load_deployment(f).params)
    )


def test_fleet_lower_pair_trims_its_tails_on_the_lower_side(monkeypatch):
    """examples/fleet_daily.toml's round: the ball pair drops the atoms at both ends of its loss range holding at most
    LOWER_TAIL_CUT of P-mass each (window edges raised to the smallest true ratio): a sub-pair of the untrimmed one,
    every H_α at most its and within 2·LOWER_TAIL_CUT, on a loss range less than half as wide."""
    import math

    import blanket.exact.accounting.fleet_rounds as FR

    groups = [(400000, KRR(2, epsilon0=1)), (600000, KRR(2, epsilon0=2))]
    trimmed, cut = FR.fleet_lower_pair(groups, fmpq(1, 100), 100), FR.LOWER_TAIL_CUT
    monkeypatch.setattr(FR, "LOWER_TAIL_CUT", fmpq(0))
    full = FR.fleet_lower_pair(groups, fmpq(1, 100), 100)
    assert set(trimmed.masses) < set(full.masses)
    dropped = sum(p for _r, p, _q in full.masses) - sum(p for _r, p, _q in trimmed.masses)
    assert 0 < dropped <= 2 * cut
    for a in ALPHAS:
        x, y = trimmed.hockey_stick(a), full.hockey_stick(a)
        assert x <= y and y - x <= 2 * cut

    def span(pr):
        rs = [float(r) for r, _p, _q in pr.masses]
        return math.log(max(rs)) - math.log(min(rs))

    assert span(trimmed) < span(full) / 2
