"""One composed round is written in the singular (``--rounds 1``), several in the plural: the stderr estimate line and
the answer's first line (tryout11 found "for 1 composed rounds" and "composing 1 rounds")."""

from __future__ import annotations


def test_one_round_is_singular_and_two_are_plural(monkeypatch, capsys):
    from blanket.reports import cli as blanket_cli
    from blanket.reports import composition

    monkeypatch.setattr(composition, "ESTIMATE_SHOWN_SECONDS", 0.0)  # always print the estimate line
    base = ["delta", "--mechanism", "krr", "--k", "3", "--epsilon0", "1", "-n", "50", "--epsilon", "1", "--rounds"]
    assert blanket_cli.main([*base, "1"]) == 0
    cap = capsys.readouterr()
    assert cap.err.startswith("blanket: composing 1 round: about "), cap.err
    assert "for 1 composed round\n" in cap.out, cap.out
    assert "1 composed rounds" not in cap.out and "composing 1 rounds" not in cap.err
    assert blanket_cli.main([*base, "2"]) == 0
    cap = capsys.readouterr()
    assert cap.err.startswith("blanket: composing 2 rounds: about "), cap.err
    assert "2 composed rounds" in cap.out
