"""``blanket renyi --delta``: when the best order is the largest of the grid, the output says that a larger order
may give a smaller ε (the optimum over all orders may lie beyond the grid), in the text and in the JSON."""

import json

from blanket.reports.cli import main


def _run(capsys, *argv):
    assert main(["renyi", "--mechanism", "rr", "--epsilon0", "1", "--order", "2", "--delta", "1e-6", *argv]) == 0
    return capsys.readouterr().out


def test_best_order_at_the_top_of_the_grid_is_flagged(capsys):
    # n = 10^4: the conversion's optimum is near sqrt(log(1/δ)/c) ≈ 370 > 256, the grid's largest order
    out = _run(capsys, "-n", "10000", "--dataset", "c=0")
    lines = [ln for ln in out.splitlines() if "RDP -> DP" in ln]
    assert lines and all("the largest order of the grid" in ln for ln in lines), out
    js = json.loads(_run(capsys, "-n", "10000", "--dataset", "c=0", "--json"))
    assert all(js["conversion"][m]["order_is_grid_max"] for m in ("standard", "improved"))


def test_best_order_inside_the_grid_is_not_flagged(capsys):
    out = _run(capsys, "-n", "1000", "--dataset", "c=0")
    lines = [ln for ln in out.splitlines() if "RDP -> DP" in ln]
    assert lines and not any("largest order" in ln for ln in lines), out
