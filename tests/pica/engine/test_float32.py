"""precision="f32": float32 arithmetic (what Azahar, Citra and 3Beans compute) with the
PICA's special-case rules.  Expected values are plain NumPy float32 computations."""

import numpy as np
import pytest
from engine_kit import assert_same, bits, one_op
from test_float24 import TABLE

from gpuisa.pica.engine import F24Bits

F32 = np.float32
S = 0xFFFF * 2.0**-78
N = 2.0**-62


def f32_op(engine, *args, **kw):
    return one_op(engine, *args, precision="f32", **kw).outputs["o0"][0]


# The float24 table's rows that do not depend on float24 subnormal flushing hold in f32
# mode too (pica-emulation.md#f24-rounding: "float32 arithmetic with the PICA rules").
F32_ROWS = [row for row in TABLE if row[0] not in ("mul(s,2)", "mul(n,0.5)")]


@pytest.mark.parametrize(("mnemonic", "sources", "c0", "v0", "expected"),
                         [row[1:] for row in F32_ROWS], ids=[row[0] for row in F32_ROWS])
def test_special_case_rules_hold_in_f32(engine, mnemonic, sources, c0, v0, expected):
    inputs = {"v0": v0} if v0 is not None else {}
    assert_same(f32_op(engine, mnemonic, "o0", *sources, uniforms={"c0": c0}, inputs=inputs),
                expected)


def test_no_float24_flushing_in_f32(engine):
    s4 = F24Bits([0x00FFFF] * 4)
    assert_same(f32_op(engine, "mul", "o0", "c0", "v0", uniforms={"c0": s4},
                       inputs={"v0": [2.0] * 4}), [F32(S) * F32(2)] * 4)
    assert_same(f32_op(engine, "mul", "o0", "c0", "v0", uniforms={"c0": [N] * 4},
                       inputs={"v0": [0.5] * 4}), [N / 2] * 4)


def test_negative_zero_results_are_kept_in_f32(engine):
    out = f32_op(engine, "mul", "o0", "c0", "v0", uniforms={"c0": [-1, 0, 1, 2]},
                 inputs={"v0": [0, -1, -0.0, 3]})
    assert bits(out).tolist() == bits([-0.0, -0.0, -0.0, 6]).tolist()


def test_float32_precision_and_range(engine):
    # 1 + 2^-20 keeps its low bit; (2 - 2^-16) * 2^63 * 2 = 2^65 - 2^48 does not overflow
    big = (2 - 2**-16) * 2.0**63
    out = f32_op(engine, "add", "o0", "c0", "v0", uniforms={"c0": [1, big, 1e38, 1]},
                 inputs={"v0": [2.0**-20, big, 1e38, 2.0**-17]})
    assert_same(out, [F32(1) + F32(2.0**-20), F32(big) + F32(big), F32(1e38) + F32(1e38),
                      F32(1) + F32(2.0**-17)])


@pytest.mark.parametrize(
    ("mnemonic", "x", "expected"),
    [
        ("rcp", 3.0, F32(1) / F32(3)),
        ("rsq", 2.0, F32(1) / np.sqrt(F32(2))),  # two float32 roundings, as emulators do
        ("ex2", 0.3, np.exp2(F32(0.3))),
        ("lg2", 3.0, np.log2(F32(3))),
    ],
)
def test_scalar_units_in_f32(engine, mnemonic, x, expected):
    assert_same(f32_op(engine, mnemonic, "o0", "c0", uniforms={"c0": [x, 0, 0, 0]}),
                [expected] * 4)


def test_dot_product_sums_left_to_right_in_f32(engine):
    a = np.array([1e8, 1, -1e8, 0.5], dtype=F32)
    b = np.array([1, 3, 1, 0.25], dtype=F32)
    expected = F32(0)
    for x, y in zip(a, b, strict=True):
        expected = F32(expected + F32(x * y))
    assert_same(f32_op(engine, "dp4", "o0", "c0", "v0", uniforms={"c0": a.tolist()},
                       inputs={"v0": b.tolist()}), [expected] * 4)


def test_mad_is_not_fused_in_f32(engine):
    """(1 + 2^-12)^2 = 1 + 2^-11 + 2^-24: the 2^-24 is a float32 tie lost to even."""
    x = 1 + 2.0**-12
    out = f32_op(engine, "mad", "o0", "v0", "c0", "v1", uniforms={"c0": [x] * 4},
                 inputs={"v0": [x] * 4, "v1": [-(1 + 2.0**-11)] * 4})
    assert_same(out, [F32(x) * F32(x) - F32(1 + 2.0**-11)] * 4)
    assert out[0] == 0.0
    assert x * x - (1 + 2.0**-11) == 2.0**-24  # exact in float64: what an FMA would give
