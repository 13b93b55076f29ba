"""The generated kernels run by CPython instead of Numba: their text, with each rule by its
primitive.

A per-program kernel (:mod:`gpuisa.pica.engine.compiled.codegen`,
:mod:`gpuisa.pica.engine.compiled.geometry`) is Python text calling the compiled rules
(``R.*``, :mod:`gpuisa.pica.engine.compiled.intrinsics`) and the flow rules (``S.*``,
plain Python that Numba compiles as it is).  Numba takes 3-20 s to compile one, so the
differential test cannot compile the kernel of each of its 2,000 programs; it runs their
text here instead, with ``R`` bound to :data:`RULES`: each rule's primitive
(:mod:`gpuisa.pica.engine.rules.primitives`) between the conversions its compiled form
makes.  ``test_kernel_model.py`` proves each entry equal to the compiled rule it stands
for, so what this checks is everything else in the kernel: which rule each component
calls and on what, the control flow, the loads, stores, masks and write-backs.

Values keep the types they have in compiled code: register values are NumPy float32
scalars (read from and written to float32 arrays unchanged, NaN payloads included),
working values float64.  A rule's arguments are first converted to the type its
compiled form takes, as Numba converts them (float32 -> float64 quiets a signalling
NaN, as the FPU does).  What this cannot see is how Numba types the kernel text itself
(a variable given float32 and float64 values becomes float64 there); the kernels of each
kind that the differential test does compile cover that.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np

from gpuisa.pica.engine.compiled import stacks
from gpuisa.pica.engine.rules import primitives as P

_ABS32, _INF32 = 0x7FFFFFFF, 0x7F800000


def widen(x: np.float32) -> float:
    """A float32 register value as the primitives take it (``reference.values.widen``)."""
    if x == x:
        return float(x)
    u = int(np.float32(x).view(np.uint32))
    return P.bits_f64(((u >> 31) << 63) | 0x7FF0000000000000 | ((u & 0x7FFFFF) << 29))


def narrow(y: float) -> np.float32:
    """The inverse of :func:`widen` (``reference.values.narrow``)."""
    if y == y:
        return np.float32(y)
    u = P.f64_bits(y)
    return np.array([((u >> 63) << 31) | _INF32 | ((u >> 29) & 0x7FFFFF)],
                    np.uint32).view(np.float32)[0]


def _as32(x) -> np.float32:
    """An argument of a rule that takes float32, converted as compiled code converts it."""
    return x if type(x) is np.float32 else np.float32(x)


def _as64(x) -> float:
    """An argument of a rule that takes float64 (float32 -> float64 quiets a NaN)."""
    return float(x)


def _on32(primitive):
    """A rule on float32 register values: the primitive on their widened values."""
    def rule(*args):
        return narrow(primitive(*(widen(_as32(a)) for a in args)))
    return rule


def _on64(primitive):
    """A rule on float64 working values, returning one."""
    def rule(*args):
        return primitive(*(_as64(a) for a in args))
    return rule


def _work24(x):
    return P.flush24(widen(_as32(x)))


def _store(x):
    return np.float32(_as64(x))


def _finite_or_nan(value: float) -> float:
    """The in-range rules' contract: the exact value when it is finite, else not finite
    (the kernel only checks that it is not; that lane then runs on an exact engine)."""
    return value if math.isfinite(value) else math.nan


def _round24_in_range(x):
    return _finite_or_nan(P.round24(_as64(x)))


def _round24_bounded(x):
    """Veltkamp's splitting as the compiled rule computes it, bit for bit everywhere (not
    only on its domain, where it equals ``P.round24``): a lane that the operand checks
    let through with a value outside that domain shows as a difference from the
    reference engine."""
    x = _as64(x)
    c = x * P.VELTKAMP_SPLIT
    return (x - c) + c


def _unbounded24(x, k):
    return np.int8(not P.bounded24(widen(_as32(x)), k))


def _mul64_in_range(a, b):
    return _as64(a) * _as64(b)


def _add64_in_range(a, b):
    return _as64(a) + _as64(b)


def _mul32_in_range(a, b):
    return _as32(a) * _as32(b)


def _add32_in_range(a, b):
    return _as32(a) + _as32(b)


def _nonfinite32(x):
    return np.int8((int(_as32(x).view(np.uint32)) & _INF32) == _INF32)


def _unit(primitive):
    """EX2/LG2: the primitive (NumPy's ufunc, which the compiled rule calls through its
    inner loop); the scratch buffers of the compiled call are not needed."""
    rule = _on32(primitive)
    return lambda x, scratch: rule(x)


#: What ``R.<name>`` is in a kernel run by :func:`compile_source`.
RULES = SimpleNamespace(
    ZERO32=np.float32(0.0), ONE32=np.float32(1.0),
    work24=_work24, store=_store, round24=_on64(P.round24),
    mul64=_on64(P.pica_mul), add64=_on64(P.pica_add),
    negate24=_on32(P.negate24), negate32=_on32(P.negate32),
    mul32=_on32(P.mul32), add32=_on32(P.add32),
    pica_max=_on32(P.pica_max), pica_min=_on32(P.pica_min),
    sge=_on32(P.sge), slt=_on32(P.slt),
    rcp24=_on32(P.rcp24), rsq24=_on32(P.rsq24), flr24=_on32(P.flr24),
    rcp32=_on32(P.rcp32), rsq32=_on32(P.rsq32), flr32=_on32(P.flr32),
    ex2_24=_unit(P.ex2_24), lg2_24=_unit(P.lg2_24),
    ex2_f32=_unit(P.ex2_32), lg2_f32=_unit(P.lg2_32),
    make_scratch=lambda natives: None,
    round24_in_range=_round24_in_range, mul64_in_range=_mul64_in_range,
    add64_in_range=_add64_in_range, mul32_in_range=_mul32_in_range,
    add32_in_range=_add32_in_range, nonfinite32=_nonfinite32,
    round24_bounded=_round24_bounded, unbounded24=_unbounded24,
    compare=P.compare, relative_row=P.relative_row, address_from_float=P.address_from_float,
)


def compile_source(source: str):
    """The kernel of ``source`` as a Python function (what ``kernels.compile_source``
    gives compiled)."""
    namespace = {"np": np, "R": RULES, "S": stacks}
    exec(compile(source, "<gpuisa pica kernel, run by CPython>", "exec"), namespace)
    return namespace["kernel"]
