"""Real shaders: three listings Microsoft's XDK shader compiler wrote with their compiled
containers (tests/a2xx/data/xdk-listings.txt, with their provenance).

The compiler's words are read from its container; gpuisa's XDK listing of them must be
the compiler's listing line for line (except the lines gpuisa does not reproduce: the
``config Vs*`` lines, the ``PsExportColorCount`` comment and the ``dcl_*`` lines), and the
compiler's listing must assemble to the compiler's words.  Both texts and words were
written by the XDK, not by gpuisa.
"""

from __future__ import annotations

import re
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

_NOT_PRINTED = re.compile(r"^(config Vs|// PsExportColorCount|dcl_)")


def _xdk_text(data: bytes) -> str:
    f = read_shader_file(data)
    return disassemble_xdk(
        f.words, f.shader_type, constants=f.constants, literals=f.literals,
        vertex_elements=f.vertex_elements, interpolators=f.interpolators,
    )


def _printed_lines(text: str) -> list[str]:
    return [line for line in text.rstrip("\n").split("\n") if not _NOT_PRINTED.match(line)]


def test_the_data_holds_three_shaders() -> None:
    assert len(shaders()) == 3


@pytest.mark.parametrize(("ident", "listing", "data"), shaders(), ids=IDS)
def test_listing_matches_the_compilers(ident: str, listing: str, data: bytes) -> None:
    assert _printed_lines(_xdk_text(data)) == _printed_lines(listing)


@pytest.mark.parametrize(("ident", "listing", "data"), shaders(), ids=IDS)
def test_compilers_listing_assembles_to_its_words(ident: str, listing: str, data: bytes) -> None:
    assert assemble_xdk(listing).words == read_shader_file(data).words


@pytest.mark.parametrize(("ident", "listing", "data"), shaders(), ids=IDS)
def test_own_listing_round_trips(ident: str, listing: str, data: bytes) -> None:
    words = read_shader_file(data).words
    assert assemble_xdk(_xdk_text(data)).words == words
    f = read_shader_file(data)
    assert assemble_xdk(disassemble(list(words), f.shader_type, style="xdk")).words == words


def test_vertex_shader_declares_its_index() -> None:
    # The compiler's listing of the multipass shader declares r0.x as the vertex index.
    _, listing, data = shaders()[1]
    assert "dcl_index r0.x" in listing.split("\n")
    assert "dcl_index r0.x" in _xdk_text(data).split("\n")


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
    text = "xps_3_0\n    exec\n    mul r4.xyz, r1.xyz, c0.xyz\n    + adds r5.w, r0.xy\n    exece\n"
    words = assemble_xdk(text).words
    alu = decode_alu(slot_from_dwords(*words[3:6]))
    assert alu.scalar_opc == ScalarOpcode.ADDs and alu.scalar_dest == 5
    assert alu.vector_write_mask == 0b0111 and alu.scalar_write_mask == 0b1000
    assert "    mul r4.xyz, r1.xyz, c0.xyz\n    + adds r5.w, r0.xy\n" in disassemble(
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


XENIA_DUMPS = Path(__file__).parent / "data" / "xenia-text-dumps.txt"


def test_xdk_text_of_the_xenia_dumps_reads_back_to_itself() -> None:
    # Seven XDK-compiled pixel shaders as Xenia printed them (loops, labels, co-issued
    # scalar operations, serialize, fetch options): their XDK listing assembles to words
    # that print the same listing again.
    parts = re.split(r"^=== index file \d+ ===\n", XENIA_DUMPS.read_text(), flags=re.MULTILINE)
    for text in parts[1:]:
        listing = disassemble(list(assemble_xenia(text).words), "fragment", style="xdk")
        again = disassemble(list(assemble_xdk(listing).words), "fragment", style="xdk")
        assert again == listing
