"""Helpers shared by the ``pica`` subcommands."""

from __future__ import annotations

import os

from ...datafiles import MAX_SHADER_BYTES, read_input
from ...errors import GpuIsaError, InputError
from ..shbin import Shbin


def load_shbin(path: str | os.PathLike[str]) -> Shbin:
    """Read a SHBIN; any problem is reported as ``FILE: message``."""
    data = read_input(path, limit=MAX_SHADER_BYTES)
    try:
        return Shbin.from_bytes(data)
    except GpuIsaError as error:
        raise InputError(f"{os.fspath(path)}: {error}") from None
