"""``engine="auto"``: the engine expected to finish a run first, by measured costs.

The reference engine costs about the same per lane and instruction whatever the program
(:func:`estimated_steps` counts the instructions).  The compiled engine
(:mod:`.compiled.runner`) first has to be ready: Numba imported, then either the
program's own kernel (compiled in this process, loaded from the disk cache, or
compiled) or its interpreter kernel, which runs any program (loaded from the disk
cache, or compiled once per installation).  It interprets a program until getting the
program's kernel pays (:func:`kernel_pays`: rent or buy over the program's runs).
:func:`pick` compares the two engines' estimates for what :class:`Readiness` says
(``api`` asks the compiled engine, without importing Numba).  A small input whose
kernel is not compiled never waits for Numba, a compiled kernel is used even for one
vertex, and repeated runs of a program move to the compiled engine once they have cost
as much as getting it ready.

Figures measured 2026-11-24 on a 2-core "AMD EPYC" (Zen 4) machine (Linux, Python 3.11.7, NumPy
2.4.6, Numba 0.68.1; shared with other work, so ranges), with the benchmark shaders (transform,
lighting, skinning, peer lighting; f24 and f32) through ``run()``: the reference engine over 2,000
vertices (and a 2-instruction program over 200,000 for its cost per lane), the compiled kernels and
the interpreter kernel over 10^6 (``benchmarks.run``'s "jit" and "interpreter"); per-call costs from
1-vertex runs (the differences between the engines); Numba's import, loading a kernel
or the interpreter from the disk cache, and compiling a kernel from the first run in
fresh processes.  They only need to be right within a factor of about two: the costs
differ by much more except near the crossovers.
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
#: Seconds per instruction and lane of a compiled kernel, both cores (1.5-1.9 ns over
#: 10^6 lanes; per call costs are in the other constants).
COMPILED_STEP = 2e-9
#: Seconds per instruction and lane of the interpreter kernel, :mod:`.compiled.interpreter`,
#: both cores (5.7-10.8 ns over 10^6 lanes; 17 ns over 10^4).
INTERPRETER_STEP = 10e-9
#: Seconds per call of the interpreter kernel beyond a compiled kernel's (encoding the
#: program's tables; measured 46-68 µs).
INTERPRETER_CALL = 60e-6
#: Seconds to import Numba and the compiled rules the kernels call (0.5-0.7 s).
NUMBA_IMPORT = 0.55
#: Seconds to load a program's kernel from Numba's disk cache, Numba imported
#: (15-32 ms).
LOAD_KERNEL = 0.03
#: Seconds to load the interpreter kernel from Numba's disk cache (48-57 ms).
LOAD_INTERPRETER = 0.05
#: Seconds to compile the interpreter kernel (once per installation; 9-18 s).
COMPILE_INTERPRETER = 10.0
#: Seconds to compile a program's kernel: a fixed part and a part per instruction word
#: (5 words 3.7 s, 15 words 9.9 s, 17 words 11.0 s, 27 words 24.6 s).
COMPILE_KERNEL = 0.5
COMPILE_PER_WORD = 0.75


#: The LLVM kernels (:mod:`.compiled.native`): seconds to import llvmlite and set up
#: LLVM for this CPU (40-60 ms), to compile a kernel with the quick code generator (a
#: fixed part and a part per instruction word: 5 words 27-31 ms, 15 words 58 ms, 27 words
#: 92 ms), and per instruction and lane, both cores (0.6-1.5 ns over 10^6 lanes).
#: Measured 2026-11-27 on the machine above, with the same shaders (CPU time of the
#: compiling thread).
LLVM_IMPORT = 0.05
NATIVE_COMPILE = 0.02
NATIVE_PER_WORD = 0.003
NATIVE_STEP = 1.5e-9
#: Seconds per instruction of a geometry shader invocation on its LLVM kernel (one
#: thread, invocations in order: 40-75 ns on the 25-word quad shader of
#: ``tests/pica/engine/test_jit_geometry.py``, f24 and f32, 10^5 invocations; its quick
#: compile 70-84 ms), measured 2026-11-27 on the machine above.
GEOMETRY_NATIVE_STEP = 75e-9


def native_cost(lanes: int, steps: float, words: int, compiled: bool,
                imported: bool, geometry: bool = False) -> float:
    """Estimated seconds the compiled engine needs on the LLVM kernels: importing LLVM,
    compiling the program's kernel unless it is ``compiled`` in this process, and
    running ``lanes`` lanes (``geometry``: invocations of a geometry shader)."""
    start = 0.0 if imported or compiled else LLVM_IMPORT
    get = 0.0 if compiled else NATIVE_COMPILE + NATIVE_PER_WORD * words
    step = GEOMETRY_NATIVE_STEP if geometry else NATIVE_STEP
    return start + get + lanes * steps * step


class Kept(Enum):
    """Where a compiled kernel is: in this process, in the disk cache, nowhere."""

    PROCESS = "process"
    DISK = "disk"
    NONE = "none"


@dataclass(frozen=True, slots=True)
class Readiness:
    """What the compiled engine has to do before running a program: whether Numba is
    imported, where the program's kernel and the interpreter kernel are, and how many
    seconds interpreting the program has cost so far beyond what its kernel would have
    needed (:func:`interpreted`)."""

    numba: bool
    kernel: Kept
    interpreter: Kept
    interpreted: float = 0.0


def reference_cost(lanes: int, steps: float, geometry: bool = False) -> float:
    """Estimated seconds the reference engine needs for ``lanes`` lanes (geometry shader
    invocations) of ``steps`` instructions each."""
    step = GEOMETRY_REFERENCE_STEP if geometry else REFERENCE_STEP
    return REFERENCE_CALL + lanes * (REFERENCE_LANE + steps * step)


def kernel_cost(lanes: int, steps: float, words: int, kernel: Kept, numba: bool) -> float:
    """Estimated seconds the compiled engine needs with the program's own kernel: getting
    it (importing Numba, loading it from the disk cache or compiling it) and running."""
    start = 0.0 if numba or kernel is Kept.PROCESS else NUMBA_IMPORT
    get = {Kept.PROCESS: 0.0, Kept.DISK: LOAD_KERNEL,
           Kept.NONE: COMPILE_KERNEL + COMPILE_PER_WORD * words}[kernel]
    return start + get + lanes * steps * COMPILED_STEP


def _getting(interpreter: Kept) -> float:
    """Seconds to get the interpreter kernel ready, Numba imported."""
    return {Kept.PROCESS: 0.0, Kept.DISK: LOAD_INTERPRETER,
            Kept.NONE: COMPILE_INTERPRETER}[interpreter]


def _interpreting(lanes: int, steps: float, interpreter: Kept) -> float:
    """Seconds the interpreter kernel needs for a run, getting it ready included."""
    return _getting(interpreter) + INTERPRETER_CALL + lanes * steps * INTERPRETER_STEP


def interpreter_extra(lanes: int, steps: float) -> float:
    """Seconds the interpreter kernel needs for a run beyond the program's own kernel."""
    return INTERPRETER_CALL + lanes * steps * (INTERPRETER_STEP - COMPILED_STEP)


def kernel_pays(lanes: int, steps: float, words: int, kernel: Kept,
                interpreted: float = 0.0, interpreter: Kept = Kept.PROCESS) -> bool:
    """Whether the compiled engine should get the program's kernel (load it from the disk
    cache, or compile it) for this run rather than interpret it: once interpreting has
    cost as much beyond the kernel (``interpreted`` so far plus this run, including
    getting the ``interpreter`` itself) as getting the kernel costs.  Repeated runs of a
    program thus pay at most about twice what the best choice in hindsight costs (rent
    or buy); a run large enough pays at once."""
    if kernel is Kept.PROCESS:
        return True
    get = kernel_cost(0, steps, words, kernel, numba=True)
    return interpreted + _getting(interpreter) + interpreter_extra(lanes, steps) >= get


def rerun_on_interpreter(lanes: int, steps: float, interpreter: Kept) -> bool:
    """Whether ``lanes`` lanes a program's kernel handed back (run again from their
    initial registers) cost less on the interpreter kernel, got ready as ``interpreter``
    says, than on the reference engine."""
    return _interpreting(lanes, steps, interpreter) < reference_cost(lanes, steps)


def compiled_cost(lanes: int, steps: float, words: int, ready: Readiness) -> float:
    """Estimated seconds the compiled engine needs (see :class:`Readiness`): with the
    program's kernel if :func:`kernel_pays`, else on the interpreter kernel."""
    if kernel_pays(lanes, steps, words, ready.kernel, ready.interpreted, ready.interpreter):
        return kernel_cost(lanes, steps, words, ready.kernel, ready.numba)
    start = 0.0 if ready.numba else NUMBA_IMPORT
    return start + _interpreting(lanes, steps, ready.interpreter)


def best_case(lanes: int, steps: float, numba: bool, interpreter: bool = True) -> float:
    """The least the compiled engine can cost when its kernel is not compiled in this
    process: loaded from the disk cache, or (``interpreter``: vertex shaders) run on the
    interpreter kernel already loaded."""
    costs = [kernel_cost(lanes, steps, 0, Kept.DISK, numba)]
    if interpreter:
        start = 0.0 if numba else NUMBA_IMPORT
        costs.append(start + _interpreting(lanes, steps, Kept.PROCESS))
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
#: Programs whose time is remembered (the reference engine's and the interpreter's
#: tallies share the table).
_SPENT_PROGRAMS = 256


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
    (INT.x + 1 iterations, pica-emulation.md#flow-instructions).  Branches are taken as falling
    through."""
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
    compiled = kernel_cost(count, steps, len(program), Kept.NONE, "numba" in sys.modules)
    if compiled < reference + spent(key):
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
