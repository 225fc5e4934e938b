"""Balle et al.'s Bennett amplification bound for k-RR as fixed in July 2020 (no 1/(m a) factor): a valid bound."""

import math

NAME = "Bennett bound (2020 code form), k-RR"
MECHANISM = "krr"
QUANTITY = "delta"
DOMAIN = {"epsilon0": ("0.1", "3"), "n": (2, 10**4), "k": (2, 10), "epsilon": ("0.05", "2")}


def delta(epsilon, epsilon0, n, k):
    e, e0 = math.exp(epsilon), math.exp(epsilon0)
    g = k / (e0 + k - 1)
    a = e - 1
    b = g * (1 - e) + (1 - g) * k                                         # Lemma 5.7: L <= b
    c = g * (2 - g) * (e - 1) ** 2 + (1 - g) ** 2 * k * (e * e + 1)       # Lemma 5.7: E[L^2]
    if b <= 0:
        return 0.0
    h = lambda u: (1 + u) * math.log1p(u) - u
    total = 0.0
    for m in range(1, n + 1):
        w = math.exp(math.lgamma(n + 1) - math.lgamma(m + 1) - math.lgamma(n - m + 1) + m * math.log(g) + (n - m) * math.log1p(-g)) if g < 1 else float(m == n)
        total += w * b / (math.log1p(a * b / c)) * math.exp(-m * c / b**2 * h(a * b / c))
    return total / (g * n)
