"""A WRONG bound: the lumped (a, b, other) view of k-RR used as if it were the shuffled histogram's delta.

For k >= 4 the count of the third value is informative, so the lumped view is strictly below the true delta
(exact.shuffled.krr.delta_krr_third_lumped); it must be refuted.
"""
from blanket.exact.shuffled.krr import delta_krr_third_lumped
from blanket.exact.mechanisms.finite import KRR

NAME = "lumped (a, b, other) view of k-RR (deliberately wrong)"
MECHANISM = "krr"
QUANTITY = "delta"
DOMAIN = {"epsilon0": ("0.5", "3"), "n": (2, 10**4), "k": (4, 10), "epsilon": ("0.1", "2")}


def delta(epsilon, epsilon0, n, k):
    return delta_krr_third_lumped(KRR(k, epsilon0=epsilon0), n, epsilon=epsilon)
