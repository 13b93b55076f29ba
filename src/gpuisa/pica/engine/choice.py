"""``engine="auto"``: the engine expected to finish a run first, by measured costs.

The reference engine costs about the same per lane and instruction whatever the program
(:func:`estimated_steps` counts the instructions).  The compiled engine
(:mod:`.compiled.runner`) first compiles the program's kernel (llvmlite imported, tens
of milliseconds), unless this process has it already; then it costs little per lane.
:func:`pick` compares the two engines' estimates: a small input whose kernel is not
compiled stays on the reference engine, a compiled kernel is used even for one vertex,
and repeated runs of a program move to the compiled engine once they have cost as much
as compiling (rent or buy: at most about twice the best choice in hindsight).

The reference engine's figures were measured 2026-11-24 on a 2-core "AMD EPYC" (Zen 4)
machine (Linux, Python 3.11.7, NumPy 2.4.6; shared with other work, so ranges) with the
benchmark shaders (transform, lighting, skinning, peer lighting; f24 and f32) through
``run()`` over 2,000 vertices (and a 2-instruction program over 200,000 for its cost
per lane); per-call costs from 1-vertex runs.  They only need to be right within a
factor of about two: the costs differ by much more except near the crossovers.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

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
#: thread, invocations in order), the quickly compiled kernel's: 40-75 ns on the 25-word
#: quad shader of ``tests/pica/engine/test_jit_geometry.py`` (f24 and f32, 10^5
#: invocations; the optimised kernel of the point -> quad benchmark shader 6-12 ns),
#: measured 2026-11-27 on the machine above.
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


def pick(lanes: int, steps: float, words: int, imported: bool, geometry: bool = False,
         spent: float = 0.0) -> str:
    """"jit" if importing LLVM (unless ``imported``), compiling the program's kernel
    and running ``lanes`` lanes (``geometry``: invocations) is expected to cost less
    than the reference engine plus ``spent``, the seconds the reference engine already
    took for this program in this process (:func:`spent`); else "reference"."""
    compiled = native_cost(lanes, steps, words, False, imported, geometry)
    if compiled < reference_cost(lanes, steps, geometry) + spent:
        return "jit"
    return "reference"


def reference_cost(lanes: int, steps: float, geometry: bool = False) -> float:
    """Estimated seconds the reference engine needs for ``lanes`` lanes (geometry shader
    invocations) of ``steps`` instructions each."""
    step = GEOMETRY_REFERENCE_STEP if geometry else REFERENCE_STEP
    return REFERENCE_CALL + lanes * (REFERENCE_LANE + steps * step)


_spent: OrderedDict[object, float] = OrderedDict()
_spent_lock = threading.Lock()
#: Programs whose reference engine time is remembered.
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
