"""The reference engine: one invocation at a time, in plain Python control flow.

Each instruction is executed exactly as the seed's instruction table and "Control Flow"
section describe; the math is :mod:`.semantics`, operand access :mod:`.state`, and the
stack check after every instruction :func:`.stacks.next_pc`.  Slow but obviously
correct: the yardstick for faster engines.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...errors import ShaderFault, ShaderHang
from ..isa import NUM_INT_UNIFORMS, Kind, Opcode
from .alu import execute_alu
from .decode import DecodedProgram, Step
from .emitter import Emitter
from .semantics import Precision, condition, jmpu_taken
from .stacks import ControlStacks, flow_effect, next_pc
from .state import AL, ShaderState

#: Called after each instruction with (instruction, state, stacks, next PC).
Observer = Callable[[Step, ShaderState, ControlStacks, int | None], None]


def run_invocation(program: DecodedProgram, state: ShaderState, entry: int, *,
                   precision: Precision, max_steps: int, emitter: Emitter | None = None,
                   observer: Observer | None = None) -> int:
    """Run a one-lane ``state`` from ``entry`` until END; returns the instructions executed.

    Raises :class:`ShaderHang` when the hardware would hang or never finish: BREAK with
    an empty LOOP stack, execution past the last program word, or more than
    ``max_steps`` instructions.  Geometry instructions need an ``emitter`` (vertex
    shaders have none: EMIT there is a :class:`ShaderFault`).
    """
    if state.lanes != 1:
        raise ValueError("the reference engine runs one lane at a time")
    stacks = ControlStacks()
    steps = program.steps
    pc = entry
    executed = 0
    while True:
        if not 0 <= pc < len(steps):
            raise ShaderHang(f"execution ran past the end of the program ({len(steps)} "
                             f"words); no END was reached", pc=pc)
        if executed >= max_steps:
            raise ShaderHang(f"no END after max_steps={max_steps} instructions", pc=pc)
        step = steps[pc]
        executed += 1
        if step.fault is not None:
            raise ShaderFault(step.fault, pc=pc)
        jump: int | None = None
        breaking = False
        kind = step.kind
        if kind is Kind.ARITHMETIC or kind is Kind.COMPARE:
            execute_alu(step, state, precision)
        elif step.op is Opcode.END:
            if observer is not None:
                observer(step, state, stacks, None)
            return executed  # stop: no stack check after END
        elif kind is Kind.FLOW:
            jump, breaking = _flow(step, state, stacks)
        elif kind is Kind.GEOMETRY:
            _geometry(step, state, emitter)
        # NOP does nothing; UNKNOWN opcodes carry a fault and never get here.
        pc, al = next_pc(stacks, pc, jump, breaking, int(state.address[AL, 0]))
        state.address[AL, 0] = al
        if observer is not None:
            observer(step, state, stacks, pc)


def _holds(step: Step, state: ShaderState) -> bool:
    return bool(condition(step.field("condop"), step.field("refx"), step.field("refy"),
                          state.cmp)[0])


def _flow(step: Step, state: ShaderState, stacks: ControlStacks) -> tuple[int | None, bool]:
    """Execute a flow instruction (notes §5.2); returns (pending jump, pending break).
    The condition is evaluated here; what follows from it is stacks.flow_effect, shared
    with the batch engine."""
    op, pc = step.op, step.pc
    if op is Opcode.BREAK:
        return None, True
    dst, num = (0, 0) if op is Opcode.BREAKC else (step.field("dst"), step.field("num"))
    loop = None
    if op in (Opcode.CALL, Opcode.LOOP):
        taken = True
    elif op in (Opcode.CALLU, Opcode.IFU, Opcode.JMPU):
        value = state.uniforms.bool_value(step.field("id"), pc)
        taken = bool(jmpu_taken(value, num)) if op is Opcode.JMPU else bool(value)
    else:
        taken = _holds(step, state)
    if op is Opcode.LOOP:
        # The integer uniform number is the low 2 bits of the ID field (i0-i3; picasso
        # writes only these and Azahar/nihstro decode only these).
        x, y, z, _ = (int(v) for v in state.uniforms.int_vector(
            step.field("id") % NUM_INT_UNIFORMS, pc))
        loop = (x, y, z)
    jump, breaking, al = flow_effect(op, pc, dst, num, taken, stacks,
                                     int(state.address[AL, 0]), loop)
    state.address[AL, 0] = al
    return jump, breaking


def _geometry(step: Step, state: ShaderState, emitter: Emitter | None) -> None:
    if emitter is None:
        raise ShaderFault(f"{step.info.mnemonic.upper()} in a vertex shader (geometry "
                          f"shaders only)", pc=step.pc)
    if step.op is Opcode.SETEMIT:
        emitter.setemit(step.field("vtxid"), bool(step.field("primemit")),
                        bool(step.field("winding")))
    else:
        emitter.emit(state, step.pc)


def run_lanes(program: DecodedProgram, state: ShaderState, entry: int, *,
              precision: Precision, max_steps: int) -> np.ndarray:
    """The engine entry point for vertex shaders: every lane of ``state`` runs from its own
    initial registers, one after the other.  Returns the instruction count of each lane."""
    counts = np.zeros(state.lanes, dtype=np.int64)
    for lane in range(state.lanes):
        counts[lane] = run_lane(program, state, entry, lane, precision=precision,
                                max_steps=max_steps)
    return counts


def run_lane(program: DecodedProgram, state: ShaderState, entry: int, lane: int, *,
             precision: Precision, max_steps: int) -> int:
    """Run lane ``lane`` of ``state`` from its own registers (on a one-lane copy, written
    back) and return its instruction count; its hang or fault names the vertex."""
    one = state.lane(lane)
    try:
        count = run_invocation(program, one, entry, precision=precision, max_steps=max_steps)
    except (ShaderHang, ShaderFault) as error:
        if state.lanes == 1:
            raise
        raise vertex_error(error, lane) from None
    state.store_lane(lane, one)
    return count


def vertex_error(error: ShaderHang | ShaderFault, lane: int) -> ShaderHang | ShaderFault:
    """``error`` as a batch of vertices reports it: the message names the vertex."""
    return type(error)(f"{error.reason} (vertex {lane})", pc=error.pc)
