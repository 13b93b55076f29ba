"""Executing one decoded ALU instruction (arithmetic or CMP) on a shader state.

Shared by all engines: operands are read through :meth:`.ShaderState.read` (relative
addressing, swizzle, negation), the math is :mod:`.semantics`, and the result goes to
the components enabled in the destination mask (seed: "DST=SRC1 might actually just set
DST.y to SRC1.y").
"""

from __future__ import annotations

from ..isa import Opcode
from .decode import Step
from .semantics import VECTOR_OPS, Precision, address_from_float, op_cmp, op_litp
from .state import ShaderState


def execute_alu(step: Step, state: ShaderState, precision: Precision) -> None:
    sources = [state.read(operand, precision, step.pc) for operand in step.sources]
    op = step.op
    if op is Opcode.CMP:
        # The destination mask is ignored: picasso always encodes 0 there and whether the
        # hardware honours it is unknown (seed CMP row; notes §3.5).
        state.cmp[...] = op_cmp(sources, step.field("cmpx"), step.field("cmpy"))
    elif op is Opcode.MOVA:
        # x -> a0.x, y -> a0.y, each only if enabled in the mask (seed MOVA row).
        values = address_from_float(sources[0][:2])
        for component in step.mask:
            if component < 2:
                state.address[component] = values[component]
    elif op is Opcode.LITP:
        result, flags = op_litp(sources, precision)
        state.write(step.dest, step.mask, result)
        state.cmp[...] = flags
    else:
        state.write(step.dest, step.mask, VECTOR_OPS[op](sources, precision))
