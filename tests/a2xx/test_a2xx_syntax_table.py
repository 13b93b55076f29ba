"""Disassembly as tables of (words, Mesa text) rows that also reassemble.

Every row's words are built by hand from the bit tables of a2xx-isa.md (a2xx-isa.md#cf,
a2xx-isa.md#alu, a2xx-isa.md#fetch) with
the vendor compiler's values in the bits the text does not show (isa.py: ALU slots without
a scalar line carry MAXs and src3_sel = 1, a one-source operation repeats src1 in src2, a
program's first vertex fetch has prefetch 3 and is_index_rounded; evidence: the GMEM
shaders of test_a2xx_vendor.py).  The expected text follows the a2xx-isa.md#mesa-text rules.  Each
row must disassemble to its text and its text must assemble back to the words; rows for opcodes
Mesa prints as ``?`` use the raw listing, the only text that names them.
"""

from __future__ import annotations

import pytest
from a2xx_helpers import EXEC, cf_program, exec_clause, one_instruction
from test_a2xx_disasm import SCALAR_NAMES, VECTOR_NAMES

from gpuisa.a2xx import assemble, disassemble

# --------------------------------------------------------------------------------------
# Row builders (positions from a2xx-isa.md#alu-layout, a2xx-isa.md#fetch:
# bit = 32 * dword + bit in dword)
# --------------------------------------------------------------------------------------


def slot(*fields: tuple[int, int]) -> tuple[int, int, int]:
    """Three dwords from (value, bit) pairs."""
    word = sum(value << lsb for value, lsb in fields)
    return word & 0xFFFFFFFF, word >> 32 & 0xFFFFFFFF, word >> 64


MAXS = 5  # the vendor's scalar filler
# a2xx-isa.md#vector-ops, a2xx-isa.md#scalar-ops names, as the golden printer tests list them;
# unused vector opcodes print OP(n) with src1 only.
VECTOR = [*VECTOR_NAMES, ("OP(30)", 1), ("OP(31)", 1)]
SCALAR = SCALAR_NAMES


def vector_row(opcode: int) -> tuple[str, tuple[int, int, int], str]:
    """``R4 = ...`` with src1 = R3, src2 = C2, src3 = R1 where printed."""
    name, srcs = VECTOR[opcode]
    src2 = ((3, 72), (1, 94)) if srcs == 1 else ((2, 72), (0, 94))  # 1 source: src2 = src1
    src3 = (1, 64) if srcs == 3 else (0, 64)  # unused src3: R0, sel 1
    words = slot(
        (4, 0),  # vector_dest R4
        (0xF, 16),  # vector mask xyzw, scalar mask 0
        (MAXS, 26),
        src3,
        *src2,
        (3, 80),  # src1 = R3
        (opcode, 88),
        (1, 93),  # src3_sel: R
        (1, 95),  # src1_sel: R
    )
    operands = {1: "R3", 2: "R3, C2", 3: "R1, R3, R2"}[srcs]
    if srcs == 3:
        words = (words[0], words[1], words[2] | 1 << 30 | 2 << 8)  # src2 = R2, a temp
    return "alu", words, f"\t      ALU:\t{name}\tR4 = {operands}\n"


def scalar_row(opcode: int) -> tuple[str, tuple[int, int, int], str]:
    """Vector part empty (``MAXv R0.____ = R0, R0``), scalar ``R5.x___ = -R7.wwww``."""
    name = SCALAR.get(opcode, f"OP({opcode})")
    words = slot(
        (5, 8),  # scalar_dest R5
        (0b0001, 20),  # scalar mask x
        (opcode, 26),
        (0x1B, 32),  # src3 swizzle: f_i = (3 - i) & 3, so channel i reads (i + f_i) & 3 = w
        (1, 24 + 32),  # src3 negate
        (7, 64),  # src3 = R7
        (2, 88),  # MAXv
        (1, 93),
        (1, 94),
        (1, 95),
    )
    text = f"\t      ALU:\tMAXv\tR0.____ = R0, R0\n\t\t    \t{name}\tR5.x___ = -R7.wwww\n"
    return "alu", words, text


VERTEX_ROW = (
    "fetch",
    slot(
        (0, 0),  # VTX_FETCH
        (2, 5),  # src R2
        (1, 12),  # dst R1
        (1, 19),  # must_be_one
        (9, 20),  # const_index
        (1, 25),  # const_index_sel
        (3, 27),  # prefetch: first fetch
        (2, 30),  # src swizzle z
        (0xA88, 32),  # dst xyz1
        (1, 44),  # SIGNED
        (1, 45),  # integer (no NORMALIZED)
        (0, 47),  # is_index_rounded: the GLES driver's first fetch leaves it clear
        (37, 48),  # FMT_32_32_FLOAT
        (8, 64),  # stride
        (16, 72),  # offset
    ),
    "\t      FETCH:\tVERTEX\tR1.xyz1 = R2.z FMT_32_32_FLOAT SIGNED STRIDE(8) OFFSET(16) "
    "CONST(9, 1)\n",
)


def texture_words(opcode: int) -> tuple[int, int, int]:
    return slot(
        (opcode, 0),
        (1, 5),  # src R1
        (2, 12),  # dst R2
        (3, 20),  # const_idx
        (0 | 1 << 2 | 0 << 4, 26),  # src swizzle x, y, x
        (0x688, 32),  # dst xyzw
        (0xFFFF, 44),  # filters 3, 3, 3, aniso 7, arbitrary 7, vol 3, 3
        (1, 60),  # use_comp_lod
        (1, 65),  # CENTER
    )


def texture_row(opcode: int, name: str) -> tuple[str, tuple[int, int, int], str]:
    return (
        "fetch",
        texture_words(opcode),
        f"\t      FETCH:\t{name}\tR2.xyzw = R1.xyx CONST(3) LOCATION(CENTER)\n",
    )


def raw_texture_row(opcode: int) -> tuple[str, tuple[int, int, int], str]:
    d0, d1, d2 = texture_words(opcode)
    return (
        "raw-fetch",
        (d0, d1, d2),
        f"\t01: {d0:08x} {d1:08x} {d2:08x}\t      FETCH:\t?\tR2.xyzw = R1.xyx CONST(3) "
        "LOCATION(CENTER)\n",
    )


def cf_row(clause: int, text: str) -> tuple[str, int, str]:
    return "cf", clause, text


CF_ROWS = [
    cf_row(0 << 44, "NOP"),
    cf_row((1 << 44) | 0x12 | (1 << 15) | (0x3F << 28) | (0x80 << 34) | (1 << 43),
           "EXEC ADDR(0x12) CNT(0x0) YIELD VC(0x3f) BOOL_ADDR(0x80) ABSOLUTE_ADDR"),
    cf_row((2 << 44) | 0x7, "EXEC_END ADDR(0x7) CNT(0x0)"),
    cf_row((3 << 44) | 4 | (5 << 34) | (1 << 42),
           "COND_EXEC ADDR(0x4) CNT(0x0) BOOL_ADDR(0x5) COND(1)"),
    cf_row((4 << 44) | 4, "COND_EXEC_END ADDR(0x4) CNT(0x0) COND(0)"),
    cf_row((5 << 44) | 4 | (1 << 42), "COND_PRED_EXEC ADDR(0x4) CNT(0x0) COND(1)"),
    cf_row((6 << 44) | 4 | (1 << 15), "COND_PRED_EXEC_END ADDR(0x4) CNT(0x0) YIELD COND(0)"),
    cf_row((7 << 44) | 0x3FF | (31 << 16), "LOOP_START ADDR(0x3ff) LOOP_ID(31)"),
    cf_row((8 << 44) | 2 | (1 << 16) | (1 << 43), "LOOP_END ADDR(0x2) LOOP_ID(1) ABSOLUTE_ADDR"),
    cf_row((9 << 44) | 6 | (1 << 13), "COND_CALL ADDR(0x6) DIR(0) FORCE_CALL"),
    cf_row(10 << 44, "RETURN ADDR(0x0) DIR(0)"),
    cf_row((11 << 44) | 5 | (1 << 14) | (1 << 33) | (1 << 42) | (0x10 << 34),
           "COND_JMP ADDR(0x5) DIR(1) COND(1) BOOL_ADDR(0x10)"),
    cf_row((12 << 44) | (3 << 41) | (1 << 40) | (1 << 43) | 2,
           "ALLOC MEMORY SIZE(0x2) NO_SERIAL ALLOC_MODE"),
    cf_row((13 << 44) | 4 | (0xFF << 34),
           "COND_EXEC_PRED_CLEAN ADDR(0x4) CNT(0x0) BOOL_ADDR(0xff) COND(0)"),
    cf_row((14 << 44) | 4 | (1 << 42), "COND_EXEC_PRED_CLEAN_END ADDR(0x4) CNT(0x0) COND(1)"),
    cf_row(15 << 44, "MARK_VS_FETCH_DONE"),
]  # fmt: skip

ALU_ROWS = [vector_row(op) for op in range(32)] + [scalar_row(op) for op in range(64)]
FETCH_ROWS = [
    VERTEX_ROW,
    texture_row(1, "SAMPLE"),
    texture_row(24, "SET_TEX_LOD"),
    *(raw_texture_row(op) for op in (16, 17, 18, 19, 25, 26, 27)),
]


# --------------------------------------------------------------------------------------
# The tables
# --------------------------------------------------------------------------------------

LEADER = exec_clause(EXEC, 1, 0)  # EXEC ADDR(0x1) CNT(0x0): CF program = 1 slot


def program_and_text(row: tuple[str, object, str]) -> tuple[list[int], str, bool]:
    kind, words, text = row
    if kind == "cf":
        return cf_program([LEADER, words]), f"\tEXEC ADDR(0x1) CNT(0x0)\n\t{text}\n", False  # type: ignore[list-item]
    program = one_instruction(words, fetch=kind != "alu", serialize=False)  # type: ignore[arg-type]
    if kind == "raw-fetch":
        head = "\t    1001 0001 1000            \tEXEC ADDR(0x1) CNT(0x1)\n"
        tail = "\t    0000 0000 0000            \tNOP\n"
        return program, head + text + tail, True
    return program, f"\tEXEC ADDR(0x1) CNT(0x1)\n{text}\tNOP\n", False


ROWS = CF_ROWS + ALU_ROWS + FETCH_ROWS


def row_id(row: tuple[str, object, str]) -> str:
    return " ".join(row[2].split()[:3])[:40]


@pytest.mark.parametrize("row", ROWS, ids=row_id)
def test_row_disassembles_and_reassembles(row: tuple[str, object, str]) -> None:
    words, text, raw = program_and_text(row)
    shader = "vertex"
    assert disassemble(words, shader, raw=raw) == text
    assert assemble(text) == words


def test_every_opcode_has_a_row() -> None:
    cf = {clause >> 44 for kind, clause, _ in ROWS if kind == "cf"}  # type: ignore[operator]
    alu = [words for kind, words, _ in ROWS if kind == "alu"]
    vector = {words[2] >> 24 & 0x1F for words in alu if words[0] >> 20 & 0xF == 0}  # type: ignore[index]
    scalar = {words[0] >> 26 for words in alu if words[0] >> 20 & 0xF}  # type: ignore[index]
    fetch = {words[0] & 0x1F for kind, words, _ in ROWS if "fetch" in kind}  # type: ignore[index]
    assert cf == set(range(16))
    assert vector == set(range(32))
    assert scalar == set(range(64))
    # a2xx-isa.md#fetch: every defined fetch opcode
    assert fetch == {0, 1, 16, 17, 18, 19, 24, 25, 26, 27}
