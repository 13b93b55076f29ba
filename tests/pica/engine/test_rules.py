"""The primitive rules (plain Python) equal their compiled realisations in jit_rules, and
the recipes give the same bits through both interpreters.

* Primitives vs jit_rules: Numba compiles the primitives' own text (jit_rules registers
  it), which is compared with the rules the kernels call over every float24 pattern
  (rounding also half an ulp away: ties, just above, just below), random float64 and
  float32 patterns, and all pairs of special values.  Hypothesis then checks that the
  plain-Python run of the same text equals the compiled one (Python and Numba differ in
  division by zero, sqrt of negatives, floor's type...).  EX2 and LG2 call NumPy from
  Python: compared in plain Python on a sample of patterns.
* Rounding vs :func:`gpuisa.floats.round_f24`, the array rule that loads inputs.
* Recipes: for every ALU opcode and both precisions, the expressions of
  ``rules.source`` compiled with Numba equal the scalar interpreter on special and
  random inputs (NaN payloads, +-0, infinities, float24 limits).
* The bounded arithmetic (``primitives.bounded24``): round24_bounded vs round24 on its
  domain, unbounded24 vs bounded24 for every bound the kernels use, and the recipe of
  each opcode computed bounded vs the exact recipe on operands drawn at the bounds.
* A few values by hand.
"""

import functools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("numba")

from numba import njit
from numba.core.dispatcher import Dispatcher

from gpuisa.floats import f24_to_f32, round_f24
from gpuisa.pica.engine.compiled import intrinsics as R
from gpuisa.pica.engine.reference.values import narrow, widen
from gpuisa.pica.engine.rules import primitives as P
from gpuisa.pica.engine.rules import scalar, source
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


@njit
def _map(f, xs, out):
    for i in range(xs.size):
        out[i] = f(xs[i])


@njit
def _map2(f, a, b, out):
    for i in range(a.size):
        out[i] = f(a[i], b[i])


@functools.cache
def compiled(function):
    """A first-class compiled function calling ``function`` (a primitive, registered with
    Numba by jit_rules, or a jit_rules intrinsic, callable only from compiled code)."""
    if isinstance(function, Dispatcher):
        return function
    return njit(lambda *args: function(*args))


def run(function, *columns, dtype=np.float64):
    out = np.empty(columns[0].shape, dtype)
    if len(columns) == 1:
        _map(compiled(function), columns[0], out)
    else:
        _map2(compiled(function), *columns, out)
    return out


def f24_patterns(step=1):
    for start in range(0, 1 << 24, CHUNK):
        yield f24_to_f32(ALL_F24[start:start + CHUNK:step])


def f24_neighbours(offset):
    """Every float24 value as float64, ``offset``: as it is ("exact"), half an ulp above
    ("tie"), just above or just below that; infinities and NaNs as they are."""
    factor = {"exact": 0.0, "tie": 1.0, "above": 1.0 + 2.0**-20, "below": 1.0 - 2.0**-20}
    for values32 in f24_patterns():
        values = values32.astype(np.float64)
        exponent = np.frexp(values)[1].astype(np.float64)
        half = np.ldexp(1.0, (exponent - 18).astype(np.int64))  # half a float24 ulp
        with np.errstate(all="ignore"):
            yield np.where(np.isfinite(values), values + half * factor[offset], values)


# -- rounding ----------------------------------------------------------------------------------


@pytest.mark.parametrize("offset", ["exact", "tie", "above", "below"])
def test_round24_equals_jit_rules_on_every_float24_pattern_and_its_boundaries(offset):
    for x in f24_neighbours(offset):
        same_bits(run(P.round24, x), run(R.round24, x))


def test_round24_equals_jit_rules_on_random_float64_patterns():
    x = np.random.default_rng(2).integers(0, 2**64, 1 << 20, dtype=np.uint64).view(np.float64)
    same_bits(run(P.round24, x), run(R.round24, x))


def test_round24_equals_round_f24_on_float32_values():
    """round_f24 loads inputs; on float32 values it is the same rule.  NaN: arithmetic
    results are quiet (round24 sets the quiet bit), loading keeps signalling payloads,
    so quiet NaNs only."""
    for values in (*f24_patterns(3), RANDOM32, (f24_to_f32(ALL_F24[::5]) * np.float32(
            1 + 2.0**-17)).astype(np.float32)):
        values = values[~np.isnan(values) | ((values.view(np.uint32) >> 22) & 1 == 1)]
        same_bits(narrow(run(P.round24, widen(values))), round_f24(values))


@njit
def _zero_plus(x):
    return P.round24(P.pica_add(0.0, x))


@njit
def _zero_plus_each(xs):
    out = np.empty_like(xs)
    for i in range(xs.size):
        out[i] = _zero_plus(xs[i])
    return out


def test_first_partial_sum_of_a_rounded_product_is_the_product():
    """scalar._first24 / source's f24 ``first``: 0 + p rounded is p for every value
    round24 can deliver (+0, normal float24 values, infinities, quiet NaNs)."""
    for values in f24_patterns():
        wide = widen(values)
        bits = wide.view(np.uint64)
        with np.errstate(invalid="ignore"):
            normal = np.abs(wide) >= P.F24_MIN  # infinities included, NaN not
        keep = (bits == 0) | normal | (np.isnan(wide) & ((bits >> 51) & 1 == 1))
        same_bits(_zero_plus_each(wide[keep]), wide[keep])


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


# -- unary rules ---------------------------------------------------------------------------------

UNARY = [  # (primitive, jit rule, takes and returns float32, f24 patterns only)
    (P.flush24, R.work24, False, True),
    (P.negate24, R.negate24, True, True),
    (P.negate32, R.negate32, True, False),
    (P.rcp24, R.rcp24, True, True),
    (P.rsq24, R.rsq24, True, True),
    (P.flr24, R.flr24, True, True),
    (P.rcp32, R.rcp32, True, False),
    (P.rsq32, R.rsq32, True, False),
    (P.flr32, R.flr32, True, False),
]


def _jit_unary(rule, values, float32_out):
    out = np.empty(values.shape, np.float32 if float32_out else np.float64)
    _map(compiled(rule), values, out)
    return out if float32_out else narrow(out)


@pytest.mark.parametrize(("primitive", "rule", "float32_out", "f24"), UNARY,
                         ids=[u[0].__name__ for u in UNARY])
def test_unary_primitive_equals_jit_rule(primitive, rule, float32_out, f24):
    inputs = [*f24_patterns(1 if f24 else 61), RANDOM32]
    for values in inputs:
        got = narrow(run(primitive, widen(values)))
        same_bits(got, _jit_unary(rule, values, float32_out))


@pytest.mark.skipif(not R.UFUNC_LOOPS_OK, reason="NumPy's inner loops are not callable")
@pytest.mark.parametrize(("primitive", "rule"), [(P.ex2_24, R.ex2_24), (P.lg2_24, R.lg2_24),
                                                 (P.ex2_32, R.ex2_f32), (P.lg2_32, R.lg2_f32)],
                         ids=["ex2_24", "lg2_24", "ex2_32", "lg2_32"])
def test_ex2_lg2_equal_jit_rules(primitive, rule):
    values = np.concatenate([f24_to_f32(ALL_F24[::4099]), RANDOM32[:3000],
                             np.array([0, -0.0, 1, -1, 127.9, 128, 200, -150, np.inf,
                                       -np.inf, np.nan], np.float32)])
    got = narrow(np.array([primitive(float(v)) for v in widen(values)]))

    @njit
    def apply(xs, natives):
        scratch = R.make_scratch(natives)
        out = np.empty(xs.size, np.float32)
        for i in range(xs.size):
            out[i] = rule(xs[i], scratch)
        return out

    same_bits(got, apply(values, R.NATIVE_LOOPS))


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


# -- binary rules --------------------------------------------------------------------------------

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


@njit
def _work_pair(f, a, b, out):
    for i in range(a.size):
        out[i] = f(R.work24(a[i]), R.work24(b[i]))


@pytest.mark.parametrize(("primitive", "rule", "working"), [
    (P.pica_mul, R.mul64, True), (P.pica_add, R.add64, True),
    (P.mul32, R.mul32, False), (P.add32, R.add32, False),
    (P.pica_max, R.pica_max, False), (P.pica_min, R.pica_min, False),
    (P.sge, R.sge, False), (P.slt, R.slt, False)],
    ids=["mul64", "add64", "mul32", "add32", "max", "min", "sge", "slt"])
def test_binary_primitive_equals_jit_rule(primitive, rule, working):
    a, b = pairs()
    if working:  # f24 working values: flushed, as both realisations receive them
        want = np.empty(a.shape, np.float64)
        _work_pair(compiled(rule), a, b, want)
        flushed_a = run(P.flush24, widen(a))
        flushed_b = run(P.flush24, widen(b))
        same_bits(run(primitive, flushed_a, flushed_b), want)
    else:
        out = np.empty(a.shape, np.float32)
        _map2(compiled(rule), a, b, out)
        same_bits(narrow(run(primitive, widen(a), widen(b))), out)


def test_compare_equals_jit_rule():
    a, b = pairs(500)
    for operator in range(8):
        @njit
        def both(a, b, operator=operator):
            out = np.empty((2, a.size), np.bool_)
            for i in range(a.size):
                out[0, i] = P.compare(operator, a[i], b[i])
                out[1, i] = R.compare(operator, np.float32(a[i]), np.float32(b[i]))
            return out

        got = both(widen(a), widen(b))
        assert np.array_equal(got[0], got[1]), operator
        assert [P.compare(operator, x, y) for x, y in zip(widen(a), widen(b),
                                                          strict=True)] == got[0].tolist()


# -- in-range arithmetic (the kernels over blocks of lanes; codegen.IN_RANGE) ----------------

#: From here on float24 rounding gives an infinity (2^64 - half an ulp rounds up).
F24_LAST = 2.0**64 - 2.0**46


def _check_in_range(got, want, inside):
    """In range: the same bits as the exact rule; outside: never a finite number."""
    same_bits(got[inside], want[inside])
    assert not np.isfinite(got[~inside]).any(), got[~inside][np.isfinite(got[~inside])][:5]


@pytest.mark.parametrize("offset", ["exact", "tie", "above", "below"])
def test_round24_in_range_equals_round24_on_every_float24_pattern_and_its_boundaries(offset):
    """Every float24 value (as float32), half an ulp above it, just above and below:
    round24_in_range equals primitives.round24 wherever the value is finite and below
    2^64 - 2^46; elsewhere it is an infinity or a NaN."""
    for x in f24_neighbours(offset):
        with np.errstate(invalid="ignore"):
            inside = np.abs(x) < F24_LAST
        _check_in_range(run(R.round24_in_range, x), run(P.round24, x), inside)


def test_round24_in_range_on_random_float64_patterns_and_by_hand():
    x = np.random.default_rng(5).integers(0, 2**64, 1 << 20, dtype=np.uint64).view(np.float64)
    x = np.concatenate([x, [F24_LAST, np.nextafter(F24_LAST, 0), -F24_LAST, 2.0**64, -0.0,
                            2.0**-62, -(2.0**-63), 5e-324, np.inf, -np.inf, np.nan]])
    with np.errstate(invalid="ignore"):
        inside = np.abs(x) < F24_LAST
    got = run(R.round24_in_range, x)
    _check_in_range(got, run(P.round24, x), inside)
    assert np.isnan(got[-11]) and got[-10] == 2.0**64 - 2.0**47  # the boundary, by hand
    assert got[-7:-4].tolist() == [0.0, 2.0**-62, 0.0] and math.copysign(1, got[-7]) == 1


@pytest.mark.parametrize(("rule", "in_range"), [(R.mul64, R.mul64_in_range),
                                                (R.add64, R.add64_in_range)],
                         ids=["mul64", "add64"])
def test_mul_and_add_in_range_equal_the_rules_on_finite_working_values(rule, in_range):
    """On the working values of float32 registers (flushed: the kernels' R.work24):
    the same bits wherever both operands are finite (no NaN, no 0 * inf: the float64
    products and sums of float32 values cannot overflow); with an infinite or NaN
    operand an infinity or a NaN."""
    a, b = pairs()
    a, b = run(P.flush24, widen(a)), run(P.flush24, widen(b))
    _check_in_range(run(in_range, a, b), run(rule, a, b), np.isfinite(a) & np.isfinite(b))


@pytest.mark.parametrize(("rule", "in_range"), [(R.mul32, R.mul32_in_range),
                                                (R.add32, R.add32_in_range)],
                         ids=["mul32", "add32"])
def test_mul_and_add_in_range_equal_the_rules_on_finite_float32_values(rule, in_range):
    """f32 mode: the same bits wherever both operands are finite (an overflow gives the
    same infinity); with an infinite or NaN operand an infinity or a NaN."""
    a, b = pairs()
    got, want = np.empty(a.shape, np.float32), np.empty(a.shape, np.float32)
    _map2(compiled(in_range), a, b, got)
    _map2(compiled(rule), a, b, want)
    _check_in_range(got, want, np.isfinite(a) & np.isfinite(b))


def test_nonfinite32_is_one_exactly_for_infinities_and_nans():
    values = np.concatenate([RANDOM32, VALUES, np.array([np.inf, -np.inf], np.float32)])
    flags = np.empty(values.shape, np.int8)
    _map(compiled(R.nonfinite32), values, flags)
    assert flags.tolist() == (~np.isfinite(values)).astype(np.int8).tolist()


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


# -- plain Python = compiled (the same text under both semantics) --------------------------------

FLOAT32_BITS = st.integers(0, 2**32 - 1).map(
    lambda u: float(widen(np.array([u], np.uint32).view(np.float32))[0]))
FLOAT64 = st.floats(allow_nan=True, allow_infinity=True) | st.integers(0, 2**64 - 1).map(
    P.bits_f64) | st.sampled_from([0.0, -0.0, 2.0**-62, 2.0**64, 1 + 2.0**-17, -(2.0**-63)])
UNARY_PLAIN = [P.round24, P.flush24, P.negate24, P.negate32, P.rcp24, P.rsq24, P.flr24,
               P.floor]
UNARY_PLAIN32 = [P.rcp32, P.rsq32, P.flr32]  # of float32 values
BINARY_PLAIN = [P.pica_mul, P.pica_add, P.mul32, P.add32, P.pica_max, P.pica_min, P.sge,
                P.slt]


def _bits(x):
    return P.f64_bits(float(x))


@settings(max_examples=400, deadline=None)
@given(x=FLOAT64 | FLOAT32_BITS)
def test_plain_python_unary_equals_compiled(x):
    for primitive in UNARY_PLAIN:
        assert _bits(primitive(x)) == _bits(compiled(primitive)(x)), primitive.__name__
    assert P.address_from_float(x) == compiled(P.address_from_float)(x)


@settings(max_examples=400, deadline=None)
@given(x=FLOAT32_BITS)
def test_plain_python_unary_f32_equals_compiled(x):
    for primitive in UNARY_PLAIN32:
        assert _bits(primitive(x)) == _bits(compiled(primitive)(x)), primitive.__name__


@settings(max_examples=400, deadline=None)
@given(a=FLOAT32_BITS, b=FLOAT32_BITS)
def test_plain_python_binary_equals_compiled(a, b):
    for primitive in BINARY_PLAIN:
        assert _bits(primitive(a, b)) == _bits(compiled(primitive)(a, b)), primitive.__name__


# -- recipes: source (compiled) = scalar (plain Python) -----------------------------------------

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


def _kernel(opcode, precision, field):
    """A Numba function computing the recipe's result for every column of ``v`` (the 12
    source components of each case) into ``value``, ``flags`` and ``address`` (arrays,
    so that no float32 passes through a Python float and loses a signalling NaN)."""
    lines = []

    def bind(expression):
        name = f"t{len(lines)}"
        lines.append(f"        {name} = {expression}")
        return name

    names = [[f"{s}{c}" for c in range(4)] for s in "abc"]
    result = source.expressions(opcode, precision, names, field, bind)
    flat = [name for group in names for name in group]
    loads = [f"        {name} = v[{k}, i]" for k, name in enumerate(flat)]
    stores = []
    for k, x in enumerate(result.value or ()):
        stores.append(f"        value[{k}, i] = {x}")
    for k, x in enumerate(result.flags or ()):
        stores.append(f"        flags[{k}, i] = {x}")
    for k, x in enumerate(result.address or ()):
        stores.append(f"        address[{k}, i] = {x}")
    text = "\n".join(["def kernel(v, value, flags, address, natives):",
                      "    scratch = R.make_scratch(natives)",
                      "    for i in range(v.shape[1]):", *loads, *lines, *stores])
    namespace = {"R": R, "np": np}
    exec(compile(text, f"<{opcode.name} {precision}>", "exec"), namespace)
    return njit(error_model="numpy")(namespace["kernel"])


def _inputs(n, seed):
    rng = np.random.default_rng(seed)
    special = rng.choice(VALUES, (12, n))
    random = f24_to_f32(rng.integers(0, 1 << 24, (12, n)).astype(np.uint32))
    small = rng.uniform(-4, 4, (12, n)).astype(np.float32)
    pick = rng.integers(0, 3, (12, n))
    return np.where(pick == 0, special, np.where(pick == 1, random, small)).astype(np.float32)


@pytest.mark.skipif(not R.UFUNC_LOOPS_OK, reason="NumPy's inner loops are not callable")
@pytest.mark.parametrize("precision", ["f24", "f32"])
@pytest.mark.parametrize("opcode", ALU, ids=[op.name for op in ALU])
def test_recipe_source_equals_scalar(opcode, precision):
    fields = {"cmpx": 2, "cmpy": 1} if opcode is Opcode.CMP else {}
    kernel = _kernel(opcode, precision, fields.__getitem__)
    m = scalar.ARITHMETIC[precision]
    values = _inputs(400, int(opcode) + (100 if precision == "f32" else 0))
    if precision == "f24":  # f24 registers hold float24 values
        values = round_f24(values)
    n = values.shape[1]
    value = np.zeros((4, n), np.float32)
    flags = np.zeros((2, n), np.bool_)
    address = np.zeros((2, n), np.int64)
    kernel(values, value, flags, address, R.NATIVE_LOOPS)
    wide = widen(values)
    recipe = recipe_for(opcode)
    for lane in range(n):
        w = wide[:, lane].tolist()
        want = recipe(m, w[0:4], w[4:8], w[8:12], fields.__getitem__)
        if want.value is not None:
            same_bits(value[:, lane], narrow(np.array(want.value)))
        if want.flags is not None:
            assert tuple(flags[:, lane]) == tuple(want.flags), (opcode, values[:, lane])
        if want.address is not None:
            assert tuple(address[:, lane]) == tuple(want.address), (opcode, values[:, lane])


def test_source_matches_the_code_generators_style():
    """The expressions are those jit_codegen writes (R.round24(R.mul64(...)) etc.)."""
    f24 = source.expressions(Opcode.DP4, "f24", [["a0", "a1", "a2", "a3"],
                                                 ["b0", "b1", "b2", "b3"]], None)
    assert f24.value[0] == (
        "np.float32(R.round24(R.add64(R.round24(R.add64(R.round24(R.add64("
        "R.round24(R.mul64(R.work24(a0), R.work24(b0))), "
        "R.round24(R.mul64(R.work24(a1), R.work24(b1))))), "
        "R.round24(R.mul64(R.work24(a2), R.work24(b2))))), "
        "R.round24(R.mul64(R.work24(a3), R.work24(b3))))))")
    f32 = source.expressions(Opcode.MAD, "f32", [["a"] * 4, ["b"] * 4, ["c"] * 4], None)
    assert f32.value[0] == "R.add32(R.mul32(a, b), c)"


# -- recipes by hand (scalar interpreter) --------------------------------------------------------


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


def _alu_driver(alu):
    """A Numba function calling the interpreter's ALU function ``alu`` once on every
    column of ``v`` (12 source components) as a lane, as compiled.interpreter does."""

    def drive(op, v, value, flags, address, cmpx, cmpy, natives):
        scratch = R.make_scratch(natives)
        n = v.shape[1]
        s = np.zeros((3, 4, n), np.float32)
        for i in range(n):
            for k in range(12):
                s[k // 4, k % 4, i] = v[k, i]
        alu(op, s, value, flags, address, cmpx, cmpy, scratch, n)

    return njit(error_model="numpy")(drive)


@pytest.mark.skipif(not R.UFUNC_LOOPS_OK, reason="NumPy's inner loops are not callable")
@pytest.mark.parametrize("precision", ["f24", "f32"])
def test_the_interpreters_alu_equals_the_scalar_recipes(precision):
    """compiled.interpreter_alu's functions, generated from the recipes when imported,
    give for every ALU opcode what the scalar recipe gives (each opcode's branch is the
    right recipe)."""
    from gpuisa.pica.engine.compiled import interpreter_alu as jit_alu

    drive = _alu_driver(jit_alu.alu24 if precision == "f24" else jit_alu.alu32)
    m = scalar.ARITHMETIC[precision]
    for opcode in ALU:
        values = _inputs(40, 500 + int(opcode))
        if precision == "f24":
            values = round_f24(values)
        n = values.shape[1]
        value = np.zeros((4, n), np.float32)
        flags = np.zeros((2, n), np.int64)
        address = np.zeros((2, n), np.int64)
        drive(int(opcode), values, value, flags, address, 3, 5, R.NATIVE_LOOPS)
        wide = widen(values)
        field = {"cmpx": 3, "cmpy": 5}.__getitem__
        for lane in range(n):
            w = wide[:, lane].tolist()
            want = recipe_for(opcode)(m, w[0:4], w[4:8], w[8:12], field)
            if want.value is not None:
                same_bits(value[:, lane], narrow(np.array(want.value)))
            if want.flags is not None:
                assert tuple(flags[:, lane]) == tuple(want.flags), (opcode, values[:, lane])
            if want.address is not None:
                assert tuple(address[:, lane]) == tuple(want.address), (opcode, lane)


# -- the bounded arithmetic (f24 kernels of runs with bounded uniforms; codegen.BOUNDED) -----

#: Every bound codegen.operand_bounds gives.
BOUNDS = sorted({P.BOUND_UNIFORM, P.BOUND_FACTOR, P.PRODUCT_BOUND - P.BOUND_UNIFORM,
                 P.PRODUCT_BOUND - P.BOUND_FACTOR, P.BOUND_ADDEND, P.PRODUCT_BOUND})


@pytest.mark.parametrize("offset", ["exact", "tie", "above", "below"])
def test_round24_bounded_equals_round24_on_its_domain(offset):
    """Every float24 value (as float32) and half an ulp away: round24_bounded equals
    primitives.round24 wherever that rounds to 0 from a zero or to a finite magnitude from
    2^-62 on (the values the bounded arithmetic rounds, primitives.bounded24), -0
    included (+0, as round24 gives)."""
    for x in f24_neighbours(offset):
        want = run(P.round24, x)
        with np.errstate(invalid="ignore"):
            domain = (x == 0) | ((np.abs(want) >= P.F24_MIN) & np.isfinite(want))
        assert domain.mean() > 0.9
        same_bits(run(R.round24_bounded, x)[domain], want[domain])
    assert math.copysign(1.0, run(R.round24_bounded, np.array([-0.0]))[0]) == 1.0


def _unbounded_flags(values: np.ndarray, k: int) -> np.ndarray:
    """Row 0: the compiled check; row 1: Numba's compilation of the primitive's text."""
    namespace = {"R": R, "P": P, "np": np}
    exec(f"def flags(v, out):\n    for i in range(v.size):\n"
         f"        out[0, i] = R.unbounded24(v[i], {k})\n"
         f"        out[1, i] = not P.bounded24(np.float64(v[i]), {k})", namespace)
    out = np.empty((2, values.size), np.int8)
    njit(namespace["flags"])(values, out)
    return out


def _near_bounds() -> np.ndarray:
    edges = [2.0**-k for k in BOUNDS] + [2.0**30, P.F24_MIN, 0.0]
    near = [np.nextafter(np.float32(e), np.float32(s)) for e in edges for s in (0, np.inf)]
    values = np.array(edges + near, np.float32)
    return np.concatenate([values, -values, VALUES])


@pytest.mark.parametrize("k", BOUNDS)
def test_unbounded24_is_not_bounded24(k):
    """The compiled check equals the primitive's text compiled on every float24 pattern,
    random float32 patterns and the values at and next to each bound; plain Python and
    runner.bounded_values (the array realisation) equal it on those values and a
    sample."""
    from gpuisa.pica.engine.compiled.runner import bounded_values

    edges = _near_bounds()
    for values in (*f24_patterns(), RANDOM32, edges):
        flags = _unbounded_flags(values, k)
        assert np.array_equal(flags[0], flags[1])
    sample = np.concatenate([edges, RANDOM32[:2000]])
    want = [P.bounded24(x, k) for x in widen(sample).tolist()]
    assert (1 - _unbounded_flags(sample, k)[0]).astype(bool).tolist() == want
    assert [bounded_values(sample[i:i + 1], k) for i in range(sample.size)] == want
    assert bounded_values(np.array([[1.0, 0.0, -2.0**-k, 1e-40]], np.float32), k)


def test_bounded24_by_hand():
    assert P.bounded24(0.0, 23) and P.bounded24(-0.0, 23) and P.bounded24(2.0**-63, 23)
    assert P.bounded24(2.0**-23, 23) and not P.bounded24(2.0**-24, 23)
    assert P.bounded24(-(2.0**30 - 2.0**6), 16) and not P.bounded24(2.0**30, 16)
    assert not P.bounded24(math.inf, 46) and not P.bounded24(math.nan, 46)


def _bounded_opcodes() -> list[Opcode]:
    """The opcodes whose f24 code the kernels may compute bounded (codegen.in_range: it
    calls nothing but the rules of IN_RANGE and SAME_IN_RANGE)."""
    from gpuisa.pica.engine.compiled import codegen

    found = []
    for opcode in ALU:
        names = [[f"{s}{c}" for c in range(4)] for s in "abc"]
        result = source.expressions(opcode, "f24", names, lambda name: 0)
        called = set(codegen._CALLED.findall("\n".join(result.value or ())))
        if (result.flags is None and result.address is None and called & codegen.IN_RANGE.keys()
                and called <= codegen.IN_RANGE.keys() | codegen.SAME_IN_RANGE):
            found.append(opcode)
    return found


BOUNDED_OPCODES = _bounded_opcodes()


def test_the_bounded_opcodes_are_the_arithmetic_ones():
    assert set(BOUNDED_OPCODES) == {Opcode.ADD, Opcode.MUL, Opcode.MAD, Opcode.DP3,
                                    Opcode.DP4, Opcode.DPH, Opcode.DST}


def _bounded_kernel(opcode, uniform):
    """The recipe's f24 value compiled bounded (codegen.in_range_text), and the bound
    codegen.operand_bounds gives each of the 12 source components (None: unused);
    ``uniform[k]``: whether source k is a uniform."""
    from gpuisa.pica.engine.compiled import codegen

    lines = []

    def bind(expression):
        name = f"t{len(lines)}"
        lines.append(f"        {name} = {expression}")
        return name

    names = [[f"s{4 * k + c}" for c in range(4)] for k in range(3)]
    result = source.expressions(opcode, "f24", names, lambda name: 0, bind)
    stores = [f"        value[{k}, i] = {x}" for k, x in enumerate(result.value)]
    text = "\n".join([*lines, *stores])
    used = {name for name in codegen._NAME.findall(text)}
    bounds = codegen.operand_bounds(text, {name: uniform[int(name[1:]) // 4]
                                           for name in sorted(used)})
    loads = [f"        s{k} = v[{k}, i]" for k in range(12)]
    kernel = "\n".join(["def kernel(v, value):", "    for i in range(v.shape[1]):", *loads,
                        codegen.in_range_text(text, True)])
    namespace = {"R": R, "np": np}
    exec(compile(kernel, f"<{opcode.name} bounded>", "exec"), namespace)
    per_component = [bounds.get(f"s{k}") for k in range(12)]
    return njit(error_model="numpy")(namespace["kernel"]), per_component


def _bounded_values(rng, n, bounds, opcode):
    """Operands (12 components by n lanes) for components with these bounds, drawn to hit
    the bounded arithmetic's limits: zeros, magnitudes at and just above each
    component's lower bound and just below BOUNDED_HIGH, dot products whose products
    nearly cancel (the second factors of neighbouring products of one sign opposite and
    a few ulps apart), and MAD and ADD whose addend nearly cancels the rest.  Half the
    lanes are float24 values (what f24 registers hold), half plain float32 values with
    more significant bits (which the proof covers too: BOUND_ADDEND is for them)."""
    values = np.zeros((12, n))
    for k, bound in enumerate(bounds):
        low = 2.0 ** -(bound if bound is not None else P.BOUND_ADDEND)
        pick = rng.random(n)
        ulps = 1.0 + rng.integers(0, 8, n) * 2.0**-16
        spread = np.exp2(rng.uniform(np.log2(low), np.log2(P.BOUNDED_HIGH), n))
        high = P.BOUNDED_HIGH * (1 - ulps * 2.0**-17)
        values[k] = np.where(pick < 0.15, 0.0, np.where(
            pick < 0.45, low * ulps, np.where(pick < 0.55, high, spread)))
    values *= rng.choice([-1.0, 1.0], values.shape)
    near = rng.random(n) < 0.4  # products nearly cancelling: a_k = a_0, b_k = -b_0 * (1 + e)
    for k in range(1, 4):
        values[k, near] = values[0, near]
        values[4 + k, near] = -values[4 + k - 1, near] * (
            1.0 + rng.integers(-4, 5, near.sum()) * 2.0**-16)
    close = rng.random(n) < 0.4  # an addend nearly cancelling the product or the other term
    error = 1.0 + rng.integers(-4, 5, (4, close.sum())) * 2.0**-23
    if opcode is Opcode.MAD:
        values[8:12, close] = -values[0:4, close] * values[4:8, close] * error
    elif opcode is Opcode.ADD:
        values[4:8, close] = -values[0:4, close] * error
    plain = values.astype(np.float32)
    rounded = np.asarray(round_f24(plain), np.float32)
    return np.where(rng.random(n) < 0.5, rounded, plain)


@pytest.mark.parametrize("uniform", [(False, False, False), (True, False, False),
                                     (False, True, False), (False, False, True)],
                         ids=["registers", "src1-uniform", "src2-uniform", "src3-uniform"])
@pytest.mark.parametrize("opcode", BOUNDED_OPCODES, ids=[op.name for op in BOUNDED_OPCODES])
def test_bounded_recipes_equal_the_exact_ones_on_bounded_operands(opcode, uniform):
    """The lemma of primitives.bounded24, run: wherever every source component meets the
    bound codegen.operand_bounds gives it (uniforms BOUND_UNIFORM), the recipe computed
    with round24_bounded and plain products and sums equals the scalar recipe (round24
    with its flushing and overflow) bit for bit."""
    kernel, bounds = _bounded_kernel(opcode, uniform)
    rng = np.random.default_rng(int(opcode) * 8 + sum(k * u for k, u in enumerate(uniform)))
    values = _bounded_values(rng, 4000, bounds, opcode)
    value = np.zeros((4, values.shape[1]), np.float32)
    kernel(values, value)
    wide = widen(values)
    recipe = recipe_for(opcode)
    kept = 0
    for lane in range(values.shape[1]):
        w = wide[:, lane].tolist()
        if not all(bound is None or P.bounded24(w[k], bound) for k, bound in enumerate(bounds)):
            continue
        kept += 1
        want = recipe(scalar.F24, w[0:4], w[4:8], w[8:12], lambda name: 0)
        same_bits(value[:, lane], narrow(np.array(want.value)))
    assert kept > 0.6 * values.shape[1]
