"""Hostile probes (session 13) of the sampled binary RR exact worst case (Lemma S4) and the sampled third-value /
two-stratum lower pairs (Lemma S5): the library's certified brackets against this file's own brute force.

Brute force (independent of the library's generating functions):
* sampled binary RR: the law of (M, K) from its definition — M ~ Bin(n, q) reporters, a uniform M-subset of the
  users, J ones among them ~ Hyp(n, C, M), K = Bin(J, p) + Bin(M − J, f) — in mpmath at DPS digits; every dataset
  (C ones, C = 0..n) and both orders (target 1 → 0 and 0 → 1) computed directly (no relabelling argument);
  T rounds: the product law of one fixed pair of datasets (a lower bound on the composed worst case, so the
  composed upper end must not be below its max over datasets).
* sampled k-RR: R_q = q·R + (1 − q)·⊥ enumerated as a histogram over every multiset dataset (mpmath).

Usage: python3 tests/benchmarks/probe_sampled13.py [cases] [seed]   (prints one line per case; "BAD" on a failure)
"""

from __future__ import annotations

import itertools
import pathlib
import random
import sys
import time

import mpmath as mp

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
import test_probe12 as _P12  # noqa: E402  (its brute force over multiset datasets and cli_json)

DPS = 50
SLACK = mp.mpf(10) ** -9  # the CLI prints 10 significant digits rounded outward
FLOOR = mp.mpf(10) ** -(DPS - 6)  # the brute force's own rounding (e.g. delta(eps0) = 0 read as 1e-56)


# ------------------------------------------------------------------ brute force: sampled binary RR
def binary_law(n: int, C: int, e, q) -> dict:
    """{(m, k): P} for a dataset with C ones among n users; e = e^{eps0} (mpf), q participation (mpf)."""
    p, f = e / (e + 1), 1 / (e + 1)
    law: dict = {}
    for m in range(n + 1):
        pm = mp.binomial(n, m) * q**m * (1 - q) ** (n - m)
        if pm == 0:
            continue
        for j in range(max(0, m - (n - C)), min(C, m) + 1):
            hj = mp.binomial(C, j) * mp.binomial(n - C, m - j) / mp.binomial(n, m)
            # K = Bin(j, p) + Bin(m - j, f)
            for k1 in range(j + 1):
                a = mp.binomial(j, k1) * p**k1 * f ** (j - k1)
                for k2 in range(m - j + 1):
                    b = mp.binomial(m - j, k2) * f**k2 * p ** (m - j - k2)
                    key = (m, k1 + k2)
                    law[key] = law.get(key, 0) + pm * hj * a * b
    return law


def enumerated_law(n: int, C: int, e, q) -> dict:
    """The same law by enumerating each user's three outcomes (no report, report 0, report 1): O(3^n)."""
    p, f = e / (e + 1), 1 / (e + 1)
    law: dict = {}
    bits = [1] * C + [0] * (n - C)
    for outs in itertools.product((None, 0, 1), repeat=n):
        pr = mp.mpf(1)
        for b, o in zip(bits, outs):
            if o is None:
                pr *= 1 - q
            else:
                pr *= q * (p if o == b else f)
        key = (sum(o is not None for o in outs), sum(o == 1 for o in outs))
        law[key] = law.get(key, 0) + pr
    return law


def hockey(P: dict, Q: dict, ee) -> mp.mpf:
    return sum((max(mp.mpf(0), v - ee * Q.get(o, 0)) for o, v in P.items()), mp.mpf(0))


def product(P: dict, R: dict) -> dict:
    return {(a, b): x * y for a, x in P.items() for b, y in R.items()}


def binary_worst(n: int, e, q, ee, rounds: int = 1) -> tuple:
    """max over datasets and both orders of H_ee(P^T || Q^T) (the same pair every round), and the argmax."""
    laws = [binary_law(n, C, e, q) for C in range(n + 1)]
    best, arg = mp.mpf(0), None
    for C in range(1, n + 1):
        for P, Q, tag in ((laws[C], laws[C - 1], (C, "1->0")), (laws[C - 1], laws[C], (C, "0->1"))):
            PP, QQ = P, Q
            for _ in range(rounds - 1):
                PP, QQ = product(PP, P), product(QQ, Q)
            v = hockey(PP, QQ, ee)
            if v > best:
                best, arg = v, tag
    return best, arg


# ------------------------------------------------------------------ brute force: sampled k-RR
def krr_sampled_rows(k: int, e, q) -> list:
    rows = [[(e if y == x else 1) / (e + k - 1) for y in range(k)] for x in range(k)]
    return [[q * v for v in r] + [1 - q] for r in rows]


def finite_worst(rows: list, n: int, ee, rounds: int = 1) -> mp.mpf:
    """The worst H_{e^ε} over every multiset dataset of a randomizer given by its rows (the same pair in every round):
    tests/test_probe12.py's brute force."""
    return _P12.worst_delta(rows, n, rounds=rounds, ee=ee)


# ------------------------------------------------------------------ the library
cli_json = _P12.cli_json  # ``blanket ... --json`` in this process: (exit code, parsed JSON or the text printed)


def _cli_args(command: str, n, q, e0, mech: str, *rest) -> list:
    """The CLI arguments of a probe: ``mech`` "rr" or "krr3" (3-RR), ``--sampling q`` unless q = "1"."""
    args = [command, "--mechanism", mech, "--epsilon0", e0, "-n", n, *rest]
    if mech == "krr3":
        args[2:3] = ["krr", "--k", 3]
    if q != "1":
        args += ["--sampling", q]
    return args


def _rand_params(rng: random.Random) -> dict:
    n = rng.randint(2, 9)
    q = rng.choice(["0.000001", "0.999999", "0.5", "0.1", "0.9", "0.01", "0.3", "0.7", "1"])
    e0 = rng.choice(["0.001", "0.05", "0.5", "1", "2", "4", "8", "20"])
    eps = rng.choice(["0", "0.0001", "0.01", "0.1", "0.5", "1"])
    return dict(n=n, q=q, e0=e0, eps=eps, T=rng.choice([1, 1, 1, 2]))


def check_delta(n, q, e0, eps, T=1, mech="rr"):
    args = _cli_args("delta", n, q, e0, mech, "--epsilon", eps)
    if T > 1:
        args += ["--rounds", T]
    t0 = time.time()
    rc, d = cli_json(*args)
    sec = time.time() - t0
    if rc != 0:
        return f"BAD rc={rc} {d.strip()[-200:]}", sec
    lo, hi = mp.mpf(d["delta"]["lower"]), mp.mpf(d["delta"]["upper"])
    ee = mp.e ** mp.mpf(eps)
    e, qq = mp.e ** mp.mpf(e0), mp.mpf(q)
    if mech == "rr":
        ex, arg = binary_worst(n, e, qq, ee, T)
    else:
        ex, arg = finite_worst(krr_sampled_rows(3, e, qq), n, ee, T), None
    bad = []
    if not (mp.isfinite(lo) and mp.isfinite(hi)) or lo > hi:
        bad.append("nonfinite/inverted")
    if hi < ex * (1 - SLACK) - FLOOR:
        bad.append(f"upper {hi} < exact {ex}")
    if T == 1 and lo > ex * (1 + SLACK) + FLOOR:
        bad.append(f"lower {lo} > exact {ex}")
    if T > 1 and lo > ex * (1 + SLACK) + FLOOR:  # the lower end is one same-pair product: never above its max
        bad.append(f"lower {lo} > same-pair worst {ex}")
    tag = "BAD " + "; ".join(bad) if bad else "ok"
    return (
        f"{tag} lo={mp.nstr(lo, 10)} ex={mp.nstr(ex, 12)} hi={mp.nstr(hi, 10)} arg={arg} from={str(d.get('lower_pair', d.get('one_round', {}).get('lower_from', '?')))[:50]!r}",
        sec,
    )


def check_epsilon(n, q, e0, delta, mech="rr"):
    args = _cli_args("epsilon", n, q, e0, mech, "--delta", delta)
    t0 = time.time()
    rc, d = cli_json(*args)
    sec = time.time() - t0
    if rc != 0:
        return f"BAD rc={rc} {d.strip()[-200:]}", sec
    lo, hi = mp.mpf(d["epsilon"]["lower"]), mp.mpf(d["epsilon"]["upper"])
    e, qq, dt = mp.e ** mp.mpf(e0), mp.mpf(q), mp.mpf(delta)

    def worst(eps):
        ee = mp.e**eps
        if mech == "rr":
            return binary_worst(n, e, qq, ee)[0]
        return finite_worst(krr_sampled_rows(3, e, qq), n, ee)

    bad = []
    # upper end: delta(upper) <= target (rounded outward in print: evaluate a hair below the printed upper end)
    # printed ends are rounded outward: delta(printed upper) <= delta(certified upper) <= target
    d_hi = worst(hi)
    if d_hi > dt * (1 + mp.mpf(10) ** -6) + FLOOR:
        bad.append(f"delta(upper)={mp.nstr(d_hi, 10)} > target")
    if lo > 0:
        d_lo = worst(lo)
        if d_lo < dt * (1 - mp.mpf(10) ** -6) - FLOOR:
            bad.append(f"delta(lower)={mp.nstr(d_lo, 10)} < target")
    tag = "BAD " + "; ".join(bad) if bad else "ok"
    return f"{tag} eps=[{mp.nstr(lo, 10)}, {mp.nstr(hi, 10)}]", sec


def main(argv: list) -> None:
    cases = int(argv[1]) if len(argv) > 1 else 20
    seed = int(argv[2]) if len(argv) > 2 else 13
    rng = random.Random(seed)
    mp.mp.dps = DPS
    # the brute force's own cross-check: hypergeometric form = enumeration by participation
    for n, C, e0, q in ((4, 2, "1", "0.3"), (5, 0, "2", "0.9"), (5, 5, "0.5", "0.01"), (3, 1, "4", "1")):
        A, B = binary_law(n, C, mp.e ** mp.mpf(e0), mp.mpf(q)), enumerated_law(n, C, mp.e ** mp.mpf(e0), mp.mpf(q))
        err = max(abs(A.get(o, 0) - B.get(o, 0)) for o in set(A) | set(B))
        assert err < mp.mpf(10) ** -45, (n, C, err)
    print("brute-force self-check ok", flush=True)
    for i in range(cases):
        pr = _rand_params(rng)
        kind = rng.choice(["delta", "delta", "epsilon", "krr3"])
        if kind == "delta":
            line, sec = check_delta(pr["n"], pr["q"], pr["e0"], pr["eps"], pr["T"])
        elif kind == "krr3":
            n = min(pr["n"], 5)
            line, sec = check_delta(n, pr["q"], pr["e0"], pr["eps"], 1, mech="krr3")
            pr["n"] = n
        else:
            dl = rng.choice(["1e-9", "1e-6", "1e-3", "0.1", "0.5", "0.99"])
            line, sec = check_epsilon(pr["n"], pr["q"], pr["e0"], dl)
            pr["delta"] = dl
        print(f"{i:3d} {kind:7s} {pr} {sec:5.1f}s {line}", flush=True)


if __name__ == "__main__":
    main(sys.argv)


# ------------------------------------------------------------------ large n: the extreme datasets only (a lower bound)
def extreme_pairs_delta(n: int, e0: str, q: str, eps) -> mp.mpf:
    """max of H_{e^eps} over the pairs (P_1, P_0), (P_0, P_1), (P_n, P_{n−1}), (P_{n−1}, P_n) from the hypergeometric
    form (C = 1: J ∈ {0, 1}; C = n − 1: J ∈ {m − 1, m}), in mpmath; a lower bound on the worst case at any n.
    O(n²) mpmath operations per pair."""
    e = mp.e ** mp.mpf(e0)
    p, f, qq = e / (e + 1), 1 / (e + 1), mp.mpf(q)
    ee = mp.e ** mp.mpf(eps)

    def binrow(m, r):
        return [mp.binomial(m, i) * r**i * (1 - r) ** (m - i) for i in range(m + 1)]

    def conv(a, b):
        out = [mp.mpf(0)] * (len(a) + len(b) - 1)
        for i, x in enumerate(a):
            if x:
                for j, y in enumerate(b):
                    out[i + j] += x * y
        return out

    best = mp.mpf(0)
    # laws as {m: [P(K = k, M = m)]}
    laws: dict = {0: {}, 1: {}, n - 1: {}, n: {}}
    for m in range(n + 1):
        wm = mp.binomial(n, m) * qq**m * (1 - qq) ** (n - m)
        if wm == 0:
            continue
        # K with j ones among the m participants: Bin(j, p) + Bin(m − j, f)
        g = {j: conv(binrow(j, p), binrow(m - j, f)) for j in {0, 1, m - 1, m} if 0 <= j <= m}
        for C in laws:
            row = [mp.mpf(0)] * (m + 1)
            for j in range(max(0, m - (n - C)), min(C, m) + 1):
                h = mp.binomial(C, j) * mp.binomial(n - C, m - j) / mp.binomial(n, m)
                for k, v in enumerate(g[j]):
                    row[k] += wm * h * v
            laws[C][m] = row

    def H(P, Q):
        s = mp.mpf(0)
        for m in P:
            for a, b in zip(P[m], Q[m]):
                s += max(mp.mpf(0), a - ee * b)
        return s

    for A, B in ((1, 0), (0, 1), (n, n - 1), (n - 1, n)):
        best = max(best, H(laws[A], laws[B]))
    return best


# ------------------------------------------------------------------ frequency oracles (unary encodings), sampled
def unary_rows(k: int, p, q0) -> list:
    """OUE/SUE as k-bit vectors: bit x kept 1 w.p. p, every other bit 1 w.p. q0 (textbook definition;
    tests/test_probe12.py's rows)."""
    return _P12._unary(k, p, q0)


def check_oracle(kind: str, k: int, n: int, q: str, e0: str, eps: str):
    """The CLI's sampled OUE/SUE bracket against the brute force over every dataset."""
    e = mp.e ** mp.mpf(e0)
    if kind == "oue":
        rows = unary_rows(k, mp.mpf(1) / 2, 1 / (e + 1))
    else:
        s = mp.sqrt(e)
        rows = unary_rows(k, s / (s + 1), 1 / (s + 1))
    qq = mp.mpf(q)
    srows = [[qq * v for v in r] + [1 - qq] for r in rows]
    t0 = time.time()
    rc, d = cli_json(
        "delta", "--mechanism", kind, "--k", k, "--epsilon0", e0, "-n", n, "--epsilon", eps, "--sampling", q
    )
    sec = time.time() - t0
    if rc != 0:
        return f"BAD rc={rc} {d.strip()[-200:]}", sec
    lo, hi = mp.mpf(d["delta"]["lower"]), mp.mpf(d["delta"]["upper"])
    ex = finite_worst(srows, n, mp.e ** mp.mpf(eps))
    bad = []
    if hi < ex * (1 - SLACK) - FLOOR:
        bad.append(f"upper {hi} < exact {ex}")
    if lo > ex * (1 + SLACK) + FLOOR:
        bad.append(f"lower {lo} > exact {ex}")
    tag = "BAD " + "; ".join(bad) if bad else "ok"
    return (
        f"{tag} lo={mp.nstr(lo, 10)} ex={mp.nstr(ex, 12)} hi={mp.nstr(hi, 10)} from={d.get('lower_pair', '')[:60]!r}",
        sec,
    )
