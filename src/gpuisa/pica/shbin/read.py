"""SHBIN reader: bytes -> program, DVLE records and the layout they were found in.

Follows the offsets in the headers and never assumes a table order, so picasso, nihstro
and aemstro layouts all read (shbin-format.md#offsets).  What is an error and what is not:

Errors (always, :class:`ShbinError` naming the absolute offset and field of the bad
value): truncated headers; wrong DVLB/DVLP/DVLE magic; a count or offset whose table does
not fit in the file (checked with exact integer arithmetic before anything is read);
DVLE offsets and the code, operand-descriptor, constant, output, uniform and symbol table
offsets that are not multiples of 4 (libctru uses them as word indices, so it would read
something else than we do); structures that overlap; shader type, merge flag, geometry
mode or constant type codes outside the known values; names whose symbol offset is outside
the symbol table, that are not NUL-terminated within it, or that are not ASCII.

Warnings (collected in ``Shbin.warnings``; errors when ``strict=True``): values that fit
their fields but are out of range (see :mod:`.check`): registers outside their
bank, main/endmain past the end of the code, more code or descriptors than the hardware
holds.  nihstro's entry-point bug (main = a symbol offset) shows up here.

Tolerated silently: trailing bytes after the last structure (the TIC-80 sample, CGFX
files), gaps between structures (Nintendo's filename tables), any alignment of the label
table (libctru never reads it), offsets of empty tables, unknown DVLP words, output
semantic codes outside :class:`OutputSemantic` and non-zero unused bits (kept raw).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import NoReturn

from ...errors import ShbinError
from ..program import Program
from .check import problems
from .layout import DvleLayout, ShbinLayout
from .records import (
    Constant,
    ConstantKind,
    Dvle,
    GeometryMode,
    Label,
    OutputEntry,
    ShaderType,
    Uniform,
)

MAGIC_DVLB = b"DVLB"
MAGIC_DVLP = b"DVLP"
MAGIC_DVLE = b"DVLE"
DVLP_HEADER_SIZE = 0x1C  # the 7 words every writer fills; picasso adds 3 unknown words
DVLE_HEADER = struct.Struct("<4sHBBIIHHBBBB10I")  # shbin-format.md#dvle-header, 0x40 bytes
CONSTANT_SIZE, LABEL_SIZE, OUTPUT_SIZE, UNIFORM_SIZE = 20, 16, 8, 8

_SHADER_TYPES = tuple(t.value for t in ShaderType)
_GEOMETRY_MODES = tuple(m.value for m in GeometryMode)
_CONSTANT_KINDS = tuple(k.value for k in ConstantKind)


@dataclass(frozen=True, slots=True)
class Parsed:
    program: Program
    entries: tuple[Dvle, ...]
    dvlp_version: int
    opdesc_high: tuple[int, ...]
    layout: ShbinLayout
    warnings: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _Region:
    start: int
    end: int
    name: str
    field_offset: int  # where the header field that placed this region is
    field: str


@dataclass(frozen=True, slots=True)
class _Table:
    start: int  # absolute
    count: int
    rel: int  # the raw header value


class _Parser:
    def __init__(self, data: bytes):
        self.data = data
        self.size = len(data)
        self.regions: list[_Region] = []
        self.where: dict[str, int] = {}  # record path -> absolute offset, for warnings

    def fail(self, message: str, offset: int, field: str) -> NoReturn:
        raise ShbinError(message, offset=offset, field=field)

    def need(self, offset: int, length: int, what: str, field_offset: int, field: str) -> None:
        if offset + length > self.size:
            self.fail(
                f"{what} at 0x{offset:X}..0x{offset + length:X} extends past the end "
                f"of the {self.size}-byte file",
                field_offset,
                field,
            )

    def magic(self, offset: int, expected: bytes, field: str) -> None:
        found = self.data[offset : offset + 4]
        if found != expected:
            self.fail(f"magic is {found!r}, expected {expected!r}", offset, field)

    def claim(self, start: int, end: int, name: str, field_offset: int, field: str) -> None:
        if end > start:
            self.regions.append(_Region(start, end, name, field_offset, field))

    def table(
        self, base: int, header_pos: int, path: str, name: str, entry: int, *, aligned: bool = True
    ) -> _Table:
        """The table whose (offset, count) words are at ``header_pos``, checked and claimed."""
        rel, count = struct.unpack_from("<2I", self.data, header_pos)
        if count == 0:
            return _Table(base + rel, 0, rel)
        count_field = f"{path}.{name}_size" if entry == 1 else f"{path}.{name}_count"
        what = f"{count} bytes" if entry == 1 else f"{count} entries of {entry} bytes"
        if count * entry > self.size:
            self.fail(
                f"{what} do not fit in the {self.size}-byte file", header_pos + 4, count_field
            )
        start = base + rel
        self.need(
            start, count * entry, f"{name} table ({what})", header_pos, f"{path}.{name}_offset"
        )
        if aligned and start % 4:
            self.fail(
                f"{name} table offset 0x{start:X} is not a multiple of 4 (libctru "
                "reads it as a word index)",
                header_pos,
                f"{path}.{name}_offset",
            )
        self.claim(
            start,
            start + count * entry,
            f"{path}.{name}_table",
            header_pos,
            f"{path}.{name}_offset",
        )
        return _Table(start, count, rel)

    def check_overlaps(self) -> None:
        widest: _Region | None = None
        for region in sorted(self.regions, key=lambda r: (r.start, r.end)):
            if widest is not None and region.start < widest.end:
                self.fail(
                    f"{region.name} at 0x{region.start:X}..0x{region.end:X} overlaps "
                    f"{widest.name} at 0x{widest.start:X}..0x{widest.end:X}",
                    region.field_offset,
                    region.field,
                )
            if widest is None or region.end > widest.end:
                widest = region

    def name(self, symbols: _Table, sym: int, field_offset: int, field: str) -> str:
        if sym >= symbols.count:
            self.fail(
                f"name offset {sym} is outside the {symbols.count}-byte symbol table",
                field_offset,
                field,
            )
        start = symbols.start + sym
        end = self.data.find(b"\0", start, symbols.start + symbols.count)
        if end < 0:
            self.fail(
                f"name at 0x{start:X} is not NUL-terminated within the symbol table "
                f"(which ends at 0x{symbols.start + symbols.count:X})",
                field_offset,
                field,
            )
        raw = self.data[start:end]
        try:
            return raw.decode("ascii")
        except UnicodeDecodeError:
            self.fail(f"name at 0x{start:X} is not ASCII: {raw!r}", field_offset, field)


def parse(data: bytes, *, strict: bool = False) -> Parsed:
    p = _Parser(data)
    if p.size < 8:
        p.fail(f"the file is {p.size} bytes, too short for the 8-byte DVLB header", 0, "DVLB")
    p.magic(0, MAGIC_DVLB, "DVLB.magic")
    (count,) = struct.unpack_from("<I", data, 4)
    if 8 + 4 * count > p.size:
        p.fail(
            f"{count} DVLE offsets of 4 bytes do not fit in the {p.size}-byte file",
            4,
            "DVLB.dvle_count",
        )
    dvle_offsets = struct.unpack_from(f"<{count}I", data, 8)
    dvlp = 8 + 4 * count
    p.claim(0, dvlp, "DVLB header", 4, "DVLB.dvle_count")

    p.need(dvlp, DVLP_HEADER_SIZE, "DVLP header", 4, "DVLB.dvle_count")
    p.magic(dvlp, MAGIC_DVLP, "DVLP.magic")
    p.claim(dvlp, dvlp + DVLP_HEADER_SIZE, "DVLP header", dvlp, "DVLP.magic")
    (dvlp_version,) = struct.unpack_from("<I", data, dvlp + 4)
    code = p.table(dvlp, dvlp + 0x08, "DVLP", "code", 4)
    opdescs = p.table(dvlp, dvlp + 0x10, "DVLP", "opdesc", 8)
    p.where["DVLP"] = dvlp

    headers = [_dvle_header(p, i, offset) for i, offset in enumerate(dvle_offsets)]
    p.check_overlaps()

    # Empty tables may have any offset, even past the end: read nothing for them.
    code_words = struct.unpack_from(f"<{code.count}I", data, code.start) if code.count else ()
    op_words = (
        struct.unpack_from(f"<{2 * opdescs.count}I", data, opdescs.start) if opdescs.count else ()
    )
    program = Program(code_words, op_words[0::2])
    entries, layouts = [], []
    for i, header in enumerate(headers):
        entry, layout = _dvle_body(p, f"DVLE[{i}]", header)
        entries.append(entry)
        layouts.append(layout)

    warnings = []
    for problem in problems(program, entries):
        error = ShbinError(
            problem.message, offset=p.where[problem.record] + problem.delta, field=problem.path
        )
        if strict:
            raise error
        warnings.append(str(error))

    layout = ShbinLayout(
        image=data,
        code_offset=code.rel,
        code_words=code.count,
        opdesc_offset=opdescs.rel,
        opdesc_count=opdescs.count,
        dvles=tuple(layouts),
    )
    return Parsed(
        program, tuple(entries), dvlp_version, tuple(op_words[1::2]), layout, tuple(warnings)
    )


@dataclass(frozen=True, slots=True)
class _DvleHeader:
    offset: int
    fields: tuple
    constants: _Table
    labels: _Table
    outputs: _Table
    uniforms: _Table
    symbols: _Table


def _dvle_header(p: _Parser, i: int, offset: int) -> _DvleHeader:
    path = f"DVLE[{i}]"
    pos = 8 + 4 * i
    if offset % 4:
        p.fail(f"DVLE offset 0x{offset:X} is not a multiple of 4", pos, f"DVLB.dvle_offset[{i}]")
    p.need(offset, DVLE_HEADER.size, "DVLE header", pos, f"DVLB.dvle_offset[{i}]")
    p.magic(offset, MAGIC_DVLE, f"{path}.magic")
    p.claim(offset, offset + DVLE_HEADER.size, f"{path} header", pos, f"DVLB.dvle_offset[{i}]")
    p.where[path] = offset
    fields = DVLE_HEADER.unpack_from(p.data, offset)
    for delta, value, known, name in (
        (0x06, fields[2], _SHADER_TYPES, "shader_type"),
        (0x07, fields[3], (0, 1), "merge_outmaps"),
        (0x14, fields[8], _GEOMETRY_MODES, "geometry_mode"),
    ):
        if value not in known:
            p.fail(
                f"unknown value {value} (known: {', '.join(map(str, known))})",
                offset + delta,
                f"{path}.{name}",
            )
    return _DvleHeader(
        offset,
        fields,
        constants=p.table(offset, offset + 0x18, path, "constant", CONSTANT_SIZE),
        labels=p.table(offset, offset + 0x20, path, "label", LABEL_SIZE, aligned=False),
        outputs=p.table(offset, offset + 0x28, path, "output", OUTPUT_SIZE),
        uniforms=p.table(offset, offset + 0x30, path, "uniform", UNIFORM_SIZE),
        symbols=p.table(offset, offset + 0x38, path, "symbol", 1),
    )


def _dvle_body(p: _Parser, path: str, h: _DvleHeader) -> tuple[Dvle, DvleLayout]:
    data = p.data
    constants = []
    for j in range(h.constants.count):
        pos = h.constants.start + CONSTANT_SIZE * j
        kind, register, *words = struct.unpack_from("<HH4I", data, pos)
        if kind not in _CONSTANT_KINDS:
            p.fail(
                f"unknown constant type {kind} (known: 0 bool, 1 int, 2 float)",
                pos,
                f"{path}.constants[{j}].type",
            )
        p.where[f"{path}.constants[{j}]"] = pos
        constants.append(Constant(ConstantKind(kind), register, tuple(words)))

    outputs = []
    for j in range(h.outputs.count):
        pos = h.outputs.start + OUTPUT_SIZE * j
        (value,) = struct.unpack_from("<Q", data, pos)
        p.where[f"{path}.outputs[{j}]"] = pos
        outputs.append(
            OutputEntry(
                semantic=value & 0xFFFF,
                register=value >> 16 & 0xFFFF,
                mask=value >> 32 & 0xF,
                upper=value >> 36,
            )
        )

    uniforms, uniform_symbols = [], []
    for j in range(h.uniforms.count):
        pos = h.uniforms.start + UNIFORM_SIZE * j
        sym, first, last = struct.unpack_from("<IHH", data, pos)
        name = p.name(h.symbols, sym, pos, f"{path}.uniforms[{j}].name")
        p.where[f"{path}.uniforms[{j}]"] = pos
        uniforms.append(Uniform(name, first, last))
        uniform_symbols.append(sym)

    labels, label_symbols = [], []
    for j in range(h.labels.count):
        pos = h.labels.start + LABEL_SIZE * j
        label_id, offset, unknown, sym = struct.unpack_from("<4I", data, pos)
        name = p.name(h.symbols, sym, pos + 0x0C, f"{path}.labels[{j}].name")
        labels.append(Label(label_id, offset, name, unknown))
        label_symbols.append(sym)

    (
        _,
        version,
        shader_type,
        merge,
        main,
        endmain,
        in_mask,
        out_mask,
        mode,
        fixed_start,
        variable_count,
        fixed_count,
        *_,
    ) = h.fields
    entry = Dvle(
        shader_type=ShaderType(shader_type),
        main_offset=main,
        endmain_offset=endmain,
        constants=tuple(constants),
        outputs=tuple(outputs),
        uniforms=tuple(uniforms),
        labels=tuple(labels),
        input_mask=in_mask,
        output_mask=out_mask,
        merge_outmaps=bool(merge),
        geometry_mode=GeometryMode(mode),
        fixed_vertex_start=fixed_start,
        variable_vertex_count=variable_count,
        fixed_vertex_count=fixed_count,
        version=version,
    )
    layout = DvleLayout(
        offset=h.offset,
        constant_offset=h.constants.rel,
        label_offset=h.labels.rel,
        output_offset=h.outputs.rel,
        uniform_offset=h.uniforms.rel,
        symbol_offset=h.symbols.rel,
        symbol_size=h.symbols.count,
        constant_count=h.constants.count,
        label_count=h.labels.count,
        output_count=h.outputs.count,
        uniform_count=h.uniforms.count,
        uniform_symbols=tuple(uniform_symbols),
        label_symbols=tuple(label_symbols),
    )
    return entry, layout


def find_dvlb(data: bytes) -> list[int]:
    """Offsets of the DVLB blocks inside ``data`` (e.g. a CGFX ``.bcsdr`` file).

    Every occurrence of the ``DVLB`` magic whose block parses is reported; offsets inside a
    block are relative to its start, so read one with ``Shbin.from_bytes(data[offset:])``.
    """
    found = []
    start = data.find(MAGIC_DVLB)
    while start >= 0:
        try:
            parse(data[start:])
        except ShbinError:
            pass
        else:
            found.append(start)
        start = data.find(MAGIC_DVLB, start + 1)
    return found
