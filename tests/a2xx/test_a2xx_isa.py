"""The ISA tables against a2xx-isa.md's tables (a2xx-isa.md#cf, a2xx-isa.md#alu,
a2xx-isa.md#fetch)."""

from __future__ import annotations

from enum import IntEnum

import pytest

from gpuisa.a2xx import isa
from gpuisa.bits import Layout
from gpuisa.errors import IsaTableError

# a2xx-isa.md#cf-opcodes
CF_NAMES = [
    "NOP", "EXEC", "EXEC_END", "COND_EXEC", "COND_EXEC_END", "COND_PRED_EXEC",
    "COND_PRED_EXEC_END", "LOOP_START", "LOOP_END", "COND_CALL", "RETURN", "COND_JMP",
    "ALLOC", "COND_EXEC_PRED_CLEAN", "COND_EXEC_PRED_CLEAN_END", "MARK_VS_FETCH_DONE",
]  # fmt: skip

# a2xx-isa.md#vector-ops: number, Adreno name, XNA name, sources printed by Mesa
VECTOR = [
    (0, "ADDv", "add", 2), (1, "MULv", "mul", 2), (2, "MAXv", "max", 2),
    (3, "MINv", "min", 2), (4, "SETEv", "seq", 2), (5, "SETGTv", "sgt", 2),
    (6, "SETGTEv", "sge", 2), (7, "SETNEv", "sne", 2), (8, "FRACv", "frc", 1),
    (9, "TRUNCv", "trunc", 1), (10, "FLOORv", "floor", 1), (11, "MULADDv", "mad", 3),
    (12, "CNDEv", "cndeq", 3), (13, "CNDGTEv", "cndge", 3), (14, "CNDGTv", "cndgt", 3),
    (15, "DOT4v", "dp4", 2), (16, "DOT3v", "dp3", 2), (17, "DOT2ADDv", "dp2add", 3),
    (18, "CUBEv", "cube", 2), (19, "MAX4v", "max4", 1),
    (20, "PRED_SETE_PUSHv", "setp_eq_push", 2), (21, "PRED_SETNE_PUSHv", "setp_ne_push", 2),
    (22, "PRED_SETGT_PUSHv", "setp_gt_push", 2), (23, "PRED_SETGTE_PUSHv", "setp_ge_push", 2),
    (24, "KILLEv", "kill_eq", 2), (25, "KILLGTv", "kill_gt", 2), (26, "KILLGTEv", "kill_ge", 2),
    (27, "KILLNEv", "kill_ne", 2), (28, "DSTv", "dst", 2), (29, "MOVAv", "maxa", 1),
]  # fmt: skip

# a2xx-isa.md#scalar-ops: number, Adreno name, XNA name
SCALAR = [
    (0, "ADDs", "adds"), (1, "ADD_PREVs", "adds_prev"), (2, "MULs", "muls"),
    (3, "MUL_PREVs", "muls_prev"), (4, "MUL_PREV2s", "muls_prev2"), (5, "MAXs", "maxs"),
    (6, "MINs", "mins"), (7, "SETEs", "seqs"), (8, "SETGTs", "sgts"), (9, "SETGTEs", "sges"),
    (10, "SETNEs", "snes"), (11, "FRACs", "frcs"), (12, "TRUNCs", "truncs"),
    (13, "FLOORs", "floors"), (14, "EXP_IEEE", "exp"), (15, "LOG_CLAMP", "logc"),
    (16, "LOG_IEEE", "log"), (17, "RECIP_CLAMP", "rcpc"), (18, "RECIP_FF", "rcpf"),
    (19, "RECIP_IEEE", "rcp"), (20, "RECIPSQ_CLAMP", "rsqc"), (21, "RECIPSQ_FF", "rsqf"),
    (22, "RECIPSQ_IEEE", "rsq"), (23, "MOVAs", "maxas"), (24, "MOVA_FLOORs", "maxasf"),
    (25, "SUBs", "subs"), (26, "SUB_PREVs", "subs_prev"), (27, "PRED_SETEs", "setp_eq"),
    (28, "PRED_SETNEs", "setp_ne"), (29, "PRED_SETGTs", "setp_gt"),
    (30, "PRED_SETGTEs", "setp_ge"), (31, "PRED_SET_INVs", "setp_inv"),
    (32, "PRED_SET_POPs", "setp_pop"), (33, "PRED_SET_CLRs", "setp_clr"),
    (34, "PRED_SET_RESTOREs", "setp_rstr"), (35, "KILLEs", "kills_eq"),
    (36, "KILLGTs", "kills_gt"), (37, "KILLGTEs", "kills_ge"), (38, "KILLNEs", "kills_ne"),
    (39, "KILLONEs", "kills_one"), (40, "SQRT_IEEE", "sqrt"), (42, "MUL_CONST_0", "mulsc"),
    (43, "MUL_CONST_1", "mulsc"), (44, "ADD_CONST_0", "addsc"), (45, "ADD_CONST_1", "addsc"),
    (46, "SUB_CONST_0", "subsc"), (47, "SUB_CONST_1", "subsc"), (48, "SIN", "sin"),
    (49, "COS", "cos"), (50, "RETAIN_PREV", "retain_prev"),
]  # fmt: skip

# a2xx-isa.md#fetch
FETCH = [
    (0, "VTX_FETCH"), (1, "TEX_FETCH"), (16, "TEX_GET_BORDER_COLOR_FRAC"),
    (17, "TEX_GET_COMP_TEX_LOD"), (18, "TEX_GET_GRADIENTS"), (19, "TEX_GET_WEIGHTS"),
    (24, "TEX_SET_TEX_LOD"), (25, "TEX_SET_GRADIENTS_H"), (26, "TEX_SET_GRADIENTS_V"),
    (27, "TEX_RESERVED_4"),
]  # fmt: skip


def test_cf_opcodes() -> None:
    assert [(op.value, op.name) for op in isa.CfOpcode] == list(enumerate(CF_NAMES))
    exec_like = {1, 2, 3, 4, 5, 6, 13, 14}  # a2xx-isa.md#program: EXEC-type opcodes
    assert {op for op, info in isa.CF_OPS.items() if info.is_exec} == exec_like
    # a2xx-isa.md#mesa-cf: COND(%d) is printed for 3, 4, 5, 6, 13, 14
    conditional = {op for op, i in isa.CF_OPS.items() if i.condition is not isa.ExecCondition.NONE}
    assert conditional == {3, 4, 5, 6, 13, 14}
    assert {op for op, info in isa.CF_OPS.items() if info.ends} == {2, 4, 6, 14}


def test_vector_opcodes() -> None:
    got = [(i.opcode.value, i.name, i.xna, i.mesa_srcs) for i in isa.VECTOR_OPS.values()]
    assert got == VECTOR
    assert {30, 31} == isa.VECTOR_UNUSED


def test_scalar_opcodes() -> None:
    assert [(i.opcode.value, i.name, i.xna) for i in isa.SCALAR_OPS.values()] == SCALAR
    assert {41, *range(51, 64)} == isa.SCALAR_UNUSED


def test_fetch_opcodes() -> None:
    assert [(op.value, op.name) for op in isa.FetchOpcode] == FETCH
    mesa = {op.value: info.mesa for op, info in isa.FETCH_OPS.items()}
    # a2xx-isa.md#mesa-fetch: VERTEX (0), SAMPLE (1), SET_TEX_LOD (24), "?" for the other texture
    # opcodes
    assert mesa == {0: "VERTEX", 1: "SAMPLE", 24: "SET_TEX_LOD"} | {
        n: "?" for n in (16, 17, 18, 19, 25, 26, 27)
    }


def test_surface_formats_spot_checks() -> None:
    # a2xx-isa.md#formats table, a sample from each column, and the hole at 21
    assert isa.SurfaceFormat(0).name == "FMT_1_REVERSE"
    assert isa.SurfaceFormat(20).name == "FMT_DXT4_5"
    assert isa.SurfaceFormat(22).name == "FMT_24_8"
    assert isa.SurfaceFormat(38).name == "FMT_32_32_32_32_FLOAT"
    assert isa.SurfaceFormat(57).name == "FMT_32_32_32_FLOAT"
    assert isa.SurfaceFormat(61).name == "FMT_DXT3A_AS_1_1_1_1"
    assert 21 not in {f.value for f in isa.SurfaceFormat}
    assert len(isa.SurfaceFormat) == 61


@pytest.mark.parametrize(
    ("layout", "name", "dword", "bit", "width"),
    [
        # a2xx-isa.md#alu-layout, "dN.b" = bit b of dword N
        (isa.ALU_LAYOUT, "scalar_dest", 0, 8, 6),
        (isa.ALU_LAYOUT, "export_data", 0, 15, 1),
        (isa.ALU_LAYOUT, "scalar_opc", 0, 26, 6),
        (isa.ALU_LAYOUT, "src1_swiz", 1, 16, 8),
        (isa.ALU_LAYOUT, "pred_condition", 1, 27, 1),
        (isa.ALU_LAYOUT, "pred_select", 1, 28, 1),
        (isa.ALU_LAYOUT, "const_0_rel_abs", 1, 31, 1),
        (isa.ALU_LAYOUT, "src2_reg", 2, 8, 8),
        (isa.ALU_LAYOUT, "vector_opc", 2, 24, 5),
        (isa.ALU_LAYOUT, "src1_sel", 2, 31, 1),
        # a2xx-isa.md#vertex-fetch
        (isa.VERTEX_FETCH_LAYOUT, "const_index_sel", 0, 25, 2),
        (isa.VERTEX_FETCH_LAYOUT, "format", 1, 16, 6),
        (isa.VERTEX_FETCH_LAYOUT, "exp_adjust_all", 1, 24, 6),
        (isa.VERTEX_FETCH_LAYOUT, "offset", 2, 8, 22),
        # a2xx-isa.md#texture-fetch
        (isa.TEXTURE_FETCH_LAYOUT, "src_swiz", 0, 26, 6),
        (isa.TEXTURE_FETCH_LAYOUT, "aniso_filter", 1, 18, 3),
        (isa.TEXTURE_FETCH_LAYOUT, "use_reg_lod", 1, 29, 2),
        (isa.TEXTURE_FETCH_LAYOUT, "lod_bias", 2, 2, 7),
        (isa.TEXTURE_FETCH_LAYOUT, "offset_z", 2, 26, 5),
    ],
)
def test_slot_field_positions(layout: Layout, name: str, dword: int, bit: int, width: int) -> None:
    assert (layout[name].lsb, layout[name].width) == (32 * dword + bit, width)


@pytest.mark.parametrize(
    ("kind", "name", "lsb", "width"),
    [
        (isa.CfKind.EXEC, "count", 12, 3),  # a2xx-isa.md#cf-exec
        (isa.CfKind.EXEC, "serialize", 16, 12),
        (isa.CfKind.EXEC, "bool_addr", 34, 8),
        (isa.CfKind.LOOP, "loop_id", 16, 5),  # a2xx-isa.md#cf-loop
        (isa.CfKind.JMP_CALL, "direction", 33, 1),  # a2xx-isa.md#cf-call-jmp
        (isa.CfKind.JMP_CALL, "predicated_jmp", 14, 1),
        (isa.CfKind.ALLOC, "buffer_select", 41, 2),  # a2xx-isa.md#cf-alloc
        (isa.CfKind.ALLOC, "size", 0, 4),
    ],
)
def test_cf_field_positions(kind: isa.CfKind, name: str, lsb: int, width: int) -> None:
    layout = isa.CF_LAYOUTS[kind]
    assert (layout[name].lsb, layout[name].width) == (lsb, width)
    assert (layout["opcode"].lsb, layout["opcode"].width) == (44, 4)


def test_unused_bits() -> None:
    assert isa.ALU_LAYOUT.unused_mask == 0
    # vertex fetch: d1.22-23 (reserved2) and d2.30 (reserved4)
    assert isa.VERTEX_FETCH_LAYOUT.unused_mask == (0b11 << 54) | (1 << 94)
    # texture fetch: d2.9-13 (d2.14-15 are Xenia's dimension)
    assert isa.TEXTURE_FETCH_LAYOUT.unused_mask == 0b11111 << 73
    # EXEC: bits 9-11 above Mesa's 9-bit address
    assert isa.CF_LAYOUTS[isa.CfKind.EXEC].unused_mask == 0b111 << 9


@pytest.mark.parametrize(
    ("text", "field"), [("xxxx", 0x6C), ("yyyy", 0xB1), ("zzzz", 0xC6), ("wwww", 0x1B), ("xyzw", 0)]
)
def test_alu_swizzle_examples(text: str, field: int) -> None:
    comps = tuple("xyzw".index(c) for c in text)
    assert isa.alu_swizzle_field(comps) == field
    assert isa.alu_swizzle_components(field) == comps


def test_fetch_dst_identity() -> None:
    # a2xx-isa.md#swizzles: identity 0x688; selectors 3 bits per channel
    assert isa.FETCH_DST_IDENTITY == (0 | 1 << 3 | 2 << 6 | 3 << 9)
    assert isa.FETCH_DST_CHARS == "xyzw01?_"


def test_sign_extend() -> None:
    assert isa.sign_extend(0b11111, 5) == -1
    assert isa.sign_extend(0b10000, 5) == -16
    assert isa.sign_extend(0b01111, 5) == 15


class _Partial(IntEnum):
    A = 0
    B = 1


def test_coverage_check_rejects_missing_values() -> None:
    with pytest.raises(IsaTableError, match="neither defined nor unused"):
        isa._check_coverage("partial", _Partial, None, frozenset(), 2)
    with pytest.raises(IsaTableError, match="both defined and declared unused"):
        isa._check_coverage("clash", _Partial, None, frozenset({1, 2, 3}), 2)
    isa._check_coverage("complete", _Partial, None, frozenset({2, 3}), 2)


def test_coverage_check_rejects_missing_table_entries() -> None:
    with pytest.raises(IsaTableError, match="without a table entry"):
        isa._check_coverage("t", _Partial, {_Partial.A: object()}, frozenset({2, 3}), 2)


def test_overlapping_layout_rejected() -> None:
    with pytest.raises(IsaTableError, match="overlaps"):
        Layout("bad", [("a", 0, 9), ("b", 8, 4)], 48)
