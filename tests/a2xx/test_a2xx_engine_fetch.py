"""Vertex fetch: formats, normalisation, addressing and destination swizzles (a2xx-isa.md#fetch)."""

from __future__ import annotations

import struct

import numpy as np
import pytest
from test_a2xx_engine_support import patch_fetch, program

from gpuisa.a2xx import EmulatorConfig, VertexFetchConstant, isa, run_vertex
from gpuisa.errors import InputError

FLOAT_ROWS = np.array([[1.5, -2.0, 3.25, 4.0], [0.0, -0.0, 1e30, -7.0], [8, 9, 10, 11]], "<f4")


def fetch_words(line: str, **fields: int) -> list[int]:
    words = program(f"EXEC_END\n  FETCH: VERTEX {line}\n")
    return patch_fetch(words, 1, **fields) if fields else words


def run_fetch(line: str, data: bytes, count: int, **kwargs: object) -> np.ndarray:
    fields = kwargs.pop("fields", {})
    words = fetch_words(line, **fields)  # type: ignore[arg-type]
    result = run_vertex(words, count, vertex_buffers={0: data}, **kwargs)  # type: ignore[arg-type]
    return result.registers[1]


def test_32_32_32_float_stride_in_bytes() -> None:
    data = FLOAT_ROWS[:, :3].tobytes()
    r = run_fetch("R1.xyz1 = R0.x FMT_32_32_32_FLOAT STRIDE(12) CONST(0, 0)", data, 3)
    np.testing.assert_array_equal(r, np.concatenate([FLOAT_ROWS[:, :3], np.ones((3, 1))], 1))


def test_32_32_float_missing_components_and_constant_selectors() -> None:
    data = FLOAT_ROWS.tobytes()  # 16-byte rows, only x and y fetched
    r = run_fetch("R1 = R0.x FMT_32_32_FLOAT STRIDE(16) CONST(0, 0)", data, 3)
    # components the format lacks read 0.0
    np.testing.assert_array_equal(r, np.concatenate([FLOAT_ROWS[:, :2], np.zeros((3, 2))], 1))
    r = run_fetch("R1.yx01 = R0.x FMT_32_32_FLOAT STRIDE(16) CONST(0, 0)", data, 3)
    np.testing.assert_array_equal(
        r, np.stack([FLOAT_ROWS[:, 1], FLOAT_ROWS[:, 0], np.zeros(3), np.ones(3)], 1)
    )


def test_stride_and_offset_in_dwords_for_xenos() -> None:
    data = FLOAT_ROWS.tobytes()
    line = "R1.xy__ = R0.x FMT_32_32_FLOAT STRIDE(4) OFFSET(2) CONST(0, 0)"
    r = run_fetch(line, data, 3, target="xenos")
    np.testing.assert_array_equal(r[:, :2], FLOAT_ROWS[:, 2:])
    r = run_fetch(line, data, 3, config=EmulatorConfig(address_unit="dwords"))
    np.testing.assert_array_equal(r[:, :2], FLOAT_ROWS[:, 2:])


def test_destination_keeps_unwritten_components() -> None:
    data = FLOAT_ROWS[:, :1].tobytes()
    words = fetch_words("R1.x__0 = R0.x FMT_32_FLOAT STRIDE(4) CONST(0, 0)")
    old = np.full((3, 4), 42.0, np.float32)
    r = run_vertex(words, 3, vertex_buffers={0: data}, registers={1: old}).registers[1]
    np.testing.assert_array_equal(r, np.stack([FLOAT_ROWS[:, 0], [42] * 3, [42] * 3, [0] * 3], 1))


BYTES = [[0, 128, 255, 64], [1, 127, 129, 200]]


@pytest.mark.parametrize(
    ("options", "fields", "expected"),
    [
        # unsigned normalized: v / 255
        ("UNSIGNED NORMALIZED", {}, np.array(BYTES) / np.float32(255)),
        # unsigned integer
        ("UNSIGNED", {}, np.array(BYTES, np.float32)),
        # signed integer: two's complement bytes
        ("SIGNED", {}, np.array([[0, -128, -1, 64], [1, 127, -127, -56]], np.float32)),
        # signed normalized, D3D rule: v / 127, clamped to -1
        (
            "SIGNED NORMALIZED",
            {},
            np.maximum(np.array([[0, -128, -1, 64], [1, 127, -127, -56]]) / np.float32(127), -1),
        ),
        # signed normalized, GL rule (signed_rf_mode_all = 1): (v + 0.5) * 2 / 255
        (
            "SIGNED NORMALIZED",
            {"signed_rf_mode_all": 1},
            (np.array([[0, -128, -1, 64], [1, 127, -127, -56]]) + 0.5) * 2 / np.float32(255),
        ),
    ],
)
def test_8_8_8_8(options: str, fields: dict[str, int], expected: np.ndarray) -> None:
    data = bytes([b for row in BYTES for b in row])
    line = f"R1 = R0.x FMT_8_8_8_8 {options} STRIDE(4) CONST(0, 0)"
    r = run_fetch(line, data, 2, fields=fields)
    np.testing.assert_allclose(r, expected.astype(np.float32), rtol=1e-7, atol=0)


def test_16_16_signed_normalized_and_integer() -> None:
    values = [(-2, 30000), (32767, -32768)]
    data = b"".join(struct.pack("<hh", *v) for v in values)
    r = run_fetch("R1 = R0.x FMT_16_16 SIGNED STRIDE(4) CONST(0, 0)", data, 2)
    np.testing.assert_array_equal(r[:, :2], values)
    r = run_fetch("R1 = R0.x FMT_16_16 SIGNED NORMALIZED STRIDE(4) CONST(0, 0)", data, 2)
    np.testing.assert_allclose(
        r[:, :2], np.maximum(np.array(values) / np.float32(32767), -1), rtol=1e-7
    )
    r = run_fetch("R1 = R0.x FMT_16_16 UNSIGNED NORMALIZED STRIDE(4) CONST(0, 0)", data, 2)
    unsigned = np.array(values) % 65536
    np.testing.assert_allclose(r[:, :2], unsigned / np.float32(65535), rtol=1e-7)


def test_16_16_fixed_point_exp_adjust() -> None:
    # Mesa reads GL_FIXED data as signed 16.16 integers with exp_adjust -16 (fd2_util.c).
    data = struct.pack("<hh", -3, 5)
    line = "R1 = R0.x FMT_16_16 SIGNED STRIDE(4) CONST(0, 0)"
    r = run_fetch(line, data, 1, fields={"exp_adjust_all": (-16) & 0x3F})
    np.testing.assert_array_equal(r[0], [-3 / 65536, 5 / 65536, 0, 0])


def test_16_16_16_16_uses_two_dwords() -> None:
    data = struct.pack("<4H", 1, 2, 3, 65535)
    r = run_fetch("R1 = R0.x FMT_16_16_16_16 UNSIGNED STRIDE(8) CONST(0, 0)", data, 1)
    np.testing.assert_array_equal(r[0], [1, 2, 3, 65535])


def test_half_floats_ieee_and_xenos() -> None:
    halves = [0x3C00, 0xC500, 0x7C00, 0xFC00]  # 1.0, -5.0, exponent 31 (+/-)
    data = struct.pack("<4H", *halves)
    line = "R1 = R0.x FMT_16_16_16_16_FLOAT STRIDE(8) CONST(0, 0)"
    r = run_fetch(line, data, 1)
    np.testing.assert_array_equal(r[0], [1.0, -5.0, np.inf, -np.inf])
    r = run_fetch(line, data, 1, target="xenos")
    # Xenos halves have no infinities: exponent 31 is 2^16
    np.testing.assert_array_equal(r[0], [1.0, -5.0, 65536.0, -65536.0])


@pytest.mark.parametrize(
    ("fmt", "word", "expected"),
    [
        # 10 bits at 0, 10 at 10, 10 at 20, 2 at 30 (unsigned integer)
        ("FMT_2_10_10_10", 1023 | 5 << 10 | 512 << 20 | 3 << 30, [1023, 5, 512, 3]),
        # 11 at 0, 11 at 11, 10 at 22
        ("FMT_10_11_11", 2047 | 6 << 11 | 1000 << 22, [2047, 6, 1000, 0]),
        # 10 at 0, 11 at 10, 11 at 21
        ("FMT_11_11_10", 1000 | 2047 << 10 | 7 << 21, [1000, 2047, 7, 0]),
        ("FMT_32", 0xFFFFFFFF, [4294967295.0, 0, 0, 0]),
        ("FMT_8", 0x000000C8, [200, 0, 0, 0]),
        ("FMT_8_8", 0x0000C801, [1, 200, 0, 0]),
        ("FMT_16", 0x0000FFFE, [65534, 0, 0, 0]),
    ],
)
def test_packed_unsigned_integers(fmt: str, word: int, expected: list[float]) -> None:
    r = run_fetch(f"R1 = R0.x {fmt} UNSIGNED STRIDE(4) CONST(0, 0)", struct.pack("<I", word), 1)
    np.testing.assert_array_equal(r[0], np.array(expected, np.float32))


def test_2_10_10_10_signed_normalized() -> None:
    word = 511 | (1024 - 511) << 10 | 512 << 20 | 1 << 30  # 511, -511, -512, 1
    line = "R1 = R0.x FMT_2_10_10_10 SIGNED NORMALIZED STRIDE(4) CONST(0, 0)"
    r = run_fetch(line, struct.pack("<I", word), 1)
    np.testing.assert_allclose(r[0], [1.0, -1.0, -1.0, 1.0], rtol=1e-7)


def test_32_32_32_32_signed_and_normalized() -> None:
    data = struct.pack("<4i", -5, 2147483647, -2147483648, 7)
    r = run_fetch("R1 = R0.x FMT_32_32_32_32 SIGNED STRIDE(16) CONST(0, 0)", data, 1)
    np.testing.assert_array_equal(r[0], np.array([-5, 2147483647, -2147483648, 7], np.float32))
    r = run_fetch("R1 = R0.x FMT_32_32_32_32 UNSIGNED NORMALIZED STRIDE(16) CONST(0, 0)", data, 1)
    raw = np.array([2**32 - 5, 2147483647, 2147483648, 7], np.float64)
    np.testing.assert_allclose(r[0], raw / 4294967295, rtol=1e-6)


def test_out_of_range_reads_zero_and_fetch_constant_window() -> None:
    data = np.arange(8, dtype="<f4").tobytes()  # 8 floats
    words = fetch_words("R1 = R0.x FMT_32_32_FLOAT STRIDE(8) CONST(0, 1)")
    indices = np.array([0, 1, 3, 4, -1, np.nan, np.inf, 1e20], np.float32)
    res = run_vertex(
        words,
        indices=indices,
        vertex_buffers={"mem": data},
        fetch_constants={1: VertexFetchConstant("mem", offset=4, size=24)},  # floats 1..6
    )
    xy = res.registers[1][:, :2]
    np.testing.assert_array_equal(xy[0], [1, 2])
    np.testing.assert_array_equal(xy[1], [3, 4])
    np.testing.assert_array_equal(xy[2], [0, 0])  # floats 7, 8: beyond the window
    np.testing.assert_array_equal(xy[3:], 0)  # beyond the buffer, negative or bad indices


def test_partial_element_at_window_end() -> None:
    data = np.arange(3, dtype="<f4").tobytes()
    words = fetch_words("R1 = R0.x FMT_32_32_FLOAT STRIDE(8) CONST(0, 0)")
    r = run_vertex(words, 2, vertex_buffers={0: data}).registers[1]
    np.testing.assert_array_equal(r[:, :2], [[0, 1], [2, 0]])  # per-dword bounds check


def test_index_component_and_rounding() -> None:
    data = np.arange(10, dtype="<f4").tobytes()
    r0 = np.array([[0, 2.5, 0, 0], [0, 3.49, 0, 0], [0, 0.5, 0, 0]], np.float32)
    line = "R1.x___ = R0.y FMT_32_FLOAT STRIDE(4) CONST(0, 0)"
    words = fetch_words(line, is_index_rounded=0)
    r = run_vertex(words, 3, vertex_buffers={0: data}, registers={0: r0})
    np.testing.assert_array_equal(r.registers[1][:, 0], [2, 3, 0])  # floor
    words = fetch_words(line, is_index_rounded=1)
    r = run_vertex(words, 3, vertex_buffers={0: data}, registers={0: r0})
    np.testing.assert_array_equal(r.registers[1][:, 0], [3, 3, 1])  # floor(x + 0.5)


@pytest.mark.parametrize(
    ("endian", "pack"),
    [
        (0, lambda v: struct.pack("<f", v)),
        (2, lambda v: struct.pack(">f", v)),  # 8in32: whole dword byte-reversed
        (3, lambda v: struct.pack("<f", v)[2:] + struct.pack("<f", v)[:2]),  # 16in32
        # 8in16: bytes swapped within each half
        (1, lambda v: bytes(struct.pack("<f", v)[i ^ 1] for i in range(4))),
    ],
)
def test_endian_swap(endian: int, pack: object) -> None:
    data = pack(-6.5)  # type: ignore[operator]
    words = fetch_words("R1 = R0.x FMT_32_FLOAT STRIDE(4) CONST(0, 0)")
    const = VertexFetchConstant("b", endian=endian)
    r = run_vertex(words, 1, vertex_buffers={"b": data}, fetch_constants={0: const})
    assert r.registers[1][0, 0] == -6.5


def test_fetch_constant_from_hardware_dwords() -> None:
    # type 3, address 2 dwords, endian 0, size 4 dwords
    const = VertexFetchConstant.from_dwords(3 | 2 << 2, 4 << 2, buffer="m")
    assert const == VertexFetchConstant("m", offset=8, size=16, endian=0)


def test_mini_fetch_reuses_previous_address_on_xenos() -> None:
    text = """EXEC_END
      FETCH: VERTEX R1.x___ = R0.x FMT_32_FLOAT STRIDE(3) CONST(0, 0)
      FETCH: VERTEX R2.x___ = R0.y FMT_32_FLOAT STRIDE(4) OFFSET(8) CONST(1, 2)
    """
    words = program(text)  # the assembler marks the second fetch as a mini fetch (Mesa)
    buffers = {0: np.arange(24, dtype="<f4"), 5: np.arange(100, 110, dtype="<f4")}
    r0 = np.array([[1, 2, 0, 0], [3, 0, 0, 0]], np.float32)
    xenos = run_vertex(words, 2, vertex_buffers=buffers, registers={0: r0}, target="xenos")
    # stride/offset in dwords; the mini fetch reads CONST(0, 0) at the full fetch's
    # element (3 * R0.x) plus its own offset 8
    np.testing.assert_array_equal(xenos.registers[1][:, 0], [3, 9])
    np.testing.assert_array_equal(xenos.registers[2][:, 0], [11, 17])
    # Adreno ignores the bit: its own CONST(1, 2) = slot 5, index R0.y, bytes
    adreno = run_vertex(words, 2, vertex_buffers=buffers, registers={0: r0})
    np.testing.assert_array_equal(adreno.registers[2][:, 0], [104, 102])


def test_missing_buffer_is_an_input_error() -> None:
    words = fetch_words("R1 = R0.x FMT_32_FLOAT STRIDE(4) CONST(3, 1)")
    with pytest.raises(InputError, match=r"fetch constant 10 \(CONST\(3, 1\)\)"):
        run_vertex(words, 1)


def test_vertex_format_table_matches_format_names() -> None:
    # Every Xenos vertex format has a layout, and the component widths are the numbers
    # of the format's name read right to left (x is the least significant field).
    assert set(isa.VERTEX_FORMATS) <= set(isa.VERTEX_FORMAT_INFO)
    for fmt, info in isa.VERTEX_FORMAT_INFO.items():
        numbers = [int(part) for part in fmt.name.split("_") if part.isdigit()]
        assert [width for _, _, width in info.components] == numbers[::-1], fmt.name
        assert info.kind.name == (
            "FLOAT"
            if "FLOAT" in fmt.name and numbers[0] == 32
            else "HALF"
            if "FLOAT" in fmt.name
            else "INTEGER"
        )
