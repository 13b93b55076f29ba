"""The 30 vector operations (a2xx-isa.md#vector-ops, a2xx-isa.md#float-rules), on component-major
operands.

Each operation takes the first, second and third operands ``a``, ``b``, ``c`` as
``(4, m)`` float32 arrays (``m`` invocations, or 1 for a value shared by all) and returns
its ``(4, m)`` result and its :class:`Effects`.  Dot products, MAX4v, PRED_SET*_PUSHv and
KILL*v replicate their x result to all four components.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from ..isa import VectorOpcode as V
from .effects import Effects, address_register
from .floatops import F32, ONE, ZERO, as_float, legacy_max, legacy_min, legacy_mul

VectorResult = tuple[np.ndarray, Effects | None]
VectorOp = Callable[[np.ndarray, np.ndarray, np.ndarray], VectorResult]


def _replicate(x: np.ndarray) -> np.ndarray:
    return np.broadcast_to(x, (4, *x.shape))


def _rows(*rows: np.ndarray) -> np.ndarray:
    return np.stack(np.broadcast_arrays(*rows)).astype(np.float32)


def _dot(a: np.ndarray, b: np.ndarray, n: int) -> np.ndarray:
    # Summed in order from +0, so that +0 + -0 = +0 (XE-I).
    total = ZERO + legacy_mul(a[0], b[0])
    for i in range(1, n):
        total = total + legacy_mul(a[i], b[i])
    return total


def _cube(a: np.ndarray) -> np.ndarray:
    # The first operand is the direction swizzled .zzxy (XE-U); the second is not read.
    z, x, y = a[0], a[2], a[3]
    ax, ay, az = np.abs(x), np.abs(y), np.abs(z)
    z_major = (az >= ax) & (az >= ay)
    y_major = ~z_major & (ay >= ax)
    pick = [z_major, y_major]
    t = np.select(pick, [-y, np.where(y < 0, -z, z)], -y)
    s = np.select(pick, [np.where(z < 0, -x, x), x], np.where(x < 0, z, -z))
    major = np.select(pick, [z, y], x) * F32(2.0)
    face = np.select(pick, [np.where(z < 0, 5, 4), np.where(y < 0, 3, 2)], np.where(x < 0, 1, 0))
    return _rows(t, s, major, face.astype(np.float32))


def _max4(a: np.ndarray) -> np.ndarray:
    x, y, z, w = a
    return np.select([(x >= y) & (x >= z) & (x >= w), (y >= z) & (y >= w), z >= w], [x, y, z], w)


Compare = Callable[[np.ndarray], np.ndarray]


def _pred_push(test: Compare) -> VectorOp:
    """PRED_SET*_PUSHv: p0 from the w components, a counter from the x components."""

    def op(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> VectorResult:
        predicate = (a[3] == 0) & test(b[3])
        result = np.where((a[0] == 0) & test(b[0]), ZERO, a[0] + ONE)
        return _replicate(result), Effects(predicate=predicate)

    return op


def _kill(test: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> VectorOp:
    def op(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> VectorResult:
        kill = np.any(test(a, b), axis=0)
        return _replicate(as_float(kill)), Effects(kill=kill)

    return op


def _mova(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> VectorResult:
    return legacy_max(a, b), Effects(address=address_register(a[3], round_half_up=True))


def _plain(fn: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]) -> VectorOp:
    return lambda a, b, c: (fn(a, b, c), None)


VECTOR_OPS: Mapping[V, VectorOp] = {
    V.ADDv: _plain(lambda a, b, c: a + b),
    V.MULv: _plain(lambda a, b, c: legacy_mul(a, b)),
    V.MAXv: _plain(lambda a, b, c: legacy_max(a, b)),
    V.MINv: _plain(lambda a, b, c: legacy_min(a, b)),
    V.SETEv: _plain(lambda a, b, c: as_float(a == b)),
    V.SETGTv: _plain(lambda a, b, c: as_float(a > b)),
    V.SETGTEv: _plain(lambda a, b, c: as_float(a >= b)),
    V.SETNEv: _plain(lambda a, b, c: as_float(a != b)),
    V.FRACv: _plain(lambda a, b, c: a - np.floor(a)),
    V.TRUNCv: _plain(lambda a, b, c: np.trunc(a)),
    V.FLOORv: _plain(lambda a, b, c: np.floor(a)),
    # Not fused: the product is rounded before the addition (XE-U; a2xx-isa.md#open-muladd).
    V.MULADDv: _plain(lambda a, b, c: legacy_mul(a, b) + c),
    V.CNDEv: _plain(lambda a, b, c: np.where(a == 0, b, c)),
    V.CNDGTEv: _plain(lambda a, b, c: np.where(a >= 0, b, c)),
    V.CNDGTv: _plain(lambda a, b, c: np.where(a > 0, b, c)),
    V.DOT4v: _plain(lambda a, b, c: _replicate(_dot(a, b, 4))),
    V.DOT3v: _plain(lambda a, b, c: _replicate(_dot(a, b, 3))),
    V.DOT2ADDv: _plain(lambda a, b, c: _replicate(_dot(a, b, 2) + c[0])),
    V.CUBEv: _plain(lambda a, b, c: _cube(a)),
    V.MAX4v: _plain(lambda a, b, c: _replicate(_max4(a))),
    V.PRED_SETE_PUSHv: _pred_push(lambda v: v == 0),
    V.PRED_SETNE_PUSHv: _pred_push(lambda v: v != 0),
    V.PRED_SETGT_PUSHv: _pred_push(lambda v: v > 0),
    V.PRED_SETGTE_PUSHv: _pred_push(lambda v: v >= 0),
    V.KILLEv: _kill(lambda a, b: a == b),
    V.KILLGTv: _kill(lambda a, b: a > b),
    V.KILLGTEv: _kill(lambda a, b: a >= b),
    V.KILLNEv: _kill(lambda a, b: a != b),
    V.DSTv: _plain(lambda a, b, c: _rows(ONE, legacy_mul(a[1], b[1]), a[2], b[3])),
    V.MOVAv: _mova,
}
