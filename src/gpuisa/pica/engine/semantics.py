"""The PICA200 shader ALU: every opcode's math and every hardware rule, written once.

All functions work on component-major arrays: a register of N lanes is a ``(4, N)``
float32 array (row 0 = x ... row 3 = w), a per-lane scalar a ``(N,)`` array.  The
reference engine calls them with N = 1, batch engines with many lanes; neither engine
re-implements any of the math below.

Sources: 3dbrew "GPU/Shader Instruction Set" (``seeds/002``: instruction table,
"Floating-Point Behavior", "Relative addressing", "Comparison operator", "Conditions")
and ``docs/pica-emulation-notes.md`` (cited as "notes §n").

Precision modes (``precision`` argument):

``"f24"`` (default of the engines)
    Every register holds a float24 value.  An arithmetic instruction first flushes its
    inputs (:func:`~gpuisa.floats.flush_f24_subnormal`: subnormal patterns and -0 become
    +0), computes each operation exactly (float64 holds every product of two float24
    values exactly, and the sum of two float24 values either exactly or far from a
    rounding tie), and rounds each result once with :func:`~gpuisa.floats.round_f24`
    (round to nearest even, flush below 2^-62 to +0, overflow to infinity, no -0).  Each
    product and each partial sum of DP3/DP4/DPH and MAD is rounded (notes §1.3, seed:
    MAD "is not an FMA, the intermediate result is rounded").  The hardware rounding
    mode itself is unknown (notes §1.3 OPEN); round-to-nearest-even is gpuisa's choice.
``"f32"``
    IEEE float32 arithmetic with the same PICA rules (zero-times-infinity, MIN/MAX, the
    RCP/RSQ special cases), which is what Azahar, Citra and 3Beans compute (notes §1.3):
    no float24 rounding, no flushing, and -0 results are kept.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Literal, TypeVar

import numpy as np

from ...errors import InputError
from ...floats import flush_f24_subnormal, round_f24
from ..isa import (
    NUM_FLOAT_UNIFORMS,
    RELATIVE_INDEX_MASK,
    RELATIVE_OFFSET_RANGE,
    CompareOp,
    CondOp,
    Opcode,
)

_T = TypeVar("_T")

Precision = Literal["f24", "f32"]
PRECISIONS: tuple[str, ...] = ("f24", "f32")

#: LITP clamps y to +-0x7FFF / 0x100 (seed, LITP row: "127.9961 = 0x7FFF / 0x100").
LITP_Y_LIMIT = 0x7FFF / 0x100

_INT32 = (-(2**31), 2**31 - 1)


def check_precision(precision: object) -> Precision:
    if precision not in PRECISIONS:
        raise InputError(f"unknown precision {precision!r} (expected 'f24' or 'f32')")
    return precision  # type: ignore[return-value]


# -- values entering the shader unit -------------------------------------------------------


def load_floats(values: np.ndarray, precision: Precision) -> np.ndarray:
    """Register contents for float values handed in from outside (inputs, uniforms, initial
    registers): float24 values in f24 mode (the one rounding rule, applied to the exact
    value even when it comes as float64), float32 values in f32 mode."""
    values = np.asarray(values)
    if precision == "f24":
        if values.dtype == np.float64:
            values = _narrow_to_odd(values)
        return round_f24(values)
    with np.errstate(over="ignore"):
        return values.astype(np.float32)


# -- the rounding step ---------------------------------------------------------------------


def _narrow_to_odd(x: np.ndarray) -> np.ndarray:
    """float64 -> float32, rounding toward zero and setting the lowest bit when inexact.

    Rounding a float64 result to float32 to nearest and then to float24 could round twice
    (a float32 tie that the exact value does not have).  Rounding to odd keeps a sticky
    bit instead, so that :func:`round_f24` then rounds exactly as if it saw the float64
    value: float32 keeps 7 bits more than float24, at least the 2 this needs.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        f = x.astype(np.float32)
        back = f.astype(np.float64)
    inexact = (back != x) & np.isfinite(x)
    if inexact.any():
        away = inexact & (np.abs(back) > np.abs(x))
        f[away] = np.nextafter(f[away], np.float32(0))
        f.view(np.uint32)[inexact] |= np.uint32(1)
    return f


def _working(x: np.ndarray, precision: Precision) -> np.ndarray:
    """An arithmetic instruction's view of a register value.

    f24: subnormal inputs (and -0) are flushed to +0 (seed: "input subnormals are flushed
    in arithmetic instructions", "mul(s, 2) = 0"); computed in float64.  f32: unchanged.
    """
    if precision == "f24":
        return flush_f24_subnormal(x).astype(np.float64)
    return x


def _rounded(r: np.ndarray, precision: Precision) -> np.ndarray:
    """The value an operation delivers, in the working dtype: in f24 mode rounded by
    :func:`round_f24` (seed: "output subnormals are flushed", "mul(n, 0.5) = 0"; no -0;
    overflow to infinity, notes §1.3).  float32 operations are already rounded."""
    if precision == "f24":
        return round_f24(_narrow_to_odd(r)).astype(np.float64)
    return r


def _store(w: np.ndarray) -> np.ndarray:
    return w.astype(np.float32)


def _broadcast(scalar: np.ndarray) -> np.ndarray:
    """A per-lane result written to all four components (the scalar units and DPx)."""
    return np.repeat(scalar[np.newaxis], 4, axis=0)


# -- hardware rules ------------------------------------------------------------------------


def pica_mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The PICA multiply: 0 * +-inf = +0 (either order, any signs); everything else IEEE.

    Seed table: "inf * 0 = 0 (including inside MUL, MAD, DP4, etc.)", "NaN * 0 = NaN";
    notes §3.1.  Used by MUL, MAD, DP3, DP4, DPH and DST.
    """
    with np.errstate(invalid="ignore", over="ignore", under="ignore"):
        p = a * b
    zero_times_inf = np.isnan(p) & ~np.isnan(a) & ~np.isnan(b)
    return np.where(zero_times_inf, p.dtype.type(0), p)


def pica_max(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a > b ? a : b`` — reproduces every hardware result (notes §3.2).

    The seed's table says max(0, -inf) = -inf; hardware tests give 0, and this formula
    follows the hardware.  NaN: max(0, NaN) = NaN, max(NaN, 0) = 0.  No flushing (seed:
    "max(s, 0) = s").
    """
    return np.where(a > b, a, b)


def pica_min(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a < b ? a : b`` (notes §3.2): min(0, NaN) = NaN, min(NaN, 0) = 0, no flushing."""
    return np.where(a < b, a, b)


def _positive_zero(x: np.ndarray) -> np.ndarray:
    """-0 read as +0: the PICA has no negative zero (seed: rcp(-0) = rsq(-0) = +inf)."""
    return np.where(x == 0, x.dtype.type(0), x)


def negate(x: np.ndarray, precision: Precision) -> np.ndarray:
    """Operand negation.  In f24 mode -(+0) is +0: float24 registers never hold -0 (seed:
    the hardware "does not seem to have negative 0")."""
    if precision == "f24":
        return np.negative(x) + np.float32(0)  # IEEE: -0 + +0 = +0, every other value kept
    return np.negative(x)


def select(register: np.ndarray, swizzle: np.ndarray, negated: bool,
           precision: Precision) -> np.ndarray:
    """A source operand: the register's rows picked by the swizzle, then negated."""
    value = register[swizzle]
    return negate(value, precision) if negated else value


def relative_uniform_index(number: int, offset: np.ndarray) -> np.ndarray:
    """Index into c0-c127 read by ``c[number + offset]`` (seed "Relative addressing").

    An offset outside -128..127 is not applied; the sum is masked with 0x7F.  Indices 96
    to 127 do not exist: they read (1, 1, 1, 1), which the uniform table models as rows
    96-127 filled with ones.
    """
    low, high = RELATIVE_OFFSET_RANGE
    offset = np.where((offset < low) | (offset > high), 0, offset)
    return (number + offset) & RELATIVE_INDEX_MASK


#: Number of rows of a uniform table indexed by :func:`relative_uniform_index`.
UNIFORM_TABLE_ROWS = RELATIVE_INDEX_MASK + 1
#: First row past c95: every row from here reads (1, 1, 1, 1).
MISSING_UNIFORM_ROW = NUM_FLOAT_UNIFORMS

_COMPARE: dict[CompareOp, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    CompareOp.EQ: np.equal,
    CompareOp.NE: np.not_equal,
    CompareOp.LT: np.less,
    CompareOp.LE: np.less_equal,
    CompareOp.GT: np.greater,
    CompareOp.GE: np.greater_equal,
}


def compare(operator: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """One CMP comparison (seed "Comparison operator"): IEEE comparisons, so NaN compares
    false except for NE (notes §3.5, OPEN for NE); operators 6 and 7 are always true.
    Inputs are not flushed (seed: "cmp(s, 0) = false")."""
    op = CompareOp(operator)
    if op in _COMPARE:
        return _COMPARE[op](a, b)
    return np.ones(np.broadcast_shapes(a.shape, b.shape), dtype=bool)


def condition(condop: int, refx: int, refy: int, cmp: np.ndarray) -> np.ndarray:
    """The condition of IFC/CALLC/JMPC/BREAKC for each lane (seed "Conditions").

    ``cmp`` is the ``(2, N)`` flag array (cmp.x, cmp.y).
    """
    x = cmp[0] == bool(refx)
    y = cmp[1] == bool(refy)
    op = CondOp(condop)
    if op is CondOp.OR:
        return x | y
    if op is CondOp.AND:
        return x & y
    return x if op is CondOp.X else y


def jmpu_taken(value: np.ndarray | bool, num: int) -> np.ndarray:
    """JMPU jumps if the bool uniform equals !(NUM & 1): bit 0 of NUM inverts the test."""
    return np.asarray(value) == (not num & 1)


def address_from_float(x: np.ndarray) -> np.ndarray:
    """MOVA's float -> address-register conversion: truncation toward zero (seed MOVA:
    "truncating the fractional part"; HW 0.9 -> 0).  Out of int32 range saturates and NaN
    gives 0 (notes §3.6: unknown on hardware, gpuisa's choice)."""
    t = np.trunc(x.astype(np.float64))
    t = np.where(np.isnan(t), 0.0, np.clip(t, *_INT32))
    return t.astype(np.int64)


# -- the opcodes ---------------------------------------------------------------------------
# Each function takes the source operands (already swizzled and negated, (4, N) float32)
# and returns the (4, N) float32 result; the caller writes the masked components.


def _ieee(function: Callable[..., _T]) -> Callable[..., _T]:
    """NaN, infinities and overflow are ordinary values here: no floating-point warnings
    (a fresh errstate per call, so that threads and nesting are safe)."""

    @functools.wraps(function)
    def wrapper(*args: object, **kwargs: object) -> _T:
        with np.errstate(all="ignore"):
            return function(*args, **kwargs)

    return wrapper



@_ieee
def op_add(src: Sequence[np.ndarray], precision: Precision) -> np.ndarray:
    a, b = (_working(s, precision) for s in src[:2])
    return _store(_rounded(a + b, precision))


@_ieee
def op_mul(src: Sequence[np.ndarray], precision: Precision) -> np.ndarray:
    a, b = (_working(s, precision) for s in src[:2])
    return _store(_rounded(pica_mul(a, b), precision))


@_ieee
def op_mad(src: Sequence[np.ndarray], precision: Precision) -> np.ndarray:
    """SRC1 * SRC2 + SRC3, the product rounded before the addition (seed: not an FMA)."""
    a, b, c = (_working(s, precision) for s in src[:3])
    product = _rounded(pica_mul(a, b), precision)
    return _store(_rounded(product + c, precision))


def _dot(a: np.ndarray, b: np.ndarray, precision: Precision) -> np.ndarray:
    """Sum of PICA products, left to right from +0 ((((0 + p0) + p1) + p2) ...), each
    product and partial sum rounded (notes §3.1: hardware order OPEN; Azahar's
    interpreter sums this way, starting from zero)."""
    products = _rounded(pica_mul(a, b), precision)
    total = np.zeros(a.shape[1:], dtype=a.dtype)
    for product in products:
        total = _rounded(total + product, precision)
    return _broadcast(_store(total))


@_ieee
def op_dp3(src: Sequence[np.ndarray], precision: Precision) -> np.ndarray:
    """x, y, z of both sources (seed: "dot product on 3-component vectors")."""
    a, b = (_working(s, precision) for s in src[:2])
    return _dot(a[:3], b[:3], precision)


@_ieee
def op_dp4(src: Sequence[np.ndarray], precision: Precision) -> np.ndarray:
    a, b = (_working(s, precision) for s in src[:2])
    return _dot(a, b, precision)


@_ieee
def op_dph(src: Sequence[np.ndarray], precision: Precision) -> np.ndarray:
    """DP4 with SRC1.w replaced by 1.0 (seed: "with SRC1 homogenous"); SRC1.w is unread."""
    a, b = (_working(s, precision) for s in src[:2])
    a = np.concatenate([a[:3], np.ones_like(a[3:])])
    return _dot(a, b, precision)


@_ieee
def op_dst(src: Sequence[np.ndarray], precision: Precision) -> np.ndarray:
    """(1, SRC1.y * SRC2.y, SRC1.z, SRC2.w) (seed DST; the product is the PICA multiply,
    notes §3.1).  The I-form computes the same function of (SRC1, SRC2) (notes §3)."""
    a, b = (_working(s, precision) for s in src[:2])
    one = np.ones_like(a[0])
    rows = [one, pica_mul(a[1], b[1]), a[2], b[3]]
    return _store(np.stack([_rounded(r, precision) for r in rows]))


@_ieee
def op_flr(src: Sequence[np.ndarray], precision: Precision) -> np.ndarray:
    """Per-component floor (toward -inf); NaN and infinities are kept (notes §3.6)."""
    return _store(_rounded(np.floor(_working(src[0], precision)), precision))


def _scalar(src: Sequence[np.ndarray], precision: Precision) -> np.ndarray:
    """SRC1.x, the only component RCP, RSQ, EX2 and LG2 read (seed, notes §3.3)."""
    return _working(src[0], precision)[0]


@_ieee
def op_rcp(src: Sequence[np.ndarray], precision: Precision) -> np.ndarray:
    """1 / SRC1.x: rcp(+-0) = +inf, rcp(+inf) = 0, rcp(NaN) = NaN (seed table)."""
    x = _positive_zero(_scalar(src, precision))
    return _broadcast(_store(_rounded(x.dtype.type(1) / x, precision)))


@_ieee
def op_rsq(src: Sequence[np.ndarray], precision: Precision) -> np.ndarray:
    """1 / sqrt(SRC1.x): rsq(+-0) = +inf, rsq(-2) = NaN, rsq(+inf) = 0, rsq(-inf) = NaN
    (seed table).  f32 mode rounds twice (sqrt, then divide), as emulators do."""
    x = _positive_zero(_scalar(src, precision))
    return _broadcast(_store(_rounded(x.dtype.type(1) / np.sqrt(x), precision)))


@_ieee
def op_ex2(src: Sequence[np.ndarray], precision: Precision) -> np.ndarray:
    """2^SRC1.x: ex2(-inf) = 0, ex2(+inf) = +inf, overflow to +inf (notes §3.3)."""
    return _broadcast(_store(_rounded(np.exp2(_scalar(src, precision)), precision)))


@_ieee
def op_lg2(src: Sequence[np.ndarray], precision: Precision) -> np.ndarray:
    """log2(SRC1.x): lg2(0) = -inf, lg2(negative) = NaN, lg2(+inf) = +inf (notes §3.3)."""
    x = _positive_zero(_scalar(src, precision))
    return _broadcast(_store(_rounded(np.log2(x), precision)))


@_ieee
def op_max(src: Sequence[np.ndarray], precision: Precision) -> np.ndarray:
    return pica_max(src[0], src[1])


@_ieee
def op_min(src: Sequence[np.ndarray], precision: Precision) -> np.ndarray:
    return pica_min(src[0], src[1])


@_ieee
def op_sge(src: Sequence[np.ndarray], precision: Precision) -> np.ndarray:
    """SRC1 >= SRC2 ? 1.0 : 0.0; NaN gives 0.0 (notes §3.5)."""
    return (src[0] >= src[1]).astype(np.float32)


@_ieee
def op_slt(src: Sequence[np.ndarray], precision: Precision) -> np.ndarray:
    """SRC1 < SRC2 ? 1.0 : 0.0; NaN gives 0.0 (notes §3.5)."""
    return (src[0] < src[1]).astype(np.float32)


@_ieee
def op_mov(src: Sequence[np.ndarray], precision: Precision) -> np.ndarray:
    """A copy: no rounding and no flushing (notes §3.4)."""
    return src[0].copy()


@_ieee
def op_litp(src: Sequence[np.ndarray], precision: Precision) -> tuple[np.ndarray, np.ndarray]:
    """LITP: the result and the new ``(2, N)`` cmp flags.

    Result (max(x, 0), clamp(y, -127.9961, 127.9961), 0, max(w, 0)); cmp.x = x >= 0,
    cmp.y = w >= 0 (seed LITP row; confirmed by Panda3DS's hardware test PICA_LITP).
    max/min are the hardware MAX/MIN rules, so NaN x or w gives 0 and a NaN y gives
    +127.9961 (OPEN: untested on hardware).  No flushing (notes §3.4).
    """
    s = src[0]
    zero = np.zeros_like(s[0])
    limit = np.full_like(s[1], LITP_Y_LIMIT)
    y = pica_max(pica_min(s[1], limit), -limit)
    result = np.stack([pica_max(s[0], zero), y, zero, pica_max(s[3], zero)])
    flags = np.stack([s[0] >= 0, s[3] >= 0])
    return result, flags


@_ieee
def op_cmp(src: Sequence[np.ndarray], cmpx: int, cmpy: int) -> np.ndarray:
    """CMP: the new ``(2, N)`` flags, cmp.x from the x components, cmp.y from y (seed)."""
    return np.stack([compare(cmpx, src[0][0], src[1][0]), compare(cmpy, src[0][1], src[1][1])])


#: Opcodes whose result is a (4, N) vector written through the destination mask.  The
#: I-forms are looked up by their base opcode (DPHI -> DPH, MADI -> MAD, ...).
VECTOR_OPS: dict[Opcode, Callable[[Sequence[np.ndarray], Precision], np.ndarray]] = {
    Opcode.ADD: op_add,
    Opcode.DP3: op_dp3,
    Opcode.DP4: op_dp4,
    Opcode.DPH: op_dph,
    Opcode.DST: op_dst,
    Opcode.EX2: op_ex2,
    Opcode.LG2: op_lg2,
    Opcode.MUL: op_mul,
    Opcode.SGE: op_sge,
    Opcode.SLT: op_slt,
    Opcode.FLR: op_flr,
    Opcode.MAX: op_max,
    Opcode.MIN: op_min,
    Opcode.RCP: op_rcp,
    Opcode.RSQ: op_rsq,
    Opcode.MOV: op_mov,
    Opcode.MAD: op_mad,
}
