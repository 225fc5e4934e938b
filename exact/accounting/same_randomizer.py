"""One ε0-LDP randomizer run by every user (Lemma G1): the assumption, its check, its bound and its dominating pair.

A deployment that states **one** ε0-LDP randomizer ``R``, fixed before the round and run by every user on their own
value (``same_randomizer = true`` in the ``[randomizer]`` of ``type = "ldp"`` or ``type = "matrix"``; in Python
``LDP(…, same_randomizer=True)`` or ``Shuffled(…, same_randomizer=True)``), gets Lemma G1 (``docs/mechanisms.md``,
"Generic ε0-LDP: the bracket"; this project's derivation, status *derived*): for every neighbouring pair, both
orders and every ``ε ≥ 0``, ``δ(ε) ≤`` the Lemma 5.3 blanket view of binary RR with the same ``ε0``
(:func:`blanket.exact.shuffled.generic_ldp.same_randomizer_delta`).  That view is the hockey-stick curve of a
symmetric pair (:func:`same_randomizer_pair`, the SODA 2023 "stronger clone" pair), so the pair dominates the
round at every ``α ≥ 0`` and composes (``docs/composition.md``, "One randomizer for every user").

Refused (:func:`check_same_randomizer`, one line naming the argument): any other record (k-RR and the frequency
oracles are one stated randomizer already, with their own tighter views), and in a fleet of groups (client-specific
randomizers).  The same pair serves FMT21's adaptive model (the plain ``ldp`` record, :func:`adaptive_pair`): Lemma G1
holds there too (Lemma G1 [adaptive], docs/mechanisms.md "Lemma G1 in FMT21's adaptive model", status *derived*).
Complexity: the check O(1); the pair O(1) to build.
"""

from __future__ import annotations

import dataclasses

from blanket.exact.accounting import pairs as _pairs
from blanket.exact.mechanisms import oracles
from blanket.exact.mechanisms.finite import KRR, FiniteRandomizer, Randomizer, finite_exp_epsilon0
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument

__all__ = [
    "ASSUMPTION",
    "DESCRIPTION",
    "RESULT_KEY",
    "ADAPTIVE_KEY",
    "ADAPTIVE_DESCRIPTION",
    "applies",
    "check_same_randomizer",
    "same_randomizer_pair",
    "adaptive_pair",
    "SAMPLED_KEY",
    "SAMPLED_DESCRIPTION_START",
]

#: the registry key of Lemma G1 (blanket/proofs/oracles.toml)
RESULT_KEY = "Lemma G1 [same randomizer]"
DESCRIPTION = (
    "one randomizer for every user: Lemma G1, the binary-RR blanket view at the same epsilon0 (this project's "
    "derivation, status derived; docs/mechanisms.md)"
)
ASSUMPTION = (
    "The randomizer: one epsilon0-LDP randomizer with the stated epsilon0, fixed before the round and run by every "
    "user on their own value (stated by the deployment: same_randomizer = true). Not covered: client-specific "
    "randomizers (user i always runs its own R_i). Under this statement the upper bound is the smaller of the FOCS "
    "2021 clone pair and Lemma G1 (the blanket view of binary randomized response with the same epsilon0; this "
    "project's derivation, status derived, docs/mechanisms.md), which also holds for randomizers chosen adaptively "
    "from earlier reports (FMT21's model, the plain ldp record)."
)
#: the registry key of Lemma G1 in FMT21's adaptive model (blanket/proofs/oracles.toml)
ADAPTIVE_KEY = "Lemma G1 [adaptive]"
ADAPTIVE_DESCRIPTION = (
    "any epsilon0-LDP randomizer in FMT21's adaptive model: Lemma G1, the binary-RR blanket view at the same epsilon0 "
    "(this project's derivation, status derived; docs/mechanisms.md)"
)

#: the registry key of Lemma G1 under sampled participation (blanket/proofs/oracles.toml)
SAMPLED_KEY = "Lemma G1 [sampled]"
#: the words that name Lemma G1 [sampled] in a sampled ldp round's curve pair (the certificate's chain finds it by them)
SAMPLED_DESCRIPTION_START = "Lemma G1 under sampled participation"


def applies(mech: Randomizer) -> bool:
    """Whether ``mech`` can carry the statement: an ``ldp`` record or an explicit matrix.  O(1)."""
    return isinstance(mech, oracles.LDP) or (isinstance(mech, FiniteRandomizer) and not isinstance(mech, KRR))


def check_same_randomizer(mech: Randomizer, name: str = "same_randomizer") -> None:
    """Refuse (InvalidArgument naming ``name``) a record that cannot carry the statement "one randomizer for every
    user": only ``ldp`` and a matrix randomizer can.  O(1)."""
    if not applies(mech):
        kind = getattr(mech, "kind", None) or type(mech).__name__
        raise InvalidArgument(
            name,
            True,
            f"applies to an ldp or matrix randomizer only, not {kind} (a stated k-RR or frequency oracle is one "
            "randomizer already, with its own tighter blanket view)",
            hint="drop the option",
        )


def same_randomizer_pair(mech: Randomizer, n: int) -> _pairs.ShiftPair:
    """The dominating pair of one round of ``n`` users who all run ``mech`` (Lemma G1): the binary-RR blanket-view
    pair with the same ``e^{ε0}`` (:func:`blanket.exact.accounting.pairs.dominating_pair`), symmetric, whose ``H_α``
    is :func:`blanket.exact.shuffled.generic_ldp.same_randomizer_delta` at ``α = e^ε``.  O(1)."""
    check_same_randomizer(mech, "mechanism")
    n = arith.integer_in(n, "n", lo=1)
    eps0 = getattr(mech, "epsilon0", None)
    if isinstance(mech, oracles.LDP) and eps0 is not None:
        rr = KRR(2, eps0)
    else:
        rr = KRR(2, exp_epsilon0=finite_exp_epsilon0(mech, "the same-randomizer pair"))
    pr = _pairs.dominating_pair(rr, n)
    return dataclasses.replace(pr, kind="same-randomizer", description=DESCRIPTION)


def adaptive_pair(mech: Randomizer, n: int) -> _pairs.ShiftPair:
    """The dominating pair of one round of ``n`` users of the plain ``ldp`` record (FMT21's adaptive model): Lemma G1
    [adaptive] bounds every ε ≥ 0 and both orders by the same binary-RR blanket-view pair as
    :func:`same_randomizer_pair`, so it dominates at every ``α ≥ 0`` (docs/composition.md §5g).  O(1)."""
    if not isinstance(mech, oracles.LDP):
        raise InvalidArgument("mechanism", getattr(mech, "kind", type(mech).__name__), "must be an ldp record")
    n = arith.integer_in(n, "n", lo=1)
    rr = KRR(2, mech.epsilon0) if mech.epsilon0 is not None else KRR(2, exp_epsilon0=mech.exp_epsilon0_exact)
    return dataclasses.replace(_pairs.dominating_pair(rr, n), kind="lemma-g1", description=ADAPTIVE_DESCRIPTION)
