"""Exact inputs, balls and precision, the error classes, input/resource guards, and the number types.

Modules: ``arith``, ``errors``, ``guards``, ``types`` (type aliases for signatures).
Public names are loaded lazily (importing the package imports no module).
"""

from __future__ import annotations

from blanket.exact.lazy import lazy_package

_MODULES = ('arith', 'errors', 'guards', 'types')
_EXPORTS = {
    'BlanketError': 'errors',
    'Enclosure': 'types',
    'FloatRefused': 'errors',
    'HypothesisViolation': 'errors',
    'InfeasibleTarget': 'errors',
    'IntegerInput': 'types',
    'InvalidArgument': 'errors',
    'NumberInput': 'types',
    'NumberOrBall': 'types',
    'Undecided': 'errors',
    'add': 'arith',
    'ball': 'arith',
    'ball_bytes': 'guards',
    'check_decimal_text': 'guards',
    'check_epsilon0': 'guards',
    'check_evaluation_memory': 'guards',
    'check_memory': 'guards',
    'decimal_interval': 'arith',
    'decimal_string': 'arith',
    'decisive_interval': 'arith',
    'endpoints': 'arith',
    'escalate': 'arith',
    'evaluation_bytes': 'guards',
    'exact': 'arith',
    'exact_in': 'arith',
    'exp_ball': 'arith',
    'exp_param': 'arith',
    'ge': 'arith',
    'gt': 'arith',
    'human': 'guards',
    'integer_in': 'arith',
    'is_exact_number': 'arith',
    'is_zero': 'arith',
    'le': 'arith',
    'log_ball': 'arith',
    'lt': 'arith',
    'max_memory': 'guards',
    'maximum': 'arith',
    'minimum': 'arith',
    'mul': 'arith',
    'nonneg_interval': 'arith',
    'parse_size': 'guards',
    'physical_memory': 'guards',
    'positive_part': 'arith',
    'power': 'arith',
    'repeated_product': 'arith',
    'precision': 'arith',
    'rel_width': 'arith',
    'set_max_memory': 'guards',
    'sign': 'arith',
}
__all__, __dir__, __getattr__ = lazy_package(__name__, _MODULES, _EXPORTS)
