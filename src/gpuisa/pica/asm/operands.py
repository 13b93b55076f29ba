"""Register operands, swizzles, index expressions and condition expressions.

Implements pica-assembly.md#operands and pica-assembly.md#conditions in picasso's processing order,
so that the same text yields the same register id, selector and index register, and the first
problem gives picasso's message.  The default (non-strict) mode fixes the defects of
pica-assembly.md#defects and rejects text picasso silently misreads (trailing garbage after a
register number, a non-numeric offset); ``strict`` reproduces picasso.

Register ids use picasso's internal numbering (pica-assembly.md#register-names):
v/o 0x00+N, r 0x10+N, c 0x20+N, i 0x80+N, b 0x88+N.  Selectors are 8-bit (component 0 in
bits 6-7, :mod:`..isa`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise
from typing import Protocol

from ...numtext import is_digits, saturating_int
from ..isa import (
    COMPONENT_ALIASES,
    IDENTITY_SELECTOR,
    INDEX_REGISTERS,
    NUM_BOOL_UNIFORMS,
    NUM_FLOAT_UNIFORMS,
    NUM_INPUTS,
    NUM_INT_UNIFORMS,
    NUM_TEMPORARIES,
    CondOp,
    components_selector,
    selector_components,
)
from .cnum import atoi, strtoll, to_c_int
from .errors import AsmError
from .source import Tok

# -- register banks of picasso's internal numbering (pica-assembly.md#register-names) ------

V_BASE = 0x00
O_BASE = 0x00
INPUT_END = V_BASE + NUM_INPUTS
R_BASE = 0x10
C_BASE = 0x20
I_BASE = 0x80
B_BASE = 0x88
#: Wide (7-bit) source fields reach ids below this; narrow (5-bit) ones below R_END.
C_END = C_BASE + NUM_FLOAT_UNIFORMS
R_END = R_BASE + NUM_TEMPORARIES
I_END = I_BASE + NUM_INT_UNIFORMS
B_END = B_BASE + NUM_BOOL_UNIFORMS
#: picasso's literal parser accepts i0-i7 (pica-assembly.md#register-ranges); only i0-i3 exist.
I_LITERAL_COUNT = 8


@dataclass(frozen=True, slots=True)
class _Bank:
    letter: str
    base: int
    count: int  # default mode
    strict_count: int  # picasso
    kind: str  # for "invalid KIND register"


_BANKS = {
    b.letter: b
    for b in (
        # pica-assembly.md#defect-v15: picasso's test is ">= 0x0F", rejecting v15.
        _Bank("v", V_BASE, NUM_INPUTS, NUM_INPUTS - 1, "input"),
        # the limit of o depends on the DVLE (pica-assembly.md#register-names)
        _Bank("o", O_BASE, 0, 0, "output"),
        _Bank("r", R_BASE, NUM_TEMPORARIES, NUM_TEMPORARIES, "temporary"),
        _Bank("c", C_BASE, NUM_FLOAT_UNIFORMS, NUM_FLOAT_UNIFORMS, "floating-point vector uniform"),
        _Bank("i", I_BASE, NUM_INT_UNIFORMS, I_LITERAL_COUNT, "integer vector uniform"),
        _Bank("b", B_BASE, NUM_BOOL_UNIFORMS, NUM_BOOL_UNIFORMS, "boolean uniform"),
    )
}

#: A register range written after a register number ("-c3" of "c0-c3"): picasso reads the
#: first number only, and real shaders use the form to document a matrix's rows.
_RANGE = re.compile(r"-[a-zA-Z][0-9]+")

#: Register-id ranges a static offset must stay inside in the default mode
#: (pica-assembly.md#defect-negative-offsets).
_ID_BANKS = ((0x00, 0x10), (R_BASE, R_END), (C_BASE, C_END), (I_BASE, I_BASE + I_LITERAL_COUNT),
             (B_BASE, B_END))

_COMPONENT = {ch: i for letters in COMPONENT_ALIASES for i, ch in enumerate(letters)}

#: Index register names (case-insensitive) -> IDX code.  The legacy names are picasso's.
#: Offsets beyond any register bank read as this (and are then out of range).
_OFFSET_CEILING = 1 << 31
_LEGACY_INDEX = {"a0": "a0.x", "a1": "a0.y", "a2": "aL", "lcnt": "aL"}
INDEX_CODES: dict[str, int] = {name.lower(): code for code, name in INDEX_REGISTERS.items() if name}
INDEX_CODES.update({old: INDEX_CODES[new.lower()] for old, new in _LEGACY_INDEX.items()})


@dataclass(frozen=True, slots=True)
class Alias:
    """What an alias name stands for: a register id, a negation and a selector."""

    reg: int
    neg: bool = False
    sel: int = IDENTITY_SELECTOR


@dataclass(frozen=True, slots=True)
class Operand:
    """A parsed register operand."""

    reg: int
    neg: bool
    sel: int
    idx: int  # IDX field code, 0 = none
    tok: Tok  # the whole operand
    name: str  # picasso's name for it in messages: the text before '[' or '.'
    swizzle: Tok | None  # the written swizzle, if any

    def mask(self) -> int:
        """The destination write mask (hardware order, x = bit 3) the selector spells."""
        mask = 0
        for comp in selector_components(self.sel):
            mask |= 8 >> comp
        return mask


class Context(Protocol):
    """What operand parsing needs from the assembler."""

    strict: bool

    def lookup_alias(self, name: str) -> Alias | None: ...

    def output_limit(self) -> int: ...

    def warn(self, message: str, tok: Tok, note: str | None = None) -> None: ...


# -- swizzles -----------------------------------------------------------------------------


def parse_swizzle(tok: Tok) -> int:
    """A selector from 1-4 component letters (xyzw/rgba/stpq, any case), padded by
    repeating the last one; empty text gives ``xxxx`` (pica-assembly.md#swizzles)."""
    text = tok.text
    comps = []
    for ch in text:
        comp = _COMPONENT.get(ch.lower())
        if comp is None or len(comps) == 4:
            raise AsmError(f"invalid swizzling mask: {text}", tok)
        comps.append(comp)
    last = comps[-1] if comps else 0
    comps += [last] * (4 - len(comps))
    return components_selector(comps)


def compose(alias_sel: int, written_sel: int) -> int:
    """Result component j is the alias's component W[j] (pica-assembly.md#aliases)."""
    a = selector_components(alias_sel)
    return components_selector([a[w] for w in selector_components(written_sel)])


def mask_letters(mask: int) -> str:
    return "".join("xyzw"[c] for c in range(4) if mask & (8 >> c))


def check_ascending(ctx: Context, op: Operand) -> None:
    """picasso's warning for a destination swizzle whose components are not in ascending
    order: the order has no effect, only the set of components matters
    (pica-assembly.md#swizzles)."""
    comps = selector_components(op.sel)
    if any(b < a for a, b in pairwise(comps)):
        ctx.warn("arbitrary swizzling has no effect for destination mask",
                 op.swizzle or op.tok, note=f"the effective mask is .{mask_letters(op.mask())}")


# -- index expressions --------------------------------------------------------------------


def _index_code(tok: Tok) -> int:
    return INDEX_CODES.get(tok.text.lower(), 0)


def _offset(ctx: Context, tok: Tok) -> int:
    """A static offset: ``atoi`` in strict mode (negative rejected,
    pica-assembly.md#defect-negative-offsets); otherwise a signed decimal integer and nothing
    else."""
    if ctx.strict:
        value, _ = atoi(tok.text)
        if value < 0:
            raise AsmError(f"invalid register offset: {tok.text}", tok)
        return value
    text = tok.text
    digits = text[1:] if text[:1] in "+-" else text
    if not is_digits(digits, 10):
        raise AsmError(f"invalid register offset: {text}", tok)
    value = saturating_int(digits, 10, _OFFSET_CEILING)
    return -value if text.startswith("-") else value


def _parse_index(ctx: Context, inner: Tok, allow_index: bool) -> tuple[int, int]:
    """(IDX code, static offset) of a bracket's trimmed content (pica-assembly.md#operand-syntax
    step 2)."""

    def not_here() -> AsmError:
        return AsmError(f"index register not allowed here: {inner.text}", inner)

    code = _index_code(inner)
    if code:
        if not allow_index:
            raise not_here()
        return code, 0
    plus = inner.text.find("+")
    if plus >= 0:
        if not allow_index:
            raise not_here()
        name = inner.sub(0, plus).strip()
        code = _index_code(name)
        offset_tok = inner.sub(plus + 1).strip()
        if not code:
            notes = ()
            if _index_code(offset_tok):
                notes = ((f"write the index register first: [{offset_tok.text}+{name.text}]",
                          None),)
            raise AsmError(f"invalid index register: {name.text}", name, notes)
        return code, _offset(ctx, offset_tok)
    minus = inner.text.find("-")
    if not ctx.strict and minus > 0:
        # gpuisa: [aL-2]; picasso reads the whole text with atoi and gets 0
        # (pica-assembly.md#defects).
        name = inner.sub(0, minus).strip()
        code = _index_code(name)
        if code:
            if not allow_index:
                raise not_here()
            offset_tok = inner.sub(minus + 1).strip()
            if offset_tok.text[:1] in "+-":
                raise AsmError(f"invalid register offset: {offset_tok.text}", offset_tok)
            return code, -_offset(ctx, offset_tok)
    return 0, _offset(ctx, inner)


# -- registers ----------------------------------------------------------------------------


def parse_operand(ctx: Context, tok: Tok, *, allow_index: bool = False) -> Operand:
    """Parse ``['-'] base ['[' index ']'] ['.' swizzle]`` (pica-assembly.md#operand-syntax).

    ``allow_index`` says whether the context accepts an index register (wide sources).
    """
    text = tok.text
    if "[" not in text and "." not in text and not text.startswith("-"):
        return _bare_operand(ctx, tok)
    neg = text.startswith("-")
    body = tok.sub(1) if neg else tok
    idx = offset = 0
    bracket = body.text.find("[")
    after: Tok | None = None
    if bracket >= 0:
        close = body.text.find("]", bracket)
        if close < 0:
            raise AsmError(f"missing closing bracket: {body.text}", body)
        base = body.sub(0, bracket)
        offset_tok = body.sub(bracket + 1, close).strip()
        idx, offset = _parse_index(ctx, offset_tok, allow_index)
        after = body.sub(close + 1)
    else:
        base = body
        offset_tok = None
    swizzle: Tok | None = None
    target = after if after is not None else base
    dot = target.text.find(".")
    garbage = after
    if dot >= 0:
        swizzle = target.sub(dot + 1)
        if after is None:
            base = target.sub(0, dot)
        else:
            garbage = after.sub(0, dot)
    if garbage is not None and garbage.text and not ctx.strict:
        raise AsmError(f"garbage found: {garbage.text}", garbage)
    sel = parse_swizzle(swizzle) if swizzle is not None else IDENTITY_SELECTOR
    name = tok.text[: base.end - tok.col]

    alias = ctx.lookup_alias(base.text)
    if alias is not None:
        reg = alias.reg + offset
        if offset and not ctx.strict:
            _check_folded(alias.reg, reg, offset_tok)
        return Operand(reg, neg ^ alias.neg, compose(alias.sel, sel), idx, tok, name, swizzle)

    reg, letter = _literal(ctx, base)
    if idx and letter != "c":
        raise AsmError("index register not allowed with this kind of register", tok)
    if offset and not ctx.strict:
        _check_folded(reg, reg + offset, offset_tok)
    return Operand(reg + offset, neg, sel, idx, tok, name, swizzle)


def _bare_operand(ctx: Context, tok: Tok) -> Operand:
    """A name without sign, index or swizzle (most operands): what :func:`parse_operand`
    makes of it, without taking it apart."""
    text = tok.text
    alias = ctx.lookup_alias(text)
    if alias is not None:
        return Operand(alias.reg, alias.neg, compose(alias.sel, IDENTITY_SELECTOR), 0, tok, text,
                       None)
    reg, _ = _literal(ctx, tok)
    return Operand(reg, False, IDENTITY_SELECTOR, 0, tok, text, None)


def _check_folded(reg: int, folded: int, where: Tok | None) -> None:
    """pica-assembly.md#defect-negative-offsets: a static offset must keep the register inside its
    bank."""
    for lo, hi in _ID_BANKS:
        if lo <= reg < hi:
            if not lo <= folded < hi:
                text = where.text if where is not None else ""
                raise AsmError(f"invalid register offset: {text}", where,
                               (("the offset moves the register out of its bank", None),))
            return


#: A register name as programs almost always write it: a lower-case bank letter and a
#: decimal number without a leading zero, nothing after it.  Such a name has nothing to
#: warn about and is read without the C number parser (every operand of a program is
#: one, and a language server re-assembles the whole program after each edit).
_PLAIN_REGISTER = re.compile(r"([vocrib])(0|[1-9][0-9]?)")


def _literal(ctx: Context, base: Tok) -> tuple[int, str]:
    """(register id, bank letter) of a literal register name such as ``r5``
    (pica-assembly.md#register-names)."""
    text = base.text
    plain = _PLAIN_REGISTER.fullmatch(text)
    if plain is not None:
        letter, value = plain[1], int(plain[2])
    else:
        value, letter = _spelled(ctx, base)
        if letter not in _BANKS:  # picasso's reading of an upper-case letter
            return value, letter
    bank = _BANKS[letter]
    if letter == "o":
        count = ctx.output_limit()  # 16, or 7 in a geometry shader
    elif ctx.strict:
        count = bank.strict_count
    else:
        count = bank.count
    if value >= count:
        raise AsmError(f"invalid {bank.kind} register: {text}", base)
    return bank.base + value, letter


def _spelled(ctx: Context, base: Tok) -> tuple[int, str]:
    """(number, bank letter) of any other register name, as picasso's ``strtoll`` reads
    it; the letter stays upper case in strict mode (pica-assembly.md#defect-uppercase)."""
    text = base.text
    if len(text) < 2 or text[0].lower() not in _BANKS or not ("0" <= text[1] <= "9"):
        raise AsmError(f"invalid register: {text}", base)
    parsed = strtoll(text[1:])
    assert parsed is not None  # text[1] is a digit
    value, used = parsed
    if not 0 <= value <= 255:
        raise _out_of_range(ctx, 0, 255, value, text[1 : used + 1], base)
    rest = text[used + 1:]
    if _RANGE.fullmatch(rest) and rest[1] == text[0] and not ctx.strict:
        # picasso reads the number and ignores the rest (pica-assembly.md#register-names):
        # real shaders write '.alias projMtx c0-c3' for a matrix at c0.
        ctx.warn(f"'{text}' is read as {text[0]}{value}: picasso ignores the text after "
                 f"the register number, and a range is not a register", base)
    elif used + 1 != len(text) and not ctx.strict:
        notes = ()
        if text[1] == "0" and text[2:3].isdigit():
            notes = (("a leading 0 makes the register number octal", None),)
        raise AsmError(f"invalid register: {text}", base, notes)
    number = text[1 : used + 1]
    if (len(number) > 1 and number[0] == "0" and number[1] in "01234567"
            and saturating_int(number, 10, 256) != value):
        ctx.warn(f"the leading 0 makes '{number}' octal: this is {text[0]}{value}", base)
    letter = text[0]
    if letter not in _BANKS:  # upper case (pica-assembly.md#defect-uppercase)
        if ctx.strict:
            ctx.warn(f"upper-case register letter: picasso reads '{text}' as register id "
                     f"0x{value:02X}, not {letter.lower()}{value}", base)
            return value, letter
        letter = letter.lower()
    return value, letter


# -- conditions (pica-assembly.md#conditions) ----------------------------------------------

_FLAGS = {"cmp.x": 0, "cmp.y": 1}


@dataclass(frozen=True, slots=True)
class Condition:
    condop: CondOp
    refx: int
    refy: int


def parse_condition(tok: Tok) -> Condition:
    """``flag``, ``flag && flag`` or ``flag || flag`` (single ``&``/``|`` too)."""
    refs = [1, 1]
    text = tok.text
    op = ""
    split = min((i for i in (text.find("&"), text.find("|")) if i >= 0), default=-1)
    second = -1
    if split >= 0:
        op = text[split]
        rest = split + 2 if text[split + 1 : split + 2] == op else split + 1
        second = _flag(tok.sub(rest).strip(), refs)
        tok = tok.sub(0, split).strip()
    first = _flag(tok, refs)
    if first == second:
        raise AsmError("condition register checked twice", tok)
    if second < 0:
        condop = CondOp.X if first == 0 else CondOp.Y
    else:
        condop = CondOp.AND if op == "&" else CondOp.OR
    return Condition(condop, refs[0], refs[1])


def _flag(tok: Tok, refs: list[int]) -> int:
    text = tok.text
    bangs = len(text) - len(text.lstrip("!"))
    which = _FLAGS.get(text[bangs:].lower())
    if which is None:
        raise AsmError(f"invalid condition register: {text[bangs:]}", tok.sub(bangs))
    refs[which] ^= bangs & 1
    return which


# -- integers -----------------------------------------------------------------------------


def parse_int(ctx: Context, tok: Tok, lo: int, hi: int) -> int:
    """picasso's ``parseInt``: ``strtoll`` base 0 and a range check (pica-assembly.md#numbers).
    Trailing garbage is ignored in strict mode and an error otherwise."""
    parsed = strtoll(tok.text)
    if parsed is None or (parsed[1] != len(tok.text) and not ctx.strict):
        raise AsmError(f"Invalid value: {tok.text}", tok)
    value = parsed[0]
    if not lo <= value <= hi:
        raise _out_of_range(ctx, lo, hi, value, tok.text[: parsed[1]], tok)
    return value


def _out_of_range(ctx: Context, lo: int, hi: int, value: int, written: str, tok: Tok
                  ) -> AsmError:
    """picasso prints the value converted to a C ``int`` (so 99999999999 shows as
    1215752191); gpuisa shows the number as written, except in strict mode."""
    shown = to_c_int(value) if ctx.strict else written.strip()
    return AsmError(f"Value out of range ({lo}..{hi}): {shown}", tok)


def is_identifier(text: str) -> bool:
    """picasso's ``validateIdentifier``: letters, ``_`` and ``$``, digits after the first
    character; the empty string passes (pica-assembly.md#identifiers)."""
    for i, ch in enumerate(text):
        if not (ch.isascii() and (ch.isalpha() or ch in "_$" or (i and ch.isdigit()))):
            return False
    return True


def looks_like_register(text: str) -> bool:
    """A register letter (any case) followed by a digit: ``.alias`` refuses such names."""
    return len(text) >= 2 and text[0].lower() in _BANKS and "0" <= text[1] <= "9"

