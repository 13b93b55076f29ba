"""float32 helpers implementing the ALU's Direct3D 9 legacy rules (a2xx-isa.md#float-rules).

All functions take and return float32 arrays and work elementwise; sign and denormal
handling is done on the bit patterns so that it is exact (``-0.0`` stays ``-0.0``, NaN
payloads survive ``abs`` and ``negate``).
"""

from __future__ import annotations

import numpy as np

F32 = np.float32
FLT_MAX = F32(np.finfo(np.float32).max)
ZERO = F32(0.0)
ONE = F32(1.0)

_SIGN = np.uint32(0x80000000)
_EXPONENT = np.uint32(0x7F800000)


def as_bits(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)


def flush_denormals(x: np.ndarray) -> np.ndarray:
    """Denormals become a zero of the same sign; everything else is unchanged."""
    bits = as_bits(x)
    return np.where(bits & _EXPONENT, bits, bits & _SIGN).view(np.float32)


def modify(x: np.ndarray, *, absolute: bool, negate: bool) -> np.ndarray:
    """An operand as the ALU reads it: denormal flush, then abs, then negate (XE-I)."""
    bits = as_bits(flush_denormals(x))
    if absolute:
        bits = bits & ~_SIGN
    if negate:
        bits = bits ^ _SIGN
    return bits.view(np.float32)


def legacy_mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a * b, except that a zero operand gives +0 whatever the other one is (even inf/NaN)."""
    return np.where((a == 0) | (b == 0), ZERO, a * b).astype(np.float32)


def legacy_max(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a >= b ? a : b``: max(NaN, b) = b."""
    return np.where(a >= b, a, b)


def legacy_min(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a < b ? a : b``: min(NaN, b) = b."""
    return np.where(a < b, a, b)


def saturate(x: np.ndarray) -> np.ndarray:
    """Clamp to [0, 1] the way D3D's saturate does: NaN and -0 become +0."""
    return np.where(x > 0, np.minimum(x, ONE), ZERO).astype(np.float32)


def as_float(condition: np.ndarray) -> np.ndarray:
    """1.0 where ``condition`` holds, else 0.0."""
    return condition.astype(np.float32)


def half_to_float(bits: np.ndarray, *, xenos: bool) -> np.ndarray:
    """Decode 16-bit floats; ``xenos``: exponent 31 is an ordinary exponent (no inf/NaN)."""
    bits = bits.astype(np.uint32) & 0xFFFF
    if not xenos:
        return bits.astype(np.uint16).view(np.float16).astype(np.float32)
    sign = np.where(bits & 0x8000, F32(-1.0), F32(1.0))
    exponent = ((bits >> 10) & 0x1F).astype(np.int32)
    mantissa = (bits & 0x3FF).astype(np.float32)
    normal = np.ldexp(F32(1.0) + mantissa / F32(1024.0), exponent - 15)
    subnormal = np.ldexp(mantissa, -24)
    return (sign * np.where(exponent == 0, subnormal, normal)).astype(np.float32)
