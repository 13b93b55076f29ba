"""NumPy's own EX2/LG2 inner loops, found by their C function pointers.

EX2 and LG2 are defined as NumPy's ``exp2``/``log2`` (``rules.primitives.ex2_24`` etc.:
on some machines NumPy's SIMD code differs from the C library in the last bit), so the
compiled kernels call NumPy's inner loops directly.  Kernels receive the table of
addresses as an argument, never as a constant in their code.  :data:`LOOPS_OK` says
whether calling them directly gives exactly what the ufuncs give (checked once, through
ctypes); where it does not, programs using EX2/LG2 run on the reference engine.
"""

from __future__ import annotations

import ctypes

import numpy as np


class _UFuncObject(ctypes.Structure):
    """The leading fields of NumPy's public ``PyUFuncObject`` (``ufuncobject.h``)."""

    _fields_ = [
        ("ob_refcnt", ctypes.c_ssize_t),
        ("ob_type", ctypes.c_void_p),
        ("nin", ctypes.c_int),
        ("nout", ctypes.c_int),
        ("nargs", ctypes.c_int),
        ("identity", ctypes.c_int),
        ("functions", ctypes.POINTER(ctypes.c_void_p)),
        ("data", ctypes.POINTER(ctypes.c_void_p)),
        ("ntypes", ctypes.c_int),
        ("reserved1", ctypes.c_int),
        ("name", ctypes.c_char_p),
        ("types", ctypes.POINTER(ctypes.c_char)),
    ]


def _inner_loop(ufunc: np.ufunc, dtype: type) -> int:
    """The address of the first inner loop of a unary ufunc for ``dtype -> dtype`` (the
    one NumPy's type resolution picks), or 0 if the object does not look as expected."""
    try:
        record = _UFuncObject.from_address(id(ufunc))
        if record.nin != 1 or record.nout != 1 or record.ntypes != ufunc.ntypes:
            return 0
        code = np.dtype(dtype).num
        for i in range(record.ntypes):
            if record.types[2 * i][0] == code and record.types[2 * i + 1][0] == code:
                pointer = record.functions[i]
                data = record.data[i]
                # Only loops that ignore their data pointer are safe to call with none.
                return int(pointer) if pointer and not data else 0
    except (ValueError, TypeError, AttributeError):
        return 0
    return 0


#: The addresses of NumPy's exp2/log2 inner loops (float64, float64, float32, float32).
NATIVE_LOOPS = np.array([_inner_loop(np.exp2, np.float64), _inner_loop(np.log2, np.float64),
                         _inner_loop(np.exp2, np.float32), _inner_loop(np.log2, np.float32)],
                        dtype=np.int64)
#: The ufunc and type of each entry of :data:`NATIVE_LOOPS`.
LOOP_UFUNCS = ((np.exp2, np.float64), (np.log2, np.float64), (np.exp2, np.float32),
               (np.log2, np.float32))
_LOOP = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                         ctypes.c_void_p)


def call_loop(index: int, values: np.ndarray) -> np.ndarray:
    """Inner loop ``index`` of :data:`NATIVE_LOOPS` called directly on ``values``."""
    dtype = LOOP_UFUNCS[index][1]
    source = np.ascontiguousarray(values, dtype)
    result = np.empty_like(source)
    pointers = np.array([source.ctypes.data, result.ctypes.data], np.int64)
    counts = np.array([source.size, source.itemsize, source.itemsize], np.int64)
    _LOOP(int(NATIVE_LOOPS[index]))(pointers.ctypes.data, counts.ctypes.data,
                                    counts.ctypes.data + 8, None)
    return result


def _verified() -> bool:
    """Whether calling the loops directly gives exactly what the ufuncs give."""
    if not NATIVE_LOOPS.all():
        return False
    rng = np.random.default_rng(5)
    special = [0.0, -0.0, 1.0, -1.0, 0.5, 3.0, 127.9, 128.0, 200.0, -150.0, -1e30, 1e30,
               np.inf, -np.inf, np.nan, 2.0**-62, 2.0**-100]
    with np.errstate(all="ignore"):
        for index, (ufunc, dtype) in enumerate(LOOP_UFUNCS):
            values = np.concatenate([np.array(special), rng.uniform(-140, 140, 200),
                                     np.exp2(rng.uniform(-70, 70, 200))]).astype(dtype)
            width = f"u{values.itemsize}"
            if not np.array_equal(call_loop(index, values).view(width),
                                  ufunc(values).view(width)):
                return False
    return True


#: Whether EX2 and LG2 can be computed exactly like the reference engine.
LOOPS_OK = _verified()
