"""PICA200 syntax rows: (words, descriptors, text), one or more for every opcode and form.

Each row is a whole program: its code words, its operand descriptors and the text the
disassembler prints for them (without its comment lines and blank lines).  The words and
descriptors were worked out by hand from the bit tables of pica-isa.md#formats,
pica-isa.md#opdesc, pica-isa.md#registers (v0 = 0x00, r0 = 0x10, c0 = 0x20; o0 = 0x00),
pica-isa.md#index-registers, pica-isa.md#compare-ops and pica-isa.md#conditions; the text
follows pica-assembly.md#mnemonics and pica-assembly.md#conditions (a flag no condition
names has its reference bit at 1), with the padding rules of pica-assembly.md#padding.
Every row goes both ways: the text assembles to the words and descriptors, and they
disassemble to the text.  ``END`` is ``end`` (0x22 << 26), ``MOV`` ``mov r0, v0`` with
the full-mask descriptor ``FULL1`` (mask 0xF, identity selector 0x1B at sel1).
"""

from __future__ import annotations

import pytest

from gpuisa.pica import syntax
from gpuisa.pica.asm import assemble
from gpuisa.pica.asm import instructions as asm_instructions
from gpuisa.pica.disasm import disassemble
from gpuisa.pica.disasm import structure as disasm_structure
from gpuisa.pica.disasm import syntax as disasm_syntax
from gpuisa.pica.isa import OPCODES
from gpuisa.pica.lsp import index as lsp_index
from gpuisa.pica.lsp import syntax as lsp_syntax
from gpuisa.pica.program import Program
from gpuisa.pica.shbin import Shbin

END = 0x88000000
NOP = 0x84000000
MOV = 0x4E000000  # mov r0, v0 (descriptor 0)
FULL1 = 0x36F  # mask xyzw, sel1 xyzw
FULL2 = 0x6C36F  # mask xyzw, sel1 and sel2 xyzw
GEOMETRY = ".gsh point c0"


def main(*lines: str) -> str:
    return ".proc main\n" + "".join(f"    {line}\n" for line in lines) + ".end\n"


#: A whole program: a procedure before the entry, IF/ELSE, a FOR whose last statement is a
#: CALL (picasso pads it with the NOP at word 6, which the text does not show) and a jump
#: to a label.  Word 1: IFC, condop X (2), refx 1, refy 1, dst 3, num 1; word 4: LOOP i0
#: to word 6; word 5: CALL 0, 1 word; word 7: JMPC, condop Y (3), refx 1, refy 1, to 9.
WHOLE_PROGRAM = (
    (0x02010880, 0xA3800C01, 0x4E212000, 0x4E213000, 0xA4001800, 0x90000001, NOP,
     0xB3C02400, NOP, END), (FULL2,),
    ".proc proc_000\n    add r0, r0, r1\n.end\n"
    + main("ifc cmp.x", "    mov r1, r2", ".else", "    mov r1, r3", ".end", "for i0",
           "    call proc_000", ".end", "jmpc cmp.y, label_009", "nop")[:-len(".end\n")]
    + "label_009:\n    end\n.end\n")

#: (words, descriptors, text)
ROWS = [
    # format 1 (pica-isa.md#format-1): dst 21-25, idx 19-20, src1 12-18, src2 7-11
    ((0x02020880, END), (FULL2,), main("add r0, c0, r1", "end")),
    ((0x04021800, END), (0x6C368,), main("dp3 o0.x, c1, r0", "end")),
    ((0x0A222000, END), (0x1634,), main("dp4 r1.y, -c2.zwxy, v0.x", "end")),
    ((0x0E423880, END), (0x6C362,), main("dph r2.z, c3, r1", "end")),
    ((0x12624900, END), (0x6C361,), main("dst r3.w, c4, r2", "end")),
    ((0x228A5980, END), (0x6C36C,), main("mul r4.xy, c5[a0.x], r3", "end")),
    ((0x26A26A00, END), (FULL2,), main("sge r5, c6, r4", "end")),
    ((0x2AC27080, END), (0x6C36A,), main("slt r6.xz, c7, v1", "end")),
    ((0x30217B00, END), (0x6E36F,), main("max o1, r7, -r6", "end")),
    ((0x34402800, END), (0x3FC367,), main("min o2.yzw, v2, r0.w", "end")),
    # format 1i (pica-isa.md#format-1i): src1 14-18 (narrow), src2 7-13 (wide); the
    # text names the plain opcode, the assembler picks the I-form from the operands
    ((0x62045000, END), (FULL2,), main("dph r0, r1, c0", "end")),
    ((0x66201080, END), (FULL2,), main("dst r1, v0, c1", "end")),
    ((0x6A4C1100, END), (FULL2,), main("sge r2, r0, c2[a0.x]", "end")),
    ((0x6E605180, END), (FULL2,), main("slt r3, v1, c3", "end")),
    # format 1u (pica-isa.md#format-1u): dst, src1 only
    ((0x16028000, END), (0x1FE8,), main("ex2 r0.x, c8.w", "end")),
    ((0x1A210000, END), (0x4,), main("lg2 r1.y, r0.x", "end")),
    ((0x1E429000, END), (FULL1,), main("litp r2, c9", "end")),
    ((0x2E603000, END), (0x36E,), main("flr r3.xyz, v3", "end")),
    ((0x3A92A000, END), (0xAA2,), main("rcp r4.z, c10[a0.y].y", "end")),
    ((0x3EA2B000, END), (0x1551,), main("rsq r5.w, -c11.z", "end")),
    ((0x4C7AC000, END), (FULL1,), main("mov o3, c12[aL]", "end")),
    # MOVA: the destination mask is the a0 components (x = 8, y = 4), dst field 0
    ((0x4802D000, END), (0x36C,), main("mova a0.xy, c13", "end")),
    ((0x48011000, END), (0x368,), main("mova a0.x, r1", "end")),
    ((0x48000000, END), (0x364,), main("mova a0.y, v0", "end")),
    # format 1c (pica-isa.md#format-1c): cmpx 24-26, cmpy 21-23; LT = 2, GE = 5, no mask
    ((0xBAA20880, END), (0x6C360,), main("cmp c0, lt, ge, r1", "end")),
    # formats 5 and 5i: dst 24-28, idx 22-23, src1 17-21, src2 10-16 / 12-16, src3 5-9 / 5-11
    ((0xF0008220, END), (0xD86C36F,), main("mad r0, v0, c0, r1", "end")),
    ((0xD1212420, END), (0xD86C36F,), main("mad r1, r0, r2, c1", "end")),
    # format 0
    ((NOP, END), (), main("nop", "end")),
    # format 2 (pica-isa.md#format-2): num 0-7, dst 10-21, condop 22-23, refy 24, refx 25
    ((0xA3800800, MOV, END), (FULL1,),  # X with refx 1: else at 2, no else part
     main("ifc cmp.x", "    mov r0, v0", ".end", "end")),
    ((0xA2400801, MOV, 0x4E200000, END), (FULL1,),  # AND, refx 1, refy 0; else at 2, 1 word
     main("ifc cmp.x && !cmp.y", "    mov r0, v0", ".else", "    mov r1, v0", ".end", "end")),
    ((0xA4000800, 0x8D800000, MOV, END), (FULL1,),  # breakc: X, refx 0, refy 1
     main("for i0", "    breakc !cmp.x", "    mov r0, v0", ".end", "end")),
    ((0x90000801, END, MOV), (FULL1,),  # call: the procedure at 2, one word
     main("call proc_002", "end") + ".proc proc_002\n    mov r0, v0\n.end\n"),
    ((0x97C00801, END, MOV), (FULL1,),  # Y, both reference bits 1
     main("callc cmp.y, proc_002", "end") + ".proc proc_002\n    mov r0, v0\n.end\n"),
    ((0xB3000800, MOV, END), (FULL1,),  # OR, both reference bits 1; to word 2
     ".proc main\n    jmpc cmp.x || cmp.y, label_002\n    mov r0, v0\nlabel_002:\n"
     "    end\n.end\n"),
    # format 3 (pica-isa.md#format-3): num 0-7, dst 10-21, id 22-25
    ((0x9CC00800, MOV, END), (FULL1,), main("ifu b3", "    mov r0, v0", ".end", "end")),
    ((0xA4400400, MOV, END), (FULL1,),  # loop: dst is the block's last word
     main("for i1", "    mov r0, v0", ".end", "end")),
    ((0xA4800800, 0x80000000, MOV, END), (FULL1,),
     main("for i2", "    break", "    mov r0, v0", ".end", "end")),
    ((0x98000801, END, MOV), (FULL1,),
     main("callu b0, proc_002", "end") + ".proc proc_002\n    mov r0, v0\n.end\n"),
    ((0xB4800801, MOV, END), (FULL1,),  # num bit 0 set: jump when b2 is false
     ".proc main\n    jmpu !b2, label_002\n    mov r0, v0\nlabel_002:\n    end\n.end\n"),
    # format 4 (pica-isa.md#format-4): winding 22, primemit 23, vtxid 24-25; emit 0x2A
    ((0xAEC00000, 0xA8000000, END), (),
     GEOMETRY + "\n" + main("setemit 2, prim inv", "emit", "end")),
    ((0xAD400000, 0xA8000000, END), (), GEOMETRY + "\n" + main("setemit 1, inv", "emit", "end")),
    ((0xAC000000, 0xA8000000, END), (), GEOMETRY + "\n" + main("setemit 0", "emit", "end")),
    WHOLE_PROGRAM,
]


def _printed(shbin: Shbin) -> str:
    return "".join(line + "\n" for line in disassemble(shbin).splitlines()
                   if line.strip() and not line.startswith(";"))


@pytest.mark.parametrize(("words", "descriptors", "text"), ROWS,
                         ids=[row[2].split("\n")[-3].strip() if "proc_" in row[2]
                              else row[2].split("\n")[1 + row[2].startswith(".gsh")].strip()
                              for row in ROWS])
def test_row_round_trips(words, descriptors, text):
    shbin = assemble(text)
    assert tuple(shbin.program.code) == words
    assert tuple(shbin.program.opdescs) == descriptors
    given = Shbin(Program(list(words), list(descriptors)), shbin.entries)
    assert _printed(given) == text


def test_every_opcode_with_a_mnemonic_has_a_row():
    words = [word for row_words, _, _ in ROWS for word in row_words]
    for opcode, info in OPCODES.items():
        if info.mnemonic:  # CMP's opcode field is 5 bits wide, MAD's and MADI's 3
            shift = 32 - info.format.opcode_width
            top = opcode.value >> (6 - info.format.opcode_width)
            assert any(word >> shift == top for word in words), info.mnemonic


def test_every_keyword_has_a_row():
    texts = "".join(text for _, _, text in ROWS)
    printed = {t for t in syntax.MOVA_TARGETS if "." in t}
    for word in (*printed, "prim", "inv", "lt", "ge", "&&", "||", "!b", "!cmp", "[aL]"):
        assert word in texts, word


def test_assembler_disassembler_and_editor_read_one_description():
    """The three read the forms and vocabularies of gpuisa.pica.syntax: the same objects,
    not copies."""
    assert asm_instructions.FORMS is syntax.FORMS is disasm_structure.FORMS
    assert disasm_syntax.FORMS is syntax.FORMS
    assert asm_instructions.MOVA_TARGETS is syntax.MOVA_TARGETS is disasm_syntax.MOVA_TARGETS
    assert asm_instructions.SETEMIT_FLAGS is syntax.SETEMIT_FLAGS is disasm_syntax.SETEMIT_FLAGS
    assert asm_instructions.COMPARE_OPERATORS is syntax.COMPARE_OPERATORS
    assert disasm_syntax.COMPARE_OPERATORS is syntax.COMPARE_OPERATORS
    assert lsp_syntax.FORMS is syntax.FORMS and lsp_index.SlotKind is syntax.SlotKind
    assert set(asm_instructions.MNEMONICS) == {f.mnemonic for f in syntax.FORMS.values()}
    for opcode, form in syntax.FORMS.items():
        info = OPCODES[opcode]
        assert lsp_syntax.operand_names(info) == tuple(s.name for s in form.slots)
    assert lsp_syntax.MOVA_TARGETS == ("a0.x", "a0.y", "a0.xy")
    assert tuple(syntax.SETEMIT_FLAGS) == lsp_syntax.SETEMIT_FLAGS
