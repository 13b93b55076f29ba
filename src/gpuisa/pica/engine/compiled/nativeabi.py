"""The interface of the LLVM kernels (:mod:`.native`, :mod:`.nativegeometry`): the table
of 64-bit words a kernel is given, the statuses, the vector width, and reading the table
in IR."""

from __future__ import annotations

from . import textir as ir
from .irtypes import I32

#: Lanes per SIMD vector (AVX-512 holds 16 float32 or 8 float64 values; wider vectors
#: split into several registers, which LLVM schedules well).
WIDTH = 8
#: The lane status: finished, or to run again on the reference engine.
DONE = 0
NEEDS_REFERENCE = 1
#: A geometry kernel's vertex or primitive array is full (run again with larger ones).
FULL = 2
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
#: The words a geometry kernel is given after those (its registers and emission state are
#: its own copies; the logs have a row per invocation):
#: ``temporaries`` (16, 4) and ``banks`` (2, 16, 4) float32; ``emission`` the int64
#: state of :mod:`...flow.emission`; ``vertices`` (emitted registers, ``capacity``, 4)
#: float32, ``primitives`` (``capacity``, 3) int64, ``windings`` (``capacity``,) bool,
#: ``counts`` the vertices and primitives emitted; ``stride`` 1 when the input
#: registers hold a row per invocation, 0 for one row; ``fed`` the float uniform
#: registers set before each invocation, ``fed_count`` how many, ``fed_values``
#: (fed, invocations, 4) float32, ``fed_loaded`` (fed, invocations) bool; the logs of the
#: registers at END: ``log_outputs`` (logged, invocations, 4) and ``log_temporaries``
#: (named, invocations, 4) float32, ``log_address`` (invocations, 3) int64, ``log_cmp``
#: (invocations, 2) bool, ``log_steps`` (invocations,) int64.
GEOMETRY_ARGS = ("temporaries", "banks", "emission", "vertices", "primitives", "windings",
                 "capacity", "counts", "stride", "fed", "fed_count", "fed_values",
                 "fed_loaded", "log_outputs", "log_temporaries", "log_address", "log_cmp",
                 "log_steps")
GEOMETRY_ARG = {name: ARG_COUNT + k for k, name in enumerate(GEOMETRY_ARGS)}
GEOMETRY_ARG_COUNT = ARG_COUNT + len(GEOMETRY_ARGS)
ADDRESS_ROWS = 3
#: The PC of a lane that has reached END (above every PC, for the lowest-PC search).
FINISHED = (1 << 63) - 1


def arg_pointer(builder: ir.IRBuilder, args: ir.Value, index: int, kind: ir.Type) -> ir.Value:
    word = builder.load(builder.gep(args, [ir.Constant(I32, index)]))
    return builder.inttoptr(word, kind.as_pointer())


def arg_word(builder: ir.IRBuilder, args: ir.Value, index: int) -> ir.Value:
    return builder.load(builder.gep(args, [ir.Constant(I32, index)]))
