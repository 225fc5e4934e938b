"""Feldman–McMillan–Talwar (SODA 2023) "stronger clone" bound applied to Hadamard response (K-ary, s = K/2).

δ(ε) of shuffled binary RR's blanket view with the same ε0 (exact.shuffled.krr.delta_stronger_clones).  Equal to
the variation-ratio pair of Wang et al. with the generic β (docs/mechanisms.md).
"""
from blanket.exact.shuffled.krr import delta_stronger_clones

NAME = "Feldman-McMillan-Talwar SODA 2023 stronger clone, Hadamard response"
MECHANISM = "hadamard"
QUANTITY = "delta"
DOMAIN = {"epsilon0": ("0.5", "3"), "n": (2, 10**4), "k": (2, 4), "epsilon": ("0.05", "2")}


def delta(epsilon, epsilon0, n):
    return delta_stronger_clones(n, epsilon0=epsilon0, epsilon=epsilon)
