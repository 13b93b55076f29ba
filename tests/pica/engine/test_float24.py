"""float24 arithmetic (precision="f24", the default): 3dbrew's floating-point table,
the float24 range limits, the rounding rule and the 63-halvings observation.

Expected values are derived by hand from 3dbrew "Floating-Point Behavior"
(pica-emulation.md#fp-table: s = largest subnormal = pattern 0x00FFFF, n = smallest normal =
0x010000 = 2^-62) and
the float24 layout (1 sign, 7 exponent bits bias 63, 16 mantissa bits).
"""

import math

import numpy as np
import pytest
from engine_kit import Asm, assert_same, bits, one_op

from gpuisa.pica.engine import F24Bits, run

INF = math.inf
NAN = math.nan
S = 0xFFFF * 2.0**-78  # value of the largest subnormal pattern, decoded exactly
N = 2.0**-62
F24_MAX = (2 - 2**-16) * 2.0**63
S4 = F24Bits([0x00FFFF] * 4)


def vec(*values):
    return list(values) + [values[-1]] * (4 - len(values))


# One row per line of 3dbrew's table.  (name, mnemonic, sources, c0, v0, expected o0)
TABLE = [
    ("inf*0", "mul", ("c0", "v0"), vec(INF, -INF, 0, 0), vec(0, 0, INF, -INF), vec(0)),
    ("NaN*0", "mul", ("c0", "v0"), vec(NAN, 0, 2, 0), vec(0, NAN, NAN, 0), vec(NAN, NAN, NAN, 0)),
    ("+inf-+inf", "add", ("c0", "-v0"), vec(INF), vec(INF), vec(NAN)),
    ("rcp(-0)", "rcp", ("-c0",), vec(0), None, vec(INF)),
    ("rcp(0)", "rcp", ("c0",), vec(0), None, vec(INF)),
    ("rcp(+inf)", "rcp", ("c0",), vec(INF), None, vec(0)),
    ("rcp(NaN)", "rcp", ("c0",), vec(NAN), None, vec(NAN)),
    ("rsq(-0)", "rsq", ("-c0",), vec(0), None, vec(INF)),
    ("rsq(-2)", "rsq", ("c0",), vec(-2), None, vec(NAN)),
    ("rsq(+inf)", "rsq", ("c0",), vec(INF), None, vec(0)),
    ("rsq(-inf)", "rsq", ("c0",), vec(-INF), None, vec(NAN)),
    ("rsq(NaN)", "rsq", ("c0",), vec(NAN), None, vec(NAN)),
    ("max(0,+inf)", "max", ("c0", "v0"), vec(0), vec(INF), vec(INF)),
    # 3dbrew's table says max(0, -inf) = -inf; hardware tests give 0 (pica-emulation.md#min-max,
    # Citra PR #1065).  gpuisa follows the hardware.
    ("max(0,-inf)", "max", ("c0", "v0"), vec(0), vec(-INF), vec(0)),
    ("max(0,NaN)", "max", ("c0", "v0"), vec(0), vec(NAN), vec(NAN)),
    ("max(NaN,0)", "max", ("c0", "v0"), vec(NAN), vec(0), vec(0)),
    ("max(-inf,+inf)", "max", ("c0", "v0"), vec(-INF), vec(INF), vec(INF)),
    ("min(0,+inf)", "min", ("c0", "v0"), vec(0), vec(INF), vec(0)),
    ("min(0,-inf)", "min", ("c0", "v0"), vec(0), vec(-INF), vec(-INF)),
    ("min(0,NaN)", "min", ("c0", "v0"), vec(0), vec(NAN), vec(NAN)),
    ("min(NaN,0)", "min", ("c0", "v0"), vec(NAN), vec(0), vec(0)),
    ("min(-inf,+inf)", "min", ("c0", "v0"), vec(-INF), vec(INF), vec(-INF)),
    ("max(s,0)", "max", ("c0", "v0"), S4, vec(0), vec(S)),
    ("mul(s,2)", "mul", ("c0", "v0"), S4, vec(2), vec(0)),
    ("mul(n,0.5)", "mul", ("c0", "v0"), vec(N), vec(0.5), vec(0)),
]


@pytest.mark.parametrize(("mnemonic", "sources", "c0", "v0", "expected"),
                         [row[1:] for row in TABLE], ids=[row[0] for row in TABLE])
def test_seed_floating_point_table(engine, mnemonic, sources, c0, v0, expected):
    inputs = {"v0": v0} if v0 is not None else {}
    result = one_op(engine, mnemonic, "o0", *sources, uniforms={"c0": c0}, inputs=inputs)
    assert_same(result.outputs["o0"][0], expected)


def test_seed_table_max_0_neg_inf_disagrees_with_hardware(engine):
    """Pin the deliberate deviation: 3dbrew's row says -inf, the result is 0."""
    result = one_op(engine, "max", "o0", "c0", "v0", uniforms={"c0": vec(0)},
                    inputs={"v0": vec(-INF)})
    assert result.outputs["o0"][0, 0] == 0.0
    assert result.outputs["o0"][0, 0] != -INF


def test_rsq_of_rcp_of_negative_infinity(engine):
    """rsq(rcp(-inf)) = +inf: rcp(-inf) is +0, not -0 (pica-emulation.md#fp-table)."""
    a = Asm()
    a.op("rcp", "r0", "c0")
    a.op("rsq", "o0", "r0")
    a.end()
    result = run(a.program(), {}, uniforms={"c0": vec(-INF)}, engine=engine, registers=True)
    assert_same(result.temporaries["r0"][0], vec(0.0))
    assert_same(result.outputs["o0"][0], vec(INF))


def test_rcp_and_rsq_of_a_negative_zero_pattern(engine):
    """The -0 pattern 0x800000 loaded as a raw uniform still gives +inf."""
    for mnemonic in ("rcp", "rsq"):
        result = one_op(engine, mnemonic, "o0", "c0", uniforms={"c0": F24Bits([0x800000] * 4)})
        assert_same(result.outputs["o0"][0], vec(INF))


@pytest.mark.parametrize(("cmpx", "expected"), [(0, False), (1, True)])
def test_cmp_does_not_flush_subnormal_inputs(engine, cmpx, expected):
    """3dbrew: cmp(s, 0) = false — EQ is false and NE true."""
    result = one_op(engine, "cmp", None, "c0", "v0", uniforms={"c0": S4},
                    inputs={"v0": vec(0)}, cmpx=cmpx, cmpy=cmpx)
    assert result.cmp[0].tolist() == [expected, expected]


def test_inf_times_zero_inside_mad_and_dp4(engine):
    result = one_op(engine, "mad", "o0", "v0", "c0", "v1", inputs={
        "v0": vec(INF, 0, -INF, 2), "v1": vec(1)}, uniforms={"c0": vec(0, INF, 0, 3)})
    assert_same(result.outputs["o0"][0], vec(1, 1, 1, 7))
    result = one_op(engine, "dp4", "o0", "c0", "v0", uniforms={"c0": vec(INF, 1, 1, 1)},
                    inputs={"v0": vec(0, 2, 3, 4)})
    assert_same(result.outputs["o0"][0], vec(9))


def test_no_negative_zero(engine):
    """-(1 * 0) and 0 * -1 are +0 in f24 mode: the PICA has no -0 (pica-emulation.md#flush)."""
    result = one_op(engine, "mul", "o0", "-c0", "v0", uniforms={"c0": vec(1, 0, -1, 0)},
                    inputs={"v0": vec(0, -1, 0, 0)})
    assert bits(result.outputs["o0"][0]).tolist() == [0, 0, 0, 0]
    result = one_op(engine, "mov", "o0", "-c0", uniforms={"c0": vec(0)})
    assert bits(result.outputs["o0"][0]).tolist() == [0, 0, 0, 0]


def test_arithmetic_flushes_subnormal_inputs(engine):
    """ADD(s, n): s is flushed, giving n (not (2 - 2^-16) * n)."""
    result = one_op(engine, "add", "o0", "c0", "v0", uniforms={"c0": S4},
                    inputs={"v0": vec(N)})
    assert_same(result.outputs["o0"][0], vec(N))


def test_mov_copies_a_subnormal_pattern_unchanged(engine):
    result = one_op(engine, "mov", "o0", "c0", uniforms={"c0": S4})
    assert_same(result.outputs["o0"][0], vec(S))


# -- range limits --------------------------------------------------------------------------


def test_largest_normal_round_trips(engine):
    for c0 in (vec(F24_MAX), F24Bits([0x7EFFFF, 0xFEFFFF, 0x7EFFFF, 0xFEFFFF])):
        result = one_op(engine, "add", "o0", "c0", "v0", uniforms={"c0": c0},
                        inputs={"v0": vec(0)})
        expected = vec(F24_MAX) if isinstance(c0, list) else vec(F24_MAX, -F24_MAX,
                                                                   F24_MAX, -F24_MAX)
        assert_same(result.outputs["o0"][0], expected)


def test_overflow_to_infinity(engine):
    # 2 * max, max + max, max + half an ulp (2^46: a tie, rounded to even = up to 2^64),
    # and -max * 2 overflow; max + a quarter ulp (2^45) stays max.
    result = one_op(engine, "mul", "o0", "c0", "v0", uniforms={"c0": vec(F24_MAX, -F24_MAX)},
                    inputs={"v0": vec(2.0)})
    assert_same(result.outputs["o0"][0], vec(INF, -INF))
    result = one_op(engine, "add", "o0", "c0", "v0",
                    uniforms={"c0": vec(F24_MAX, F24_MAX, F24_MAX, 1)},
                    inputs={"v0": vec(F24_MAX, 2.0**46, 2.0**45, 1)})
    assert_same(result.outputs["o0"][0], vec(INF, INF, F24_MAX, 2))


def test_loading_beyond_the_range(engine):
    """Values handed in are rounded like results: 2^64 and above are infinite, below
    2^-62 zero."""
    result = one_op(engine, "mov", "o0", "c0",
                    uniforms={"c0": [2.0**64, -(2.0**70), 2.0**-63, 1.5 * 2.0**-62]})
    assert_same(result.outputs["o0"][0], [INF, -INF, 0.0, 1.5 * 2.0**-62])


def test_smallest_normal_survives_and_below_flushes(engine):
    result = one_op(engine, "add", "o0", "c0", "-v0",
                    uniforms={"c0": vec(N, 1.5 * N, 2 * N, 3 * N)},
                    inputs={"v0": vec(0, N, N, N)})
    # n - 0 = n; 1.5n - n = 0.5n = 2^-63 (subnormal result) -> +0; 2n - n = n; 3n - n = 2n
    assert_same(result.outputs["o0"][0], vec(N, 0, N, 2 * N))


def test_one_halved_63_times_equals_zero(engine):
    """3dbrew (pica-emulation.md#f24-halvings): "1.0 can be multiplied 63 times by 0.5 until the
    result compares equal zero"."""

    def halve(times, precision):
        a = Asm()
        a.flow("loop", dst=1, id=0)  # X + 1 = times iterations
        a.op("mul", "r0", "c1", "r0")  # r0 *= 0.5
        a.op("cmp", None, "c2", "r0", cmpx=0, cmpy=0)  # cmp.x = (0 == r0.x)
        a.end()
        return run(a.program(), {}, temporaries={"r0": vec(1.0)}, engine=engine,
                   precision=precision,
                   uniforms={"i0": [times - 1, 0, 0, 0], "c1": vec(0.5), "c2": vec(0)},
                       registers=True)

    assert halve(62, "f24").cmp[0].tolist() == [False, False]
    assert halve(62, "f24").temporaries["r0"][0, 0] == 2.0**-62
    assert halve(63, "f24").cmp[0].tolist() == [True, True]
    # float32 arithmetic (what emulators do) keeps going down to 2^-149
    # (pica-emulation.md#f24-halvings)
    assert halve(63, "f32").cmp[0].tolist() == [False, False]
    assert halve(63, "f32").temporaries["r0"][0, 0] == 2.0**-63


# -- the rounding rule ---------------------------------------------------------------------

U = 2.0**-16  # one ulp of 1.0 in float24


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (1.0, 0.75 * U, 1 + U),  # above the half-way point: up
        (1.0, 0.5 * U, 1.0),  # tie: to even (1.0)
        (1 + U, 0.5 * U, 1 + 2 * U),  # tie: to even (1 + 2u)
        (1.0, 0.25 * U, 1.0),
        # just above a tie by 2^-30: a float32 intermediate would round to the tie and
        # then to even (1.0); the exact sum rounds up (no double rounding)
        (1.0, 2.0**-17 + 2.0**-30, 1 + U),
        (-1.0, -0.75 * U, -(1 + U)),
    ],
)
def test_add_rounds_to_nearest_even(engine, a, b, expected):
    result = one_op(engine, "add", "o0", "c0", "v0", uniforms={"c0": vec(a)},
                    inputs={"v0": vec(b)})
    assert_same(result.outputs["o0"][0], vec(expected))


def test_mul_rounds_the_exact_product(engine):
    # (1 + u)^2 = 1 + 2u + u^2 -> 1 + 2u
    result = one_op(engine, "mul", "o0", "c0", "v0", uniforms={"c0": vec(1 + U)},
                    inputs={"v0": vec(1 + U)})
    assert_same(result.outputs["o0"][0], vec(1 + 2 * U))


def test_mad_rounds_the_product_before_adding(engine):
    """(1 + 2^-8)(1 + 2^-9) = 1 + 2^-8 + 2^-9 + 2^-17: the 2^-17 is a tie lost to even
    when the product is rounded, so adding -(1 + 2^-8 + 2^-9) gives 0, not 2^-17 (3dbrew:
    MAD "is not an FMA, the intermediate result is rounded"; pica-emulation.md#mul)."""
    p = 1 + 2.0**-8 + 2.0**-9
    result = one_op(engine, "mad", "o0", "v0", "c0", "v1", uniforms={"c0": vec(1 + 2.0**-9)},
                    inputs={"v0": vec(1 + 2.0**-8), "v1": vec(-p)})
    assert_same(result.outputs["o0"][0], vec(0.0))


def test_dot_product_rounds_each_partial_sum(engine):
    """(2^20, 1, -2^20, 0) . (1, 1, 1, 1): 2^20 + 1 needs 21 significant bits and rounds
    to 2^20 in float24, so the left-to-right sum is 0; float32 keeps the 1."""
    args = dict(uniforms={"c0": [2.0**20, 1, -(2.0**20), 0]}, inputs={"v0": vec(1)})
    assert one_op(engine, "dp4", "o0", "c0", "v0", **args).outputs["o0"][0, 0] == 0.0
    assert one_op(engine, "dp4", "o0", "c0", "v0", precision="f32",
                  **args).outputs["o0"][0, 0] == 1.0


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1 + 2.0**-17, 1.0),  # tie: to even
        (1 + 3 * 2.0**-17, 1 + 2 * U),  # tie: to even
        (1 + 2.0**-17 + 2.0**-40, 1 + U),  # float64 input, rounded once
        (np.float32(1 + 2.0**-17 + 2.0**-23), 1 + U),
    ],
)
def test_values_are_rounded_when_loaded(engine, value, expected):
    result = one_op(engine, "mov", "o0", "c0", uniforms={"c0": vec(value)})
    assert_same(result.outputs["o0"][0], vec(expected))
    result = one_op(engine, "mov", "o0", "v0", inputs={"v0": vec(value)})
    assert_same(result.outputs["o0"][0], vec(expected))


def test_every_f24_result_is_a_float24_value(engine):
    """Results keep at most 16 mantissa bits: the low 7 bits of the float32 are 0."""
    result = one_op(engine, "rcp", "o0", "c0", uniforms={"c0": vec(3.0)})
    third = result.outputs["o0"][0, 0]
    assert bits(third) & 0x7F == 0
    # 1/3 = 1.0101...b * 2^-2: 16 fraction bits 0101...01, the next bit 0: rounded down
    assert third == (1 + 0x5555 / 65536) * 2.0**-2
