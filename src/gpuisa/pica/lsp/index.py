"""Where every name of a program is declared and used, and what each piece of text is.

The index reads the sources with the assembler's own lexer (:mod:`..asm.source`), one
physical line at a time, so that its tokens split exactly where the assembler's do and
its positions are positions in the editor's document (``#`` line markers renumber the
assembler's diagnostics, never the index).  It needs no successful assembly: a broken
statement still yields the names it contains.

Scopes follow picasso (pica-assembly.md#aliases, pica-assembly.md#linking): procedures are global;
labels, aliases, constants, inputs and outputs belong to one input unit (a file, or a
``.unit`` of gpuisa's extension); uniforms declared with the same name in several units
of the shared vertex space are one uniform (pica-assembly.md#global-uniforms: the later declarations
reuse the first one's registers), so they are one symbol, except in a unit with ``.gsh MODE``
(private geometry space).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from itertools import repeat
from typing import NamedTuple

from ..asm.instructions import MNEMONICS
from ..asm.operands import is_identifier
from ..asm.source import Cursor, Lexer, Marker, Statement, Tok
from ..isa import BY_MNEMONIC, OpcodeInfo
from ..syntax import SlotKind
from .syntax import operand_kinds


class Role(Enum):
    """What a piece of source text is."""

    PROCEDURE = "procedure"
    LABEL = "label"
    ALIAS = "alias"
    UNIFORM = "uniform"
    CONSTANT = "constant"
    INPUT = "input"
    OUTPUT = "output"
    MNEMONIC = "mnemonic"
    DIRECTIVE = "directive"
    REGISTER = "register"
    SWIZZLE = "swizzle"
    KEYWORD = "keyword"  # comparison operators, output types, geometry modes
    COMMENT = "comment"
    UNRESOLVED = "unresolved"  # a name that is used but declared nowhere


#: Roles of names that are declared somewhere and can be renamed.
SYMBOL_ROLES = frozenset({Role.PROCEDURE, Role.LABEL, Role.ALIAS, Role.UNIFORM,
                          Role.CONSTANT, Role.INPUT, Role.OUTPUT})

Key = tuple


class Occurrence(NamedTuple):
    """One token: ``line`` and ``col`` count from 0 in the document (``col`` in Python
    characters), ``unit`` is the program-wide index of its input unit, ``key`` names the
    symbol it declares or uses (None for other tokens and unresolved names), ``detail``
    keeps what a declaration says about the name (the text of its register, or size).
    (A named tuple: a 200,000-line document has a million of them, made on every edit.)"""

    path: str
    line: int
    col: int
    length: int
    text: str
    role: Role
    unit: int
    definition: bool = False
    key: Key | None = None
    detail: str = ""

    @property
    def end(self) -> int:
        return self.col + self.length

    def covers(self, line: int, col: int) -> bool:
        return self.line == line and self.col <= col <= self.end


#: Mnemonic (lower case, as the assembler accepts it) -> table row; ``for`` is LOOP.
INSTRUCTIONS: dict[str, OpcodeInfo] = {
    name: BY_MNEMONIC["loop" if name == "for" else name] for name in MNEMONICS}

_REGISTER = re.compile(r"[ovrcibOVRCIB][0-9]+\Z")
_INDEX_REGISTER = re.compile(r"(a0\.[xy]|a[0-2]|al|lcnt|cmp\.[xy])\Z", re.IGNORECASE)
_NAME_END = re.compile(r"[\[.( \t]")


def is_register(text: str) -> bool:
    """A literal register name (``r5``, ``C10``) rather than an alias."""
    return bool(_REGISTER.match(text))


@dataclass(slots=True)
class _Pending:
    tok: Tok
    role: Role
    definition: bool
    detail: str = ""


class _UnitIndexer:
    """Collects the tokens of one input unit."""

    def __init__(self, path: str, unit: int):
        self.path = path
        self.unit = unit
        self.items: list[tuple[int, int, _Pending]] = []  # (line, column offset, token)
        self.private_uniforms = False
        #: A `.constfa NAME[]` being filled: its size is the count of its elements.
        self.open_array: _Pending | None = None
        self._line = 0
        self._offset = 0

    def at(self, line: int, offset: int) -> None:
        self._line, self._offset = line, offset

    def add(self, tok: Tok | None, role: Role, definition: bool = False, detail: str = "") -> None:
        if tok is not None and tok.text:
            self.items.append((self._line, self._offset, _Pending(tok, role, definition, detail)))

    # -- operands ---------------------------------------------------------------------------

    def operand(self, tok: Tok | None) -> None:
        """``[-]base[[index]][.swizzle]``: a register, an alias use, a swizzle."""
        if tok is None:
            return
        text = tok.text
        start = 1 if text.startswith(("-", "!")) else 0
        match = _NAME_END.search(text, start)
        stop = match.start() if match else len(text)
        base = tok.sub(start, stop).strip()
        if is_register(base.text):
            self.add(base, Role.REGISTER)
        elif is_identifier(base.text):
            self.add(base, Role.UNRESOLVED)
        rest = stop
        if rest < len(text) and text[rest] == "[":
            close = text.find("]", rest)
            inner = tok.sub(rest + 1, close if close >= 0 else len(text))
            for part in re.finditer(r"[A-Za-z][A-Za-z0-9.]*", inner.text):
                if _INDEX_REGISTER.match(part.group()):
                    self.add(inner.sub(part.start(), part.end()), Role.REGISTER)
            rest = close + 1 if close >= 0 else len(text)
        if rest < len(text) and text[rest] == ".":
            self.add(tok.sub(rest + 1).strip(), Role.SWIZZLE)

    def operands(self, args: Cursor, roles: Sequence[str]) -> None:
        """Comma-separated arguments; ``roles`` says per position: ``o`` operand, ``p``
        procedure, ``l`` label, ``k`` keyword, ``r`` register, ``c`` condition, ``-``
        nothing (the last role repeats)."""
        n = 0
        while (tok := args.arg()) is not None:
            role = roles[min(n, len(roles) - 1)] if roles else "-"
            if role == "o":
                self.operand(tok)
            elif role == "p":
                self.add(tok, Role.PROCEDURE)
            elif role == "l":
                self.add(tok, Role.LABEL)
            elif role == "k":
                self.add(tok, Role.KEYWORD)
            elif role == "r":
                self.add(tok, Role.REGISTER)
            elif role == "c":
                self.condition(tok)
            n += 1

    def condition(self, tok: Tok) -> None:
        for part in re.finditer(r"cmp\.[xy]", tok.text, re.IGNORECASE):
            self.add(tok.sub(part.start(), part.end()), Role.REGISTER)

    # -- statements -------------------------------------------------------------------------

    def statement(self, st: Statement) -> None:
        for label in st.labels:
            self.add(label.strip(), Role.LABEL, True)
        if st.name is None:
            return
        name = st.name.text.lower()
        if name.startswith("."):
            self.add(st.name, Role.DIRECTIVE)
            handler = _DIRECTIVES.get(name[1:])
            if handler is not None:
                handler(self, st.args)
            return
        info = INSTRUCTIONS.get(name)
        if info is None:
            return
        self.add(st.name, Role.MNEMONIC)
        self.operands(st.args, instruction_operand_roles(info))


#: The role letter of each kind of operand (:func:`.syntax.operand_kinds`) that is not
#: an ``o`` (a register or a name standing for one).
_ROLE_LETTERS = {SlotKind.PROCEDURE: "p", SlotKind.LABEL: "l", SlotKind.CONDITION: "c",
                 SlotKind.COMPARE: "k", SlotKind.ADDRESS_TARGET: "r", SlotKind.VERTEX: "-",
                 SlotKind.EMIT_FLAGS: "-"}


def instruction_operand_roles(info: OpcodeInfo) -> str:
    """The role letters of :meth:`_UnitIndexer.operands` for an instruction's operands."""
    return "".join(_ROLE_LETTERS.get(kind, "o") for kind in operand_kinds(info)) or "-"


# -- directives -----------------------------------------------------------------------------


def _proc(ix: _UnitIndexer, args: Cursor) -> None:
    ix.add(args.arg(), Role.PROCEDURE, True)


def _entry(ix: _UnitIndexer, args: Cursor) -> None:
    ix.add(args.arg_space(), Role.PROCEDURE)


def _alias(ix: _UnitIndexer, args: Cursor) -> None:
    name = args.arg_space()
    target = args.arg_space()
    ix.add(name, Role.ALIAS, True, target.text if target is not None else "")
    ix.operand(target)


def _leading_name(tok: Tok) -> tuple[Tok, Tok]:
    """``NAME[...]`` or ``NAME(...)`` or ``NAME REG``: the name and the rest."""
    match = _NAME_END.search(tok.text)
    stop = match.start() if match else len(tok.text)
    return tok.sub(0, stop).strip(), tok.sub(stop)


def _after(rest: Tok, close: str) -> Tok | None:
    """The explicit register after ``]`` or ``)`` (gpuisa's placement extension)."""
    text = rest.text
    stop = text.find(close) + 1 if close in text else 0
    tail = rest.sub(stop).strip()
    return tail if tail.text else None


def _uniforms(ix: _UnitIndexer, args: Cursor) -> None:
    while (item := args.arg()) is not None:
        name, rest = _leading_name(item)
        size = ""
        if rest.text.startswith("["):
            size = rest.text[1:rest.text.find("]")] if "]" in rest.text else ""
        ix.add(name, Role.UNIFORM, True, size.strip())
        ix.operand(_after(rest, "]") if "]" in rest.text else _after(rest, ""))


def _constant(ix: _UnitIndexer, args: Cursor) -> None:
    """``.constf NAME(...)``, ``.constfa NAME[N]``; the detail is the array size."""
    item = args.rest()
    if item.strip().text.startswith("("):  # a .constfa element
        if ix.open_array is not None:
            ix.open_array.detail = str(int(ix.open_array.detail) + 1)
        return
    name, rest = _leading_name(item)
    size = "1"
    if rest.text.startswith("["):
        size = rest.text[1:rest.text.find("]")].strip() if "]" in rest.text else ""
    ix.add(name, Role.CONSTANT, True, size or "0")
    ix.open_array = ix.items[-1][2] if not size and name.text else None
    ix.operand(_after(rest, ")" if rest.text.lstrip().startswith("(") else "]"))


def _in(ix: _UnitIndexer, args: Cursor) -> None:
    name = args.arg_space()
    reg = args.arg_space()
    ix.add(name, Role.INPUT, True, reg.text if reg is not None else "")
    ix.operand(reg)


def _out(ix: _UnitIndexer, args: Cursor) -> None:
    name = args.arg_space()
    kind = args.arg_space()
    reg = args.arg_space()
    if name is not None and name.text != "-":
        ix.add(name, Role.OUTPUT, True, reg.text if reg is not None else "")
    if kind is not None:
        ix.add(kind.sub(0, kind.text.find(".") if "." in kind.text else None), Role.KEYWORD)
    ix.operand(reg)


def _set(ix: _UnitIndexer, args: Cursor) -> None:
    ix.operand(args.arg_paren())


def _setb(ix: _UnitIndexer, args: Cursor) -> None:
    ix.operand(args.arg_space())
    ix.add(args.arg_space(), Role.KEYWORD)


def _gsh(ix: _UnitIndexer, args: Cursor) -> None:
    mode = args.arg_space()
    if mode is None:
        return
    ix.private_uniforms = True
    ix.add(mode, Role.KEYWORD)
    while (tok := args.arg_space()) is not None:
        if not tok.text[:1].isdigit():
            ix.operand(tok)


_DIRECTIVES = {
    "proc": _proc, "entry": _entry, "alias": _alias,
    "fvec": _uniforms, "ivec": _uniforms, "bool": _uniforms,
    "constf": _constant, "consti": _constant, "constfa": _constant,
    "in": _in, "out": _out, "setf": _set, "seti": _set, "setb": _setb, "gsh": _gsh,
}


# -- the program index ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Comment:
    path: str
    line: int
    col: int
    length: int


@dataclass(frozen=True, slots=True)
class ProgramIndex:
    """Every token of a program's sources, in document order per file."""

    occurrences: tuple[Occurrence, ...]
    comments: tuple[Comment, ...]
    #: Program-wide unit index -> the path of the file it is in.
    unit_paths: tuple[str, ...]
    #: The tokens of each line that means the same wherever it is (:func:`_line_tokens`),
    #: by its text: what indexing the next version of the program reuses.
    lines: Mapping[str, tuple | None] = field(default_factory=dict, repr=False, compare=False)

    def in_file(self, path: str) -> list[Occurrence]:
        return [o for o in self.occurrences if o.path == path]

    def at(self, path: str, line: int, col: int) -> Occurrence | None:
        """The token under a cursor (a cursor right after a token still touches it)."""
        best = None
        for o in self.occurrences:
            if o.path == path and o.covers(line, col) and (best is None or o.col <= col < o.end):
                best = o
        return best

    def of_key(self, key: Key) -> list[Occurrence]:
        return [o for o in self.occurrences if o.key == key]

    def definitions(self, key: Key) -> list[Occurrence]:
        return [o for o in self.occurrences if o.key == key and o.definition]

    def declared(self, unit: int) -> dict[str, Occurrence]:
        """Names visible in a unit: its own declarations and every procedure."""
        names: dict[str, Occurrence] = {}
        for o in self.occurrences:
            if o.definition and (o.unit == unit or o.role is Role.PROCEDURE):
                names.setdefault(o.text, o)
        return names


def _physical_lines(text: str) -> Iterator[tuple[int, int, str]]:
    """(line number from 0, column offset, text) of every line; the assembler skips a
    UTF-8 byte order mark, so columns of the first line then start one later."""
    for number, raw in enumerate(text.split("\n")):
        offset = 1 if number == 0 and raw.startswith("\ufeff") else 0
        yield number, offset, raw


#: Directives whose lines mean something that depends on the lines before them, or that
#: changes what follows: ``.unit`` starts a unit, a ``.constfa`` element counts into the
#: array its ``.constf``/``.constfa`` line opened, ``.gsh`` makes the unit's uniforms
#: private.  Their lines are indexed in place, every time.
_IN_CONTEXT = frozenset({".unit", ".constf", ".consti", ".constfa", ".gsh"})


def _line_tokens(line: str) -> tuple[_Pending, ...] | None:
    """The tokens of one line (without a byte order mark) that means the same wherever it
    is, or None for a line with a directive of :data:`_IN_CONTEXT`.  Shared between the
    analyses of successive versions of a document, never changed (only the pending
    token of an open ``.constfa`` is, and such a line is not one of these)."""
    scratch = _UnitIndexer("", 0)
    # the leading newline keeps the lexer from taking a BOM inside the file for one
    for item in Lexer("\n" + line, ""):
        if isinstance(item, Marker):
            for label in item.labels:
                scratch.add(label.strip(), Role.LABEL, True)
        elif item.name is not None and item.name.text.lower() in _IN_CONTEXT:
            return None
        else:
            scratch.statement(item)
    return tuple(p for _, _, p in scratch.items)


_UNSEEN = object()


def _index_file(path: str, text: str, first_unit: int, known: Mapping[str, tuple | None],
                lines: dict[str, tuple | None]) -> tuple[list[_UnitIndexer], list[Comment]]:
    """Index one file; the tokens of a line found in ``known`` (the previous analysis's
    ``lines``) are reused, so that an edit costs the lexing of the lines it changed;
    every line's :func:`_line_tokens` go into ``lines``."""
    units = [_UnitIndexer(path, first_unit)]
    comments = []
    for number, offset, raw in _physical_lines(text):
        semicolon = raw.find(";")
        if semicolon >= 0:
            comments.append(Comment(path, number, semicolon, len(raw.rstrip("\r")) - semicolon))
        line = raw[offset:]
        tokens = lines.get(line, _UNSEEN)
        if tokens is _UNSEEN:
            tokens = known.get(line, _UNSEEN)
            if tokens is _UNSEEN:
                tokens = _line_tokens(line)
            lines[line] = tokens
        if tokens is not None:
            units[-1].items.extend(zip(repeat(number), repeat(offset), tokens))
            continue
        for item in Lexer("\n" + line, path):
            ix = units[-1]
            ix.at(number, offset)
            if isinstance(item, Marker):
                for label in item.labels:
                    ix.add(label.strip(), Role.LABEL, True)
                continue
            if item.name is not None and item.name.text.lower() == ".unit":
                for label in item.labels:
                    ix.add(label.strip(), Role.LABEL, True)
                ix.add(item.name, Role.DIRECTIVE)
                units.append(_UnitIndexer(path, ix.unit + 1))
                continue
            ix.statement(item)
    return units, comments


def _unit_keys(ix: _UnitIndexer) -> dict[str, Key]:
    """Name -> symbol key for what a unit declares (the first declaration wins)."""
    keys: dict[str, Key] = {}
    for _, _, p in ix.items:
        if not p.definition or (p.tok.text in keys and p.role is not Role.LABEL):
            continue
        if p.role is Role.LABEL:
            keys.setdefault("label:" + p.tok.text, ("label", ix.unit, p.tok.text))
        elif p.role is Role.PROCEDURE:
            continue
        elif p.role is Role.UNIFORM and not ix.private_uniforms:
            keys[p.tok.text] = ("uniform", p.tok.text)
        else:
            keys[p.tok.text] = ("name", ix.unit, p.tok.text)
    return keys


def _resolve(ix: _UnitIndexer, keys: dict[str, Key], roles: dict[Key, Role],
             procedures: set[str]) -> Iterator[Occurrence]:
    for line, offset, p in ix.items:
        name = p.tok.text
        role, key = p.role, None
        if role is Role.PROCEDURE:
            key = ("proc", name) if p.definition or name in procedures else None
        elif role is Role.LABEL:
            key = keys.get("label:" + name)
        elif role is Role.UNRESOLVED or p.definition:
            key = keys.get(name)
            if role is Role.UNRESOLVED and key is not None:
                role = roles[key]
        if role in SYMBOL_ROLES and key is None:
            role = Role.UNRESOLVED
        yield Occurrence(ix.path, line, p.tok.col + offset, len(name), name, role, ix.unit,
                         p.definition, key, p.detail)


def build_index(sources: Sequence[tuple[str, str]],
                previous: ProgramIndex | None = None) -> ProgramIndex:
    """Index a program: ``sources`` are its ``(path, text)`` pairs in assembly order;
    the lines it shares with the index ``previous`` are not lexed again."""
    units: list[_UnitIndexer] = []
    comments: list[Comment] = []
    known = previous.lines if previous is not None else {}
    lines: dict[str, tuple | None] = {}
    for path, text in sources:
        file_units, file_comments = _index_file(path, text, len(units), known, lines)
        units.extend(file_units)
        comments.extend(file_comments)
    procedures = {p.tok.text for u in units for _, _, p in u.items
                  if p.role is Role.PROCEDURE and p.definition}
    occurrences: list[Occurrence] = []
    for ix in units:
        keys = _unit_keys(ix)
        roles = {}
        for _, _, p in ix.items:
            if p.definition and p.role not in (Role.LABEL, Role.PROCEDURE):
                roles.setdefault(keys[p.tok.text], p.role)
        occurrences.extend(_resolve(ix, keys, roles, procedures))
    return ProgramIndex(tuple(occurrences), tuple(comments), tuple(u.path for u in units),
                        lines)

