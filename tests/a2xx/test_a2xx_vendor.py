"""Vendor-compiled shaders: Mesa text of the vendor's words reassembles to those words.

Two sets, each with the toolchain whose rules fill the bits Mesa's text does not print
(the MAXs scalar filler, src3_sel of unused sources, the vertex fetch's rounding and
mini bits, a2xx-formats.md#toolchain-defaults):

* ``adreno``: the Adreno GLES driver's programs as freedreno captured them, kept with
  their provenance in data/adreno-captures.txt;
* ``adreno-kernel``: the four GMEM save/restore shaders the Adreno compiler built for the
  Adreno 200 kernel driver, copied from the public linux-freedreno-a20x tree,
  drivers/mxc/amd-gpu/common/gsl_drawctxt.c (gmem2sys_vtx_pgm, gmem2sys_frag_pgm,
  sys2gmem_vtx_pgm, sys2gmem_frag_pgm).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gpuisa.a2xx import assemble, disassemble

GMEM2SYS_VTX = [
    0x00011003, 0x00001000, 0xC2000000,
    0x00001004, 0x00001000, 0xC4000000,
    0x00001005, 0x00002000, 0x00000000,
    0x1CB81000, 0x00398A88, 0x00000003,
    0x140F803E, 0x00000000, 0xE2010100,
    0x14000000, 0x00000000, 0xE2000000,
]  # fmt: skip
GMEM2SYS_FRAG = [
    0x00000000, 0x1002C400, 0x10000000,
    0x00001003, 0x00002000, 0x00000000,
    0x140F8000, 0x00000000, 0x22000000,
    0x14000000, 0x00000000, 0xE2000000,
]  # fmt: skip
SYS2GMEM_VTX = [
    0x00052003, 0x00001000, 0xC2000000, 0x00001005,
    0x00001000, 0xC4000000, 0x00001006, 0x10071000,
    0x20000000, 0x18981000, 0x0039BA88, 0x00000003,
    0x12982000, 0x40257B08, 0x00000002, 0x140F803E,
    0x00000000, 0xE2010100, 0x140F8000, 0x00000000,
    0xE2020200, 0x14000000, 0x00000000, 0xE2000000,
]  # fmt: skip
SYS2GMEM_FRAG = [
    0x00011002, 0x00001000, 0xC4000000, 0x00001003,
    0x10041000, 0x20000000, 0x10000001, 0x1FFFF688,
    0x00000002, 0x140F8000, 0x00000000, 0xE2000000,
    0x14000000, 0x00000000, 0xE2000000,
]  # fmt: skip

GMEM_SHADERS = {
    "gmem2sys_vtx": ("vertex", GMEM2SYS_VTX),
    "gmem2sys_frag": ("fragment", GMEM2SYS_FRAG),
    "sys2gmem_vtx": ("vertex", SYS2GMEM_VTX),
    "sys2gmem_frag": ("fragment", SYS2GMEM_FRAG),
}


CAPTURES_FILE = Path(__file__).parent / "data" / "adreno-captures.txt"


def _captures() -> dict[str, tuple[str, list[int]]]:
    """{array: (shader type, words)} of data/adreno-captures.txt."""
    parts = re.split(r"^=== \S+ (\w+) (vertex|fragment) ===\n", CAPTURES_FILE.read_text(),
                     flags=re.MULTILINE)
    return {
        name: (shader_type, [int(w, 16) for w in re.findall(r"0x([0-9a-f]{8})", body)])
        for name, shader_type, body in zip(parts[1::3], parts[2::3], parts[3::3], strict=True)
    }


CAPTURES = _captures()
KERNEL = "adreno-kernel"


@pytest.mark.parametrize("name", GMEM_SHADERS)
@pytest.mark.parametrize("raw", [False, True])
def test_gmem_shader_round_trip(name: str, raw: bool) -> None:
    shader_type, words = GMEM_SHADERS[name]
    text = disassemble(words, shader_type, raw=raw)  # type: ignore[arg-type]
    assert assemble(text, toolchain=KERNEL) == words


@pytest.mark.parametrize("name", CAPTURES)
def test_captured_driver_shader_round_trip(name: str) -> None:
    # The default toolchain is the GLES driver's: its captures need no option.
    shader_type, words = CAPTURES[name]
    assert assemble(disassemble(words, shader_type)) == words  # type: ignore[arg-type]


# The slots of the vertex fetches, from each program's first EXEC word (bits 0-11 its
# first slot, 12-14 its count, 16-27 its sequence: two bits per instruction, the low one
# set for a fetch): the solid VS's 0x00031003 runs one fetch in slot 3 (sequence 0x003),
# the cube VS's 0x00956003 three fetches in slots 3-5 (0x095: 01 01 01 10), the kernel's
# gmem2sys VS (0x00011003) one in slot 3 and sys2gmem VS (0x00052003) two in slots 3-4.
FETCH_SLOTS = {"solid_vertex_shader_bin": [3], "vertex_shader_bin": [3, 4, 5]}


def _d1(words: list[int], slots: list[int]) -> list[int]:
    return [words[3 * slot + 1] for slot in slots]


def test_the_two_vendor_sets_differ_only_in_the_vertex_fetch_bits() -> None:
    # The evidence for the two toolchains, read straight from the words: the GLES driver
    # leaves d1 bits 14-15 clear on all four of its vertex fetches; the kernel's programs
    # set bit 15 on the first fetch and bit 14 on the later one.
    driver = [d1 for name, slots in FETCH_SLOTS.items() for d1 in _d1(CAPTURES[name][1], slots)]
    assert [d1 & 0xC000 for d1 in driver] == [0, 0, 0, 0]
    assert [d1 & 0xC000 for d1 in _d1(SYS2GMEM_VTX, [3, 4])] == [0x8000, 0x4000]
    assert [d1 & 0xC000 for d1 in _d1(GMEM2SYS_VTX, [3])] == [0x8000]
    # So each set needs its own rules, and only those bits differ.
    kernel_text = disassemble(SYS2GMEM_VTX, "vertex")
    driver_words = CAPTURES["vertex_shader_bin"][1]
    driver_text = disassemble(driver_words, "vertex")
    assert [a ^ b for a, b in zip(assemble(kernel_text), SYS2GMEM_VTX, strict=True)
            if a != b] == [0x8000, 0x4000]
    assert [a ^ b for a, b in zip(assemble(driver_text, toolchain=KERNEL), driver_words,
                                  strict=True) if a != b] == [0x8000, 0x4000, 0x4000]


def test_gmem2sys_fragment_text() -> None:
    # Written from the a2xx-isa.md#mesa-text rules: ALLOC, EXEC of one ALU (C0 to export 0),
    # EXEC_END of the vendor's closing no-op (vector and scalar masks empty, so both lines print).
    assert disassemble(GMEM2SYS_FRAG, "fragment") == (
        "\tALLOC PARAM/PIXEL SIZE(0x0)\n"
        "\tEXEC ADDR(0x2) CNT(0x1)\n"
        "\t      ALU:\tMAXv\texport0 = C0, C0\t; gl_FragColor\n"
        "\tEXEC_END ADDR(0x3) CNT(0x1)\n"
        "\t      ALU:\tMAXv\tR0.____ = R0, R0\n"
        "\t\t    \tMAXs\tR0.____ = R0\n"
        "\tNOP\n"
    )
