"""The scalar interpreter of the recipes: an ``m`` (see :mod:`.recipes`) per precision
whose operations are the primitive rules on Python floats, for the reference engine.

The objects hold plain functions as attributes (no bound methods), which keeps a
recipe's many calls cheap.
"""

from __future__ import annotations

from types import SimpleNamespace

from . import primitives as P


def _mul24(a, b):
    return P.round24(P.pica_mul(a, b))


def _add24(a, b):
    return P.round24(P.pica_add(a, b))


def _first24(p):
    """0 + p for a rounded product p: p itself (p is a float24 value, +-inf or a quiet
    NaN; -0 cannot occur; rounding it again changes nothing)."""
    return p


def _first32(p):
    return P.add32(0.0, p)


def _same(x):
    return x


def _const(value):
    return value


def _splat(value):
    return (value, value, value, value)


_COMMON = dict(max=P.pica_max, min=P.pica_min, sge=P.sge, slt=P.slt, compare=P.compare,
               address=P.address_from_float, const=_const, splat=_splat, one=1.0)

#: The f24 arithmetic: flushed float64 working values, each result rounded to float24.
F24 = SimpleNamespace(precision="f24", work=P.flush24, mul=_mul24, add=_add24,
                      first=_first24, rounded=P.round24, store=_same, negate=P.negate24,
                      rcp=P.rcp24, rsq=P.rsq24, ex2=P.ex2_24, lg2=P.lg2_24, flr=P.flr24,
                      **_COMMON)
#: The f32 arithmetic: float32 values, each result rounded to float32.
F32 = SimpleNamespace(precision="f32", work=_same, mul=P.mul32, add=P.add32,
                      first=_first32, rounded=_same, store=_same, negate=P.negate32,
                      rcp=P.rcp32, rsq=P.rsq32, ex2=P.ex2_32, lg2=P.lg2_32, flr=P.flr32,
                      **_COMMON)

ARITHMETIC = {"f24": F24, "f32": F32}
