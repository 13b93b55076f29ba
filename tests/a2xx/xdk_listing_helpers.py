"""The XDK compiler's published containers: data/xdk-listings.txt (each with the
compiler's listing) and data/xdk-containers.txt (the words alone)."""

from __future__ import annotations

import re
import struct
from pathlib import Path

DATA = Path(__file__).parent / "data" / "xdk-listings.txt"
CONTAINERS = Path(__file__).parent / "data" / "xdk-containers.txt"


def sections(path: Path) -> list[tuple[str, str]]:
    """(id, text) of each ``=== index file <id>[ <array>] ===`` section of ``path``."""
    parts = re.split(r"^=== index file (\d+(?: \w+)?) ===\n", path.read_text(),
                     flags=re.MULTILINE)
    return list(zip(parts[1::2], parts[2::2], strict=True))


def array_bytes(text: str) -> bytes:
    """The big-endian bytes of the DWORD array a section defines (``name[] = {...}``)."""
    hex_words = re.findall(r"0x([0-9a-fA-F]{8})", text.split("[] =")[1])
    return struct.pack(f">{len(hex_words)}I", *(int(w, 16) for w in hex_words))


def shaders() -> list[tuple[str, str, bytes]]:
    """(id, listing, container) for each shader: the listing from its ``// Shader type``
    line to ``#endif`` (what gpuisa prints; fxc's comment block above it holds the
    command line, which the container does not)."""
    result = []
    for ident, text in sections(DATA):
        listing = text.split("#if 0\n")[1].split("#endif")[0]
        listing = listing[listing.index("// Shader type"):]
        result.append((ident.replace(" pBinary_X360_", "-"), listing, array_bytes(text)))
    return result


IDS = [s[0] for s in shaders()]
