"""Cases whose expectation comes from a source rather than from gpuisa: rows of the
freedreno wiki's opcode tables (with operands whose results are exact in float32), Xenia's
Xenos half-float rule, and the scalar-operand lane evidence of xenia-canary PR #1149.
gpuisa's tests check each against the source's data kept in the test data."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from .model import CHOICE, DOCUMENT, EMULATOR, EVIDENCE, Provenance
from .spec import Draft, buffer, draft

WIKI = ("freedreno wiki \"A2XX Shader Instruction Set Architecture\" (revision of "
        "2015-02-19, https://github.com/freedreno/freedreno/wiki/"
        "A2XX-Shader-Instruction-Set-Architecture), {table} table row \"{row}\"")
#: The wiki's vector rows (name, number, description) and the operand count they read.
WIKI_VECTOR_ROWS = (("ADDv", 2, "ADDv 0 Rdstv = Rsrc1 + Rsrc2"),
                    ("MULv", 2, "MULv 1 Rdstv = Rsrc1 * Rsrc2"),
                    ("MAXv", 2,
                     "MAXv 2 Rdstv = max(Rsrc1, Rsrc2) (also used as a MOV instruction)"),
                    ("MINv", 2, "MINv 3 Rdstv = min(Rsrc1, Rsrc2)"),
                    ("FLOORv", 1, "FLOORv 10 Rdstv = floor(Rsrc1)"),
                    ("MULADDv", 3, "MULADDv 11 Rdstv = Rsrc3 + (Rsrc1 * Rsrc2)"),
                    ("DOT4v", 2, "DOT4v 15 dot product of all 4 channels of Rsrc1, Rsrc2"),
                    ("DOT3v", 2, "DOT3v 16 dot product of first 3 channels of Rsrc1, Rsrc2"))
#: The wiki's scalar rows: (gpuisa's opcode, the wiki's row, operands with exact results).
WIKI_SCALAR_ROWS = (("RECIP_IEEE", "RCP 9 Rdsts = 1 / Rsrc3", (4.0, -0.5, 0.125, 1.0)),
                    ("RECIPSQ_IEEE", "RSQ 11 Rdsts = 1 / sqrt(Rsrc3)", (4.0, 0.25, 1.0, 64.0)),
                    ("EXP_IEEE", "EXP2 7 Rdsts = exp(Rsrc3)", (3.0, -2.0, 0.0, 10.0)),
                    ("LOG_IEEE", "LOG2 8 Rdsts = log2(Rsrc3)", (8.0, 0.5, 1.0, 1024.0)),
                    ("SQRT_IEEE", "SQRT 20 Rdsts = sqrt(Rsrc3)", (16.0, 0.25, 1.0, 0.0)))
#: Small dyadic operands: every sum, product and dot product of them is exact.
EXACT = (0.5, 1.0, 2.0, -3.0, 4.0, 0.25, -1.5, 6.0, -0.75, 8.0, 1.25, -2.0)


def _exact_rows(k: int, count: int) -> list[np.ndarray]:
    n = len(EXACT)
    return [np.array([[EXACT[(k + 3 * i + 5 * j + r) % n] for j in range(4)]
                      for r in range(4)], np.float32) for i in range(count)]


def wiki_groups() -> Iterator[Draft]:
    for name, srcs, row in WIKI_VECTOR_ROWS:
        operands = ", ".join(f"R{i + 1}" for i in range(srcs))
        text = f"EXEC_END\n      ALU:    {name} export0 = {operands}\n"
        for k in range(3):
            rows = _exact_rows(k, srcs)
            yield draft(f"doc/wiki/{name}/{k}", text, {i + 1: r for i, r in enumerate(rows)},
                        tags=(f"op:{name}", "source:wiki"),
                        provenance=Provenance(DOCUMENT, WIKI.format(table="vec4 opcode",
                                                                    row=row)),
                        note="operands whose results are exact in float32, so the row's "
                        "formula fixes every bit (Mesa's text prints Rsrc3 first: "
                        "MULADDv dst = src3, src1, src2)")
    for opcode, row, values in WIKI_SCALAR_ROWS:
        text = (f"EXEC_END\n      ALU:    MAXv export0.____ = R0, R0\n"
                f"              {opcode} export0.x___ = R1\n")
        r1 = np.zeros((4, 4), np.float32)
        r1[:, 3] = values
        yield draft(f"doc/wiki/{opcode}", text, {1: r1},
                    tags=(f"op:{opcode}", "source:wiki"),
                    provenance=Provenance(DOCUMENT, WIKI.format(table="scalar opcode", row=row)),
                    note="the wiki's old scalar numbering is superseded (a2xx-isa.md#const-ops); "
                    "its name and formula identify the operation")


XENIA_HALF = ("xenia-project/xenia src/xenia/gpu/xenos.h, xenos_half_to_float (commit "
              "a904f297c8487e5c08bc777234967a1f09f70d6d): a 16-bit float with exponent 31 is "
              "an ordinary number, not INF or NaN; a2xx-isa.md#unpacking")
#: Halves with exponent 31 (and their neighbours), four per case.
XENOS_HALVES = ((0x7C00, 0xFC00, 0x7BFF, 0x3C00), (0x7FFF, 0xFFFF, 0x7E00, 0x0000),
                (0x7C01, 0x7D00, 0xFE00, 0x8000), (0x7FC0, 0xFBFF, 0x7800, 0x4000))


def xenos_half_groups() -> Iterator[Draft]:
    text = ("EXEC_END\n      FETCH:  VERTEX  R1.xyzw = R0.x FMT_16_16_16_16_FLOAT SIGNED "
            "STRIDE(8) CONST(0, 0)\n      ALU:    MAXv export0 = R1, R1\n")
    for k, halves in enumerate(XENOS_HALVES):
        data = np.array(halves, "<u2").tobytes()
        yield draft(f"emu/xenia/half-exponent-31/{k}", text, {},
                    extra={"buffers": (buffer(0, data),)},
                    tags=("op:VTX_FETCH", "format:FMT_16_16_16_16_FLOAT", "quirk:xenos-half"),
                    provenance=Provenance(EMULATOR, XENIA_HALF),
                    note="halves " + ", ".join(f"{h:#06x}" for h in halves)
                    + ": the Xenos expectation follows Xenia; Adreno reads IEEE halves")


PR1149 = ("xenia-canary PR #1149 (https://github.com/xenia-canary/xenia-canary/pull/1149, "
          "merged 2026-08-11): Call of Duty 3's grass shader renders correctly only when a "
          "two-operand scalar operation takes its second operand from swizzle lane 2 (Z); "
          "a2xx-isa.md#open-scalar-lane")
LANE_CHOICE = "lane 2 (Z); upstream Xenia reads lane 0 (X): alternative scalar_b_lane=0"
LANE_OPS = ("ADDs", "MULs", "MAXs", "MINs", "SUBs")
LANE_SWIZZLES = ("xyzw", "wzyx", "zwxy", "yxwz", "xxzw", "wwyy")


def scalar_lane_groups() -> Iterator[Draft]:
    r1 = np.array([[1.5, -2.0, 4.0, 0.5], [8.0, 0.25, -3.0, 2.0], [-1.0, 6.0, 0.5, -4.0]],
                  np.float32)
    for op in LANE_OPS:
        for swizzle in LANE_SWIZZLES:
            text = (f"EXEC_END\n      ALU:    MAXv export0.____ = R0, R0\n"
                    f"              {op} export0.x___ = R1.{swizzle}\n")
            yield draft(f"evidence/scalar-lane/{op}/{swizzle}", text, {1: r1},
                        tags=(f"op:{op}", "quirk:scalar-lane"),
                        provenance=Provenance(EVIDENCE, PR1149, LANE_CHOICE),
                        alternatives=("scalar_b_lane=0",),
                        note=f"a = lane 3 ('{swizzle[3]}'), b = lane 2 ('{swizzle[2]}'); "
                        f"upstream Xenia's b = lane 0 ('{swizzle[0]}')")


MULADD = Provenance(CHOICE, "a2xx-isa.md#open-muladd",
                    "not fused: the product is rounded to float32 before the addition (XE-U); "
                    "alternative: a fused multiply-add (the published R400 sq_alu model)")


def muladd_groups() -> Iterator[Draft]:
    """Operands whose product is inexact, so fused and unfused results differ."""
    a = np.array([[1 + 2**-12, 3.0, 0.1, 1 / 3]] * 2, np.float32)
    b = np.array([[1 - 2**-12, 1 / 3, 10.0, 3.0]] * 2, np.float32)
    c = np.array([[-1.0, -1.0, -1.0, -1.0], [0.0, 0.0, 0.0, 0.0]], np.float32)
    yield draft("choice/muladd-not-fused", "EXEC_END\n      ALU:    MULADDv export0 = R3, R1, R2\n",
                {1: a, 2: b, 3: c}, tags=("op:MULADDv", "quirk:muladd-fusion"),
                provenance=MULADD,
                note="a fused multiply-add would keep the product's low bits in row 0")


def source_groups() -> Iterator[Draft]:
    yield from wiki_groups()
    yield from xenos_half_groups()
    yield from scalar_lane_groups()
    yield from muladd_groups()
