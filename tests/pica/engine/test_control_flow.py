"""Control flow: the IF/CALL/LOOP stacks, their per-instruction check and its corner cases.

Every program is hand-encoded; the expected register values come from tracing the
program by hand with the rules of 3dbrew "Control Flow" and
pica-emulation.md#flow.  Markers: ``add rN, rN, c0`` with c0 = (1, 1, 1, 1) counts
how often an instruction ran in rN.x.
"""

import numpy as np
import pytest
from engine_kit import Asm

from gpuisa.errors import InputError, ShaderHang
from gpuisa.pica.engine import run
from gpuisa.pica.isa import CompareOp, CondOp

ONE = {"c0": [1.0, 1.0, 1.0, 1.0]}


def mark(a, n):
    """rN.x += 1."""
    return a.op("add", f"r{n}", "c0", f"r{n}")


def counts(result):
    return {int(k[1:]): int(v[0, 0]) for k, v in result.temporaries.items() if v[0, 0]}


def execute(a, engine, uniforms=None, inputs=None, **kw):
    return run(a.program(), inputs or {}, uniforms={**ONE, **(uniforms or {})},
               engine=engine, **kw, registers=True)


# -- CALL ------------------------------------------------------------------------------


def test_call_returns_after_its_scope(engine):
    a = Asm()
    a.flow("call", dst=3, num=2)  # 0: (trigger 5, return 1)
    mark(a, 1)  # 1
    a.end()  # 2
    mark(a, 2)  # 3
    mark(a, 3)  # 4: last of the scope
    mark(a, 4)  # 5: never
    a.end()  # 6
    assert counts(execute(a, engine)) == {1: 1, 2: 1, 3: 1}


def test_nested_calls_whose_returns_coincide(engine):
    """B returns to A's trigger: both pop after the same instruction (CALL chain)."""
    a = Asm()
    a.flow("call", dst=3, num=2)  # 0: A = (trigger 5, return 1)
    mark(a, 1)  # 1: reached when A returns
    a.end()  # 2
    mark(a, 2)  # 3: A body
    a.flow("call", dst=6, num=1)  # 4: B = (trigger 7, return 5); top is B: no pop at 5
    mark(a, 3)  # 5: A's trigger: must not run
    mark(a, 4)  # 6: B body, last: pops B (-> 5) and then A (5 == 5, -> 1)
    a.end()  # 7
    assert counts(execute(a, engine)) == {1: 1, 2: 1, 4: 1}


def _chain(depth):
    """``depth`` nested CALLs each returning exactly to its caller's trigger."""
    a = Asm()
    a.flow("call", dst=4, num=2)  # 0: A = (trigger 6, return 1)
    mark(a, 1)  # 1: the proper return of A
    a.end()  # 2
    a.nop()  # 3
    mark(a, 2)  # 4: A body
    if depth == 1:
        a.nop()  # 5: last of A
        a.end()
        return a
    a.flow("call", dst=8, num=2)  # 5: B = (trigger 10, return 6)
    mark(a, 6)  # 6: A's trigger: reached only through the four-pops bug
    a.end()  # 7
    mark(a, 3)  # 8: B body
    if depth == 2:
        a.nop()  # 9: last of B: pops B -> 6, A -> 1
        return a
    a.flow("call", dst=12, num=2 if depth > 3 else 1)  # 9: C = (trigger 14 or 13, return 10)
    a.nop()  # 10: B's trigger
    a.nop()  # 11
    mark(a, 4)  # 12: C body (last if depth == 3: pops C -> 10, B -> 6, A -> 1)
    if depth == 3:
        return a
    a.flow("call", dst=16, num=1)  # 13: D = (trigger 17, return 14)
    a.nop()  # 14: C's trigger
    a.nop()  # 15
    mark(a, 5)  # 16: D body: pops D -> 14, C -> 10, B -> 6, A (4th pop: update lost)
    a.end()  # 17
    return a


@pytest.mark.parametrize(
    ("depth", "expected"),
    [
        (2, {1: 1, 2: 1, 3: 1}),
        (3, {1: 1, 2: 1, 3: 1, 4: 1}),
        # Four pops in a row: the PC is the third pop's return address, 6 (A's trigger);
        # A is nevertheless popped, so 6 runs and then END at 7.
        (4, {2: 1, 3: 1, 4: 1, 5: 1, 6: 1}),
    ],
)
def test_call_chain_and_the_four_pops_bug(engine, depth, expected):
    assert counts(execute(_chain(depth), engine)) == expected


def test_call_stack_overflow_drops_the_oldest_entry(engine):
    """Five nested CALLs: the fifth push discards the first (a ring buffer,
    pica-emulation.md#flow-stacks).

    Each callee is the next CALL; each return address holds a JMPU (b0 = true) to the
    instruction just before the caller's trigger, so the scopes unwind one by one.
    """
    a = Asm()
    a.flow("call", dst=2, num=14)  # 0: #1 = (trigger 16, return 1)
    a.end()  # 1: where #1 would return
    a.flow("call", dst=4, num=11)  # 2: #2 = (15, 3)
    a.flow("jmpu", dst=14, num=0, id=0)  # 3
    a.flow("call", dst=6, num=8)  # 4: #3 = (14, 5)
    a.flow("jmpu", dst=13, num=0, id=0)  # 5
    a.flow("call", dst=8, num=5)  # 6: #4 = (13, 7)
    a.flow("jmpu", dst=12, num=0, id=0)  # 7
    a.flow("call", dst=10, num=2)  # 8: #5 = (12, 9): pushes #1 out
    a.flow("jmpu", dst=11, num=0, id=0)  # 9
    mark(a, 1)  # 10
    mark(a, 2)  # 11: last of #5 -> 9 -> 11 again -> 12
    a.nop()  # 12: last of #4 -> 7 -> 12 -> 13
    a.nop()  # 13: last of #3 -> 5 -> 13 -> 14
    a.nop()  # 14: last of #2 -> 3 -> 14 -> 15
    mark(a, 3)  # 15
    mark(a, 4)  # 16: last of #1, which is gone: no return to 1
    a.end()  # 17
    result = execute(a, engine, uniforms={"b0": True})
    assert counts(result) == {1: 1, 2: 2, 3: 1, 4: 1}


def test_callc_and_callu_only_call_when_their_condition_holds(engine):
    a = Asm()
    a.flow("callu", dst=6, num=1, id=3)  # 0: b3
    a.flow("callc", dst=7, num=1, condop=CondOp.X, refx=1)  # 1: cmp.x == 1
    a.flow("callc", dst=8, num=1, condop=CondOp.Y, refy=1)  # 2: cmp.y == 1
    a.end()  # 3
    a.nop()  # 4
    a.nop()  # 5
    mark(a, 1)  # 6
    mark(a, 2)  # 7
    mark(a, 3)  # 8
    result = execute(a, engine, uniforms={"b3": False}, cmp=(True, False))
    assert counts(result) == {2: 1}
    result = execute(a, engine, uniforms={"b3": True}, cmp=(False, True))
    assert counts(result) == {1: 1, 3: 1}


# -- IF ----------------------------------------------------------------------------------


def _if_else(a, mnemonic, **cond):
    a.flow(mnemonic, dst=3, num=2, **cond)  # 0: true: 1..2, else: 3..4
    mark(a, 1)  # 1
    mark(a, 2)  # 2
    mark(a, 3)  # 3 else
    mark(a, 4)  # 4 else
    mark(a, 5)  # 5 after
    a.end()
    return a


@pytest.mark.parametrize(("value", "expected"),
                         [(True, {1: 1, 2: 1, 5: 1}), (False, {3: 1, 4: 1, 5: 1})])
def test_ifu_runs_one_branch(engine, value, expected):
    a = _if_else(Asm(), "ifu", id=7)
    assert counts(execute(a, engine, uniforms={"b7": value})) == expected


@pytest.mark.parametrize(
    ("condop", "refx", "refy", "cmp", "taken"),
    [
        (CondOp.OR, 1, 1, (False, True), True),
        (CondOp.OR, 1, 1, (False, False), False),
        (CondOp.AND, 1, 0, (True, False), True),
        (CondOp.AND, 1, 0, (True, True), False),
        (CondOp.X, 0, 1, (False, False), True),
        (CondOp.X, 0, 1, (True, True), False),
        (CondOp.Y, 0, 1, (False, True), True),
        (CondOp.Y, 1, 0, (True, True), False),
    ],
)
def test_ifc_conditions(engine, condop, refx, refy, cmp, taken):
    a = _if_else(Asm(), "ifc", condop=condop, refx=refx, refy=refy)
    expected = {1: 1, 2: 1, 5: 1} if taken else {3: 1, 4: 1, 5: 1}
    assert counts(execute(a, engine, cmp=cmp)) == expected


def _nested_ifs(depth):
    """``depth`` nested IFU (all true) with one-instruction else blocks.

    IF k (k = 1..depth) is at address k - 1 with DST_k = 2 * depth + 1 - 2k + 1 ... laid
    out so that each true branch ends with a NOP right before its else block:
    DST_depth = depth + 1 and DST_k = DST_{k+1} + 2.  The else block of IF k marks rk.
    """
    a = Asm()
    dst = {k: depth + 1 + 2 * (depth - k) for k in range(1, depth + 1)}
    for k in range(1, depth + 1):
        a.flow("ifu", dst=dst[k], num=1, id=0)
    a.nop()  # innermost true branch
    for k in range(depth, 0, -1):
        assert a.pc == dst[k]
        mark(a, k)  # else block of IF k
        if k > 1:
            a.nop()  # last instruction of IF k-1's true branch
    a.end()
    return a


@pytest.mark.parametrize(
    ("depth", "expected"),
    [
        (8, {}),  # 8 entries fit: every else block is skipped
        (9, {1: 1}),  # the 9th push discards IF 1: its else block runs
        (10, {1: 1, 2: 1}),
    ],
)
def test_if_stack_overflow_drops_the_oldest_entry(engine, depth, expected):
    assert counts(execute(_nested_ifs(depth), engine, uniforms={"b0": True})) == expected


# -- JMP ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "num", "taken"),
    [(True, 0, True), (False, 0, False), (True, 1, False), (False, 1, True),
     (True, 0xFE, True), (False, 0xFF, True)],
)
def test_jmpu_inversion_bit(engine, value, num, taken):
    """JMPU jumps iff b == !(NUM & 1) (pica-isa.md#op-jmpu)."""
    a = Asm()
    a.flow("jmpu", dst=3, num=num, id=2)  # 0
    mark(a, 1)  # 1: not taken
    a.end()  # 2
    mark(a, 3)  # 3: taken
    a.end()
    expected = {3: 1} if taken else {1: 1}
    assert counts(execute(a, engine, uniforms={"b2": value})) == expected


def test_jmpc_jumps_on_its_condition(engine):
    a = Asm()
    a.flow("jmpc", dst=3, condop=CondOp.AND, refx=1, refy=1)
    mark(a, 1)
    a.end()
    mark(a, 3)
    a.end()
    assert counts(execute(a, engine, cmp=(True, True))) == {3: 1}
    assert counts(execute(a, engine, cmp=(True, False))) == {1: 1}


def test_jmp_on_the_last_instruction_of_a_call_is_not_taken(engine):
    a = Asm()
    a.flow("call", dst=3, num=2)  # 0: (trigger 5, return 1)
    mark(a, 1)  # 1
    a.end()  # 2
    mark(a, 2)  # 3
    a.flow("jmpu", dst=7, num=0, id=0)  # 4: last of the CALL: the pop overrides the jump
    a.end()  # 5
    a.nop()  # 6
    mark(a, 7)  # 7
    a.end()  # 8
    assert counts(execute(a, engine, uniforms={"b0": True})) == {1: 1, 2: 1}


def test_jmp_on_the_last_instruction_of_an_if_is_not_taken(engine):
    a = Asm()
    a.flow("ifu", dst=3, num=2, id=0)  # 0: true -> push (3, 5)
    mark(a, 1)  # 1
    a.flow("jmpu", dst=6, num=0, id=0)  # 2: last of the true branch
    mark(a, 3)  # 3 else
    mark(a, 4)  # 4 else
    mark(a, 5)  # 5
    mark(a, 6)  # 6
    a.end()
    assert counts(execute(a, engine, uniforms={"b0": True})) == {1: 1, 5: 1, 6: 1}


def test_jmp_on_the_last_instruction_of_a_loop_is_not_taken(engine):
    a = Asm()
    a.flow("loop", dst=2, id=0)  # 0: body 1..2, 3 iterations
    mark(a, 1)  # 1
    a.flow("jmpu", dst=5, num=0, id=0)  # 2: last of the body
    mark(a, 3)  # 3
    a.end()  # 4
    mark(a, 5)  # 5
    a.end()
    result = execute(a, engine, uniforms={"b0": True, "i0": [2, 0, 0, 0]})
    assert counts(result) == {1: 3, 3: 1}


def test_jmp_inside_a_scope_is_taken(engine):
    a = Asm()
    a.flow("call", dst=3, num=3)  # 0: (trigger 6, return 1)
    mark(a, 1)  # 1
    a.end()  # 2
    a.flow("jmpu", dst=5, num=0, id=0)  # 3: not the last instruction: jumps
    mark(a, 4)  # 4: skipped
    mark(a, 5)  # 5: last of the CALL
    a.end()
    assert counts(execute(a, engine, uniforms={"b0": True})) == {1: 1, 5: 1}


# -- LOOP --------------------------------------------------------------------------------

TABLE = {f"c{k}": [float(k)] * 4 for k in range(1, 32)}  # ck = (k, k, k, k); c0 = ones


def test_loop_iterations_al_start_and_step(engine):
    """X + 1 iterations; aL = Y, then + Z after each; an outermost loop leaves
    aL = Y + (X + 1) * Z."""
    a = Asm()
    a.flow("loop", dst=2, id=1)  # 0: i1 = (X 3, Y 2, Z 5)
    mark(a, 1)  # 1: iterations
    a.op("add", "r2", "c0", "r2", idx=3)  # 2: r2 += c[aL] = aL (with c0 replaced below)
    a.end()
    uniforms = {**TABLE, "i1": [3, 2, 5, 0]}
    result = execute(a, engine, uniforms=uniforms)
    # aL = 2, 7, 12, 17 during the iterations; c[aL] = aL
    assert counts(result) == {1: 4, 2: 2 + 7 + 12 + 17}
    assert result.address[0].tolist() == [0, 0, 2 + 4 * 5]


def test_loop_count_zero_runs_once(engine):
    a = Asm()
    a.flow("loop", dst=1, id=0)
    mark(a, 1)
    a.end()
    assert counts(execute(a, engine, uniforms={"i0": [0, 0, 0, 0]})) == {1: 1}


def test_nested_loops_restore_al(engine):
    a = Asm()
    a.flow("loop", dst=4, id=0)  # 0: outer, i0 = (1, 10, 5): aL 10, 15
    a.flow("loop", dst=2, id=1)  # 1: inner, i1 = (2, 0, 1): aL 0, 1, 2
    a.op("add", "r1", "c0", "r1", idx=3)  # 2: r1 += aL
    a.nop()  # 3: keeps the loop ends apart
    a.op("add", "r2", "c0", "r2", idx=3)  # 4: r2 += aL after the inner loop
    a.end()  # 5
    result = execute(a, engine, uniforms={**TABLE, "i0": [1, 10, 5, 0], "i1": [2, 0, 1, 0]})
    # c[aL] = aL except c0 = 1.  Inner exits restore aL to the outer loop's value (10,
    # then 15); the outer exit leaves 10 + 2 * 5 = 20 (no enclosing loop to restore).
    assert counts(result) == {1: 2 * (1 + 1 + 2), 2: 10 + 15}
    assert result.address[0, 2] == 20


def test_nested_loops_sharing_their_last_instruction(engine):
    """Only one LOOP pop per instruction: the outer loop never sees its end."""
    a = Asm()
    a.flow("loop", dst=3, id=0)  # 0: outer (2 iterations if it worked)
    mark(a, 1)  # 1
    a.flow("loop", dst=3, id=1)  # 2: inner, 3 iterations
    mark(a, 2)  # 3: last of both bodies
    mark(a, 3)  # 4
    a.end()  # 5
    result = execute(a, engine, uniforms={"i0": [1, 0, 0, 0], "i1": [2, 0, 0, 0]})
    # After the inner loop's last iteration the inner entry pops (-> 4); the outer
    # entry is not checked in the same instruction, and at 4 (N = 5) it does not match.
    assert counts(result) == {1: 1, 2: 3, 3: 1}


def test_loop_stack_overflow_drops_the_oldest(engine):
    """Five nested loops of 2 iterations; the fifth push discards the outermost."""
    a = Asm()
    for k in range(5):
        a.flow("loop", dst=9 - k, id=0)  # k: loop k, body k+1 .. 9-k
    mark(a, 1)  # 5: body of loop 4
    for n in range(2, 6):
        mark(a, n)  # 6..9: last instruction of loop 3, 2, 1, 0
    a.end()  # 10
    result = execute(a, engine, uniforms={"i0": [1, 0, 0, 0]})
    # Loops 1-4 nest intact: 2**4 runs of the innermost body; loop 0 is gone, so its
    # body (everything) runs once and r5 (its last instruction) once.
    assert counts(result) == {1: 16, 2: 8, 3: 4, 4: 2, 5: 1}


def test_breakc_inside_a_loop(engine):
    a = Asm()
    a.flow("loop", dst=4, id=0)  # 0: i0 = (9, 0, 1): up to 10 iterations
    a.op("add", "r0", "c0", "r0")  # 1: r0 += 1
    a.op("cmp", None, "r0", "v0", cmpx=CompareOp.GE, cmpy=CompareOp.GE)  # 2: r0 >= 3
    a.flow("breakc", condop=CondOp.X, refx=1)  # 3
    mark(a, 1)  # 4: last of the body
    a.end()  # 5
    result = execute(a, engine, uniforms={"i0": [9, 0, 1, 0]}, inputs={"v0": [3.0] * 4})
    assert counts(result) == {0: 3, 1: 2}
    # aL: 0 -> 1 -> 2 after two iterations, + 1 on the break (pica-emulation.md#flow-check)
    assert result.address[0, 2] == 3


def test_break_leaves_the_loop(engine):
    a = Asm()
    a.flow("loop", dst=3, id=0)  # 0
    mark(a, 1)  # 1
    a.flow("break")  # 2
    mark(a, 2)  # 3: skipped
    mark(a, 3)  # 4
    a.end()
    assert counts(execute(a, engine, uniforms={"i0": [5, 0, 0, 0]})) == {1: 1, 3: 1}


def test_break_with_an_empty_loop_stack_hangs(engine):
    a = Asm()
    a.nop()
    a.flow("break")
    a.end()
    with pytest.raises(ShaderHang) as info:
        execute(a, engine)
    assert info.value.pc == 1


def test_breakc_false_outside_a_loop_does_not_hang(engine):
    a = Asm()
    a.flow("breakc", condop=CondOp.X, refx=1)
    mark(a, 1)
    a.end()
    assert counts(execute(a, engine)) == {1: 1}


# -- priorities ---------------------------------------------------------------------------


def test_loop_has_priority_over_if(engine):
    a = Asm()
    a.flow("loop", dst=2, id=0)  # 0: 2 iterations, trigger 3
    a.flow("ifu", dst=3, num=1, id=0)  # 1: true branch 2, else 3
    mark(a, 0)  # 2: last of both: IF pops (-> 4) but LOOP wins (-> 1, then -> 3)
    mark(a, 1)  # 3: the IF's else block, reached through the LOOP exit
    mark(a, 2)  # 4
    a.end()
    result = execute(a, engine, uniforms={"i0": [1, 0, 0, 0], "b0": True})
    assert counts(result) == {0: 2, 1: 1, 2: 1}


def test_if_has_priority_over_call(engine):
    a = Asm()
    a.flow("call", dst=3, num=2)  # 0: (trigger 5, return 1)
    mark(a, 1)  # 1
    a.end()  # 2
    a.flow("ifu", dst=5, num=2, id=0)  # 3: true -> push (5, 7)
    mark(a, 0)  # 4: last of both: CALL (-> 1) and IF (-> 7) pop; IF wins
    mark(a, 5)  # 5
    mark(a, 6)  # 6
    mark(a, 7)  # 7
    a.end()
    assert counts(execute(a, engine, uniforms={"b0": True})) == {0: 1, 7: 1}


def test_end_inside_a_call_stops(engine):
    a = Asm()
    a.flow("call", dst=3, num=2)
    mark(a, 1)
    a.end()
    a.end()  # 3: END in the callee
    mark(a, 2)
    assert counts(execute(a, engine)) == {}


# -- hangs --------------------------------------------------------------------------------


def test_max_steps_stops_an_endless_loop(engine):
    a = Asm()
    a.flow("jmpu", dst=0, num=1, id=0)  # jumps to itself while b0 is false
    with pytest.raises(ShaderHang) as info:
        execute(a, engine, uniforms={"b0": False}, max_steps=50)
    assert "max_steps=50" in str(info.value)


def test_running_past_the_end_of_the_program_hangs(engine):
    a = Asm()
    mark(a, 1)
    with pytest.raises(ShaderHang) as info:
        execute(a, engine)
    assert info.value.pc == 1


def test_missing_loop_uniform_is_an_input_error(engine):
    a = Asm()
    a.flow("loop", dst=1, id=2)
    a.nop()
    a.end()
    with pytest.raises(InputError, match="i2"):
        execute(a, engine)


def test_steps_count_executed_instructions(engine):
    a = Asm()
    a.flow("loop", dst=1, id=0)
    a.nop()
    a.end()
    result = execute(a, engine, uniforms={"i0": [3, 0, 0, 0]})
    assert result.steps.tolist() == [1 + 4 + 1]
    assert np.all(result.cmp == [[False, False]])


def test_a_hang_names_the_vertex(engine):
    a = Asm()
    a.op("cmp", None, "c1", "v0", cmpx=CompareOp.EQ, cmpy=CompareOp.EQ)  # cmp.x = v0.x == 0
    a.flow("breakc", condop=CondOp.X, refx=1)  # BREAK outside a loop: hangs
    a.end()
    with pytest.raises(ShaderHang, match=r"\(vertex 1\)") as info:
        execute(a, engine, uniforms={"c1": [0, 0, 0, 0]},
                inputs={"v0": [[1, 0, 0, 0], [0, 0, 0, 0]]})
    assert info.value.pc == 1
