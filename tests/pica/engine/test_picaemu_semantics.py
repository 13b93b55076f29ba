"""Properties of gpuisa.pica.engine.semantics on many lanes at once.

* float24 ADD and MUL are correctly rounded (round to nearest even, flush below 2^-62,
  overflow at 2^64), checked against exact rational arithmetic written here.
* Every opcode treats lanes independently: computing N lanes at once gives, lane by
  lane, what N one-lane computations give (the batch engine relies on this).
"""

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuisa.floats import f24_to_f32
from gpuisa.pica.engine import semantics
from gpuisa.pica.isa import CompareOp, Opcode

# A normal float24 value (sign, exponent 1..126, mantissa) or zero, decoded by hand:
# (-1)^s * (1 + m / 2^16) * 2^(e - 63).
f24_values = st.one_of(
    st.just(Fraction(0)),
    st.builds(lambda s, e, m: (-1) ** s * (1 + Fraction(m, 2**16)) * Fraction(2) ** (e - 63),
              st.integers(0, 1), st.integers(1, 126), st.integers(0, 0xFFFF)),
    # values near each other, so that sums cancel and round at every position
    st.builds(lambda s, e, m: (-1) ** s * (1 + Fraction(m, 2**16)) * Fraction(2) ** (e - 63),
              st.integers(0, 1), st.integers(60, 66), st.integers(0, 0xFFFF)),
)


def f24_round(q: Fraction) -> float:
    """Exact value q rounded to float24: 17 significant bits, ties to even."""
    if q == 0:
        return 0.0
    sign, a = (-1 if q < 0 else 1), abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    while Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    value = round(a / Fraction(2) ** (e - 16)) * Fraction(2) ** (e - 16)  # half to even
    if value >= Fraction(2) ** 64:
        return sign * math.inf
    if value < Fraction(2) ** -62:
        return 0.0
    return float(sign * value)


def lanes(values):
    row = np.array([float(v) for v in values], dtype=np.float32)
    return np.stack([row, row, row, row])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(f24_values, f24_values), min_size=1, max_size=40))
def test_f24_add_and_mul_are_correctly_rounded(pairs):
    a = lanes(p[0] for p in pairs)
    b = lanes(p[1] for p in pairs)
    for op, exact in ((semantics.op_add, lambda x, y: x + y),
                      (semantics.op_mul, lambda x, y: x * y)):
        got = op([a, b], "f24")[0]
        want = np.array([f24_round(exact(x, y)) for x, y in pairs], dtype=np.float32)
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), (pairs, got, want)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False, width=64), min_size=1,
                max_size=20))
def test_loading_float64_values_rounds_once(values):
    got = semantics.load_floats(np.array(values), "f24")
    want = np.array([f24_round(Fraction(v)) for v in values], dtype=np.float32)
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))


# -- lane independence ----------------------------------------------------------------------

SPECIAL_PATTERNS = [0x000000, 0x800000, 0x00FFFF, 0x010000, 0x3F0000, 0xBF8000, 0x7EFFFF,
                    0x7F0000, 0xFF0000, 0x7F0001, 0x3E5555, 0x413333, 0xC1A000]


def random_registers(rng, count, n):
    bits = rng.choice(SPECIAL_PATTERNS + list(rng.integers(0, 1 << 24, 40)), size=(count, 4, n))
    return [f24_to_f32(b.astype(np.uint32)) for b in bits]


@pytest.mark.parametrize("precision", ["f24", "f32"])
@pytest.mark.parametrize("opcode", list(semantics.VECTOR_OPS))
def test_vector_ops_are_lane_independent(opcode, precision):
    rng = np.random.default_rng(int(opcode) + 100 * (precision == "f32"))
    sources = random_registers(rng, 3, 64)
    op = semantics.VECTOR_OPS[opcode]
    together = op(sources, precision)
    assert together.shape == (4, 64) and together.dtype == np.float32
    for lane in range(64):
        alone = op([s[:, lane:lane + 1] for s in sources], precision)
        assert np.array_equal(alone[:, 0].view(np.uint32), together[:, lane].view(np.uint32))


def test_litp_cmp_and_addressing_are_lane_independent():
    rng = np.random.default_rng(7)
    a, b = random_registers(rng, 2, 32)
    result, flags = semantics.op_litp([a], "f24")
    for lane in range(32):
        r1, f1 = semantics.op_litp([a[:, lane:lane + 1]], "f24")
        assert np.array_equal(r1[:, 0].view(np.uint32), result[:, lane].view(np.uint32))
        assert np.array_equal(f1[:, 0], flags[:, lane])
    for op in CompareOp:
        flags = semantics.op_cmp([a, b], op, op)
        assert flags.shape == (2, 32)
    offsets = np.array([-200, -128, -1, 0, 5, 127, 128, 300])
    # -128 applies (& 0x7F wraps it to +0); -200, 128, 300 are out of range: not applied
    assert semantics.relative_uniform_index(10, offsets).tolist() == [
        10, 10, 9, 10, 15, 137 & 0x7F, 10, 10]


def test_opcode_table_covers_every_alu_opcode():
    handled = set(semantics.VECTOR_OPS) | {Opcode.LITP, Opcode.MOVA, Opcode.CMP}
    from gpuisa.pica.isa import OPCODES, Kind

    alu = {i.base_opcode for i in OPCODES.values() if i.kind in (Kind.ARITHMETIC, Kind.COMPARE)}
    assert alu == handled
