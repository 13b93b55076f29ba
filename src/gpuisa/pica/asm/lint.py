"""Warnings about programs that assemble but will misbehave on the hardware.

* an entry procedure that can run past its last word without executing ``end`` (picasso
  issue #34: the GPU hangs), or that contains no ``end`` at all;
* an output register component written twice on one execution path;
* two ``mova`` executed one right after the other (picasso Manual errata: the GPU
  freezes), also when they are not next to each other in memory: a loop body that is a
  single ``mova``, a ``mova`` ending a then-part followed by one after the IF, a return
  from a procedure ending in ``mova`` ...

All three explore every execution path of each DVLE's entry procedure with the
control-flow rules of pica-emulation-notes.md §5 (conditions, loop counts and boolean
uniforms are unknown, so every branch is taken both ways).  The state space is bounded;
when a program is too large to explore, the first two checks are skipped and the third
falls back to ``mova`` words that are neighbours in memory.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..encoding import decode, decode_opdesc
from ..isa import (
    CALL_STACK_DEPTH,
    IF_STACK_DEPTH,
    LOOP_STACK_DEPTH,
    Kind,
    Opcode,
    destination_register,
)
from ..shbin import Shbin

if TYPE_CHECKING:
    from .assembler import Assembler

#: Give up on a program whose exploration needs more steps than this.
STATE_LIMIT = 200_000
_OUTPUT_END = 0x10


@dataclass(frozen=True, slots=True)
class _State:
    """Where execution is: the PC and the three control-flow stacks."""

    pc: int
    ifs: tuple[tuple[int, int], ...] = ()  # (trigger, destination)
    calls: tuple[tuple[int, int], ...] = ()  # (trigger, return address)
    loops: tuple[tuple[int, int], ...] = ()  # (trigger, body start)


@dataclass(frozen=True, slots=True)
class _Exploration:
    """What the paths of one entry procedure do: whether one falls off its end, the pcs
    reached, {pc: output components some path writes there a second time}, and the
    (first, second) pcs of ``mova`` pairs executed one right after the other."""

    falls_off: bool
    reached: set[int]
    twice: dict[int, int]
    mova_pairs: set[tuple[int, int]]


def _push(stack: tuple, entry: tuple, depth: int) -> tuple:
    """Push onto a ring-buffer stack: a full stack loses its oldest entry."""
    return (*stack, entry)[-depth:]


class _Explorer:
    """Every reachable control state of an entry procedure, with the set of output
    components some path to it has written (bit 4 * register + component).

    Taking the union where paths meet is exact for "some path writes this component
    twice": a component is in the set at an instruction iff some path reaching that
    instruction wrote it.
    """

    def __init__(self, code: tuple[int, ...], opdescs: tuple[int, ...]):
        self.code = code
        self.decoded = [decode(w) for w in code]
        self.output_writes: dict[int, int] = {}
        for pc, ins in enumerate(self.decoded):
            mask = self._output_mask(ins, opdescs)
            if mask:
                self.output_writes[pc] = mask

    @staticmethod
    def _output_mask(ins, opdescs: tuple[int, ...]) -> int:
        info = ins.info
        if info.kind is not Kind.ARITHMETIC or ins.opcode is Opcode.MOVA:
            return 0
        dst = ins.get("dst")
        desc = ins.get("desc")
        if dst is None or dst >= _OUTPUT_END or desc is None or desc >= len(opdescs):
            return 0
        hw = decode_opdesc(opdescs[desc]).mask
        comps = sum(1 << c for c in range(4) if hw & (8 >> c))
        return comps << 4 * dst

    def explore(self, start: int, stop: int) -> _Exploration | None:
        """Every path from ``start`` until ``end`` or falling off ``stop``; None when the
        exploration is too large."""
        written: dict[_State, int] = {_State(start): 0}
        todo = [_State(start)]
        falls_off = False
        reached: set[int] = set()
        twice: dict[int, int] = {}
        mova_pairs: set[tuple[int, int]] = set()
        n = len(self.code)
        steps = 0
        while todo:
            state = todo.pop()
            steps += 1
            if steps > STATE_LIMIT:
                return None
            pc = state.pc
            if (pc == stop and not state.calls) or not 0 <= pc < n:
                falls_off = True
                continue
            reached.add(pc)
            ins = self.decoded[pc]
            mask = written[state]
            writes = self.output_writes.get(pc, 0)
            if mask & writes:
                twice[pc] = twice.get(pc, 0) | (mask & writes)
            mask |= writes
            if ins.opcode is Opcode.END:
                continue
            if ins.opcode is Opcode.EMIT:
                mask = 0  # a new vertex: outputs are written afresh
            for nxt in self._successors(state, ins):
                if (ins.opcode is Opcode.MOVA and 0 <= nxt.pc < n
                        and self.decoded[nxt.pc].opcode is Opcode.MOVA):
                    mova_pairs.add((pc, nxt.pc))
                old = written.get(nxt)
                if old is None or mask & ~old:
                    written[nxt] = mask | (old or 0)
                    todo.append(nxt)
        return _Exploration(falls_off, reached, twice, mova_pairs)

    def _successors(self, s: _State, ins):
        """Every state after executing ``ins`` at ``s.pc`` (pica-emulation-notes §5.3)."""
        op = ins.opcode
        pc = s.pc
        # (pending jump target or None, pending break, stacks after the instruction)
        outcomes: list[tuple[int | None, bool, _State]] = []
        if op in (Opcode.IFC, Opcode.IFU):
            dst, num = ins["dst"], ins["num"]
            pushed = _State(pc, _push(s.ifs, (dst, dst + num), IF_STACK_DEPTH), s.calls, s.loops)
            outcomes.append((None, False, pushed))
            outcomes.append((dst, False, s))
        elif op in (Opcode.CALL, Opcode.CALLC, Opcode.CALLU):
            dst, num = ins["dst"], ins["num"]
            called = _State(pc, s.ifs, _push(s.calls, (dst + num, pc + 1), CALL_STACK_DEPTH),
                            s.loops)
            outcomes.append((dst, False, called))
            if op is not Opcode.CALL:
                outcomes.append((None, False, s))
        elif op is Opcode.LOOP:
            looped = _State(pc, s.ifs, s.calls,
                            _push(s.loops, (ins["dst"] + 1, pc + 1), LOOP_STACK_DEPTH))
            outcomes.append((None, False, looped))
        elif op in (Opcode.JMPC, Opcode.JMPU):
            outcomes.append((ins["dst"], False, s))
            outcomes.append((None, False, s))
        elif op is Opcode.BREAK:
            outcomes.append((None, True, s))
        elif op is Opcode.BREAKC:
            outcomes.append((None, True, s))
            outcomes.append((None, False, s))
        else:
            outcomes.append((None, False, s))
        for jump, brk, st in outcomes:
            yield from self._stack_check(st, jump, brk)

    @staticmethod
    def _stack_check(s: _State, jump: int | None, brk: bool):
        n = s.pc + 1
        calls, ifs, loops = s.calls, s.ifs, s.loops
        call_result = None
        c = n
        for pops in range(1, 5):
            if not calls or calls[-1][0] != c:
                break
            c = calls[-1][1]
            calls = calls[:-1]
            if pops < 4:  # the 4th pop's PC update is lost (hardware bug)
                call_result = c
        if_result = None
        if ifs and ifs[-1][0] == n:
            if_result = ifs[-1][1]
            ifs = ifs[:-1]
        if brk and not loops:
            return  # the hardware hangs: this path ends
        choices: list[tuple[int | None, tuple]] = [(None, loops)]
        if loops and (brk or loops[-1][0] == n):
            trigger, body = loops[-1]
            choices = [(trigger, loops[:-1])]
            if not brk:
                choices.append((body, loops))
        for loop_result, loops_after in choices:
            for result in (loop_result, if_result, call_result, jump):
                if result is not None:
                    pc = result
                    break
            else:
                pc = n
            yield _State(pc, ifs, calls, loops_after)


def _component_names(bits: int) -> str:
    names = []
    for bit in range(64):
        if bits >> bit & 1:
            bank, number = destination_register(bit // 4)
            names.append(f"{bank}{number}.{'xyzw'[bit % 4]}")
    return ", ".join(names)


def lint(asm: Assembler, shbin: Shbin) -> None:
    """Append the linter's warnings to ``asm``'s diagnostics."""
    code = shbin.program.code
    toks = asm.word_toks
    explorer = _Explorer(code, shbin.program.opdescs)
    results = []
    for dvle in asm.dvles:
        if not dvle.nodvle and not dvle.raw_entry:  # `.dvle main=.. endmain=..`: no procedure
            proc = asm.procs[dvle.entry]
            results.append((dvle, explorer.explore(proc.start, proc.start + proc.length)))
    _mova_warnings(asm, explorer, [r for _, r in results])
    reported: set[int] = set()
    for dvle, result in results:
        if result is None:
            continue
        proc = asm.procs[dvle.entry]
        if not any(explorer.decoded[pc].opcode is Opcode.END for pc in result.reached):
            asm.warn(f"entry point '{dvle.entry}' contains no 'end' instruction", proc.tok,
                     note="the shader never finishes: the GPU hangs")
        elif result.falls_off:
            asm.warn(f"entry point '{dvle.entry}' can reach its end without executing 'end'",
                     proc.tok, note="the shader then runs past its last instruction")
        for pc in sorted(result.twice):
            if pc in reported:
                continue
            reported.add(pc)
            tok = asm.dst_toks.get(pc, toks[pc])
            asm.warn(f"{_component_names(result.twice[pc])} written twice on the same path",
                     tok)


def _mova_warnings(asm: Assembler, explorer: _Explorer,
                   results: list[_Exploration | None]) -> None:
    """One warning per ``mova`` that can run right after another one (at the second)."""
    decoded = explorer.decoded
    pairs: set[tuple[int, int]] = set()
    for result in results:
        if result is not None:
            pairs |= result.mova_pairs
    if any(result is None for result in results):
        pairs |= {(pc - 1, pc) for pc in range(1, len(decoded))
                  if decoded[pc].opcode is Opcode.MOVA and decoded[pc - 1].opcode is Opcode.MOVA}
    firsts: dict[int, set[int]] = {}
    for first, second in pairs:
        firsts.setdefault(second, set()).add(first)
    toks = asm.word_toks
    for second, candidates in sorted(firsts.items()):
        # name the neighbour in memory when it is one of them
        first = second - 1 if second - 1 in candidates else min(candidates)
        if first == second - 1:
            note = "put another instruction between them"
        elif first == second:
            note = "a loop repeats it back to back: put another instruction in the loop"
        else:
            line = toks[first].line
            where = (f"line {line.number}" if line.file == toks[second].line.file
                     else f"{line.file}:{line.number}")
            note = (f"it can run right after the 'mova' on {where}: "
                    "put another instruction between them")
        asm.warn("two consecutive 'mova' instructions can freeze the GPU", toks[second],
                 note=note)
