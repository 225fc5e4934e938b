"""Task inputs12: three input / CLI defects found by session 12's hostile probe.

1. ``sampling = 1`` (every user takes part) is the plain round at every input site: the library's
   ``Sampled(ev, 1)``, ``[users] sampling``, ``rounds[i].sampling``, fleet rounds and ``--sampling 1``.  Before the
   fix it went through the sampled views, looser than the plain round's one-round bracket (OUE k = 3, ε0 = 1, n = 3,
   (0.2, 0.1): INCONCLUSIVE on [0.0952, 0.2742] instead of FAILS on [0.1107, 0.1287]).  The check is independent
   of the values: the same bracket with and without ``q = 1``.
"""

from __future__ import annotations

import json
import pathlib

import pytest
from blanket.exact.accounting.accountant import ShuffleAccountant
from blanket.exact.accounting.sampled import Sampled
from blanket.reports import cli
from blanket.reports.deployment import parse_deployment, with_overrides

OUE = """
name = "oue"
[randomizer]
mechanism = "oue"
k = 3
epsilon0 = 1
[users]
n = 3
{users_extra}
[[claims]]
epsilon = 0.2
delta = 0.1
"""


def _write(tmp_path: pathlib.Path, name: str, text: str) -> str:
    p = tmp_path / name
    p.write_text(text)
    return str(p)


# ------------------------------------------------------------------ 1. sampling = 1 is the plain round


def test_library_sampled_q1_is_the_plain_round() -> None:
    dep = parse_deployment(OUE.format(users_extra='sampling = "1/2"'))
    ev = dep.rounds[0].event().event  # Shuffled(OUE(3, 1), 3), the round Sampled wraps
    plain = ShuffleAccountant().compose(ev).get_delta("0.2")
    acc = ShuffleAccountant().compose(Sampled(ev, 1))
    assert acc.ledger == ((ev, 1),)
    one = acc.get_delta("0.2")
    assert (one.lower, one.upper) == (plain.lower, plain.upper)
    # the plain round's bracket decides the claim (0.2, 0.1): its lower end is above 0.1
    assert one.lower > 0.1
    # a proper q < 1 is still a sampled round
    assert isinstance(ShuffleAccountant().compose(Sampled(ev, "1/2")).ledger[0][0], Sampled)


@pytest.mark.parametrize("q", ['"1"', "1", "1.0", '"2/2"'])
def test_users_sampling_1_parses_as_no_sampling(q: str) -> None:
    plain = parse_deployment(OUE.format(users_extra=""))
    one = parse_deployment(OUE.format(users_extra=f"sampling = {q}"))
    assert one.rounds == () == plain.rounds
    # with_overrides: --sampling 1 drops the file's sampling; --sampling 1/2 still samples
    half = parse_deployment(OUE.format(users_extra='sampling = "1/2"'))
    assert with_overrides(half, sampling="1").rounds == ()
    assert with_overrides(plain, sampling="1").rounds == ()
    assert (
        with_overrides(plain, sampling="1/2").rounds[0].sampling
        == parse_deployment(OUE.format(users_extra='sampling = "1/2"')).rounds[0].sampling
    )


def test_users_sampling_still_validated() -> None:
    from blanket.exact.numbers.errors import InvalidArgument

    for bad in ('"0"', '"3/2"', '"x"'):
        with pytest.raises(InvalidArgument, match="users.sampling"):
            parse_deployment(OUE.format(users_extra=f"sampling = {bad}"))


def test_rounds_and_fleet_sampling_1_is_no_sampling() -> None:
    base = 'name = "r"\n[randomizer]\nmechanism = "krr"\nk = 3\nepsilon0 = 1\n[users]\nn = 10\n'
    claim = "[[claims]]\nepsilon = 1\ndelta = 1e-3\n"
    for entry in (
        '[[rounds]]\nmechanism = "krr"\nk = 3\nepsilon0 = 1\ncount = 2\nsampling = "1"\n',
        '[[rounds]]\ntype = "oue"\nk = 3\nepsilon0 = 1\ncount = 2\nsampling = "1"\n',
        '[[rounds]]\ntype = "ldp"\nepsilon0 = 1\ncount = 2\nsampling = "1"\n',
        '[[rounds]]\ntype = "laplace"\nepsilon0 = 1\ncount = 2\nsampling = "1"\n',
    ):
        r = parse_deployment(base + claim + entry).rounds[0]
        assert getattr(r, "sampling", None) is None, entry
        assert not isinstance(r.event(), Sampled)
    fleet = (
        'name = "f"\n[[users]]\nn = 5\n[users.mechanism]\ntype = "binary_rr"\nepsilon0 = 1\n'
        '[[users]]\nn = 6\n[users.mechanism]\ntype = "binary_rr"\nepsilon0 = 2\n'
        + claim
        + '[[rounds]]\ncount = 2\nsampling = "1"\n'
    )
    r = parse_deployment(fleet).rounds[0]
    assert r.sampling is None and r.event().q is None


def _certify_json(capsys, path: str, tmp_path: pathlib.Path, *extra: str) -> dict:
    code = cli.main(["certify", "--json", "--no-pdf", "--no-plot", "-q", "-o", str(tmp_path / "out"), *extra, path])
    out = json.loads(capsys.readouterr().out)
    out["_code"] = code
    return out


def _claim(cert: dict) -> tuple:
    c = cert["claims"][0]
    return cert["_code"], c["verdict"], c["lower"]["value"], c["upper"]["value"], c["reason"]


def test_certify_sampling_1_same_as_unsampled(capsys, tmp_path: pathlib.Path) -> None:
    plain = _write(tmp_path, "plain.toml", OUE.format(users_extra=""))
    one = _write(tmp_path, "one.toml", OUE.format(users_extra='sampling = "1"'))
    half = _write(tmp_path, "half.toml", OUE.format(users_extra='sampling = "0.5"'))
    ref = _certify_json(capsys, plain, tmp_path)
    assert ref["claims"][0]["verdict"] == "FAILS" and ref["_code"] == 1
    assert _claim(_certify_json(capsys, one, tmp_path)) == _claim(ref)
    assert _claim(_certify_json(capsys, plain, tmp_path, "--sampling", "1")) == _claim(ref)
    assert _claim(_certify_json(capsys, half, tmp_path, "--sampling", "1")) == _claim(ref)


def test_cli_delta_sampling_1_same_as_unsampled(capsys, tmp_path: pathlib.Path) -> None:
    args = ["delta", "--mechanism", "oue", "--k", "3", "--epsilon0", "1", "-n", "3", "--epsilon", "0.2"]
    assert cli.main(args) == 0
    plain = capsys.readouterr().out
    assert cli.main([*args, "--sampling", "1"]) == 0
    assert capsys.readouterr().out == plain
    half = _write(tmp_path, "half.toml", OUE.format(users_extra='sampling = "0.5"'))
    assert cli.main(["delta", "--deployment", half, "--epsilon", "0.2", "--sampling", "1"]) == 0
    over = capsys.readouterr().out
    assert (
        cli.main(["delta", "--deployment", _write(tmp_path, "p.toml", OUE.format(users_extra="")), "--epsilon", "0.2"])
        == 0
    )
    assert over == capsys.readouterr().out


def test_continuous_cli_sampling_1_accepted_below_1_refused(capsys) -> None:
    args = ["delta", "--mechanism", "laplace", "--epsilon0", "1", "-n", "100", "--epsilon", "1"]
    assert cli.main(args) == 0
    plain = capsys.readouterr().out
    assert cli.main([*args, "--sampling", "1"]) == 0
    assert capsys.readouterr().out.split("(lattice")[0] == plain.split("(lattice")[0]  # (the line ends with seconds)
    assert cli.main([*args, "--sampling", "0.5"]) == 2
    assert "--sampling is not supported" in capsys.readouterr().err


# ------------------------------------------------------------------ 2. --deployment FILE without [[claims]]

NO_CLAIMS = 'name = "oue"\n[randomizer]\nmechanism = "oue"\nk = 3\nepsilon0 = 1\n[users]\nn = 3\n'


@pytest.mark.parametrize(
    "extra",
    [
        "",  # one round
        '[[rounds]]\ntype = "oue"\nk = 3\nepsilon0 = 1\ncount = 2\n',  # a schedule (the composed route)
    ],
)
def test_delta_and_epsilon_on_a_deployment_without_claims(capsys, tmp_path: pathlib.Path, extra: str) -> None:
    bare = _write(tmp_path, "bare.toml", NO_CLAIMS + extra)
    claimed = _write(tmp_path, "claimed.toml", NO_CLAIMS + extra + "[[claims]]\nepsilon = 0.2\ndelta = 0.1\n")
    for cmd, opt, value in (("delta", "--epsilon", "0.2"), ("epsilon", "--delta", "0.1")):
        assert cli.main([cmd, "--deployment", claimed, opt, value]) == 0
        ref = capsys.readouterr().out
        assert cli.main([cmd, "--deployment", bare, opt, value]) == 0
        assert capsys.readouterr().out == ref.replace("claimed.toml", "bare.toml")
        # nothing to compute given: the file's refusal stands (one line, exit 2)
        assert cli.main([cmd, "--deployment", bare]) == 2
        err = capsys.readouterr().err
        assert "claims must hold at least one" in err and len(err.strip().splitlines()) == 1


def test_continuous_deployment_without_claims(capsys, tmp_path: pathlib.Path) -> None:
    lap = _write(
        tmp_path, "lap.toml", 'name = "l"\n[randomizer]\nmechanism = "laplace"\nepsilon0 = 1\n[users]\nn = 100\n'
    )
    assert cli.main(["delta", "--deployment", lap, "--epsilon", "1"]) == 0
    assert "delta <=" in capsys.readouterr().out
    assert cli.main(["delta", "--deployment", lap]) == 2
    assert "claims must hold at least one" in capsys.readouterr().err


def test_library_claims_still_required_by_default() -> None:
    from blanket.exact.numbers.errors import InvalidArgument

    with pytest.raises(InvalidArgument, match="claims must hold at least one"):
        parse_deployment(NO_CLAIMS)
    assert parse_deployment(NO_CLAIMS, claims_required=False).claims == ()


# ------------------------------------------------------------------ 3. the INCONCLUSIVE hints say what the run used


def test_composed_inconclusive_hint_names_what_the_run_used(capsys, tmp_path: pathlib.Path) -> None:
    """A composed claim inside its bracket (one sampled OUE round, delta(0.2) in about [0.0588, 0.0677]): the hint
    names the run's bracket, its grids and its precision from the certificate, and the real options; not the old
    fixed '--precision 16384' (a composed bracket does not use the precision cap)."""
    path = _write(
        tmp_path, "c.toml", OUE.format(users_extra='sampling = "1/2"').replace("delta = 0.1", "delta = 0.065")
    )
    out = tmp_path / "out"
    assert cli.main(["certify", "--no-pdf", "--no-plot", "-q", "-o", str(out), path]) == 3
    err = capsys.readouterr().err
    cert = json.loads((out / "certificate.json").read_text())
    c = cert["claims"][0]
    assert c["verdict"] == "INCONCLUSIVE"
    grids = c["reason"].rsplit("on grids ", 1)[1]
    assert len(grids.split(", ")) == 3  # the first grid and its two refinements
    assert f"after PLD grids {grids}" in err
    assert f"[{c['delta_lower']}, {c['delta_upper']}]" in err
    assert f"it ran at {cert['reproducibility']['precision_used']} bits" in err
    assert "--refine-seconds" in err and "16384" not in err and "--precision does not change it" in err
    # the suggested command is a real one: it runs on this file (the same bracket's upper end or better)
    assert cli.main(["delta", "--deployment", path, "--epsilon", "0.2", "--refine-seconds", "5"]) == 0
    assert "delta(epsilon = 0.2) in [" in capsys.readouterr().out


def test_generic_hint_names_the_cap_the_run_used() -> None:
    import argparse

    from blanket.reports.commands._options import inconclusive_hint

    h = inconclusive_hint(argparse.Namespace(precision=None))
    assert "4096 bits (the default)" in h and "--precision 8192" in h and "16384" not in h
    h = inconclusive_hint(argparse.Namespace(precision="512"))
    assert "512 bits (--precision)" in h and "--precision 1024" in h
    assert "not available" in inconclusive_hint(argparse.Namespace(precision=str(1 << 16)))
    assert "fixed precision" in inconclusive_hint(argparse.Namespace())
    h = inconclusive_hint(argparse.Namespace(precision=None, mechanism="laplace"))
    assert "cannot decide it" in h and "--precision" not in h


def test_fleet_and_target_hints() -> None:
    from blanket.reports.certificate import target_hint
    from blanket.reports.fleet_certificate import fleet_hint

    claims = [
        {"epsilon": "1", "delta": "1/1000", "verdict": "HOLDS", "shuffles": []},
        {
            "epsilon": "1/2",
            "delta": "1/100",
            "verdict": "INCONCLUSIVE",
            "shuffles": [
                {"verdict": "HOLDS", "lower": "0", "upper": "0.001", "route": "r"},
                {"verdict": "INCONCLUSIVE", "lower": "0.009", "upper": "0.011", "route": "view / concrete"},
            ],
        },
    ]
    h = fleet_hint(claims)
    assert "claim (1/2, 1/100), shuffle 2: [0.009, 0.011] (view / concrete)" in h and "shuffle 1" not in h
    assert "--precision does not change" in h
    t = target_hint([{"delta": "1e-9", "verdict": "INCONCLUSIVE", "reason": "no upper end"}], 256, from_file=False)
    assert "target delta 1e-9: no upper end" in t and "256 bits, --precision" in t and "--precision 512" in t
