"""Wang et al. (VLDB 2024) variation-ratio bound for local hashing with length l ("local hash", l = g).

README parameters: p = q = e^{ε0}, β = (e^{ε0} − 1)/(e^{ε0} + l − 1).  Judged against local hashing with
g = 2 (BLH) and the family of all maps [k] → [2] (pairwise independent).
"""
from blanket.proofs.published_oracles import variation_ratio_bound

NAME = "Wang et al. VLDB 2024, variation-ratio bound, local hashing l = 2 (README parameters)"
MECHANISM = "olh:g=2"
QUANTITY = "delta"
DOMAIN = {"epsilon0": ("0.5", "3"), "n": (2, 10**4), "k": (2, 3), "epsilon": ("0.05", "2")}


def delta(epsilon, epsilon0, n, k, g=2):
    return variation_ratio_bound(epsilon, epsilon0, n, lambda e: (e - 1) / (e + g - 1))
