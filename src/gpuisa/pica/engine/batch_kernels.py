"""ALU instructions of the batch engine: operand fetch, the opcode's math, masked write.

Operands are fetched as ``(k, n)`` blocks holding only the components the opcode reads
(``Source.rows``): a view of the register when the rows are consecutive, otherwise one
gather; a uniform operand is a ``(k, 1)`` column, swizzled and negated once per run.
The math is :mod:`.semantics`: for ADD/MUL/MAD/DPx/DST the fast arithmetic context
when its precondition holds (f32: the result has no NaN; f24: every source is admitted
by :func:`~.semantics.f24_fast_admits`), otherwise the exact one; MAX/MIN select with
NumPy's maximum/minimum unless a NaN shows up.  Reading a register that was not given
raises :class:`LaneFault` naming the lanes concerned, exactly as the reference engine
would for each of them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import numpy as np

from ...errors import GpuIsaError, InputError
from ..isa import Opcode
from .batch_lanes import A0, CMP, Group, LaneFile
from .batch_program import Instr, Source
from .semantics import (
    ARITH_OPS,
    LANE_WISE_OPS,
    SCALAR_OPS,
    VECTOR_OPS,
    Arena,
    Precision,
    Range,
    address_from_float,
    exact,
    f24_fast_admits,
    f24_fast_lanes,
    f24_range,
    fast,
    negate,
    op_cmp,
    op_litp,
    relative_uniform_index,
)
from .state import Uniforms


class _Scratch(threading.local):
    """Per thread: the arena the fast contexts take their arrays from, and the contexts
    (MAX/MIN select with the f32 context's NumPy maximum/minimum in both precisions; see
    semantics.F32Fast)."""

    def __init__(self) -> None:
        self.arena = Arena()
        self.fast = {"f24": fast("f24", self.arena), "f32": fast("f32", self.arena)}


_scratch = _Scratch()
_UNKNOWN: Range = (0.0, np.inf)  # not worked out (f32 mode): admits nothing


class LaneFault(Exception):
    """Some lanes of a group cannot execute the instruction.  ``mask`` marks them (None:
    all); ``error(position)`` is the error the reference engine raises for the lane at
    that position of the group."""

    def __init__(self, mask: np.ndarray | None, error: Callable[[int], GpuIsaError]):
        super().__init__()
        self.mask = mask
        self.error = error


def _fault(error: GpuIsaError) -> LaneFault:
    return LaneFault(None, lambda _position: error)


class RunContext:
    """What one run's instructions need besides the lanes: precision, uniforms (with the
    swizzled, negated uniform operands cached as columns) and given inputs."""

    def __init__(self, precision: Precision, uniforms: Uniforms, input_given: np.ndarray,
                 lane_uniforms: frozenset[int] = frozenset()):
        self.precision = precision
        self.uniforms = uniforms
        self.table_t = np.ascontiguousarray(uniforms.floats.T)  # (4, 128)
        self.given = uniforms.float_given
        self.input_given = input_given
        #: Float uniform registers whose value differs per lane (geometry shaders fed
        #: through uniforms); their values live in the lane files.
        self.lane_uniforms = lane_uniforms
        self._columns: dict[tuple, tuple[np.ndarray, Range]] = {}

    def column(self, row: int, rows: tuple[int, ...],
               negated: bool) -> tuple[np.ndarray, Range]:
        """Uniform ``row``'s components ``rows`` as a (k, 1) operand, and the range of its
        magnitudes (:func:`~.semantics.f24_range`)."""
        key = (row, rows, negated)
        cached = self._columns.get(key)
        if cached is None:
            value = self.uniforms.floats[row][list(rows)].reshape(-1, 1)
            if negated:
                value = negate(value, self.precision)
            cached = (value, f24_range(value))
            self._columns[key] = cached
        return cached


def _missing_uniform(row: int, pc: int) -> InputError:
    return InputError(f"float uniform c{row} is read at pc 0x{pc:03X} but was not given")


def _rows_of(register: np.ndarray, rows: tuple[int, ...]) -> np.ndarray:
    first = rows[0]
    if rows == tuple(range(first, first + len(rows))):
        return register[first:first + len(rows)]
    return register[list(rows)]


def fetch(src: Source, group: Group, ctx: RunContext, pc: int) -> tuple[np.ndarray, Range]:
    """A source operand's components ``src.rows``: ``(k, n)`` or a ``(k, 1)`` column, and
    (f24) the range of their magnitudes for :func:`~.semantics.f24_fast_admits`."""
    if src.bank == "c":
        return _fetch_uniform(src, group, ctx, pc)
    if src.bank == "v" and not ctx.input_given[src.number]:
        raise _fault(InputError(f"input v{src.number} is read at pc 0x{pc:03X} but was "
                                f"not given"))
    if not src.rows:
        return np.zeros((0, group.file.width), np.float32), (np.inf, 0.0)
    value = _rows_of(group.file.read(src.key, src.rows), src.rows)
    magnitudes = _UNKNOWN
    if ctx.precision == "f24":  # negation keeps magnitudes
        magnitudes = group.file.store.fact(src.key, src.rows, "range",
                                           lambda: f24_range(value))
    if src.negate:
        value = negate(value, ctx.precision)
    return value, magnitudes


def _missing_lanes(given: np.ndarray, file: LaneFile) -> np.ndarray | None:
    """The group's lanes (a mask over every column) where ``given`` is false, or None."""
    missing = ~given if file.active is None else ~given & file.active
    return missing if missing.any() else None


def _fetch_uniform(src: Source, group: Group, ctx: RunContext,
                   pc: int) -> tuple[np.ndarray, Range]:
    file = group.file
    store = file.store
    if src.relative is None or src.relative_to_al:
        row = src.number if src.relative is None else int(
            relative_uniform_index(src.number, np.int64(group.al)))
        if row in ctx.lane_uniforms:
            values, given = store.uniforms[row]
            missing = _missing_lanes(given, file)
            if missing is not None:
                raise LaneFault(missing, lambda _p: _missing_uniform(row, pc))
            value = values[list(src.rows)]
            return (negate(value, ctx.precision) if src.negate else value), f24_range(value)
        if not ctx.given[row]:
            raise _fault(_missing_uniform(row, pc))
        return ctx.column(row, src.rows, src.negate)
    rows = relative_uniform_index(src.number, file.read(A0, (src.relative,))[src.relative])
    low, high = int(rows.min()), int(rows.max())
    if low == high and low not in ctx.lane_uniforms:
        if not ctx.given[low]:
            raise _fault(_missing_uniform(low, pc))
        return ctx.column(low, src.rows, src.negate)
    given = ctx.given[rows]
    value = np.take(ctx.table_t[list(src.rows)], rows, axis=1)
    for number in ctx.lane_uniforms:
        if low <= number <= high:
            at = rows == number
            if at.any():
                lane_values, lane_given = store.uniforms[number]
                value[:, at] = lane_values[list(src.rows)][:, at]
                given = given.copy()
                given[at] = lane_given[at]
    missing = _missing_lanes(given, file)
    if missing is not None:
        raise LaneFault(missing, lambda p: _missing_uniform(int(rows[p]), pc))
    magnitudes = f24_range(value) if ctx.precision == "f24" else _UNKNOWN
    return (negate(value, ctx.precision) if src.negate else value), magnitudes


def _has_nan(x: np.ndarray) -> bool:
    return bool(np.isnan(np.add.reduce(x, axis=None)))  # inf - inf: a harmless alarm


#: The opcode functions without their per-call floating-point error state (the engine
#: runs under one ``np.errstate(all="ignore")``).
_VECTOR = {op: getattr(f, "__wrapped__", f) for op, f in VECTOR_OPS.items()}


def _compute(op: Opcode, sources: list[np.ndarray], ranges: list[Range],
             ctx: RunContext) -> np.ndarray:
    """The opcode's result: ``(k, n)`` for lane-wise opcodes (row i = mask component i),
    ``(n,)`` for the one-value opcodes (:data:`~.semantics.SCALAR_OPS`), ``(4, n)``
    otherwise.

    Fast arithmetic where its precondition holds, lane by lane: lanes where it does not
    (a NaN in f32, values out of range in f24) are computed again exactly.
    """
    function = SCALAR_OPS.get(op) or _VECTOR[op]
    precision = ctx.precision
    contexts = _scratch.fast
    if op in ARITH_OPS and precision == "f24":
        if f24_fast_admits(op, ranges):
            return function(sources, precision, contexts[precision])
        good = f24_fast_lanes(op, sources)
        if not good.any():
            return function(sources, precision, exact(precision))
        result = function(sources, precision, contexts[precision])
        return _patch(result, ~good, function, sources, precision)
    if op in ARITH_OPS or op in (Opcode.MAX, Opcode.MIN):
        result = function(sources, precision, contexts["f32" if op not in ARITH_OPS
                                                     else precision])
        if not _has_nan(result):
            return result
        nan = np.isnan(result)
        return _patch(result, nan if nan.ndim == 1 else nan.any(axis=0), function, sources,
                      precision)
    return function(sources, precision)


def _patch(result: np.ndarray, lanes: np.ndarray, function, sources: list[np.ndarray],
           precision: Precision) -> np.ndarray:
    """``result`` with ``lanes`` (a mask) replaced by the exact computation."""
    where = np.flatnonzero(lanes)
    if result.ndim and result.shape[-1] == 1:  # uniform operands only: one lane
        return function(sources, precision)
    picked = [s if s.shape[-1] == 1 else np.take(s, where, axis=-1) for s in sources]
    result = np.array(result)  # arena arrays are not ours to keep
    result[..., where] = function(picked, precision)
    return result


def _write(file: LaneFile, key: tuple, mask: tuple[int, ...], result: np.ndarray,
           op: Opcode) -> None:
    """Write the result's components to the components in ``mask`` of register ``key``."""
    if op in SCALAR_OPS:
        file.write(key, mask, [result] * len(mask))
        return
    if op in LANE_WISE_OPS:
        first = mask[0]
        if mask == tuple(range(first, first + len(mask))):
            file.write_block(key, first, result)
        else:
            file.write(key, mask, list(result))
        return
    file.write(key, mask, [result[c] for c in mask])


def execute(ins: Instr, group: Group, ctx: RunContext) -> None:
    """Execute an ALU, CMP, MOVA or LITP instruction for every lane of ``group``."""
    _scratch.arena.reset()  # the previous instruction's values are all stored
    fetched = [fetch(src, group, ctx, ins.pc) for src in ins.sources]
    sources = [f[0] for f in fetched]
    kind = ins.kind
    file = group.file
    if kind == "cmp":
        # The destination mask is ignored: picasso always encodes 0 there and whether the
        # hardware honours it is unknown (seed CMP row; notes §3.5).
        flags = op_cmp(sources, ins.fields["cmpx"], ins.fields["cmpy"])
        file.write(CMP, (0, 1), list(flags))
        return
    if kind == "litp":
        result, flags = op_litp(sources, ctx.precision)
        if ins.mask:
            _write(file, _key(ins, group), ins.mask, result, ins.op)
        file.write(CMP, (0, 1), list(flags))
        return
    if not ins.mask:
        return
    if kind == "mova":
        # x -> a0.x, y -> a0.y, each only if enabled in the mask (seed MOVA row).
        values = address_from_float(sources[0])
        components = tuple(c for c in ins.mask if c < 2)
        if components:
            file.write(A0, components, list(values))
        return
    result = _compute(ins.op, sources, [f[1] for f in fetched], ctx)
    _write(file, _key(ins, group), ins.mask, result, ins.op)


def _key(ins: Instr, group: Group) -> tuple:
    bank, number = ins.dest  # type: ignore[misc]
    return ("o", group.bank, number) if bank == "o" else ("r", number)
