"""The fast arithmetic the batch engine uses must compute exactly what the definition
computes (semantics.py): Veltkamp rounding against the one float24 rounding rule,
the fast f24 and f32 contexts against the exact ones on many lanes, NumPy's
maximum/minimum against the PICA's selection rules, and the scratch arena."""

from __future__ import annotations

import numpy as np
import pytest

from gpuisa.floats import f24_to_f32, round_f24
from gpuisa.pica.engine import semantics
from gpuisa.pica.isa import Opcode


def _tie_heavy_f64(rng, count):
    """float64 values across the float24 range, half of them exactly half-way between two
    float24 values (bit 35 set, bits 0-34 clear), with random signs."""
    exponents = rng.integers(-61, 63, count).astype(np.uint64)
    mantissas = rng.integers(0, 1 << 52, count, dtype=np.uint64)
    tie = rng.random(count) < 0.5
    mantissas[tie] = (mantissas[tie] & ~np.uint64((1 << 36) - 1)) | np.uint64(1 << 35)
    bits = ((np.uint64(1023) + exponents) << np.uint64(52)) | mantissas
    return bits.view(np.float64) * np.where(rng.random(count) < 0.5, -1.0, 1.0)


def test_veltkamp_rounding_is_round_f24_on_float64():
    x = _tie_heavy_f64(np.random.default_rng(1), 400_000)
    got = semantics.round_to_f24_bits(x).astype(np.float32)
    # round_f24 on the round-to-odd narrowing is the definition (semantics docstring)
    want = round_f24(semantics._narrow_to_odd(x))
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))


def test_veltkamp_rounding_every_mantissa_of_two_binades():
    """All 2^23 float32 mantissas of [1, 2) and [2^-40, 2^-39), both signs: every tie."""
    mantissas = np.arange(1 << 23, dtype=np.uint32)
    for exponent in (127, 127 - 40):
        for sign in (0, 1):
            x = ((np.uint32(sign) << 31) | (np.uint32(exponent) << 23) | mantissas).view(
                np.float32)
            got = semantics.round_to_f24_bits(x.astype(np.float64)).astype(np.float32)
            assert np.array_equal(got.view(np.uint32), round_f24(x).view(np.uint32))


def test_exact_rounding_handles_the_range_ends_like_round_f24():
    x = np.array([0.0, -0.0, 2.0**-63, -(2.0**-62) * (1 - 2.0**-20), 2.0**64,
                  (2 - 2.0**-17) * 2.0**63, -(2.0**70), np.inf, -np.inf, np.nan,
                  2.0**-62, 1e-300, 3.0])
    got = semantics.exact("f24").rounded(x).astype(np.float32)
    want = round_f24(semantics._narrow_to_odd(x))
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))


def _admitted(rng, shape):
    """float24 values the fast f24 arithmetic admits for every opcode: 0 or magnitude in
    [2^-23, 2^30], with many exact ties in products and sums (few significant bits)."""
    magnitude = rng.uniform(1, 2, shape) * 2.0 ** rng.integers(-23, 30, shape)
    coarse = rng.random(shape) < 0.5
    magnitude[coarse] = np.round(magnitude[coarse] * 4) / 4
    value = np.where(rng.random(shape) < 0.5, -magnitude, magnitude)
    value[rng.random(shape) < 0.1] = 0.0
    return semantics.load_floats(value, "f24")


FAST_OPS = [Opcode.ADD, Opcode.MUL, Opcode.MAD, Opcode.DP3, Opcode.DP4, Opcode.DPH,
            Opcode.DST, Opcode.MAX, Opcode.MIN]


def _call(opcode, sources, precision, arith):
    scalar = semantics.SCALAR_OPS.get(opcode)
    if scalar is not None:
        return scalar(sources, precision, arith)
    return semantics.VECTOR_OPS[opcode](sources, precision, arith)


@pytest.mark.parametrize("opcode", FAST_OPS)
def test_fast_f24_equals_exact_when_admitted(opcode):
    rng = np.random.default_rng(int(opcode))
    sources = [_admitted(rng, (4, 3000)) for _ in range(3)]
    sources[1] = sources[1][:, :1]  # a uniform column, as the batch engine passes them
    assert semantics.f24_fast_admits(opcode, [semantics.f24_range(s) for s in sources])
    arena = semantics.Arena()
    with np.errstate(all="ignore"):
        got = np.array(_call(opcode, sources, "f24", semantics.fast("f24", arena)))
        want = np.array(_call(opcode, sources, "f24", None))
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))


@pytest.mark.parametrize("opcode", FAST_OPS)
def test_fast_f32_equals_exact_when_no_nan(opcode):
    rng = np.random.default_rng(100 + int(opcode))
    patterns = rng.integers(0, 1 << 24, (2, 4, 3000)).astype(np.uint32)
    edge = np.array([[0.0], [-0.0], [np.inf], [1e-40]], np.float32)  # a uniform column
    sources = [f24_to_f32(patterns[0]), edge, f24_to_f32(patterns[1])]
    with np.errstate(all="ignore"):
        got = np.array(_call(opcode, sources, "f32", semantics.fast("f32")))
        want = np.array(_call(opcode, sources, "f32", None))
    lanes = ~np.isnan(got).reshape(-1, got.shape[-1]).any(axis=0)  # the precondition
    assert lanes.sum() > 1000
    assert np.array_equal(got[..., lanes].view(np.uint32), want[..., lanes].view(np.uint32))


def _ranges(*sources):
    return [semantics.f24_range(np.array(s, np.float32)) for s in sources]


def test_f24_admission_bounds():
    """The conditions of semantics.f24_fast_admits, at their edges."""
    admits = semantics.f24_fast_admits
    assert semantics.f24_range(np.array([0.0, -0.0], np.float32)) == (np.inf, 0.0)
    assert semantics.f24_range(np.array([1.0, -np.nan], np.float32)) == (0.0, np.inf)
    assert semantics.f24_range(np.array([0.0, -0.5, 4.0], np.float32)) == (0.5, 4.0)
    nice = [1.5, -2.0, 0.0]
    for op in (Opcode.ADD, Opcode.MUL, Opcode.MAD, Opcode.DP4, Opcode.DPH, Opcode.DST):
        assert admits(op, _ranges(nice, nice, nice))
        for bad in (np.inf, np.nan, 1e-40, 2.0**-63):  # special or subnormal values
            assert not admits(op, _ranges([1.0, bad], nice, nice))
    # sums: addends down to 2^-46, products of magnitudes down to 2^-46
    assert admits(Opcode.ADD, _ranges([2.0**-46], nice))
    assert not admits(Opcode.ADD, _ranges([2.0**-47], nice))
    assert admits(Opcode.DP4, _ranges([2.0**-23], [2.0**-23]))
    assert not admits(Opcode.DP4, _ranges([2.0**-23], [2.0**-24]))
    assert admits(Opcode.MAD, _ranges([2.0**-40], [2.0**-6], [2.0**-46]))
    assert not admits(Opcode.MAD, _ranges([2.0**-40], [2.0**-7], [1.0]))
    # a lone product only has to stay a normal number; overflow bounds
    assert admits(Opcode.MUL, _ranges([2.0**-31], [2.0**-31]))
    assert not admits(Opcode.MUL, _ranges([2.0**-31], [2.0**-32]))
    assert admits(Opcode.MUL, _ranges([2.0**31], [2.0**31]))
    assert not admits(Opcode.MUL, _ranges([2.0**32], [2.0**31]))
    assert admits(Opcode.DP4, _ranges([2.0**30], [2.0**30]))
    assert not admits(Opcode.DP4, _ranges([2.0**31], [2.0**30]))


def _edge_ranges(rng, opcode, exponents=None):
    """Sources on the edge of admission: magnitudes near the bounds of each condition."""
    if exponents is not None:
        pass
    elif opcode is Opcode.ADD:
        exponents = (-46, 60)
    elif opcode in (Opcode.MUL, Opcode.DST):
        exponents = (-31, 30)
    else:
        exponents = (-23, 29)
    shape = (4, 2000)
    magnitude = rng.uniform(1, 2, shape) * 2.0 ** rng.integers(*exponents, shape)
    value = np.where(rng.random(shape) < 0.5, -magnitude, magnitude)
    value[rng.random(shape) < 0.1] = 0.0
    return semantics.load_floats(value, "f24")


@pytest.mark.parametrize("opcode", [Opcode.ADD, Opcode.MUL, Opcode.MAD, Opcode.DP4,
                                    Opcode.DST])
def test_fast_f24_equals_exact_at_the_admission_edges(opcode):
    rng = np.random.default_rng(7 + int(opcode))
    checked = 0
    for _ in range(20):
        sources = [_edge_ranges(rng, opcode) for _ in range(3)]
        if opcode is Opcode.MAD:  # the addend: at least 2^-46, sum below 2^62
            sources[2] = _edge_ranges(rng, opcode, (-46, 58))
        if not semantics.f24_fast_admits(opcode, [semantics.f24_range(s) for s in sources]):
            continue
        with np.errstate(all="ignore"):
            got = np.array(_call(opcode, sources, "f24", semantics.fast("f24")))
            want = np.array(_call(opcode, sources, "f24", None))
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32))
        checked += 1
    assert checked >= 5


def test_numpy_maximum_is_the_pica_selection_here():
    """Pinned: on this machine NumPy's maximum/minimum pick the second of equal operands,
    so the fast MAX/MIN path is used (semantics checks it at import)."""
    assert semantics.NUMPY_MAX_IS_PICA
    a = np.array([0.0, -0.0, 1.0, -np.inf] * 50, np.float32)
    b = np.array([-0.0, 0.0, 1.0, 3.0] * 50, np.float32)
    for fast, rule in ((np.maximum, semantics.pica_max), (np.minimum, semantics.pica_min)):
        assert np.array_equal(fast(a, b).view(np.uint32), rule(a, b).view(np.uint32))


def test_first_nan_operand_wins_whatever_the_array_length():
    nan_a = np.uint32(0x7F800080).view(np.float32)  # signalling, payload 0x80
    nan_b = np.uint32(0xFFC12300).view(np.float32)
    for n in (1, 3, 1000):
        a = np.full(n, nan_a)
        b = np.full(n, nan_b)
        with np.errstate(all="ignore"):
            for result in (semantics.pica_add(a, b), semantics.pica_mul(a, b)):
                assert set(result.view(np.uint32).tolist()) == {0x7FC00080}
            assert set(semantics.pica_add(b, a).view(np.uint32).tolist()) == {0xFFC12300}


def test_arena_reuses_arrays_only_after_reset():
    arena = semantics.Arena()
    first = arena.take((4, 10), np.float64)
    second = arena.take((4, 10), np.float64)
    assert not np.shares_memory(first, second)
    arena.reset()
    again = arena.take((4, 10), np.float64)
    assert np.shares_memory(again, first) and again.shape == (4, 10)
    assert arena.take((3,), np.float32).dtype == np.float32
