"""Local randomizers: finite matrices (k-RR, binary RR, any FiniteRandomizer) and the frequency oracles."""

from blanket.exact.lazy import lazy_package

_EXPORTS = {
    'continuous': 'Continuous Gaussian Laplace normal_cdf',
    'finite': 'BinaryRR FiniteRandomizer KRR Randomizer amplification_law delta_at delta_query eps0_description eps0_pair exact_epsilon0 finite_exp_epsilon0',
    'oracles': 'Geometric Hadamard LDP MAX_MATRIX_OUTPUTS OLH OUE SUE Subset UnaryEncoding',
    'registry': 'Kind WORDS SCHEMAS resolve parse_params build did_you_mean make_mechanism',
}
__all__, __dir__, __getattr__ = lazy_package(__name__, _EXPORTS)
