"""XDK shader containers and microcode built by hand for the container and CLI tests, from
the layout on a2xx-formats.md#xdk-container."""

from __future__ import annotations

import struct

# A vertex shader: the words of tests/a2xx/test_a2xx_cli.py's SOURCE.  The container tests
# only need some consistent program; they check that these words come back unchanged.
WORDS = (
    0x00000000, 0x2002C200, 0x10000001, 0x00000000, 0x1004C400, 0x20000000,
    0x18481000, 0x0039AA88, 0x0000000C, 0x140F803E, 0x00000000, 0xE2010100,
    0x140F8000, 0x00000000, 0xA1010300,
)
# xxhash.xxh3_64_intdigest(struct.pack(">15I", *WORDS)) with python-xxhash 4.1.0.
WORDS_HASH = 0x6A503F68352DDC7B


def be(*words: int) -> bytes:
    return struct.pack(f">{len(words)}I", *words)


def build_container(
    *,
    magic: int = 0x102A1101,
    ctab_offset: int = 0x24,
    name_offset: int | None = None,
    microcode: bytes | None = None,
    literals: tuple[tuple[int, tuple[float, ...]], ...] = (),
    elements: tuple[int, ...] = (),
    interpolators: tuple[int, ...] = (),
) -> bytes:
    """An XDK container: header, constant table, definition table (``literals``: first
    register as the table numbers it, and its floats), shader header (with the vertex
    ``elements`` and ``interpolators`` words), then the physical part (the microcode,
    then the literals' values)."""
    # Constant table (offsets from its start): header 28 bytes, two 20-byte constant
    # infos, two 16-byte type infos, then the strings.
    strings = b"fsize\0mvp\0Microsoft (R) HLSL Shader Compiler\0xvs_3_0\0"
    info_at, type_at, str_at = 28, 28 + 40, 28 + 40 + 32
    fsize_at = str_at if name_offset is None else name_offset
    mvp_at, creator_at = str_at + 6, str_at + 10
    target_at = creator_at + strings.index(b"xvs") - 10
    size = str_at + len(strings)
    ctab = be(size, creator_at, 0xFFFE0300, 2, info_at, 0, target_at)
    ctab += be(fsize_at) + struct.pack(">4H", 2, 0, 1, 0) + be(type_at, 0)  # float4 c0
    ctab += be(mvp_at) + struct.pack(">4H", 2, 4, 4, 0) + be(type_at + 16, 0)  # c4-c7
    ctab += struct.pack(">6HI", 1, 3, 1, 4, 1, 0, 0)  # vector float 1x4
    ctab += struct.pack(">6HI", 2, 3, 4, 4, 1, 0, 0)  # matrix_rows float 4x4
    ctab += strings
    ctab_block = be(len(ctab)) + ctab
    code = microcode if microcode is not None else be(*WORDS)
    # Definition table: five header words, (register << 16 | floats, value offset in the
    # physical part) per definition, a zero word.
    definitions, values = b"", b""
    for register, floats in literals:
        definitions += be(register << 16 | len(floats), len(code) + len(values))
        values += struct.pack(f">{len(floats)}f", *floats)
    def_at = 0x24 + len(ctab_block) if literals else 0
    def_block = be(0, 0, 0, 0, len(definitions)) + definitions + be(0) if literals else b""
    shader_at = 0x24 + len(ctab_block) + len(def_block)
    shader_header = be(0, len(code), 0, 0, 0, len(interpolators) << 5)
    if magic & 1:  # vertex: nothing skipped, the element count, an unknown word
        shader_header += be(0, len(elements), 0) + be(*elements)
    else:  # pixel: an unknown word and the outputs
        shader_header += be(0, 1)
    shader_header += be(*interpolators)
    virtual_size = shader_at + len(shader_header)
    physical = code + values
    header = be(magic, virtual_size, len(physical), 0, ctab_offset, def_at, shader_at, 0, 0)
    return header + ctab_block + def_block + shader_header + physical
