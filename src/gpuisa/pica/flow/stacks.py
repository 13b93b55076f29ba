"""The IF/CALL/LOOP stacks of one lane and the check run after every instruction.

3dbrew "Control Flow" and pica-emulation.md#flow: three independent ring buffers (IF 8
deep, CALL 4, LOOP 4) that drop their oldest entry when pushed while full (3dbrew: "A stack
overflow discards the oldest element"; pica-emulation.md#flow-stacks); only the top entry is
compared.  After each instruction (except END) every stack checks its own copy of the address of the
next instruction, in the order CALL, IF, LOOP; the PC chosen by the stage with the highest
priority wins: LOOP > IF > CALL > pending jump > PC + 1.

Representation.  A lane's stacks are three flat integer sequences and their entry
counts: ``ifs`` holds [trigger, destination] per entry, ``calls`` [trigger, return
address], ``loops`` [trigger, body, count, step, saved aL]; entry 0 is the oldest.  The
functions take the counts and return the new ones.  They are plain Python on purpose:
the reference engine runs them on lists, the path explorer of ``pica check`` follows
them, and the compiled engine's IR (``engine.compiled.flowir``) is tested against them.
"""

from __future__ import annotations

from ..isa import (
    CALL_POPS_EFFECTIVE,
    CALL_STACK_DEPTH,
    IF_STACK_DEPTH,
    LOOP_STACK_DEPTH,
    Condition,
    CondOp,
    Flow,
)

#: Integers per entry of each stack.
IF_WIDTH = 2
CALL_WIDTH = 2
LOOP_WIDTH = 5
#: Columns of a LOOP entry.
TRIGGER, BODY, COUNT, STEP, SAVED_AL = range(LOOP_WIDTH)
#: "No pending jump" / "this stage did not pop".
NO_JUMP = -1

# The flow effects and condition sources as plain integers; their meaning is the table
# in isa.py.
_JUMP, _IF, _CALL, _LOOP, _BREAK = (int(Flow.JUMP), int(Flow.IF), int(Flow.CALL),
                                    int(Flow.LOOP), int(Flow.BREAK))
_FLAGS, _BOOL, _BOOLNUM = int(Condition.FLAGS), int(Condition.BOOL), int(Condition.BOOLNUM)
_OR, _AND, _X = int(CondOp.OR), int(CondOp.AND), int(CondOp.X)


def new_stacks() -> tuple[list[int], list[int], list[int]]:
    """Empty (ifs, calls, loops) for the reference engine (all counts start at 0)."""
    return ([0] * (IF_STACK_DEPTH * IF_WIDTH), [0] * (CALL_STACK_DEPTH * CALL_WIDTH),
            [0] * (LOOP_STACK_DEPTH * LOOP_WIDTH))


def _make_room(stack, count, depth, width):
    """The row to fill for a push; a full stack first drops its oldest entry."""
    if count == depth:
        for i in range((depth - 1) * width):
            stack[i] = stack[i + width]
        return depth - 1
    return count


def push_if(ifs, n_if, trigger, destination):
    """Push an IF entry; returns the new count."""
    row = _make_room(ifs, n_if, IF_STACK_DEPTH, IF_WIDTH)
    ifs[row * IF_WIDTH] = trigger
    ifs[row * IF_WIDTH + 1] = destination
    return row + 1


def push_call(calls, n_call, trigger, return_to):
    """Push a CALL entry; returns the new count."""
    row = _make_room(calls, n_call, CALL_STACK_DEPTH, CALL_WIDTH)
    calls[row * CALL_WIDTH] = trigger
    calls[row * CALL_WIDTH + 1] = return_to
    return row + 1


def push_loop(loops, n_loop, trigger, body, count, step, saved_al):
    """Push a LOOP entry; returns the new count."""
    row = _make_room(loops, n_loop, LOOP_STACK_DEPTH, LOOP_WIDTH)
    base = row * LOOP_WIDTH
    loops[base + TRIGGER] = trigger
    loops[base + BODY] = body
    loops[base + COUNT] = count
    loops[base + STEP] = step
    loops[base + SAVED_AL] = saved_al
    return row + 1


def condition_holds(condop, refx, refy, cmpx, cmpy):
    """The condition of IFC/CALLC/JMPC/BREAKC (pica-isa.md#conditions): each flag compared with
    its reference bit, combined by CONDOP."""
    x = cmpx == (refx != 0)
    y = cmpy == (refy != 0)
    if condop == _OR:
        return x or y
    if condop == _AND:
        return x and y
    if condop == _X:
        return x
    return y


def taken(condition, condop, refx, refy, cmpx, cmpy, bool_value, num):
    """Whether a flow instruction's condition holds, by its condition source (isa.py)."""
    if condition == _FLAGS:
        return condition_holds(condop, refx, refy, cmpx, cmpy)
    if condition == _BOOL:
        return bool_value
    if condition == _BOOLNUM:
        # JMPU jumps if the bool uniform equals NOT bit 0 of NUM (pica-isa.md#op-jmpu).
        return bool_value == ((num & 1) == 0)
    return True


def effect_break(is_taken, pc, dst, num, ifs, n_if, calls, n_call, loops, n_loop, al,
                 loop_x, loop_y, loop_z):
    """BREAK/BREAKC: a pending break if the condition holds (the check pops the LOOP)."""
    return NO_JUMP, is_taken, n_if, n_call, n_loop, al


def effect_call(is_taken, pc, dst, num, ifs, n_if, calls, n_call, loops, n_loop, al,
                loop_x, loop_y, loop_z):
    """CALL/CALLC/CALLU: if taken, push the return (after DST .. DST+NUM-1) and jump."""
    jump = NO_JUMP
    if is_taken:
        n_call = push_call(calls, n_call, dst + num, pc + 1)
        jump = dst
    return jump, False, n_if, n_call, n_loop, al


def effect_if(is_taken, pc, dst, num, ifs, n_if, calls, n_call, loops, n_loop, al,
              loop_x, loop_y, loop_z):
    """IFC/IFU: true branch PC+1 .. DST-1 (then DST .. DST+NUM-1 is skipped), else jump
    to DST."""
    jump = dst
    if is_taken:
        n_if = push_if(ifs, n_if, dst, dst + num)
        jump = NO_JUMP
    return jump, False, n_if, n_call, n_loop, al


def effect_loop(is_taken, pc, dst, num, ifs, n_if, calls, n_call, loops, n_loop, al,
                loop_x, loop_y, loop_z):
    """LOOP: push the body PC+1 .. DST with the integer uniform's count and step; aL
    starts at its Y."""
    n_loop = push_loop(loops, n_loop, dst + 1, pc + 1, loop_x, loop_z, al)
    return NO_JUMP, False, n_if, n_call, n_loop, loop_y


def effect_jump(is_taken, pc, dst, num, ifs, n_if, calls, n_call, loops, n_loop, al,
                loop_x, loop_y, loop_z):
    """JMPC/JMPU: a pending jump to DST if taken."""
    jump = NO_JUMP
    if is_taken:
        jump = dst
    return jump, False, n_if, n_call, n_loop, al


#: Each flow kind's effect (same arguments as :func:`effect` without ``flow``).
EFFECTS = {Flow.BREAK: effect_break, Flow.CALL: effect_call, Flow.IF: effect_if,
           Flow.LOOP: effect_loop, Flow.JUMP: effect_jump}


def effect(flow, taken, pc, dst, num, ifs, nif, calls, ncall, loops, nloop, al, x, y, z):
    """What a flow instruction does once its condition is known
    (pica-emulation.md#flow-instructions): its flow kind's function of :data:`EFFECTS` (same
    arguments after ``flow``: whether the condition holds, PC, the fields DST and NUM, the stacks
    and their counts, aL, LOOP's integer uniform X, Y, Z).  Returns (pending jump or NO_JUMP,
    pending break, the counts, aL)."""
    if flow == _BREAK:
        return effect_break(taken, pc, dst, num, ifs, nif, calls, ncall, loops, nloop, al, x, y, z)
    if flow == _CALL:
        return effect_call(taken, pc, dst, num, ifs, nif, calls, ncall, loops, nloop, al, x, y, z)
    if flow == _IF:
        return effect_if(taken, pc, dst, num, ifs, nif, calls, ncall, loops, nloop, al, x, y, z)
    if flow == _LOOP:
        return effect_loop(taken, pc, dst, num, ifs, nif, calls, ncall, loops, nloop, al, x, y, z)
    if flow == _JUMP:
        return effect_jump(taken, pc, dst, num, ifs, nif, calls, ncall, loops, nloop, al, x, y, z)
    return NO_JUMP, False, nif, ncall, nloop, al


def next_pc(ifs, n_if, calls, n_call, loops, n_loop, pc, jump, breaking, al,
            check_call, check_if, check_loop):
    """The per-instruction stack check (pica-emulation.md#flow-check) after the instruction at
    ``pc``.

    ``jump`` is its pending jump (taken only if no stack popped: "JMP overwrites the PC
    *after* the stacks checks (and only if no stack was popped)"), ``breaking`` whether it
    was a BREAK or a BREAKC whose condition held.  ``check_*`` let a compiled engine skip
    stages that cannot pop after this instruction (the reference passes True).  Returns
    (new PC, aL, n_if, n_call, n_loop, hang); ``hang`` is a break with an empty LOOP stack
    (3dbrew: "Executing a BREAK on an empty LOOP stack hangs the GPU";
    pica-emulation.md#flow-check).
    """
    following = pc + 1

    # CALL: pops while the top matches its (updated) copy, up to the stack depth; the
    # fourth pop in a row does not update the PC any more (3dbrew: "the fourth update to its
    # copy of the PC is missed ... Probably a hardware bug"; pica-emulation.md#flow-check).
    call_pc = NO_JUMP
    if check_call:
        copy = following
        for pops in range(1, CALL_STACK_DEPTH + 1):
            if n_call == 0 or calls[(n_call - 1) * CALL_WIDTH] != copy:
                break
            n_call -= 1
            copy = calls[n_call * CALL_WIDTH + 1]
            if pops <= CALL_POPS_EFFECTIVE:
                call_pc = copy

    # IF: at most one pop per instruction, compared with the unmodified PC + 1.
    if_pc = NO_JUMP
    if check_if and n_if > 0 and ifs[(n_if - 1) * IF_WIDTH] == following:
        n_if -= 1
        if_pc = ifs[n_if * IF_WIDTH + 1]

    # LOOP: at most one pop; a pending break acts on the top loop wherever it is.
    loop_pc = NO_JUMP
    if check_loop:
        if breaking and n_loop == 0:
            return following, al, n_if, n_call, n_loop, True
        top = (n_loop - 1) * LOOP_WIDTH
        if n_loop > 0 and (breaking or loops[top + TRIGGER] == following):
            al += loops[top + STEP]  # also on break (pica-emulation.md#flow-check; Azahar)
            if breaking or loops[top + COUNT] == 0:
                loop_pc = loops[top + TRIGGER]
                n_loop -= 1
                # aL is restored only if an enclosing loop remains: an outermost loop
                # leaves aL at Y + (X + 1) * Z (pica-emulation.md#flow-check; Azahar).
                if n_loop > 0:
                    al = loops[top + SAVED_AL]
            else:
                loops[top + COUNT] -= 1
                loop_pc = loops[top + BODY]

    if loop_pc != NO_JUMP:
        return loop_pc, al, n_if, n_call, n_loop, False
    if if_pc != NO_JUMP:
        return if_pc, al, n_if, n_call, n_loop, False
    if call_pc != NO_JUMP:
        return call_pc, al, n_if, n_call, n_loop, False
    if jump != NO_JUMP:
        return jump, al, n_if, n_call, n_loop, False
    return following, al, n_if, n_call, n_loop, False
