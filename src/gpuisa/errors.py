"""The exceptions gpuisa raises for bad input.

Every user-facing failure is a :class:`GpuIsaError`; the CLIs catch exactly this class,
print ``PROG: error: MESSAGE`` and exit 1.  Anything else escaping is a bug in gpuisa.
"""

from __future__ import annotations

from dataclasses import dataclass


class GpuIsaError(Exception):
    """Base class of every error caused by the input rather than by gpuisa itself."""


class GpuIsaWarning(UserWarning):
    """Base class of the warnings gpuisa gives its user (the CLIs print them as
    ``PROG: warning: MESSAGE``)."""


class IsaTableError(GpuIsaError):
    """An ISA description table is inconsistent (raised when the table module loads)."""


class EncodingError(GpuIsaError):
    """A field value does not fit its bit field, or names an unknown opcode/format."""


class ShbinError(GpuIsaError):
    """A SHBIN/DVLB container is malformed.

    ``offset`` is the absolute byte offset in the file and ``field`` the name of the
    structure field being read when the problem was found.
    """

    def __init__(self, message: str, *, offset: int | None = None, field: str | None = None):
        self.offset = offset
        self.field = field
        super().__init__(at_offset(message, offset, field))


def at_offset(message: str, offset: int | None, field: str | None,
              offset_name: str = "offset") -> str:
    """``message`` prefixed with where in a binary file it applies: ``OFFSET_NAME 0xN``
    and the field being read, those that are given."""
    where = []
    if offset is not None:
        where.append(f"{offset_name} 0x{offset:X}")
    if field is not None:
        where.append(field)
    return f"{', '.join(where)}: {message}" if where else message


@dataclass(frozen=True, slots=True)
class SourceLocation:
    """A position in a source text; ``line`` and ``column`` count from 1."""

    file: str
    line: int
    column: int = 1


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One error or warning about a source text, rendered like a compiler's."""

    severity: str  # "error" or "warning"
    message: str
    location: SourceLocation
    source_line: str | None = None
    length: int = 1

    def render(self) -> str:
        loc = self.location
        head = f"{loc.file}:{loc.line}:{loc.column}: {self.severity}: {self.message}"
        if self.source_line is None:
            return head
        text = self.source_line.rstrip("\r\n").expandtabs(1)
        caret = " " * (loc.column - 1) + "^" + "~" * max(0, self.length - 1)
        return f"{head}\n  {text}\n  {caret}"


class SourceError(GpuIsaError):
    """One or more errors in a source text (assembly).  ``diagnostics`` lists them all."""

    def __init__(self, diagnostics: list[Diagnostic]):
        self.diagnostics = list(diagnostics)
        super().__init__("\n".join(d.render() for d in self.diagnostics))


class InputError(GpuIsaError):
    """Bad data handed to an API or CLI: wrong shapes, unknown names, unreadable files."""


class ShaderHang(GpuIsaError):
    """The emulated shader reached a state in which the hardware would hang."""

    def __init__(self, reason: str, *, pc: int):
        self.reason = reason
        self.pc = pc
        super().__init__(f"shader hang at pc 0x{pc:03X}: {reason}")


class ShaderFault(GpuIsaError):
    """The shader executed something gpuisa cannot give a defined result for: an opcode
    with no known function (pica-emulation.md#unknown-opcodes), a missing operand descriptor, EMIT
    or SETEMIT in a vertex shader (pica-emulation.md#emit), a primitive using a vertex buffer entry
    that no EMIT ever wrote."""

    def __init__(self, reason: str, *, pc: int):
        self.reason = reason
        self.pc = pc
        super().__init__(f"shader fault at pc 0x{pc:03X}: {reason}")
