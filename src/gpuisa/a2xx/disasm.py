"""A2XX disassembler: Mesa ``disasm_a2xx()`` text (a2xx-isa.md#mesa-text), byte for byte.

Each line is a form of :mod:`.syntax` (the tables the assembler reads too) behind Mesa's
indentation, raw columns and ``(S)ALU:``/``(S)FETCH:`` prefix, with its export comment.

The text is what Mesa prints at the given indentation level with and without its
``PRINT_RAW`` debug flag, including its quirks: source register numbers are the 6-bit
field with bit 7 printed as abs even for constants (C255 prints as ``|C63|``), relative
addressing is not shown, and only source 3 is printed for scalar operations.

Where Mesa's output is undefined the disassembler raises :class:`A2xxError` instead of
guessing: undefined fetch opcodes (Mesa calls a NULL function pointer) and the reserved
value 6 of the aniso/arbitrary filter fields (Mesa reads past its name table).  Unused
vector/scalar opcodes print ``OP(n)`` (a2xx-isa.md#mesa-alu); an unused vector opcode prints one
source, as Mesa's zero-initialised table entry (num_srcs = 0) does.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from ..errors import InputError
from . import isa
from .encoding import CfClause, CfExec, slot_to_dwords
from .errors import A2xxError
from .program import Program, exec_entries, read_program
from .syntax import (
    CF_FORMS,
    FETCH_FORMS,
    SCALAR_FORM,
    VECTOR_FORM,
    Fields,
    Unprintable,
    render,
    scalar_line_printed,
)

ShaderType = Literal["vertex", "fragment"]
SHADER_TYPES: tuple[str, ...] = ("vertex", "fragment")
STYLES: tuple[str, ...] = ("mesa", "xenia", "xenia-canary", "xna", "xdk")
# Upstream Xenia's text, and the name the style had before xenia-canary's was added.
_XENIA_STYLES = {"xenia": False, "xna": False, "xenia-canary": True}
# Mesa's ``levels`` table indents levels 0-8 with level + 1 tabs (and prints "x" beyond).
MAX_LEVEL = 8

_EXPORT_COMMENTS: dict[str, dict[int, str]] = {
    "vertex": {isa.EXPORT_POSITION: "gl_Position", isa.EXPORT_POINT_SIZE: "gl_PointSize"},
    "fragment": {isa.EXPORT_FRAG_COLOR: "gl_FragColor"},
}
_RAW_SCALAR_PREFIX = " " * 26 + "\t"


def check_shader_type(shader_type: object) -> str:
    if shader_type not in SHADER_TYPES:
        raise InputError(f"shader type must be 'vertex' or 'fragment', not {shader_type!r}")
    return shader_type  # type: ignore[return-value]


def disassemble(
    words: Iterable[int],
    shader_type: ShaderType,
    *,
    raw: bool = False,
    style: str = "mesa",
    level: int = 0,
) -> str:
    """Disassemble a program given as 32-bit dwords.

    ``style="mesa"`` (default) reproduces Mesa's ``disasm_a2xx(words, n, level, type)``;
    ``raw=True`` adds the hex columns of its ``PRINT_RAW`` mode.  ``style="xenia"`` (alias
    ``"xna"``) produces upstream Xenia's listing, ``"xenia-canary"`` xenia-canary's
    (a2xx-isa.md#xna-text, a2xx-isa.md#xenia-flavours; ``raw`` and ``level`` do not apply);
    ``"xdk"`` Microsoft's ``xvs_3_0`` / ``xps_3_0`` listing (a2xx-formats.md#xdk-listing).
    """
    check_shader_type(shader_type)
    if style in _XENIA_STYLES:
        if raw or level:
            raise InputError("raw mode and indentation levels exist only in the mesa style")
        from .xna import disassemble_xna

        return disassemble_xna(words, shader_type, canary=_XENIA_STYLES[style])
    if style == "xdk":
        if raw or level:
            raise InputError("raw mode and indentation levels exist only in the mesa style")
        from .xdk_text import disassemble_xdk

        return disassemble_xdk(words, shader_type)
    if style != "mesa":
        raise InputError(f"unknown disassembly style {style!r} (choose from {', '.join(STYLES)})")
    if isinstance(level, bool) or not isinstance(level, int) or not 0 <= level <= MAX_LEVEL:
        raise InputError(f"indentation level must be 0..{MAX_LEVEL}, not {level!r}")
    return _MesaPrinter(read_program(words), shader_type, raw, level).render()


# --------------------------------------------------------------------------------------
# Printer: the forms of .syntax, line by line
# --------------------------------------------------------------------------------------


class _MesaPrinter:
    def __init__(self, program: Program, shader_type: str, raw: bool, level: int):
        self.program = program
        self.comments = _EXPORT_COMMENTS[shader_type]
        self.raw = raw
        self.prefix = "\t" * (level + 1)
        self.lines: list[str] = []

    def render(self) -> str:
        for clause, encoded in zip(self.program.cf, self.program.cf_raw, strict=True):
            self.cf_line(clause, encoded)
            if isinstance(clause, CfExec):
                for entry in exec_entries(clause):
                    if entry.is_fetch:
                        self.fetch_line(entry.slot, entry.serialized)
                    else:
                        self.alu_lines(entry.slot, entry.serialized)
        return "".join(self.lines)

    def cf_line(self, clause: CfClause, encoded: int) -> None:
        line = self.prefix
        if self.raw:
            halves = [(encoded >> shift) & 0xFFFF for shift in (0, 16, 32)]
            line += "    {:04x} {:04x} {:04x}            \t".format(*halves)
        info = clause.info
        fields = Fields(isa.CF_LAYOUTS[info.kind], encoded)
        self.lines.append(line + render(CF_FORMS[info.opcode], fields) + "\n")

    def slot_prefix(self, slot: int, what: str, serialized: bool) -> str:
        line = self.prefix
        if self.raw:
            d0, d1, d2 = slot_to_dwords(self.program.slots[slot])
            line += f"{slot:02x}: {d0:08x} {d1:08x} {d2:08x}\t"
        return line + "   " + ("(S)" if serialized else "   ") + what + ":\t"

    def export_comment(self, fields: Fields, dest: str) -> str:
        name = self.comments.get(fields[dest]) if fields["export_data"] else None
        return f"\t; {name}" if name else ""

    def alu_lines(self, slot: int, serialized: bool) -> None:
        fields = Fields(isa.ALU_LAYOUT, self.program.slots[slot])
        line = self.slot_prefix(slot, "ALU", serialized) + render(VECTOR_FORM, fields)
        self.lines.append(line + self.export_comment(fields, "vector_dest") + "\n")
        if scalar_line_printed(fields):
            line = self.prefix + (_RAW_SCALAR_PREFIX if self.raw else "") + "\t    \t"
            line += render(SCALAR_FORM, fields)
            self.lines.append(line + self.export_comment(fields, "scalar_dest") + "\n")

    def fetch_line(self, slot: int, serialized: bool) -> None:
        kind = self.program.fetch(slot).info.kind
        fields = Fields(isa.FETCH_LAYOUTS[kind], self.program.slots[slot])
        try:
            text = render(FETCH_FORMS[kind], fields)
        except Unprintable as exc:
            raise A2xxError(
                f"slot {slot} (dword {3 * slot}): texture fetch {exc.name} has reserved value "
                f"{exc.value}, which Mesa's disassembler cannot print"
            ) from None
        self.lines.append(self.slot_prefix(slot, "FETCH", serialized) + text + "\n")
