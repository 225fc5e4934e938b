"""`blanket delta` for a frequency oracle: a concrete dataset's δ whose enclosure reaches below 0 is printed as 0
*with the reason* (text and JSON), as for every other δ the command line prints."""

import json

from blanket.reports.cli import main

# ε = 0.4 (was 0.3 until issue 25 session 7: the joined third-value statistic certifies δ(0.3) ≥ 1.5e-37 > 0 there)
ARGV = ["delta", "--mechanism", "oue", "--k", "128", "--epsilon0", "1", "-n", "1000", "--epsilon", "0.4"]


def test_clamped_lower_bound_states_its_reason(capsys):
    assert main([*ARGV, "--json"]) == 0
    lower = json.loads(capsys.readouterr().out)["lower"]
    assert lower["value"] == "0" and "below 0" in lower["lower_clamped"]
    assert main(ARGV) == 0
    line = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("Certified LOWER"))
    assert "delta >= 0" in line and "Note: the enclosure's lower end was below 0" in line
