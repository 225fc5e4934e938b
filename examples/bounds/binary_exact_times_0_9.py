"""A WRONG bound: 0.9 times the exact worst-case delta of shuffled binary RR (must be refuted)."""
from blanket.exact.shuffled.binary import delta_binary_worst
from blanket.exact.mechanisms.finite import BinaryRR
from flint import fmpq

NAME = "0.9 x exact binary-RR delta (deliberately wrong)"
MECHANISM = "binary"
QUANTITY = "delta"
DOMAIN = {"epsilon0": ("0.5", "3"), "n": (2, 2000), "epsilon": ("0.1", "2")}


def delta(epsilon, epsilon0, n):
    return fmpq(9, 10) * delta_binary_worst(BinaryRR(epsilon0), n, epsilon=epsilon).value
