"""What ``pica check`` reports: one :class:`Finding` per problem, located in a source
(``file:line:col`` and the line) or in a binary (program address, word, disassembly)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum


class Severity(IntEnum):
    """How bad a finding is; ``error`` makes ``pica check`` exit 1."""

    NOTE = 0
    WARNING = 1
    ERROR = 2

    @property
    def label(self) -> str:
        return self.name.lower()


@dataclass(frozen=True, slots=True)
class SourceSpot:
    """A place in an assembly source: line and column count from 1."""

    file: str
    line: int
    column: int = 1
    text: str | None = None
    length: int = 1

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@dataclass(frozen=True, slots=True)
class BinarySpot:
    """A place in a SHBIN: the program address of an instruction (None for the whole
    DVLE or file), its word and its disassembly."""

    file: str
    address: int | None = None
    word: int | None = None
    disassembly: str = ""
    dvle: int | None = None

    def __str__(self) -> str:
        """``file:0xADDR`` (program address in words), ``file: DVLE n`` or ``file``."""
        if self.address is not None:
            return f"{self.file}:0x{self.address:03X}"
        return f"{self.file}: DVLE {self.dvle}" if self.dvle is not None else self.file


@dataclass(frozen=True, slots=True)
class Related:
    """Another place of a finding's cause (a further use of the same uninitialised
    register, ...) and what happens there."""

    where: SourceSpot | BinarySpot
    message: str


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem: the check that found it, how bad, what, where, an optional note and
    the related places of the same cause."""

    check: str
    severity: Severity
    message: str
    where: SourceSpot | BinarySpot
    note: str | None = None
    related: tuple[Related, ...] = ()

    @property
    def file(self) -> str:
        return self.where.file

    def sort_key(self) -> tuple:
        w = self.where
        if isinstance(w, SourceSpot):
            return (w.file, w.line, w.column, self.check, self.message)
        return (w.file, -1 if w.address is None else w.address, self.check, self.message)
