"""Field values and the pieces forms are built of: literals, numbers, names, conditions
and the combinators that make a part optional, alternative or an option list."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from ...bits import Layout
from .lexer import Cursor, Tok, token_error, tokenize

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


class Leading:
    """A piece recognised by its leading literal tokens (none: it starts with a value)."""

    def lead(self) -> list[str]:
        return []

    def starts(self, cur: Cursor) -> bool:
        return cur.starts_with(self.lead())


@dataclass(frozen=True)
class Lit(Leading):
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
class Num(Leading):
    """A field as a number: ``0x%x`` (``hex``) or ``%d``; either is read."""

    name: str
    hex: bool = False

    def render(self, v: Fields) -> str:
        return f"0x{v[self.name]:x}" if self.hex else str(v[self.name])

    def parse(self, cur: Cursor, v: Fields) -> None:
        value, tok = cur.number()
        v.read(self.name, value, tok)


@dataclass(frozen=True)
class Name(Leading):
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
class Seq(Leading):
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
class Alt(Leading):
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
class Options(Leading):
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
