"""Files that hold A2XX microcode, read by content (a2xx-formats.md).

Containers are built here byte by byte with ``struct`` from the layout on
a2xx-formats.md#xdk-container; the expected values are the ones put in.  The Xenia hash
of a program is the reference implementation's (python-xxhash 4.1.0) value, and XXH3
itself is checked against tests/a2xx/data/xxh3-vectors.txt.
"""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from container_helpers import WORDS, WORDS_HASH, be, build_container

from gpuisa.a2xx.containers import read_shader_file, read_xdk_container, xenia_hash, xxh3_64
from gpuisa.a2xx.errors import A2xxError, ContainerError

DATA = Path(__file__).parent / "data"
def test_xxh3_matches_the_reference_implementation() -> None:
    rows = [
        line.split() for line in (DATA / "xxh3-vectors.txt").read_text().splitlines()
        if line and not line.startswith("#")
    ]
    assert len(rows) == 25
    for length, expected in rows:
        data = bytes((7 * i + 3) & 0xFF for i in range(int(length)))
        assert f"{xxh3_64(data):016X}" == expected, length


def test_xdk_container() -> None:
    data = build_container()
    shader = read_shader_file(data)
    assert (shader.format, shader.shader_type, shader.byte_order) == ("xdk", "vertex", "big")
    assert shader.words == WORDS
    assert shader.creator == "Microsoft (R) HLSL Shader Compiler"
    assert shader.target == "xvs_3_0"
    fsize, mvp = shader.constants
    assert (fsize.name, fsize.register, fsize.count, fsize.parameter_class) == (
        "fsize", "c0", 1, "vector"
    )
    assert (mvp.name, mvp.register, mvp.count, mvp.rows, mvp.columns) == ("mvp", "c4", 4, 4, 4)
    assert mvp.parameter_class == "matrix_rows" and mvp.parameter_type == "float"
    assert read_xdk_container(data).microcode_offset == len(data) - 60


def test_pixel_container_and_no_constant_table() -> None:
    shader = read_shader_file(build_container(magic=0x102A1100, ctab_offset=0))
    assert shader.shader_type == "fragment" and shader.constants == ()


def test_xenia_dump_little_endian_with_type_and_hash_from_its_name() -> None:
    data = struct.pack("<15I", *WORDS)
    shader = read_shader_file(data, f"dump/shader_{WORDS_HASH:016X}.ucode.bin.frag")
    assert (shader.format, shader.shader_type, shader.byte_order) == (
        "xenia-dump", "fragment", "little"
    )
    assert shader.words == WORDS
    assert shader.xenia_hash == shader.name_hash == WORDS_HASH
    assert xenia_hash(WORDS) == WORDS_HASH


@pytest.mark.parametrize("order", ["<", ">"])
def test_raw_microcode_in_either_byte_order(order: str) -> None:
    shader = read_shader_file(struct.pack(f"{order}15I", *WORDS), "shader.bin")
    assert shader.format == "raw" and shader.words == WORDS and shader.byte_order_certain
    assert shader.byte_order == {"<": "little", ">": "big"}[order]
    assert shader.shader_type is None


def test_forced_byte_order() -> None:
    data = struct.pack(">15I", *WORDS)
    assert read_shader_file(data, byte_order="little").words == struct.unpack("<15I", data)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (build_container()[:20], r"offset 0x0, header: needs 36 bytes .* 0x14 \(20 bytes\)"),
        (
            build_container(ctab_offset=0x10000),
            r"byte offset 0x10004, constant table: needs 28 bytes",
        ),
        (
            build_container(name_offset=0x7000),
            r"byte offset 0x7028, constant_info\[0\]\.name: needs 1 bytes",
        ),
        (
            build_container(microcode=be(*WORDS)[:16]),
            r"shader\.size: microcode size 16 is not a whole number of 12-byte",
        ),
        (
            build_container(magic=0x102A1201),
            r"byte offset 0x0, magic: 0x102A1201 is not an XDK shader container's magic",
        ),
        (
            b"\xff" * 36,
            r"byte offset 0x0, magic: not an XDK shader container \(its first word 0xFFFFFFFF",
        ),
        (struct.pack("<15I", *WORDS)[:-1], r"offset 0x38, microcode: 59 bytes is not a whole"),
        (struct.pack("<15I", *WORDS)[:-4], r"offset 0x30, microcode: 56 bytes is not a whole"),
        (b"", r"byte offset 0x0, microcode: the file is empty"),
    ],
)
def test_damaged_files(data: bytes, message: str) -> None:
    with pytest.raises(ContainerError, match=message) as caught:
        read_shader_file(data, "x.bin")
    assert isinstance(caught.value, A2xxError)


def test_truncated_microcode_in_a_container() -> None:
    data = build_container()[:-12]
    with pytest.raises(ContainerError, match=r"microcode \(virtual_size.*needs 60 bytes"):
        read_shader_file(data)


def test_literal_constants_of_the_definition_table() -> None:
    data = build_container(literals=((252, (0.0, 1.0, 0.5, 2.0, -1.0, 4.0, 8.0, 16.0)),))
    assert [(lit.register, lit.values) for lit in read_shader_file(data).literals] == [
        (252, (0.0, 1.0, 0.5, 2.0)),
        (253, (-1.0, 4.0, 8.0, 16.0)),
    ]
    # A pixel shader's definitions number its float constants from 256.
    pixel = build_container(magic=0x102A1100, literals=((256 + 255, (1.0, 2.0, 3.0, 4.0)),))
    assert [(lit.register, lit.values) for lit in read_shader_file(pixel).literals] == [
        (255, (1.0, 2.0, 3.0, 4.0))
    ]
    with pytest.raises(ContainerError, match="float definition for c3 below"):
        read_shader_file(build_container(magic=0x102A1100, literals=((3, (1.0,) * 4),)))


def test_declarations_of_the_shader_header() -> None:
    # Elements: slot | usage << 12 | usage index << 16; interpolators: usage index |
    # usage << 4 | register << 8 (D3DDECLUSAGE: POSITION 0, TEXCOORD 5, COLOR 10).
    data = build_container(
        elements=(2, 3 | 5 << 12 | 1 << 16), interpolators=(0x050, 1 | 10 << 4 | 2 << 8)
    )
    shader = read_shader_file(data)
    assert [(e.slot, e.name) for e in shader.vertex_elements] == [(2, "POSITION0"),
                                                                  (3, "TEXCOORD1")]
    assert [(i.register, i.name) for i in shader.interpolators] == [(0, "TEXCOORD0"),
                                                                     (2, "COLOR1")]
    pixel = read_shader_file(build_container(magic=0x102A1100, interpolators=(0x3A0,)))
    assert [(i.register, i.name) for i in pixel.interpolators] == [(3, "COLOR0")]
    # A usage beyond D3DDECLUSAGE: the container is read, without the declarations.
    odd = read_shader_file(build_container(elements=(2 | 15 << 12,)))
    assert odd.words == WORDS and odd.vertex_elements == ()


def test_the_name_hash_settles_an_ambiguous_byte_order() -> None:
    # One CF slot that is a consistent program read either way round: little-endian an
    # EXEC_END with ADDR(1) CNT(0), big-endian an EXEC with ADDR(0).
    data = struct.pack("<3I", 0x1, 0x102000, 0x0)
    assert read_shader_file(data, "x.bin").byte_order_certain is False
    for order in ("little", "big"):
        words = struct.unpack(("<" if order == "little" else ">") + "3I", data)
        name = f"shader_{xenia_hash(words):016X}.ucode.bin.vert"
        shader = read_shader_file(data, name)
        assert (shader.byte_order, shader.byte_order_certain) == (order, True)
        assert shader.words == words
