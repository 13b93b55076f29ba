"""The JIT engine's input loader: :func:`.loading.load_floats` for f24 over all cores.

Converting 10^6 vertices to float24 with NumPy costs about as much as running a small
shader on the JIT (``benchmarks``), so the JIT engine converts float32 and float64
inputs with the JIT's own rounding rule, :func:`.intrinsics.round24` on the exact
float64 value — the rule ``tests/pica/engine/test_jit_rules.py`` proves equal to
load_floats.  NaN inputs are the exception: converting a float32 NaN to float64 quiets
it, while load_floats keeps a signalling NaN's payload bits, so the kernel reports NaNs
and :func:`load` converts those with load_floats itself.  Everything else (f32 mode,
other dtypes) goes to load_floats.

Only imported when Numba is installed.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import njit

from ..loading import Arithmetic, load_floats
from . import cache  # noqa: F401  (first: drops stale compiled code)
from . import intrinsics as R

#: Rows converted per thread below which one thread does all the work.
_MIN_ROWS_PER_THREAD = 1 << 15
_FAST_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


@njit(nogil=True, cache=True, error_model="numpy")
def _round_rows(values, out, lo, hi):
    """Rows ``lo .. hi - 1`` of ``values`` rounded to float24 into ``out``; returns
    whether any value was NaN (those are left for load_floats)."""
    nan = False
    for i in range(lo, hi):
        for c in range(values.shape[1]):
            x = np.float64(values[i, c])
            nan |= x != x
            out[i, c] = R.store(R.round24(x))
    return nan


@njit(nogil=True, cache=True, error_model="numpy")
def _round_flat(values, out, lo, hi):
    """:func:`_round_rows` for C-contiguous arrays: one loop over the elements of rows
    ``lo .. hi - 1``, which LLVM vectorizes (2.5 times as fast)."""
    flat = values[lo:hi].reshape(-1)
    flat_out = out[lo:hi].reshape(-1)
    nan = 0
    for i in range(flat.shape[0]):
        x = np.float64(flat[i])
        nan += x != x
        flat_out[i] = R.store(R.round24(x))
    return nan > 0


def load(values: np.ndarray, precision: Arithmetic, out: np.ndarray,
         in_parallel: Callable[..., list] | None = None) -> None:
    """``load_floats(values, precision, out)``; ``in_parallel(work, count, minimum)``
    (:func:`.jit.in_parallel`) spreads the rows over threads."""
    # f32, and f24's truncating rounding (this loader rounds to nearest even only)
    if precision != "f24" or values.dtype not in _FAST_DTYPES or values.ndim != 2:
        load_floats(values, precision, out)
        return
    rows = values.shape[0]
    if values.flags.c_contiguous and out.flags.c_contiguous:
        def work(lo: int, hi: int) -> bool:
            return _round_flat(values, out, lo, hi)
    else:
        def work(lo: int, hi: int) -> bool:
            return _round_rows(values, out, lo, hi)
    if in_parallel is None:
        nan = work(0, rows)
    else:
        nan = any(in_parallel(work, rows, _MIN_ROWS_PER_THREAD))
    if nan:
        where = np.isnan(values)
        out[where] = load_floats(values[where], precision)
