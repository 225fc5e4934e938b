"""Balle et al.'s Bennett amplification bound for k-RR with the 2019 code's extra 1/(m a) factor (spec: Lemma 5.6 note).

The July 2020 commit "Fixed typo in Bennett bounds" removed the factor; the spec records Lemma 5.6's 2019 form as
numerically false.  This file asks whether the resulting *amplification* bound on delta is false too.
"""
from blanket.proofs.blanket import bennett_krr_float

NAME = "Bennett bound, 2019 code form (extra 1/(m a)), k-RR"
MECHANISM = "krr"
QUANTITY = "delta"
DOMAIN = {"epsilon0": ("0.1", "3"), "n": (2, 10**4), "k": (2, 10), "epsilon": ("0.05", "2")}


def delta(epsilon, epsilon0, n, k):
    return bennett_krr_float(epsilon, epsilon0, n, k, code_2019=True)
