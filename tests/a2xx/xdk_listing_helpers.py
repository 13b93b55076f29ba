"""The XDK compiler's published listings and containers of data/xdk-listings.txt."""

from __future__ import annotations

import re
import struct
from pathlib import Path

DATA = Path(__file__).parent / "data" / "xdk-listings.txt"


def shaders() -> list[tuple[str, str, bytes]]:
    """(id, listing, container) for each shader: the listing from its ``// Shader type``
    line to ``#endif`` (what gpuisa prints; fxc's comment block above it holds the
    command line, which the container does not)."""
    parts = re.split(r"^=== index file (\d+(?: pBinary_X360_\w+)?) ===\n", DATA.read_text(),
                     flags=re.MULTILINE)
    result = []
    for ident, text in zip(parts[1::2], parts[2::2], strict=True):
        listing = text.split("#if 0\n")[1].split("#endif")[0]
        listing = listing[listing.index("// Shader type"):]
        hex_words = re.findall(r"0x([0-9a-f]{8})", text.split("const DWORD")[1])
        data = struct.pack(f">{len(hex_words)}I", *(int(w, 16) for w in hex_words))
        result.append((ident.replace(" pBinary_X360_", "-"), listing, data))
    return result


IDS = [s[0] for s in shaders()]
