"""Every execution path of an entry point, with the control-flow rules of
pica-emulation-notes.md §5 (:mod:`..engine.stacks` is the same machine for one lane).

Conditions, loop counts and boolean uniforms are unknown, so every branch is taken both
ways and every LOOP both repeats and ends.  A control state is the PC and the three
stacks (ring buffers, :func:`_push`); attached to each is a tuple of "some path" bit sets
(an output component written, an output / temporary / other register not yet written).
Paths meeting at a control state are joined by OR, which is exact for "on some path":
a bit is set at a state iff some path reaching it has that property.  The exploration is
bounded by a number of steps and a time; :attr:`Exploration.complete` says whether it
finished.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ..isa import (
    CALL_POPS_EFFECTIVE,
    CALL_STACK_DEPTH,
    IF_STACK_DEPTH,
    LOOP_STACK_DEPTH,
    Condition,
    Flow,
    Opcode,
)
from .effects import AL, NO_SETEMIT, Effect

#: Default bounds: steps (one per state visit) and seconds per entry point.
STATE_LIMIT = 200_000
TIME_LIMIT = 10.0
_ALL64 = (1 << 64) - 1
_INITIAL_MISC = (1 << 6) - 1


@dataclass(frozen=True, slots=True)
class _State:
    """Where execution is: the PC and the three control-flow stacks (oldest first)."""

    pc: int
    ifs: tuple[tuple[int, int], ...] = ()  # (trigger, destination)
    calls: tuple[tuple[int, int], ...] = ()  # (trigger, return address)
    loops: tuple[tuple[int, int], ...] = ()  # (trigger, body start)


@dataclass(slots=True)
class Exploration:
    """What the paths of one entry point do.  Dicts map a PC to the bits concerned."""

    complete: bool = True
    reached: set[int] = field(default_factory=set)
    #: Some path leaves the entry procedure without ``end`` (to the PC after it, or out
    #: of the program: ``past_program``).
    falls_off: bool = False
    past_program: bool = False
    twice: dict[int, int] = field(default_factory=dict)
    mova_pairs: set[tuple[int, int]] = field(default_factory=set)
    #: END (vertex) / EMIT (geometry) -> output components unwritten on some path.
    unwritten: dict[int, int] = field(default_factory=dict)
    tmp_unwritten_reads: dict[int, int] = field(default_factory=dict)
    misc_unwritten_reads: dict[int, int] = field(default_factory=dict)
    emit_without_setemit: set[int] = field(default_factory=set)
    overflows: dict[int, set[str]] = field(default_factory=dict)
    break_without_loop: set[int] = field(default_factory=set)
    jump_overridden: set[int] = field(default_factory=set)
    scopes_together: dict[int, set[str]] = field(default_factory=dict)


def _push(stack: tuple, entry: tuple, depth: int) -> tuple:
    """Push onto a ring-buffer stack: a full stack loses its oldest entry."""
    return (*stack, entry)[-depth:]


def _add(table: dict, key: int, bits: int) -> None:
    if bits:
        table[key] = table.get(key, 0) | bits


class Explorer:
    """Explores entry points of one program (``effects`` from :func:`.effects.effects`)."""

    def __init__(self, effects: list[Effect], *, geometry: bool = False,
                 max_states: int | None = None, max_seconds: float | None = None):
        self.effects = effects
        self.geometry = geometry
        self.max_states = STATE_LIMIT if max_states is None else max_states
        self.max_seconds = TIME_LIMIT if max_seconds is None else max_seconds

    def explore(self, start: int, stop: int) -> Exploration:
        """Every path from ``start`` until ``end``, or falling off ``stop`` (the end of the
        entry procedure) with no CALL pending."""
        effects = self.effects
        n = len(effects)
        out = Exploration()
        first = _State(start)
        facts: dict[_State, tuple[int, int, int, int]] = {
            first: (0, _ALL64, _ALL64, _INITIAL_MISC)}
        todo = [first]
        steps = 0
        deadline = time.monotonic() + self.max_seconds
        while todo:
            state = todo.pop()
            steps += 1
            if steps > self.max_states or (steps & 0xFFF == 0 and time.monotonic() > deadline):
                out.complete = False
                return out
            pc = state.pc
            if not 0 <= pc < n:
                out.falls_off = out.past_program = True
                continue
            if pc == stop and not state.calls:
                out.falls_off = True
                continue
            out.reached.add(pc)
            e = effects[pc]
            op = e.ins.opcode
            written, out_un, tmp_un, misc_un = facts[state]
            _add(out.twice, pc, written & e.out_writes)
            _add(out.tmp_unwritten_reads, pc, tmp_un & e.tmp_reads)
            _add(out.misc_unwritten_reads, pc, misc_un & e.misc_reads)
            written |= e.out_writes
            out_un &= ~e.out_writes
            tmp_un &= ~e.tmp_writes
            misc_un &= ~e.misc_writes
            if op is Opcode.END:
                if not self.geometry:
                    _add(out.unwritten, pc, out_un)
                continue
            if op is Opcode.SETEMIT:
                misc_un &= ~NO_SETEMIT
            elif op is Opcode.EMIT:
                if misc_un & NO_SETEMIT:
                    out.emit_without_setemit.add(pc)
                written = 0  # a new vertex: outputs are written afresh
                if self.geometry:
                    _add(out.unwritten, pc, out_un)
                    out_un = _ALL64
            elif op is Opcode.LOOP:
                misc_un &= ~AL
            after = (written, out_un, tmp_un, misc_un)
            for nxt in self._successors(state, e, out):
                if (op is Opcode.MOVA and 0 <= nxt.pc < n
                        and effects[nxt.pc].ins.opcode is Opcode.MOVA):
                    out.mova_pairs.add((pc, nxt.pc))
                old = facts.get(nxt)
                if old is None:
                    facts[nxt] = after
                    todo.append(nxt)
                else:
                    merged = tuple(a | b for a, b in zip(old, after, strict=True))
                    if merged != old:
                        facts[nxt] = merged
                        todo.append(nxt)
        return out

    def _successors(self, s: _State, e: Effect, out: Exploration):
        """Every state after executing ``e`` at ``s.pc`` (notes §5.2)."""
        ins = e.ins
        flow = ins.info.flow
        conditional = ins.info.condition is not Condition.ALWAYS
        pc = s.pc
        # (pending jump target or None, pending break, stacks after the instruction)
        outcomes: list[tuple[int | None, bool, _State]] = []
        if flow is Flow.IF:
            dst, num = ins["dst"], ins["num"]
            self._note_push(out, pc, "IF", s.ifs, IF_STACK_DEPTH)
            pushed = _State(pc, _push(s.ifs, (dst, dst + num), IF_STACK_DEPTH), s.calls, s.loops)
            outcomes.append((None, False, pushed))
            outcomes.append((dst, False, s))
        elif flow is Flow.CALL:
            dst, num = ins["dst"], ins["num"]
            self._note_push(out, pc, "CALL", s.calls, CALL_STACK_DEPTH)
            called = _State(pc, s.ifs, _push(s.calls, (dst + num, pc + 1), CALL_STACK_DEPTH),
                            s.loops)
            outcomes.append((dst, False, called))
            if conditional:
                outcomes.append((None, False, s))
        elif flow is Flow.LOOP:
            self._note_push(out, pc, "LOOP", s.loops, LOOP_STACK_DEPTH)
            looped = _State(pc, s.ifs, s.calls,
                            _push(s.loops, (ins["dst"] + 1, pc + 1), LOOP_STACK_DEPTH))
            outcomes.append((None, False, looped))
        elif flow is Flow.JUMP:
            outcomes.append((ins["dst"], False, s))
            outcomes.append((None, False, s))
        elif flow is Flow.BREAK:
            outcomes.append((None, True, s))
            if conditional:
                outcomes.append((None, False, s))
        else:
            outcomes.append((None, False, s))
        for jump, brk, st in outcomes:
            yield from self._stack_check(st, jump, brk, out)

    @staticmethod
    def _note_push(out: Exploration, pc: int, name: str, stack: tuple, depth: int) -> None:
        if len(stack) == depth:
            out.overflows.setdefault(pc, set()).add(name)

    @staticmethod
    def _stack_check(s: _State, jump: int | None, brk: bool, out: Exploration):
        """The per-instruction stack check (notes §5.3; engine.stacks.next_pc)."""
        n = s.pc + 1
        calls, ifs, loops = s.calls, s.ifs, s.loops
        call_result = None
        c = n
        for pops in range(1, CALL_STACK_DEPTH + 1):
            if not calls or calls[-1][0] != c:
                break
            c = calls[-1][1]
            calls = calls[:-1]
            if pops <= CALL_POPS_EFFECTIVE:  # the 4th pop's PC update is lost
                call_result = c
        if_result = None
        if ifs and ifs[-1][0] == n:
            if_result = ifs[-1][1]
            ifs = ifs[:-1]
            if ifs and ifs[-1][0] == n:
                out.scopes_together.setdefault(s.pc, set()).add("IF")
        if brk and not loops:
            out.break_without_loop.add(s.pc)
            return  # the hardware hangs: this path ends
        choices: list[tuple[int | None, tuple]] = [(None, loops)]
        if loops and (brk or loops[-1][0] == n):
            trigger, body = loops[-1]
            choices = [(trigger, loops[:-1])]
            if not brk:
                if len(loops) > 1 and loops[-2][0] == n:
                    out.scopes_together.setdefault(s.pc, set()).add("LOOP")
                choices.append((body, loops))
        for loop_result, loops_after in choices:
            popped = (loop_result, if_result, call_result)
            if jump is not None and any(r is not None for r in popped):
                out.jump_overridden.add(s.pc)
            for result in (*popped, jump):
                if result is not None:
                    pc = result
                    break
            else:
                pc = n
            yield _State(pc, ifs, calls, loops_after)
