"""Helpers shared by the ``pica`` subcommands."""

from __future__ import annotations

import argparse
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


def add_adapter_options(parser: argparse.ArgumentParser, what: str, batch: int) -> None:
    """--timeout and --batch of the commands that drive an adapter
    (docs/adapter-protocol.md); ``what`` is what one adapter answer is about."""
    parser.add_argument("--timeout", type=float, default=10.0, metavar="SECONDS",
                        help=f"time limit for one {what} on the adapter (default 10)")
    parser.add_argument("--batch", type=int, default=batch, metavar="N",
                        help=f"{what}s per adapter process (default {batch})")
