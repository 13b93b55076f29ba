"""The hand-written forms of Microsoft's microcode assembler (a2xx-formats.md#xdk-hand-forms).

Rows of (text, words): each line of Xenia's shader-playground sample
(data/xenia-shader-playground.txt) that shows a form the compiler's listings do not, in a
one-instruction ``exec``, and the slot's three dwords worked out by hand from the bit
tables of a2xx-isa.md (a2xx-isa.md#alu-layout, a2xx-isa.md#swizzles, a2xx-isa.md#exports,
a2xx-isa.md#texture-fetch, a2xx-isa.md#cf) with the XDK's fills of the bits no listing
shows (a2xx-formats.md#toolchain-defaults: a vector-only slot has RETAIN_PREV (50) and an
unused third source r0, a scalar operand fills the lanes, a texture fetch repeats its
first selector and has arbitrary filter 0).  No words are published for the sample: the
whole program is checked to assemble, its CF words (the split exec, labels, the CF
``nop``) against hand-derived values, and to come back from ``--style xdk`` text.
"""

from __future__ import annotations

import re
import struct
from pathlib import Path

import pytest

from gpuisa.a2xx.cli import main
from gpuisa.a2xx.xdk_asm import assemble_xdk
from gpuisa.a2xx.xdk_text import disassemble_xdk
from gpuisa.errors import SourceError

PLAYGROUND = Path(__file__).parent / "data" / "xenia-shader-playground.txt"


def playground() -> str:
    return PLAYGROUND.read_text().split("=== program ===\n", 1)[1]


def one_slot(line: str) -> tuple[int, ...]:
    """The words of ``line`` alone in an exec: CF slot 0, the instruction in slot 1."""
    words = assemble_xdk(f"xps_3_0\nexec\n{line}\n").words
    return words[3:6]


# Fetch d1 with nothing given: dst_swiz xyzw 0x688, mag/min/mip filter 3 (bits 12-17),
# aniso 7 (18-20), arbitrary 0 (XDK), vol filters 3 (24-27), use_comp_lod 1 (28).
FETCH_D1 = 0x1F1FF688
ROWS = [
    # tfetch1D: opc 1, dst r2 (2 << 12), fetch_valid_only 0 (bit 19), tf0, src r0 with
    # selectors y, y, y (0x15 << 26); 1D: d2 bits 14-15 = 0.
    ("tfetch1D r2, r0.y, tf0, FetchValidOnly=false", (0x54002001, FETCH_D1, 0x00000000)),
    # fetch_valid_only 1 (0x80000), tf2 (2 << 20), selectors x, x, x.
    ("tfetch1D r2, r0.x, tf2", (0x00282001, FETCH_D1, 0x00000000)),
    # src r5 (0xA0) aL-relative (bit 11), dst r3 (0x3000) aL-relative (bit 18), tf13
    # (0xD00000), unnormalized (bit 25), selectors w, x, w (0x33 << 26); d1: mag and min
    # linear (0x1000, 0x4000), mip point, aniso 1:1 (1 << 18), vol filters 3, computed LOD
    # off, register LOD (bit 29); d2: register gradients (bit 0), 2D (1 << 14),
    # OffsetX -1.5 = -3 half texels (0x1D << 16), OffsetY 1.0 = 2 (2 << 21).
    ("tfetch2D r[aL+3], r[aL+5].wx, tf13, FetchValidOnly=false, "
     "UnnormalizedTextureCoords=true, MagFilter=linear, MinFilter=linear, MipFilter=point, "
     "AnisoFilter=max1to1, UseRegisterGradients=true, UseComputedLOD=false, "
     "UseRegisterLOD=true, OffsetX=-1.5, OffsetY=1.0", (0xCED438A1, 0x2F045688, 0x005D4001)),
    # dst r31 (0x1F000), tf15 (0xF00000), selectors x, y, w (0x34 << 26); dst_swiz w, _, 0,
    # 1 = 3 | 7 << 3 | 4 << 6 | 5 << 9 = 0xB3B; 3D: 2 << 14.
    ("tfetch3D r31.w_01, r0.xyw, tf15", (0xD0F9F001, 0x1F1FFB3B, 0x00008000)),
    # src r1 (0x20), dst r5 (0x5000), tf31 (0x1F00000), x, y, w; cube: 3 << 14.
    ("tfetchCube r5, r1.xyw, tf31", (0xD1F85021, FETCH_D1, 0x0000C000)),
    # TEX_SET_TEX_LOD (24), src r1, selectors z, z, z (0x2A << 26); no offset: 1D.
    ("setTexLOD r1.z", (0xA8080038, FETCH_D1, 0x00000000)),
    # TEX_SET_GRADIENTS_H (25), selectors z, y, x (6 << 26).
    ("setGradientH r1.zyx", (0x18080039, FETCH_D1, 0x00000000)),
    # TEX_SET_GRADIENTS_V (26), predicated (d1 bit 31) on p0 false (d2 bit 31 clear).
    ("(!p0)        setGradientV r1.zyx", (0x1808003A, 0x9F1FF688, 0x00000000)),
    # TEX_GET_GRADIENTS (18), dst r5, tf3 (0x300000), selectors x, y, x (4 << 26).
    ("getGradients r5, r1.xy, tf3", (0x10385032, FETCH_D1, 0x00000000)),
    # MULADDv (11 << 24) to export oC0 (export_data 0x8000), RETAIN_PREV (50 << 26);
    # src1 r0, src2 r1.yyyy (0xB1 << 8), src3 c0; sels: src1 and src2 temporaries.
    ("mad oC0, r0, r1.yyyy, c0", (0xC80F8000, 0x0000B100, 0xCB000100)),
    # oC0._: both write masks 0.
    ("mad oC0._, r0, r1.yyyy, c0", (0xC8008000, 0x0000B100, 0xCB000100)),
    # oC0.x1_: vector mask x + the 1's lane (0x3 << 16), scalar mask the 1's lane
    # (0x2 << 20), bit 14 set as the XDK sets it for any written constant.
    ("mad oC0.x1_, r0, r1.yyyy, c0", (0xC823C000, 0x0000B100, 0xCB000100)),
    # oC0.x10w: vector mask x, y, w (0xB << 16), scalar mask y (the 1), bit 14 (the 0).
    ("mad oC0.x10w, r0, r1.yyyy, c0", (0xC82BC000, 0x0000B100, 0xCB000100)),
    # MULv (1 << 24) r4.xyz (0x70000 | 4); src1 r1.xyzz, src2 c5.xyzz (0xC0 each);
    # src3 unused: r0 (sel bit 29).
    ("mul r4.xyz, r1.xyzz, c5.xyzz", (0xC8070004, 0x00C0C000, 0xA1010500)),
    # c[0 + aL]: src2 is the first constant operand: const_0_rel_abs (d1 bit 31), aL
    # (relative_addr 0).
    ("mul r4.xyz, r1.xyzz, c[0 + aL].xyzz", (0xC8070004, 0x80C0C000, 0xA1010000)),
    ("mul r4.xyz, r1.xyzz, c[6 + aL].xyzz", (0xC8070004, 0x80C0C000, 0xA1010600)),
    # c[0 + a0]: relative_addr (d1 bit 29) too.
    ("mul r4.xyz, r1.xyzz, c[0 + a0].xyzz", (0xC8070004, 0xA0C0C000, 0xA1010000)),
    # c[8 + a0] with a co-issued ADDs (0): scalar_dest r5 (0x500), mask w (0x8 << 20);
    # src3 r0 with a = x in lanes 2-3 and b = z in lanes 0-1: z, z, x, x = 0x66.
    ("mul r4.xyz, r1.xyzz, c[8 + a0].xyzz\n      + adds r5.w, r0.xz",
     (0x00870504, 0xA0C0C066, 0xA1010800)),
    # COS (49 << 26) alone: the vector nop MAXv (2) r0._, r0, r0; scalar r6.w, x in all
    # lanes (0x6C).
    ("cos r6.w, r0.x", (0xC4800600, 0x0000006C, 0xE2000000)),
    # ADDs r5.w, r0.zx: x, x, z, z = 0 | 3 << 2 | 0 | 3 << 6 = 0xCC.
    ("adds r5.w, r0.zx", (0x00800500, 0x000000CC, 0xE2000000)),
    # r[aL+1]: src1 register byte 1 | 0x40 (aL-relative).
    ("mul r4.xyz, r[aL+1].xyzz, c[8 + a0].xyzz", (0xC8070004, 0xA0C0C000, 0xA1410800)),
    # r[aL+0] as a scalar operand: src3 byte 0x40.
    ("adds r5.w, r[aL+0].zx", (0x00800500, 0x000000CC, 0xE2000040)),
    # MUL_CONST_1 (43: r1 is odd), scalar r3.w; src3 c1, swizzle: r1's bits 2-5 (0), b = w
    # (3) in lane 0, a = z in lane 3 ((2 - 3) & 3 = 3 << 6): 0xC3; src3_sel = r1 bit 1 = 0.
    ("mulsc r3.w, c1.z, r1.w", (0xAC800300, 0x000000C3, 0xC2000001)),
    # r31: MUL_CONST_1, src3_sel 1, swizzle 0x1C | x | 0xC0; c200 = 0xC8.
    ("mulsc r3.w, c200.z, r31.x", (0xAC800300, 0x000000DC, 0xE20000C8)),
    # r6: MUL_CONST_0 (42), src3_sel 1, 0x04 | x | 0xC0.
    ("mulsc r3.w, c3.z, r6.x", (0xA8800300, 0x000000C4, 0xE2000003)),
    # mov = MAXv (2) c3.wwww, c3.wwww (0x1B) to oDepth (61 = 0x3D), mask x.
    ("mov oDepth.x, c3.w", (0xC801803D, 0x001B1B00, 0x22030300)),
    # PRED_SETEs (27 << 26) r15 (0xF00, mask 0xF << 20) of c[aL].w: w in all lanes (0x1B);
    # the vector nop's operands are temporaries, so c is the first constant (d1 bit 31).
    ("setp_eq r15, c[aL].w", (0x6CF00F00, 0x8000001B, 0xC2000000)),
    # ADDv (0) predicated (d1 bit 28) on p0 false (bit 27 clear), c[aL] (bit 31).
    ("(!p0) add r0, r0, c[aL]", (0xC80F0000, 0x90000000, 0xA0000000)),
]


@pytest.mark.parametrize(("text", "words"), ROWS, ids=[r[0][:40] for r in ROWS])
def test_form_assembles_to_its_words(text: str, words: tuple[int, int, int]) -> None:
    assert one_slot(text) == words


def test_spacing_and_both_spellings_give_the_same_words() -> None:
    # The compiler's spelling (r[3+aL], c[8+a0], c[0+aL], one space) reads the same.
    for hand, compiler in (
        ("mul r4.xyz, r[aL+1].xyzz, c[8 + a0].xyzz", "mul r4.xyz, r[1+aL].xyzz, c[8+a0].xyzz"),
        ("(!p0) add r0, r0, c[aL]", "(!p0)   add  r0 ,r0,  c[0+aL]"),
        ("mad oC0.x1_, r0, r1.yyyy, c0", "mad oC0.x100, r0, r1.y, c0"),
    ):
        assert one_slot(hand) == one_slot(compiler)


# -- CF ------------------------------------------------------------------------------------

# Seven ALU nops: one more than a clause holds (12 sequence bits, two per instruction).
SEVEN = "    nop\n" * 7


@pytest.mark.parametrize(
    ("text", "cf"),
    [
        # exec, addr 1 (the first instruction slot), count 6, bit 41 (predicate clean):
        # 0x1200_00006001; exece (2) addr 7, count 1: 0x2200_00001007.
        ("exece\n" + SEVEN, (0x00006001, 0x10071200, 0x22000000)),
        # cexece !b3, Yield=true: cexec (13, bool 3 << 34, condition 0) without the yield,
        # 0xD00C_00006001; then cexece (14) with the yield (bit 15): 0xE00C_00009007.
        ("cexece !b3, Yield=true\n" + SEVEN, (0x00006001, 0x9007D00C, 0xE00C0000)),
        # (!p0) exece: (!p0) exec (5, clean) 0x5200_00006001, then (!p0) exece (6): the
        # co-issued line stays with its vector line, serialize with its fetch: the 7th
        # instruction, a serialized fetch (sequence 0b11 << 16): 0x6200_00031007.
        ("(!p0) exece\n" + "    nop\n" * 5 + "    mul r0, r0, r0\n  + adds r1.x, r0.xy\n"
         "    serialize\n    tfetch2D r0, r0.xy, tf0\n", (0x00006001, 0x10075200, 0x62000003)),
    ],
)
def test_a_long_exec_is_split(text: str, cf: tuple[int, int, int]) -> None:
    words = assemble_xdk("xps_3_0\n" + text).words
    assert words[:3] == cf
    assert len(words) == 3 * (1 + 7 + 1)  # CF slot, seven instructions, the closing slot


def test_serialize_stays_with_its_instruction_across_a_split() -> None:
    # exec addr 1 count 6, sequence 0b11 (serialized fetch) for instruction 5 at bits
    # 26-27: 0x1200_0C00_6001; exece addr 7 count 1 (the nop): 0x2200_0000_1007.
    text = "    nop\n" * 5 + "    serialize\n    tfetch2D r0, r0.xy, tf0\n    nop\n"
    assert assemble_xdk("xps_3_0\nexece\n" + text).words[:3] == (
        0x0C006001, 0x10071200, 0x22000000)
    # Six instructions, then the serialized fetch: it opens the second clause (0b11 at
    # bits 16-17 of exece addr 7 count 1: 0x2200_0003_1007).
    text = "    nop\n" * 6 + "    serialize\n    tfetch2D r0, r0.xy, tf0\n"
    assert assemble_xdk("xps_3_0\nexece\n" + text).words[:3] == (
        0x00006001, 0x10071200, 0x22000003)


SETP_FIRST = ("xps_3_0\nexec\n    setp_eq r0._, c0.x\n(p0) exece\n    setp_ne r0._, c0.x\n"
              + "    nop\n" * 5 + "    mov oC0, c1\n")


def test_a_predicated_exec_that_writes_p0_is_not_split() -> None:
    # The second part of the split exec would test the p0 that setp_ne (line 5) wrote.
    with pytest.raises(SourceError, match=r"'setp_ne' writes p0 inside '\(p0\) exece'.*"
                       r"split the exec by hand") as caught:
        assemble_xdk(SETP_FIRST, filename="hand.asm")
    d = caught.value.diagnostics[0]
    assert (d.location.line, d.location.column) == (5, 5)
    # The same write in the last part tests nothing after it: the exec is split.
    # Clauses: 0 exec addr 2 count 1 (bit 41): 0x1200_00001002; 1 (p0) exec (5) addr 3
    # count 6, bit 41, p0 true (bit 42): 0x5600_00006003; 2 (p0) exece (6) addr 9 count 1:
    # 0x6600_00001009, alone in CF slot 1 (instructions from slot 2).
    last = SETP_FIRST.replace("    setp_ne r0._, c0.x\n", "") + "    setp_ne r0._, c0.x\n"
    assert assemble_xdk(last).words[:6] == (
        0x00001002, 0x60031200, 0x56000000, 0x00001009, 0x00006600, 0x00000000)


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("exec\n    nop\njmp done\nlabel done\n", 5,
         "label 'done' has no CF clause after it to jump to"),
        ("label b1\nexece\njmp b1\n", 2,
         "label 'b1': a jump to it would read the constant b1: rename the label"),
        ("label i7\nexece\n", 2, "label 'i7': a jump to it would read the constant i7"),
    ],
)
def test_unusable_labels_are_refused(text: str, line: int, message: str) -> None:
    with pytest.raises(SourceError, match=message) as caught:
        assemble_xdk("xvs_3_0\n" + text, filename="hand.asm")
    assert caught.value.diagnostics[0].location.line == line


def test_labels_and_a_cf_nop() -> None:
    text = ("xvs_3_0\nloop i7, done\nlabel top\nexec\n    nop\n(p0) endloop i7, top\n"
            "ccall !b1, top\nnop\nlabel done\nexece\n")
    # Clauses: 0 loop i7 -> 5 (LOOP_START 7, loop_id 7 << 16): 0x7000_00070005; 1 exec
    # addr 3 count 1: 0x1200_00001003; 2 endloop -> 1, predicated break (bit 21) on p0
    # true (bit 42): 0x8400_00270001; 3 ccall !b1 -> 1 (9, bool 1 << 34): 0x9004_00000001;
    # 4 the nop: 0; 5 exece without instructions: the slot after the last one, 4.
    assert assemble_xdk(text).words[:9] == (
        0x00070005, 0x10037000, 0x12000000,
        0x00270001, 0x00018400, 0x90040000,
        0x00000000, 0x00040000, 0x22000000,
    )


# The playground's CF program, by hand: 17 clauses (9 slots), instructions from slot 9.
PLAYGROUND_CF = (
    # 0 exec without instructions, the first exec: addr 9 (the CF length); 1 alloc colors
    # (12, buffer 2 << 41).
    0x00000009, 0x00001200, 0xC4000000,
    # 2 exec of the six fetches: addr 9, count 6, sequence 0x555; 3 addr 15, count 6,
    # four fetches then two ALU (0x055).
    0x05556009, 0x600F1200, 0x12000055,
    # 4 addr 21, six ALU; 5 addr 27, five ALU.
    0x00006015, 0x501B1200, 0x12000000,
    # 6 jmp l5 -> 9 (11, unconditional bit 13); 7 ccall b1, l5 (9, bool 1, condition 1).
    0x00002009, 0x0009B000, 0x94040000,
    # 8 the nop: cnop; 9 (!p0) exec (5) without instructions: addr 38, after the last.
    0x00000000, 0x00260000, 0x52000000,
    # 10 cexec b5, Yield=true (13, bool 5, condition 1, yield): addr 38; 11 cexec !b6
    # (bool 6, condition 0) of the mulsc at slot 32.
    0x00008026, 0x1020D414, 0xD0180000,
    # 12 loop i7, L4 -> 15; 13 exec of slots 33-34.
    0x0007000F, 0x20217000, 0x12000000,
    # 14 (p0) endloop i7, L3 -> 13; 15 exece of slots 35-37.
    0x0027000D, 0x30238400, 0x22000000,
    # 16 cnop, 17 the padding NOP.
    0x00000000, 0x00000000, 0x00000000,
)


def test_the_playground_program_assembles() -> None:
    words = assemble_xdk(playground()).words
    assert words[:27] == PLAYGROUND_CF
    assert len(words) == 3 * 39  # 9 CF slots, 29 instructions, the closing slot


def test_the_playground_program_comes_back_from_xdk_text() -> None:
    words = assemble_xdk(playground()).words
    text = disassemble_xdk(words, "fragment")
    assert assemble_xdk(text).words == words
    # gpuisa prints the compiler's spelling (data/xdk-listings.txt: c[1+a0]), a label by
    # its clause number and the CF nop as cnop.
    assert "c[8+a0].xyz" in text and "label L9" in text and "    cnop\n" in text
    assert "r[3+aL]" in text and "c[0+aL].w" in text


@pytest.mark.parametrize(
    ("line", "message", "column", "length"),
    [
        ("    tfetch2D r[aL+200], r0.xy, tf0", r"'r\[aL\+200\]': the offset 200 is past r63",
         14, 9),
        ("    mul r0, r1, c[a0 + 300]", r"the offset 300 is past c255", 17, 11),
        ("    mul r0, r1, r[a0+1]", "relative to aL, not a0", 17, 7),
        ("    tfetch2D r0, r1.xy, tf0, OffsetX=9",
         r"'OffsetX=9': the value is -8 to 7.5 in steps of 0.5", 30, 9),
        ("    tfetch2D r0, r1.xy, tf0, OffsetY=x", "not a number", 30, 9),
        ("    tfetch2D r0, r1.xy, tf0, MagFilter=cubic", "point, linear, basemap, keep", 30, 15),
        ("    tfetch2D r0, r1.xy, tf0, Blur=true",
         r"unknown texture fetch option 'Blur=true' \(the options: FetchValidOnly, .*OffsetZ\)",
         30, 9),
        ("    vfetch_full r0, r0.x, vf0, Stride=300", r"'Stride=300': the value is 0 to 255",
         32, 10),
        ("    jmp nowhere", r"no label 'nowhere' in the listing", 9, 7),
        ("    mad oC0.x1_, r0, r1.yyyy", "mad takes 3 source operands", 5, 24),
        # c[ + 5000 digits + "+aL]": 5006 characters.
        ("    mul r0, r1, c[" + "1" * 5000 + "+aL]",
         "'c\\[...\\]': the offset of 5000 digits is past c255", 17, 5006),
        ("    serialize", "'serialize' needs an instruction after it in its exec", 5, 9),
    ],
    ids=lambda value: value[:40] if isinstance(value, str) else None,
)
def test_invalid_forms_are_refused_where_they_are(
    line: str, message: str, column: int, length: int
) -> None:
    with pytest.raises(SourceError, match=message) as caught:
        assemble_xdk(f"xps_3_0\nexec\n{line}\n", filename="hand.asm")
    d = caught.value.diagnostics[0]
    assert (d.location.file, d.location.line, d.location.column, d.length) == (
        "hand.asm", 3, column, length)


def test_instructions_outside_an_exec_are_refused() -> None:
    with pytest.raises(SourceError, match="an instruction outside an exec: it follows a label"):
        assemble_xdk("xps_3_0\nexec\nlabel l1\n    add r0, r0, r0\n")
    with pytest.raises(SourceError, match="label 'l1' is defined twice"):
        assemble_xdk("xps_3_0\nlabel l1\nexec\nlabel l1\nexece\n")


def test_the_data_file_is_the_sample_verbatim() -> None:
    lines = playground().splitlines()
    assert (lines[0], lines[-1], len(lines)) == ("xps_3_0", "        cnop", 50)
    assert re.search(r"^\(!p0\)        setGradientV r1\.zyx$", playground(), re.MULTILINE)


@pytest.mark.parametrize("syntax", [[], ["--syntax", "xdk"]])
def test_the_command_line_reads_the_playground(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], syntax: list[str]
) -> None:
    source = tmp_path / "playground.asm"
    source.write_text(playground())
    out = tmp_path / "playground.bin"
    assert main(["asm", *syntax, str(source), "-o", str(out)]) == 0
    words = struct.unpack(f"<{out.stat().st_size // 4}I", out.read_bytes())
    assert words[:27] == PLAYGROUND_CF
    source.write_text(playground().replace("OffsetX=-1.5", "OffsetX=9"))
    assert main(["asm", *syntax, str(source), "-o", str(tmp_path / "bad.bin")]) == 1
    err = capsys.readouterr().err
    assert f"a2xx: error: {source}:10:" in err and "'OffsetX=9'" in err
    assert "Traceback" not in err and not (tmp_path / "bad.bin").exists()
