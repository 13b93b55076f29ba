"""Xenia's A2XX listing, the XNA-style text of its shader dumps (a2xx-isa.md#xna-text).

This is the text Xenia's shader analysis prints (and Microsoft's XNA assembler accepts):
CF clauses prefixed ``/* slot.clause */`` with ``label L#`` lines before jump/call/loop
targets, and each EXEC's instructions prefixed ``/* slot   */``.  Fields are read the way
Xenia reads them (a2xx-isa.md#adreno-vs-xenos): 12/13-bit CF addresses, 3-bit ALLOC size, signed
23-bit vertex fetch offset, 1-bit UseRegisterLOD and texture dimension bits.

Two Xenias print two texts (a2xx-isa.md#xenia-flavours): upstream Xenia (``canary=False``)
prints the second operand of a two-operand scalar operation from swizzle lane 0 (X) and
one source component for every ``tfetch1D``; xenia-canary since its scalar-operand fix
(PR #1149) takes lane 2 (Z) when the vector operation reads three sources, and prints
two components for a ``tfetch1D`` whose source swizzle names different X, Y and Z.

Inputs Xenia cannot print raise :class:`A2xxError`: texture opcode 27 (TEX_RESERVED_4)
and vertex formats outside the Xenos vertex format list (a2xx-isa.md#formats).
"""

from __future__ import annotations

from collections.abc import Iterable

from . import isa
from .encoding import (
    AluInstruction,
    CfAlloc,
    CfExec,
    CfJmpCall,
    CfLoop,
    CfNop,
    TextureFetch,
    VertexFetch,
    decode_cf,
    slots_from_words,
)
from .errors import A2xxError
from .isa import CfKind, CfOpcode, ExecCondition, FetchDimension, FetchOpcode, ScalarOperands
from .program import Program, clauses_of
from .xna_options import TEXTURE_NAMED

_PRED = {None: "      ", True: " (p0) ", False: "(!p0) "}
_SWZ = "xyzw"
#: An export register's kind (``isa.export_kind``) -> Xenia's name ({} its index).
_XENIA_EXPORTS = {"param": "o{}", "position": "oPos", "point_size": "oPts", "color": "oC{}",
                  "depth": "oDepth", "address": "eA", "data": "eM{}"}
_DIMENSION_SUFFIX = {
    FetchDimension.D1: "1D",
    FetchDimension.D2: "2D",
    FetchDimension.D3: "3D",
    FetchDimension.CUBE: "Cube",
}


def disassemble_xna(words: Iterable[int], shader_type: str, *, canary: bool = False) -> str:
    """Xenia's listing of a program (``shader_type`` "vertex" or "fragment"); ``canary``
    selects xenia-canary's text instead of upstream Xenia's."""
    slots = slots_from_words(words)
    raw = clauses_of(slots)
    bound, labels = _scan(raw, len(slots))
    cf_raw = tuple(raw[: 2 * bound])
    program = Program(tuple(slots), tuple(decode_cf(c) for c in cf_raw), cf_raw)
    return _XnaPrinter(program, shader_type == "vertex", canary).render(labels)


def _xenia_address(raw: int, kind: CfKind) -> int:
    return raw & ((1 << isa.XENIA_ADDRESS_BITS[kind]) - 1)


def _scan(raw: list[int], slot_count: int) -> tuple[int, set[int]]:
    """Xenia's CF bound (minimum EXEC address, scanning up to it) and label targets."""
    bound = slot_count
    labels: set[int] = set()
    found_exec = False
    slot = 0
    while slot < bound:
        for clause in raw[2 * slot : 2 * slot + 2]:
            info = isa.CF_OPS[CfOpcode(clause >> 44)]
            if info.is_exec:
                found_exec = True
                bound = min(bound, _xenia_address(clause, CfKind.EXEC))
            elif info.kind in (CfKind.LOOP, CfKind.JMP_CALL) and info.opcode != CfOpcode.RETURN:
                labels.add(_xenia_address(clause, info.kind))
        slot += 1
    if not found_exec:
        raise A2xxError(
            f"no EXEC-type CF clause in the program's {slot_count} slots: "
            "cannot find the end of the CF program"
        )
    return bound, labels


class _XnaPrinter:
    def __init__(self, program: Program, vertex: bool, canary: bool):
        self.program = program
        self.vertex = vertex
        self.canary = canary
        self.out: list[str] = []

    def render(self, labels: set[int]) -> str:
        for index, (clause, raw) in enumerate(
            zip(self.program.cf, self.program.cf_raw, strict=True)
        ):
            if index in labels:
                self.out.append(f"                label L{index}\n")
            self.out.append(f"/* {index // 2:4d}.{index % 2} */ ")
            if isinstance(clause, CfExec):
                self.exec_clause(index, clause, raw)
            elif isinstance(clause, CfLoop):
                self.out.append(_loop_text(clause, _xenia_address(raw, CfKind.LOOP)))
            elif isinstance(clause, CfJmpCall):
                self.out.append(_jmp_call_text(clause, _xenia_address(raw, CfKind.JMP_CALL)))
            elif isinstance(clause, CfAlloc):
                self.out.append(self.alloc_text(clause))
            elif isinstance(clause, CfNop) and clause.opcode == CfOpcode.NOP:
                self.out.append("      cnop\n")
            # MARK_VS_FETCH_DONE prints nothing at all, not even a newline (Xenia quirk).
        return "".join(self.out)

    def alloc_text(self, clause: CfAlloc) -> str:
        text = "      alloc "
        buffer = clause.buffer_select
        if buffer == isa.AllocBuffer.POSITION:
            text += "position"
        elif buffer == isa.AllocBuffer.PARAM_PIXEL:
            text += "interpolators" if self.vertex else "colors"
        elif buffer == isa.AllocBuffer.MEMORY:
            size = clause.size & ((1 << isa.XENIA_ALLOC_SIZE_BITS) - 1)
            text += f"export = {size}"
        return text + "\n"

    def exec_clause(self, index: int, clause: CfExec, raw: int) -> None:
        info = clause.info
        address = _xenia_address(raw, CfKind.EXEC)
        name = "exece" if info.ends else "exec"
        if info.condition is ExecCondition.BOOL:
            negate = "" if clause.condition else "!"
            text = f"      c{name} {negate}b{clause.bool_addr}"
        elif info.condition is ExecCondition.PREDICATE:
            text = _PRED[bool(clause.condition)] + name
        else:
            text = "      " + name
        if clause.is_yield:
            # XNA rejects the comma after exec / (p0) exec, but needs it after cexec.
            text += ("," if info.condition is ExecCondition.BOOL else "") + " Yield=true"
        clean = info.predicate_clean
        if clean is None:
            clean = bool(raw >> isa.XENIA_PREDICATE_CLEAN_BIT & 1)
        if not clean:
            text += "    // PredicateClean=false"
        self.out.append(text + "\n")

        slot_count = len(self.program.slots)
        if clause.count and address + clause.count > slot_count:
            raise A2xxError(
                f"CF clause {index} ({info.name}) runs slots {address}.."
                f"{address + clause.count - 1} but the program has only {slot_count} slots"
            )
        sequence = clause.serialize
        for slot in range(address, address + clause.count):
            self.out.append(f"/* {slot:4d}   */ ")
            if sequence & isa.SEQUENCE_SERIALIZE:
                self.out.append("         serialize\n             ")
            if sequence & isa.SEQUENCE_FETCH:
                fetch = self.program.fetch(slot)
                if isinstance(fetch, VertexFetch):
                    self.out.append(_vertex_fetch_text(fetch, slot))
                else:
                    self.out.append(_texture_fetch_text(fetch, slot, self.canary))
            else:
                self.out.append(self.alu_text(self.program.alu(slot)))
            sequence >>= isa.SEQUENCE_BITS_PER_INSTR

    # ----------------------------------------------------------------------------------
    # ALU
    # ----------------------------------------------------------------------------------

    def export_target(self, alu: AluInstruction) -> str:
        """Name of the export register ``vector_dest`` (both results go there,
        a2xx-isa.md#exports)."""
        kind, index = isa.export_kind(alu.vector_dest, self.vertex)
        # Xenia logs an unsupported export and prints no register name.
        return "" if kind is None else _XENIA_EXPORTS[kind].format(index)

    def alu_text(self, alu: AluInstruction) -> str:
        export = bool(alu.export_data)
        vmask, smask = alu.vector_write_mask, alu.scalar_write_mask
        const1 = vmask & smask if export else 0
        const0 = 0xF & ~(vmask | smask) if export and alu.scalar_dest_rel else 0
        vector_result = (vmask & ~smask if export else vmask) | const0 | const1
        scalar_result = smask & ~vmask if export else smask
        vchars = ["0" if const0 >> i & 1 else "1" if const1 >> i & 1 else _SWZ[i] for i in range(4)]

        if export:
            vdest = sdest = self.export_target(alu)
        else:
            vdest = _register("r", alu.vector_dest, rel="aL" if alu.vector_dest_rel else None)
            sdest = _register("r", alu.scalar_dest, rel="aL" if alu.scalar_dest_rel else None)

        vinfo = alu.vector_info
        vsrcs = vinfo.srcs if vinfo else 0
        vname = vinfo.xna if vinfo else f"opcode_{int(alu.vector_opc)}"
        voperands = [_alu_operand(alu, i, 4) for i in range(1, vsrcs + 1)]

        sinfo = alu.scalar_info
        sname = sinfo.xna if sinfo else f"opcode_{int(alu.scalar_opc)}"
        kind = sinfo.operands if sinfo else ScalarOperands.NONE
        # xenia-canary: b shares source 3 with a three-source vector operation, which
        # moves it to lane 2 (a2xx-isa.md#xenia-flavours).
        second_lane = 2 if self.canary and vsrcs == 3 else 0
        if kind is ScalarOperands.A:
            soperands = [_alu_operand(alu, 3, 1)]
        elif kind is ScalarOperands.AB:
            soperands = [_alu_operand(alu, 3, 2, second_lane)]
        elif kind is ScalarOperands.CONST_REG:
            soperands = _const_reg_operands(alu)
        else:
            soperands = []

        vector_nop = (
            alu.vector_opc == isa.VectorOpcode.MAXv
            and not vector_result
            and not alu.vector_clamp
            and all(_is_plain_r0(alu, i) for i in (1, 2))
            and (not alu.vector_dest and not alu.vector_dest_rel if not export else True)
        )
        scalar_nop = (
            alu.scalar_opc == isa.ScalarOpcode.RETAIN_PREV
            and not scalar_result
            and not alu.scalar_clamp
            and (export or (not alu.scalar_dest and not alu.scalar_dest_rel))
        )
        if export and vector_nop and scalar_nop:
            # An export must stay visible: keep the vector part (Xenia).
            vector_nop = False
        pred = _PRED[bool(alu.pred_condition) if alu.pred_select else None]
        if vector_nop and scalar_nop:
            return "   " + pred + "nop\n"
        text = ""
        if not vector_nop:
            text += "   " + pred + vname + ("_sat" if alu.vector_clamp else "") + " "
            text += vdest + _result_mask(vector_result, vchars)
            text += "".join(", " + o for o in voperands) + "\n"
        if not scalar_nop:
            text += ("   " if vector_nop else "              + ") + pred + sname
            text += ("_sat" if alu.scalar_clamp else "") + " "
            text += sdest + _result_mask(scalar_result, list(_SWZ))
            text += "".join(", " + o for o in soperands) + "\n"
        return text


def _register(prefix: str, index: int, *, rel: str | None, abs_: bool = False) -> str:
    text = prefix + ("_abs" if abs_ else "")
    if rel is not None:
        return f"{text}[{index}+{rel}]"
    return f"{text}[{index}]" if abs_ else f"{text}{index}"


def _result_mask(mask: int, chars: list[str]) -> str:
    if not mask:
        return "._"
    if mask == 0xF and chars == list(_SWZ):
        return ""
    return "." + "".join(chars[i] if mask >> i & 1 else "_" for i in range(4))


def _src_fields(alu: AluInstruction, i: int) -> tuple[int, int, int, int]:
    """(register byte, is temp, swizzle, negate) of ALU source ``i`` (1-3)."""
    return (
        getattr(alu, f"src{i}_reg"),
        getattr(alu, f"src{i}_sel"),
        getattr(alu, f"src{i}_swiz"),
        getattr(alu, f"src{i}_reg_negate"),
    )


def _const_addressing(alu: AluInstruction, i: int) -> str | None:
    """a0/aL if constant operand ``i`` is relatively addressed (a2xx-isa.md#alu-layout rule), else
    None."""
    if i == 1:
        relative = alu.const_0_rel_abs
    elif i == 2:
        relative = alu.const_0_rel_abs if alu.src1_sel else alu.const_1_rel_abs
    else:
        both_temps = alu.src1_sel and alu.src2_sel
        relative = alu.const_0_rel_abs if both_temps else alu.const_1_rel_abs
    if not relative:
        return None
    return "a0" if alu.relative_addr else "aL"


def _alu_operand(alu: AluInstruction, i: int, components: int, second_lane: int = 0) -> str:
    reg, temp, swiz, negate = _src_fields(alu, i)
    if temp:
        text = _register(
            "r",
            reg & isa.REG_INDEX_MASK,
            rel="aL" if reg & isa.REG_REL_BIT else None,
            abs_=bool(reg & isa.REG_ABS_BIT),
        )
    else:
        text = _register("c", reg, rel=_const_addressing(alu, i), abs_=bool(alu.abs_constants))
    comps = isa.alu_swizzle_components(swiz)
    if components == 4:
        if comps != (0, 1, 2, 3):
            text += "." + "".join(_SWZ[c] for c in comps)
    elif components == 1:
        text += "." + _SWZ[comps[3]]
    else:
        text += "." + _SWZ[comps[3]] + _SWZ[comps[second_lane]]
    return ("-" if negate else "") + text


def _const_reg_operands(alu: AluInstruction) -> list[str]:
    """mulsc/addsc/subsc: constant (W lane) and a temp built from other bits
    (a2xx-isa.md#scalar-ops)."""
    negate = "-" if alu.src3_reg_negate else ""
    comps = isa.alu_swizzle_components(alu.src3_swiz)
    abs_ = bool(alu.abs_constants)
    const = _register("c", alu.src3_reg, rel=_const_addressing(alu, 3), abs_=abs_)
    temp_index = (int(alu.scalar_opc) & 1) | (alu.src3_sel << 1) | (alu.src3_swiz & 0x3C)
    temp = _register("r", temp_index, rel=None, abs_=abs_)
    return [f"{negate}{const}.{_SWZ[comps[3]]}", f"{negate}{temp}.{_SWZ[comps[0]]}"]


def _is_plain_r0(alu: AluInstruction, i: int) -> bool:
    reg, temp, swiz, negate = _src_fields(alu, i)
    return bool(temp) and reg == 0 and swiz == 0 and not negate


# --------------------------------------------------------------------------------------
# CF
# --------------------------------------------------------------------------------------


def _loop_text(clause: CfLoop, address: int) -> str:
    if clause.opcode == CfOpcode.LOOP_START:
        text = f"      loop i{clause.loop_id}, L{address}"
        return text + (", Repeat=true" if clause.is_repeat else "") + "\n"
    pred = _PRED[bool(clause.condition) if clause.is_predicated_break else None]
    return f"{pred}endloop i{clause.loop_id}, L{address}\n"


def _jmp_call_text(clause: CfJmpCall, address: int) -> str:
    if clause.opcode == CfOpcode.RETURN:
        return "      ret\n"
    name = "call" if clause.opcode == CfOpcode.COND_CALL else "jmp"
    if clause.force_call:
        return f"      {name} L{address}\n"
    if clause.predicated_jmp:
        return f"{_PRED[bool(clause.condition)]}{name} L{address}\n"
    negate = "" if clause.condition else "!"
    return f"      c{name} {negate}b{clause.bool_addr}, L{address}\n"


# --------------------------------------------------------------------------------------
# Fetch
# --------------------------------------------------------------------------------------


def _fetch_dest(reg: int, rel: int, swiz: int) -> str:
    mask = 0
    chars = []
    for i in range(4):
        sel = (swiz >> (3 * i)) & 7
        if sel != 7:
            mask |= 1 << i
        # 4 = constant 0, 5 = constant 1; Xenia reads the invalid selector 6 as 0.
        chars.append(_SWZ[sel] if sel < 4 else "1" if sel == 5 else "0")
    return _register("r", reg, rel="aL" if rel else None) + _result_mask(mask, chars)


def _fetch_src(reg: int, rel: int, comps: list[int]) -> str:
    return _register("r", reg, rel="aL" if rel else None) + "." + "".join(_SWZ[c] for c in comps)


def _vertex_fetch_text(vtx: VertexFetch, slot: int) -> str:
    pred = _PRED[bool(vtx.pred_condition) if vtx.pred_select else None]
    mini = bool(vtx.is_mini_fetch)
    text = f"   {pred}{vtx.info.xna}{'_mini' if mini else '_full'} "
    text += _fetch_dest(vtx.dst_reg, vtx.dst_reg_am, vtx.dst_swiz)
    if not mini:
        text += ", " + _fetch_src(vtx.src_reg, vtx.src_reg_am, [vtx.src_swiz])
        text += f", vf{95 - (vtx.const_index * 3 + vtx.const_index_sel)}"
        if vtx.is_index_rounded:
            text += ", RoundIndex=true"
    exp_adjust = isa.sign_extend(vtx.exp_adjust_all, 6)
    if exp_adjust:
        text += f", ExpAdjust={exp_adjust}"
    raw_offset = vtx.offset | (vtx.reserved >> isa.XENIA_VERTEX_OFFSET_LSB)
    offset = isa.sign_extend(
        raw_offset & ((1 << isa.XENIA_VERTEX_OFFSET_BITS) - 1), isa.XENIA_VERTEX_OFFSET_BITS
    )
    if offset:
        text += f", Offset={offset}"
    fmt = int(vtx.format)
    if fmt:  # Xenia's VertexFormat::kUndefined is 0
        if fmt not in isa.VERTEX_FORMATS:
            raise A2xxError(
                f"slot {slot} (dword {3 * slot}): vertex fetch format {fmt} is not a Xenos "
                "vertex format; the XNA listing cannot name it"
            )
        text += f", DataFormat={isa.SurfaceFormat(fmt).name}"
    if not mini and vtx.stride:
        text += f", Stride={vtx.stride}"
    if vtx.format_comp_all:
        text += ", Signed=true"
    if vtx.num_format_all:
        text += ", NumFormat=integer"
    if vtx.prefetch_count:
        text += f", PrefetchCount={vtx.prefetch_count + 1}"
    return text + "\n"


def _texture_fetch_text(tex: TextureFetch, slot: int, canary: bool) -> str:
    info = tex.info
    if info.xna is None:
        raise A2xxError(
            f"slot {slot} (dword {3 * slot}): texture fetch opcode {int(tex.opcode)} has no "
            "XNA spelling"
        )
    dimension = FetchDimension(tex.dimension)
    suffix = _DIMENSION_SUFFIX[dimension] if info.xna_dimension_suffix else ""
    count = info.src_components or isa.DIMENSION_COMPONENTS[dimension]
    selectors = [(tex.src_swiz >> (2 * i)) & 3 for i in range(3)]
    if (
        canary
        and tex.opcode == FetchOpcode.TEX_FETCH
        and dimension is FetchDimension.D1
        and (selectors[1] != selectors[0] or selectors[2] != selectors[0])
    ):
        count = 2  # a 1D fetch may pass XY for a 2D fetch constant (xenia-canary)
    pred = _PRED[bool(tex.pred_condition) if tex.pred_select else None]
    text = "   " + pred + info.xna + suffix + " "
    if info.has_result:
        text += _fetch_dest(tex.dst_reg, tex.dst_reg_am, tex.dst_swiz) + ", "
    text += _fetch_src(tex.src_reg, tex.src_reg_am, selectors[:count])
    if not info.has_result:
        return text + "\n"
    return text + f", tf{tex.const_idx}" + _texture_fetch_options(tex, dimension) + "\n"


def _texture_fetch_options(tex: TextureFetch, dimension: FetchDimension) -> str:
    """The ``, Name=value`` options of a texture fetch, each where it differs from the
    default."""
    text = ""
    if not tex.fetch_valid_only:
        text += ", FetchValidOnly=false"
    if tex.tx_coord_denorm:
        text += ", UnnormalizedTextureCoords=true"
    enums = isa.layout_enums(isa.TEXTURE_FETCH_LAYOUT)
    for option, (field, names) in TEXTURE_NAMED.items():
        value = getattr(tex, field)
        if value != enums[field]["USE_FETCH_CONST"]:  # the fetch constant's: not printed
            text += f", {option}={names[value]}"
    if not tex.use_comp_lod:
        text += ", UseComputedLOD=false"
    if tex.use_reg_lod & 1:  # Xenia reads d1.29 only
        text += ", UseRegisterLOD=true"
    if tex.use_reg_gradients:
        text += ", UseRegisterGradients=true"
    lod_bias = isa.sign_extend(tex.lod_bias, 7) / isa.LOD_BIAS_DIVISOR
    if lod_bias:
        text += f", LODBias={lod_bias:g}"
    dims = isa.DIMENSION_COMPONENTS[dimension]
    for axis, value, needed in (
        ("X", tex.offset_x, 1),
        ("Y", tex.offset_y, 2),
        ("Z", tex.offset_z, 3),
    ):
        offset = isa.sign_extend(value, 5) / isa.TEXEL_OFFSET_DIVISOR
        if dims >= needed and offset:
            text += f", Offset{axis}={offset:g}"
    return text
