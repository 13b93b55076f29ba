"""Lexing picasso source text into statements, keeping every token's column.

picasso works on C strings with ``strchr``/``strcspn`` and an in-place tokenizer
(pica-assembly.md#lexical): a line loses everything from its first ``;``, is trimmed,
loses leading ``label:`` prefixes (split at the first ``:`` anywhere), and what remains is
either a ``#`` line marker or a statement whose first space-delimited word is its name.
The rest of a statement is cut into comma- or space-separated arguments on demand
(:class:`Cursor`), exactly like picasso's ``mystrtok``, so that odd spacing splits the
same way.  Unlike picasso, every piece remembers its column for diagnostics.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from .cnum import C_SPACE, atoi


@dataclass(frozen=True, slots=True)
class Line:
    """One physical line: the name and number diagnostics report (``#`` markers change
    them) and the text shown under the diagnostic."""

    file: str
    number: int
    text: str


@dataclass(frozen=True, slots=True)
class Tok:
    """A piece of a source line: its text and its 0-based column in ``line.text``."""

    text: str
    col: int
    line: Line

    @property
    def end(self) -> int:
        return self.col + len(self.text)

    def sub(self, start: int, end: int | None = None) -> Tok:
        """The piece ``text[start:end]`` with its own column."""
        length = len(self.text)
        end = length if end is None else end
        start = min(max(start, 0), length)
        end = min(max(end, start), length)
        return Tok(self.text[start:end], self.col + start, self.line)

    def strip(self) -> Tok:
        """C ``isspace`` trimming on both sides (picasso's ``trim_whitespace``)."""
        text = self.text
        stripped = text.strip(C_SPACE)
        if len(stripped) == len(text):
            return self
        return Tok(stripped, self.col + len(text) - len(text.lstrip(C_SPACE)), self.line)


class Cursor:
    """picasso's ``mystrtok`` over the argument text of one statement.

    ``next`` returns the text up to the next delimiter (consuming it) or None once the
    text is exhausted; an empty piece between two delimiters is an empty token.
    """

    __slots__ = ("_end", "_line", "pos")

    def __init__(self, line: Line, start: int, end: int):
        self._line = line
        self.pos = start
        self._end = end

    def next(self, delims: str) -> Tok | None:
        text = self._line.text
        if self.pos >= self._end:
            return None
        start = self.pos
        stop = _until(text, start, self._end, delims)
        self.pos = stop + 1 if stop < self._end else self._end
        return Tok(text[start:stop], start, self._line)

    def arg(self) -> Tok | None:
        """Next comma-separated argument, trimmed (picasso ``nextArg``)."""
        tok = self.next(",")
        return None if tok is None else tok.strip()

    def arg_paren(self) -> Tok | None:
        """Text up to the next ``(``, trimmed (picasso ``nextArgCParen``)."""
        tok = self.next("(")
        return None if tok is None else tok.strip()

    def arg_space(self) -> Tok | None:
        """Next space-separated argument (picasso ``nextArgSpc``): split at a space or
        tab, then skip any whitespace that follows."""
        tok = self.next(" \t")
        if tok is None:
            return None
        self.pos, _ = _trim_bounds(self._line.text, self.pos, self._end)
        return tok.strip()

    def rest(self) -> Tok:
        """Everything not consumed yet (untrimmed); the cursor does not move."""
        return Tok(self._line.text[self.pos:self._end], self.pos, self._line)

    def end_tok(self) -> Tok:
        """An empty token at the end of the statement (for "missing parameter")."""
        return Tok("", self._end, self._line)

    def skip_all(self) -> None:
        self.pos = self._end


@dataclass(slots=True)
class Statement:
    """The labels of one line and its statement (``name`` is None for a label-only line)."""

    line: Line
    labels: list[Tok]
    name: Tok | None
    args: Cursor


@dataclass(slots=True)
class Marker:
    """A ``# LINE "FILE"`` line marker (already applied by the lexer), with the labels
    that preceded it on its line."""

    line: Line
    labels: list[Tok]


def _trim_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """``text[start:end]`` without C white space on either side, as bounds."""
    piece = text[start:end]
    kept = piece.lstrip(C_SPACE)
    start += len(piece) - len(kept)
    return start, start + len(kept.rstrip(C_SPACE))


#: A run without each delimiter set the lexer splits at (matched at C speed: the
#: assembler and the language server's index lex every line of a document).
_RUNS: dict[str, re.Pattern[str]] = {}


def _until(text: str, start: int, end: int, delims: str) -> int:
    """The first position from ``start`` (before ``end``) holding one of ``delims``, or
    ``end``."""
    run = _RUNS.get(delims)
    if run is None:
        run = _RUNS[delims] = re.compile(f"[^{re.escape(delims)}]*")
    return run.match(text, start, end).end()


#: Where a lexer goes on reading: (offset in the text, line number, file name).
Resume = tuple[int, int, str]


class Lexer:
    """Splits one source text into :class:`Statement` s.

    After iteration, ``eof`` is the position end-of-file diagnostics use: the reported
    line after the last line (pica-assembly.md#lines, pica-assembly.md#eof-locations).  ``strict``
    makes a line marker that follows labels, or whose file name contains ``:``, behave exactly
    as in picasso (labels are split off first).
    """

    def __init__(self, text: str, filename: str, *, strict: bool = False,
                 resume: Resume | None = None):
        self._text = text
        self.file = filename
        self.number = 1
        self._strict = strict
        self._start: int | None = None
        self._next = -1  # where the line after the one just read begins (-1: none)
        self._was_marker = False  # the line just read was a line marker
        if resume is not None:
            self._start, self.number, self.file = resume

    @property
    def resume(self) -> Resume | None:
        """Where the line after the one just read begins (``None`` after the last line):
        a lexer made with it as ``resume`` reads the rest of the text as this one would."""
        if self._next < 0:
            return None
        return self._next, self.number if self._was_marker else self.number + 1, self.file

    def __iter__(self) -> Iterator[Statement | Marker]:
        text = self._text
        # A UTF-8 byte order mark (some Windows editors write one) is not source text.
        pos = self._start if self._start is not None else 1 if text.startswith("\ufeff") else 0
        while True:
            newline = text.find("\n", pos)
            last = newline < 0
            raw = text[pos:] if last else text[pos:newline]
            line = Line(self.file, self.number, raw)
            item = self._line(line)
            self._next = -1 if last else newline + 1
            self._was_marker = marker = isinstance(item, Marker)
            if marker:
                yield item
            else:
                if item is not None:
                    yield item
                if not last:
                    self.number += 1
            if last:
                break
            pos = newline + 1

    @property
    def eof(self) -> Line:
        return Line(self.file, self.number, "")

    def _line(self, line: Line) -> Statement | Marker | None:
        raw = line.text
        semicolon = raw.find(";")
        start, end = _trim_bounds(raw, 0, len(raw) if semicolon < 0 else semicolon)
        labels: list[Tok] = []
        if not self._strict and raw.startswith("#", start):
            return self._marker(line, start + 1, end)
        while True:
            colon = raw.find(":", start, end)
            if colon < 0:
                break
            labels.append(Tok(raw[start:colon], start, line))
            start, end = _trim_bounds(raw, colon + 1, end)
        if start == end:
            return Statement(line, labels, None, Cursor(line, end, end)) if labels else None
        if raw.startswith("#", start):
            return self._marker(line, start + 1, end, labels)
        stop = _until(raw, start, end, " \t")
        name = Tok(raw[start:stop], start, line)
        args, _ = _trim_bounds(raw, stop + 1 if stop < end else end, end)
        return Statement(line, labels, name, Cursor(line, args, end))

    def _marker(self, line: Line, start: int, end: int, labels: list[Tok] | None = None) -> Marker:
        raw = line.text
        start, end = _trim_bounds(raw, start, end)
        stop = _until(raw, start, end, " \t")
        number, _ = atoi(raw[start:stop])
        name_start, name_end = _trim_bounds(raw, stop + 1 if stop < end else end, end)
        name = raw[name_start:name_end]
        if name.startswith('"'):
            close = name.find('"', 1)
            if self._strict or close < 0:
                # picasso drops the first and the last character, flags or not
                name = name[1:-1] if len(name) > 1 else ""
            else:
                name = name[1:close]  # cpp's flags after the name are ignored
        self.number = number
        self.file = name
        return Marker(line, labels or [])
