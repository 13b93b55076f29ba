"""The primitive hardware rules lowered to LLVM IR, for one lane or a vector of lanes.

Each method of :class:`Lowering` is the LLVM-IR realisation of one function of
:mod:`..rules.primitives` (named in its docstring), written with selects instead of
branches so that one text serves a scalar lane (``width`` 1) and a SIMD vector of
``width`` lanes alike.  ``tests/pica/engine/test_lowering.py`` proves every method equal,
bit for bit, to its primitive: exhaustively over float24 patterns for the rounding, over
all pairs of special values and random values for the rest.

Exactness notes (found by experiment, kept here):

* NaN operands: the result is the first NaN operand, quieted (``primitives.pica_add``);
  LLVM may commute ``a + b``, so every binary operation picks the NaN explicitly.
* Negation is integer arithmetic on the bits: LLVM rewrites ``(-x) + 0`` into ``0 - x``,
  which loses the sign flip of a NaN.
* A NaN read from a register is quieted explicitly before ``fpext`` (LLVM leaves a
  signalling NaN's quieting by the conversion unspecified).
* No fast-math flags anywhere: no FMA contraction (MAD is not fused), no reassociation.
* EX2 and LG2 call NumPy's own inner loops through function pointers the kernel is
  given (:data:`.numpyloops.NATIVE_LOOPS`), so that they compute exactly what the
  reference engine computes, never a constant address compiled into the code
  (:mod:`.mathloops`, a mixin of :class:`Lowering`).
"""

from __future__ import annotations

import struct
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ....floats import (
    F32_DROPPED_BITS,
    F32_F24_MIN_BITS,
    F32_F24_OVER_BITS,
    RoundingMode,
)
from ...isa import RELATIVE_INDEX_MASK, RELATIVE_OFFSET_RANGE
from ..rules import primitives as P
from . import textir as ir
from .irtypes import F32, F64, I1, I32, I64
from .mathloops import MathLoops

_U32_SIGN = 0x80000000
_U32_ABS = 0x7FFFFFFF
_U32_INF = 0x7F800000
_U32_QUIET = 0x00400000
_U64_SIGN = 0x8000000000000000
_U64_ABS = 0x7FFFFFFFFFFFFFFF
_U64_INF = 0x7FF0000000000000
_U64_QUIET = 1 << 51
# float24 keeps 16 of float64's 52 mantissa bits: 36 are dropped.
_DROP = 36
_DROP_MASK = (1 << _DROP) - 1
# The float64 patterns of 2^-62 (smallest float24 normal) and 2^64 (first magnitude past
# the largest float24); the NaN payload bits float24 keeps (float64 bits 36-51).
_F24_MIN_64 = (1023 - 62) << 52
_F24_OVER_64 = (1023 + 64) << 52
_F24_PAYLOAD_64 = 0x000FFFF000000000
_F24_MIN_32 = F32_F24_MIN_BITS


@dataclass(frozen=True, slots=True)
class _Bits:
    """A float format's bits as round24 sees them: the integer type, the mantissa bits
    below float24's 16, the bits of 2^-62 and 2^64, the magnitude, sign and infinity."""

    kind: ir.Type
    drop: int
    minimum: int
    over: int
    magnitude: int
    sign: int
    infinity: int


_BITS_64 = _Bits(I64, _DROP, _F24_MIN_64, _F24_OVER_64, _U64_ABS, _U64_SIGN, _U64_INF)
_BITS_32 = _Bits(I32, F32_DROPPED_BITS, F32_F24_MIN_BITS, F32_F24_OVER_BITS, _U32_ABS,
                 _U32_SIGN, _U32_INF)
_BOUNDED_HIGH_32 = int(np.float32(P.BOUNDED_HIGH).view(np.uint32))
_OFFSET_LOW, _OFFSET_HIGH = RELATIVE_OFFSET_RANGE


def _outlined(result: ir.Type):
    """A rule that a :class:`Lowering` made with ``outline`` builds once per module, as
    a function of its own, and calls (code that is rarely run: far less to compile)."""

    def wrap(method):
        def outlined(self, *args):
            if not self.outline:
                return method(self, *args)
            module = self.b.module
            name = f"gpuisa.{method.__name__}.{self.rounding}"
            function = module.globals.get(name)
            if function is None:
                kinds = [a.type for a in args]
                function = ir.Function(module, ir.FunctionType(result, kinds), name)
                function.linkage = "internal"
                inner = type(self)(ir.IRBuilder(function.append_basic_block("entry")),
                                   rounding=self.rounding)
                inner.b.ret(method(inner, *function.args))
            return self.b.call(function, list(args))

        outlined.__name__ = method.__name__
        outlined.__doc__ = method.__doc__
        return outlined

    return wrap


class Lowering(MathLoops):
    """The primitive rules as IR built by ``builder`` on values of ``width`` lanes
    (``width`` 1: plain scalars); with ``outline`` (one lane only), the larger rules are
    functions of the module that the code calls.  ``rounding`` is float24's rounding
    mode (``primitives.ROUNDINGS``): every rule that rounds to float24 rounds by it."""

    def __init__(self, builder: ir.IRBuilder, width: int = 1, loops: ir.Value | None = None,
                 outline: bool = False, rounding: RoundingMode = "nearest-even"):
        self.b = builder
        self.width = width
        self.outline = outline and width == 1
        if rounding not in P.ROUNDINGS:
            raise ValueError(f"unknown float24 rounding {rounding!r}")
        self.rounding = rounding
        #: Whether float24 rounding truncates (``primitives.trunc24``) rather than
        #: rounding to nearest even (``primitives.round24``).
        self.truncates = rounding == "truncate"
        #: The table of NumPy inner loops (``i64*``), for EX2 and LG2.
        self.loops = loops
        #: Called with the lanes (an ``i1`` value) whose result a rule cannot decide in
        #: IR, which must then be computed elsewhere (the kernels give those lanes to
        #: the reference engine); None: nobody asks, the IR's guess stands.
        self.unresolved: Callable[[ir.Value], None] | None = None
        self.f32, self.f64, self.i1, self.i32, self.i64 = (
            self.lanes(t) for t in (F32, F64, I1, I32, I64))

    # -- types and constants -------------------------------------------------------------

    def lanes(self, scalar: ir.Type) -> ir.Type:
        return scalar if self.width == 1 else ir.VectorType(scalar, self.width)

    def const(self, scalar: ir.Type, value) -> ir.Constant:
        """``value`` in every lane: one object per type and value, whose text is made
        once (a kernel uses a few hundred constants tens of thousands of times)."""
        key = (str(scalar), _bits(value))
        found = _CONSTANTS[self.width].get(key)
        if found is None:
            found = (ir.Constant(scalar, value) if self.width == 1 else
                     ir.Constant(ir.VectorType(scalar, self.width), [value] * self.width))
            _CONSTANTS[self.width][key] = found
        return found

    def splat(self, value: ir.Value) -> ir.Value:
        """A scalar value in every lane."""
        if self.width == 1:
            return value
        vector = ir.VectorType(value.type, self.width)
        single = self.b.insert_element(ir.Constant(vector, ir.Undefined), value,
                                       ir.Constant(I32, 0))
        return self.b.shuffle_vector(single, ir.Constant(vector, ir.Undefined),
                                     ir.Constant(ir.VectorType(I32, self.width),
                                                 [0] * self.width))

    def is_nan(self, x: ir.Value) -> ir.Value:
        return self.b.fcmp_unordered("uno", x, x)

    # -- values ----------------------------------------------------------------------------

    def quiet32(self, x: ir.Value) -> ir.Value:
        """``primitives.quiet`` of a float32 value (its quiet bit set)."""
        bits = self.b.or_(self.b.bitcast(x, self.i32), self.const(I32, _U32_QUIET))
        return self.b.bitcast(bits, self.f32)

    def quiet_nan32(self, x: ir.Value) -> ir.Value:
        """``x``, quieted if it is a NaN."""
        return self.b.select(self.is_nan(x), self.quiet32(x), x)

    def _first_nan(self, a, b, result, quiet):
        """``result``, or the first NaN operand (quieted by ``quiet``) if there is one."""
        result = self.b.select(self.is_nan(b), quiet(b), result)
        return self.b.select(self.is_nan(a), quiet(a), result)

    @staticmethod
    def _same(x):
        return x

    # -- float24 ---------------------------------------------------------------------------

    @_outlined(F64)
    def round24(self, x: ir.Value) -> ir.Value:
        """``primitives.round24`` (or, truncating, ``primitives.trunc24``) on the bits of
        a float64: to nearest even (or toward zero) at 17 significant bits, below 2^-62
        +0, from 2^64 on an infinity, a NaN keeping its sign and float24's payload bits
        with the quiet bit set."""
        b, c = self.b, lambda v: self.const(I64, v)
        finite, magnitude, sign = self._round24_bits(b.bitcast(x, self.i64), _BITS_64)
        payload = b.and_(b.or_(magnitude, c(_U64_QUIET)), c(_F24_PAYLOAD_64))
        nan = b.or_(b.or_(sign, c(_U64_INF)), payload)
        is_nan = b.icmp_unsigned(">", magnitude, c(_U64_INF))
        return b.bitcast(b.select(is_nan, nan, finite), self.f64)

    def round24_32(self, x: ir.Value) -> ir.Value:
        """:meth:`round24` of a float32 value as a float32 register value
        (``store24(round24(fpext(x)))``) on float32's own bits, for every float32 that
        is not a NaN (a NaN gives some value): widening is exact, and the rule is the
        same at float32's width (the 7 mantissa bits below float24's 16 dropped, 2^-62
        and 2^64 the bounds): ``floats.round_f24``'s algorithm on uint32, which
        ``test_loading.py`` compares it with.  Half the width of the float64 rule, twice
        the lanes."""
        finite, _, _ = self._round24_bits(self.b.bitcast(x, self.i32), _BITS_32)
        return self.b.bitcast(finite, self.f32)

    def _round24_bits(self, u: ir.Value, form: _Bits) -> tuple[ir.Value, ir.Value, ir.Value]:
        """The finite part of round24 on the bits ``u`` of a float of ``form``: the
        rounded bits (+0 below 2^-62, an infinity from 2^64 on), the magnitude's bits
        and the sign bit."""
        b, c = self.b, lambda v: self.const(form.kind, v)
        magnitude = b.and_(u, c(form.magnitude))
        sign = b.and_(u, c(form.sign))
        rounded = magnitude
        if not self.truncates:
            odd = b.and_(b.lshr(magnitude, c(form.drop)), c(1))
            rounded = b.add(b.add(magnitude, odd), c((1 << (form.drop - 1)) - 1))
        rounded = b.and_(rounded, c(~((1 << form.drop) - 1) & form.magnitude))
        small = b.icmp_unsigned("<", rounded, c(form.minimum))
        large = b.icmp_unsigned(">=", rounded, c(form.over))
        finite = b.select(large, b.or_(sign, c(form.infinity)),
                          b.select(small, c(0), b.or_(sign, rounded)))
        return finite, magnitude, sign

    def _rounded17(self, x: ir.Value) -> ir.Value:
        """``x`` at 17 significant bits in this rounding, for finite x: Veltkamp's
        splitting (the primitive's own, ``c - (c - x)``), or the low 36 mantissa bits
        cleared."""
        b = self.b
        if self.truncates:
            bits = b.and_(b.bitcast(x, self.i64), self.const(I64, ~_DROP_MASK))
            return b.bitcast(bits, self.f64)
        c = b.fmul(x, self.const(F64, P.VELTKAMP_SPLIT))
        return b.fsub(c, b.fsub(c, x))

    def round24_in_range(self, x: ir.Value) -> ir.Value:
        """``primitives.round24`` (``trunc24``) in range: the 17-bit rounding without
        the NaN and infinity cases; below 2^-62 +0; a NaN, an infinity or a magnitude
        that float24 rounds to infinity (from 2^64 - 2^46 on to nearest, from 2^64 on
        truncating) gives a NaN.  Equal to the exact rule wherever that gives a finite
        value (test_lowering)."""
        b = self.b
        rounded = self._rounded17(x)
        size = b.call(self._intrinsic_function("fabs", rounded.type), [rounded])
        small = b.fcmp_ordered("<", size, self.const(F64, P.F24_MIN))
        out = b.fcmp_unordered(">=", size, self.const(F64, P.F24_OVER))
        rounded = b.select(small, self.const(F64, 0.0), rounded)
        return b.select(out, self.const(F64, float("nan")), rounded)

    def round24_bounded(self, x: ir.Value) -> ir.Value:
        """``primitives.round24`` (``trunc24``) of the values the arithmetic of bounded
        operands rounds (``primitives.bounded24``: none is flushed or overflows, in
        either rounding).  To nearest: Veltkamp's splitting alone, as ``(x - c) + c``
        (equal to ``c - (c - x)``, IEEE rounding being symmetric, except that a zero
        comes out +0, as round24 gives it).  Truncating: the low bits cleared, then
        + 0.0, which turns -0 into +0 and changes nothing else."""
        b = self.b
        if self.truncates:
            return b.fadd(self._rounded17(x), self.const(F64, 0.0))
        c = b.fmul(x, self.const(F64, P.VELTKAMP_SPLIT))
        return b.fadd(b.fsub(x, c), c)

    def unbounded24(self, x: ir.Value, k: int) -> ir.Value:
        """Whether a float32 register value is not ``primitives.bounded24(x, k)`` (an
        ``i1``): neither one that flush24 makes +0 nor a magnitude in [2^-k, 2^30)."""
        b, c = self.b, lambda v: self.const(I32, v)
        magnitude = b.and_(b.bitcast(x, self.i32), c(_U32_ABS))
        low = (127 - k) << 23  # the bits of 2^-k
        flushed = b.icmp_unsigned("<", magnitude, c(_F24_MIN_32))
        inside = b.icmp_unsigned("<", b.sub(magnitude, c(low)), c(_BOUNDED_HIGH_32 - low))
        return b.not_(b.or_(flushed, inside))

    def nonfinite32(self, x: ir.Value) -> ir.Value:
        """Whether a float32 value is an infinity or a NaN (an ``i1``)."""
        exponent = self.b.and_(self.b.bitcast(x, self.i32), self.const(I32, _U32_INF))
        return self.b.icmp_unsigned("==", exponent, self.const(I32, _U32_INF))

    @_outlined(F64)
    def work24(self, x: ir.Value) -> ir.Value:
        """``primitives.flush24``: a float32 register value as f24 arithmetic sees it,
        as a float64: subnormals and -0 flushed to +0, a NaN quieted."""
        b = self.b
        bits = b.bitcast(x, self.i32)
        magnitude = b.and_(bits, self.const(I32, _U32_ABS))
        flush = b.icmp_unsigned("<", magnitude, self.const(I32, _F24_MIN_32))
        nan = b.icmp_unsigned(">", magnitude, self.const(I32, _U32_INF))
        quieted = b.select(nan, b.or_(bits, self.const(I32, _U32_QUIET)), bits)
        wide = b.fpext(b.bitcast(quieted, self.f32), self.f64)
        return b.select(flush, self.const(F64, 0.0), wide)

    def store24(self, w: ir.Value) -> ir.Value:
        """A rounded float24 working value as a float32 register value (exact)."""
        return self.b.fptrunc(w, self.f32)

    @_outlined(F32)
    def negate24(self, x: ir.Value) -> ir.Value:
        """``primitives.negate24``: the sign flips, -0 becomes +0, a NaN is quieted."""
        b, c = self.b, lambda v: self.const(I32, v)
        u = b.xor(b.bitcast(x, self.i32), c(_U32_SIGN))
        magnitude = b.and_(u, c(_U32_ABS))
        is_nan = b.icmp_unsigned(">", magnitude, c(_U32_INF))
        is_zero = b.icmp_unsigned("==", magnitude, c(0))
        bits = b.select(is_zero, c(0), b.select(is_nan, b.or_(u, c(_U32_QUIET)), u))
        return b.bitcast(bits, self.f32)

    def negate32(self, x: ir.Value) -> ir.Value:
        """``primitives.negate32``: the sign bit flips."""
        return self.b.bitcast(self.b.xor(self.b.bitcast(x, self.i32),
                                         self.const(I32, _U32_SIGN)), self.f32)

    # -- the PICA multiply and addition ------------------------------------------------------

    def _pica_mul(self, a: ir.Value, b: ir.Value, kind: ir.Type, quiet) -> ir.Value:
        """The PICA product of two ``kind`` values: a NaN product that no NaN operand
        explains (0 * inf) is +0; a NaN operand gives itself, quieted by ``quiet``."""
        p = self.b.fmul(a, b)
        p = self.b.select(self.is_nan(p), self.const(kind, 0.0), p)
        return self._first_nan(a, b, p, quiet)

    @_outlined(F64)
    def mul64(self, a: ir.Value, b: ir.Value) -> ir.Value:
        """``primitives.pica_mul`` on f24 working values (already quiet): 0 * inf = +0."""
        return self._pica_mul(a, b, F64, self._same)

    @_outlined(F64)
    def add64(self, a: ir.Value, b: ir.Value) -> ir.Value:
        """``primitives.pica_add`` on f24 working values."""
        return self._first_nan(a, b, self.b.fadd(a, b), self._same)

    @_outlined(F32)
    def mul32(self, a: ir.Value, b: ir.Value) -> ir.Value:
        """``primitives.mul32``."""
        return self._pica_mul(a, b, F32, self.quiet32)

    @_outlined(F32)
    def add32(self, a: ir.Value, b: ir.Value) -> ir.Value:
        """``primitives.add32``."""
        return self._first_nan(a, b, self.b.fadd(a, b), self.quiet32)

    # -- MIN, MAX, comparisons -------------------------------------------------------------

    def _pick(self, predicate, a, b, if_true, if_false):
        holds = self.b.fcmp_ordered(predicate, a, b)
        return self.b.select(holds, if_true, if_false)

    def pica_max(self, a, b):
        """``primitives.pica_max``: ``a if a > b else b``."""
        return self._pick(">", a, b, a, b)

    def pica_min(self, a, b):
        """``primitives.pica_min``: ``a if a < b else b``."""
        return self._pick("<", a, b, a, b)

    def sge(self, a, b):
        """``primitives.sge``."""
        return self._pick(">=", a, b, self.const(F32, 1.0), self.const(F32, 0.0))

    def slt(self, a, b):
        """``primitives.slt``."""
        return self._pick("<", a, b, self.const(F32, 1.0), self.const(F32, 0.0))

    def compare(self, operator: int, a, b):
        """``primitives.compare`` with a constant operator: an ``i1``."""
        if operator >= len(_COMPARISONS):
            return self.const(I1, 1)
        ordered, predicate = _COMPARISONS[operator]
        if ordered:
            return self.b.fcmp_ordered(predicate, a, b)
        return self.b.fcmp_unordered(predicate, a, b)

    # -- scalar units ----------------------------------------------------------------------

    def _intrinsic_function(self, name: str, kind: ir.Type) -> ir.Function:
        module = self.b.module
        element = kind.element if isinstance(kind, ir.VectorType) else kind
        bits = 64 if isinstance(element, ir.DoubleType) else 32
        suffix = f"v{kind.count}f{bits}" if isinstance(kind, ir.VectorType) else f"f{bits}"
        full = f"llvm.{name}.{suffix}"
        function = module.globals.get(full)
        if function is None:
            function = ir.Function(module, ir.FunctionType(kind, [kind]), full)
        return function

    def _intrinsic(self, name: str, x: ir.Value) -> ir.Value:
        return self.b.call(self._intrinsic_function(name, x.type), [x])

    @_outlined(F32)
    def rcp24(self, x):
        """``primitives.rcp24``: 1 / x of the flushed x, rounded (1 / +0 = +inf)."""
        w = self.work24(x)
        return self.store24(self.round24(self.b.fdiv(self.const(F64, 1.0), w)))

    @_outlined(F32)
    def rsq24(self, x):
        """``primitives.rsq24``: 1 / sqrt(x) of the flushed x, rounded (a negative x:
        sqrt gives the FPU's default NaN, as ``primitives.DEFAULT_NAN``)."""
        root = self._intrinsic("sqrt", self.work24(x))
        return self.store24(self.round24(self.b.fdiv(self.const(F64, 1.0), root)))

    def _positive_zero32(self, x):
        """-0 read as +0 (``primitives.rcp32``, ``lg2_32``)."""
        zero = self.b.fcmp_ordered("==", x, self.const(F32, 0.0))
        return self.b.select(zero, self.const(F32, 0.0), x)

    @_outlined(F32)
    def rcp32(self, x):
        """``primitives.rcp32``."""
        x = self._positive_zero32(x)
        return self.b.select(self.is_nan(x), self.quiet32(x),
                             self.b.fdiv(self.const(F32, 1.0), x))

    @_outlined(F32)
    def rsq32(self, x):
        """``primitives.rsq32``: two float32 roundings (sqrt, then the division)."""
        x = self._positive_zero32(x)
        root = self._intrinsic("sqrt", x)
        return self.b.select(self.is_nan(x), self.quiet32(x),
                             self.b.fdiv(self.const(F32, 1.0), root))

    @_outlined(F32)
    def flr24(self, x):
        """``primitives.flr24``."""
        return self.store24(self.round24(self._intrinsic("floor", self.work24(x))))

    @_outlined(F32)
    def flr32(self, x):
        """``primitives.flr32``: the floor, a NaN quieted."""
        return self.b.select(self.is_nan(x), self.quiet32(x), self._intrinsic("floor", x))

    # -- addressing ------------------------------------------------------------------------

    @_outlined(I32)
    def address_from_float(self, x):
        """``primitives.address_from_float``: truncation toward zero, saturating to
        int32, NaN -> 0; an ``i32``."""
        b = self.b
        wide = b.fpext(x, self.f64)
        low = b.fcmp_ordered("<", wide, self.const(F64, -(2.0**31)))
        high = b.fcmp_ordered(">", wide, self.const(F64, 2.0**31 - 1))
        # fptosi of an out-of-range value is poison, which the selects never pick
        value = b.select(low, self.const(I32, -(2**31)),
                         b.select(high, self.const(I32, 2**31 - 1), b.fptosi(wide, self.i32)))
        return b.select(self.is_nan(x), self.const(I32, 0), value)

    def relative_row(self, number: int, offset: ir.Value) -> ir.Value:
        """``primitives.relative_row`` of a constant row and an integer offset (of the
        offset's type)."""
        b = self.b
        kind = offset.type.element if isinstance(offset.type, ir.VectorType) else offset.type
        outside = b.or_(b.icmp_signed("<", offset, self.const(kind, _OFFSET_LOW)),
                        b.icmp_signed(">", offset, self.const(kind, _OFFSET_HIGH)))
        offset = b.select(outside, self.const(kind, 0), offset)
        return b.and_(b.add(offset, self.const(kind, number)),
                      self.const(kind, RELATIVE_INDEX_MASK))


#: ``primitives.compare``'s operators 0-5: (ordered, predicate); NE is unordered (NaN
#: compares unequal).
_COMPARISONS = ((True, "=="), (False, "!="), (True, "<"), (True, "<="), (True, ">"),
                (True, ">="))


#: Width -> (type, value) -> the constant (constants belong to no module or function).
_CONSTANTS: defaultdict[int, dict[tuple, ir.Constant]] = defaultdict(dict)


def _bits(value: object) -> object:
    """A key telling values apart exactly (-0.0 from 0.0, NaN payloads apart)."""
    return struct.pack("<d", value) if isinstance(value, float) else value


#: The primitives each :class:`Lowering` method realises (for the tests and the docs),
#: rounding to nearest even; a ``Lowering`` made with ``rounding="truncate"`` realises
#: ``primitives.trunc24`` in the rounding methods (:data:`ROUNDING_METHODS`) and rounds
#: the results of the others by it.
REALISES = {"round24": P.round24, "round24_in_range": P.round24,
            "round24_bounded": P.round24, "unbounded24": P.bounded24, "work24": P.flush24,
            "negate24": P.negate24,
            "negate32": P.negate32, "mul64": P.pica_mul, "add64": P.pica_add,
            "mul32": P.mul32, "add32": P.add32, "pica_max": P.pica_max,
            "pica_min": P.pica_min, "sge": P.sge, "slt": P.slt, "compare": P.compare,
            "rcp24": P.rcp24, "rsq24": P.rsq24, "rcp32": P.rcp32, "rsq32": P.rsq32,
            "flr24": P.flr24, "flr32": P.flr32, "ex2_24": P.ex2_24, "lg2_24": P.lg2_24,
            "ex2_32": P.ex2_32, "lg2_32": P.lg2_32,
            "address_from_float": P.address_from_float, "relative_row": P.relative_row}
#: The methods that are float24's rounding itself, in the mode of their ``Lowering``.
ROUNDING_METHODS = ("round24", "round24_in_range", "round24_bounded")
