"""Wang et al. (VLDB 2024) variation-ratio bound with the generic parameters, applied to OUE.

OUE is not in their README's table; a user takes the "general mechanisms" row: p = q = e^{ε0},
β = (e^{ε0} − 1)/(e^{ε0} + 1) (their pair is then the SODA 2023 stronger clone, i.e. the blanket view of binary RR).
"""
from flint import arb, fmpq

from blanket.exact.mechanisms.oracles import variation_ratio_delta

NAME = "Wang et al. VLDB 2024, variation-ratio bound, generic parameters, OUE"
MECHANISM = "oue"
QUANTITY = "delta"
DOMAIN = {"epsilon0": ("0.5", "3"), "n": (2, 10**4), "k": (2, 3), "epsilon": ("0.05", "2")}


def delta(epsilon, epsilon0, n, k):
    e = arb(fmpq(epsilon0.numerator, epsilon0.denominator)).exp()
    return variation_ratio_delta(n, e, (e - 1) / (e + 1), epsilon=fmpq(epsilon.numerator, epsilon.denominator))
