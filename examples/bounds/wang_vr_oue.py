"""Wang et al. (VLDB 2024) variation-ratio bound with the generic parameters, applied to OUE.

OUE is not in their README's table; a user takes the "general mechanisms" row: p = q = e^{ε0},
β = (e^{ε0} − 1)/(e^{ε0} + 1) (their pair is then the SODA 2023 stronger clone, i.e. the blanket view of binary RR).
"""
from blanket.proofs.published_oracles import variation_ratio_bound

NAME = "Wang et al. VLDB 2024, variation-ratio bound, generic parameters, OUE"
MECHANISM = "oue"
QUANTITY = "delta"
DOMAIN = {"epsilon0": ("0.5", "3"), "n": (2, 10**4), "k": (2, 3), "epsilon": ("0.05", "2")}


def delta(epsilon, epsilon0, n, k):
    return variation_ratio_bound(epsilon, epsilon0, n, lambda e: (e - 1) / (e + 1))
