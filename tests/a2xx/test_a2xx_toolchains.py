"""``--toolchain``: the bits Mesa's text does not show, filled as each compiler fills them.

Real shaders: Mesa's text of every XDK-compiled container of
tests/a2xx/data/xdk-listings.txt, with the ``; xdk:`` lines ``a2xx disasm`` writes above
it, reassembles to the XDK compiler's words with ``toolchain="xdk"`` (and not with the
Adreno defaults); the expected words are the containers'.  Rules:
each toolchain's fills for a hand-written program, expected values written out from the
evidence cited in gpuisa.a2xx.toolchains (XDK containers, the Adreno GMEM shaders,
Mesa's ir2_assemble.c, the words of freedreno's fdre assembler).
"""

from __future__ import annotations

import pytest
from xdk_listing_helpers import shaders

from gpuisa.a2xx import disassemble
from gpuisa.a2xx.asm import assemble, assemble_with_warnings, toolchain_notes
from gpuisa.a2xx.containers import ShaderFile, read_shader_file
from gpuisa.a2xx.encoding import (
    decode_alu,
    decode_cf,
    decode_fetch,
    slot_from_dwords,
    split_cf_slot,
)
from gpuisa.errors import GpuIsaError

PROGRAM = """\
EXEC
  FETCH: VERTEX R1.xyz1 = R0.x FMT_32_32_32_FLOAT UNSIGNED STRIDE(12) CONST(4, 0)
  FETCH: VERTEX R2.xyz1 = R0.x FMT_32_32_32_FLOAT UNSIGNED STRIDE(12) CONST(4, 1)
ALLOC POSITION SIZE(0x0)
EXEC_END
  ALU: MAXv export62 = R1, R1
  ALU: MAXv export32 = R2, R2
"""
# Slots: 0-1 CF (three clauses and a NOP), 2-3 the fetches, 4-5 the ALU instructions.


_ALL = shaders()
_IDS = [s[0] for s in _ALL]


def _mesa_text(shader: ShaderFile) -> str:
    return disassemble(list(shader.words), shader.shader_type)  # type: ignore[arg-type]


def _notes(shader: ShaderFile, text: str) -> str:
    centroid = next((i.register for i in shader.interpolators if i.centroid), None)
    return toolchain_notes(text, shader.words, centroid=centroid)


@pytest.mark.parametrize(("ident", "listing", "data"), _ALL, ids=_IDS)
def test_mesa_text_of_xdk_shaders_reassembles_with_the_xdk_toolchain(
    ident: str, listing: str, data: bytes
) -> None:
    """Mesa's text with the ``; xdk:`` notes gives the compiler's words back, guessing
    nothing; without the notes it still assembles, from the XDK rules alone."""
    shader = read_shader_file(data)
    text = _mesa_text(shader)
    noted = _notes(shader, text) + text
    result = assemble_with_warnings(noted, toolchain="xdk")
    assert result.words == shader.words
    assert result.guesses == ()
    assert tuple(assemble(noted)) != shader.words  # the Adreno fills are not the XDK's
    plain = assemble_with_warnings(text, toolchain="xdk")
    assert len(plain.words) == len(shader.words)
    if shader.debug is None:  # no PDB hint: the rules alone give the words
        assert plain.words == shader.words


def test_the_rules_leave_few_notes() -> None:
    """What no rule gives is rare: across the shaders, only the scalar operations Mesa
    hides (a scalar op with no write mask beside a vector op with one), the a0
    addressing of ``c[N+a0]`` (Mesa prints ``C1``) and bit 6 of a constant's index
    (``c[96+a0]`` prints as ``C32``) need a slot line."""
    noted: set[str] = set()
    for _, _, data in _ALL:
        shader = read_shader_file(data)
        for line in _notes(shader, _mesa_text(shader)).splitlines():
            if line.startswith("; xdk: slot "):
                noted |= {part.split("=")[0] for part in line.split()[4:]}
    assert noted <= {"scalar_opc", "src3_swiz", "src3_reg", "relative_addr",
                     "const_0_rel_abs", "const_1_rel_abs", "src1_reg", "src2_reg"}


def _slot(words: list[int], index: int) -> int:
    return slot_from_dwords(*words[3 * index : 3 * index + 3])


@pytest.mark.parametrize(
    ("toolchain", "scalar_opc", "src3_sel", "fetches", "relative", "vc"),
    [
        # (prefetch_count, is_mini_fetch, is_index_rounded, signed_rf_mode_all) per fetch
        ("adreno", 5, 1, [(3, 0, 0, 0), (2, 1, 0, 0)], 0, 0),  # MAXs; driver captures
        ("adreno-kernel", 5, 1, [(3, 0, 1, 0), (2, 1, 0, 1)], 0, 0),  # GMEM shaders
        ("xdk", 50, 1, [(0, 0, 0, 0), (0, 0, 0, 0)], 0, 0b11),  # RETAIN_PREV; containers
        ("mesa", 0, 0, [(3, 0, 0, 0), (2, 1, 0, 0)], 1, 0),  # ir2: zeroed, eA relative
        ("fdre", 5, 1, [(1, 0, 0, 0), (0, 1, 0, 0)], 0, 0),  # fdre's fdasm (fdre-words.txt)
    ],
)
def test_toolchain_fills(
    toolchain: str, scalar_opc: int, src3_sel: int, fetches: list[tuple[int, ...]],
    relative: int, vc: int,
) -> None:
    words = assemble(PROGRAM, toolchain=toolchain)
    first_exec = decode_cf(split_cf_slot(_slot(words, 0))[0])
    assert first_exec.vc == vc
    for index, expected in zip((2, 3), fetches, strict=True):
        f = decode_fetch(_slot(words, index))
        assert (f.prefetch_count, f.is_mini_fetch, f.is_index_rounded,
                f.signed_rf_mode_all) == expected
    for index in (4, 5):
        alu = decode_alu(_slot(words, index))
        assert (alu.scalar_opc, alu.src3_sel) == (scalar_opc, src3_sel)
    assert decode_alu(_slot(words, 4)).relative_addr == 0
    assert decode_alu(_slot(words, 5)).relative_addr == relative
    assert len(words) == 3 * (6 + (toolchain == "xdk"))  # the XDK's closing zero slot


@pytest.mark.parametrize(("toolchain", "register"), [("adreno", 0xBF), ("xdk", 0xFF)])
def test_a_constant_with_bars_is_a_guess(toolchain: str, register: int) -> None:
    # Mesa prints bit 7 of a constant's index as |bars| and leaves out bit 6.
    result = assemble_with_warnings(
        "EXEC_END\n  ALU: MAXv export0 = |C63|, |C63|\n", toolchain=toolchain
    )
    alu = decode_alu(slot_from_dwords(*result.words[3:6]))
    assert alu.src1_reg == alu.src2_reg == register
    closing = ("the slot after the last instruction is zero (a debug build keeps its PDB "
               "hint there), the xdk toolchain's rule",) if toolchain == "xdk" else ()
    assert result.guesses == (
        f"|C63| is c{register} (c{register ^ 0x40} reads the same), the {toolchain} "
        "toolchain's rule (2 times)",
        *closing,
    )


@pytest.mark.parametrize(("toolchain", "guessed"), [("adreno", False), ("xdk", True)])
def test_a_plain_constant_is_a_guess_for_the_xdk(toolchain: str, guessed: bool) -> None:
    # Mesa prints six bits of a constant's index: C32 is c32 or c96 (Scaleform's
    # c[96+a0] prints C32); the xdk toolchain says so, its programs use c64-c191.
    result = assemble_with_warnings("EXEC_END\n  ALU: MAXv export0 = C32, C1\n",
                                    toolchain=toolchain)
    alu = decode_alu(slot_from_dwords(*result.words[3:6]))
    assert (alu.src1_reg, alu.src2_reg) == (32, 1)
    assert ("Cn is cn, not c(n+64) (Mesa's text shows six bits of a constant's index), "
            "the xdk toolchain's rule (2 times)" in result.guesses) == guessed


def test_unknown_toolchain_is_an_error() -> None:
    with pytest.raises(GpuIsaError, match="unknown toolchain 'gcc'"):
        assemble(PROGRAM, toolchain="gcc")


@pytest.mark.parametrize(("ident", "listing", "data"), _ALL, ids=_IDS)
def test_disasm_of_a_container_names_its_toolchain_for_asm(
    tmp_path, capsys, ident: str, listing: str, data: bytes
) -> None:
    """``a2xx disasm`` of an XDK container writes ``; toolchain: xdk`` above Mesa's text,
    and ``a2xx asm`` with no option gives the container's words back."""
    from gpuisa.a2xx.cli import main

    container = tmp_path / "shader.bin"
    container.write_bytes(data)
    text_file, words_file = tmp_path / "shader.txt", tmp_path / "words.bin"
    assert main(["disasm", str(container), "-o", str(text_file)]) == 0
    assert text_file.read_text().startswith("; toolchain: xdk\n")
    assert main(["asm", str(text_file), "-o", str(words_file)]) == 0
    words = read_shader_file(data).words
    assert words_file.read_bytes() == b"".join(w.to_bytes(4, "little") for w in words)


def test_the_toolchain_line_chooses_the_fills_and_an_option_overrides_it() -> None:
    xdk = assemble("; toolchain: xdk\n" + PROGRAM)
    assert xdk == assemble(PROGRAM, toolchain="xdk") != assemble(PROGRAM)
    assert assemble("; toolchain: xdk\n" + PROGRAM, toolchain="adreno") == assemble(PROGRAM)
    with pytest.raises(GpuIsaError, match=r"t\.txt:2: unknown toolchain 'gcc'"):
        assemble("; a comment\n; toolchain: gcc\n" + PROGRAM, filename="t.txt")


# Each XDK rule on a hand-written program (expected values from toolchains.py's evidence).
XDK_RULES = """\
EXEC
  ALU: FRACv R1 = R2.yyyy
  ALU: MAXv R0.____ = R0, R0
       ADD_CONST_0 R2.___w = |R63.wyzx|
  FETCH: SAMPLE R4.xyzw = R2.xyx CONST(0) VALID_ONLY ARBITRARY(2x4_SYM) LOD(0) LOD_BIAS(0) \
LOCATION(CENTROID)
ALLOC POSITION SIZE(0x0)
EXEC_END
  ALU: MAXv export62.x__w = R1, R1
       RETAIN_PREV export0.___w = R0
"""
# Slots: 0-1 CF, 2 FRACv, 3 ADD_CONST_0, 4 the fetch, 5 the export.


@pytest.mark.parametrize(
    ("toolchain", "src2", "const_reg", "dimension", "constant_bit"),
    [
        # src2 (reg, sel, swiz): R2.yyyy repeated (each component's 2 bits are y minus
        # the component's own index mod 4, x in bits 0-1: 01, 00, 11, 10) or R0 with
        # swizzle 0.
        ("adreno", (2, 1, 0b10_11_00_01), 0xBF, 0, 0),
        ("xdk", (0, 1, 0), 0xFF, 1, 1),
    ],
)
def test_xdk_rules(toolchain: str, src2: tuple[int, int, int], const_reg: int,
                   dimension: int, constant_bit: int) -> None:
    words = assemble(XDK_RULES.replace("\\\n", ""), toolchain=toolchain)
    frac = decode_alu(_slot(words, 2))
    assert (frac.src2_reg, frac.src2_sel, frac.src2_swiz) == src2
    assert decode_alu(_slot(words, 3)).src3_reg == const_reg
    assert decode_fetch(_slot(words, 4)).dimension == dimension
    assert decode_alu(_slot(words, 5)).scalar_dest_rel == constant_bit


def test_the_fetch_dimension_is_a_guess_without_notes() -> None:
    text = XDK_RULES.replace("\\\n", "")
    assert assemble_with_warnings(text, toolchain="xdk").guesses == (
        "|R63| is c255 (c191 reads the same), the xdk toolchain's rule",
        "a texture fetch's dimension is D2, the xdk toolchain's rule",
        "the slot after the last instruction is zero (a debug build keeps its PDB hint "
        "there), the xdk toolchain's rule",
    )
    noted = assemble_with_warnings("; xdk: pdb-hint 0 0 0\n" + text, toolchain="xdk")
    assert noted.guesses == ()
    assert assemble_with_warnings(text, toolchain="adreno").guesses == (
        "|R63| is c191 (c255 reads the same), the adreno toolchain's rule",
    )


def test_notes_set_the_fields_the_text_hides() -> None:
    # PRED_SETNEs is scalar opcode 28 and MOVAs 23 (Mesa's instr-a2xx.h numbering).
    words = assemble("; xdk: slot 0x04 scalar_opc=PRED_SETNEs src3_swiz=0x1b src3_reg=2\n"
                     "; xdk: slot 5 scalar_opc=23 relative_addr=1\n"
                     "; xdk: pdb-hint 0x4e4a0000 1 2\n" + PROGRAM, toolchain="xdk")
    first, second = decode_alu(_slot(words, 4)), decode_alu(_slot(words, 5))
    assert (first.scalar_opc, first.src3_swiz, first.src3_reg) == (28, 0x1B, 2)
    assert (second.scalar_opc, second.relative_addr) == (23, 1)
    assert words[-3:] == [0x4E4A0000, 1, 2]
    adreno = assemble("; xdk: pdb-hint 7 8 9\n" + PROGRAM)  # no closing slot: one added
    assert adreno == [*assemble(PROGRAM), 7, 8, 9]


def test_no_trailing_slot_note_drops_the_xdk_closing_slot() -> None:
    # PROGRAM is six slots (18 words); the xdk toolchain adds a seventh, all zero.
    xdk = assemble(PROGRAM, toolchain="xdk")
    assert len(xdk) == 21 and xdk[-3:] == [0, 0, 0]
    assert assemble("; xdk: no-trailing-slot\n" + PROGRAM, toolchain="xdk") == xdk[:18]
    # A toolchain that keeps no closing slot has none to drop.
    assert assemble("; xdk: no-trailing-slot\n" + PROGRAM) == assemble(PROGRAM)


@pytest.mark.parametrize(
    ("note", "message"),
    [
        ("pdb-hint 1 2", "expected 'pdb-hint W0 W1 W2', 'no-trailing-slot', 'centroid rN' "
                         "or 'slot N name=value ...'"),
        ("centroid r64", "register '64' is not a number from 0 to 0x3f"),
        ("pdb-hint 1 2 0x100000000", "word '0x100000000' is not a number from 0 to "
                                     "0xffffffff"),
        ("slot 0x00 scalar_opc=1", "slot 0x00 holds no ALU or FETCH instruction"),
        ("slot 4 colour=1", "'colour=1' is not name=value for a field of a alu slot"),
        ("slot 2 opcode=TEX_FETCH", "'opcode=TEX_FETCH': a fetch's opcode is the one its "
                                    "line names"),
        ("slot 4 scalar_opc=64", "scalar_opc '64' is not a number from 0 to 0x3f"),
        ("slot 4 scalar_opc=MAXv", "scalar_opc 'MAXv' is not a number"),
    ],
)
def test_a_bad_note_names_its_line(note: str, message: str) -> None:
    with pytest.raises(GpuIsaError, match=r"t\.txt:2: '; xdk:' line: ") as error:
        assemble("; toolchain: xdk\n; xdk: " + note + "\n" + PROGRAM, filename="t.txt")
    assert message in str(error.value)


@pytest.mark.parametrize(
    ("notes", "message"),
    [
        # Each rewrites the slot after the last instruction: a second would drop or
        # overwrite slot 5, the last ALU instruction of PROGRAM.
        (["no-trailing-slot", "no-trailing-slot"],
         "t.txt:3: '; xdk:' line: a second 'no-trailing-slot' (the first is at line 2)"),
        (["no-trailing-slot", "pdb-hint 1 2 3"],
         "t.txt:3: '; xdk:' line: 'pdb-hint' and 'no-trailing-slot' (line 2) contradict"),
        (["pdb-hint 1 2 3", "pdb-hint 4 5 6"], "t.txt:3: '; xdk:' line: a second 'pdb-hint'"),
        (["centroid r1", "centroid r2"], "t.txt:3: '; xdk:' line: a second 'centroid'"),
        # PROGRAM with the xdk closing slot is slots 0-6.
        (["slot 7 scalar_opc=1"],
         "t.txt:2: '; xdk:' line: slot 7 is past the program's last slot 0x06"),
    ],
)
def test_a_note_given_twice_is_refused(notes: list[str], message: str) -> None:
    text = "".join(f"; xdk: {note}\n" for note in notes)
    with pytest.raises(GpuIsaError) as error:
        assemble("; toolchain: xdk\n" + text + PROGRAM, filename="t.txt")
    assert message in str(error.value)


def test_the_centroid_note_names_the_scalar_destination() -> None:
    # toolchains.names_centroid: no scalar operation, no export (FTexTGVertex's
    # "add r0, r0, -r1" is d0 0xc80f0100 beside dcl_color_centroid r1).
    program = ("EXEC_END\n  ALU: ADDv R0 = R0, -R1\n  ALU: MULv R2.x___ = R0, R0\n"
               "       RECIP_IEEE R3.x___ = R0.xxxx\n  ALU: MAXv export0 = R0, R0\n")
    words = assemble("; xdk: centroid r1\n" + program, toolchain="xdk")
    assert [decode_alu(_slot(words, i)).scalar_dest for i in (1, 2, 3)] == [1, 3, 0]
    assert [decode_alu(_slot(assemble(program, toolchain="xdk"), i)).scalar_dest
            for i in (1, 2, 3)] == [0, 3, 0]
