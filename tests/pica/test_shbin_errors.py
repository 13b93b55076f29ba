"""Malformed SHBINs raise ShbinError at the right offset and field; warnings; writer checks.

Offsets in sample A (see test_shbin_picasso): DVLP at 0x14, DVLEs at 0x78, 0x190, 0x220;
DVLE 0 tables: constants 0xB8, outputs 0x108, uniforms 0x128, symbols 0x158 (54 bytes).
The file is 608 bytes.
"""

from __future__ import annotations

import struct

import pytest
from shbin_testutil import DvleFields
from test_shbin_picasso import EXPECTED_A, SAMPLE_A, picasso_shbin

from gpuisa.errors import EncodingError, ShbinError
from gpuisa.pica.program import Program
from gpuisa.pica.shbin import (
    Constant,
    ConstantKind,
    Dvle,
    OutputEntry,
    Shbin,
    Uniform,
)

D0 = 0x78  # DVLE 0


def patched(offset: int, fmt: str, *values: int, data: bytes = SAMPLE_A) -> bytes:
    out = bytearray(data)
    struct.pack_into(fmt, out, offset, *values)
    return bytes(out)


def test_sample_offsets():
    assert len(SAMPLE_A) == 608
    assert struct.unpack_from("<3I", SAMPLE_A, 8) == (0x78, 0x190, 0x220)
    assert struct.unpack_from("<10I", SAMPLE_A, D0 + 0x18) == (
        0x40,
        4,
        0x90,
        0,
        0x90,
        4,
        0xB0,
        6,
        0xE0,
        54,
    )


CASES = [
    # (data, offset, field, message fragment)
    (b"", 0, "DVLB", "0 bytes, too short"),
    (SAMPLE_A[:7], 0, "DVLB", "7 bytes, too short"),
    (b"DVLX" + SAMPLE_A[4:], 0, "DVLB.magic", "expected b'DVLB'"),
    (
        patched(4, "<I", 0xFFFFFFFF),
        4,
        "DVLB.dvle_count",
        "4294967295 DVLE offsets of 4 bytes do not fit in the 608-byte file",
    ),
    (SAMPLE_A[:0x20], 4, "DVLB.dvle_count", "DVLP header at 0x14..0x30 extends past"),
    (patched(0x14, "<4s", b"XXXX"), 0x14, "DVLP.magic", "expected b'DVLP'"),
    (
        patched(0x20, "<I", 0x40000000),
        0x20,
        "DVLP.code_count",
        "1073741824 entries of 4 bytes do not fit",
    ),
    (patched(0x24, "<I", 0x1000), 0x24, "DVLP.opdesc_offset", "extends past the end"),
    (patched(0x1C, "<I", 0x2A), 0x1C, "DVLP.code_offset", "not a multiple of 4"),
    (patched(0xC, "<I", 0x1000), 0xC, "DVLB.dvle_offset[1]", "DVLE header at 0x1000"),
    (patched(0x8, "<I", 0x7A), 0x8, "DVLB.dvle_offset[0]", "not a multiple of 4"),
    (patched(0x220, "<4s", b"DVLX"), 0x220, "DVLE[2].magic", "expected b'DVLE'"),
    (
        patched(D0 + 0x1C, "<I", 0xFFFFFFFF),
        D0 + 0x1C,
        "DVLE[0].constant_count",
        "4294967295 entries of 20 bytes do not fit in the 608-byte file",
    ),
    (
        patched(D0 + 0x18, "<I", 0xFFFFFFF0),
        D0 + 0x18,
        "DVLE[0].constant_offset",
        "extends past the end of the 608-byte file",
    ),
    (patched(D0 + 0x3C, "<I", 0x1000), D0 + 0x3C, "DVLE[0].symbol_size", "4096 bytes do not fit"),
    (
        patched(D0 + 0x3C, "<I", 0x200),
        D0 + 0x38,
        "DVLE[0].symbol_offset",
        "symbol table (512 bytes) at 0x158..0x358 extends past",
    ),
    (patched(D0 + 0x30, "<I", 0xB2), D0 + 0x30, "DVLE[0].uniform_offset", "not a multiple of 4"),
    (patched(D0 + 0x6, "<B", 2), D0 + 0x6, "DVLE[0].shader_type", "unknown value 2"),
    (patched(D0 + 0x7, "<B", 2), D0 + 0x7, "DVLE[0].merge_outmaps", "unknown value 2"),
    (patched(D0 + 0x14, "<B", 3), D0 + 0x14, "DVLE[0].geometry_mode", "unknown value 3"),
    (
        patched(0xB8 + 20, "<H", 3),
        0xB8 + 20,
        "DVLE[0].constants[1].type",
        "unknown constant type 3",
    ),
    # uniforms[5] ("flags.b2", the last name) loses its terminating NUL.
    (
        patched(D0 + 0x3C, "<I", 53),
        0x128 + 40,
        "DVLE[0].uniforms[5].name",
        "name at 0x185 is not NUL-terminated within the symbol table (which ends at 0x18D)",
    ),
    (
        patched(0x128, "<I", 54),
        0x128,
        "DVLE[0].uniforms[0].name",
        "name offset 54 is outside the 54-byte symbol table",
    ),
    (patched(0x158, "<B", 0xE9), 0x128, "DVLE[0].uniforms[0].name", "name at 0x158 is not ASCII"),
]


@pytest.mark.parametrize(
    ("data", "offset", "field", "message"), CASES, ids=[c[2] + "-" + c[3][:20] for c in CASES]
)
def test_malformed_input_names_offset_and_field(data, offset, field, message):
    with pytest.raises(ShbinError) as info:
        Shbin.from_bytes(data)
    error = info.value
    assert (error.offset, error.field) == (offset, field)
    assert message in str(error)
    assert str(error).startswith(f"offset 0x{offset:X}, {field}: ")


def test_exact_message_for_an_absurd_count():
    with pytest.raises(ShbinError) as info:
        Shbin.from_bytes(patched(D0 + 0x1C, "<I", 0xFFFFFFFF))
    assert str(info.value) == (
        "offset 0x94, DVLE[0].constant_count: 4294967295 entries of "
        "20 bytes do not fit in the 608-byte file"
    )


@pytest.mark.parametrize(
    ("data", "first", "second"),
    [
        # DVLE 1 placed on DVLE 0.
        (patched(0xC, "<I", 0x78), ("DVLE[0] header", 0xC), ("DVLE[1] header", 0x8)),
        # DVLE 0's outputs moved onto its constants.
        (
            patched(D0 + 0x28, "<I", 0x40),
            ("DVLE[0].output_table", D0 + 0x28),
            ("DVLE[0].constant_table", D0 + 0x18),
        ),
        # DVLE 0's uniforms moved onto DVLE 1's header.
        (
            patched(D0 + 0x30, "<I", 0x190 - D0),
            ("DVLE[0].uniform_table", D0 + 0x30),
            ("DVLE[1] header", 0xC),
        ),
        # The operand descriptors moved into DVLE 0's header.
        (patched(0x24, "<I", D0 - 0x14), ("DVLP.opdesc_table", 0x24), ("DVLE[0] header", 0x8)),
    ],
)
def test_overlapping_structures(data, first, second):
    with pytest.raises(ShbinError, match="overlaps") as info:
        Shbin.from_bytes(data)
    # Both structures are named; the error points at the header field of one of them.
    assert first[0] in str(info.value) and second[0] in str(info.value)
    assert info.value.offset in (first[1], second[1])


def test_every_truncation_before_the_last_structure_fails():
    # The last structure (DVLE 2's header) ends at 0x260 = the file size.
    for size in range(len(SAMPLE_A)):
        with pytest.raises(ShbinError):
            Shbin.from_bytes(SAMPLE_A[:size])


def test_empty_tables_may_point_anywhere_and_zero_dvles_parse():
    data = patched(0x220 + 0x18, "<2I", 0xFFFFFFFF, 0)  # DVLE 2: no constants, wild offset
    assert Shbin.from_bytes(data) == EXPECTED_A
    assert Shbin.from_bytes(data).to_bytes(preserve_layout=True) == data
    program_only = Shbin(Program([1, 2]))
    assert Shbin.from_bytes(program_only.to_bytes()) == program_only
    # No code words and no opdescs, their offsets far beyond the end of the file.
    empty = picasso_shbin([], [], [DvleFields().to_bytes()])
    wild = patched(0x0C + 0x08, "<4I", 0xFFFFFFF0, 0, 0x80000000, 0, data=empty)
    assert Shbin.from_bytes(wild) == Shbin(Program([]), (Dvle(),))
    assert Shbin.from_bytes(wild).to_bytes(preserve_layout=True) == wild
    assert Shbin.from_bytes(wild).to_bytes() == empty


WARNINGS = [
    (
        patched(0xB8 + 2, "<H", 96),
        0xBA,
        "DVLE[0].constants[0].register",
        "c96 does not exist (c0-c95)",
    ),
    (
        patched(0xB8 + 20 + 2, "<H", 4),
        0xCE,
        "DVLE[0].constants[1].register",
        "i4 does not exist (i0-i3)",
    ),
    (
        patched(0xB8 + 40 + 2, "<H", 16),
        0xE2,
        "DVLE[0].constants[2].register",
        "b16 does not exist (b0-b15)",
    ),
    (
        patched(0x110 + 2, "<H", 16),
        0x112,
        "DVLE[0].outputs[1].register",
        "o16 does not exist (o0-o15)",
    ),
    (
        patched(0x128 + 16 + 6, "<H", 0x70),
        0x13E,
        "DVLE[0].uniforms[2].last",
        "range 0x10-0x70 leaves the 'c' bank",
    ),
    (
        patched(0x128 + 16 + 6, "<H", 0x0F),
        0x13E,
        "DVLE[0].uniforms[2].last",
        "last register 0x0F precedes first register 0x10",
    ),
    (
        patched(0x128 + 16 + 4, "<H", 0x75),
        0x13C,
        "DVLE[0].uniforms[2].first",
        "register 0x75 lies in no uniform bank (v 0x00-0x0F, c 0x10-0x6F, i 0x70-0x73, "
        "b 0x78-0x87)",
    ),
    (
        patched(D0 + 0x0C, "<I", 10),
        D0 + 0x0C,
        "DVLE[0].endmain_offset",
        "word offset 10 is past the end of the 9-word program",
    ),
]


@pytest.mark.parametrize(
    ("data", "offset", "field", "message"), WARNINGS, ids=[w[2] for w in WARNINGS]
)
def test_out_of_range_values_are_warnings(data, offset, field, message):
    shbin = Shbin.from_bytes(data)
    assert shbin.warnings == (f"offset 0x{offset:X}, {field}: {message}",)
    assert shbin.to_bytes(preserve_layout=True) == data
    with pytest.raises(ShbinError) as info:
        Shbin.from_bytes(data, strict=True)
    assert (info.value.offset, info.value.field) == (offset, field)
    with pytest.raises(ShbinError, match=field.replace("[", r"\[").replace("]", r"\]")):
        shbin.to_bytes()


def one_dvle(**fields) -> Shbin:
    return Shbin(Program([0, 0]), (Dvle(**fields),))


@pytest.mark.parametrize(
    ("shbin", "message"),
    [
        (one_dvle(main_offset=2**32), "DVLE[0].main_offset = 4294967296 does not fit in 32 bits"),
        (one_dvle(version=0x10000), "DVLE[0].version = 65536 does not fit in 16 bits"),
        (one_dvle(input_mask=-1), "DVLE[0].input_mask = -1 does not fit in 16 bits"),
        (one_dvle(fixed_vertex_count=256), "DVLE[0].fixed_vertex_count = 256 does not fit"),
        (one_dvle(merge_outmaps=2), "DVLE[0].merge_outmaps = 2, expected a bool"),
        (
            one_dvle(constants=[Constant(ConstantKind.FLOAT, -1)]),
            "DVLE[0].constants[0].register = -1 does not fit",
        ),
        (
            one_dvle(constants=[Constant(ConstantKind.FLOAT, 0, (0, 0, 2**32, 0))]),
            "DVLE[0].constants[0].words[2] = 4294967296 does not fit in 32 bits",
        ),
        (one_dvle(outputs=[OutputEntry(0, 0, mask=16)]), "DVLE[0].outputs[0].mask = 16"),
        (one_dvle(outputs=[OutputEntry(0, 0, upper=2**28)]), "DVLE[0].outputs[0].upper"),
        (one_dvle(outputs=[OutputEntry(2**16, 0)]), "DVLE[0].outputs[0].semantic = 65536"),
        (one_dvle(uniforms=[Uniform("caf\u00e9", 0x10, 0x10)]), "must be ASCII without NUL"),
        (one_dvle(uniforms=[Uniform("a\0b", 0x10, 0x10)]), "must be ASCII without NUL"),
        (Shbin(Program([0]), dvlp_version=2**32), "dvlp_version = 4294967296"),
        (Shbin(Program([0], [1]), opdesc_high=(-1,)), "opdesc_high[0] = -1"),
    ],
)
def test_writer_rejects_values_that_do_not_fit(shbin, message):
    with pytest.raises(EncodingError) as info:
        shbin.to_bytes()
    assert message in str(info.value)


@pytest.mark.parametrize(
    ("shbin", "field", "message"),
    [
        (
            one_dvle(constants=[Constant(ConstantKind.INT, 4)]),
            "DVLE[0].constants[0].register",
            "i4 does not exist",
        ),
        (
            one_dvle(constants=[Constant(ConstantKind.FLOAT, 96)]),
            "DVLE[0].constants[0].register",
            "c96 does not exist",
        ),
        (
            one_dvle(uniforms=[Uniform("x", 0x6F, 0x70)]),
            "DVLE[0].uniforms[0].last",
            "leaves the 'c' bank",
        ),
        (
            one_dvle(uniforms=[Uniform("x", 0x88, 0x88)]),
            "DVLE[0].uniforms[0].first",
            "lies in no uniform bank",
        ),
        (
            one_dvle(outputs=[OutputEntry(0, 16)]),
            "DVLE[0].outputs[0].register",
            "o16 does not exist",
        ),
        (one_dvle(main_offset=3), "DVLE[0].main_offset", "past the end of the 2-word program"),
        (Shbin(Program([0] * 4097)), "DVLP.code_size", "4097 code words exceed"),
        (Shbin(Program([0], [0] * 129)), "DVLP.opdesc_count", "129 operand descriptors exceed"),
    ],
)
def test_writer_rejects_registers_outside_their_banks(shbin, field, message):
    with pytest.raises(ShbinError) as info:
        shbin.to_bytes()
    assert info.value.field == field
    assert message in str(info.value)


def test_writer_accepts_the_bank_edges():
    shbin = one_dvle(
        main_offset=2,
        endmain_offset=2,
        constants=[
            Constant(ConstantKind.FLOAT, 95),
            Constant(ConstantKind.INT, 3),
            Constant(ConstantKind.BOOL, 15),
        ],
        outputs=[OutputEntry(9, 15)],
        uniforms=[
            Uniform("v", 0x00, 0x0F),
            Uniform("c", 0x10, 0x6F),
            Uniform("i", 0x70, 0x73),
            Uniform("b", 0x78, 0x87),
            Uniform("", 0x20, 0x20),
        ],
    )
    assert Shbin.from_bytes(shbin.to_bytes(), strict=True) == shbin
