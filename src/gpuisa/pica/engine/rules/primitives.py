"""The primitive hardware rules of the PICA200 ALU, one plain-Python function each.

Sources: 3dbrew "GPU/Shader Instruction Set" (its floating-point table:
pica-emulation.md#fp-table) and the rules of pica-emulation.md, cited by anchor.  Each
function names its compiled realisation, a method of :class:`..compiled.lower.Lowering`
(the LLVM IR the kernels are made of), which names this function back;
``tests/pica/engine/test_lowering.py`` proves the two identical (exhaustively over float24
patterns where feasible, by property tests elsewhere) and ``test_rules.py`` the rounding
identical to :func:`gpuisa.floats.round_f24`, the array realisation that loads inputs.

Values.  A register component is a Python float holding a float32 value exactly; a NaN
holds the float32 NaN's sign and payload widened (float32 mantissa bit ``i`` is float64
bit ``i + 29``), so that a signalling NaN stays signalling (:mod:`..reference.values`
converts).  f24 arithmetic computes on *working* values: exact float64 values
(:func:`flush24`), each result rounded once by :func:`round24`.  f32 arithmetic computes
each operation in float64 and rounds it once to float32 (:func:`to_f32`): for
+, *, / and sqrt of float32 operands that equals the float32 operation (53 >= 2 * 24 + 2
bits, so the double rounding is innocuous).

Python raises where IEEE gives infinities or NaN (1 / 0, sqrt(-1)), so those cases are
explicit.
"""

from __future__ import annotations

import math
import struct
from array import array

import numpy as np

from ....floats import F24_MIN_NORMAL
from ...isa import RELATIVE_INDEX_MASK, RELATIVE_OFFSET_RANGE
from . import libm32
from .libm32 import unit as _unit

_F64 = struct.Struct("<d")
_U64 = struct.Struct("<Q")

#: The smallest float24 normal magnitude, 2^-62, and the first magnitude float24 cannot
#: hold, 2^64 (rounds to infinity) (pica-emulation.md#f24-format).
F24_MIN = F24_MIN_NORMAL
F24_OVER = 2.0**64
#: Veltkamp's splitting constant: float64 keeps 53 bits, float24 17; 2^(53-17) + 1.
VELTKAMP_SPLIT = 2.0**36 + 1.0
_INF64 = 0x7FF0000000000000
_QUIET64 = 1 << 51
#: The float64 NaN payload bits a float24 NaN keeps (its 16 mantissa bits).
_F24_PAYLOAD64 = 0x000FFFF000000000
#: The float64 bits a truncation to float24 keeps: sign, exponent, 16 mantissa bits.
_KEEP24_64 = 0xFFFFFFF000000000
#: float64 values from here on are integers (no fraction bits).
_INTEGRAL = 2.0**52
_INT32_MIN = -(2**31)
_INT32_MAX = 2**31 - 1
_OFFSET_LOW, _OFFSET_HIGH = RELATIVE_OFFSET_RANGE
#: LITP clamps y to +-0x7FFF / 0x100 (3dbrew "GPU/Shader Instruction Set", LITP: "127.9961 =
#: 0x7FFF / 0x100"; pica-emulation.md#compare).
LITP_LIMIT = 0x7FFF / 0x100


# -- bit casts and float32 -------------------------------------------------------------------


def f64_bits(x):
    """The IEEE bits of a float64 (compiled: an LLVM bitcast to a signed integer: the
    rules only mask and set bits 0-62)."""
    return _U64.unpack(_F64.pack(x))[0]


def bits_f64(u):
    """The float64 with IEEE bits ``u`` (compiled: an LLVM bitcast)."""
    return _F64.unpack(_U64.pack(u))[0]


def to_f32(x):
    """``x`` rounded to float32, to nearest even, overflowing to infinity: the C
    conversion, as ``np.float32(x)`` does (compiled: ``np.float64(np.float32(x))``).
    A fresh one-element array each time, so that threads never share it."""
    return array("f", (x,))[0]


#: The FPU's default NaN, what inf - inf and sqrt(-1) give (x86: negative, quiet).
DEFAULT_NAN = math.inf - math.inf


def quiet(x):
    """A NaN with its quiet bit set: what an FPU returns for a NaN operand.  (In the
    widened representation the float32 quiet bit is the float64 one.)"""
    return bits_f64(f64_bits(x) | _QUIET64)


# -- float24 ---------------------------------------------------------------------------------


def round24(x):
    """The float24 rounding of an exact float64 value (pica-emulation.md#f24-rounding; 3dbrew
    "Floating-Point Behavior": "output subnormals are flushed"): 17 significant bits, to nearest
    even (the hardware rounding mode is OPEN; this is gpuisa's default); a magnitude below
    2^-62 after rounding gives +0 (no subnormals, no -0), from 2^64 on +-infinity; a NaN
    keeps its sign and the 16 payload bits float24 has, quiet bit set.

    In range, Veltkamp's splitting (Dekker 1971) rounds: with c = x * (2^36 + 1),
    c - (c - x) is x to nearest even at 17 bits.  Compiled: ``Lowering.round24`` (the
    same rounding on the bits), for finite x below 2^64 - 2^46 in magnitude
    ``Lowering.round24_in_range``, and for the values the arithmetic of
    :func:`bounded24` operands rounds ``Lowering.round24_bounded``; array realisation:
    :func:`gpuisa.floats.round_f24`.
    """
    c = x * VELTKAMP_SPLIT
    r = c - (c - x)
    if F24_MIN <= r < F24_OVER or -F24_OVER < r <= -F24_MIN:
        return r  # the common case, without a call (the reference engine's hot path)
    return range24(x, r)


def trunc24(x):
    """The truncating float24 rounding (pica-emulation.md#f24-truncation, Citra PR #7372):
    17 significant bits toward zero (the 36 low mantissa bits of the float64 cleared),
    then :func:`round24`'s range rules: below 2^-62 +0, from 2^64 on +-infinity (a
    magnitude in [(2 - 2^-16) * 2^63, 2^64) truncates to that largest finite value), a
    NaN keeping its sign and float24's payload bits, quiet bit set.  Compiled:
    ``lower.Lowering.round24`` and its in-range and bounded forms of a ``Lowering`` made
    with ``rounding="truncate"``; array realisation: ``gpuisa.floats.round_f24(x,
    "truncate")``."""
    r = math.copysign(bits_f64(f64_bits(abs(x)) & _KEEP24_64), x)
    if F24_MIN <= r < F24_OVER or -F24_OVER < r <= -F24_MIN:
        return r
    return range24(x, r)


def range24(x, r):
    """The float24 value of ``x`` whose 17-bit rounding (either mode) ``r`` is not a
    float24 normal: +0 (zero, or below 2^-62), +-infinity (from 2^64 on), or float24's
    NaN of ``x``."""
    if x != x:
        payload = (f64_bits(x) | _QUIET64) & _F24_PAYLOAD64
        return math.copysign(bits_f64(_INF64 | payload), x)
    if -F24_OVER < x < F24_OVER and -F24_OVER < r < F24_OVER:
        return 0.0  # zero, or below 2^-62 once rounded
    return math.copysign(math.inf, x)


#: The float24 rounding of each mode of ``gpuisa.floats.ROUNDING_MODES``: the one place
#: that says which rule a mode is.
ROUNDINGS = {"nearest-even": round24, "truncate": trunc24}


def flush24(x):
    """A register value as an f24 arithmetic instruction sees it: subnormal patterns and
    -0 read as +0 (3dbrew: "input subnormals are flushed in arithmetic instructions",
    "mul(s, 2) = 0"; pica-emulation.md#flush); a NaN is quieted (the float32 -> float64 conversion
    does).  Compiled: ``Lowering.work24``."""
    if -F24_MIN < x < F24_MIN:
        return 0.0
    if x != x:
        return quiet(x)
    return x


#: The bounded arithmetic (:func:`bounded24`): operands below 2^30 in magnitude; every
#: product 0 or at least 2^-46 (its factors' bounds add up to at most 46); uniforms at
#: least 2^-16, register values at least 2^-39, a register value multiplied by another
#: at least 2^-23.
BOUNDED_HIGH = 2.0**30
PRODUCT_BOUND = 46
BOUND_UNIFORM = 16
BOUND_FACTOR = 23
BOUND_ADDEND = 39


def bounded24(x, k):
    """Whether a register value is an operand of the bounded arithmetic with bound ``k``:
    one that :func:`flush24` makes +0, or a magnitude in [2^-k, 2^30) (no NaN, no
    infinity).  Compiled: ``Lowering.unbounded24`` (its negation).

    f24 vertex kernels compute ADD, MUL, MAD, DP3, DP4, DPH and DST of inputs and
    uniforms in range without :func:`round24`'s range cases (Veltkamp's splitting alone,
    ``Lowering.round24_bounded``), after checking every operand x with bounds chosen
    by its role (``rules.tree.operand_bounds``): the two factors of each product
    have bounds adding up to at most :data:`PRODUCT_BOUND`, and every other operand is
    bounded by :data:`BOUND_ADDEND`.  Then no value rounded is one that round24 flushes
    or overflows:

    * a product is 0 or in [2^-46, 2^60), so rounded it is a multiple of 2^-62 (a
      float24 of magnitude 2^-46 or more has an ulp of 2^-62 or more); an operand that
      is added is a multiple of 2^-62 too (a float32 from 2^-39 on);
    * sums of multiples of 2^-62 are multiples of 2^-62, and rounding keeps them so
      (below 2^-45 such a value has at most 17 significant bits: it is exact), so every
      value rounded is 0 or at least 2^-62, never one that round24 flushes;
    * every sum of at most four products is at most 2^62, and MAD's at most 2^60 + 2^30:
      below 2^64 - 2^46, where round24 overflows.

    The same holds for :func:`trunc24`: truncation never raises a magnitude (nothing
    reaches 2^64) and keeps a nonzero multiple of 2^-62 from 2^-62 on a nonzero multiple
    of 2^-62 (nothing is flushed); its bounded form clears the low bits alone."""
    return -F24_MIN < x < F24_MIN or 2.0**-k <= abs(x) < BOUNDED_HIGH


def negate24(x):
    """Operand negation in f24 mode: the sign flips, but -(+0) is +0 (float24 registers
    never hold -0; 3dbrew: the hardware "does not seem to have negative 0";
    pica-emulation.md#flush); a NaN is quieted.  Compiled: ``Lowering.negate24``."""
    if x != x:
        return quiet(-x)
    if x == 0.0:
        return 0.0
    return -x


def negate32(x):
    """Operand negation in f32 mode: the sign bit flips, nothing else changes (NaNs
    included).  Compiled: ``Lowering.negate32``."""
    return -x


# -- the PICA multiply and addition ----------------------------------------------------------


def pica_mul(a, b):
    """The PICA multiply: 0 * +-inf = +0 (either order, any signs), everything else IEEE
    (pica-emulation.md#fp-table: "inf * 0 = 0 (including inside MUL, MAD, DP4, etc.)",
    "NaN * 0 = NaN"; pica-emulation.md#mul).  A NaN operand gives the first NaN operand, quieted
    (what an x86 FPU does; the hardware's NaN payloads are unknown).  Exact for f24 working values
    and for float32 values.  Compiled: ``Lowering.mul64`` (f24 working values, already
    quiet) and the product inside ``Lowering.mul32``; for finite operands also the plain
    product (``compiled.alu``'s in-range rules)."""
    p = a * b
    if p != p:
        if a != a:
            return quiet(a)
        if b != b:
            return quiet(b)
        return 0.0
    return p


def pica_add(a, b):
    """IEEE addition; a NaN operand gives the first NaN operand, quieted (inf - inf gives
    the FPU's default NaN).  Compiled: ``Lowering.add64`` and the sum inside
    ``Lowering.add32``; for finite operands also the plain sum (``compiled.alu``'s
    in-range rules)."""
    s = a + b
    if s != s:
        if a != a:
            return quiet(a)
        if b != b:
            return quiet(b)
    return s


def mul32(a, b):
    """The PICA multiply of float32 values, rounded to float32 (f32 mode).  Compiled:
    ``Lowering.mul32``."""
    return to_f32(pica_mul(a, b))


def add32(a, b):
    """Float32 addition with the NaN rule (f32 mode).  Compiled: ``Lowering.add32``."""
    return to_f32(pica_add(a, b))


# -- MIN, MAX and comparisons (no flushing, no rounding) ------------------------------------


def pica_max(a, b):
    """MAX: ``a > b ? a : b``, which reproduces every hardware result (pica-emulation.md#min-max):
    3dbrew's max(0, -inf) = -inf is wrong on hardware; max(0, NaN) = NaN, max(NaN, 0) = 0;
    no flushing (3dbrew: "max(s, 0) = s").  Compiled: ``Lowering.pica_max``."""
    return a if a > b else b


def pica_min(a, b):
    """MIN: ``a < b ? a : b`` (pica-emulation.md#min-max).  Compiled: ``Lowering.pica_min``."""
    return a if a < b else b


def sge(a, b):
    """SGE: 1.0 if a >= b else 0.0; NaN compares false (pica-emulation.md#compare).  Compiled:
    ``Lowering.sge``."""
    return 1.0 if a >= b else 0.0


def slt(a, b):
    """SLT: 1.0 if a < b else 0.0; NaN compares false (pica-emulation.md#compare).  Compiled:
    ``Lowering.slt``."""
    return 1.0 if a < b else 0.0


def compare(operator, a, b):
    """One CMP comparison (pica-isa.md#compare-ops): EQ NE LT LE GT GE as IEEE
    comparisons (NaN compares false except for NE; pica-emulation.md#compare, OPEN for NE);
    operators 6 and 7 are always true; inputs are not flushed (3dbrew: "cmp(s, 0) = false").
    Compiled: ``Lowering.compare``."""
    if operator == 0:
        return a == b
    if operator == 1:
        return a != b
    if operator == 2:
        return a < b
    if operator == 3:
        return a <= b
    if operator == 4:
        return a > b
    if operator == 5:
        return a >= b
    return True


# -- scalar units ----------------------------------------------------------------------------


def rcp64(x):
    """RCP before f24's rounding: 1 / x of the flushed x; rcp(+-0) = +inf."""
    w = flush24(x)
    if w == 0.0:
        return math.inf
    return 1.0 / w


def rcp24(x):
    """RCP in f24: 1 / x of the flushed x, rounded: rcp(+-0) = +inf, rcp(+inf) = 0,
    rcp(NaN) = NaN (pica-emulation.md#fp-table, pica-emulation.md#scalar-units).  Compiled:
    ``Lowering.rcp24``."""
    return round24(rcp64(x))


def rsq64(x):
    """RSQ before f24's rounding: 1 / sqrt(x) of the flushed x; rsq(+-0) = +inf, a
    negative x the FPU's default NaN."""
    w = flush24(x)
    if w == 0.0:
        return math.inf
    if w < 0.0:
        return DEFAULT_NAN
    return 1.0 / math.sqrt(w)


def rsq24(x):
    """RSQ in f24: 1 / sqrt(x) of the flushed x, rounded: rsq(+-0) = +inf, rsq(+inf) = 0,
    rsq(negative) = rsq(-inf) = NaN (pica-emulation.md#fp-table,
    pica-emulation.md#scalar-units).  Compiled:
    ``Lowering.rsq24``."""
    return round24(rsq64(x))


def rcp32(x):
    """RCP in f32: -0 reads as +0 (the PICA has no negative zero), a NaN is quieted, one
    float32 division.  Compiled: ``Lowering.rcp32``."""
    if x != x:
        return quiet(x)
    if x == 0.0:
        return math.inf
    return to_f32(1.0 / x)


def rsq32(x):
    """RSQ in f32: rounded twice (sqrt, then the division), as emulators compute it;
    -0 reads as +0; a negative x gives the default NaN.  Compiled: ``Lowering.rsq32``."""
    if x != x:
        return quiet(x)
    if x == 0.0:
        return math.inf
    if x < 0.0:
        return to_f32(DEFAULT_NAN)
    return to_f32(1.0 / to_f32(math.sqrt(x)))


def floor(x):
    """Floor toward -inf; NaN, infinities, zeros (their sign kept) and integral values
    are returned as they are (pica-emulation.md#flr-mov-mova)."""
    if x == 0.0 or not -_INTEGRAL < x < _INTEGRAL:
        return x
    return float(math.floor(x))


def flr64(x):
    """FLR before f24's rounding: the floor of the flushed x."""
    return floor(flush24(x))


def flr24(x):
    """FLR in f24: the floor of the flushed x, rounded (a NaN quieted, with float24's
    payload).  Compiled: ``Lowering.flr24``."""
    return round24(flr64(x))


def flr32(x):
    """FLR in f32: the floor; a NaN is quieted.  Compiled: ``Lowering.flr32``."""
    if x != x:
        return quiet(x)
    return floor(x)


def ex2_64(x):
    """EX2 before f24's rounding: 2^x of the flushed x by NumPy's float64 exp2."""
    return _unit(np.exp2, np.float64(flush24(x)))


def ex2_24(x):
    """EX2 in f24: 2^x of the flushed x by NumPy's float64 exp2, rounded: ex2(-inf) = 0,
    ex2(+inf) = +inf, overflow to +inf (pica-emulation.md#scalar-units).  NumPy's own function,
    because the compiled engine calls NumPy's inner loop (``Lowering.ex2_24``): both give the same
    bits even where NumPy's SVML code differs from libm in the last place."""
    return round24(ex2_64(x))


def lg2_64(x):
    """LG2 before f24's rounding: log2 of the flushed x by NumPy's float64 log2."""
    return _unit(np.log2, np.float64(flush24(x)))


def lg2_24(x):
    """LG2 in f24: log2 of the flushed x by NumPy's float64 log2, rounded: lg2(0) =
    -inf, lg2(negative) = NaN, lg2(+inf) = +inf (pica-emulation.md#scalar-units).  Compiled:
    ``Lowering.lg2_24``."""
    return round24(lg2_64(x))


def ex2_32(x):
    """EX2 in f32: 2^x correctly rounded to float32 (pica-emulation.md#f32-ex2-lg2).
    Compiled: ``Lowering.ex2_32``."""
    return libm32.ex2_32(x)


def lg2_32(x):
    """LG2 in f32: log2 of x (-0 read as +0) correctly rounded to float32
    (pica-emulation.md#f32-ex2-lg2).  Compiled: ``Lowering.lg2_32``."""
    return libm32.lg2_32(x)


# -- addressing ------------------------------------------------------------------------------


def address_from_float(x):
    """MOVA's float -> address register conversion: truncation toward zero (3dbrew MOVA,
    pica-emulation.md#flr-mov-mova: "truncating the fractional part"; HW 0.9 -> 0); out of the
    int32 range saturates and NaN gives 0 (unknown on hardware, gpuisa's choice).  Compiled:
    ``Lowering.address_from_float``."""
    if x != x:
        return 0
    if x < _INT32_MIN:
        return _INT32_MIN
    if x > _INT32_MAX:
        return _INT32_MAX
    return int(x)


def relative_row(number, offset):
    """The uniform row ``c[number + offset]`` reads (pica-emulation.md#relative): an
    offset outside -128..127 is not applied; the sum is masked with 0x7F (rows 96-127
    read (1, 1, 1, 1)).  Compiled: ``Lowering.relative_row``."""
    if offset < _OFFSET_LOW or offset > _OFFSET_HIGH:
        offset = 0
    return (number + offset) & RELATIVE_INDEX_MASK
