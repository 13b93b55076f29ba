"""Declarations: uniforms (``.fvec/.ivec/.bool``), constants (``.constf/.consti/.constfa``,
``.setf/.seti/.setb``) and gpuisa's explicit placement of both (pica-assembly.md#directives,
pica-assembly.md#allocation; docs/assembly-extensions.md).
"""

from __future__ import annotations

from collections.abc import Callable

from ...floats import f32_to_f24_picasso
from ..shbin.records import Constant, ConstantKind
from .cnum import atof, atoi, strtoll
from .core import AssemblerCore
from .errors import AsmError, need, no_more
from .operands import (
    B_BASE,
    B_END,
    C_BASE,
    C_END,
    I_BASE,
    I_END,
    Alias,
    is_identifier,
    parse_operand,
)
from .source import Statement, Tok
from .state import (
    MAX_CONSTANTS,
    MAX_DVLE_UNIFORMS,
    MAX_GLOBAL_UNIFORMS,
    Block,
    BlockKind,
    DvleState,
)
from .uniforms import PoolBundle, UniformRecord

Handler = Callable[[AssemblerCore, Statement], None]

_KIND_NAMES = {ConstantKind.FLOAT: "a float", ConstantKind.INT: "an integer",
               ConstantKind.BOOL: "a boolean"}
_BANK = {ConstantKind.FLOAT: ("c", C_BASE, C_END), ConstantKind.INT: ("i", I_BASE, I_END),
         ConstantKind.BOOL: ("b", B_BASE, B_END)}


def _reg_name(kind: ConstantKind, reg: int) -> str:
    letter, base, _ = _BANK[kind]
    return f"{letter}{reg - base}"


def _pools(asm: AssemblerCore, dvle: DvleState) -> PoolBundle:
    return asm.geometry_pools if dvle.uses_gsh_space else asm.vertex_pools


def poison_name(asm: AssemblerCore, name: str) -> None:
    """A declaration of ``name`` failed: later uses of it are not reported again."""
    if name not in asm.aliases and is_identifier(name):
        asm.poisoned.add(name)


def check_new_name(asm: AssemblerCore, name_t: Tok, what: str = "identifier") -> None:
    """``name_t`` declares a new name: a valid identifier (``what`` says which kind of name
    in the error) that no earlier declaration used."""
    if not is_identifier(name_t.text):
        raise AsmError(f"invalid {what}: {name_t.text}", name_t)
    if name_t.text in asm.aliases:
        raise AsmError(f"identifier already used: {name_t.text}", name_t)


# -- explicit placement (gpuisa extension, picasso issue #36) -----------------------------


def _placement(asm: AssemblerCore, tok: Tok, kind: ConstantKind, size: int, pools: PoolBundle
               ) -> int:
    """The register id an explicit ``cN``/``iN``/``bN`` after a declaration names."""
    op = parse_operand(asm, tok)
    letter, base, end = _BANK[kind]
    if op.neg or op.swizzle is not None or not base <= op.reg < end:
        raise AsmError(f"expected {_KIND_NAMES[kind]} uniform register "
                       f"({letter}0-{letter}{end - base - 1}): {tok.text}", tok)
    pool = pools[kind]
    if not pool.contains(op.reg, size):
        last = _reg_name(kind, op.reg + size - 1)
        span = _reg_name(kind, op.reg) + (f"-{last}" if size > 1 else "")
        raise AsmError(f"{span} is outside the uniform space "
                       f"{_reg_name(kind, pool.first)}-{_reg_name(kind, pool.top - 1)}", tok)
    return op.reg


def _placed_span(kind: ConstantKind, reg: int, size: int) -> str:
    """'register c4 is' / 'registers c4-c7 are' (followed by the problem)."""
    if size == 1:
        return f"register {_reg_name(kind, reg)} is"
    return f"registers {_reg_name(kind, reg)}-{_reg_name(kind, reg + size - 1)} are"


# -- uniforms (pica-assembly.md#allocation) ------------------------------------------------


def uniform(kind: ConstantKind) -> Handler:
    def handler(asm: AssemblerCore, st: Statement) -> None:
        dvle = asm.current_dvle()
        pools = _pools(asm, dvle)
        shared = not dvle.uses_gsh_space
        while (item := st.args.arg()) is not None:
            _uniform_item(asm, dvle, pools, shared, kind, item)

    return handler


def _split_placement(asm: AssemblerCore, text_tok: Tok) -> tuple[Tok, Tok | None]:
    """``NAME REG`` -> (NAME, REG); picasso syntax has no placement (strict: no split)."""
    if asm.strict:
        return text_tok, None
    stripped = text_tok.strip()
    for i, ch in enumerate(stripped.text):
        if ch in " \t":
            return stripped.sub(0, i), stripped.sub(i).strip()
    return text_tok, None


def _uniform_item(asm: AssemblerCore, dvle: DvleState, pools: PoolBundle, shared: bool,
                  kind: ConstantKind, item: Tok) -> None:
    if not item.text.strip() and not _empty_uniform_name(asm, item):
        return
    size = 1
    place_t: Tok | None = None
    bracket = item.text.find("[")
    if bracket >= 0:
        close = item.text.find("]", bracket)
        name_t = item.sub(0, bracket)
        if close < 0:
            poison_name(asm, name_t.text)
            raise AsmError(f"missing closing bracket: {item.text}", item)
        size_t = item.sub(bracket + 1, close).strip()
        size, used = atoi(size_t.text)
        if size < 1 or (not asm.strict and used != len(size_t.text)):
            poison_name(asm, name_t.text)
            raise AsmError(f"invalid uniform size: {name_t.text}[{size_t.text}]", size_t)
        rest = item.sub(close + 1).strip()
        if rest.text and not asm.strict:
            place_t = rest
    else:
        name_t, place_t = _split_placement(asm, item)
    name = name_t.text
    try:
        check_new_name(asm, name_t, "uniform name")
        place = _placement(asm, place_t, kind, size, pools) if place_t is not None else None
        reg = _uniform_register(asm, pools, shared, kind, name_t, size, place, place_t)
    except AsmError:
        poison_name(asm, name)
        raise
    record = UniformRecord(name, reg, size, kind)
    if shared:
        if len(asm.global_uniforms) >= MAX_GLOBAL_UNIFORMS:
            raise AsmError(f"too many global uniforms: {name}", name_t)
        asm.global_uniforms.append(record)
    if not name.startswith("_"):
        if len(dvle.uniforms) >= MAX_DVLE_UNIFORMS:
            raise AsmError(f"too many referenced uniforms: {name}", name_t)
        dvle.uniforms.append(record)
    asm.aliases[name] = Alias(reg)


def _empty_uniform_name(asm: AssemblerCore, item: Tok) -> bool:
    """``.fvec a,, b``: picasso's identifier check accepts the empty string
    (pica-assembly.md#identifiers), so it allocates a nameless uniform between ``a`` and
    ``b`` and moves ``b`` up a register.  That is almost surely a typo: an error (the
    other items are still declared), or in strict mode (picasso's bytes) a warning.
    Returns whether to allocate the nameless uniform."""
    message = "empty uniform name (two commas in a row)"
    if asm.strict:
        asm.warn(f"{message}: picasso allocates a nameless uniform here", item)
        return True
    asm.report(AsmError(message, item, (("picasso would allocate a nameless uniform here "
                                         "and shift the following ones", None),)))
    return False


def _uniform_register(asm: AssemblerCore, pools: PoolBundle, shared: bool, kind: ConstantKind,
                      name_t: Tok, size: int, place: int | None, place_t: Tok | None) -> int:
    name = name_t.text
    if shared:
        for record in asm.global_uniforms:
            if record.name == name:
                if record.kind != kind:
                    raise AsmError(f"mismatched uniform type: {name}", name_t)
                if record.size != size:
                    raise AsmError(f"uniform '{name}' previously declared as having size "
                                   f"{record.size}", name_t)
                if place is not None and place != record.reg:
                    raise AsmError(f"uniform '{name}' was placed at "
                                   f"{_reg_name(kind, record.reg)} before", place_t)
                return record.reg
    if len(asm.global_uniforms) >= MAX_GLOBAL_UNIFORMS:
        raise AsmError(f"too many global uniforms: {name}", name_t)
    pool = pools[kind]
    if place is not None:
        problem = pool.place_global(place, size)
        if problem:
            raise AsmError(f"{_placed_span(kind, place, size)} {problem}", place_t)
        return place
    reg = pool.alloc_global(size)
    if reg is None:
        raise AsmError(f"not enough uniform space: {name}[{size}]", name_t)
    return reg


# -- constants ----------------------------------------------------------------------------


def _float_word(asm: AssemblerCore, tok: Tok) -> int:
    """One float constant component: picasso's atof + truncating float24, or gpuisa's raw
    ``#0xHHHHHHHH`` word."""
    text = tok.strip()
    if text.text.startswith("#"):
        parsed = strtoll(text.text[1:])
        if parsed is None or parsed[1] != len(text.text) - 1 or not 0 <= parsed[0] <= 0xFFFFFFFF:
            raise AsmError(f"invalid raw constant word: {text.text}", text)
        return parsed[0]
    value, used = atof(text.text)
    if used != len(text.text):
        asm.warn(f"'{text.text}' is not a number; it is read as {value!r}", text)
    return int(f32_to_f24_picasso(value))


def _int_byte(asm: AssemblerCore, tok: Tok) -> int:
    text = tok.strip()
    value, used = atoi(text.text)
    if used != len(text.text):
        asm.warn(f"'{text.text}' is not an integer; it is read as {value}", text)
    return value & 0xFF


def _vector(asm: AssemblerCore, st: Statement, first: Tok | None = None
            ) -> tuple[list[Tok], Tok]:
    """The four values of ``(x, y, z, w)`` after the opening parenthesis, and the text
    after the closing one.  picasso takes the fourth value up to the first ``)``; extra
    values end up in it and are ignored by atof (pica-assembly.md#directives, ``.constf``)."""
    args = st.args
    values = [first if first is not None else need(args.arg(), args)]
    while len(values) < 3:
        values.append(need(args.arg(), args))
    rest = args.rest()
    paren = rest.text.find(")")
    if paren < 0:
        raise AsmError("invalid syntax", args.end_tok(), (("expected ')'", None),))
    fourth = rest.sub(0, paren).strip()
    args.skip_all()
    comma = fourth.text.find(",")
    if comma >= 0:
        extra = fourth.sub(comma)
        if not asm.strict:
            raise AsmError("too many values: a vector has four components", extra)
        asm.warn("extra values are ignored", extra)
        fourth = fourth.sub(0, comma)
    return [*values, fourth], rest.sub(paren + 1).strip()


def _constant_values(asm: AssemblerCore, kind: ConstantKind, reg: int, values: list[Tok]
                     ) -> Constant:
    if kind is ConstantKind.FLOAT:
        return Constant(ConstantKind.FLOAT, reg - C_BASE,
                        tuple(_float_word(asm, v) for v in values))
    return Constant.from_ints(reg - I_BASE, [_int_byte(asm, v) for v in values])


def _add_constant(dvle: DvleState, constant: Constant, tok: Tok) -> None:
    if len(dvle.constants) >= MAX_CONSTANTS:
        raise AsmError("too many local constants", tok)
    dvle.constants.append(constant)


def const(kind: ConstantKind) -> Handler:
    """``.constf NAME(x, y, z, w) [REG]`` / ``.consti``."""

    def handler(asm: AssemblerCore, st: Statement) -> None:
        dvle = asm.current_dvle()
        pools = _pools(asm, dvle)
        args = st.args
        name_t = need(args.arg_paren(), args)
        name = name_t.text
        try:
            values, after = _vector(asm, st)
            if not asm.strict and not is_identifier(name):
                raise AsmError(f"invalid identifier: {name}", name_t)
            if name in asm.aliases:
                raise AsmError(f"identifier already used: {name}", name_t)
            place = _local_placement(asm, after, kind, 1, pools)
            reg = _alloc_local(pools, kind, 1, place, after)
            if reg is None:
                raise AsmError(f"not enough space for local constant '{name}'", name_t)
            constant = _constant_values(asm, kind, reg, values)
            _add_constant(dvle, constant, st.name)
        except AsmError:
            poison_name(asm, name)
            raise
        asm.aliases[name] = Alias(reg)

    return handler


def _local_placement(asm: AssemblerCore, after: Tok, kind: ConstantKind, size: int,
                     pools: PoolBundle) -> int | None:
    if not after.text:
        return None
    try:
        return _placement(asm, after, kind, size, pools)
    except AsmError:
        if not asm.strict:
            raise
    asm.warn(f"text after ')' is ignored: {after.text}", after)
    return None


def _alloc_local(pools: PoolBundle, kind: ConstantKind, size: int, place: int | None,
                 place_t: Tok) -> int | None:
    pool = pools[kind]
    if place is None:
        return pool.alloc_local(size)
    problem = pool.place_local(place, size)
    if problem:
        raise AsmError(f"{_placed_span(kind, place, size)} {problem}", place_t)
    return place


def open_named_block(asm: AssemblerCore, st: Statement, kind: BlockKind,
                     poison: Callable[[str], None], *, named: bool = False) -> tuple[Tok, Block]:
    """Opens the block of a statement whose one operand is a name (``.proc NAME``,
    ``.constfa NAME[N]``; with ``named``, the block takes the operand as its name).  A
    bad operand still opens a broken block, so that its ``.end`` matches; when the block
    cannot open, ``poison`` gets the operand (its later uses are not reported)."""
    args = st.args
    try:
        name_t = need(args.arg(), args)
        no_more(args)
    except AsmError:
        asm.open_broken(kind, st.name)
        raise
    try:
        block = (asm.open_block(kind, name_t, name=name_t.text) if named
                 else asm.open_block(kind, name_t))
    except AsmError:
        poison(name_t.text)
        raise
    return name_t, block


def constfa(asm: AssemblerCore, st: Statement) -> None:
    if asm.stack and asm.stack[-1].kind is BlockKind.ARRAY:
        _constfa_element(asm, st, asm.stack[-1])
        return
    name_t, block = open_named_block(
        asm, st, BlockKind.ARRAY, lambda text: poison_name(asm, text.split("[", 1)[0].strip()))
    text = name_t.text
    try:
        bracket = text.find("[")
        if bracket < 0:
            raise AsmError(f"missing opening bracket: {text}", name_t)
        close = text.find("]", bracket)
        if close < 0:
            raise AsmError(f"missing closing bracket: {text}", name_t)
        base = name_t.sub(0, bracket)
        block.name = base.text
        garbage = name_t.sub(close + 1).strip()
        if garbage.text:
            if asm.strict:
                raise AsmError(f"garbage found: {garbage.text}", garbage)
            block.place_tok = garbage
        size_t = name_t.sub(bracket + 1, close).strip()
        if size_t.text:
            size, used = atoi(size_t.text)
            if size <= 0 or (used != len(size_t.text) and not asm.strict):
                raise AsmError(f"invalid array size: {base.text}[{size_t.text}]", size_t)
            block.size = size
        if not is_identifier(base.text):
            raise AsmError(f"invalid array name: {base.text}", base)
        block.tok = base
    except AsmError:
        block.broken = True
        poison_name(asm, block.name or text)
        raise


def _constfa_element(asm: AssemblerCore, st: Statement, block: Block) -> None:
    try:
        _add_element(asm, st, block)
    except AsmError:
        block.broken = True  # no follow-up errors at its .end
        poison_name(asm, block.name or "")
        raise


def _add_element(asm: AssemblerCore, st: Statement, block: Block) -> None:
    args = st.args
    if 0 <= block.size == len(block.elements):
        raise AsmError(f"too many elements in the array, expected {block.size}", st.name)
    first = need(args.arg(), args)
    if not first.text.startswith("("):
        raise AsmError("invalid syntax", first, (("expected '(x, y, z, w)'", None),))
    values, after = _vector(asm, st, first.sub(1))
    if after.text:
        if not asm.strict:
            raise AsmError(f"garbage found: {after.text}", after)
        asm.warn(f"text after ')' is ignored: {after.text}", after)
    block.elements.append(tuple(_float_word(asm, v) for v in values))


def end_array(asm: AssemblerCore, block: Block) -> None:
    dvle = asm.current_dvle()
    pools = _pools(asm, dvle)
    name = block.name or ""
    try:
        if name in asm.aliases:
            raise AsmError(f"identifier already used: {name}", block.tok)
        if block.size > C_END - C_BASE:
            # No pool can hold it; say so before padding (a hostile size would otherwise
            # allocate billions of elements first).
            raise AsmError(f"not enough space for local constant array '{name}'", block.tok)
        elements = list(block.elements)
        elements += [(0, 0, 0, 0)] * (block.size - len(elements))
        if not elements:
            raise AsmError(f"no elements have been specified in array '{name}'", block.tok)
        place = None
        if block.place_tok is not None:
            place = _placement(asm, block.place_tok, ConstantKind.FLOAT, len(elements), pools)
        reg = _alloc_local(pools, ConstantKind.FLOAT, len(elements), place, block.place_tok)
        if reg is None:
            raise AsmError(f"not enough space for local constant array '{name}'", block.tok)
        if len(dvle.constants) + len(elements) > MAX_CONSTANTS:
            raise AsmError("too many local constants", block.tok)
    except AsmError:
        poison_name(asm, name)
        raise
    for i, words in enumerate(elements):
        dvle.constants.append(Constant(ConstantKind.FLOAT, reg - C_BASE + i, words))
    asm.aliases[name] = Alias(reg)


def setfi(kind: ConstantKind) -> Handler:
    """``.setf REG(x, y, z, w)`` / ``.seti``: a constant entry for an explicit register."""

    def handler(asm: AssemblerCore, st: Statement) -> None:
        dvle = asm.current_dvle()
        args = st.args
        reg_t = need(args.arg_paren(), args)
        values, after = _vector(asm, st)
        if after.text:
            if not asm.strict:
                raise AsmError(f"garbage found: {after.text}", after)
            asm.warn(f"text after ')' is ignored: {after.text}", after)
        op = parse_operand(asm, reg_t)
        if kind is ConstantKind.FLOAT and not C_BASE <= op.reg < C_END:
            raise AsmError(f"invalid floating point vector uniform: {op.name}", reg_t)
        if kind is ConstantKind.INT and not I_BASE <= op.reg < I_END:
            raise AsmError(f"invalid integer vector uniform: {op.name}", reg_t)
        _add_constant(dvle, _constant_values(asm, kind, op.reg, values), st.name)

    return handler


_BOOLS = {"true": True, "on": True, "1": True, "false": False, "off": False, "0": False}


def setb(asm: AssemblerCore, st: Statement) -> None:
    dvle = asm.current_dvle()
    args = st.args
    reg_t = need(args.arg_space(), args)
    value_t = need(args.arg_space(), args)
    no_more(args)
    if reg_t.text.endswith(","):
        # ``.setb b0, true`` is common in real shaders: picasso reads the register with
        # strtoll, which stops at the comma (pica-assembly.md#numbers).
        reg_t = reg_t.sub(0, len(reg_t.text) - 1)
    op = parse_operand(asm, reg_t)
    if not B_BASE <= op.reg < B_END:
        raise AsmError(f"invalid boolean uniform: {op.name}", reg_t)
    value = _BOOLS.get(value_t.text.lower())
    if value is None:
        raise AsmError(f"invalid bool value: {value_t.text}", value_t)
    _add_constant(dvle, Constant.from_bool(op.reg - B_BASE, value), st.name)


