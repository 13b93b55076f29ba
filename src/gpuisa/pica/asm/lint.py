"""Warnings about programs that assemble but will misbehave on the hardware.

* an entry procedure that can run past its last word without executing ``end`` (picasso
  issue #34: the GPU hangs), or that contains no ``end`` at all;
* an output register component written twice on one execution path;
* two ``mova`` executed one right after the other (picasso Manual errata: the GPU
  freezes), also when they are not next to each other in memory: a loop body that is a
  single ``mova``, a ``mova`` ending a then-part followed by one after the IF, a return
  from a procedure ending in ``mova`` ...

All three are checks of ``pica check`` (PICA305/306, PICA103, PICA403): the exploration
(:mod:`..analysis.explore`) and the decisions (:mod:`..analysis.flow`) are shared with
that tool; this module only turns them into the assembler's warnings.  The exploration follows every
execution path of each DVLE's entry procedure with the control-flow rules of
pica-emulation.md#flow (conditions, loop counts and boolean uniforms are unknown, so
every branch is taken both ways).  The state space is bounded;
when a program is too large to explore, the first two checks are skipped and the third
falls back to ``mova`` words that are neighbours in memory.
"""

from __future__ import annotations

from ..analysis.effects import Effect, effects
from ..analysis.explore import Exploration, Explorer
from ..analysis.flow import entry_end, mova_pair_notes, written_twice
from ..shbin import Shbin
from .core import AssemblerCore

#: Give up on a program whose exploration needs more steps than this.
STATE_LIMIT = 200_000


def explore_entries(asm: AssemblerCore, shbin: Shbin) -> tuple[list[Effect], list]:
    """(effect of every word, [(DVLE state, exploration or None when it stopped early)])
    for every DVLE-producing file of ``asm``: the exploration ``pica check`` uses."""
    code = shbin.program.code
    table = effects(code, shbin.program.opdescs)
    results = []
    for dvle in asm.dvles:
        if not dvle.nodvle and not dvle.raw_entry:  # `.dvle main=.. endmain=..`: no procedure
            proc = asm.procs[dvle.entry]
            explorer = Explorer(table, geometry=dvle.is_geo, max_states=STATE_LIMIT)
            result = explorer.explore(proc.start, proc.start + proc.length)
            results.append((dvle, result if result.complete else None))
    return table, results


def lint(asm: AssemblerCore, shbin: Shbin) -> None:
    """Append the linter's warnings to ``asm``'s diagnostics."""
    toks = asm.word_toks
    table, results = explore_entries(asm, shbin)
    decoded = [e.ins for e in table]
    _mova_warnings(asm, decoded, [r for _, r in results])
    reported: set[int] = set()
    for dvle, result in results:
        if result is None:
            continue
        proc = asm.procs[dvle.entry]
        end = entry_end(dvle.entry, result, decoded, 0)
        if end is not None:
            asm.warn(end.message, proc.tok, note=end.note)
        for raw in written_twice(result, reported):
            pc = raw.anchor[1]
            asm.warn(raw.message, asm.dst_toks.get(pc, toks[pc]))


def _mova_warnings(asm: AssemblerCore, decoded, results: list[Exploration | None]) -> None:
    """One warning per ``mova`` that can run right after another one (at the second)."""
    toks = asm.word_toks

    def apart(first: int, second: int) -> str:
        line = toks[first].line
        where = (f"line {line.number}" if line.file == toks[second].line.file
                 else f"{line.file}:{line.number}")
        return (f"it can run right after the 'mova' on {where}: "
                "put another instruction between them")

    for second, note in mova_pair_notes(decoded, results, apart):
        asm.warn("two consecutive 'mova' instructions can freeze the GPU", toks[second],
                 note=note)
