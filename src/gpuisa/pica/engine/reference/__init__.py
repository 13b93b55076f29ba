"""The reference engine: the readable definition, one lane at a time in plain Python.

Registers are lists of Python floats (:mod:`.lanes`, :mod:`.values`); each ALU
instruction is its opcode's recipe (:mod:`..rules.recipes`) on the scalar arithmetic of
:mod:`..rules.scalar`; control flow is the stack machine of :mod:`...flow.stacks`
(:mod:`.machine`); geometry shaders run their invocations in order (:mod:`.geometry`) and
emit through :mod:`.emitter`.  No array operation runs per instruction: the state's
arrays are converted once per run.  The yardstick for the compiled engine and what
``pica trace`` runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ....errors import ShaderFault, ShaderHang
from ..decode import DecodedProgram
from ..state import ShaderState
from .lanes import StateLists, UniformTables
from .machine import Observer, execute
from .plan import plan_for

if TYPE_CHECKING:
    from ..loading import Arithmetic
    from .emitter import Emitter

__all__ = ["Observer", "run_invocation", "run_lane", "run_lanes", "vertex_error"]


def run_lanes(program: DecodedProgram, state: ShaderState, entry: int, *,
              precision: Arithmetic, max_steps: int) -> np.ndarray:
    """The engine entry point for vertex shaders: every lane of ``state`` runs from its own
    initial registers, one after the other.  Returns the instruction count of each lane."""
    counts = np.zeros(state.lanes, dtype=np.int64)
    if state.lanes == 0:
        return counts
    plan = plan_for(program, precision)
    uniforms = UniformTables(state.uniforms)
    for start in range(0, state.lanes, _BLOCK):
        block = slice(start, min(start + _BLOCK, state.lanes))
        lists = StateLists(state, block, plan.used, plan.written, plan.geometry)
        for i in range(block.stop - block.start):
            try:
                counts[start + i] = execute(program, plan, lists.lane(i), uniforms, entry,
                                            max_steps)
            except (ShaderHang, ShaderFault) as error:
                if state.lanes == 1:
                    raise
                raise vertex_error(error, start + i) from None
        lists.store(state.bank, plan.address, plan.flags)
    return counts


#: Lanes converted to lists at a time (bounds the memory of the lists).
_BLOCK = 4096


def run_lane(program: DecodedProgram, state: ShaderState, entry: int, lane: int, *,
             precision: Arithmetic, max_steps: int) -> int:
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


def run_invocation(program: DecodedProgram, state: ShaderState, entry: int, *,
                   precision: Arithmetic, max_steps: int, emitter: Emitter | None = None,
                   observer: Observer | None = None) -> int:
    """Run a one-lane ``state`` from ``entry`` until END (see :func:`.machine.execute`);
    returns the instructions executed.  The state is updated even when the invocation
    hangs or faults (a geometry unit keeps what it computed)."""
    if state.lanes != 1:
        raise ValueError("the reference engine runs one lane at a time")
    plan = plan_for(program, precision)
    lists = StateLists(state, slice(0, 1), plan.used, plan.written, True)
    lane = lists.lane(0)
    try:
        return execute(program, plan, lane, UniformTables(state.uniforms), entry,
                       max_steps, emitter, observer)
    finally:
        lists.store(lane.bank, True, True)


def vertex_error(error: ShaderHang | ShaderFault, lane: int) -> ShaderHang | ShaderFault:
    """``error`` as a batch of vertices reports it: the message names the vertex."""
    return type(error)(f"{error.reason} (vertex {lane})", pc=error.pc)
