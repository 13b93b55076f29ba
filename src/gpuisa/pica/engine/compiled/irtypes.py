"""The LLVM types every kernel module uses, and ``i64`` constants."""

from __future__ import annotations

from . import textir as ir

F32 = ir.FloatType()
F64 = ir.DoubleType()
I1 = ir.IntType(1)
I8 = ir.IntType(8)
I32 = ir.IntType(32)
I64 = ir.IntType(64)


def i64(value: int) -> ir.Constant:
    """An ``i64`` constant."""
    return ir.Constant(I64, value)
