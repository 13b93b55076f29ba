"""Vendor-compiled shaders: Mesa text of the vendor's words reassembles to those words.

The words are the four GMEM save/restore shaders the Adreno compiler built for the
Adreno 200 kernel driver, copied from the public linux-freedreno-a20x tree,
drivers/mxc/amd-gpu/common/gsl_drawctxt.c (gmem2sys_vtx_pgm, gmem2sys_frag_pgm,
sys2gmem_vtx_pgm, sys2gmem_frag_pgm).  They set bits Mesa's text does not print (the
MAXs scalar filler, src3_sel of unused sources, the vertex fetch's rounding/mini bits).
"""

from __future__ import annotations

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


@pytest.mark.parametrize("name", GMEM_SHADERS)
@pytest.mark.parametrize("raw", [False, True])
def test_gmem_shader_round_trip(name: str, raw: bool) -> None:
    shader_type, words = GMEM_SHADERS[name]
    assert assemble(disassemble(words, shader_type, raw=raw)) == words  # type: ignore[arg-type]


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
