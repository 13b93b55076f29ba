"""The A2XX toolkit's own error class."""

from __future__ import annotations

from ..errors import GpuIsaError, at_offset


class A2xxError(GpuIsaError):
    """An A2XX program is malformed: truncated, or it names slots or values that do not exist.

    The message says where (slot index, CF clause index, dword offset) and what is wrong.
    """


class ContainerError(A2xxError):
    """A file that holds A2XX microcode (an XDK shader container, a Xenia dump, raw
    microcode) is malformed.

    ``offset`` is the byte offset in the file and ``field`` the structure field being read
    (a2xx-formats.md); the message starts with both.
    """

    def __init__(self, message: str, *, offset: int | None = None, field: str | None = None):
        self.offset = offset
        self.field = field
        super().__init__(at_offset(message, offset, field, "byte offset"))
