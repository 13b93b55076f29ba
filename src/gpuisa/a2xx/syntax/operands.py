"""The operand pieces of Mesa's A2XX text: mnemonics, ALU destinations and sources,
fetch destinations and sources."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ...numtext import is_digits
from .. import isa
from .lexer import Cursor, Tok, bounded_number, token_error
from .pieces import Fields, Leading

# --------------------------------------------------------------------------------------
# Operand pieces
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Mnemonic(Leading):
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
class AluDst(Leading):
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
class AluSrc(Leading):
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
class VectorOperands(Leading):
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
class FetchDst(Leading):
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
class FetchSrc(Leading):
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
