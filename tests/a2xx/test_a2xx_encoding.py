"""Encoding: hand-built words decode to a2xx-isa.md's field values; decode -> encode is exact."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from a2xx_helpers import cf_slot
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuisa.a2xx import encoding as enc
from gpuisa.a2xx import isa
from gpuisa.errors import EncodingError, InputError

# --------------------------------------------------------------------------------------
# Hand-built words
# --------------------------------------------------------------------------------------


def test_exec_clause_fields() -> None:
    clause = (
        (0x1A3 << 0)  # address (9 bits)
        | (0b101 << 9)  # reserved bits 9-11 (Xenia's wider address)
        | (6 << 12)  # count
        | (1 << 15)  # yield
        | (0b10_01_11 << 16)  # sequence: fetch+serialize, fetch, serialize
        | (0x2A << 28)  # vc
        | (0x81 << 34)  # bool_addr
        | (1 << 42)  # condition
        | (1 << 43)  # address_mode = absolute
        | (3 << 44)  # COND_EXEC
    )
    rec = enc.decode_cf(clause)
    assert rec == enc.CfExec(
        opcode=isa.CfOpcode.COND_EXEC,
        address=0x1A3,
        count=6,
        is_yield=1,
        serialize=0b100111,
        vc=0x2A,
        bool_addr=0x81,
        condition=1,
        address_mode=isa.AddressMode.ABSOLUTE,
        reserved=0b101 << 9,
    )
    assert [rec.is_fetch(i) for i in range(4)] == [True, True, False, False]
    assert [rec.is_serialized(i) for i in range(4)] == [True, False, True, False]
    assert enc.encode(rec) == clause


def test_loop_jump_alloc_fields() -> None:
    loop = (0x3FF << 0) | (1 << 13) | (31 << 16) | (1 << 21) | (1 << 42) | (8 << 44)
    assert enc.decode_cf(loop) == enc.CfLoop(
        opcode=isa.CfOpcode.LOOP_END,
        address=0x3FF,
        is_repeat=1,
        loop_id=31,
        is_predicated_break=1,
        condition=1,
    )
    jmp = (5 << 0) | (1 << 13) | (1 << 14) | (1 << 33) | (0xFE << 34) | (11 << 44)
    assert enc.decode_cf(jmp) == enc.CfJmpCall(
        opcode=isa.CfOpcode.COND_JMP,
        address=5,
        force_call=1,
        predicated_jmp=1,
        direction=1,
        bool_addr=0xFE,
    )
    alloc = (0xF << 0) | (1 << 40) | (2 << 41) | (1 << 43) | (12 << 44)
    assert enc.decode_cf(alloc) == enc.CfAlloc(
        size=15, no_serial=1, buffer_select=isa.AllocBuffer.PARAM_PIXEL, alloc_mode=1
    )
    assert enc.decode_cf(15 << 44) == enc.CfNop(opcode=isa.CfOpcode.MARK_VS_FETCH_DONE)


def test_alu_fields() -> None:
    d0 = (
        (62 << 0)  # vector_dest
        | (1 << 7)  # abs_constants
        | (5 << 8)  # scalar_dest
        | (1 << 15)  # export_data
        | (0b0111 << 16)  # vector_write_mask
        | (0b1000 << 20)  # scalar_write_mask
        | (1 << 24)  # vector_clamp
        | (19 << 26)  # scalar_opc RECIP_IEEE
    )
    d1 = (0x1B << 0) | (0x6C << 16) | (1 << 26) | (1 << 27) | (1 << 28) | (1 << 31)
    d2 = (0x85 << 0) | (0x41 << 8) | (200 << 16) | (11 << 24) | (1 << 29) | (1 << 30)
    rec = enc.decode_alu(enc.slot_from_dwords(d0, d1, d2))
    assert rec.vector_dest == 62 and rec.abs_constants == 1 and rec.scalar_dest == 5
    assert rec.export_data == 1 and rec.vector_write_mask == 7 and rec.scalar_write_mask == 8
    assert rec.vector_clamp == 1 and rec.scalar_clamp == 0
    assert rec.scalar_opc is isa.ScalarOpcode.RECIP_IEEE
    assert rec.src3_swiz == 0x1B and rec.src2_swiz == 0 and rec.src1_swiz == 0x6C
    assert (rec.src1_reg_negate, rec.pred_condition, rec.pred_select) == (1, 1, 1)
    assert (rec.const_0_rel_abs, rec.const_1_rel_abs, rec.relative_addr) == (1, 0, 0)
    assert (rec.src3_reg, rec.src2_reg, rec.src1_reg) == (0x85, 0x41, 200)
    assert rec.vector_opc is isa.VectorOpcode.MULADDv
    assert (rec.src3_sel, rec.src2_sel, rec.src1_sel) == (1, 1, 0)
    assert enc.slot_to_dwords(enc.encode(rec)) == (d0, d1, d2)


def test_unknown_alu_opcodes_stay_ints() -> None:
    d0 = 41 << 26  # scalar opcode 41: unused
    d2 = 30 << 24  # vector opcode 30: unused
    rec = enc.decode_alu(enc.slot_from_dwords(d0, 0, d2))
    assert rec.vector_opc == 30 and not isinstance(rec.vector_opc, isa.VectorOpcode)
    assert rec.scalar_opc == 41 and not isinstance(rec.scalar_opc, isa.ScalarOpcode)
    assert rec.vector_info is None and rec.scalar_info is None
    assert enc.encode(rec) == enc.slot_from_dwords(d0, 0, d2)


def test_vertex_fetch_fields() -> None:
    d0 = (0 << 0) | (3 << 5) | (7 << 12) | (1 << 19) | (20 << 20) | (2 << 25) | (2 << 27)
    d0 |= 1 << 30  # src_swiz = y
    d1 = 0xA88 | (1 << 12) | (57 << 16) | (0b11 << 22) | (0x3F << 24) | (1 << 30)
    d2 = 12 | (0x3FFFFF << 8) | (1 << 30)
    rec = enc.decode_fetch(enc.slot_from_dwords(d0, d1, d2))
    assert isinstance(rec, enc.VertexFetch)
    assert (rec.src_reg, rec.dst_reg, rec.must_be_one) == (3, 7, 1)
    assert (rec.const_index, rec.const_index_sel, rec.prefetch_count, rec.src_swiz) == (20, 2, 2, 1)
    assert (rec.dst_swiz, rec.format_comp_all, rec.format) == (0xA88, 1, 57)
    assert rec.format is isa.SurfaceFormat.FMT_32_32_32_FLOAT
    assert (rec.exp_adjust_all, rec.is_mini_fetch, rec.stride, rec.offset) == (63, 1, 12, 0x3FFFFF)
    # d1.22-23 and d2.30 are reserved: kept in place
    assert rec.reserved == (0b11 << 54) | (1 << 94)
    assert enc.slot_to_dwords(enc.encode(rec)) == (d0, d1, d2)


def test_texture_fetch_fields() -> None:
    d0 = 24 | (1 << 5) | (2 << 12) | (1 << 19) | (31 << 20) | (1 << 25) | (0b100100 << 26)
    d1 = 0x688 | (1 << 12) | (2 << 14) | (3 << 16) | (5 << 18) | (7 << 21) | (2 << 29)
    d2 = 1 | (1 << 1) | (0x7F << 2) | (0b11 << 14) | (3 << 16) | (1 << 31)
    rec = enc.decode_fetch(enc.slot_from_dwords(d0, d1, d2))
    assert isinstance(rec, enc.TextureFetch)
    assert rec.opcode is isa.FetchOpcode.TEX_SET_TEX_LOD
    assert (rec.const_idx, rec.tx_coord_denorm, rec.src_swiz) == (31, 1, 0b100100)
    assert rec.mag_filter is isa.TexFilter.LINEAR and rec.min_filter is isa.TexFilter.BASEMAP
    assert rec.mip_filter is isa.TexFilter.USE_FETCH_CONST
    assert rec.aniso_filter is isa.AnisoFilter.MAX_16_1
    assert rec.arbitrary_filter is isa.ArbitraryFilter.USE_FETCH_CONST
    assert (rec.use_reg_lod, rec.use_reg_gradients, rec.sample_location) == (2, 1, 1)
    assert (rec.lod_bias, rec.dimension, rec.offset_x, rec.pred_condition) == (0x7F, 3, 3, 1)
    assert isa.sign_extend(rec.lod_bias, 7) == -1
    assert enc.slot_to_dwords(enc.encode(rec)) == (d0, d1, d2)


def test_undefined_fetch_opcode() -> None:
    with pytest.raises(EncodingError, match="fetch opcode 5"):
        enc.decode_fetch(5)


def test_cf_slot_split_join() -> None:
    a = 0x123456789ABC
    b = 0xFEDCBA987654
    d0, d1, d2 = cf_slot(a, b)
    slot = enc.slot_from_dwords(d0, d1, d2)
    assert enc.split_cf_slot(slot) == (a, b)
    assert enc.join_cf_slot(a, b) == slot


# --------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------


def test_encode_rejects_values_that_do_not_fit() -> None:
    with pytest.raises(EncodingError, match="count"):
        enc.encode(enc.CfExec(count=8))
    with pytest.raises(EncodingError, match="vector_dest"):
        enc.encode(enc.AluInstruction(vector_dest=-1))
    with pytest.raises(EncodingError, match="must be an integer"):
        enc.encode(enc.AluInstruction(src1_reg="R1"))  # type: ignore[arg-type]


def test_encode_rejects_opcode_of_another_layout() -> None:
    with pytest.raises(EncodingError, match="opcode 12"):
        enc.encode(enc.CfExec(opcode=isa.CfOpcode.ALLOC))
    with pytest.raises(EncodingError):
        enc.encode(enc.VertexFetch(opcode=isa.FetchOpcode.TEX_FETCH))
    with pytest.raises(EncodingError):
        enc.encode(enc.TextureFetch(opcode=3))
    with pytest.raises(InputError):
        enc.encode(object())  # type: ignore[arg-type]


def test_encode_rejects_reserved_bits_over_fields() -> None:
    with pytest.raises(EncodingError, match="reserved"):
        enc.encode(enc.CfExec(reserved=1))  # bit 0 is the address
    assert enc.encode(enc.CfExec(reserved=1 << 10)) == (1 << 10) | (1 << 44)


def test_decode_rejects_out_of_range_words() -> None:
    with pytest.raises(EncodingError):
        enc.decode_cf(1 << 48)
    with pytest.raises(EncodingError):
        enc.decode_alu(-1)


def test_slots_from_words() -> None:
    assert enc.slots_from_words([1, 2, 3]) == [1 | 2 << 32 | 3 << 64]
    assert enc.slots_from_words(np.array([1, 2, 3], dtype=np.uint32)) == [1 | 2 << 32 | 3 << 64]
    with pytest.raises(InputError, match="4 dwords"):
        enc.slots_from_words([0, 0, 0, 0])
    with pytest.raises(InputError, match="dword 1"):
        enc.slots_from_words([0, 1 << 32, 0])
    with pytest.raises(InputError, match="dword 2"):
        enc.slots_from_words([0, 0, 1.5])  # type: ignore[list-item]
    assert enc.words_from_slots([1 | 2 << 32 | 3 << 64]) == [1, 2, 3]


def test_bytes() -> None:
    assert enc.words_from_bytes(bytes([1, 0, 0, 0, 0, 0, 0, 0x80])) == [1, 0x80000000]
    assert enc.words_to_bytes([1, 0x80000000]) == bytes([1, 0, 0, 0, 0, 0, 0, 0x80])
    with pytest.raises(InputError, match="5 bytes"):
        enc.words_from_bytes(b"12345")
    with pytest.raises(InputError):
        enc.words_to_bytes([1 << 32])


# --------------------------------------------------------------------------------------
# Round trips
# --------------------------------------------------------------------------------------

BITS48 = st.integers(0, (1 << 48) - 1)
BITS96 = st.integers(0, (1 << 96) - 1)


@settings(max_examples=40, deadline=None)
@given(opcode=st.sampled_from(list(isa.CfOpcode)), rest=BITS48)
def test_cf_round_trip(opcode: isa.CfOpcode, rest: int) -> None:
    clause = (rest & ~(0xF << 44)) | (opcode << 44)
    rec = enc.decode_cf(clause)
    assert rec.opcode is opcode
    assert enc.encode(rec) == clause
    assert enc.decode_cf(enc.encode(dataclasses.replace(rec))) == rec


@pytest.mark.parametrize("opcode", list(range(32)))
@settings(max_examples=15, deadline=None)
@given(rest=BITS96)
def test_alu_round_trip_vector(opcode: int, rest: int) -> None:
    slot = (rest & ~(0x1F << 88)) | (opcode << 88)
    rec = enc.decode_alu(slot)
    assert rec.vector_opc == opcode
    assert enc.encode(rec) == slot


@pytest.mark.parametrize("opcode", list(range(64)))
@settings(max_examples=8, deadline=None)
@given(rest=BITS96)
def test_alu_round_trip_scalar(opcode: int, rest: int) -> None:
    slot = (rest & ~(0x3F << 26)) | (opcode << 26)
    rec = enc.decode_alu(slot)
    assert rec.scalar_opc == opcode
    assert enc.encode(rec) == slot


@pytest.mark.parametrize("opcode", list(isa.FetchOpcode))
@settings(max_examples=25, deadline=None)
@given(rest=BITS96)
def test_fetch_round_trip(opcode: isa.FetchOpcode, rest: int) -> None:
    slot = (rest & ~0x1F) | opcode
    rec = enc.decode_fetch(slot)
    assert rec.opcode is opcode
    expected = enc.VertexFetch if opcode == 0 else enc.TextureFetch
    assert type(rec) is expected
    assert enc.encode(rec) == slot


@settings(max_examples=40, deadline=None)
@given(a=BITS48, b=BITS48)
def test_cf_slot_round_trip(a: int, b: int) -> None:
    slot = enc.slot_from_dwords(*cf_slot(a, b))
    assert enc.split_cf_slot(slot) == (a, b)
    assert enc.join_cf_slot(a, b) == slot
