"""The primitive rules of ``rules.primitives`` and the recipes, checked on their own.

* Rounding: a model of the float24 rounding rule on the bits of float64 arrays
  (:func:`round24_model`, written here from pica-emulation.md#f24-rounding: the
  mantissa rounded to 16 bits to nearest even, magnitudes below 2^-62 to +0, from 2^64
  on to infinity, NaNs quieted with their sign and top 16 payload bits) equals
  ``primitives.round24`` on a sample of every float24 value and half an ulp either side
  (ties, just above, just below) and on random float64 patterns, and
  :func:`gpuisa.floats.round_f24`, the array rule that loads inputs, on float32 values.
  ``test_lowering.py`` holds the compiled rules to the model over every float24 pattern.
* The array check of the bounded arithmetic's operands (``runner.bounded_values``)
  equals ``primitives.bounded24`` for every bound the kernels use.
* The recipes produce what the ISA table says; a few values by hand.

The recipes lowered to LLVM IR are compared with the scalar recipes in
``test_alu_lowering.py``.
"""

import math

import numpy as np
import pytest

from gpuisa.floats import f24_to_f32, round_f24
from gpuisa.pica.engine.reference.values import narrow, widen
from gpuisa.pica.engine.rules import primitives as P
from gpuisa.pica.engine.rules import scalar
from gpuisa.pica.engine.rules.recipes import RECIPES, recipe_for
from gpuisa.pica.isa import OPCODES, Opcode, Result, Writes

ALL_F24 = np.arange(1 << 24, dtype=np.uint32)
CHUNK = 1 << 22
RANDOM32 = np.random.default_rng(3).integers(0, 1 << 32, 1 << 18, dtype=np.uint64).astype(
    np.uint32).view(np.float32)


def same_bits(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    bits = f"u{got.itemsize}"
    bad = np.flatnonzero(got.view(bits) != want.view(bits))
    assert bad.size == 0, [(hex(int(got.view(bits)[i])), hex(int(want.view(bits)[i])))
                           for i in bad[:5]]


def f24_patterns(step=1):
    for start in range(0, 1 << 24, CHUNK):
        yield f24_to_f32(ALL_F24[start:start + CHUNK:step])


def f24_neighbours(offset, step=1):
    """Every float24 value (every ``step``-th) as float64, ``offset``: as it is
    ("exact"), half an ulp above ("tie"), just above or just below that; infinities and
    NaNs as they are."""
    factor = {"exact": 0.0, "tie": 1.0, "above": 1.0 + 2.0**-20, "below": 1.0 - 2.0**-20}
    for values32 in f24_patterns(step):
        with np.errstate(all="ignore"):  # signalling NaNs among the values
            values = values32.astype(np.float64)
            exponent = np.frexp(values)[1].astype(np.float64)
            half = np.ldexp(1.0, (exponent - 18).astype(np.int64))  # half a float24 ulp
            shifted = np.where(np.isfinite(values), values + half * factor[offset], values)
        yield shifted


_LOW = np.uint64((1 << 36) - 1)  # the float64 mantissa bits float24 does not keep


_SIGN = np.uint64(1 << 63)
_EXPONENT = np.uint64(0x7FF0000000000000)
_QUIET = np.uint64(1 << 51)


def numpy_trunc24(x: np.ndarray) -> np.ndarray:
    """float24's truncation derived with NumPy bit operations: clear the 36 mantissa bits
    float24 lacks (toward zero, either sign); then a magnitude below 2^-62 is +0, one
    from 2^64 on +-infinity, a NaN keeps its sign and float64 bits 36-51 (float24's
    payload) with the quiet bit set."""
    u = np.ascontiguousarray(x, np.float64).view(np.uint64)
    sign = u & _SIGN
    magnitude = u & ~_SIGN
    kept = magnitude & ~np.uint64((1 << 36) - 1)
    value = kept.view(np.float64)
    out = np.where(value >= 2.0**64, sign | _EXPONENT,
                   np.where(value < 2.0**-62, np.uint64(0), sign | kept))
    payload = (magnitude | _QUIET) & np.uint64(0x000FFFF000000000)
    out = np.where(magnitude > _EXPONENT, sign | _EXPONENT | payload, out)
    return out.view(np.float64)


def round24_model(x: np.ndarray) -> np.ndarray:
    """The float24 rounding rule (pica-emulation.md#f24-rounding) on float64 values, by
    integer arithmetic on their bits: independent of how ``primitives.round24`` (and the
    compiled rules) compute it."""
    bits = np.ascontiguousarray(x, np.float64).view(np.uint64)
    magnitude = bits & np.uint64((1 << 63) - 1)
    sign = bits & np.uint64(1 << 63)
    # to nearest even at bit 36: add just under half an ulp, plus one if the kept part
    # is odd, then drop the low bits (a carry moves into the exponent)
    odd = (magnitude >> np.uint64(36)) & np.uint64(1)
    rounded = (magnitude + np.uint64((1 << 35) - 1) + odd) & ~_LOW
    value = rounded.view(np.float64)
    out = np.where(value < 2.0**-62, 0.0, np.where(value >= 2.0**64, np.inf, value))
    out = (out.view(np.uint64) | np.where(out == 0.0, np.uint64(0), sign)).view(np.float64)
    nan = np.isnan(x)
    quiet = ((bits & ~_LOW) | np.uint64(1 << 51)).view(np.float64)
    return np.where(nan, quiet, out)


# -- rounding -------------------------------------------------------------------------------------


@pytest.mark.parametrize("offset", ["exact", "tie", "above", "below"])
def test_round24_model_equals_the_primitive_on_float24_values_and_their_boundaries(offset):
    """Every 97th float24 value (all exponents, signs and specials among them)."""
    for x in f24_neighbours(offset, step=97):
        same_bits(round24_model(x), np.array([P.round24(v) for v in x.tolist()]))


def test_round24_model_equals_the_primitive_on_random_float64_patterns():
    x = np.random.default_rng(2).integers(0, 2**64, 1 << 15, dtype=np.uint64).view(np.float64)
    same_bits(round24_model(x), np.array([P.round24(v) for v in x.tolist()]))


def test_round24_model_equals_round_f24_on_float32_values():
    """round_f24 loads inputs; on float32 values it is the same rule.  NaN: arithmetic
    results are quiet (round24 sets the quiet bit), loading keeps signalling payloads,
    so quiet NaNs only."""
    with np.errstate(invalid="ignore"):
        scaled = (f24_to_f32(ALL_F24[::5]) * np.float32(1 + 2.0**-17)).astype(np.float32)
    for values in (*f24_patterns(3), RANDOM32, scaled):
        values = values[~np.isnan(values) | ((values.view(np.uint32) >> 22) & 1 == 1)]
        same_bits(narrow(round24_model(widen(values))), round_f24(values))


def test_round24_model_by_hand():
    x = np.array([1.0 + 2.0**-17, 1.0 + 3 * 2.0**-17, 2.0**-62 - 2.0**-80, -(2.0**-63),
                  2.0**64 - 2.0**46, -1e300, P.bits_f64(0xFFF0_0011_0000_0001)])
    got = round24_model(x)
    assert got[:6].tolist() == [1.0, 1.0 + 2.0**-15, 2.0**-62, 0.0, math.inf, -math.inf]
    assert math.copysign(1.0, got[3]) == 1.0
    assert P.f64_bits(float(got[6])) == 0xFFF8_0010_0000_0000


def test_first_partial_sum_of_a_rounded_product_is_the_product():
    """The f24 ``first`` rule (a dot product's first partial sum, 0 + p, is p): 0 + p
    rounded is p for every value round24 can deliver (+0, normal float24 values,
    infinities, quiet NaNs)."""
    for values in f24_patterns():
        wide = widen(values)
        bits = wide.view(np.uint64)
        with np.errstate(invalid="ignore"):
            normal = np.abs(wide) >= P.F24_MIN  # infinities included, NaN not
        keep = (bits == 0) | normal | (np.isnan(wide) & ((bits >> 51) & 1 == 1))
        same_bits(round24_model(wide[keep] + 0.0), wide[keep])


def test_round24_by_hand():
    assert P.round24(1.0 + 2.0**-17) == 1.0  # tie, to even
    assert P.round24(1.0 + 3 * 2.0**-17) == 1.0 + 2.0**-15  # tie, to even (up)
    assert P.round24(1.0 + 2.0**-17 + 2.0**-40) == 1.0 + 2.0**-16
    assert P.round24(2.0**-62) == 2.0**-62
    assert P.round24(2.0**-62 - 2.0**-80) == 2.0**-62  # rounds up into the range
    assert math.copysign(1.0, P.round24(-(2.0**-63))) == 1.0  # +0, never -0
    assert P.round24(2.0**64 - 2.0**46) == math.inf  # rounds up to 2^64
    largest = 2.0**64 - 2.0**47  # all 16 mantissa bits set
    assert P.round24(-largest) == -largest
    assert P.round24(-largest - 2.0**45) == -largest
    assert P.round24(-1e300) == -math.inf
    nan = P.round24(P.bits_f64(0xFFF0_0011_0000_0001))  # signalling; bits < 36 dropped
    assert P.f64_bits(nan) == 0xFFF8_0010_0000_0000


# -- other rules by hand --------------------------------------------------------------------------

SPECIAL = f24_to_f32(np.array(
    [0x000000, 0x800000, 0x00FFFF, 0x80FFFF, 0x010000, 0x3F0000, 0xBF0000, 0x3F8001,
     0x7EFFFF, 0xFEFFFF, 0x7F0000, 0xFF0000, 0x7F0001, 0xFF4002, 0x7F8003, 0x5F0000,
     0x200000, 0x3E5555], dtype=np.uint32))
EXTRA32 = np.array([1.0 + 2**-20, 3e38, -3e38, 1e-40, -1e-45, 2.0**64, 2.0**-63, 0.1, -7.5],
                   dtype=np.float32)
SNAN = np.array([0x7F800080, 0xFFA00001], dtype=np.uint32).view(np.float32)
VALUES = np.concatenate([SPECIAL, EXTRA32, SNAN])


def pairs(n=1 << 16, seed=11):
    a, b = np.meshgrid(VALUES, VALUES)
    rng = np.random.default_rng(seed)
    random = f24_to_f32(rng.integers(0, 1 << 24, (2, n)).astype(np.uint32))
    return (np.concatenate([a.ravel(), random[0], RANDOM32[:n]]),
            np.concatenate([b.ravel(), random[1], RANDOM32[n:2 * n]]))


def test_unary_by_hand():
    assert P.flush24(2.0**-63) == 0.0 and P.flush24(-(2.0**-62)) == -(2.0**-62)
    assert math.copysign(1, P.flush24(-0.0)) == 1
    assert math.copysign(1, P.negate24(0.0)) == 1 and math.copysign(1, P.negate32(0.0)) == -1
    assert P.rcp24(-0.0) == math.inf and P.rcp24(math.inf) == 0.0 and P.rcp24(4.0) == 0.25
    assert P.rcp24(3.0) == P.round24(1 / 3)
    assert P.rsq24(4.0) == 0.5 and P.rsq24(0.0) == math.inf and math.isnan(P.rsq24(-2.0))
    assert P.rsq24(2.0**-63) == math.inf  # flushed to 0 first
    assert P.rcp32(-0.0) == math.inf and P.rsq32(math.inf) == 0.0
    assert P.flr24(-1.5) == -2.0 and P.flr24(2.0**-63 * -1) == 0.0
    assert math.copysign(1, P.flr32(-0.0)) == -1 and P.flr32(-0.25) == -1.0
    assert P.address_from_float(-1.9) == -1 and P.address_from_float(0.9) == 0
    assert P.address_from_float(3e9) == 2**31 - 1 and P.address_from_float(math.nan) == 0
    assert P.relative_row(5, 200) == 5 and P.relative_row(100, 30) == 2


def test_binary_by_hand():
    inf = math.inf
    assert P.pica_mul(0.0, inf) == 0.0 and P.pica_mul(-inf, 0.0) == 0.0
    nan = P.bits_f64(0x7FF0_0000_0000_0001 | 1 << 40)
    assert P.f64_bits(P.pica_mul(0.0, nan)) == P.f64_bits(nan) | 1 << 51
    assert P.f64_bits(P.pica_add(nan, -nan)) == P.f64_bits(nan) | 1 << 51
    assert P.pica_max(0.0, -inf) == 0.0 and P.pica_max(math.nan, 0.0) == 0.0
    assert math.isnan(P.pica_max(0.0, math.nan)) and P.pica_min(math.nan, 1.0) == 1.0
    assert math.copysign(1, P.pica_max(0.0, -0.0)) == -1  # a > b fails: b
    assert P.mul32(3e38, 10.0) == inf and P.add32(1.0, 2.0**-25) == 1.0
    assert P.compare(1, math.nan, math.nan) and not P.compare(0, math.nan, math.nan)


# -- recipes --------------------------------------------------------------------------------------

ALU = sorted({info.base_opcode for info in OPCODES.values() if info.has_descriptor})


def test_every_alu_opcode_has_a_recipe_and_i_forms_share_it():
    assert set(ALU) == set(RECIPES)
    assert recipe_for(Opcode.DPHI) is recipe_for(Opcode.DPH)
    assert recipe_for(Opcode.MADI) is recipe_for(Opcode.MAD)


@pytest.mark.parametrize("opcode", ALU, ids=[op.name for op in ALU])
def test_recipes_produce_what_the_table_says(opcode):
    """A recipe's result has the parts the table's ``writes`` names, and a SCALAR result
    is one value in every component."""
    info = OPCODES[opcode]
    got = recipe_for(opcode)(scalar.F24, (1.5, -2.0, 3.0, 0.25), (0.5, 4.0, -1.0, 2.0),
                             (2.0, 2.0, 2.0, 2.0), {"cmpx": 0, "cmpy": 5}.__getitem__)
    assert (got.value is not None) == (Writes.REGISTER in info.writes)
    assert (got.flags is not None) == (Writes.FLAGS in info.writes)
    assert (got.address is not None) == (Writes.ADDRESS in info.writes)
    if info.result is Result.SCALAR:
        assert len(set(got.value)) == 1


def test_recipes_by_hand():
    f24, f32 = scalar.F24, scalar.F32
    one = (1.0, 2.0, 3.0, 4.0)
    two = (0.5, -1.0, 2.0, 0.25)
    assert recipe_for(Opcode.DP4)(f24, one, two, None, None).value == (5.5,) * 4
    assert recipe_for(Opcode.DP3)(f24, one, two, None, None).value == (4.5,) * 4
    assert recipe_for(Opcode.DPH)(f24, one, two, None, None).value == (4.75,) * 4
    assert recipe_for(Opcode.DST)(f24, one, two, None, None).value == (1.0, -2.0, 3.0, 0.25)
    assert recipe_for(Opcode.MAD)(f24, one, two, one, None).value == (1.5, 0.0, 9.0, 5.0)
    # MAD rounds the product: (1 + 2^-16)^2 = 1 + 2^-15 + 2^-32 rounds to 1 + 2^-15
    # before 2^-32 is subtracted again (an FMA would give 1 + 2^-15 exactly too, so the
    # subtraction of 2^-17 shows it: 1 + 2^-15 - 2^-17 is 1 + 3 * 2^-17, a tie -> even).
    x = 1.0 + 2.0**-16
    got = recipe_for(Opcode.MAD)(f24, (x,) * 4, (x,) * 4, (-(2.0**-17),) * 4, None)
    assert got.value[0] == 1.0 + 2.0**-15
    # DP4's inf * 0 = 0; f32's 0 + (-0) = +0 (first partial sum)
    inf = math.inf
    assert recipe_for(Opcode.DP4)(f24, (inf, 1, 1, 1), (0, 1, 1, 1), None, None).value[0] == 3
    zero = recipe_for(Opcode.DP3)(f32, (-0.0, -0.0, -0.0, 0), (1, 1, 1, 1), None, None)
    assert math.copysign(1, zero.value[0]) == 1
    litp = recipe_for(Opcode.LITP)(f24, (-1.0, 300.0, 5.0, 2.0), None, None, None)
    assert litp.value == (0.0, 127.99609375, 0.0, 2.0) and litp.flags == (False, True)
    cmp = recipe_for(Opcode.CMP)(f24, one, two, None, {"cmpx": 4, "cmpy": 2}.__getitem__)
    assert cmp.flags == (True, False)
    assert recipe_for(Opcode.MOVA)(f24, (2.7, -3.5, 0, 0), None, None, None).address == (2, -3)
    assert recipe_for(Opcode.SGE)(f24, one, two, None, None).value == (1.0, 1.0, 1.0, 1.0)
    assert recipe_for(Opcode.RCP)(f32, (4.0, 0, 0, 0), None, None, None).value == (0.25,) * 4


# -- the bounded arithmetic -----------------------------------------------------------------------

def test_bounded24_by_hand():
    assert P.bounded24(0.0, 23) and P.bounded24(-0.0, 23) and P.bounded24(2.0**-63, 23)
    assert P.bounded24(2.0**-23, 23) and not P.bounded24(2.0**-24, 23)
    assert P.bounded24(-(2.0**30 - 2.0**6), 16) and not P.bounded24(2.0**30, 16)
    assert not P.bounded24(math.inf, 46) and not P.bounded24(math.nan, 46)


BOUNDS = sorted({P.BOUND_UNIFORM, P.BOUND_FACTOR, P.PRODUCT_BOUND - P.BOUND_UNIFORM,
                 P.PRODUCT_BOUND - P.BOUND_FACTOR, P.BOUND_ADDEND, P.PRODUCT_BOUND})


def _near_bounds() -> np.ndarray:
    edges = [2.0**-k for k in BOUNDS] + [2.0**30, P.F24_MIN, 0.0]
    near = [np.nextafter(np.float32(e), np.float32(s)) for e in edges for s in (0, np.inf)]
    values = np.array(edges + near, np.float32)
    return np.concatenate([values, -values, VALUES])


@pytest.mark.parametrize("k", BOUNDS)
def test_bounded_values_is_bounded24(k):
    """runner.bounded_values (the array realisation) equals the primitive on the values
    at and next to each bound and a sample of random patterns."""
    from gpuisa.pica.engine.compiled.runner import bounded_values

    sample = np.concatenate([_near_bounds(), RANDOM32[:2000]])
    want = [P.bounded24(x, k) for x in widen(sample).tolist()]
    assert [bounded_values(sample[i:i + 1], k) for i in range(sample.size)] == want
    assert bounded_values(np.array([[1.0, 0.0, -2.0**-k, 1e-40]], np.float32), k)
