"""Mesa's A2XX text syntax as data: one description per instruction form.

Every form (a CF clause, the vector and scalar lines of an ALU slot, a vertex or texture
fetch) is a tuple of *pieces* in print order, after the model of Mesa isaspec's display
templates.  A piece prints itself from the slot's field values and parses itself from a
line's tokens back into those values, so the Mesa-style printer (:mod:`.disasm`) and the
assembler (:mod:`.asm`) are both driven by the tables at the end of this module and
cannot disagree on spelling, operand order or when an optional part appears.

Parsing writes over a :class:`Fields` that starts from the raw columns of the line (or
from the vendor defaults of :mod:`.isa`), so bits the text does not show keep their value.
An optional part that is missing from the text sets the value that makes the printer
leave it out (``VC`` missing: ``vc`` = 0; ``NORMALIZED`` missing: ``num_format_all`` = 1).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from ..bits import Layout
from ..numtext import is_digits, saturating_int
from . import isa
from .isa import AddressMode, CfKind, CfOpcode, ExecCondition, FetchKind

# --------------------------------------------------------------------------------------
# Tokens
# --------------------------------------------------------------------------------------

_TOKEN = re.compile(r"\s*(?:([A-Za-z0-9_/?]+)|([(),=|\-.:]))")
_NUMBER = re.compile(r"0[xX][0-9a-fA-F]+|[0-9]+")
#: No field of an instruction is wider than this; longer numbers are refused unread.
_NUMBER_CEILING = 1 << 64


@dataclass(frozen=True, slots=True)
class Tok:
    text: str
    col: int  # 1-based
    is_word: bool

    @property
    def number(self) -> int | None:
        if self.is_word and _NUMBER.fullmatch(self.text):
            if self.text[:2] in ("0x", "0X"):
                return bounded_number(self, self.text[2:], 16)
            return bounded_number(self, self.text, 10)
        return None


def bounded_number(tok: Tok, digits: str, base: int) -> int:
    """The value of ``digits``, read in bounded time (a number of thousands of digits is
    an error here, not a ``ValueError`` deep in ``int()``)."""
    value = saturating_int(digits, base, _NUMBER_CEILING)
    if value == _NUMBER_CEILING:
        raise token_error(tok, f"number too large: {tok.text[:24]}... (wider than 64 bits)")
    return value


class LineError(Exception):
    """A syntax error at column ``col`` of the line being parsed."""

    def __init__(self, message: str, col: int, length: int = 1):
        super().__init__(message)
        self.message = message
        self.col = col
        self.length = max(1, length)


def token_error(tok: Tok, message: str) -> LineError:
    return LineError(message, tok.col, len(tok.text))


def tokenize(text: str, start: int = 0) -> list[Tok]:
    tokens = []
    pos = start
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            if text[pos:].strip() == "":
                break
            col = len(text[pos:]) - len(text[pos:].lstrip()) + pos + 1
            raise LineError(f"unexpected character {text[col - 1]!r}", col)
        word = m.group(1)
        group = 1 if word is not None else 2
        tokens.append(Tok(m.group(group), m.start(group) + 1, word is not None))
        pos = m.end()
    return tokens


class Cursor:
    """Sequential access to one line's tokens with error reporting."""

    def __init__(self, tokens: list[Tok], end_col: int):
        self.tokens = tokens
        self.i = 0
        self.end_col = end_col

    def peek(self, ahead: int = 0) -> Tok | None:
        j = self.i + ahead
        return self.tokens[j] if j < len(self.tokens) else None

    def at_end(self) -> bool:
        return self.i >= len(self.tokens)

    def next(self, what: str) -> Tok:
        tok = self.peek()
        if tok is None:
            raise LineError(f"expected {what} at end of line", self.end_col)
        self.i += 1
        return tok

    def accept(self, text: str) -> Tok | None:
        tok = self.peek()
        if tok is not None and tok.text == text:
            self.i += 1
            return tok
        return None

    def expect(self, text: str) -> Tok:
        tok = self.next(f"'{text}'")
        if tok.text != text:
            raise token_error(tok, f"expected '{text}', found '{tok.text}'")
        return tok

    def word(self, what: str) -> Tok:
        tok = self.next(what)
        if not tok.is_word:
            raise token_error(tok, f"expected {what}, found '{tok.text}'")
        return tok

    def number(self, what: str = "a number") -> tuple[int, Tok]:
        tok = self.next(what)
        value = tok.number
        if value is None:
            raise token_error(tok, f"expected {what}, found '{tok.text}'")
        return value, tok

    def starts_with(self, texts: list[str]) -> bool:
        return bool(texts) and all(
            (tok := self.peek(k)) is not None and tok.text == text for k, text in enumerate(texts)
        )

    def done(self) -> None:
        tok = self.peek()
        if tok is not None:
            raise token_error(tok, f"unexpected '{tok.text}'")


# --------------------------------------------------------------------------------------
# Field values
# --------------------------------------------------------------------------------------


class Unprintable(Exception):
    """A field holds a value the text has no spelling for (Mesa would misbehave)."""

    def __init__(self, name: str, value: int):
        super().__init__(f"{name} has reserved value {value}")
        self.name = name
        self.value = value


class Fields(dict[str, int]):
    """The field values of one clause or slot, with the layout that bounds them and,
    while parsing, the token each field was read from."""

    def __init__(self, layout: Layout, word: int):
        super().__init__(layout.unpack(word))
        self.layout = layout
        self.given: dict[str, Tok] = {}

    def read(self, name: str, value: int, tok: Tok, what: str | None = None) -> None:
        limit = self.layout[name].max
        if not 0 <= value <= limit:
            raise token_error(tok, f"{what or name} {value} does not fit (0..{limit})")
        self[name] = value
        self.given[name] = tok

    def word(self, base: int) -> int:
        return self.layout.pack(self, base=base)


# --------------------------------------------------------------------------------------
# Pieces
# --------------------------------------------------------------------------------------


class Piece(Protocol):
    """Prints itself from field values and reads itself back from tokens."""

    def render(self, v: Fields) -> str: ...
    def parse(self, cur: Cursor, v: Fields) -> None: ...
    def starts(self, cur: Cursor) -> bool:
        """Does the line go on with this piece (used for optional parts)?"""
        ...


class _Leading:
    """A piece recognised by its leading literal tokens (none: it starts with a value)."""

    def lead(self) -> list[str]:
        return []

    def starts(self, cur: Cursor) -> bool:
        return cur.starts_with(self.lead())


@dataclass(frozen=True)
class Lit(_Leading):
    """Fixed text; parsing expects its tokens (white space is free)."""

    text: str

    def render(self, v: Fields) -> str:
        return self.text

    def lead(self) -> list[str]:
        return [tok.text for tok in tokenize(self.text)]

    def parse(self, cur: Cursor, v: Fields) -> None:
        for text in self.lead():
            cur.expect(text)


@dataclass(frozen=True)
class Num(_Leading):
    """A field as a number: ``0x%x`` (``hex``) or ``%d``; either is read."""

    name: str
    hex: bool = False

    def render(self, v: Fields) -> str:
        return f"0x{v[self.name]:x}" if self.hex else str(v[self.name])

    def parse(self, cur: Cursor, v: Fields) -> None:
        value, tok = cur.number()
        v.read(self.name, value, tok)


@dataclass(frozen=True)
class Name(_Leading):
    """A field as one of ``names``; ``aliases`` are read but never printed."""

    name: str
    names: Mapping[int, str]
    what: str
    aliases: Mapping[str, int] = field(default_factory=dict)

    def spellings(self) -> dict[str, int]:
        return {text: int(value) for value, text in self.names.items()} | dict(self.aliases)

    def render(self, v: Fields) -> str:
        value = v[self.name]
        if value not in self.names:
            raise Unprintable(self.name, value)
        return self.names[value]

    def _match(self, cur: Cursor) -> tuple[str, int] | None:
        # Longest spelling first: "NO ALLOC" is two tokens.
        for text, value in sorted(self.spellings().items(), key=lambda kv: -len(kv[0])):
            if cur.starts_with([tok.text for tok in tokenize(text)]):
                return text, value
        return None

    def starts(self, cur: Cursor) -> bool:
        return self._match(cur) is not None

    def parse(self, cur: Cursor, v: Fields) -> None:
        first = cur.peek()
        found = self._match(cur)
        if found is None:
            tok = cur.word(f"a {self.what}")
            raise token_error(tok, f"unknown {self.what} '{tok.text}'")
        text, value = found
        cur.i += len(tokenize(text))
        v.read(self.name, value, first)  # type: ignore[arg-type]


# Conditions under which an optional part is printed.


@dataclass(frozen=True)
class Is:
    """Printed when the 1-bit field ``name`` is ``value``; missing: the other value."""

    name: str
    value: int = 1

    def holds(self, v: Fields) -> bool:
        return v[self.name] == self.value

    def absent(self, v: Fields) -> None:
        v[self.name] = 1 - self.value

    def present(self, v: Fields) -> None:
        if self.name not in v.given:
            v[self.name] = self.value


@dataclass(frozen=True)
class Isnt:
    """Printed when field ``name`` is not ``value``; missing: ``value``."""

    name: str
    value: int = 0

    def holds(self, v: Fields) -> bool:
        return v[self.name] != self.value

    def absent(self, v: Fields) -> None:
        v[self.name] = self.value

    def present(self, v: Fields) -> None:
        if self.name not in v.given and v.layout[self.name].width == 1:
            v[self.name] = 1 - self.value


@dataclass(frozen=True)
class AnySet:
    """Printed when any of the fields is nonzero; missing: all zero."""

    names: tuple[str, ...]

    def holds(self, v: Fields) -> bool:
        return any(v[name] for name in self.names)

    def absent(self, v: Fields) -> None:
        for name in self.names:
            v[name] = 0

    def present(self, v: Fields) -> None:
        return None


Condition = Is | Isnt | AnySet


@dataclass(frozen=True)
class Seq(_Leading):
    """Pieces printed together.  ``when``: printed only if it holds (None: always);
    either way the text may leave the whole sequence out (it is read when the line goes
    on with its leading tokens)."""

    pieces: tuple[Piece, ...]
    when: Condition | None = None

    def printed(self, v: Fields) -> bool:
        return self.when is None or self.when.holds(v)

    def render(self, v: Fields) -> str:
        return render(self.pieces, v) if self.printed(v) else ""

    def starts(self, cur: Cursor) -> bool:
        # The first piece that is not mere white space decides.
        first = next(p for p in self.pieces if not isinstance(p, Lit) or p.lead())
        return first.starts(cur)

    def parse(self, cur: Cursor, v: Fields) -> None:
        if not self.starts(cur):
            self.missing(v)
            return
        parse(self.pieces, cur, v)
        if self.when is not None:
            self.when.present(v)

    def missing(self, v: Fields) -> None:
        if self.when is not None:
            self.when.absent(v)


def opt(when: Condition | None, *pieces: Piece) -> Seq:
    return Seq(tuple(pieces), when)


@dataclass(frozen=True)
class Alt(_Leading):
    """The first alternative that can print the value; parsing takes the one the text
    starts with."""

    alternatives: tuple[Seq, ...]

    def render(self, v: Fields) -> str:
        for alternative in self.alternatives[:-1]:
            try:
                return alternative.render(v)
            except Unprintable:
                continue
        return self.alternatives[-1].render(v)

    def starts(self, cur: Cursor) -> bool:
        return any(a.starts(cur) for a in self.alternatives)

    def parse(self, cur: Cursor, v: Fields) -> None:
        chosen = next((a for a in self.alternatives if a.starts(cur)), self.alternatives[-1])
        chosen.parse(cur, v)

    def missing(self, v: Fields) -> None:
        return None


@dataclass(frozen=True)
class Options(_Leading):
    """Trailing keyword parts: printed in order, read in any order (each at most once)."""

    parts: tuple[Seq | Alt, ...]
    what: str

    def render(self, v: Fields) -> str:
        return "".join(part.render(v) for part in self.parts)

    def parse(self, cur: Cursor, v: Fields) -> None:
        seen: set[int] = set()
        while not cur.at_end():
            tok = cur.peek()
            index = next((i for i, p in enumerate(self.parts) if p.starts(cur)), None)
            if index is None:
                raise token_error(tok, f"unknown {self.what} option '{tok.text}'")  # type: ignore[arg-type]
            if index in seen:
                raise token_error(tok, f"option '{tok.text}' given twice")  # type: ignore[union-attr]
            seen.add(index)
            self.parts[index].parse(cur, v)
        for i, part in enumerate(self.parts):
            if i not in seen:
                part.missing(v)


def render(pieces: Iterable[Piece], v: Fields) -> str:
    return "".join(piece.render(v) for piece in pieces)


def parse(pieces: Iterable[Piece], cur: Cursor, v: Fields) -> None:
    for piece in pieces:
        piece.parse(cur, v)


# --------------------------------------------------------------------------------------
# Operand pieces
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Mnemonic(_Leading):
    """An opcode by name or ``OP(n)``, with Mesa's EQ/NE suffix when predicated.

    ``unnamed``: a spelling Mesa prints for several opcodes; it is read only when the
    raw columns already hold one of them.
    """

    name: str
    names: Mapping[int, str]
    what: str
    predicated: bool = True
    aliases: Mapping[str, int] = field(default_factory=dict)
    unnamed: str | None = None

    def render(self, v: Fields) -> str:
        value = v[self.name]
        text = self.names.get(value, f"OP({value})")
        if self.predicated and v["pred_select"]:
            text += "EQ" if v["pred_condition"] else "NE"
        return text

    def parse(self, cur: Cursor, v: Fields) -> None:
        spellings = {t: n for n, t in self.names.items() if t != self.unnamed} | dict(self.aliases)
        tok = cur.word(f"a {self.what} opcode")
        suffix: Tok | None = None
        if tok.text == "OP" and (paren := cur.peek()) is not None and paren.text == "(":
            cur.expect("(")
            value, num_tok = cur.number()
            cur.expect(")")
            v.read(self.name, value, num_tok, f"{self.what} opcode")
            pred = cur.peek()
            # The suffix is glued to "OP(n)": "OP(31)EQ".
            if (
                pred is not None
                and pred.text in ("EQ", "NE")
                and pred.col == cur.tokens[cur.i - 1].col + 1
            ):
                cur.i += 1
                suffix = pred
        else:
            text = tok.text
            known = {*spellings, self.unnamed}
            if text not in known and text[-2:] in ("EQ", "NE") and text[:-2] in known:
                text, suffix = text[:-2], tok
            if text == self.unnamed and text is not None:
                if self.names.get(v[self.name]) != self.unnamed:
                    raise token_error(
                        tok,
                        f"'{text}' does not say which {self.what} this is: write its name "
                        "or keep the raw columns",
                    )
            elif text not in spellings:
                raise token_error(tok, f"unknown {self.what} opcode '{tok.text}'")
            else:
                v.read(self.name, spellings[text], tok)
        if suffix is not None and not self.predicated:
            raise token_error(
                suffix, f"the {self.what} part takes its predicate from the vector part"
            )
        if self.predicated:
            v["pred_select"] = int(suffix is not None)
            if suffix is not None:  # the condition bit is only shown when predicated
                v["pred_condition"] = int(suffix.text.endswith("EQ"))


def _register(cur: Cursor, prefixes: tuple[str, ...]) -> tuple[str, int, Tok]:
    tok = cur.word("a register")
    for prefix in sorted(prefixes, key=len, reverse=True):
        rest = tok.text[len(prefix) :]
        if tok.text.startswith(prefix) and is_digits(rest, 10):
            return prefix, bounded_number(tok, rest, 10), tok
    raise token_error(tok, f"expected a register ({', '.join(p + 'n' for p in prefixes)})")


def _temp_index(num: int, tok: Tok) -> int:
    if num > isa.REG_INDEX_MASK:
        raise token_error(tok, f"register number {num} does not fit (0..63)")
    return num


def _swizzle(cur: Cursor, allowed: str, what: str) -> tuple[str, Tok] | None:
    if cur.accept(".") is None:
        return None
    tok = cur.word(f"a {what}")
    if any(c not in allowed for c in tok.text) or len(tok.text) > 4:
        raise token_error(tok, f"invalid {what} '{tok.text}' (up to 4 of '{allowed}')")
    return tok.text, tok


def _write_mask(cur: Cursor) -> int:
    swz = _swizzle(cur, "xyzw_", "write mask")
    if swz is None:
        return 0xF
    text, tok = swz
    if len(text) == 4 and all(c in ("_", "xyzw"[i]) for i, c in enumerate(text)):
        return sum(1 << i for i, c in enumerate(text) if c != "_")
    comps = ["xyzw".index(c) for c in text if c != "_"]
    if "_" in text or comps != sorted(set(comps)):
        raise token_error(tok, f"invalid write mask '{text}' (use e.g. 'xy_w' or 'xyw')")
    return sum(1 << c for c in comps)


@dataclass(frozen=True)
class AluDst(_Leading):
    """``Rn`` or ``exportN`` with a write mask (``.x_z_``; none for xyzw).  The vector
    destination sets export_data; the scalar one must agree with it."""

    dest: str
    mask: str
    sets_export: bool

    def render(self, v: Fields) -> str:
        text = f"{'export' if v['export_data'] else 'R'}{v[self.dest]}"
        mask = v[self.mask]
        if mask != 0xF:
            text += "." + "".join(isa.SWIZZLE_CHARS[i] if mask >> i & 1 else "_" for i in range(4))
        return text

    def parse(self, cur: Cursor, v: Fields) -> None:
        prefix, num, tok = _register(cur, ("R", "export"))
        export = int(prefix == "export")
        if self.sets_export:
            v["export_data"] = export
        elif export != v["export_data"]:
            raise token_error(
                tok, "vector and scalar destinations must both be exports or both not"
            )
        v.read(self.dest, _temp_index(num, tok), tok)
        v[self.mask] = _write_mask(cur)


@dataclass(frozen=True)
class AluSrc(_Leading):
    """Source ``i`` as Mesa prints it: 6-bit register number, bit 7 as ``|abs|`` even for
    constants, relative swizzle.  ``C64``-``C255`` are read as full constant indices; the
    aL-relative bit is not shown and keeps its value."""

    i: int

    def render(self, v: Fields) -> str:
        reg = v[f"src{self.i}_reg"]
        absolute = bool(reg & isa.REG_ABS_BIT)
        bars = "|" if absolute else ""
        text = ("-" if v[f"src{self.i}_reg_negate"] else "") + bars
        text += f"{'R' if v[f'src{self.i}_sel'] else 'C'}{reg & isa.REG_INDEX_MASK}"
        swiz = v[f"src{self.i}_swiz"]
        if swiz:
            text += "." + "".join(isa.SWIZZLE_CHARS[c] for c in isa.alu_swizzle_components(swiz))
        return text + bars

    def parse(self, cur: Cursor, v: Fields) -> None:
        negate = cur.accept("-") is not None
        absolute = cur.accept("|") is not None
        prefix, num, tok = _register(cur, ("R", "C"))
        temp = prefix == "R"
        if num > (isa.REG_INDEX_MASK if temp else 0xFF):
            raise token_error(tok, f"register number {num} does not fit")
        if absolute and num > isa.REG_INDEX_MASK:
            raise token_error(
                tok, f"C{num} cannot take |abs|: bit 7 of the register byte is its index"
            )
        swz = _swizzle(cur, "xyzw", "swizzle")
        swiz = 0
        if swz is not None:
            text = swz[0].ljust(4, swz[0][-1])  # r600 convention: repeat the last component
            swiz = isa.alu_swizzle_field(tuple("xyzw".index(c) for c in text))
        if absolute:
            cur.accept("|")  # Mesa prints the closing bar; fdre wrote only the opening one
        reg = f"src{self.i}_reg"
        if temp or num <= isa.REG_INDEX_MASK:
            num |= (isa.REG_ABS_BIT if absolute else 0) | (v[reg] & isa.REG_REL_BIT)
        v[reg] = num
        v.given[reg] = tok
        v[f"src{self.i}_sel"] = int(temp)
        v[f"src{self.i}_swiz"] = swiz
        v[f"src{self.i}_reg_negate"] = int(negate)


SOURCE_FIELDS = ("reg", "sel", "swiz", "reg_negate")


def source(v: Mapping[str, int], i: int) -> tuple[int, ...]:
    """The fields of ALU source ``i``."""
    return tuple(v[f"src{i}_{name}"] for name in SOURCE_FIELDS)


# Mesa prints the operands a vector operation reads in this order: a 3-source operation
# lists src3 first (a2xx-isa.md#mesa-alu).
MESA_OPERAND_ORDER: Mapping[int, tuple[int, ...]] = {1: (1,), 2: (1, 2), 3: (3, 1, 2)}


def vector_srcs(opcode: int) -> int:
    """How many operands Mesa prints for vector opcode ``opcode``."""
    info = isa.VECTOR_OPS.get(opcode)  # type: ignore[call-overload]
    return info.mesa_srcs if info else isa.MESA_UNKNOWN_VECTOR_SRCS


@dataclass(frozen=True)
class VectorOperands(_Leading):
    """The vector operation's sources, as many and in the order Mesa prints them."""

    def sources(self, v: Fields) -> tuple[AluSrc, ...]:
        return tuple(AluSrc(i) for i in MESA_OPERAND_ORDER[vector_srcs(v["vector_opc"])])

    def render(self, v: Fields) -> str:
        return ", ".join(src.render(v) for src in self.sources(v))

    def parse(self, cur: Cursor, v: Fields) -> None:
        for k, src in enumerate(self.sources(v)):
            if k:
                cur.expect(",")
            src.parse(cur, v)


@dataclass(frozen=True)
class FetchDst(_Leading):
    """``Rn.sel`` with one of ``xyzw01?_`` per component (missing ones: ``_``)."""

    def render(self, v: Fields) -> str:
        swiz = v["dst_swiz"]
        chars = "".join(isa.FETCH_DST_CHARS[(swiz >> (3 * i)) & 7] for i in range(4))
        return f"R{v['dst_reg']}.{chars}"

    def parse(self, cur: Cursor, v: Fields) -> None:
        _, num, tok = _register(cur, ("R",))
        v.read("dst_reg", _temp_index(num, tok), tok)
        swz = _swizzle(cur, isa.FETCH_DST_CHARS, "fetch destination swizzle")
        if swz is None:
            v["dst_swiz"] = isa.FETCH_DST_IDENTITY
            return
        text = swz[0].ljust(4, "_")
        v["dst_swiz"] = sum(isa.FETCH_DST_CHARS.index(c) << (3 * i) for i, c in enumerate(text))


@dataclass(frozen=True)
class FetchSrc(_Leading):
    """``Rn.c..`` with the ``count`` components the fetch reads (2 bits each)."""

    count: int

    def render(self, v: Fields) -> str:
        swiz = v["src_swiz"]
        chars = "".join(isa.SWIZZLE_CHARS[(swiz >> (2 * i)) & 3] for i in range(self.count))
        return f"R{v['src_reg']}.{chars}"

    def parse(self, cur: Cursor, v: Fields) -> None:
        _, num, tok = _register(cur, ("R",))
        v.read("src_reg", _temp_index(num, tok), tok)
        swz = _swizzle(cur, "xyzw", "fetch source swizzle")
        text = "x" if swz is None else swz[0]
        if swz is not None and len(text) > self.count:
            raise token_error(swz[1], f"this fetch reads {self.count} source component(s)")
        text = text.ljust(self.count, text[-1])
        v["src_swiz"] = sum("xyzw".index(c) << (2 * i) for i, c in enumerate(text))


# --------------------------------------------------------------------------------------
# The forms
# --------------------------------------------------------------------------------------


def _keyword(keyword: str, name: str, *, hex: bool = False) -> tuple[Piece, ...]:
    """`` KEYWORD(value)``."""
    return (Lit(f" {keyword}("), Num(name, hex), Lit(")"))


def _flag(keyword: str, name: str, value: int = 1) -> Seq:
    return opt(Is(name, value), Lit(f" {keyword}"))


_ABSOLUTE = _flag("ABSOLUTE_ADDR", "address_mode", AddressMode.ABSOLUTE)
_BOOL_ADDR = opt(Isnt("bool_addr"), *_keyword("BOOL_ADDR", "bool_addr", hex=True))


def _cf_params(info: isa.CfOpInfo) -> tuple[Piece, ...]:
    if info.kind is CfKind.EXEC:
        parts = [
            opt(None, *_keyword("ADDR", "address", hex=True), *_keyword("CNT", "count", hex=True)),
            _flag("YIELD", "is_yield"),
            opt(Isnt("vc"), *_keyword("VC", "vc", hex=True)),
            _BOOL_ADDR,
            _ABSOLUTE,
        ]
        if info.condition is not ExecCondition.NONE:
            parts.append(opt(None, *_keyword("COND", "condition")))
    elif info.kind is CfKind.LOOP:
        parts = [
            opt(None, *_keyword("ADDR", "address", hex=True)),
            opt(None, *_keyword("LOOP_ID", "loop_id")),
            _ABSOLUTE,
        ]
    elif info.kind is CfKind.JMP_CALL:
        parts = [
            opt(None, *_keyword("ADDR", "address", hex=True)),
            opt(None, *_keyword("DIR", "direction")),
            _flag("FORCE_CALL", "force_call"),
            # COND is shown for predicated jumps; reading it sets predicated_jmp.
            opt(Is("predicated_jmp"), *_keyword("COND", "condition")),
            _BOOL_ADDR,
            _ABSOLUTE,
        ]
    elif info.kind is CfKind.ALLOC:
        buffer = Name(
            "buffer_select",
            isa.ALLOC_BUFFER_NAMES,
            "ALLOC buffer",
            {"COORD": isa.AllocBuffer.POSITION},  # the wiki's spelling
        )
        parts = [
            opt(None, *_keyword("SIZE", "size", hex=True)),
            _flag("NO_SERIAL", "no_serial"),
            _flag("ALLOC_MODE", "alloc_mode"),
        ]
        return (Lit(" "), buffer, Options(tuple(parts), "ALLOC"))
    else:
        return ()
    return (Options(tuple(parts), info.name),)


CF_MNEMONIC = Name("opcode", {op: op.name for op in CfOpcode}, "CF clause")
# CF line: the clause's name, then its parameters.
CF_FORMS: Mapping[CfOpcode, tuple[Piece, ...]] = {
    op: (CF_MNEMONIC, *_cf_params(info)) for op, info in isa.CF_OPS.items()
}

VECTOR_MNEMONIC = Mnemonic("vector_opc", {op: op.name for op in isa.VectorOpcode}, "vector")
# ALU line: the vector operation (the line's destination and operands).
VECTOR_FORM: tuple[Piece, ...] = (
    VECTOR_MNEMONIC,
    Lit("\t"),
    AluDst("vector_dest", "vector_write_mask", sets_export=True),
    Lit(" = "),
    VectorOperands(),
    _flag("CLAMP", "vector_clamp"),
)

# Wiki spellings of scalar operations (a2xx-isa.md#assembler), read but never printed.
SCALAR_ALIASES: Mapping[str, int] = {
    "MOV": isa.ScalarOpcode.MAXs,
    "RCP": isa.ScalarOpcode.RECIP_IEEE,
    "RSQ": isa.ScalarOpcode.RECIPSQ_IEEE,
    "EXP2": isa.ScalarOpcode.EXP_IEEE,
    "LOG2": isa.ScalarOpcode.LOG_IEEE,
    "PSETE": isa.ScalarOpcode.PRED_SETEs,
}
SCALAR_MNEMONIC = Mnemonic(
    "scalar_opc",
    {op: op.name for op in isa.ScalarOpcode},
    "scalar",
    predicated=False,
    aliases=SCALAR_ALIASES,
)
# Scalar line: the scalar operation, which reads source 3.
SCALAR_FORM: tuple[Piece, ...] = (
    SCALAR_MNEMONIC,
    Lit("\t"),
    AluDst("scalar_dest", "scalar_write_mask", sets_export=False),
    Lit(" = "),
    AluSrc(3),
    _flag("CLAMP", "scalar_clamp"),
)


def scalar_line_printed(v: Mapping[str, int]) -> bool:
    """Mesa prints the scalar line when its write mask is set or the vector's is empty;
    without it the scalar write mask is 0."""
    return bool(v["scalar_write_mask"] or not v["vector_write_mask"])


FETCH_MNEMONIC = Mnemonic(
    "opcode",
    {op: info.mesa for op, info in isa.FETCH_OPS.items()},
    "fetch",
    aliases={op.name: op for op in isa.FetchOpcode},  # the names Mesa prints as "?"
    unnamed="?",
)
_FILTERS = (
    ("MAG", "mag_filter", isa.TexFilter.USE_FETCH_CONST, isa.TEX_FILTER_NAMES),
    ("MIN", "min_filter", isa.TexFilter.USE_FETCH_CONST, isa.TEX_FILTER_NAMES),
    ("MIP", "mip_filter", isa.TexFilter.USE_FETCH_CONST, isa.TEX_FILTER_NAMES),
    ("ANISO", "aniso_filter", isa.AnisoFilter.USE_FETCH_CONST, isa.ANISO_FILTER_NAMES),
    (
        "ARBITRARY",
        "arbitrary_filter",
        isa.ArbitraryFilter.USE_FETCH_CONST,
        isa.ARBITRARY_FILTER_NAMES,
    ),
    ("VOL_MAG", "vol_mag_filter", isa.TexFilter.USE_FETCH_CONST, isa.TEX_FILTER_NAMES),
    ("VOL_MIN", "vol_min_filter", isa.TexFilter.USE_FETCH_CONST, isa.TEX_FILTER_NAMES),
)
_VERTEX_OPTIONS = Options(
    (
        Alt(
            (
                opt(
                    None,
                    Lit(" "),
                    Name(
                        "format",
                        {f: f.name for f in isa.MESA_VERTEX_FORMAT_NAMES},
                        "vertex format",
                        {f.name: f for f in isa.SurfaceFormat},
                    ),
                ),
                opt(None, *_keyword("TYPE", "format", hex=True)),
            )
        ),
        opt(None, Lit(" "), Name("format_comp_all", {1: "SIGNED", 0: "UNSIGNED"}, "signedness")),
        _flag("NORMALIZED", "num_format_all", 0),
        opt(None, *_keyword("STRIDE", "stride")),
        opt(Isnt("offset"), *_keyword("OFFSET", "offset")),
        # The wiki's older spelling has no selector: CONST(n).
        opt(
            None,
            Lit(" CONST("),
            Num("const_index"),
            opt(None, Lit(", "), Num("const_index_sel")),
            Lit(")"),
        ),
    ),
    "vertex fetch",
)
_TEXTURE_OPTIONS = Options(
    (
        opt(None, *_keyword("CONST", "const_idx")),
        _flag("VALID_ONLY", "fetch_valid_only"),
        _flag("DENORM", "tx_coord_denorm"),
        *(
            opt(Isnt(name, use_const), Lit(f" {label}("), Name(name, names, label), Lit(")"))
            for label, name, use_const, names in _FILTERS
        ),
        # Mesa prints use_comp_lod, which is 0 whenever it is printed.
        opt(Is("use_comp_lod", 0), Lit(" LOD(0) LOD_BIAS("), Num("lod_bias"), Lit(")")),
        opt(Isnt("use_reg_lod"), *_keyword("REG_LOD", "use_reg_lod")),
        _flag("USE_REG_GRADIENTS", "use_reg_gradients"),
        opt(
            None,
            Lit(" LOCATION("),
            Name("sample_location", {loc: loc.name for loc in isa.SampleLocation}, "location"),
            Lit(")"),
        ),
        opt(
            AnySet(("offset_x", "offset_y", "offset_z")),
            Lit(" OFFSET("),
            Num("offset_x"),
            Lit(","),
            Num("offset_y"),
            Lit(","),
            Num("offset_z"),
            Lit(")"),
        ),
    ),
    "texture fetch",
)
# FETCH line: opcode, destination, source and the kind's options.
FETCH_FORMS: Mapping[FetchKind, tuple[Piece, ...]] = {
    FetchKind.VERTEX: (
        FETCH_MNEMONIC,
        Lit("\t"),
        FetchDst(),
        Lit(" = "),
        FetchSrc(1),
        _VERTEX_OPTIONS,
    ),
    FetchKind.TEXTURE: (
        FETCH_MNEMONIC,
        Lit("\t"),
        FetchDst(),
        Lit(" = "),
        FetchSrc(3),
        _TEXTURE_OPTIONS,
    ),
}
