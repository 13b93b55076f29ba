"""The PICA200 hardware rules compiled for the JIT engine.

The rules are defined once, as plain Python, in :mod:`.rules.primitives`; this module is
their compiled realisation: LLVM-IR intrinsics (expanded where they are used) and Numba
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

import ctypes

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic, overload, register_jitable

from ....floats import F24_MIN_NORMAL
from ..rules import primitives as P
from . import cache  # noqa: F401  (first: drops stale compiled code)

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
for _primitive in (P.quiet, P.round24, P.flush24, P.negate24, P.negate32, P.pica_mul,
                   P.pica_add, P.mul32, P.add32, P.pica_max, P.pica_min, P.sge, P.slt,
                   P.compare, P.rcp24, P.rsq24, P.rcp32, P.rsq32, P.floor, P.flr24,
                   P.flr32, P.address_from_float, P.relative_row, P.bounded24):
    register_jitable(_primitive)

#: Rules the kernels call as the primitives' own text (compiled where they are used).
compare = P.compare
relative_row = P.relative_row
address_from_float = P.address_from_float


# Typed constants: Numba promotes uint64 mixed with a Python int to float64.
_U32_SIGN = np.uint32(0x80000000)
_U32_ABS = np.uint32(0x7FFFFFFF)
_U32_INF = np.uint32(0x7F800000)
_U32_QUIET = np.uint32(0x00400000)
_U64_SIGN = np.uint64(0x8000000000000000)
_U64_ABS = np.uint64(0x7FFFFFFFFFFFFFFF)
_U64_INF = np.uint64(0x7FF0000000000000)
_U64_QUIET = np.uint64(1 << 51)
_U64_ONE = np.uint64(1)
_U64_ZERO = np.uint64(0)
# float24 keeps 16 of float64's 52 mantissa bits: 36 are dropped.
_DROP = np.uint64(36)
_DROP_MASK = np.uint64((1 << 36) - 1)
_HALF_MINUS_ONE = np.uint64((1 << 35) - 1)
# The float64 patterns of 2^-62 (smallest float24 normal) and 2^64 (first magnitude past
# F24_MAX); NaN payload bits that survive in float24 (float32 bits 7-22 = float64 36-51).
_F24_MIN_64 = np.uint64((1023 - 62) << 52)
_F24_OVER_64 = np.uint64((1023 + 64) << 52)
_F24_PAYLOAD_64 = np.uint64(0x000FFFF000000000)
_F24_MIN_32 = np.float32(F24_MIN_NORMAL)
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

_F32 = ir.FloatType()
_F64 = ir.DoubleType()
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


def _is_nan(builder, x):
    return builder.fcmp_unordered("uno", x, x)


def _quiet32_ir(builder, x):
    bits = builder.or_(builder.bitcast(x, _I32), ir.Constant(_I32, int(_U32_QUIET)))
    return builder.bitcast(bits, _F32)


def _first_nan(builder, a, b, result, quiet):
    """``result``, or the first NaN operand (quieted by ``quiet``) if there is one."""
    result = builder.select(_is_nan(builder, b), quiet(builder, b), result)
    return builder.select(_is_nan(builder, a), quiet(builder, a), result)


def _same(builder, x):
    return x


def _round24_ir(builder, x):
    u = builder.bitcast(x, _I64)
    magnitude = builder.and_(u, ir.Constant(_I64, int(_U64_ABS)))
    sign = builder.and_(u, ir.Constant(_I64, int(_U64_SIGN)))
    odd = builder.and_(builder.lshr(magnitude, ir.Constant(_I64, int(_DROP))),
                       ir.Constant(_I64, 1))
    rounded = builder.add(builder.add(magnitude, odd), ir.Constant(_I64, int(_HALF_MINUS_ONE)))
    rounded = builder.and_(rounded, ir.Constant(_I64, int(~_DROP_MASK & _U64_ABS)))
    zero = ir.Constant(_I64, 0)
    small = builder.icmp_unsigned("<", rounded, ir.Constant(_I64, int(_F24_MIN_64)))
    large = builder.icmp_unsigned(">=", rounded, ir.Constant(_I64, int(_F24_OVER_64)))
    finite = builder.select(large, builder.or_(sign, ir.Constant(_I64, int(_U64_INF))),
                            builder.select(small, zero, builder.or_(sign, rounded)))
    payload = builder.and_(builder.or_(magnitude, ir.Constant(_I64, int(_U64_QUIET))),
                           ir.Constant(_I64, int(_F24_PAYLOAD_64)))
    nan = builder.or_(builder.or_(sign, ir.Constant(_I64, int(_U64_INF))), payload)
    is_nan = builder.icmp_unsigned(">", magnitude, ir.Constant(_I64, int(_U64_INF)))
    return builder.bitcast(builder.select(is_nan, nan, finite), _F64)


def _work24_ir(builder, x):
    magnitude = builder.and_(builder.bitcast(x, _I32), ir.Constant(_I32, int(_U32_ABS)))
    flush = builder.icmp_unsigned("<", magnitude, ir.Constant(_I32, int(_F24_MIN_32_BITS)))
    return builder.select(flush, ir.Constant(_F64, 0.0), builder.fpext(x, _F64))


def _negate24_ir(builder, x):
    u = builder.xor(builder.bitcast(x, _I32), ir.Constant(_I32, int(_U32_SIGN)))
    magnitude = builder.and_(u, ir.Constant(_I32, int(_U32_ABS)))
    quieted = builder.or_(u, ir.Constant(_I32, int(_U32_QUIET)))
    is_nan = builder.icmp_unsigned(">", magnitude, ir.Constant(_I32, int(_U32_INF)))
    is_zero = builder.icmp_unsigned("==", magnitude, ir.Constant(_I32, 0))
    bits = builder.select(is_zero, ir.Constant(_I32, 0), builder.select(is_nan, quieted, u))
    return builder.bitcast(bits, _F32)


def _negate32_ir(builder, x):
    return builder.bitcast(builder.xor(builder.bitcast(x, _I32),
                                       ir.Constant(_I32, int(_U32_SIGN))), _F32)


def _mul_ir(quiet, zero):
    def build(builder, a, b):
        p = builder.fmul(a, b)
        p = builder.select(_is_nan(builder, p), zero, p)
        return _first_nan(builder, a, b, p, quiet)

    return build


def _add_ir(quiet):
    def build(builder, a, b):
        return _first_nan(builder, a, b, builder.fadd(a, b), quiet)

    return build


_F24_MIN_32_BITS = np.float32(F24_MIN_NORMAL).view(np.uint32)

#: ``primitives.round24``: a float64 result rounded to float24, returned as the (exact)
#: float64 of that value.  Equal to ``round_f24(_narrow_to_odd(x))``.  Rounding to
#: odd at 24 bits and then to nearest even at 17 bits equals rounding the float64 value
#: to nearest even at 17 bits directly (24 >= 17 + 2), which is what this does on the
#: bits: magnitudes below 2^-62 after rounding give +0, from 2^64 on +-infinity, and a
#: NaN keeps its sign and the payload bits float32 would keep after the narrowing (quiet
#: bit forced, as the float64 -> float32 conversion does).
round24 = _inline(types.float64, types.float64, 1, _round24_ir)
#: ``primitives.flush24``: an arithmetic instruction's f24 view of a register value:
#: subnormals and -0 flushed to +0, then float64 (which quiets a NaN).
work24 = _inline(types.float32, types.float64, 1, _work24_ir)
#: ``primitives.negate24``: the sign flips, -0 becomes +0, a NaN is quieted.
negate24 = _inline(types.float32, types.float32, 1, _negate24_ir)
#: ``primitives.negate32``: the sign bit flips, nothing else changes.
negate32 = _inline(types.float32, types.float32, 1, _negate32_ir)
quiet32 = _inline(types.float32, types.float32, 1, _quiet32_ir)
#: ``primitives.pica_mul`` on float64 working values: 0 * +-inf = +0; a NaN result with a
#: NaN operand is the first NaN operand.  (f24 working values are already quiet:
#: float32 -> float64 conversion quiets.)
mul64 = _inline(types.float64, types.float64, 2, _mul_ir(_same, ir.Constant(_F64, 0.0)))
#: ``primitives.pica_add``: float64 addition; a NaN result with a NaN operand is the
#: first NaN operand.
add64 = _inline(types.float64, types.float64, 2, _add_ir(_same))
#: ``primitives.mul32``: 0 * +-inf = +0; NaN operands as in mul64, quieted as the
#: hardware multiply quiets them.
mul32 = _inline(types.float32, types.float32, 2,
                _mul_ir(_quiet32_ir, ir.Constant(_F32, 0.0)))
#: ``primitives.add32``.
add32 = _inline(types.float32, types.float32, 2, _add_ir(_quiet32_ir))



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


def _round24_in_range_ir(builder, x):
    # Veltkamp's splitting, as primitives.round24 rounds (cheaper here than the integer
    # rounding of round24, which also keeps NaN payloads)
    c = builder.fmul(x, ir.Constant(_F64, P.VELTKAMP_SPLIT))
    rounded = builder.fsub(c, builder.fsub(c, x))
    size = builder.bitcast(builder.and_(builder.bitcast(rounded, _I64),
                                        ir.Constant(_I64, int(_U64_ABS))), _F64)
    small = builder.fcmp_ordered("<", size, ir.Constant(_F64, P.F24_MIN))
    out = builder.fcmp_unordered(">=", size, ir.Constant(_F64, P.F24_OVER))
    rounded = builder.select(small, ir.Constant(_F64, 0.0), rounded)
    return builder.select(out, ir.Constant(_F64, float("nan")), rounded)


def _fmul_ir(builder, a, b):
    return builder.fmul(a, b)


def _fadd_ir(builder, a, b):
    return builder.fadd(a, b)


def _nonfinite32_ir(builder, x):
    exponent = builder.and_(builder.bitcast(x, _I32), ir.Constant(_I32, int(_U32_INF)))
    infinite = builder.icmp_unsigned("==", exponent, ir.Constant(_I32, int(_U32_INF)))
    return builder.zext(infinite, ir.IntType(8))


#: ``primitives.round24`` in range (the primitive's own Veltkamp splitting, without
#: its NaN and infinity cases); a NaN, an infinity or a magnitude from 2^64 - 2^46 on
#: (which float24 rounds to infinity) gives a NaN.
round24_in_range = _inline(types.float64, types.float64, 1, _round24_in_range_ir)
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
nonfinite32 = _inline(types.float32, types.int8, 1, _nonfinite32_ir)


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


def _round24_bounded_ir(builder, x):
    # (x - c) + c is c - (c - x) exactly (IEEE rounding is symmetric), except that a zero
    # comes out +0, as round24 gives it
    c = builder.fmul(x, ir.Constant(_F64, P.VELTKAMP_SPLIT))
    return builder.fadd(builder.fsub(x, c), c)


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
round24_bounded = _inline(types.float64, types.float64, 1, _round24_bounded_ir)


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


def _pick_ir(predicate, if_true, if_false):
    """``if_true if a <predicate> b else if_false`` (None: the operand itself)."""

    def build(builder, a, b):
        holds = builder.fcmp_ordered(predicate, a, b)
        return builder.select(holds, a if if_true is None else if_true,
                              b if if_false is None else if_false)

    return build


_F32_ONE = ir.Constant(_F32, 1.0)
_F32_ZERO = ir.Constant(_F32, 0.0)
#: ``primitives.pica_max``: ``a if a > b else b`` (so a NaN operand gives b).
pica_max = _inline(types.float32, types.float32, 2, _pick_ir(">", None, None))
#: ``primitives.pica_min``: ``a if a < b else b``.
pica_min = _inline(types.float32, types.float32, 2, _pick_ir("<", None, None))
#: ``primitives.sge`` and ``primitives.slt``: 1.0 or 0.0 from an ordered comparison.
sge = _inline(types.float32, types.float32, 2, _pick_ir(">=", _F32_ONE, _F32_ZERO))
slt = _inline(types.float32, types.float32, 2, _pick_ir("<", _F32_ONE, _F32_ZERO))


# -- EX2 and LG2 through NumPy's own inner loops -----------------------------------------------


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
#: Kernels receive them as an argument (never as a constant compiled into their code),
#: so that compiled kernels can be cached on disk and loaded by another process.
NATIVE_LOOPS = np.array([_inner_loop(np.exp2, np.float64), _inner_loop(np.log2, np.float64),
                         _inner_loop(np.exp2, np.float32), _inner_loop(np.log2, np.float32)],
                        dtype=np.int64)
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
    """``primitives.ex2_32``."""
    return exp2_32(x, scratch)


@_rule
def lg2_f32(x, scratch):
    """``primitives.lg2_32``."""
    return log2_32(_positive_zero32(x), scratch)
