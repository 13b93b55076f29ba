"""Helpers shared by the ``pica`` subcommands."""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import GpuIsaError, InputError
from .shbin import Shbin


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as error:
        raise InputError(f"{os.fspath(path)}: cannot read: {error.strerror or error}") from None


def load_shbin(path: str | os.PathLike[str]) -> Shbin:
    """Read a SHBIN; any problem is reported as ``FILE: message``."""
    data = read_bytes(path)
    try:
        return Shbin.from_bytes(data)
    except GpuIsaError as error:
        raise InputError(f"{os.fspath(path)}: {error}") from None
