"""The compiled engine: ``run(..., engine="jit")``.

Each (program, entry, precision) is translated into LLVM IR and compiled to machine
code in this process, in milliseconds (:mod:`.native` for vertex shaders, run by
:mod:`.nativerun`; :mod:`.nativegeometry` for geometry shaders, run by
:mod:`.geometryrun`).  A vertex kernel runs vectors of lanes with one thread per CPU
(ctypes releases the GIL); a geometry kernel runs a feed's invocations in order on one
unit.  Inputs are converted by the engine's own loader (:mod:`.nativeload`).

Results are bit-identical to the reference engine: a lane that a vertex kernel cannot
finish exactly as the reference engine would (a hang, a fault, a read of a register
that was not given, the step limit) is run again on the reference engine, which gives
the result or raises the error with its exact message; a geometry feed is run again
whole.  Programs using EX2/LG2 run on the reference engine if NumPy's inner loops
cannot be called directly (:data:`.numpyloops.LOOPS_OK`).

Importing this module registers the engine "jit"; llvmlite is imported on the first
run.
"""

from __future__ import annotations

import functools
import itertools
import os
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, wait

import numpy as np

from ..api import register_engine
from ..decode import DecodedProgram
from ..geometry import Emission, GeometryFeed, InvocationLog
from ..loading import Arithmetic, float24
from ..reference import run_lane, run_lanes
from ..rules import primitives
from ..state import ShaderState
from .facts import analysis as _analysis

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


#: The last answer of :func:`_missing` and what it depends on: a run asks twice (when
#: its engine is chosen, then when it runs).
_last_missing: tuple = (None, None, None, None)


def _missing(reads: frozenset[tuple[str, int]], state: ShaderState) -> frozenset:
    """The registers the program reads by name that were not given."""
    global _last_missing
    uniforms, inputs = state.uniforms, state.input_given.tobytes()
    last = _last_missing
    # Remembered only for read-only uniform tables (uniform_table.shared_uniforms):
    # another table could have been changed since.
    if (last[0] is reads and last[1] is uniforms and last[2] == inputs
            and not uniforms.float_given.flags.writeable):
        return last[3]
    missing = _missing_now(reads, state)
    _last_missing = (reads, uniforms, inputs, missing)
    return missing


def _missing_now(reads: frozenset[tuple[str, int]], state: ShaderState) -> frozenset:
    given = {"v": state.input_given, "c": state.uniforms.float_given,
             "i": state.uniforms.int_given, "b": state.uniforms.bool_given}
    return frozenset(r for r in reads if not given[r[0]][r[1]])


#: The uniforms last checked, the rows checked (None: every given one) and the answer: a
#: run asks twice (``compiled`` when its engine is chosen, then ``run_lanes_jit``).
_last_checked: tuple = (None, None, False)


def _uniforms_bounded(analysis, uniforms) -> bool:
    """Whether every float uniform the program can read is ``primitives.bounded24``
    with ``primitives.BOUND_UNIFORM``."""
    global _last_checked
    rows = None if analysis.relative_uniforms else analysis.uniform_rows
    last = _last_checked
    # Remembered only for read-only tables (uniform_table.shared_uniforms): bounded
    # kernels trust this answer for the uniforms they read.
    if last[0] is uniforms and last[1] == rows and not uniforms.floats.flags.writeable:
        return last[2]
    floats = uniforms.floats
    bounded = bounded_values(floats[uniforms.float_given] if rows is None
                             else floats[_rows_index(rows)], primitives.BOUND_UNIFORM)
    _last_checked = (uniforms, rows, bounded)
    return bounded


@functools.lru_cache(maxsize=64)
def _rows_index(rows: tuple[int, ...]) -> np.ndarray:
    return np.array(rows, np.intp)


_ABS = np.uint32(0x7FFFFFFF)
_FLUSHED = np.uint32(np.float32(primitives.F24_MIN).view(np.uint32))
_HIGH = np.uint32(np.float32(primitives.BOUNDED_HIGH).view(np.uint32))


def bounded_values(values: np.ndarray, k: int) -> bool:
    """Whether every value of a float32 array is ``primitives.bounded24(x, k)`` (an
    array realisation of that rule; ``tests/pica/engine/test_rules.py`` proves them
    equal)."""
    magnitude = np.ascontiguousarray(values, np.float32).view(np.uint32) & _ABS
    low = np.uint32((127 - k) << 23)
    return not ((magnitude >= _FLUSHED) & (magnitude - low >= _HIGH - low)).any()


@functools.cache
def _threads() -> int:
    return max(1, os.cpu_count() or 1)


def _executor() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=_threads(),
                                       thread_name_prefix="gpuisa-jit")
        return _pool


#: Ranges per thread: threads take the next range when done with one, so a thread
#: slowed by other work on a shared machine does not hold the others up.
_RANGES_PER_THREAD = 4


def in_parallel(work: Callable[[int, int], object], count: int, minimum: int) -> list:
    """``work(lo, hi)`` over ``0 .. count`` split into ranges (a few per CPU, none shorter
    than ``minimum``) that one thread per CPU, this one included, takes in turn; the
    results in the order of the ranges."""
    threads = _threads()
    parts = min(threads * _RANGES_PER_THREAD, max(1, count // minimum))
    if parts == 1:
        return [work(0, count)]
    bounds = np.linspace(0, count, parts + 1).astype(np.int64).tolist()
    results: list = [None] * parts
    taken = itertools.count()  # next() on it is atomic: each range is taken once

    def worker() -> None:
        while (k := next(taken)) < parts:
            results[k] = work(bounds[k], bounds[k + 1])

    jobs = [_executor().submit(worker) for _ in range(min(threads, parts) - 1)]
    try:
        worker()
    finally:
        # Every range is taken: a worker that has not started (the pool busy with another
        # caller's work) has nothing left to do, and is cancelled (wait() would wait for
        # the pool to reach even a cancelled one).  Never return (or raise) while other
        # threads still write the arrays.
        started = [job for job in jobs if not job.cancel()]
        wait(started)
    for job in started:
        job.result()  # raises what a worker raised
    return results


def compiled(program: DecodedProgram, state: ShaderState, entry: int,
             precision: Arithmetic, geometry: bool = False) -> bool:
    """Whether this process has already compiled the kernel that runs ``state``
    (``geometry``: a geometry shader's kernel, run by the unit ``state``), or would hand
    the program to the reference engine: what ``engine="auto"`` asks before compiling
    for a small input.  Cheap, and imports no LLVM."""
    if _native_reference(program):
        return True
    if geometry:
        geometryrun = sys.modules.get(f"{__package__}.geometryrun")
        return geometryrun is not None and geometryrun.compiled(program, entry, precision)
    nativerun = sys.modules.get(f"{__package__}.nativerun")
    if nativerun is None:
        return False
    analysis = _analysis(program)
    missing = _missing(analysis.reads, state)
    bounded = float24(precision) and _uniforms_bounded(analysis, state.uniforms)
    return nativerun.compiled(program, entry, precision, missing, bounded)


def _native_reference(program: DecodedProgram) -> bool:
    """Whether the LLVM kernels hand ``program`` to the reference engine (EX2/LG2 when
    NumPy's inner loops cannot be called directly)."""
    if not _analysis(program).numpy_loops:
        return False
    from .numpyloops import LOOPS_OK

    return not LOOPS_OK


@functools.cache
def _nativerun():
    """:mod:`.nativerun` (imported when first needed: it imports llvmlite; an import
    statement per run costs more than a one-vertex kernel)."""
    from . import nativerun

    return nativerun


@functools.cache
def _nativeload():
    """:func:`.nativeload.load` (imported when first needed, as :func:`_nativerun`)."""
    from .nativeload import load

    return load


def run_lanes_jit(program: DecodedProgram, state: ShaderState, entry: int, *,
                  precision: Arithmetic, max_steps: int) -> np.ndarray:
    """The engine entry point (same contract as :func:`.reference.run_lanes`): run
    ``state`` on the program's LLVM kernel; lanes it hands back run on the reference
    engine."""
    if _native_reference(program):
        return run_lanes(program, state, entry, precision=precision, max_steps=max_steps)
    nativerun = _nativerun()
    analysis = _analysis(program)
    missing = _missing(analysis.reads, state)
    bounded = float24(precision) and _uniforms_bounded(analysis, state.uniforms)
    found = nativerun.kernel(program, entry, precision, missing, bounded)
    status, steps = nativerun.run_upgrading(
        found, lambda: nativerun.kernel(program, entry, precision, missing, bounded),
        program, state, max_steps, in_parallel)
    again = status.nonzero()[0]
    if steps is None:
        if not again.size:
            return _same_steps(found.steps, state.lanes)
        steps = np.full(state.lanes, found.steps, np.int64)
    for lane in again:
        steps[lane] = run_lane(program, state, entry, int(lane), precision=precision,
                               max_steps=max_steps)
    return steps


@functools.lru_cache(maxsize=16)
def _same_steps(count: int, lanes: int) -> np.ndarray:
    """``count`` for each of ``lanes`` lanes: a read-only view of one number instead of
    8 bytes per lane (kept: NumPy's broadcast_to costs more than a small run)."""
    steps = np.ndarray((lanes,), np.int64, np.array([count], np.int64), strides=(0,))
    steps.flags.writeable = False
    return steps


def load_jit(values: np.ndarray, precision: Arithmetic, out: np.ndarray) -> None:
    """The engine's input loader (:mod:`.nativeload`): load_floats on every core."""
    load = _nativeload()

    load(values, precision, out, in_parallel)


def run_geometry(program: DecodedProgram, unit: ShaderState, entry: int,
                 registers: tuple[int, ...], feed: GeometryFeed, *, precision: Arithmetic,
                 max_steps: int) -> tuple[InvocationLog, Emission]:
    """The engine's geometry shader run (see :data:`.api.GEOMETRY_ENGINES`): on the
    program's LLVM kernel (:mod:`.geometryrun`)."""
    if _native_reference(program):
        from ..reference.geometry import reference_geometry as run
    else:
        from .geometryrun import run_geometry_native as run
    return run(program, unit, entry, registers, feed, precision=precision,
               max_steps=max_steps)


register_engine("jit", run_lanes_jit, geometry=run_geometry, loader=load_jit)
