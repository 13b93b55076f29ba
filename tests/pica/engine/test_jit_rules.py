"""jit_rules (the JIT's scalar copy of the hardware rules) equals semantics.py / floats.py.

* float24 rounding: every one of the 2^24 float24 patterns, exactly and at the rounding
  boundaries half an ulp away (ties, just above, just below), plus 2^20 random float64
  bit patterns, against ``semantics.exact("f24").rounded`` (round_f24 after
  round-to-odd narrowing).
* Unary operations (negation, RCP, RSQ, FLR, EX2, LG2, both precisions): every float24
  pattern for RCP and RSQ in f24, strided subsets of them otherwise, plus random float32
  patterns, against the NumPy semantics.
* Binary and multi-term operations (ADD, MUL, MAD, DP3, DP4, DPH, DST, MIN, MAX, SGE, SLT,
  CMP): all pairs of special values and random values against the semantics run on
  one-lane arrays, as the reference engine runs them.
"""

import functools

import numpy as np
import pytest

pytest.importorskip("numba")

from numba import njit
from numba.core.dispatcher import Dispatcher

from gpuisa.floats import f24_to_f32
from gpuisa.pica.engine import jit_rules as R
from gpuisa.pica.engine import semantics

ALL_F24 = np.arange(1 << 24, dtype=np.uint32)
CHUNK = 1 << 22


def same_bits(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    bits = f"u{got.itemsize}"
    bad = np.flatnonzero(got.view(bits) != want.view(bits))
    assert bad.size == 0, [(hex(int(got.view(bits)[i])), hex(int(want.view(bits)[i])))
                           for i in bad[:5]]


@njit
def _map1(f, xs, out):
    for i in range(xs.size):
        out[i] = f(xs[i])


@njit
def _map1_scratch(f, xs, out, natives):
    scratch = R.make_scratch(natives)
    for i in range(xs.size):
        out[i] = f(xs[i], scratch)


@functools.cache
def compiled(rule):
    """``rule`` as a first-class compiled function (the inlined building blocks are
    Numba intrinsics, which can only be called from compiled code)."""
    if isinstance(rule, Dispatcher):
        return rule
    return njit(lambda *args: rule(*args))


def apply(f, xs, dtype, scratch=False):
    out = np.empty(xs.shape, dtype=dtype)
    if scratch:
        _map1_scratch(compiled(f), xs, out, R.NATIVE_LOOPS)
    else:
        _map1(compiled(f), xs, out)
    return out


def reference_rounded(x):
    with np.errstate(all="ignore"):
        return semantics.exact("f24").rounded(np.asarray(x, dtype=np.float64))


# -- rounding -------------------------------------------------------------------------------


@pytest.mark.parametrize("offset", ["exact", "tie", "above", "below"])
def test_round24_on_every_float24_pattern_and_its_rounding_boundaries(offset):
    for start in range(0, 1 << 24, CHUNK):
        values = f24_to_f32(ALL_F24[start:start + CHUNK]).astype(np.float64)
        # Half a float24 ulp of each value, from its float64 exponent.
        exponent = np.frexp(values)[1].astype(np.float64)
        half = np.ldexp(1.0, (exponent - 18).astype(np.int64))
        factor = {"exact": 0.0, "tie": 1.0, "above": 1.0 + 2.0**-20, "below": 1.0 - 2.0**-20}
        with np.errstate(all="ignore"):
            x = np.where(np.isfinite(values), values + half * factor[offset], values)
        same_bits(apply(R.round24, x, np.float64), reference_rounded(x))


def test_round24_on_random_float64_patterns():
    x = np.random.default_rng(2).integers(0, 2**64, 1 << 20, dtype=np.uint64).view(np.float64)
    same_bits(apply(R.round24, x, np.float64), reference_rounded(x))


# -- unary operations --------------------------------------------------------------------------

RANDOM32 = np.random.default_rng(3).integers(0, 1 << 32, 1 << 20, dtype=np.uint64).astype(
    np.uint32).view(np.float32)


def unary_inputs(precision="f24", exhaustive=True):
    """Every float24 pattern for f24 (the values f24 registers hold) where ``exhaustive``,
    else every 7th (all exponents and signs, mantissas with every low-bit pattern); for
    f32, where registers hold any float32, every 61st; then random float32 patterns."""
    if precision == "f24" and exhaustive:
        for start in range(0, 1 << 24, CHUNK):
            yield f24_to_f32(ALL_F24[start:start + CHUNK])
    else:
        yield f24_to_f32(ALL_F24[::7 if precision == "f24" else 61])
    yield RANDOM32


def semantics_unary(op, x, precision):
    register = np.stack([x, x, x, x])
    with np.errstate(all="ignore"):
        return op([register, register, register], precision)[0]


@pytest.mark.parametrize("precision", ["f24", "f32"])
def test_negation(precision):
    rule = R.negate24 if precision == "f24" else R.negate32
    for x in unary_inputs(precision, exhaustive=False):
        with np.errstate(all="ignore"):
            want = semantics.negate(x, precision)
        same_bits(apply(rule, x, np.float32), want)


# The last field: every float24 pattern (RCP and RSQ: a rounding of a division for each);
# FLR, EX2 and LG2 compute with NumPy's own functions, a sample is enough.
UNARY = [
    ("rcp", semantics.op_rcp, R.rcp24, R.rcp32, False, True),
    ("rsq", semantics.op_rsq, R.rsq24, R.rsq32, False, True),
    ("flr", semantics.op_flr, R.flr24, R.flr32, False, False),
    ("ex2", semantics.op_ex2, R.ex2_24, R.ex2_f32, True, False),
    ("lg2", semantics.op_lg2, R.lg2_24, R.lg2_f32, True, False),
]


@pytest.mark.skipif(not R.UFUNC_LOOPS_OK, reason="NumPy's inner loops are not callable")
@pytest.mark.parametrize("precision", ["f24", "f32"])
@pytest.mark.parametrize(("name", "op", "rule24", "rule32", "scratch", "exhaustive"), UNARY,
                         ids=[u[0] for u in UNARY])
def test_unary_units(name, op, rule24, rule32, scratch, exhaustive, precision):
    rule = rule24 if precision == "f24" else rule32
    for x in unary_inputs(precision, exhaustive):
        same_bits(apply(rule, x, np.float32, scratch), semantics_unary(op, x, precision))


# -- binary and multi-term operations (one-lane semantics calls) -------------------------------

SPECIAL = f24_to_f32(np.array(
    [0x000000, 0x800000, 0x00FFFF, 0x80FFFF, 0x010000, 0x3F0000, 0xBF0000, 0x3F8001,
     0x7EFFFF, 0xFEFFFF, 0x7F0000, 0xFF0000, 0x7F0001, 0xFF4002, 0x7F8003, 0x5F0000,
     0x200000, 0x3E5555], dtype=np.uint32))
EXTRA32 = np.array([1.0 + 2**-20, 3e38, -3e38, 1e-40, -1e-45, 2.0**64, 2.0**-63],
                   dtype=np.float32)
VALUES = np.concatenate([SPECIAL, EXTRA32])


@njit
def _binary(f, a, b, out):
    for i in range(a.size):
        out[i] = f(a[i], b[i])


@njit
def _dp4(f, a, b, out):
    for i in range(a.shape[1]):
        out[i] = f(a[0, i], a[1, i], a[2, i], a[3, i], b[0, i], b[1, i], b[2, i], b[3, i])


@njit
def _dp3(f, a, b, out):
    for i in range(a.shape[1]):
        out[i] = f(a[0, i], a[1, i], a[2, i], b[0, i], b[1, i], b[2, i])


@njit
def _dph(f, a, b, out):
    for i in range(a.shape[1]):
        out[i] = f(a[0, i], a[1, i], a[2, i], b[0, i], b[1, i], b[2, i], b[3, i])


@njit
def _mad(f, a, b, c, out):
    for i in range(a.size):
        out[i] = f(a[i], b[i], c[i])


def pairs():
    a, b = np.meshgrid(VALUES, VALUES)
    rng = np.random.default_rng(11)
    random = rng.integers(0, 1 << 24, (2, 400)).astype(np.uint32)
    return (np.concatenate([a.ravel(), f24_to_f32(random[0])]),
            np.concatenate([b.ravel(), f24_to_f32(random[1])]))


def one_lane(op, sources, precision):
    """op on each lane separately, as the reference engine calls it."""
    lanes = sources[0].shape[-1]
    rows = []
    with np.errstate(all="ignore"):
        for i in range(lanes):
            rows.append(op([s[..., i:i + 1] for s in sources], precision)[..., 0])
    return np.stack(rows, axis=-1)


def quad(x):
    return np.stack([x, x, x, x])


@pytest.mark.parametrize("precision", ["f24", "f32"])
def test_componentwise_binary_operations(precision):
    a, b = pairs()
    f24 = precision == "f24"
    for op, rule in ((semantics.op_add, R.add24 if f24 else R.add32),
                     (semantics.op_mul, R.mul24 if f24 else R.mul32),
                     (semantics.op_max, R.pica_max), (semantics.op_min, R.pica_min),
                     (semantics.op_sge, R.sge), (semantics.op_slt, R.slt)):
        want = one_lane(op, [quad(a), quad(b)], precision)[0]
        got = np.empty_like(a)
        _binary(compiled(rule), a, b, got)
        same_bits(got, want)


@pytest.mark.parametrize("precision", ["f24", "f32"])
def test_multi_term_operations(precision):
    rng = np.random.default_rng(17)
    n = 600
    a = rng.choice(VALUES, size=(4, n)).astype(np.float32)
    b = rng.choice(VALUES, size=(4, n)).astype(np.float32)
    c = rng.choice(VALUES, size=(4, n)).astype(np.float32)
    f24 = precision == "f24"
    out = np.empty(n, dtype=np.float32)
    _dp4(R.dp4_24 if f24 else R.dp4_32, a, b, out)
    same_bits(out, one_lane(semantics.op_dp4, [a, b], precision)[0])
    _dp3(R.dp3_24 if f24 else R.dp3_32, a, b, out)
    same_bits(out, one_lane(semantics.op_dp3, [a, b], precision)[0])
    _dph(R.dph_24 if f24 else R.dph_32, a, b, out)
    same_bits(out, one_lane(semantics.op_dph, [a, b], precision)[0])
    _mad(R.mad24 if f24 else R.mad32, a[0], b[0], c[0], out)
    same_bits(out, one_lane(semantics.op_mad, [a, b, c], precision)[0])
    dst = one_lane(semantics.op_dst, [a, b], precision)
    _binary(compiled(R.dst_y24 if f24 else R.mul32), a[1], b[1], out)
    same_bits(out, dst[1])
    if f24:
        _map1(R.pass24, a[2].copy(), out)
        same_bits(out, dst[2])


def test_compare_condition_and_litp():
    a, b = pairs()
    for operator in range(8):
        want = np.array([semantics.compare(operator, x[None], y[None])[0]
                         for x, y in zip(a, b, strict=True)])
        got = np.array([R.compare(operator, x, y) for x, y in zip(a, b, strict=True)])
        assert np.array_equal(got, want), operator
    for condop in range(4):
        for refx in (0, 1):
            for refy in (0, 1):
                for cx in (False, True):
                    for cy in (False, True):
                        want = semantics.condition(condop, refx, refy,
                                                   np.array([[cx], [cy]]))[0]
                        assert R.condition(condop, bool(refx), bool(refy), cx, cy) == want
    result, _ = semantics.op_litp([np.stack([VALUES] * 4)], "f24")
    same_bits(apply(R.litp_xw, VALUES, np.float32), result[0])
    same_bits(apply(R.litp_y, VALUES, np.float32), result[1])


def test_addressing_rules():
    offsets = np.array([-300, -129, -128, -1, 0, 1, 95, 127, 128, 1000])
    for number in (0, 5, 95):
        want = semantics.relative_uniform_index(number, offsets)
        got = [R.relative_row(number, int(o)) for o in offsets]
        assert got == want.tolist()
    x = np.concatenate([VALUES, np.array([0.9, -0.9, -1.5, 2.0**31, -(2.0**31) - 5e3, 3e9],
                                         dtype=np.float32)])
    want = semantics.address_from_float(x)
    assert [R.address_from_float(v) for v in x] == want.tolist()
