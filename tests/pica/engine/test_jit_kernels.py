"""The compiled engine beyond its results (those are checked by :mod:`test_native_kernels`
and :mod:`test_jit_geometry`): ``engine="auto"`` taking a kernel compiled in this
process, and the work split over threads."""

import itertools

import numpy as np
import pytest

from gpuisa.pica import Program
from gpuisa.pica.engine import choice
from gpuisa.pica.engine.compiled import nativerun
from gpuisa.pica.engine.compiled import runner as jit


def test_auto_takes_the_jit_for_one_vertex_once_its_kernel_is_compiled(monkeypatch):
    """engine="auto" runs a small input on the JIT only when this process has compiled
    the kernel already (then it beats the reference engine even for one vertex); a
    large input pays for compiling it."""
    from gpuisa.pica.engine import api

    program = Program((0x08020000, 0x88000000), (0x0006C368,))  # dp4 o0.x, v0, c0 ... end
    inputs = {"v0": np.ones((1, 4), dtype=np.float32)}
    uniforms = {"c0": [1.0, 2.0, 3.0, 4.0]}
    chosen: list[str] = []
    real = api.choose_engine

    def spy(engine, lanes, warm=None):
        name = real(engine, lanes, warm)
        if warm is not None:  # the choice of the engine that runs the vertices
            chosen.append(name)
        return name

    monkeypatch.setattr(api, "choose_engine", spy)
    # nothing compiled yet, no reference time spent on the program
    monkeypatch.setattr(nativerun, "_kernels", type(nativerun._kernels)())
    monkeypatch.setattr(choice, "_spent", type(choice._spent)())
    first = api.run(program, inputs, uniforms=uniforms, registers=True)
    api.run(program, {"v0": np.ones((10**6, 4), dtype=np.float32)}, uniforms=uniforms)
    again = api.run(program, inputs, uniforms=uniforms, registers=True)
    assert chosen == ["reference", "jit", "jit"]
    # 1*1 + 1*2 + 1*3 + 1*4 = 10, exact in float24
    assert first.outputs["o0"][0, 0] == again.outputs["o0"][0, 0] == 10.0


def test_work_is_split_into_ranges_taken_in_turn(monkeypatch):
    """in_parallel covers 0 .. count with ranges of at least ``minimum`` (a few per
    thread), each run once, results in range order; a range's error reaches the caller
    after every thread has stopped."""
    import threading

    monkeypatch.setattr(jit, "_threads", lambda: 2)
    seen = []
    lock = threading.Lock()

    def work(lo, hi):
        with lock:
            seen.append((lo, hi))
        return lo, hi

    ranges = jit.in_parallel(work, 100_000, 1_000)
    assert len(ranges) == 8  # 2 threads x 4 ranges
    assert ranges[0][0] == 0 and ranges[-1][1] == 100_000
    assert all(a[1] == b[0] for a, b in itertools.pairwise(ranges))
    assert all(hi - lo >= 1_000 for lo, hi in ranges) and sorted(seen) == ranges
    assert jit.in_parallel(work, 1_500, 1_000) == [(0, 1_500)]  # too few for two

    def failing(lo, hi):
        if lo > 0:
            raise ValueError(lo)
        return lo

    with pytest.raises(ValueError):
        jit.in_parallel(failing, 100_000, 1_000)


def test_work_does_not_wait_for_a_busy_pool(monkeypatch):
    """When the pool's threads are busy with another caller's work, the calling thread
    does every range itself and returns without waiting for them."""
    import threading
    import time

    monkeypatch.setattr(jit, "_threads", lambda: 2)
    release = threading.Event()
    busy = jit._executor().submit(release.wait, 30)  # the pool's worker(s) kept busy
    blockers = [jit._executor().submit(release.wait, 30) for _ in range(3)]
    try:
        start = time.perf_counter()
        ranges = jit.in_parallel(lambda lo, hi: (lo, hi), 100_000, 1_000)
        assert time.perf_counter() - start < 5
        assert ranges[0][0] == 0 and ranges[-1][1] == 100_000 and len(ranges) == 8
    finally:
        release.set()
        busy.result()
        for blocker in blockers:
            blocker.result()
