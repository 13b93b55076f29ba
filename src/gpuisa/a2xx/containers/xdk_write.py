"""Writing an XDK shader container of the current version (a2xx-formats.md#xdk-writing).

The inverse of :func:`.xdk.read_xdk_container`, with the same field tables: the header,
the debug block, the constant table, the definition table and the shader header in the
virtual part; the literal values and the microcode in the physical part.  What the
record does not hold is filled by the compiler's rules, each found in the thirty-five
containers the XDK compiler published with their listings and cited in
a2xx-formats.md#xdk-writing: the strings and type infos of the constant table in the
constant order (a type info shared by equal types, ``0xAB`` padding), the 64-bit map of
defined constant groups, the interpolators' component count, the vertex shader's list of
the instructions that export each interpolator, and the marks of a vertex element's run
of fetches.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable

from ..encoding import CfExec, decode_alu
from ..errors import ContainerError
from ..isa import ALU_LAYOUT, EXPORT_INTERPOLATORS, VERTEX_FETCH_LAYOUT, ScalarOpcode
from ..program import exec_entries, read_program
from .xdk import (
    CONSTANT_INFO_SIZE,
    CTAB_FIELDS,
    HEADER_FIELDS,
    HEADER_SIZE,
    INDEX_USAGE,
    MAGIC,
    PARAMETER_CLASSES,
    PARAMETER_TYPES,
    REGISTER_SETS,
    USAGES,
    Constant,
    Literal,
    Semantic,
    XdkContainer,
)

CTAB_HEADER_SIZE = 4 * len(CTAB_FIELDS)
CTAB_PAD = b"\xab"  # what the compiler fills the constant table's gaps with
CTAB_VERSIONS = {"vertex": 0xFFFE0300, "fragment": 0xFFFF0300}  # vs_3_0 / ps_3_0
TARGETS = {"vertex": "vs_3_0", "fragment": "ps_3_0"}
MULTIPASS_FLAG = 0x10  # header word 0 of the one container exporting only to memory
EXPORT_MODE_MULTIPASS = 7
LAST_EXPORT = 0x1000  # marks the last instruction of an interpolator's export list
FIRST_OF_RUN, LAST_OF_RUN = 1, 2  # a vertex element's bits 20-21


def write_xdk_container(container: XdkContainer) -> bytes:
    """The bytes of ``container`` as the XDK compiler lays them out (its
    ``microcode_offset`` is not read: the literals come first in the physical part).
    A constant table is written when ``creator`` is not empty."""
    if container.config is None:
        raise ContainerError("has no register values (SQ_PROGRAM_CNTL): it cannot be written",
                             field="config")
    literal_bytes, definitions = _literal_part(container)
    parts: list[tuple[str, bytes]] = []
    if container.debug is not None:
        path = container.debug.path.encode("latin-1")
        parts.append(("debug_info_offset", struct.pack(">2I", container.debug.timestamp,
                                                       len(path)) + _pad(path, b"\0")))
    if container.creator:
        table = constant_table(container.constants, container.creator,
                               container.target or TARGETS[container.shader_type],
                               CTAB_VERSIONS[container.shader_type])
        parts.append(("constant_table_offset", struct.pack(">I", len(table)) + table))
    if definitions:
        parts.append(("definition_table_offset", definitions))
    code = struct.pack(f">{len(container.words)}I", *container.words)
    parts.append(("shader_offset", _shader_header(container, len(literal_bytes), len(code))))
    header = dict.fromkeys(HEADER_FIELDS, 0)
    at = HEADER_SIZE
    for field, data in parts:
        header[field] = at
        at += len(data)
    header["flags"] = MAGIC | (container.shader_type == "vertex")
    if container.config.vs_export_mode == EXPORT_MODE_MULTIPASS and \
            container.shader_type == "vertex":
        header["flags"] |= MULTIPASS_FLAG
    header["virtual_size"] = at
    header["physical_size"] = len(literal_bytes) + len(code)
    head = struct.pack(f">{len(HEADER_FIELDS)}I", *(header[f] for f in HEADER_FIELDS))
    return head + b"".join(data for _, data in parts) + literal_bytes + code


def _pad(data: bytes, fill: bytes) -> bytes:
    return data + fill * (-len(data) % 4)


def constant_table(constants: Iterable[Constant], creator: str, target: str,
                   version: int) -> bytes:
    """The D3DX constant table (without its size word): the header, the constant infos,
    then for each constant its name and, unless an earlier constant has the same type,
    its type info (4-aligned); the target, the creator, ``0xAB`` up to a 4-byte
    boundary."""
    constants = tuple(constants)
    strings = bytearray()
    base = CTAB_HEADER_SIZE + CONSTANT_INFO_SIZE * len(constants)
    types: dict[tuple[int, ...], int] = {}
    infos = []
    for c in constants:
        name_at = base + len(strings)
        strings += c.name.encode("latin-1") + b"\0"
        shape = (_index(PARAMETER_CLASSES, c.parameter_class, c.name, "class"),
                 _index(PARAMETER_TYPES, c.parameter_type, c.name, "type"),
                 c.rows, c.columns, c.elements)
        if shape not in types:
            strings += CTAB_PAD * (-(base + len(strings)) % 4)
            types[shape] = base + len(strings)
            strings += struct.pack(">5HHI", *shape, 0, 0)
        infos.append(struct.pack(">I4H2I", name_at, REGISTER_SETS.index(c.register_set),
                                 c.index, c.count, 0, types[shape], 0))
    target_at = base + len(strings)
    strings += target.encode("latin-1") + b"\0"
    creator_at = base + len(strings)
    strings += creator.encode("latin-1") + b"\0"
    strings += CTAB_PAD * (-(base + len(strings)) % 4)
    # An empty table's constant-info offset is 0 (MPlayer's vs, 2.0.20353.0).
    infos_at = CTAB_HEADER_SIZE if constants else 0
    head = struct.pack(">7I", CTAB_HEADER_SIZE, creator_at, version, len(constants),
                       infos_at, 0, target_at)
    return head + b"".join(infos) + bytes(strings)


def _index(names: tuple[str, ...], name: str, constant: str, what: str) -> int:
    if name in names:
        return names.index(name)
    raise ContainerError(f"constant {constant!r}: {what} {name!r} is none of "
                         f"{', '.join(names)}", field=f"constant_table.{what}")


def _literal_part(container: XdkContainer) -> tuple[bytes, bytes]:
    """The literal values (the physical part's start) and the definition table: five
    words (a 64-bit map of the 4-register groups defined, the first group in the top bit;
    two zero words; the size of what follows), then one pair per run of consecutive
    registers, a zero word and two more (the integer and boolean lists, empty)."""
    base = 256 if container.shader_type == "fragment" else 0
    literals = sorted(container.literals, key=lambda lit: lit.register)
    if not literals:
        return b"", b""
    runs: list[list[Literal]] = []
    for literal in literals:
        if runs and runs[-1][-1].register + 1 == literal.register:
            runs[-1].append(literal)
        else:
            runs.append([literal])
    values = b""
    pairs = b""
    groups = 0
    for run in runs:
        first = run[0].register + base
        pairs += struct.pack(">2I", first << 16 | 4 * len(run), len(values))
        values += b"".join(struct.pack(">4f", *lit.values) for lit in run)
    for literal in literals:
        groups |= 1 << (63 - literal.register // 4)
    tail = pairs + bytes(12)
    table = struct.pack(">5I", groups >> 32, groups & 0xFFFFFFFF, 0, 0, len(tail)) + tail
    return values, table


def _shader_header(container: XdkContainer, code_at: int, code_size: int) -> bytes:
    """The shader header (a2xx-formats.md#xdk-shader-header, #xdk-writing)."""
    config = container.config
    assert config is not None  # checked by the caller
    interpolators = container.interpolators
    components = sum(bin(i.mask & 0xF).count("1") for i in interpolators)
    count = len(interpolators)
    words = [code_at, code_size, config.program_cntl, config.context_misc, 0,
             count | count << 5 | components << 10]
    if container.shader_type == "fragment":
        words += [config.interpolator_cntl, config.outputs]
        words += [_interpolator(i) for i in interpolators]
    else:
        exports = _exports(container.words, interpolators)
        words += [len(container.index_inputs), len(container.vertex_elements),
                  sum(len(e) for e in exports)]
        words += [i.index | INDEX_USAGE << 4 | i.register << 8 | i.mask << 9
                  for i in container.index_inputs]
        words += _elements(container.words, container.vertex_elements)
        start = 0
        for semantic, listed in zip(interpolators, exports, strict=True):
            words.append(_interpolator(semantic) | start << 16)
            start += len(listed)
        words += [slot for listed in exports for slot in listed]
    return struct.pack(f">{len(words)}I", *words)


def _interpolator(semantic: Semantic) -> int:
    return (semantic.index | USAGES.index(semantic.usage) << 4 | semantic.register << 8
            | semantic.mask << 12)


def _exports(words: tuple[int, ...], interpolators: tuple[Semantic, ...]
             ) -> list[list[int]]:
    """For each interpolator, the slots of the ALU instructions that export it, in
    order, the last one marked: the list after a vertex shader's interpolators."""
    program = read_program(words)
    written: dict[int, list[int]] = {}
    for clause in program.cf:
        for entry in exec_entries(clause) if isinstance(clause, CfExec) else ():
            if entry.is_fetch:
                continue
            values = ALU_LAYOUT.unpack(program.slots[entry.slot])
            if not values["export_data"]:
                continue
            targets = set()
            if values["vector_write_mask"]:
                targets.add(values["vector_dest"])
            alu = decode_alu(program.slots[entry.slot])
            if values["scalar_write_mask"] and alu.scalar_opc != ScalarOpcode.RETAIN_PREV:
                targets.add(values["scalar_dest"])
            for register in targets:
                if register < EXPORT_INTERPOLATORS:  # o0-o15, not oPos or the point size
                    written.setdefault(register, []).append(entry.slot)
    lists = []
    for semantic in interpolators:
        slots = sorted(written.get(semantic.register, []))
        lists.append([s | (LAST_EXPORT if k == len(slots) - 1 else 0)
                      for k, s in enumerate(slots)])
    return lists


def _elements(words: tuple[int, ...], elements: tuple[Semantic, ...]) -> list[int]:
    """The vertex element words: the fetch's slot, usage and usage index, and in bits
    20-21 the marks of a run of fetches in consecutive slots that read the same address
    (the first: 1; the last: 2, or 3 when it overwrites the address; alone: 0)."""
    program = read_program(words)
    fetch = {e.slot: VERTEX_FETCH_LAYOUT.unpack(program.slots[e.slot]) for e in elements}
    ordered = sorted(elements, key=lambda e: e.slot)
    out = []
    for k, e in enumerate(ordered):
        source = (fetch[e.slot]["src_reg"], fetch[e.slot]["src_swiz"])
        before = k > 0 and ordered[k - 1].slot == e.slot - 1 and \
            (fetch[e.slot - 1]["src_reg"], fetch[e.slot - 1]["src_swiz"]) == source
        after = k + 1 < len(ordered) and ordered[k + 1].slot == e.slot + 1 and \
            (fetch[e.slot + 1]["src_reg"], fetch[e.slot + 1]["src_swiz"]) == source
        marks = 0
        if after and not before:
            marks = FIRST_OF_RUN
        elif before and not after:
            marks = LAST_OF_RUN | _overwrites_address(fetch[e.slot])
        word = e.slot | USAGES.index(e.usage) << 12 | e.index << 16 | marks << 20
        out.append(word)
    return out


def _overwrites_address(values: dict[str, int]) -> int:
    """1 when the fetch writes the component of the register it reads its index from."""
    if values["dst_reg"] != values["src_reg"]:
        return 0
    lane = values["src_swiz"]
    return int((values["dst_swiz"] >> 3 * lane) & 7 != 7)
