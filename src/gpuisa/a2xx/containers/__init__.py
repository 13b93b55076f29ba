"""Files that hold A2XX / Xenos microcode, recognised by their content (a2xx-formats.md).

:func:`read_shader_file` takes a file's bytes (and, for hints only, its name) and returns
a :class:`ShaderFile`: the microcode dwords, the shader type where the file says it, the
constant table of an XDK container, and the hash Xenia names its dumps with.

* XDK shader containers (``0x102A1100`` / ``0x102A1101`` magic, or the 2005 version's
  ``0x102A0E00`` / ``0x102A0E01``; big-endian);
* Xenia's ``--dump_shaders`` microcode (``shader_<HASH>.ucode.bin.vert`` / ``.frag``,
  little-endian);
* raw microcode in either byte order.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import ContainerError
from .microcode import (
    BYTE_ORDERS,
    dump_name,
    possible_byte_orders,
    words_in_order,
    xenia_hash,
)
from .xdk import (
    MAGIC,
    MAGICS_TEXT,
    Constant,
    DebugInfo,
    Literal,
    ProgramConfig,
    Semantic,
    XdkContainer,
    constant_table_lines,
    is_xdk_container,
    literal_line,
    read_xdk_container,
    semantic_lines,
)
from .xdk_write import write_xdk_container
from .xxh3 import xxh3_64

FORMATS = ("xdk", "xenia-dump", "raw")


@dataclass(frozen=True, slots=True)
class ShaderFile:
    """A shader read from a file.

    ``format`` is ``"xdk"``, ``"xenia-dump"`` or ``"raw"``; ``byte_order`` the order its
    dwords were stored in and ``byte_order_certain`` whether the content alone decided it;
    ``shader_type`` is ``"vertex"``, ``"fragment"`` or None when the file does not say;
    ``name_hash`` the hash in a Xenia dump's file name.
    """

    words: tuple[int, ...]
    format: str
    byte_order: str
    byte_order_certain: bool
    shader_type: str | None
    constants: tuple[Constant, ...] = ()
    creator: str = ""
    target: str = ""
    name_hash: int | None = None
    literals: tuple[Literal, ...] = ()  # an XDK container's own float constants (def)
    vertex_elements: tuple[Semantic, ...] = ()  # what each vertex fetch reads
    interpolators: tuple[Semantic, ...] = ()
    index_inputs: tuple[Semantic, ...] = ()  # an XDK vertex shader's r0/r1 at the start
    config: ProgramConfig | None = None  # an XDK container's register values
    debug: DebugInfo | None = None  # an XDK container's debug database (fxc /XZi)

    @property
    def xenia_hash(self) -> int:
        """XXH3-64 of the big-endian microcode: Xenia's ``shader_<HASH>`` name."""
        return xenia_hash(self.words)


def read_shader_file(data: bytes, name: str = "", *, byte_order: str = "auto") -> ShaderFile:
    """The shader in a binary file: an XDK container, a Xenia dump or raw microcode.

    ``name`` is used for hints only (a Xenia dump's type and hash); ``byte_order``
    ("auto", "little" or "big") forces the order of raw microcode, which is otherwise the
    one order whose CF program is consistent (a2xx-formats.md#raw-microcode).
    """
    if byte_order not in ("auto", *BYTE_ORDERS):
        raise ContainerError(f"byte order must be auto, little or big, not {byte_order!r}")
    if is_xdk_container(data):
        xdk: XdkContainer = read_xdk_container(data)
        return ShaderFile(
            xdk.words, "xdk", "big", True, xdk.shader_type, xdk.constants, xdk.creator,
            xdk.target, literals=xdk.literals, vertex_elements=xdk.vertex_elements,
            interpolators=xdk.interpolators, index_inputs=xdk.index_inputs, config=xdk.config,
            debug=xdk.debug,
        )
    if data[:2] == MAGIC.to_bytes(4, "big")[:2]:
        raise ContainerError(
            f"0x{data[:4].hex().upper()} is not an XDK shader container's magic "
            f"({MAGICS_TEXT}), though it starts like one",
            offset=0,
            field="magic",
        )
    dump = dump_name(name)
    order, certain = byte_order, True
    if byte_order == "auto":
        words_in_order(data, "little")  # a length that is no program is reported first
        possible = possible_byte_orders(data)
        if not possible:
            raise ContainerError(
                f"not an XDK shader container (its first word 0x{data[:4].hex().upper()} is "
                f"none of {MAGICS_TEXT}) and not microcode in either byte order (no "
                "consistent CF program); give --byte-order to read it anyway",
                offset=0,
                field="magic",
            )
        certain = len(possible) == 1
        order = possible[0] if certain else "little"
        if not certain and dump is not None:
            # Both orders are consistent (a tiny program): the hash in a dump's name
            # says which order Xenia hashed.
            named = [o for o in possible if xenia_hash(words_in_order(data, o)) == dump.hash]
            certain = len(named) == 1
            order = named[0] if certain else order
        # Otherwise little-endian, gpuisa's order for binaries.
    words = words_in_order(data, order)
    if dump is not None and dump.is_binary:
        return ShaderFile(
            words, "xenia-dump", order, certain, dump.shader_type, name_hash=dump.hash
        )
    return ShaderFile(words, "raw", order, certain, None)


__all__ = [
    "BYTE_ORDERS",
    "FORMATS",
    "Constant",
    "DebugInfo",
    "Literal",
    "ProgramConfig",
    "Semantic",
    "ShaderFile",
    "XdkContainer",
    "constant_table_lines",
    "literal_line",
    "read_shader_file",
    "read_xdk_container",
    "semantic_lines",
    "write_xdk_container",
    "xenia_hash",
    "xxh3_64",
]
