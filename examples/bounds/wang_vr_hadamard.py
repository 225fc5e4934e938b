"""Wang et al. (VLDB 2024) variation-ratio bound for Hadamard response (K, s) with s = K/2 (one block).

README parameters: p = q = e^{ε0}, β = (s(e^{ε0} − 1)/2)/(s e^{ε0} + K − s), K = 2^⌈log2(k+1)⌉ (the K-ary
Hadamard response of exact.mechanisms.oracles.Hadamard), s = K/2: β = (e − 1)/(2(e + 1)).
"""
from blanket.proofs.published_oracles import variation_ratio_bound

NAME = "Wang et al. VLDB 2024, variation-ratio bound, Hadamard response s = K/2 (README parameters)"
MECHANISM = "hadamard"
QUANTITY = "delta"
DOMAIN = {"epsilon0": ("0.5", "3"), "n": (2, 10**4), "k": (2, 4), "epsilon": ("0.05", "2")}


def delta(epsilon, epsilon0, n, k):
    K = 1 << k.bit_length()
    s = K // 2
    return variation_ratio_bound(epsilon, epsilon0, n, lambda e: (s * (e - 1) / 2) / (s * e + K - s))
