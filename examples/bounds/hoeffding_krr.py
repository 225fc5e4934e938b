"""A valid bound: Balle et al. Theorem 5.3 (Hoeffding) for k-RR, pre-form with the exact gamma, written in floats.

delta(eps) = gamma B^2/(4 a n) * (1 - gamma (1 - exp(-2 a^2/(gamma^2 B^2))))^n,
a = e^eps - 1, B = (e^eps + 1)(e^eps0 - e^-eps0), gamma = k/(e^eps0 + k - 1).
"""
import math

NAME = "Balle et al. Theorem 5.3 (Hoeffding pre-form), k-RR"
MECHANISM = "krr"
QUANTITY = "delta"
DOMAIN = {"epsilon0": ("0.1", "3"), "n": (2, 10**6), "k": (2, 10), "epsilon": ("0.05", "2")}


def delta(epsilon, epsilon0, n, k):
    e, e0 = math.exp(epsilon), math.exp(epsilon0)
    gamma = k / (e0 + k - 1)
    a, B = e - 1, (e + 1) * (e0 - 1 / e0)
    return gamma * B**2 / (4 * a * n) * (1 - gamma * (1 - math.exp(-2 * a**2 / (gamma * B) ** 2))) ** n
