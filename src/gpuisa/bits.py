"""Generic bit-field layouts, shared by both ISAs.

A :class:`Layout` is a named set of non-overlapping :class:`Field` s inside a word of
``width`` bits (32 for a PICA instruction, 48 for an A2XX CF clause, 96 for an A2XX ALU
or fetch slot).  Layouts are validated when built, so an ISA table that declares two
overlapping fields, or a field outside its word, fails at import time.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .errors import EncodingError, IsaTableError


@dataclass(frozen=True, slots=True)
class Field:
    """``width`` bits starting at bit ``lsb`` (bit 0 = least significant)."""

    name: str
    lsb: int
    width: int

    @property
    def mask(self) -> int:
        """The field's bits in place within the word."""
        return ((1 << self.width) - 1) << self.lsb

    @property
    def max(self) -> int:
        return (1 << self.width) - 1

    def extract(self, word: int) -> int:
        return (word >> self.lsb) & self.max

    def insert(self, word: int, value: int) -> int:
        """``word`` with this field replaced by ``value`` (which must fit)."""
        if not 0 <= value <= self.max:
            raise EncodingError(
                f"field {self.name!r} is {self.width} bits wide; {value} does not fit "
                f"(0..{self.max})"
            )
        return (word & ~self.mask) | (value << self.lsb)


class Layout:
    """A validated, ordered collection of fields within a ``width``-bit word."""

    __slots__ = ("_by_name", "fields", "name", "used_mask", "width")

    def __init__(self, name: str, fields: Iterable[Field | tuple[str, int, int]], width: int):
        self.name = name
        self.width = width
        self.fields: tuple[Field, ...] = tuple(
            f if isinstance(f, Field) else Field(*f) for f in fields
        )
        self._by_name: dict[str, Field] = {}
        used = 0
        for f in self.fields:
            if f.width <= 0 or f.lsb < 0 or f.lsb + f.width > width:
                raise IsaTableError(
                    f"layout {name}: field {f.name} (bits {f.lsb}..{f.lsb + f.width - 1}) "
                    f"does not lie within a {width}-bit word"
                )
            if f.name in self._by_name:
                raise IsaTableError(f"layout {name}: field {f.name} declared twice")
            if used & f.mask:
                other = next(g.name for g in self.fields if g.mask & f.mask and g is not f)
                raise IsaTableError(f"layout {name}: field {f.name} overlaps field {other}")
            used |= f.mask
            self._by_name[f.name] = f
        self.used_mask = used

    @property
    def word_mask(self) -> int:
        return (1 << self.width) - 1

    @property
    def unused_mask(self) -> int:
        """Bits of the word that no field covers."""
        return self.word_mask & ~self.used_mask

    def __getitem__(self, name: str) -> Field:
        return self._by_name[name]

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields)

    def unpack(self, word: int) -> dict[str, int]:
        """Every field's value, in declaration order."""
        return {f.name: (word >> f.lsb) & f.max for f in self.fields}

    def pack(self, values: Mapping[str, int], base: int = 0) -> int:
        """``base`` with the given fields replaced.

        Unknown names are an error; fields not named keep their value from ``base``.
        """
        word = base
        for name, value in values.items():
            field = self._by_name.get(name)
            if field is None:
                raise EncodingError(
                    f"layout {self.name} has no field {name!r} (fields: {', '.join(self.names)})"
                )
            word = field.insert(word, value)
        return word

    def __repr__(self) -> str:
        inner = ", ".join(f"{f.name}@{f.lsb}:{f.width}" for f in self.fields)
        return f"Layout({self.name!r}, [{inner}], width={self.width})"
