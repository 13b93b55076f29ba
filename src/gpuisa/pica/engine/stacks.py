"""The batch engine's object form of the control-flow stacks (to be removed with it).

The stack machine is defined once in :mod:`..flow.stacks` (which the reference and the
compiled engines run); this is the batch engine's copy on dataclasses, kept equal to it
by the differential tests.  3dbrew "Control Flow" (seed 002) and notes §5: ring buffers
(IF 8 deep, CALL 4, LOOP 4) that drop their oldest entry when pushed while full; after
each instruction (except END) the check order is CALL, IF, LOOP and the priority
LOOP > IF > CALL > pending jump > PC + 1.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from ...errors import ShaderHang
from ..isa import (
    CALL_POPS_EFFECTIVE,
    CALL_STACK_DEPTH,
    IF_STACK_DEPTH,
    LOOP_STACK_DEPTH,
    Opcode,
)

#: A hashable snapshot of :class:`ControlStacks`: the IF, CALL and LOOP entries as tuples
#: of their fields, oldest first (engines that group lanes compare and cache these).
StackKey = tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...],
                 tuple[tuple[int, int, int, int, int], ...]]
EMPTY_STACKS: StackKey = ((), (), ())


@dataclass(frozen=True, slots=True)
class IfEntry:
    trigger: int  # DST: end of the true branch
    destination: int  # DST + NUM: end of the else branch


@dataclass(frozen=True, slots=True)
class CallEntry:
    trigger: int  # DST + NUM
    return_to: int  # address after the CALL


@dataclass(slots=True)
class LoopEntry:
    trigger: int  # DST + 1: the instruction after the body
    body: int  # address after the LOOP
    count: int  # iterations left after the current one (starts at INT.x)
    step: int  # INT.z, added to aL after each iteration
    saved_al: int  # aL when the LOOP executed


@dataclass(slots=True)
class ControlStacks:
    """The three stacks of one lane; ``deque(maxlen=...)`` is exactly the hardware ring
    buffer: appending to a full stack discards the oldest entry (seed: "A stack overflow
    discards the oldest element")."""

    ifs: deque[IfEntry] = field(default_factory=lambda: deque(maxlen=IF_STACK_DEPTH))
    calls: deque[CallEntry] = field(default_factory=lambda: deque(maxlen=CALL_STACK_DEPTH))
    loops: deque[LoopEntry] = field(default_factory=lambda: deque(maxlen=LOOP_STACK_DEPTH))

    def push_if(self, trigger: int, destination: int) -> None:
        self.ifs.append(IfEntry(trigger, destination))

    def push_call(self, trigger: int, return_to: int) -> None:
        self.calls.append(CallEntry(trigger, return_to))

    def push_loop(self, trigger: int, body: int, count: int, step: int, saved_al: int) -> None:
        self.loops.append(LoopEntry(trigger, body, count, step, saved_al))

    def key(self) -> StackKey:
        return (tuple((e.trigger, e.destination) for e in self.ifs),
                tuple((e.trigger, e.return_to) for e in self.calls),
                tuple((e.trigger, e.body, e.count, e.step, e.saved_al) for e in self.loops))

    @classmethod
    def from_key(cls, key: StackKey) -> ControlStacks:
        ifs, calls, loops = key
        return cls(deque((IfEntry(*e) for e in ifs), maxlen=IF_STACK_DEPTH),
                   deque((CallEntry(*e) for e in calls), maxlen=CALL_STACK_DEPTH),
                   deque((LoopEntry(*e) for e in loops), maxlen=LOOP_STACK_DEPTH))

    def copy(self) -> ControlStacks:
        return ControlStacks(
            deque(self.ifs, maxlen=IF_STACK_DEPTH),
            deque(self.calls, maxlen=CALL_STACK_DEPTH),
            deque((LoopEntry(e.trigger, e.body, e.count, e.step, e.saved_al)
                   for e in self.loops), maxlen=LOOP_STACK_DEPTH),
        )


def next_pc(stacks: ControlStacks, pc: int, jump: int | None, breaking: bool,
            al: int) -> tuple[int, int]:
    """The per-instruction stack check (notes §5.3).  Returns ``(new PC, new aL)``.

    ``pc`` is the address of the instruction just executed, ``jump`` its pending jump
    target (taken only if no stack popped: "JMP overwrites the PC *after* the stacks
    checks (and only if no stack was popped)"), ``breaking`` whether it was a BREAK or a
    BREAKC whose condition held.  Raises :class:`ShaderHang` for a break with an empty
    LOOP stack (seed: "Executing a BREAK on an empty LOOP stack hangs the GPU").
    """
    following = pc + 1

    # CALL: pops while the top matches its (updated) copy, up to the stack depth; the
    # fourth pop in a row does not update the PC any more (seed: "the fourth update to its
    # copy of the PC is missed ... Probably a hardware bug").
    call_pc = None
    copy = following
    for pops in range(1, CALL_STACK_DEPTH + 1):
        if not stacks.calls or stacks.calls[-1].trigger != copy:
            break
        copy = stacks.calls.pop().return_to
        if pops <= CALL_POPS_EFFECTIVE:
            call_pc = copy

    # IF: at most one pop per instruction, compared with the unmodified PC + 1.
    if_pc = None
    if stacks.ifs and stacks.ifs[-1].trigger == following:
        if_pc = stacks.ifs.pop().destination

    # LOOP: at most one pop; a pending break acts on the top loop wherever it is.
    loop_pc = None
    if breaking and not stacks.loops:
        raise ShaderHang("BREAK with an empty LOOP stack", pc=pc)
    if stacks.loops and (breaking or stacks.loops[-1].trigger == following):
        top = stacks.loops[-1]
        al += top.step  # also on break (notes §5.3; Azahar)
        if breaking or top.count == 0:
            loop_pc = top.trigger
            stacks.loops.pop()
            # aL is restored only if an enclosing loop remains: an outermost loop leaves
            # aL at Y + (X + 1) * Z (notes §5.3; Azahar).
            if stacks.loops:
                al = top.saved_al
        else:
            top.count -= 1
            loop_pc = top.body

    for candidate in (loop_pc, if_pc, call_pc, jump):
        if candidate is not None:
            return candidate, al
    return following, al


def flow_effect(op: Opcode, pc: int, dst: int, num: int, taken: bool,
                stacks: ControlStacks, al: int,
                loop: tuple[int, int, int] | None = None) -> tuple[int | None, bool, int]:
    """What a flow instruction does once its condition is known (notes §5.2).

    ``taken`` is the evaluated condition (IFC/IFU/CALLC/CALLU/JMPC/JMPU/BREAKC; True for
    the unconditional ones); ``loop`` is (X, Y, Z) of LOOP's integer uniform.  Pushes
    onto ``stacks`` and returns (pending jump, pending break, new aL).
    """
    if op in (Opcode.BREAK, Opcode.BREAKC):
        return None, taken, al
    if op in (Opcode.CALL, Opcode.CALLC, Opcode.CALLU):
        if not taken:
            return None, False, al
        stacks.push_call(dst + num, pc + 1)
        return dst, False, al
    if op in (Opcode.IFU, Opcode.IFC):
        if taken:
            # True branch PC+1 .. DST-1, then DST .. DST+NUM-1 is skipped.
            stacks.push_if(dst, dst + num)
            return None, False, al
        return dst, False, al
    if op is Opcode.LOOP:
        assert loop is not None
        x, y, z = loop
        stacks.push_loop(dst + 1, pc + 1, x, z, al)
        return None, False, y
    if op in (Opcode.JMPC, Opcode.JMPU):
        return (dst if taken else None), False, al
    raise AssertionError(f"unhandled flow instruction {op.name}")
