"""``--rounds T`` for ``blanket epsilon`` / ``blanket delta``: T composed shuffled rounds (certified accountant).

The answer is an interval: the upper end is certified for the composition (product of dominating pairs,
pessimistic PLD); the lower end is certified for the mechanism itself (the T rounds run on one concrete pair
of datasets, optimistic PLD), so a claim below it is false. See ``docs/composition.md``.
"""

from __future__ import annotations

from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument

from . import _profile_common as common


def rounds(args):
    t = getattr(args, "rounds", None)
    return None if t is None else arith.integer_in(t, "--rounds", lo=1, hi=10**7)


def _accountant(args, inp, T):
    from blanket.exact.accounting.accountant import ShuffleAccountant, Shuffled, ShuffledRR

    if inp.mechanism is None:
        raise InvalidArgument("--rounds", T, "needs a mechanism (--mechanism rr --epsilon0 E0 -n N)")
    if inp.dataset != "worst":
        raise InvalidArgument(
            "--dataset",
            inp.dataset,
            "is not used with --rounds (the composition is certified for "
            "every dataset; the lower end is a concrete dataset pair)",
        )
    if inp.oracle:  # any other randomizer of the vocabulary: the FOCS 2021 clone pair per round
        return ShuffleAccountant().compose(Shuffled(inp.mechanism, inp.n), count=T)
    if inp.epsilon0 is None:
        raise InvalidArgument("--rounds", T, "needs --epsilon0 (exp_epsilon0 deployments are not supported here)")
    return ShuffleAccountant().compose(ShuffledRR(k=inp.k, epsilon0=inp.epsilon0, n=inp.n), count=T)


def _pair_name(inp) -> str:
    """The dominating pair each round contributes."""
    return "FOCS 2021 clone pair, any epsilon0-LDP randomizer" if inp.oracle else "Lemma 5.3 blanket view"


def _dec(x, up, digits):
    from flint import fmpq

    return arith.decimal_string(fmpq(x.numerator, x.denominator), digits, up=up)


def run_epsilon(args, inp, T) -> int:
    e = _accountant(args, inp, T).get_epsilon(inp.delta)
    d = inp.digits
    up = "inf" if e.upper == float("inf") else _dec(e.upper, True, d)
    iv = {"lower": _dec(e.lower, False, d), "upper": up}
    payload = {
        "command": "epsilon",
        **inp.describe(),
        "rounds": T,
        "delta": common._s(inp.delta),
        "epsilon": iv,
        "sandwich_lower": _dec(e.pair_lower, False, d),
        "grid": str(e.grid),
        "relation": "composition",
        "route": "PLD of dominating pairs (pessimistic/optimistic), ball-exact convolution",
    }
    text = (
        f"epsilon = {up} (certified upper end for {T} composed rounds; the mechanism's epsilon lies in "
        f"[{iv['lower']}, {up}])\n"
        f"for delta = {common._s(inp.delta)}, {common.mechanism_phrase(inp)}, shuffled among n = {inp.n} users per round.\n"
        f"Upper end: product of dominating pairs ({_pair_name(inp)}), pessimistic PLD on grid {e.grid} "
        f"(sandwich [{payload['sandwich_lower']}, {up}], width {float(e.rel_width) * 100:.2f}%).\n"
        f"Lower end: the {T} rounds on one concrete pair of datasets (a claim below it is false)."
    )
    common.emit(args, payload, text)
    return 0


def run_delta(args, inp, T) -> int:
    acc = _accountant(args, inp, T)
    acc.get_epsilon("1e-6")  # choose the grid (sandwich within 2 % around delta = 1e-6)
    r = acc.get_delta(inp.epsilon)
    d = inp.digits
    iv = {"lower": _dec(r.lower, False, d), "upper": _dec(r.upper, True, d)}
    payload = {
        "command": "delta",
        **inp.describe(),
        "rounds": T,
        "epsilon": common._s(inp.epsilon),
        "delta": iv,
        "sandwich_lower": _dec(r.pair_lower, False, d),
        "grid": str(r.grid),
        "relation": "composition",
    }
    text = (
        f"delta(epsilon = {common._s(inp.epsilon)}) in [{iv['lower']}, {iv['upper']}] for {T} composed rounds\n"
        f"for {common.mechanism_phrase(inp)}, shuffled among n = {inp.n} users per round.\n"
        f"Upper end: certified for every dataset (dominating pairs, pessimistic PLD, grid {r.grid}); "
        f"lower end: certified on one concrete pair of datasets."
    )
    common.emit(args, payload, text)
    return 0
