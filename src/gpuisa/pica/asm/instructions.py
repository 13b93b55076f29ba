"""Instruction statements: operands, checks, descriptor allocation, encoding.

Implements pica-assembly.md#instructions (operand checks, the automatic I-forms, the
encodings) and pica-assembly.md#conditions (conditions).  Opcode numbers and field positions come
from the ISA table through :func:`..encoding.Instruction.make`; this module only knows the assembly
syntax of each instruction.  The mnemonic table is built from :data:`..isa.OPCODES`.
"""

from __future__ import annotations

from collections.abc import Callable

from ..isa import OPCODES, Arithmetic, CompareOp, Condition, Flow, Kind, OpcodeInfo, Writes
from ..syntax import (
    COMPARE_OPERATORS,
    FORMS,
    MAX_EMIT_VERTEX,
    MOVA_TARGETS,
    SETEMIT_FLAGS,
    SlotKind,
)
from .core import AssemblerCore
from .errors import AsmError, need, no_more
from .operands import (
    B_BASE,
    B_END,
    C_BASE,
    I_BASE,
    I_END,
    I_LITERAL_COUNT,
    INPUT_END,
    Operand,
    check_ascending,
    is_identifier,
    parse_condition,
    parse_int,
    parse_operand,
)
from .source import Statement, Tok
from .state import BlockKind, Relocation

Handler = Callable[[AssemblerCore, Statement], None]

#: Destination fields reach o0-o15 and r0-r15 (5 bits).
_DEST_END = 0x20


# -- operand helpers ----------------------------------------------------------------------


def _destination(asm: AssemblerCore, tok: Tok) -> Operand:
    op = parse_operand(asm, tok)
    if not 0 <= op.reg < _DEST_END:
        raise AsmError(f"invalid destination register: {op.name}", tok)
    check_ascending(asm, op)
    return op


def _check_source(op: Operand, number: int, width: int, label: int | None = None) -> None:
    """The register must fit a ``width``-bit source field; ``label`` is the source number
    picasso prints (it differs for MAD's src1, pica-assembly.md#operand-checks)."""
    if not 0 <= op.reg < 1 << width:
        notes = ()
        # A float uniform in a narrow field, written by its name (a literal cN keeps
        # picasso's message alone, as users of picasso know it).
        named = not (op.name[:1] in "cC" and op.name[1:2].isdigit())
        if width < 7 and C_BASE <= op.reg < I_BASE and named:
            notes = ((f"source{label or number} holds only an input (v) or temporary (r) "
                      f"register; '{op.name}' is the float uniform c{op.reg - C_BASE}: put "
                      f"it in the wide source (swap the operands where the opcode allows, "
                      f"or 'mov' it to a temporary first)", None),)
        raise AsmError(f"invalid source{label or number} register: {op.name}", op.tok, notes)


def _no_index(op: Operand, label: int) -> None:
    if op.idx:
        raise AsmError(f"index register not allowed in source{label}", op.tok)


def _distinct_inputs(ops: list[Operand], message: str) -> None:
    """Hardware erratum (picasso issue #6): two different v registers in one instruction."""
    inputs = [op for op in ops if op.reg < INPUT_END]
    for i, a in enumerate(inputs):
        for b in inputs[i + 1 :]:
            if a.reg != b.reg:
                raise AsmError(message, b.tok)


def _width(info: OpcodeInfo, source: str) -> int:
    return info.format.source_width(source)


def _args(st: Statement, count: int) -> list[Tok]:
    toks = [need(st.args.arg(), st.args) for _ in range(count)]
    no_more(st.args)
    return toks


def _emit_alu(asm: AssemblerCore, st: Statement, info: OpcodeInfo, base: OpcodeInfo, mask: int,
              sources: list[Operand], dst: Operand | None, dst_reg: int = 0, **extra: int) -> None:
    """Allocate the descriptor and emit an instruction with register sources."""
    value, care = asm.descriptor(base, mask, sources, st.name)
    fmt = info.format
    if base.arithmetic is Arithmetic.MAD:
        desc = asm.allocate_mad(value, care, st.name)
    else:
        desc = asm.allocate(value, care, st.name)
    fields = {src: op.reg for src, op in zip(fmt.sources, sources, strict=True)}
    if fmt.indexed_source is not None:
        fields["idx"] = sources[fmt.sources.index(fmt.indexed_source)].idx
    if "dst" in fmt.layout and info.kind is Kind.ARITHMETIC:
        fields["dst"] = dst.reg if dst is not None else dst_reg
    pos = asm.emit_instruction(info, st.name, desc=desc, **fields, **extra)
    if dst is not None:
        asm.dst_toks[pos] = dst.tok


# -- handlers -----------------------------------------------------------------------------


def _no_operands(info: OpcodeInfo) -> Handler:
    def handler(asm: AssemblerCore, st: Statement) -> None:
        no_more(st.args)
        asm.emit_instruction(info, st.name)

    return handler


def _binary(info: OpcodeInfo) -> Handler:
    """add/dp3/dp4/dph/dst/mul/sge/slt/max/min; the I-form is chosen automatically
    (pica-assembly.md#i-forms)."""
    inverted = OPCODES[info.inverted] if info.inverted is not None else None

    def handler(asm: AssemblerCore, st: Statement) -> None:
        dst_t, s1_t, s2_t = _args(st, 3)
        dst = _destination(asm, dst_t)
        s1 = parse_operand(asm, s1_t, allow_index=True)
        s2 = parse_operand(asm, s2_t, allow_index=True)
        use = info
        if inverted is not None and s1.reg < 1 << _width(inverted, "src1") <= s2.reg:
            use = inverted
            _check_source(s1, 1, _width(use, "src1"))
            _no_index(s1, 1)
            _check_source(s2, 2, _width(use, "src2"))
        else:
            _check_source(s1, 1, _width(use, "src1"))
            _check_source(s2, 2, _width(use, "src2"))
            _no_index(s2, 2)
        _distinct_inputs([s1, s2], "source operands must be different input registers (v0..v15)")
        _emit_alu(asm, st, use, info, dst.mask(), [s1, s2], dst)

    return handler


def _unary(info: OpcodeInfo) -> Handler:
    """ex2/lg2/litp/flr/rcp/rsq/mov: dst, wide src1."""

    def handler(asm: AssemblerCore, st: Statement) -> None:
        dst_t, s1_t = _args(st, 2)
        dst = _destination(asm, dst_t)
        s1 = parse_operand(asm, s1_t, allow_index=True)
        _check_source(s1, 1, _width(info, "src1"))
        _emit_alu(asm, st, info, info, dst.mask(), [s1], dst)

    return handler


def _mova(info: OpcodeInfo) -> Handler:
    def handler(asm: AssemblerCore, st: Statement) -> None:
        target, s1_t = _args(st, 2)
        key = target.text if asm.strict else target.text.lower()
        mask = MOVA_TARGETS.get(key)
        if mask is None:
            raise AsmError(f"invalid destination register for mova: {target.text}", target)
        s1 = parse_operand(asm, s1_t, allow_index=True)
        _check_source(s1, 1, _width(info, "src1"))
        _emit_alu(asm, st, info, info, mask, [s1], None)

    return handler


def _compare_op(tok: Tok) -> CompareOp:
    op = COMPARE_OPERATORS.get(tok.text.lower())
    if op is None:
        raise AsmError(f"invalid conditional operator: {tok.text}", tok)
    return op


def _cmp(info: OpcodeInfo) -> Handler:
    def handler(asm: AssemblerCore, st: Statement) -> None:
        s1_t, x_t, y_t, s2_t = _args(st, 4)
        s1 = parse_operand(asm, s1_t, allow_index=True)
        _check_source(s1, 1, _width(info, "src1"))
        cmpx = _compare_op(x_t)
        cmpy = _compare_op(y_t)
        s2 = parse_operand(asm, s2_t)
        _check_source(s2, 2, _width(info, "src2"))
        _emit_alu(asm, st, info, info, 0, [s1, s2], None, cmpx=cmpx, cmpy=cmpy)

    return handler


def _mad(info: OpcodeInfo) -> Handler:
    """mad dst, src1, src2, src3; MADI when src2 is narrow and src3 wide or indexed."""
    inverted = OPCODES[info.inverted] if info.inverted is not None else None
    assert inverted is not None

    def handler(asm: AssemblerCore, st: Statement) -> None:
        dst_t, s1_t, s2_t, s3_t = _args(st, 4)
        dst = _destination(asm, dst_t)
        s1 = parse_operand(asm, s1_t)
        _check_source(s1, 1, _width(info, "src1"), label=2)  # picasso prints "source2"
        s2 = parse_operand(asm, s2_t, allow_index=True)
        s3 = parse_operand(asm, s3_t, allow_index=True)
        narrow = 1 << _width(inverted, "src2")
        if s2.reg < narrow and (s3.reg >= narrow or (s3.idx and not s2.idx)):
            use = inverted
            _check_source(s2, 2, _width(use, "src2"))
            _check_source(s3, 3, _width(use, "src3"))
            _no_index(s2, 2)
        else:
            use = info
            _check_source(s2, 2, _width(use, "src2"))
            _check_source(s3, 3, _width(use, "src3"))
            _no_index(s3, 2)  # picasso prints "source2" here too (pica-assembly.md#operand-checks)
        _distinct_inputs([s1, s2, s3],
                         "source registers must be different input registers (v0..v15)")
        _emit_alu(asm, st, use, info, dst.mask(), [s1, s2, s3], dst)

    return handler


def _target(tok: Tok) -> str:
    if not is_identifier(tok.text):
        raise AsmError(f"invalid target: {tok.text}", tok)
    return tok.text


def _condition(asm: AssemblerCore, info: OpcodeInfo, tok: Tok) -> dict[str, int]:
    cond = parse_condition(tok)
    return {"condop": cond.condop, "refx": cond.refx, "refy": cond.refy}


def _bool_register(asm: AssemblerCore, info: OpcodeInfo, tok: Tok) -> dict[str, int]:
    """``bN``, or ``!bN`` where the opcode tests a negatable boolean (JMPU)."""
    negate = 0
    if tok.text.startswith("!"):
        if info.condition is not Condition.BOOLNUM:
            raise AsmError("Inverting the condition is not supported by "
                           f"{info.mnemonic.upper()}", tok)
        negate = 1
        tok = tok.sub(1)
    op = parse_operand(asm, tok)
    if not B_BASE <= op.reg < B_END:
        raise AsmError(f"invalid boolean uniform: {op.name}", tok)
    return {"id": op.reg - B_BASE, "num": negate}


def _loop_register(asm: AssemblerCore, info: OpcodeInfo, tok: Tok) -> dict[str, int]:
    op = parse_operand(asm, tok)
    end = I_BASE + I_LITERAL_COUNT if asm.strict else I_END
    if not I_BASE <= op.reg < end:
        raise AsmError(f"invalid integer vector uniform: {op.name}", tok)
    return {"id": op.reg - I_BASE}


#: How each flow operand's text gives the word's fields (names become relocations).
_FLOW_READERS = {SlotKind.CONDITION: _condition, SlotKind.BOOL: _bool_register,
                 SlotKind.LOOP_REGISTER: _loop_register}
#: The blocks flow statements open (pica-assembly.md#blocks).
_BLOCKS = {Flow.IF: BlockKind.IF, Flow.LOOP: BlockKind.FOR}


def _flow(info: OpcodeInfo) -> Handler:
    """A flow-control statement, read slot by slot as its form says
    (:data:`..syntax.FORMS`): a condition or boolean register as it comes, a name or the
    loop register once the statement is known to hold nothing more (picasso's order).
    An IF or FOR statement opens its block, a broken one if the statement is wrong."""
    slots = FORMS[info.opcode].slots
    block = _BLOCKS.get(info.flow)

    def handler(asm: AssemblerCore, st: Statement) -> None:
        args = st.args
        fields: dict[str, int] = {}
        names: list[tuple[SlotKind, str, Tok]] = []
        try:
            late = []
            for slot in slots:
                tok = need(args.arg(), args)
                if slot.kind.late:
                    late.append((slot.kind, tok))
                else:
                    fields.update(_FLOW_READERS[slot.kind](asm, info, tok))
            no_more(args)
            for kind, tok in late:
                if kind in _FLOW_READERS:
                    fields.update(_FLOW_READERS[kind](asm, info, tok))
                else:
                    names.append((kind, _target(tok), tok))
        except AsmError:
            if block is not None:
                asm.open_broken(block, st.name)
            raise
        if block is not None:
            asm.open_block(block, st.name)
        pos = asm.emit_instruction(info, st.name, **fields)
        for kind, name, tok in names:
            relocs = asm.proc_relocs if kind is SlotKind.PROCEDURE else asm.label_relocs
            relocs.append(Relocation(pos, name, tok))

    return handler


def _setemit(info: OpcodeInfo) -> Handler:
    def handler(asm: AssemblerCore, st: Statement) -> None:
        args = st.args
        vtx_t = need(args.arg(), args)
        flags_t = args.arg()
        no_more(args)
        vtxid = parse_int(asm, vtx_t, 0, MAX_EMIT_VERTEX)
        fields = {"vtxid": vtxid, "primemit": 0, "winding": 0}
        if flags_t is not None:
            words = flags_t.text.replace("\t", " ")
            pos = 0
            for word in words.split(" "):
                if word:
                    flag = SETEMIT_FLAGS.get(word.lower())
                    tok = flags_t.sub(pos, pos + len(word))
                    if flag is None:
                        if not asm.strict:
                            raise AsmError(f"unknown setemit flag: {word}", tok)
                        asm.warn(f"unknown setemit flag: {word}", tok)  # picasso goes on
                    else:
                        fields[flag] = 1
                pos += len(word) + 1
        dvle = asm.current_dvle()
        if not dvle.is_geo:
            dvle.is_geo = True
            dvle.compat_geo = True
        asm.emit_instruction(info, st.name, **fields)

    return handler


def _handler(info: OpcodeInfo) -> Handler:
    """The handler of an opcode's form."""
    base = OPCODES[info.base_opcode]
    name = info.format.name
    if not info.has_operands:
        return _no_operands(info)
    if info.kind is Kind.FLOW:
        return _flow(info)
    if info.kind is Kind.GEOMETRY:
        return _setemit(info)
    if name in ("1", "1i"):
        return _binary(base)
    if name == "1c":
        return _cmp(info)
    if name in ("5", "5i"):
        return _mad(base)
    return _mova(info) if info.writes is Writes.ADDRESS else _unary(info)


#: Lower-case mnemonic -> handler.  The I-form spellings (dphi, madi, ...) are exact
#: synonyms of the plain ones: the form is always chosen from the operands
#: (pica-assembly.md#mnemonics).
MNEMONICS: dict[str, Handler] = {form.mnemonic: _handler(OPCODES[op])
                                 for op, form in FORMS.items()}
