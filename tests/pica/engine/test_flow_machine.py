"""The stack machine and emission rules of engine/flow, values worked out by hand from
3dbrew's "Control Flow" section and pica-emulation.md#flow, pica-emulation.md#geometry (their
realisations in LLVM IR are held to them by test_flowir.py and test_emissionir.py)."""

from __future__ import annotations

import pytest

from gpuisa.pica.flow import emission as E
from gpuisa.pica.flow import stacks as S
from gpuisa.pica.isa import OPCODES, Condition, Flow, Opcode


def fresh():
    ifs, calls, loops = S.new_stacks()
    return ifs, calls, loops


def check(ifs, calls, loops, counts, pc, jump=S.NO_JUMP, breaking=False, al=0):
    n_if, n_call, n_loop = counts
    return S.next_pc(ifs, n_if, calls, n_call, loops, n_loop, pc, jump, breaking, al,
                     True, True, True)


def test_if_pops_to_destination_and_beats_jump():
    ifs, calls, loops = fresh()
    n_if = S.push_if(ifs, 0, 10, 14)  # IFC at 5 taken: true branch 6..9, skip 10..13
    assert check(ifs, calls, loops, (n_if, 0, 0), 8) == (9, 0, 1, 0, 0, False)
    # At 9 the IF pops (9 + 1 == trigger 10) and wins over the pending jump to 3.
    assert check(ifs, calls, loops, (n_if, 0, 0), 9, jump=3) == (14, 0, 0, 0, 0, False)


def test_loop_runs_count_plus_one_times_and_al_steps():
    ifs, calls, loops = fresh()
    # LOOP at 2 with i0 = (X=2, Y=10, Z=3), body 3..5 (DST = 5, trigger 6).
    n_loop = S.push_loop(loops, 0, 6, 3, 2, 3, 0)
    al = 10
    visits = []
    while True:
        pc, al, _, _, n_loop, _hang = check(ifs, calls, loops, (0, 0, n_loop), 5, al=al)
        visits.append((pc, al))
        if n_loop == 0:
            break
    # X + 1 = 3 iterations: two jumps back to the body, then out; aL += Z every time and
    # an outermost loop leaves aL at Y + (X + 1) * Z = 19 (pica-emulation.md#flow-check).
    assert visits == [(3, 13), (3, 16), (6, 19)]


def test_inner_loop_restores_al_of_enclosing_loop():
    ifs, calls, loops = fresh()
    n_loop = S.push_loop(loops, 0, 20, 1, 0, 1, 0)  # outer
    n_loop = S.push_loop(loops, n_loop, 10, 6, 0, 5, 7)  # inner saved aL 7
    pc, al, _, _, n_loop, _ = check(ifs, calls, loops, (0, 0, n_loop), 9, al=100)
    assert (pc, al, n_loop) == (10, 7, 1)


def test_break_pops_top_loop_and_hangs_on_empty():
    ifs, calls, loops = fresh()
    n_loop = S.push_loop(loops, 0, 9, 4, 5, 2, 0)
    assert check(ifs, calls, loops, (0, 0, n_loop), 6, breaking=True, al=1) == (
        9, 3, 0, 0, 0, False)
    assert check(ifs, calls, loops, (0, 0, 0), 6, breaking=True)[5] is True


def test_call_fourth_pop_is_missed():
    ifs, calls, loops = fresh()
    n = 0
    n = S.push_call(calls, n, 13, 12)
    n = S.push_call(calls, n, 12, 11)
    n = S.push_call(calls, n, 11, 10)
    n = S.push_call(calls, n, 10, 9)
    # After the instruction at 9 the top (10, 9) pops; the copy becomes 9, which the next
    # top's trigger 11 does not match: one pop, to 9.
    assert check(ifs, calls, loops, (0, n, 0), 9)[:3] == (9, 0, 0)
    n = 0
    n = S.push_call(calls, n, 103, 200)
    n = S.push_call(calls, n, 102, 103)
    n = S.push_call(calls, n, 101, 102)
    n = S.push_call(calls, n, 100, 101)
    # Chain: 100 -> 101 -> 102 -> 103 -> 200: four pops, the fourth does not update the
    # PC (3dbrew: "the fourth update to its copy of the PC is missed";
    # pica-emulation.md#flow-check).
    pc, _, _, n_call, _, _ = check(ifs, calls, loops, (0, n, 0), 99)
    assert (pc, n_call) == (103, 0)


def test_full_stack_drops_oldest():
    ifs, _calls, _loops = fresh()
    n = 0
    for k in range(9):
        n = S.push_if(ifs, n, 100 + k, 200 + k)
    assert n == 8
    assert ifs[0:2] == [101, 201] and ifs[14:16] == [108, 208]


@pytest.mark.parametrize("op, flags, bool_value, expect", [
    (Opcode.IFU, (0, 0), True, True),
    (Opcode.IFU, (0, 0), False, False),
    (Opcode.JMPU, (0, 0), True, True),  # NUM bit 0 clear: jump if the bool is true
    (Opcode.CALL, (0, 0), False, True),
    (Opcode.LOOP, (0, 0), False, True),
])
def test_taken_by_condition_source(op, flags, bool_value, expect):
    info = OPCODES[op]
    assert S.taken(int(info.condition), 0, 0, 0, *flags, bool_value, 0) is expect


def test_jmpu_num_bit_inverts():
    assert S.taken(int(Condition.BOOLNUM), 0, 0, 0, False, False, True, 1) is False
    assert S.taken(int(Condition.BOOLNUM), 0, 0, 0, False, False, False, 1) is True


@pytest.mark.parametrize("condop, refx, refy, x, y, expect", [
    (0, 1, 1, True, False, True), (0, 1, 1, False, False, False),
    (1, 1, 0, True, False, True), (1, 1, 1, True, False, False),
    (2, 0, 1, False, False, True), (3, 0, 1, False, True, True),
])
def test_condition_holds(condop, refx, refy, x, y, expect):
    assert S.condition_holds(condop, refx, refy, x, y) is expect


def test_effects():
    ifs, calls, loops = fresh()
    # CALL at 7, DST 20, NUM 3: push (23, 8), jump 20.
    assert S.effect(int(Flow.CALL), True, 7, 20, 3, ifs, 0, calls, 0, loops, 0, 5, 0, 0, 0) == (
        20, False, 0, 1, 0, 5)
    assert calls[:2] == [23, 8]
    # IF not taken jumps to DST, pushes nothing.
    assert S.effect(int(Flow.IF), False, 7, 20, 3, ifs, 0, calls, 0, loops, 0, 5, 0, 0, 0) == (
        20, False, 0, 0, 0, 5)
    # LOOP at 3, DST 9: push (10, 4, X, Z, old aL), aL = Y.
    assert S.effect(int(Flow.LOOP), True, 3, 9, 0, ifs, 0, calls, 0, loops, 0, 5, 2, 8, 1) == (
        S.NO_JUMP, False, 0, 0, 1, 8)
    assert loops[:5] == [10, 4, 2, 1, 5]


def test_emission_banks_and_winding():
    state = E.new_emission()
    E.setemit(state, 0, False, False)
    assert E.emit(state, 0) == (E.VERTEX, 0, 0, 0) and state[E.BANK] == 1
    E.setemit(state, 1, False, False)
    E.emit(state, 1)
    E.setemit(state, 2, True, True)
    # Winding reverses the triangle; the bank flips on every EMIT.
    assert E.emit(state, 2) == (E.PRIMITIVE, 2, 1, 0) and state[E.BANK] == 1
    fresh_state = E.new_emission()
    E.setemit(fresh_state, 1, True, False)
    assert E.emit(fresh_state, 0)[:2] == (E.FAULT, 0) and fresh_state[E.BANK] == 0


def test_every_flow_kind_with_an_effect_has_its_function():
    assert set(S.EFFECTS) == {f for f in Flow if f not in (Flow.NONE, Flow.END)}
