"""Executing one co-issued vector + scalar ALU slot on a set of invocations (a2xx-isa.md#alu,
a2xx-isa.md#alu-execution).

Order (XE-I): read every operand (denormal flush, abs, negate), run the vector op if
anything is written or it has side effects, run the scalar op (always: it updates ``ps``
even with an empty write mask), clamp, then write registers or exports.  Predication has
already been applied by the caller: ``lanes`` are the invocations that execute the slot.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

from .. import isa
from ..encoding import AluInstruction
from ..isa import ScalarOperands
from .config import EmulatorConfig
from .effects import Effects
from .floatops import ONE, ZERO, modify, saturate
from .scalar import SCALAR_OPS, ScalarOp
from .state import BatchState, Lanes
from .vector import VECTOR_OPS, VectorOp


@dataclass(frozen=True, slots=True)
class Operand:
    """How to read one source: a temp (optionally aL-relative) or a constant (optionally
    a0- or aL-relative), a 4-component swizzle and the modifiers."""

    temp: bool
    index: int
    relative: bool
    relative_to_a0: bool
    components: tuple[int, ...]
    absolute: bool
    negate: bool


@dataclass(frozen=True, slots=True)
class AluPlan:
    """Everything static about an ALU slot, decoded once."""

    instr: AluInstruction
    vector: VectorOp | None  # None: not evaluated (nothing written, no side effects)
    sources: tuple[Operand, ...]  # the vector operation's operands (src1, src2, src3)
    scalar: ScalarOp
    scalar_sources: tuple[Operand, Operand]  # (a, b)


def _const_relative(instr: AluInstruction, i: int) -> bool:
    """Whether constant operand ``i`` (1-3) is relative: it uses const_0_rel_abs if no
    earlier operand is a constant, else const_1_rel_abs (XE-U, a2xx-isa.md#alu-layout)."""
    earlier = sum(1 for j in range(1, i) if not getattr(instr, f"src{j}_sel"))
    return bool(instr.const_1_rel_abs if earlier else instr.const_0_rel_abs)


def _operand(instr: AluInstruction, i: int, config: EmulatorConfig) -> Operand:
    reg = getattr(instr, f"src{i}_reg")
    components = isa.alu_swizzle_components(getattr(instr, f"src{i}_swiz"))
    negate = bool(getattr(instr, f"src{i}_reg_negate"))
    if getattr(instr, f"src{i}_sel"):
        return Operand(
            temp=True,
            index=reg & isa.REG_INDEX_MASK,
            relative=bool(reg & isa.REG_REL_BIT),
            relative_to_a0=False,
            components=components,
            absolute=bool(reg & isa.REG_ABS_BIT),
            negate=negate,
        )
    return Operand(
        temp=False,
        index=reg,
        relative=_const_relative(instr, i),
        relative_to_a0=bool(instr.relative_addr),
        components=components,
        absolute=config.abs_constants and bool(instr.abs_constants),
        negate=negate,
    )


def _scalar_sources(instr: AluInstruction, config: EmulatorConfig) -> tuple[Operand, Operand]:
    """The scalar op's operands ``a`` (lane 3 of source 3) and ``b`` (a2xx-isa.md#scalar-ops)."""
    src3 = _operand(instr, 3, config)
    lanes = src3.components
    info = instr.scalar_info
    if info is not None and info.operands is ScalarOperands.CONST_REG:
        # *_CONST_0/1 (XE-U): a = C[src3 byte] at lane 3 (whatever src3_sel says); b = a
        # temp whose number is built from the opcode's low bit, src3_sel and src3_swiz
        # bits 2-5, read at lane 0.  Negate and abs_constants apply to both.
        swiz = instr.src3_swiz
        number = (int(instr.scalar_opc) & 1) | instr.src3_sel << 1 | ((swiz >> 2) & 0xF) << 2
        const = replace(_operand(replace(instr, src3_sel=0), 3, config), components=(lanes[3],))
        temp = replace(const, temp=True, index=number, relative=False, components=(lanes[0],))
        return const, temp
    a = replace(src3, components=(lanes[3],))
    return a, replace(src3, components=(lanes[config.scalar_b_lane],))


@lru_cache(maxsize=4096)
def plan_alu(instr: AluInstruction, config: EmulatorConfig) -> AluPlan:
    """Decode an ALU slot for execution.  The caller has checked its opcodes (loader)."""
    info = instr.vector_info
    vector: VectorOp | None = None
    sources: tuple[Operand, ...] = ()
    if info is not None and (
        instr.vector_write_mask != 0 or info.opcode in isa.VECTOR_SIDE_EFFECTS
    ):
        vector = VECTOR_OPS[info.opcode]
        sources = tuple(_operand(instr, i, config) for i in range(1, info.srcs + 1))
    scalar = SCALAR_OPS[isa.ScalarOpcode(instr.scalar_opc)]
    return AluPlan(instr, vector, sources, scalar, _scalar_sources(instr, config))


def read_operand(op: Operand, state: BatchState, lanes: Lanes, loop_address: int) -> np.ndarray:
    """(len(components), m) float32 values of an operand; m = 1 if all invocations share
    them (a constant not addressed by a0)."""
    rows = list(op.components)
    if op.temp:
        index = op.index + (loop_address if op.relative else 0)
        raw = state.read_temp(index, lanes)[rows]
    elif op.relative and op.relative_to_a0:
        raw = state.constants.float_rows(op.index + state.a0[lanes]).T[rows]
    else:
        index = op.index + (loop_address if op.relative else 0)
        raw = state.constants.float_rows(index)[rows][:, None]
    return modify(raw, absolute=op.absolute, negate=op.negate)


def execute_alu(plan: AluPlan, state: BatchState, lanes: Lanes, loop_address: int) -> None:
    instr = plan.instr
    values = [read_operand(op, state, lanes, loop_address) for op in plan.sources]
    a, b = (read_operand(op, state, lanes, loop_address)[0] for op in plan.scalar_sources)

    vector_result = None
    vector_effects: Effects | None = None
    if plan.vector is not None:
        values += [values[-1]] * (3 - len(values))  # unread operands: any placeholder
        vector_result, vector_effects = plan.vector(*values)
        if instr.vector_clamp:
            vector_result = saturate(vector_result)
    scalar_result, scalar_effects = plan.scalar(a, b, state.ps[lanes])
    state.ps[lanes] = scalar_result
    if instr.scalar_clamp:
        scalar_result = saturate(scalar_result)

    for effects in (vector_effects, scalar_effects):
        if effects is None:
            continue
        if effects.predicate is not None:
            state.p0[lanes] = effects.predicate
        if effects.address is not None:
            state.a0[lanes] = effects.address
        if effects.kill is not None:
            state.killed[lanes] |= np.broadcast_to(effects.kill, state.killed[lanes].shape)

    if instr.export_data:
        _export(instr, state, lanes, vector_result, scalar_result)
    else:
        _write_temps(instr, state, lanes, loop_address, vector_result, scalar_result)


def _write_temps(
    instr: AluInstruction,
    state: BatchState,
    lanes: Lanes,
    loop_address: int,
    vector_result: np.ndarray | None,
    scalar_result: np.ndarray,
) -> None:
    if instr.vector_write_mask and vector_result is not None:
        dest = state.temp(instr.vector_dest + (loop_address if instr.vector_dest_rel else 0))
        for c in range(4):
            if instr.vector_write_mask >> c & 1:
                dest[c, lanes] = vector_result[c]
    if instr.scalar_write_mask:
        dest = state.temp(instr.scalar_dest + (loop_address if instr.scalar_dest_rel else 0))
        for c in range(4):
            if instr.scalar_write_mask >> c & 1:
                dest[c, lanes] = scalar_result


def _export(
    instr: AluInstruction,
    state: BatchState,
    lanes: Lanes,
    vector_result: np.ndarray | None,
    scalar_result: np.ndarray,
) -> None:
    """Both results go to export ``vector_dest``, per component (XE-U, a2xx-isa.md#exports): vector
    and scalar mask -> 1.0, one of them -> its result, neither -> 0.0 if scalar_dest_rel
    is set, else unchanged."""
    dest = state.export(instr.vector_dest)
    for c in range(4):
        v = instr.vector_write_mask >> c & 1
        s = instr.scalar_write_mask >> c & 1
        if v and s:
            dest[c, lanes] = ONE
        elif v and vector_result is not None:
            dest[c, lanes] = vector_result[c]
        elif s:
            dest[c, lanes] = scalar_result
        elif instr.scalar_dest_rel:
            dest[c, lanes] = ZERO
