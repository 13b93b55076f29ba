"""SHBIN writer: picasso's canonical layout, or in place over a parsed file's layout.

Both modes check that every value fits its field (:class:`EncodingError` otherwise).
The canonical mode also refuses the semantic problems of :mod:`.check`
(:class:`ShbinError`); the layout-preserving mode reproduces what was read, including
values the reader only warned about.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import Protocol

from ...errors import EncodingError, ShbinError
from ..program import Program
from .check import problems
from .layout import DvleLayout, ShbinLayout
from .read import (
    CONSTANT_SIZE,
    DVLE_HEADER,
    LABEL_SIZE,
    MAGIC_DVLB,
    MAGIC_DVLE,
    MAGIC_DVLP,
    OUTPUT_SIZE,
    UNIFORM_SIZE,
)
from .records import Constant, Dvle, Label, OutputEntry, Uniform


class ShbinContents(Protocol):
    """What the writers read of a :class:`gpuisa.pica.shbin.Shbin` (the package imports
    this module, so the fields are named here instead of the class imported back)."""

    @property
    def program(self) -> Program: ...
    @property
    def entries(self) -> Sequence[Dvle]: ...
    @property
    def dvlp_version(self) -> int: ...
    @property
    def opdesc_high(self) -> tuple[int, ...]: ...


DVLP_CANONICAL_HEADER = 0x28  # picasso's 10-word DVLP header (shbin-format.md#dvlp)


def _fit(value: object, bits: int, path: str) -> int:
    if not isinstance(value, int):
        raise EncodingError(f"{path} is {type(value).__name__}, expected int")
    if not 0 <= value < 1 << bits:
        raise EncodingError(f"{path} = {value} does not fit in {bits} bits (0..{(1 << bits) - 1})")
    return value


def _name(name: object, path: str) -> bytes:
    if not isinstance(name, str):
        raise EncodingError(f"{path} is {type(name).__name__}, expected str")
    if not name.isascii() or "\0" in name:
        raise EncodingError(f"{path} {name!r}: symbol names must be ASCII without NUL")
    return name.encode("ascii") + b"\0"


def _constant(c: Constant, path: str) -> bytes:
    words = [_fit(w, 32, f"{path}.words[{k}]") for k, w in enumerate(c.words)]
    return struct.pack("<HH4I", c.kind, _fit(c.register, 16, f"{path}.register"), *words)


def _output(e: OutputEntry, path: str) -> bytes:
    value = (
        _fit(e.semantic, 16, f"{path}.semantic")
        | _fit(e.register, 16, f"{path}.register") << 16
        | _fit(e.mask, 4, f"{path}.mask") << 32
        | _fit(e.upper, 28, f"{path}.upper") << 36
    )
    return struct.pack("<Q", value)


def _uniform(u: Uniform, sym: int, path: str) -> bytes:
    return struct.pack(
        "<IHH",
        _fit(sym, 32, f"{path} symbol offset"),
        _fit(u.first, 16, f"{path}.first"),
        _fit(u.last, 16, f"{path}.last"),
    )


def _label(lab: Label, sym: int, path: str) -> bytes:
    return struct.pack(
        "<4I",
        _fit(lab.id, 32, f"{path}.id"),
        _fit(lab.offset, 32, f"{path}.offset"),
        _fit(lab.unknown, 32, f"{path}.unknown"),
        _fit(sym, 32, f"{path} symbol offset"),
    )


def _dvle_header(d: Dvle, path: str, tables: tuple[int, ...]) -> bytes:
    if d.merge_outmaps not in (0, 1):
        raise EncodingError(f"{path}.merge_outmaps = {d.merge_outmaps!r}, expected a bool")
    return DVLE_HEADER.pack(
        MAGIC_DVLE,
        _fit(d.version, 16, f"{path}.version"),
        d.shader_type,
        int(d.merge_outmaps),
        _fit(d.main_offset, 32, f"{path}.main_offset"),
        _fit(d.endmain_offset, 32, f"{path}.endmain_offset"),
        _fit(d.input_mask, 16, f"{path}.input_mask"),
        _fit(d.output_mask, 16, f"{path}.output_mask"),
        d.geometry_mode,
        _fit(d.fixed_vertex_start, 8, f"{path}.fixed_vertex_start"),
        _fit(d.variable_vertex_count, 8, f"{path}.variable_vertex_count"),
        _fit(d.fixed_vertex_count, 8, f"{path}.fixed_vertex_count"),
        *(_fit(v, 32, f"{path} table offset/size") for v in tables),
    )


def _opdesc_high(shbin: ShbinContents) -> list[int]:
    high = shbin.opdesc_high or (0,) * len(shbin.program.opdescs)
    return [_fit(h, 32, f"opdesc_high[{k}]") for k, h in enumerate(high)]


def write_canonical(shbin: ShbinContents) -> bytes:
    """The file exactly as picasso lays it out (shbin-format.md#layout, shbin-format.md#offsets)."""
    code, opdescs = shbin.program.code, shbin.program.opdescs
    high = _opdesc_high(shbin)
    dvles = [_canonical_dvle(d, f"DVLE[{i}]") for i, d in enumerate(shbin.entries)]
    for problem in problems(shbin.program, shbin.entries):
        raise ShbinError(problem.message, field=problem.path)

    dvlp_size = DVLP_CANONICAL_HEADER + 4 * len(code) + 8 * len(opdescs)
    out = bytearray(struct.pack("<4sI", MAGIC_DVLB, len(dvles)))
    offset = 8 + 4 * len(dvles) + dvlp_size
    for blob in dvles:
        out += struct.pack("<I", _fit(offset, 32, "DVLE offset"))
        offset += len(blob)
    out += struct.pack(
        "<4s9I",
        MAGIC_DVLP,
        _fit(shbin.dvlp_version, 32, "dvlp_version"),
        DVLP_CANONICAL_HEADER,
        len(code),
        DVLP_CANONICAL_HEADER + 4 * len(code),
        len(opdescs),
        _fit(dvlp_size, 32, "DVLP size"),
        0,
        0,
        0,
    )
    out += struct.pack(f"<{len(code)}I", *code)
    for pair in zip(opdescs, high, strict=True):
        out += struct.pack("<2I", *pair)
    for blob in dvles:
        out += blob
    return bytes(out)


def _canonical_dvle(d: Dvle, path: str) -> bytes:
    # Tables in picasso's order; label names (picasso never has any) follow uniform names.
    names = [_name(u.name, f"{path}.uniforms[{j}].name") for j, u in enumerate(d.uniforms)]
    names += [_name(lab.name, f"{path}.labels[{j}].name") for j, lab in enumerate(d.labels)]
    syms = [sum(len(n) for n in names[:k]) for k in range(len(names))]
    n_uni = len(d.uniforms)
    constants = b"".join(_constant(c, f"{path}.constants[{j}]") for j, c in enumerate(d.constants))
    labels = b"".join(
        _label(lab, syms[n_uni + j], f"{path}.labels[{j}]") for j, lab in enumerate(d.labels)
    )
    outputs = b"".join(_output(e, f"{path}.outputs[{j}]") for j, e in enumerate(d.outputs))
    uniforms = b"".join(
        _uniform(u, syms[j], f"{path}.uniforms[{j}]") for j, u in enumerate(d.uniforms)
    )
    symbols = b"".join(names)
    c_off = DVLE_HEADER.size
    l_off = c_off + len(constants)
    o_off = l_off + len(labels)
    u_off = o_off + len(outputs)
    s_off = u_off + len(uniforms)
    header = _dvle_header(
        d,
        path,
        (
            c_off,
            len(d.constants),
            l_off,
            len(d.labels),
            o_off,
            len(d.outputs),
            u_off,
            n_uni,
            s_off,
            len(symbols),
        ),
    )
    blob = header + constants + labels + outputs + uniforms + symbols
    return blob + bytes(-len(blob) % 4)


def _mismatch(what: str, original: int, now: int) -> ShbinError:
    return ShbinError(
        f"cannot preserve the layout: the file had {original} {what}, "
        f"the Shbin has {now}; write the canonical layout instead"
    )


def write_preserving(shbin: ShbinContents, layout: ShbinLayout) -> bytes:
    """``layout.image`` with every parsed structure re-serialized at its original place."""
    code, opdescs = shbin.program.code, shbin.program.opdescs
    high = _opdesc_high(shbin)
    for what, original, now in (
        ("DVLEs", len(layout.dvles), len(shbin.entries)),
        ("code words", layout.code_words, len(code)),
        ("operand descriptors", layout.opdesc_count, len(opdescs)),
    ):
        if original != now:
            raise _mismatch(what, original, now)
    buf = bytearray(layout.image)
    n = len(layout.dvles)
    struct.pack_into(f"<4sI{n}I", buf, 0, MAGIC_DVLB, n, *(d.offset for d in layout.dvles))
    dvlp = 8 + 4 * n
    struct.pack_into(
        "<4s5I",
        buf,
        dvlp,
        MAGIC_DVLP,
        _fit(shbin.dvlp_version, 32, "dvlp_version"),
        layout.code_offset,
        len(code),
        layout.opdesc_offset,
        len(opdescs),
    )
    # Empty tables may have any offset, even past the end: write nothing for them.
    if code:
        struct.pack_into(f"<{len(code)}I", buf, dvlp + layout.code_offset, *code)
    if opdescs:
        pairs = [w for pair in zip(opdescs, high, strict=True) for w in pair]
        struct.pack_into(f"<{len(pairs)}I", buf, dvlp + layout.opdesc_offset, *pairs)
    for i, (d, dl) in enumerate(zip(shbin.entries, layout.dvles, strict=True)):
        _preserve_dvle(buf, d, dl, f"DVLE[{i}]")
    return bytes(buf)


def _preserve_dvle(buf: bytearray, d: Dvle, dl: DvleLayout, path: str) -> None:
    for what, original, now in (
        ("constants", dl.constant_count, len(d.constants)),
        ("labels", dl.label_count, len(d.labels)),
        ("outputs", dl.output_count, len(d.outputs)),
        ("uniforms", dl.uniform_count, len(d.uniforms)),
    ):
        if original != now:
            raise _mismatch(f"{path} {what}", original, now)
    base = dl.offset
    buf[base : base + DVLE_HEADER.size] = _dvle_header(
        d,
        path,
        (
            dl.constant_offset,
            dl.constant_count,
            dl.label_offset,
            dl.label_count,
            dl.output_offset,
            dl.output_count,
            dl.uniform_offset,
            dl.uniform_count,
            dl.symbol_offset,
            dl.symbol_size,
        ),
    )

    def put(table: int, size: int, j: int, blob: bytes) -> None:
        start = base + table + size * j
        buf[start : start + size] = blob

    for j, c in enumerate(d.constants):
        put(dl.constant_offset, CONSTANT_SIZE, j, _constant(c, f"{path}.constants[{j}]"))
    for j, e in enumerate(d.outputs):
        put(dl.output_offset, OUTPUT_SIZE, j, _output(e, f"{path}.outputs[{j}]"))
    for j, (u, sym) in enumerate(zip(d.uniforms, dl.uniform_symbols, strict=True)):
        put(dl.uniform_offset, UNIFORM_SIZE, j, _uniform(u, sym, f"{path}.uniforms[{j}]"))
    for j, (lab, sym) in enumerate(zip(d.labels, dl.label_symbols, strict=True)):
        put(dl.label_offset, LABEL_SIZE, j, _label(lab, sym, f"{path}.labels[{j}]"))
    _preserve_symbols(buf, d, dl, path)


def _preserve_symbols(buf: bytearray, d: Dvle, dl: DvleLayout, path: str) -> None:
    """Write each name at its original symbol offset over the original symbol table."""
    start = dl.offset + dl.symbol_offset
    table = buf[start : start + dl.symbol_size]
    placed = [
        (f"{path}.uniforms[{j}].name", u.name, sym)
        for j, (u, sym) in enumerate(zip(d.uniforms, dl.uniform_symbols, strict=True))
    ]
    placed += [
        (f"{path}.labels[{j}].name", lab.name, sym)
        for j, (lab, sym) in enumerate(zip(d.labels, dl.label_symbols, strict=True))
    ]
    for field, name, sym in placed:
        raw = _name(name, field)
        if sym + len(raw) > len(table):
            raise ShbinError(
                f"cannot preserve the layout: {name!r} does not fit at offset "
                f"{sym} of the {len(table)}-byte symbol table",
                field=field,
            )
        table[sym : sym + len(raw)] = raw
    for field, name, sym in placed:
        if table[sym : table.index(0, sym)] != name.encode("ascii"):
            raise ShbinError(
                "cannot preserve the layout: the new names overwrite each "
                f"other in the symbol table ({name!r})",
                field=field,
            )
    buf[start : start + dl.symbol_size] = table
