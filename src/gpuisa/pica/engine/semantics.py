"""The PICA200 shader ALU on NumPy arrays, for the batch engine (to be removed).

The rules are defined once in :mod:`.rules` (plain-Python primitives and one recipe per
opcode, which the reference and the compiled engines run); this module is the batch
engine's array form of them, kept equal to the reference by the differential tests.
Loading values (:func:`load_floats`), the precision names and the uniform-table layout
used by every engine live here too for now.

All functions work on component-major arrays: a register of N lanes is a ``(4, N)``
float32 array (row 0 = x ... row 3 = w), a per-lane scalar a ``(N,)`` array (and
``(k, 1)`` columns for uniform operands, which broadcast).

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

NaN results.  When an addition or multiplication has a NaN operand, the result is the
first NaN operand, quieted (what an x86 FPU does).  NumPy's vectorised loops do not
keep operand order, so the rule is applied explicitly (:func:`first_nan`) and does not
depend on how many lanes run together.  The hardware's NaN payloads are unknown.

Arithmetic contexts.  The opcodes are written once against an :class:`Arith` context
that says how to flush, multiply, add, round and store.  :func:`exact` gives the
definition above and is what the reference engine uses.  :func:`fast` gives cheaper
arithmetic that computes the same bits under a precondition the caller checks:

* f32 (:class:`F32Fast`): plain IEEE operations, valid when the instruction's result
  holds no NaN (then no operand and no intermediate value was NaN, the only place where
  the two differ: zero-times-infinity and NaN payloads);
* f24 (:class:`F24Fast`): valid when the magnitudes of the source values admit it
  (:func:`f24_fast_admits`: no NaN, infinity or subnormal, products and sums that can
  neither overflow nor produce a nonzero value below 2^-62).  Then no flushing is
  needed, and rounding to float24 is Veltkamp's splitting (:func:`round_to_f24_bits`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Literal, TypeVar

import numpy as np

from ...errors import InputError
from ...floats import F24_MAN_BITS, F24_MIN_NORMAL, flush_f24_subnormal, round_f24
from ..isa import (
    NUM_FLOAT_UNIFORMS,
    RELATIVE_INDEX_MASK,
    RELATIVE_OFFSET_RANGE,
    CompareOp,
    CondOp,
    Opcode,
)
from .rules.primitives import LITP_LIMIT

_T = TypeVar("_T")

Precision = Literal["f24", "f32"]
PRECISIONS: tuple[str, ...] = ("f24", "f32")

_INT32 = (-(2**31), 2**31 - 1)


def check_precision(precision: object) -> Precision:
    if precision not in PRECISIONS:
        raise InputError(f"unknown precision {precision!r} (expected 'f24' or 'f32')")
    return precision  # type: ignore[return-value]


def _ieee(function: Callable[..., _T]) -> Callable[..., _T]:
    """NaN, infinities and overflow are ordinary values here: no floating-point warnings
    (a fresh errstate per call, so that threads and nesting are safe)."""

    @functools.wraps(function)
    def wrapper(*args: object, **kwargs: object) -> _T:
        with np.errstate(all="ignore"):
            return function(*args, **kwargs)

    return wrapper


# -- values entering the shader unit -------------------------------------------------------


def load_floats(values: np.ndarray, precision: Precision,
                out: np.ndarray | None = None) -> np.ndarray:
    """Register contents for float values handed in from outside (inputs, uniforms, initial
    registers): float24 values in f24 mode (the one rounding rule, applied to the exact
    value even when it comes as float64), float32 values in f32 mode.

    Writes into ``out`` (float32, the shape of ``values``) when given and returns it.
    Large arrays are converted a block of rows at a time, so that the temporaries stay
    in the CPU's cache and 10^7 vertices need no float64 copy.
    """
    values = np.asarray(values)
    if out is None:
        out = np.empty(values.shape, np.float32)
    if values.ndim < 2:
        _load_block(values, precision, out)
        return out
    per_row = max(1, values.size // max(1, values.shape[0]))
    rows = max(1, _LOAD_BLOCK // per_row)
    for start in range(0, values.shape[0], rows):
        _load_block(values[start:start + rows], precision, out[start:start + rows])
    return out


#: Values converted at a time by :func:`load_floats`: 256 KiB of float32, which keeps
#: round_f24's temporaries in the L2 cache (about twice as fast as whole arrays).
_LOAD_BLOCK = 1 << 16
#: Dtypes whose every value is a float32 value: round_f24 sees their exact values.
_EXACT_IN_FLOAT32 = frozenset(np.dtype(t) for t in (
    np.float32, np.float16, np.int8, np.uint8, np.int16, np.uint16, np.bool_))


def _load_block(values: np.ndarray, precision: Precision, out: np.ndarray) -> None:
    with np.errstate(over="ignore", invalid="ignore"):
        if precision == "f32":
            np.copyto(out, values, casting="unsafe")
        elif values.dtype in _EXACT_IN_FLOAT32:
            round_f24(values, out=out)
        else:
            # F24Exact.rounded rounds the exact float64 value once (round-to-odd
            # narrowing, then round_f24).
            np.copyto(out, F24Exact().rounded(values.astype(np.float64, copy=False)),
                      casting="unsafe")


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


#: Veltkamp's splitting constant for float64: 2^(53 - 17) + 1.
_SPLIT_F64 = float(2 ** (53 - (F24_MAN_BITS + 1)) + 1)
#: The first magnitude float24 cannot hold (rounds to infinity).
_F24_OVERFLOW = 2.0**64


def round_to_f24_bits(x: np.ndarray, out: np.ndarray | None = None,
                      scratch: np.ndarray | None = None) -> np.ndarray:
    """``x`` (float64) rounded to the 17 significant bits of float24, to nearest even.

    Veltkamp's splitting (Dekker 1971): with c = x * (2^36 + 1), the rounded value is
    c - (c - x).  For float64 in round-to-nearest-even it yields the nearest 17-bit value
    with ties to even, the same rounding :func:`~gpuisa.floats.round_f24` applies (pinned
    by the engine tests on random and tie-heavy values).  It knows nothing about the
    float24 range: callers use it only for finite values whose results stay within
    [2^-62, 2^64).  ``out`` (which may be ``x``) and ``scratch`` avoid allocations.
    """
    c = np.multiply(x, _SPLIT_F64, out=scratch)
    d = np.subtract(c, x, out=out)
    return np.subtract(c, d, out=d)


# -- NaN results ---------------------------------------------------------------------------

_QUIET = {np.dtype(np.float32): (np.uint32, np.uint32(1 << 22)),
          np.dtype(np.float64): (np.uint64, np.uint64(1 << 51))}


def quieted(x: np.ndarray) -> np.ndarray:
    """``x`` with the quiet bit set on its NaNs (what an FPU returns for a NaN operand)."""
    x = np.asarray(x)
    utype, bit = _QUIET[x.dtype]
    u = x.view(utype)
    return np.where(np.isnan(x), u | bit, u).view(x.dtype)


def first_nan(result: np.ndarray, *operands: np.ndarray) -> np.ndarray:
    """``result`` with each NaN lane replaced by its first NaN operand, quieted.

    Lanes where no operand is NaN keep the NaN the operation produced (infinity minus
    infinity gives the FPU's default NaN in every NumPy loop).
    """
    nan = np.isnan(result)
    if not nan.any():
        return result
    out = result
    for operand in reversed(operands):
        out = np.where(np.isnan(operand), quieted(operand), out)
    return np.where(nan, out, result).astype(result.dtype, copy=False)


# -- hardware rules ------------------------------------------------------------------------


def pica_mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The PICA multiply: 0 * +-inf = +0 (either order, any signs); everything else IEEE.

    Seed table: "inf * 0 = 0 (including inside MUL, MAD, DP4, etc.)", "NaN * 0 = NaN";
    notes §3.1.  Used by MUL, MAD, DP3, DP4, DPH and DST.
    """
    with np.errstate(invalid="ignore", over="ignore", under="ignore"):
        p = first_nan(a * b, a, b)
    zero_times_inf = np.isnan(p) & ~np.isnan(a) & ~np.isnan(b)
    return np.where(zero_times_inf, p.dtype.type(0), p)


def pica_add(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IEEE addition with the NaN rule of :func:`first_nan`."""
    with np.errstate(invalid="ignore", over="ignore"):
        return first_nan(a + b, a, b)


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


def condition_reads(condop: int) -> tuple[int, ...]:
    """The cmp flags (0 = x, 1 = y) a condition depends on."""
    op = CondOp(condop)
    return (0,) if op is CondOp.X else (1,) if op is CondOp.Y else (0, 1)


def jmpu_taken(value: np.ndarray | bool, num: int) -> np.ndarray:
    """JMPU jumps if the bool uniform equals !(NUM & 1): bit 0 of NUM inverts the test."""
    return np.asarray(value) == (not num & 1)


def address_from_float(x: np.ndarray) -> np.ndarray:
    """MOVA's float -> address-register conversion: truncation toward zero (seed MOVA:
    "truncating the fractional part"; HW 0.9 -> 0).  Out of int32 range saturates and NaN
    gives 0 (notes §3.6: unknown on hardware, gpuisa's choice)."""
    with np.errstate(invalid="ignore"):
        t = np.trunc(x.astype(np.float64))
    t = np.where(np.isnan(t), 0.0, np.clip(t, *_INT32))
    return t.astype(np.int64)


# -- arithmetic contexts -------------------------------------------------------------------


class Arena:
    """Scratch arrays for one instruction at a time: ``take`` hands out an array that
    nothing else uses until ``reset``, after which every array is handed out again.

    Engines that execute many lanes reset it before each instruction (whose values are
    all consumed by the time its result is stored); allocating large temporaries for
    every operation would cost more than the arithmetic (fresh pages).
    """

    #: Shapes kept at most (groups of many sizes would otherwise accumulate arrays).
    LIMIT = 64

    def __init__(self) -> None:
        self._pools: dict[tuple, list[np.ndarray]] = {}
        self._used: dict[tuple, int] = {}

    def take(self, shape: tuple[int, ...], dtype: type) -> np.ndarray:
        key = (shape, dtype)
        pool = self._pools.get(key)
        if pool is None:
            if len(self._pools) >= self.LIMIT:
                self._pools = {k: v for k, v in self._pools.items() if k in self._used}
            pool = self._pools[key] = []
        index = self._used.get(key, 0)
        self._used[key] = index + 1
        if index == len(pool):
            pool.append(np.empty(shape, dtype))
        return pool[index]

    def reset(self) -> None:
        self._used.clear()


def _shape(a: np.ndarray, b: np.ndarray) -> tuple[int, ...]:
    """The broadcast shape of two operands (which are compatible)."""
    sa, sb = a.shape, b.shape
    if sa == sb:
        return sa
    if len(sa) == len(sb):
        return tuple(x if x != 1 else y for x, y in zip(sa, sb, strict=True))
    return np.broadcast_shapes(sa, sb)


class Arith:
    """How an instruction flushes, multiplies, adds, rounds and stores (see the module
    docstring).  ``working`` turns register values into the working dtype; ``mul`` and
    ``add`` return rounded working values; ``accumulate(p)`` is ``0 + p`` for the first
    term of a dot product; ``store`` returns float32 register contents.  A context with
    an :class:`Arena` takes its results' arrays from it."""

    precision: Precision

    def __init__(self, arena: Arena | None = None):
        self.arena = arena

    def new(self, shape: tuple[int, ...], dtype: type) -> np.ndarray:
        return np.empty(shape, dtype) if self.arena is None else self.arena.take(shape, dtype)

    def working(self, x: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def rounded(self, x: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def mul(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def add(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def accumulate(self, p: np.ndarray) -> np.ndarray:
        return self.add(np.zeros_like(p), p)

    def store(self, w: np.ndarray) -> np.ndarray:
        return w.astype(np.float32, copy=False)

    def maximum(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return pica_max(a, b)

    def minimum(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return pica_min(a, b)


class F24Exact(Arith):
    """The f24 definition: flush, exact float64 operation, :func:`round_f24` (through
    round-to-odd narrowing, so that nothing is rounded twice)."""

    precision: Precision = "f24"

    def working(self, x: np.ndarray) -> np.ndarray:
        """Subnormal inputs (and -0) are flushed to +0 (seed: "input subnormals are
        flushed in arithmetic instructions", "mul(s, 2) = 0"); computed in float64."""
        x = np.asarray(x)
        if (np.abs(x) < F24_MIN_NORMAL).any():  # else flushing changes nothing
            x = flush_f24_subnormal(x)
        return x.astype(np.float64)

    def rounded(self, x: np.ndarray) -> np.ndarray:
        """The value an operation delivers, rounded by :func:`round_f24` (seed: "output
        subnormals are flushed", "mul(n, 0.5) = 0"; no -0; overflow to infinity, notes
        §1.3), in the working dtype.

        Results in the float24 range [2^-62, 2^64) come from :func:`round_to_f24_bits`
        (the same rounding, fewer operations); zeros, results outside the range and NaN
        go through :func:`round_f24` itself.
        """
        x = np.asarray(x, dtype=np.float64)
        with np.errstate(invalid="ignore", over="ignore"):  # infinities and NaN: patched
            r = round_to_f24_bits(x)
        magnitude = np.abs(r)
        special = ~((magnitude >= F24_MIN_NORMAL) & (magnitude < _F24_OVERFLOW))
        if special.any():
            r = np.array(r, dtype=np.float64)
            r[special] = round_f24(_narrow_to_odd(x[special])).astype(np.float64)
        return r

    def mul(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return self.rounded(pica_mul(a, b))

    def add(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return self.rounded(pica_add(a, b))


class F24Fast(Arith):
    """f24 arithmetic for sources admitted by :func:`f24_fast_admits` (module docstring):
    their values are normal float24 numbers or zeros (the flush would only turn -0 into
    +0, which ``store`` does), every product and partial sum is exact in float64 or far
    from a tie and is zero or in [2^-62, 2^63], so rounding is :func:`round_to_f24_bits`
    alone."""

    precision: Precision = "f24"

    def working(self, x: np.ndarray) -> np.ndarray:
        out = self.new(x.shape, np.float64)
        np.copyto(out, x)
        return out

    def rounded(self, x: np.ndarray) -> np.ndarray:
        return round_to_f24_bits(x, self.new(x.shape, np.float64),
                                 self.new(x.shape, np.float64))

    def _round_in_place(self, x: np.ndarray) -> np.ndarray:
        return round_to_f24_bits(x, x, self.new(x.shape, np.float64))

    def mul(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return self._round_in_place(np.multiply(a, b, out=self.new(_shape(a, b), np.float64)))

    def add(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return self._round_in_place(np.add(a, b, out=self.new(_shape(a, b), np.float64)))

    def accumulate(self, p: np.ndarray) -> np.ndarray:
        return p  # 0 + p = p for a rounded p; only the sign of a zero differs (store)

    def store(self, w: np.ndarray) -> np.ndarray:
        # + 0: the exact path never yields -0.  float64 -> float32 is exact here.
        return np.add(w, 0.0, out=self.new(w.shape, np.float32), casting="same_kind")


class F32Exact(Arith):
    """The f32 definition: IEEE float32 with the PICA multiply and the NaN rule."""

    precision: Precision = "f32"

    def working(self, x: np.ndarray) -> np.ndarray:
        return x

    def rounded(self, x: np.ndarray) -> np.ndarray:
        return x  # float32 operations are already rounded

    def mul(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return pica_mul(a, b)

    def add(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return pica_add(a, b)


class F32Fast(F32Exact):
    """Plain IEEE float32: equal to :class:`F32Exact` whenever the result has no NaN.

    Its ``maximum``/``minimum`` (NumPy's, when they pick the second operand of equal
    values as ``a > b ? a : b`` does, see :data:`NUMPY_MAX_IS_PICA`) equal the PICA rules
    whenever the result has no NaN, in either precision mode: they only select values.
    """

    def mul(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.multiply(a, b, out=self.new(_shape(a, b), np.float32))

    def add(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.add(a, b, out=self.new(_shape(a, b), np.float32))

    def accumulate(self, p: np.ndarray) -> np.ndarray:
        # IEEE addition commutes, signed zeros included: p + 0 is 0 + p.
        return np.add(p, np.float32(0), out=self.new(p.shape, np.float32))

    def maximum(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        if not NUMPY_MAX_IS_PICA:
            return pica_max(a, b)
        return np.maximum(a, b, out=self.new(_shape(a, b), np.float32))

    def minimum(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        if not NUMPY_MAX_IS_PICA:
            return pica_min(a, b)
        return np.minimum(a, b, out=self.new(_shape(a, b), np.float32))


def _numpy_max_is_pica() -> bool:
    """Whether ``np.maximum``/``np.minimum`` return the second operand when the operands
    compare equal (+0 and -0), in short and in vectorised loops: then, without NaN, they
    are the PICA's ``a > b ? a : b`` and ``a < b ? a : b`` (x86 MAXPS/MINPS behave so)."""
    zeros = np.array([0.0, -0.0] * 40, dtype=np.float32)
    signs = np.array([-0.0, 0.0] * 40, dtype=np.float32)
    for n in (1, 3, 80):
        a, b = zeros[:n], signs[:n]
        for got, want in ((np.maximum(a, b), pica_max(a, b)), (np.minimum(a, b),
                                                               pica_min(a, b))):
            if not np.array_equal(got.view(np.uint32), want.view(np.uint32)):
                return False
    return True


#: See :class:`F32Fast`; checked once at import on this machine's NumPy.
NUMPY_MAX_IS_PICA = _numpy_max_is_pica()


_EXACT: dict[str, Arith] = {"f24": F24Exact(), "f32": F32Exact()}
_FAST: dict[str, Arith] = {"f24": F24Fast(), "f32": F32Fast()}


def exact(precision: Precision) -> Arith:
    """The defining arithmetic of a precision mode."""
    return _EXACT[precision]


def fast(precision: Precision, arena: Arena | None = None) -> Arith:
    """The fast arithmetic of a precision mode (valid only under its precondition),
    taking its arrays from ``arena`` if given."""
    if arena is None:
        return _FAST[precision]
    return F24Fast(arena) if precision == "f24" else F32Fast(arena)


#: (smallest nonzero magnitude, largest magnitude) of some float24 values; zeros do not
#: count (all zeros: (inf, 0)); NaN or an infinity gives (0, inf), which nothing admits.
Range = tuple[float, float]
_ABS = np.uint32(0x7FFFFFFF)
_INF_BITS = np.uint32(0x7F800000)


def f24_range(values: np.ndarray) -> Range:
    u = np.bitwise_and(values.view(np.uint32), _ABS)
    if u.size == 0:
        return (np.inf, 0.0)
    high = u.max()
    if high >= _INF_BITS:
        return (0.0, np.inf)
    low = (int(np.subtract(u, np.uint32(1)).min()) + 1) & 0xFFFFFFFF  # zeros wrap round
    low_value = np.inf if low == 0 else float(np.uint32(low).view(np.float32))
    return (low_value, float(np.uint32(high).view(np.float32)))


_NORMAL = 2.0**-62  # no subnormal operand: nothing to flush
_GRID = 2.0**-46  # products this large are multiples of 2^-62 once rounded
_SUMS = 2.0**62  # sums of up to four terms this large stay below 2^64 once rounded


def f24_fast_admits(op: Opcode, ranges: Sequence[Range]) -> bool:
    """Whether :class:`F24Fast` computes opcode ``op`` exactly for sources whose values
    lie in ``ranges`` (one per source, :func:`f24_range`).

    Every source must be free of NaN, infinities and subnormal values (those need the
    flush or the special rules).  Sums: every addend must be a multiple of 2^-62 — a
    float24 value of at least 2^-46, or a rounded product of operands whose magnitudes
    multiply to at least 2^-46 — so that a nonzero partial sum is at least 2^-62 and
    never flushed; and no sum may reach 2^63.  A lone product must be at least 2^-62 and
    at most 2^62.  Zeros are always fine (-0 is turned into +0 when stored).
    """
    if any(low < _NORMAL or high == np.inf for low, high in ranges):
        return False
    if op is Opcode.ADD:
        return all(low >= _GRID and high <= _SUMS / 2 for low, high in ranges[:2])
    (la, ha), (lb, hb) = ranges[0], ranges[1]
    if op in (Opcode.MUL, Opcode.DST):
        return la * lb >= _NORMAL and ha * hb <= _SUMS
    if op is Opcode.MAD:
        lc, hc = ranges[2]
        return la * lb >= _GRID and lc >= _GRID and ha * hb + hc <= _SUMS
    if op is Opcode.DPH:  # SRC1.w is replaced by 1
        la, ha = min(la, 1.0), max(ha, 1.0)
    return la * lb >= _GRID and 4 * ha * hb <= _SUMS


def _lane_ranges(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per lane (last axis): smallest nonzero and largest magnitude over the components;
    NaN makes the largest NaN (which no bound admits)."""
    magnitude = np.abs(x)
    high = magnitude.max(axis=0)
    low = np.where(magnitude == 0, np.float32(np.inf), magnitude).min(axis=0)
    return low.astype(np.float64), high.astype(np.float64)


def f24_fast_lanes(op: Opcode, sources: Sequence[np.ndarray]) -> np.ndarray:
    """Per lane, whether :func:`f24_fast_admits` holds for that lane's source values
    (``sources`` as the opcode takes them; ``(k, 1)`` columns apply to every lane)."""
    ranges = [_lane_ranges(s) for s in sources[:3 if op is Opcode.MAD else 2]]
    ok = np.ones(max(low.shape[-1] for low, _ in ranges), bool)
    for low, high in ranges:  # no NaN (the comparison fails), infinity or subnormal
        ok = ok & (low >= _NORMAL) & (high < np.inf)
    if op is Opcode.ADD:
        for low, high in ranges:
            ok = ok & (low >= _GRID) & (high <= _SUMS / 2)
        return ok
    (la, ha), (lb, hb) = ranges[0], ranges[1]
    if op in (Opcode.MUL, Opcode.DST):
        return ok & (la * lb >= _NORMAL) & (ha * hb <= _SUMS)
    if op is Opcode.MAD:
        lc, hc = ranges[2]
        return ok & (la * lb >= _GRID) & (lc >= _GRID) & (ha * hb + hc <= _SUMS)
    if op is Opcode.DPH:
        la, ha = np.minimum(la, 1.0), np.maximum(ha, 1.0)
    return ok & (la * lb >= _GRID) & (4 * ha * hb <= _SUMS)


def _arith(precision: Precision, arith: Arith | None) -> Arith:
    return arith if arith is not None else _EXACT[precision]


def _broadcast(scalar: np.ndarray) -> np.ndarray:
    """A per-lane result written to all four components (the scalar units and DPx)."""
    return np.broadcast_to(scalar, (4, *scalar.shape))


# -- the opcodes ---------------------------------------------------------------------------
# Each function takes the source operands (already swizzled and negated, (4, N) float32;
# the lane-wise ones accept any number of rows) and returns the (4, N) float32 result;
# the caller writes the masked components.  ``arith`` defaults to the exact context.


@_ieee
def op_add(src: Sequence[np.ndarray], precision: Precision,
           arith: Arith | None = None) -> np.ndarray:
    ar = _arith(precision, arith)
    return ar.store(ar.add(ar.working(src[0]), ar.working(src[1])))


@_ieee
def op_mul(src: Sequence[np.ndarray], precision: Precision,
           arith: Arith | None = None) -> np.ndarray:
    ar = _arith(precision, arith)
    return ar.store(ar.mul(ar.working(src[0]), ar.working(src[1])))


@_ieee
def op_mad(src: Sequence[np.ndarray], precision: Precision,
           arith: Arith | None = None) -> np.ndarray:
    """SRC1 * SRC2 + SRC3, the product rounded before the addition (seed: not an FMA)."""
    ar = _arith(precision, arith)
    a, b, c = (ar.working(s) for s in src[:3])
    return ar.store(ar.add(ar.mul(a, b), c))


def _dot(a: np.ndarray, b: np.ndarray, ar: Arith) -> np.ndarray:
    """Sum of PICA products, left to right from +0 ((((0 + p0) + p1) + p2) ...), each
    product and partial sum rounded (notes §3.1: hardware order OPEN; Azahar's
    interpreter sums this way, starting from zero).  Returns the per-lane sum."""
    products = ar.mul(a, b)
    total = ar.accumulate(products[0])
    for product in products[1:]:
        total = ar.add(total, product)
    return ar.store(total)


# The opcodes that compute one value per lane and write it to every component.  Each
# ``scalar_*`` function returns that (N,) float32 value; the ``op_*`` wrappers broadcast.


def scalar_dp3(src: Sequence[np.ndarray], precision: Precision,
               arith: Arith | None = None) -> np.ndarray:
    """x, y, z of both sources (seed: "dot product on 3-component vectors")."""
    ar = _arith(precision, arith)
    return _dot(ar.working(src[0][:3]), ar.working(src[1][:3]), ar)


def scalar_dp4(src: Sequence[np.ndarray], precision: Precision,
               arith: Arith | None = None) -> np.ndarray:
    ar = _arith(precision, arith)
    return _dot(ar.working(src[0]), ar.working(src[1]), ar)


def scalar_dph(src: Sequence[np.ndarray], precision: Precision,
               arith: Arith | None = None) -> np.ndarray:
    """DP4 with SRC1.w replaced by 1.0 (seed: "with SRC1 homogenous"); SRC1.w is unread."""
    ar = _arith(precision, arith)
    a = ar.working(src[0][:3])
    a = np.concatenate([a, np.ones_like(a[:1])])
    return _dot(a, ar.working(src[1]), ar)


def _x(src: Sequence[np.ndarray], ar: Arith) -> np.ndarray:
    """SRC1.x, the only component RCP, RSQ, EX2 and LG2 read (seed, notes §3.3)."""
    return ar.working(src[0][0])


def scalar_rcp(src: Sequence[np.ndarray], precision: Precision,
               arith: Arith | None = None) -> np.ndarray:
    """1 / SRC1.x: rcp(+-0) = +inf, rcp(+inf) = 0, rcp(NaN) = NaN (seed table)."""
    ar = exact(precision)
    x = _positive_zero(_x(src, ar))
    return ar.store(ar.rounded(x.dtype.type(1) / x))


def scalar_rsq(src: Sequence[np.ndarray], precision: Precision,
               arith: Arith | None = None) -> np.ndarray:
    """1 / sqrt(SRC1.x): rsq(+-0) = +inf, rsq(-2) = NaN, rsq(+inf) = 0, rsq(-inf) = NaN
    (seed table).  f32 mode rounds twice (sqrt, then divide), as emulators do."""
    ar = exact(precision)
    x = _positive_zero(_x(src, ar))
    return ar.store(ar.rounded(x.dtype.type(1) / np.sqrt(x)))


def scalar_ex2(src: Sequence[np.ndarray], precision: Precision,
               arith: Arith | None = None) -> np.ndarray:
    """2^SRC1.x: ex2(-inf) = 0, ex2(+inf) = +inf, overflow to +inf (notes §3.3)."""
    ar = exact(precision)
    return ar.store(ar.rounded(np.exp2(_x(src, ar))))


def scalar_lg2(src: Sequence[np.ndarray], precision: Precision,
               arith: Arith | None = None) -> np.ndarray:
    """log2(SRC1.x): lg2(0) = -inf, lg2(negative) = NaN, lg2(+inf) = +inf (notes §3.3)."""
    ar = exact(precision)
    x = _positive_zero(_x(src, ar))
    return ar.store(ar.rounded(np.log2(x)))


def _broadcasting(scalar: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    @_ieee
    def op(src: Sequence[np.ndarray], precision: Precision,
           arith: Arith | None = None) -> np.ndarray:
        return _broadcast(scalar(src, precision, arith))

    op.__doc__ = scalar.__doc__
    return op


op_dp3 = _broadcasting(scalar_dp3)
op_dp4 = _broadcasting(scalar_dp4)
op_dph = _broadcasting(scalar_dph)
op_rcp = _broadcasting(scalar_rcp)
op_rsq = _broadcasting(scalar_rsq)
op_ex2 = _broadcasting(scalar_ex2)
op_lg2 = _broadcasting(scalar_lg2)


@_ieee
def op_dst(src: Sequence[np.ndarray], precision: Precision,
           arith: Arith | None = None) -> np.ndarray:
    """(1, SRC1.y * SRC2.y, SRC1.z, SRC2.w) (seed DST; the product is the PICA multiply,
    notes §3.1).  The I-form computes the same function of (SRC1, SRC2) (notes §3)."""
    ar = _arith(precision, arith)
    a, b = ar.working(src[0]), ar.working(src[1])
    shape = np.broadcast_shapes(a.shape[1:], b.shape[1:])
    rows = [np.ones(shape, a.dtype), ar.mul(a[1], b[1]), ar.rounded(a[2]),
            ar.rounded(b[3])]
    return ar.store(np.stack([np.broadcast_to(r, shape) for r in rows]))


@_ieee
def op_flr(src: Sequence[np.ndarray], precision: Precision,
           arith: Arith | None = None) -> np.ndarray:
    """Per-component floor (toward -inf); NaN and infinities are kept (notes §3.6)."""
    ar = exact(precision)
    return ar.store(ar.rounded(np.floor(ar.working(src[0]))))


@_ieee
def op_max(src: Sequence[np.ndarray], precision: Precision,
           arith: Arith | None = None) -> np.ndarray:
    return _arith(precision, arith).maximum(src[0], src[1])


@_ieee
def op_min(src: Sequence[np.ndarray], precision: Precision,
           arith: Arith | None = None) -> np.ndarray:
    return _arith(precision, arith).minimum(src[0], src[1])


@_ieee
def op_sge(src: Sequence[np.ndarray], precision: Precision,
           arith: Arith | None = None) -> np.ndarray:
    """SRC1 >= SRC2 ? 1.0 : 0.0; NaN gives 0.0 (notes §3.5)."""
    return (src[0] >= src[1]).astype(np.float32)


@_ieee
def op_slt(src: Sequence[np.ndarray], precision: Precision,
           arith: Arith | None = None) -> np.ndarray:
    """SRC1 < SRC2 ? 1.0 : 0.0; NaN gives 0.0 (notes §3.5)."""
    return (src[0] < src[1]).astype(np.float32)


@_ieee
def op_mov(src: Sequence[np.ndarray], precision: Precision,
           arith: Arith | None = None) -> np.ndarray:
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
    limit = np.full_like(s[1], LITP_LIMIT)
    y = pica_max(pica_min(s[1], limit), -limit)
    result = np.stack([pica_max(s[0], zero), y, zero, pica_max(s[3], zero)])
    flags = np.stack([s[0] >= 0, s[3] >= 0])
    return result, flags


@_ieee
def op_cmp(src: Sequence[np.ndarray], cmpx: int, cmpy: int) -> np.ndarray:
    """CMP: the new ``(2, N)`` flags, cmp.x from the x components, cmp.y from y (seed)."""
    return np.stack([compare(cmpx, src[0][0], src[1][0]), compare(cmpy, src[0][1], src[1][1])])


VectorOp = Callable[..., np.ndarray]

#: Opcodes whose result is a (4, N) vector written through the destination mask.  The
#: I-forms are looked up by their base opcode (DPHI -> DPH, MADI -> MAD, ...).
VECTOR_OPS: dict[Opcode, VectorOp] = {
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

#: The per-lane value of the opcodes that write one value to every component.
SCALAR_OPS: dict[Opcode, Callable[..., np.ndarray]] = {
    Opcode.DP3: scalar_dp3,
    Opcode.DP4: scalar_dp4,
    Opcode.DPH: scalar_dph,
    Opcode.RCP: scalar_rcp,
    Opcode.RSQ: scalar_rsq,
    Opcode.EX2: scalar_ex2,
    Opcode.LG2: scalar_lg2,
}

#: Opcodes that compute component i of the result from component i of each source only
#: (so an engine may compute just the components the destination mask writes).
LANE_WISE_OPS = frozenset({Opcode.ADD, Opcode.MUL, Opcode.MAD, Opcode.SGE, Opcode.SLT,
                           Opcode.MAX, Opcode.MIN, Opcode.MOV, Opcode.FLR})
#: Opcodes whose arithmetic goes through an :class:`Arith` context (the others are
#: selections, comparisons or scalar units, always exact).
ARITH_OPS = frozenset({Opcode.ADD, Opcode.MUL, Opcode.MAD, Opcode.DP3, Opcode.DP4,
                       Opcode.DPH, Opcode.DST})
