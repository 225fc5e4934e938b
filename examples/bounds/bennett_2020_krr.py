"""Balle et al.'s Bennett amplification bound for k-RR as fixed in July 2020 (no 1/(m a) factor): a valid bound."""

from blanket.proofs.blanket import bennett_krr_float

NAME = "Bennett bound (2020 code form), k-RR"
MECHANISM = "krr"
QUANTITY = "delta"
DOMAIN = {"epsilon0": ("0.1", "3"), "n": (2, 10**4), "k": (2, 10), "epsilon": ("0.05", "2")}


def delta(epsilon, epsilon0, n, k):
    return bennett_krr_float(epsilon, epsilon0, n, k)
