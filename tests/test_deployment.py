"""Tests for reports.deployment: exact parsing, validation messages naming the field."""

import pathlib

import pytest
import tomllib
from blanket.exact.numbers.errors import InvalidArgument
from blanket.reports.deployment import load_deployment, parse_deployment
from flint import fmpq
from hypothesis import given
from hypothesis import strategies as st

ROOT = pathlib.Path(__file__).resolve().parents[1]
BASE = '''name = "x"
[randomizer]
mechanism = "krr"
k = 3
epsilon0 = 1.5
[users]
n = 100
[[claims]]
epsilon = 0.5
delta = 1e-6
'''


def test_floats_are_read_from_their_decimal_text():
    d = parse_deployment(BASE.replace("delta = 1e-6", "delta = 0.1"))
    assert d.claims[0].delta == fmpq(1, 10)  # not the binary float 0.1
    assert d.params["epsilon0"] == fmpq(3, 2)


def _bad_deployments():
    """``(text, field)`` (a ``pytest.param``) for each case of tests/data/deployment_errors.toml: a deployment file
    and the field its error must name first."""
    cases = tomllib.loads((ROOT / "tests" / "data" / "deployment_errors.toml").read_text(encoding="utf-8"))
    for c in cases["replace"]:
        yield pytest.param(BASE.replace(c["old"], c["new"]), c["field"], id=c["new"])
    for c in cases["drop"]:
        yield pytest.param(BASE.replace(c["drop"] + "\n", ""), c["field"], id="without " + c["drop"])
    rest = '[users]\nn = 1000\n[[claims]]\nepsilon = "0.5"\ndelta = "1e-6"\n'
    for c in cases["table"]:
        text = f'name = "x"\n[{c["table"]}]\n' + "\n".join(c["body"]) + "\n" + rest
        yield pytest.param(text, c["field"], id=f"[{c['table']}] " + "; ".join(c["body"]))


@pytest.mark.parametrize("text,field", _bad_deployments())
def test_bad_deployment_names_the_field(text, field):
    """A bad value or a missing field: the error names the field first, in the table the file uses
    (``[mechanism] type = …``, the examples' spelling, gives ``mechanism.<key>``; ``[randomizer] mechanism = …``
    gives ``randomizer.<key>``)."""
    with pytest.raises(InvalidArgument) as e:
        parse_deployment(text)
    assert str(e.value).startswith(field + " "), str(e.value)


def test_missing_claims_and_targets():
    text = BASE.split("[[claims]]")[0]
    with pytest.raises(InvalidArgument, match="claims"):
        parse_deployment(text)


def test_malformed_toml():
    with pytest.raises(InvalidArgument, match="not valid TOML"):
        parse_deployment('name = "x\n[randomizer')


def test_neighbouring_other_than_replace_one_is_refused():
    with pytest.raises(InvalidArgument, match="neighbouring"):
        parse_deployment('neighbouring = "add-remove"\n' + BASE)


def test_matrix_rows_must_sum_to_one():
    text = BASE.replace(
        'mechanism = "krr"\nk = 3\nepsilon0 = 1.5', 'mechanism = "matrix"\nmatrix = [["1/2","1/3"],["1/2","1/2"]]'
    )
    with pytest.raises(InvalidArgument, match="row 0"):
        parse_deployment(text)


def test_examples_parse():
    """Every shipped deployment loads (the frequency-oracle ones too), and its [mechanism] table is what the reader
    built: the oracle examples also build with make_mechanism, to the same record."""
    from blanket.exact.mechanisms.registry import make_mechanism

    for path in sorted((ROOT / "examples").glob("*.toml")):
        table = tomllib.loads(path.read_text(encoding="utf-8")).get("mechanism", {})
        d = load_deployment(path)
        assert d.claims or d.targets, path
        if table.get("type") in ("ldp", "oue", "sue", "olh", "hadamard", "subset", "geometric"):
            assert d.mechanism == table["type"], path
            assert make_mechanism(dict(table)).describe() == d.query().mechanism.describe(), path


def test_telemetry_format_is_accepted():
    path = ROOT / "examples" / "telemetry.toml"
    d = load_deployment(path)
    assert d.mechanism in ("krr", "binary_rr") and d.n >= 2


def test_hash_changes_with_content():
    a = parse_deployment(BASE)
    b = parse_deployment(BASE.replace("n = 100", "n = 101"))
    assert a.sha256 != b.sha256 and a.sha256 == parse_deployment(BASE).sha256


@given(st.integers(min_value=2, max_value=10**9))
def test_n_round_trip(n):
    assert parse_deployment(BASE.replace("n = 100", f"n = {n}")).n == n
