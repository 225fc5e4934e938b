"""A deployment error names the table the file uses: ``[mechanism] type = …`` (the examples' spelling) gives
``mechanism.<key>``, ``[randomizer] mechanism = …`` gives ``randomizer.<key>`` (errors always said randomizer)."""

import pytest
from blanket.exact.numbers.errors import InvalidArgument
from blanket.reports.deployment import parse_deployment

REST = '\n[users]\nn = 1000\n[[claims]]\nepsilon = "0.5"\ndelta = "1e-6"\n'


@pytest.mark.parametrize(
    "table, body, name",
    [
        ("mechanism", 'type = "krr"\nk = 2\nepsilon_0 = "2"', "mechanism.epsilon_0"),
        ("mechanism", 'type = "krx"\nk = 2\nepsilon0 = "2"', "mechanism.type"),
        ("mechanism", 'type = "krr"\nk = 1\nepsilon0 = "2"', "mechanism.k"),
        ("randomizer", 'mechanism = "krr"\nk = 2\nepsilon_0 = "2"', "randomizer.epsilon_0"),
        ("randomizer", 'mechanism = "krx"\nk = 2\nepsilon0 = "2"', "randomizer.mechanism"),
    ],
)
def test_errors_name_the_files_table(table, body, name):
    with pytest.raises(InvalidArgument) as e:
        parse_deployment(f'name = "x"\n[{table}]\n{body}{REST}')
    assert str(e.value).startswith(name + " "), str(e.value)
