"""Wang et al. (VLDB 2024) variation-ratio bound for basic RAPPOR (SUE, "binary RR on d options").

README parameters: p = q = e^{ε0}, β = (e^{ε0/2} − 1)/(e^{ε0/2} + 1).  Judged against SUE (symmetric unary
encoding = basic RAPPOR) on k values; the pair's δ is evaluated in ball arithmetic
(exact.shuffled.oracles.variation_ratio_delta).
"""

from blanket.proofs.published_oracles import variation_ratio_bound

NAME = "Wang et al. VLDB 2024, variation-ratio bound, RAPPOR/SUE (README parameters)"
MECHANISM = "sue"
QUANTITY = "delta"
DOMAIN = {"epsilon0": ("0.5", "3"), "n": (2, 10**4), "k": (2, 3), "epsilon": ("0.05", "2")}


def delta(epsilon, epsilon0, n, k):
    return variation_ratio_bound(epsilon, epsilon0, n, lambda e: (e.sqrt() - 1) / (e.sqrt() + 1))
