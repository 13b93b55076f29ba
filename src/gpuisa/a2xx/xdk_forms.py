"""The forms of Microsoft's microcode assembler that the XDK compiler's listings do not
print, brought to the compiler's spelling before :mod:`.xdk_asm` reads them
(a2xx-formats.md#xdk-hand-forms).

People write ``xps_3_0`` / ``xvs_3_0`` text by hand (Xenia's shader playground, inline
``asm {}`` blocks), and Microsoft's assembler takes more than its compiler prints: any
spacing (``(!p0)        exec``, ``c[0 + aL]``), ``r[aL+3]`` and ``c[aL]`` for the
compiler's ``r[3+aL]`` and ``c[0+aL]``, positional write masks shorter than four
(``oC0.x1_``), named labels (``label l5`` / ``jmp l5``), ``nop`` where only a CF clause
can be, and an ``exec`` of more instructions than one clause holds.  :func:`spell` fixes
one line's spelling, :func:`clauses` the CF structure: labels become the clause numbers
the compiler prints and long execs become consecutive clauses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import Diagnostic, SourceError, SourceLocation
from . import isa

#: A CF clause's line (the compiler's CF mnemonics, Xenia's ``cnop``).
CF_LINE = re.compile(
    r"^(?:\(!?p0\)\s*)?(?:c?exece?|alloc|loop|endloop|c?jmp|c?call|ret|cnop)\b"
)
#: Instructions one exec clause runs: its sequence field has two bits per instruction.
CLAUSE_SIZE = isa.EXEC_SEQUENCE_SLOTS
_BRACKET = re.compile(r"\b([rc])\[([^\]]*)\]")
_INDEX = re.compile(r"(?:(\d+)(?:\+(a0|aL))?|(a0|aL)(?:\+(\d+))?)")
_PREDICATE = re.compile(r"^\(\s*(!?)\s*p0\s*\)\s*")
# An ALU destination's positional mask shorter than four, with a constant or an unwritten
# lane in it (oC0.x1_): the lanes it leaves out are not written.
_SHORT_MASK = re.compile(r"^((?:\(!?p0\) )?\w+ [\w\[\]+]+)\.([xyzw01_]{1,3})(?=,|$)")
_TARGET = re.compile(r"^(.*\b(?:c?jmp|c?call|loop|endloop)\b.*?)\b([A-Za-z_]\w*)"
                     r"((?:, Repeat=true)?)$")
_EXEC = re.compile(r"^(?:\(!?p0\) )?c?exece?\b")
_FETCH_NAMES = {info.xna for info in isa.FETCH_OPS.values() if info.xna}
# A constant operand's index is the whole register byte of an ALU source.
_HIGHEST = {"r": isa.REG_INDEX_MASK, "c": isa.ALU_LAYOUT["src1_reg"].max}
# Digits read of an offset: more cannot be a register (and int() refuses thousands).
_OFFSET_DIGITS = 9
# The mnemonics of the operations that write p0, as the compiler prints them.
_PREDICATE_WRITERS = frozenset(
    [isa.SCALAR_OPS[op].xna for op, effect in isa.SCALAR_EFFECTS.items()
     if effect is isa.AluEffect.PREDICATE]
    + [isa.VECTOR_OPS[op].xna for op, effect in isa.VECTOR_EFFECTS.items()
       if effect is isa.AluEffect.PREDICATE])
# Operands of CF clauses: a label so named would be read as the bool or loop constant.
_CF_OPERAND = re.compile(r"[bi]\d+")

Line = tuple[str, int]  # text, line number in the listing


@dataclass(frozen=True, slots=True)
class Clause:
    """One CF clause of the listing: its text (the compiler's spelling, a jump's target a
    clause number), its line, and the instruction lines an exec runs."""

    text: str
    line: int
    body: tuple[Line, ...] = ()


@dataclass(frozen=True, slots=True)
class Listing:
    """The listing being read: its file name and lines, for an error's place."""

    filename: str
    lines: tuple[str, ...]

    def diagnostic(self, severity: str, message: str, number: int, column: int = 0,
                   length: int = 0) -> Diagnostic:
        """A diagnostic about line ``number``, at ``column`` (from 1; 0: the line's first
        character), ``length`` characters long (0: the rest of the line)."""
        source = self.lines[number - 1]
        indent = len(source) - len(source.lstrip())
        column = column or indent + 1
        length = length or max(1, len(source.rstrip()) - column + 1)
        loc = SourceLocation(self.filename, number, column)
        return Diagnostic(severity, message, loc, source, length)

    def error(self, message: str, number: int, column: int = 0, length: int = 0
              ) -> SourceError:
        """An error about line ``number`` (:meth:`diagnostic`'s place)."""
        return SourceError([self.diagnostic("error", message, number, column, length)])

    def find(self, number: int, pattern: str) -> tuple[int, int]:
        """Column (from 1) and length of ``pattern`` in line ``number``; (0, 0) if absent."""
        m = re.search(pattern, self.lines[number - 1])
        return (m.start() + 1, m.end() - m.start()) if m else (0, 0)


def spell(line: str, number: int, listing: Listing) -> str:
    """``line`` (comments removed, stripped) in the compiler's spelling: single spaces,
    ``(!p0) ``, ``, `` between operands, ``r[3+aL]``, ``c[0+a0]``, a short positional mask
    filled with ``_``; ``number`` is its line in ``listing``."""
    text = re.sub(r"\s+", " ", line)
    text = _PREDICATE.sub(lambda m: f"({m[1]}p0) ", text)
    text = re.sub(r" ?, ?", ", ", text)
    text = _BRACKET.sub(lambda m: _relative(m, number, listing), text)
    if not CF_LINE.match(text) and not is_fetch(text):
        text = _SHORT_MASK.sub(
            lambda m: m[1] + "." + m[2].ljust(4, "_") if set(m[2]) & set("01_") else m[0],
            text)
    return text


def is_fetch(line: str) -> bool:
    """Is ``line`` (single-spaced) a fetch instruction (``tfetch2D``, ``vfetch``,
    ``setTexLOD``, ...)?  Its operands are registers and selectors, not ALU masks and
    swizzles."""
    name = re.sub(r"^\(!?p0\) ", "", line).split(" ", 1)[0]
    return re.sub(r"(1D|2D|3D|Cube)$", "", name.split("_", 1)[0]) in _FETCH_NAMES


def _relative(m: re.Match[str], number: int, listing: Listing) -> str:
    """``r[aL+3]`` / ``c[ 8 + a0 ]`` / ``c[aL]`` as ``r[3+aL]`` / ``c[8+a0]`` / ``c[0+aL]``."""
    bank, inside = m[1], m[2].replace(" ", "")
    index = _INDEX.fullmatch(inside)
    written = listing.find(number, rf"{bank}\[\s*{re.escape(m[2].strip())}\s*\]")
    if index is None or not (index[2] or index[3]):
        spelled = f"{bank}[N+aL]" + (" or c[N+a0]" if bank == "c" else "")
        raise listing.error(f"'{bank}[{m[2]}]' is not a relative register: write {spelled}",
                            number, *written)
    digits = (index[1] or index[4] or "0").lstrip("0") or "0"
    if len(digits) > _OFFSET_DIGITS:
        raise listing.error(f"'{bank}[...]': the offset of {len(digits)} digits is past "
                            f"{bank}{_HIGHEST[bank]}", number, *written)
    offset = int(digits)
    register = index[2] or index[3]
    if bank == "r" and register == "a0":
        raise listing.error(f"'r[{m[2]}]': a temporary register is relative to aL, not a0",
                            number, *written)
    if offset > _HIGHEST[bank]:
        raise listing.error(
            f"'{bank}[{m[2]}]': the offset {offset} is past {bank}{_HIGHEST[bank]}",
            number, *written)
    return f"{bank}[{offset}+{register}]"


def clauses(entries: list[tuple[Line, list[Line]]], listing: Listing) -> list[Clause]:
    """The CF clauses of the listing's entries (a CF or ``label`` line, and the lines that
    follow it up to the next one): ``nop`` where no exec runs instructions is a CF NOP,
    an exec of more than :data:`CLAUSE_SIZE` instructions is split into consecutive
    clauses (a2xx-formats.md#xdk-exec-split), and each jump, call and loop names the
    number of the clause after its label."""
    result: list[Clause] = []
    labels: dict[str, int] = {}
    label_lines: dict[str, int] = {}
    for (text, number), body in entries:
        if text.startswith("label"):
            name = _label_name(text, number, labels, listing)
            labels[name], label_lines[name] = len(result), number
        elif _EXEC.match(text):
            result += _split(text, number, body, listing)
            continue
        else:
            result.append(Clause(text, number))
        for line, at in body:
            if line != "nop":
                where = "a label" if text.startswith("label") else repr(text)
                raise listing.error(f"an instruction outside an exec: it follows {where}", at)
            result.append(Clause("cnop", at))  # a CF NOP (a2xx-formats.md#xdk-hand-forms)
    for name, clause in labels.items():
        if clause >= len(result):
            raise listing.error(f"label {name!r} has no CF clause after it to jump to",
                                label_lines[name])
    return [_resolve(c, labels, listing) for c in result]


def _label_name(text: str, number: int, labels: dict[str, int], listing: Listing) -> str:
    """The name a ``label`` line defines, refused if it is not a new word that a jump can
    name."""
    name = text[5:].strip()
    if not re.fullmatch(r"[A-Za-z_]\w*", name):
        raise listing.error(f"a label's name is a word, not {name!r}", number)
    if _CF_OPERAND.fullmatch(name):
        raise listing.error(f"label {name!r}: a jump to it would read the constant {name}: "
                            "rename the label", number, *listing.find(number, name))
    if name in labels:
        raise listing.error(f"label {name!r} is defined twice", number)
    return name


def _split(text: str, number: int, body: list[Line], listing: Listing) -> list[Clause]:
    """An exec and its instructions as clauses of at most :data:`CLAUSE_SIZE`
    instructions each: a co-issued ``+`` line stays with its vector line and
    ``serialize`` with the instruction after it; every part keeps the condition, only the
    last keeps ``exece``'s end and ``Yield=true`` (a2xx-formats.md#xdk-exec-split)."""
    for index, (line, at) in enumerate(body):
        after = body[index + 1][0] if index + 1 < len(body) else ""
        if line == "serialize" and (not after or after[0] == "+" or after == "serialize"):
            raise listing.error("'serialize' needs an instruction after it in its exec", at)
    parts: list[list[Line]] = [[]]
    count = 0
    for line in body:
        after_serialize = bool(parts[-1]) and parts[-1][-1][0] == "serialize"
        starts = not line[0].startswith("+") and not after_serialize
        if starts and count == CLAUSE_SIZE:
            parts.append([])
            count = 0
        parts[-1].append(line)
        count += starts
    if _PREDICATE.match(text):
        _refuse_predicate_writes(parts[:-1], text, listing)
    head = re.sub(r",? ?Yield=true", "", text)
    head = re.sub(r"\b(c?exec)e\b", r"\1", head)
    return [Clause(text if i == len(parts) - 1 else head, number, tuple(part))
            for i, part in enumerate(parts)]


def _refuse_predicate_writes(before: list[list[Line]], text: str, listing: Listing
                             ) -> None:
    """Refuses a write of p0 in a part of the predicated exec ``text`` that other parts
    follow: each part tests p0 again, so the write would decide whether they run."""
    for line, at in (line for part in before for line in part):
        name = re.sub(r"^(?:\+ ?)?(?:\(!?p0\) )?", "", line).split(" ", 1)[0]
        if name.split("_sat")[0] in _PREDICATE_WRITERS:
            raise listing.error(
                f"'{name}' writes p0 inside '{text}', which is longer than one clause "
                f"({CLAUSE_SIZE} instructions): each clause it is split into would test p0 "
                "again, so split the exec by hand", at)


def _resolve(clause: Clause, labels: dict[str, int], listing: Listing) -> Clause:
    """A jump, call or loop clause with its label replaced by the label's clause number
    (``L<n>``, as the compiler prints it)."""
    m = _TARGET.match(clause.text)
    if m is None or re.fullmatch(r"[bi]\d+", m[2]):
        return clause  # no target: the clause's reader says what is missing
    name = m[2]
    if name not in labels:
        known = ", ".join(labels) or "none"
        where = listing.find(clause.line, rf"\b{re.escape(name)}\b(?!.*\b{re.escape(name)}\b)")
        raise listing.error(f"no label {name!r} in the listing (its labels: {known})",
                            clause.line, *where)
    return Clause(f"{m[1]}L{labels[name]}{m[3]}", clause.line, clause.body)
