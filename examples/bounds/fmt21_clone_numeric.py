"""Feldman–McMillan–Talwar (FOCS 2021) clone bound, numeric form: δ(ε) of the clone pair, for every ε0-LDP randomizer.

The pair (C ~ Bin(n−1, e^{−ε0}), ...) is evaluated exactly in ball arithmetic by
exact.shuffled.oracles.clone_delta.  The claim covers every ε0-LDP randomizer, so k-RR (every k) is a fair judge.
"""

from blanket.exact.mechanisms.oracles import LDP
from blanket.exact.shuffled.oracles import clone_delta

NAME = "Feldman-McMillan-Talwar FOCS 2021, clone pair (numeric), any eps0-LDP randomizer"
MECHANISM = "krr"
QUANTITY = "delta"
DOMAIN = {"epsilon0": ("0.1", "3"), "n": (2, 10**4), "k": (2, 6), "epsilon": ("0.05", "2")}


def delta(epsilon, epsilon0, n):
    return clone_delta(LDP(epsilon0), n, epsilon=epsilon)
