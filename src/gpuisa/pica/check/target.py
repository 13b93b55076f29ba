"""Turning what the user gave (sources or a SHBIN) into what the checks read: the
:class:`Target`, and for each anchor of a :class:`~.model.Raw` its place in the input."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ...errors import Diagnostic, SourceError
from ..analysis.effects import Effect, effects
from ..analysis.model import Anchor, Unit
from ..asm import source_list
from ..asm.assembler import Assembler, Options
from ..asm.source import Tok
from ..disasm.syntax import UnitNames, instruction_text
from ..shbin import Shbin
from .findings import BinarySpot, Finding, SourceSpot
from .registry import ASSEMBLER_WARNINGS, CHECKS

Spot = SourceSpot | BinarySpot


@dataclass(slots=True)
class Target:
    shbin: Shbin
    units: list[Unit]
    effects: list[Effect]
    locate: Callable[[Anchor], Spot]
    #: Findings of the input reader itself (the assembler's warnings).
    findings: list[Finding] = field(default_factory=list)
    #: Sources only: each ALU word's operand descriptor as written (binaries: None, their
    #: descriptors may be shared ones whose don't-care components say nothing).
    written_descs: dict[int, int] | None = None


def _tok_spot(tok: Tok) -> SourceSpot:
    return SourceSpot(tok.line.file, tok.line.number, tok.col + 1, tok.line.text or None,
                      max(1, len(tok.text)))


def _diag_spot(d: Diagnostic) -> SourceSpot:
    loc = d.location
    return SourceSpot(loc.file, loc.line, loc.column, d.source_line, d.length)


def from_sources(sources: str | Sequence[tuple[str, str]], *, strict: bool = False) -> Target:
    """Assemble with ``pica asm``'s rules (raises :class:`SourceError` on errors)."""
    asm = Assembler(Options(strict=strict, lint=False))
    output = asm.run(source_list(sources))
    if output is None:
        raise SourceError(asm.diagnostics)
    shbin = output.shbin
    states = [d for d in asm.dvles if not d.nodvle]
    units = []
    for i, (state, dvle) in enumerate(zip(states, shbin.entries, strict=True)):
        proc = asm.procs[state.entry]
        units.append(Unit(i, state.filename, state.entry, dvle, proc.start,
                          proc.start + proc.length))
    toks = asm.word_toks

    def locate(anchor: Anchor) -> Spot:
        kind, n = anchor
        if kind == "word":
            return _tok_spot(toks[n])
        if kind == "dst":
            return _tok_spot(asm.dst_toks.get(n, toks[n]))
        if kind == "entry":
            return _tok_spot(asm.procs[states[n].entry].tok)
        if kind == "dvle":
            return _tok_spot(states[n].entry_tok or states[n].origin)
        return SourceSpot(units[0].name if units else "<source>", 1)

    findings = []
    diags = asm.diagnostics
    info = CHECKS[ASSEMBLER_WARNINGS]
    for k, d in enumerate(diags):
        if d.severity == "warning":
            note = diags[k + 1].message if k + 1 < len(diags) and diags[k + 1].severity == "note" \
                else None
            findings.append(Finding(info.id, info.severity, d.message, _diag_spot(d), note))
    return Target(shbin, units, effects(shbin.program.code, shbin.program.opdescs), locate,
                  findings, dict(asm.written_descs))


def disassembly(e: Effect, opdescs: tuple[int, ...]) -> str:
    """One instruction as text; flow instructions with their raw fields."""
    text = instruction_text(e.ins, opdescs, UnitNames())
    if text is not None:
        return text
    fields = ", ".join(f"{k}={v}" for k, v in e.ins.fields)
    name = e.ins.mnemonic or f"opcode 0x{int(e.ins.opcode):02X}"
    return f"{name} {fields}".strip()


def from_shbin(shbin: Shbin, name: str) -> Target:
    table = effects(shbin.program.code, shbin.program.opdescs)
    units = []
    for i, dvle in enumerate(shbin.entries):
        label = next((lb.name for lb in dvle.labels if lb.offset == dvle.main_offset), "main")
        units.append(Unit(i, f"DVLE {i}", label, dvle, dvle.main_offset, dvle.endmain_offset))

    def locate(anchor: Anchor) -> Spot:
        kind, n = anchor
        if kind in ("word", "dst"):
            return BinarySpot(name, n, shbin.program.code[n],
                              disassembly(table[n], shbin.program.opdescs))
        if kind == "entry":
            start = units[n].start
            inside = 0 <= start < len(table)
            return BinarySpot(name, start, shbin.program.code[start] if inside else None,
                              disassembly(table[start], shbin.program.opdescs) if inside
                              else "", dvle=n)
        if kind == "dvle":
            return BinarySpot(name, dvle=n)
        return BinarySpot(name)

    return Target(shbin, units, table, locate)
