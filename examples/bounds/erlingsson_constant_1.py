"""A WRONG epsilon-bound: Erlingsson et al.'s Theorem 7 with the constant 12 replaced by 1 (must be refuted)."""
import math

NAME = "eps = eps0 * sqrt(log(1/delta)/n) (constant 1; deliberately wrong)"
MECHANISM = "binary"
QUANTITY = "epsilon"
DOMAIN = {"epsilon0": ("0.05", "0.5"), "n": (2, 10**6), "delta": ("1e-10", "0.01")}


def epsilon(delta, epsilon0, n):
    return float(epsilon0) * math.sqrt(math.log(1 / float(delta)) / n)
