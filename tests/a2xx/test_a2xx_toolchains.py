"""``--toolchain``: the bits Mesa's text does not show, filled as each compiler fills them.

Real shaders: Mesa's text of the three XDK-compiled containers of
tests/a2xx/data/xdk-listings.txt built without a debug database reassembles to the XDK
compiler's words with ``toolchain="xdk"`` (and not with the Adreno defaults).  Rules:
each toolchain's fills for a hand-written program, expected values written out from the
evidence cited in gpuisa.a2xx.toolchains (XDK containers, the Adreno GMEM shaders,
Mesa's ir2_assemble.c).
"""

from __future__ import annotations

import pytest
from xdk_listing_helpers import shaders

from gpuisa.a2xx import disassemble
from gpuisa.a2xx.asm import assemble, assemble_with_warnings
from gpuisa.a2xx.containers import read_shader_file
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


# The containers without a debug database.  Mesa's text of Scaleform's (fxc /XZi) cannot
# give their words back: it does not carry the PDB hint kept after the last instruction,
# the texture fetch's dimension bits, or the bit Xenia shows as the 0 of oPos.x001
# (a2xx-formats.md#toolchain-defaults); their XDK listing does (test_a2xx_xdk_style.py).
_NO_DEBUG = [s for s in shaders() if read_shader_file(s[2]).debug is None]


@pytest.mark.parametrize(("ident", "listing", "data"), _NO_DEBUG, ids=[s[0] for s in _NO_DEBUG])
def test_mesa_text_of_xdk_shaders_reassembles_with_the_xdk_toolchain(
    ident: str, listing: str, data: bytes
) -> None:
    shader = read_shader_file(data)
    text = disassemble(list(shader.words), shader.shader_type)  # type: ignore[arg-type]
    assert tuple(assemble(text, toolchain="xdk")) == shader.words
    assert tuple(assemble(text)) != shader.words  # the Adreno fills are not the XDK's


def _slot(words: list[int], index: int) -> int:
    return slot_from_dwords(*words[3 * index : 3 * index + 3])


@pytest.mark.parametrize(
    ("toolchain", "scalar_opc", "src3_sel", "fetches", "relative", "vc"),
    [
        # (prefetch_count, is_mini_fetch, is_index_rounded, signed_rf_mode_all) per fetch
        ("adreno", 5, 1, [(3, 0, 1, 0), (2, 1, 0, 1)], 0, 0),  # MAXs; GMEM shaders
        ("xdk", 50, 1, [(0, 0, 0, 0), (0, 0, 0, 0)], 0, 0b11),  # RETAIN_PREV; containers
        ("mesa", 0, 0, [(3, 0, 0, 0), (2, 1, 0, 0)], 1, 0),  # ir2: zeroed, eA relative
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
    assert result.guesses == (
        f"|C63| is c{register} (c{register ^ 0x40} reads the same), the {toolchain} "
        "toolchain's rule (2 times)",
    )


def test_unknown_toolchain_is_an_error() -> None:
    with pytest.raises(GpuIsaError, match="unknown toolchain 'gcc'"):
        assemble(PROGRAM, toolchain="gcc")


@pytest.mark.parametrize(("ident", "listing", "data"), _NO_DEBUG, ids=[s[0] for s in _NO_DEBUG])
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
