"""``engine="auto"``: the engine expected to finish a run first, by measured costs.

The reference engine costs about the same per lane and instruction whatever the program
(:func:`estimated_steps` counts the instructions).  The compiled engine (:mod:`.compiled.runner`)
first has to be ready: Numba imported, then the program's kernel compiled in this
process, loaded from the disk cache, or compiled; or, for runs too small to pay for
compiling, its interpreter kernel loaded (or compiled once).  :func:`pick` compares the
two estimates for what :class:`Readiness` says (``api`` asks the compiled engine,
without importing Numba).  A small input whose kernel is not compiled never waits for
Numba, a compiled kernel is used even for one vertex, and repeated runs of a program
move to the compiled engine once they have cost as much as getting it ready.

Figures measured 2026-11-24 on the machine of issue 11 (2 cores, "AMD EPYC" (Zen 4),
Linux, Python 3.11.7, NumPy 2.4.6, Numba 0.68.1; shared with other work, so ranges),
with the benchmark shaders (transform, lighting, skinning; f24 and f32) through
``run()``: the reference engine over 2,000 vertices (and a 2-instruction program over
200,000 for its cost per lane), the compiled kernels over 10^6, the interpreter over
10^4 with an empty kernel cache (``GPUISA_JIT_CACHE`` pointing to a new directory);
per-call costs from 1-vertex runs (the differences between the engines); Numba's
import, loading a kernel or the interpreter from the disk cache, and compiling a kernel
from the first run in fresh processes, Numba imported first.  They only need to be
right within a factor of about two: the two costs differ by much more except near the
crossover.
"""

from __future__ import annotations

import glob
import os
import sys
import threading
from collections import OrderedDict
from dataclasses import dataclass
from enum import Enum

from ..isa import Flow
from .decode import DecodedProgram
from .state import Uniforms

#: Seconds per lane and per instruction and lane on the reference engine (a fit of
#: the time per lane: 20 µs for 5 instructions, 43 µs for 14.5, 141 µs for 39, 16 µs
#: for 2).
REFERENCE_LANE = 5e-6
REFERENCE_STEP = 3.5e-6
#: Seconds per instruction of a geometry shader invocation on the reference engine
#: (the point-to-quad shader, 19 instructions: 230-250 µs per invocation).
GEOMETRY_REFERENCE_STEP = 12.5e-6
#: Seconds per call on the reference engine beyond what the compiled engine needs
#: (preparing the program's plan, converting registers to lists; measured 33-102 µs).
REFERENCE_CALL = 60e-6
#: Seconds per instruction and lane of a compiled kernel, both cores (1.3-12.7 ns).
COMPILED_STEP = 6e-9
#: Seconds per instruction and lane of the interpreter kernel, :mod:`.compiled.interpreter`
#: (184-282 ns).
INTERPRETER_STEP = 250e-9
#: Seconds per call of the interpreter kernel beyond a compiled kernel's (encoding the
#: program's tables; measured 46-68 µs).
INTERPRETER_CALL = 60e-6
#: Seconds to import Numba (0.32-0.6 s).
NUMBA_IMPORT = 0.4
#: Seconds to load a program's kernel from Numba's disk cache, with the compiled rules
#: it calls, Numba imported (0.95-1.15 s).
LOAD_KERNEL = 1.0
#: Seconds to load the interpreter kernel from Numba's disk cache (0.88 s).
LOAD_INTERPRETER = 0.9
#: Seconds to compile the interpreter kernel (once per installation; 9-18 s).
COMPILE_INTERPRETER = 10.0
#: Seconds to compile a program's kernel: a fixed part and a part per instruction word
#: (5 words 3.7 s, 15 words 9.9 s, 17 words 11.0 s, 27 words 24.6 s).
COMPILE_KERNEL = 0.5
COMPILE_PER_WORD = 0.75


class Kept(Enum):
    """Where a compiled kernel is: in this process, in the disk cache, nowhere."""

    PROCESS = "process"
    DISK = "disk"
    NONE = "none"


@dataclass(frozen=True, slots=True)
class Readiness:
    """What the compiled engine has to do before running a program: whether Numba is
    imported, where the program's kernel and the interpreter kernel are, and from how
    many lanes it compiles a missing kernel instead of interpreting
    (:data:`.jit.COMPILE_THRESHOLD`)."""

    numba: bool
    kernel: Kept
    interpreter: Kept
    compile_threshold: int


def reference_cost(lanes: int, steps: float, geometry: bool = False) -> float:
    """Estimated seconds the reference engine needs for ``lanes`` lanes (geometry shader
    invocations) of ``steps`` instructions each."""
    step = GEOMETRY_REFERENCE_STEP if geometry else REFERENCE_STEP
    return REFERENCE_CALL + lanes * (REFERENCE_LANE + steps * step)


def compiled_cost(lanes: int, steps: float, words: int, ready: Readiness) -> float:
    """Estimated seconds the compiled engine needs (see :class:`Readiness`)."""
    start = 0.0 if ready.numba else NUMBA_IMPORT
    if ready.kernel is Kept.PROCESS:
        return lanes * steps * COMPILED_STEP
    if ready.kernel is Kept.DISK:
        return start + LOAD_KERNEL + lanes * steps * COMPILED_STEP
    if lanes >= ready.compile_threshold:
        return start + COMPILE_KERNEL + COMPILE_PER_WORD * words + lanes * steps * COMPILED_STEP
    load = {Kept.PROCESS: 0.0, Kept.DISK: LOAD_INTERPRETER,
            Kept.NONE: COMPILE_INTERPRETER}[ready.interpreter]
    return start + load + INTERPRETER_CALL + lanes * steps * INTERPRETER_STEP


def best_case(lanes: int, steps: float, numba: bool, interpreter: bool = True) -> float:
    """The least the compiled engine can cost when its kernel is not compiled in this
    process: loaded from the disk cache, or (``interpreter``: vertex shaders) run on the
    interpreter kernel already loaded."""
    costs = [compiled_cost(lanes, steps, 0, Readiness(numba, Kept.DISK, Kept.PROCESS, 0))]
    if interpreter:
        costs.append(compiled_cost(lanes, steps, 0, Readiness(
            numba, Kept.NONE, Kept.PROCESS, lanes + 1)))
    return min(costs)


def pick(lanes: int, steps: float, words: int, ready: Readiness, spent: float = 0.0) -> str:
    """"jit" if the compiled engine is expected to cost less than the reference engine
    plus ``spent``, the seconds the reference engine already took for this program in
    this process (:func:`spent`): repeated runs then pay the compiled engine's one-time
    costs once they have cost as much on the reference engine, at most about twice the
    best choice in hindsight (rent or buy).  Else "reference"."""
    if compiled_cost(lanes, steps, words, ready) < reference_cost(lanes, steps) + spent:
        return "jit"
    return "reference"


_spent: OrderedDict[object, float] = OrderedDict()
_spent_lock = threading.Lock()
_SPENT_PROGRAMS = 64


def spent(program: object) -> float:
    """Estimated seconds the reference engine ran ``program`` for ``engine="auto"`` in
    this process."""
    with _spent_lock:
        return _spent.get(program, 0.0)


def record(program: object, seconds: float) -> None:
    """Add a reference run's estimated seconds to :func:`spent` (the most recent
    programs are remembered)."""
    with _spent_lock:
        _spent[program] = _spent.pop(program, 0.0) + seconds
        while len(_spent) > _SPENT_PROGRAMS:
            _spent.popitem(last=False)


def estimated_steps(program: DecodedProgram, entry: int, uniforms: Uniforms) -> float:
    """Instructions a lane runs, estimated statically: the words from ``entry`` up to
    the first END in address order, each LOOP body as often as its integer uniform says
    (seed "LOOP": INT.x + 1 iterations).  Branches are taken as falling through."""
    count = 0.0
    steps = program.steps
    pc = entry
    while pc < len(steps):
        step = steps[pc]
        count += 1
        flow = step.info.flow
        if flow is Flow.END:
            break
        if flow is Flow.LOOP:
            number = step.field("id") % len(uniforms.ints)
            trips = int(uniforms.ints[number][0]) + 1 if uniforms.int_given[number] else 1
            body = max(0, step.field("dst") - pc)  # pc + 1 .. DST
            count += body * (trips - 1)
        pc += 1
    return max(count, 1.0)


def compile_geometry(program: DecodedProgram, uniforms: Uniforms, entry: int,
                     count: int) -> bool:
    """Whether the compiled geometry engine should compile the kernel (neither compiled
    nor on disk) of a feed of ``count`` invocations rather than hand the feed to the
    reference engine, by the same costs as :func:`pick` (the reference engine's time
    for this program so far included; it is recorded when the answer is no)."""
    steps = estimated_steps(program, entry, uniforms)
    key = (program.program, True)
    reference = reference_cost(count, steps, geometry=True)
    ready = Readiness("numba" in sys.modules, Kept.NONE, Kept.NONE, 0)
    if compiled_cost(count, steps, len(program), ready) < reference + spent(key):
        return True
    record(key, reference)
    return False


def interpreter_kept() -> Kept:
    """Where the interpreter kernel is (Numba caches it beside
    :mod:`.compiled.interpreter`)."""
    module = sys.modules.get(f"{__package__}.compiled.interpreter")
    if module is not None and getattr(module.interpret, "signatures", None):
        return Kept.PROCESS
    cache = os.path.join(os.path.dirname(os.path.abspath(__file__)), "compiled",
                         "__pycache__", "interpreter.interpret-*.nbi")
    return Kept.DISK if glob.glob(cache) else Kept.NONE
