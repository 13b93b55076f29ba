"""Golden tests of Mesa-style disassembly (a2xx-isa.md#mesa-text).

Words are built by hand from the bit tables (a2xx-isa.md#cf, a2xx-isa.md#alu, a2xx-isa.md#fetch);
expected text is written from the format rules of a2xx-isa.md#mesa-text (level 0: every line starts
with one TAB).
"""

from __future__ import annotations

import pytest
from a2xx_helpers import (
    EXEC,
    EXEC_END,
    NOP,
    cf_program,
    exec_clause,
    one_instruction,
    one_instruction_text,
)

from gpuisa.a2xx import disassemble
from gpuisa.a2xx.errors import A2xxError
from gpuisa.errors import GpuIsaError, InputError

# A vector-only ALU slot's defaults: vector mask xyzw, so no scalar line (a2xx-isa.md#mesa-alu).
MASK_XYZW = 0xF << 16
ALL_TEMPS = (1 << 31) | (1 << 30) | (1 << 29)  # src1_sel, src2_sel, src3_sel = R


def alu_text(vector: str, scalar: str | None = None, *, sync: bool = False) -> str:
    text = "\t   " + ("(S)" if sync else "   ") + "ALU:\t" + vector + "\n"
    if scalar is not None:
        text += "\t\t    \t" + scalar + "\n"
    return text


def dis_alu(d0: int, d1: int, d2: int, shader: str = "vertex", sync: bool = False) -> str:
    return disassemble(one_instruction((d0, d1, d2), fetch=False, serialize=sync), shader)


def dis_fetch(d0: int, d1: int, d2: int, sync: bool = False) -> str:
    return disassemble(one_instruction((d0, d1, d2), fetch=True, serialize=sync), "vertex")


# --------------------------------------------------------------------------------------
# a2xx-isa.md#mesa-example template
# --------------------------------------------------------------------------------------


def test_template_illustration() -> None:
    words = one_instruction(
        (
            1 | MASK_XYZW,  # vector_dest = R1, mask xyzw, scalar mask 0
            0,  # identity swizzles
            (2 << 24) | ALL_TEMPS,  # MAXv, sources R0
        ),
        fetch=False,
        serialize=True,
    )
    assert disassemble(words, "vertex") == (
        "\tEXEC ADDR(0x1) CNT(0x1)\n\t   (S)ALU:\tMAXv\tR1 = R0, R0\n\tNOP\n"
    )


# --------------------------------------------------------------------------------------
# CF clauses (a2xx-isa.md#mesa-cf)
# --------------------------------------------------------------------------------------

LEADER = exec_clause(EXEC, 1, 0)  # EXEC ADDR(0x1) CNT(0x0): CF program = 1 slot
LEADER_TEXT = "\tEXEC ADDR(0x1) CNT(0x0)\n"

CF_CASES = [
    (NOP, "NOP"),
    (15 << 44, "MARK_VS_FETCH_DONE"),
    # EXEC family: ADDR CNT [YIELD] [VC] [BOOL_ADDR] [ABSOLUTE_ADDR] [COND]
    (exec_clause(EXEC, 0x1FF, 0), "EXEC ADDR(0x1ff) CNT(0x0)"),
    (exec_clause(EXEC_END, 0x1, 0), "EXEC_END ADDR(0x1) CNT(0x0)"),
    (
        exec_clause(EXEC, 0x12, 0)
        | (1 << 15)  # yield
        | (0x3F << 28)  # vc
        | (0x80 << 34)  # bool_addr (blob "predicate clean" bit)
        | (1 << 42)  # condition: not printed for plain EXEC
        | (1 << 43),  # absolute
        "EXEC ADDR(0x12) CNT(0x0) YIELD VC(0x3f) BOOL_ADDR(0x80) ABSOLUTE_ADDR",
    ),
    (
        exec_clause(3, 0x4, 0) | (5 << 34) | (1 << 42),
        "COND_EXEC ADDR(0x4) CNT(0x0) BOOL_ADDR(0x5) COND(1)",
    ),
    (exec_clause(4, 0x4, 0), "COND_EXEC_END ADDR(0x4) CNT(0x0) COND(0)"),
    (exec_clause(5, 0x4, 0) | (1 << 42), "COND_PRED_EXEC ADDR(0x4) CNT(0x0) COND(1)"),
    (exec_clause(6, 0x4, 0), "COND_PRED_EXEC_END ADDR(0x4) CNT(0x0) COND(0)"),
    (
        exec_clause(13, 0x4, 0) | (0xFF << 34) | (1 << 43),
        "COND_EXEC_PRED_CLEAN ADDR(0x4) CNT(0x0) BOOL_ADDR(0xff) ABSOLUTE_ADDR COND(0)",
    ),
    (exec_clause(14, 0x4, 0) | (1 << 42), "COND_EXEC_PRED_CLEAN_END ADDR(0x4) CNT(0x0) COND(1)"),
    # Bits 9-11 lie above Mesa's 9-bit address and are not printed.
    (exec_clause(EXEC, 0x3, 0) | (0b111 << 9), "EXEC ADDR(0x3) CNT(0x0)"),
    # Loops: ADDR LOOP_ID [ABSOLUTE_ADDR]; is_repeat/predicated break are not printed
    ((7 << 44) | (0x3FF << 0) | (31 << 16), "LOOP_START ADDR(0x3ff) LOOP_ID(31)"),
    (
        (8 << 44) | (2 << 0) | (1 << 16) | (1 << 43) | (1 << 21) | (1 << 13),
        "LOOP_END ADDR(0x2) LOOP_ID(1) ABSOLUTE_ADDR",
    ),
    # Jumps/calls: ADDR DIR [FORCE_CALL] [COND if predicated] [BOOL_ADDR] [ABSOLUTE_ADDR]
    ((9 << 44) | (6 << 0) | (1 << 13), "COND_CALL ADDR(0x6) DIR(0) FORCE_CALL"),
    ((10 << 44), "RETURN ADDR(0x0) DIR(0)"),
    (
        (11 << 44) | (5 << 0) | (1 << 14) | (1 << 33) | (1 << 42),
        "COND_JMP ADDR(0x5) DIR(1) COND(1)",
    ),
    (
        (11 << 44) | (5 << 0) | (1 << 42) | (0x10 << 34) | (1 << 43),
        "COND_JMP ADDR(0x5) DIR(0) BOOL_ADDR(0x10) ABSOLUTE_ADDR",
    ),
    ((11 << 44) | (1 << 14), "COND_JMP ADDR(0x0) DIR(0) COND(0)"),
    # ALLOC: buffer SIZE [NO_SERIAL] [ALLOC_MODE]
    ((12 << 44) | (0 << 41), "ALLOC NO ALLOC SIZE(0x0)"),
    ((12 << 44) | (1 << 41) | 1, "ALLOC POSITION SIZE(0x1)"),
    ((12 << 44) | (2 << 41) | 0xF, "ALLOC PARAM/PIXEL SIZE(0xf)"),
    (
        (12 << 44) | (3 << 41) | (1 << 40) | (1 << 43) | 2,
        "ALLOC MEMORY SIZE(0x2) NO_SERIAL ALLOC_MODE",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("clause", "text"), CF_CASES)
def test_cf_line(clause: int, text: str) -> None:
    words = cf_program([LEADER, clause])
    assert disassemble(words, "vertex") == LEADER_TEXT + "\t" + text + "\n"


def test_every_cf_opcode_has_a_case() -> None:
    assert {clause >> 44 for clause, _ in CF_CASES} == set(range(16))


def test_second_clause_printed_after_first_clauses_instructions() -> None:
    # slot 0: EXEC ADDR(0x2) CNT(0x1) + ALLOC; slot 1: EXEC_END ADDR(0x3) CNT(0x1) + NOP
    cf = cf_program(
        [
            exec_clause(EXEC, 2, 1),
            (12 << 44) | (1 << 41),
            exec_clause(EXEC_END, 3, 1, sequence=0b11),
            NOP,
        ]
    )
    alu = [MASK_XYZW, 0, ALL_TEMPS]  # ADDv R0 = R0, R0
    fetch = [0 | (1 << 19), 0x688, 0]  # VERTEX R0.xyzw = R0.x, format 0
    text = disassemble(cf + alu + fetch, "vertex")
    assert text == (
        "\tEXEC ADDR(0x2) CNT(0x1)\n"
        "\t      ALU:\tADDv\tR0 = R0, R0\n"
        "\tALLOC POSITION SIZE(0x0)\n"
        "\tEXEC_END ADDR(0x3) CNT(0x1)\n"
        "\t   (S)FETCH:\tVERTEX\tR0.xyzw = R0.x FMT_1_REVERSE UNSIGNED NORMALIZED STRIDE(0) "
        "CONST(0, 0)\n"
        "\tNOP\n"
    )


def test_cf_end_from_first_exec_only() -> None:
    # The first EXEC says ADDR(0x1): only the first slot's two clauses are CF, even though
    # a second CF-looking slot follows (it is never printed).
    words = cf_program([exec_clause(EXEC_END, 1, 0), NOP]) + cf_program([(12 << 44), NOP])
    assert disassemble(words, "vertex") == "\tEXEC_END ADDR(0x1) CNT(0x0)\n\tNOP\n"


def test_exec_found_after_non_exec_clauses() -> None:
    words = cf_program([(12 << 44) | (2 << 41), NOP, exec_clause(EXEC_END, 2, 0), NOP])
    assert disassemble(words, "fragment") == (
        "\tALLOC PARAM/PIXEL SIZE(0x0)\n\tNOP\n\tEXEC_END ADDR(0x2) CNT(0x0)\n\tNOP\n"
    )


def test_exec_address_zero_prints_nothing() -> None:
    # 2 * ADDR = 0 CF clauses (Mesa prints nothing)
    assert disassemble(cf_program([exec_clause(EXEC_END, 0, 0), NOP]), "vertex") == ""


def test_sequence_bits_and_seventh_instruction() -> None:
    # count 7: sequence covers 6 instructions; the 7th reads as ALU, not serialized
    # 2 bits per instruction, i0 lowest: i0 fetch, i1 ALU (S), i2 fetch, i3 fetch (S), i4-5 ALU
    seq = 0b00_00_11_01_10_01
    cf = cf_program([exec_clause(EXEC_END, 1, 7, seq), NOP])
    alu = [MASK_XYZW, 0, ALL_TEMPS]
    fetch = [1 << 19, 0x688, 0]
    slots = fetch + alu + fetch + fetch + alu + alu + alu
    text = disassemble(cf + slots, "vertex")
    f = "FETCH:\tVERTEX\tR0.xyzw = R0.x FMT_1_REVERSE UNSIGNED NORMALIZED STRIDE(0) CONST(0, 0)\n"
    a = "ALU:\tADDv\tR0 = R0, R0\n"
    assert text == (
        "\tEXEC_END ADDR(0x1) CNT(0x7)\n"
        f"\t      {f}\t   (S){a}\t      {f}\t   (S){f}\t      {a}\t      {a}\t      {a}"
        "\tNOP\n"
    )


# --------------------------------------------------------------------------------------
# ALU (a2xx-isa.md#mesa-alu)
# --------------------------------------------------------------------------------------

# a2xx-isa.md#vector-ops names and the number of operands Mesa prints
VECTOR_NAMES = [
    ("ADDv", 2), ("MULv", 2), ("MAXv", 2), ("MINv", 2), ("SETEv", 2), ("SETGTv", 2),
    ("SETGTEv", 2), ("SETNEv", 2), ("FRACv", 1), ("TRUNCv", 1), ("FLOORv", 1),
    ("MULADDv", 3), ("CNDEv", 3), ("CNDGTEv", 3), ("CNDGTv", 3), ("DOT4v", 2), ("DOT3v", 2),
    ("DOT2ADDv", 3), ("CUBEv", 2), ("MAX4v", 1), ("PRED_SETE_PUSHv", 2),
    ("PRED_SETNE_PUSHv", 2), ("PRED_SETGT_PUSHv", 2), ("PRED_SETGTE_PUSHv", 2),
    ("KILLEv", 2), ("KILLGTv", 2), ("KILLGTEv", 2), ("KILLNEv", 2), ("DSTv", 2), ("MOVAv", 1),
]  # fmt: skip


@pytest.mark.parametrize("opcode", range(32))
def test_vector_opcode(opcode: int) -> None:
    d0 = 4 | MASK_XYZW  # vector_dest R4
    d2 = (
        (1 << 0)  # src3 = R1
        | (2 << 8)  # src2 = R2
        | (3 << 16)  # src1 = R3
        | (opcode << 24)
        | ALL_TEMPS
    )
    if opcode < 30:
        name, srcs = VECTOR_NAMES[opcode]
    else:
        name, srcs = f"OP({opcode})", 1  # unused opcodes: Mesa's num_srcs = 0 -> src1 only
    operands = {1: "R3", 2: "R3, R2", 3: "R1, R3, R2"}[srcs]  # 3-source: src3 first
    assert dis_alu(d0, 0, d2) == one_instruction_text(alu_text(f"{name}\tR4 = {operands}"))


# a2xx-isa.md#scalar-ops names
SCALAR_NAMES = {
    0: "ADDs", 1: "ADD_PREVs", 2: "MULs", 3: "MUL_PREVs", 4: "MUL_PREV2s", 5: "MAXs",
    6: "MINs", 7: "SETEs", 8: "SETGTs", 9: "SETGTEs", 10: "SETNEs", 11: "FRACs",
    12: "TRUNCs", 13: "FLOORs", 14: "EXP_IEEE", 15: "LOG_CLAMP", 16: "LOG_IEEE",
    17: "RECIP_CLAMP", 18: "RECIP_FF", 19: "RECIP_IEEE", 20: "RECIPSQ_CLAMP",
    21: "RECIPSQ_FF", 22: "RECIPSQ_IEEE", 23: "MOVAs", 24: "MOVA_FLOORs", 25: "SUBs",
    26: "SUB_PREVs", 27: "PRED_SETEs", 28: "PRED_SETNEs", 29: "PRED_SETGTs",
    30: "PRED_SETGTEs", 31: "PRED_SET_INVs", 32: "PRED_SET_POPs", 33: "PRED_SET_CLRs",
    34: "PRED_SET_RESTOREs", 35: "KILLEs", 36: "KILLGTs", 37: "KILLGTEs", 38: "KILLNEs",
    39: "KILLONEs", 40: "SQRT_IEEE", 42: "MUL_CONST_0", 43: "MUL_CONST_1",
    44: "ADD_CONST_0", 45: "ADD_CONST_1", 46: "SUB_CONST_0", 47: "SUB_CONST_1", 48: "SIN",
    49: "COS", 50: "RETAIN_PREV",
}  # fmt: skip


@pytest.mark.parametrize("opcode", range(64))
def test_scalar_opcode(opcode: int) -> None:
    d0 = (
        (0 << 0)  # vector_dest R0, vector mask 0 -> "R0.____"
        | (5 << 8)  # scalar_dest R5
        | (0b0001 << 20)  # scalar mask x
        | (opcode << 26)
    )
    d2 = (7 << 0) | (2 << 24) | ALL_TEMPS  # src3 = R7, MAXv
    name = SCALAR_NAMES.get(opcode, f"OP({opcode})")
    expected = alu_text("MAXv\tR0.____ = R0, R0", f"{name}\tR5.x___ = R7")
    assert dis_alu(d0, 0, d2) == one_instruction_text(expected)


def test_scalar_line_conditions() -> None:
    d2 = (2 << 24) | ALL_TEMPS
    # vector mask 0 and scalar mask 0: the scalar line is still printed
    assert dis_alu(0, 0, d2) == one_instruction_text(
        alu_text("MAXv\tR0.____ = R0, R0", "ADDs\tR0.____ = R0")
    )
    # vector mask != 0, scalar mask 0: no scalar line
    assert dis_alu(0b0101 << 16, 0, d2) == one_instruction_text(alu_text("MAXv\tR0.x_z_ = R0, R0"))


def test_wiki_example_slot() -> None:
    # wiki: "MULv R2.xyz_ = R3.zzzw, C10" + "RCP R4.x___ = R0" (RCP = RECIP_IEEE)
    d0 = (
        (2 << 0)  # vector_dest R2
        | (4 << 8)  # scalar_dest R4
        | (0b0111 << 16)  # vector mask xyz_
        | (0b0001 << 20)  # scalar mask x___
        | (19 << 26)  # RECIP_IEEE
    )
    # src1 swizzle zzzw: channel i reads (i + f_i) & 3 -> f = (2, 1, 0, 0) = 0b00_00_01_10
    d1 = 0b00_00_01_10 << 16
    d2 = (
        (0 << 0)  # src3 = R0
        | (10 << 8)  # src2 = C10
        | (3 << 16)  # src1 = R3
        | (1 << 24)  # MULv
        | (1 << 31)  # src1 temp
        | (0 << 30)  # src2 constant
        | (1 << 29)  # src3 temp
    )
    assert dis_alu(d0, d1, d2) == one_instruction_text(
        alu_text("MULv\tR2.xyz_ = R3.zzzw, C10", "RECIP_IEEE\tR4.x___ = R0")
    )


def test_source_modifiers_and_constant_quirk() -> None:
    d0 = MASK_XYZW
    d1 = (
        (0x1B << 16)  # src1 swizzle wwww
        | (0x6C << 8)  # src2 swizzle xxxx
        | (1 << 26)  # src1 negate
        | (1 << 25)  # src2 negate
    )
    d2 = (
        (0x80 | 0x40 | 5) << 16  # src1: abs, aL-relative (not printed), R5
        | (255 << 8)  # src2: C255 -> 6-bit number 63 with bit 7 as abs
        | (1 << 31)  # src1 temp; src2 constant
        | (0 << 24)  # ADDv
    )
    assert dis_alu(d0, d1, d2) == one_instruction_text(
        alu_text("ADDv\tR0 = -|R5.wwww|, -|C63.xxxx|")
    )


def test_constant_index_64_prints_low_bits() -> None:
    d2 = (64 << 16) | (1 << 8) | (1 << 30)  # src1 = C64 (prints C0), src2 = R1
    assert dis_alu(MASK_XYZW, 0, d2) == one_instruction_text(alu_text("ADDv\tR0 = C0, R1"))


def test_predicates_clamp_and_muladd_order() -> None:
    d0 = 3 | MASK_XYZW | (1 << 24)  # R3, vector clamp
    d1 = (1 << 28) | (1 << 27)  # predicated, condition true -> EQ
    d2 = (6 << 0) | (4 << 8) | (5 << 16) | (11 << 24) | ALL_TEMPS
    assert dis_alu(d0, d1, d2) == one_instruction_text(alu_text("MULADDvEQ\tR3 = R6, R5, R4 CLAMP"))
    d1 = 1 << 28  # predicated, condition false -> NE
    assert dis_alu(d0, d1, d2) == one_instruction_text(alu_text("MULADDvNE\tR3 = R6, R5, R4 CLAMP"))
    d1 = 1 << 27  # condition without predication: nothing
    assert dis_alu(d0, d1, d2) == one_instruction_text(alu_text("MULADDv\tR3 = R6, R5, R4 CLAMP"))


def test_scalar_clamp_and_no_predicate_suffix() -> None:
    d0 = (1 << 20) | (1 << 25) | (22 << 26)  # scalar mask x, clamp, RECIPSQ_IEEE
    d1 = (1 << 28) | (1 << 27) | (1 << 24)  # predicated EQ; src3 negate
    d2 = (2 << 24) | ALL_TEMPS | 9  # src3 = R9
    assert dis_alu(d0, d1, d2) == one_instruction_text(
        alu_text("MAXvEQ\tR0.____ = R0, R0", "RECIPSQ_IEEE\tR0.x___ = -R9 CLAMP")
    )


@pytest.mark.parametrize(
    ("shader", "dest", "comment"),
    [
        ("vertex", 62, "\t; gl_Position"),
        ("vertex", 63, "\t; gl_PointSize"),
        ("vertex", 0, ""),
        ("fragment", 0, "\t; gl_FragColor"),
        ("fragment", 62, ""),
    ],
)
def test_export_comments(shader: str, dest: int, comment: str) -> None:
    d0 = dest | (1 << 15) | MASK_XYZW  # export_data
    d2 = (1 << 16) | (1 << 8) | (2 << 24) | ALL_TEMPS
    assert dis_alu(d0, 0, d2, shader) == one_instruction_text(
        alu_text(f"MAXv\texport{dest} = R1, R1{comment}")
    )


def test_scalar_export_comment_uses_scalar_dest() -> None:
    d0 = (
        (0 << 0)  # vector_dest 0
        | (63 << 8)  # scalar_dest 63
        | (1 << 15)  # export
        | (0b0111 << 16)
        | (0b1000 << 20)
        | (5 << 26)  # MAXs
    )
    d2 = (2 << 24) | ALL_TEMPS
    assert dis_alu(d0, 0, d2, "vertex") == one_instruction_text(
        alu_text("MAXv\texport0.xyz_ = R0, R0", "MAXs\texport63.___w = R0\t; gl_PointSize")
    )


# --------------------------------------------------------------------------------------
# FETCH (a2xx-isa.md#mesa-fetch)
# --------------------------------------------------------------------------------------


def test_vertex_fetch() -> None:
    d0 = (
        (0 << 0)  # VTX_FETCH
        | (0 << 5)  # src R0
        | (1 << 12)  # dst R1
        | (1 << 19)  # must_be_one
        | (20 << 20)  # const_index
        | (2 << 25)  # const_index_sel
        | (3 << 27)  # prefetch (not printed)
        | (2 << 30)  # src swizzle z
    )
    d1 = (
        0xA88  # dst swizzle xyz1
        | (1 << 12)  # signed
        | (0 << 13)  # normalized
        | (57 << 16)  # FMT_32_32_32_FLOAT
    )
    d2 = 12 | (0 << 8)  # stride 12, offset 0
    assert dis_fetch(d0, d1, d2) == one_instruction_text(
        "\t      FETCH:\tVERTEX\tR1.xyz1 = R0.z FMT_32_32_32_FLOAT SIGNED NORMALIZED STRIDE(12) "
        "CONST(20, 2)\n"
    )


def test_vertex_fetch_type_offset_predicate() -> None:
    d0 = (5 << 5) | (63 << 12) | (1 << 19) | (31 << 20) | (3 << 25) | (3 << 30)
    d1 = (
        (4 << 0)
        | (5 << 3)
        | (7 << 6)
        | (7 << 9)  # dst selectors 0, 1, _, _
        | (1 << 13)  # integer: no NORMALIZED
        | (7 << 16)  # FMT_2_10_10_10 prints as TYPE(0x7)
        | (1 << 31)  # predicated
    )
    d2 = 255 | (0x3FFFFF << 8)  # stride, offset; pred_condition 0 -> NE
    assert dis_fetch(d0, d1, d2, sync=True) == one_instruction_text(
        "\t   (S)FETCH:\tVERTEXNE\tR63.01__ = R5.w TYPE(0x7) UNSIGNED STRIDE(255) "
        "OFFSET(4194303) CONST(31, 3)\n"
    )


@pytest.mark.parametrize(
    ("fmt", "text"),
    [
        (0, "FMT_1_REVERSE"), (2, "FMT_8"), (10, "FMT_8_8"), (6, "FMT_8_8_8_8"),
        (24, "FMT_16"), (25, "FMT_16_16"), (26, "FMT_16_16_16_16"), (33, "FMT_32"),
        (34, "FMT_32_32"), (35, "FMT_32_32_32_32"), (36, "FMT_32_FLOAT"),
        (37, "FMT_32_32_FLOAT"), (57, "FMT_32_32_32_FLOAT"), (38, "FMT_32_32_32_32_FLOAT"),
        (1, "TYPE(0x1)"), (31, "TYPE(0x1f)"), (21, "TYPE(0x15)"), (63, "TYPE(0x3f)"),
    ],
)  # fmt: skip
def test_vertex_formats(fmt: int, text: str) -> None:
    d1 = 0x688 | (fmt << 16) | (1 << 13)
    assert dis_fetch(1 << 19, d1, 4) == one_instruction_text(
        f"\t      FETCH:\tVERTEX\tR0.xyzw = R0.x {text} UNSIGNED STRIDE(4) CONST(0, 0)\n"
    )


def test_texture_fetch_all_options() -> None:
    d0 = (
        (1 << 0)  # TEX_FETCH
        | (2 << 5)  # src R2
        | (3 << 12)  # dst R3
        | (1 << 19)  # fetch_valid_only
        | (5 << 20)  # const_idx
        | (1 << 25)  # tx_coord_denorm
        | ((0 | 1 << 2 | 3 << 4) << 26)  # src swizzle x, y, w
    )
    d1 = (
        0x688  # dst swizzle
        | (0 << 12)  # mag POINT
        | (1 << 14)  # min LINEAR
        | (2 << 16)  # mip BASEMAP
        | (5 << 18)  # aniso MAX_16_1
        | (0 << 21)  # arbitrary 2x4_SYM
        | (3 << 24)  # vol_mag: use fetch constant (not printed)
        | (1 << 26)  # vol_min LINEAR
        | (0 << 28)  # use_comp_lod = 0 -> LOD(0) LOD_BIAS
        | (1 << 29)  # use_reg_lod
        | (1 << 31)  # predicated
    )
    d2 = (
        1  # use_reg_gradients
        | (1 << 1)  # sample location CENTER
        | (5 << 2)  # lod_bias
        | (1 << 16)  # offset_x
        | (2 << 21)  # offset_y
        | (31 << 26)  # offset_z
        | (1 << 31)  # pred_condition -> EQ
    )
    assert dis_fetch(d0, d1, d2, sync=True) == one_instruction_text(
        "\t   (S)FETCH:\tSAMPLEEQ\tR3.xyzw = R2.xyw CONST(5) VALID_ONLY DENORM MAG(POINT) "
        "MIN(LINEAR) MIP(BASEMAP) ANISO(MAX_16_1) ARBITRARY(2x4_SYM) VOL_MIN(LINEAR) LOD(0) "
        "LOD_BIAS(5) REG_LOD(1) USE_REG_GRADIENTS LOCATION(CENTER) OFFSET(1,2,31)\n"
    )


# use_comp_lod = 1 and every filter = "use fetch constant": only CONST and LOCATION remain
TEX_MINIMAL_D1 = (
    0x688
    | (3 << 12) | (3 << 14) | (3 << 16)  # mag/min/mip: fetch constant
    | (7 << 18) | (7 << 21)  # aniso, arbitrary: fetch constant
    | (3 << 24) | (3 << 26)  # vol mag/min: fetch constant
    | (1 << 28)  # use_comp_lod
)  # fmt: skip


@pytest.mark.parametrize(
    ("opcode", "name"),
    [(1, "SAMPLE"), (16, "?"), (17, "?"), (18, "?"), (19, "?"), (24, "SET_TEX_LOD"),
     (25, "?"), (26, "?"), (27, "?")],
)  # fmt: skip
def test_texture_opcodes(opcode: int, name: str) -> None:
    d0 = opcode | (1 << 5) | (1 << 12)  # R1 <- R1, swizzle xxx
    assert dis_fetch(d0, TEX_MINIMAL_D1, 0) == one_instruction_text(
        f"\t      FETCH:\t{name}\tR1.xyzw = R1.xxx CONST(0) LOCATION(CENTROID)\n"
    )


ANISO, ARBITRARY, VOL_MAG, MAG = 7 << 18, 7 << 21, 3 << 24, 3 << 12  # field masks in d1


@pytest.mark.parametrize(
    ("field", "bits", "text"),
    [
        (ANISO, 0 << 18, " ANISO(DISABLED)"), (ANISO, 1 << 18, " ANISO(MAX_1_1)"),
        (ANISO, 2 << 18, " ANISO(MAX_2_1)"), (ANISO, 3 << 18, " ANISO(MAX_4_1)"),
        (ANISO, 4 << 18, " ANISO(MAX_8_1)"), (ARBITRARY, 1 << 21, " ARBITRARY(2x4_ASYM)"),
        (ARBITRARY, 2 << 21, " ARBITRARY(4x2_SYM)"), (ARBITRARY, 3 << 21, " ARBITRARY(4x2_ASYM)"),
        (ARBITRARY, 4 << 21, " ARBITRARY(4x4_SYM)"), (ARBITRARY, 5 << 21, " ARBITRARY(4x4_ASYM)"),
        (VOL_MAG, 1 << 24, " VOL_MAG(LINEAR)"), (MAG, 2 << 12, " MAG(BASEMAP)"),
    ],
)  # fmt: skip
def test_texture_filter_names(field: int, bits: int, text: str) -> None:
    d1 = (TEX_MINIMAL_D1 & ~field) | bits
    assert dis_fetch(1, d1, 0) == one_instruction_text(
        f"\t      FETCH:\tSAMPLE\tR0.xyzw = R0.xxx CONST(0){text} LOCATION(CENTROID)\n"
    )


def test_texture_reg_lod_two_bits_and_lod_bias() -> None:
    d1 = (TEX_MINIMAL_D1 & ~(1 << 28)) | (3 << 29)  # use_comp_lod 0, use_reg_lod 3
    d2 = 0x7F << 2  # lod_bias printed unsigned
    assert dis_fetch(1, d1, d2) == one_instruction_text(
        "\t      FETCH:\tSAMPLE\tR0.xyzw = R0.xxx CONST(0) LOD(0) LOD_BIAS(127) REG_LOD(3) "
        "LOCATION(CENTROID)\n"
    )


# --------------------------------------------------------------------------------------
# Raw mode (a2xx-isa.md#mesa-indent)
# --------------------------------------------------------------------------------------


def test_raw_mode() -> None:
    cf = cf_program([exec_clause(EXEC_END, 1, 2, sequence=0b01_00), (12 << 44) | (1 << 41)])
    alu = [
        (0xF << 16) | (0x1 << 20) | (19 << 26),  # vector mask xyzw, scalar mask x, RECIP_IEEE
        0,
        (2 << 24) | ALL_TEMPS,
    ]
    fetch = [1 << 19, 0x688, 0]
    text = disassemble(cf + alu + fetch, "vertex", raw=True)
    # clause A: address 1, count 2 at bit 12, sequence 0b0100 at bit 16, opcode 2 at bit 44
    #   -> 16-bit halves (low first) 0x2001, 0x0004, 0x2000
    # clause B: ALLOC (12 << 44) | POSITION (1 << 41) -> halves 0x0000, 0x0000, 0xc200
    assert text == (
        "\t    2001 0004 2000            \tEXEC_END ADDR(0x1) CNT(0x2)\n"
        f"\t01: {alu[0]:08x} 00000000 {alu[2]:08x}\t      ALU:\tMAXv\tR0 = R0, R0\n"
        "\t                          \t\t    \tRECIP_IEEE\tR0.x___ = R0\n"
        "\t02: 00080000 00000688 00000000\t      FETCH:\tVERTEX\tR0.xyzw = R0.x "
        "FMT_1_REVERSE UNSIGNED NORMALIZED STRIDE(0) CONST(0, 0)\n"
        "\t    0000 0000 c200            \tALLOC POSITION SIZE(0x0)\n"
    )


def test_raw_slot_index_is_hex() -> None:
    clauses = [exec_clause(EXEC, 0x10, 1)] + [NOP] * 31  # 16 CF slots, ALU at slot 0x10
    words = [*cf_program(clauses), MASK_XYZW, 0, ALL_TEMPS]
    lines = disassemble(words, "vertex", raw=True).splitlines()
    assert lines[1].startswith("\t10: 000f0000 00000000 e0000000\t")


def test_levels() -> None:
    words = cf_program([exec_clause(EXEC_END, 1, 0), NOP])
    assert disassemble(words, "vertex", level=2) == (
        "\t\t\tEXEC_END ADDR(0x1) CNT(0x0)\n\t\t\tNOP\n"
    )


# --------------------------------------------------------------------------------------
# Malformed input
# --------------------------------------------------------------------------------------


def test_truncated_program() -> None:
    words = cf_program([exec_clause(EXEC_END, 1, 0), NOP])
    with pytest.raises(InputError, match="not a whole number of 96-bit slots"):
        disassemble(words[:-1], "vertex")


def test_no_exec_clause() -> None:
    with pytest.raises(A2xxError, match="no EXEC-type CF clause"):
        disassemble(cf_program([NOP, (12 << 44)]), "vertex")
    with pytest.raises(A2xxError, match="no EXEC-type"):
        disassemble([], "vertex")


def test_cf_end_beyond_program() -> None:
    with pytest.raises(A2xxError, match=r"ADDR\(0x5\).*only 1 slots"):
        disassemble(cf_program([exec_clause(EXEC_END, 5, 0), NOP]), "vertex")


def test_exec_slots_beyond_program() -> None:
    words = [*cf_program([exec_clause(EXEC_END, 1, 2), NOP]), MASK_XYZW, 0, 0]
    with pytest.raises(A2xxError, match=r"clause 0 .*runs slots 1\.\.2 .*only 2 slots"):
        disassemble(words, "vertex")


def test_undefined_fetch_opcode() -> None:
    with pytest.raises(A2xxError, match=r"slot 1 \(dword 3\): fetch opcode 2"):
        dis_fetch(2, 0, 0)


@pytest.mark.parametrize(("field", "name"), [(ANISO, "aniso_filter"), (ARBITRARY, "arbitrary")])
def test_reserved_filter_values(field: int, name: str) -> None:
    six = 6 << (18 if field == ANISO else 21)
    d1 = (TEX_MINIMAL_D1 & ~field) | six
    with pytest.raises(A2xxError, match=f"{name}.*reserved value 6"):
        dis_fetch(1, d1, 0)


def test_bad_arguments() -> None:
    words = cf_program([exec_clause(EXEC_END, 1, 0), NOP])
    with pytest.raises(InputError, match="shader type"):
        disassemble(words, "pixel")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="style"):
        disassemble(words, "vertex", style="intel")
    with pytest.raises(InputError, match="level"):
        disassemble(words, "vertex", level=9)
    with pytest.raises(GpuIsaError):
        disassemble([0, -1, 0], "vertex")
