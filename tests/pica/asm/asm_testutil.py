"""Helpers shared by the test_asm_* modules (imported by name: pytest puts this directory
on sys.path because tests/ has no packages)."""

from __future__ import annotations

import struct

import pytest

from gpuisa.errors import SourceError
from gpuisa.pica.asm import AssemblyResult, assemble_with_warnings

# Field positions from 3dbrew's "Instruction formats" tables (pica-isa.md#formats), for hand-built
# words.
OPDESC_DST_ALL = 0xF
XYZW = 0x1B  # selector of .xyzw (component 0 in bits 6-7)
NOP = 0x21 << 26
END = 0x22 << 26


def sel(swizzle: str) -> int:
    """8-bit selector of a 4-letter xyzw swizzle, component 0 in bits 6-7."""
    return sum("xyzw".index(c) << (6 - 2 * i) for i, c in enumerate(swizzle))


def opdesc(mask: int = 0xF, s1: str | None = None, s2: str | None = None,
           s3: str | None = None, n1: int = 0, n2: int = 0, n3: int = 0) -> int:
    """Operand descriptor from 3dbrew's layout (pica-isa.md#opdesc): mask 0-3, neg1 4, sel1 5-12,
    neg2 13, sel2 14-21, neg3 22, sel3 23-30 (absent sources are 0)."""
    word = mask
    for swz, neg, shift in ((s1, n1, 4), (s2, n2, 13), (s3, n3, 22)):
        if swz is not None:
            word |= neg << shift | sel(swz) << (shift + 1)
    return word


def build(text: str | list[tuple[str, str]], **options) -> AssemblyResult:
    sources = [("test.pica", text)] if isinstance(text, str) else text
    return assemble_with_warnings(sources, **options)


def program(body: str, decls: str = "", **options) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Code words and descriptors of ``body`` placed in ``.proc main``."""
    result = build(f"{decls}\n.proc main\n{body}\n.end\n", **options)
    return result.shbin.program.code, result.shbin.program.opdescs


def errors(text: str | list[tuple[str, str]], **options) -> list[tuple[str, int, int, str]]:
    """(file, line, column, message) of every error of a failing assembly."""
    sources = [("test.pica", text)] if isinstance(text, str) else text
    with pytest.raises(SourceError) as info:
        assemble_with_warnings(sources, **options)
    return [(d.location.file, d.location.line, d.location.column, d.message)
            for d in info.value.diagnostics if d.severity == "error"]


def warnings(text: str | list[tuple[str, str]], **options) -> list[tuple[int, int, str]]:
    """(line, column, message) of every warning of a successful assembly."""
    return [(d.location.line, d.location.column, d.message)
            for d in build(text, **options).warnings if d.severity == "warning"]


# -- SHBIN files built by hand from shbin-format.md#layout -----------------------------------

def shbin_bytes(code, opdescs, dvles) -> bytes:
    """DVLB header, 10-word DVLP header, code, descriptors (second word 0), DVLEs."""
    dvlp_size = 0x28 + 4 * len(code) + 8 * len(opdescs)
    out = struct.pack("<4sI", b"DVLB", len(dvles))
    offset = 8 + 4 * len(dvles) + dvlp_size
    for blob in dvles:
        out += struct.pack("<I", offset)
        offset += len(blob)
    out += struct.pack("<4s9I", b"DVLP", 0, 0x28, len(code), 0x28 + 4 * len(code),
                       len(opdescs), dvlp_size, 0, 0, 0)
    out += struct.pack(f"<{len(code)}I", *code)
    out += b"".join(struct.pack("<2I", d, 0) for d in opdescs)
    return out + b"".join(dvles)
