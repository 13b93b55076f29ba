"""Directive statements (pica-assembly.md#directives, pica-assembly.md#blocks) and gpuisa's
extensions (``docs/assembly-extensions.md``): blocks, aliases, inputs, outputs, entry points,
geometry-shader settings, raw words and descriptors.  Uniform and constant declarations
are in :mod:`.declarations`.
"""

from __future__ import annotations

from collections.abc import Callable

from ..isa import MAX_OPDESCS, GeometryMode
from ..shbin.records import ConstantKind, OutputEntry, OutputSemantic
from .cnum import strtoll
from .core import AssemblerCore
from .declarations import (
    check_new_name,
    const,
    constfa,
    end_array,
    open_named_block,
    poison_name,
    setb,
    setfi,
    uniform,
)
from .errors import AsmError, need, no_more
from .operands import (
    C_BASE,
    C_END,
    INPUT_END,
    V_BASE,
    Alias,
    Operand,
    check_ascending,
    is_identifier,
    looks_like_register,
    parse_int,
    parse_operand,
    parse_swizzle,
)
from .rawtables import DIRECTIVES as RAW_DIRECTIVES
from .source import Statement, Tok
from .state import (
    MAX_DVLE_UNIFORMS,
    MAX_OUTPUTS,
    Block,
    BlockKind,
    DvleState,
    Procedure,
)
from .uniforms import PoolBundle, UniformRecord

Handler = Callable[[AssemblerCore, Statement], None]

# -- blocks (pica-assembly.md#blocks) ------------------------------------------------------


def _proc(asm: AssemblerCore, st: Statement) -> None:
    # a procedure that fails to open: its calls and entry lookups are not reported
    name_t, block = open_named_block(asm, st, BlockKind.PROC, asm.poisoned_procs.add,
                                     named=True)
    name = name_t.text
    duplicate = name in asm.procs or (not asm.strict and any(
        b.kind is BlockKind.PROC and b.name == name for b in asm.stack[:-1]))
    if duplicate:
        block.broken = True
        where = asm.procs.get(name)
        notes = (("the first definition is here", where.tok),) if where else ()
        raise AsmError(f"proc already exists: {name}", name_t, notes)


def _else(asm: AssemblerCore, st: Statement) -> None:
    no_more(st.args)
    if not asm.stack or asm.stack[-1].kind is not BlockKind.IF:
        raise AsmError(".else with unmatched IF", st.name)
    block = asm.stack[-1]
    if block.has_else:
        raise AsmError("spurious .else", st.name)
    asm.pad_before_else(block, st.name)
    block.has_else = True
    block.else_pos = len(asm.code)
    if not block.broken:
        asm.patch(block.pos, dst=block.else_pos)


def _end(asm: AssemblerCore, st: Statement) -> None:
    no_more(st.args)
    if not asm.stack:
        raise AsmError(".end with unmatched block", st.name)
    block = asm.stack.pop()
    asm.pad_before_end(block, st.name)
    cur = len(asm.code)
    if block.kind is BlockKind.PROC:
        if not block.broken and block.name is not None:
            asm.procs.setdefault(block.name, Procedure(block.pos, cur - block.pos, block.tok))
    elif block.kind is BlockKind.FOR:
        if not block.broken:
            asm.patch(block.pos, dst=cur - 1)
        asm.last_was_end = True
    elif block.kind is BlockKind.IF:
        if not block.broken:
            if not block.has_else:
                asm.patch(block.pos, dst=cur)
            else:
                _patch_else_length(asm, block, cur - block.else_pos, st.name)
        asm.last_was_end = True
    elif not block.broken:
        end_array(asm, block)


def _patch_else_length(asm: AssemblerCore, block: Block, length: int, tok: Tok) -> None:
    if length > 0xFF and not asm.strict:
        raise AsmError(f"the else part is {length} words long; an IF can skip at most 255",
                       tok, (("the IF is here", block.tok),))
    asm.patch_low(block.pos, length)


# -- aliases ------------------------------------------------------------------------------


def _alias(asm: AssemblerCore, st: Statement) -> None:
    args = st.args
    name_t = need(args.arg_space(), args)
    name = name_t.text
    try:
        reg_t = need(args.arg_space(), args)
        no_more(args)
        if not is_identifier(name):
            raise AsmError(f"invalid alias name: {name}", name_t)
        if looks_like_register(name):
            raise AsmError("cannot redefine register", name_t)
        op = parse_operand(asm, reg_t)
        if name in asm.aliases:
            raise AsmError(f"identifier already used: {name}", name_t)
    except AsmError:
        poison_name(asm, name)
        raise
    asm.aliases[name] = Alias(op.reg, op.neg, op.sel)


# -- inputs and outputs -------------------------------------------------------------------


def _in(asm: AssemblerCore, st: Statement) -> None:
    dvle = asm.current_dvle()
    args = st.args
    name_t = need(args.arg_space(), args)
    reg_t = args.arg_space()
    no_more(args)
    name = name_t.text
    try:
        check_new_name(asm, name_t)
        if reg_t is not None:
            op = parse_operand(asm, reg_t)
            if not V_BASE <= op.reg < INPUT_END:
                raise AsmError(f"invalid input register: {op.name}", reg_t)
            reg = op.reg
        else:
            reg = next((r for r in range(V_BASE, INPUT_END) if not dvle.input_mask >> r & 1),
                       None)
            if reg is None:
                raise AsmError("too many inputs", st.name)
        if len(dvle.uniforms) >= MAX_DVLE_UNIFORMS:
            raise AsmError("too many uniforms in DVLE", st.name)
    except AsmError:
        poison_name(asm, name)
        raise
    previous = dvle.input_toks.get(reg)
    if previous is not None and reg_t is not None:
        asm.warn(f"input register v{reg - V_BASE} is already declared", reg_t)
    dvle.input_toks.setdefault(reg, name_t)
    dvle.input_mask |= 1 << (reg - V_BASE)
    dvle.uniforms.append(UniformRecord(name, reg, 1, ConstantKind.FLOAT))
    asm.aliases[name] = Alias(reg)


#: ``.out`` TYPE names (case-insensitive) -> semantic.
OUTPUT_TYPES = {
    "position": OutputSemantic.POSITION, "pos": OutputSemantic.POSITION,
    "normalquat": OutputSemantic.NORMALQUAT, "nquat": OutputSemantic.NORMALQUAT,
    "color": OutputSemantic.COLOR, "clr": OutputSemantic.COLOR,
    "texcoord0": OutputSemantic.TEXCOORD0, "tcoord0": OutputSemantic.TEXCOORD0,
    "texcoord0w": OutputSemantic.TEXCOORD0W, "tcoord0w": OutputSemantic.TEXCOORD0W,
    "texcoord1": OutputSemantic.TEXCOORD1, "tcoord1": OutputSemantic.TEXCOORD1,
    "texcoord2": OutputSemantic.TEXCOORD2, "tcoord2": OutputSemantic.TEXCOORD2,
    "view": OutputSemantic.VIEW,
    "dummy": OutputSemantic.DUMMY,
}
#: Registers from this one up can only carry ``dummy`` outputs (pica-assembly.md#out).
_FIRST_DUMMY_ONLY = 7


def _out(asm: AssemblerCore, st: Statement) -> None:
    dvle = asm.current_dvle()
    args = st.args
    name_t = need(args.arg_space(), args)
    type_t = need(args.arg_space(), args)
    reg_t = args.arg_space()
    no_more(args)
    name: str | None = name_t.text
    if name == "-":
        name = None
    elif not is_identifier(name_t.text):
        raise AsmError(f"invalid identifier: {name_t.text}", name_t)
    try:
        _out_entry(asm, dvle, name, name_t, type_t, reg_t)
    except AsmError:
        if name is not None:
            poison_name(asm, name)
        raise


def _out_entry(asm: AssemblerCore, dvle: DvleState, name: str | None, name_t: Tok, type_t: Tok,
               reg_t: Tok | None) -> None:
    reg: int | None = None
    sel_op: Operand | None = None
    mask = 0xF  # x = bit 0 in the output table
    if reg_t is not None:
        op = parse_operand(asm, reg_t)
        if not 0 <= op.reg < dvle.output_limit:
            raise AsmError(f"invalid output register: {op.name}", reg_t)
        reg = op.reg
        sel_op = op
    else:
        dot = type_t.text.find(".")
        if dot >= 0:
            mask_t = type_t.sub(dot + 1)
            type_t = type_t.sub(0, dot)
            try:
                sel = parse_swizzle(mask_t)
            except AsmError:
                raise AsmError(f"invalid output mask: {mask_t.text}", mask_t) from None
            sel_op = Operand(0, False, sel, 0, mask_t, "", mask_t)
    if sel_op is not None:
        check_ascending(asm, sel_op)
        hw = sel_op.mask()
        mask = sum(1 << c for c in range(4) if hw & (8 >> c))
    semantic = OUTPUT_TYPES.get(type_t.text.lower())
    if semantic is None:
        raise AsmError(f"invalid output type: {type_t.text}", type_t)
    if reg is None:
        reg = next((r for r in range(dvle.output_limit) if not dvle.output_mask >> r & 1), None)
    elif dvle.output_used & (mask << 4 * reg):
        raise AsmError("this output collides with another one previously defined", reg_t)
    if reg is None or len(dvle.outputs) >= MAX_OUTPUTS:
        raise AsmError("too many outputs", type_t)
    if name is not None and name in asm.aliases:
        raise AsmError(f"identifier already used: {name}", name_t)
    if reg >= _FIRST_DUMMY_ONLY and semantic is not OutputSemantic.DUMMY:
        raise AsmError(f"this register (o{reg}) can only be a dummy output", reg_t or type_t)
    dvle.outputs.append(OutputEntry(semantic, reg, mask))
    dvle.output_mask |= 1 << reg
    dvle.output_used |= mask << 4 * reg
    if name is not None:
        asm.aliases[name] = Alias(reg)
    if semantic is OutputSemantic.DUMMY and dvle.uses_gsh_space:
        dvle.merge = True


# -- DVLE settings ------------------------------------------------------------------------


def _entry(asm: AssemblerCore, st: Statement) -> None:
    dvle = asm.current_dvle()
    args = st.args
    name_t = need(args.arg_space(), args)
    no_more(args)
    if not is_identifier(name_t.text):
        raise AsmError(f"invalid identifier: {name_t.text}", name_t)
    dvle.entry = name_t.text
    dvle.entry_tok = name_t


def _nodvle(asm: AssemblerCore, st: Statement) -> None:
    dvle = asm.current_dvle()
    no_more(st.args)
    dvle.nodvle = True


GSH_MODES = {"point": GeometryMode.POINT, "variable": GeometryMode.VARIABLE,
              "subdivision": GeometryMode.VARIABLE, "fixed": GeometryMode.FIXED,
              "particle": GeometryMode.FIXED}


def _gsh(asm: AssemblerCore, st: Statement) -> None:
    dvle = asm.current_dvle()
    args = st.args
    mode_t = args.arg_space()
    if mode_t is None:
        dvle.is_geo = True  # legacy form: geometry shader in the shared uniform space
        dvle.compat_geo = True
        return
    if dvle.is_geo:
        raise AsmError(".gsh had already been used", st.name)
    if dvle.constants or dvle.uniforms or dvle.output_mask:
        raise AsmError(".gsh must be used before any constant, uniform or output is declared",
                       st.name)
    mode = GSH_MODES.get(mode_t.text.lower())
    if mode is None:
        raise AsmError(f"invalid geometry shader mode: {mode_t.text}", mode_t)
    dvle.is_geo = True
    dvle.geo_mode = mode
    first_t = need(args.arg_space(), args)
    first = parse_operand(asm, first_t)
    if not C_BASE <= first.reg < C_END:
        raise AsmError(f"invalid float uniform register: {first.name}", first_t)
    asm.geometry_pools = PoolBundle.geometry(first.reg)
    if mode is GeometryMode.POINT:
        no_more(args)
    elif mode is GeometryMode.VARIABLE:
        count_t = need(args.arg_space(), args)
        no_more(args)
        dvle.variable_count = parse_int(asm, count_t, 0, 255)
    else:
        start_t = need(args.arg_space(), args)
        count_t = need(args.arg_space(), args)
        no_more(args)
        start = parse_operand(asm, start_t)
        count = parse_int(asm, count_t, 0, 255)
        if not C_BASE <= start.reg < C_END:
            raise AsmError(f"invalid float uniform register: {start.name}", start_t)
        if start.reg >= first.reg:
            raise AsmError(f"specified location overlaps uniform allocation pool: {start.name}",
                           start_t)
        dvle.fixed_start = start.reg - C_BASE
        dvle.fixed_count = count


# -- gpuisa extensions --------------------------------------------------------------------


def _raw_values(asm: AssemblerCore, st: Statement) -> list[tuple[int, Tok]]:
    values = []
    args = st.args
    while (tok := args.arg()) is not None:
        parsed = strtoll(tok.text)
        if parsed is None or parsed[1] != len(tok.text):
            raise AsmError(f"Invalid value: {tok.text}", tok)
        if not 0 <= parsed[0] <= 0xFFFFFFFF:
            raise AsmError(f"Value out of range (0..4294967295): {parsed[0]}", tok)
        values.append((parsed[0], tok))
    if not values:
        raise AsmError("missing parameter", args.end_tok())
    return values


def word(asm: AssemblerCore, st: Statement) -> None:
    """``.word VALUE[, ...]``: raw instruction words (already past the instruction checks:
    inside a block, vertex code size)."""
    values = _raw_values(asm, st)
    for i, (value, tok) in enumerate(values):
        if i:
            asm.check_vertex_room(tok)
        asm.raw_words.add(asm.emit(value, tok))


def _opdesc(asm: AssemblerCore, st: Statement) -> None:
    """``.opdesc VALUE[, ...]``: raw operand descriptors, every bit significant."""
    if asm.stack:
        raise AsmError(".opdesc is not allowed inside a block", st.name)
    if asm.code:
        raise AsmError(".opdesc must come before the first instruction", st.name)
    for value, tok in _raw_values(asm, st):
        if len(asm.opdescs.values) >= MAX_OPDESCS:
            raise AsmError(f"too many operand descriptors (limit is {MAX_OPDESCS})",
                           tok)
        asm.opdescs.pin(value)


DIRECTIVES: dict[str, Handler] = {
    "proc": _proc,
    "else": _else,
    "end": _end,
    "alias": _alias,
    "fvec": uniform(ConstantKind.FLOAT),
    "ivec": uniform(ConstantKind.INT),
    "bool": uniform(ConstantKind.BOOL),
    "constf": const(ConstantKind.FLOAT),
    "consti": const(ConstantKind.INT),
    "constfa": constfa,
    "in": _in,
    "out": _out,
    "entry": _entry,
    "nodvle": _nodvle,
    "gsh": _gsh,
    "setf": setfi(ConstantKind.FLOAT),
    "seti": setfi(ConstantKind.INT),
    "setb": setb,
    "opdesc": _opdesc,
}
DIRECTIVES.update(RAW_DIRECTIVES)
