"""Benchmark of exact.shuffled.continuous: the certified blanket view of shuffled Laplace and Gaussian (issue 27).

Run: ``python tests/benchmarks/bench_continuous.py [--quick]``.

One table, δ = 1e-6, Laplace ε0 = 1 and Gaussian σ = 1, n = 10^4 and 10^6 (``--quick``: 10^4 only):
the certified bracket ``[ε_lo, ε_hi]`` of the blanket view's ε (``ε_hi``: δ_BV(ε_hi) ≤ δ proven on the
upper side; ``ε_lo``: δ_BV(ε_lo) > δ proven on the lower side), its relative width, the number of
enclosures, wall seconds, peak RSS; and beside it the encoded Balle et al. bounds at the same δ (Theorem 5.3
[laplace] = Hoeffding and the Bennett bound [laplace], calibrated by their own certified search) with the
ratio bound/ε_hi.  Targets (issue 27): n = 10^4 relative width ≤ 1e-3 in ≤ 10 s; n = 10^6 ≤ 1e-2 in ≤ 60 s.
The mechanism's lower end: certified lower bounds on the mechanism's own ε, from its exact δ on the datasets
0^n vs 1·0^{n−1} (exact.shuffled.continuous_dataset, lower side) and from the outputs thresholded at 1/2 (exact
shuffled binary RR on the same datasets).  Seconds: wall / CPU of this process (the machine's load is printed first).

Su–Cheng–Wang's Laplace FFT (float; "Decomposition-Based Optimal Bounds for Privacy Amplification via Shuffling",
public code github.com/Optimal-amplification-bound/Decomposition-Based-Optimal-Bounds-for-Shuffle-DP): not part of
this repository.  Set ``BLANKET_SCW_PATH`` to a checkout of it and the Laplace rows run its ``FFTbound`` (its
``LaplaceMechanism``, pair (0, 1), its default grid) at the same ε0, n, δ and print its ε and the ratio to our
certified ``eps_hi``; its CuPy import is served by numpy when CuPy is absent (CPU).  Without the variable, or where
its FFT length (``2^bitlength(n·(N−1))``, N its grid points) exceeds ``2^BLANKET_SCW_MAX_LOG2`` (default 2^23)
complex numbers, the column says "not run" and why; a Laplace row at n = 10^3 (not a target) is added for it.  The last line times ``blanket epsilon --mechanism laplace --epsilon0 1 -n 1000000 --delta 1e-6`` end to end
(a child process; wall and CPU seconds).
"""

import argparse
import contextlib
import io
import math
import os
import resource
import subprocess
import sys
import time
import types

from blanket.exact.mechanisms.continuous import Gaussian, Laplace
from blanket.exact.shuffled.continuous import epsilon_bracket, quantised_epsilon_lower
from blanket.exact.shuffled.continuous_dataset import dataset_epsilon_lower
from flint import fmpq

DELTA = "1e-6"


def _bound_eps(key: str, n: int) -> float | None:
    from blanket.exact.numbers import arith
    from blanket.exact.numbers.calibrate import epsilon_for_delta
    from blanket.proofs import blanket as B

    r = {"hoeffding": B.THEOREM_5_3_LAPLACE, "bennett": B.BENNETT_LAPLACE}[key]
    br = epsilon_for_delta(
        lambda e: r.bound(epsilon0="1", epsilon=e, n=n),
        arith.exact(DELTA),
        hi=arith.exact("1"),
        lo=arith.exact("1e-9"),
        rel_tol=arith.exact("1e-4"),
    )
    return float(br.upper)


#: the largest FFT (complex numbers) the Su–Cheng–Wang column attempts on CPU: 2^BLANKET_SCW_MAX_LOG2 (default 2^23;
#: n = 10^4 needs 2^25, about 0.5 GB per array and minutes of CPU per ε search step on this machine)
SCW_MAX_FFT = 2 ** int(os.environ.get("BLANKET_SCW_MAX_LOG2", "23"))


def _scw_eps(n: int) -> tuple[str, float | None]:
    """Su–Cheng–Wang's float FFT ε for Laplace ε0 = 1 at n, δ (their code at $BLANKET_SCW_PATH), or why not run."""
    path = os.environ.get("BLANKET_SCW_PATH")
    if not path:
        return "not run (BLANKET_SCW_PATH unset)", None
    try:
        import cupy  # noqa: F401
    except ImportError:
        import numpy

        sys.modules["cupy"] = types.ModuleType("cupy")
        sys.modules["cupy"].__dict__.update({k: getattr(numpy, k) for k in dir(numpy) if not k.startswith("__")})
    if path not in sys.path:
        sys.path.insert(0, path)
    try:
        from amplification_bounds import FFTbound
        from mechanisms import LaplaceMechanism
    except Exception as exc:  # their code, not ours: report and go on
        return f"not run ({type(exc).__name__}: {exc})", None
    mech = LaplaceMechanism(1.0)
    sup, _ = mech.get_gparv_distribution(1e-6)
    step = (math.e - 1) / 1200  # their FFTbound's grid step (exp(eps0) - 1)/1200
    grid = int(math.ceil(max(sup) / step) - math.ceil(min(sup) / step)) + 1
    length = 1 << int(n * (grid - 1)).bit_length()
    if length > SCW_MAX_FFT:
        return f"not run (FFT length 2^{length.bit_length() - 1} > 2^{SCW_MAX_FFT.bit_length() - 1})", None
    t, c = time.monotonic(), time.process_time()
    with contextlib.redirect_stdout(io.StringIO()):  # their search prints "bingo!"
        eps = FFTbound(mech).get_eps(1.0, n, float(DELTA))
    return f"{eps:.6g} ({time.monotonic() - t:.0f} / {time.process_time() - c:.0f} s)", eps


def _cli_time() -> str:
    """``blanket epsilon --mechanism laplace --epsilon0 1 -n 1000000 --delta 1e-6`` end to end in a child process."""
    cmd = [sys.executable, "-m", "blanket.reports.cli", "epsilon", "--mechanism", "laplace", "--epsilon0", "1"]
    cmd += ["-n", "1000000", "--delta", "1e-6"]
    t = time.monotonic()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    first = (out.stdout.splitlines() or [out.stderr.strip()])[0]
    bracket = [ln for ln in out.stdout.splitlines() if ln.startswith("Certified bracket")]
    return (
        f"`{' '.join(cmd[2:])}`: exit {out.returncode}, {time.monotonic() - t:.1f} s wall / {cpu:.1f} s CPU; "
        f"{first[:60]}... {bracket[0][:80] if bracket else ''}"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    ns = (10**4,) if a.quick else (10**4, 10**6)
    scw_ns = () if a.quick else (10**3,)  # Laplace only: the n where Su–Cheng–Wang's CPU FFT runs here
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}, {os.cpu_count()} cores")
    print(
        "| mechanism | n | h | eps_lo (view) | eps_hi (view) | rel width | enclosures | wall / CPU s | peak RSS MB "
        "| mechanism lower end: exact on 0^n vs 1 0^(n-1) | thresholded at 1/2 | wall / CPU s | Hoeffding/eps_hi | Bennett/eps_hi "
        "| Su-Cheng-Wang FFT eps (wall / CPU s) | SCW/eps_hi |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, mech in (("laplace eps0=1", Laplace(1)), ("gaussian sigma=1", Gaussian(1))):
        for n in (scw_ns if isinstance(mech, Laplace) else ()) + ns:
            # the command line's lattices (reports/commands/_continuous.py): atom-aligned steps
            h = (fmpq(1, 32) if isinstance(mech, Laplace) else fmpq(1, 16)) if n <= 10**5 else fmpq(1, 8)
            t, c = time.monotonic(), time.process_time()
            br = epsilon_bracket(mech, n, DELTA, h=h, rel_tol=1e-3 if n <= 10**5 else 1e-2)
            dt, dc = time.monotonic() - t, time.process_time() - c
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            t, c = time.monotonic(), time.process_time()
            q_th = float(quantised_epsilon_lower(mech, n, DELTA))
            q = float(dataset_epsilon_lower(mech, n, DELTA, h=fmpq(1, 32) if n <= 10**5 else fmpq(1, 16)))
            dq, dqc = time.monotonic() - t, time.process_time() - c
            if isinstance(mech, Laplace):
                ho, be = _bound_eps("hoeffding", n), _bound_eps("bennett", n)
                ratios = f"{ho / float(br.hi):.3f} | {be / float(br.hi):.3f}"
                scw_text, scw = _scw_eps(n)
                ratios += f" | {scw_text} | {'-' if scw is None else f'{scw / float(br.hi):.4f}'}"
            else:
                ratios = "n/a (not eps0-LDP) | n/a | n/a (Laplace only) | n/a"
            print(
                f"| {name} | {n} | {h} | {float(br.lo):.6g} | {float(br.hi):.6g} | {br.rel_width():.2e} | "
                f"{br.evaluations} | {dt:.1f} / {dc:.1f} | {rss:.0f} | {q:.6g} | {q_th:.6g} | {dq:.1f} / {dqc:.1f} | {ratios} |",
                flush=True,
            )
    if not a.quick:
        print(_cli_time(), flush=True)


if __name__ == "__main__":
    sys.exit(main())
