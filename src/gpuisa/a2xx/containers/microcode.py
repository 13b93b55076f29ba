"""Raw microcode files and Xenia's shader dumps (a2xx-formats.md#raw-microcode,
a2xx-formats.md#xenia-dump).

Xenia's ``--dump_shaders`` writes ``shader_<HASH>.ucode.bin.vert`` / ``.frag``: the
microcode dwords in the host's (little-endian) order, and ``shader_<HASH>.ucode.vert`` /
``.frag``: its disassembly text.  HASH is XXH3-64 of the microcode as it lies in guest
memory, big-endian (:func:`xenia_hash`).  Raw microcode cut from game files is big-endian;
which order a file is in is found from its content: only one order usually gives a
program whose control flow is consistent.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass
from pathlib import PurePath

from ...errors import GpuIsaError
from ..errors import ContainerError
from ..program import read_program
from .xxh3 import xxh3_64

BYTE_ORDERS = ("little", "big")
_DUMP_NAME = re.compile(r"shader_([0-9A-Fa-f]{16})\.ucode(\.bin)?\.(vert|frag)")
_DUMP_TYPES = {"vert": "vertex", "frag": "fragment"}


@dataclass(frozen=True, slots=True)
class DumpName:
    """What a Xenia dump's file name says: the hash, the type, text or microcode."""

    hash: int
    shader_type: str
    is_binary: bool


def dump_name(path: str) -> DumpName | None:
    match = _DUMP_NAME.fullmatch(PurePath(path).name)
    if match is None:
        return None
    return DumpName(int(match[1], 16), _DUMP_TYPES[match[3]], match[2] is not None)


def xenia_hash(words: tuple[int, ...] | list[int]) -> int:
    """The hash Xenia names a shader's dump files with: XXH3-64 of the big-endian dwords."""
    return xxh3_64(struct.pack(f">{len(words)}I", *words))


def words_in_order(data: bytes, byte_order: str) -> tuple[int, ...]:
    for unit, what in ((4, "32-bit dwords"), (12, "12-byte instruction slots")):
        if len(data) % unit:
            raise ContainerError(
                f"{len(data)} bytes is not a whole number of {what} "
                f"({len(data) % unit} bytes left over at the end)",
                offset=len(data) - len(data) % unit,
                field="microcode",
            )
    if not data:
        raise ContainerError("the file is empty", offset=0, field="microcode")
    return struct.unpack(f"{'<' if byte_order == 'little' else '>'}{len(data) // 4}I", data)


def possible_byte_orders(data: bytes) -> list[str]:
    """The byte orders in which ``data`` is a program whose CF program is consistent (its
    first EXEC's address and every EXEC's slots lie inside the file)."""
    possible = []
    for order in BYTE_ORDERS:
        try:
            read_program(words_in_order(data, order))
        except GpuIsaError:
            continue
        possible.append(order)
    return possible
