"""proofs.core.ResultTable: the metadata tables of the paper modules and their join with the code (issue 15)."""

import pathlib

import pytest
import sympy as sp
import tomllib
from blanket.exact.numbers.errors import InvalidArgument
from blanket.proofs import core

ROOT = pathlib.Path(__file__).resolve().parents[1]
k, n = sp.symbols("k n")
x = sp.Symbol("x", positive=True)
x_real = sp.Symbol("x", real=True)

TOY = {
    "paper": "BBGN19",
    "domains": {"k": "k ≥ 2", "n": "n ≥ 1", "x": "x > 0"},
    "result": [
        {
            "key": "BBGN19 Toy A",
            "label": "Toy",
            "variant": "a",
            "title": "toy",
            "status": "derived",
            "kind": "upper_bound",
            "symbols": ["n", "k"],
            "domains": {"n": "n ≥ 2 here"},
            "mechanisms": ["krr"],
            "grid": [{"k": 2, "n": "10"}],
        },
        {"key": "BBGN19 Toy B", "label": "Toy", "title": "toy", "status": "derived", "symbols": ["x"]},
    ],
}


@pytest.fixture
def fresh_registry(monkeypatch):
    monkeypatch.setattr(core, "REGISTRY", {})


def test_every_table_entry_has_code_and_every_result_an_entry():
    tables = sorted((ROOT / "proofs").glob("*.toml"))
    assert tables
    keys = []
    for path in tables:
        assert (path.with_suffix(".py")).exists(), path
        keys += [e["key"] for e in tomllib.loads(path.read_text(encoding="utf-8"))["result"]]
    assert len(keys) == len(set(keys))
    assert sorted(keys) == sorted(r.key for r in core.results())


def test_tables_are_package_data():
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "*.toml" in conf["tool"]["setuptools"]["package-data"]["blanket.proofs"]


def test_register_joins_data_and_code(fresh_registry):
    table = core.ResultTable("toy.toml", {"k": k, "n": n}, data=TOY)
    r = table.register("BBGN19 Toy A", statement=sp.Le(n, k), hypotheses=table.hyps("k >= 2"))
    assert core.REGISTRY["BBGN19 Toy A"] is r and table["BBGN19 Toy A"] is r
    assert (r.paper, r.label, r.variant, r.kind, r.quantity) == ("BBGN19", "Toy", "a", "upper_bound", None)
    assert list(r.symbols.items()) == [(n, "n ≥ 2 here"), (k, "k ≥ 2")]  # table order, per-entry override
    assert r.mechanisms == ("krr",) and r.grid == ({"k": 2, "n": "10"},)
    assert r.hypotheses[0].relation == sp.Ge(k, 2, evaluate=False) and r.hypotheses[0].text == "k >= 2"
    with pytest.raises(InvalidArgument, match="entries without code"):
        table.complete()
    table.register("BBGN19 Toy B", statement=sp.Gt(x, 0, evaluate=False), symbols=(x,))
    table.complete()


def test_register_refuses_unknown_and_repeated_keys(fresh_registry):
    table = core.ResultTable("toy.toml", {"k": k, "n": n}, data=TOY)
    with pytest.raises(InvalidArgument, match="no entry in proofs/toy.toml"):
        table.register("BBGN19 Toy C", statement=sp.Le(n, k))
    table.register("BBGN19 Toy A", statement=sp.Le(n, k))
    with pytest.raises(InvalidArgument, match="already registered"):
        table.register("BBGN19 Toy A", statement=sp.Le(n, k))


def test_symbol_names_must_resolve_to_one_symbol(fresh_registry):
    table = core.ResultTable("toy.toml", {}, data=TOY)
    with pytest.raises(InvalidArgument, match="is ambiguous"):
        table.register("BBGN19 Toy B", statement=sp.Le(x, x_real))
    with pytest.raises(InvalidArgument, match="is not a symbol"):
        table.register("BBGN19 Toy A", statement=sp.Le(n, 1))  # k appears nowhere


def test_table_refuses_unknown_fields_and_duplicates():
    bad = {"result": [{"key": "BBGN19 Toy", "label": "Toy", "title": "t", "status": "derived", "statment": "x"}]}
    with pytest.raises(InvalidArgument, match="unknown fields"):
        core.ResultTable("toy.toml", {}, data=bad)
    with pytest.raises(InvalidArgument, match="twice"):
        core.ResultTable("toy.toml", {}, data={"result": TOY["result"][:1] * 2})


def test_hyps_parse_and_fold():
    table = core.ResultTable("toy.toml", {"k": k, "n": n, "x": x}, data=TOY)
    (h,) = table.hyps("n <= k - 1")
    assert h.relation == sp.Le(n, k - 1, evaluate=False)
    (folded,) = table.hyps("x > 0", evaluate=True)  # x is declared positive: sympy folds the relation
    assert folded.relation is sp.true and folded.text == "x > 0"
    with pytest.raises(InvalidArgument, match="must read"):
        table.hyps("n geq 0")
    with pytest.raises(InvalidArgument, match="is not one symbol"):
        core.ResultTable("toy.toml", {"a": x, "b": x_real}, data=TOY).hyps("x > 0")
