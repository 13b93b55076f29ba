"""The interface of the LLVM kernels (:mod:`.native`): the table of 64-bit words a
kernel is given, the lane statuses, the vector width, and reading the table in IR."""

from __future__ import annotations

from llvmlite import ir

from .lower import I32

#: Lanes per SIMD vector (AVX-512 holds 16 float32 or 8 float64 values; wider vectors
#: split into several registers, which LLVM schedules well).
WIDTH = 8
#: The lane status: finished, or to run again on the reference engine.
DONE = 0
NEEDS_REFERENCE = 1
#: Register files, each 16 addresses of ``(lanes, 4)`` float32 arrays (0: not given).
FILE_BASE = {"v": 0, "r": 16, "o": 32}
#: The other words of the argument table, after the three register files.
#: The address registers and flags are lane-major ``(lanes, 3)`` int64 and ``(lanes, 2)``
#: bool arrays (``ShaderState.address`` / ``cmp`` are their transposed views).
#: ``rows_given`` is 1 when every uniform row was given; ``given_low`` / ``given_high``
#: hold bit r for row r (0-63, 64-127) when it was.
ARGS = ("address", "flags", "floats", "rows_given", "given_low", "given_high", "ints",
        "bools", "max_steps", "status", "steps", "loops")
ARG = {name: 48 + k for k, name in enumerate(ARGS)}
ARG_COUNT = 48 + len(ARGS)
ADDRESS_ROWS = 3
#: The PC of a lane that has reached END (above every PC, for the lowest-PC search).
FINISHED = (1 << 63) - 1



def arg_pointer(builder: ir.IRBuilder, args: ir.Value, index: int, kind: ir.Type) -> ir.Value:
    word = builder.load(builder.gep(args, [ir.Constant(I32, index)]))
    return builder.inttoptr(word, kind.as_pointer())


def arg_word(builder: ir.IRBuilder, args: ir.Value, index: int) -> ir.Value:
    return builder.load(builder.gep(args, [ir.Constant(I32, index)]))
