"""The control-flow stacks of :mod:`.stacks` as Numba functions on small integer arrays.

One lane's stacks live in three arrays reused for every lane of a kernel call: ``ifs``
(8 x [trigger, destination]), ``calls`` (4 x [trigger, return address]) and ``loops``
(4 x [trigger, body, count, step, saved aL]), each with its entry count kept by the
kernel.  Pushing onto a full stack discards the oldest entry (:class:`.stacks.ControlStacks`
uses ``deque(maxlen=...)``); :func:`next_pc` is :func:`.stacks.next_pc`.  The kernels
call :func:`next_pc` only after instructions where a stack can pop (the address after
them is the trigger of some push in the program, or the instruction breaks): after any
other instruction every stage of the check finds nothing to do.

Only imported when Numba is installed.
"""

from __future__ import annotations

from numba import njit

from ..isa import CALL_POPS_EFFECTIVE, CALL_STACK_DEPTH, IF_STACK_DEPTH, LOOP_STACK_DEPTH
from . import jit_cache  # noqa: F401  (first: drops stale compiled code)

_rule = njit(cache=True, error_model="numpy")

#: Columns of a LOOP entry.
TRIGGER, BODY, COUNT, STEP, SAVED_AL = range(5)
NO_JUMP = -1


@_rule
def _push(stack, count, depth):
    """Make room for one entry; returns the row to fill (the ring buffer drops the oldest
    entry of a full stack)."""
    if count == depth:
        for row in range(depth - 1):
            stack[row, :] = stack[row + 1, :]
        return depth - 1
    return count


@_rule
def push_if(ifs, count, trigger, destination):
    row = _push(ifs, count, IF_STACK_DEPTH)
    ifs[row, 0] = trigger
    ifs[row, 1] = destination
    return row + 1


@_rule
def push_call(calls, count, trigger, return_to):
    row = _push(calls, count, CALL_STACK_DEPTH)
    calls[row, 0] = trigger
    calls[row, 1] = return_to
    return row + 1


@_rule
def push_loop(loops, count, trigger, body, iterations, step, saved_al):
    row = _push(loops, count, LOOP_STACK_DEPTH)
    loops[row, TRIGGER] = trigger
    loops[row, BODY] = body
    loops[row, COUNT] = iterations
    loops[row, STEP] = step
    loops[row, SAVED_AL] = saved_al
    return row + 1


@_rule
def next_pc(ifs, n_if, calls, n_call, loops, n_loop, following, jump, breaking, al,
            check_call, check_if, check_loop):
    """The per-instruction stack check.  Returns (new PC, aL, n_if, n_call, n_loop, hang);
    ``hang`` is a BREAK with an empty LOOP stack.  ``check_*`` (compile-time constants in
    the kernels) skip stages that cannot pop after this instruction."""
    call_pc = NO_JUMP
    if check_call:
        copy = following
        for pops in range(1, CALL_STACK_DEPTH + 1):
            if n_call == 0 or calls[n_call - 1, 0] != copy:
                break
            n_call -= 1
            copy = calls[n_call, 1]
            if pops <= CALL_POPS_EFFECTIVE:
                call_pc = copy

    if_pc = NO_JUMP
    if check_if and n_if > 0 and ifs[n_if - 1, 0] == following:
        n_if -= 1
        if_pc = ifs[n_if, 1]

    loop_pc = NO_JUMP
    if check_loop:
        if breaking and n_loop == 0:
            return following, al, n_if, n_call, n_loop, True
        if n_loop > 0 and (breaking or loops[n_loop - 1, TRIGGER] == following):
            top = n_loop - 1
            al += loops[top, STEP]
            if breaking or loops[top, COUNT] == 0:
                loop_pc = loops[top, TRIGGER]
                n_loop -= 1
                if n_loop > 0:
                    al = loops[top, SAVED_AL]
            else:
                loops[top, COUNT] -= 1
                loop_pc = loops[top, BODY]

    for candidate in (loop_pc, if_pc, call_pc, jump):
        if candidate != NO_JUMP:
            return candidate, al, n_if, n_call, n_loop, False
    return following, al, n_if, n_call, n_loop, False
