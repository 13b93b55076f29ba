"""The C library number parsers picasso relies on: ``strtoll`` (base 0), ``atoi``, ``atof``.

picasso reads register numbers with ``strtoll(text, &end, 0)`` and constants with ``atoi``
and ``atof``, all of which parse the longest valid prefix and ignore what follows
(pica-assembly.md#numbers).  Reproducing them exactly is what makes the same source
give the same bytes; each function also says how much of the text it used, so that the
assembler can diagnose trailing garbage instead of silently ignoring it.
"""

from __future__ import annotations

import re

from ...numtext import saturating_int

#: C ``isspace`` in the "C" locale.
C_SPACE = " \t\n\v\f\r"

_LONG_MAX = (1 << 63) - 1
_LONG_MIN = -(1 << 63)

_DEC = re.compile(r"[+-]?[0-9]+")
# strtod: hex floats, infinities and NaNs, then decimal floats (longest prefix first).
_HEX_FLOAT = re.compile(r"([+-]?)0[xX](?:([0-9a-fA-F]+)\.?([0-9a-fA-F]*)|\.([0-9a-fA-F]+))"
                        r"(?:[pP]([+-]?[0-9]+))?")
_INF_NAN = re.compile(r"([+-]?)(?:(infinity|inf)|(nan)(?:\([0-9A-Za-z_]*\))?)", re.IGNORECASE)
_DEC_FLOAT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


#: The digits ``strtoll`` reads in each base it chooses, matched at C speed (the
#: assembler reads a number in every register name).
_BASE_DIGITS = {8: re.compile("[0-7]*"), 10: re.compile("[0-9]*"),
                16: re.compile("[0-9a-fA-F]*")}


def _skip_space(text: str) -> int:
    return len(text) - len(text.lstrip(C_SPACE))


def strtoll(text: str) -> tuple[int, int] | None:
    """``strtoll(text, &end, 0)``: (value, characters consumed), or None without digits.

    Base 0: ``0x``/``0X`` is hexadecimal, a leading ``0`` octal, else decimal.  The value
    saturates to the ``long long`` range as glibc does.
    """
    i = _skip_space(text)
    sign = 1
    if i < len(text) and text[i] in "+-":
        sign = -1 if text[i] == "-" else 1
        i += 1
    if text.startswith(("0x", "0X"), i) and i + 2 < len(text) and _is_hex(text[i + 2]):
        base, start = 16, i + 2
    elif text.startswith("0", i):
        base, start = 8, i
    else:
        base, start = 10, i
    end = _BASE_DIGITS[base].match(text, start).end()
    if end == start:
        return None
    value = sign * saturating_int(text[start:end], base, _LONG_MAX + 1)
    return max(_LONG_MIN, min(_LONG_MAX, value)), end


def _is_hex(ch: str) -> bool:
    return ch in "0123456789abcdefABCDEF"


def to_c_int(value: int) -> int:
    """A ``long long`` converted to a 32-bit ``int`` (two's complement truncation)."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


def atoi(text: str) -> tuple[int, int]:
    """``atoi``: (value, characters consumed); no digits gives (0, 0).

    glibc's ``atoi`` is ``(int) strtol(text, NULL, 10)``: saturated to ``long`` and then
    truncated to ``int``.
    """
    i = _skip_space(text)
    m = _DEC.match(text, i)
    if m is None:
        return 0, 0
    digits = m.group().lstrip("+-")
    value = saturating_int(digits, 10, _LONG_MAX + 1)
    value = -value if m.group().startswith("-") else value
    return to_c_int(max(_LONG_MIN, min(_LONG_MAX, value))), m.end()


def atof(text: str) -> tuple[float, int]:
    """``atof`` (``strtod``): (value as a double, characters consumed); nothing valid gives
    (0.0, 0).  Decimal and hexadecimal floats, ``inf``/``infinity`` and ``nan`` (with an
    optional ``(chars)`` payload) are recognised, as glibc does."""
    i = _skip_space(text)
    m = _HEX_FLOAT.match(text, i)
    if m is not None:
        sign, whole, frac, only_frac, exp = m.groups()
        mantissa = f"{whole or '0'}.{frac or only_frac or ''}"
        try:
            value = float.fromhex(f"0x{mantissa}p{exp or 0}")
        except OverflowError:  # strtod returns HUGE_VAL
            value = float("inf")
        return (-value if sign == "-" else value), m.end()
    m = _INF_NAN.match(text, i)
    if m is not None:
        value = float("nan") if m.group(3) else float("inf")
        return (-value if m.group(1) == "-" else value), m.end()
    m = _DEC_FLOAT.match(text, i)
    if m is None:
        return 0.0, 0
    return float(m.group()), m.end()
