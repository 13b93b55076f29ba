"""EX2 and LG2 in f32 mode: 2^x and log2(x) of a float32, correctly rounded to float32
(pica-emulation.md#f32-ex2-lg2).

Emulators that compute in float32 call the C library's ``exp2f``/``log2f`` (Azahar and
Citra: ``std::exp2``/``std::log2`` of a float), and libraries differ in the last place:
over 20,000 random inputs each (2026-11-27), glibc 2.36 differed from the correctly
rounded result on 5 EX2 and 3 LG2 inputs, NumPy's float32 loops on 4,145 and 93.  The
one result no library decides is the correctly rounded one, so that is the f32 rule.

It is computed as the float64 function (NumPy's loop, whose error is far below
:data:`TOLERANCE`) rounded once to float32.  That rounding is the correctly rounded
result unless the float64 value lies within :data:`TOLERANCE` of a boundary between two
float32 results (a midpoint, or the overflow threshold); those inputs (none among the
40,000 above) are decided exactly with :mod:`decimal` at 60 digits.  Decimal's ``exp``
and ``ln`` are correctly rounded at that precision, far more than any such boundary
needs: 2^x and log2 x are irrational at every float32 x where they are not powers of two
or integers (Gelfond-Schneider, Lindemann), and those are taken exactly, so the only
value on a boundary is 2^-150, halfway between 0 and the least subnormal.

NaN inputs give what NumPy's float32 loops give (the input, quieted), and LG2 reads -0
as +0, as before.
"""

from __future__ import annotations

import decimal
import math

import numpy as np

#: Relative distance from a float32 rounding boundary within which the float64 value is
#: not trusted to be on the right side of it (float64 exp2/log2 are accurate to about
#: 2^-52; this leaves a margin of 4,096 units).
TOLERANCE = 2.0**-40
#: The largest float32 and the boundary above which values round to infinity.
F32_MAX = float(np.finfo(np.float32).max)
OVERFLOW = F32_MAX + 2.0**103
_CONTEXT = decimal.Context(prec=60)
#: Integer exponents whose powers of two are float64 values.
_EXACT_POWERS = (-1074, 1023)
_LN2 = _CONTEXT.ln(decimal.Decimal(2))


def ex2_32(x: float) -> float:
    """2^x of the float32 ``x``, correctly rounded to float32."""
    if math.isnan(x):
        return unit(np.exp2, np.float32(x))
    return _rounded(unit(np.exp2, np.float64(x)), lambda: _exp2(x))


def lg2_32(x: float) -> float:
    """log2 of the float32 ``x`` (-0 read as +0), correctly rounded to float32."""
    if math.isnan(x):
        return unit(np.log2, np.float32(x))
    x = 0.0 if x == 0.0 else x
    return _rounded(unit(np.log2, np.float64(x)), lambda: _log2(x))


def ambiguous(wide: float) -> bool:
    """Whether the float64 value ``wide`` is too close to a float32 rounding boundary
    for rounding it to stand for rounding the exact value."""
    size = abs(wide)
    if not math.isfinite(size) or size == 0.0:
        return False
    if abs(size - OVERFLOW) <= TOLERANCE * size:
        return True
    rounded = float(np.float32(size)) if size < OVERFLOW else F32_MAX
    # the boundaries around the rounded value: halfway to each float32 neighbour
    with np.errstate(over="ignore"):  # the neighbour of the largest float32 is inf
        up = float(np.nextafter(np.float32(rounded), np.float32(np.inf)))
    down = float(np.nextafter(np.float32(rounded), np.float32(0.0)))
    nearest = min(abs(size - (rounded + up) / 2), abs(size - (rounded + down) / 2))
    return nearest <= TOLERANCE * size


def _rounded(wide: float, exact) -> float:
    """``wide`` rounded to float32, or ``exact()`` (a Decimal) rounded when ``wide`` is
    :func:`ambiguous`."""
    if not ambiguous(wide):
        with np.errstate(over="ignore"):
            return float(np.float32(wide))
    return round_decimal(exact())


def round_decimal(value: decimal.Decimal) -> float:
    """``value`` rounded to the nearest float32, ties to even, infinity at and beyond
    the overflow boundary (every comparison exact: Decimal compares without rounding,
    and float32 values and their midpoints are exact float64 values)."""
    exact = decimal.Decimal
    sign = -1.0 if value < 0 else 1.0
    size = value.copy_abs()  # abs() would round to the context's precision
    if size >= exact(OVERFLOW):  # the tie at the boundary goes to even: infinity
        return sign * math.inf
    with np.errstate(over="ignore"):  # just below the boundary: inf, stepped down
        low = np.float32(float(size))
    while exact(float(low)) > size:
        low = np.nextafter(low, np.float32(0.0))
    with np.errstate(over="ignore"):
        high = np.nextafter(low, np.float32(np.inf))
    if exact(float(low)) == size:
        return sign * float(low)
    middle = exact(OVERFLOW if math.isinf(high) else (float(low) + float(high)) / 2)
    if size < middle or (size == middle and not _odd(float(low))):
        return sign * float(low)
    return sign * float(high)


def _odd(value: float) -> bool:
    """Whether a float32's last mantissa bit is set (ties go to the even one)."""
    return bool(int(np.float32(value).view(np.uint32)) & 1)


def _exp2(x: float) -> decimal.Decimal:
    if x == int(x) and _EXACT_POWERS[0] <= x <= _EXACT_POWERS[1]:
        return decimal.Decimal(math.ldexp(1.0, int(x)))  # exact (2^-150 is a tie)
    return _CONTEXT.exp(_CONTEXT.multiply(decimal.Decimal(x), _LN2))


def _log2(x: float) -> decimal.Decimal:
    return _CONTEXT.divide(_CONTEXT.ln(decimal.Decimal(x)), _LN2)


def unit(ufunc, value: np.floating) -> float:
    """A NumPy ufunc on one value (of its precision), without floating-point warnings."""
    with np.errstate(all="ignore"):
        return float(ufunc(value))
