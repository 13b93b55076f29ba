"""The compiled engine's input loader on LLVM: :func:`..loading.load_floats` for f24,
over all cores.

Converting 10^6 vertices to float24 with NumPy costs about as much as running a small
shader, so float32 and float64 inputs are rounded by a small LLVM kernel made of
``Lowering.round24`` (float32 inputs: ``Lowering.round24_32``, the same rule on
float32's bits) in the run's rounding mode (the rule ``tests/pica/engine/test_lowering.py``
proves equal to ``primitives.round24`` and ``trunc24``, themselves proven equal to
load_floats' ``floats.round_f24``; ``test_loading.py`` compares this loader with
load_floats in both modes).  NaN
inputs are the exception: neither rule keeps a NaN's payload as load_floats does
(``round24_32`` leaves NaNs out, and widening a float32 NaN to float64 quiets it), so
the kernel reports NaNs and :func:`load` converts those with load_floats itself.
Everything else (f32 mode, other dtypes, arrays that are not C-contiguous) goes to
load_floats.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from ..loading import Arithmetic, float24, load_floats, rounding_of
from . import textir as ir
from .irtypes import F32, F64, I8, I32, I64
from .llvmjit import Compiled, address, compile_cached
from .lower import Lowering

#: Elements converted per thread below which one thread does all the work.
_MIN_PER_THREAD = 1 << 17
_WIDTH = 8


@functools.cache
def _kernel(dtype: np.dtype, rounding: str) -> Compiled:
    """``run(lo, hi, args)``: elements lo .. hi - 1 of ``args[0]`` (``dtype``) rounded
    to float24 by ``rounding`` into ``args[1]`` (float32); ``args[2]`` (a byte) set if
    one was NaN."""
    return compile_cached(f"pica float24 loader\n{dtype.str}\n{rounding}",
                          lambda: _module(dtype, rounding))


def _module(dtype: np.dtype, rounding: str) -> ir.Module:
    """The IR of :func:`_kernel`."""
    source = F32 if dtype == np.float32 else F64
    module = ir.Module(name="gpuisa_pica_loader")
    run = ir.Function(module, ir.FunctionType(ir.VoidType(), [I64, I64, I64.as_pointer()]),
                      "run")
    lo, hi, args = run.args
    b = ir.IRBuilder(run.append_basic_block("entry"))

    def pointer(k: int, kind: ir.Type) -> ir.Value:
        return b.inttoptr(b.load(b.gep(args, [ir.Constant(I32, k)])), kind.as_pointer())

    values, out, flag = pointer(0, source), pointer(1, F32), pointer(2, I8)
    counter = b.alloca(I64)
    b.store(lo, counter)
    # float32 values are rounded on their own bits, 16 to a vector (Lowering.round24_32)
    for width in ((2 * _WIDTH if source is F32 else _WIDTH), 1):
        L = Lowering(b, width, rounding=rounding)
        test, body, done = (run.append_basic_block(f"{name}{width}")
                            for name in ("test", "body", "done"))
        b.branch(test)
        b.position_at_end(test)
        i = b.load(counter)
        b.cbranch(b.icmp_signed("<=", b.add(i, ir.Constant(I64, width)), hi), body, done)
        b.position_at_end(body)
        kind = L.lanes(source)
        x = b.load(b.bitcast(b.gep(values, [i]), kind.as_pointer()), align=4)
        rounded = L.round24_32(x) if source is F32 else L.store24(L.round24(x))
        b.store(rounded, b.bitcast(b.gep(out, [i]), L.f32.as_pointer()), align=4)
        nan = L.is_nan(x)
        if width > 1:
            nan = b.icmp_unsigned("!=", b.bitcast(nan, ir.IntType(width)),
                                  ir.Constant(ir.IntType(width), 0))
        with b.if_then(nan, likely=False):
            b.store(ir.Constant(I8, 1), flag)
        b.store(b.add(i, ir.Constant(I64, width)), counter)
        b.branch(test)
        b.position_at_end(done)
    b.ret_void()
    return module


def load(values: np.ndarray, precision: Arithmetic, out: np.ndarray,
         in_parallel: Callable[..., list] | None = None) -> None:
    """``load_floats(values, precision, out)``; ``in_parallel(work, count, minimum)``
    spreads the elements over threads."""
    if (not float24(precision) or values.dtype not in (np.dtype(np.float32), np.dtype(np.float64))
            or not (values.flags.c_contiguous and out.flags.c_contiguous)
            or out.dtype != np.float32 or values.shape != out.shape):
        load_floats(values, precision, out)
        return
    kernel = _kernel(values.dtype, rounding_of(precision))
    args = np.zeros(4, np.int64)  # word 3 holds the NaN flag (one allocation, not two)
    table = address(args)
    args[:3] = address(values), address(out), table + 3 * args.itemsize
    function = kernel.function
    count = values.size
    if in_parallel is None or count < 2 * _MIN_PER_THREAD:
        function(0, count, table)
    else:
        in_parallel(lambda lo, hi: function(lo, hi, table), count, _MIN_PER_THREAD)
    if args[3]:
        where = np.isnan(values)
        out[where] = load_floats(values[where], precision)
