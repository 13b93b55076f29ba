"""Real XDK containers without a listing (tests/a2xx/data/xdk-containers.txt, with their
provenance): four of the 2005 version (magic 0x102A0E00 / 0x102A0E01, compiler
2.0.2135.0) with the HLSL they were compiled from, and three of the current version
(compiler 2.0.20353.0) whose source comments list their samplers.

The expected values come from the words themselves, read here with ``struct`` by the
layout of a2xx-formats.md#xdk-2005 and #xdk-container (the microcode is the array's last
words: physical size / 4 of them in the 2005 version, the shader header's size / 4 in the
current one), from the HLSL in the comments (semantics, ``_centroid``, the sampler's
register) and from the comments' register tables.  The words were written by Microsoft's
compiler, not by gpuisa.
"""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from xdk_listing_helpers import CONTAINERS, array_bytes, sections

from gpuisa.a2xx.asm import assemble
from gpuisa.a2xx.cli import main
from gpuisa.a2xx.containers import read_shader_file
from gpuisa.a2xx.encoding import decode_fetch, slot_from_dwords
from gpuisa.a2xx.errors import ContainerError

_ALL = [(ident, array_bytes(text)) for ident, text in sections(CONTAINERS)]
_IDS = [ident.split()[1] for ident, _ in _ALL]
_DATA = dict(zip(_IDS, (data for _, data in _ALL), strict=True))
OLD = ("g_vsdPassthruPC", "g_psdPassthruC", "g_vsdPassthruPCT", "g_psdMultiplyCT")
COMPILER_2005 = "Microsoft (R) Xbox 360 Shader Compiler 2.0.2135.0"


def _words(data: bytes) -> tuple[int, ...]:
    return struct.unpack(f">{len(data) // 4}I", data)


def _microcode(data: bytes) -> tuple[int, ...]:
    """The array's last words: the 2005 header's physical size (word 2) in bytes, or the
    size in the current version's shader header (word 1 at the offset in word 6)."""
    words = _words(data)
    if words[0] & ~1 == 0x102A0E00:
        size = words[2]
    else:
        size = words[words[6] // 4 + 1]
        assert words[1] + words[words[6] // 4] + size == len(data)  # it ends the file
    return words[-(size // 4):]


def test_the_data_holds_seven_containers() -> None:
    assert [*OLD, "ps", "vs", "ps_osd"] == _IDS


@pytest.mark.parametrize(("ident", "data"), _ALL, ids=_IDS)
def test_type_and_microcode(ident: str, data: bytes) -> None:
    shader = read_shader_file(data)
    assert shader.format == "xdk"
    assert shader.shader_type == ("vertex" if _words(data)[0] & 1 else "fragment")
    assert shader.words == _microcode(data)


@pytest.mark.parametrize(
    ("name", "creator", "target", "constants"),
    [
        ("g_vsdPassthruPC", COMPILER_2005, "vs_3_0", []),
        ("g_psdPassthruC", COMPILER_2005, "ps_3_0", []),
        ("g_vsdPassthruPCT", COMPILER_2005, "vs_3_0", []),
        # "sampler tex0 : register(s0)" in its HLSL.
        ("g_psdMultiplyCT", COMPILER_2005, "ps_3_0", [("tex0", "s0", 1)]),
        # The comment's "Registers" table.
        ("ps", "2.0.20353.0", "ps_3_0", [("UTexture", "s1", 1), ("VTexture", "s2", 1),
                                         ("YTexture", "s0", 1)]),
        # No comment: the table's count word (at 0x24 + 4 + 12) is 0.
        ("vs", "2.0.20353.0", "vs_3_0", []),
        ("ps_osd", "2.0.20353.0", "ps_3_0", [("YTexture", "s0", 1)]),
    ],
)
def test_constant_table(name: str, creator: str, target: str,
                        constants: list[tuple[str, str, int]]) -> None:
    shader = read_shader_file(_DATA[name])
    assert (shader.creator, shader.target) == (creator, target)
    assert sorted((c.name, c.register, c.count) for c in shader.constants) == constants
    # "sampler2D" in the MPlayer comments' "Parameters"; the HLSL's "sampler" that
    # tex2D reads is one too.
    assert all(c.parameter_type == "sampler2D" for c in shader.constants)


@pytest.mark.parametrize(
    ("name", "inputs", "outputs"),
    [
        # VS_IN's semantics in the vertex elements, VS_OUT's beside POSITION as the
        # interpolators; PS_IN's as a pixel shader's interpolators, all "_centroid".
        ("g_vsdPassthruPC", ["POSITION0", "COLOR0"], ["COLOR0"]),
        ("g_vsdPassthruPCT", ["POSITION0", "COLOR0", "TEXCOORD0"], ["COLOR0", "TEXCOORD0"]),
        ("g_psdPassthruC", [], ["COLOR0"]),
        ("g_psdMultiplyCT", [], ["COLOR0", "TEXCOORD0"]),
    ],
)
def test_2005_declarations_are_the_hlsl_semantics(name: str, inputs: list[str],
                                                  outputs: list[str]) -> None:
    shader = read_shader_file(_DATA[name])
    assert [e.name for e in shader.vertex_elements] == inputs
    assert sorted(i.name for i in shader.interpolators) == outputs
    assert shader.config is not None
    if shader.shader_type == "vertex":
        # Each element names the slot of a vertex fetch; VS_EXPORT_COUNT is the number
        # of interpolators less one; r0.x holds the index, as in the current version.
        for element in shader.vertex_elements:
            slot = slot_from_dwords(*shader.words[3 * element.slot : 3 * element.slot + 3])
            assert decode_fetch(slot).opcode.name == "VTX_FETCH"
        assert shader.config.vs_export_count == len(outputs) - 1
        assert [(i.register, i.mask) for i in shader.index_inputs] == [(0, 0x1)]
    else:
        assert all(i.centroid for i in shader.interpolators)
        assert shader.config.color_exports == 1  # "float4 main(...) : COLOR"


def _disasm(tmp_path: Path, capsys: pytest.CaptureFixture[str], data: bytes,
            *options: str) -> str:
    path = tmp_path / "shader.bin"
    path.write_bytes(data)
    assert main(["disasm", str(path), *options]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    return out


@pytest.mark.parametrize(("ident", "data"), _ALL, ids=_IDS)
def test_disasm_reassembles_to_the_containers_microcode(
    ident: str, data: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = _disasm(tmp_path, capsys, data)
    assert assemble(text, toolchain="xdk") == list(_microcode(data))
    assert _disasm(tmp_path, capsys, data, "--style", "xdk").startswith("// Shader type")


# The ALU slots of the four 2005 shaders (their EXEC clauses' addresses and counts):
# the slots after the vertex fetches or the texture fetch.
ALU_SLOTS = {"g_vsdPassthruPC": (5, 6), "g_psdPassthruC": (1,), "g_vsdPassthruPCT": (6, 7, 8),
             "g_psdMultiplyCT": (3,)}


@pytest.mark.parametrize("name", OLD)
def test_2005_compiler_fills_two_things_otherwise(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without the ``; xdk:`` lines, the xdk toolchain's rules (the 2010 compiler's) give
    two differences: an ALU instruction's unused third source is a temporary (dword 2
    bit 29, src3_sel, set; the 2005 compiler clears it) and a zero slot follows the last
    instruction (the 2005 compiler writes none)."""
    text = _disasm(tmp_path, capsys, _DATA[name])
    lines = [line for line in text.splitlines() if not line.startswith("; xdk:")]
    expected = list(_microcode(_DATA[name]))
    for slot in ALU_SLOTS[name]:
        assert not expected[3 * slot + 2] >> 29 & 1
        expected[3 * slot + 2] |= 1 << 29
    assert assemble("\n".join(lines), toolchain="xdk") == [*expected, 0, 0, 0]
    assert "; xdk: no-trailing-slot" in text


def _patched(name: str, word: int, value: int) -> bytes:
    words = list(_words(_DATA[name]))
    words[word] = value
    return struct.pack(f">{len(words)}I", *words)


# One header word of g_psdPassthruC changed: (word, value, the message's start).
_PATCHES = {
    "constant-table-offset": (4, 0x10000, r"byte offset 0x10004, constant table: needs 28"),
    "virtual-size": (1, 0x1000, r"byte offset 0x4, virtual_size: the physical part would "
                                r"start at 0x1000"),
    "physical-size": (2, 0x14, r"byte offset 0x8, physical_size: microcode size 20 is not"),
    "shader-offset": (5, 0x98, r"byte offset 0x14, shader_offset: the shader header at "
                               r"0x98 is not inside"),
    "word-0c": (3, 0x40, r"byte offset 0xC, word_0c: is 0x40, .* bytes 0x98-0xB0: .* "
                         r"--byte-order big"),
    "magic": (0, 0x102A0E02, r"byte offset 0x0, magic: 0x102A0E02 is not an XDK shader "
                             r"container's magic \(0x102A1100 / 0x102A1101 \(pixel / "
                             r"vertex\), or the 2005 version's 0x102A0E00 / 0x102A0E01\)"),
}
_DAMAGED = [
    ("truncated-header", _DATA["g_psdPassthruC"][:20],
     r"byte offset 0x0, header: needs 24 bytes"),
    # 0x98 virtual bytes, then 24 bytes of microcode, 4 of them missing.
    ("truncated-microcode", _DATA["g_psdPassthruC"][:-4],
     r"byte offset 0x98, microcode \(virtual_size, physical_size\): needs 24 bytes"),
    *((name, _patched("g_psdPassthruC", word, value), message)
      for name, (word, value, message) in _PATCHES.items()),
]


@pytest.mark.parametrize(("data", "message"), [case[1:] for case in _DAMAGED],
                         ids=[case[0] for case in _DAMAGED])
def test_damaged_2005_containers(data: bytes, message: str) -> None:
    with pytest.raises(ContainerError, match=message):
        read_shader_file(data)


def test_damaged_2005_container_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.bin"
    path.write_bytes(_patched("g_vsdPassthruPC", 4, 0x10000))
    assert main(["disasm", str(path)]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (f"a2xx: error: {path}: byte offset 0x10004, constant table: needs 28 "
                   "bytes but the file ends at 0x104 (260 bytes)\n")
