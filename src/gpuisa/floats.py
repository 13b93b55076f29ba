"""The PICA200's small floating-point formats: float24, float20, float16.

This module is the single home of float24 number rules in gpuisa; emulators, the assembler
and the container code call it instead of re-deriving bit layouts.

float24 (shbin-format.md#f24-constants, pica-emulation.md#float24): sign = bit 23, exponent =
bits 16-22 (bias 63), mantissa = bits 0-15 with an implicit leading 1.  Smallest normal
2^-62, largest finite (2 - 2^-16) * 2^63.  float20 (7 exponent bits, bias 63, 12 mantissa
bits) and float16 (IEEE half layout) follow the same conventions and share one decoder.

Everything is vectorised: functions accept a scalar, a sequence or an array and return an
``np.ndarray`` of the input's shape (a 0-d array for scalar input).  Bit patterns are
``uint32`` arrays, values are ``float32`` arrays; all conversions work on ``uint32`` views,
so they are exact and free of Python loops.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import numpy.typing as npt

from .errors import InputError

#: float24's rounding modes (pica-emulation.md#f24-rounding): to nearest, ties to even (the
#: default), or toward zero, the conversion of Citra PR #7372.
RoundingMode = Literal["nearest-even", "truncate"]
ROUNDING_MODES: tuple[str, ...] = ("nearest-even", "truncate")

F24_EXP_BITS = 7
F24_MAN_BITS = 16
F24_BIAS = 63
F24_MASK = 0xFFFFFF
F24_SIGN = 0x800000
F24_INF = 0x7F0000  # +infinity pattern; OR with F24_SIGN for -infinity
F24_MIN_NORMAL = 2.0**-62
F24_MAX = (2.0 - 2.0**-16) * 2.0**63

# float32 bit patterns used by the bit-level rounding below.
_F32_SIGN = np.uint32(0x80000000)
_F32_ABS = np.uint32(0x7FFFFFFF)
_F32_INF = np.uint32(0x7F800000)
_F32_QUIET = np.uint32(0x00400000)
#: The float32 bits of 2^-62 (float24's least normal magnitude) and of 2^64 (the first
#: magnitude beyond F24_MAX), and the float32 mantissa bits float24 lacks.
F32_F24_MIN_BITS = (127 - 62) << 23
F32_F24_OVER_BITS = (127 + 64) << 23
F32_DROPPED_BITS = 23 - F24_MAN_BITS
_F32_F24_MIN = np.uint32(F32_F24_MIN_BITS)
_F32_F24_OVER = np.uint32(F32_F24_OVER_BITS)
_F32_DROP = np.uint32(~((1 << F32_DROPPED_BITS) - 1) & 0xFFFFFFFF)


def check_rounding(mode: object, option: str = "mode") -> RoundingMode:
    """``mode`` if it is one of :data:`ROUNDING_MODES`; else an InputError naming the
    option ``option`` and the values it takes."""
    if not isinstance(mode, str) or mode not in ROUNDING_MODES:
        raise InputError(f"unknown float24 rounding: {option}={mode!r} (expected "
                         f"{' or '.join(repr(m) for m in ROUNDING_MODES)})")
    return mode  # type: ignore[return-value]


def _bit_patterns(bits: npt.ArrayLike, width: int, what: str) -> np.ndarray:
    """``bits`` as a uint32 array of the same shape, masked to ``width`` bits."""
    arr = np.asarray(bits)
    if arr.size == 0:
        return arr.astype(np.uint32)
    if arr.dtype.kind not in "iu":
        raise InputError(f"{what} expects integer bit patterns, got dtype {arr.dtype}")
    if arr.dtype.kind == "i" or arr.dtype.itemsize > 4:
        # Via uint64 so negative or wide integers wrap instead of overflowing the mask.
        arr = arr.astype(np.uint64) & np.uint64(0xFFFFFFFF)
    return np.asarray(arr.astype(np.uint32) & np.uint32((1 << width) - 1), dtype=np.uint32)


def _float32(values: npt.ArrayLike, what: str) -> np.ndarray:
    """``values`` as a float32 array; wider floats round to nearest even, as a C cast does."""
    arr = np.asarray(values)
    if arr.size and arr.dtype.kind not in "fiu":
        raise InputError(f"{what} expects real numbers, got dtype {arr.dtype}")
    with np.errstate(over="ignore"):
        return arr.astype(np.float32, copy=False)


def _decode_small_float(bits: npt.ArrayLike, exp_bits: int, man_bits: int) -> np.ndarray:
    """Exact float32 value of sign/exponent/mantissa patterns with bias 2^(exp_bits-1) - 1.

    e = 0 decodes to the exact denormal value m * 2^(1 - bias - man_bits) (a normal float32
    for every format here); e = max is infinity (m = 0) or NaN with payload m kept.
    """
    b = _bit_patterns(bits, 1 + exp_bits + man_bits, f"float{1 + exp_bits + man_bits} decode")
    shape = b.shape
    b = b.reshape(-1)
    e_max = (1 << exp_bits) - 1
    bias = e_max >> 1
    shift = 23 - man_bits
    e = (b >> man_bits) & np.uint32(e_max)
    m = b & np.uint32((1 << man_bits) - 1)
    # Normal numbers first, in place (this runs on all 2^24 patterns in tests and tools),
    # then patch the rare e = 0 and e = max patterns through boolean indexing.
    out = e + np.uint32(127 - bias)
    out <<= 23
    out |= m << shift
    special = e == e_max
    out[special] = _F32_INF | (m[special] << shift)
    tiny = e == 0
    out[tiny] = (m[tiny].astype(np.float32) * np.float32(2.0 ** (1 - bias - man_bits))).view(
        np.uint32
    )
    out |= (b >> (exp_bits + man_bits)) << 31
    return out.reshape(shape).view(np.float32)


def f24_to_f32(bits: npt.ArrayLike) -> np.ndarray:
    """Exact float32 values of float24 patterns (bits above bit 23 are ignored).

    Denormal patterns decode to their exact value m * 2^-78; flushing them is the job of
    the consuming instruction (:func:`flush_f24_subnormal`).  NaN payloads are kept.
    """
    return _decode_small_float(bits, F24_EXP_BITS, F24_MAN_BITS)


def f20_to_f32(bits: npt.ArrayLike) -> np.ndarray:
    """Exact float32 values of float20 patterns (1 sign, 7 exponent bits bias 63, 12 mantissa)."""
    return _decode_small_float(bits, 7, 12)


def f16_to_f32(bits: npt.ArrayLike) -> np.ndarray:
    """Exact float32 values of float16 patterns (IEEE half layout: 5 exponent bits, bias 15)."""
    return _decode_small_float(bits, 5, 10)


def f32_to_f24_picasso(values: npt.ArrayLike) -> np.ndarray:
    """float24 patterns exactly as picasso's truncating encoder writes them
    (shbin-format.md#f24-constants).

    Values are first rounded to float32 (picasso parses with atof and stores a float).
    mantissa24 = mantissa32 >> 7; e24 = e32 - 64; e24 < 0 gives a signed zero (-0.0 ->
    0x800000); e24 > 127 (including float32 inf and NaN) gives a signed infinity.  Inputs in
    [2^64, 2^65) get e24 = 127 with their mantissa and e24 = 0 keeps the mantissa: the
    resulting NaN and denormal patterns are what picasso writes, so the SHBIN writer must
    reproduce them.
    """
    u = _float32(values, "f32_to_f24_picasso").view(np.uint32)
    sign = (u >> 31) << 23
    e24 = ((u >> 23) & np.uint32(0xFF)).astype(np.int32) - 64
    packed = (e24.astype(np.uint32) << 16) | ((u >> 7) & np.uint32(0xFFFF))
    out = np.where(e24 < 0, 0, np.where(e24 > 127, F24_INF, packed)) | sign
    return np.asarray(out, dtype=np.uint32)


def f24_picasso_preimage(bits: npt.ArrayLike) -> np.ndarray:
    """A float32 that :func:`f32_to_f24_picasso` encodes to exactly ``bits``.

    Because picasso's encoder truncates and re-biases without special cases, every
    24-bit pattern has one: sign<<31 | (e24 + 64)<<23 | m<<7.  NaN patterns map to finite
    values in [2^64, 2^65), denormal patterns to values in [2^-63, 2^-62); the
    disassembler prints these so that its constants assemble back bit for bit.
    """
    b = _bit_patterns(bits, 24, "f24_picasso_preimage")
    sign = (b >> 23) << 31
    exponent = ((b >> 16) & np.uint32(0x7F)) + np.uint32(64)
    out = sign | (exponent << 23) | ((b & np.uint32(0xFFFF)) << 7)
    return np.asarray(out, dtype=np.uint32).view(np.float32)


def round_f24(
    x: npt.ArrayLike, mode: RoundingMode = "nearest-even", *, out: np.ndarray | None = None
) -> np.ndarray:
    """Round float32 values to the nearest float24 value: THE float24 rounding rule.

    This is the single rounding function of gpuisa; the f24 emulator applies it after every
    arithmetic operation and :func:`f32_to_f24` uses it too.  Steps, on uint32 views:

    * the mantissa is rounded to 16 bits, to nearest even (``"nearest-even"``) or toward
      zero (``"truncate"``: the low bits are cleared); a carry may bump the exponent;
    * a magnitude below 2^-62 after rounding becomes +0 (this covers -0 and float32
      subnormals: the PICA has no negative zero and no subnormals);
    * a magnitude above :data:`F24_MAX` after rounding (i.e. >= 2^64) becomes +-infinity;
    * infinities stay; NaN stays NaN with its sign and the top 16 payload bits (set to the
      quiet bit if they are all zero, so the result is still a NaN).

    Every result is exactly the :func:`f24_to_f32` decode of some float24 pattern.  Returns a
    new float32 array, or writes into ``out`` (a float32 array of the same shape, which may
    be ``x`` itself) and returns it.
    """
    check_rounding(mode)
    f = _float32(x, "round_f24")
    if out is not None and (
        not isinstance(out, np.ndarray) or out.dtype != np.float32 or out.shape != f.shape
    ):
        raise InputError(f"round_f24: out must be a float32 array of shape {f.shape}")
    # Flat 1-d work arrays, so that 0-d input still gets arrays (np.copyto needs them).
    u = f.reshape(-1).view(np.uint32)
    sign = u & _F32_SIGN
    r = u & _F32_ABS
    nan = r > _F32_INF
    payload = (r & np.uint32(0x007FFF80)) if nan.any() else None
    if mode == "nearest-even":
        # Adding 0x3F plus the lowest kept bit rounds half to even; carries ripple upward.
        r += (r >> 7) & np.uint32(1)
        r += np.uint32(0x3F)
    r &= _F32_DROP
    np.copyto(r, _F32_INF, where=r >= _F32_F24_OVER)
    if payload is not None:
        np.copyto(payload, _F32_QUIET, where=payload == 0)
        np.copyto(r, _F32_INF | payload, where=nan)
    tiny = r < _F32_F24_MIN
    r |= sign
    np.copyto(r, np.uint32(0), where=tiny)
    if out is None:
        return r.reshape(f.shape).view(np.float32)
    out.view(np.uint32)[...] = r.reshape(f.shape)
    return out


def flush_f24_subnormal(x: npt.ArrayLike) -> np.ndarray:
    """Arithmetic-input flushing: 0 < |x| < 2^-62 and -0 become +0, all else is unchanged.

    3dbrew: "Input and output subnormals are flushed to +0" and there is no negative zero.
    """
    u = _float32(x, "flush_f24_subnormal").view(np.uint32)
    out = np.where((u & _F32_ABS) < _F32_F24_MIN, np.uint32(0), u)
    return np.asarray(out, dtype=np.uint32).view(np.float32)


def f32_to_f24(values: npt.ArrayLike, mode: RoundingMode = "nearest-even") -> np.ndarray:
    """Correctly rounded float24 patterns of ``values`` (float64 is first rounded to float32).

    Rounding is :func:`round_f24`: overflow gives infinity, magnitudes below 2^-62 after
    rounding give +0 (so -0 encodes as 0x000000), NaN stays NaN with the top 16 float32
    payload bits (forced nonzero).  Use :func:`f32_to_f24_picasso` to match picasso's output.
    """
    r = round_f24(values, mode).view(np.uint32)
    mag = r & _F32_ABS
    # r's exponent is 0 (for +0), 65..190 (finite) or 255 (inf/NaN); its low 7 bits are 0.
    rebias = np.where(mag >= _F32_INF, np.uint32(128 << 16), np.uint32(64 << 16))
    out = np.where(mag == 0, np.uint32(0), (mag >> 7) - rebias) | ((r >> 31) << 23)
    return np.asarray(out, dtype=np.uint32)


def pack_f24_uniforms(patterns: npt.ArrayLike) -> np.ndarray:
    """Pack (N, 4) float24 patterns (x, y, z, w) into (N, 3) upload words
    (pica-emulation.md#upload-float).

    Four float24 values travel in three words, w first: b0 = w:z[23:16], b1 = z[15:0]:y[23:8],
    b2 = y[7:0]:x.  Patterns must fit 24 bits.  Any (..., 4) shape works.
    """
    p = np.asarray(patterns)
    if p.ndim == 0 or p.shape[-1] != 4 or (p.size and p.dtype.kind not in "iu"):
        raise InputError(
            f"pack_f24_uniforms expects integer patterns of shape (..., 4), got "
            f"shape {p.shape} dtype {p.dtype}"
        )
    if p.size and (p.min() < 0 or p.max() > F24_MASK):
        raise InputError("pack_f24_uniforms: float24 patterns must be in 0..0xFFFFFF")
    x, y, z, w = (p[..., i].astype(np.uint32) for i in range(4))
    b0 = (w << 8) | (z >> 16)
    b1 = ((z & np.uint32(0xFFFF)) << 16) | (y >> 8)
    b2 = ((y & np.uint32(0xFF)) << 24) | x
    return np.stack([b0, b1, b2], axis=-1)


def unpack_f24_uniforms(words: npt.ArrayLike) -> np.ndarray:
    """Inverse of :func:`pack_f24_uniforms`: (..., 3) words to (..., 4) patterns (x, y, z, w)."""
    b = np.asarray(words)
    if b.ndim == 0 or b.shape[-1] != 3 or (b.size and b.dtype.kind not in "iu"):
        raise InputError(
            f"unpack_f24_uniforms expects integer words of shape (..., 3), got "
            f"shape {b.shape} dtype {b.dtype}"
        )
    if b.size and (b.min() < 0 or b.max() > 0xFFFFFFFF):
        raise InputError("unpack_f24_uniforms: words must be in 0..0xFFFFFFFF")
    b0, b1, b2 = (b[..., i].astype(np.uint32) for i in range(3))
    w = b0 >> 8
    z = ((b0 & np.uint32(0xFF)) << 16) | (b1 >> 16)
    y = ((b1 & np.uint32(0xFFFF)) << 8) | (b2 >> 24)
    x = b2 & np.uint32(F24_MASK)
    return np.stack([x, y, z, w], axis=-1)


def pack_f24_uniform(values: npt.ArrayLike) -> tuple[int, int, int]:
    """The three upload words (b0, b1, b2) for one vector of float24 patterns (x, y, z, w)."""
    p = np.asarray(values)
    if p.shape != (4,):
        raise InputError(f"pack_f24_uniform expects 4 float24 patterns, got shape {p.shape}")
    b0, b1, b2 = (int(v) for v in pack_f24_uniforms(p))
    return b0, b1, b2


def unpack_f24_uniform(w0: int, w1: int, w2: int) -> np.ndarray:
    """The float24 patterns (x, y, z, w), as a uint32 array of 4, carried by three words."""
    try:
        words = np.array([w0, w1, w2])
    except (OverflowError, TypeError, ValueError) as exc:
        raise InputError(f"unpack_f24_uniform: words must be 32-bit integers ({exc})") from None
    return unpack_f24_uniforms(words)
