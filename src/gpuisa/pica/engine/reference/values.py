"""Register values between float32 arrays and the Python floats the reference computes on.

A float32 value becomes the Python float of the same value; a NaN keeps its sign and its
payload widened (float32 mantissa bit ``i`` becomes float64 bit ``i + 29``), so that a
signalling NaN stays signalling: NumPy's own float32 -> float64 conversion would quiet
it, and MOV, MIN and MAX must pass it on unchanged (see :mod:`..rules.primitives`).
"""

from __future__ import annotations

import numpy as np

_ABS32 = np.uint32(0x7FFFFFFF)
_INF32 = np.uint32(0x7F800000)


def widen(values: np.ndarray) -> np.ndarray:
    """float32 values as float64, NaN payloads widened bit for bit."""
    values = np.asarray(values, dtype=np.float32)
    with np.errstate(invalid="ignore"):
        out = values.astype(np.float64)
    bits = values.view(np.uint32)
    nan = (bits & _ABS32) > _INF32
    if nan.any():
        u = bits[nan].astype(np.uint64)
        out.view(np.uint64)[nan] = (((u >> np.uint64(31)) << np.uint64(63))
                                    | np.uint64(0x7FF0000000000000)
                                    | ((u & np.uint64(0x7FFFFF)) << np.uint64(29)))
    return out


def narrow(values: np.ndarray) -> np.ndarray:
    """The inverse of :func:`widen` for float64 values that hold float32 values."""
    values = np.asarray(values, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        out = values.astype(np.float32)
    nan = np.isnan(values)
    if nan.any():
        u = values.view(np.uint64)[nan]
        out.view(np.uint32)[nan] = (((u >> np.uint64(63)) << np.uint64(31))
                                    | np.uint64(0x7F800000)
                                    | ((u >> np.uint64(29)) & np.uint64(0x7FFFFF))
                                    ).astype(np.uint32)
    return out
