"""Values entering the shader unit: the precision modes and the register contents made
from what a caller hands in (inputs, uniforms, initial registers).

``"f24"`` (the engines' default): registers hold float24 values, arithmetic rounds every
result to float24 (:mod:`.rules.primitives`), to nearest even or, with the rounding
``"truncate"``, toward zero (pica-emulation.md#f24-truncation).  ``"f32"``: IEEE float32
registers and arithmetic with the PICA's rules, what Azahar, Citra and 3Beans compute
(pica-emulation.md#f24-rounding).

The engines are given both as one name (:func:`precision_of`): "f24", "f24-truncate" or
"f32"; caches keyed by it keep the modes apart.

A value loaded in f24 mode is rounded once, by THE float24 rounding rule of its mode
(:func:`gpuisa.floats.round_f24`), from its exact value even when it comes as float64.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from ...errors import InputError
from ...floats import ROUNDING_MODES, RoundingMode, check_rounding, round_f24

#: The precision a caller asks for (``run(..., precision=...)``).
Precision = Literal["f24", "f32"]
PRECISIONS: tuple[str, ...] = ("f24", "f32")
#: The float24 rounding a caller asks for (``run(..., rounding=...)``).
Rounding = RoundingMode
ROUNDINGS = ROUNDING_MODES
DEFAULT_ROUNDING: Rounding = "nearest-even"
#: What an engine computes in: a precision with, for f24, its rounding mode
#: (:func:`precision_of`).
Arithmetic = Literal["f24", "f24-truncate", "f32"]


def check_precision(precision: object) -> Precision:
    if precision not in PRECISIONS:
        raise InputError(f"unknown precision {precision!r} (expected 'f24' or 'f32')")
    return precision  # type: ignore[return-value]


def precision_of(precision: object, rounding: object = DEFAULT_ROUNDING) -> Arithmetic:
    """The arithmetic of ``precision`` with the float24 rounding ``rounding``, both
    checked: "f24" (to nearest even), "f24-truncate" or "f32".  float32 arithmetic
    rounds to nearest even, as IEEE float32 does; asking it to truncate is an error."""
    precision = check_precision(precision)
    rounding = check_rounding(rounding, "rounding")
    if precision == "f32":
        if rounding != DEFAULT_ROUNDING:
            raise InputError(f"rounding={rounding!r} applies to precision 'f24' only: "
                             f"f32 arithmetic rounds to nearest even, as IEEE float32 "
                             f"does (use precision='f24', or leave rounding out)")
        return "f32"
    return "f24" if rounding == DEFAULT_ROUNDING else f"f24-{rounding}"  # type: ignore


def float24(precision: Arithmetic) -> bool:
    """Whether ``precision`` computes in float24 (either rounding)."""
    return precision != "f32"


def rounding_of(precision: Arithmetic) -> Rounding:
    """The float24 rounding of an f24 arithmetic (for "f32": IEEE's, to nearest even)."""
    return precision[4:] if precision.startswith("f24-") else DEFAULT_ROUNDING  # type: ignore


def load_floats(values: np.ndarray, precision: Arithmetic,
                out: np.ndarray | None = None) -> np.ndarray:
    """Register contents for float values handed in from outside: float24 values in f24
    mode (the one rounding rule, applied to the exact value even when it comes as
    float64, rounded by the arithmetic's mode), float32 values in f32 mode.

    Writes into ``out`` (float32, the shape of ``values``) when given and returns it.
    Large arrays are converted a block of rows at a time, so that the temporaries stay
    in the CPU's cache and 10^7 vertices need no float64 copy.
    """
    values = np.asarray(values)
    if out is None:
        out = np.empty(values.shape, np.float32)
    if values.ndim < 2:
        _load_block(values, precision, out)
        return out
    per_row = max(1, values.size // max(1, values.shape[0]))
    rows = max(1, _LOAD_BLOCK // per_row)
    for start in range(0, values.shape[0], rows):
        _load_block(values[start:start + rows], precision, out[start:start + rows])
    return out


#: Values converted at a time by :func:`load_floats`: 256 KiB of float32, which keeps
#: round_f24's temporaries in the L2 cache (about twice as fast as whole arrays).
_LOAD_BLOCK = 1 << 16
#: Dtypes whose every value is a float32 value: round_f24 sees their exact values.
_EXACT_IN_FLOAT32 = frozenset(np.dtype(t) for t in (
    np.float32, np.float16, np.int8, np.uint8, np.int16, np.uint16, np.bool_))


def _load_block(values: np.ndarray, precision: Arithmetic, out: np.ndarray) -> None:
    with np.errstate(over="ignore", invalid="ignore"):
        if not float24(precision):
            np.copyto(out, values, casting="unsafe")
        elif values.dtype in _EXACT_IN_FLOAT32:
            round_f24(values, rounding_of(precision), out=out)
        else:
            # Rounding to odd keeps what truncation needs too: the bits it keeps.
            round_f24(narrow_to_odd(values.astype(np.float64, copy=False)),
                      rounding_of(precision), out=out)


def narrow_to_odd(x: np.ndarray) -> np.ndarray:
    """float64 -> float32, rounding toward zero and setting the lowest bit when inexact.

    Rounding a float64 value to float32 to nearest and then to float24 could round twice
    (a float32 tie that the exact value does not have).  Rounding to odd keeps a sticky
    bit instead, so that :func:`~gpuisa.floats.round_f24` then rounds exactly as if it
    saw the float64 value: float32 keeps 7 bits more than float24, at least the 2 this
    needs.  (The compiled engine's form: ``compiled.lower.Lowering.round24``.)
    """
    with np.errstate(over="ignore", invalid="ignore"):
        f = x.astype(np.float32)
        back = f.astype(np.float64)
    inexact = (back != x) & np.isfinite(x)
    if inexact.any():
        away = inexact & (np.abs(back) > np.abs(x))
        f[away] = np.nextafter(f[away], np.float32(0))
        f.view(np.uint32)[inexact] |= np.uint32(1)
    return f
