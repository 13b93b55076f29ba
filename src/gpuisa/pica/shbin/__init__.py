"""SHBIN (DVLB/DVLP/DVLE) containers: one shader program shared by several executables.

Typical use: ``shbin = Shbin.from_file("shader.shbin")``, then ``shbin.program.code``,
``shbin.entries[0].main_offset``, ``shbin.entries[0].uniforms``, ...

Format: shbin-format.md.  Reading follows the header offsets, so picasso, nihstro
and aemstro files all read (what is an error and what a warning: :mod:`.read`).
``to_bytes()`` writes picasso's canonical layout, byte for byte what picasso writes for the
same contents; ``to_bytes(preserve_layout=True)`` rewrites a parsed file in place,
reproducing other toolchains' files exactly (:mod:`.write`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from ...datafiles import MAX_SHADER_BYTES, read_input
from ...errors import InputError
from ...fileio import write_output
from ..program import Program
from .layout import ShbinLayout
from .outmap import OutputMap, output_map
from .read import find_dvlb, parse
from .records import (
    Constant,
    ConstantKind,
    Dvle,
    GeometryMode,
    Label,
    OutputEntry,
    OutputSemantic,
    ShaderType,
    Uniform,
    as_tuple,
    uniform_bank,
)
from .write import write_canonical, write_preserving

__all__ = [
    "Constant",
    "ConstantKind",
    "Dvle",
    "GeometryMode",
    "Label",
    "OutputEntry",
    "OutputMap",
    "OutputSemantic",
    "ShaderType",
    "Shbin",
    "Uniform",
    "find_dvlb",
    "output_map",
    "uniform_bank",
]


@dataclass(frozen=True, slots=True)
class Shbin:
    """A SHBIN: the program (code words, first word of each operand descriptor) and DVLEs.

    ``program.opdescs`` keeps each descriptor's first word as stored, including bit 31
    (set by Nintendo's toolchain and aemstro; decoders ignore it).  ``opdesc_high`` holds
    the second words (() when all are zero, as picasso writes them; else one per
    descriptor).  ``dvlp_version`` is DVLP word 0x04.  ``layout`` and ``warnings`` are
    filled by the reader and take no part in comparisons.
    """

    program: Program
    entries: tuple[Dvle, ...] = ()
    dvlp_version: int = 0
    opdesc_high: tuple[int, ...] = ()
    layout: ShbinLayout | None = field(default=None, compare=False, repr=False)
    warnings: tuple[str, ...] = field(default=(), compare=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.program, Program):
            raise InputError(f"program is {type(self.program).__name__}, expected Program")
        entries = as_tuple(self.entries, "entries")
        for i, entry in enumerate(entries):
            if not isinstance(entry, Dvle):
                raise InputError(f"entries[{i}] is {type(entry).__name__}, expected Dvle")
        object.__setattr__(self, "entries", entries)
        high = as_tuple(self.opdesc_high, "opdesc_high")
        if not any(high):
            high = ()
        elif len(high) != len(self.program.opdescs):
            raise InputError(
                f"opdesc_high has {len(high)} words for "
                f"{len(self.program.opdescs)} operand descriptors"
            )
        object.__setattr__(self, "opdesc_high", high)

    @classmethod
    def from_bytes(cls, data: bytes | bytearray | memoryview, *, strict: bool = False) -> Shbin:
        """Parse a SHBIN; ``strict`` turns warnings into :class:`ShbinError`."""
        if not isinstance(data, bytes | bytearray | memoryview):
            raise InputError(f"SHBIN data must be bytes, not {type(data).__name__}")
        parsed = parse(bytes(data), strict=strict)
        return cls(
            parsed.program,
            parsed.entries,
            parsed.dvlp_version,
            parsed.opdesc_high,
            layout=parsed.layout,
            warnings=parsed.warnings,
        )

    def to_bytes(self, *, preserve_layout: bool = False) -> bytes:
        """Serialize: picasso's layout, or (if read from a file) that file's layout.

        ``preserve_layout=True`` needs the same number of DVLEs, code words, descriptors
        and table entries as the file that was read, and names that fit where the old
        ones were (else :class:`ShbinError`); on a Shbin not read from bytes it writes
        the canonical layout.
        """
        if preserve_layout and self.layout is not None:
            return write_preserving(self, self.layout)
        return write_canonical(self)

    @classmethod
    def from_file(cls, path: str | os.PathLike[str], *, strict: bool = False) -> Shbin:
        data = read_input(path, limit=MAX_SHADER_BYTES)
        return cls.from_bytes(data, strict=strict)

    def to_file(self, path: str | os.PathLike[str], *, preserve_layout: bool = False) -> None:
        """Write atomically: on any failure an existing file at ``path`` stays untouched."""
        write_output(path, self.to_bytes(preserve_layout=preserve_layout))
