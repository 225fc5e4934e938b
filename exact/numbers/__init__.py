"""Exact inputs, balls and precision, the error classes, input/resource guards, the number types (``types``:
type aliases for signatures) and the one-sided certified searches (``calibrate``: the smallest ε with δ(ε) ≤ target,
used by every layer above)."""

from blanket.exact.lazy import lazy_package

_EXPORTS = {
    'arith': 'add ball cancellation_bits cancellation_precision check_decimal_text decimal_interval decimal_string decisive_interval endpoints escalate exact exact_in exp_ball exp_param ge gt integer_in is_exact_number is_zero le log_ball lt maximum minimum mul nonneg_interval positive_part power repeated_product precision rel_width sign',
    'calibrate': 'Bracket Search epsilon0_for epsilon_for_delta validated_search gaussian_epsilon_guess',
    'errors': 'BlanketError FloatRefused HypothesisViolation InfeasibleTarget InvalidArgument Undecided',
    'guards': 'ball_bytes check_epsilon0 check_evaluation_memory check_memory evaluation_bytes human max_memory parse_size physical_memory require_instance set_max_memory',
    'types': 'At AtMany DeltaOptions Enclosure Execution IntegerInput NumberInput NumberOrBall ProgressOptions SweepOptions',
}
__all__, __dir__, __getattr__ = lazy_package(__name__, _EXPORTS)
