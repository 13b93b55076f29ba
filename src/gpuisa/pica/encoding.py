"""Instruction words and operand-descriptor words <-> records, driven by :mod:`.isa`.

Decoding never fails for a 32-bit word: unknown opcodes decode to an instruction of the
``unknown`` format whose raw bits are kept, and bits that a format does not use are kept
in ``extra``, so ``encode(decode(w)) == w`` for every word.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..errors import EncodingError
from .isa import (
    BY_MNEMONIC,
    BY_VALUE,
    OPCODE_BITS,
    OPCODES,
    OPDESC_LAYOUT,
    Format,
    Opcode,
    OpcodeInfo,
    selector_components,
)

_WORD_MAX = 0xFFFFFFFF


def _check_word(word: int, what: str) -> None:
    if not isinstance(word, int) or isinstance(word, bool) or not 0 <= word <= _WORD_MAX:
        raise EncodingError(f"{what} must be a 32-bit unsigned integer, got {word!r}")


def field_value(fields: tuple[tuple[str, int], ...], name: str, opcode: Opcode) -> int:
    """The value of field ``name`` among the (name, value) ``fields`` of an ``opcode`` word;
    KeyError naming both when it has no such field."""
    for key, value in fields:
        if key == name:
            return value
    raise KeyError(f"{opcode.name} has no field {name!r}")


@dataclass(frozen=True, slots=True)
class Instruction:
    """A decoded instruction word.

    ``fields`` holds every field of the opcode's format in layout order; ``extra`` holds
    the bits of the word that the format leaves unused (normally zero).
    """

    opcode: Opcode
    fields: tuple[tuple[str, int], ...] = ()
    extra: int = 0

    @classmethod
    def make(cls, opcode: Opcode | str, extra: int = 0, **fields: int) -> Instruction:
        """Build an instruction by mnemonic or opcode; fields not given are 0."""
        info = _info(opcode)
        layout = info.format.layout
        unknown = set(fields) - set(layout.names)
        if unknown:
            raise EncodingError(
                f"{info.opcode.name} (format {info.format.name}) has no field(s) "
                f"{', '.join(sorted(unknown))}; its fields are: {', '.join(layout.names) or 'none'}"
            )
        for name, value in fields.items():
            layout[name].insert(0, value)  # range check with a clear message
        return cls(info.opcode, tuple((n, fields.get(n, 0)) for n in layout.names), extra)

    @property
    def info(self) -> OpcodeInfo:
        return OPCODES[self.opcode]

    @property
    def mnemonic(self) -> str:
        return self.info.mnemonic

    @property
    def format(self) -> Format:
        return self.info.format

    def __getitem__(self, name: str) -> int:
        return field_value(self.fields, name, self.opcode)

    def get(self, name: str, default: int | None = None) -> int | None:
        return dict(self.fields).get(name, default)

    def as_dict(self) -> dict[str, int]:
        return dict(self.fields)

    def replace(self, **fields: int) -> Instruction:
        """A copy with some fields changed (e.g. a relocated branch target)."""
        merged = self.as_dict()
        for name in fields:
            if name not in merged:
                raise EncodingError(f"{self.opcode.name} has no field {name!r}")
        merged.update(fields)
        return Instruction.make(self.opcode, self.extra, **merged)


def _info(opcode: Opcode | str | int) -> OpcodeInfo:
    if isinstance(opcode, str):
        info = BY_MNEMONIC.get(opcode.lower())
        if info is None:
            raise EncodingError(f"unknown mnemonic {opcode!r}")
        return info
    try:
        return OPCODES[Opcode(opcode)]
    except ValueError:
        raise EncodingError(f"0x{opcode:02X} is not a canonical opcode value") from None


def decode(word: int) -> Instruction:
    """Decode one 32-bit instruction word."""
    _check_word(word, "an instruction word")
    info = BY_VALUE[word >> (32 - OPCODE_BITS)]
    fmt = info.format
    fields = tuple(fmt.layout.unpack(word).items())
    return Instruction(info.opcode, fields, word & fmt.unused_mask)


def encode(instruction: Instruction) -> int:
    """Encode an instruction record into its 32-bit word."""
    info = _info(instruction.opcode)
    fmt = info.format
    if instruction.extra & ~fmt.unused_mask:
        raise EncodingError(
            f"{info.opcode.name}: extra bits 0x{instruction.extra:08X} overlap the fields of "
            f"format {fmt.name} (unused bits are 0x{fmt.unused_mask:08X})"
        )
    names = tuple(name for name, _ in instruction.fields)
    if set(names) != set(fmt.layout.names) or len(names) != len(fmt.layout.names):
        raise EncodingError(
            f"{info.opcode.name} (format {fmt.name}) needs exactly the fields "
            f"{', '.join(fmt.layout.names) or 'none'}, got {', '.join(names) or 'none'}"
        )
    opcode_field = fmt.opcode_field
    word = opcode_field.insert(0, info.opcode >> (OPCODE_BITS - opcode_field.width))
    return fmt.layout.pack(dict(instruction.fields), word) | instruction.extra


# -- operand descriptors -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class OperandDescriptor:
    """A decoded operand descriptor: destination mask, per-source negation and selector.

    ``mask`` uses the hardware bit order (bit 3 = x ... bit 0 = w).  ``extra`` keeps the
    undocumented bit 31.
    """

    mask: int = 0xF
    negate: tuple[bool, bool, bool] = (False, False, False)
    selectors: tuple[int, int, int] = (0x1B, 0x1B, 0x1B)
    extra: int = 0

    def swizzle(self, source: int) -> tuple[int, int, int, int]:
        """Component indices read by source 1, 2 or 3."""
        return selector_components(self.selectors[source - 1])


def decode_opdesc(word: int) -> OperandDescriptor:
    _check_word(word, "an operand descriptor")
    f = OPDESC_LAYOUT.unpack(word)
    return OperandDescriptor(
        mask=f["mask"],
        negate=(bool(f["neg1"]), bool(f["neg2"]), bool(f["neg3"])),
        selectors=(f["sel1"], f["sel2"], f["sel3"]),
        extra=word & OPDESC_LAYOUT.unused_mask,
    )


def encode_opdesc(desc: OperandDescriptor) -> int:
    if desc.extra & ~OPDESC_LAYOUT.unused_mask:
        raise EncodingError(
            f"operand descriptor extra bits 0x{desc.extra:08X} overlap its fields "
            f"(unused bits are 0x{OPDESC_LAYOUT.unused_mask:08X})"
        )
    values: Mapping[str, int] = {
        "mask": desc.mask,
        "neg1": int(desc.negate[0]),
        "sel1": desc.selectors[0],
        "neg2": int(desc.negate[1]),
        "sel2": desc.selectors[1],
        "neg3": int(desc.negate[2]),
        "sel3": desc.selectors[2],
    }
    return OPDESC_LAYOUT.pack(values) | desc.extra
