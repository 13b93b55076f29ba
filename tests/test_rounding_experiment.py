"""docs/rounding-experiment.md: its table is what examples/rounding_experiment.py computes
with gpuisa's engine, and the rows a person can work out are worked out here without
gpuisa, with exact rationals and the two rounding rules written on the bits."""

from __future__ import annotations

import importlib.util
import math
import re
import sys
from fractions import Fraction
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "rounding-experiment.md"


@pytest.fixture(scope="module")
def experiment():
    spec = importlib.util.spec_from_file_location("rounding_experiment",
                                                  ROOT / "examples" / "rounding_experiment.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def page_table() -> str:
    text = PAGE.read_text(encoding="utf-8")
    return text.split("<!-- predictions: begin -->\n", 1)[1].split("<!-- predictions: end -->")[0]


def page_rows() -> dict[str, tuple[int, int]]:
    """experiment -> (nearest-even, truncate) patterns of the single-output rows."""
    rows = {}
    for line in page_table().splitlines():
        found = re.match(r"\| `([a-z-]+)` \| o0\.x \| `0x([0-9A-F]{6})` \| `0x([0-9A-F]{6})`",
                         line)
        if found:
            rows[found[1]] = (int(found[2], 16), int(found[3], 16))
    return rows


# -- float24 by hand: 17 significant bits, exponent biased by 63 ---------------------------


def value(pattern: int) -> Fraction:
    """The value of a normal positive float24 pattern."""
    exponent, mantissa = pattern >> 16 & 0x7F, pattern & 0xFFFF
    return (1 + Fraction(mantissa, 1 << 16)) * Fraction(2) ** (exponent - 63)


def exponent_of(x: Fraction) -> int:
    """e with 2^e <= x < 2^(e+1), for a positive x."""
    exponent = 0
    while Fraction(2) ** (exponent + 1) <= x:
        exponent += 1
    while Fraction(2) ** exponent > x:
        exponent -= 1
    return exponent


def rounded(x: Fraction, rounding: str) -> Fraction:
    """``x`` (positive, or 0) to 17 significant bits: to nearest, ties to even, or toward
    zero."""
    if x == 0:
        return x
    exponent = exponent_of(x)
    ulp = Fraction(2) ** (exponent - 16)
    units, rest = divmod(x, ulp)
    if rounding == "nearest-even" and (rest > ulp / 2 or (rest == ulp / 2 and units % 2)):
        units += 1
    return units * ulp


def pattern(x: Fraction) -> int:
    exponent = exponent_of(x)
    mantissa = (x / Fraction(2) ** exponent - 1) * (1 << 16)
    assert mantissa.denominator == 1
    return (exponent + 63) << 16 | int(mantissa)


def by_hand(name: str, rounding: str) -> int:
    if name == "mul":  # 1.75 * (1 + 2^-16)
        return pattern(rounded(Fraction(7, 4) * (1 + Fraction(1, 1 << 16)), rounding))
    if name == "rcp":  # 1 / 5
        return pattern(rounded(Fraction(1, 5), rounding))
    x = value(0x3E5555)  # lcg: MAD rounds its product, then its sum; FLR and the
    for _ in range(16):  # subtraction of the integer part are exact
        x = rounded(rounded(x * Fraction(1557, 16), rounding) + Fraction(1, 8), rounding)
        x = rounded(x - math.floor(x), rounding)
    return pattern(x)


@pytest.mark.parametrize("name", ["mul", "rcp", "lcg"])
def test_the_page_agrees_with_float24_worked_out_by_hand(name):
    assert page_rows()[name] == (by_hand(name, "nearest-even"), by_hand(name, "truncate"))


def test_the_hand_rules_are_the_rules():
    """Synthetic: 1 + 0.5 ulp is a tie (even: 1), 1 + 0.75 ulp rounds up only to
    nearest; the model would fail a wrong page."""
    ulp = Fraction(1, 1 << 16)
    assert rounded(1 + ulp / 2, "nearest-even") == 1
    assert rounded(1 + ulp + ulp / 2, "nearest-even") == 1 + 2 * ulp
    assert rounded(1 + 3 * ulp / 4, "nearest-even") == 1 + ulp
    assert rounded(1 + 3 * ulp / 4, "truncate") == 1
    assert pattern(Fraction(5)) == 0x414000 and value(0x3FC000) == Fraction(7, 4)


def test_the_page_is_what_the_script_computes(experiment):
    assert page_table() == experiment.table()
    rows = page_rows()
    assert all(near != trunc for near, trunc in rows.values())  # each row discriminates
