"""Integer literals read from text in bounded time, whatever their length.

Python's ``int(str)`` refuses more than 4,300 digits (a ``ValueError``) and takes time
quadratic in the length below that; an assembler or input reader fed a 100,000-digit
number must instead say "out of range" at once.  :func:`saturating_int` reads only as
many digits as can matter and gives ``ceiling`` for anything larger, which is what C's
``strtoll`` does with ``LLONG_MAX`` and what a range check downstream then reports.
"""

from __future__ import annotations

import functools

_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


def saturating_int(digits: str, base: int, ceiling: int) -> int:
    """The value of ``digits`` (no sign, no prefix, all valid in ``base``), or ``ceiling``
    if it is larger."""
    significant = digits.lstrip("0")
    if len(significant) > _width(ceiling, base):
        return ceiling  # at least base**width > ceiling
    return min(int(significant or "0", base), ceiling)


@functools.cache  # a handful of (ceiling, base) pairs, asked for every number read
def _width(value: int, base: int) -> int:
    """Digits of ``value`` in ``base``."""
    count = 1
    while value >= base:
        value //= base
        count += 1
    return count


def is_digits(text: str, base: int) -> bool:
    """Whether ``text`` is one or more ASCII digits of ``base``."""
    valid = _DIGITS[:base]
    return bool(text) and all(c in valid for c in text.lower())
