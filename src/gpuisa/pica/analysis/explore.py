"""Every execution path of an entry point, with the control-flow rules of
pica-emulation.md#flow, by the engines' own stack machine (:mod:`..flow.stacks`).

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

from ..flow import stacks as S
from ..isa import (
    CALL_STACK_DEPTH,
    IF_STACK_DEPTH,
    LOOP_STACK_DEPTH,
    OPCODES,
    Condition,
    EmitEffect,
    Flow,
    Writes,
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


#: A LOOP's iteration count as the explorer keeps it: unknown, so at the loop's end both
#: outcomes are followed (count 0 ends it, this one repeats it).
_UNKNOWN_COUNT = 1
#: Flow effects that push, with the stack they push onto (index into ifs, calls, loops).
_PUSHES = {Flow.IF: ("IF", 0), Flow.CALL: ("CALL", 1), Flow.LOOP: ("LOOP", 2)}
_DEPTHS = (IF_STACK_DEPTH, CALL_STACK_DEPTH, LOOP_STACK_DEPTH)


def _flat(s: _State, count: int = _UNKNOWN_COUNT) -> tuple[list[int], list[int], list[int]]:
    """The stacks of ``s`` as :mod:`..flow.stacks` holds them; every loop entry gets the
    iteration count ``count`` (the top one matters: the others are not compared)."""
    ifs, calls, loops = S.new_stacks()
    for row, entry in enumerate(s.ifs):
        ifs[row * S.IF_WIDTH:(row + 1) * S.IF_WIDTH] = entry
    for row, entry in enumerate(s.calls):
        calls[row * S.CALL_WIDTH:(row + 1) * S.CALL_WIDTH] = entry
    for row, (trigger, body) in enumerate(s.loops):
        loops[row * S.LOOP_WIDTH:(row + 1) * S.LOOP_WIDTH] = [trigger, body, count, 0, 0]
    return ifs, calls, loops


def _tuples(ifs: list[int], n_if: int, calls: list[int], n_call: int, loops: list[int],
            n_loop: int) -> tuple[tuple, tuple, tuple]:
    """Flat stacks back to the explorer's hashable form (loops without counts)."""
    return (tuple((ifs[2 * r], ifs[2 * r + 1]) for r in range(n_if)),
            tuple((calls[2 * r], calls[2 * r + 1]) for r in range(n_call)),
            tuple((loops[S.LOOP_WIDTH * r + S.TRIGGER], loops[S.LOOP_WIDTH * r + S.BODY])
                  for r in range(n_loop)))


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
            after = self._apply(pc, e, facts[state], out)
            if after is not None:
                self._propagate(state, e, after, facts, todo, out)
        return out

    def _apply(self, pc: int, e: Effect, before: tuple[int, int, int, int],
               out: Exploration) -> tuple[int, int, int, int] | None:
        """Records what instruction ``e`` at ``pc`` reads unwritten or writes twice, and
        returns the facts after it (None after END: the path ends)."""
        written, out_un, tmp_un, misc_un = before
        _add(out.twice, pc, written & e.out_writes)
        _add(out.tmp_unwritten_reads, pc, tmp_un & e.tmp_reads)
        _add(out.misc_unwritten_reads, pc, misc_un & e.misc_reads)
        written |= e.out_writes
        out_un &= ~e.out_writes
        tmp_un &= ~e.tmp_writes
        misc_un &= ~e.misc_writes
        info = e.ins.info
        flow = info.flow
        if flow is Flow.END:
            if not self.geometry:
                _add(out.unwritten, pc, out_un)
            return None
        emission = info.emission
        if emission is EmitEffect.SETUP:
            misc_un &= ~NO_SETEMIT
        elif emission is EmitEffect.EMIT:
            if misc_un & NO_SETEMIT:
                out.emit_without_setemit.add(pc)
            written = 0  # a new vertex: outputs are written afresh
            if self.geometry:
                _add(out.unwritten, pc, out_un)
                out_un = _ALL64
        elif flow is Flow.LOOP:
            misc_un &= ~AL
        return written, out_un, tmp_un, misc_un

    def _propagate(self, state: _State, e: Effect, after: tuple[int, int, int, int],
                   facts: dict, todo: list, out: Exploration) -> None:
        """Merges ``after`` into the facts of each successor of ``state``, queueing those
        whose facts grew."""
        effects = self.effects
        n = len(effects)
        pc = state.pc
        info = e.ins.info
        for nxt in self._successors(state, e, out):
            if (Writes.ADDRESS in info.writes and 0 <= nxt.pc < n
                    and Writes.ADDRESS in effects[nxt.pc].ins.info.writes):
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

    def _successors(self, s: _State, e: Effect, out: Exploration):
        """Every state after executing ``e`` at ``s.pc``: the instruction's flow effect and
        the stack check after it, both by :mod:`..flow.stacks` (the engines' machine),
        once for each way an unknown condition can go."""
        ins = e.ins
        info = OPCODES[ins.opcode]
        flow = info.flow
        if flow is Flow.NONE:
            yield from self._stack_check(s, S.NO_JUMP, False, out)
            return
        dst = ins.get("dst", 0)
        num = ins.get("num", 0)
        pushed = _PUSHES.get(flow)
        if pushed is not None:
            name, index = pushed
            if len((s.ifs, s.calls, s.loops)[index]) == _DEPTHS[index]:
                out.overflows.setdefault(s.pc, set()).add(name)
        ways = (True,) if info.condition is Condition.ALWAYS else (True, False)
        for taken in ways:
            ifs, calls, loops = _flat(s)
            jump, breaking, n_if, n_call, n_loop, _ = S.effect(
                int(flow), taken, s.pc, dst, num, ifs, len(s.ifs), calls, len(s.calls),
                loops, len(s.loops), 0, _UNKNOWN_COUNT, 0, 0)
            after = _State(s.pc, *_tuples(ifs, n_if, calls, n_call, loops, n_loop))
            yield from self._stack_check(after, jump, breaking, out)

    @staticmethod
    def _stack_check(s: _State, jump: int, brk: bool, out: Exploration):
        """The per-instruction stack check (:func:`..flow.stacks.next_pc`).  A loop count
        is unknown, so a LOOP whose end is reached both repeats and ends."""
        following = s.pc + 1
        if s.ifs and s.ifs[-1][0] == following and len(s.ifs) > 1 and s.ifs[-2][0] == following:
            out.scopes_together.setdefault(s.pc, set()).add("IF")
        at_loop_end = bool(s.loops) and (brk or s.loops[-1][0] == following)
        if (at_loop_end and not brk and len(s.loops) > 1
                and s.loops[-2][0] == following):
            out.scopes_together.setdefault(s.pc, set()).add("LOOP")
        counts = (0, _UNKNOWN_COUNT) if at_loop_end and not brk else (0,)
        for count in counts:
            ifs, calls, loops = _flat(s, count)
            pc, _, n_if, n_call, n_loop, hang = S.next_pc(
                ifs, len(s.ifs), calls, len(s.calls), loops, len(s.loops), s.pc, jump, brk,
                0, True, True, True)
            if hang:
                out.break_without_loop.add(s.pc)
                return  # the hardware hangs: this path ends
            popped = (n_if, n_call, n_loop) != (len(s.ifs), len(s.calls), len(s.loops)) or (
                at_loop_end)
            if jump != S.NO_JUMP and popped:
                out.jump_overridden.add(s.pc)
            yield _State(pc, *_tuples(ifs, n_if, calls, n_call, loops, n_loop))
