"""Fetches: every vertex format of :data:`gpuisa.a2xx.isa.VERTEX_FORMAT_INFO` signed and
unsigned, normalized and integer, with exponent adjustments, byte swaps, strides and
offsets (whose unit is where Adreno and Xenos differ), predicated fetches; texture
fetches (nearest, bilinear, texel offsets) and the fetch forms without a result."""

from __future__ import annotations

import struct
from collections.abc import Iterator

import numpy as np

from .. import isa
from ..isa import VertexDataKind
from .model import MODEL, Provenance
from .spec import Draft, buffer, draft, named, texture

VERTEX = Provenance(MODEL, "a2xx-isa.md#vertex-fetch, a2xx-isa.md#unpacking")
TEXTURE = Provenance(MODEL, "a2xx-isa.md#texture-fetch, a2xx-isa.md#fetch-execution")
ROWS = 4
#: 16-bit halves the half-float formats read: ordinary values, +-0, the largest finite
#: half, exponent 31 (INF/NaN in IEEE, ordinary on Xenos) and denormals.
HALVES = (0x3C00, 0xC000, 0x0000, 0x8000, 0x7BFF, 0x7C00, 0xFC00, 0x7E00, 0x7FFF, 0x0001,
          0x3555, 0xBC01, 0x03FF, 0x4248, 0xFBFF, 0x7C01)
FLOATS = (0x3F800000, 0xC0200000, 0x00000000, 0x80000000, 0x7F800000, 0xFF800000,
          0x7FC00000, 0x00000001, 0x7F7FFFFF, 0x3DCCCCCD, 0x4B000001, 0xCF000000)
INTEGERS = (0x00000000, 0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, 0x12345678, 0x00FF00FF,
            0xFF00FF00, 0x80808080, 0x7F7F7F7F, 0x01010101, 0xDEADBEEF, 0x55AA55AA)


def _data(fmt: isa.SurfaceFormat, stride_bytes: int) -> bytes:
    """Enough little-endian dwords for ROWS elements at the Xenos stride (4x Adreno's)."""
    info = isa.VERTEX_FORMAT_INFO[fmt]
    count = ROWS * stride_bytes + 16
    if info.kind is VertexDataKind.HALF:
        pool = [HALVES[i % len(HALVES)] | HALVES[(i * 5 + 3) % len(HALVES)] << 16
                for i in range(count)]
    elif info.kind is VertexDataKind.FLOAT:
        pool = [FLOATS[i % len(FLOATS)] for i in range(count)]
    else:
        pool = [INTEGERS[(i * 7) % len(INTEGERS)] ^ (i * 0x01020304 & 0xFFFFFFFF)
                for i in range(count)]
    return struct.pack(f"<{count}I", *pool)


def _variants(fmt: isa.SurfaceFormat) -> Iterator[tuple[str, str, dict]]:
    """(name, text flags, patched fields) of the fetch forms of one format."""
    kind = isa.VERTEX_FORMAT_INFO[fmt].kind
    if kind is VertexDataKind.INTEGER:
        for signed in ("SIGNED", "UNSIGNED"):
            yield f"{signed.lower()}-integer", signed, {}
            yield f"{signed.lower()}-normalized", f"{signed} NORMALIZED", {}
        yield "signed-normalized-rf1", "SIGNED NORMALIZED", {"signed_rf_mode_all": 1}
        yield "unsigned-integer-exp-3", "UNSIGNED", {"exp_adjust_all": 3}
        yield "signed-normalized-exp-minus-2", "SIGNED NORMALIZED", {"exp_adjust_all": 64 - 2}
    else:
        yield "float", "SIGNED", {}
        yield "float-exp-4", "SIGNED", {"exp_adjust_all": 4}


def vertex_format_groups() -> Iterator[Draft]:
    for fmt, info in isa.VERTEX_FORMAT_INFO.items():
        stride = 4 * info.dwords
        data = _data(fmt, 4 * stride)
        for name, flags, patch in _variants(fmt):
            text = (f"EXEC_END\n      FETCH:  VERTEX  R1.xyzw = R0.x {fmt.name} {flags} "
                    f"STRIDE({stride}) CONST(1, 2)\n      ALU:    MAXv export0 = R1, R1\n")
            rows = np.zeros((ROWS, 4), np.float32)
            rows[:, 0] = np.arange(ROWS)
            yield draft(f"fetch/vertex/{fmt.name}/{name}", text, {0: rows},
                        extra={"buffers": (buffer(5, data),)},
                        patches=(("fetch", 1, patch),) if patch else (),
                        tags=("op:VTX_FETCH", f"format:{fmt.name}", f"form:{name}"),
                        provenance=VERTEX,
                        note=f"rows 0-{ROWS - 1} of fetch slot 5 (CONST(1, 2)), STRIDE({stride}): "
                        "bytes on Adreno, dwords on Xenos; the export's MAXv flushes denormals")
    yield from _layout_cases()


def _layout_cases() -> Iterator[Draft]:
    fmt = isa.SurfaceFormat.FMT_32_32_32_32_FLOAT
    data = _data(fmt, 64)
    rows = np.zeros((ROWS, 4), np.float32)
    rows[:, 0] = np.arange(ROWS)
    for endian in range(4):
        text = (f"EXEC_END\n      FETCH:  VERTEX  R1.xyzw = R0.x {fmt.name} SIGNED STRIDE(16) "
                "CONST(0, 0)\n      ALU:    MAXv export0 = R1, R1\n")
        yield draft(f"fetch/vertex/endian-{endian}", text, {0: rows},
                    extra={"buffers": (buffer(0, data, endian),)},
                    tags=("op:VTX_FETCH", "quirk:endian"), provenance=VERTEX,
                    note=f"fetch constant endian {isa.Endian(endian).name}")
    for offset in (0, 1, 3, 8):
        for swizzle in ("xyzw", "wzyx", "xy01", "x_0_", "zzz1"):
            text = (f"EXEC_END\n      FETCH:  VERTEX  R1.{swizzle} = R0.y {fmt.name} SIGNED "
                    f"STRIDE(4) OFFSET({offset}) CONST(2, 1)\n"
                    "      ALU:    MAXv export0 = R1, R1\n")
            index_rows = np.zeros((ROWS, 4), np.float32)
            index_rows[:, 1] = named("+0", "+1", "1.5", "3")
            yield draft(f"fetch/vertex/offset-{offset}/{swizzle}", text, {0: index_rows},
                        extra={"buffers": (buffer(7, data),)},
                        tags=("op:VTX_FETCH", "quirk:stride-unit", "form:dst-swizzle"),
                        provenance=VERTEX,
                        note="index from R0.y (1.5 is rounded per is_index_rounded); STRIDE and "
                        "OFFSET count bytes on Adreno and dwords on Xenos")
    predicated = ("EXEC_END\n      ALU:    MAXv R0.____ = R0, R0\n"
                  "      PRED_SETNEs R5.x___ = R2\n      FETCH:  VERTEXNE R1.xyzw = R0.x "
                  f"{fmt.name} SIGNED STRIDE(16) CONST(0, 0)\n"
                  "      ALU:    MAXv export0 = R1, R1\n")
    deciders = np.zeros((ROWS, 4), np.float32)
    deciders[:, 3] = named("+0", "+1", "nan", "-0")
    yield draft("fetch/vertex/predicated", predicated, {0: rows, 2: deciders},
                extra={"buffers": (buffer(0, data),)},
                tags=("op:VTX_FETCH", "quirk:predication"), provenance=VERTEX)


def texture_groups() -> Iterator[Draft]:
    texels = np.arange(4 * 4 * 4, dtype=np.float32).reshape(4, 4, 4) / 8
    coords = np.array([[0.125, 0.125, 0, 0], [0.5, 0.5, 0, 0], [0.9, 0.3, 0, 0],
                       [1.2, -0.1, 0, 0]], np.float32)
    forms = {"nearest": "MAG(POINT) MIN(POINT)", "linear": "MAG(LINEAR) MIN(LINEAR)",
             "fetch-constant": ""}
    for name, filters in forms.items():
        for offset in (0, 1):
            text = (f"EXEC_END\n      FETCH:  SAMPLE  R1.xyzw = R0.xyx CONST(3) {filters}\n"
                    "      ALU:    MAXv export0 = R1, R1\n").replace("  \n", "\n")
            patch = {"offset_x": offset, "offset_y": (-offset) & 31}
            yield draft(f"fetch/texture/{name}/offset-{offset}", text, {0: coords},
                        shader="pixel", extra={"textures": (texture(3, texels, "linear"),)},
                        patches=(("fetch", 1, patch),),
                        tags=("op:TEX_FETCH", f"form:{name}"), provenance=TEXTURE,
                        note="4x4 texture, normalized coordinates, clamp; texel offsets in "
                        "half texels")
    text = ("EXEC_END\n      ALU:    MAXv R1 = R0, R0\n      FETCH:  SET_TEX_LOD  R1.xyzw = "
            "R0.xyx CONST(3)\n      ALU:    MAXv export0 = R1, R1\n")
    yield draft("fetch/texture/SET_TEX_LOD", text, {0: coords}, shader="pixel",
                extra={"textures": (texture(3, texels),)},
                tags=("op:TEX_SET_TEX_LOD",), provenance=TEXTURE,
                note="a fetch without a result leaves its destination register unchanged")
