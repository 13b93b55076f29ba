"""EX2 and LG2 lowered to LLVM IR: NumPy's own inner loops called through the function
pointers a kernel is given (:data:`.numpyloops.NATIVE_LOOPS`), so that they compute
exactly what the reference engine computes, and the float32 results' check against a
rounding boundary (``libm32``).  A mixin of :class:`.lower.Lowering`, whose other rules
(``work24``, ``round24``, ``store24``, ``const``...) these methods use."""

from __future__ import annotations

import math

from ..rules import libm32
from . import textir as ir
from .irtypes import F32, F64, I8, I32, I64

#: The positions of EX2/LG2's NumPy inner loops in the table a kernel is given.
EXP2_64, LOG2_64, EXP2_32, LOG2_32 = range(4)
#: ``void loop(char **args, npy_intp const *dimensions, npy_intp const *steps, void *)``
LOOP_TYPE = ir.FunctionType(ir.VoidType(), [I8.as_pointer().as_pointer(),
                                            I64.as_pointer(), I64.as_pointer(),
                                            I8.as_pointer()])


class MathLoops:
    """EX2 and LG2 of :class:`.lower.Lowering` (see there for ``self``'s attributes)."""

    def _numpy_loop(self, loop: int, x: ir.Value) -> ir.Value:
        """NumPy's inner loop number ``loop`` on the ``width`` values of ``x``, through
        a buffer on the stack."""
        b = self.b
        scalar = F64 if _is_double(x) else F32
        size = 8 if scalar is F64 else 4
        buffer = b.alloca(ir.ArrayType(scalar, 2 * self.width))
        buffer.align = 64  # vector loads and stores of the values
        pointers = b.alloca(ir.ArrayType(I8.as_pointer(), 2))
        counts = b.alloca(ir.ArrayType(I64, 3))
        zero = ir.Constant(I32, 0)
        first = b.gep(buffer, [zero, zero])
        result = b.gep(buffer, [zero, ir.Constant(I32, self.width)])
        if self.width == 1:
            b.store(x, first)
        else:
            b.store(x, b.bitcast(first, x.type.as_pointer()), align=size)
        b.store(b.bitcast(first, I8.as_pointer()), b.gep(pointers, [zero, zero]))
        b.store(b.bitcast(result, I8.as_pointer()),
                b.gep(pointers, [zero, ir.Constant(I32, 1)]))
        for k, value in enumerate((self.width, size, size)):
            b.store(ir.Constant(I64, value), b.gep(counts, [zero, ir.Constant(I32, k)]))
        address = b.load(b.gep(self.loops, [ir.Constant(I32, loop)]))
        function = b.inttoptr(address, LOOP_TYPE.as_pointer())
        count = b.gep(counts, [zero, zero])
        b.call(function, [b.gep(pointers, [zero, zero]), count,
                          b.gep(counts, [zero, ir.Constant(I32, 1)]),
                          ir.Constant(I8.as_pointer(), None)])
        if self.width == 1:
            return b.load(result)
        return b.load(b.bitcast(result, x.type.as_pointer()), align=size)

    def ex2_24(self, x):
        """``primitives.ex2_24``: NumPy's float64 exp2 of the flushed x, rounded."""
        return self.store24(self.round24(self._numpy_loop(EXP2_64, self.work24(x))))

    def lg2_24(self, x):
        """``primitives.lg2_24``."""
        return self.store24(self.round24(self._numpy_loop(LOG2_64, self.work24(x))))

    def ex2_32(self, x):
        """``primitives.ex2_32``: NumPy's float64 exp2 rounded once to float32, lanes
        near a rounding boundary unresolved (``libm32.ex2_32``)."""
        return self._correctly_rounded32(self._numpy_loop(EXP2_64, self.b.fpext(x, self.f64)))

    def lg2_32(self, x):
        """``primitives.lg2_32``: NumPy's float64 log2 of x (-0 read as +0) rounded once
        to float32, lanes near a rounding boundary unresolved (``libm32.lg2_32``)."""
        wide = self.b.fpext(self._positive_zero32(x), self.f64)
        return self._correctly_rounded32(self._numpy_loop(LOG2_64, wide))

    def _correctly_rounded32(self, wide: ir.Value) -> ir.Value:
        if self.unresolved is not None:
            self.unresolved(self.ambiguous32(wide))
        return self.b.fptrunc(wide, self.f32)

    def ambiguous32(self, wide: ir.Value) -> ir.Value:
        """``libm32.ambiguous``: whether a float64 value lies within
        ``libm32.TOLERANCE`` of a float32 rounding boundary (halfway to a neighbour of
        its rounded value, or the overflow threshold)."""
        b = self.b
        size = b.call(self._intrinsic_function("fabs", wide.type), [wide])
        bits = b.bitcast(b.fptrunc(size, self.f32), self.i32)
        rounded = b.fpext(b.bitcast(bits, self.f32), self.f64)
        limit = b.fmul(size, self.const(F64, libm32.TOLERANCE))

        def near(boundary: ir.Value) -> ir.Value:
            distance = b.call(self._intrinsic_function("fabs", wide.type),
                              [b.fsub(size, boundary)])
            return b.fcmp_ordered("<=", distance, limit)

        out = near(self.const(F64, libm32.OVERFLOW))
        for step in (1, -1):  # NaN where the neighbour's pattern is not a number
            neighbour = b.fpext(b.bitcast(b.add(bits, self.const(I32, step)), self.f32),
                                self.f64)
            half = b.fmul(b.fadd(rounded, neighbour), self.const(F64, 0.5))
            out = b.or_(out, near(half))
        finite = b.fcmp_ordered("<", size, self.const(F64, math.inf))
        nonzero = b.fcmp_ordered("!=", size, self.const(F64, 0.0))
        return b.and_(out, b.and_(finite, nonzero))


def _is_double(x: ir.Value) -> bool:
    kind = x.type.element if isinstance(x.type, ir.VectorType) else x.type
    return isinstance(kind, ir.DoubleType)
