"""The optional Numba JIT engine: ``run(..., engine="jit")``.

Each (program, precision) is translated once into a Numba kernel (:mod:`.codegen`):
a straight-line program runs one instruction at a time over blocks of lanes (vectorized
by LLVM), a program whose branches depend on uniforms only runs its basic blocks the
same way with one control state per block of lanes, a small program with forward
branches on the flags runs basic blocks over blocks of lanes with masked writes, any
other runs whole shader invocations lane by lane with every register in a local
variable; the math is :mod:`.intrinsics`, the stacks :mod:`.stacks`.  Kernels release
the GIL and the lanes are split over one thread per CPU.  Inputs are converted by the
engine's own loader (:mod:`.loader`).  Geometry shaders: :mod:`.geometry`.

Compiled code is cached on disk (:func:`.kernels.cache_directory`; stale code is
dropped by :mod:`.cache`): a kernel is compiled once per machine, not once per
process.  Until getting a program's kernel (compiling it, or loading it from the disk
cache) pays, its runs go to the interpreter kernel (:mod:`.interpreter`, one kernel for
every program): :func:`.choice.kernel_pays`, rent or buy over the runs of the program.
:func:`ready` tells whether running a program would compile anything.

Results are bit-identical to the reference engine: a lane that the kernel cannot finish
exactly as the reference engine would (a value outside the range of the kernels'
arithmetic in range, a hang, a fault, a read of a register that was not given, the step
limit) is run again from its initial registers: on the interpreter kernel when there
are enough of them to pay (:func:`.choice.rerun_on_interpreter`), then on the reference
engine, which gives the result or raises the error with its exact message.  Programs
using EX2/LG2 run on the reference engine if NumPy's inner loops cannot be called
directly (see :mod:`.intrinsics`).

Numba is a required dependency of gpuisa; should it be missing (a broken installation),
this module still imports, sets :data:`AVAILABLE` to False and registers nothing.
Importing this module registers the engine "jit"; Numba itself is imported on the first
run.
"""

from __future__ import annotations

import functools
import importlib.util
import itertools
import os
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass

import numpy as np

from .. import choice
from ..api import RESULT_TEMPORARIES, register_engine
from ..decode import DecodedProgram
from ..loading import Precision
from ..memory import lane_array
from ..reference import run_lane, run_lanes
from ..rules import primitives
from ..state import RegisterFile, ShaderState
from .codegen import UFUNC_OPCODES, KernelSource
from .kernels import UNUSED as _UNUSED
from .kernels import UNUSED_READ_ONLY as _UNUSED_READ_ONLY
from .kernels import ZERO_ADDRESS, ZERO_FLAGS, Memo, needs_reference
from .kernels import analysis as _analysis
from .kernels import compile_source as _compile
from .kernels import on_disk as _on_disk

#: Whether Numba is installed (the engine is registered only then).
AVAILABLE = importlib.util.find_spec("numba") is not None

#: Lanes per kernel call below which one thread does all the work.
_MIN_LANES_PER_THREAD = 4096
#: When to get a program's own kernel rather than interpret: "cost" (by
#: :func:`.choice.kernel_pays`), "always" or "never" (tests and benchmarks).
KERNELS = "cost"
_CACHE_SIZE = 64
#: Whether vertex shaders run on the LLVM kernels of :mod:`.native` (compiled in this
#: process in a fraction of a second) rather than on Numba's kernels and interpreter
#: kernel (kept, for comparison, until the LLVM kernels also run geometry shaders).
NATIVE = True

@dataclass(frozen=True, slots=True)
class Kernel:
    """A compiled kernel and what its :class:`.codegen.KernelSource` says about it
    (``steps``, ``address``, ``flags``, ``overwrites``, ``optional``, ``checks``)."""

    function: Callable[..., None]
    steps: int | None
    address: bool = True
    flags: bool = True
    overwrites: frozenset = frozenset()
    optional: frozenset = frozenset()
    checks: bool = False
    #: The interpreter kernel (:func:`_interpreter`), not the program's own.
    interpreted: bool = False


_cache: OrderedDict[tuple, Kernel] = OrderedDict()
_cache_lock = threading.Lock()
_tables: OrderedDict[tuple, tuple] = OrderedDict()
_sources = Memo()
_pool: ThreadPoolExecutor | None = None
#: Status and steps for kernels that write neither (straight-line kernels).
_NO_STATUS = np.zeros(0, np.int8)
_NO_STEPS = np.zeros(0, np.int64)


def _missing(reads: frozenset[tuple[str, int]], state: ShaderState) -> frozenset:
    """The registers the program reads by name that were not given."""
    given = {"v": state.input_given, "c": state.uniforms.float_given,
             "i": state.uniforms.int_given, "b": state.uniforms.bool_given}
    return frozenset(r for r in reads if not given[r[0]][r[1]])


def _key(program: DecodedProgram, entry: int, precision: Precision,
         missing: frozenset, bounded: bool = False) -> tuple:
    extra = () if entry in _analysis(program).leaders else (entry,)
    return (program.program, precision, extra, missing, entry, bounded)


def _run_key(program: DecodedProgram, state: ShaderState, entry: int,
             precision: Precision) -> tuple:
    """The key of the kernel that runs ``state``: its missing registers, and whether it
    is a bounded kernel (:func:`.codegen.generate`): f24, and every float uniform the
    program can read ``primitives.bounded24`` with ``primitives.BOUND_UNIFORM``
    (otherwise a bounded kernel would send every lane reading such a uniform to an
    exact engine, and the kernel that checks results instead runs it faster)."""
    analysis = _analysis(program)
    missing = _missing(analysis.reads, state)
    bounded = precision == "f24" and _uniforms_bounded(analysis, state.uniforms)
    return _key(program, entry, precision, missing, bounded)


#: The uniforms last checked, the rows checked (None: every given one) and the answer: a
#: run asks twice (``compiled`` when its engine is chosen, then ``run_lanes_jit``).  A
#: stale answer could only cost speed: a bounded kernel checks its uniforms itself.
_last_checked: tuple = (None, None, False)


def _uniforms_bounded(analysis, uniforms) -> bool:
    """Whether every float uniform the program can read is ``primitives.bounded24``
    with ``primitives.BOUND_UNIFORM``."""
    global _last_checked
    rows = None if analysis.relative_uniforms else analysis.uniform_rows
    last = _last_checked
    if last[0] is uniforms and last[1] == rows:
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


def _cached(key: tuple) -> Kernel | None:
    with _cache_lock:
        kernel = _cache.get(key)
        if kernel is not None:
            _cache.move_to_end(key)
        return kernel


def _source(program: DecodedProgram, key: tuple) -> KernelSource:
    """The :class:`.codegen.KernelSource` of the kernel for ``key``."""
    from .codegen import generate

    return _sources.make(key, lambda: generate(program, _analysis(program), key[2], key[1],
                                               key[3], key[4], key[5]))


def kernel_for(program: DecodedProgram, entry: int, precision: Precision,
               missing: frozenset = frozenset(), bounded: bool = False) -> Kernel:
    """The compiled kernel for ``program`` (cached per program, precision, the entry if it
    is not a block start anyway, the set of missing registers, and whether it is a
    bounded kernel, :func:`_run_key`)."""
    key = _key(program, entry, precision, missing, bounded)
    kernel = _cached(key)
    if kernel is not None:
        return kernel
    source = _source(program, key)
    kernel = Kernel(_compile(source.source), source.steps, source.address, source.flags,
                    source.overwrites, source.optional, source.checks)
    with _cache_lock:
        _cache[key] = kernel
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return kernel


def ready(program: DecodedProgram, state: ShaderState, entry: int,
          precision: Precision) -> bool:
    """Whether running ``state`` costs no compilation: the program's kernel is compiled
    in this process or cached on disk (EX2/LG2 programs the JIT cannot run exactly go
    to the reference engine, which compiles nothing either)."""
    if NATIVE:
        return compiled(program, state, entry, precision)
    if needs_reference(program):
        return True
    key = _run_key(program, state, entry, precision)
    return _cached(key) is not None or _on_disk(_source(program, key).source)


@functools.cache
def _threads() -> int:
    return max(1, os.cpu_count() or 1)


def _executor() -> ThreadPoolExecutor:
    global _pool
    with _cache_lock:
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


def _kernel_pays(program: DecodedProgram, key: tuple, lanes: int, steps: float) -> bool:
    """Whether to get the program's kernel for a run of ``lanes`` lanes of about ``steps``
    instructions (:data:`KERNELS`)."""
    if KERNELS != "cost":
        return KERNELS == "always"
    kept = choice.Kept.DISK if _on_disk(_source(program, key).source) else choice.Kept.NONE
    return choice.kernel_pays(lanes, steps, len(program), kept,
                              choice.spent(("interpreted", key)), choice.interpreter_kept())


def interpreted(program: DecodedProgram, state: ShaderState, entry: int,
                precision: Precision) -> float:
    """Seconds interpreting ``program`` has cost in this process beyond what its kernel
    would have needed (for :class:`.choice.Readiness`)."""
    return choice.spent(("interpreted", _run_key(program, state, entry, precision)))


def compiled(program: DecodedProgram, state: ShaderState, entry: int,
             precision: Precision, geometry: bool = False) -> bool:
    """Whether this process has already compiled the kernel that runs ``state`` (what
    ``engine="auto"`` asks before choosing the JIT for a small input: loading a kernel
    from the disk cache takes longer than the reference engine needs for a few lanes;
    ``geometry``: a geometry shader's kernel, run by the unit ``state``).  Cheap, and
    imports no Numba: programs the JIT hands to the reference engine never have a
    kernel in the cache."""
    if geometry:
        # with Numba's kernels, the geometry engine decides itself what to compile
        geometryrun = sys.modules.get(f"{__package__}.geometryrun")
        return NATIVE and geometryrun is not None and geometryrun.compiled(
            program, entry, precision)
    if NATIVE:
        from . import nativerun

        analysis = _analysis(program)
        missing = _missing(analysis.reads, state)
        bounded = precision == "f24" and _uniforms_bounded(analysis, state.uniforms)
        return _native_reference(program) or nativerun.compiled(program, entry, precision,
                                                                 missing, bounded)
    return _cached(_run_key(program, state, entry, precision)) is not None


def _native_reference(program: DecodedProgram) -> bool:
    """Whether the LLVM kernels hand ``program`` to the reference engine (EX2/LG2 when
    NumPy's inner loops cannot be called directly)."""
    if not _analysis(program).opcodes & UFUNC_OPCODES:
        return False
    from .numpyloops import LOOPS_OK

    return not LOOPS_OK


def run_lanes_jit(program: DecodedProgram, state: ShaderState, entry: int, *,
                  precision: Precision, max_steps: int) -> np.ndarray:
    """The engine entry point (same contract as :func:`.reference.run_lanes`)."""
    if NATIVE:
        if _native_reference(program):
            return run_lanes(program, state, entry, precision=precision,
                             max_steps=max_steps)
        return _run_native(program, state, entry, precision, max_steps)
    if needs_reference(program):
        return run_lanes(program, state, entry, precision=precision, max_steps=max_steps)
    analysis = _analysis(program)
    lanes = state.lanes
    key = _run_key(program, state, entry, precision)
    missing = key[3]
    kernel = None if KERNELS == "never" else _cached(key)
    if kernel is None:
        estimated = choice.estimated_steps(program, entry, state.uniforms)
        if _kernel_pays(program, key, lanes, estimated):
            kernel = kernel_for(program, entry, precision, missing, key[5])
        else:
            kernel = _interpreter(program, analysis, precision, missing)
            choice.record(("interpreted", key), choice.interpreter_extra(lanes, estimated))
    status, steps = _launch(kernel, program, state, entry, max_steps)
    if status is None:
        return steps
    again = np.flatnonzero(status)
    if again.size and not kernel.interpreted and choice.rerun_on_interpreter(
            len(again), choice.estimated_steps(program, entry, state.uniforms),
            choice.interpreter_kept()):
        # Many lanes to run again (values out of the in-range arithmetic's range, often
        # all of a run's): the interpreter kernel costs a fraction of the reference engine.
        some = state.take_lanes(again)
        interpreter = _interpreter(program, analysis, precision, missing)
        their_status, their_steps = _launch(interpreter, program, some, entry, max_steps)
        state.put_lanes(again, some, allocated_only=True)
        if steps.flags.writeable:
            steps[again] = their_steps
        again = again[their_status != 0]
    for lane in again:
        counted = run_lane(program, state, entry, int(lane), precision=precision,
                           max_steps=max_steps)
        if steps.flags.writeable:
            steps[lane] = counted
    return steps


def _run_native(program: DecodedProgram, state: ShaderState, entry: int,
                precision: Precision, max_steps: int) -> np.ndarray:
    """Run ``state`` on the program's LLVM kernel; lanes it hands back run on the
    reference engine."""
    from . import nativerun

    analysis = _analysis(program)
    missing = _missing(analysis.reads, state)
    bounded = precision == "f24" and _uniforms_bounded(analysis, state.uniforms)
    found = nativerun.kernel(program, entry, precision, missing, bounded)
    status, steps = nativerun.launch(found, program, state, max_steps, in_parallel)
    again = np.flatnonzero(status)
    if steps is None:
        if not again.size:
            return _same_steps(found.steps, state.lanes)
        steps = np.full(state.lanes, found.steps, np.int64)
    for lane in again:
        steps[lane] = run_lane(program, state, entry, int(lane), precision=precision,
                               max_steps=max_steps)
    return steps


def _launch(kernel: Kernel, program: DecodedProgram, state: ShaderState, entry: int,
            max_steps: int) -> tuple[np.ndarray | None, np.ndarray]:
    """Run ``kernel`` over ``state``'s lanes: the lane status (None if no lane can need
    another engine) and the steps (read-only if one number for every lane)."""
    lanes = state.lanes
    if kernel.steps is not None and kernel.steps > max_steps:
        # every lane stops at the step limit
        return np.ones(lanes, dtype=np.int8), np.zeros(lanes, dtype=np.int64)
    uniform = kernel.steps is not None  # the kernel writes no steps
    status = (_NO_STATUS if uniform and not kernel.checks
              else lane_array(lanes, 1, np.int8, fill=False).reshape(-1))
    steps = _NO_STEPS if uniform else lane_array(lanes, 1, np.int64, fill=False).reshape(-1)
    used = _analysis(program).registers
    uniforms = state.uniforms
    fresh = kernel.overwrites
    seen = RESULT_TEMPORARIES.get()
    # Temporaries the kernel never loads: no storage (not stored) unless the caller sees
    # them; address registers and flags likewise, unless they start non-zero.
    unseen = frozenset() if seen else kernel.optional
    holds_address, holds_flags = state.holds_control
    chosen = (state.address if kernel.address and (seen or holds_address) else ZERO_ADDRESS,
              state.cmp if kernel.flags and (seen or holds_flags) else ZERO_FLAGS)
    address, cmp = passed = [_column_major(array) for array in chosen]
    arrays = (_registers(state.inputs, "v", used),
              _registers(state.temporaries, "r", used - unseen, fresh),
              _registers(state.outputs[state.bank], "o", used, fresh),
              address, cmp,
              np.ascontiguousarray(uniforms.floats, dtype=np.float32),
              uniforms.float_given, np.ascontiguousarray(uniforms.ints, dtype=np.int64),
              uniforms.bools, np.int64(max_steps), status, steps, _native_loops())
    function = kernel.function
    in_parallel(lambda lo, hi: function(lo, hi, entry, *arrays), lanes, _MIN_LANES_PER_THREAD)
    for array, copy in zip(chosen, passed, strict=True):
        if copy is not array:  # made by _column_major: its lanes go back
            array[...] = copy[:, :array.shape[1]]
    if uniform:
        return (status if kernel.checks else None), _same_steps(kernel.steps, lanes)
    return status, steps


@functools.cache
def _native_loops() -> np.ndarray:
    """:data:`.intrinsics.NATIVE_LOOPS` (importing it imports Numba: not before a kernel
    runs; an import statement per run costs more than a one-vertex kernel)."""
    from .intrinsics import NATIVE_LOOPS

    return NATIVE_LOOPS


def _column_major(array: np.ndarray) -> np.ndarray:
    """``array`` (a component per row, a lane per column: ShaderState's address registers
    or flags, or a stand-in) as Numba's layout "F", the one every kernel is compiled for.
    With one lane (or none) such an array is C-contiguous too, and Numba would type it
    "C" and compile a second signature of the kernel (seconds, for a one-vertex run):
    it goes in as a new two-column array instead, whose lanes the caller copies back."""
    if not array.flags.c_contiguous:
        return array
    wide = np.zeros((2, array.shape[0]), array.dtype).T
    wide[:, :array.shape[1]] = array
    return wide


@functools.lru_cache(maxsize=16)
def _same_steps(count: int, lanes: int) -> np.ndarray:
    """``count`` for each of ``lanes`` lanes: a read-only view of one number instead of
    8 bytes per lane (kept: NumPy's broadcast_to costs more than a small run)."""
    steps = np.ndarray((lanes,), np.int64, np.array([count], np.int64), strides=(0,))
    steps.flags.writeable = False
    return steps


def _registers(registers: RegisterFile, bank: str, used: frozenset,
               overwritten: frozenset = frozenset()) -> tuple:
    """A register file as a kernel takes it: the ``(lanes, 4)`` array of every register
    in ``used`` (read-only for inputs, which kernels never write), stand-ins for the
    others (allocating a register of 10^7 lanes for nothing would cost memory).  Those
    the kernel ``overwritten`` completely are not zero-filled when allocated here (the
    fill would write every byte once more)."""
    read_only = bank == "v"
    arrays = [_UNUSED_READ_ONLY if read_only else _UNUSED] * len(registers)
    for kind, number in used:
        if kind != bank:
            continue
        array = registers.storage(number, fill=(bank, number) not in overwritten)
        if read_only and array.flags.writeable:
            array = array.view()
            array.flags.writeable = False
        arrays[number] = array
    return tuple(arrays)


def _interpreter(program: DecodedProgram, analysis, precision: Precision,
                 missing: frozenset) -> Kernel:
    """The interpreter kernel bound to ``program``'s table (same signature as a compiled
    kernel)."""
    from . import interpreter

    key = ("interpreter", program.program, missing)
    with _cache_lock:
        encoded = _tables.get(key)
    if encoded is None:
        encoded = (interpreter.encode(program, analysis, missing),
                   *interpreter.register_rows(program))
        with _cache_lock:
            _tables[key] = encoded
            while len(_tables) > _CACHE_SIZE:
                _tables.popitem(last=False)
    f24 = precision == "f24"

    def kernel(lo: int, hi: int, entry: int, *arrays: object) -> None:
        interpreter.interpret(lo, hi, entry, *encoded, f24, *arrays)

    return Kernel(kernel, None, interpreted=True)


def load_jit(values: np.ndarray, precision: Precision, out: np.ndarray) -> None:
    """The engine's input loader (:mod:`.nativeload`, or with Numba's kernels
    :mod:`.loader`): load_floats on every core."""
    if NATIVE:
        from .nativeload import load
    else:
        from .loader import load

    load(values, precision, out, in_parallel)


def run_geometry(program: DecodedProgram, unit: ShaderState, entry: int,
                 registers: tuple[int, ...], feed, *, precision: Precision, max_steps: int):
    """The engine's geometry shader run (see :data:`.api.GEOMETRY_ENGINES`): on the LLVM
    kernels (:mod:`.geometryrun`), or with Numba's kernels :mod:`.geometry`."""
    if NATIVE:
        if _native_reference(program):
            from ..reference.geometry import reference_geometry as run
        else:
            from .geometryrun import run_geometry_native as run
    else:
        from .geometry import run_geometry_jit as run
    return run(program, unit, entry, registers, feed, precision=precision,
               max_steps=max_steps)


if AVAILABLE:
    register_engine("jit", run_lanes_jit, geometry=run_geometry, loader=load_jit)
