"""The scalar interpreter of the recipes: an ``m`` (see :mod:`.recipes`) per precision
whose operations are the primitive rules on Python floats, for the reference engine.

The objects hold plain functions as attributes (no bound methods), which keeps a
recipe's many calls cheap.
"""

from __future__ import annotations

from types import SimpleNamespace

from ..loading import precision_of
from . import primitives as P


def _f24_rounded(rounding):
    """The f24 operations whose results ``rounding`` (a rule of ``primitives.ROUNDINGS``)
    rounds."""

    def mul(a, b):
        return rounding(P.pica_mul(a, b))

    def add(a, b):
        return rounding(P.pica_add(a, b))

    def first(p):
        """0 + p for a rounded product p: p itself (p is a float24 value, +-inf or a
        quiet NaN; -0 cannot occur; rounding it again changes nothing)."""
        return p

    def unit(unrounded):
        return lambda x: rounding(unrounded(x))

    return dict(mul=mul, add=add, first=first, rounded=rounding, rcp=unit(P.rcp64),
                rsq=unit(P.rsq64), ex2=unit(P.ex2_64), lg2=unit(P.lg2_64), flr=unit(P.flr64))


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

#: The f24 arithmetic of each float24 rounding mode: flushed float64 working values, each
#: result rounded to float24 by the mode's rule (``primitives.ROUNDINGS``).
F24_ROUNDED = {mode: SimpleNamespace(precision=precision_of("f24", mode), work=P.flush24,
                                     store=_same, negate=P.negate24,
                                     **_f24_rounded(rounding), **_COMMON)
               for mode, rounding in P.ROUNDINGS.items()}
#: The default f24 arithmetic, to nearest even.
F24 = F24_ROUNDED["nearest-even"]
#: The f32 arithmetic: float32 values, each result rounded to float32.
F32 = SimpleNamespace(precision="f32", work=_same, mul=P.mul32, add=P.add32,
                      first=_first32, rounded=_same, store=_same, negate=P.negate32,
                      rcp=P.rcp32, rsq=P.rsq32, ex2=P.ex2_32, lg2=P.lg2_32, flr=P.flr32,
                      **_COMMON)

#: The ``m`` of each arithmetic an engine is asked for (``loading.Arithmetic``).
ARITHMETIC = {F32.precision: F32, **{m.precision: m for m in F24_ROUNDED.values()}}
