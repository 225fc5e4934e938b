"""What every certificate shares: the three verdicts, the standing assumptions, how a result is cited, the
versions stamp and the one-paragraph statement.

Used by the one-round certificate (:mod:`reports.certificate`) and the composition certificate
(:mod:`reports.composition`), so that neither imports the other's side for them.  Every function is O(size of the
certificate).
"""

from __future__ import annotations

import platform
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any

from .latex import display_result

if TYPE_CHECKING:
    from blanket.proofs.core import Result

HOLDS, FAILS, INCONCLUSIVE = "HOLDS", "FAILS", "INCONCLUSIVE"
EXIT_CODES = {HOLDS: 0, FAILS: 1, INCONCLUSIVE: 3}

ASSUMPTIONS = (
    "Single message per user: each user sends exactly one report, the output of the local randomizer on their value.",
    "One randomizer for all: every user applies the same local randomizer, with fresh independent randomness.",
    "Trusted shuffler: the reports are permuted uniformly at random and nothing else (no metadata, timing or order) reaches the analyst.",
    "What the adversary sees: the multiset (histogram) of the n reports, and may know every other user's value; "
    "privacy is central (epsilon, delta)-DP of that view.",
    "Neighbouring relation: replace-one (two datasets of the same size n differ in one user's value).",
)


def versions() -> dict:

    out = {"python": platform.python_version()}
    for pkg in ("blanket", "python-flint", "sympy", "mpmath", "jinja2"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = "not installed"
    return out


def reproducibility(dep: Any, command: str, start: int, cap: int, used: int) -> dict:
    """A certificate's ``reproducibility`` block: the command, the input file and its SHA-256, the package versions
    and the working precisions (bits: where the escalation started, its cap, the largest used).  O(1)."""
    return {
        "command": command,
        "input": dep.source,
        "input_sha256": dep.sha256,
        "versions": versions(),
        "precision_start": start,
        "precision_cap": cap,
        "precision_used": used,
    }


#: the fields of :meth:`proofs.core.Result.describe` a certificate cites a result by (in this order)
_ENTRY_FIELDS = ("key", "paper", "label", "variant", "title", "status", "status_note", "spec", "latex")


def result_entry(r: Result) -> dict:
    """A registered result as a certificate cites it: its description's fields, how it displays, its hypotheses."""
    d = r.describe()
    return {**{k: d[k] for k in _ENTRY_FIELDS}, "display": display_result(r), "hypotheses": d["hypotheses"]}


def _short_source(title: str) -> str:
    """A source title without its parenthetical role, e.g. "clone pair (…) (an upper bound on every dataset)"."""
    return title.removesuffix(" (an upper bound on every dataset)")


def statement(cert: dict) -> str:
    """The one-paragraph statement printed on the console and at the top of the certificate."""
    d = cert["deployment"]
    v = cert["verdict"]
    sampled = any("sampling" in r for r in d.get("rounds", ())) or "sampling" in d
    reports = "at most one report per user and round (sampled participation)" if sampled else "one report per user"
    head = (
        f"{v}: deployment '{d['name']}' ({cert['mechanism_text']}; {cert['n_text']}; replace-one neighbouring, "
        f"trusted shuffler, {reports})."
    )
    parts = []
    for c in cert["claims"]:
        parts.append(f"Claim ({c['epsilon']}, {c['delta']})-DP {c['verdict']}: {c['reason']}.")
    for t in cert["targets"]:
        if t["epsilon_upper"] is not None and t.get("kind") == "bracket":
            parts.append(
                f"For delta = {t['delta']} the certified epsilon is {t['epsilon_upper']} "
                f"({_short_source(t.get('upper_source') or 'blanket view')}); the "
                f"worst case lies in the certified bracket [{t['epsilon_lower'] or '0'}, {t['epsilon_upper']}], "
                f"relative width {t['relative_width']}."
            )
        elif t["epsilon_upper"] is not None and t.get("kind") == "composed":
            parts.append(
                f"For delta = {t['delta']} the certified epsilon is {t['epsilon_upper']} (upper end: {t['route']}, "
                f"{t['upper_source']}); the worst case lies in the certified bracket [{t['epsilon_lower']}, "
                f"{t['epsilon_upper']}] (lower end: {t['lower_source']})."
            )
        elif t["epsilon_upper"] is not None and t.get("kind") == "fleet":  # each end names its bound (session 15)
            lo = f"; epsilon >= {t['epsilon_lower']} is necessary ({t['lower_source']})" if t["epsilon_lower"] else ""
            parts.append(
                f"For delta = {t['delta']} the certified epsilon is {t['epsilon_upper']} ({t['upper_source']}){lo}."
            )
        elif t["epsilon_upper"] is not None:
            lo = f" (and epsilon >= {t['epsilon_lower']} is necessary)" if t["epsilon_lower"] else ""
            parts.append(f"For delta = {t['delta']} the certified epsilon is {t['epsilon_upper']}{lo}.")
        else:
            parts.append(f"For delta = {t['delta']}: {t['reason']}.")
    return " ".join([head] + parts)
