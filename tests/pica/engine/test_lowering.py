"""Every rule of ``compiled.lower`` (the primitives as LLVM IR) equals its primitive of
``rules.primitives``, bit for bit, for one lane and for a SIMD vector of lanes.

Each rule is compiled into a small function mapping arrays (a loop over lanes, the rule
on one value or on ``WIDTH`` at a time) and compared with the plain-Python primitive on
every pair of special values (signed zeros, subnormals, float24 limits, infinities,
quiet and signalling NaNs with payloads, both signs) and random float32 patterns; the
float24 rounding over every float24 pattern and half an ulp either side (ties, just
above, just below), against ``test_rules.round24_model``, a model of the rule on the
bits (test_rules holds it equal to the plain-Python primitive).  A ``Lowering`` made with
``rounding="truncate"`` is held to ``primitives.trunc24`` the same way (against
``test_truncation.numpy_trunc24``, a derivation on the bits), in its rounding rules and
in every rule whose result f24 rounds (pica-emulation.md#f24-truncation).
"""

from __future__ import annotations

import contextlib
import ctypes
import functools

import numpy as np
import pytest
from test_rules import f24_neighbours, numpy_trunc24, round24_model, same_bits

from gpuisa.pica.engine.compiled import llvmjit
from gpuisa.pica.engine.compiled import textir as ir
from gpuisa.pica.engine.compiled.irtypes import F32, F64, I1, I8, I32, I64
from gpuisa.pica.engine.compiled.lower import REALISES, ROUNDING_METHODS, Lowering
from gpuisa.pica.engine.reference.values import narrow, widen
from gpuisa.pica.engine.rules import libm32
from gpuisa.pica.engine.rules import primitives as P

WIDTHS = (1, 8)
_SIGNATURE = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p,
                              ctypes.c_void_p)
SPECIAL32 = np.array([
    0x00000000, 0x80000000, 0x00000001, 0x807FFFFF, 0x00800000, 0x1FFFFFFF, 0x20000000,
    0x9F800000, 0xA0800000, 0x3F800000, 0xBF800000, 0x3F000000, 0x40400000, 0x5F7FFF80,
    0x5F7FFFFF, 0x5F800000, 0xDF800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000,
    0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF812345, 0x7FC0FFEE, 0x4F000000, 0xCF000000,
    0x4EFFFFFF, 0x42FE0000, 0xC3000000, 0x3F7FFFFF, 0x4B000001, 0xBF400000,
], np.uint32).view(np.float32)
RANDOM32 = np.random.default_rng(11).integers(0, 1 << 32, 4096, dtype=np.uint64).astype(
    np.uint32).view(np.float32)


def _pairs() -> tuple[np.ndarray, np.ndarray]:
    values = np.concatenate([SPECIAL32, RANDOM32[:256]])
    a, b = np.meshgrid(values, values)
    more = np.random.default_rng(12).permutation(RANDOM32)
    return (np.concatenate([a.ravel(), RANDOM32]), np.concatenate([b.ravel(), more]))


PAIRS = _pairs()
SINGLES = np.concatenate([SPECIAL32, RANDOM32])


@contextlib.contextmanager
def over_lanes(b: ir.IRBuilder, n: ir.Value, step: int = 1):
    """A loop of the builder's function over i = 0, step, 2 step, ... below ``n``: the
    body is built inside the ``with`` (i its value), the builder after it at the end."""
    counter = b.alloca(I64)
    b.store(ir.Constant(I64, 0), counter)
    test, body, done = (b.function.append_basic_block(x) for x in ("test", "body", "done"))
    b.branch(test)
    b.position_at_end(test)
    i = b.load(counter)
    b.cbranch(b.icmp_signed("<", i, n), body, done)
    b.position_at_end(body)
    yield i
    b.store(b.add(i, ir.Constant(I64, step)), counter)
    b.branch(test)
    b.position_at_end(done)


@functools.cache
def compiled(rule: str, kinds: tuple, width: int, extra: tuple = (),
             rounding: str = "nearest-even"):
    """``Lowering.<rule>`` over arrays: ``f(n, a, b, out)`` with ``kinds`` the scalar
    types (operands..., result); ``extra`` constant leading arguments of the rule
    (trailing ones for a rule named with ``_k``); ``rounding`` the Lowering's float24
    rounding."""
    *operands, result = kinds
    module = ir.Module(name=f"test_{rule}")
    pointer = I8.as_pointer()
    function = ir.Function(module, ir.FunctionType(ir.VoidType(), [I64, pointer, pointer,
                                                                   pointer]), "run")
    n, *arrays = function.args
    b = ir.IRBuilder(function.append_basic_block("entry"))
    loops = b.alloca(ir.ArrayType(I64, 4))
    from gpuisa.pica.engine.compiled.numpyloops import NATIVE_LOOPS

    for k, address in enumerate(NATIVE_LOOPS.tolist()):
        b.store(ir.Constant(I64, address), b.gep(loops, [ir.Constant(I32, 0),
                                                        ir.Constant(I32, k)]))
    L = Lowering(b, width, b.gep(loops, [ir.Constant(I32, 0), ir.Constant(I32, 0)]),
                 rounding=rounding)
    with over_lanes(b, n, width) as i:

        def at(array, kind):
            lane = L.lanes(kind)
            return b.bitcast(b.gep(b.bitcast(array, kind.as_pointer()), [i]),
                             lane.as_pointer())

        values = [b.load(at(array, kind), align=1) for array, kind in zip(arrays, operands,
                                                                           strict=False)]
        if rule.endswith("_k"):  # a rule whose constant comes last (unbounded24(x, k))
            value = getattr(L, rule[:-2])(*values, *extra)
        else:
            value = getattr(L, rule)(*extra, *values)
        if result is I8:
            value = b.zext(value, L.lanes(I8))
        b.store(value, at(arrays[len(operands)], result), align=1)
    b.ret_void()
    return llvmjit.compile_kernel(module, signature=_SIGNATURE)


_NUMPY = {F32: np.float32, F64: np.float64, I8: np.int8, I32: np.int32, I64: np.int64}


def lowered(rule: str, kinds: tuple, *columns: np.ndarray, width: int = 1,
            extra: tuple = (), rounding: str = "nearest-even") -> np.ndarray:
    function = compiled(rule, kinds, width, extra, rounding).function
    columns = [np.ascontiguousarray(c, _NUMPY[k]) for c, k in zip(columns, kinds,
                                                                   strict=False)]
    count = len(columns[0])
    padded = -(-count // width) * width
    columns = [np.resize(c, padded) for c in columns]
    out = np.zeros(padded, _NUMPY[kinds[-1]])
    pointers = [c.ctypes.data for c in columns] + [out.ctypes.data]
    pointers += [None] * (3 - len(pointers))
    function(padded, *pointers)
    return out[:count]


def reference(primitive, *columns: np.ndarray, result=np.float32) -> np.ndarray:
    """The plain-Python primitive on register values (NaN payloads widened)."""
    wide = [widen(c) if c.dtype == np.float32 else c for c in columns]
    values = [primitive(*(float(c[k]) if c.dtype.kind == "f" else int(c[k]) for c in wide))
              for k in range(len(columns[0]))]
    if result is np.float32:
        return narrow(np.array(values, np.float64))
    return np.array(values, result)


REGISTER_RULES = {  # rule: (operand count, precision of the result)
    "negate24": 1, "negate32": 1, "rcp24": 1, "rsq24": 1, "rcp32": 1, "rsq32": 1,
    "flr24": 1, "flr32": 1, "ex2_24": 1, "lg2_24": 1, "ex2_32": 1, "lg2_32": 1,
    "pica_max": 2, "pica_min": 2, "sge": 2, "slt": 2, "mul32": 2, "add32": 2,
}


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("rule", sorted(REGISTER_RULES))
def test_register_rules_equal_their_primitives(rule, width):
    arity = REGISTER_RULES[rule]
    columns = (SINGLES,) if arity == 1 else PAIRS
    got = lowered(rule, (F32,) * arity + (F32,), *columns, width=width)
    same_bits(got, reference(REALISES[rule], *columns))


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("operator", range(8))
def test_compare_equals_its_primitive(operator, width):
    got = lowered("compare", (F32, F32, I8), *PAIRS, width=width, extra=(operator,))
    want = reference(lambda a, b: P.compare(operator, a, b), *PAIRS, result=np.int8)
    same_bits(got, want)


@pytest.mark.parametrize("width", WIDTHS)
def test_work24_equals_flush24(width):
    got = lowered("work24", (F32, F64), SINGLES, width=width)
    want = np.array([P.flush24(float(x)) for x in widen(SINGLES)], np.float64)
    same_bits(got, want)


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("rule", ["mul64", "add64"])
def test_working_arithmetic_equals_its_primitive(rule, width):
    """mul64/add64 on f24 working values: each operand is a flushed register value."""
    a, b = (np.array([P.flush24(float(x)) for x in widen(c)]) for c in PAIRS)
    got = lowered(rule, (F64, F64, F64), a, b, width=width)
    want = np.array([REALISES[rule](x, y) for x, y in zip(a.tolist(), b.tolist(),
                                                          strict=True)], np.float64)
    same_bits(got, want)


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("offset", ["exact", "tie", "above", "below"])
def test_round24_equals_its_primitive_on_every_float24_pattern(offset, width):
    for x in f24_neighbours(offset):
        same_bits(lowered("round24", (F64, F64), x, width=width), round24_model(x))


@pytest.mark.parametrize("width", WIDTHS)
def test_round24_equals_its_primitive_on_random_float64_patterns(width):
    x = np.random.default_rng(2).integers(0, 2**64, 1 << 18, dtype=np.uint64).view(np.float64)
    same_bits(lowered("round24", (F64, F64), x, width=width), round24_model(x))


def _near_boundaries() -> np.ndarray:
    """float64 values at, around and away from float32 rounding boundaries: midpoints
    of float32 neighbours (normal, subnormal, the largest), the overflow threshold,
    each nudged by multiples of the tolerance, plus specials and random patterns."""
    rng = np.random.default_rng(7)
    with np.errstate(all="ignore"):  # NaN patterns cast, the largest float32's neighbour
        return _around(rng)


def _around(rng: np.random.Generator) -> np.ndarray:
    rounded = np.concatenate([SPECIAL32, RANDOM32[:512]]).astype(np.float64)
    rounded = rounded[np.isfinite(rounded)]
    up = np.nextafter(rounded.astype(np.float32), np.float32(np.inf)).astype(np.float64)
    middles = np.concatenate([(rounded + up) / 2, [libm32.OVERFLOW, -libm32.OVERFLOW,
                                                   2.0**-150, 3 * 2.0**-150]])
    middles = middles[np.isfinite(middles)]
    scale = np.abs(middles) * libm32.TOLERANCE
    values = [middles + k * scale for k in (-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0)]
    return np.concatenate([*values, rounded, [0.0, -0.0, np.inf, -np.inf, np.nan],
                           rng.integers(0, 2**64, 4096, dtype=np.uint64).view(np.float64)])


@pytest.mark.parametrize("width", WIDTHS)
def test_ambiguous32_equals_libm32s_rule(width):
    values = _near_boundaries()
    got = lowered("ambiguous32", (F64, I8), values, width=width)
    want = np.array([libm32.ambiguous(float(v)) for v in values])
    assert 100 < want.sum() < len(values) // 2  # both answers are exercised
    assert np.array_equal(got.astype(bool), want)


@pytest.mark.parametrize("width", WIDTHS)
def test_address_from_float_equals_its_primitive(width):
    got = lowered("address_from_float", (F32, I32), SINGLES, width=width)
    same_bits(got, reference(P.address_from_float, SINGLES, result=np.int32))


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("number", [0, 5, 95, 127])
def test_relative_row_equals_its_primitive(number, width):
    offsets = np.arange(-300, 300, dtype=np.int64)
    got = lowered("relative_row", (I64, I64), offsets, width=width, extra=(number,))
    want = np.array([P.relative_row(number, int(k)) for k in offsets], np.int64)
    same_bits(got, want)


def test_every_lowering_names_a_primitive():
    assert set(REALISES) <= {name for name in dir(Lowering) if not name.startswith("_")}
    assert I1  # the type of compare's result, stored as a byte above


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("offset", ["exact", "tie", "above", "below"])
def test_round24_in_range_equals_round24_where_that_is_finite(offset, width):
    """The in-range rounding (vector kernels) gives round24's bits wherever round24 of a
    finite value is finite, and a NaN everywhere else (so the kernels' check of what an
    instruction writes catches it)."""
    for x in f24_neighbours(offset):
        want = round24_model(x)
        got = lowered("round24_in_range", (F64, F64), x, width=width)
        finite = np.isfinite(x) & np.isfinite(want)
        same_bits(got[finite], want[finite])
        assert np.isnan(got[~finite]).all()


@pytest.mark.parametrize("width", WIDTHS)
def test_nonfinite32_tells_infinities_and_nans(width):
    got = lowered("nonfinite32", (F32, I8), SINGLES, width=width)
    same_bits(got, (~np.isfinite(SINGLES)).astype(np.int8))


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("offset", ["exact", "tie", "above", "below"])
def test_round24_bounded_equals_round24_on_its_domain(offset, width):
    """The rounding of the bounded arithmetic (Veltkamp's splitting alone) gives round24's
    bits on the values that arithmetic rounds (primitives.bounded24's proof): 0, and
    finite values from 2^-62 on whose rounding is finite."""
    for x in f24_neighbours(offset):
        want = round24_model(x)
        got = lowered("round24_bounded", (F64, F64), x, width=width)
        with np.errstate(invalid="ignore"):
            domain = (x == 0) | ((np.abs(x) >= P.F24_MIN) & np.isfinite(want))
        same_bits(got[domain], want[domain])


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("k", [P.BOUND_UNIFORM, P.BOUND_FACTOR, P.PRODUCT_BOUND - P.BOUND_UNIFORM,
                               P.BOUND_ADDEND, P.PRODUCT_BOUND])
def test_unbounded24_is_not_bounded24(k, width):
    values = np.concatenate([SINGLES, np.ldexp(np.float32(1.0), np.arange(-70, 40)).astype(
        np.float32), np.nextafter(np.ldexp(np.float32(1.0), np.arange(-70, 40)).astype(
            np.float32), np.float32(0))])
    got = lowered("unbounded24_k", (F32, I8), values, width=width, extra=(k,))
    want = np.array([not P.bounded24(float(x), k) for x in widen(values)], np.int8)
    same_bits(got, want)


# -- the truncating rounding (pica-emulation.md#f24-truncation) --------------------------------

#: What a truncating Lowering's f24 scalar units realise: their result before f24's
#: rounding (the primitive), truncated.
TRUNCATED_UNITS = {"rcp24": P.rcp64, "rsq24": P.rsq64, "flr24": P.flr64, "ex2_24": P.ex2_64,
                   "lg2_24": P.lg2_64}


def test_every_rounding_lowering_is_the_rounding_of_its_mode():
    assert {REALISES[name] for name in ROUNDING_METHODS} == {P.round24}
    assert set(TRUNCATED_UNITS) == {name for name, rule in REALISES.items()
                                    if name.endswith("24") and rule.__name__.endswith("24")
                                    and name not in ROUNDING_METHODS
                                    and name not in ("work24", "negate24", "unbounded24")}


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("offset", ["exact", "tie", "above", "below"])
def test_truncating_round24_equals_trunc24_on_every_float24_pattern(offset, width):
    for x in f24_neighbours(offset):
        same_bits(lowered("round24", (F64, F64), x, width=width, rounding="truncate"),
                  numpy_trunc24(x))


@pytest.mark.parametrize("width", WIDTHS)
def test_truncating_round24_equals_trunc24_on_random_float64_patterns(width):
    x = np.random.default_rng(5).integers(0, 2**64, 1 << 18, dtype=np.uint64).view(np.float64)
    same_bits(lowered("round24", (F64, F64), x, width=width, rounding="truncate"),
              numpy_trunc24(x))


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("offset", ["exact", "tie", "above", "below"])
def test_truncating_round24_in_range_equals_trunc24_where_that_is_finite(offset, width):
    """As for rounding to nearest: trunc24's bits wherever trunc24 of a finite value is
    finite (up to the largest float24, which [F24_MAX, 2^64) truncates to), a NaN
    everywhere else."""
    reached_largest = False
    for x in f24_neighbours(offset):
        want = numpy_trunc24(x)
        got = lowered("round24_in_range", (F64, F64), x, width=width, rounding="truncate")
        finite = np.isfinite(x) & np.isfinite(want)
        same_bits(got[finite], want[finite])
        assert np.isnan(got[~finite]).all()
        reached_largest |= bool((got[finite] == (2.0 - 2.0**-16) * 2.0**63).any())
    assert reached_largest


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("offset", ["exact", "tie", "above", "below"])
def test_truncating_round24_bounded_equals_trunc24_on_its_domain(offset, width):
    """The bounded arithmetic's rounding in the truncating mode (the low bits cleared,
    then + 0.0) gives trunc24's bits on 0 (either sign: +0) and on finite values from
    2^-62 on whose truncation is finite: the values bounded operands produce
    (primitives.bounded24)."""
    for x in f24_neighbours(offset):
        want = numpy_trunc24(x)
        got = lowered("round24_bounded", (F64, F64), x, width=width, rounding="truncate")
        with np.errstate(invalid="ignore"):
            domain = (x == 0) | ((np.abs(x) >= P.F24_MIN) & np.isfinite(want))
        assert domain.mean() > 0.9
        same_bits(got[domain], want[domain])
    zero = lowered("round24_bounded", (F64, F64), np.array([-0.0]), width=width,
                   rounding="truncate")
    assert zero.view(np.uint64)[0] == 0  # +0, as trunc24 gives


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("rule", sorted(TRUNCATED_UNITS))
def test_truncating_scalar_units_truncate_their_results(rule, width):
    got = lowered(rule, (F32, F32), SINGLES, width=width, rounding="truncate")
    unrounded = TRUNCATED_UNITS[rule]
    same_bits(got, reference(lambda x: P.trunc24(unrounded(x)), SINGLES))
    # and the same text rounds to nearest in the default mode: the mode is what differs
    nearest = lowered(rule, (F32, F32), SINGLES, width=width)
    same_bits(nearest, reference(REALISES[rule], SINGLES))
    if rule != "flr24":  # floors are integers: exact in either mode
        assert (got.view(np.uint32) != nearest.view(np.uint32)).any()
