"""The one vocabulary (exact/mechanisms/registry.py): words, aliases, schemas, builders, did-you-mean."""

from __future__ import annotations

import pytest
from blanket.exact.mechanisms import oracles, registry
from blanket.exact.mechanisms.finite import KRR, FiniteRandomizer
from blanket.exact.mechanisms.registry import Kind
from blanket.exact.numbers.errors import InvalidArgument
from flint import fmpq

#: one valid parameter table per kind (exact inputs)
TABLES = {
    Kind.KRR: {"k": 3, "exp_epsilon0": "3"},
    Kind.BINARY_RR: {"exp_epsilon0": "3"},
    Kind.MATRIX: {"matrix": [[fmpq(3, 4), fmpq(1, 4)], [fmpq(1, 4), fmpq(3, 4)]]},
    Kind.LAPLACE: {"epsilon0": "1"},
    Kind.GAUSSIAN: {"sigma": "1"},
    Kind.LDP: {"exp_epsilon0": "3"},
    Kind.OUE: {"k": 4, "exp_epsilon0": "3"},
    Kind.SUE: {"k": 4, "exp_half_epsilon0": "2"},
    Kind.OLH: {"k": 5, "g": 3, "exp_epsilon0": "3"},
    Kind.HADAMARD: {"k": 3, "exp_epsilon0": "3"},
    Kind.SUBSET: {"k": 6, "d": 2, "exp_epsilon0": "3"},
    Kind.GEOMETRIC: {"m": 3, "alpha": "1/2"},
}


def test_every_kind_has_a_schema_and_a_table():
    assert set(registry.SCHEMAS) == set(Kind) == set(TABLES)


@pytest.mark.parametrize("kind", list(Kind))
def test_every_word_round_trips(kind):
    assert registry.resolve(kind.value) is kind
    assert registry.resolve(kind.value.upper()) is kind
    assert registry.resolve(f"  {kind.value} ") is kind
    assert registry.resolve(kind) is kind
    assert kind.value in registry.WORDS and str(kind) == kind.value


@pytest.mark.parametrize(
    "word, kind",
    [
        ("binary", Kind.BINARY_RR),
        ("binary-rr", Kind.BINARY_RR),
        ("k-rr", Kind.KRR),
        ("k_rr", Kind.KRR),
        ("finite", Kind.MATRIX),
        ("rappor", Kind.SUE),
        ("generic", Kind.LDP),
        ("local_hashing", Kind.OLH),
    ],
)
def test_aliases(word, kind):
    assert registry.resolve(word) is kind


def test_rr_is_binary_unless_k_is_given():
    assert registry.resolve("rr") is Kind.BINARY_RR
    assert registry.resolve("rr", k=2) is Kind.BINARY_RR
    assert registry.resolve("rr", k="2") is Kind.BINARY_RR
    assert registry.resolve("rr", k=5) is Kind.KRR


def test_unknown_word_did_you_mean():
    with pytest.raises(InvalidArgument) as exc:
        registry.resolve("hadamrd", name="--mechanism")
    msg = str(exc.value)
    assert msg.startswith("--mechanism must be one of rr, krr, binary_rr")
    assert "aliases: " in msg and "rappor" in msg
    assert "did you mean 'hadamard'?" in msg
    with pytest.raises(InvalidArgument) as exc:  # nothing close: no suggestion
        registry.resolve("zzzzzz")
    assert "did you mean" not in str(exc.value)
    with pytest.raises(InvalidArgument):
        registry.resolve(3)


def test_unknown_key_did_you_mean_and_required_key():
    with pytest.raises(InvalidArgument) as exc:
        registry.parse_params("olh", {"k": 5, "gg": 3, "epsilon0": "1"}, name=lambda k: f"randomizer.{k}")
    assert str(exc.value).startswith("randomizer.gg is not a parameter of local hashing")
    assert "did you mean 'g'?" in str(exc.value)
    with pytest.raises(InvalidArgument, match="randomizer.g is required for local hashing"):
        registry.parse_params("olh", {"k": 5, "epsilon0": "1"}, name=lambda k: f"randomizer.{k}")
    with pytest.raises(InvalidArgument, match="exactly one"):
        registry.parse_params("ldp", {})
    with pytest.raises(InvalidArgument, match="exactly one"):
        registry.parse_params("ldp", {"epsilon0": "1", "exp_epsilon0": "3"})


def test_values_are_parsed_exactly_and_checked():
    p = registry.parse_params("subset", {"k": "6", "d": 2, "epsilon0": "0.1"})
    assert p == {"k": 6, "d": 2, "epsilon0": fmpq(1, 10)}
    with pytest.raises(InvalidArgument, match="k must be >= 2"):
        registry.parse_params("oue", {"k": 1, "epsilon0": "1"})
    with pytest.raises(InvalidArgument, match="d must be < k"):
        registry.parse_params("subset", {"k": 3, "d": 3, "epsilon0": "1"})
    with pytest.raises(InvalidArgument, match="must be 2 for binary_rr"):
        registry.parse_params("binary_rr", {"k": 3, "epsilon0": "1"})
    with pytest.raises(InvalidArgument, match="not a binary float|exact"):
        registry.parse_params("oue", {"k": 3, "epsilon0": 0.1})


@pytest.mark.parametrize("kind", list(Kind))
def test_build_gives_the_record_of_the_direct_constructor(kind):
    rec = registry.build(kind, registry.parse_params(kind, TABLES[kind]))
    direct = {
        Kind.KRR: lambda: KRR(3, exp_epsilon0=3),
        Kind.BINARY_RR: lambda: KRR(2, exp_epsilon0=3),
        Kind.MATRIX: lambda: FiniteRandomizer([["3/4", "1/4"], ["1/4", "3/4"]]),
        Kind.LAPLACE: lambda: None,
        Kind.GAUSSIAN: lambda: None,
        Kind.LDP: lambda: oracles.LDP(exp_epsilon0=3),
        Kind.OUE: lambda: oracles.OUE(4, exp_epsilon0=3),
        Kind.SUE: lambda: oracles.SUE(4, exp_half_epsilon0=2),
        Kind.OLH: lambda: oracles.OLH(5, 3, exp_epsilon0=3),
        Kind.HADAMARD: lambda: oracles.Hadamard(3, exp_epsilon0=3),
        Kind.SUBSET: lambda: oracles.Subset(6, 2, exp_epsilon0=3),
        Kind.GEOMETRIC: lambda: oracles.Geometric(3, alpha="1/2"),
    }[kind]()
    if direct is None:
        assert rec is None
        return
    assert type(rec) is type(direct)
    assert rec.exp_epsilon0() == direct.exp_epsilon0()
    if hasattr(direct, "gamma") and kind is not Kind.LDP:
        assert rec.gamma() == direct.gamma()


def test_make_mechanism_uses_the_registry_words_and_keys():
    m = registry.make_mechanism({"type": "RAPPOR", "k": 4, "exp_half_epsilon0": "2"})
    assert m.kind == "sue" and m.exp_epsilon0() == 4
    with pytest.raises(InvalidArgument, match="did you mean 'subset'"):
        registry.make_mechanism({"type": "subst", "k": 4, "d": 1, "epsilon0": "1"})
