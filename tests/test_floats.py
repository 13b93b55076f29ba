"""Tests of gpuisa.floats.

Expected values come from the float24 bit table (shbin-format.md#f24-constants,
pica-emulation.md#float24), from IEEE half precision as NumPy implements it, from NumPy float64
arithmetic, or from scalar struct-based re-derivations written here; never from the module's own
output.
"""

from __future__ import annotations

import math
import struct

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpuisa.errors import InputError
from gpuisa.floats import (
    F24_BIAS,
    F24_MAX,
    F24_MIN_NORMAL,
    f16_to_f32,
    f20_to_f32,
    f24_to_f32,
    f32_to_f24,
    f32_to_f24_picasso,
    flush_f24_subnormal,
    pack_f24_uniform,
    pack_f24_uniforms,
    round_f24,
    unpack_f24_uniform,
    unpack_f24_uniforms,
)


def f32(x: float) -> np.float32:
    return np.float32(x)


def bits32(x) -> int:
    return int(np.asarray(x, dtype=np.float32).view(np.uint32))


def from_bits32(u: int) -> np.float32:
    return np.array(u, dtype=np.uint32).view(np.float32)[()]


ALL_F24 = np.arange(1 << 24, dtype=np.uint32)


@pytest.fixture(scope="module")
def all_decoded() -> np.ndarray:
    return f24_to_f32(ALL_F24)


def is_denormal(p: int) -> bool:
    return (p >> 16) & 0x7F == 0 and p & 0xFFFF != 0


def is_nan_pattern(p: int) -> bool:
    return (p >> 16) & 0x7F == 0x7F and p & 0xFFFF != 0


# --- constants ---------------------------------------------------------------------------


def test_constants():
    assert F24_BIAS == 63
    assert F24_MIN_NORMAL == 2.0**-62
    assert F24_MAX == 2.0**64 - 2.0**47
    assert float(np.float32(F24_MAX)) == F24_MAX  # representable in float32


# --- decoding --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "value"),
    [
        (0x3F0000, 1.0),
        (0xBF0000, -1.0),
        (0x3E0000, 0.5),
        (0x408000, 3.0),
        (0x000000, 0.0),
        (0x010000, 2.0**-62),  # smallest normal
        (0x7EFFFF, (2 - 2.0**-16) * 2.0**63),  # largest normal
        (0x3F0001, 1 + 2.0**-16),
        (0x000001, 2.0**-78),  # denormal pattern, exact value m * 2^-78
        (0x80FFFF, -0xFFFF * 2.0**-78),
        (0x7F0000, math.inf),
        (0xFF0000, -math.inf),
    ],
)
def test_f24_to_f32_values(pattern, value):
    assert float(f24_to_f32(pattern)) == value


def test_f24_to_f32_signed_zero_and_nan_payload():
    assert bits32(f24_to_f32(0x800000)) == 0x80000000
    # NaN payload m lands in float32 mantissa bits 7..22.
    assert bits32(f24_to_f32(0x7F1234)) == 0x7F800000 | 0x1234 << 7
    assert bits32(f24_to_f32(0xFF0001)) == 0xFF800080


def test_f24_to_f32_masks_upper_bits_and_shapes():
    out = f24_to_f32([0xAB3F0000, -1])
    assert out.dtype == np.float32 and out.shape == (2,)
    assert out[0] == 1.0
    assert bits32(out[1]) == 0xFF800000 | 0xFFFF << 7  # -1 -> 0xFFFFFF: negative NaN
    scalar = f24_to_f32(0x3F0000)
    assert isinstance(scalar, np.ndarray) and scalar.shape == () and scalar.dtype == np.float32
    assert f24_to_f32(np.zeros((2, 3), np.uint16)).shape == (2, 3)


def test_f24_normal_decode_matches_formula(all_decoded):
    # Plain float64 math: (-1)^s * (1 + m/2^16) * 2^(e-63) for e in 1..126.
    p = ALL_F24[::97]
    s, e, m = p >> 23, (p >> 16) & 0x7F, p & 0xFFFF
    normal = (e >= 1) & (e <= 126)
    expect = np.where(s == 1, -1.0, 1.0) * (1 + m / 65536.0) * np.exp2(e.astype(float) - 63)
    np.testing.assert_array_equal(all_decoded[::97][normal], expect[normal])


def test_f16_decode_values():
    assert float(f16_to_f32(0x3C00)) == 1.0
    assert float(f16_to_f32(0x7BFF)) == 65504.0
    assert float(f16_to_f32(0x0001)) == 2.0**-24
    assert float(f16_to_f32(0xFC00)) == -math.inf
    assert math.isnan(f16_to_f32(0x7E00))


def test_f16_decode_exhaustive_against_numpy_half():
    p = np.arange(1 << 16, dtype=np.uint16)
    ours = f16_to_f32(p)
    ref = p.view(np.float16).astype(np.float32)
    nan = np.isnan(ref)
    np.testing.assert_array_equal(ours.view(np.uint32)[~nan], ref.view(np.uint32)[~nan])
    assert np.isnan(ours[nan]).all()


@pytest.mark.parametrize(
    ("pattern", "value"),
    [
        (0x3F000, 1.0),  # e = 63, m = 0
        (0xC0400, -2.5),  # s = 1, e = 64, m = 0x400 (0.25 * 2^12)
        (0x01000, 2.0**-62),  # smallest normal
        (0x7EFFF, (2 - 2.0**-12) * 2.0**63),  # largest normal
        (0x00001, 2.0**-74),  # denormal: m * 2^(1 - 63 - 12)
        (0x7F000, math.inf),
        (0xFF000, -math.inf),
    ],
)
def test_f20_decode_values(pattern, value):
    assert float(f20_to_f32(pattern)) == value


def test_f20_nan_payload():
    assert bits32(f20_to_f32(0x7F001)) == 0x7F800000 | 1 << 11


def test_decode_rejects_floats():
    with pytest.raises(InputError):
        f24_to_f32(1.5)
    with pytest.raises(InputError):
        f24_to_f32(["a"])


# --- picasso's encoder -------------------------------------------------------------------------


def picasso_oracle(value: float) -> int:
    """shbin-format.md#f24-constants, one value at a time, through struct's C-style float cast."""
    try:
        (u,) = struct.unpack("<I", struct.pack("<f", value))
    except OverflowError:  # the C cast (float)value gives +-inf here
        u = (0x80000000 if value < 0 else 0) | 0x7F800000
    sign = u >> 31
    e24 = ((u >> 23) & 0xFF) - 64
    mantissa = (u & 0x7FFFFF) >> 7
    if e24 < 0:
        return sign << 23
    if e24 > 127:
        return sign << 23 | 0x7F0000
    return sign << 23 | e24 << 16 | mantissa


@pytest.mark.parametrize(
    ("value", "pattern"),
    [
        (1.0, 0x3F0000),
        (-1.0, 0xBF0000),
        (0.5, 0x3E0000),
        (3.0, 0x408000),
        (0.0, 0x000000),
        (-0.0, 0x800000),
        (math.inf, 0x7F0000),
        (-math.inf, 0xFF0000),
        (math.nan, 0x7F0000),  # NaN becomes infinity
        (2.0**64, 0x7F0000),  # e24 = 127, mantissa 0
        (1.5 * 2.0**64, 0x7F8000),  # e24 = 127 with mantissa: a NaN pattern
        (-(2.0**65), 0xFF0000),  # e24 = 128 -> infinity
        (1.5 * 2.0**-63, 0x008000),  # e24 = 0 keeps the mantissa
        (2.0**-64, 0x000000),
        (-(2.0**-64), 0x800000),
        (1e-45, 0x000000),  # float32 subnormal
        (float(from_bits32(0x3F8000FF)), 0x3F0001),  # truncation of the low 7 bits
        # float64 1 + 2^-16 - 2^-25 rounds to float32 1 + 2^-16 first (RNE), then packs.
        (1 + 2.0**-16 - 2.0**-25, 0x3F0001),
        (1e300, 0x7F0000),  # float32 cast overflows to infinity
    ],
)
def test_picasso_examples(value, pattern):
    assert int(f32_to_f24_picasso(value)) == pattern
    assert picasso_oracle(value) == pattern


@given(st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=20))
def test_picasso_matches_scalar_oracle_f64(values):
    ours = f32_to_f24_picasso(np.array(values, dtype=np.float64))
    assert ours.dtype == np.uint32
    assert ours.tolist() == [picasso_oracle(v) for v in values]


@given(st.lists(st.integers(0, 0xFFFFFFFF), max_size=20))
def test_picasso_matches_scalar_oracle_f32_bits(patterns):
    values = np.array(patterns, dtype=np.uint32).view(np.float32)
    expect = [picasso_oracle(float(v)) for v in values]
    assert f32_to_f24_picasso(values).tolist() == expect


def test_picasso_inverts_decode_of_all_normal_patterns(all_decoded):
    e = (ALL_F24 >> 16) & 0x7F
    normal = (e >= 1) & (e <= 126)
    np.testing.assert_array_equal(f32_to_f24_picasso(all_decoded[normal]), ALL_F24[normal])


# --- round_f24 -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("x", "rne", "trunc"),
    [
        (1 + 2.0**-17, 1.0, 1.0),  # exact tie, kept mantissa even -> down
        (1 + 3 * 2.0**-17, 1 + 2.0**-15, 1 + 2.0**-16),  # tie, odd -> up to even
        (1 + 2.0**-17 + 2.0**-23, 1 + 2.0**-16, 1.0),  # just above the tie
        (1 + 2.0**-17 - 2.0**-23, 1.0, 1.0),  # just below the tie
        (-(1 + 3 * 2.0**-17), -(1 + 2.0**-15), -(1 + 2.0**-16)),
        (2 - 2.0**-23, 2.0, 2 - 2.0**-16),  # carry into the exponent
        (F24_MAX, F24_MAX, F24_MAX),
        (F24_MAX + 2.0**46 - 2.0**40, F24_MAX, F24_MAX),  # just below the rounding boundary
        (F24_MAX + 2.0**46, math.inf, F24_MAX),  # tie at the boundary: even is 2^64 -> inf
        (2.0**64 - 2.0**40, math.inf, F24_MAX),  # largest float32 below 2^64
        (-(2.0**64), -math.inf, -math.inf),
        ((2 - 2.0**-23) * 2.0**127, math.inf, math.inf),  # float32 max
        (2.0**-62, 2.0**-62, 2.0**-62),  # smallest normal stays
        (2.0**-62 - 2.0**-86, 2.0**-62, 0.0),  # largest float32 below 2^-62
        (2.0**-63, 0.0, 0.0),
        (2.0**-149, 0.0, 0.0),  # float32 subnormal
        (math.inf, math.inf, math.inf),
        (-math.inf, -math.inf, -math.inf),
    ],
)
def test_round_f24_cases(x, rne, trunc):
    assert float(f32(x)) == x  # every input is exactly a float32
    assert float(round_f24(x)) == rne
    assert float(round_f24(x, "truncate")) == trunc


@pytest.mark.parametrize("x", [-0.0, -(2.0**-63), -1e-45, 2.0**-63])
@pytest.mark.parametrize("mode", ["nearest-even", "truncate"])
def test_round_f24_tiny_becomes_positive_zero(x, mode):
    assert bits32(round_f24(x, mode)) == 0


@pytest.mark.parametrize("mode", ["nearest-even", "truncate"])
def test_round_f24_nan(mode):
    assert np.isnan(round_f24(math.nan, mode))
    # A NaN whose payload lives only in the 7 dropped bits must stay a NaN (quiet bit set).
    assert bits32(round_f24(from_bits32(0x7F800001), mode)) == 0x7FC00000
    assert bits32(round_f24(from_bits32(0xFF891A7F), mode)) == 0xFF891A00


def test_63_halvings():
    x = np.float32(1.0)
    for _ in range(62):
        x = round_f24(x * np.float32(0.5))
    assert float(x) == 2.0**-62
    assert bits32(round_f24(x * np.float32(0.5))) == 0


def test_round_f24_out_in_place_and_shapes():
    a = np.array([[1 + 3 * 2.0**-17, -0.0], [1e30, 2.0**-63]], dtype=np.float32)
    res = round_f24(a, out=a)
    assert res is a
    assert a.tolist() == [[1 + 2.0**-15, 0.0], [math.inf, 0.0]]
    assert bits32(a[0, 1]) == 0
    scalar = round_f24(1.0)
    assert isinstance(scalar, np.ndarray) and scalar.shape == () and scalar.dtype == np.float32
    with pytest.raises(InputError):
        round_f24(a, out=np.zeros((2, 2), np.float64))
    with pytest.raises(InputError, match=r"rounding: mode='up'.*'nearest-even' or 'truncate'"):
        round_f24(a, mode="up")
    with pytest.raises(InputError):
        round_f24("1.0")


def round_oracle(x: np.ndarray, mode: str) -> np.ndarray:
    """float64 math: scale the significand to 17 bits, rint (half-even) or trunc, rescale."""
    x = x.astype(np.float64)
    frac, exp = np.frexp(x)  # x = frac * 2^exp, 0.5 <= |frac| < 1
    rounder = np.rint if mode == "nearest-even" else np.trunc
    r = np.ldexp(rounder(np.ldexp(frac, 17)), exp - 17)
    r = np.where(np.abs(r) < 2.0**-62, 0.0, r)
    r = np.where(np.abs(r) > F24_MAX, np.copysign(np.inf, r), r)
    return np.where(np.isnan(x), np.nan, r)


@pytest.mark.parametrize("mode", ["nearest-even", "truncate"])
def test_round_f24_matches_float64_oracle_on_random_bits(mode):
    rng = np.random.default_rng(1234)
    x = rng.integers(0, 1 << 32, size=1 << 20, dtype=np.uint64).astype(np.uint32)
    x = x.view(np.float32)
    # Casting signalling NaNs to float64 raises the "invalid" flag; it is harmless here.
    with np.errstate(invalid="ignore", over="ignore"):
        expect = round_oracle(x, mode)
        ours = round_f24(x, mode).astype(np.float64)
    np.testing.assert_array_equal(ours, expect)


@pytest.fixture(scope="module")
def f24_value_bits(all_decoded) -> np.ndarray:
    """Sorted float32 bit patterns of every float24 decode (denormals excluded)."""
    denormal = ((ALL_F24 >> 16) & 0x7F == 0) & (ALL_F24 & 0xFFFF != 0)
    values = np.sort(all_decoded.view(np.uint32)[~denormal])
    assert (np.diff(values) > 0).all()  # decoding is injective outside the denormals
    return values


@given(
    patterns=st.lists(st.integers(0, 0xFFFFFFFF), min_size=1, max_size=50),
    mode=st.sampled_from(["nearest-even", "truncate"]),
)
def test_round_f24_idempotent_and_representable(patterns, mode, f24_value_bits):
    x = np.array(patterns, dtype=np.uint32).view(np.float32)
    r = round_f24(x, mode)
    np.testing.assert_array_equal(round_f24(r, mode).view(np.uint32), r.view(np.uint32))
    rb = r.view(np.uint32)
    idx = np.searchsorted(f24_value_bits, rb).clip(max=len(f24_value_bits) - 1)
    assert (f24_value_bits[idx] == rb).all()


# --- flush_f24_subnormal ---------------------------------------------------------------------


def test_flush_f24_subnormal():
    x = [2.0**-63, -(2.0**-63), -0.0, 1e-45, 2.0**-62, -(2.0**-62), 1 + 2.0**-20, math.inf]
    out = flush_f24_subnormal(x)
    assert out.dtype == np.float32
    assert out.view(np.uint32).tolist()[:4] == [0, 0, 0, 0]
    assert out.tolist()[4:] == [2.0**-62, -(2.0**-62), 1 + 2.0**-20, math.inf]  # unrounded
    assert np.isnan(flush_f24_subnormal(math.nan))
    assert float(flush_f24_subnormal(f24_to_f32(0x00FFFF))) == 0.0  # largest denormal


# --- correct encoder ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "rne", "trunc"),
    [
        (1.0, 0x3F0000, 0x3F0000),
        (-1.0, 0xBF0000, 0xBF0000),
        (-0.0, 0x000000, 0x000000),  # no negative zero on PICA
        (1 + 3 * 2.0**-17, 0x3F0002, 0x3F0001),
        (2.0**-62, 0x010000, 0x010000),
        (-(2.0**-63), 0x000000, 0x000000),
        (1e30, 0x7F0000, 0x7F0000),
        (-1e30, 0xFF0000, 0xFF0000),
        (math.inf, 0x7F0000, 0x7F0000),
        (2.0**64 - 2.0**40, 0x7F0000, 0x7EFFFF),
        (math.nan, 0x7F8000, 0x7F8000),  # default quiet NaN: payload 0x8000
    ],
)
def test_f32_to_f24_examples(value, rne, trunc):
    assert int(f32_to_f24(value)) == rne
    assert int(f32_to_f24(value, mode="truncate")) == trunc


def test_f32_to_f24_nan_payload():
    assert int(f32_to_f24(from_bits32(0x7F891A00))) == 0x7F1234
    assert int(f32_to_f24(from_bits32(0xFF800001))) == 0xFF8000  # payload forced nonzero


@pytest.mark.parametrize("mode", ["nearest-even", "truncate"])
def test_decode_encode_exhaustive(mode, all_decoded):
    # Every pattern survives except denormals and -0, which encode as +0.
    e, m = (ALL_F24 >> 16) & 0x7F, ALL_F24 & 0xFFFF
    expect = np.where(((e == 0) & (m != 0)) | (ALL_F24 == 0x800000), 0, ALL_F24)
    np.testing.assert_array_equal(f32_to_f24(all_decoded, mode), expect)


@given(st.integers(0, 0xFFFFFF))
def test_decode_then_trunc_encode_is_identity(pattern):
    if is_denormal(pattern) or is_nan_pattern(pattern) or pattern == 0x800000:
        return
    assert int(f32_to_f24(f24_to_f32(pattern), mode="truncate")) == pattern


# --- uniform packing -----------------------------------------------------------------------


def c3d_style_pack(x: int, y: int, z: int, w: int) -> tuple[int, int, int]:
    """12 little-endian bytes x|y|z|w (3 bytes each), read as 3 words, words 0 and 2 swapped."""
    raw = b"".join(v.to_bytes(3, "little") for v in (x, y, z, w))
    p0, p1, p2 = struct.unpack("<3I", raw)
    return p2, p1, p0


def test_pack_uniform_by_hand():
    # w=0x345678, z=0xDEF012, y=0x789ABC, x=0x123456 per pica-emulation.md#upload-float:
    # b0 = w<<8 | z>>16, b1 = (z & 0xFFFF)<<16 | y>>8, b2 = (y & 0xFF)<<24 | x.
    patterns = [0x123456, 0x789ABC, 0xDEF012, 0x345678]
    words = (0x345678DE, 0xF012789A, 0xBC123456)
    assert pack_f24_uniform(patterns) == words
    assert c3d_style_pack(*patterns) == words
    assert unpack_f24_uniform(*words).tolist() == patterns
    assert unpack_f24_uniform(*words).dtype == np.uint32


def test_pack_uniform_float_vector():
    # (1.0, -1.0, 0.5, 3.0) via the bit table, then pica-emulation.md#upload-float.
    assert pack_f24_uniform([0x3F0000, 0xBF0000, 0x3E0000, 0x408000]) == (
        0x408000 << 8 | 0x3E,
        0xBF00,
        0x3F0000,
    )


def test_pack_uniforms_vectorised_round_trip():
    rng = np.random.default_rng(7)
    p = rng.integers(0, 1 << 24, size=(100, 4), dtype=np.uint32)
    words = pack_f24_uniforms(p)
    assert words.shape == (100, 3) and words.dtype == np.uint32
    assert [tuple(row) for row in words.tolist()] == [c3d_style_pack(*row) for row in p.tolist()]
    np.testing.assert_array_equal(unpack_f24_uniforms(words), p)


def test_pack_uniform_errors():
    with pytest.raises(InputError):
        pack_f24_uniform([0x1000000, 0, 0, 0])
    with pytest.raises(InputError):
        pack_f24_uniform([1.0, 0.0, 0.0, 0.0])
    with pytest.raises(InputError):
        pack_f24_uniform([0, 0, 0])
    with pytest.raises(InputError):
        unpack_f24_uniform(1 << 32, 0, 0)
    with pytest.raises(InputError):
        unpack_f24_uniforms(np.zeros((2, 4), np.uint32))


def test_picasso_preimage_reaches_every_pattern():
    """The disassembler prints f24_picasso_preimage(bits) for float constants: picasso's
    encoder must map it back to the very same pattern, for all 2^24 patterns."""
    from gpuisa.floats import f24_picasso_preimage

    patterns = np.arange(1 << 24, dtype=np.uint32)
    assert np.array_equal(f32_to_f24_picasso(f24_picasso_preimage(patterns)), patterns)
    # by hand: 1.0 is 0x3F0000; the NaN pattern 0x7F0001 needs (1 + 2^-16) * 2^64
    assert f24_picasso_preimage(0x3F0000) == 1.0
    assert f24_picasso_preimage(0x7F0001) == np.float32((1 + 2**-16) * 2.0**64)
