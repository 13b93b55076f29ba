"""``pica run``'s table: values formatted a column at a time give the text the
per-value formatter (``number``: the shortest text that reads back as the same float32)
gives, and the table's pieces are aligned as the rows of one table."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from gpuisa.pica.cli import table
from gpuisa.pica.cli.table import float_texts, table_chunks
from gpuisa.pica.engine.trace import number


def _bits(*patterns: int) -> list[float]:
    return np.array(patterns, dtype=np.uint32).view(np.float32).tolist()


#: (float32 value, its text), worked out by hand: the shortest decimal whose nearest
#: float32 is the value (the nearest such decimal when several have that length), in
#: positional notation from 1e-4 up to 1e6, else scientific with a two-digit exponent.
BY_HAND = [
    (0.0, "0"), (-0.0, "-0"), (np.inf, "inf"), (-np.inf, "-inf"), (np.nan, "nan"),
    (1.0, "1"), (-2.5, "-2.5"), (0.1, "0.1"), (100000.0, "100000"),
    (999999.9375, "999999.94"),              # the float32 just below 1e6
    (1e6, "1e+06"), (16777216.0, "1.6777216e+07"),
    (*_bits(0x38D1B717), "1e-04"),           # the float32 nearest 1e-4, just below it
    (*_bits(0x38D1B718), "0.000100000005"),  # the next one up: positional
    (*_bits(0x7F7FFFFF), "3.4028235e+38"), (*_bits(0xFF7FFFFF), "-3.4028235e+38"),
    (*_bits(0x00800000), "1.1754944e-38"),   # smallest normal
    (*_bits(0x007FFFFF), "1.1754942e-38"),   # largest subnormal
    (*_bits(0x00000001), "1e-45"), (*_bits(0x80000001), "-1e-45"),
    # 1 + 2^-16 (a float24 step above 1): 1.0000152 also reads back, 1.0000153 is nearer
    (1.0 + 2.0**-16, "1.0000153"),
    (0.5 + 2.0**-17, "0.5000076"),           # f24: 0.50000762939453125, nearest 7 digits
    (2.0**63, "9.223372e+18"), (2.0**-63, "1.0842022e-19"),
]


@pytest.mark.parametrize(("value", "text"), BY_HAND)
def test_values_by_hand(value: float, text: str) -> None:
    assert float_texts(np.array([value], np.float32)) == [text]
    assert number(np.float32(value)) == text


def test_same_text_as_the_per_value_formatter() -> None:
    """Tricky neighbourhoods (around every power of ten and of two, subnormals, f24
    values, signs) and random bit patterns, against ``number`` one value at a time."""
    around = [np.float32(10.0**k) for k in range(-45, 39)] + \
        [np.float32(2.0**k) for k in range(-149, 128, 7)]
    bits = np.array(around, np.float32).view(np.uint32).astype(np.int64)
    near = (bits[:, None] + np.arange(-3, 4)).reshape(-1)
    rng = np.random.default_rng(7)
    f24 = (rng.integers(0, 1 << 16, 2000) << 7) | (rng.integers(-62, 64, 2000) + 127 << 23)
    values = np.concatenate([
        near.astype(np.uint32).view(np.float32), np.arange(1, 300, dtype=np.uint32).view(
            np.float32), f24.astype(np.uint32).view(np.float32),
        rng.integers(0, 1 << 32, 20000, dtype=np.uint64).astype(np.uint32).view(np.float32),
        np.round(rng.standard_normal(3000) * 1000, 3).astype(np.float32)])
    values = np.concatenate([values, -values])
    assert float_texts(values) == [number(v) for v in values]


def _result(outputs: dict[str, list[list[float]]]) -> SimpleNamespace:
    return SimpleNamespace(outputs={k: np.array(v, np.float32) for k, v in outputs.items()},
                           vertices=None)


def test_table_by_hand() -> None:
    result = _result({"o0": [[1, -0.5, 0, 2], [10, 0.25, -1e-5, 3]],
                      "o1": [[0, 0, 0, 1], [1, 1, 1, 1]]})
    text = b"".join(table_chunks(result, {0: "position", 1: "color"})).decode()
    assert text == (
        "vertex  register  semantic   x     y       z  w\n"
        "0       o0        position   1  -0.5       0  2\n"
        "0       o1        color      0     0       0  1\n"
        "1       o0        position  10  0.25  -1e-05  3\n"
        "1       o1        color      1     1       1  1\n")


def test_pieces_widen_the_columns_as_rows_did(monkeypatch) -> None:
    """Three rows a piece: the header and two vertices, then three vertices; a wider
    value in the second piece widens its column from there on, never before."""
    monkeypatch.setattr(table, "ROWS_PER_CHUNK", 3)
    result = _result({"o0": [[1, 2, 3, 4], [5, 6, 7, 8], [9, 9, 9, -250]]})
    done: list[int] = []
    pieces = list(table_chunks(result, {0: "position"}, done.append))
    assert b"".join(pieces).decode() == (
        "vertex  register  semantic  x  y  z  w\n"
        "0       o0        position  1  2  3  4\n"
        "1       o0        position  5  6  7  8\n"
        "2       o0        position  9  9  9  -250\n")
    assert done == [2, 3]


class _Terminal:
    """A stand-in stream that says whether it is a terminal and keeps what is written."""

    def __init__(self, tty: bool):
        self.tty = tty
        self.text = ""

    def isatty(self) -> bool:
        return self.tty

    def write(self, text: str) -> int:
        self.text += text
        return len(text)

    def flush(self) -> None:
        pass


@pytest.mark.parametrize(("output", "stdout_tty", "stderr_tty", "shown"), [
    ("out.txt", False, True, "\rvertices 2/5\rvertices 5/5\n"),  # to a file: progress
    (None, False, True, "\rvertices 2/5\rvertices 5/5\n"),       # into a pipe: progress
    (None, True, True, ""),         # on the terminal the table itself shows progress
    ("out.txt", False, False, ""),  # stderr not a terminal: quiet
])
def test_progress_only_on_a_terminal(monkeypatch, output, stdout_tty, stderr_tty, shown):
    from gpuisa.pica.cli import run as cli_run

    err = _Terminal(stderr_tty)
    monkeypatch.setattr("sys.stdout", _Terminal(stdout_tty))
    monkeypatch.setattr("sys.stderr", err)
    report = cli_run._progress(output, 5)
    report(2)
    report(5)
    assert err.text == shown
