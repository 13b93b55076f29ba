"""Scalar operations, co-issue and the previous-scalar register (a2xx-isa.md#scalar-ops,
a2xx-isa.md#co-issue, a2xx-isa.md#emulation)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from test_a2xx_engine_support import F32, patch_alu, program, run_alu, same_floats, vec4s
from test_a2xx_engine_vector import _operands, flush, lmul

from gpuisa.a2xx import EmulatorConfig, VertexResult, run_vertex

FLT_MAX = np.finfo(np.float32).max
NOP = "ALU: MAXv R0.____ = R0, R0\n"  # vector part that writes nothing


def _mul_prev2(a: np.ndarray, b: np.ndarray, ps: np.ndarray) -> np.ndarray:
    bad = (ps == -FLT_MAX) | ~np.isfinite(ps) | ~np.isfinite(b) | (b <= 0)
    return np.where(bad, -FLT_MAX, lmul(a, ps))


def f(cond: np.ndarray) -> np.ndarray:
    return cond.astype(np.float32)


# op -> expected(a, b, ps), with a = lane 3 (w) and b = lane 2 (z) of the operand.
EXACT: dict[str, Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]] = {
    "ADDs": lambda a, b, ps: a + b,
    "ADD_PREVs": lambda a, b, ps: a + ps,
    "MULs": lambda a, b, ps: lmul(a, b),
    "MUL_PREVs": lambda a, b, ps: lmul(a, ps),
    "MUL_PREV2s": _mul_prev2,
    "MAXs": lambda a, b, ps: np.where(a >= b, a, b),
    "MINs": lambda a, b, ps: np.where(a < b, a, b),
    "SETEs": lambda a, b, ps: f(a == 0),
    "SETGTs": lambda a, b, ps: f(a > 0),
    "SETGTEs": lambda a, b, ps: f(a >= 0),
    "SETNEs": lambda a, b, ps: f(a != 0),
    "FRACs": lambda a, b, ps: a - np.floor(a),
    "TRUNCs": lambda a, b, ps: np.trunc(a),
    "FLOORs": lambda a, b, ps: np.floor(a),
    "SUBs": lambda a, b, ps: a - b,
    "SUB_PREVs": lambda a, b, ps: a - ps,
    "RECIP_IEEE": lambda a, b, ps: F32(1) / a,
    "RECIP_CLAMP": lambda a, b, ps: np.clip(F32(1) / a, -FLT_MAX, FLT_MAX),
    "RECIP_FF": lambda a, b, ps: np.where(np.isinf(F32(1) / a), np.copysign(F32(0), a), F32(1) / a),
    "SQRT_IEEE": lambda a, b, ps: np.sqrt(a),
    "RETAIN_PREV": lambda a, b, ps: ps,
}


def _run_scalar(op: str, r1: np.ndarray, r2: np.ndarray, **kwargs: object) -> VertexResult:
    """ps = R2.w, then ``op R4.x = R1``."""
    text = NOP + "     MAXs R5.x___ = R2.wwww\n" + NOP + f"     {op} R4.x___ = R1\n"
    return run_alu(text, {1: r1, 2: r2}, **kwargs)


@pytest.mark.parametrize("op", sorted(EXACT))
@pytest.mark.parametrize("seed", [0, 1])
def test_scalar_op(op: str, seed: int) -> None:
    r1, r2, _ = _operands(seed)
    res = _run_scalar(op, r1, r2)
    a, b, ps = flush(r1[:, 3]), flush(r1[:, 2]), flush(r2[:, 3])
    with np.errstate(all="ignore"):
        expected = np.asarray(EXACT[op](a, b, ps), dtype=np.float32)
    assert same_floats(res.registers[4][:, 0], expected), op
    assert same_floats(res.previous_scalar, expected), op


TRANSCENDENTAL: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "EXP_IEEE": np.exp2,
    "LOG_IEEE": np.log2,
    "RECIPSQ_IEEE": lambda a: 1 / np.sqrt(a),
    "SIN": np.sin,
    "COS": np.cos,
}


@pytest.mark.parametrize("op", sorted(TRANSCENDENTAL))
def test_transcendental(op: str) -> None:
    x = np.array([0.125, 0.5, 1.0, 1.5, 2.0, 3.25, 7.0, 10.0, 0.01], dtype=np.float32)
    r1 = np.zeros((len(x), 4), np.float32)
    r1[:, 3] = x
    res = _run_scalar(op, r1, r1)
    expected = TRANSCENDENTAL[op](x.astype(np.float64))
    np.testing.assert_allclose(res.registers[4][:, 0], expected, rtol=2e-7, atol=1e-7)


@pytest.mark.parametrize(
    ("op", "inputs", "outputs"),
    [
        ("EXP_IEEE", [0.0, -np.inf, 128.0], [1.0, 0.0, np.inf]),
        ("LOG_IEEE", [1.0, 0.0, -1.0], [0.0, -np.inf, np.nan]),
        ("LOG_CLAMP", [1.0, 0.0, 8.0], [0.0, -FLT_MAX, 3.0]),
        ("RECIP_CLAMP", [0.0, -0.0, 4.0], [FLT_MAX, -FLT_MAX, 0.25]),
        ("RECIP_FF", [0.0, -0.0, 4.0], [0.0, -0.0, 0.25]),
        ("RECIPSQ_CLAMP", [0.0, 4.0, -4.0], [FLT_MAX, 0.5, np.nan]),
        ("RECIPSQ_FF", [0.0, 4.0, 1e-40], [0.0, 0.5, 0.0]),
        ("RECIPSQ_IEEE", [0.0, 0.25, np.inf], [np.inf, 2.0, 0.0]),
        ("SQRT_IEEE", [4.0, -0.0, 1e-40], [2.0, -0.0, 0.0]),
    ],
)
def test_special_values_by_hand(op: str, inputs: list[float], outputs: list[float]) -> None:
    r1 = np.zeros((len(inputs), 4), np.float32)
    r1[:, 3] = inputs
    res = _run_scalar(op, r1, r1)
    assert same_floats(res.registers[4][:, 0], np.array(outputs, np.float32))


def test_second_operand_lane_switch() -> None:
    r1 = vec4s([[1, 20, 300, 4000]])  # a = w = 4000; b = z (default) or x
    z = _run_scalar("SUBs", r1, r1)
    x = _run_scalar("SUBs", r1, r1, config=EmulatorConfig(scalar_b_lane=0))
    assert z.registers[4][0, 0] == 4000 - 300
    assert x.registers[4][0, 0] == 4000 - 1
    xenos = _run_scalar("SUBs", r1, r1, target="xenos")
    assert xenos.registers[4][0, 0] == 4000 - 300  # the Z lane in both presets


@pytest.mark.parametrize(
    ("op", "address"),
    [("MOVAs", [3, -2, 2, 255, -256, -256]), ("MOVA_FLOORs", [2, -3, 1, 255, -256, -256])],
)
def test_mova_scalar(op: str, address: list[int]) -> None:
    w = [2.5, -2.5, 1.75, 1000.0, -1000.0, np.nan]
    r1 = np.zeros((6, 4), np.float32)
    r1[:, 3] = w
    r1[:, 2] = 2.0
    res = _run_scalar(op, r1, r1)
    assert res.address.tolist() == address
    expected = np.where(r1[:, 3] >= r1[:, 2], r1[:, 3], r1[:, 2])  # max(a, b), NaN -> b
    np.testing.assert_array_equal(res.registers[4][:, 0], expected)


PRED_SETS: dict[str, Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]] = {
    "PRED_SETEs": lambda a: (a == 0, f(a != 0)),
    "PRED_SETNEs": lambda a: (a != 0, f(a == 0)),
    "PRED_SETGTs": lambda a: (a > 0, f(~(a > 0))),
    "PRED_SETGTEs": lambda a: (a >= 0, f(~(a >= 0))),
    "PRED_SET_INVs": lambda a: (a == 1, np.where(a == 1, 0, np.where(a == 0, 1, a))),
    "PRED_SET_POPs": lambda a: (a - 1 <= 0, np.where(a - 1 <= 0, 0, a - 1)),
    "PRED_SET_RESTOREs": lambda a: (a == 0, np.where(a == 0, 0, a)),
}


@pytest.mark.parametrize("op", sorted(PRED_SETS))
def test_pred_set(op: str) -> None:
    w = np.array([0.0, -0.0, 1.0, 2.0, -1.0, 0.5, 3.0, np.nan], np.float32)
    r1 = np.zeros((len(w), 4), np.float32)
    r1[:, 3] = w
    res = _run_scalar(op, r1, r1)
    with np.errstate(invalid="ignore"):
        predicate, value = PRED_SETS[op](w)
    np.testing.assert_array_equal(res.predicate, predicate)
    assert same_floats(res.registers[4][:, 0], np.asarray(value, np.float32))


def test_pred_set_clr() -> None:
    r1 = vec4s([[0, 0, 0, 0], [1, 1, 1, 1]])
    words = program(
        "EXEC_END\n" + NOP + "     PRED_SETEs R5.x = R1\n" + NOP + "     PRED_SET_CLRs R4.x = R1\n"
    )
    res = run_vertex(words, 2, registers={1: r1})
    assert not res.predicate.any()
    assert (res.registers[4][:, 0] == FLT_MAX).all()


@pytest.mark.parametrize(
    ("op", "test"),
    [
        ("KILLEs", lambda a: a == 0),
        ("KILLGTs", lambda a: a > 0),
        ("KILLGTEs", lambda a: a >= 0),
        ("KILLNEs", lambda a: a != 0),
        ("KILLONEs", lambda a: a == 1),
    ],
)
def test_kill_scalar(op: str, test: Callable[[np.ndarray], np.ndarray]) -> None:
    w = np.array([0.0, -0.0, 1.0, 2.0, -1.0, np.nan], np.float32)
    r1 = np.zeros((len(w), 4), np.float32)
    r1[:, 3] = w
    res = _run_scalar(op, r1, r1)
    with np.errstate(invalid="ignore"):
        kill = test(w)
    np.testing.assert_array_equal(res.killed, kill)
    np.testing.assert_array_equal(res.registers[4][:, 0], kill.astype(np.float32))


@pytest.mark.parametrize(
    ("opcode", "src3_sel", "negate", "expected"),
    [
        # opcode 43 (MUL_CONST_1): temp = 1 | sel << 1 | 1 << 2 = R5
        (43, 0, 0, lambda c, r5, r6: lmul(c, r5)),
        # opcode 44 (ADD_CONST_0), src3_sel 1: temp = 0 | 2 | 4 = R6
        (44, 1, 0, lambda c, r5, r6: c + r6),
        # opcode 47 (SUB_CONST_1), negated: both operands negated
        (47, 0, 1, lambda c, r5, r6: -c - -r5),
        (42, 1, 1, lambda c, r5, r6: lmul(-c, -r6) + 0),
    ],
)
def test_const_operand_ops(
    opcode: int, src3_sel: int, negate: int, expected: Callable[..., np.ndarray]
) -> None:
    # src3_swiz: lane 0 field 2 (temp reads z), bits 2-5 = 0b0001 (register bits), lane 3
    # field 2 (constant reads (3 + 2) & 3 = y).
    swiz = 2 | 0b0001 << 2 | 2 << 6
    words = program("EXEC_END\n" + NOP + "     MULs R4.x___ = C6\n")
    words = patch_alu(
        words,
        1,
        scalar_opc=opcode,
        src3_swiz=swiz,
        src3_sel=src3_sel,
        src3_reg=6,
        src3_reg_negate=negate,
    )
    consts = np.zeros((8, 4), np.float32)
    consts[6] = [1.0, -2.5, 3.0, 4.0]
    r5 = vec4s([[9, 9, 0.5, 9], [9, 9, -8, 9], [9, 9, 0, 9]])
    r6 = vec4s([[9, 9, 7, 9], [9, 9, 0.25, 9], [9, 9, -1, 9]])
    res = run_vertex(words, 3, registers={5: r5, 6: r6}, float_constants=consts)
    value = np.asarray(expected(consts[6][1], r5[:, 2], r6[:, 2]), np.float32)
    np.testing.assert_array_equal(res.registers[4][:, 0], value)


def test_co_issue_shares_source_three() -> None:
    rng = np.random.default_rng(5)
    r1, r2, r3 = rng.normal(size=(3, 6, 4)).astype(np.float32)
    res = run_alu("ALU: MULADDv R4 = R3, R1, R2\n     ADDs R5.x_z_ = R3\n", {1: r1, 2: r2, 3: r3})
    np.testing.assert_array_equal(res.registers[4], r1 * r2 + r3)
    np.testing.assert_array_equal(res.registers[5][:, 0], r3[:, 3] + r3[:, 2])
    np.testing.assert_array_equal(res.registers[5][:, 2], r3[:, 3] + r3[:, 2])
    np.testing.assert_array_equal(res.registers[5][:, [1, 3]], 0)


def test_vector_only_instruction_still_updates_ps() -> None:
    # Without a scalar line the slot carries MAXs with an empty mask on R0 (the vendor
    # compiler's filler, isa.ALU_DEFAULTS): ps = max(R0.w, R0.z), which ADD_PREVs then sees.
    r0 = vec4s([[0, 0, 3, 4], [0, 0, 7, 2]])
    r1 = vec4s([[0, 0, 0, 10], [0, 0, 0, -1]])
    res = run_alu("ALU: ADDv R6 = R1, R1\n" + NOP + "     ADD_PREVs R4.x = R1\n", {0: r0, 1: r1})
    np.testing.assert_array_equal(res.registers[4][:, 0], [10 + 4, -1 + 7])


def test_predicated_off_instruction_keeps_ps() -> None:
    r1 = vec4s([[0, 0, 0, 0], [0, 0, 0, 5], [0, 0, 0, 0]])
    r2 = vec4s([[0, 0, 0, 11], [0, 0, 0, 22], [0, 0, 0, 33]])
    text = (
        NOP + "     PRED_SETEs R5.x = R1\n"  # p0 = (R1.w == 0); ps = p0 ? 0 : 1
        "ALU: MAXvEQ R0.____ = R0, R0\n     MAXs R6.x = R2.wwww\n"  # only where p0
         + NOP + "     RETAIN_PREV R7.x = R1\n"
    )
    res = run_alu(text, {1: r1, 2: r2})
    np.testing.assert_array_equal(res.predicate, [True, False, True])
    np.testing.assert_array_equal(res.registers[7][:, 0], [11, 1, 33])
    np.testing.assert_array_equal(res.registers[6][:, 0], [11, 0, 33])
