"""Instruction words and operand descriptors, derived by hand from 3dbrew's bit tables
(pica-isa.md#formats, pica-isa.md#opdesc).

Each expected word is written as the shift expression of its fields (3dbrew "Instruction
formats"; pica-assembly.md#encodings): format 1 = DESC 0-6, src2 7-11, src1 12-18,
IDX 19-20, dst 21-25, opcode 26-31; 1i = DESC 0-6, src2 7-13, src1 14-18, IDX 19-20;
1u = format 1 without src2; 1c = format 1 with CMPY 21-23, CMPX 24-26 and a 5-bit opcode
(0x17 << 27); 5 = DESC 0-4, src3 5-9, src2 10-16, src1 17-21, IDX 22-23, dst 24-28, 3-bit
opcode 7 << 29; 5i = src3 5-11, src2 12-16, opcode 6 << 29; 2 = NUM 0-7, DST 10-21,
CONDOP 22-23, REFY 24, REFX 25; 3 = NUM 0-7, DST 10-21, id 22-25; 4 = winding 22,
primemit 23, vtxid 24-25.  Register ids: v/o 0x00+N, r 0x10+N, c 0x20+N.
"""

import pytest
from asm_testutil import END, NOP, opdesc, program

# (source line, expected word, expected descriptor 0 or None)
SINGLE = [
    ("nop", 0x21 << 26, None),
    ("end", 0x22 << 26, None),
    ("emit", 0x2A << 26, None),
    ("break", 0x20 << 26, None),
    # add dst r1, src1 c4, src2 r2
    ("add r1, c4, r2", 0x00 << 26 | 0x11 << 21 | 0x24 << 12 | 0x12 << 7,
     opdesc(0xF, "xyzw", "xyzw")),
    ("dp3 o2.xyz, v1, r3", 0x01 << 26 | 0x02 << 21 | 0x01 << 12 | 0x13 << 7,
     opdesc(0xE, "xyzw", "xyzw")),
    # relative addressing on src1: IDX = 1 (a0.x)
    ("dp4 r0.x, c10[a0.x], r5", 0x02 << 26 | 0x10 << 21 | 1 << 19 | 0x2A << 12 | 0x15 << 7,
     opdesc(0x8, "xyzw", "xyzw")),
    ("dph r2, c3, v0", 0x03 << 26 | 0x12 << 21 | 0x23 << 12 | 0x00 << 7,
     opdesc(0xF, "xyzw", "xyzw")),
    # narrow src1 + wide src2 -> DPHI (0x18), format 1i
    ("dph r2, v0, c3", 0x18 << 26 | 0x12 << 21 | 0x00 << 14 | 0x23 << 7,
     opdesc(0xF, "xyzw", "xyzw")),
    # DSTI with aL (IDX 3) on the wide src2
    ("dst r3, v2, c7[aL]", 0x19 << 26 | 0x13 << 21 | 3 << 19 | 0x02 << 14 | 0x27 << 7,
     opdesc(0xF, "xyzw", "xyzw")),
    ("mul r4, -c1.yxzw, r2.x", 0x08 << 26 | 0x14 << 21 | 0x21 << 12 | 0x12 << 7,
     opdesc(0xF, "yxzw", "xxxx", n1=1)),
    ("sge r5.xy, c0, r1", 0x09 << 26 | 0x15 << 21 | 0x20 << 12 | 0x11 << 7,
     opdesc(0xC, "xyzw", "xyzw")),
    ("sge r5, r1, c0", 0x1A << 26 | 0x15 << 21 | 0x11 << 14 | 0x20 << 7,
     opdesc(0xF, "xyzw", "xyzw")),
    ("slt o1, v0.wzyx, r0", 0x0A << 26 | 0x01 << 21 | 0x00 << 12 | 0x10 << 7,
     opdesc(0xF, "wzyx", "xyzw")),
    # SLTI with a0.y (IDX 2) on src2
    ("slt r0, r1, c0[a0.y]", 0x1B << 26 | 0x10 << 21 | 2 << 19 | 0x11 << 14 | 0x20 << 7,
     opdesc(0xF, "xyzw", "xyzw")),
    ("max r6, c2, v3", 0x0C << 26 | 0x16 << 21 | 0x22 << 12 | 0x03 << 7,
     opdesc(0xF, "xyzw", "xyzw")),
    ("min r7.w, r1, r2", 0x0D << 26 | 0x17 << 21 | 0x11 << 12 | 0x12 << 7,
     opdesc(0x1, "xyzw", "xyzw")),
    ("ex2 r1.x, r2.w", 0x05 << 26 | 0x11 << 21 | 0x12 << 12, opdesc(0x8, "wwww")),
    ("lg2 r1, c95", 0x06 << 26 | 0x11 << 21 | 0x7F << 12, opdesc(0xF, "xyzw")),
    ("litp r2, r3", 0x07 << 26 | 0x12 << 21 | 0x13 << 12, opdesc(0xF, "xyzw")),
    ("flr o15, r4", 0x0B << 26 | 0x0F << 21 | 0x14 << 12, opdesc(0xF, "xyzw")),
    ("rcp r1.y, c8[aL]", 0x0E << 26 | 0x11 << 21 | 3 << 19 | 0x28 << 12, opdesc(0x4, "xyzw")),
    ("rsq r2, -r1.z", 0x0F << 26 | 0x12 << 21 | 0x11 << 12, opdesc(0xF, "zzzz", n1=1)),
    ("mov o5.zw, c95[a0.y]", 0x13 << 26 | 0x05 << 21 | 2 << 19 | 0x7F << 12,
     opdesc(0x3, "xyzw")),
    # MOVA: dst field 0, the a0 components written are the descriptor mask (x = 8, y = 4)
    ("mova a0.x, r1.y", 0x12 << 26 | 0x11 << 12, opdesc(0x8, "yyyy")),
    ("mova a0.xy, c2", 0x12 << 26 | 0x22 << 12, opdesc(0xC, "xyzw")),
    ("mova a1, v0", 0x12 << 26 | 0x00 << 12, opdesc(0x4, "xyzw")),
    ("mova a01, v0", 0x12 << 26 | 0x00 << 12, opdesc(0xC, "xyzw")),
    # CMP: le = 3 (CMPX), gt = 4 (CMPY); descriptor mask 0
    ("cmp c5, le, gt, r1", 0x17 << 27 | 3 << 24 | 4 << 21 | 0x25 << 12 | 0x11 << 7,
     opdesc(0x0, "xyzw", "xyzw")),
    # ge = 5 sets bit 26: the word reads as opcode 0x2F
    ("cmp r0, ge, eq, v2", 0x17 << 27 | 5 << 24 | 0 << 21 | 0x10 << 12 | 0x02 << 7,
     opdesc(0x0, "xyzw", "xyzw")),
    ("mad r0, r1, c2, r3", 7 << 29 | 0x10 << 24 | 0x11 << 17 | 0x22 << 10 | 0x13 << 5,
     opdesc(0xF, "xyzw", "xyzw", "xyzw")),
    # src2 narrow, src3 wide -> MADI
    ("mad r0, v1, r2, c3", 6 << 29 | 0x10 << 24 | 0x01 << 17 | 0x12 << 12 | 0x23 << 5,
     opdesc(0xF, "xyzw", "xyzw", "xyzw")),
    # src3 indexed and src2 not -> MADI, IDX of src3
    ("mad r0, r1, r2, c3[a0.x]",
     6 << 29 | 0x10 << 24 | 1 << 22 | 0x11 << 17 | 0x12 << 12 | 0x23 << 5,
     opdesc(0xF, "xyzw", "xyzw", "xyzw")),
    ("mad r0, r1, c2[aL], r3",
     7 << 29 | 0x10 << 24 | 3 << 22 | 0x11 << 17 | 0x22 << 10 | 0x13 << 5,
     opdesc(0xF, "xyzw", "xyzw", "xyzw")),
    ("mad o3.xy, -r1.x, c4.y, r5.z",
     7 << 29 | 0x03 << 24 | 0x11 << 17 | 0x24 << 10 | 0x15 << 5,
     opdesc(0xC, "xxxx", "yyyy", "zzzz", n1=1)),
    # the I spellings are synonyms: the form follows the operands
    ("madi r0, r1, c2, r3", 7 << 29 | 0x10 << 24 | 0x11 << 17 | 0x22 << 10 | 0x13 << 5,
     opdesc(0xF, "xyzw", "xyzw", "xyzw")),
    ("dphi r2, c3, v0", 0x03 << 26 | 0x12 << 21 | 0x23 << 12, opdesc(0xF, "xyzw", "xyzw")),
    ("sgei r5, c0, r1", 0x09 << 26 | 0x15 << 21 | 0x20 << 12 | 0x11 << 7,
     opdesc(0xF, "xyzw", "xyzw")),
    ("slti r0, r1, c0", 0x1B << 26 | 0x10 << 21 | 0x11 << 14 | 0x20 << 7,
     opdesc(0xF, "xyzw", "xyzw")),
    ("dsti r3, c7, v2", 0x04 << 26 | 0x13 << 21 | 0x27 << 12 | 0x02 << 7,
     opdesc(0xF, "xyzw", "xyzw")),
    # upper-case mnemonics and (in the default mode) register letters
    ("MOV R1, C0", 0x13 << 26 | 0x11 << 21 | 0x20 << 12, opdesc(0xF, "xyzw")),
    # rgba and stpq letter sets: bgra = zyxw, qpts = wzyx
    ("mov r1.rgba, c0.bgra", 0x13 << 26 | 0x11 << 21 | 0x20 << 12, opdesc(0xF, "zyxw")),
    ("mov r1.st, c0.qpts", 0x13 << 26 | 0x11 << 21 | 0x20 << 12, opdesc(0xC, "wzyx")),
    # short swizzles repeat their last component; an empty one is .xxxx
    ("mov r1, c0.xy", 0x13 << 26 | 0x11 << 21 | 0x20 << 12, opdesc(0xF, "xyyy")),
    ("mov r1, c0.", 0x13 << 26 | 0x11 << 21 | 0x20 << 12, opdesc(0xF, "xxxx")),
    # static offsets fold into the register; legacy index names a0/a1/a2/lcnt
    ("mov r1, c8[4]", 0x13 << 26 | 0x11 << 21 | 0x2C << 12, opdesc(0xF, "xyzw")),
    ("mov r1, c8[a1+2]", 0x13 << 26 | 0x11 << 21 | 2 << 19 | 0x2A << 12, opdesc(0xF, "xyzw")),
    ("mov r1, c8[lcnt]", 0x13 << 26 | 0x11 << 21 | 3 << 19 | 0x28 << 12, opdesc(0xF, "xyzw")),
    ("mov r1, c8[A2]", 0x13 << 26 | 0x11 << 21 | 3 << 19 | 0x28 << 12, opdesc(0xF, "xyzw")),
    ("mov r1, c8[a0]", 0x13 << 26 | 0x11 << 21 | 1 << 19 | 0x28 << 12, opdesc(0xF, "xyzw")),
    # setemit: vtxid 24-25, primemit 23, winding 22
    ("setemit 2, prim inv", 0x2B << 26 | 2 << 24 | 1 << 23 | 1 << 22, None),
    ("setemit 0", 0x2B << 26, None),
    ("setemit 1, invert", 0x2B << 26 | 1 << 24 | 1 << 22, None),
    ("setemit 0, PRIMITIVE", 0x2B << 26 | 1 << 23, None),
]


@pytest.mark.parametrize(("line", "word", "desc"), SINGLE, ids=[s[0] for s in SINGLE])
def test_single_instruction(line, word, desc):
    code, opdescs = program(line)
    assert code == (word,)
    assert opdescs == (() if desc is None else (desc,))


def test_more_than_thirty_hand_derived_words():
    assert len(SINGLE) >= 30


def test_call_relocation_fills_num_and_dst():
    code, _ = program("    call f\n    callc !cmp.y, f\n    callu b3, f\n    end\n.end\n"
                      ".proc f\n    nop\n    nop")
    # f starts at word 4 and is 2 words long: NUM = 2, DST = 4
    assert code[0] == 0x24 << 26 | 4 << 10 | 2
    # !cmp.y alone: CONDOP 3 (y), REFX stays 1, REFY 0
    assert code[1] == 0x25 << 26 | 1 << 25 | 0 << 24 | 3 << 22 | 4 << 10 | 2
    assert code[2] == 0x26 << 26 | 3 << 22 | 4 << 10 | 2
    assert code[3:] == (END, NOP, NOP)


def test_if_without_else_points_past_the_block():
    code, _ = program("    ifc cmp.x\n    nop\n    nop\n    .end\n    end")
    # cmp.x alone: CONDOP 2, REFX 1, REFY 1; DST = 3 (first word after the block)
    assert code == (0x28 << 26 | 1 << 25 | 1 << 24 | 2 << 22 | 3 << 10, NOP, NOP, END)


def test_if_with_else_sets_dst_and_num():
    code, _ = program("    ifu b15\n    nop\n    nop\n    .else\n    nop\n    .end\n    end")
    # DST = 3 (start of the else part), NUM = 1 (its length)
    assert code == (0x27 << 26 | 15 << 22 | 3 << 10 | 1, NOP, NOP, NOP, END)


def test_jumps_take_the_label_address():
    code, _ = program("    jmpc cmp.x || cmp.y, L\n    jmpu !b2, L\n    nop\nL:\n    end")
    # OR: CONDOP 0, both refs 1; DST = 3
    assert code[0] == 0x2C << 26 | 1 << 25 | 1 << 24 | 0 << 22 | 3 << 10
    # !b2: bool index 2, NUM bit 0 = 1 inverts the test
    assert code[1] == 0x2D << 26 | 2 << 22 | 3 << 10 | 1
    assert code[2:] == (NOP, END)


def test_for_loop_dst_is_the_last_body_word():
    code, _ = program("    for i2\n    nop\n    nop\n    .end\n    end")
    assert code == (0x29 << 26 | 2 << 22 | 2 << 10, NOP, NOP, END)


def test_breakc_condition():
    code, _ = program("    for i0\n    breakc !cmp.x && cmp.y\n    nop\n    .end\n    end")
    # AND: CONDOP 1; REFX 0, REFY 1
    assert code[1] == 0x23 << 26 | 0 << 25 | 1 << 24 | 1 << 22


@pytest.mark.parametrize(("cond", "bits"), [
    ("cmp.x", 1 << 25 | 1 << 24 | 2 << 22),
    ("cmp.y", 1 << 25 | 1 << 24 | 3 << 22),
    ("!cmp.x", 0 << 25 | 1 << 24 | 2 << 22),
    ("!!cmp.x", 1 << 25 | 1 << 24 | 2 << 22),
    ("cmp.x & cmp.y", 1 << 25 | 1 << 24 | 1 << 22),
    ("cmp.x | !cmp.y", 1 << 25 | 0 << 24 | 0 << 22),
    ("!cmp.y || !cmp.x", 0 << 25 | 0 << 24 | 0 << 22),
    ("CMP.X&&CMP.Y", 1 << 25 | 1 << 24 | 1 << 22),
])
def test_condition_bits(cond, bits):
    code, _ = program(f"    jmpc {cond}, L\nL:\n    end")
    assert code[0] == 0x2C << 26 | bits | 1 << 10


def test_alias_swizzle_composition_and_negation():
    # alias c0.wyxz used as .xxww is c0.wwzz (Manual example); -alias of a negated alias
    # is positive
    decls = ".alias a c0.wyxz\n.alias n -c1.y"
    code, opdescs = program("    mov r0, a.xxww\n    mov r1, -n", decls)
    assert code[0] == 0x13 << 26 | 0x10 << 21 | 0x20 << 12 | 0
    assert opdescs[0] == opdesc(0xF, "wwzz")
    assert code[1] == 0x13 << 26 | 0x11 << 21 | 0x21 << 12 | 1
    assert opdescs[1] == opdesc(0xF, "yyyy", n1=0)


def test_alias_offset_and_index():
    code, _ = program("    mov r0, mtx[2]\n    mov r1, mtx[aL+1]", ".fvec pad, mtx[4]")
    # mtx = c1..c4: mtx[2] = c3; mtx[aL+1] = c2 with IDX 3
    assert code[0] == 0x13 << 26 | 0x10 << 21 | 0x23 << 12
    assert code[1] == 0x13 << 26 | 0x11 << 21 | 3 << 19 | 0x22 << 12


def test_inverted_form_is_chosen_only_for_narrow_src1_and_wide_src2():
    # pica-assembly.md#i-forms: both sources narrow -> the plain opcode, src1 in the 7-bit
    # field 12-18
    code, _ = program("    dph r0, v0, r1\n    sge r0, r1, r2")
    assert code == (0x03 << 26 | 0x10 << 21 | 0x00 << 12 | 0x11 << 7 | 0,
                    0x09 << 26 | 0x10 << 21 | 0x11 << 12 | 0x12 << 7 | 0)


def test_mad_form_choice_edge_cases():
    # src2 and src3 both narrow and unindexed: MAD, src2 in the 7-bit field 10-16
    code, _ = program("    mad r0, r1, r2, r3")
    assert code == (7 << 29 | 0x10 << 24 | 0x11 << 17 | 0x12 << 10 | 0x13 << 5,)
    # src3 narrow but indexed (possible through an alias), src2 unindexed: MADI, src3 in
    # the 7-bit field 5-11 with IDX a0.y (2) at 22-23
    code, _ = program("    mad r0, r1, r2, t[a0.y]", ".alias t r3")
    assert code == (6 << 29 | 0x10 << 24 | 2 << 22 | 0x11 << 17 | 0x12 << 12 | 0x13 << 5,)


def test_negated_destination_is_ignored_and_sources_keep_their_negation():
    code, table = program("    mov -r0.y, r1\n    dp4 r0, -c0, -r1.wzyx")
    assert code == (0x13 << 26 | 0x10 << 21 | 0x11 << 12 | 0,
                    0x02 << 26 | 0x10 << 21 | 0x20 << 12 | 0x11 << 7 | 1)
    assert table == (opdesc(0x4, "xyzw"), opdesc(0xF, "xyzw", "wzyx", n1=1, n2=1))


def test_every_mnemonic_of_the_language_and_no_other():
    # pica-assembly.md#mnemonics, written out by hand
    from gpuisa.pica.asm.instructions import MNEMONICS

    assert set(MNEMONICS) == {
        "nop", "end", "emit", "break", "add", "dp3", "dp4", "mul", "max", "min", "dph", "dphi",
        "dst", "dsti", "sge", "sgei", "slt", "slti", "ex2", "lg2", "litp", "flr", "rcp", "rsq",
        "mov", "mova", "cmp", "mad", "madi", "call", "callc", "callu", "ifc", "ifu", "jmpc",
        "jmpu", "for", "breakc", "setemit"}
