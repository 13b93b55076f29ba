"""Control flow, predication, kills and exports (a2xx-isa.md#cf, a2xx-isa.md#exports,
a2xx-isa.md#alu-relative, a2xx-isa.md#control)."""

from __future__ import annotations

import numpy as np
import pytest
from test_a2xx_engine_support import patch_alu, patch_clause, program, vec4s

from gpuisa.a2xx import LoopConstant, run_fragment, run_vertex
from gpuisa.a2xx.errors import A2xxError
from gpuisa.errors import ShaderHang

ONES = np.array([[1, 1, 1, 1], [2, 2, 2, 2]], np.float32)  # C0 = 1, C1 = 2
NOP = "ALU: MAXv R0.____ = R0, R0\n"


def column(values: list[float]) -> np.ndarray:
    """(N, 4) registers with ``values`` in w (and zeros elsewhere)."""
    out = np.zeros((len(values), 4), np.float32)
    out[:, 3] = values
    return out


# -- predication ------------------------------------------------------------------------------


def test_predicated_alu_runs_per_invocation() -> None:
    words = program(
        "EXEC_END\n" + NOP + "     PRED_SETGTs R5.x = R1\n"  # p0 = R1.w > 0
        "ALU: ADDvEQ R2 = R1, C1\n"  # only where p0
        "ALU: ADDvNE R3 = R1, C0\n"  # only where !p0
    )
    r1 = column([1.0, -1.0, 0.0, 5.0])
    res = run_vertex(words, 4, registers={1: r1}, float_constants=ONES)
    p0 = r1[:, 3] > 0
    np.testing.assert_array_equal(res.predicate, p0)
    np.testing.assert_array_equal(res.registers[2], np.where(p0[:, None], r1 + 2, 0))
    np.testing.assert_array_equal(res.registers[3], np.where(p0[:, None], 0, r1 + 1))


def test_predicated_fetch() -> None:
    words = program(
        "EXEC_END\n" + NOP + "     PRED_SETNEs R5.x = R1\n"
        "  FETCH: VERTEXNE R2.x___ = R0.x FMT_32_FLOAT STRIDE(4) CONST(0, 0)\n"
    )
    r1 = column([0.0, 1.0, 0.0])
    data = np.array([10, 20, 30], "<f4")
    res = run_vertex(words, 3, registers={1: r1}, vertex_buffers={0: data})
    np.testing.assert_array_equal(res.registers[2][:, 0], [10, 0, 30])


def test_cond_pred_exec_end_splits_invocations() -> None:
    words = program(
        "EXEC\n" + NOP + "     PRED_SETGTs R5.x = R1\n"
        "COND_PRED_EXEC_END COND(1)\n"  # ends the invocations with p0
        "  ALU: MAXv export0 = C1, C1\n"
        "EXEC_END\n"
        "  ALU: MAXv export0 = C0, C0\n"
    )
    r1 = column([1.0, -1.0, 2.0, 0.0])
    res = run_vertex(words, 4, registers={1: r1}, float_constants=ONES)
    np.testing.assert_array_equal(res.params[0][:, 0], [2, 1, 2, 1])


@pytest.mark.parametrize(
    ("value", "condition", "runs"), [(1, 1, True), (0, 1, False), (0, 0, True), (1, 0, False)]
)
@pytest.mark.parametrize("opcode", ["COND_EXEC", "COND_EXEC_PRED_CLEAN"])
def test_bool_conditional_exec(opcode: str, value: int, condition: int, runs: bool) -> None:
    words = program(
        f"{opcode} BOOL_ADDR(37) COND({condition})\n"
        "  ALU: MAXv R2 = C1, C1\n"
        "EXEC_END\n"
        "  ALU: ADDv R3 = R2, C0\n"
    )
    bools = {37: bool(value), 36: not value, 38: not value}
    res = run_vertex(words, 2, bool_constants=bools, float_constants=ONES)
    np.testing.assert_array_equal(res.registers[3], np.full((2, 4), 3 if runs else 1))


def test_cond_exec_end_only_ends_when_taken() -> None:
    text = "COND_EXEC_END BOOL_ADDR(0) COND(1)\n  ALU: MAXv R2 = C1, C1\nEXEC_END\n" + NOP
    res = run_vertex(program(text), 1, bool_constants=[True], float_constants=ONES)
    assert res.registers[2][0, 0] == 2
    res = run_vertex(program(text), 1, bool_constants=[False], float_constants=ONES)
    assert 2 not in res.registers  # skipped; the EXEC_END after it ends the program


# -- loops --------------------------------------------------------------------------------------

LOOP = (
    "LOOP_START ADDR(3) LOOP_ID(2)\n"  # 0: skip to 3
    "EXEC\n"  # 1
    "  ALU: ADDv R1 = R1, C0\n"
    "LOOP_END ADDR(1) LOOP_ID(2)\n"  # 2: back to 1
    "EXEC_END\n"  # 3
    "  ALU: MAXv export0 = R1, R1\n"
)


@pytest.mark.parametrize("count", [0, 1, 5, 255])
def test_loop_count(count: int) -> None:
    res = run_vertex(
        program(LOOP), 2, float_constants=ONES, loop_constants={2: LoopConstant(count)}
    )
    np.testing.assert_array_equal(res.params[0], np.full((2, 4), count))


def test_loop_constant_register_form() -> None:
    register = 7 | 0 << 8 | 1 << 16  # count 7, start 0, step 1
    res = run_vertex(program(LOOP), 1, float_constants=ONES, loop_constants={2: register})
    assert res.params[0][0, 0] == 7


def test_loop_address_relative_constants_and_temps() -> None:
    # ADDv R1 = R1, C[0 + aL]; MAXv R[10 + aL] = C[0 + aL]
    words = program(
        "LOOP_START ADDR(3) LOOP_ID(0)\n"
        "EXEC\n"
        "  ALU: ADDv R1 = R1, C0\n"
        "  ALU: MAXv R10 = C0, C0\n"
        "LOOP_END ADDR(1) LOOP_ID(0)\n"
        "EXEC_END\n" + NOP
    )
    words = patch_alu(words, 2, const_0_rel_abs=1)  # src2 is the first constant operand
    words = patch_alu(words, 3, const_0_rel_abs=1, vector_dest_rel=1)
    consts = np.arange(64, dtype=np.float32).reshape(16, 4)
    res = run_vertex(
        words, 1, float_constants=consts, loop_constants={0: LoopConstant(4, start=2, step=3)}
    )
    al = [2, 5, 8, 11]
    np.testing.assert_array_equal(res.registers[1][0], consts[al].sum(axis=0))
    for a in al:
        np.testing.assert_array_equal(res.registers[10 + a][0], consts[a])
    assert 10 not in res.registers


def test_negative_step_and_address_clamp() -> None:
    words = program(
        "LOOP_START ADDR(3) LOOP_ID(0)\nEXEC\n  ALU: MAXv R10 = C0, C0\n"
        "LOOP_END ADDR(1) LOOP_ID(0)\nEXEC_END\n" + NOP
    )
    words = patch_alu(words, 2, vector_dest_rel=1)
    res = run_vertex(words, 1, loop_constants={0: LoopConstant(3, start=20, step=-5)})
    assert sorted(res.registers) == [0, 20, 25, 30]  # R(10 + 20), R(10 + 15), R(10 + 10)
    assert LoopConstant(200, start=0, step=127).address(199) == 256  # clamped (XE-I)


def test_nested_loops_use_innermost_address() -> None:
    words = program(
        "LOOP_START ADDR(6) LOOP_ID(0)\n"  # 0
        "LOOP_START ADDR(4) LOOP_ID(1)\n"  # 1
        "EXEC\n"  # 2
        "  ALU: ADDv R1 = R1, C0\n"
        "LOOP_END ADDR(2) LOOP_ID(1)\n"  # 3
        "EXEC\n"  # 4
        "  ALU: ADDv R2 = R2, C0\n"
        "LOOP_END ADDR(1) LOOP_ID(0)\n"  # 5
        "EXEC_END\n" + NOP  # 6
    )
    words = patch_alu(words, 4, const_0_rel_abs=1)  # inner: R1 += C[aL_inner]
    words = patch_alu(words, 5, const_0_rel_abs=1)  # outer: R2 += C[aL_outer]
    consts = np.arange(40, dtype=np.float32).reshape(10, 4)
    loops = {0: LoopConstant(3, start=1, step=2), 1: LoopConstant(2, start=0, step=4)}
    res = run_vertex(words, 1, float_constants=consts, loop_constants=loops)
    np.testing.assert_array_equal(res.registers[1][0], 3 * (consts[0] + consts[4]))
    np.testing.assert_array_equal(res.registers[2][0], consts[[1, 3, 5]].sum(axis=0))


def test_predicated_break_diverges_per_invocation() -> None:
    words = program(
        "LOOP_START ADDR(3) LOOP_ID(0)\n"  # 0
        "EXEC\n"  # 1
        "  ALU: ADDv R1 = R1, C0\n"  # R1 += 1
        "  ALU: ADDv R3 = R1, -R2\n"  # R3.w = R1.w - limit
        + NOP
        + "     PRED_SETGTEs R4.x = R3\n"  # p0 = count reached the limit
        "LOOP_END ADDR(1) LOOP_ID(0)\n"  # 2: break where p0 == 1
        "EXEC_END\n"  # 3
        "  ALU: MULv R5 = R1, C1\n"
    )
    words = patch_clause(words, 2, is_predicated_break=1, condition=1)
    limits = [1.0, 3.0, 10.0, 20.0, 2.0, 0.0]
    res = run_vertex(
        words,
        len(limits),
        registers={2: column(limits)},
        float_constants=ONES,
        loop_constants={0: LoopConstant(10)},
    )
    iterations = np.minimum(np.maximum(limits, 1), 10)
    np.testing.assert_array_equal(res.registers[1][:, 3], iterations)
    np.testing.assert_array_equal(res.registers[5][:, 0], 2 * iterations)


def test_loop_repeat_keeps_the_counter() -> None:
    text = (
        "LOOP_START ADDR(3) LOOP_ID(0)\nEXEC\n  ALU: ADDv R1 = R1, C0\n"  # 0, 1
        "LOOP_END ADDR(1) LOOP_ID(0)\n"  # 2
        "LOOP_START ADDR(6) LOOP_ID(1)\nEXEC\n  ALU: ADDv R2 = R2, C0\n"  # 3, 4
        "LOOP_END ADDR(4) LOOP_ID(1)\n"  # 5
        "EXEC_END\n" + NOP  # 6
    )
    loops = {0: LoopConstant(3), 1: LoopConstant(5)}
    plain = run_vertex(program(text), 1, float_constants=ONES, loop_constants=loops)
    assert plain.registers[2][0, 0] == 5
    repeat = patch_clause(program(text), 3, is_repeat=1)
    res = run_vertex(repeat, 1, float_constants=ONES, loop_constants=loops)
    assert res.registers[2][0, 0] == 2  # the counter continues from 3


def test_endless_loop_is_reported() -> None:
    words = program("EXEC\n" + NOP + "COND_JMP ADDR(0) DIR(0) FORCE_CALL\nEXEC_END\n" + NOP)
    with pytest.raises(ShaderHang, match="more than 100 CF clauses"):
        run_vertex(words, 3, max_steps=100)


def test_running_past_the_last_clause_is_an_error() -> None:
    words = program("COND_EXEC_END BOOL_ADDR(0) COND(1)\n" + NOP)
    with pytest.raises(A2xxError, match="ran past the last CF clause"):
        run_vertex(words, 1)


# -- calls and jumps ----------------------------------------------------------------------------


def test_calls_and_predicated_calls() -> None:
    words = program(
        "EXEC\n" + NOP + "     PRED_SETGTs R5.x = R2\n"  # 0: p0 = R2.w > 0
        "EXEC\n  ALU: ADDv R1 = R1, C0\n"  # 1: +1
        "COND_CALL ADDR(5) DIR(1) FORCE_CALL\n"  # 2
        "COND_CALL ADDR(5) DIR(1) COND(1)\n"  # 3: only where p0
        "EXEC_END\n  ALU: MAXv export0 = R1, R1\n"  # 4
        "EXEC\n  ALU: MULv R1 = R1, C1\n"  # 5: *2
        "RETURN ADDR(0) DIR(0)\n"  # 6
    )
    r1 = column([1.0, 2.0, 3.0])
    r2 = column([1.0, 0.0, 1.0])
    res = run_vertex(words, 3, registers={1: r1, 2: r2}, float_constants=ONES)
    once = (r1[:, 3] + 1) * 2
    np.testing.assert_array_equal(res.params[0][:, 3], np.where(r2[:, 3] > 0, 2 * once, once))


def test_bool_call_and_return_without_call() -> None:
    words = program(
        "EXEC\n  ALU: ADDv R1 = R1, C0\n"  # 0
        "COND_CALL ADDR(4) DIR(1) BOOL_ADDR(9)\n"  # 1: taken if b9 == condition (1)
        "RETURN ADDR(0) DIR(0)\n"  # 2: empty stack: no-op
        "EXEC_END\n  ALU: MAXv export0 = R1, R1\n"  # 3
        "EXEC\n  ALU: MULv R1 = R1, C1\n"  # 4
        "RETURN ADDR(0) DIR(0)\n"  # 5
    )
    words = patch_clause(words, 1, condition=1)
    taken = run_vertex(words, 1, bool_constants={9: True}, float_constants=ONES)
    skipped = run_vertex(words, 1, bool_constants={9: False}, float_constants=ONES)
    assert taken.params[0][0, 0] == 2
    assert skipped.params[0][0, 0] == 1


def test_call_stack_depth_four() -> None:
    words = program(
        "EXEC\n"
        + NOP  # 0
        + "COND_CALL ADDR(2) DIR(1) FORCE_CALL\n"  # 1
        "EXEC\n  ALU: ADDv R1 = R1, C0\n"  # 2
        "COND_CALL ADDR(2) DIR(0) FORCE_CALL\n"  # 3: recursion
        "RETURN ADDR(0) DIR(0)\n"  # 4
        "EXEC_END\n  ALU: MAXv export0 = R1, R1\n"  # 5
    )
    res = run_vertex(words, 1, float_constants=ONES)
    # By hand: clause 1 pushes 2; clause 2 runs (1) and clause 3 pushes 4 three times
    # (2, 3, 4 runs of clause 2); with 4 entries the next call falls through to clause 4,
    # whose returns pop 4, 4, 4, 2 -> clause 2 again (5), then 4 more pushes (6-9), a
    # fall-through, 4 pops, and a RETURN on the empty stack falls through to clause 5.
    assert res.params[0][0, 0] == 9


def test_jumps_unconditional_bool_and_predicated() -> None:
    words = program(
        "EXEC\n" + NOP + "     PRED_SETGTs R5.x = R2\n"  # 0: p0 = R2.w > 0
        "COND_JMP ADDR(3) DIR(1) FORCE_CALL\n"  # 1: always
        "EXEC\n  ALU: ADDv R1 = R1, C1\n"  # 2: skipped
        "COND_JMP ADDR(5) DIR(1) BOOL_ADDR(4)\n"  # 3: if b4 == 0
        "EXEC\n  ALU: ADDv R1 = R1, C0\n"  # 4
        "COND_JMP ADDR(7) DIR(1) COND(0)\n"  # 5: where !p0
        "EXEC\n  ALU: MULv R1 = R1, C1\n"  # 6
        "EXEC_END\n  ALU: MAXv export0 = R1, R1\n"  # 7
    )
    r2 = column([1.0, 0.0])
    for b4, add in ((False, 0.0), (True, 1.0)):
        res = run_vertex(words, 2, registers={2: r2}, bool_constants={4: b4}, float_constants=ONES)
        np.testing.assert_array_equal(res.params[0][:, 0], [2 * add, add])


def test_divergent_groups_merge_again() -> None:
    # Two branches that join: instructions after the join run once per invocation.
    words = program(
        "EXEC\n" + NOP + "     PRED_SETGTs R5.x = R2\n"  # 0
        "COND_JMP ADDR(3) DIR(1) COND(1)\n"  # 1
        "EXEC\n  ALU: ADDv R1 = R1, C1\n"  # 2: only !p0
        "EXEC\n  ALU: ADDv R1 = R1, C0\n"  # 3: join
        "EXEC_END\n  ALU: MAXv export0 = R1, R1\n"  # 4
    )
    r2 = column([1, 0, 1, 0, 0])
    res = run_vertex(words, 5, registers={2: r2}, float_constants=ONES)
    np.testing.assert_array_equal(res.params[0][:, 0], [1, 3, 1, 3, 3])


# -- address register ---------------------------------------------------------------------------


def test_a0_relative_constants_per_invocation() -> None:
    words = program("EXEC_END\n" + NOP + "     MOVA_FLOORs R5.x = R1\nALU: MAXv R2 = C3, C3\n")
    words = patch_alu(words, 2, const_0_rel_abs=1, relative_addr=1, const_1_rel_abs=1)
    consts = np.arange(40, dtype=np.float32).reshape(10, 4)
    r1 = column([0.0, 1.9, 5.0, -4.0, 300.0])
    res = run_vertex(words, 5, registers={1: r1}, float_constants=consts)
    index = 3 + np.array([0, 1, 5, -4, 255])  # C[3 + a0]; a0 clamps to 255
    inside = (index >= 0) & (index < len(consts))
    expected = np.where(inside[:, None], consts[np.where(inside, index, 0)], 0)
    np.testing.assert_array_equal(res.registers[2], expected)  # out of range reads 0


# -- exports ------------------------------------------------------------------------------------


def test_export_masks_combine_vector_scalar_and_constants() -> None:
    # vector x_z_, scalar _yz_: x vector, y scalar, z both -> 1.0, w neither -> unchanged
    words = program(
        "EXEC_END\n"
        "ALU: MAXv export1 = C2, C2\n"
        "ALU: MAXv export1.x_z_ = R1, R1\n     MAXs export1._yz_ = R2.wwww\n"
    )
    consts = np.array([[0] * 4, [0] * 4, [7, 7, 7, 7]], np.float32)
    r1 = vec4s([[1, 2, 3, 4]])
    r2 = column([9.0])
    res = run_vertex(words, 1, registers={1: r1, 2: r2}, float_constants=consts)
    np.testing.assert_array_equal(res.params[1][0], [1, 9, 1, 7])
    # scalar_dest_rel: components written by neither become 0.0
    zero_fill = patch_alu(words, 2, scalar_dest_rel=1)
    res = run_vertex(zero_fill, 1, registers={1: r1, 2: r2}, float_constants=consts)
    np.testing.assert_array_equal(res.params[1][0], [1, 9, 1, 0])


def test_vertex_exports_position_point_size_and_params() -> None:
    words = program(
        "ALLOC POSITION SIZE(0x1)\n"
        "EXEC\n  ALU: MAXv export62 = R1, R1\n  ALU: MAXv export63.x___ = R2, R2\n"
        "ALLOC PARAM/PIXEL SIZE(0x1)\n"
        "EXEC_END\n  ALU: MAXv export0 = R2, R2\n  ALU: MULv export1 = R1, C1\n"
    )
    rng = np.random.default_rng(0)
    r1, r2 = rng.normal(size=(2, 4, 4)).astype(np.float32)
    res = run_vertex(words, 4, registers={1: r1, 2: r2}, float_constants=ONES)
    np.testing.assert_array_equal(res.position, r1)
    np.testing.assert_array_equal(res.point_size, r2[:, 0])
    assert sorted(res.params) == [0, 1]
    np.testing.assert_array_equal(res.params[1], 2 * r1)
    assert [(a.cf_index, a.buffer.name, a.size) for a in res.allocs] == [
        (0, "POSITION", 1),
        (2, "PARAM_PIXEL", 1),
    ]


def test_fragment_kill_colors_and_depth() -> None:
    words = program(
        "EXEC_END\n"
        "  ALU: KILLGTv R3.____ = R0, R2\n"  # kill where any component of R0 > R2
        "  ALU: MULv export0 = R0, R1\n"
        "  ALU: MAXv export1 = R1, R1\n"
        "  ALU: MAXv export61.x___ = R0, R0\n"
    )
    rng = np.random.default_rng(4)
    frag = rng.uniform(0, 1, (6, 3, 4)).astype(np.float32)
    frag[:, 2] = 0.9
    res = run_fragment(words, frag)
    np.testing.assert_array_equal(res.killed, (frag[:, 0] > 0.9).any(axis=1))
    np.testing.assert_array_equal(res.color, frag[:, 0] * frag[:, 1])
    assert sorted(res.colors) == [0, 1]
    np.testing.assert_array_equal(res.depth, frag[:, 0, 0])


# -- batch versus one invocation at a time ------------------------------------------------------


def test_batch_equals_invocations_run_alone() -> None:
    """Divergent loops, calls, jumps, predication and kills: running N invocations
    together gives exactly what running each one alone gives."""
    words = program(
        "EXEC\n" + NOP + "     PRED_SETGTs R5.x = R2\n"  # 0: p0 = R2.w > 0
        "COND_CALL ADDR(9) DIR(1) COND(1)\n"  # 1: subroutine where p0
        "LOOP_START ADDR(5) LOOP_ID(0)\n"  # 2
        "EXEC\n  ALU: ADDv R1 = R1, C0\n  ALU: ADDv R3 = R1, -R2\n"  # 3
         + NOP + "     PRED_SETGTEs R4.x = R3\n"
        "LOOP_END ADDR(3) LOOP_ID(0)\n"  # 4: predicated break
        "COND_JMP ADDR(7) DIR(1) COND(0)\n"  # 5
        "EXEC\n  ALU: KILLGTv R6.____ = R1, C1\n  ALU: MULv R1 = R1, C1\n"  # 6
        "EXEC_END\n  ALU: MAXv export0 = R1, R1\n  ALU: MAXv export1 = R3, R3\n"  # 7
        "NOP\n"  # 8
        "EXEC\n  ALU: ADDv R1 = R1, C1\n"  # 9
        "RETURN ADDR(0) DIR(0)\n"  # 10
    )
    words = patch_clause(words, 4, is_predicated_break=1, condition=1)
    rng = np.random.default_rng(11)
    n = 40
    r1 = rng.integers(-3, 3, (n, 4)).astype(np.float32)
    r2 = rng.integers(-2, 12, (n, 4)).astype(np.float32)
    kwargs = {"float_constants": ONES, "loop_constants": {0: LoopConstant(8)}}
    batch = run_vertex(words, n, registers={1: r1, 2: r2}, **kwargs)
    assert len({tuple(row) for row in batch.params[0]}) > 5  # the paths really differ
    for i in range(n):
        alone = run_vertex(words, 1, registers={1: r1[i : i + 1], 2: r2[i : i + 1]}, **kwargs)
        for k in (0, 1):
            np.testing.assert_array_equal(batch.params[k][i], alone.params[k][0])
        assert batch.killed[i] == alone.killed[0]
        assert batch.predicate[i] == alone.predicate[0]


@pytest.mark.parametrize(
    ("text", "flags", "expected"),
    [
        # two constants: the first uses const_0_rel_abs, the second const_1_rel_abs
        ("ADDv R4 = C1, C2", {"const_1_rel_abs": 1}, (1, 2 + 3)),
        ("ADDv R4 = C1, C2", {"const_0_rel_abs": 1}, (1 + 3, 2)),
        # a temp first: the (first) constant operand uses const_0_rel_abs
        ("ADDv R4 = R1, C2", {"const_0_rel_abs": 1}, (None, 2 + 3)),
        ("ADDv R4 = R1, C2", {"const_1_rel_abs": 1}, (None, 2)),
    ],
)
def test_constant_relative_flag_selection(
    text: str, flags: dict[str, int], expected: tuple[int | None, int]
) -> None:
    words = program(
        f"LOOP_START ADDR(3) LOOP_ID(0)\nEXEC\n  ALU: {text}\n"
        "LOOP_END ADDR(1) LOOP_ID(0)\nEXEC_END\n" + NOP
    )
    words = patch_alu(words, 2, **flags)
    consts = np.arange(40, dtype=np.float32).reshape(10, 4)
    res = run_vertex(words, 1, float_constants=consts, loop_constants={0: LoopConstant(1, 3)})
    first, second = expected
    want = consts[second] + (0 if first is None else consts[first])
    np.testing.assert_array_equal(res.registers[4][0], want)
