"""Vector operations, one instruction at a time, against plain NumPy (a2xx-isa.md#vector-ops,
a2xx-isa.md#float-rules)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from test_a2xx_engine_support import F32, patch_alu, program, run_alu, same_floats, vec4s

from gpuisa.a2xx import run_vertex

# Operands with the values the legacy rules care about: zeros of both signs, infinities,
# NaN, denormals (flushed to a zero of the same sign before use) and equal pairs.
SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40, 1.0, -1.0, 2.5, 0.5, -3.0]


def _operands(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    random = rng.normal(scale=4.0, size=(3, 24, 4)).astype(np.float32)
    special = rng.choice(np.array(SPECIAL, dtype=np.float32), size=(3, 24, 4))
    a, b, c = np.concatenate([random, special], axis=1)
    b[::5] = a[::5]  # some equal pairs for the comparisons
    return a, b, c


def flush(x: np.ndarray) -> np.ndarray:
    return np.where(np.abs(x) < F32(2.0**-126), np.copysign(F32(0), x), x).astype(np.float32)


def lmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """D3D9 multiply: a zero operand gives +0, even against inf or NaN."""
    with np.errstate(all="ignore"):
        return np.where((a == 0) | (b == 0), F32(0), a * b).astype(np.float32)


def dot(a: np.ndarray, b: np.ndarray, n: int) -> np.ndarray:
    total = np.full(a.shape[0], F32(0))
    for i in range(n):
        total = (total + lmul(a[:, i], b[:, i])).astype(np.float32)
    return total


def rep(x: np.ndarray) -> np.ndarray:
    return np.repeat(x[:, None], 4, axis=1).astype(np.float32)


def f(cond: np.ndarray) -> np.ndarray:
    return cond.astype(np.float32)


EXPECTED: dict[str, tuple[int, Callable[..., np.ndarray]]] = {
    "ADDv": (2, lambda a, b, c: a + b),
    "MULv": (2, lambda a, b, c: lmul(a, b)),
    "MAXv": (2, lambda a, b, c: np.where(a >= b, a, b)),
    "MINv": (2, lambda a, b, c: np.where(a < b, a, b)),
    "SETEv": (2, lambda a, b, c: f(a == b)),
    "SETGTv": (2, lambda a, b, c: f(a > b)),
    "SETGTEv": (2, lambda a, b, c: f(a >= b)),
    "SETNEv": (2, lambda a, b, c: f(a != b)),
    "FRACv": (1, lambda a, b, c: a - np.floor(a)),
    "TRUNCv": (1, lambda a, b, c: np.trunc(a)),
    "FLOORv": (1, lambda a, b, c: np.floor(a)),
    "MULADDv": (3, lambda a, b, c: lmul(a, b) + c),
    "CNDEv": (3, lambda a, b, c: np.where(a == 0, b, c)),
    "CNDGTEv": (3, lambda a, b, c: np.where(a >= 0, b, c)),
    "CNDGTv": (3, lambda a, b, c: np.where(a > 0, b, c)),
    "DOT4v": (2, lambda a, b, c: rep(dot(a, b, 4))),
    "DOT3v": (2, lambda a, b, c: rep(dot(a, b, 3))),
    "DOT2ADDv": (3, lambda a, b, c: rep(dot(a, b, 2) + c[:, 0])),
    "DSTv": (
        2,
        lambda a, b, c: np.stack([np.ones(len(a)), lmul(a[:, 1], b[:, 1]), a[:, 2], b[:, 3]], 1),
    ),
}


def _text(op: str, srcs: int) -> str:
    operands = {1: "R1", 2: "R1, R2", 3: "R3, R1, R2"}[srcs]  # Mesa prints src3 first
    return f"ALU: {op} R4 = {operands}\n"


@pytest.mark.parametrize("op", sorted(EXPECTED))
@pytest.mark.parametrize("seed", [0, 1])
def test_vector_op(op: str, seed: int) -> None:
    srcs, expected_fn = EXPECTED[op]
    a, b, c = _operands(seed)
    result = run_alu(_text(op, srcs), {1: a, 2: b, 3: c})
    with np.errstate(all="ignore"):
        expected = np.asarray(expected_fn(flush(a), flush(b), flush(c)), dtype=np.float32)
    assert same_floats(result.registers[4], expected), op


def test_mul_zero_rule_by_hand() -> None:
    a = vec4s([[0.0, -0.0, 1e-40, 2.0]])
    b = vec4s([[np.inf, 5.0, np.nan, -0.0]])
    r = run_alu("ALU: MULv R4 = R1, R2\n", {1: a, 2: b}).registers[4]
    # every product has a zero (or denormal) operand: all +0.0, not NaN or -0.0
    assert r.view(np.uint32).tolist() == [[0, 0, 0, 0]]


def test_dot_of_negative_zero_products_is_positive_zero() -> None:
    a = vec4s([[-0.0, -1.0, 0.0, 7.0]])
    b = vec4s([[3.0, 0.0, -2.0, 1.0]])
    r = run_alu("ALU: DOT3v R4 = R1, R2\n", {1: a, 2: b}).registers[4]
    assert r.view(np.uint32).tolist() == [[0, 0, 0, 0]]  # +0 + (+0) + (+0) + ... = +0


def test_max4_picks_largest_component() -> None:
    a = vec4s([[1, 5, 3, 2], [-1, -2, -3, -0.5], [np.nan, 1, 2, 0], [4, 4, 4, 4]])
    r = run_alu("ALU: MAX4v R4 = R1\n", {1: a}).registers[4]
    # ">=" with priority x, y, z, w: a NaN x loses every comparison
    np.testing.assert_array_equal(r, rep(np.array([5, -0.5, 2, 4], np.float32)))


@pytest.mark.parametrize(
    ("v", "face", "t", "s", "major"),
    [
        # by hand from XE-I's table: +x face: t = -y, s = -z, major = x
        ((2.0, 0.5, 0.25), 0, -0.5, -0.25, 2.0),
        ((-2.0, 0.5, 0.25), 1, -0.5, 0.25, -2.0),
        # y major: t = z (negated for -y), s = x
        ((0.5, 3.0, -0.25), 2, -0.25, 0.5, 3.0),
        ((0.5, -3.0, -0.25), 3, 0.25, 0.5, -3.0),
        # z major: t = -y, s = x (negated for -z)
        ((0.5, 0.25, 4.0), 4, -0.25, 0.5, 4.0),
        ((0.5, 0.25, -4.0), 5, -0.25, -0.5, -4.0),
    ],
)
def test_cube(v: tuple[float, float, float], face: int, t: float, s: float, major: float) -> None:
    x, y, z = v
    a = vec4s([[z, z, x, y]])  # the operand swizzles the compiler uses: .zzxy and .yxzz
    b = vec4s([[y, x, z, z]])
    r = run_alu("ALU: CUBEv R4 = R1, R2\n", {1: a, 2: b}).registers[4]
    np.testing.assert_array_equal(r, [[t, s, 2 * major, face]])


@pytest.mark.parametrize(
    ("op", "test"),
    [
        ("PRED_SETE_PUSHv", lambda v: v == 0),
        ("PRED_SETNE_PUSHv", lambda v: v != 0),
        ("PRED_SETGT_PUSHv", lambda v: v > 0),
        ("PRED_SETGTE_PUSHv", lambda v: v >= 0),
    ],
)
def test_pred_set_push(op: str, test: Callable[[np.ndarray], np.ndarray]) -> None:
    a = vec4s([[0, 9, 9, 0], [0, 9, 9, 0], [3, 9, 9, 1], [0, 9, 9, 0], [2, 0, 0, 0]])
    b = vec4s([[0, 9, 9, 0], [1, 9, 9, 1], [-1, 9, 9, 0], [-2, 9, 9, -2], [5, 0, 0, 3]])
    res = run_alu(f"ALU: {op} R4 = R1, R2\n", {1: a, 2: b})
    predicate = (a[:, 3] == 0) & test(b[:, 3])
    counter = np.where((a[:, 0] == 0) & test(b[:, 0]), 0.0, a[:, 0] + 1)
    np.testing.assert_array_equal(res.predicate, predicate)
    np.testing.assert_array_equal(res.registers[4], rep(counter.astype(np.float32)))


@pytest.mark.parametrize(
    ("op", "test"),
    [
        ("KILLEv", np.equal),
        ("KILLGTv", np.greater),
        ("KILLGTEv", np.greater_equal),
        ("KILLNEv", np.not_equal),
    ],
)
def test_kill_vector(op: str, test: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> None:
    a, b, _ = _operands(3)
    res = run_alu(f"ALU: {op} R4 = R1, R2\n", {1: a, 2: b})
    with np.errstate(invalid="ignore"):
        kill = np.any(test(flush(a), flush(b)), axis=1)
    assert kill.any() and not kill.all()
    np.testing.assert_array_equal(res.killed, kill)
    np.testing.assert_array_equal(res.registers[4], rep(kill.astype(np.float32)))


def test_kill_with_empty_write_mask_still_kills() -> None:
    a = vec4s([[1, 0, 0, 0], [-1, 0, 0, 0]])
    res = run_alu("ALU: KILLGTv R4.____ = R1, R2\n", {1: a, 2: np.zeros((2, 4))})
    assert res.killed.tolist() == [True, False]
    assert 4 not in res.registers


def test_mova_vector_sets_address_register() -> None:
    a = vec4s([[1, 2, 3, 2.5], [0, 0, 0, -2.5], [0, 0, 0, 300], [0, 0, 0, -300], [0, 0, 0, np.nan]])
    b = vec4s([[2, 1, 4, 0]] * 5)
    # Mesa prints MOVAv with one operand; Xenia reads a second one (maxa): point it at R2.
    words = patch_alu(program("EXEC_END\nALU: MOVAv R4 = R1\n"), 1, src2_reg=2, src2_sel=1)
    res = run_vertex(words, 5, registers={1: a, 2: b})
    # floor(clamp(w, -256, 255) + 0.5); NaN clamps to -256 (C++ std::max order)
    assert res.address.tolist() == [3, -2, 255, -256, -256]
    np.testing.assert_array_equal(res.registers[4][0], [2, 2, 4, 2.5])


def test_clamp_saturates_nan_and_negative_zero() -> None:
    a = vec4s([[2.0, -0.0, np.nan, 0.25]])
    res = run_alu("ALU: MAXv R4 = R1, R1 CLAMP\n", {1: a})
    assert (
        res.registers[4].view(np.uint32).tolist()
        == vec4s([[1.0, 0.0, 0.0, 0.25]]).view(np.uint32).tolist()
    )


def test_swizzle_negate_abs_and_write_mask() -> None:
    a = vec4s([[1, -2, 3, -4], [5, 6, -7, 8]])
    b = vec4s([[-10, 20, -30, 40], [0.5, -0.25, 1, 2]])
    old = vec4s([[100, 200, 300, 400], [500, 600, 700, 800]])
    res = run_alu("ALU: ADDv R4.x_zw = -R1.wzyx, |R2.xxyy|\n", {1: a, 2: b, 4: old})
    expected = -a[:, [3, 2, 1, 0]] + np.abs(b[:, [0, 0, 1, 1]])
    expected[:, 1] = old[:, 1]
    np.testing.assert_array_equal(res.registers[4], expected)


def test_constant_operands() -> None:
    a = vec4s([[1, 2, 3, 4], [-1, 0.5, 2, 8]])
    consts = np.zeros((8, 4), np.float32)
    consts[5] = [2, -3, 0.5, 10]
    res = run_alu("ALU: MULADDv R4 = C5.wzyx, R1, C5\n", {1: a}, float_constants=consts)
    expected = a * consts[5] + consts[5][[3, 2, 1, 0]]
    np.testing.assert_array_equal(res.registers[4], expected)
