"""Decoded records of a DVLE (executable) in a SHBIN: constants, outputs, uniforms, labels.

Every record keeps the raw values of its fields, so that a file re-written from it loses
nothing (layout: shbin-format.md#dvle-header, shbin-format.md#dvle-tables).  Enumerated fields whose
codes the format leaves open (output semantics) keep unknown codes as plain ints.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import IntEnum

from ...errors import InputError
from ..isa import (
    NUM_BOOL_UNIFORMS,
    NUM_FLOAT_UNIFORMS,
    NUM_INPUTS,
    NUM_INT_UNIFORMS,
    NUM_OUTPUTS,
    GeometryMode,
)


class ShaderType(IntEnum):
    """DVLE header byte 0x06."""

    VERTEX = 0
    GEOMETRY = 1


class ConstantKind(IntEnum):
    """Type field of a constant-table entry."""

    BOOL = 0
    INT = 1
    FLOAT = 2


class OutputSemantic(IntEnum):
    """Semantic code of an output-table entry (7 is not a semantic)."""

    POSITION = 0
    NORMALQUAT = 1
    COLOR = 2
    TEXCOORD0 = 3
    TEXCOORD0W = 4
    TEXCOORD1 = 5
    TEXCOORD2 = 6
    VIEW = 8
    DUMMY = 9


#: Registers per constant kind: b0-b15, i0-i3, c0-c95 (shbin-format.md#dvle-constants,
#: shbin-format.md#libctru).
CONSTANT_BANK_SIZE = {
    ConstantKind.BOOL: NUM_BOOL_UNIFORMS,
    ConstantKind.INT: NUM_INT_UNIFORMS,
    ConstantKind.FLOAT: NUM_FLOAT_UNIFORMS,
}

#: Uniform register space of the DVLE uniform table (shbin-format.md#dvle-uniforms):
#: bank letter -> (first id, number of registers).  0x74-0x77 and 0x88+ belong to no bank.
UNIFORM_BANKS = {
    "v": (0x00, NUM_INPUTS),
    "c": (0x10, NUM_FLOAT_UNIFORMS),
    "i": (0x70, NUM_INT_UNIFORMS),
    "b": (0x78, NUM_BOOL_UNIFORMS),
}

#: Output registers o0-o15 (the output-table register field is 16 bits wide).
OUTPUT_REGISTERS = NUM_OUTPUTS


def _enum_or_int(enum: type[IntEnum], value: int) -> int:
    try:
        return enum(value)
    except ValueError:
        return value


def _enum(enum: type[IntEnum], value: object, what: str) -> IntEnum:
    try:
        return enum(value)
    except (ValueError, TypeError):
        names = ", ".join(f"{m.value} ({m.name.lower()})" for m in enum)
        raise InputError(f"{what} {value!r} is not one of {names}") from None


def _check_types(record: object, ints: tuple[str, ...], strs: tuple[str, ...] = ()) -> None:
    """Field types only; value ranges are the writer's business (it knows the field widths)."""
    for names, kind in ((ints, int), (strs, str)):
        for name in names:
            value = getattr(record, name)
            if not isinstance(value, kind):
                raise InputError(
                    f"{type(record).__name__}.{name} is {type(value).__name__}, "
                    f"expected {kind.__name__}"
                )


def as_tuple(values: Iterable[object], what: str) -> tuple:
    if isinstance(values, str | bytes):
        raise InputError(f"{what} must be a sequence, not {type(values).__name__}")
    try:
        return tuple(values)
    except TypeError:
        raise InputError(f"{what} must be a sequence, not {type(values).__name__}") from None


@dataclass(frozen=True, slots=True)
class Constant:
    """One constant-table entry: a value uploaded to a uniform register at shader start.

    ``words`` are the four raw u32 words of the entry's value (bytes 0x04-0x13): float24
    bits in the low 24 bits of each word for ``FLOAT``; x, y, z, w bytes in bits 0-7 ...
    24-31 of ``words[0]`` for ``INT``; 0 or 1 in ``words[0]`` for ``BOOL``.
    """

    kind: ConstantKind
    register: int
    words: tuple[int, int, int, int] = (0, 0, 0, 0)

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", _enum(ConstantKind, self.kind, "constant kind"))
        words = as_tuple(self.words, "constant words")
        if len(words) != 4:
            raise InputError(f"a constant has 4 value words, got {len(words)}")
        object.__setattr__(self, "words", words)
        _check_types(self, ("register",))
        for k, word in enumerate(words):
            if not isinstance(word, int):
                raise InputError(f"Constant.words[{k}] is {type(word).__name__}, expected int")

    @classmethod
    def from_f24(cls, register: int, bits: Sequence[int]) -> Constant:
        """A float constant from four raw float24 values (x, y, z, w)."""
        return cls(ConstantKind.FLOAT, register, tuple(bits))

    @classmethod
    def from_floats(cls, register: int, values: Sequence[float]) -> Constant:
        """A float constant converted the way picasso converts (truncating float24)."""
        from ...floats import f32_to_f24_picasso  # lazy: gpuisa.floats is optional here

        return cls.from_f24(register, [int(b) for b in f32_to_f24_picasso(list(values))])

    @classmethod
    def from_ints(cls, register: int, values: Sequence[int]) -> Constant:
        """An integer-vector constant from its four u8 components (x, y, z, w)."""
        if len(values) != 4 or not all(isinstance(v, int) and 0 <= v <= 0xFF for v in values):
            raise InputError(f"an integer constant needs four values 0..255, got {values!r}")
        x, y, z, w = values
        return cls(ConstantKind.INT, register, (x | y << 8 | z << 16 | w << 24, 0, 0, 0))

    @classmethod
    def from_bool(cls, register: int, value: bool) -> Constant:
        return cls(ConstantKind.BOOL, register, (int(bool(value)), 0, 0, 0))

    @property
    def f24(self) -> tuple[int, int, int, int]:
        """The four float24 bit patterns (low 24 bits of each word)."""
        return tuple(w & 0xFFFFFF for w in self.words)

    @property
    def floats(self) -> tuple[float, float, float, float]:
        """The float24 values decoded to Python floats."""
        from ...floats import f24_to_f32  # lazy: gpuisa.floats is optional here

        return tuple(float(v) for v in f24_to_f32(list(self.f24)))

    @property
    def ints(self) -> tuple[int, int, int, int]:
        """The integer components x, y, z, w (bytes of the first word)."""
        word = self.words[0]
        return tuple((word >> shift) & 0xFF for shift in (0, 8, 16, 24))

    @property
    def value(self) -> bool:
        """The boolean value (libctru sets the bool uniform iff the word is non-zero)."""
        return self.words[0] != 0


@dataclass(frozen=True, slots=True)
class OutputEntry:
    """One output-table entry (a u64): which semantic an output register carries.

    ``semantic`` is an :class:`OutputSemantic` when the code is known, else the raw int.
    ``mask`` has x = bit 0 ... w = bit 3; ``upper`` holds entry bits 36-63 (0 in every
    known writer) so that nothing is lost.
    """

    semantic: int
    register: int
    mask: int = 0xF
    upper: int = 0

    def __post_init__(self) -> None:
        _check_types(self, ("semantic", "register", "mask", "upper"))
        object.__setattr__(self, "semantic", _enum_or_int(OutputSemantic, self.semantic))

    @property
    def known(self) -> bool:
        """True if ``semantic`` is a code listed in :class:`OutputSemantic`."""
        return isinstance(self.semantic, OutputSemantic)

    @property
    def components(self) -> str:
        """The mask as component letters, e.g. ``"xyz"``."""
        return "".join(c for i, c in enumerate("xyzw") if self.mask >> i & 1)


def uniform_bank(register: int) -> str | None:
    """Bank letter ('v', 'c', 'i', 'b') of a uniform-space register id, None if in none."""
    for letter, (first, count) in UNIFORM_BANKS.items():
        if first <= register < first + count:
            return letter
    return None


@dataclass(frozen=True, slots=True)
class Uniform:
    """One uniform-table entry: a named register range in uniform register space."""

    name: str
    first: int
    last: int

    def __post_init__(self) -> None:
        _check_types(self, ("first", "last"), ("name",))

    @classmethod
    def in_bank(cls, name: str, bank: str, number: int, count: int = 1) -> Uniform:
        """The entry for ``count`` registers starting at e.g. ``c``\\ ``number``."""
        if bank not in UNIFORM_BANKS:
            raise InputError(f"unknown uniform bank {bank!r} (expected one of v, c, i, b)")
        base = UNIFORM_BANKS[bank][0]
        return cls(name, base + number, base + number + count - 1)

    @property
    def bank(self) -> str | None:
        """'v', 'c', 'i' or 'b'; None if ``first`` lies outside every bank."""
        return uniform_bank(self.first)

    @property
    def register(self) -> int:
        """Number of the first register within its bank (e.g. 5 for c5)."""
        bank = self.bank
        return self.first - UNIFORM_BANKS[bank][0] if bank else self.first

    @property
    def count(self) -> int:
        return self.last - self.first + 1


@dataclass(frozen=True, slots=True)
class Label:
    """One label-table entry (written by nihstro and aemstro, never by picasso)."""

    id: int
    offset: int
    name: str
    unknown: int = 0

    def __post_init__(self) -> None:
        _check_types(self, ("id", "offset", "unknown"), ("name",))


@dataclass(frozen=True, slots=True)
class Dvle:
    """One executable: entry point, header fields and the four tables of a DVLE.

    Offsets ``main_offset``/``endmain_offset`` are in words into the shared program code.
    The geometry fields are stored for every DVLE (libctru reads them only for geometry
    shaders; picasso writes zeros for vertex shaders).  ``version`` is picasso's 0x1002 by
    default (nihstro writes 0).
    """

    shader_type: ShaderType = ShaderType.VERTEX
    main_offset: int = 0
    endmain_offset: int = 0
    constants: tuple[Constant, ...] = ()
    outputs: tuple[OutputEntry, ...] = ()
    uniforms: tuple[Uniform, ...] = ()
    labels: tuple[Label, ...] = ()
    input_mask: int = 0
    output_mask: int = 0
    merge_outmaps: bool = False
    geometry_mode: GeometryMode = GeometryMode.POINT
    fixed_vertex_start: int = 0
    variable_vertex_count: int = 0
    fixed_vertex_count: int = 0
    version: int = 0x1002

    def __post_init__(self) -> None:
        object.__setattr__(self, "shader_type", _enum(ShaderType, self.shader_type, "shader type"))
        object.__setattr__(
            self, "geometry_mode", _enum(GeometryMode, self.geometry_mode, "geometry mode")
        )
        _check_types(
            self,
            (
                "main_offset",
                "endmain_offset",
                "input_mask",
                "output_mask",
                "merge_outmaps",
                "fixed_vertex_start",
                "variable_vertex_count",
                "fixed_vertex_count",
                "version",
            ),
        )
        for name, record in (
            ("constants", Constant),
            ("outputs", OutputEntry),
            ("uniforms", Uniform),
            ("labels", Label),
        ):
            items = as_tuple(getattr(self, name), name)
            for i, item in enumerate(items):
                if not isinstance(item, record):
                    raise InputError(
                        f"{name}[{i}] is {type(item).__name__}, expected {record.__name__}"
                    )
            object.__setattr__(self, name, items)

    def uniform(self, name: str) -> Uniform | None:
        """The uniform-table entry called ``name`` (first match), if any."""
        return next((u for u in self.uniforms if u.name == name), None)
