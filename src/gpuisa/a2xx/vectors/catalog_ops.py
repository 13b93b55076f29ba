"""Breadth: every vector and scalar ALU opcode of :mod:`gpuisa.a2xx.isa` over the special
values (INF, NaN, +-0, denormals, huge exponents, ordinary numbers), each case one
invocation whose four components combine different operands.  Expectations are the
reference engine's (provenance ``model``, a2xx-isa.md#float-rules)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from .. import isa
from ..isa import ScalarOperands
from .model import MODEL, Provenance
from .spec import SPECIALS, Draft, draft, named, special_tags

NAMES = tuple(SPECIALS)
#: Cases per vector and per scalar opcode.
VECTOR_CASES = 40
SCALAR_CASES = 22
#: Constants the a0-relative reads of the MOVA cases index: C(i) = (i, i + 1/4, i + 1/2,
#: i + 3/4) for i < 32.
MOVA_TABLE = {i: np.float32(i) + np.array([0, 0.25, 0.5, 0.75], np.float32) for i in range(32)}
MOVA_BASE = 8
#: What a predicated export shows: the predicate's effect on the next instruction.
PRED_PROBE = np.array([1, 2, 3, 4], np.float32)
VECTOR_DOC = Provenance(MODEL, "a2xx-isa.md#vector-ops, a2xx-isa.md#float-rules")
SCALAR_DOC = Provenance(MODEL, "a2xx-isa.md#scalar-ops, a2xx-isa.md#float-rules")


def _operands(k: int, salt: int) -> list[tuple[str, str, str, str]]:
    """Three rows of value names for case ``k`` of the opcode numbered ``salt``: every
    first operand meets many second operands across the cases."""
    n = len(NAMES)
    first = tuple(NAMES[(k * 4 + j) % n] for j in range(4))
    second = tuple(NAMES[((k * 4 + j) * 7 + k // 6 + salt) % n] for j in range(4))
    third = tuple(NAMES[((k * 4 + j) * 11 + 3 * salt + 5) % n] for j in range(4))
    return [first, second, third]  # type: ignore[list-item]


def _vector_text(op: isa.VectorOpInfo) -> tuple[str, str, dict]:
    """(program text, shader type, patches) of a vector opcode's case."""
    sources = ", ".join(f"R{i + 1}" for i in range(op.mesa_srcs))
    line = f"      ALU:    {op.name} export0 = {sources}\n"
    shader, more, patches = _effect_probe(isa.VECTOR_EFFECTS.get(op.opcode))
    return "EXEC_END\n" + line + more, shader, patches


def _effect_probe(effect: isa.AluEffect | None) -> tuple[str, str, dict]:
    """(shader type, a line after the operation that shows its effect, patches of the
    operation's words) for an operation with ``effect``: a kill runs in a pixel shader,
    a predicate is read by a predicated move, a0 by a move of C[MOVA_BASE + a0]."""
    if effect is isa.AluEffect.KILL:
        return "pixel", "", {}
    if effect is isa.AluEffect.PREDICATE:
        return "vertex", "      ALU:    MAXvEQ export1 = R4, R4\n", {}
    if effect is isa.AluEffect.ADDRESS:
        return ("vertex", f"      ALU:    MAXv export1 = C{MOVA_BASE}, C{MOVA_BASE}\n",
                {"const_0_rel_abs": 1, "const_1_rel_abs": 1, "relative_addr": 1})
    return "vertex", "", {}


def vector_groups() -> Iterator[Draft]:
    for op in isa.VECTOR_OPS.values():
        text, shader, patch = _vector_text(op)
        for k in range(VECTOR_CASES):
            rows = _operands(k, int(op.opcode))[: op.srcs if op.srcs > 1 else 1]
            registers = {i + 1: named(*row) for i, row in enumerate(rows)}
            registers[4] = PRED_PROBE
            if shader == "pixel":
                registers[0] = np.zeros(4, np.float32)
            names = [n for row in rows for n in row]
            yield draft(
                f"alu/vector/{op.name}/{k:02d}", text, registers,
                tags=(f"op:{op.name}", "unit:vector", *special_tags(names)),
                provenance=VECTOR_DOC,
                shader=shader, floats=MOVA_TABLE if patch else None,
                patches=(("alu", 2, patch),) if patch else (),
                note=f"{op.name} (XNA {op.xna}) on "
                     + "; ".join(f"{'xyzw'[j]}: " + ", ".join(r[j] for r in rows)
                                 for j in range(4)),
            )


def _scalar_text(op: isa.ScalarOpInfo, k: int) -> tuple[str, str, dict]:
    source = f"C{3 + k % 4}" if op.operands is ScalarOperands.CONST_REG else "R1"
    lines = ("EXEC_END\n"
             "      ALU:    MAXv R0.____ = R0, R0\n"
             "              MAXs R5.x___ = R2\n"  # ps = R2.w (R2's lanes are equal)
             "      ALU:    MAXv export0.____ = R0, R0\n"
             f"              {op.name} export0.x___ = {source}\n")
    shader, more, patches = _effect_probe(isa.SCALAR_EFFECTS.get(op.opcode))
    return lines + more, shader, patches


def scalar_groups() -> Iterator[Draft]:
    for op in isa.SCALAR_OPS.values():
        const = op.operands is ScalarOperands.CONST_REG
        # The constant operands of one opcode's cases share one table (C3-C6, one row
        # per case modulo 4), so that the cases run as four batches.
        table = {3 + j: named(*_operands(j, int(op.opcode))[1][1:], NAMES[(j * 5 + 2) % 25])
                 for j in range(4)}
        for k in range(SCALAR_CASES):
            text, shader, patch = _scalar_text(op, k)
            a, b, p = _operands(k, int(op.opcode))
            # R1 = (b, a, b, a): lane 2 (Z) and lane 0 (X) agree, so both readings of
            # the second operand's lane give the same value (scalar-lane cases differ).
            r1 = named(b[0], a[1], b[0], a[0])
            registers = {1: r1, 2: named(p[0], p[0], p[0], p[0]), 4: PRED_PROBE,
                         0: named(b[0], "+0", "+0", "+0")}
            floats = dict(MOVA_TABLE) if patch else table if const else {}
            names = [a[0], b[0], p[0]] + ([NAMES[(k % 4 * 5 + 2) % 25]] if const else [])
            yield draft(
                f"alu/scalar/{op.opcode.name}/{k:02d}", text, registers,
                tags=(f"op:{op.opcode.name}", "unit:scalar", *special_tags(names)),
                provenance=SCALAR_DOC,
                shader=shader, floats=floats or None,
                patches=(("alu", 3, patch),) if patch else (),
                note=f"{op.opcode.name} (XNA {op.xna}): a = {a[0]}, b = {b[0]}, "
                     f"ps = {p[0]}"
                     + (f", constant C{3 + k % 4}.w = {NAMES[(k % 4 * 5 + 2) % 25]}"
                        if const else ""),
            )

