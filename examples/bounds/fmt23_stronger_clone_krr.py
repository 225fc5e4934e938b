"""Feldman–McMillan–Talwar (SODA 2023) "stronger clone" bound applied to k-RR: δ(ε) of shuffled binary RR's
blanket view with the same ε0 (exact.shuffled.krr.delta_stronger_clones).

The SODA 2023 paper states it for every ε0-LDP randomizer; its erratum restricts the class (docs/mechanisms.md).
Judged here for k-ary randomized response, a randomizer users apply it to.
"""
from blanket.exact.shuffled.krr import delta_stronger_clones

NAME = "Feldman-McMillan-Talwar SODA 2023 stronger clone, k-RR"
MECHANISM = "krr"
QUANTITY = "delta"
DOMAIN = {"epsilon0": ("0.5", "3"), "n": (2, 10**4), "k": (2, 10), "epsilon": ("0.05", "2")}


def delta(epsilon, epsilon0, n):
    return delta_stronger_clones(n, epsilon0=epsilon0, epsilon=epsilon)
