"""A2XX disassembler: Mesa ``disasm_a2xx()`` text (doc §6), byte for byte.

The text is what Mesa prints at the given indentation level with and without its
``PRINT_RAW`` debug flag, including its quirks: source register numbers are the 6-bit
field with bit 7 printed as abs even for constants (C255 prints as ``|C63|``), relative
addressing is not shown, and only source 3 is printed for scalar operations.

Where Mesa's output is undefined the disassembler raises :class:`A2xxError` instead of
guessing: undefined fetch opcodes (Mesa calls a NULL function pointer) and the reserved
value 6 of the aniso/arbitrary filter fields (Mesa reads past its name table).  Unused
vector/scalar opcodes print ``OP(n)`` (§6.3); an unused vector opcode prints one source,
as Mesa's zero-initialised table entry (num_srcs = 0) does.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from ..errors import InputError
from . import isa
from .encoding import (
    AluInstruction,
    CfAlloc,
    CfClause,
    CfExec,
    CfJmpCall,
    CfLoop,
    TextureFetch,
    VertexFetch,
    slot_to_dwords,
)
from .errors import A2xxError
from .isa import AddressMode, ExecCondition, FetchKind
from .program import Program, exec_entries, read_program

ShaderType = Literal["vertex", "fragment"]
SHADER_TYPES: tuple[str, ...] = ("vertex", "fragment")
STYLES: tuple[str, ...] = ("mesa", "xna")
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
    ``raw=True`` adds the hex columns of its ``PRINT_RAW`` mode.  ``style="xna"`` produces
    the Xenia/XNA-style listing (§7; ``raw`` and ``level`` do not apply to it).
    """
    check_shader_type(shader_type)
    if style == "xna":
        if raw or level:
            raise InputError("raw mode and indentation levels exist only in the mesa style")
        from .xna import disassemble_xna

        return disassemble_xna(words, shader_type)
    if style != "mesa":
        raise InputError(f"unknown disassembly style {style!r} (choose from {', '.join(STYLES)})")
    if isinstance(level, bool) or not isinstance(level, int) or not 0 <= level <= MAX_LEVEL:
        raise InputError(f"indentation level must be 0..{MAX_LEVEL}, not {level!r}")
    return _MesaPrinter(read_program(words), shader_type, raw, level).render()


# --------------------------------------------------------------------------------------
# Operand and parameter text
# --------------------------------------------------------------------------------------


def mesa_src(reg: int, sel: int, swiz: int, negate: int) -> str:
    """An ALU source as Mesa prints it (6-bit number, bit 7 as abs, relative swizzle)."""
    absolute = bool(reg & isa.REG_ABS_BIT)
    text = "-" if negate else ""
    text += "|" if absolute else ""
    text += f"{'R' if sel else 'C'}{reg & isa.REG_INDEX_MASK}"
    if swiz:
        text += "." + "".join(isa.SWIZZLE_CHARS[c] for c in isa.alu_swizzle_components(swiz))
    return text + ("|" if absolute else "")


def mesa_dst(num: int, mask: int, export: int) -> str:
    text = f"{'export' if export else 'R'}{num}"
    if mask != 0xF:
        text += "." + "".join(isa.SWIZZLE_CHARS[i] if mask >> i & 1 else "_" for i in range(4))
    return text


def mesa_fetch_dst(swiz: int) -> str:
    return "".join(isa.FETCH_DST_CHARS[(swiz >> (3 * i)) & 7] for i in range(4))


def mesa_fetch_src(swiz: int, count: int) -> str:
    return "".join(isa.SWIZZLE_CHARS[(swiz >> (2 * i)) & 3] for i in range(count))


def mesa_cf_params(clause: CfClause) -> str:
    """The parameters after a CF clause's name (§6.2)."""
    if isinstance(clause, CfExec):
        text = f" ADDR(0x{clause.address:x}) CNT(0x{clause.count:x})"
        if clause.is_yield:
            text += " YIELD"
        if clause.vc:
            text += f" VC(0x{clause.vc:x})"
        if clause.bool_addr:
            text += f" BOOL_ADDR(0x{clause.bool_addr:x})"
        if clause.address_mode == AddressMode.ABSOLUTE:
            text += " ABSOLUTE_ADDR"
        if clause.info.condition is not ExecCondition.NONE:
            text += f" COND({clause.condition})"
        return text
    if isinstance(clause, CfLoop):
        text = f" ADDR(0x{clause.address:x}) LOOP_ID({clause.loop_id})"
        return text + (" ABSOLUTE_ADDR" if clause.address_mode == AddressMode.ABSOLUTE else "")
    if isinstance(clause, CfJmpCall):
        text = f" ADDR(0x{clause.address:x}) DIR({clause.direction})"
        if clause.force_call:
            text += " FORCE_CALL"
        if clause.predicated_jmp:
            text += f" COND({clause.condition})"
        if clause.bool_addr:
            text += f" BOOL_ADDR(0x{clause.bool_addr:x})"
        if clause.address_mode == AddressMode.ABSOLUTE:
            text += " ABSOLUTE_ADDR"
        return text
    if isinstance(clause, CfAlloc):
        name = isa.ALLOC_BUFFER_NAMES[isa.AllocBuffer(clause.buffer_select)]
        text = f" {name} SIZE(0x{clause.size:x})"
        if clause.no_serial:
            text += " NO_SERIAL"
        if clause.alloc_mode:
            text += " ALLOC_MODE"
        return text
    return ""


def _filter_name(table: dict, value: int, field: str, slot: int) -> str:
    try:
        return table[value]  # type: ignore[no-any-return]
    except KeyError:
        raise A2xxError(
            f"slot {slot} (dword {3 * slot}): texture fetch {field} has reserved value "
            f"{value}, which Mesa's disassembler cannot print"
        ) from None


# --------------------------------------------------------------------------------------
# Printer
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
        self.lines.append(f"{line}{isa.CfOpcode(clause.opcode).name}{mesa_cf_params(clause)}\n")

    def slot_prefix(self, slot: int) -> str:
        if not self.raw:
            return self.prefix
        d0, d1, d2 = slot_to_dwords(self.program.slots[slot])
        return f"{self.prefix}{slot:02x}: {d0:08x} {d1:08x} {d2:08x}\t"

    def export_comment(self, alu: AluInstruction, num: int) -> str:
        name = self.comments.get(num) if alu.export_data else None
        return f"\t; {name}" if name else ""

    def alu_lines(self, slot: int, serialized: bool) -> None:
        alu = self.program.alu(slot)
        info = alu.vector_info
        name = info.name if info else f"OP({int(alu.vector_opc)})"
        srcs = info.mesa_srcs if info else isa.MESA_UNKNOWN_VECTOR_SRCS
        line = self.slot_prefix(slot) + "   " + ("(S)" if serialized else "   ") + "ALU:\t"
        line += name
        if alu.pred_select:
            line += "EQ" if alu.pred_condition else "NE"
        line += "\t" + mesa_dst(alu.vector_dest, alu.vector_write_mask, alu.export_data) + " = "
        src1 = mesa_src(alu.src1_reg, alu.src1_sel, alu.src1_swiz, alu.src1_reg_negate)
        src2 = mesa_src(alu.src2_reg, alu.src2_sel, alu.src2_swiz, alu.src2_reg_negate)
        src3 = mesa_src(alu.src3_reg, alu.src3_sel, alu.src3_swiz, alu.src3_reg_negate)
        operands = [src3, src1, src2] if srcs == 3 else [src1, src2][:srcs]
        line += ", ".join(operands)
        if alu.vector_clamp:
            line += " CLAMP"
        line += self.export_comment(alu, alu.vector_dest)
        self.lines.append(line + "\n")

        if alu.scalar_write_mask or not alu.vector_write_mask:
            sinfo = alu.scalar_info
            sname = sinfo.name if sinfo else f"OP({int(alu.scalar_opc)})"
            line = self.prefix + (_RAW_SCALAR_PREFIX if self.raw else "")
            line += f"\t    \t{sname}\t"
            line += mesa_dst(alu.scalar_dest, alu.scalar_write_mask, alu.export_data)
            line += " = " + src3
            if alu.scalar_clamp:
                line += " CLAMP"
            line += self.export_comment(alu, alu.scalar_dest)
            self.lines.append(line + "\n")

    def fetch_line(self, slot: int, serialized: bool) -> None:
        fetch = self.program.fetch(slot)
        line = self.slot_prefix(slot) + "   " + ("(S)" if serialized else "   ") + "FETCH:\t"
        line += fetch.info.mesa
        if fetch.pred_select:
            line += "EQ" if fetch.pred_condition else "NE"
        line += f"\tR{fetch.dst_reg}.{mesa_fetch_dst(fetch.dst_swiz)} = R{fetch.src_reg}."
        if fetch.info.kind is FetchKind.VERTEX:
            assert isinstance(fetch, VertexFetch)
            line += mesa_fetch_src(fetch.src_swiz, 1) + _vertex_options(fetch)
        else:
            assert isinstance(fetch, TextureFetch)
            line += mesa_fetch_src(fetch.src_swiz, 3) + _texture_options(fetch, slot)
        self.lines.append(line + "\n")


def _vertex_options(vtx: VertexFetch) -> str:
    fmt = vtx.format
    if fmt in isa.MESA_VERTEX_FORMAT_NAMES:
        text = f" {isa.SurfaceFormat(fmt).name}"
    else:
        text = f" TYPE(0x{int(fmt):x})"
    text += " SIGNED" if vtx.format_comp_all else " UNSIGNED"
    if not vtx.num_format_all:
        text += " NORMALIZED"
    text += f" STRIDE({vtx.stride})"
    if vtx.offset:
        text += f" OFFSET({vtx.offset})"
    return text + f" CONST({vtx.const_index}, {vtx.const_index_sel})"


def _texture_options(tex: TextureFetch, slot: int) -> str:
    text = f" CONST({tex.const_idx})"
    if tex.fetch_valid_only:
        text += " VALID_ONLY"
    if tex.tx_coord_denorm:
        text += " DENORM"
    use_const = isa.TexFilter.USE_FETCH_CONST
    for label, value in (
        ("MAG", tex.mag_filter),
        ("MIN", tex.min_filter),
        ("MIP", tex.mip_filter),
    ):
        if value != use_const:
            text += f" {label}({isa.TEX_FILTER_NAMES[value]})"  # type: ignore[index]
    if tex.aniso_filter != isa.AnisoFilter.USE_FETCH_CONST:
        name = _filter_name(isa.ANISO_FILTER_NAMES, tex.aniso_filter, "aniso_filter", slot)
        text += f" ANISO({name})"
    if tex.arbitrary_filter != isa.ArbitraryFilter.USE_FETCH_CONST:
        name = _filter_name(
            isa.ARBITRARY_FILTER_NAMES, tex.arbitrary_filter, "arbitrary_filter", slot
        )
        text += f" ARBITRARY({name})"
    for label, value in (("VOL_MAG", tex.vol_mag_filter), ("VOL_MIN", tex.vol_min_filter)):
        if value != use_const:
            text += f" {label}({isa.TEX_FILTER_NAMES[value]})"  # type: ignore[index]
    if not tex.use_comp_lod:
        text += f" LOD({tex.use_comp_lod}) LOD_BIAS({tex.lod_bias})"
    if tex.use_reg_lod:
        text += f" REG_LOD({tex.use_reg_lod})"
    if tex.use_reg_gradients:
        text += " USE_REG_GRADIENTS"
    location = "CENTER" if tex.sample_location == isa.SampleLocation.CENTER else "CENTROID"
    text += f" LOCATION({location})"
    if tex.offset_x or tex.offset_y or tex.offset_z:
        text += f" OFFSET({tex.offset_x},{tex.offset_y},{tex.offset_z})"
    return text
