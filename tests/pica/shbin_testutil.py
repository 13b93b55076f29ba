"""A DVLE built by hand, field by field, in picasso's layout (shbin-format.md#layout), for the
tests that need SHBIN bytes written without gpuisa's writer.

Importable by name from every test under tests/pica: pytest puts the folder of
tests/pica/conftest.py on sys.path (tests/ has no packages).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

#: shbin-format.md#dvle-header: magic, version (u16), shader type, merge flag (u8 each),
#: main and endmain (u32), input and output masks (u16), the four geometry bytes, then the
#: offset and size of each table (10 u32).
DVLE_HEADER = "<4sHBBIIHHBBBB10I"
HEADER_SIZE = struct.calcsize(DVLE_HEADER)  # 0x40


def constant(kind: int, reg: int, *words: int) -> bytes:
    """A constant-table entry (shbin-format.md#dvle-constants): type, register, four words
    (missing words are 0), 20 bytes."""
    return struct.pack("<HH4I", kind, reg, *(list(words) + [0] * 4)[:4])


def output(semantic: int, reg: int, mask: int, upper: int = 0) -> bytes:
    """An output-table entry (shbin-format.md#dvle-outputs): one u64."""
    return struct.pack("<Q", semantic | reg << 16 | mask << 32 | upper << 36)


@dataclass(frozen=True, slots=True)
class DvleFields:
    """The fields of one DVLE; ``constants`` and ``outputs`` are packed entries
    (:func:`constant`, :func:`output`), ``uniforms`` (name, first, last) in table order."""

    version: int = 0x1002
    shader_type: int = 0
    merge: int = 0
    main: int = 0
    endmain: int = 0
    in_mask: int = 0
    out_mask: int = 0
    gsh: tuple[int, int, int, int] = (0, 0, 0, 0)
    constants: tuple[bytes, ...] = ()
    outputs: tuple[bytes, ...] = ()
    uniforms: tuple[tuple[str, int, int], ...] = ()

    def to_bytes(self) -> bytes:
        """Header, constants, an empty label table at the output table's offset (as picasso
        writes it), outputs, uniforms, their symbol names, zero padding to 4 bytes."""
        consts, outs = b"".join(self.constants), b"".join(self.outputs)
        names, unis = b"", b""
        for name, first, last in self.uniforms:
            unis += struct.pack("<IHH", len(names), first, last)
            names += name.encode() + b"\0"
        c_off = HEADER_SIZE
        o_off = c_off + len(consts)
        u_off = o_off + len(outs)
        s_off = u_off + len(unis)
        header = struct.pack(DVLE_HEADER, b"DVLE", self.version, self.shader_type, self.merge,
                             self.main, self.endmain, self.in_mask, self.out_mask, *self.gsh,
                             c_off, len(self.constants), o_off, 0, o_off, len(self.outputs),
                             u_off, len(self.uniforms), s_off, len(names))
        blob = header + consts + outs + unis + names
        return blob + bytes(-len(blob) % 4)
