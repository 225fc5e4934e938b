"""Wang et al. (VLDB 2024) variation-ratio bound for the k-subset mechanism (their d options = our k, their
subset size k = our d).

README parameters: p = q = e^{ε0}, β = (e−1)(C(k−1, d−1) − C(k−2, d−2))/(e·C(k−1, d−1) + C(k−1, d)).
Judged against subset selection with d = 2.
"""
import math

from blanket.proofs.published_oracles import variation_ratio_bound

NAME = "Wang et al. VLDB 2024, variation-ratio bound, subset selection d = 2 (README parameters)"
MECHANISM = "subset:d=2"
QUANTITY = "delta"
DOMAIN = {"epsilon0": ("0.5", "3"), "n": (2, 10**4), "k": (3, 5), "epsilon": ("0.05", "2")}


def delta(epsilon, epsilon0, n, k, d=2):
    c = math.comb
    beta = lambda e: (e - 1) * (c(k - 1, d - 1) - c(k - 2, d - 2)) / (e * c(k - 1, d - 1) + c(k - 1, d))
    return variation_ratio_bound(epsilon, epsilon0, n, beta)
