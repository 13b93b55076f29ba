"""The flow rules of :mod:`.flow` compiled by Numba for the JIT engine.

:mod:`.flow.stacks` and :mod:`.flow.emission` are plain Python on flat integer
sequences; registering them with ``register_jitable`` lets the generated kernels and
the interpreter call these very functions on int64 arrays (Numba compiles the same
text), so the stack machine and the emission rules exist once.
``tests/pica/engine/test_flow_machine.py`` runs them both ways and compares.

Only imported when Numba is installed.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.extending import register_jitable

from ...flow import emission, stacks
from . import cache  # noqa: F401  (first: drops stale compiled code)

for _function in (stacks._make_room, stacks.push_if, stacks.push_call, stacks.push_loop,
                  stacks.effect, stacks.next_pc, emission.setemit, emission.emit):
    register_jitable(_function)
# The condition is inlined by Numba where it is called (the per-program kernels call it
# with an instruction's fields as constants, once per lane in divergent kernels); the
# effects are called.  Inlining the effects too made the lighting benchmark's divergent
# kernel 10-15 % faster, but Numba's SSA pass then warns (NumbaIRAssumptionWarning,
# numba#7802, which also reports wrong results) wherever an inlined function assigns
# a variable in a branch, as the CALL and IF effects must (measured 2026-11-25).
for _function in (stacks.condition_holds, stacks.taken):
    register_jitable(inline="always")(_function)
for _function in stacks.EFFECTS.values():
    register_jitable(_function)

push_if = stacks.push_if
push_call = stacks.push_call
push_loop = stacks.push_loop
condition_holds = stacks.condition_holds
taken = stacks.taken
effect = stacks.effect
#: Each flow kind's effect (``stacks.EFFECTS``; the per-program kernels call their
#: instruction's by its name).
effect_break = stacks.effect_break
effect_call = stacks.effect_call
effect_if = stacks.effect_if
effect_loop = stacks.effect_loop
effect_jump = stacks.effect_jump
next_pc = stacks.next_pc
setemit = emission.setemit
emit = emission.emit
NO_JUMP = stacks.NO_JUMP
#: Lengths of the flat stack arrays.
IF_SIZE = len(stacks.new_stacks()[0])
CALL_SIZE = len(stacks.new_stacks()[1])
LOOP_SIZE = len(stacks.new_stacks()[2])


@njit(cache=True)
def replay(table):
    """Run a table of stack operations (kind, a, b, flag) on int64 arrays: 0 push_if(a,
    b), 1 push_call(a, b), 2 push_loop(a, b, a % 3, b % 4 - 1, aL), 3 next_pc(pc=a, jump
    b if flag, break if flag and a even).  Returns a row (pc, aL, counts..., hang) per
    check; the test of the flow machine compares it with the plain Python run."""
    ifs = np.zeros(IF_SIZE, np.int64)
    calls = np.zeros(CALL_SIZE, np.int64)
    loops = np.zeros(LOOP_SIZE, np.int64)
    n_if = n_call = n_loop = 0
    al = 0
    rows = np.zeros((table.shape[0], 6), np.int64)
    n = 0
    for k in range(table.shape[0]):
        kind, a, b, flag = table[k, 0], table[k, 1], table[k, 2], table[k, 3]
        if kind == 0:
            n_if = push_if(ifs, n_if, a, b)
        elif kind == 1:
            n_call = push_call(calls, n_call, a, b)
        elif kind == 2:
            n_loop = push_loop(loops, n_loop, a, b, a % 3, b % 4 - 1, al)
        else:
            jump = b if flag != 0 else NO_JUMP
            pc, al, n_if, n_call, n_loop, hang = next_pc(
                ifs, n_if, calls, n_call, loops, n_loop, a, jump, flag != 0 and a % 2 == 0,
                al, True, True, True)
            rows[n, 0] = pc
            rows[n, 1] = al
            rows[n, 2] = n_if
            rows[n, 3] = n_call
            rows[n, 4] = n_loop
            rows[n, 5] = 1 if hang else 0
            n += 1
    return rows[:n]
