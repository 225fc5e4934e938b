"""``blanket bounds`` prints a table whose columns line up for every result (long quantity names such as
``epsilon_composed`` pushed the mechanisms column out of line)."""

from blanket.reports.cli import main


def test_columns_line_up(capsys):
    assert main(["bounds"]) == 0
    lines = capsys.readouterr().out.splitlines()
    head = lines[0]
    starts = [head.index(w) for w in ("status", "kind", "quantity", "mechanisms")]
    rows = [ln for ln in lines[1:] if ln.strip() and not ln.startswith(tuple("0123456789"))]
    assert len(rows) > 100
    for ln in rows:
        for s in starts:
            assert ln[s - 1] == " " and ln[s] != " ", (s, ln)
