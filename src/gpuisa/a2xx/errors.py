"""The A2XX toolkit's own error class."""

from __future__ import annotations

from ..errors import GpuIsaError


class A2xxError(GpuIsaError):
    """An A2XX program is malformed: truncated, or it names slots or values that do not exist.

    The message says where (slot index, CF clause index, dword offset) and what is wrong.
    """
