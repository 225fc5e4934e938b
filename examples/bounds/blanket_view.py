"""A valid (and tight-ish) bound: the exact blanket view of Balle et al. Lemma 5.3, computed by exact.shuffled.krr."""
from blanket.exact.shuffled.krr import delta_blanket_view
from blanket.exact.mechanisms.finite import KRR

NAME = "Balle et al. Lemma 5.3 blanket view (exact), k-RR"
MECHANISM = "krr"
QUANTITY = "delta"
DOMAIN = {"epsilon0": ("0.1", "3"), "n": (2, 10**4), "k": (2, 10), "epsilon": ("0.05", "2")}


def delta(epsilon, epsilon0, n, k):
    return delta_blanket_view(KRR(k, epsilon0=epsilon0), n, epsilon=epsilon)   # a certified ball
