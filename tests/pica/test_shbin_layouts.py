"""nihstro, aemstro and Nintendo-style layouts (shbin-format.md#offsets), preserve_layout, CGFX
scan.

Files are laid out by hand; the comments give each structure's absolute offset.
"""

from __future__ import annotations

import dataclasses
import struct

import pytest
from shbin_testutil import constant, output
from test_shbin_picasso import (
    DVLB,
    DVLE,
    DVLE_HEADER,
    DVLP,
    EXPECTED_A,
    SAMPLE_A,
    SAMPLE_B,
)

from gpuisa.errors import ShbinError
from gpuisa.pica.program import Program
from gpuisa.pica.shbin import (
    Constant,
    ConstantKind,
    Dvle,
    Label,
    OutputEntry,
    OutputSemantic,
    Shbin,
    Uniform,
    find_dvlb,
)


def nihstro_file(main: int = 0) -> bytes:
    """nihstro-assemble's layout: 7-word DVLP header, the DVLE header right after it, then
    code and opdescs, then outputs, constants, uniforms, labels, symbols; no padding;
    DVLE version 0; main offset = the entry label's symbol offset; endmain 0."""
    symbols = b"main\0inpos\0proj\0loop_end\0"  # offsets 0, 5, 11, 16; 25 bytes
    data = struct.pack("<3I", DVLB, 1, 0x28)  # 0x00
    data += struct.pack("<7I", DVLP, 0, 0x5C, 3, 0x68, 2, 0)  # 0x0C: code at 0x0C + 0x5C
    data += struct.pack(
        DVLE_HEADER,
        DVLE,
        0,
        0,
        0,
        main,
        0,
        0,
        0,
        0,
        0,
        0,
        0,  # 0x28
        0x6C,
        1,  # constants at 0x28 + 0x6C = 0x94
        0x90,
        2,  # labels at 0xB8
        0x5C,
        2,  # outputs at 0x84
        0x80,
        2,  # uniforms at 0xA8
        0xB0,
        len(symbols),
    )  # symbols at 0xD8
    data += struct.pack("<3I", 0x4C000000, 0x08000000, 0x88000000)  # 0x68: code
    data += struct.pack("<4I", 0x36F, 0, 0x1B, 0)  # 0x74: opdescs
    data += output(0, 0, 0xF) + output(3, 1, 0x3)  # 0x84
    data += constant(2, 20, 0x3F0000, 0x3F0000, 0, 0x3F0000)  # 0x94
    data += struct.pack("<IHH", 5, 0x00, 0x00) + struct.pack("<IHH", 11, 0x10, 0x13)  # 0xA8
    data += struct.pack("<4I", 0, 0, 0, 0) + struct.pack("<4I", 0, 2, 0, 16)  # 0xB8
    return data + symbols  # 0xD8


NIHSTRO = nihstro_file()
NIHSTRO_EXPECTED = Shbin(
    Program([0x4C000000, 0x08000000, 0x88000000], [0x36F, 0x1B]),
    (
        Dvle(
            version=0,
            main_offset=0,
            endmain_offset=0,
            constants=(Constant(ConstantKind.FLOAT, 20, (0x3F0000, 0x3F0000, 0, 0x3F0000)),),
            outputs=(
                OutputEntry(OutputSemantic.POSITION, 0, 0xF),
                OutputEntry(OutputSemantic.TEXCOORD0, 1, 0x3),
            ),
            uniforms=(Uniform("inpos", 0x00, 0x00), Uniform("proj", 0x10, 0x13)),
            labels=(Label(0, 0, "main"), Label(0, 2, "loop_end")),
        ),
    ),
)


def aemstro_file() -> bytes:
    """aemstro's layout: 10-word DVLP header, opdescs Nintendo-style (bit 31 set, high
    word 0x0000000F), tables constants, labels, outputs, uniforms, symbols.  Label names
    come first in this symbol table (picasso's writer would put uniform names first)."""
    symbols = b"main\0end\0mvp\0"  # offsets 0, 5, 9; 13 bytes, padded to 16
    data = struct.pack("<3I", DVLB, 1, 0x54)  # 0x00
    data += struct.pack("<10I", DVLP, 0, 0x28, 4, 0x38, 2, 0x48, 0, 0, 0)  # 0x0C
    data += struct.pack("<4I", 0x4C000000, 0x4C000001, 0x08000000, 0x88000000)  # 0x34
    data += struct.pack("<4I", 0x8000036F, 0xF, 0x8000001B, 0xF)  # 0x44
    data += struct.pack(
        DVLE_HEADER,
        DVLE,
        0x0102,
        0,
        0,
        0,
        4,
        0x1,
        0x1,
        0,
        0,
        0,
        0,  # 0x54
        0x40,
        2,  # constants at 0x94
        0x68,
        2,  # labels at 0xBC
        0x88,
        1,  # outputs at 0xDC
        0x90,
        1,  # uniforms at 0xE4
        0x98,
        len(symbols),
    )  # symbols at 0xEC
    data += constant(1, 1, 0x04030201) + constant(0, 0, 0)  # 0x94
    data += struct.pack("<4I", 1, 0, 0, 0) + struct.pack("<4I", 2, 3, 0, 5)  # 0xBC
    data += output(2, 0, 0xF)  # 0xDC
    data += struct.pack("<IHH", 9, 0x10, 0x13)  # 0xE4
    return data + symbols + bytes(3)  # 0xEC, padded to 0xFC


AEMSTRO = aemstro_file()
AEMSTRO_EXPECTED = Shbin(
    Program([0x4C000000, 0x4C000001, 0x08000000, 0x88000000], [0x8000036F, 0x8000001B]),
    (
        Dvle(
            version=0x0102,
            main_offset=0,
            endmain_offset=4,
            input_mask=1,
            output_mask=1,
            constants=(
                Constant(ConstantKind.INT, 1, (0x04030201, 0, 0, 0)),
                Constant(ConstantKind.BOOL, 0, (0, 0, 0, 0)),
            ),
            outputs=(OutputEntry(OutputSemantic.COLOR, 0, 0xF),),
            uniforms=(Uniform("mvp", 0x10, 0x13),),
            labels=(Label(1, 0, "main"), Label(2, 3, "end")),
        ),
    ),
    opdesc_high=(0xF, 0xF),
)


def nintendo_style_file() -> bytes:
    """Picasso-like, but with a filename symbol table after the opdescs (DVLP word 0x18),
    non-zero unknown DVLP words and DVLP version, and a gap before the DVLE."""
    names = b"shader.vsh\0\0"  # 12 bytes at DVLP + 0x34
    data = struct.pack("<3I", DVLB, 1, 0x4C)  # 0x00
    data += struct.pack("<10I", DVLP, 0x0102, 0x28, 1, 0x2C, 1, 0x34, 0xAA, 0xBB, 0xCC)  # 0x0C
    data += struct.pack("<3I", 0x88000000, 0x8000036F, 0xF)  # 0x34 code, 0x38 opdesc
    data += names  # 0x40
    data += struct.pack(
        DVLE_HEADER,
        DVLE,
        0x1002,
        0,
        0,
        0,
        1,
        0,
        0,
        0,
        0,
        0,
        0,  # 0x4C
        0x40,
        0,
        0x40,
        0,
        0x40,
        0,
        0x40,
        0,
        0x40,
        0,
    )
    return data + bytes(8)  # trailing bytes


NINTENDO = nintendo_style_file()


def test_layout_arithmetic():
    assert len(NIHSTRO) == 0x0C + 0x1C + 0x40 + 12 + 16 + 16 + 20 + 16 + 32 + 25 == 241
    assert len(AEMSTRO) == 0x54 + 0x40 + 40 + 32 + 8 + 8 + 16 == 0xFC


@pytest.mark.parametrize(
    ("data", "expected"), [(NIHSTRO, NIHSTRO_EXPECTED), (AEMSTRO, AEMSTRO_EXPECTED)]
)
def test_other_toolchains_read_without_loss(data, expected):
    shbin = Shbin.from_bytes(data)
    assert shbin == expected
    assert shbin.warnings == ()
    assert shbin.to_bytes(preserve_layout=True) == data
    canonical = shbin.to_bytes()
    assert canonical != data
    assert Shbin.from_bytes(canonical) == expected


def test_aemstro_opdesc_words_are_kept_raw():
    shbin = Shbin.from_bytes(AEMSTRO)
    assert shbin.program.opdescs == (0x8000036F, 0x8000001B)
    assert shbin.opdesc_high == (0xF, 0xF)
    canonical = shbin.to_bytes()
    # Canonical layout, same content: opdesc entries still carry bit 31 and 0xF.
    assert struct.unpack_from("<4I", canonical, 0x0C + 0x28 + 16) == (
        0x8000036F,
        0xF,
        0x8000001B,
        0xF,
    )


def test_nihstro_entry_point_bug_is_a_warning():
    # "main" is the label whose name sits at symbol offset 5 in a 3-word program.
    data = nihstro_file(main=5)
    shbin = Shbin.from_bytes(data)
    assert shbin.entries[0].main_offset == 5
    assert len(shbin.warnings) == 1
    assert shbin.warnings[0].startswith("offset 0x30, DVLE[0].main_offset: word offset 5")
    assert shbin.to_bytes(preserve_layout=True) == data
    with pytest.raises(ShbinError, match="main_offset") as info:
        Shbin.from_bytes(data, strict=True)
    assert info.value.offset == 0x28 + 0x08
    with pytest.raises(ShbinError, match="main_offset"):
        shbin.to_bytes()


def test_unknown_dvlp_words_gaps_and_filename_table_are_preserved():
    shbin = Shbin.from_bytes(NINTENDO)
    assert shbin.dvlp_version == 0x0102
    assert shbin.program == Program([0x88000000], [0x8000036F])
    assert shbin.opdesc_high == (0xF,)
    assert shbin.to_bytes(preserve_layout=True) == NINTENDO
    canonical = shbin.to_bytes()
    # Canonical: DVLP words 0x18-0x27 as picasso writes them, no gap, no trailing bytes.
    assert struct.unpack_from("<10I", canonical, 0x0C) == (
        DVLP,
        0x0102,
        0x28,
        1,
        0x2C,
        1,
        0x34,
        0,
        0,
        0,
    )
    assert len(canonical) == 0x0C + 0x34 + 0x40
    assert Shbin.from_bytes(canonical) == shbin


def test_preserve_layout_rewrites_changed_values_in_place():
    shbin = Shbin.from_bytes(NIHSTRO)
    dvle = shbin.entries[0]
    new_const = Constant(ConstantKind.FLOAT, 21, (1, 2, 3, 4))
    changed = dataclasses.replace(
        shbin,
        entries=(
            dataclasses.replace(
                dvle,
                constants=(new_const,),
                uniforms=(dvle.uniforms[0], Uniform("PROJ", 0x14, 0x17)),
            ),
        ),
    )
    expected = bytearray(NIHSTRO)
    expected[0x94 : 0x94 + 20] = constant(2, 21, 1, 2, 3, 4)
    expected[0xB0:0xB8] = struct.pack("<IHH", 11, 0x14, 0x17)
    expected[0xD8 + 11 : 0xD8 + 15] = b"PROJ"
    assert changed.to_bytes(preserve_layout=True) == bytes(expected)


@pytest.mark.parametrize(
    "change",
    [
        lambda d: dataclasses.replace(d, constants=d.constants * 2),
        lambda d: dataclasses.replace(d, labels=d.labels[:1]),
        lambda d: dataclasses.replace(d, uniforms=(d.uniforms[0], Uniform("projection", 16, 19))),
        lambda d: dataclasses.replace(d, uniforms=(Uniform("a" * 30, 0, 0), d.uniforms[1])),
    ],
)
def test_preserve_layout_refuses_what_does_not_fit(change):
    shbin = Shbin.from_bytes(NIHSTRO)
    changed = dataclasses.replace(shbin, entries=(change(shbin.entries[0]),))
    with pytest.raises(ShbinError, match="cannot preserve the layout"):
        changed.to_bytes(preserve_layout=True)
    assert Shbin.from_bytes(changed.to_bytes()) == changed  # the canonical layout works


def test_preserve_layout_refuses_other_program_sizes():
    shbin = Shbin.from_bytes(SAMPLE_A)
    for changed in (
        dataclasses.replace(shbin, program=Program(shbin.program.code[:-1], shbin.program.opdescs)),
        dataclasses.replace(shbin, entries=shbin.entries[:2]),
    ):
        with pytest.raises(ShbinError, match="cannot preserve the layout"):
            changed.to_bytes(preserve_layout=True)


def test_preserve_layout_without_a_parsed_file_is_canonical():
    assert EXPECTED_A.to_bytes(preserve_layout=True) == SAMPLE_A


def test_find_dvlb_in_a_larger_file():
    junk = b"CGFX" + bytes(28) + b"DVLB\x05\0\0\0" + bytes(20)  # a stray, unparsable magic
    data = junk + SAMPLE_A + b"\xff" * 7 + NIHSTRO + bytes(5) + SAMPLE_B
    a = len(junk)
    n = a + len(SAMPLE_A) + 7
    b = n + len(NIHSTRO) + 5
    assert find_dvlb(data) == [a, n, b]
    assert Shbin.from_bytes(data[n:]) == NIHSTRO_EXPECTED
    assert find_dvlb(b"no shaders here") == []
