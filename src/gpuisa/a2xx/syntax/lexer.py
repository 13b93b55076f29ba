"""The tokens of Mesa's A2XX text and a cursor over one line's tokens."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...numtext import saturating_int

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
