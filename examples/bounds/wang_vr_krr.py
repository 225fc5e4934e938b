"""Wang et al. (VLDB 2024) variation-ratio amplification bound for k-RR ("general RR on d options").

Their README's parameters: p = q = e^{ε0}, β = (e^{ε0} − 1)/(e^{ε0} + k − 1).  The δ(ε) of their pair
(``Delta`` in ``wangsw/PrivacyAmplification``, unifiedamplification.py) is computed here in certified ball
arithmetic (exact.shuffled.oracles.variation_ratio_delta, which agrees with the authors' float code to 7+
digits, docs/mechanisms.md), so a refutation is not a rounding effect: it says the pair itself is below the
true worst case.  The authors' δ is a numerical upper bound users take as their δ.
"""

from blanket.proofs.published_oracles import variation_ratio_bound

NAME = "Wang et al. VLDB 2024, variation-ratio bound, k-RR (README parameters)"
MECHANISM = "krr"
QUANTITY = "delta"
DOMAIN = {"epsilon0": ("0.5", "3"), "n": (2, 10**4), "k": (3, 10), "epsilon": ("0.05", "2")}


def delta(epsilon, epsilon0, n, k):
    return variation_ratio_bound(epsilon, epsilon0, n, lambda e: (e - 1) / (e + k - 1))
