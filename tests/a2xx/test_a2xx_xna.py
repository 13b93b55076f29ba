"""Golden tests of the Xenia/XNA-style listing (a2xx-isa.md#xna-text, a2xx-isa.md#adreno-vs-xenos).

Words are built by hand from the bit tables; expected text follows a2xx-isa.md#xna-text (prefixes
``/* %4d.%d */`` and ``/* %4d   */``, 6-character predicate field, operand syntax).
"""

from __future__ import annotations

import pytest
from a2xx_helpers import EXEC, EXEC_END, NOP, cf_program, exec_clause

from gpuisa.a2xx import disassemble
from gpuisa.a2xx.errors import A2xxError
from gpuisa.errors import InputError

CLEAN = 1 << 41  # Xenia's is_predicate_clean bit of plain/predicated execs
END = exec_clause(EXEC_END, 1, 0) | CLEAN  # CF program = 1 slot
END_TEXT = "/*    0.1 */       exece\n"


def xna(words: list[int], shader: str = "vertex") -> str:
    return disassemble(words, shader, style="xna")  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------
# CF clauses
# --------------------------------------------------------------------------------------

CF_CASES = [
    (NOP, "      cnop\n"),
    (exec_clause(EXEC, 1, 0) | CLEAN, "      exec\n"),
    (exec_clause(EXEC, 1, 0), "      exec    // PredicateClean=false\n"),
    (exec_clause(EXEC, 1, 0) | CLEAN | (1 << 15), "      exec Yield=true\n"),
    (exec_clause(3, 1, 0) | (5 << 34) | (1 << 42), "      cexec b5    // PredicateClean=false\n"),
    (
        exec_clause(4, 1, 0) | (5 << 34) | (1 << 15),
        "      cexece !b5, Yield=true    // PredicateClean=false\n",
    ),
    (exec_clause(5, 1, 0) | CLEAN | (1 << 42), " (p0) exec\n"),
    (exec_clause(6, 1, 0), "(!p0) exece    // PredicateClean=false\n"),
    (exec_clause(5, 1, 0) | CLEAN | (1 << 15), "(!p0) exec Yield=true\n"),
    (exec_clause(13, 1, 0) | (200 << 34) | (1 << 42), "      cexec b200\n"),
    (exec_clause(14, 1, 0) | (3 << 34), "      cexece !b3\n"),
    ((7 << 44) | 5 | (2 << 16) | (1 << 13), "      loop i2, L5, Repeat=true\n"),
    ((8 << 44) | 6 | (31 << 16), "      endloop i31, L6\n"),
    ((8 << 44) | 6 | (1 << 16) | (1 << 21) | (1 << 42), " (p0) endloop i1, L6\n"),
    ((8 << 44) | 6 | (1 << 16) | (1 << 21), "(!p0) endloop i1, L6\n"),
    ((9 << 44) | 7 | (1 << 13), "      call L7\n"),
    ((9 << 44) | 7 | (1 << 14) | (1 << 42), " (p0) call L7\n"),
    ((9 << 44) | 7 | (1 << 14), "(!p0) call L7\n"),
    ((9 << 44) | 7 | (9 << 34) | (1 << 42), "      ccall b9, L7\n"),
    ((9 << 44) | 7 | (9 << 34), "      ccall !b9, L7\n"),
    ((10 << 44) | 7, "      ret\n"),
    ((11 << 44) | 0x1FFF | (1 << 13), "      jmp L8191\n"),  # Xenia: 13-bit address
    ((11 << 44) | 7 | (1 << 14), "(!p0) jmp L7\n"),
    ((11 << 44) | 7 | (4 << 34) | (1 << 42), "      cjmp b4, L7\n"),
    ((12 << 44) | (0 << 41), "      alloc \n"),
    ((12 << 44) | (1 << 41), "      alloc position\n"),
    ((12 << 44) | (2 << 41), "      alloc interpolators\n"),
    ((12 << 44) | (3 << 41) | 2, "      alloc export = 2\n"),
    ((12 << 44) | (3 << 41) | 0xF, "      alloc export = 7\n"),  # Xenia: 3-bit size
]


@pytest.mark.parametrize(("clause", "text"), CF_CASES)
def test_cf_clause(clause: int, text: str) -> None:
    assert xna(cf_program([clause, END])) == "/*    0.0 */ " + text + END_TEXT


def test_alloc_colors_in_pixel_shader() -> None:
    words = cf_program([(12 << 44) | (2 << 41), END])
    assert xna(words, "fragment") == "/*    0.0 */       alloc colors\n" + END_TEXT


def test_mark_vs_fetch_done_prints_nothing() -> None:
    assert xna(cf_program([15 << 44, END])) == "/*    0.0 */ " + END_TEXT


def test_labels() -> None:
    clauses = [
        (11 << 44) | 3 | (1 << 13),  # jmp L3
        (7 << 44) | 3,  # loop i0, L3
        (8 << 44) | 2,  # endloop i0, L2
        exec_clause(EXEC_END, 2, 0) | CLEAN,
    ]
    assert xna(cf_program(clauses)) == (
        "/*    0.0 */       jmp L3\n"
        "/*    0.1 */       loop i0, L3\n"
        "                label L2\n"
        "/*    1.0 */       endloop i0, L2\n"
        "                label L3\n"
        "/*    1.1 */       exece\n"
    )


def test_cf_bound_uses_xenia_12_bit_exec_address() -> None:
    # ADDR bits 9-11 are reserved for Mesa but part of Xenia's address: 0x201 > 2 slots,
    # so Xenia's bound is the whole 2-slot program (minimum with the slot count).
    clauses = [exec_clause(EXEC_END, 1, 0) | (1 << 9) | CLEAN, NOP, NOP, NOP]
    assert xna(cf_program(clauses)) == (
        "/*    0.0 */       exece\n"
        "/*    0.1 */       cnop\n"
        "/*    1.0 */       cnop\n"
        "/*    1.1 */       cnop\n"
    )


def test_cf_bound_is_minimum_over_execs() -> None:
    # First exec says 2 slots, a later one (still inside) says 1: Xenia stops at 1.
    clauses = [exec_clause(EXEC, 2, 0) | CLEAN, exec_clause(EXEC_END, 1, 0) | CLEAN, NOP, NOP]
    assert xna(cf_program(clauses)) == "/*    0.0 */       exec\n" + END_TEXT


# --------------------------------------------------------------------------------------
# ALU
# --------------------------------------------------------------------------------------

RETAIN_PREV = 50 << 26  # scalar opcode 50 in d0
MAXV_R0_R0 = (2 << 24) | (1 << 31) | (1 << 30)  # MAXv, src1 = src2 = R0 (temps)


def one_alu(d0: int, d1: int, d2: int, shader: str = "vertex") -> str:
    """Listing of EXEC ADDR(0x1) CNT(0x1) + NOP with the ALU slot; returns the slot text."""
    words = [*cf_program([exec_clause(EXEC, 1, 1) | CLEAN, NOP]), d0, d1, d2]
    text = xna(words, shader)
    head = "/*    0.0 */       exec\n/*    1   */ "
    tail = "/*    0.1 */       cnop\n"
    assert text.startswith(head) and text.endswith(tail)
    return text[len(head) : -len(tail)]


def test_default_nop() -> None:
    assert one_alu(RETAIN_PREV, 0, MAXV_R0_R0) == "         nop\n"
    assert one_alu(RETAIN_PREV, (1 << 28) | (1 << 27), MAXV_R0_R0) == "    (p0) nop\n"
    assert one_alu(RETAIN_PREV, 1 << 28, MAXV_R0_R0) == "   (!p0) nop\n"


def test_vector_only() -> None:
    d0 = 1 | (0xF << 16) | RETAIN_PREV  # r1, mask xyzw
    d2 = (0 << 24) | (2 << 16) | (3 << 8) | (1 << 31)  # add, src1 = r2, src2 = c3
    assert one_alu(d0, 0, d2) == "         add r1, r2, c3\n"


def test_mad_natural_operand_order_modifiers_and_sat() -> None:
    d0 = (
        0  # r0
        | (0b0011 << 16)  # mask xy
        | (1 << 24)  # vector clamp
        | RETAIN_PREV
    )
    d1 = (
        (0x1B << 16)  # src1 swizzle wwww
        | (0b00_01_10_11 << 8)  # src2: channel i reads (i + f_i) & 3 = 3, 3, 3, 3 -> wwww
        | (1 << 26)  # src1 negate
    )
    d2 = (
        (4 << 0)  # src3 = c4
        | ((0x80 | 2) << 8)  # src2 = |r2|
        | (1 << 16)  # src1 = r1
        | (11 << 24)  # MULADDv
        | (1 << 31)
        | (1 << 30)  # src1, src2 temps; src3 constant
    )
    assert one_alu(d0, d1, d2) == "         mad_sat r0.xy__, -r1.wwww, r_abs[2].wwww, c4\n"


def test_scalar_only_and_lanes() -> None:
    d0 = (4 << 8) | (0b0001 << 20) | (19 << 26)  # rcp r4.x___
    d2 = MAXV_R0_R0 | 5 | (1 << 29)  # src3 = r5
    assert one_alu(d0, 0, d2) == "         rcp r4.x___, r5.w\n"
    # adds reads lanes W and X when the vector op does not read source 3
    d0 = (4 << 8) | (0b0001 << 20) | (0 << 26)
    assert one_alu(d0, 0, d2) == "         adds r4.x___, r5.wx\n"


# The two Xenias (a2xx-isa.md#xenia-flavours).  Upstream Xenia's ParseAluInstructionOperand
# (xenia-project/xenia, src/xenia/gpu/shader_translator.cc) takes a two-operand scalar
# operation's b from swizzle lane 0; xenia-canary's (xenia-canary/xenia-canary at 92ada8eb,
# the scalar-operand fix of PR #1149) from lane 2 when the vector operation has three
# operands.  Here src3 = r3 with the identity swizzle (field 0: lane i reads component i),
# so a = lane 3 = w and b = x (lane 0) or z (lane 2).
MAD_MAXS = (
    1 | (0xF << 16) | (2 << 8) | (0b1000 << 20) | (5 << 26),  # mad r1 + maxs r2.___w
    0,
    (3 << 0) | (11 << 24) | (1 << 31) | (1 << 30) | (1 << 29),  # src3 = r3, MULADDv
)
ADD_MAXS = (MAD_MAXS[0], 0, (3 << 0) | (0 << 24) | (1 << 31) | (1 << 30) | (1 << 29))  # ADDv


@pytest.mark.parametrize(
    ("style", "alu", "text"),
    [
        ("xenia", MAD_MAXS, "mad r1, r0, r0, r3\n              +       maxs r2.___w, r3.wx\n"),
        ("xna", MAD_MAXS, "mad r1, r0, r0, r3\n              +       maxs r2.___w, r3.wx\n"),
        (
            "xenia-canary",
            MAD_MAXS,
            "mad r1, r0, r0, r3\n              +       maxs r2.___w, r3.wz\n",
        ),
        # Beside a two-source vector operation both Xenias take X.
        ("xenia", ADD_MAXS, "add r1, r0, r0\n              +       maxs r2.___w, r3.wx\n"),
        (
            "xenia-canary",
            ADD_MAXS,
            "add r1, r0, r0\n              +       maxs r2.___w, r3.wx\n",
        ),
    ],
)
def test_scalar_second_operand_lane_of_each_xenia(
    style: str, alu: tuple[int, int, int], text: str
) -> None:
    words = cf_program([exec_clause(EXEC_END, 1, 1) | CLEAN, NOP]) + list(alu)
    listing = disassemble(words, "vertex", style=style)
    assert listing.splitlines(keepends=True)[1:3] == [
        "/*    1   */          " + text.split("\n")[0] + "\n",
        text.split("\n")[1] + "\n",
    ]


def test_const_reg_scalar_ops() -> None:
    d0 = (1 << 8) | (0b0001 << 20) | (42 << 26)  # mulsc r1.x___ (opcode 42: bit 0 = 0)
    d1 = (0x14 << 0) | (1 << 24)  # src3 swizzle 0b00_01_01_00, src3 negate
    d2 = MAXV_R0_R0 | 7 | (1 << 29)  # src3 byte 7, src3_sel 1
    # temp = bit0 0 | src3_sel << 1 = 2 | swizzle & 0x3C = 0x14 -> r22
    # lane 3: (3 + 0) & 3 = w; lane 0: (0 + 0) & 3 = x
    assert one_alu(d0, d1, d2) == "         mulsc r1.x___, -c7.w, -r22.x\n"
    d0 = (1 << 8) | (0b0001 << 20) | (45 << 26)  # addsc (opcode 45: bit 0 = 1)
    assert one_alu(d0, d1, d2) == "         addsc r1.x___, -c7.w, -r23.x\n"


@pytest.mark.parametrize(
    ("shader", "dest", "name"),
    [
        ("vertex", 62, "oPos"),
        ("vertex", 63, "oPts"),
        ("vertex", 3, "o3"),
        ("vertex", 32, "eA"),
        ("vertex", 35, "eM2"),
        ("vertex", 20, ""),  # unsupported export: no name
        ("fragment", 1, "oC1"),
        ("fragment", 61, "oDepth"),
        ("fragment", 33, "eM0"),
    ],
)
def test_export_names(shader: str, dest: int, name: str) -> None:
    d0 = dest | (1 << 15) | (0xF << 16) | RETAIN_PREV
    d2 = (1 << 24) | (1 << 31) | (1 << 30) | (1 << 16) | (2 << 8)  # mul r1, r2
    assert one_alu(d0, 0, d2, shader) == f"         mul {name}, r1, r2\n"


def test_export_constant_components() -> None:
    d0 = (
        62  # oPos
        | (1 << 14)  # scalar_dest_rel: unwritten components become 0
        | (1 << 15)  # export
        | (0b0011 << 16)  # vector xy
        | (0b0110 << 20)  # scalar yz: y is written by both -> constant 1
        | (22 << 26)  # rsq
    )
    d2 = MAXV_R0_R0 | 1 | (1 << 29)
    # vector: x (vector), y (1), w (0); scalar: z only
    assert (
        one_alu(d0, 0, d2)
        == "         max oPos.x1_0, r0, r0\n              +       rsq oPos.__z_, r1.w\n"
    )


def test_export_with_both_parts_nop_keeps_vector_line() -> None:
    d0 = 62 | (1 << 15) | RETAIN_PREV
    assert one_alu(d0, 0, MAXV_R0_R0) == "         max oPos._, r0, r0\n"


def test_relative_and_absolute_operands() -> None:
    d0 = 5 | (1 << 6) | (1 << 7) | (0xF << 16) | RETAIN_PREV  # r[5+aL], abs_constants
    d1 = (1 << 31) | (1 << 29)  # const_0_rel_abs, a0
    d2 = (
        ((0x80 | 0x40 | 3) << 16)  # src1 = |r[3+aL]|
        | (4 << 8)  # src2 = c4: first constant -> const_0 -> relative to a0
        | (0 << 24)  # add
        | (1 << 31)
    )
    assert one_alu(d0, d1, d2) == "         add r[5+aL], r_abs[3+aL], c_abs[4+a0]\n"


def test_second_constant_uses_const_1_flag() -> None:
    d0 = (0xF << 16) | RETAIN_PREV
    d1 = 1 << 30  # const_1_rel_abs, aL (bit 29 = 0)
    d2 = (9 << 16) | (200 << 8) | (0 << 24)  # add c9, c200 (both constants)
    assert one_alu(d0, d1, d2) == "         add r0, c9, c[200+aL]\n"


def test_clamp_predicate_and_unknown_opcodes() -> None:
    d0 = 1 | (0xF << 16) | (2 << 8) | (1 << 20) | (1 << 24) | (1 << 25) | (55 << 26)
    d1 = 1 << 28  # predicated, condition false
    d2 = (31 << 24) | (1 << 31)
    assert one_alu(d0, d1, d2) == (
        "   (!p0) opcode_31_sat r1\n              + (!p0) opcode_55_sat r2.x___\n"
    )


# --------------------------------------------------------------------------------------
# Fetch
# --------------------------------------------------------------------------------------


def one_fetch(d0: int, d1: int, d2: int) -> str:
    words = [*cf_program([exec_clause(EXEC, 1, 1, 0b01) | CLEAN, NOP]), d0, d1, d2]
    text = xna(words)
    head = "/*    0.0 */       exec\n/*    1   */ "
    tail = "/*    0.1 */       cnop\n"
    assert text.startswith(head) and text.endswith(tail)
    return text[len(head) : -len(tail)]


def test_vertex_fetch_full_all_options() -> None:
    d0 = (
        (2 << 5)  # src r2
        | (1 << 12)  # dst r1
        | (1 << 18)  # dst relative
        | (1 << 19)
        | (20 << 20)  # const_index
        | (1 << 25)  # const_index_sel -> vf 95 - 61 = 34
        | (3 << 27)  # prefetch_count 3 -> PrefetchCount=4
        | (1 << 30)  # src swizzle y
    )
    d1 = (
        0xA88  # x y z 1
        | (1 << 12)  # signed
        | (1 << 13)  # integer
        | (1 << 15)  # round index
        | (31 << 16)  # FMT_16_16_FLOAT
        | (0x3F << 24)  # exp_adjust -1
        | (1 << 31)  # predicated (condition 0)
    )
    d2 = 8 | (0x3FFFFF << 8) | (1 << 30)  # stride 8, Xenia offset = -1 (23 bits)
    assert one_fetch(d0, d1, d2) == (
        "   (!p0) vfetch_full r[1+aL].xyz1, r2.y, vf34, RoundIndex=true, ExpAdjust=-1, "
        "Offset=-1, DataFormat=FMT_16_16_FLOAT, Stride=8, Signed=true, NumFormat=integer, "
        "PrefetchCount=4\n"
    )


def test_vertex_fetch_mini() -> None:
    d0 = (3 << 12) | (1 << 19) | (7 << 20) | (1 << 27)
    d1 = (0 | 1 << 3 | 7 << 6 | 7 << 9) | (36 << 16) | (1 << 15) | (1 << 30)
    d2 = 4 | (5 << 8)
    assert one_fetch(d0, d1, d2) == (
        "         vfetch_mini r3.xy__, Offset=5, DataFormat=FMT_32_FLOAT, PrefetchCount=2\n"
    )


def test_vertex_fetch_format_zero_and_destinations() -> None:
    d1 = (7 | 7 << 3 | 7 << 6 | 7 << 9) | (0 << 16)  # nothing written, format 0
    assert one_fetch(1 << 19, d1, 0) == "         vfetch_full r0._, r0.x, vf95\n"
    d1 = 0x688  # identity: no suffix
    assert one_fetch(1 << 19, d1, 0) == "         vfetch_full r0, r0.x, vf95\n"
    d1 = 4 | 5 << 3 | 6 << 6 | 3 << 9  # 0, 1, invalid (reads as 0), w
    assert one_fetch(1 << 19, d1, 0) == "         vfetch_full r0.010w, r0.x, vf95\n"


def test_vertex_fetch_non_vertex_format() -> None:
    with pytest.raises(A2xxError, match="format 2"):
        one_fetch(1 << 19, 0x688 | (2 << 16), 0)


# Texture fetch: d1 with every filter "from the fetch constant" and use_comp_lod = 1.
TEX_D1 = 0x688 | (3 << 12) | (3 << 14) | (3 << 16) | (7 << 18) | (7 << 21)
TEX_D1 |= (3 << 24) | (3 << 26) | (1 << 28)
DIM = 14  # dimension bits in d2


def test_tfetch_2d_all_options() -> None:
    d0 = 1 | (2 << 5) | (1 << 12) | (0 << 19) | (3 << 20) | (1 << 25) | (0b100100 << 26)
    d1 = (
        0x688
        | (0 << 12)  # mag point
        | (1 << 14)  # min linear
        | (2 << 16)  # mip basemap
        | (3 << 18)  # aniso max4to1
        | (7 << 21)
        | (0 << 24)  # vol mag point
        | (1 << 26)  # vol min linear
        | (0 << 28)  # use_comp_lod = 0
        | (1 << 29)  # use_reg_lod
        | (1 << 31)  # predicated
    )
    d2 = (
        1  # use_reg_gradients
        | (0x78 << 2)  # lod_bias -8 / 16 = -0.5
        | (1 << DIM)  # 2D
        | (3 << 16)  # offset_x 1.5
        | (0x1F << 21)  # offset_y -0.5
        | (2 << 26)  # offset_z: not printed for 2D
        | (1 << 31)  # condition true
    )
    assert one_fetch(d0, d1, d2) == (
        "    (p0) tfetch2D r1, r2.xy, tf3, FetchValidOnly=false, "
        "UnnormalizedTextureCoords=true, MagFilter=point, MinFilter=linear, "
        "MipFilter=basemap, AnisoFilter=max4to1, VolMagFilter=point, VolMinFilter=linear, "
        "UseComputedLOD=false, UseRegisterLOD=true, UseRegisterGradients=true, "
        "LODBias=-0.5, OffsetX=1.5, OffsetY=-0.5\n"
    )


@pytest.mark.parametrize(
    ("opcode", "dim", "swizzle", "text"),
    [
        (1, 0, 0b000000, "tfetch1D r0, r1.x, tf0"),
        (1, 0, 0b000100, "tfetch1D r0, r1.x, tf0"),  # upstream Xenia: always one
        (1, 2, 0b100100, "tfetch3D r0, r1.xyz, tf0"),
        (1, 3, 0b000110, "tfetchCube r0, r1.zyx, tf0"),
        (16, 2, 0b100100, "getBCF3D r0, r1.xyz, tf0"),
        (17, 0, 0b000000, "getCompTexLOD1D r0, r1.x, tf0"),
        (18, 3, 0b100100, "getGradients r0, r1.xy, tf0"),  # always 2 components
        (19, 1, 0b000100, "getWeights2D r0, r1.xy, tf0"),
        (24, 1, 0b000011, "setTexLOD r1.w"),  # no dest, no constant, 1 component
        (25, 0, 0b100100, "setGradientH r1.xyz"),
        (26, 0, 0b100100, "setGradientV r1.xyz"),
    ],
)
def test_texture_opcodes(opcode: int, dim: int, swizzle: int, text: str) -> None:
    d0 = opcode | (1 << 5) | (0 << 12) | (1 << 19) | (swizzle << 26)
    assert one_fetch(d0, TEX_D1, dim << DIM) == "         " + text + "\n"


@pytest.mark.parametrize(
    ("style", "swizzle", "source"),
    [
        # xenia-canary's ParseTextureFetchInstruction (at 92ada8eb) prints two components
        # when the swizzle's X, Y and Z selectors differ (a 1D fetch passing XY for a 2D
        # fetch constant); upstream Xenia prints one (a2xx-isa.md#xenia-flavours).
        ("xenia-canary", 0b000100, "r1.xy"),  # x, y, x: Y differs
        ("xenia-canary", 0b010000, "r1.xx"),  # x, x, y: Z differs; prints selectors 0, 1
        ("xenia-canary", 0b000000, "r1.x"),
        ("xenia", 0b000100, "r1.x"),
        ("xenia", 0b010000, "r1.x"),
    ],
)
def test_tfetch1d_source_width_of_each_xenia(style: str, swizzle: int, source: str) -> None:
    cf = cf_program([exec_clause(EXEC_END, 1, 1, 0b01) | CLEAN, NOP])
    d0 = 1 | (1 << 5) | (1 << 19) | (swizzle << 26)
    text = disassemble([*cf, d0, TEX_D1, 0], "vertex", style=style)
    assert text.splitlines()[1] == f"/*    1   */          tfetch1D r0, {source}, tf0"


def test_texture_aniso_six_and_offset_z() -> None:
    d0 = 1 | (1 << 19) | (0b100100 << 26)
    d1 = (TEX_D1 & ~(7 << 18)) | (6 << 18)
    d2 = (3 << DIM) | (1 << 26)  # cube: OffsetZ printed
    assert one_fetch(d0, d1, d2) == (
        "         tfetchCube r0, r0.xyz, tf0, AnisoFilter=keep, OffsetZ=0.5\n"
    )


def test_texture_reserved_opcode() -> None:
    with pytest.raises(A2xxError, match="opcode 27"):
        one_fetch(27 | (1 << 19), TEX_D1, 0)


# --------------------------------------------------------------------------------------
# Program structure
# --------------------------------------------------------------------------------------


def test_serialize_and_sequence() -> None:
    cf = cf_program([exec_clause(EXEC_END, 1, 2, 0b10_01) | CLEAN, NOP])
    fetch = [1 << 19, 0x688, 0]
    alu = [RETAIN_PREV, 0, MAXV_R0_R0]
    assert xna(cf + fetch + alu) == (
        "/*    0.0 */       exece\n"
        "/*    1   */          vfetch_full r0, r0.x, vf95\n"
        "/*    2   */          serialize\n"
        "                      nop\n"
        "/*    0.1 */       cnop\n"
    )


def test_errors() -> None:
    with pytest.raises(A2xxError, match="no EXEC"):
        xna(cf_program([NOP, NOP]))
    with pytest.raises(A2xxError, match="only 1 slots"):
        xna(cf_program([exec_clause(EXEC_END, 1, 1) | CLEAN, NOP]))
    with pytest.raises(InputError, match="raw"):
        disassemble(cf_program([END, NOP]), "vertex", style="xna", raw=True)
