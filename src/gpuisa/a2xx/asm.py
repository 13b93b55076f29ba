"""A2XX assembler for Mesa disassembly text and the freedreno wiki syntax (a2xx-isa.md#assembler).

``assemble(text)`` accepts what :func:`gpuisa.a2xx.disassemble` prints (at any
indentation level, plain or raw) and the historical fdre/wiki spelling.  The spelling of
every clause and instruction is read from the forms of :mod:`.syntax`, which also drive
the printer; this module adds the line structure:

* CF lines, each followed by the instructions of an EXEC: ``[(S)]ALU:`` (a vector line,
  optionally followed by its scalar line or with the scalar part on the same line, as
  fdre wrote it) and ``[(S)]FETCH:``.  EXEC-family lines may omit ``ADDR``/``CNT``;
  omitted addresses continue after the last slot used, given ones are honoured (so any
  disassembled program reassembles to the same slots), a given ``CNT`` that disagrees
  with the instructions that follow is a warning and is recomputed.
* Raw mode: the hex columns are the starting point of each clause/slot and the text's
  fields are written over them, so bits the text cannot show (relative addressing, unused
  fields) are kept and a raw listing reassembles bit for bit.
* Without raw columns, instructions start from a toolchain's defaults (``toolchain``,
  :mod:`.toolchains`; by default the Adreno GLES driver's: :data:`isa.ALU_DEFAULTS`,
  :data:`isa.VERTEX_FETCH_DEFAULTS` for a program's first vertex fetch and
  :data:`isa.VERTEX_MINI_FETCH_DEFAULTS` for the others, :data:`isa.TEXTURE_FETCH_DEFAULTS`),
  and a one-source vector operation's src2 repeats src1 (the XDK's: r0), so Mesa's text of a shader
  reassembles to the words its compiler wrote.
* ``; xdk:`` comment lines (``a2xx disasm`` writes them for an XDK container) then set
  what neither the text nor the toolchain's rules give: the slot after the last
  instruction (or its absence) and named fields of a slot (:func:`toolchain_notes`).
* ``;`` starts a comment; lines starting with ``@`` (fdre headers) are ignored.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import IntEnum

from ..bits import Layout
from ..errors import Diagnostic, InputError, SourceError, SourceLocation
from . import isa
from .encoding import slot_from_dwords, slot_to_dwords
from .isa import CfKind, CfOpcode, FetchKind
from .syntax import (
    CF_FORMS,
    FETCH_FORMS,
    FETCH_MNEMONIC,
    SCALAR_FORM,
    SCALAR_MNEMONIC,
    SOURCE_FIELDS,
    VECTOR_FORM,
    Cursor,
    Fields,
    LineError,
    Tok,
    parse,
    source,
    token_error,
    tokenize,
    vector_srcs,
)
from .toolchains import TOOLCHAINS, Toolchain, names_centroid, writes_export_constants

_CF_NAMES = {op.name: op for op in CfOpcode}
_SCALAR_NAMES = {*SCALAR_MNEMONIC.names.values(), *SCALAR_MNEMONIC.aliases}

_RAW_CF = re.compile(r"\s*([0-9a-fA-F]{4}) ([0-9a-fA-F]{4}) ([0-9a-fA-F]{4})(?=\s)")
_RAW_SLOT = re.compile(
    r"\s*([0-9a-fA-F]+): ([0-9a-fA-F]{8}) ([0-9a-fA-F]{8}) ([0-9a-fA-F]{8})(?=\s)"
)
_MAX_EXEC_COUNT = (1 << isa.CF_LAYOUTS[CfKind.EXEC]["count"].width) - 1
_SEQUENCE_SLOTS = isa.EXEC_SEQUENCE_SLOTS


# --------------------------------------------------------------------------------------
# Parsed program
# --------------------------------------------------------------------------------------


@dataclass(eq=False)
class _Where:
    line: int
    text: str
    tok: Tok


@dataclass(eq=False)
class _Slot:
    """One ALU or FETCH instruction as parsed."""

    where: _Where
    kind: str  # "alu", "vertex", "texture"
    serialize: bool
    fields: Fields
    base: int  # the raw columns, else the defaults the fields started from
    raw: bool  # the line had raw columns
    raw_index: tuple[int, Tok] | None = None
    has_scalar: bool = False

    @property
    def is_fetch(self) -> bool:
        return self.kind != "alu"


@dataclass(eq=False)
class _Cf:
    where: _Where
    opcode: CfOpcode
    fields: Fields
    base: int
    instrs: list[_Slot] = field(default_factory=list)

    def given(self, name: str) -> tuple[int, Tok] | None:
        tok = self.fields.given.get(name)
        return None if tok is None else (self.fields[name], tok)


# --------------------------------------------------------------------------------------
# Line parsers
# --------------------------------------------------------------------------------------


def _parse_cf(cur: Cursor, opcode: CfOpcode, base: int | None, where: _Where) -> _Cf:
    fields = Fields(isa.CF_LAYOUTS[isa.CF_OPS[opcode].kind], base or 0)
    parse(CF_FORMS[opcode], cur, fields)
    cur.done()
    return _Cf(where, opcode, fields, base or 0)


def _parse_alu(
    cur: Cursor, base: int | None, where: _Where, serialize: bool, tc: Toolchain
) -> _Slot:
    start = isa.ALU_LAYOUT.pack(tc.alu) if base is None else base
    slot = _Slot(where, "alu", serialize, Fields(isa.ALU_LAYOUT, start), start, base is not None)
    v = slot.fields
    parse(VECTOR_FORM, cur, v)
    if base is None and vector_srcs(v["vector_opc"]) == 1:
        if tc.unused_src2 is not None:
            v.update(tc.unused_src2)
        elif isa.ALU_SRC2_REPEATS_SRC1:
            for name in SOURCE_FIELDS:
                v[f"src2_{name}"] = v[f"src1_{name}"]
    nxt = cur.peek()
    if nxt is not None and (nxt.text == "OP" or nxt.text in _SCALAR_NAMES):
        _parse_scalar(cur, slot)  # fdre: the scalar part may share the line
    cur.done()
    return slot


def _parse_scalar(cur: Cursor, slot: _Slot) -> None:
    v = slot.fields
    vector_src3 = source(v, 3)
    parse(SCALAR_FORM, cur, v)
    if vector_srcs(v["vector_opc"]) == 3 and source(v, 3) != vector_src3:
        src = v.given["src3_reg"]
        raise token_error(src, "the scalar operand must be the vector operation's first operand")
    slot.has_scalar = True
    cur.done()


def _parse_fetch(
    cur: Cursor, base: int | None, where: _Where, serialize: bool, tc: Toolchain
) -> _Slot:
    # The opcode decides the layout: read it first (both layouts put it at bits 0-4).
    start = cur.i
    head = Fields(isa.FETCH_LAYOUTS[FetchKind.VERTEX], base or 0)
    FETCH_MNEMONIC.parse(cur, head)
    opcode = head["opcode"]
    if opcode in isa.FETCH_UNUSED:
        raise token_error(cur.tokens[start], f"fetch opcode {opcode} is not defined")
    kind = isa.FETCH_OPS[isa.FetchOpcode(opcode)].kind
    layout = isa.FETCH_LAYOUTS[kind]
    if base is None:
        defaults = tc.vertex_fetch if kind is FetchKind.VERTEX else tc.texture_fetch
        base_word = layout.pack(defaults)
    else:
        base_word = base
    fields = Fields(layout, base_word)
    slot = _Slot(where, kind.value, serialize, fields, base_word, base is not None)
    slot.fields["opcode"] = opcode
    cur.i = start
    parse(FETCH_FORMS[kind], cur, slot.fields)
    cur.done()
    return slot


# --------------------------------------------------------------------------------------
# Assembly
# --------------------------------------------------------------------------------------


class _Assembler:
    def __init__(self, text: str, filename: str, tc: Toolchain):
        self.filename = filename
        self.tc = tc
        self.lines = text.split("\n")
        self.errors: list[Diagnostic] = []
        self.warnings: list[Diagnostic] = []
        self.cf: list[_Cf] = []
        self.guesses: dict[str, int] = {}
        self.kinds: dict[int, str] = {}  # slot index -> "alu", "vertex" or "texture"

    def diag(self, severity: str, where: _Where, message: str, col: int, length: int) -> None:
        loc = SourceLocation(self.filename, where.line, col)
        d = Diagnostic(severity, message, loc, where.text, length)
        (self.errors if severity == "error" else self.warnings).append(d)

    def error_at(self, where: _Where, tok: Tok, message: str) -> None:
        self.diag("error", where, message, tok.col, len(tok.text))

    def parse(self) -> None:
        for number, raw_line in enumerate(self.lines, start=1):
            line = raw_line.rstrip("\r")
            code = line.split(";", 1)[0]
            if not code.strip() or code.strip().startswith("@"):
                continue
            try:
                self.parse_line(number, line, code)
            except LineError as exc:
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
        tokens = tokenize(code, pos)
        cur = Cursor(tokens, len(code) + 1)
        first = cur.peek()
        if first is None:
            raise LineError("raw columns without a clause or instruction", len(code) + 1)
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
                raise token_error(first, "CF raw columns on an instruction line")
            if head.text == "ALU":
                slot = _parse_alu(cur, slot_base, where, serialize, self.tc)
            else:
                slot = _parse_fetch(cur, slot_base, where, serialize, self.tc)
            if raw_index is not None:
                slot.raw_index = (raw_index, first)
            self.add_instruction(slot, where)
            return
        if serialize:
            raise token_error(first, "'(S)' must be followed by ALU: or FETCH:")
        if slot_base is not None:
            raise token_error(first, "instruction raw columns on a line without ALU: or FETCH:")
        name = cur.word("a CF clause, ALU:, FETCH: or a scalar operation")
        if name.text in _CF_NAMES:
            cur.i -= 1
            self.cf.append(_parse_cf(cur, _CF_NAMES[name.text], cf_base, where))
            return
        if cf_base is not None:
            raise token_error(name, f"unknown CF clause '{name.text}'")
        if name.text == "OP" or name.text in _SCALAR_NAMES:
            slot = self.last_alu()
            if slot is None:
                raise token_error(
                    name, "a scalar operation must follow the ALU: line it pairs with"
                )
            cur.i -= 1
            _parse_scalar(cur, slot)
            return
        raise token_error(name, f"unknown instruction '{name.text}'")

    def last_alu(self) -> _Slot | None:
        if not self.cf or not self.cf[-1].instrs:
            return None
        slot = self.cf[-1].instrs[-1]
        return slot if slot.kind == "alu" and not slot.has_scalar else None

    def add_instruction(self, slot: _Slot, where: _Where) -> None:
        if not self.cf or not isa.CF_OPS[self.cf[-1].opcode].is_exec:
            raise token_error(where.tok, "instruction outside an EXEC block")
        exec_cf = self.cf[-1]
        if len(exec_cf.instrs) >= _MAX_EXEC_COUNT:
            raise token_error(where.tok, f"an EXEC runs at most {_MAX_EXEC_COUNT} instructions")
        if len(exec_cf.instrs) >= _SEQUENCE_SLOTS and (slot.is_fetch or slot.serialize):
            raise token_error(
                where.tok,
                f"instruction {len(exec_cf.instrs) + 1} of an EXEC must be a plain ALU: the "
                f"sequence field only describes {_SEQUENCE_SLOTS} instructions",
            )
        exec_cf.instrs.append(slot)

    # ----------------------------------------------------------------------------------

    def note_high_constants(self, v: Fields) -> None:
        """Mesa's ``|Cn|`` names two constants (bit 6 of the index is not printed):
        say which one the toolchain's rule took."""
        for i in _constant_operands(v):
            reg = v[f"src{i}_reg"]
            if reg & isa.REG_ABS_BIT and f"src{i}_reg" in v.given:
                low = reg & isa.REG_INDEX_MASK
                bank = "R" if v[f"src{i}_sel"] else "C"  # addsc's constant prints as R
                what = (
                    f"|{bank}{low}| is c{reg} (c{reg ^ isa.REG_REL_BIT} reads the same), "
                    f"the {self.tc.name} toolchain's rule"
                )
                self.guesses[what] = self.guesses.get(what, 0) + 1
            elif self.tc.high_constants and f"src{i}_reg" in v.given:
                # The XDK's programs use c64-c191 too (Scaleform's c[96+a0] prints C32).
                what = (f"Cn is cn, not c(n+64) (Mesa's text shows six bits of a constant's "
                        f"index), the {self.tc.name} toolchain's rule")
                self.guesses[what] = self.guesses.get(what, 0) + 1

    def note_guesses(self, slot: _Slot) -> None:
        """The bits of ``slot`` the toolchain's rules had to guess."""
        if slot.kind == "alu" and not slot.raw:
            self.note_high_constants(slot.fields)
        dimension = self.tc.texture_fetch.get("dimension")
        # Mesa's text does not show a texture fetch's dimension (Xenia's d2 bits 14-15);
        # only a toolchain whose fetches have the bits sets them.
        if slot.kind == "texture" and not slot.raw and dimension is not None:
            what = (f"a texture fetch's dimension is {isa.FetchDimension(dimension).name}, "
                    f"the {self.tc.name} toolchain's rule")
            self.guesses[what] = self.guesses.get(what, 0) + 1

    def _check_count(self, cf: _Cf, count: int) -> None:
        """Warns when an EXEC's CNT differs from the instructions that follow it."""
        cnt = cf.given("count")
        if cnt is not None and cnt[0] != count:
            self.diag(
                "warning",
                cf.where,
                f"CNT(0x{cnt[0]:x}) but {count} instruction(s) follow; using {count}",
                cnt[1].col,
                len(cnt[1].text),
            )

    def _place(self, cf: _Cf, address: int) -> list[tuple[int, _Slot]]:
        """An EXEC's instructions at their slots from ``address``; a raw slot index that
        disagrees is an error."""
        placed = []
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
        return placed

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
            self._check_count(cf, count)
            address = next_free
            addr = cf.given("address")
            if addr is not None:
                address, tok = addr
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
            cf.fields["address"] = address
            cf.fields["count"] = count
            placed += self._place(cf, address)
            if count:  # a CNT(0) clause runs no slot, whatever its address
                next_free = max(next_free, address + count)
        if self.errors:
            return []

        vertex_slots = [index for index, slot in placed if slot.kind == "vertex"]
        first_vertex = min(vertex_slots, default=None)
        if self.tc.full_fetch_in_first_slot_only and first_vertex != cf_slots:
            first_vertex = None  # every vertex fetch is a mini fetch
        slots: dict[int, tuple[int, _Slot]] = {}
        self.kinds = {index: slot.kind for index, slot in placed}
        for index, slot in placed:
            word = _encode_slot(slot, self.tc, first=index == first_vertex)
            self.note_guesses(slot)
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
            a = _encode_cf(clauses[i], self.tc)
            b = _encode_cf(clauses[i + 1], self.tc) if i + 1 < len(clauses) else 0
            words.extend(slot_to_dwords(isa.CF_SLOT.pack({"clause0": a, "clause1": b})))
        # Slots no EXEC runs (gaps between given addresses) are zero.
        for index in range(cf_slots, next_free):
            words.extend(slot_to_dwords(slots[index][0] if index in slots else 0))
        if self.tc.trailing_zero_slot:
            words.extend(slot_to_dwords(0))
            what = (f"the slot after the last instruction is zero (a debug build keeps its "
                    f"PDB hint there), the {self.tc.name} toolchain's rule")
            self.guesses[what] = 1
        return words


def _encode_cf(cf: _Cf, tc: Toolchain) -> int:
    v = cf.fields
    if isa.CF_OPS[cf.opcode].is_exec and tc.vertex_cache_bits:
        # Not in Mesa's text: a toolchain's rule (toolchains.py).
        v["vc"] = sum(1 << i for i, slot in enumerate(cf.instrs) if slot.kind == "vertex")
    if isa.CF_OPS[cf.opcode].is_exec:
        # Sequence bits come from the instruction lines; those of absent instructions keep
        # their raw value.
        sequence = v["serialize"]
        for i, slot in enumerate(cf.instrs[:_SEQUENCE_SLOTS]):
            bits = (isa.SEQUENCE_FETCH if slot.is_fetch else 0) | (
                isa.SEQUENCE_SERIALIZE if slot.serialize else 0
            )
            shift = isa.SEQUENCE_BITS_PER_INSTR * i
            sequence = (sequence & ~(0x3 << shift)) | bits << shift
        v["serialize"] = sequence
    return v.word(cf.base)


def _encode_slot(slot: _Slot, tc: Toolchain, *, first: bool) -> int:
    """The slot's 96-bit word; ``first``: it is the program's first vertex fetch."""
    v = slot.fields
    if slot.kind == "alu" and not slot.has_scalar:
        v["scalar_write_mask"] = 0  # Mesa prints the scalar line whenever it is set
    if slot.kind == "alu" and not slot.raw:
        _toolchain_alu_bits(v, tc)
    if slot.kind == "vertex" and not slot.raw:
        defaults = tc.vertex_fetch if first else tc.vertex_mini_fetch
        v.update({name: defaults[name] for name in tc.full_or_mini})
    return v.word(slot.base)


def _toolchain_alu_bits(v: Fields, tc: Toolchain) -> None:
    """The ALU bits Mesa's text does not show that a toolchain sets (toolchains.py)."""
    if tc.export_address_relative and v["export_data"] and v["vector_dest"] == isa.EXPORT_ADDRESS:
        v["relative_addr"] = 1
    if tc.high_constants:
        for i in _constant_operands(v):
            reg = v[f"src{i}_reg"]
            if reg & isa.REG_ABS_BIT:
                v[f"src{i}_reg"] = reg | isa.REG_REL_BIT
    if tc.export_constant_bit and writes_export_constants(v):
        v["scalar_dest_rel"] = 1


def _constant_operands(v: Fields) -> list[int]:
    """The sources whose register byte is a constant's index: those of bank C, and src3
    of an ``addsc``/``mulsc``/``subsc`` (its constant, whatever the bank bit says)."""
    found = [i for i in (1, 2, 3) if not v[f"src{i}_sel"]]
    info = isa.SCALAR_OPS.get(v["scalar_opc"])  # type: ignore[call-overload]
    if info is not None and info.operands is isa.ScalarOperands.CONST_REG and 3 not in found:
        found.append(3)
    return found


@dataclass(frozen=True, slots=True)
class AssemblyResult:
    """Assembled dwords (CF program, then ALU/FETCH slots) and the warnings given."""

    words: tuple[int, ...]
    warnings: tuple[Diagnostic, ...]
    # Bits the text could not tell, filled by the toolchain's rule (one line each).
    guesses: tuple[str, ...] = ()


#: The comment ``a2xx disasm`` writes above the text of an XDK container: whose compiler
#: made the words (its fills are the ones to take back).
TOOLCHAIN_LINE = re.compile(r"^[ \t]*;[ \t]*toolchain:[ \t]*(\S*)[ \t]*$", re.MULTILINE)


def toolchain_of(text: str, filename: str = "<input>") -> str | None:
    """The toolchain a ``; toolchain: NAME`` line of ``text`` names, or None."""
    found = TOOLCHAIN_LINE.search(text)
    if found is None:
        return None
    if found[1] not in TOOLCHAINS:
        line = text.count("\n", 0, found.start()) + 1
        raise InputError(f"{filename}:{line}: unknown toolchain {found[1]!r} in the "
                         f"'; toolchain:' line (choose from {', '.join(TOOLCHAINS)})")
    return found[1]


def assemble_with_warnings(
    text: str, *, filename: str = "<input>", toolchain: str | None = None
) -> AssemblyResult:
    """Assemble A2XX text, also returning warnings (a ``CNT`` that disagrees with the
    instructions that follow it).  ``toolchain`` ("adreno", "adreno-kernel", "xdk",
    "mesa" or "fdre") fills the bits the text does not show as that compiler does
    (:mod:`.toolchains`); by default
    the one a ``; toolchain: NAME`` line of the text names (``a2xx disasm`` writes one
    for an XDK container), else "adreno".  ``; xdk:`` lines (:func:`toolchain_notes`)
    then set what neither the text nor the toolchain's rules give; a text with them
    reports no guesses.

    Errors raise :class:`~gpuisa.errors.SourceError` listing every diagnostic, warnings
    included, in line order (``file:line:col`` with the source line and a caret).
    """
    if not isinstance(text, str):
        raise InputError(f"assemble() takes source text (str), not {type(text).__name__}")
    if toolchain is None:
        toolchain = toolchain_of(text, filename) or "adreno"
    if toolchain not in TOOLCHAINS:
        raise InputError(
            f"unknown toolchain {toolchain!r} (choose from {', '.join(TOOLCHAINS)})"
        )
    asm, words = _run(text, filename, TOOLCHAINS[toolchain])
    noted = _apply_notes(text, filename, words, asm)
    guesses = () if noted else tuple(
        what + (f" ({n} times)" if n > 1 else "") for what, n in asm.guesses.items()
    )
    return AssemblyResult(tuple(words), tuple(asm.warnings), guesses)


def _run(text: str, filename: str, tc: Toolchain) -> tuple[_Assembler, list[int]]:
    """The assembler after layout, and the words (errors raise SourceError)."""
    asm = _Assembler(text, filename, tc)
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
    return asm, words


def assemble(text: str, *, filename: str = "<input>", toolchain: str | None = None
             ) -> list[int]:
    """Assemble A2XX text into dwords; see :func:`assemble_with_warnings`."""
    return list(assemble_with_warnings(text, filename=filename, toolchain=toolchain).words)


# --------------------------------------------------------------------------------------
# Notes: what neither Mesa's text nor a toolchain's rule gives (a2xx-formats.md#xdk-notes)
# --------------------------------------------------------------------------------------

#: ``; xdk: pdb-hint W0 W1 W2`` (the words of the slot after the last instruction),
#: ``; xdk: no-trailing-slot`` (no slot after it: the 2005 compiler's containers),
#: ``; xdk: centroid rN`` (a pixel shader's first centroid interpolator:
#: :func:`.toolchains.names_centroid`) or ``; xdk: slot N name=value ...`` (fields of
#: slot N, named as in :mod:`.isa`'s layouts), applied in that order.
NOTE_LINE = re.compile(r"^[ \t]*;[ \t]*xdk:(.*)$", re.MULTILINE)
_NOTE_FIELD = re.compile(r"([a-z0-9_]+)=(\w+)$")
_NOTE_FORMS = ("'pdb-hint W0 W1 W2', 'no-trailing-slot', 'centroid rN' or "
               "'slot N name=value ...'")


def _slot_layout(kind: str) -> Layout:
    return isa.ALU_LAYOUT if kind == "alu" else isa.FETCH_LAYOUTS[FetchKind(kind)]


def _number(text: str, what: str, limit: int) -> int:
    if not re.fullmatch(r"0x[0-9a-fA-F]+|[0-9]+", text) or int(text, 0) > limit:
        raise ValueError(f"{what} {text!r} is not a number from 0 to {limit:#x}")
    return int(text, 0)


def _note_value(enum: type[IntEnum] | None, value: int) -> str:
    """A field's value as a note writes it: its enumeration's name, else a number."""
    if enum is not None and value in enum._value2member_map_:
        return enum(value).name
    return f"{value:#x}" if value > 9 else str(value)


#: The notes a text gives at most once, each with the one it cannot be given with: each
#: rewrites the slot after the last instruction, so a second would act on an instruction.
_ONCE_NOTES = {"pdb-hint": "no-trailing-slot", "no-trailing-slot": "pdb-hint",
               "centroid": None}


def _apply_notes(text: str, filename: str, words: list[int], asm: _Assembler) -> bool:
    """Writes the ``; xdk:`` lines of ``text`` over ``words``; whether there were any."""
    seen: dict[str, int] = {}  # a note of _ONCE_NOTES -> its line
    notes = sorted(NOTE_LINE.finditer(text), key=lambda m: m[1].split()[:1] == ["slot"])
    for match in notes:
        line = text.count("\n", 0, match.start()) + 1
        try:
            _check_once(match[1].split()[:1], line, seen)
            _apply_note(match[1].split(), words, asm)
        except ValueError as exc:
            raise InputError(f"{filename}:{line}: '; xdk:' line: {exc}") from None
    return bool(notes)


def _check_once(name: list[str], line: int, seen: dict[str, int]) -> None:
    """Refuses a second note ``name`` of :data:`_ONCE_NOTES`, or one with its opposite."""
    if not name or name[0] not in _ONCE_NOTES:
        return
    other = _ONCE_NOTES[name[0]]
    if name[0] in seen:
        raise ValueError(f"a second '{name[0]}' (the first is at line {seen[name[0]]}): "
                         "give it once")
    if other in seen:
        raise ValueError(f"'{name[0]}' and '{other}' (line {seen[other]}) contradict each "
                         "other: keep one")
    seen[name[0]] = line


def _apply_note(parts: list[str], words: list[int], asm: _Assembler) -> None:
    if parts[:1] == ["pdb-hint"] and len(parts) == 4:
        hint = [_number(p, "word", 0xFFFFFFFF) for p in parts[1:]]
        if asm.tc.trailing_zero_slot:
            words[-3:] = hint  # the slot the toolchain keeps after the last instruction
        else:
            words.extend(hint)
        return
    if parts == ["no-trailing-slot"]:
        if asm.tc.trailing_zero_slot:
            del words[-3:]
        return
    if parts[:1] == ["centroid"] and len(parts) == 2 and parts[1][:1] == "r":
        register = _number(parts[1][1:], "register", isa.REG_INDEX_MASK)
        for index, kind in asm.kinds.items():
            slot = slot_from_dwords(*words[3 * index : 3 * index + 3])
            if kind == "alu" and names_centroid(isa.ALU_LAYOUT.unpack(slot)):
                word = isa.ALU_LAYOUT.pack({"scalar_dest": register}, base=slot)
                words[3 * index : 3 * index + 3] = slot_to_dwords(word)
        return
    if parts[:1] != ["slot"] or len(parts) < 3:
        raise ValueError(f"expected {_NOTE_FORMS}")
    _apply_slot_note(parts, words, asm)


def _apply_slot_note(parts: list[str], words: list[int], asm: _Assembler) -> None:
    """``slot N name=value ...``: the fields of slot N written over its words."""
    index = _number(parts[1], "slot", 0xFFFF)
    if 3 * index + 3 > len(words):
        raise ValueError(f"slot {parts[1]} is past the program's last slot "
                         f"{len(words) // 3 - 1:#04x}")
    if index not in asm.kinds:
        raise ValueError(f"slot {parts[1]} holds no ALU or FETCH instruction of the text")
    kind = asm.kinds[index]
    layout = _slot_layout(kind)
    values = {}
    for part in parts[2:]:
        field_match = _NOTE_FIELD.match(part)
        if field_match is None or field_match[1] not in layout:
            raise ValueError(f"{part!r} is not name=value for a field of a {kind} slot")
        if field_match[1] == "opcode":  # it chooses the layout the text's line was read in
            raise ValueError(f"{part!r}: a fetch's opcode is the one its line names")
        name, value = field_match[1], field_match[2]
        enum = isa.layout_enums(layout).get(name)
        if enum is not None and value in enum.__members__:
            values[name] = enum[value]
        else:
            values[name] = _number(value, name, layout[name].max)
    slot = slot_from_dwords(*words[3 * index : 3 * index + 3])
    words[3 * index : 3 * index + 3] = slot_to_dwords(layout.pack(values, base=slot))


def toolchain_notes(text: str, words: Sequence[int], toolchain: str = "xdk",
                    centroid: int | None = None) -> str:
    """The ``; xdk:`` lines with which ``text`` (Mesa's text of ``words``) assembles back
    to ``words`` with ``toolchain``: the words of the slot kept after the last
    instruction, or that there is none (always written, so the notes are known complete
    and nothing is reported as a guess), the first centroid interpolator's register
    ``centroid`` of a pixel shader (from its container), then per slot the fields
    neither the text nor the toolchain's rules give (a scalar operation Mesa hides,
    ``c[N+a0]``, ...)."""
    lines = []
    if centroid is not None:
        lines.append(f"centroid r{centroid}")
    head = "".join(f"; xdk: {line}\n" for line in lines)
    asm, got = _run(head + text, "<disassembly>", TOOLCHAINS[toolchain])
    _apply_notes(head, "<disassembly>", got, asm)
    if asm.tc.trailing_zero_slot and len(got) == len(words):
        lines.insert(0, "pdb-hint " + " ".join(f"0x{w:08x}" for w in words[-3:]))
    elif asm.tc.trailing_zero_slot and len(got) == len(words) + 3:
        lines.insert(0, "no-trailing-slot")  # the 2005 compiler keeps no slot there
    for index, kind in sorted(asm.kinds.items()):
        if 3 * index + 3 > len(words):
            break
        want = slot_from_dwords(*words[3 * index : 3 * index + 3])
        have = slot_from_dwords(*got[3 * index : 3 * index + 3])
        if want != have:
            layout = _slot_layout(kind)
            fields, have_fields = layout.unpack(want), layout.unpack(have)
            enums = isa.layout_enums(layout)
            lines.append(f"slot 0x{index:02x} " + " ".join(
                f"{name}={_note_value(enums.get(name), value)}"
                for name, value in fields.items() if value != have_fields[name]
            ))
    return "".join(f"; xdk: {line}\n" for line in lines)
