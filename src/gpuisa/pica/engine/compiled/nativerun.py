"""Running vertex shaders on their LLVM kernels (:mod:`.native`): making a kernel for a
(program, entry, precision, missing registers), and handing it a run's arrays.

A kernel is compiled in milliseconds the first time a process needs it and kept for
the process (:data:`_kernels`).  A launch passes the kernel a table of 64-bit words
(:data:`.native.ARGS`): the addresses of the registers the program names, of the
address registers and flags when they start non-zero or the caller sees them (else 0:
every lane starts with zeros, nothing is stored), of the uniforms, the status and the
steps.  The lanes are split over one thread per CPU (ctypes releases the GIL).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ...isa import Flow, Kind
from ..api import RESULT_TEMPORARIES
from ..decode import DecodedProgram
from ..loading import Arithmetic
from ..memory import lane_array
from ..state import ShaderState, Uniforms
from . import native
from .facts import Analysis, Memo
from .facts import analysis as _analysis
from .llvmjit import OPTIMISED, QUICK, Compiled, cached, compile_cached
from .llvmjit import address as _address
from .numpyloops import NATIVE_LOOPS

#: Lanes per thread below which one thread does all the work.
MIN_LANES_PER_THREAD = 2048


@dataclass(frozen=True, slots=True)
class NativeKernel:
    """A compiled kernel; ``steps`` the one step count of every lane when the program is
    a single block from its entry to END (the kernel then writes no steps); ``key`` what
    it was made for, ``level`` its code generator's (:data:`.llvmjit.QUICK` or
    :data:`.llvmjit.OPTIMISED`)."""

    compiled: Compiled
    steps: int | None
    key: tuple = ()
    level: int = OPTIMISED


#: Seconds of runs on a quickly compiled kernel after which its program is compiled
#: again with the optimising code generator (rent or buy: that costs 25-115 ms and saves
#: 20-70 % of every later run, measured 2026-11-28 on the benchmark shaders).  A run
#: large enough to spend that much on its own moves after its first part
#: (:func:`run_upgrading`).
UPGRADE_AFTER = 0.3
#: The lanes a run of at least :data:`PROBE_LANES` * 8 lanes on a quickly compiled
#: kernel runs first, timed, before it decides whether the rest pays for the optimised
#: kernel (:func:`run_upgrading`).
PROBE_LANES = 1 << 15
#: Seconds spent on each quickly compiled kernel (the most recent programs).
_spent: OrderedDict[tuple, float] = OrderedDict()
_SPENT_KERNELS = 256


_kernels = Memo(256)
#: Key -> the kernel runs take now (dropped when its quick kernel is due for the
#: optimising code generator): one dictionary look-up per run.
_current: dict[tuple, NativeKernel] = {}
_compile_lock = threading.Lock()
_lock = threading.Lock()


def plan(program: DecodedProgram, analysis: Analysis, entry: int) -> native.Plan:
    """The :class:`.native.Plan` of ``program`` entered at ``entry``."""
    leaders = tuple(sorted({*analysis.leaders, entry}))
    pops = {pc: analysis.pops_after(pc) for pc in range(len(program))}
    parting = any(step.fault is None and step.kind is Kind.FLOW and step.info.reads_flags
                  for step in program.steps)
    return native.Plan(program, leaders, pops, analysis.registers, analysis.uniform_rows,
                       analysis.address, analysis.flags, parting, analysis.relative_uniforms)


def _static_steps(the_plan: native.Plan, entry: int) -> int | None:
    """The step count of a program that is one block of ALU instructions from
    ``entry`` to END."""
    steps = the_plan.program.steps
    for pc in range(entry, len(steps)):
        step = steps[pc]
        if step.fault is not None:
            return None
        if step.info.flow is Flow.END:
            return pc - entry + 1
        if native.ends_block(step, the_plan.pops[pc]) or (
                pc + 1 in the_plan.leaders and pc + 1 != entry):
            if not step.info.inert and step.kind not in (Kind.ARITHMETIC,
                                                         Kind.COMPARE):
                return None
            if any(the_plan.pops[pc]):
                return None
    return None


def kernel(program: DecodedProgram, entry: int, precision: Arithmetic,
           missing: frozenset, bounded: bool = False) -> NativeKernel:
    """The kernel for ``program`` (``bounded``: for runs whose uniforms are bounded,
    :func:`.native.build_module`): compiled quickly the first time, compiled again with
    the optimising code generator once runs on it have taken :data:`UPGRADE_AFTER`
    seconds (or a run's first part says its rest would: :func:`run_upgrading`); each
    made once per process."""
    key = (program.program, entry, precision, missing, bounded)
    found = _current.get(key)
    if found is None:
        found = _kernel(program, key)
        if len(_current) >= _SPENT_KERNELS:
            _current.clear()
        _current[key] = found
    return found


def _kernel(program: DecodedProgram, key: tuple) -> NativeKernel:
    """:func:`kernel` for ``key`` when it has no current kernel."""
    _, entry, precision, missing, bounded = key

    def make(level: int) -> NativeKernel:
        the_plan = plan(program, _analysis(program), entry)
        code = compile_cached(_cache_key(key), lambda: native.build_module(
            the_plan, entry, precision, missing, bounded=bounded), level=level)
        return NativeKernel(code, _static_steps(the_plan, entry), key, level)

    return tiered(key, make, lambda: cached(_cache_key(key)))


def tiered(key: tuple, make: Callable[[int], object],
           optimised_on_disk: Callable[[], bool] = lambda: False) -> object:
    """The kernel ``make(level)`` for ``key``: at level :data:`.llvmjit.QUICK` the first
    time, at :data:`.llvmjit.OPTIMISED` once runs on it have taken :data:`UPGRADE_AFTER`
    seconds (:func:`record`), or from the start if ``optimised_on_disk()`` (another
    process compiled it: loading its machine code takes a millisecond); each made once
    per process."""
    found = _kernels.get((*key, OPTIMISED))
    if found is not None:
        return found
    with _lock:
        spent = _spent.get(key, 0.0)
    level = OPTIMISED if spent >= UPGRADE_AFTER else QUICK
    found = _kernels.get((*key, level))
    if found is not None:
        return found
    if level == QUICK and optimised_on_disk():
        level = OPTIMISED
    with _compile_lock:  # two threads asking at once compile once
        return _kernels.make((*key, level), lambda: make(level))


def _cache_key(key: tuple) -> str:
    """The text naming a kernel in the machine-code cache (:func:`.llvmjit.compile_cached`)."""
    program, entry, precision, missing, bounded = key
    return (f"pica vertex kernel\n{program.code}\n{program.opdescs}\n{entry} {precision} "
            f"{sorted(missing)} {bounded}")


def record(key: tuple, level: int, seconds: float) -> None:
    """Add a run's seconds to the tally of the quickly compiled kernel of ``key``."""
    if level == OPTIMISED:
        return
    with _lock:
        spent = _spent[key] = _spent.pop(key, 0.0) + seconds
        if spent >= UPGRADE_AFTER:  # the next run asks for the optimised kernel
            _current.pop(key, None)
        while len(_spent) > _SPENT_KERNELS:
            _spent.popitem(last=False)


def compiled(program: DecodedProgram, entry: int, precision: Arithmetic,
             missing: frozenset, bounded: bool = False) -> bool:
    """Whether this process has a kernel for the program already."""
    key = (program.program, entry, precision, missing, bounded)
    return key in _current or any(_kernels.get((*key, level)) is not None
                                  for level in (QUICK, OPTIMISED))


#: The argument table's words that depend only on the uniforms, for the uniforms last
#: launched with (kept with them: they hold the arrays the addresses point into).
_last_uniforms: tuple = (None, None)


def _uniform_words(uniforms: Uniforms) -> np.ndarray:
    """An argument table holding only the words about ``uniforms`` (and NumPy's loops),
    remembered for the uniforms last asked about: runs of a few vertices in a loop
    usually share one read-only table (:func:`..uniform_table.shared_uniforms`)."""
    global _last_uniforms
    last = _last_uniforms
    if last[0] is uniforms and not uniforms.floats.flags.writeable:
        return last[1]
    args = np.zeros(native.ARG_COUNT, np.int64)
    kept = []
    for name, array in (("floats", np.ascontiguousarray(uniforms.floats, np.float32)),
                        ("ints", np.ascontiguousarray(uniforms.ints, np.int64)),
                        ("bools", np.ascontiguousarray(uniforms.bools)),
                        ("loops", NATIVE_LOOPS)):
        kept.append(array)
        args[native.ARG[name]] = array.ctypes.data
    given = uniforms.float_given
    args[native.ARG["rows_given"]] = bool(given.all())
    bits = np.packbits(given, bitorder="little").view(np.int64)  # 128 rows: two words
    args[native.ARG["given_low"]], args[native.ARG["given_high"]] = bits
    args.flags.writeable = False
    _last_uniforms = (uniforms, args, kept)
    return args


def run_upgrading(found: NativeKernel, remake: Callable[[], NativeKernel],
                  program: DecodedProgram, state: ShaderState, max_steps: int,
                  parallel: Callable) -> tuple[np.ndarray, np.ndarray | None]:
    """:func:`launch` of ``found``; if it was compiled quickly and the run is large, its
    first :data:`PROBE_LANES` lanes are run and timed first, and when the rest would
    take the kernel's runs past :data:`UPGRADE_AFTER`, ``remake()`` (asked after the
    probe was recorded: the optimised kernel) runs the rest (rent or buy within one
    run, so that one large run is not left on the slower code)."""
    lanes = state.lanes
    if found.level == OPTIMISED or lanes < 8 * PROBE_LANES:
        return launch(found, program, state, max_steps, parallel)
    started = time.perf_counter()
    status, steps = launch(found, program, state, max_steps, parallel, stop=PROBE_LANES)
    rest = (time.perf_counter() - started) * (lanes - PROBE_LANES) / PROBE_LANES
    with _lock:
        due = _spent.get(found.key, 0.0) + rest >= UPGRADE_AFTER
    later = found
    if due:  # what the rest would spend on the quick kernel counts now
        record(found.key, found.level, rest)
        later = remake()
        # the rest writes into the probe's arrays: both kernels run the same plan
        if later.steps != found.steps:
            raise AssertionError("kernels of one key differ in their step counts")
    launch(later, program, state, max_steps, parallel, start=PROBE_LANES,
           into=(status, steps))
    return status, steps


def launch(found: NativeKernel, program: DecodedProgram, state: ShaderState,
           max_steps: int, parallel: Callable, start: int = 0, stop: int | None = None,
           into: tuple[np.ndarray, np.ndarray | None] | None = None
           ) -> tuple[np.ndarray, np.ndarray | None]:
    """Run ``state``'s lanes (``start`` to ``stop``, default all): the lane status
    (non-zero: run again on the reference engine) and the steps (None: every lane ran
    ``found.steps``), written ``into`` the arrays of an earlier part when given."""
    lanes = state.lanes
    stop = lanes if stop is None else stop
    args = _uniform_words(state.uniforms).copy()
    analysis = _analysis(program)
    seen = RESULT_TEMPORARIES.get()
    files = {"v": state.inputs, "r": state.temporaries, "o": state.outputs[state.bank]}
    for bank, number in analysis.registers:
        registers = files[bank]
        if bank == "v" and not state.input_given[number]:
            continue
        if bank == "r" and not (seen or registers.allocated(number)):
            continue  # starts at zero, nobody sees it
        array = registers.storage(number)
        if not array.flags.c_contiguous:
            raise AssertionError(f"register {bank}{number} is not lane-major")
        args[native.FILE_BASE[bank] + number] = _address(array)
    holds_address, holds_flags = state.holds_control
    for name, used, holds, get in (
            ("address", analysis.address, holds_address, lambda: state.address),
            ("flags", analysis.flags, holds_flags, lambda: state.cmp)):
        if used and (seen or holds):
            array = get().T  # lane-major, as ShaderState allocates it
            if not array.flags.c_contiguous:
                raise AssertionError(f"the {name} array is not lane-major")
            args[native.ARG[name]] = _address(array)
    args[native.ARG["max_steps"]] = max_steps
    status, steps = into or (lane_array(lanes, 1, np.int8, fill=False).reshape(-1), None)
    args[native.ARG["status"]] = _address(status)
    if found.steps is None:
        if steps is None:
            steps = lane_array(lanes, 1, np.int64, fill=False).reshape(-1)
        args[native.ARG["steps"]] = _address(steps)
    function, table = found.compiled.function, _address(args)
    started = time.perf_counter()
    if stop - start < 2 * MIN_LANES_PER_THREAD:  # one thread: no closure, no split
        function(start, stop, table)
    else:
        parallel(lambda lo, hi: function(start + lo, start + hi, table), stop - start,
                 MIN_LANES_PER_THREAD)
    record(found.key, found.level, time.perf_counter() - started)
    return status, steps
