"""Recovering picasso's block structure from flow-control words.

picasso has no raw branch targets: IF and LOOP targets come from ``ifc``/``ifu``/``for``
blocks, CALL targets from ``.proc`` blocks, JMP targets from labels, and its ``.end`` and
``.else`` insert padding NOPs by fixed rules (pica-assembly.md#blocks).  This module
finds blocks that reproduce every flow-control word, and replays the padding rules over the
original words: a NOP that the assembler would insert by itself is left out of the text,
and a block whose ``.end`` would insert a NOP that the file does not have is given up (its
opening word is printed as ``.word``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..encoding import Instruction
from ..isa import NUM_INT_UNIFORMS, OPCODES, Condition, Flow, Kind, Opcode, picasso_pads
from ..syntax import FORMS, SlotKind
from .syntax import condition_text


@dataclass(slots=True)
class Block:
    kind: str  # "proc", "if" or "for"
    start: int  # proc: first instruction; if/for: the opening IF/LOOP word
    end: int  # one past the last word
    else_at: int | None = None
    name: str = ""
    #: Positions of the CALL words that need this procedure (demoted if it is given up).
    callers: list[int] = field(default_factory=list)
    entry: bool = False

    def contains(self, other: Block) -> bool:
        return self.start <= other.start and other.end <= self.end

    def crosses(self, other: Block) -> bool:
        """Whether the two cannot both be written as nested blocks."""
        if self.end <= other.start or other.end <= self.start:
            return False
        if self.start == other.start and (self.kind == "proc") != (other.kind == "proc"):
            # An IF/FOR block begins with its own opening word, so a procedure starting at
            # the same word is opened first and must enclose the whole block.
            proc, block = (self, other) if self.kind == "proc" else (other, self)
            return proc.end < block.end
        return not (self.contains(other) or other.contains(self))


@dataclass(slots=True)
class Line:
    """One line of disassembly: ``pos`` is the word it stands for (None for directives)."""

    text: str
    depth: int
    pos: int | None = None
    #: The line is an ``.end``/``.else`` at which the assembler inserts the NOP at ``pos``.
    padding: bool = False


@dataclass(slots=True)
class Structure:
    """The blocks and labels chosen for a range of code, and the words printed raw."""

    blocks: list[Block]
    labels: dict[int, str]
    raw: set[int]
    #: Every procedure of the program (for CALL targets defined in other units).
    procedures: list[Block] = field(default_factory=list)


class _Demote(Exception):
    def __init__(self, block: Block):
        self.block = block


def _flow_ok(ins: Instruction) -> bool:
    """Whether picasso could have produced this flow-control word at all."""
    if ins.extra:
        return False
    if ins.info.reads_flags and (
        condition_text(ins["condop"], ins["refx"], ins["refy"]) is None
    ):
        return False
    return _flow_operands_ok(ins)


def _flow_operands_ok(ins: Instruction) -> bool:
    """Whether the fields picasso's syntax cannot spell hold the values it writes."""
    flow, condition = ins.info.flow, ins.info.condition
    if flow is Flow.CALL:  # CALL's condition fields are unused: picasso writes zeros
        unused = condition is not Condition.ALWAYS or (
            ins["condop"] == ins["refx"] == ins["refy"] == 0)
        return unused and ins["num"] > 0
    if flow is Flow.JUMP:  # JMPC: NUM unused; JMPU: NUM's bit 0 inverts the test
        return ins["num"] in ((0, 1) if condition is Condition.BOOLNUM else (0,))
    if flow is Flow.BREAK and condition is Condition.FLAGS:  # BREAKC
        return ins["num"] == 0 and ins["dst"] == 0
    if flow is Flow.LOOP:
        return ins["num"] == 0 and ins["id"] < NUM_INT_UNIFORMS
    return True


def find_structures(
    code: list[Instruction],
    units: list[tuple[int, int]],
    entries: dict[tuple[int, int], str],
    raw: set[int],
) -> list[Structure]:
    """Blocks and labels for each translation unit (a range ``lo``..``hi``-1 of words).

    ``entries`` maps each entry procedure's (start, end) to its name; ``raw`` holds the
    positions already known to need ``.word``.  Procedures are global, as in picasso, so a
    block given up in one unit can demote CALL words in another: the search restarts
    until every unit replays exactly.
    """
    raw = set(raw)
    while True:
        known = len(raw)
        procs = _procedures(code, entries, raw)
        structures = [_candidates(code, lo, hi, procs, raw) for lo, hi in units]
        if len(raw) != known:
            continue  # a unit gave up a CALL: rebuild every unit's procedures
        try:
            for (lo, hi), structure in zip(units, structures, strict=True):
                layout_lines(code, lo, hi, structure, lambda p: "", check=True)
        except _Demote as failed:
            raw.update(_give_up(failed.block, structures, code))
            continue
        return structures


def _give_up(block: Block, structures: list[Structure], code: list[Instruction]) -> set[int]:
    """Positions to print as ``.word`` so that ``block``'s end needs no padding NOP.

    A called procedure or an IF/FOR block is dropped (its CALL or opening word goes raw).
    An entry procedure, or code wrapped in a procedure of its own, must stay: then the
    IF/FOR block that closes at the same place is dropped, or else the last word goes raw
    (a ``.word`` never asks for padding, docs/assembly-extensions.md).
    """
    if block.kind != "proc":
        return {block.start}
    if block.callers:
        return set(block.callers)
    inner = [
        b
        for structure in structures
        for b in structure.blocks
        if b.kind != "proc" and b.end == block.end and block.contains(b)
    ]
    if inner:
        return {min(inner, key=lambda b: b.end - b.start).start}
    return {block.end - 1}


def is_flow_word(op: Opcode) -> bool:
    """The flow words this module writes symbolically: those with operands (a BREAK has
    none and is printed like any other instruction)."""
    info = OPCODES[op]
    return info.kind is Kind.FLOW and info.has_operands


def _is_call(op: Opcode) -> bool:
    return OPCODES[op].flow is Flow.CALL


def _procedures(code, entries, raw) -> list[Block]:
    """Entry procedures, then one procedure per distinct CALL target."""
    procs: dict[tuple[int, int], Block] = {}
    for (start, end), name in entries.items():
        procs[(start, end)] = Block("proc", start, end, name=name, entry=True)
    for pos, ins in enumerate(code):
        if pos in raw or not _is_call(ins.opcode):
            continue
        if not _flow_ok(ins) or ins["dst"] + ins["num"] > len(code):
            raw.add(pos)
            continue
        dst, end = ins["dst"], ins["dst"] + ins["num"]
        block = procs.setdefault((dst, end), Block("proc", dst, end, name=f"proc_{dst:03x}"))
        block.callers.append(pos)
    starts = [b.start for b in procs.values()]
    for block in procs.values():
        if not block.entry and starts.count(block.start) > 1:
            block.name = f"proc_{block.start:03x}_{block.end - block.start}"
    return sorted(procs.values(), key=lambda b: (not b.entry, b.start, -b.end))


def _candidates(code, lo, hi, procs, raw) -> Structure:
    inner, jumps = _flow_blocks(code, lo, hi, raw)
    accepted = _accept_blocks(procs, inner, lo, hi, raw)
    accepted += _cover_gaps(accepted, lo, hi)
    labels = {dst: f"label_{dst:03x}" for pos, dst in jumps.items() if pos not in raw}
    names = [b for b in procs if _live(b, raw)]
    return Structure(accepted, labels, raw, names)


def _flow_blocks(code, lo, hi, raw) -> tuple[list[Block], dict[int, int]]:
    """The IF/FOR blocks and the jumps (position to target) of one unit's flow words
    other than calls; words that cannot be printed symbolically go into ``raw``."""
    inner: list[Block] = []
    jumps: dict[int, int] = {}
    for pos in range(lo, hi):
        ins = code[pos]
        op = ins.opcode
        if pos in raw or not is_flow_word(op) or _is_call(op):
            continue
        if not _flow_ok(ins):
            raw.add(pos)
            continue
        dst, num = ins["dst"], ins["num"]
        flow = ins.info.flow
        if flow is Flow.IF and pos + 1 <= dst <= dst + num <= hi:
            inner.append(Block("if", pos, dst + num, else_at=dst if num else None))
        elif flow is Flow.LOOP and pos + 1 <= dst < hi:
            inner.append(Block("for", pos, dst + 1))
        elif flow is Flow.JUMP and lo <= dst <= hi:
            jumps[pos] = dst
        elif not (flow is Flow.BREAK and ins.info.reads_flags):  # BREAKC
            raw.add(pos)
    return inner, jumps


def _accept_blocks(procs, inner, lo, hi, raw) -> list[Block]:
    """Procedures first (entries before called ones), then IF/FOR blocks in address order:
    a block that would cross an accepted one is given up (its words go into ``raw``)."""
    accepted: list[Block] = []
    for block in procs:
        if not _local(block, lo, hi):
            if block.start < hi and block.end > lo and not block.entry:
                raw.update(block.callers)  # straddles a unit boundary
            continue
        if any(block.crosses(other) for other in accepted):
            if not block.entry:
                raw.update(block.callers)
            continue
        accepted.append(block)
    taken = list(accepted)  # accepted blocks, plus the then-part of each IF with .else
    for block in inner:
        pieces = [block]
        if block.else_at is not None:
            pieces.append(Block("if", block.start, block.else_at))
        if any(p.crosses(other) for p in pieces for other in taken):
            raw.add(block.start)
            continue
        accepted.append(block)
        taken += pieces
    return [b for b in accepted if b.kind != "proc" or _live(b, raw)]


def _local(block: Block, lo: int, hi: int) -> bool:
    return lo <= block.start and block.end <= hi


def _live(block: Block, raw: set[int]) -> bool:
    """A called procedure stays a block while at least one caller is printed symbolically,
    or when it is an entry point."""
    return block.entry or any(c not in raw for c in block.callers)


def _cover_gaps(blocks: list[Block], lo: int, hi: int) -> list[Block]:
    """picasso only accepts instructions inside a block: wrap code that no procedure
    covers in procedures of its own (they exist only in the text).  Such a procedure
    grows until no IF/FOR block straddles its ends; procedures that then lie inside it
    become nested procedures."""
    covered = sorted((b.start, b.end) for b in blocks if b.kind == "proc" and _local(b, lo, hi))
    gaps, pos = [], lo
    for start, end in covered:
        if start > pos:
            gaps.append([pos, start])
        pos = max(pos, end)
    if pos < hi:
        gaps.append([pos, hi])
    changed = True
    while changed:
        changed = False
        for gap in gaps:
            for b in blocks:
                if Block("proc", gap[0], gap[1]).crosses(b):
                    gap[0], gap[1] = min(gap[0], b.start), max(gap[1], b.end)
                    changed = True
        gaps.sort()
        merged: list[list[int]] = []
        for gap in gaps:
            if merged and gap[0] < merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], gap[1])
                changed = True
            else:
                merged.append(gap)
        gaps = merged
    return [Block("proc", a, b, name=f"code_{a:03x}") for a, b in gaps]


def layout_lines(
    code: list[Instruction],
    lo: int,
    hi: int,
    structure: Structure,
    render: Callable[[int], str],
    *,
    check: bool = False,
) -> list[Line]:
    """The lines of one unit's code, replaying picasso's padding rules (pica-assembly.md#padding) so
    that a NOP the assembler inserts by itself is not printed.  ``render(pos)`` gives the text of
    any word this module does not print itself (including every ``.word``).  With
    ``check``, a block whose ``.end``/``.else`` would insert a NOP that the file does not
    have raises _Demote."""
    blocks = structure.blocks
    depth, boundary, opens = _block_events(blocks)

    lines: list[Line] = []
    state = _PadState(code_len=lo, last=code[lo - 1].opcode if lo else None)

    def close(kind: str, block: Block) -> None:
        lines.append(Line(".else" if kind == "else" else ".end", depth[id(block)]))
        if kind == "end" and block.kind in ("if", "for"):
            state.last_was_end = True

    pending: list[tuple[str, Block]] = list(boundary.get(lo, ()))
    for pos in range(lo, hi + 1):
        for kind, block in pending:
            if state.wants_pad(kind, block) and check:
                raise _Demote(block)
            close(kind, block)
        if pos in structure.labels:
            lines.append(Line(f"{structure.labels[pos]}:", 0))
        opener = None
        for block in opens.get(pos, ()):
            if block.kind == "proc":
                lines.append(Line(f".proc {block.name}", depth[id(block)]))
            else:
                opener = block
        if pos == hi:
            break
        ins = code[pos]
        pending = list(boundary.get(pos + 1, ()))
        if opener is None and _implied_pad(ins, pos, pending, structure, state):
            state.pad()  # the assembler inserts this NOP itself at the event below
            close(*pending.pop(0))
            lines[-1].pos, lines[-1].padding = pos, True
            continue
        flow_word = is_flow_word(ins.opcode)
        text = _flow_text(ins, pos, structure) if flow_word else None
        if opener is not None:
            level = depth[id(opener)]
        else:
            level = 1 + max((depth[id(b)] for b in blocks if b.start <= pos < b.end), default=-1)
        printed_raw = pos in structure.raw or (flow_word and text is None)
        lines.append(Line(text if text is not None else render(pos), level, pos))
        state.instruction(None if printed_raw else ins.opcode)
    return lines


def _block_events(blocks: list[Block]) -> tuple[
        dict[int, int], dict[int, list[tuple[str, Block]]], dict[int, list[Block]]]:
    """Each block's nesting depth (by ``id``), the ``.end``/``.else`` events at each
    position (innermost first) and the blocks opened at each position (outermost first)."""
    depth = {id(b): sum(1 for o in blocks if o is not b and _encloses(o, b)) for b in blocks}
    boundary: dict[int, list[tuple[str, Block]]] = {}
    for b in blocks:
        boundary.setdefault(b.end, []).append(("end", b))
        if b.else_at is not None:
            boundary.setdefault(b.else_at, []).append(("else", b))
    for events in boundary.values():
        events.sort(key=lambda e: -depth[id(e[1])])  # innermost first
    opens: dict[int, list[Block]] = {}
    for b in sorted(blocks, key=lambda b: depth[id(b)]):
        opens.setdefault(b.start, []).append(b)
    return depth, boundary, opens


def _implied_pad(ins: Instruction, pos: int, pending: list[tuple[str, Block]],
                 structure: Structure, state: _PadState) -> bool:
    """Whether the plain NOP at ``pos`` is the one the assembler inserts by itself before
    the first of the ``pending`` block events."""
    return (bool(pending) and ins.info.inert and not ins.extra
            and pos not in structure.raw and state.wants_pad(*pending[0]))


def _encloses(outer: Block, inner: Block) -> bool:
    """Whether ``outer`` is opened before and closed after ``inner``; for two blocks of
    the same extent, the procedure is the outer one."""
    if not outer.contains(inner):
        return False
    if (outer.start, outer.end) != (inner.start, inner.end):
        return True
    return outer.kind == "proc" and inner.kind != "proc"


def _procedure_name(ins: Instruction, structure: Structure) -> str | None:
    span = (ins["dst"], ins["dst"] + ins["num"])
    return next((b.name for b in structure.procedures
                 if b.kind == "proc" and (b.start, b.end) == span), None)


def _bool_text(ins: Instruction) -> str:
    """``bN``; ``!bN`` where the opcode tests a negatable boolean (JMPU's ``num`` bit)."""
    negated = ins.info.condition is Condition.BOOLNUM and ins["num"] & 1
    return f"{'!' if negated else ''}b{ins['id']}"


#: How each flow operand is printed from the word (None: it has no spelling here).
_FLOW_PRINTERS: dict[SlotKind, Callable[[Instruction, Structure], str | None]] = {
    SlotKind.CONDITION: lambda ins, _: condition_text(ins["condop"], ins["refx"], ins["refy"]),
    SlotKind.BOOL: lambda ins, _: _bool_text(ins),
    SlotKind.LOOP_REGISTER: lambda ins, _: f"i{ins['id']}",
    SlotKind.PROCEDURE: _procedure_name,
    SlotKind.LABEL: lambda ins, structure: structure.labels.get(ins["dst"]),
}


def _flow_text(ins: Instruction, pos: int, structure: Structure) -> str | None:
    """A flow word's statement, operand by operand as its form says
    (:data:`..syntax.FORMS`), or None when it must be printed raw."""
    if pos in structure.raw:
        return None
    form = FORMS[ins.opcode]
    operands = [_FLOW_PRINTERS[slot.kind](ins, structure) for slot in form.slots]
    if None in operands:
        return None
    return form.text(operands)


@dataclass(slots=True)
class _PadState:
    """What picasso's padding rules look at (pica-assembly.md#padding)."""

    code_len: int
    last: Opcode | None
    last_was_end: bool = False

    def wants_pad(self, kind: str, block: Block) -> bool:
        closing = "else" if kind == "else" else block.kind
        return picasso_pads(closing, self.last, block.start, self.code_len, self.last_was_end)

    def pad(self) -> None:
        self.code_len += 1
        self.last = Opcode.NOP
        self.last_was_end = False

    def instruction(self, opcode: Opcode | None) -> None:
        """An instruction statement; ``None`` for a ``.word``, which no rule looks at."""
        self.code_len += 1
        self.last = opcode
        self.last_was_end = False
