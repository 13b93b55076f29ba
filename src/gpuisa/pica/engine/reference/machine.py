"""The reference engine's instruction loop: one lane from its entry point to END.

Each instruction does what 3dbrew's instruction table and "Control Flow" section say
(pica-isa.md#opcodes, pica-emulation.md#flow):
ALU instructions through their plan functions (:mod:`.plan`: the recipes on Python
floats), flow instructions and the check after every instruction through the stack
machine :mod:`...flow.stacks`, SETEMIT/EMIT through :mod:`.emitter` (the rules of
:mod:`...flow.emission`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ....errors import ShaderFault, ShaderHang
from ...flow import stacks as S
from ...isa import NUM_INT_UNIFORMS
from ..decode import DecodedProgram, Step
from .lanes import Lane, UniformTables
from .plan import ALU, EMIT, END, FAULT, FLOW, FLOW_LOOP, SETEMIT, USES_BOOL, Plan

if TYPE_CHECKING:
    from .emitter import Emitter

#: The stacks of a lane as the observer sees them: (ifs, n_if, calls, n_call, loops,
#: n_loop), the flat sequences of :mod:`...flow.stacks` and their entry counts.
Stacks = tuple[list[int], int, list[int], int, list[int], int]
#: Called after each instruction with (instruction, lane, stacks, next PC or None).
Observer = Callable[[Step, Lane, Stacks, int | None], None]


def execute(program: DecodedProgram, plan: Plan, lane: Lane, u: UniformTables, entry: int,
            max_steps: int, emitter: Emitter | None = None,
            observer: Observer | None = None) -> int:
    """Run ``lane`` from ``entry`` until END; returns the instructions executed.

    Raises :class:`ShaderHang` when the hardware would hang or never finish: BREAK with
    an empty LOOP stack, execution past the last program word, or more than
    ``max_steps`` instructions.  Geometry instructions need an ``emitter`` (vertex
    shaders have none: EMIT there is a :class:`ShaderFault`).
    """
    entries = plan.entries
    length = len(entries)
    ifs, calls, loops = S.new_stacks()
    n_if = n_call = n_loop = 0
    no_jump = S.NO_JUMP
    pc = entry
    executed = 0
    while True:
        if not 0 <= pc < length:
            raise ShaderHang(f"execution ran past the end of the program ({length} words); "
                             f"no END was reached", pc=pc)
        if executed >= max_steps:
            raise ShaderHang(f"no END after max_steps={max_steps} instructions", pc=pc)
        todo = entries[pc]
        what = todo[0]
        executed += 1
        jump = no_jump
        breaking = False
        if what == ALU:
            todo[1](lane, u)
        elif what == FLOW:
            jump, breaking, n_if, n_call, n_loop = _flow(
                todo, pc, lane, u, (ifs, n_if, calls, n_call, loops, n_loop))
        elif what == END:
            if observer is not None:
                observer(program.steps[pc], lane, (ifs, n_if, calls, n_call, loops, n_loop),
                         None)
            return executed  # stop: no stack check after END
        elif what == FAULT:
            raise ShaderFault(todo[1], pc=pc)
        elif what in (SETEMIT, EMIT):
            _geometry(todo, program.steps[pc], lane, emitter)
        # NOP does nothing.
        here = pc
        if n_if or n_call or n_loop or breaking:
            a = lane.a
            pc, a[2], n_if, n_call, n_loop, hang = S.next_pc(
                ifs, n_if, calls, n_call, loops, n_loop, here, jump, breaking, a[2], True,
                True, True)
            if hang:
                raise ShaderHang("BREAK with an empty LOOP stack", pc=here)
        elif jump != no_jump:
            pc = jump
        else:
            pc = here + 1
        if observer is not None:
            observer(program.steps[here], lane, (ifs, n_if, calls, n_call, loops, n_loop), pc)


def _flow(entry: tuple, pc: int, lane: Lane, u: UniformTables,
          stacks: tuple[list[int], int, list[int], int, list[int], int],
          ) -> tuple[int, bool, int, int, int]:
    """A flow instruction (pica-emulation.md#flow-instructions): its condition, then its effect on
    the ``stacks`` (ifs, n_if, calls, n_call, loops, n_loop; the lists change in place).
    Returns (pending jump or NO_JUMP, pending break, n_if, n_call, n_loop)."""
    _, flow, condition, condop, refx, refy, dst, num, ident = entry
    ifs, n_if, calls, n_call, loops, n_loop = stacks
    value = u.bool_value(ident, pc) if condition in USES_BOOL else False
    taken = S.taken(condition, condop, refx, refy, lane.cmp[0], lane.cmp[1], value, num)
    x = y = z = 0
    if flow == FLOW_LOOP:
        # The integer uniform number is the low 2 bits of the ID field (i0-i3; picasso
        # writes only these and Azahar/nihstro decode only these).
        x, y, z, _ = u.int_vector(ident % NUM_INT_UNIFORMS, pc)
    a = lane.a
    jump, breaking, n_if, n_call, n_loop, a[2] = S.effect(
        flow, taken, pc, dst, num, ifs, n_if, calls, n_call, loops, n_loop, a[2], x, y, z)
    return jump, breaking, n_if, n_call, n_loop


def _geometry(entry: tuple, step: Step, lane: Lane, emitter: Emitter | None) -> None:
    if emitter is None:
        raise ShaderFault(f"{step.info.mnemonic.upper()} in a vertex shader (geometry "
                          f"shaders only)", pc=step.pc)
    if entry[0] == SETEMIT:
        emitter.setemit(entry[1], entry[2], entry[3])
    else:
        emitter.emit(lane, step.pc)
