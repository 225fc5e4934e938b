"""`blanket certify` of a one-round `geometric` deployment with m = 2 uses binary RR's exact worst case, as
`blanket delta|epsilon` do (Geometric.as_binary_rr, registered 'Geometric m = 2 is binary RR').  The reference is
an independent deployment file of binary RR with e^eps0 = 1/alpha certified on its own route."""

from blanket.reports.certificate import certify

GEO = """name = "g"
[mechanism]
type = "geometric"
m = 2
alpha = "1/3"
[users]
n = 200
[[claims]]
epsilon = "0.6"
delta = "1e-6"
[options]
target_delta = "1e-6"
"""

RR = GEO.replace('type = "geometric"\nm = 2\nalpha = "1/3"', 'type = "binary_rr"\nexp_epsilon0 = "3"')


def test_geometric_m2_certifies_as_binary_rr(tmp_path):
    (tmp_path / "g.toml").write_text(GEO)
    (tmp_path / "r.toml").write_text(RR)
    g = certify(str(tmp_path / "g.toml"), plot=False)
    r = certify(str(tmp_path / "r.toml"), plot=False)
    tg, tr = g["targets"][0], r["targets"][0]
    assert (tg["epsilon_lower"], tg["epsilon_upper"]) == (tr["epsilon_lower"], tr["epsilon_upper"])
    assert float(tg["relative_width"]) < 1e-3  # the dominating-law route left about 15 % at this size
    assert g["deployment"]["mechanism"] == "geometric"  # the file as given, and the routing said in words
    assert "certified as binary randomized response" in g["mechanism_text"]
    assert "Geometric m = 2 is binary RR" in [c["key"] for c in g["chain"]]
    assert g["verdict"] == r["verdict"] == "HOLDS"
