"""Instruction and operand-descriptor codec.

The golden words below were computed by hand from 3dbrew's bit tables ("Instruction
formats", pica-isa.md#formats): each comment gives the shift expression that produced the word.
"""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpuisa.errors import EncodingError
from gpuisa.pica.encoding import (
    Instruction,
    decode,
    decode_opdesc,
    encode,
    encode_opdesc,
)
from gpuisa.pica.isa import FORMATS, OPCODES, Opcode

GOLDEN = [
    # format 1: desc 0-6, src2 7-11, src1 12-18, idx 19-20, dst 21-25, opcode 26-31
    # 0x00<<26 | 0x13<<21 | 2<<19 | 0x25<<12 | 0x11<<7 | 0x0A  (add r3, c5[a0.y], r1)
    (0x0272588A, "ADD", "1", dict(desc=0x0A, src2=0x11, src1=0x25, idx=2, dst=0x13)),
    (0x04202FFF, "DP3", "1", dict(desc=0x7F, src2=0x1F, src1=0x02, idx=0, dst=0x01)),
    (0x08020000, "DP4", "1", dict(desc=0, src2=0, src1=0x20, idx=0, dst=0)),
    (0x0E1FF781, "DPH", "1", dict(desc=1, src2=0x0F, src1=0x7F, idx=3, dst=0x10)),
    (0x12821903, "DST", "1", dict(desc=3, src2=0x12, src1=0x21, idx=0, dst=0x14)),
    (0x22A22B08, "MUL", "1", dict(desc=8, src2=0x16, src1=0x22, idx=0, dst=0x15)),
    (0x26001089, "SGE", "1", dict(desc=9, src2=0x01, src1=0x01, idx=0, dst=0x10)),
    (0x2A01190A, "SLT", "1", dict(desc=10, src2=0x12, src1=0x11, idx=0, dst=0x10)),
    (0x30423A0C, "MAX", "1", dict(desc=12, src2=0x14, src1=0x23, idx=0, dst=0x02)),
    (0x34614A8D, "MIN", "1", dict(desc=13, src2=0x15, src1=0x14, idx=0, dst=0x03)),
    # format 1u: desc 0-6, src1 12-18, idx 19-20, dst 21-25
    (0x16210005, "EX2", "1u", dict(desc=5, src1=0x10, idx=0, dst=0x11)),
    (0x19EAA006, "LG2", "1u", dict(desc=6, src1=0x2A, idx=1, dst=0x0F)),
    (0x1E413007, "LITP", "1u", dict(desc=7, src1=0x13, idx=0, dst=0x12)),
    (0x2EE1700B, "FLR", "1u", dict(desc=11, src1=0x17, idx=0, dst=0x17)),
    (0x3B02400E, "RCP", "1u", dict(desc=14, src1=0x24, idx=0, dst=0x18)),
    (0x3F21900F, "RSQ", "1u", dict(desc=15, src1=0x19, idx=0, dst=0x19)),
    (0x48010010, "MOVA", "1u", dict(desc=16, src1=0x10, idx=0, dst=0)),
    (0x4C128011, "MOV", "1u", dict(desc=17, src1=0x28, idx=2, dst=0)),
    # format 1i: desc 0-6, src2 7-13, src1 14-18, idx 19-20, dst 21-25
    # 0x18<<26 | 0x10<<21 | 1<<19 | 0x01<<14 | 0x22<<7 | 18  (dphi r0, v1, c2[a0.x])
    (0x62085112, "DPHI", "1i", dict(desc=18, src2=0x22, src1=0x01, idx=1, dst=0x10)),
    (0x66249193, "DSTI", "1i", dict(desc=19, src2=0x23, src1=0x12, idx=0, dst=0x11)),
    (0x689D5314, "SGEI", "1i", dict(desc=20, src2=0x26, src1=0x15, idx=3, dst=0x04)),
    (0x6FE3FFFF, "SLTI", "1i", dict(desc=127, src2=0x7F, src1=0x0F, idx=0, dst=0x1F)),
    # format 1c: 5-bit opcode 0x17 at 27; cmpx 24-26, cmpy 21-23
    # 0x17<<27 | 5<<24 | 2<<21 | 0x21<<12 | 0x10<<7  (cmp c1, lt, ge, r0): reads as 0x2F
    (0xBD421800, "CMP", "1c", dict(desc=0, src2=0x10, src1=0x21, idx=0, cmpy=2, cmpx=5)),
    (0xB8000081, "CMP", "1c", dict(desc=1, src2=0x01, src1=0x00, idx=0, cmpy=0, cmpx=0)),
    # format 0 (words given in pica-assembly.md#encodings)
    (0x80000000, "BREAK", "0", {}),
    (0x84000000, "NOP", "0", {}),
    (0x88000000, "END", "0", {}),
    (0xA8000000, "EMIT", "0", {}),
    # format 2: num 0-7, dst 10-21, condop 22-23, refy 24, refx 25
    # 0x23<<26 | 1<<25 | 1<<22  (breakc cmp.x && !cmp.y)
    (0x8E400000, "BREAKC", "2", dict(num=0, dst=0, condop=1, refy=0, refx=1)),
    (0x90048C45, "CALL", "2", dict(num=0x45, dst=0x123, condop=0, refy=0, refx=0)),
    (0x97804003, "CALLC", "2", dict(num=3, dst=0x10, condop=2, refy=1, refx=1)),
    (0xA1001C02, "IFC", "2", dict(num=2, dst=7, condop=0, refy=1, refx=0)),
    (0xB3C10000, "JMPC", "2", dict(num=0, dst=0x40, condop=3, refy=1, refx=1)),
    # format 3: num 0-7, dst 10-21, id 22-25
    (0x99408004, "CALLU", "3", dict(num=4, dst=0x20, id=5)),
    (0x9FFFFCFF, "IFU", "3", dict(num=0xFF, dst=0xFFF, id=15)),
    (0xA480C000, "LOOP", "3", dict(num=0, dst=0x30, id=2)),
    (0xB4C14001, "JMPU", "3", dict(num=1, dst=0x50, id=3)),
    # format 4: winding 22, primemit 23, vtxid 24-25
    (0xAEC00000, "SETEMIT", "4", dict(winding=1, primemit=1, vtxid=2)),
    # format 5: 3-bit opcode at 29; desc 0-4, src3 5-9, src2 10-16, src1 17-21, idx 22-23,
    # dst 24-28.  7<<29 | 0x12<<24 | 1<<22 | 0x01<<17 | 0x23<<10 | 0x14<<5 | 31
    (0xF2428E9F, "MAD", "5", dict(desc=31, src3=0x14, src2=0x23, src1=0x01, idx=1, dst=0x12)),
    (0xEF3E7FE0, "MAD", "5", dict(desc=0, src3=0x1F, src2=0x1F, src1=0x1F, idx=0, dst=0x0F)),
    # format 5i: desc 0-4, src3 5-11, src2 12-16, src1 17-21, idx 22-23, dst 24-28
    (0xD1E53487, "MADI", "5i", dict(desc=7, src3=0x24, src2=0x13, src1=0x12, idx=3, dst=0x11)),
]


@pytest.mark.parametrize(("word", "name", "fmt", "fields"), GOLDEN, ids=lambda v: str(v))
def test_golden_decode_and_encode(word, name, fmt, fields):
    ins = decode(word)
    assert ins.opcode is Opcode[name]
    assert ins.format.name == fmt
    assert ins.as_dict() == fields
    assert ins.extra == 0
    assert encode(ins) == word
    assert encode(Instruction.make(name.lower(), **fields)) == word


def test_golden_table_covers_every_known_opcode():
    covered = {Opcode[name] for _, name, _, _ in GOLDEN}
    known = {op for op, info in OPCODES.items() if info.mnemonic}
    assert known == covered


@pytest.mark.parametrize("value", [0x10, 0x11, 0x14, 0x15, 0x16, 0x17, 0x1C, 0x1D, 0x1E, 0x1F])
def test_unknown_opcodes_keep_their_raw_word(value):
    word = (value << 26) | 0x02ABCDEF
    ins = decode(word)
    assert ins.format.name == "unknown"
    assert ins.mnemonic == ""
    assert ins.extra == 0x02ABCDEF
    assert encode(ins) == word


def test_unused_bits_are_preserved():
    # SETEMIT uses only bits 22-31; the rest is kept in `extra`.
    ins = decode(0xAC000000 | 0x0012345)
    assert ins.opcode is Opcode.SETEMIT
    assert ins.extra == 0x0012345
    assert encode(ins) == 0xAC012345
    # Format 2 leaves bits 8-9 unused.
    assert decode(0x84000300).extra == 0x300


def test_cmp_and_mad_value_ranges_decode_to_one_opcode():
    for value in (0x2E, 0x2F):
        assert decode(value << 26).opcode is Opcode.CMP
    for value in range(0x30, 0x38):
        assert decode(value << 26).opcode is Opcode.MADI
    for value in range(0x38, 0x40):
        assert decode(value << 26).opcode is Opcode.MAD


@given(st.integers(0, 0xFFFFFFFF))
def test_decode_encode_identity_on_any_word(word):
    assert encode(decode(word)) == word


@pytest.mark.parametrize("opcode", list(OPCODES), ids=lambda o: o.name)
def test_every_field_value_round_trips(opcode):
    """Exhaustive over each field of each opcode's format (other fields random-ish)."""
    layout = OPCODES[opcode].format.layout
    for field in layout.fields:
        for value in range(field.max + 1):
            fields = {f.name: (f.max * 5 // 7) for f in layout.fields}
            fields[field.name] = value
            ins = Instruction.make(opcode, **fields)
            assert decode(encode(ins)) == ins


def test_make_rejects_bad_fields():
    with pytest.raises(EncodingError, match="field 'dst' is 5 bits wide"):
        Instruction.make("add", dst=32)
    with pytest.raises(EncodingError, match="has no field"):
        Instruction.make("nop", dst=1)
    with pytest.raises(EncodingError, match="unknown mnemonic"):
        Instruction.make("frobnicate")
    with pytest.raises(EncodingError, match="32-bit"):
        decode(1 << 32)
    with pytest.raises(EncodingError, match="extra bits"):
        encode(Instruction(Opcode.ADD, decode(0).fields, extra=1))


# -- operand descriptors: mask 0-3, neg1 4, sel1 5-12, neg2 13, sel2 14-21, neg3 22, sel3 23-30


def test_opdesc_golden():
    # mask xyzw (0xF), src1 -xyzw (neg 1<<4, 0x1B<<5), src2 .yyyy (0x55<<14), src3 .wzyx
    # (0xE4<<23): 0xF | 1<<4 | 0x1B<<5 | 0x55<<14 | 0xE4<<23 = 0x7215437F
    word = 0xF | 1 << 4 | 0x1B << 5 | 0x55 << 14 | 0xE4 << 23
    assert word == 0x7215437F
    desc = decode_opdesc(word)
    assert desc.mask == 0xF
    assert desc.negate == (True, False, False)
    assert desc.selectors == (0x1B, 0x55, 0xE4)
    assert desc.swizzle(1) == (0, 1, 2, 3)
    assert desc.swizzle(2) == (1, 1, 1, 1)
    assert desc.swizzle(3) == (3, 2, 1, 0)
    assert encode_opdesc(desc) == word


def test_opdesc_bit31_is_preserved():
    # The Nintendo toolchain sets bit 31 (shbin-format.md#dvlp).
    desc = decode_opdesc(0x8000036F)
    assert desc.extra == 0x80000000
    assert encode_opdesc(desc) == 0x8000036F


@given(st.integers(0, 0xFFFFFFFF))
def test_opdesc_identity(word):
    assert encode_opdesc(decode_opdesc(word)) == word


def test_every_format_is_used():
    used = {info.format.name for info in OPCODES.values()}
    assert used == set(FORMATS)
