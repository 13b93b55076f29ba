"""Whole SHBIN files (and ``-h`` headers) for the tricky cases, every byte worked out by hand.

The expected files are spelled field by field from shbin-format.md (layout:
shbin-format.md#layout; DVLB: shbin-format.md#dvlb; DVLP: shbin-format.md#dvlp; DVLE header:
shbin-format.md#dvle-header; tables: shbin-format.md#dvle-tables; padding:
shbin-format.md#dvle-padding; offsets: shbin-format.md#offsets): the DVLB and DVLP here, each
DVLE with ``shbin_testutil.DvleFields`` (the one DVLE builder of the tests, written from the same
tables with ``struct``, not with gpuisa's writer), its constants with the packers here.  Instruction
words come from pica-assembly.md#encodings, descriptors from pica-assembly.md#opdesc and
pica-assembly.md#opdesc-allocation, allocation from pica-assembly.md#allocation, the header
from pica-assembly.md#header.  float24 values (shbin-format.md#f24-constants): sign << 23 |
(e32 - 64) << 16 | mantissa32 >> 7, so 0.5 = 0x3E0000, 1.0 = 0x3F0000, 1.5 = 0x3F8000,
2.0 = 0x400000, 3.0 = 0x408000, -1.0 = 0xBF0000.
"""

import struct

from asm_testutil import build, errors
from shbin_testutil import DvleFields, output

END = 0x22 << 26  # 0x88000000
NOP = 0x21 << 26  # 0x84000000
XYZW = 0x1B  # selector of .xyzw: x = 0 in bits 6-7, y = 1 in 4-5, z = 2 in 2-3, w = 3 in 0-1

FLOAT, INT, BOOL = 2, 1, 0  # constant entry types (shbin-format.md#dvle-constants)


def u32s(*words: int) -> bytes:
    return struct.pack(f"<{len(words)}I", *words)


def fconst(reg: int, *words: int) -> bytes:
    return struct.pack("<HH4I", FLOAT, reg, *words)


def bconst(reg: int, value: int) -> bytes:
    return struct.pack("<HHI12x", BOOL, reg, value)


def iconst(reg: int, x: int, y: int, z: int, w: int) -> bytes:
    return struct.pack("<HH4B12x", INT, reg, x, y, z, w)


def shbin(code: list[int], opdescs: list[int], dvles: list[bytes]) -> bytes:
    dvlp_size = 0x28 + 4 * len(code) + 8 * len(opdescs)
    offsets, at = [], 8 + 4 * len(dvles) + dvlp_size
    for blob in dvles:
        offsets.append(at)
        at += len(blob)
    dvlp = (b"DVLP" + u32s(0, 0x28, len(code), 0x28 + 4 * len(code), len(opdescs), dvlp_size,
                           0, 0, 0)
            + u32s(*code) + b"".join(u32s(d, 0) for d in opdescs))
    return b"DVLB" + u32s(len(dvles), *offsets) + dvlp + b"".join(dvles)


# -- the MAD "< 32 swap" rewriting earlier instructions (pica-assembly.md#mad-swap) --------


def swizzle(sel: int) -> str:
    return "".join("xyzw"[sel >> (6 - 2 * i) & 3] for i in range(4))


# The selector of the n-th four-letter swizzle in "xyzw" order is n itself (base-4 digits);
# skip .xyzw (27).  32 movs with full care on src1 and different selectors: 32 entries.
MOV_SELS = [s for s in range(33) if s != XYZW]


def mad_swap_source() -> str:
    movs = "".join(f"    mov r1, c0.{swizzle(s)}\n" for s in MOV_SELS)
    return (".proc main\n"
            "    cmp r0.w, eq, ne, r1\n"  # word 0
            "    ifu b1\n"  # word 1: NUM (bits 0-7) stays 0
            + movs +  # words 2-33
            "    .end\n"
            f"    mad r2, r3.{swizzle(MOV_SELS[-1])}, c1, r4\n"  # word 34
            "    end\n"  # word 35
            ".end\n")


def test_mad_swap_rewrites_earlier_words_byte_for_byte():
    # cmp r0.w, eq, ne, r1: value = src1 .wwww (0xFF) << 5 | src2 .xyzw << 14; care =
    # src1 + src2 (0x3FFFF0) without src1's z/w selector bits 5-8
    # (pica-assembly.md#dont-care) = 0x3FFE10.
    cmp_value = 0xFF << 5 | XYZW << 14
    # mov r1, c0.S: mask 0xF | S << 5, care 0x1FFF.  Against the cmp entry they share
    # bits 4 and 9-12 (src1 negate, x and y selectors): x is 0 for every S <= 32 but w
    # (3) for the cmp, so no mov merges into it, and each gets its own entry 1-32.
    mov_values = [0xF | s << 5 for s in MOV_SELS]
    # mad r2, r3.S32, c1, r4: src2 c1 is wide -> normal MAD; value mask 0xF, src1 S32,
    # src2 and src3 .xyzw; care 0x7FFFFFFF.  First fit: the cmp entry differs in src1.x,
    # entries 1-31 in src1, entry 32 (mov c0.S32: care mask + src1) matches -> k = 32.
    mad_value = 0xF | MOV_SELS[-1] << 5 | XYZW << 14 | XYZW << 23
    # k >= 32: swapped with the lowest index no MAD uses (0).  Words with opcode < 0x20
    # or CMP have DESC 0 <-> 32 exchanged; the IFU word (opcode 0x27) is left alone.
    opdescs = [mad_value, *mov_values[:31], cmp_value]
    mov = 0x13 << 26 | 0x11 << 21 | 0x20 << 12  # mov r1 (0x11), c0 (0x20)
    code = [
        # 1c: DESC 0-6 = 32 after the swap, src2 r1 7-11, src1 r0 12-18, CMPY ne (1)
        # 21-23, CMPX eq (0) 24-26, 0x2E << 26
        0x2E << 26 | 0 << 24 | 1 << 21 | 0x10 << 12 | 0x11 << 7 | 32,
        # 3: bool index 1 at 22-25, DST 10-21 = 34 (the word after the block), NUM 0
        0x27 << 26 | 1 << 22 | 34 << 10,
        *[mov | (i + 1) for i in range(31)],
        mov | 0,  # the last mov used entry 32, which is now entry 0
        # 5: 0x38 << 26, dst r2 24-28, src1 r3 17-21, src2 c1 10-16, src3 r4 5-9, DESC 0
        0x38 << 26 | 0x12 << 24 | 0x13 << 17 | 0x21 << 10 | 0x14 << 5 | 0,
        END,
    ]
    assert code[0] == 0xB82108A0 and code[1] == 0x9C408800 and code[34] == 0xF2268680
    expected = shbin(code, opdescs, [DvleFields(main=0, endmain=36).to_bytes()])
    # DVLP: 0x28 + 4 * 36 + 8 * 33 = 0x1C0 bytes; the DVLE starts at 12 + 0x1C0
    assert len(expected) == 12 + 0x1C0 + 0x40
    result = build(mad_swap_source())
    assert result.shbin.to_bytes() == expected
    assert result.warnings == ()


# -- two files: constants reuse c95, globals stay below every earlier constant -------------
# (pica-assembly.md#pools)

FILE_A = """\
.fvec mvp[4]
.constf ka(1.0, 0.0, 0.5, -1.0)
.constfa tab[3]
.constfa (2.0, 3.0, 0.0, 0.0)
.constfa (1.5, 0.0, 0.0, 0.0)
.end
.out opos position
.in ipos
.proc main
    mov r0, tab[1]
    mul opos, ka.yyyy, r0
    end
.end
"""

FILE_B = """\
.constf kb(2.0, 2.0, 2.0, 2.0)
.fvec mvp[4]
.fvec extra[88]
.bool flag
.entry bmain
.proc bmain
    mov r1, kb
    end
.end
"""


def test_two_files_constants_and_globals_byte_for_byte():
    # a: mvp = c0-c3 (global start -> c4); ka = c95 (local end -> c95, bound c95); the
    # array has 2 elements padded to 3, allocated below: c92-c94 (bound c92).
    # b: the local end returns to the top, so kb = c95 again; mvp is shared (c0-c3);
    # extra[88] = c4-c91 just fits below the bound c92 that a's array left.
    code = [
        0x13 << 26 | 0x10 << 21 | (0x20 + 93) << 12 | 0,  # mov r0, c93 (tab[1])
        # format 1: mul o0, c95.yyyy (wide src1), r0 (narrow src2), descriptor 1
        0x08 << 26 | 0x00 << 21 | (0x20 + 95) << 12 | 0x10 << 7 | 1,
        END,
        0x13 << 26 | 0x11 << 21 | (0x20 + 95) << 12 | 0,  # b: mov r1, c95 (kb)
        END,
    ]
    # entry 0: mov mask xyzw, src1 .xyzw.  mul: src1 .yyyy (0x55) differs -> entry 1;
    # b's mov agrees with entry 0 on every bit.
    opdescs = [0xF | XYZW << 5, 0xF | 0x55 << 5 | XYZW << 14]
    a = DvleFields(main=0, endmain=3, in_mask=0b1, out_mask=0b1,
                   # declaration order: ka, then the array's elements at its .end, ascending
                   constants=(fconst(95, 0x3F0000, 0x000000, 0x3E0000, 0xBF0000),
                              fconst(92, 0x400000, 0x408000, 0, 0),
                              fconst(93, 0x3F8000, 0, 0, 0),
                              fconst(94, 0, 0, 0, 0)),
                   outputs=(output(0, 0, 0xF),),
                   # sorted by register: v0 (0x00), c0-c3 (0x10-0x13)
                   uniforms=(("ipos", 0x00, 0x00), ("mvp", 0x10, 0x13))).to_bytes()
    b = DvleFields(main=3, endmain=5,
                   constants=(fconst(95, 0x400000, 0x400000, 0x400000, 0x400000),),
                   uniforms=(("mvp", 0x10, 0x13), ("extra", 0x14, 0x6B),
                             ("flag", 0x78, 0x78))).to_bytes()
    # symbols "ipos\0mvp\0" = 9 bytes -> 3 bytes of padding; "mvp\0extra\0flag\0" = 15 -> 1
    assert (len(a), len(b)) == (0xB4, 0x7C)
    result = build([("a.v.pica", FILE_A), ("b.v.pica", FILE_B)])
    assert result.shbin.to_bytes() == shbin(code, opdescs, [a, b])
    # every shared declaration is a header record, repeated names included
    # (pica-assembly.md#global-uniforms, pica-assembly.md#header)
    assert result.header == ("// Generated by picasso\n#pragma once\n"
                             "#define VSH_FVEC_mvp 0x00\n#define VSH_ULEN_mvp 4\n"
                             "#define VSH_FVEC_mvp 0x00\n#define VSH_ULEN_mvp 4\n"
                             "#define VSH_FVEC_extra 0x04\n#define VSH_ULEN_extra 88\n"
                             "#define VSH_FLAG_flag BIT(0)\n#define VSH_ULEN_flag 1\n")


def test_later_global_cannot_reach_an_earlier_files_constant():
    # c4 + 89 registers would include c92, the lowest register a's constants used
    too_big = FILE_B.replace("extra[88]", "extra[89]")
    assert errors([("a.v.pica", FILE_A), ("b.v.pica", too_big)]) == [
        ("b.v.pica", 3, 7, "not enough uniform space: extra[89]")]


# -- a geometry shader's private uniform space, b15 reserved -------------------------------
# (pica-assembly.md#gsh, pica-assembly.md#pools)

VERTEX = """\
.fvec mvp[4]
.bool vf
.setb b2 on
.seti i1(-1, 256, 7, 8)
.proc main
    end
.end
"""

GEOMETRY = """\
.gsh fixed c8 c2 4
.fvec gm[2]
.bool gb[14], gl
.ivec gi
.constf gk(0.5, 0.5, 0.5, 0.5)
.consti gc(1, 2, 3, 4)
.out gp position
.out - dummy
.entry gmain
.proc gmain
    setemit 0, prim
    mov gp, gm[1]
    emit
    end
.end
"""


def test_geometry_space_byte_for_byte():
    # geometry space from c8: gm = c8-c9; bools b0-b13, b14 (the vertex shader's b0 is
    # another space); gi = i0; local constants from the top: gk = c95, gc = i3.
    code = [
        END,
        0x2B << 26 | 0 << 24 | 1 << 23 | 0 << 22,  # setemit 0, prim: primitive bit 23
        0x13 << 26 | 0x00 << 21 | (0x20 + 9) << 12 | 0,  # mov o0, c9
        0x2A << 26,  # emit
        END,
    ]
    opdescs = [0xF | XYZW << 5]
    # .setb: u32 1 then 12 zero bytes; .seti: atoi & 0xFF -> bytes 255, 0, 7, 8
    vertex = DvleFields(main=0, endmain=1, constants=(bconst(2, 1), iconst(1, 255, 0, 7, 8)),
                        uniforms=(("mvp", 0x10, 0x13), ("vf", 0x78, 0x78))).to_bytes()
    geometry = DvleFields(
        shader_type=1, merge=1,  # geometry; a dummy output in a `.gsh MODE` shader
        main=1, endmain=5, out_mask=0b11,
        gsh=(2, 2, 0, 4),  # fixed mode, vertex array start c2, -, 4 vertices
        constants=(fconst(95, 0x3E0000, 0x3E0000, 0x3E0000, 0x3E0000), iconst(3, 1, 2, 3, 4)),
        outputs=(output(0, 0, 0xF), output(9, 1, 0xF)),
        # sorted: c8-c9 (0x18-0x19), i0 (0x70), b0-b13 (0x78-0x85), b14 (0x86)
        uniforms=(("gm", 0x18, 0x19), ("gi", 0x70, 0x70), ("gb", 0x78, 0x85),
                  ("gl", 0x86, 0x86))).to_bytes()
    assert (len(vertex), len(geometry)) == (0x80, 0xA4)
    result = build([("v.pica", VERTEX), ("g.pica", GEOMETRY)])
    assert result.shbin.to_bytes() == shbin(code, opdescs, [vertex, geometry])
    # the prefix follows the first DVLE (a vertex shader); geometry uniforms never appear
    assert result.header == ("// Generated by picasso\n#pragma once\n"
                             "#define VSH_FVEC_mvp 0x00\n#define VSH_ULEN_mvp 4\n"
                             "#define VSH_FLAG_vf BIT(0)\n#define VSH_ULEN_vf 1\n")


def test_geometry_space_has_no_b15():
    text = GEOMETRY.replace(".bool gb[14], gl", ".bool gb[14], gl, more")
    column = text.split("\n")[2].index("more") + 1
    assert errors([("v.pica", VERTEX), ("g.pica", text)]) == [
        ("g.pica", 3, column, "not enough uniform space: more[1]")]


# -- the -h header: GSH prefix, BIT(n), duplicate lines (pica-assembly.md#header) ----------

LIBRARY = """\
.nodvle
.gsh
.bool lights[3]
.fvec mvp[4]
.proc lib
    nop
.end
"""

SHADER = """\
.fvec mvp[4]
.bool lights[3]
.bool fog
.ivec _hidden, cnt
.fvec tint$a
.proc main
    call lib
    end
.end
"""

HEADER = """\
// Generated by picasso
#pragma once
#define GSH_FLAG_lights(_n) BIT(0+(_n))
#define GSH_ULEN_lights 3
#define GSH_FVEC_mvp 0x00
#define GSH_ULEN_mvp 4
#define GSH_FVEC_mvp 0x00
#define GSH_ULEN_mvp 4
#define GSH_FLAG_lights(_n) BIT(0+(_n))
#define GSH_ULEN_lights 3
#define GSH_FLAG_fog BIT(3)
#define GSH_ULEN_fog 1
#define GSH_IVEC_cnt 0x01
#define GSH_ULEN_cnt 1
#define GSH_FVEC_tint$a 0x04
#define GSH_ULEN_tint$a 1
"""


def expected_library_shbin() -> bytes:
    # lib = word 0 (1 word); main: call lib (NUM 1, DST 0) at 1, end at 2
    code = [NOP, 0x24 << 26 | 0 << 10 | 1, END]
    # the shader's DVLE only (.nodvle); the legacy .gsh was in the library's record;
    # _hidden = i0 has no entry; '$' is '.' in the symbol table
    main = DvleFields(main=1, endmain=3,
                      uniforms=(("mvp", 0x10, 0x13), ("tint.a", 0x14, 0x14), ("cnt", 0x71, 0x71),
                                ("lights", 0x78, 0x7A), ("fog", 0x7B, 0x7B))).to_bytes()
    assert len(main) == 0x84  # 0x40 + 5 * 8 + 26 symbol bytes + 2 padding
    return shbin(code, [], [main])


def test_header_with_gsh_prefix_bits_and_duplicates():
    # the first DVLE record (the library's, although .nodvle) is a geometry shader, so
    # the prefix is GSH; shared uniforms keep their registers; '_' names are skipped;
    # '$' is printed raw
    result = build([("lib.pica", LIBRARY), ("v.pica", SHADER)])
    assert result.header == HEADER
    assert result.shbin.to_bytes() == expected_library_shbin()


def test_cli_writes_the_same_bytes(tmp_path):
    import argparse

    from gpuisa.pica.cli import asm as cli_asm

    lib, src = tmp_path / "lib.pica", tmp_path / "v.pica"
    lib.write_text(LIBRARY)
    src.write_text(SHADER)
    out, header = tmp_path / "x.shbin", tmp_path / "x.h"
    parser = argparse.ArgumentParser(prog="pica")
    cli_asm.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["asm", "-o", str(out), "-h", str(header), str(lib), str(src)])
    assert args.handler(args) == 0
    assert header.read_bytes() == HEADER.encode()
    assert out.read_bytes() == expected_library_shbin()


def test_strict_mode_gives_the_same_bytes():
    # these sources touch none of picasso's defects (pica-assembly.md#defects):
    # --picasso-strict agrees
    assert build(mad_swap_source(), strict=True).shbin.to_bytes() == build(
        mad_swap_source()).shbin.to_bytes()
    files = [("a.v.pica", FILE_A), ("b.v.pica", FILE_B)]
    assert build(files, strict=True).shbin.to_bytes() == build(files).shbin.to_bytes()


def test_header_hex_digits_are_upper_case_and_no_uniforms_give_two_lines():
    result = build(".fvec pad[10], x\n.ivec a, b, c, d\n.proc main\n    end\n.end\n")
    # x = c10 -> two upper-case hex digits; d = i3
    assert "#define VSH_FVEC_x 0x0A\n" in result.header
    assert "#define VSH_IVEC_d 0x03\n" in result.header
    assert build(".proc main\n    end\n.end\n").header == "// Generated by picasso\n#pragma once\n"
