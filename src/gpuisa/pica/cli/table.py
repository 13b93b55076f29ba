"""``pica run``'s text table, written a block of rows at a time with NumPy.

Every value is printed as :func:`gpuisa.pica.engine.trace.number` prints it (the
shortest text that reads back as the same float32, as ``str(np.float32(v))`` gives it,
without a trailing ".0"), but a whole column at once: :func:`float_cells` finds each
value's shortest digits with float64 arithmetic (a binary search over the digit count),
gathers the characters of each text from them into a byte matrix, and leaves
to ``number`` only the values whose answer that arithmetic cannot decide (a rounding
tie or a neighbouring float32's midpoint within its error, the unequal gaps around a
power of two, zeros, infinities and NaNs), once per distinct value.  The table's rows
are those matrices side by side.  Formatting 10^6 vertices one value at a time took
most of a minute.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import numpy as np

from ..engine import RunResult
from ..engine.trace import number

#: Rows formatted at a time: output of any size is written in pieces of bounded memory.
ROWS_PER_CHUNK = 1 << 14

_FLOAT32_MAX = float(np.finfo(np.float32).max)
#: Relative error bound of the float64 scaling below (three roundings), with a margin.
_SCALE_ERROR = 4e-16
#: numpy prints a float32 positionally from 1e-4 up to (not including) 1e6.
_POSITIONAL = (1e-4, 1e6)


_POWERS = 10.0 ** np.arange(23)


def _scaled(x: np.ndarray, power: np.ndarray) -> np.ndarray:
    """``x * 10**power`` in float64, in steps whose power of ten is exact (|k| <= 22)."""
    step = np.clip(power, -22, 22)
    x = np.where(step >= 0, x * _POWERS[np.abs(step)], x / _POWERS[np.abs(step)])
    more = np.flatnonzero(step != power)
    if len(more):  # below 1e-22 or above 1e22: one or two more steps
        x[more] = _scaled(x[more], power[more] - step[more])
    return x


def _probe(x: np.ndarray, v: np.ndarray, exponent: np.ndarray, count: np.ndarray
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(digits, power, reads back, unsure): the nearest decimal of ``count`` significant
    digits to each value, whether it reads back as the float32 ``v``, and whether the
    float64 arithmetic was too close to a rounding tie or a float32 midpoint to say."""
    power = exponent - count + 1
    scaled = _scaled(x, -power)
    digits = np.floor(scaled + 0.5)
    unsure = np.abs(scaled - np.floor(scaled) - 0.5) <= scaled * _SCALE_ERROR + 1e-9
    back = _scaled(digits, power)
    with np.errstate(over="ignore"):
        low = (back * (1 - 1e-14)).astype(np.float32)
        high = (back * (1 + 1e-14)).astype(np.float32)
    unsure |= low != high
    return digits.astype(np.int64), power, ~unsure & (low == v), unsure


def _shortest(v: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(digits, power, decided) of positive finite float32 values: ``digits * 10**power``
    is the shortest decimal that reads back as the value, the nearest of that length;
    ``decided`` is False where float64 arithmetic cannot be sure of it.  A binary search
    over the digit count: if ``k`` digits read back, so do ``k + 1``, and 9 always do."""
    x = v.astype(np.float64)
    log = np.log10(x)
    exponent = np.floor(log).astype(np.int64)
    decided = np.abs(log - np.round(log)) > 1e-12  # log10 may be off by one there
    whole = (log >= -0.5) & (log <= 10.5)  # 1, 10, ... 10^10 are float32 values
    decided |= whole & (x == 10.0 ** np.round(log))
    decided &= (v.view(np.uint32) & 0x7FFFFF) != 0  # a power of two: unequal gaps
    decided &= x != _FLOAT32_MAX
    digits = np.zeros(len(v), np.int64)
    power = np.zeros(len(v), np.int64)
    found = np.zeros(len(v), np.int64)  # the digit count of digits/power; 0: none yet
    low = np.ones(len(v), np.int64)
    high = np.full(len(v), 9, np.int64)
    # Four halvings take 1..9 to one count; a fifth probe reads the ones whose count
    # was never probed (every probe failed: 9 digits).  Whole arrays: no bookkeeping.
    for _ in range(5):
        count = np.where(low == high, high, (low + high) // 2)
        d, p, ok, unsure = _probe(x, v, exponent, count)
        ok &= found != count
        digits, power = np.where(ok, d, digits), np.where(ok, p, power)
        found = np.where(ok, count, found)
        high = np.where(ok, count, high)
        low = np.where(ok | (low == high), low, count + 1)
        decided &= ~unsure
    decided &= found == high
    return (*_without_trailing_zeros(digits, power), decided)


def _without_trailing_zeros(digits: np.ndarray, power: np.ndarray
                            ) -> tuple[np.ndarray, np.ndarray]:
    for _ in range(10):
        zero = (digits % 10 == 0) & (digits != 0)
        if not zero.any():
            break
        digits = np.where(zero, digits // 10, digits)
        power = np.where(zero, power + 1, power)
    return digits, power


#: Width of a formatted value's cell ("-0.000100000005" is the longest).
WIDTH = 16
_DIGITS = np.array([list(f"{k:03d}".encode()) for k in range(1000)], dtype=np.uint8)
#: Columns of :func:`_sources`: 18 digits, then these.
_POINT, _MINUS, _SPACE, _E, _SIGN, _X1, _X2 = range(18, 25)
_TENS = 10 ** np.arange(1, 19, dtype=np.int64)


def _layouts(suffix: int) -> np.ndarray:
    """``[digits, places]`` -> the columns of :func:`_sources` a right-aligned cell of
    :data:`WIDTH` characters takes: ``digits`` digits with a point before the last
    ``places``, the sign before them, then ``suffix`` characters of exponent."""
    table = np.full((19, 18, WIDTH), _SPACE, np.int64)
    for digits in range(1, 19):
        for places in range(min(digits, 18)):
            text = [17 - k for k in reversed(range(digits))]
            if places:
                text.insert(digits - places, _POINT)
            cell = [_MINUS, *text, *[_E, _SIGN, _X1, _X2][:suffix]][-WIDTH:]
            table[digits, places, WIDTH - len(cell):] = cell
    return table


_PLAIN, _EXPONENT = _layouts(0), _layouts(4)


def _sources(whole: np.ndarray, negative: np.ndarray, exponent: np.ndarray) -> np.ndarray:
    """Per value, the characters its text is gathered from: ``whole`` (below 10^9) as 18
    zero-padded digits, ".", "-" or " ", " ", "e", the exponent's sign and two digits."""
    out = np.empty((len(whole), 25), np.uint8)
    out[:, :9] = ord("0")
    for group in range(3):
        out[:, 15 - 3 * group : 18 - 3 * group] = _DIGITS[(whole // 1000 ** group) % 1000]
    out[:, _POINT] = ord(".")
    out[:, _MINUS] = np.where(negative, ord("-"), ord(" "))
    out[:, _SPACE] = ord(" ")
    out[:, _E] = ord("e")
    out[:, _SIGN] = np.where(exponent < 0, ord("-"), ord("+"))
    out[:, _X1:] = _DIGITS[np.abs(exponent)][:, 1:]
    return out


def _cells(whole: np.ndarray, places: np.ndarray, negative: np.ndarray,
           exponent: np.ndarray | None) -> np.ndarray:
    """Right-aligned :data:`WIDTH`-character cells: the integer ``whole`` with a point
    before its last ``places`` digits (at least one digit before it), a sign, and
    ``e±XX`` unless ``exponent`` is None."""
    layouts = _PLAIN if exponent is None else _EXPONENT
    sources = _sources(whole, negative, np.zeros(len(whole), np.int64) if exponent is None
                       else exponent)
    digits = np.maximum(np.searchsorted(_TENS, whole, side="right") + 1, places + 1)
    return np.take_along_axis(sources, layouts[digits, places], axis=1)


def float_cells(values: np.ndarray) -> np.ndarray:
    """``number(v)`` of every value of a float32 array, right-aligned in a ``(N,``
    :data:`WIDTH` ``)`` array of ASCII codes."""
    v = np.ascontiguousarray(values, dtype=np.float32).reshape(-1)
    magnitude = np.abs(v)
    regular = np.flatnonzero(np.isfinite(v) & (magnitude != 0))
    digits, power, decided = _shortest(magnitude[regular])
    out = np.empty((len(v), WIDTH), np.uint8)
    sure = regular[decided]
    digits, power = digits[decided], power[decided]
    x = magnitude[sure].astype(np.float64)
    negative = np.signbit(v[sure])
    positional = (x >= _POSITIONAL[0]) & (x < _POSITIONAL[1])
    at = sure[positional]
    d, p = digits[positional], power[positional]
    out[at] = _cells(d * 10 ** np.maximum(p, 0), np.maximum(-p, 0), negative[positional],
                     None)
    at = sure[~positional]
    d, p = digits[~positional], power[~positional]
    count = np.searchsorted(_TENS, d, side="right") + 1
    out[at] = _cells(d, count - 1, negative[~positional], p + count - 1)
    rest = np.ones(len(v), bool)
    rest[sure] = False
    if rest.any():
        # One call of the per-value formatter per distinct bit pattern (1.0, 0, ...).
        patterns, inverse = np.unique(v[rest].view(np.uint32), return_inverse=True)
        texts = [number(p).rjust(WIDTH).encode() for p in patterns.view(np.float32)]
        out[rest] = np.frombuffer(b"".join(texts), np.uint8).reshape(-1, WIDTH)[
            inverse.reshape(-1)]
    return out


def float_texts(values: np.ndarray) -> list[str]:
    """``number(v)`` of every value of a float32 array, in order."""
    return [cell.decode().lstrip() for cell in
            float_cells(values).view(f"S{WIDTH}").reshape(-1).tolist()]


class Columns:
    """Column widths of a table written in pieces: set by the first piece (so a small
    table is aligned exactly as a whole), widened by later ones, never narrowed.  The
    last ``right`` columns (numbers) are aligned right."""

    def __init__(self, right: int = 4) -> None:
        self.widths: list[int] = []
        self.right = right

    def text(self, rows: list[list[str]]) -> str:
        if not rows:
            return ""
        for row in rows:
            if len(self.widths) < len(row):
                self.widths += [0] * (len(row) - len(self.widths))
            for i, cell in enumerate(row):
                self.widths[i] = max(self.widths[i], len(cell))
        lines = []
        for row in rows:
            cells = [c.rjust(w) if i >= len(row) - self.right else c.ljust(w)
                     for i, (c, w) in enumerate(zip(row, self.widths, strict=False))]
            lines.append("  ".join(cells).rstrip())
        return "\n".join(lines) + "\n"

    def block(self, columns: Sequence[np.ndarray], header: Sequence[str] = ()) -> bytes:
        """:meth:`text` of rows given as columns, ``(rows, n)`` matrices of ASCII codes
        padded with spaces (on the left in the last ``right`` columns, else on the
        right), after the ``header`` row when one is given; UTF-8."""
        if len(self.widths) < len(columns):
            self.widths += [0] * (len(columns) - len(self.widths))
        right = len(columns) - self.right
        for i, cells in enumerate(columns):
            used = cells != ord(" ")
            if i < right:
                used = used[:, ::-1]
            lengths = np.where(used.any(axis=1), cells.shape[1] - used.argmax(axis=1), 0)
            content = int(lengths.max()) if len(cells) else 0
            self.widths[i] = max(self.widths[i], content, len(header[i]) if header else 0)
        parts = []
        for i, (cells, width) in enumerate(zip(columns, self.widths, strict=False)):
            kept = cells[:, max(cells.shape[1] - width, 0):] if i >= right else \
                cells[:, :width]
            pad = np.full((len(cells), width - kept.shape[1]), ord(" "), np.uint8)
            parts += [pad, kept] if i >= right else [kept, pad]
            parts.append(np.full((len(cells), 2), ord(" "), np.uint8))
        parts[-1] = np.full((len(columns[0]), 1), ord("\n"), np.uint8)
        head = self.text([list(header)]).encode() if header else b""
        return head + np.concatenate(parts, axis=1).tobytes()


def _left(texts: np.ndarray) -> np.ndarray:
    """Cells of ASCII texts, padded with spaces on the right."""
    texts = np.asarray(texts, dtype="S")
    cells = texts.view(np.uint8).reshape(len(texts), texts.itemsize)
    return np.where(cells == 0, np.uint8(ord(" ")), cells)


def _blocks(header: list[str], lanes: int, per_lane: int,
            columns: Callable[[int, int], list[np.ndarray]],
            progress: Callable[[int], None]) -> Iterator[bytes]:
    """A table of ``lanes`` groups of ``per_lane`` rows (``columns(start, stop)`` gives
    the rows of lanes start..stop-1) in the pieces a row at a time made, so that the
    widths are the same: the header and then whole lanes until a piece holds
    :data:`ROWS_PER_CHUNK` rows."""
    table = Columns()
    pending = 1  # the header's row
    start = 0
    while True:
        stop = min(start + -(-(ROWS_PER_CHUNK - pending) // max(per_lane, 1)), lanes)
        yield table.block(columns(start, stop), header if pending else ())
        progress(stop)
        if stop >= lanes:
            return
        pending, start = 0, stop


def table_chunks(result: RunResult, semantics: dict[int, str],
                 progress: Callable[[int], None] = lambda done: None) -> Iterator[bytes]:
    """The outputs as an aligned text table (then the emitted vertices and primitives of
    a geometry shader), produced a block of rows at a time; ``semantics`` names the
    output registers (register -> "position", every one listed when empty)."""
    registers = sorted(semantics) if semantics else range(len(result.outputs))
    lanes = len(next(iter(result.outputs.values())))
    names = _left([f"o{r}" for r in registers])
    meaning = _left([semantics.get(r, "") for r in registers])

    def outputs(start: int, stop: int) -> list[np.ndarray]:
        values = np.stack([result.outputs[f"o{r}"][start:stop] for r in registers], axis=1)
        return [_left(np.repeat(np.arange(start, stop), len(registers))),
                np.tile(names, (stop - start, 1)), np.tile(meaning, (stop - start, 1)),
                *_numbers(values)]

    what = "invocation" if result.vertices is not None else "vertex"
    yield from _blocks([what, "register", "semantic", "x", "y", "z", "w"], lanes,
                       len(registers), outputs, progress)
    if result.vertices is not None:
        yield from _emitted(result)


def _numbers(values: np.ndarray) -> list[np.ndarray]:
    """The x, y, z, w cells of ``(lanes, registers, 4)`` values, a row per register."""
    cells = float_cells(values).reshape(-1, 4, WIDTH)
    return [cells[:, k] for k in range(4)]


def _emitted(result: RunResult) -> Iterator[bytes]:
    names = list(result.vertices)
    count = len(result.vertices[names[0]]) if names else 0
    yield f"\nemitted vertices: {count}\n".encode()

    def vertices(start: int, stop: int) -> list[np.ndarray]:
        values = np.stack([result.vertices[name][start:stop] for name in names], axis=1)
        return [_left(np.repeat(np.arange(start, stop), len(names))),
                np.tile(_left(names), (stop - start, 1)), *_numbers(values)]

    if count:
        yield from _blocks(["vertex", "register", "x", "y", "z", "w"], count, len(names),
                           vertices, lambda done: None)
    yield f"primitives: {len(result.primitives)}\n".encode()
    for k, (tri, wind) in enumerate(zip(result.primitives.tolist(),
                                        result.windings.tolist(), strict=True)):
        yield f"  {k}: {tri[0]} {tri[1]} {tri[2]}{'  (winding)' if wind else ''}\n".encode()
