"""exact.runtime.executors: the same results, bit for bit, in-process, on a local process pool and on a real Dask cluster."""

from __future__ import annotations

import os
import pickle

import pytest
from blanket.exact.numbers import arith
from blanket.exact.numbers.errors import InvalidArgument
from blanket.exact.runtime.executors import block_ranges, map_blocks, resolve_scheduler, resolve_workers
from flint import arb, arb_poly, ctx, fmpq


# ---------------------------------------------------------------- cheap picklable task functions
def ball_block(start: int, stop: int, num: int, den: int):
    """A deterministic ball computation whose result depends on the working precision."""
    out = []
    for j in range(start, stop):
        x = (arb(num) / den) ** (j + 1) + arb(j).sqrt() / 3
        out.append(x.exp() + arb(0, arb(2) ** -(60 + j)))
    return out


def prec_now(_):
    return ctx.prec


def exact_block(start: int, stop: int):
    return [fmpq(j, j + 1) for j in range(start, stop)]


def boom(j):
    if j == 3:
        raise ValueError(f"task {j} fails")
    return j


def _sig(x):
    """Bytes that identify a ball exactly: midpoint and radius as mantissa/exponent pairs."""
    if isinstance(x, list):
        return [_sig(v) for v in x]
    return (x.mid().man_exp(), x.rad().man_exp()) if isinstance(x, arb) else x


TASKS = [(a, b, 7, 5) for a, b in block_ranges(40, 6)]


# ---------------------------------------------------------------- local
def test_results_in_task_order_and_identical_local():
    with arith.precision(200):
        one = map_blocks(ball_block, TASKS, workers=1)
        two = map_blocks(ball_block, TASKS, workers=2)
        direct = [ball_block(*t) for t in TASKS]
    assert _sig(one) == _sig(two)
    flat = [v for blk in one for v in blk]
    assert len(flat) == 40
    # each decoded ball encloses the directly computed one (radius rounded up by at most one mag ulp)
    for blk, dblk in zip(one, direct):
        for v, d in zip(blk, dblk):
            assert v.contains(d)
            assert v.mid() == d.mid()
            assert v.rad() <= d.rad() * (1 + arb(2) ** -28)


def test_precision_travels_with_the_task():
    with arith.precision(333):
        assert map_blocks(prec_now, [0, 1, 2], workers=2) == [333, 333, 333]
        assert map_blocks(prec_now, [0], workers=1) == [333]


def test_exact_values_and_errors():
    assert map_blocks(exact_block, [(0, 3), (3, 5)], workers=2) == [
        [fmpq(0), fmpq(1, 2), fmpq(2, 3)],
        [fmpq(3, 4), fmpq(4, 5)],
    ]
    assert map_blocks(exact_block, [], workers=2) == []
    with pytest.raises(ValueError, match="task 3 fails"):
        map_blocks(boom, list(range(6)), workers=2)
    with pytest.raises(ValueError, match="task 3 fails"):
        map_blocks(boom, list(range(6)), workers=1)


def test_bad_arguments():
    with pytest.raises(InvalidArgument, match="workers must be a positive integer"):
        map_blocks(exact_block, [(0, 1)], workers=0)
    with pytest.raises(InvalidArgument, match="workers"):
        resolve_workers(True)
    with pytest.raises(InvalidArgument, match="picklable"):
        map_blocks(lambda a: a, [(1,)], workers=1)
    assert resolve_workers(None) >= 1


def test_scheduler_from_environment(monkeypatch):
    monkeypatch.delenv("BLANKET_SCHEDULER", raising=False)
    assert resolve_scheduler(None) is None
    monkeypatch.setenv("BLANKET_SCHEDULER", "tcp://10.0.0.1:8786")
    assert resolve_scheduler(None) == "tcp://10.0.0.1:8786"
    assert resolve_scheduler("tcp://other:1") == "tcp://other:1"


def test_ball_pickling_is_exact_in_the_midpoint_and_rounds_the_radius_up():
    with arith.precision(4096):
        x = arb(1) / 3 + arb(0, arb(2) ** -4000)
    with arith.precision(53):
        y = pickle.loads(pickle.dumps(x))
    assert y.mid() == x.mid() and y.contains(x)
    for special in (arb("inf"), -arb("inf"), arb(0), arb(5)):
        z = pickle.loads(pickle.dumps(special))
        assert z.contains(special) and (special.mid().is_finite() == z.mid().is_finite())
    assert pickle.loads(pickle.dumps(arb("nan"))).mid().is_nan()
    p = pickle.loads(pickle.dumps(arb_poly([1, arb(1) / 3])))
    assert p.coeffs()[1].contains(arb(1) / 3)


def test_progress_object_is_advanced_by_sizes():
    class Bar:
        done = 0

        def update(self, k=1, note=""):
            self.done += k

    bar = Bar()
    map_blocks(exact_block, [(0, 3), (3, 10)], workers=1, progress=bar, sizes=[3, 7])
    assert bar.done == 10


def test_scheduler_without_dask_names_the_extra(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "dask.distributed", None)  # import fails as if Dask were not installed
    with pytest.raises(InvalidArgument, match=r"pip install 'blanket\[dask\]'"):
        map_blocks(exact_block, [(0, 1)], scheduler="tcp://127.0.0.1:8786")


# ---------------------------------------------------------------- Dask
distributed = pytest.importorskip("dask.distributed")


@pytest.fixture(scope="module")
def cluster():
    from dask.distributed import LocalCluster

    env = {"PYTHONPATH": os.pathsep.join(p for p in (os.environ.get("PYTHONPATH", ""),) if p)}
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, env=env) as c:
        yield c
        from blanket.exact.runtime import executors

        executors.shutdown()  # close the cached client before the cluster goes


def test_dask_cluster_gives_identical_results(cluster):
    with arith.precision(200):
        local = map_blocks(ball_block, TASKS, workers=1)
        remote = map_blocks(ball_block, TASKS, scheduler=cluster.scheduler_address)
        assert map_blocks(prec_now, [0, 1], scheduler=cluster.scheduler_address) == [200, 200]
    assert _sig(local) == _sig(remote)
    assert pickle.dumps(_sig(local)) == pickle.dumps(_sig(remote))


def test_dask_via_environment_and_errors(cluster, monkeypatch):
    monkeypatch.setenv("BLANKET_SCHEDULER", cluster.scheduler_address)
    assert map_blocks(exact_block, [(0, 2)]) == [[fmpq(0), fmpq(1, 2)]]
    with pytest.raises(ValueError, match="task 3 fails"):
        map_blocks(boom, list(range(5)))


def _worst_sig(w):
    return (_sig(w.value), w.c, w.direction, tuple(w.ties), [_sig(v) for v in w.values])


@pytest.mark.parametrize("n, eps", [(3000, "0.1"), (700, "0.3")])
def test_real_worst_case_sweep_identical_locally_and_on_dask(cluster, n, eps):
    """The exact worst case over all datasets (branch binary's parallel sweep): the same bits in-process, on two
    local processes and on the Dask cluster; and the same maximiser as a plain loop over every dataset."""
    from blanket.exact.mechanisms.finite import BinaryRR
    from blanket.exact.shuffled.binary import delta_binary, delta_binary_worst

    rr = BinaryRR(epsilon0="1")
    with arith.precision(128):
        one = delta_binary_worst(rr, n, epsilon=eps, workers=1)
        two = delta_binary_worst(rr, n, epsilon=eps, workers=2)
        dask = delta_binary_worst(rr, n, epsilon=eps, scheduler=cluster.scheduler_address)
    assert _worst_sig(one) == _worst_sig(two) == _worst_sig(dask)
    # independent route: every dataset by the single-dataset function (both directions), at a few c
    with arith.precision(128):
        for c in (0, 1, n // 2, n - 2, n - 1):
            single = delta_binary(rr, n, c, epsilon=eps)
            assert arith.le(single, one.value) is not False


def test_certify_runs_its_sweep_on_the_cluster_with_the_same_certificate(cluster):
    """A claim between the cheap bounds makes certify run the exact sweep; on the Dask cluster the certificate
    (JSON) is byte-identical to the one computed in-process."""
    from blanket.exact.mechanisms.finite import KRR
    from blanket.exact.shuffled.binary import delta_binary_worst
    from blanket.exact.shuffled.krr import delta_blanket_view
    from blanket.reports.certificate import certify, to_json
    from blanket.reports.deployment import parse_deployment

    n, eps = 1500, fmpq(1, 5)
    mech = KRR(2, epsilon0="2")
    with arith.precision(128):
        w_hi = arith.endpoints(delta_binary_worst(mech, n, epsilon=eps, workers=1).value)[1]
        b_lo = arith.endpoints(delta_blanket_view(mech, n, epsilon=eps))[0]
    assert w_hi < b_lo
    claim = arith.decimal_string((w_hi + b_lo) / 2, 30, up=True)
    dep = parse_deployment(
        f'name = "t"\n[mechanism]\ntype = "krr"\nk = 2\nepsilon0 = "2"\n[users]\nn = {n}\n'
        f'[[claims]]\nepsilon = "0.2"\ndelta = "{claim}"\n'
    )
    local = certify(dep, workers=1, plot=False)
    remote = certify(dep, scheduler=cluster.scheduler_address, plot=False)
    c = local["claims"][0]
    assert c["verdict"] == "HOLDS" and c["decided_by"]["bound"] == "exact" and c["exact_sweep"].startswith("ran")
    assert to_json(local) == to_json(remote)


def _workers_in_child(q):
    from blanket.exact.runtime.executors import map_blocks, resolve_workers

    q.put((resolve_workers(None), resolve_workers(4), map_blocks(divmod, [(7, 2), (9, 4)], workers=2)))


def test_daemonic_process_runs_blocks_in_process():
    """A daemonic process (check-bound's sandbox, a pool worker) cannot start a pool: blocks run in-process."""
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    q = ctx.Queue()
    p = ctx.Process(target=_workers_in_child, args=(q,), daemon=True)
    p.start()
    got = q.get(timeout=120)
    p.join(timeout=60)
    assert got == (1, 1, [(3, 1), (2, 1)])
