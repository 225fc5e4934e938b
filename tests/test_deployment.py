"""Tests for reports.deployment: exact parsing, validation messages naming the field."""

import pathlib

import pytest
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


@pytest.mark.parametrize(
    "old,new,field",
    [
        ("k = 3", "k = 1", "randomizer.k"),
        ("k = 3", 'k = "three"', "randomizer.k"),
        ("epsilon0 = 1.5", "epsilon0 = -1", "randomizer.epsilon0"),
        ("epsilon0 = 1.5", 'epsilon0 = "abc"', "randomizer.epsilon0"),
        ("n = 100", "n = -5", "users.n"),
        ("n = 100", "n = 10.5", "users.n"),
        ("delta = 1e-6", "delta = 2", "claims[0].delta"),
        ("delta = 1e-6", "delta = -1e-6", "claims[0].delta"),
        ("delta = 1e-6", "delta = nan", "claims[0].delta"),
        ("epsilon = 0.5", "epsilon = -0.5", "claims[0].epsilon"),
        ('mechanism = "krr"', 'mechanism = "gauss"', "randomizer.mechanism"),
        ("delta = 1e-6", "delta = 1e-6\ncolour = 1", "claims[0].colour"),
    ],
)
def test_bad_values_name_the_field(old, new, field):
    with pytest.raises(InvalidArgument) as e:
        parse_deployment(BASE.replace(old, new))
    assert str(e.value).startswith(field), str(e.value)


@pytest.mark.parametrize(
    "drop,field",
    [
        ('name = "x"\n', "name"),
        ("n = 100\n", "users.n"),
        ("k = 3\n", "randomizer.k"),
        ("epsilon0 = 1.5\n", "randomizer.epsilon0"),
    ],
)
def test_missing_fields(drop, field):
    with pytest.raises(InvalidArgument) as e:
        parse_deployment(BASE.replace(drop, ""))
    assert str(e.value).startswith(field)


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
    import tomllib
    from blanket.exact.mechanisms.oracles import make_mechanism

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
