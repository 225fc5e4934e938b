"""Wang et al. (VLDB 2024) variation-ratio bound for Hadamard response (K, s) with s = K/2 (one block).

README parameters: p = q = e^{ε0}, β = (s(e^{ε0} − 1)/2)/(s e^{ε0} + K − s), K = 2^⌈log2(k+1)⌉ (the K-ary
Hadamard response of exact.mechanisms.oracles.Hadamard), s = K/2: β = (e − 1)/(2(e + 1)).
"""
from flint import arb, fmpq

from blanket.exact.mechanisms.oracles import variation_ratio_delta

NAME = "Wang et al. VLDB 2024, variation-ratio bound, Hadamard response s = K/2 (README parameters)"
MECHANISM = "hadamard"
QUANTITY = "delta"
DOMAIN = {"epsilon0": ("0.5", "3"), "n": (2, 10**4), "k": (2, 4), "epsilon": ("0.05", "2")}


def delta(epsilon, epsilon0, n, k):
    e = arb(fmpq(epsilon0.numerator, epsilon0.denominator)).exp()
    K = 1 << k.bit_length()
    s = K // 2
    beta = (s * (e - 1) / 2) / (s * e + K - s)
    return variation_ratio_delta(n, e, beta, epsilon=fmpq(epsilon.numerator, epsilon.denominator))
