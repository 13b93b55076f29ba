"""Real shaders: forty-four listings Microsoft's XDK shader compiler wrote with their
compiled containers (tests/a2xx/data/xdk-listings.txt, with their provenance: three single
C headers and forty-one shaders of Scaleform GFx's X360_ShaderBinary.cpp).

The compiler's words are read from its container; gpuisa's XDK listing of them must be
the compiler's listing character for character (from ``// Shader type`` to ``#endif``:
header, body, the closing PDB hint and debugger hint; fxc's comment block above it holds
its command line, which no container does), and the compiler's listing must
assemble to the compiler's words.  Both texts and words were written by the XDK, not by
gpuisa.  The header rules are also pinned on containers built by hand, with the lines
written out from the rules of a2xx-formats.md#xdk-config.
"""

from __future__ import annotations

import re
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from xdk_listing_helpers import IDS, shaders

from gpuisa.a2xx import disassemble
from gpuisa.a2xx.containers import read_shader_file
from gpuisa.a2xx.encoding import decode_alu, slot_from_dwords
from gpuisa.a2xx.isa import ScalarOpcode, alu_swizzle_components
from gpuisa.a2xx.xdk_asm import assemble_xdk
from gpuisa.a2xx.xdk_text import disassemble_xdk, short_swizzle
from gpuisa.a2xx.xna_asm import assemble_xenia
from gpuisa.errors import GpuIsaError


def _xdk_text(data: bytes) -> str:
    f = read_shader_file(data)
    return disassemble_xdk(f.words, f.shader_type, declared=f)


def test_the_data_holds_forty_four_shaders() -> None:
    assert len(shaders()) == 44


@pytest.mark.parametrize(("ident", "listing", "data"), shaders(), ids=IDS)
def test_listing_matches_the_compilers(ident: str, listing: str, data: bytes) -> None:
    assert _xdk_text(data) == listing


@pytest.mark.parametrize(("ident", "listing", "data"), shaders(), ids=IDS)
def test_compilers_listing_assembles_to_its_words(ident: str, listing: str, data: bytes) -> None:
    assert assemble_xdk(listing).words == read_shader_file(data).words


@pytest.mark.parametrize(("ident", "listing", "data"), shaders(), ids=IDS)
def test_own_listing_round_trips(ident: str, listing: str, data: bytes) -> None:
    words = read_shader_file(data).words
    assert assemble_xdk(_xdk_text(data)).words == words
    f = read_shader_file(data)
    assert assemble_xdk(disassemble(list(words), f.shader_type, style="xdk")).words == words


def _container(shader: bytes, registers: tuple[int, int], after: bytes,
               interpolators: tuple[int, ...]) -> bytes:
    """An XDK container built by hand (a2xx-formats.md#xdk-shader-header): the header,
    the shader header with the register values ``registers`` (SQ_PROGRAM_CNTL,
    SQ_CONTEXT_MISC), the words ``after`` it (a vertex shader's counts, index inputs and
    elements; a pixel shader's SQ_INTERPOLATOR_CNTL and outputs), the interpolators,
    then the microcode of the container ``shader``."""
    code = struct.pack(f">{len(read_shader_file(shader).words)}I",
                       *read_shader_file(shader).words)
    declared = after + struct.pack(f">{len(interpolators)}I", *interpolators)
    shader_header = struct.pack(">6I", 0, len(code), *registers, 0, len(interpolators) << 5)
    virtual = 36 + len(shader_header) + len(declared)
    magic = 0x102A1100 | (read_shader_file(shader).shader_type == "vertex")
    header = struct.pack(">9I", magic, virtual, len(code), 0, 0, 0, 36, 0, 0)
    return header + shader_header + declared + code


def _header(data: bytes) -> list[str]:
    return _xdk_text(data).split("\n\n\n")[0].split("\n")[3:]


def test_vertex_header_from_the_registers_and_declarations() -> None:
    # SQ_PROGRAM_CNTL 0x02010005: VS_NUM_REG 5, VS_RESOURCE 1, export mode 2 (no listing
    # names it).  One index input 0x690: usage 9, index 0, register 0 (bit 8), components
    # 0b0011 from bit 9 (xy).  Interpolator 0x3050: TEXCOORD0 in o0, components 0b0011.
    vertex = shaders()[1][2]
    after = struct.pack(">4I", 1, 0, 0, 0x690)
    data = _container(vertex, (0x02010005, 0), after, (0x3050,))
    assert _header(data) == [
        "config AutoSerialize=false", "config AutoResource=false", "config VsMaxReg=5",
        "config VsResource=1", "// VsExportMode: SQ_PROGRAM_CNTL export mode 2", "",
        "dcl_index r0.xy", "dcl_texcoord o0.xy",
    ]
    words = read_shader_file(data).words
    assert assemble_xdk(_xdk_text(data)).words == words


def test_second_index_input_in_r1() -> None:
    # 0x1B91: usage 9, index 1, register 1 (bit 8), components 0b1101 (xzw).
    vertex = shaders()[1][2]
    data = _container(vertex, (0x00000002, 0), struct.pack(">4I", 1, 0, 0, 0x1B91), ())
    assert _header(data)[-1] == "dcl_index1 r1.xzw"


@pytest.mark.parametrize(
    ("context_misc", "expected"),
    [
        # SC_SAMPLE_CNTL (bits 2-3) 2: the sampling pattern's bit 16 + register, 1 =
        # centre: r0 at the centre, r1 at the centroid.
        (2 << 2, ["// PsSampleControl=both", "", "dcl_texcoord r0.xy",
                  "dcl_color_centroid r1"]),
        (1 << 2, ["// PsSampleControl=centers", "", "dcl_texcoord r0.xy", "dcl_color r1"]),
        # Centroids only: no comment, every interpolator at the centroid.
        (0, ["", "dcl_texcoord_centroid r0.xy", "dcl_color_centroid r1"]),
    ],
)
def test_pixel_header_centroids_and_colour_count(context_misc: int, expected: list[str]) -> None:
    # SQ_PROGRAM_CNTL 0x10000300: PS_NUM_REG 3.  SQ_INTERPOLATOR_CNTL 0x00010003
    # (pattern 0b01); outputs 0x13: colours 0 and 1 and depth; interpolators TEXCOORD0 in
    # r0 (xy) and COLOR0 in r1 (all four).
    pixel = shaders()[0][2]
    after = struct.pack(">2I", 0x00010003, 0x13)
    data = _container(pixel, (0x10000300, context_misc), after, (0x3050, 0xF1A0))
    assert _header(data) == [
        "config AutoSerialize=false", "config AutoResource=false", "config PsMaxReg=3",
        "// PsExportColorCount=2", *expected,
    ]


def test_vertex_header_export_count_and_register_zero() -> None:
    # SQ_PROGRAM_CNTL 0x00300000: VS_NUM_REG 0 and VS_RESOURCE 0 (no lines), export
    # count 3.
    vertex = shaders()[1][2]
    data = _container(vertex, (0x00300000, 0), struct.pack(">3I", 0, 0, 0), ())
    assert _header(data) == [
        "config AutoSerialize=false", "config AutoResource=false", "// VsExportCount=3",
    ]


def test_a_declaration_that_is_no_index_input_leaves_the_names_out() -> None:
    # 0x2A0 has usage 10 (COLOR), not 9: the declarations are not read; the microcode is.
    vertex = shaders()[1][2]
    data = _container(vertex, (3, 0), struct.pack(">4I", 1, 0, 0, 0x2A0), ())
    f = read_shader_file(data)
    assert f.index_inputs == () and f.config is None
    assert f.words == read_shader_file(vertex).words


@pytest.mark.parametrize(
    ("swizzle", "short"), [("xxxx", "x"), ("xyxx", "xyx"), ("yzxx", "yzx"), ("zxyy", "zxy"),
                           ("xyzw", "xyzw"), ("wzyx", "wzyx")],
)
def test_short_swizzle_drops_repeats_of_the_last_component(swizzle: str, short: str) -> None:
    # c255.xyx in the compiler's "mad eA, r0.x, c255.xyx, c4" is xyxx.
    assert short_swizzle(swizzle) == short


def test_movs_is_maxs_of_one_operand_with_itself() -> None:
    # Rule written out: movs d, s.c is maxs with both scalar operands s.c; Xenia's maxs
    # reads its operands from swizzle lanes 3 (W) and 0 (X) of source 3.
    text = "xps_3_0\n    exec\n    movs r1.x, r2.y\n    exece\n"
    words = assemble_xdk(text).words
    alu = decode_alu(slot_from_dwords(*words[3:6]))
    assert alu.scalar_opc == ScalarOpcode.MAXs
    assert alu.src3_reg == 2 and alu.src3_sel == 1
    comps = alu_swizzle_components(alu.src3_swiz)
    assert comps[3] == comps[0] == 1
    assert alu.scalar_write_mask == 0b0001
    assert "    movs r1.x, r2.y\n" in disassemble(list(words), "fragment", style="xdk")


def test_co_issued_scalar_round_trips() -> None:
    # The compiler indents a co-issued scalar line by two spaces and "+ " (Scaleform's
    # "  + movs oC0.w, r0.w", FTexTGMul); four spaces are read too.
    text = "xps_3_0\n    exec\n    mul r4.xyz, r1.xyz, c0.xyz\n    + adds r5.w, r0.xy\n    exece\n"
    words = assemble_xdk(text).words
    alu = decode_alu(slot_from_dwords(*words[3:6]))
    assert alu.scalar_opc == ScalarOpcode.ADDs and alu.scalar_dest == 5
    assert alu.vector_write_mask == 0b0111 and alu.scalar_write_mask == 0b1000
    assert "    mul r4.xyz, r1.xyz, c0.xyz\n  + adds r5.w, r0.xy\n" in disassemble(
        list(words), "fragment", style="xdk"
    )


def test_instruction_before_exec_is_an_error() -> None:
    with pytest.raises(GpuIsaError, match="before the first exec"):
        assemble_xdk("xps_3_0\n    mov oC0, r0\n")


def test_cli_prints_and_assembles_the_xdk_listing(tmp_path: Path) -> None:
    _, listing, data = shaders()[0]
    (tmp_path / "ps.xpu").write_bytes(data)
    (tmp_path / "ps.asm").write_text(listing)
    run = [sys.executable, "-m", "gpuisa.a2xx"]
    out = subprocess.run([*run, "disasm", "--style", "xdk", str(tmp_path / "ps.xpu")],
                         capture_output=True, text=True, check=True).stdout
    assert "    alloc colors\n    exec\n    mov oC0, r0\n    exece\n    nop\n" in out
    hex_out = subprocess.run([*run, "asm", "--hex", str(tmp_path / "ps.asm")],
                             capture_output=True, text=True, check=True).stdout
    words = [int(w, 16) for w in hex_out.split()]
    assert tuple(words) == read_shader_file(data).words


def test_errors_name_the_line_of_the_xdk_listing() -> None:
    with pytest.raises(GpuIsaError) as info:
        assemble_xdk("xps_3_0\n    exec\n    frob r0, r1\n    exece\n", filename="s.asm")
    assert "s.asm:3:5: error: unknown vector operation 'frob'" in str(info.value)


def test_the_compilers_listings_leave_nothing_to_guess() -> None:
    for _, listing, _ in shaders():
        assert assemble_xdk(listing).guesses == ()


XENIA_DUMPS = {
    "fragment": Path(__file__).parent / "data" / "xenia-text-dumps.txt",
    "vertex": Path(__file__).parent / "data" / "xenia-vertex-dumps.txt",
}


@pytest.mark.parametrize("kind", list(XENIA_DUMPS))
def test_xdk_text_of_the_xenia_dumps_reads_back_to_itself(kind: str) -> None:
    # Nine pixel and sixteen vertex shaders, XDK-compiled, as Xenia printed them (loops,
    # jumps, labels, predication, co-issued scalar operations, serialize, fetch options):
    # their XDK listing assembles to words that print the same listing again.
    source = XENIA_DUMPS[kind].read_text()
    parts = re.split(r"^=== index file \d+ ===\n", source, flags=re.MULTILINE)
    for text in parts[1:]:
        listing = disassemble(list(assemble_xenia(text).words), kind, style="xdk")
        again = disassemble(list(assemble_xdk(listing).words), kind, style="xdk")
        assert again == listing


def test_a_debug_block_past_the_end_names_its_offset() -> None:
    # Header word 3 (offset 0x0C) points at the debug block; 0x10000 is past the end.
    data = bytearray(shaders()[3][2])
    data[12:16] = struct.pack(">I", 0x10000)
    with pytest.raises(GpuIsaError, match=r"0x10000.*debug info"):
        read_shader_file(bytes(data))


def test_the_debug_block_and_pdb_hint_close_the_listing() -> None:
    # Scaleform's VTexTG: timestamp 0x50C76F38 at 0x24, the path's 0x5C bytes
    # after it; the slot after the last instruction is 0x4E4A0000 0x9057F44B 0x15D143AA.
    f = read_shader_file(shaders()[3][2])
    assert f.debug is not None and f.debug.timestamp == 0x50C76F38
    assert f.debug.path.endswith("\\Shaders\\VTexTG.hlsl.updb") and len(f.debug.path) == 0x5C
    assert f.words[-3:] == (0x4E4A0000, 0x9057F44B, 0x15D143AA)
    assert _xdk_text(shaders()[3][2]).endswith(
        "// PDB hint 4e4a0000-9057f44b-15d143aa\n\n// Debugger Hint:\n"
        "//  Timestamp: 50c76f38\n"
        '//  Path: "C:\\w\\dd31b82c0738da97\\Scaleform\\Releases\\GFx_4.2.22\\Src\\Render'
        '\\X360\\Shaders\\VTexTG.hlsl.updb"\n'
    )
