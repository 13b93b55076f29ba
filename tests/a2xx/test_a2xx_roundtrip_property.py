"""Round trip words -> Mesa text -> words for random words of every opcode (hypothesis).

The words are drawn field by field from the bit tables (a2xx-isa.md#cf, a2xx-isa.md#alu,
a2xx-isa.md#fetch): every field the text shows takes a random value, every other bit the vendor
compiler's value (test_a2xx_syntax_table.py's module docstring lists them).  Such words reassemble
from their plain text; arbitrary words reassemble from the raw listing
(test_a2xx_asm.py::test_raw_listing_reassembles_bit_exact).

Mesa prints a register byte's bits 0-5 and 7 only, so constant bytes with bit 6 set
(C64-C127, C192-C255) are left out of the plain-text property: the text cannot show them.
"""

from __future__ import annotations

import pytest
from a2xx_helpers import EXEC, cf_program, exec_clause, one_instruction
from hypothesis import given, settings
from hypothesis import strategies as st
from test_a2xx_syntax_table import VECTOR

from gpuisa.a2xx import assemble, disassemble

EXAMPLES = settings(max_examples=8, deadline=None)
LEADER = exec_clause(EXEC, 1, 0)
EXEC_FAMILY = {1, 2, 3, 4, 5, 6, 13, 14}
CONDITIONAL_EXECS = {3, 4, 5, 6, 13, 14}


def pack(fields: list[tuple[int, int]]) -> tuple[int, int, int]:
    word = sum(value << lsb for value, lsb in fields)
    return word & 0xFFFFFFFF, word >> 32 & 0xFFFFFFFF, word >> 64


def bit(draw: st.DrawFn) -> int:
    return draw(st.integers(0, 1))


# --------------------------------------------------------------------------------------
# CF clauses (a2xx-isa.md#cf)
# --------------------------------------------------------------------------------------


@st.composite
def cf_clause(draw: st.DrawFn, opcode: int) -> int:
    n = lambda width: draw(st.integers(0, (1 << width) - 1))  # noqa: E731
    fields = [(opcode, 44)]
    if opcode in EXEC_FAMILY:  # count 0: no instruction follows
        fields += [(n(9), 0), (bit(draw), 15), (n(6), 28), (n(8), 34), (bit(draw), 43)]
        if opcode in CONDITIONAL_EXECS:
            fields.append((bit(draw), 42))
    elif opcode in (7, 8):  # loops: ADDR LOOP_ID [ABSOLUTE_ADDR]
        fields += [(n(10), 0), (n(5), 16), (bit(draw), 43)]
    elif opcode in (9, 10, 11):  # ADDR DIR [FORCE_CALL] [COND] [BOOL_ADDR] [ABSOLUTE_ADDR]
        predicated = bit(draw)
        fields += [(n(10), 0), (bit(draw), 13), (predicated, 14), (bit(draw), 33)]
        fields += [(n(8), 34), (predicated and bit(draw), 42), (bit(draw), 43)]
    elif opcode == 12:  # ALLOC
        fields += [(n(4), 0), (bit(draw), 40), (n(2), 41), (bit(draw), 43)]
    return sum(value << lsb for value, lsb in fields)


@pytest.mark.parametrize("opcode", range(16))
@EXAMPLES
@given(data=st.data())
def test_cf_clause_plain_round_trip(opcode: int, data: st.DataObject) -> None:
    words = cf_program([LEADER, data.draw(cf_clause(opcode))])
    assert assemble(disassemble(words, "vertex")) == words


# --------------------------------------------------------------------------------------
# ALU slots (a2xx-isa.md#alu)
# --------------------------------------------------------------------------------------


@st.composite
def alu_source(draw: st.DrawFn) -> tuple[int, int, int, int]:
    """(register byte, sel, swizzle, negate) that Mesa's text shows completely."""
    sel = bit(draw)
    reg = draw(st.integers(0, 63)) | bit(draw) << 7
    return reg, sel, draw(st.integers(0, 255)), bit(draw)


@st.composite
def alu_slot(draw: st.DrawFn, vector_op: int, scalar_op: int | None) -> tuple[int, int, int]:
    srcs = VECTOR[vector_op][1]
    vmask = draw(st.integers(0, 15))
    smask = draw(st.integers(0, 15)) if scalar_op is not None else 0
    if scalar_op is None:
        vmask = vmask or 1  # else Mesa prints the scalar line
    elif not smask:
        vmask = 0  # the scalar line is printed only then
    src1 = draw(alu_source())
    src2 = draw(alu_source()) if srcs > 1 else src1  # vendor: one source repeats src1
    shown3 = srcs == 3 or scalar_op is not None
    src3 = draw(alu_source()) if shown3 else (0, 1, 0, 0)  # vendor: unused src3 is R0
    predicated = bit(draw)
    fields = [
        (draw(st.integers(0, 63)), 0),  # vector_dest
        (draw(st.integers(0, 63)) if scalar_op is not None else 0, 8),  # scalar_dest
        (bit(draw), 15),  # export_data
        (vmask, 16),
        (smask, 20),
        (bit(draw), 24),  # vector clamp
        ((bit(draw) if scalar_op is not None else 0), 25),
        (5 if scalar_op is None else scalar_op, 26),  # vendor: MAXs without a scalar line
        (predicated and bit(draw), 59),
        (predicated, 60),
        (vector_op, 88),
    ]
    # a2xx-isa.md#alu-layout: src3, src2, src1 from low to high in each of d1 (swizzle, negate) and
    # d2 (register byte, sel).
    for k, (reg, sel, swiz, negate) in enumerate((src3, src2, src1)):
        fields += [(swiz, 32 + 8 * k), (negate, 56 + k), (reg, 64 + 8 * k), (sel, 93 + k)]
    return pack(fields)


@pytest.mark.parametrize("vector_op", range(32))
@EXAMPLES
@given(data=st.data())
def test_vector_opcode_plain_round_trip(vector_op: int, data: st.DataObject) -> None:
    scalar_op = data.draw(st.one_of(st.none(), st.integers(0, 63)))
    slot = data.draw(alu_slot(vector_op, scalar_op))
    words = one_instruction(slot, fetch=False, serialize=data.draw(st.booleans()))
    assert assemble(disassemble(words, "fragment")) == words


@pytest.mark.parametrize("scalar_op", range(64))
@EXAMPLES
@given(data=st.data())
def test_scalar_opcode_plain_round_trip(scalar_op: int, data: st.DataObject) -> None:
    slot = data.draw(alu_slot(data.draw(st.integers(0, 31)), scalar_op))
    words = one_instruction(slot, fetch=False, serialize=data.draw(st.booleans()))
    assert assemble(disassemble(words, "vertex")) == words


# --------------------------------------------------------------------------------------
# Fetch slots (a2xx-isa.md#fetch)
# --------------------------------------------------------------------------------------


@st.composite
def vertex_fetch(draw: st.DrawFn) -> tuple[int, int, int]:
    n = lambda width: draw(st.integers(0, (1 << width) - 1))  # noqa: E731
    predicated = bit(draw)
    return pack(
        [
            (n(6), 5),  # src_reg
            (n(6), 12),  # dst_reg
            (1, 19),  # vendor: must_be_one
            (n(5), 20),  # const_index
            (n(2), 25),  # const_index_sel
            (3, 27),  # vendor: the first fetch's prefetch count
            (n(2), 30),  # src swizzle
            (n(12), 32),  # dst swizzle
            (bit(draw), 44),  # SIGNED
            (bit(draw), 45),  # not NORMALIZED
            (n(6), 48),  # format
            (predicated, 63),
            (n(8), 64),  # stride
            (n(22), 72),  # offset
            (predicated and bit(draw), 95),
        ]
    )


@st.composite
def texture_fetch(draw: st.DrawFn, opcode: int) -> tuple[int, int, int]:
    n = lambda width: draw(st.integers(0, (1 << width) - 1))  # noqa: E731
    filter3 = lambda: draw(st.sampled_from([0, 1, 2, 3, 4, 5, 7]))  # noqa: E731  (6 reserved)
    comp_lod = bit(draw)
    predicated = bit(draw)
    return pack(
        [
            (opcode, 0),
            (n(6), 5),
            (n(6), 12),
            (bit(draw), 19),  # VALID_ONLY
            (n(5), 20),  # const_idx
            (bit(draw), 25),  # DENORM
            (n(6), 26),  # src swizzle
            (n(12), 32),  # dst swizzle
            (n(2), 44),
            (n(2), 46),
            (n(2), 48),  # mag/min/mip filters (3 = fetch constant, not printed)
            (filter3(), 50),  # aniso
            (filter3(), 53),  # arbitrary
            (n(2), 56),
            (n(2), 58),  # volume filters
            (comp_lod, 60),
            (n(2), 61),  # use_reg_lod
            (predicated, 63),
            (bit(draw), 64),  # USE_REG_GRADIENTS
            (bit(draw), 65),  # location
            (0 if comp_lod else n(7), 66),  # lod_bias, printed only without use_comp_lod
            (n(5), 80),
            (n(5), 85),
            (n(5), 90),  # offsets
            (predicated and bit(draw), 95),
        ]
    )


@pytest.mark.parametrize("opcode", [0, 1, 24])  # the fetches Mesa names (others print "?")
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_fetch_plain_round_trip(opcode: int, data: st.DataObject) -> None:
    slot = data.draw(vertex_fetch() if opcode == 0 else texture_fetch(opcode))
    words = one_instruction(slot, fetch=True, serialize=data.draw(st.booleans()))
    assert assemble(disassemble(words, "vertex")) == words
