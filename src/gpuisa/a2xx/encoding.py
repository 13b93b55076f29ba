"""A2XX binary encoding: 48-bit CF clauses and 96-bit slots <-> frozen records.

The codec is generic over the layouts in :mod:`gpuisa.a2xx.isa`: a record's fields are
generated from its layout (one field per layout field), plus ``reserved`` holding, in place,
the bits no field covers, so ``encode(decode(x)) == x`` for every decodable ``x``.
Enumerated fields decode to their IntEnum member when the value is defined and stay plain
ints otherwise (e.g. vector opcode 30), so nothing is lost.

A slot is the integer ``d0 | d1 << 32 | d2 << 64`` of its three little-endian dwords.
"""

from __future__ import annotations

import operator
import struct
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import make_dataclass
from enum import IntEnum

from ..bits import Layout
from ..errors import EncodingError, InputError
from . import isa
from .isa import (
    CF_LAYOUTS,
    CF_OPS,
    CF_SLOT,
    FETCH_LAYOUTS,
    FETCH_OPS,
    SCALAR_OPS,
    VECTOR_OPS,
    CfKind,
    CfOpcode,
    CfOpInfo,
    FetchKind,
    FetchOpcode,
    ScalarOpInfo,
    VectorOpInfo,
)


def _as_enum(enum: type[IntEnum], value: int) -> IntEnum | int:
    try:
        return enum(value)
    except ValueError:
        return value


# --------------------------------------------------------------------------------------
# Records
# --------------------------------------------------------------------------------------
# Each record class is built from its layout in isa.py: one field per layout field, in
# layout order, plus ``reserved`` where the layout leaves bits uncovered.  A field
# defaults to the encoder default of isa.py (else 0); the bases below add behaviour only.


class _CfRecord:
    """What every CF clause record shares: its opcode's row of the CF table."""

    __slots__ = ()

    @property
    def info(self) -> CfOpInfo:
        return CF_OPS[CfOpcode(self.opcode)]  # type: ignore[attr-defined]


class _ExecRecord(_CfRecord):
    """EXEC-family clause (a2xx-isa.md#cf-exec): runs ``count`` ALU/FETCH slots from slot
    ``address``."""

    __slots__ = ()

    def is_fetch(self, i: int) -> bool:
        """Instruction ``i`` of the block is a FETCH (else ALU)."""
        return bool(self._sequence(i) & isa.SEQUENCE_FETCH)

    def is_serialized(self, i: int) -> bool:
        return bool(self._sequence(i) & isa.SEQUENCE_SERIALIZE)

    def _sequence(self, i: int) -> int:
        # The 12-bit field describes 6 instructions; a 7th reads as zeros (ALU, no (S)).
        serialize: int = self.serialize  # type: ignore[attr-defined]
        return (serialize >> (isa.SEQUENCE_BITS_PER_INSTR * i)) & 0x3


class _AluRecord:
    """One co-issued vector + scalar ALU slot (a2xx-isa.md#alu-layout).  Every bit belongs to a
    field.

    ``src*_reg`` are whole register bytes: for a temp (``src*_sel`` = 1) bits 0-5 are the
    index, bit 6 aL-relative and bit 7 abs; for a constant all 8 bits are the index.
    """

    __slots__ = ()

    @property
    def vector_info(self) -> VectorOpInfo | None:
        """The vector operation, or None for an unused opcode (30, 31)."""
        return VECTOR_OPS.get(self.vector_opc)  # type: ignore[attr-defined]

    @property
    def scalar_info(self) -> ScalarOpInfo | None:
        """The scalar operation, or None for an unused opcode (41, 51-63)."""
        return SCALAR_OPS.get(self.scalar_opc)  # type: ignore[attr-defined]


class _FetchRecord:
    """What both fetch records share: their opcode's row of the fetch table."""

    __slots__ = ()

    @property
    def info(self) -> isa.FetchOpInfo:
        return FETCH_OPS[FetchOpcode(self.opcode)]  # type: ignore[attr-defined]


def _record(name: str, layout: Layout, base: type, doc: str, defaults: Mapping[str, int]) -> type:
    enums = isa.layout_enums(layout)
    specs: list[tuple[str, type, object]] = []
    for f in layout.fields:
        enum = enums.get(f.name)
        value = defaults.get(f.name, 0)
        specs.append((f.name, int, _as_enum(enum, value) if enum else value))
    if layout.unused_mask:
        specs.append(("reserved", int, 0))
    cls = make_dataclass(name, specs, bases=(base,), frozen=True, slots=True)
    cls.__module__ = __name__
    cls.__doc__ = doc
    return cls


def _cf_record(name: str, kind: CfKind, opcode: CfOpcode, base: type, doc: str) -> type:
    return _record(name, CF_LAYOUTS[kind], base, doc, {"opcode": opcode})


CfNop = _cf_record(
    "CfNop",
    CfKind.NOP,
    CfOpcode.NOP,
    _CfRecord,
    "NOP or MARK_VS_FETCH_DONE (a2xx-isa.md#cf-opcodes).",
)
CfExec = _cf_record("CfExec", CfKind.EXEC, CfOpcode.EXEC, _ExecRecord, _ExecRecord.__doc__ or "")
CfLoop = _cf_record(
    "CfLoop",
    CfKind.LOOP,
    CfOpcode.LOOP_START,
    _CfRecord,
    "LOOP_START / LOOP_END (a2xx-isa.md#cf-loop).",
)
CfJmpCall = _cf_record(
    "CfJmpCall",
    CfKind.JMP_CALL,
    CfOpcode.COND_JMP,
    _CfRecord,
    "COND_CALL / RETURN / COND_JMP (a2xx-isa.md#cf-call-jmp).",
)
CfAlloc = _cf_record(
    "CfAlloc",
    CfKind.ALLOC,
    CfOpcode.ALLOC,
    _CfRecord,
    "ALLOC (a2xx-isa.md#cf-alloc): size = exports - 1.",
)
AluInstruction = _record(
    "AluInstruction", isa.ALU_LAYOUT, _AluRecord, _AluRecord.__doc__ or "", isa.ALU_DEFAULTS
)


def _fetch_record(name: str, kind: FetchKind, opcode: FetchOpcode, doc: str) -> type:
    defaults = isa.VERTEX_FETCH_DEFAULTS if kind is FetchKind.VERTEX else None
    defaults = {"opcode": opcode, **(defaults or isa.TEXTURE_FETCH_DEFAULTS)}
    return _record(name, FETCH_LAYOUTS[kind], _FetchRecord, doc, defaults)


VertexFetch = _fetch_record(
    "VertexFetch",
    FetchKind.VERTEX,
    FetchOpcode.VTX_FETCH,
    "Vertex fetch slot (a2xx-isa.md#vertex-fetch).",
)
TextureFetch = _fetch_record(
    "TextureFetch",
    FetchKind.TEXTURE,
    FetchOpcode.TEX_FETCH,
    "Texture fetch slot (a2xx-isa.md#texture-fetch).",
)

CfClause = CfNop | CfExec | CfLoop | CfJmpCall | CfAlloc  # type: ignore[valid-type]
FetchInstruction = VertexFetch | TextureFetch  # type: ignore[valid-type]
Record = CfClause | AluInstruction | FetchInstruction  # type: ignore[valid-type]

_CF_RECORDS: dict[CfKind, type] = {
    CfKind.NOP: CfNop,
    CfKind.EXEC: CfExec,
    CfKind.LOOP: CfLoop,
    CfKind.JMP_CALL: CfJmpCall,
    CfKind.ALLOC: CfAlloc,
}
_FETCH_RECORDS: dict[FetchKind, type] = {
    FetchKind.VERTEX: VertexFetch,
    FetchKind.TEXTURE: TextureFetch,
}
_LAYOUT_OF: dict[type, Layout] = {
    **{cls: CF_LAYOUTS[kind] for kind, cls in _CF_RECORDS.items()},
    AluInstruction: isa.ALU_LAYOUT,
    **{cls: FETCH_LAYOUTS[kind] for kind, cls in _FETCH_RECORDS.items()},
}
_ENUMS_OF: dict[type, dict[str, type[IntEnum]]] = {
    cls: isa.layout_enums(layout) for cls, layout in _LAYOUT_OF.items()
}


# --------------------------------------------------------------------------------------
# Generic codec
# --------------------------------------------------------------------------------------


def _check_word(word: int, bits: int, what: str) -> None:
    if not isinstance(word, int) or isinstance(word, bool) or not 0 <= word < 1 << bits:
        raise EncodingError(f"{what} must be an integer in 0..2**{bits}-1, got {word!r}")


def _decode(cls: type, word: int) -> Record:
    layout = _LAYOUT_OF[cls]
    values: dict[str, object] = dict(layout.unpack(word))
    for name, enum in _ENUMS_OF[cls].items():
        values[name] = _as_enum(enum, values[name])  # type: ignore[arg-type]
    if layout.unused_mask:
        values["reserved"] = word & layout.unused_mask
    return cls(**values)  # type: ignore[no-any-return]


def decode_cf(clause: int) -> CfClause:
    """Decode one 48-bit CF clause (all 16 opcodes are defined, so this cannot fail)."""
    _check_word(clause, isa.CF_CLAUSE_BITS, "a CF clause")
    opcode = CfOpcode(CF_LAYOUTS[CfKind.NOP]["opcode"].extract(clause))
    return _decode(_CF_RECORDS[CF_OPS[opcode].kind], clause)  # type: ignore[return-value]


def decode_alu(slot: int) -> AluInstruction:
    """Decode a 96-bit ALU slot."""
    _check_word(slot, isa.SLOT_BITS, "an ALU slot")
    return _decode(AluInstruction, slot)  # type: ignore[return-value]


def fetch_opcode(slot: int) -> int:
    """The raw 5-bit opcode of a fetch slot."""
    return FETCH_LAYOUTS[FetchKind.VERTEX]["opcode"].extract(slot)


def decode_fetch(slot: int) -> FetchInstruction:
    """Decode a 96-bit FETCH slot; an undefined fetch opcode raises EncodingError."""
    _check_word(slot, isa.SLOT_BITS, "a FETCH slot")
    raw = fetch_opcode(slot)
    if raw in isa.FETCH_UNUSED:
        raise EncodingError(f"fetch opcode {raw} is not a defined fetch operation")
    kind = FETCH_OPS[FetchOpcode(raw)].kind
    return _decode(_FETCH_RECORDS[kind], slot)  # type: ignore[return-value]


def encode(record: Record) -> int:
    """Encode a record: a 48-bit clause for CF records, a 96-bit slot for ALU/FETCH."""
    layout = _LAYOUT_OF.get(type(record))
    if layout is None:
        raise InputError(f"cannot encode {type(record).__name__}: not an A2XX record")
    values: dict[str, int] = {}
    for name in layout.names:
        value = getattr(record, name)
        if not isinstance(value, int):
            raise EncodingError(f"{layout.name}.{name} must be an integer, got {value!r}")
        values[name] = int(value)
    reserved = getattr(record, "reserved", 0)
    if not isinstance(reserved, int) or reserved < 0 or reserved & ~layout.unused_mask:
        raise EncodingError(
            f"{layout.name}: reserved bits {reserved!r} overlap defined fields "
            f"(allowed mask 0x{layout.unused_mask:x})"
        )
    _check_opcode_kind(record, values)
    return layout.pack(values, base=reserved)


def _check_opcode_kind(record: Record, values: dict[str, int]) -> None:
    """A CF/fetch record's opcode must be one that uses that record's layout."""
    if isinstance(record, AluInstruction):
        return
    opcode = values["opcode"]
    if isinstance(record, VertexFetch | TextureFetch):
        fetch_info = FETCH_OPS.get(opcode)  # type: ignore[call-overload]
        expected = None if fetch_info is None else _FETCH_RECORDS[fetch_info.kind]
    else:
        cf_info = CF_OPS.get(opcode)  # type: ignore[call-overload]
        expected = None if cf_info is None else _CF_RECORDS[cf_info.kind]
    if expected is not type(record):
        raise EncodingError(f"opcode {opcode} cannot be encoded as {type(record).__name__}")


# --------------------------------------------------------------------------------------
# Slots, dwords and bytes
# --------------------------------------------------------------------------------------


def slot_from_dwords(d0: int, d1: int, d2: int) -> int:
    return d0 | d1 << 32 | d2 << 64


def slot_to_dwords(slot: int) -> tuple[int, int, int]:
    return slot & 0xFFFFFFFF, (slot >> 32) & 0xFFFFFFFF, (slot >> 64) & 0xFFFFFFFF


def split_cf_slot(slot: int) -> tuple[int, int]:
    """The two 48-bit clauses of a CF slot (a2xx-isa.md#cf-slot)."""
    _check_word(slot, isa.SLOT_BITS, "a CF slot")
    return CF_SLOT["clause0"].extract(slot), CF_SLOT["clause1"].extract(slot)


def join_cf_slot(clause0: int, clause1: int) -> int:
    """The CF slot holding two 48-bit clauses."""
    return CF_SLOT.pack({"clause0": clause0, "clause1": clause1})


def slots_from_words(words: Iterable[int]) -> list[int]:
    """Group dwords into 96-bit slots; the count must be a multiple of three."""
    if isinstance(words, bytes | bytearray | memoryview | str):
        raise InputError(
            "expected 32-bit dwords, got text or bytes (use words_from_bytes for binaries)"
        )
    values = list(words)
    for i, w in enumerate(values):
        try:
            v = operator.index(w)  # accepts numpy integers, rejects floats and strings
        except TypeError:
            v = -1
        if isinstance(w, bool) or not 0 <= v <= 0xFFFFFFFF:
            raise InputError(f"dword {i} is not a 32-bit unsigned value: {w!r}")
        values[i] = v
    if len(values) % isa.SLOT_DWORDS:
        raise InputError(
            f"program is {len(values)} dwords, not a whole number of 96-bit slots "
            f"(3 dwords each): truncated after slot {len(values) // isa.SLOT_DWORDS}"
        )
    return [slot_from_dwords(*values[i : i + 3]) for i in range(0, len(values), 3)]


def words_from_slots(slots: Iterable[int]) -> list[int]:
    out: list[int] = []
    for slot in slots:
        _check_word(slot, isa.SLOT_BITS, "a slot")
        out.extend(slot_to_dwords(slot))
    return out


def words_from_bytes(data: bytes) -> list[int]:
    """Little-endian dwords of a binary; its length must be a multiple of 4."""
    if len(data) % 4:
        raise InputError(f"binary is {len(data)} bytes, not a whole number of 32-bit dwords")
    return list(struct.unpack(f"<{len(data) // 4}I", data))


def words_to_bytes(words: Sequence[int]) -> bytes:
    try:
        return struct.pack(f"<{len(words)}I", *words)
    except struct.error as exc:
        raise InputError(f"cannot pack dwords: {exc}") from None
