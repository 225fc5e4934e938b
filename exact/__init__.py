"""The exact layer: the true quantities, as exact rationals (``fmpq``) or ``arb`` balls that contain them.

Subpackages (each ``__init__`` holds one table of its modules and the public names each defines, loaded lazily by
:mod:`~blanket.exact.lazy`: importing a subpackage imports none of its modules):

* :mod:`~blanket.exact.numbers` — exact inputs, balls and precision, the error classes, input and resource guards;
* :mod:`~blanket.exact.mechanisms` — local randomizers (finite matrices, k-RR, the frequency oracles) and the one
  vocabulary of their names (:mod:`~blanket.exact.mechanisms.registry`);
* :mod:`~blanket.exact.laws` — count laws: the windowed binomial engine, divergences of finite distributions;
* :mod:`~blanket.exact.shuffled` — shuffled mechanisms: datasets, families, worst cases, blanket views;
* :mod:`~blanket.exact.accounting` — privacy profiles, calibration, Rényi, privacy loss distributions, the accountant,
  the validated query;
* :mod:`~blanket.exact.protocols` — real summation, the Cheu–Yan truncated discrete Laplace aggregator;
* :mod:`~blanket.exact.runtime` — process pools and Dask, progress bars, up-front cost refusal.
"""

__all__ = ["numbers", "mechanisms", "laws", "shuffled", "accounting", "protocols", "runtime"]
