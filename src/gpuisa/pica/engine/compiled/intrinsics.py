"""The PICA200 hardware rules compiled for the JIT engine.

The rules are defined once, as plain Python, in :mod:`.rules.primitives`; this module is
their compiled realisation: LLVM-IR intrinsics (expanded where they are used; their IR
is that of :class:`.lower.Lowering`, which the LLVM kernels are built from) and Numba
functions.  Each names the primitive it realises, and ``tests/pica/engine/test_rules.py``
proves them identical (exhaustively over float24 patterns where that is feasible, by
property tests elsewhere).  It also gives Numba the compiled stand-ins of the
primitives' bit casts and float32 conversion, so that Numba compiles the primitives'
own text (the tests do).  The generated kernels (:mod:`.codegen`; the expressions
of :mod:`.rules.source` are written in the same terms) call nothing but these functions.

Exactness notes, found by experiment on the reference engine and kept here:

* NaN operands: the result is the first NaN operand, quieted (``primitives.pica_add``).
  LLVM, like any compiler, may commute ``a + b``; so every binary operation here picks
  the NaN explicitly.
* Negation in f24 mode is ``-x + 0`` in NumPy, which also quiets a signalling NaN.
  LLVM rewrites ``(-x) + 0`` into ``0 - x``, which loses the sign flip of a NaN; so it
  is written with integer operations.
* EX2 and LG2 use NumPy's own ufunc inner loops (on this class of machine NumPy uses
  SVML, which differs from libm in the last bit), called through their C function
  pointers, so that the JIT computes exactly what the reference engine computes.  The
  pointers are an argument of every kernel (:data:`NATIVE_LOOPS`), never a constant in
  compiled code, so every compiled function can be cached on disk.
* float32 mode never uses fast-math: no FMA contraction (MAD is not fused), no
  reassociation.

Only imported when Numba is installed (:mod:`.runner` checks first).
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic, overload, register_jitable

from ..rules import primitives as P
from . import (
    cache,  # noqa: F401  (first: drops stale compiled code)
    numpyloops,
)
from .lower import Lowering

# -- bit casts -------------------------------------------------------------------------------


def _bitcast(source: types.Type, target: types.Type):
    """A reinterpreting cast ``source`` -> ``target``; an integer argument of another
    width is first converted to the unsigned type of the float's width (Numba widens
    ``uint32 | uint32`` to 64 bits)."""

    @intrinsic
    def cast(typingctx, value):
        if value != source and not (isinstance(source, types.Integer)
                                    and isinstance(value, types.Integer)):
            return None

        def codegen(context, builder, signature, args):
            converted = context.cast(builder, args[0], signature.args[0], source)
            return builder.bitcast(converted, context.get_value_type(target))

        return target(value), codegen

    return cast


f32_bits = _bitcast(types.float32, types.uint32)
bits_f32 = _bitcast(types.uint32, types.float32)
f64_bits = _bitcast(types.float64, types.uint64)
bits_f64 = _bitcast(types.uint64, types.float64)
#: The compiled stand-ins of ``primitives.f64_bits`` / ``bits_f64`` (signed: the rules
#: only mask and set bits 0-62, and Numba would turn uint64 mixed with int into float64).
f64_ibits = _bitcast(types.float64, types.int64)
ibits_f64 = _bitcast(types.int64, types.float64)


@overload(P.f64_bits)
def _overload_f64_bits(x):
    return lambda x: f64_ibits(x)


@overload(P.bits_f64)
def _overload_bits_f64(u):
    return lambda u: ibits_f64(u)


@overload(P.to_f32)
def _overload_to_f32(x):
    return lambda x: np.float64(np.float32(x))


#: The primitives Numba compiles as they are (the tests compare them with the rules
#: below); EX2 and LG2 call NumPy from Python and have their own compiled form here.
for _primitive in (P.quiet, P.range24, P.round24, P.trunc24, P.flush24, P.negate24, P.negate32,
                   P.pica_mul, P.pica_add, P.mul32, P.add32, P.pica_max, P.pica_min, P.sge,
                   P.slt, P.compare, P.rcp64, P.rcp24, P.rsq64, P.rsq24, P.rcp32, P.rsq32,
                   P.floor, P.flr64, P.flr24, P.flr32, P.address_from_float,
                   P.relative_row, P.bounded24):
    register_jitable(_primitive)

#: Rules the kernels call as the primitives' own text (compiled where they are used).
compare = P.compare
relative_row = P.relative_row
address_from_float = P.address_from_float


# Typed constants: Numba promotes uint64 mixed with a Python int to float64.
_U32_ABS = np.uint32(0x7FFFFFFF)
_ZERO32 = np.float32(0.0)
_ONE32 = np.float32(1.0)
#: Constants the generated kernels use (DST's x, LITP's z).
ZERO32 = _ZERO32
ONE32 = _ONE32

#: Every rule: compiled lazily and cached on disk (nothing compiled refers to an address
#: of this process: see NATIVE_LOOPS), IEEE results instead of Python exceptions (1 / 0
#: = inf).
_rule = njit(cache=True, error_model="numpy")
#: The small building blocks are inlined into the rules that use them (Numba does not
#: inline calls between separately compiled functions); the rules themselves are not,
#: which keeps the compile time of each program's kernel low.
_leaf = njit(cache=True, error_model="numpy", inline="always")


# -- inlined building blocks -----------------------------------------------------------------
#
# The building blocks below are Numba intrinsics: each call is expanded into a few LLVM
# instructions where it is used, with selects instead of branches.  A Numba function call
# is never inlined by LLVM, and Numba's own inlining (``inline="always"``) makes compiling
# a kernel many times slower; intrinsics cost nothing to compile and let LLVM keep values
# in registers and vectorize the kernels' loops over lanes.

_I32 = ir.IntType(32)
_I64 = ir.IntType(64)


def _inline(argument: types.Type, result: types.Type, arity: int, build):
    """An intrinsic of ``arity`` numeric arguments, each converted to ``argument``, whose
    LLVM code ``build(builder, *values)`` returns a ``result``."""

    def typed(values):
        if all(isinstance(v, (types.Float, types.Integer, types.Boolean)) for v in values):
            return result(*values)
        return None

    def codegen(context, builder, signature, args):
        values = [context.cast(builder, value, kind, argument)
                  for value, kind in zip(args, signature.args, strict=True)]
        return build(builder, *values)

    if arity == 1:

        @intrinsic
        def unary(typingctx, a):
            signature = typed((a,))
            return None if signature is None else (signature, codegen)

        return unary

    @intrinsic
    def binary(typingctx, a, b):
        signature = typed((a, b))
        return None if signature is None else (signature, codegen)

    return binary


def _rule_ir(name: str):
    """The IR of rule ``name`` of :class:`.lower.Lowering` for one value: the kernels'
    intrinsics and the LLVM kernels are built by the same code."""

    def build(builder, *values):
        return getattr(Lowering(builder), name)(*values)

    return build

#: ``primitives.round24``: a float64 result rounded to float24, returned as the (exact)
#: float64 of that value.  Equal to ``round_f24(_narrow_to_odd(x))``.  Rounding to
#: odd at 24 bits and then to nearest even at 17 bits equals rounding the float64 value
#: to nearest even at 17 bits directly (24 >= 17 + 2), which is what this does on the
#: bits: magnitudes below 2^-62 after rounding give +0, from 2^64 on +-infinity, and a
#: NaN keeps its sign and the payload bits float32 would keep after the narrowing (quiet
#: bit forced, as the float64 -> float32 conversion does).
round24 = _inline(types.float64, types.float64, 1, _rule_ir("round24"))
#: ``primitives.flush24``: an arithmetic instruction's f24 view of a register value:
#: subnormals and -0 flushed to +0, then float64 (which quiets a NaN).
work24 = _inline(types.float32, types.float64, 1, _rule_ir("work24"))
#: ``primitives.negate24``: the sign flips, -0 becomes +0, a NaN is quieted.
negate24 = _inline(types.float32, types.float32, 1, _rule_ir("negate24"))
#: ``primitives.negate32``: the sign bit flips, nothing else changes.
negate32 = _inline(types.float32, types.float32, 1, _rule_ir("negate32"))
quiet32 = _inline(types.float32, types.float32, 1, _rule_ir("quiet32"))
#: ``primitives.pica_mul`` on float64 working values: 0 * +-inf = +0; a NaN result with a
#: NaN operand is the first NaN operand.  (f24 working values are already quiet:
#: float32 -> float64 conversion quiets.)
mul64 = _inline(types.float64, types.float64, 2, _rule_ir("mul64"))
#: ``primitives.pica_add``: float64 addition; a NaN result with a NaN operand is the
#: first NaN operand.
add64 = _inline(types.float64, types.float64, 2, _rule_ir("add64"))
#: ``primitives.mul32``: 0 * +-inf = +0; NaN operands as in mul64, quieted as the
#: hardware multiply quiets them.
mul32 = _inline(types.float32, types.float32, 2, _rule_ir("mul32"))
#: ``primitives.add32``.
add32 = _inline(types.float32, types.float32, 2, _rule_ir("add32"))



# -- arithmetic in range ----------------------------------------------------------------------
#
# Vertex kernels compute ADD, MUL, MAD and the dot products with these instead: without
# the selects that give infinities, NaNs and 0 * inf their hardware results, which are
# most of the arithmetic's cost.  Each equals its exact rule whenever the operands are
# finite and (f24) every result rounds to a finite float24 ("in range"); otherwise the
# value they compute is an infinity or a NaN, never a finite number (an infinity or NaN
# operand makes every sum and product, and so every later rounding, infinite or NaN).
# A kernel checks what such an instruction writes (``nonfinite32``) and hands the lanes
# where a value is not finite to an exact engine (``codegen.IN_RANGE`` names these
# rules).  ``tests/pica/engine/test_rules.py`` proves both properties.


def _fmul_ir(builder, a, b):
    return builder.fmul(a, b)


def _fadd_ir(builder, a, b):
    return builder.fadd(a, b)


#: ``primitives.round24`` in range (the primitive's own Veltkamp splitting, without
#: its NaN and infinity cases); a NaN, an infinity or a magnitude from 2^64 - 2^46 on
#: (which float24 rounds to infinity) gives a NaN.
round24_in_range = _inline(types.float64, types.float64, 1, _rule_ir("round24_in_range"))
#: ``primitives.pica_mul`` on finite working values (plain float64 multiplication).
mul64_in_range = _inline(types.float64, types.float64, 2, _fmul_ir)
#: ``primitives.pica_add`` on finite working values (plain float64 addition).
add64_in_range = _inline(types.float64, types.float64, 2, _fadd_ir)
#: ``primitives.mul32`` on finite float32 operands (plain float32 multiplication; an
#: overflow gives the same infinity).
mul32_in_range = _inline(types.float32, types.float32, 2, _fmul_ir)
#: ``primitives.add32`` on finite float32 operands (plain float32 addition).
add32_in_range = _inline(types.float32, types.float32, 2, _fadd_ir)
#: 1 if a float32 register value is an infinity or a NaN, else 0.
nonfinite32 = _inline(types.float32, types.int8, 1,
                      lambda b, x: b.zext(Lowering(b).nonfinite32(x), ir.IntType(8)))


# -- bounded operands ------------------------------------------------------------------------
#
# f24 vertex kernels whose uniforms are bounded (``primitives.bounded24``) check the
# operands of ADD, MUL, MAD and the dot products instead of their results, and round with
# Veltkamp's splitting alone: on bounded operands no value rounded is one that round24
# flushes or overflows (primitives.bounded24 says why).  A lane with an operand that is
# not bounded is run again exactly.  ``tests/pica/engine/test_rules.py`` proves
# round24_bounded equal to primitives.round24 on every value of that domain, unbounded24
# equal to ``not primitives.bounded24``, and every recipe made of them equal to the exact
# one on bounded operands.

_BOUNDED_FLUSHED = int(np.float32(P.F24_MIN).view(np.uint32))
_BOUNDED_HIGH = int(np.float32(P.BOUNDED_HIGH).view(np.uint32))


@intrinsic
def unbounded24(typingctx, x, k):
    """1 if a float32 register value is not ``primitives.bounded24(x, k)``, else 0 (``k``
    an integer constant in the kernel text: LLVM folds the bounds)."""
    if not isinstance(x, types.Float) or not isinstance(k, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        value = context.cast(builder, args[0], signature.args[0], types.float32)
        shift = context.cast(builder, args[1], signature.args[1], types.int32)
        magnitude = builder.and_(builder.bitcast(value, _I32),
                                 ir.Constant(_I32, int(_U32_ABS)))
        # the bits of 2^-k: exponent field 127 - k
        low = builder.shl(builder.sub(ir.Constant(_I32, 127), shift), ir.Constant(_I32, 23))
        flushed = builder.icmp_unsigned("<", magnitude, ir.Constant(_I32, _BOUNDED_FLUSHED))
        inside = builder.icmp_unsigned("<", builder.sub(magnitude, low),
                                       builder.sub(ir.Constant(_I32, _BOUNDED_HIGH), low))
        return builder.zext(builder.not_(builder.or_(flushed, inside)), ir.IntType(8))

    return types.int8(x, k), codegen


#: ``primitives.round24`` of the values the arithmetic of bounded operands rounds: 0, or
#: a value whose rounding is at least 2^-62 and below 2^64 - 2^46 in magnitude.
round24_bounded = _inline(types.float64, types.float64, 1, _rule_ir("round24_bounded"))


@_leaf
def store(x):
    """float64 -> float32 (the recipes' ``m.store`` in f24); exact for every rounded f24
    value."""
    return np.float32(x)


# -- f24 rules; float32 register values in and out --------------------------------------------


@_rule
def flr24(x):
    """``primitives.flr24``."""
    return store(round24(np.floor(work24(x))))


@_rule
def rcp24(x):
    """``primitives.rcp24``: 1 / x; flushing already turned -0 into +0."""
    return store(round24(1.0 / work24(x)))


@_rule
def rsq24(x):
    """``primitives.rsq24``."""
    return store(round24(1.0 / np.sqrt(work24(x))))


# -- f32 opcodes (precision "f32") -------------------------------------------------------------


@_rule
def flr32(x):
    """``primitives.flr32``."""
    if x != x:
        return quiet32(x)
    return np.float32(np.floor(x))


@_leaf
def _positive_zero32(x):
    """-0 read as +0 (``primitives.rcp32``, ``lg2_32``)."""
    return _ZERO32 if x == _ZERO32 else x


@_rule
def rcp32(x):
    """``primitives.rcp32``."""
    x = _positive_zero32(x)
    if x != x:
        return quiet32(x)
    return _ONE32 / x


@_rule
def rsq32(x):
    """``primitives.rsq32``: 1 / sqrt(x) with two float32 roundings; sqrt of a negative
    number gives the machine's default NaN, as it does in NumPy."""
    x = _positive_zero32(x)
    if x != x:
        return quiet32(x)
    return _ONE32 / np.sqrt(x)


# -- comparisons, MIN/MAX, LITP (no flushing, no rounding: primitives.pica_max etc.) --------


#: ``primitives.pica_max``: ``a if a > b else b`` (so a NaN operand gives b).
pica_max = _inline(types.float32, types.float32, 2, _rule_ir("pica_max"))
#: ``primitives.pica_min``: ``a if a < b else b``.
pica_min = _inline(types.float32, types.float32, 2, _rule_ir("pica_min"))
#: ``primitives.sge`` and ``primitives.slt``: 1.0 or 0.0 from an ordered comparison.
sge = _inline(types.float32, types.float32, 2, _rule_ir("sge"))
slt = _inline(types.float32, types.float32, 2, _rule_ir("slt"))


# -- EX2 and LG2 through NumPy's own inner loops -----------------------------------------------


#: The addresses of NumPy's exp2/log2 inner loops (:mod:`.numpyloops`).  Kernels receive
#: them as an argument (never as a constant compiled into their code), so that compiled
#: kernels can be cached on disk and loaded by another process.
NATIVE_LOOPS = numpyloops.NATIVE_LOOPS
_EXP2_64, _LOG2_64, _EXP2_32, _LOG2_32 = range(4)
_LOOP_TYPE = ir.FunctionType(ir.VoidType(), [_I64] * 4)


@intrinsic
def _call_loop(typingctx, address, args, dims, steps):
    """``void loop(char **args, npy_intp const *dimensions, npy_intp const *steps, void
    *data)`` at ``address``, every pointer given as an integer, data NULL."""

    def codegen(context, builder, signature, values):
        function = builder.inttoptr(values[0], _LOOP_TYPE.as_pointer())
        builder.call(function, [*values[1:], ir.Constant(_I64, 0)])
        return context.get_dummy_value()

    return types.none(types.int64, types.int64, types.int64, types.int64), codegen


@_rule
def make_scratch(natives):
    """Per-thread buffers for calling an inner loop on one value: a float64 pair with its
    float32 view, and for each width the ``args``, ``dimensions`` and ``steps`` arrays
    laid out as [in, out, 1, step, step]; ``natives`` is :data:`NATIVE_LOOPS`."""
    values = np.zeros(2, np.float64)
    values32 = values.view(np.float32)
    p64 = np.empty(5, np.int64)
    p32 = np.empty(5, np.int64)
    base = values.ctypes.data
    p64[0] = base
    p64[1] = base + 8
    p64[2] = 1
    p64[3] = 8
    p64[4] = 8
    p32[0] = base
    p32[1] = base + 4
    p32[2] = 1
    p32[3] = 4
    p32[4] = 4
    return values, values32, p64, p32, natives


@_rule
def _call(loop, x, values, pointers, natives):
    """NumPy's inner loop number ``loop`` on the one value ``x``, through the scratch
    ``values`` (argument, result) of its type and its ``pointers``."""
    values[0] = x
    base = pointers.ctypes.data
    _call_loop(natives[loop], base, base + 16, base + 24)
    return values[1]


@_rule
def exp2_64(x, scratch):
    return _call(_EXP2_64, x, scratch[0], scratch[2], scratch[4])


@_rule
def log2_64(x, scratch):
    return _call(_LOG2_64, x, scratch[0], scratch[2], scratch[4])


@_rule
def exp2_32(x, scratch):
    return _call(_EXP2_32, x, scratch[1], scratch[3], scratch[4])


@_rule
def log2_32(x, scratch):
    return _call(_LOG2_32, x, scratch[1], scratch[3], scratch[4])


def _loops_verified() -> bool:
    """Whether calling the loops directly gives exactly what the ufuncs give."""
    functions = (exp2_64, log2_64, exp2_32, log2_32)
    if not NATIVE_LOOPS.all():
        return False
    rng = np.random.default_rng(5)
    special = [0.0, -0.0, 1.0, -1.0, 0.5, 3.0, 127.9, 128.0, 200.0, -150.0, -1e30, 1e30,
               np.inf, -np.inf, np.nan, 2.0**-62, 2.0**-100]
    with np.errstate(all="ignore"):
        for dtype, (exp2, log2) in ((np.float64, functions[:2]), (np.float32, functions[2:])):
            values = np.concatenate([np.array(special), rng.uniform(-140, 140, 200),
                                     np.exp2(rng.uniform(-70, 70, 200))]).astype(dtype)
            scratch = make_scratch(NATIVE_LOOPS)
            for ufunc, call in ((np.exp2, exp2), (np.log2, log2)):
                want = ufunc(values).view(f"u{values.itemsize}")
                got = np.array([call(v, scratch) for v in values], dtype=dtype)
                if not np.array_equal(got.view(f"u{values.itemsize}"), want):
                    return False
    return True


#: Whether EX2 and LG2 can be computed exactly like the reference engine; when False the
#: JIT engine hands programs using them to the reference engine.
UFUNC_LOOPS_OK = _loops_verified()


@_rule
def ex2_24(x, scratch):
    """``primitives.ex2_24``."""
    return store(round24(exp2_64(work24(x), scratch)))


@_rule
def lg2_24(x, scratch):
    """``primitives.lg2_24``: log2 of the flushed x (flushing already turned -0 into +0)."""
    return store(round24(log2_64(work24(x), scratch)))


@_rule
def ex2_f32(x, scratch):
    """``primitives.ex2_32``: the float64 loop rounded once (inputs near a rounding
    boundary, which ``libm32`` decides exactly, are not told apart here)."""
    return np.float32(exp2_64(np.float64(x), scratch))


@_rule
def lg2_f32(x, scratch):
    """``primitives.lg2_32`` (as :func:`ex2_f32`)."""
    return np.float32(log2_64(np.float64(_positive_zero32(x)), scratch))
