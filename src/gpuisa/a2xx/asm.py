"""A2XX assembler for Mesa disassembly text and the freedreno wiki syntax (doc §8).

``assemble(text)`` accepts what :func:`gpuisa.a2xx.disassemble` prints (at any
indentation level, plain or raw) and the historical fdre/wiki spelling:

* CF lines: every clause of §6.2 with the same parameter spelling.  EXEC-family lines may
  omit ``ADDR``/``CNT``; omitted addresses continue after the last slot used, given ones are
  honoured (so any disassembled program reassembles to the same slots), a given ``CNT``
  that disagrees with the instructions that follow is a warning and is recomputed.  ALLOC
  may omit ``SIZE`` (0); ``COORD`` is accepted for ``POSITION``.
* Instructions follow their EXEC: ``[(S)]ALU: VOP[EQ|NE] dst = srcs [CLAMP]`` optionally
  followed by a scalar line ``SOP dst = src [CLAMP]``, and ``[(S)]FETCH: VERTEX|SAMPLE|...``.
  Scalar aliases from the wiki: MOV (MAXs), RCP, RSQ, EXP2, LOG2, PSETE.  Fetch opcodes may
  also be written with their enum names (``TEX_GET_GRADIENTS``), since Mesa prints ``?``.
* Raw mode: the hex columns are the starting point of each clause/slot and the text's
  fields are written over them, so bits the text cannot show (relative addressing, unused
  fields) are kept and a raw listing reassembles bit for bit.
* ``;`` starts a comment; lines starting with ``@`` (fdre headers) are ignored.

Without raw columns, bits the text does not show take the values Mesa's compiler uses
(M-A): zero, except ``must_be_one``; 1-source vector ops copy src1 into src2; unprinted
texture filters use the fetch constant; a VERTEX fetch gets prefetch_count 3 and
is_mini_fetch 0 if it is the first vertex fetch of the program, else 2 and 1.

Text Mesa prints for values it cannot represent is read the Mesa way: ``Cn`` with n < 64
sets bits 0-5 and ``|...|`` bit 7 of the register byte; ``C64``-``C255`` are accepted as
full 8-bit constant indices (without abs bars).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from ..bits import Layout
from ..errors import Diagnostic, InputError, SourceError, SourceLocation
from . import isa
from .encoding import slot_to_dwords
from .isa import CfKind, CfOpcode, ExecCondition, FetchKind

# --------------------------------------------------------------------------------------
# Names
# --------------------------------------------------------------------------------------

_CF_NAMES = {op.name: op for op in CfOpcode}
_VECTOR_NAMES = {op.name: op for op in isa.VectorOpcode}
_SCALAR_NAMES: dict[str, int] = {op.name: op for op in isa.ScalarOpcode}
# Wiki spellings (doc §8).
_SCALAR_NAMES |= {
    "MOV": isa.ScalarOpcode.MAXs,
    "RCP": isa.ScalarOpcode.RECIP_IEEE,
    "RSQ": isa.ScalarOpcode.RECIPSQ_IEEE,
    "EXP2": isa.ScalarOpcode.EXP_IEEE,
    "LOG2": isa.ScalarOpcode.LOG_IEEE,
    "PSETE": isa.ScalarOpcode.PRED_SETEs,
}
_FETCH_NAMES: dict[str, int] = {op.name: op for op in isa.FetchOpcode}
_FETCH_NAMES |= {info.mesa: op for op, info in isa.FETCH_OPS.items() if info.mesa != "?"}
_ALLOC_NAMES = {name: buf for buf, name in isa.ALLOC_BUFFER_NAMES.items()} | {
    "COORD": isa.AllocBuffer.POSITION
}
_FORMAT_NAMES = {f.name: f for f in isa.SurfaceFormat}
_TEX_FILTERS = {name: f for f, name in isa.TEX_FILTER_NAMES.items()}
_ANISO_FILTERS = {name: f for f, name in isa.ANISO_FILTER_NAMES.items()}
_ARBITRARY_FILTERS = {name: f for f, name in isa.ARBITRARY_FILTER_NAMES.items()}
_LOCATIONS = {loc.name: loc for loc in isa.SampleLocation}

_RAW_CF = re.compile(r"\s*([0-9a-fA-F]{4}) ([0-9a-fA-F]{4}) ([0-9a-fA-F]{4})(?=\s)")
_RAW_SLOT = re.compile(
    r"\s*([0-9a-fA-F]+): ([0-9a-fA-F]{8}) ([0-9a-fA-F]{8}) ([0-9a-fA-F]{8})(?=\s)"
)
_TOKEN = re.compile(r"\s*(?:([A-Za-z0-9_/?]+)|([(),=|\-.:]))")
_NUMBER = re.compile(r"0[xX][0-9a-fA-F]+|[0-9]+")
_MAX_EXEC_COUNT = (1 << isa.CF_LAYOUTS[CfKind.EXEC]["count"].width) - 1
_SEQUENCE_SLOTS = isa.CF_LAYOUTS[CfKind.EXEC]["serialize"].width // isa.SEQUENCE_BITS_PER_INSTR


# --------------------------------------------------------------------------------------
# Tokens
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Tok:
    text: str
    col: int  # 1-based
    is_word: bool

    @property
    def number(self) -> int | None:
        if self.is_word and _NUMBER.fullmatch(self.text):
            return int(self.text, 16) if self.text[:2] in ("0x", "0X") else int(self.text)
        return None


class _LineError(Exception):
    def __init__(self, message: str, col: int, length: int = 1):
        super().__init__(message)
        self.message = message
        self.col = col
        self.length = max(1, length)


def _tokenize(text: str, start: int) -> list[_Tok]:
    tokens = []
    pos = start
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            if text[pos:].strip() == "":
                break
            col = len(text[pos:]) - len(text[pos:].lstrip()) + pos + 1
            raise _LineError(f"unexpected character {text[col - 1]!r}", col)
        word, punct = m.group(1), m.group(2)
        tok_text = word if word is not None else punct
        tokens.append(_Tok(tok_text, m.start(1 if word is not None else 2) + 1, word is not None))
        pos = m.end()
    return tokens


class _Cursor:
    """Sequential access to one line's tokens with error reporting."""

    def __init__(self, tokens: list[_Tok], end_col: int):
        self.tokens = tokens
        self.i = 0
        self.end_col = end_col

    def peek(self, ahead: int = 0) -> _Tok | None:
        j = self.i + ahead
        return self.tokens[j] if j < len(self.tokens) else None

    def at_end(self) -> bool:
        return self.i >= len(self.tokens)

    def next(self, what: str) -> _Tok:
        tok = self.peek()
        if tok is None:
            raise _LineError(f"expected {what} at end of line", self.end_col)
        self.i += 1
        return tok

    def accept(self, text: str) -> _Tok | None:
        tok = self.peek()
        if tok is not None and tok.text == text:
            self.i += 1
            return tok
        return None

    def expect(self, text: str) -> _Tok:
        tok = self.next(f"'{text}'")
        if tok.text != text:
            raise _LineError(f"expected '{text}', found '{tok.text}'", tok.col, len(tok.text))
        return tok

    def word(self, what: str) -> _Tok:
        tok = self.next(what)
        if not tok.is_word:
            raise _LineError(f"expected {what}, found '{tok.text}'", tok.col, len(tok.text))
        return tok

    def number(self, what: str = "a number") -> tuple[int, _Tok]:
        tok = self.next(what)
        value = tok.number
        if value is None:
            raise _LineError(f"expected {what}, found '{tok.text}'", tok.col, len(tok.text))
        return value, tok

    def paren_number(self) -> tuple[int, _Tok]:
        self.expect("(")
        value, tok = self.number()
        self.expect(")")
        return value, tok

    def done(self) -> None:
        tok = self.peek()
        if tok is not None:
            raise _LineError(f"unexpected '{tok.text}'", tok.col, len(tok.text))


def _err(tok: _Tok, message: str) -> _LineError:
    return _LineError(message, tok.col, len(tok.text))


def _check_fits(value: int, tok: _Tok, layout: Layout, name: str, what: str) -> int:
    limit = layout[name].max
    if not 0 <= value <= limit:
        raise _err(tok, f"{what} {value} does not fit (0..{limit})")
    return value


# --------------------------------------------------------------------------------------
# Parsed program
# --------------------------------------------------------------------------------------


@dataclass(eq=False)
class _Where:
    line: int
    text: str
    tok: _Tok


@dataclass(eq=False)
class _Slot:
    """One ALU or FETCH instruction as parsed."""

    where: _Where
    kind: str  # "alu", "vertex", "texture"
    serialize: bool
    values: dict[str, int]
    base: int | None  # raw 96-bit slot, if the line had raw columns
    raw_index: tuple[int, _Tok] | None = None
    regs: dict[int, tuple[int, bool, bool]] = field(default_factory=dict)  # i -> idx, abs, C
    has_scalar: bool = False
    vector_srcs: int = 0

    @property
    def is_fetch(self) -> bool:
        return self.kind != "alu"


@dataclass(eq=False)
class _Cf:
    where: _Where
    opcode: CfOpcode
    values: dict[str, int]
    base: int | None
    addr: tuple[int, _Tok] | None = None
    cnt: tuple[int, _Tok] | None = None
    instrs: list[_Slot] = field(default_factory=list)


# --------------------------------------------------------------------------------------
# Line parsers
# --------------------------------------------------------------------------------------


def _parse_cf(cur: _Cursor, name_tok: _Tok, base: int | None, where: _Where) -> _Cf:
    opcode = _CF_NAMES[name_tok.text]
    info = isa.CF_OPS[opcode]
    layout = isa.CF_LAYOUTS[info.kind]
    values: dict[str, int] = {"opcode": int(opcode)}
    cf = _Cf(where, opcode, values, base)

    def flag(name: str, keyword: str) -> None:
        values[name] = 1 if cur.accept(keyword) else 0

    if info.kind is CfKind.EXEC:
        if cur.accept("ADDR"):
            cf.addr = cur.paren_number()
            _check_fits(cf.addr[0], cf.addr[1], layout, "address", "address")
            cur.expect("CNT")
            cf.cnt = cur.paren_number()
        flag("is_yield", "YIELD")
        values["vc"] = _opt_number(cur, "VC", layout, "vc")
        values["bool_addr"] = _opt_number(cur, "BOOL_ADDR", layout, "bool_addr")
        flag("address_mode", "ABSOLUTE_ADDR")
        if info.condition is not ExecCondition.NONE:
            if cur.accept("COND"):
                values["condition"] = _checked_paren(cur, layout, "condition")
            else:
                values["condition"] = 0
    elif info.kind is CfKind.LOOP:
        cur.expect("ADDR")
        values["address"] = _checked_paren(cur, layout, "address")
        cur.expect("LOOP_ID")
        values["loop_id"] = _checked_paren(cur, layout, "loop_id")
        flag("address_mode", "ABSOLUTE_ADDR")
    elif info.kind is CfKind.JMP_CALL:
        cur.expect("ADDR")
        values["address"] = _checked_paren(cur, layout, "address")
        cur.expect("DIR")
        values["direction"] = _checked_paren(cur, layout, "direction")
        flag("force_call", "FORCE_CALL")
        if cur.accept("COND"):
            values["predicated_jmp"] = 1
            values["condition"] = _checked_paren(cur, layout, "condition")
        else:
            values["predicated_jmp"] = 0
        values["bool_addr"] = _opt_number(cur, "BOOL_ADDR", layout, "bool_addr")
        flag("address_mode", "ABSOLUTE_ADDR")
    elif info.kind is CfKind.ALLOC:
        buf_tok = cur.word("an ALLOC buffer (POSITION, PARAM/PIXEL, MEMORY, NO ALLOC)")
        text = buf_tok.text
        if text == "NO":
            cur.expect("ALLOC")
            text = "NO ALLOC"
        if text not in _ALLOC_NAMES:
            raise _err(buf_tok, f"unknown ALLOC buffer '{buf_tok.text}'")
        values["buffer_select"] = int(_ALLOC_NAMES[text])
        values["size"] = _opt_number(cur, "SIZE", layout, "size")
        flag("no_serial", "NO_SERIAL")
        flag("alloc_mode", "ALLOC_MODE")
    cur.done()
    return cf


def _checked_paren(cur: _Cursor, layout: Layout, name: str) -> int:
    value, tok = cur.paren_number()
    return _check_fits(value, tok, layout, name, name)


def _opt_number(cur: _Cursor, keyword: str, layout: Layout, name: str) -> int:
    return _checked_paren(cur, layout, name) if cur.accept(keyword) else 0


def _split_predicate(tok: _Tok, names: dict[str, int]) -> tuple[str, int, int]:
    """Mnemonic (without EQ/NE), pred_select, pred_condition."""
    text = tok.text
    if text not in names and text[-2:] in ("EQ", "NE") and text[:-2] in names:
        return text[:-2], 1, 1 if text.endswith("EQ") else 0
    return text, 0, 0


def _set_predicate(values: dict[str, int], select: int, condition: int) -> None:
    values["pred_select"] = select
    if select:  # the condition bit is only shown (as EQ/NE) when predicated
        values["pred_condition"] = condition


def _parse_opcode(cur: _Cursor, names: dict[str, int], what: str) -> tuple[int, int, int, _Tok]:
    """Opcode (name or OP(n)), pred_select, pred_condition, name token."""
    tok = cur.word(f"a {what} opcode")
    paren = cur.peek()
    if tok.text == "OP" and paren is not None and paren.text == "(":
        value, num_tok = cur.paren_number()
        pred = cur.peek()
        select = condition = 0
        if (
            pred is not None
            and pred.is_word
            and pred.text in ("EQ", "NE")
            and pred.col == (num_tok.col + len(num_tok.text) + 1)
        ):
            cur.i += 1
            select, condition = 1, int(pred.text == "EQ")
        return value, select, condition, num_tok
    name, select, condition = _split_predicate(tok, names)
    if name not in names:
        raise _err(tok, f"unknown {what} opcode '{tok.text}'")
    return names[name], select, condition, tok


def _parse_swizzle(cur: _Cursor, allowed: str, what: str) -> tuple[str, _Tok] | None:
    if cur.accept(".") is None:
        return None
    tok = cur.word(f"a {what}")
    bad = [c for c in tok.text if c not in allowed]
    if bad or len(tok.text) > 4:
        raise _err(tok, f"invalid {what} '{tok.text}' (up to 4 of '{allowed}')")
    return tok.text, tok


def _parse_register(cur: _Cursor, prefixes: tuple[str, ...]) -> tuple[str, int, _Tok]:
    tok = cur.word("a register")
    for prefix in sorted(prefixes, key=len, reverse=True):
        rest = tok.text[len(prefix) :]
        if tok.text.startswith(prefix) and rest.isdigit():
            return prefix, int(rest), tok
    raise _err(tok, f"expected a register ({', '.join(p + 'n' for p in prefixes)})")


def _parse_dst_mask(cur: _Cursor) -> int:
    swz = _parse_swizzle(cur, "xyzw_", "write mask")
    if swz is None:
        return 0xF
    text, tok = swz
    if len(text) == 4 and all(c in ("_", "xyzw"[i]) for i, c in enumerate(text)):
        return sum(1 << i for i, c in enumerate(text) if c != "_")
    comps = ["xyzw".index(c) for c in text if c != "_"]
    if "_" in text or comps != sorted(set(comps)):
        raise _err(tok, f"invalid write mask '{text}' (use e.g. 'xy_w' or 'xyw')")
    return sum(1 << c for c in comps)


def _parse_alu_dst(cur: _Cursor) -> tuple[int, int, int, _Tok]:
    """(register, mask, export flag, token)."""
    prefix, num, tok = _parse_register(cur, ("R", "export"))
    if num > isa.REG_INDEX_MASK:
        raise _err(tok, f"register number {num} does not fit (0..63)")
    return num, _parse_dst_mask(cur), int(prefix == "export"), tok


@dataclass(frozen=True, slots=True)
class _Src:
    index: int
    temp: bool
    swiz: int
    negate: bool
    abs_: bool
    tok: _Tok


def _parse_alu_src(cur: _Cursor) -> _Src:
    negate = cur.accept("-") is not None
    abs_ = cur.accept("|") is not None
    prefix, num, tok = _parse_register(cur, ("R", "C"))
    temp = prefix == "R"
    if num > (isa.REG_INDEX_MASK if temp else 0xFF):
        raise _err(tok, f"register number {num} does not fit")
    if abs_ and num > isa.REG_INDEX_MASK:
        raise _err(tok, f"C{num} cannot take |abs|: bit 7 of the register byte is its index")
    swz = _parse_swizzle(cur, "xyzw", "swizzle")
    field_value = 0
    if swz is not None:
        text = swz[0].ljust(4, swz[0][-1])  # r600 convention: repeat the last component
        field_value = isa.alu_swizzle_field(tuple("xyzw".index(c) for c in text))
    if abs_:
        cur.accept("|")  # Mesa prints the closing bar; fdre wrote only the opening one
    return _Src(num, temp, field_value, negate, abs_, tok)


def _set_src(slot: _Slot, i: int, src: _Src) -> None:
    slot.values[f"src{i}_sel"] = int(src.temp)
    slot.values[f"src{i}_swiz"] = src.swiz
    slot.values[f"src{i}_reg_negate"] = int(src.negate)
    slot.regs[i] = (src.index, src.abs_, not src.temp)


def _parse_alu(cur: _Cursor, base: int | None, where: _Where, serialize: bool) -> _Slot:
    opcode, select, condition, op_tok = _parse_opcode(cur, _VECTOR_NAMES, "vector")
    if not 0 <= opcode < 32:
        raise _err(op_tok, f"vector opcode {opcode} does not fit (0..31)")
    info = isa.VECTOR_OPS.get(opcode)  # type: ignore[call-overload]
    srcs = info.mesa_srcs if info else isa.MESA_UNKNOWN_VECTOR_SRCS
    slot = _Slot(where, "alu", serialize, {}, base, vector_srcs=srcs)
    v = slot.values
    v["vector_opc"] = opcode
    _set_predicate(v, select, condition)
    v["vector_dest"], v["vector_write_mask"], v["export_data"], _ = _parse_alu_dst(cur)
    cur.expect("=")
    operands = [_parse_alu_src(cur)]
    for _ in range(srcs - 1):
        cur.expect(",")
        operands.append(_parse_alu_src(cur))
    order = (3, 1, 2) if srcs == 3 else (1, 2)[:srcs]
    for i, src in zip(order, operands, strict=True):
        _set_src(slot, i, src)
    if srcs == 1 and base is None:
        _set_src(slot, 2, operands[0])  # Mesa's encoder repeats src1 (M-A)
    v["vector_clamp"] = 1 if cur.accept("CLAMP") else 0
    # The scalar part is absent unless a scalar line follows (Mesa prints it whenever
    # its write mask is set or the vector mask is empty).
    v["scalar_write_mask"] = 0
    nxt = cur.peek()
    if nxt is not None and (nxt.text == "OP" or nxt.text in _SCALAR_NAMES):
        _parse_scalar(cur, slot)  # fdre: the scalar part may share the line
    cur.done()
    return slot


def _parse_scalar(cur: _Cursor, slot: _Slot) -> None:
    opcode, select, _, tok = _parse_opcode(cur, _SCALAR_NAMES, "scalar")
    if select:
        raise _err(tok, "the scalar part takes its predicate from the vector part")
    if not 0 <= opcode < 64:
        raise _err(tok, f"scalar opcode {opcode} does not fit (0..63)")
    v = slot.values
    v["scalar_opc"] = opcode
    dest, mask, export, dst_tok = _parse_alu_dst(cur)
    if export != v["export_data"]:
        raise _err(dst_tok, "vector and scalar destinations must both be exports or both not")
    v["scalar_dest"], v["scalar_write_mask"] = dest, mask
    cur.expect("=")
    src = _parse_alu_src(cur)
    if slot.vector_srcs == 3:
        earlier = (v["src3_sel"], v["src3_swiz"], v["src3_reg_negate"], slot.regs[3])
        now = (int(src.temp), src.swiz, int(src.negate), (src.index, src.abs_, not src.temp))
        if earlier != now:
            raise _err(src.tok, "the scalar operand must be the vector operation's first operand")
    _set_src(slot, 3, src)
    v["scalar_clamp"] = 1 if cur.accept("CLAMP") else 0
    slot.has_scalar = True
    cur.done()


def _fetch_dst(cur: _Cursor) -> tuple[int, int]:
    _, num, tok = _parse_register(cur, ("R",))
    if num > isa.REG_INDEX_MASK:
        raise _err(tok, f"register number {num} does not fit (0..63)")
    swz = _parse_swizzle(cur, isa.FETCH_DST_CHARS, "fetch destination swizzle")
    if swz is None:
        return num, isa.FETCH_DST_IDENTITY
    text = swz[0].ljust(4, "_")
    return num, sum(isa.FETCH_DST_CHARS.index(c) << (3 * i) for i, c in enumerate(text))


def _fetch_src(cur: _Cursor, count: int) -> tuple[int, int]:
    _, num, tok = _parse_register(cur, ("R",))
    if num > isa.REG_INDEX_MASK:
        raise _err(tok, f"register number {num} does not fit (0..63)")
    swz = _parse_swizzle(cur, "xyzw", "fetch source swizzle")
    text = "x" if swz is None else swz[0]
    if len(text) > count:
        raise _err(swz[1], f"this fetch reads {count} source component(s)")  # type: ignore[index]
    text = text.ljust(count, text[-1])
    return num, sum("xyzw".index(c) << (2 * i) for i, c in enumerate(text))


def _parse_fetch(cur: _Cursor, base: int | None, where: _Where, serialize: bool) -> _Slot:
    tok = cur.word("a fetch opcode")
    name, select, condition = _split_predicate(tok, {**_FETCH_NAMES, "?": -1})
    if name == "?":
        raw_op = None if base is None else base & 0x1F
        info = isa.FETCH_OPS.get(raw_op)  # type: ignore[call-overload]
        if info is None or info.mesa != "?":
            raise _err(
                tok,
                "'?' does not say which texture fetch this is: write its name "
                "(e.g. TEX_GET_GRADIENTS) or keep the raw columns",
            )
        opcode = int(info.opcode)
    elif name in _FETCH_NAMES:
        opcode = _FETCH_NAMES[name]
    else:
        raise _err(tok, f"unknown fetch opcode '{tok.text}'")
    kind = isa.FETCH_OPS[isa.FetchOpcode(opcode)].kind
    layout = isa.FETCH_LAYOUTS[kind]
    slot = _Slot(where, kind.value, serialize, {"opcode": opcode}, base)
    v = slot.values
    _set_predicate(v, select, condition)
    v["dst_reg"], v["dst_swiz"] = _fetch_dst(cur)
    cur.expect("=")
    count = 1 if kind is FetchKind.VERTEX else 3
    v["src_reg"], v["src_swiz"] = _fetch_src(cur, count)
    options = _VERTEX_OPTIONS if kind is FetchKind.VERTEX else _TEXTURE_OPTIONS
    v.update(_TEXTURE_DEFAULTS if kind is FetchKind.TEXTURE else _VERTEX_DEFAULTS)
    seen: set[str] = set()
    while not cur.at_end():
        key = cur.word("a fetch option")
        handler = options.get(key.text)
        if handler is None and kind is FetchKind.VERTEX and key.text in _FORMAT_NAMES:
            handler = _vertex_format_name
        if handler is None:
            raise _err(key, f"unknown {kind.value} fetch option '{key.text}'")
        group = "format" if handler is _vertex_format_name else key.text
        if group in seen:
            raise _err(key, f"option '{key.text}' given twice")
        seen.add(group)
        handler(cur, key, v, layout)
    return slot


_Handler = Callable[[_Cursor, _Tok, dict[str, int], Layout], None]


def _vertex_format_name(cur: _Cursor, key: _Tok, v: dict[str, int], layout: Layout) -> None:
    v["format"] = int(_FORMAT_NAMES[key.text])


def _set_flag(name: str, value: int) -> _Handler:
    def handler(cur: _Cursor, key: _Tok, v: dict[str, int], layout: Layout) -> None:
        v[name] = value

    return handler


def _set_number(name: str) -> _Handler:
    def handler(cur: _Cursor, key: _Tok, v: dict[str, int], layout: Layout) -> None:
        v[name] = _checked_paren(cur, layout, name)

    return handler


def _vertex_const(cur: _Cursor, key: _Tok, v: dict[str, int], layout: Layout) -> None:
    cur.expect("(")
    value, tok = cur.number()
    v["const_index"] = _check_fits(value, tok, layout, "const_index", "const index")
    v["const_index_sel"] = 0
    if cur.accept(","):  # the wiki's older spelling has no selector
        value, tok = cur.number()
        v["const_index_sel"] = _check_fits(value, tok, layout, "const_index_sel", "selector")
    cur.expect(")")


def _named(name: str, table: dict[str, int]) -> _Handler:
    def handler(cur: _Cursor, key: _Tok, v: dict[str, int], layout: Layout) -> None:
        cur.expect("(")
        tok = cur.word(f"a {key.text} value")
        if tok.text not in table:
            raise _err(tok, f"unknown {key.text} value '{tok.text}' ({', '.join(table)})")
        v[name] = int(table[tok.text])
        cur.expect(")")

    return handler


def _lod(cur: _Cursor, key: _Tok, v: dict[str, int], layout: Layout) -> None:
    value, tok = cur.paren_number()
    if value != 0:
        raise _err(tok, "LOD(n) is Mesa's print of use_comp_lod, which is 0 when shown")
    v["use_comp_lod"] = 0


def _tex_offset(cur: _Cursor, key: _Tok, v: dict[str, int], layout: Layout) -> None:
    cur.expect("(")
    for i, axis in enumerate("xyz"):
        if i:
            cur.expect(",")
        value, tok = cur.number()
        v[f"offset_{axis}"] = _check_fits(value, tok, layout, f"offset_{axis}", "offset")
    cur.expect(")")


def _type_format(cur: _Cursor, key: _Tok, v: dict[str, int], layout: Layout) -> None:
    v["format"] = _checked_paren(cur, layout, "format")


_VERTEX_OPTIONS: dict[str, _Handler] = {
    "TYPE": _type_format,
    "SIGNED": _set_flag("format_comp_all", 1),
    "UNSIGNED": _set_flag("format_comp_all", 0),
    "NORMALIZED": _set_flag("num_format_all", 0),
    "STRIDE": _set_number("stride"),
    "OFFSET": _set_number("offset"),
    "CONST": _vertex_const,
}
_VERTEX_DEFAULTS = {"num_format_all": 1, "offset": 0, "format_comp_all": 0}
_TEXTURE_OPTIONS: dict[str, _Handler] = {
    "CONST": _set_number("const_idx"),
    "VALID_ONLY": _set_flag("fetch_valid_only", 1),
    "DENORM": _set_flag("tx_coord_denorm", 1),
    "MAG": _named("mag_filter", _TEX_FILTERS),
    "MIN": _named("min_filter", _TEX_FILTERS),
    "MIP": _named("mip_filter", _TEX_FILTERS),
    "ANISO": _named("aniso_filter", _ANISO_FILTERS),
    "ARBITRARY": _named("arbitrary_filter", _ARBITRARY_FILTERS),
    "VOL_MAG": _named("vol_mag_filter", _TEX_FILTERS),
    "VOL_MIN": _named("vol_min_filter", _TEX_FILTERS),
    "LOD": _lod,
    "LOD_BIAS": _set_number("lod_bias"),
    "REG_LOD": _set_number("use_reg_lod"),
    "USE_REG_GRADIENTS": _set_flag("use_reg_gradients", 1),
    "LOCATION": _named("sample_location", _LOCATIONS),
    "OFFSET": _tex_offset,
}
_TEXTURE_DEFAULTS = {
    "fetch_valid_only": 0,
    "tx_coord_denorm": 0,
    "mag_filter": int(isa.TexFilter.USE_FETCH_CONST),
    "min_filter": int(isa.TexFilter.USE_FETCH_CONST),
    "mip_filter": int(isa.TexFilter.USE_FETCH_CONST),
    "aniso_filter": int(isa.AnisoFilter.USE_FETCH_CONST),
    "arbitrary_filter": int(isa.ArbitraryFilter.USE_FETCH_CONST),
    "vol_mag_filter": int(isa.TexFilter.USE_FETCH_CONST),
    "vol_min_filter": int(isa.TexFilter.USE_FETCH_CONST),
    "use_comp_lod": 1,
    "use_reg_lod": 0,
    "use_reg_gradients": 0,
    # Mesa's encoder samples at the pixel center (M-A); its disassembly always says.
    "sample_location": int(isa.SampleLocation.CENTER),
    "offset_x": 0,
    "offset_y": 0,
    "offset_z": 0,
}


# --------------------------------------------------------------------------------------
# Assembly
# --------------------------------------------------------------------------------------


class _Assembler:
    def __init__(self, text: str, filename: str):
        self.filename = filename
        self.lines = text.split("\n")
        self.errors: list[Diagnostic] = []
        self.warnings: list[Diagnostic] = []
        self.cf: list[_Cf] = []

    def diag(self, severity: str, where: _Where, message: str, col: int, length: int) -> None:
        loc = SourceLocation(self.filename, where.line, col)
        d = Diagnostic(severity, message, loc, where.text, length)
        (self.errors if severity == "error" else self.warnings).append(d)

    def error_at(self, where: _Where, tok: _Tok, message: str) -> None:
        self.diag("error", where, message, tok.col, len(tok.text))

    def parse(self) -> None:
        for number, raw_line in enumerate(self.lines, start=1):
            line = raw_line.rstrip("\r")
            code = line.split(";", 1)[0]
            if not code.strip() or code.strip().startswith("@"):
                continue
            try:
                self.parse_line(number, line, code)
            except _LineError as exc:
                loc = SourceLocation(self.filename, number, exc.col)
                self.errors.append(Diagnostic("error", exc.message, loc, line, exc.length))

    def parse_line(self, number: int, line: str, code: str) -> None:
        cf_base = slot_base = None
        raw_index = None
        pos = 0
        if m := _RAW_CF.match(code):
            cf_base = int(m[1], 16) | int(m[2], 16) << 16 | int(m[3], 16) << 32
            pos = m.end()
        elif m := _RAW_SLOT.match(code):
            d0, d1, d2 = (int(m[i], 16) for i in (2, 3, 4))
            slot_base = d0 | d1 << 32 | d2 << 64
            raw_index = int(m[1], 16)
            pos = m.end()
        tokens = _tokenize(code, pos)
        cur = _Cursor(tokens, len(code) + 1)
        first = cur.peek()
        if first is None:
            raise _LineError("raw columns without a clause or instruction", len(code) + 1)
        where = _Where(number, line, first)

        serialize = False
        if first.text == "(" and (s := cur.peek(1)) is not None and s.text == "S":
            cur.expect("(")
            cur.expect("S")
            cur.expect(")")
            serialize = True
        head = cur.peek()
        if (
            head is not None
            and head.text in ("ALU", "FETCH")
            and (c := cur.peek(1))
            and c.text == ":"
        ):
            cur.i += 2
            if cf_base is not None:
                raise _err(first, "CF raw columns on an instruction line")
            if head.text == "ALU":
                slot = _parse_alu(cur, slot_base, where, serialize)
            else:
                slot = _parse_fetch(cur, slot_base, where, serialize)
            if raw_index is not None:
                slot.raw_index = (raw_index, first)
            self.add_instruction(slot, where)
            return
        if serialize:
            raise _err(first, "'(S)' must be followed by ALU: or FETCH:")
        if slot_base is not None:
            raise _err(first, "instruction raw columns on a line without ALU: or FETCH:")
        name = cur.word("a CF clause, ALU:, FETCH: or a scalar operation")
        if name.text in _CF_NAMES:
            self.cf.append(_parse_cf(cur, name, cf_base, where))
            return
        if cf_base is not None:
            raise _err(name, f"unknown CF clause '{name.text}'")
        if name.text == "OP" or name.text in _SCALAR_NAMES:
            slot = self.last_alu()
            if slot is None:
                raise _err(name, "a scalar operation must follow the ALU: line it pairs with")
            cur.i -= 1
            _parse_scalar(cur, slot)
            return
        raise _err(name, f"unknown instruction '{name.text}'")

    def last_alu(self) -> _Slot | None:
        if not self.cf or not self.cf[-1].instrs:
            return None
        slot = self.cf[-1].instrs[-1]
        return slot if slot.kind == "alu" and not slot.has_scalar else None

    def add_instruction(self, slot: _Slot, where: _Where) -> None:
        if not self.cf or not isa.CF_OPS[self.cf[-1].opcode].is_exec:
            raise _err(where.tok, "instruction outside an EXEC block")
        exec_cf = self.cf[-1]
        if len(exec_cf.instrs) >= _MAX_EXEC_COUNT:
            raise _err(where.tok, f"an EXEC runs at most {_MAX_EXEC_COUNT} instructions")
        if len(exec_cf.instrs) >= _SEQUENCE_SLOTS and (slot.is_fetch or slot.serialize):
            raise _err(
                where.tok,
                f"instruction {len(exec_cf.instrs) + 1} of an EXEC must be a plain ALU: the "
                f"sequence field only describes {_SEQUENCE_SLOTS} instructions",
            )
        exec_cf.instrs.append(slot)

    # ----------------------------------------------------------------------------------

    def layout(self) -> list[int]:
        clauses = list(self.cf)
        cf_slots = (len(clauses) + 1) // 2
        placed: list[tuple[int, _Slot]] = []
        next_free = cf_slots
        first_exec = True
        for cf in clauses:
            if not isa.CF_OPS[cf.opcode].is_exec:
                continue
            count = len(cf.instrs)
            if cf.cnt is not None and cf.cnt[0] != count:
                self.diag(
                    "warning",
                    cf.where,
                    f"CNT(0x{cf.cnt[0]:x}) but {count} instruction(s) follow; using {count}",
                    cf.cnt[1].col,
                    len(cf.cnt[1].text),
                )
            address = next_free
            if cf.addr is not None:
                address, tok = cf.addr
                if first_exec and address != cf_slots:
                    self.error_at(
                        cf.where,
                        tok,
                        f"the first EXEC's ADDR must be the number of CF slots ({cf_slots}): "
                        "disassemblers find the end of the CF program from it",
                    )
                elif count and address < cf_slots:
                    self.error_at(cf.where, tok, "ADDR points into the CF program")
            first_exec = False
            cf.values["address"] = address
            cf.values["count"] = count
            for i, slot in enumerate(cf.instrs):
                index = address + i
                if slot.raw_index is not None and slot.raw_index[0] != index:
                    self.error_at(
                        slot.where,
                        slot.raw_index[1],
                        f"raw slot index 0x{slot.raw_index[0]:02x} but the EXEC places this "
                        f"instruction in slot 0x{index:02x}",
                    )
                placed.append((index, slot))
            next_free = max(next_free, address + count)
        if self.errors:
            return []

        vertex_slots = [index for index, slot in placed if slot.kind == "vertex"]
        first_vertex = min(vertex_slots, default=None)
        slots: dict[int, tuple[int, _Slot]] = {}
        for index, slot in placed:
            word = _encode_slot(slot, first=index == first_vertex)
            if index in slots and slots[index][0] != word:
                self.error_at(
                    slot.where,
                    slot.where.tok,
                    f"slot {index} already holds a different instruction (line "
                    f"{slots[index][1].where.line}); omit ADDR to place this EXEC's "
                    "instructions after the others",
                )
            slots[index] = (word, slot)
        if self.errors:
            return []

        words: list[int] = []
        for i in range(0, 2 * cf_slots, 2):
            a = _encode_cf(clauses[i])
            b = _encode_cf(clauses[i + 1]) if i + 1 < len(clauses) else 0
            words.extend(slot_to_dwords(isa.CF_SLOT.pack({"clause0": a, "clause1": b})))
        # Slots no EXEC runs (gaps between given addresses) are zero.
        for index in range(cf_slots, next_free):
            words.extend(slot_to_dwords(slots[index][0] if index in slots else 0))
        return words


def _encode_cf(cf: _Cf) -> int:
    layout = isa.CF_LAYOUTS[isa.CF_OPS[cf.opcode].kind]
    values = dict(cf.values)
    base = cf.base or 0
    if isa.CF_OPS[cf.opcode].is_exec:
        # Sequence bits come from the instruction lines; those of absent instructions keep
        # their raw value.
        sequence = layout["serialize"].extract(base)
        for i, slot in enumerate(cf.instrs[:_SEQUENCE_SLOTS]):
            bits = (isa.SEQUENCE_FETCH if slot.is_fetch else 0) | (
                isa.SEQUENCE_SERIALIZE if slot.serialize else 0
            )
            shift = isa.SEQUENCE_BITS_PER_INSTR * i
            sequence = (sequence & ~(0x3 << shift)) | bits << shift
        values["serialize"] = sequence
    return layout.pack(values, base=base)


def _encode_slot(slot: _Slot, *, first: bool) -> int:
    """The slot's 96-bit word; ``first``: it is the program's first vertex fetch."""
    values = dict(slot.values)
    if slot.kind == "alu":
        layout = isa.ALU_LAYOUT
        base = layout.pack(isa.ALU_DEFAULTS) if slot.base is None else slot.base
        for i, (num, abs_, const) in slot.regs.items():
            if const and num > isa.REG_INDEX_MASK:
                values[f"src{i}_reg"] = num
            else:
                keep = layout[f"src{i}_reg"].extract(base) & isa.REG_REL_BIT
                values[f"src{i}_reg"] = num | (isa.REG_ABS_BIT if abs_ else 0) | keep
        return layout.pack(values, base=base)
    layout = isa.FETCH_LAYOUTS[FetchKind(slot.kind)]
    if slot.base is not None:
        return layout.pack(values, base=slot.base)
    if slot.kind == "vertex":
        defaults = isa.VERTEX_FETCH_DEFAULTS if first else isa.VERTEX_MINI_FETCH_DEFAULTS
    else:
        defaults = isa.TEXTURE_FETCH_DEFAULTS
    return layout.pack(values, base=layout.pack(defaults))


@dataclass(frozen=True, slots=True)
class AssemblyResult:
    """Assembled dwords (CF program, then ALU/FETCH slots) and the warnings given."""

    words: tuple[int, ...]
    warnings: tuple[Diagnostic, ...]


def assemble_with_warnings(text: str, *, filename: str = "<input>") -> AssemblyResult:
    """Assemble A2XX text, also returning warnings (a ``CNT`` that disagrees with the
    instructions that follow it).

    Errors raise :class:`~gpuisa.errors.SourceError` listing every diagnostic, warnings
    included, in line order (``file:line:col`` with the source line and a caret).
    """
    if not isinstance(text, str):
        raise InputError(f"assemble() takes source text (str), not {type(text).__name__}")
    asm = _Assembler(text, filename)
    asm.parse()
    if not asm.errors and not asm.cf:
        loc = SourceLocation(filename, 1, 1)
        raise SourceError([Diagnostic("error", "no CF clauses in the input", loc, None)])
    if not asm.errors and not any(isa.CF_OPS[c.opcode].is_exec for c in asm.cf):
        first = asm.cf[0].where
        asm.error_at(first, first.tok, "a program needs at least one EXEC-type clause")
    words = [] if asm.errors else asm.layout()
    if asm.errors:
        found = sorted(
            [*asm.errors, *asm.warnings], key=lambda d: (d.location.line, d.location.column)
        )
        raise SourceError(found)
    return AssemblyResult(tuple(words), tuple(asm.warnings))


def assemble(text: str, *, filename: str = "<input>") -> list[int]:
    """Assemble A2XX text into dwords; see :func:`assemble_with_warnings`."""
    return list(assemble_with_warnings(text, filename=filename).words)
