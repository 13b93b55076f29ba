"""Helpers shared by the ``pica`` subcommands."""

from __future__ import annotations

import argparse
import os

from ...datafiles import MAX_SHADER_BYTES, read_input
from ...errors import GpuIsaError, InputError
from ..shbin import Shbin

#: File kinds told by their first bytes, for saying what a file given as source is.
_MAGIC = ((b"DVLB", "a SHBIN (compiled shader)"), (b"\x89PNG", "a PNG image"),
          (b"\xff\xd8\xff", "a JPEG image"), (b"GIF8", "a GIF image"),
          (b"\x93NUMPY", "a NumPy array (.npy)"), (b"PK\x03\x04", "a ZIP archive (.npz?)"),
          (b"\x7fELF", "an ELF executable"), (b"\x1f\x8b", "a gzip file"))
#: Bytes of a file looked at to tell text from binary data.
_SNIFF = 8192


def source_text(path: str, data: bytes, command: str) -> str:
    """``data`` as assembly source text, or a one-line error naming what the file is
    (by its first bytes: a SHBIN, an image, ...; binary data) and what ``command``
    wants.  Undecodable bytes alone do not make a file binary: picasso reads bytes, and
    real sources have Latin-1 comments."""
    kind = next((name for magic, name in _MAGIC if data.startswith(magic)), None)
    head = data[:_SNIFF]
    if kind is None and _binary(head):
        kind = "binary data"
    if kind is not None:
        hint = (f"; disassemble it with 'pica disasm {path}'" if data.startswith(b"DVLB")
                and command == "pica asm" else "")
        raise InputError(f"{path}: {kind}, not assembly source: {command} wants picasso "
                         f"source text (.pica, .vsh){_OR_SHBIN.get(command, '')}{hint}")
    return data.decode("utf-8", errors="surrogateescape")


#: Commands that also take a SHBIN where they take source.
_OR_SHBIN = {"pica run": " or a SHBIN", "pica trace": " or a SHBIN",
             "pica render": " or a SHBIN (alone)"}


def _binary(head: bytes) -> bool:
    """NUL bytes, or text that is not UTF-8 and mostly control characters."""
    if b"\0" in head:
        return True
    try:
        head.decode("utf-8")
        return False
    except UnicodeDecodeError as error:
        if error.start >= len(head) - 3:  # a character cut at the end of the sample
            return False
    control = sum(1 for b in head if b < 0x20 and b not in b"\t\n\r\f\v")
    return control * 10 > len(head)


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
