"""The scalar operations (a2xx-isa.md#scalar-ops, a2xx-isa.md#float-rules), one value per
invocation.

Each operation takes ``a`` (lane 3 of source 3), ``b`` (the second lane, see
:class:`~.config.EmulatorConfig` ``scalar_b_lane``) and ``ps`` (the previous scalar
result) as float32 arrays and returns its result and :class:`Effects`.  For the
``*_CONST_*`` operations ``a`` is the constant and ``b`` the temp operand (a2xx-isa.md#scalar-ops).
The result becomes the new ``ps``; RETAIN_PREV returns ``ps`` itself.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from ..isa import ScalarOpcode as S
from .effects import Effects, address_register
from .floatops import FLT_MAX, ONE, ZERO, as_float, legacy_max, legacy_min, legacy_mul

ScalarResult = tuple[np.ndarray, Effects | None]
ScalarOp = Callable[[np.ndarray, np.ndarray, np.ndarray], ScalarResult]


def _plain(fn: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]) -> ScalarOp:
    return lambda a, b, ps: (np.asarray(fn(a, b, ps), dtype=np.float32), None)


def _unary(fn: Callable[[np.ndarray], np.ndarray]) -> ScalarOp:
    return _plain(lambda a, b, ps: fn(a))


def _replace_inf(x: np.ndarray, positive: np.float32, negative: np.float32) -> np.ndarray:
    return np.where(x == np.inf, positive, np.where(x == -np.inf, negative, x))


def _log_clamp(a: np.ndarray) -> np.ndarray:
    r = np.log2(a)
    return np.where(r == -np.inf, -FLT_MAX, r)


def _rsq(a: np.ndarray) -> np.ndarray:
    return ONE / np.sqrt(a)


def _mul_prev2(a: np.ndarray, b: np.ndarray, ps: np.ndarray) -> np.ndarray:
    invalid = (ps == -FLT_MAX) | ~np.isfinite(ps) | ~np.isfinite(b) | (b <= 0)
    return np.where(invalid, -FLT_MAX, legacy_mul(a, ps))


def _mova(round_half_up: bool) -> ScalarOp:
    def op(a: np.ndarray, b: np.ndarray, ps: np.ndarray) -> ScalarResult:
        address = address_register(a, round_half_up=round_half_up)
        return legacy_max(a, b), Effects(address=address)

    return op


def _pred_set(test: Callable[[np.ndarray], np.ndarray]) -> ScalarOp:
    """PRED_SETxs: p0 = test(a); result 0 where p0 is set, else 1."""

    def op(a: np.ndarray, b: np.ndarray, ps: np.ndarray) -> ScalarResult:
        predicate = test(a)
        return as_float(~predicate), Effects(predicate=predicate)

    return op


def _pred_set_inv(a: np.ndarray, b: np.ndarray, ps: np.ndarray) -> ScalarResult:
    predicate = a == 1
    result = np.where(predicate, ZERO, np.where(a == 0, ONE, a))
    return result, Effects(predicate=predicate)


def _pred_set_pop(a: np.ndarray, b: np.ndarray, ps: np.ndarray) -> ScalarResult:
    counter = a - ONE
    predicate = counter <= 0
    return np.where(predicate, ZERO, counter), Effects(predicate=predicate)


def _pred_set_clr(a: np.ndarray, b: np.ndarray, ps: np.ndarray) -> ScalarResult:
    shape = np.broadcast(a, ps).shape
    return np.full(shape, FLT_MAX), Effects(predicate=np.zeros(shape, dtype=bool))


def _pred_set_restore(a: np.ndarray, b: np.ndarray, ps: np.ndarray) -> ScalarResult:
    predicate = a == 0
    return np.where(predicate, ZERO, a), Effects(predicate=predicate)


def _kill(test: Callable[[np.ndarray], np.ndarray]) -> ScalarOp:
    def op(a: np.ndarray, b: np.ndarray, ps: np.ndarray) -> ScalarResult:
        kill = test(a)
        return as_float(kill), Effects(kill=kill)

    return op


def _retain(a: np.ndarray, b: np.ndarray, ps: np.ndarray) -> ScalarResult:
    return np.broadcast_to(ps, np.broadcast(a, ps).shape), None


SCALAR_OPS: Mapping[S, ScalarOp] = {
    S.ADDs: _plain(lambda a, b, ps: a + b),
    S.ADD_PREVs: _plain(lambda a, b, ps: a + ps),
    S.MULs: _plain(lambda a, b, ps: legacy_mul(a, b)),
    S.MUL_PREVs: _plain(lambda a, b, ps: legacy_mul(a, ps)),
    S.MUL_PREV2s: _plain(_mul_prev2),
    S.MAXs: _plain(lambda a, b, ps: legacy_max(a, b)),
    S.MINs: _plain(lambda a, b, ps: legacy_min(a, b)),
    S.SETEs: _unary(lambda a: as_float(a == 0)),
    S.SETGTs: _unary(lambda a: as_float(a > 0)),
    S.SETGTEs: _unary(lambda a: as_float(a >= 0)),
    S.SETNEs: _unary(lambda a: as_float(a != 0)),
    S.FRACs: _unary(lambda a: a - np.floor(a)),
    S.TRUNCs: _unary(np.trunc),
    S.FLOORs: _unary(np.floor),
    S.EXP_IEEE: _unary(np.exp2),
    S.LOG_CLAMP: _unary(_log_clamp),
    S.LOG_IEEE: _unary(np.log2),
    S.RECIP_CLAMP: _unary(lambda a: _replace_inf(ONE / a, FLT_MAX, -FLT_MAX)),
    S.RECIP_FF: _unary(lambda a: _replace_inf(ONE / a, ZERO, -ZERO)),
    S.RECIP_IEEE: _unary(lambda a: ONE / a),
    S.RECIPSQ_CLAMP: _unary(lambda a: _replace_inf(_rsq(a), FLT_MAX, -FLT_MAX)),
    S.RECIPSQ_FF: _unary(lambda a: _replace_inf(_rsq(a), ZERO, -ZERO)),
    S.RECIPSQ_IEEE: _unary(_rsq),
    S.MOVAs: _mova(round_half_up=True),
    S.MOVA_FLOORs: _mova(round_half_up=False),
    S.SUBs: _plain(lambda a, b, ps: a - b),
    S.SUB_PREVs: _plain(lambda a, b, ps: a - ps),
    S.PRED_SETEs: _pred_set(lambda a: a == 0),
    S.PRED_SETNEs: _pred_set(lambda a: a != 0),
    S.PRED_SETGTs: _pred_set(lambda a: a > 0),
    S.PRED_SETGTEs: _pred_set(lambda a: a >= 0),
    S.PRED_SET_INVs: _pred_set_inv,
    S.PRED_SET_POPs: _pred_set_pop,
    S.PRED_SET_CLRs: _pred_set_clr,
    S.PRED_SET_RESTOREs: _pred_set_restore,
    S.KILLEs: _kill(lambda a: a == 0),
    S.KILLGTs: _kill(lambda a: a > 0),
    S.KILLGTEs: _kill(lambda a: a >= 0),
    S.KILLNEs: _kill(lambda a: a != 0),
    S.KILLONEs: _kill(lambda a: a == 1),
    S.SQRT_IEEE: _unary(np.sqrt),
    S.MUL_CONST_0: _plain(lambda c, r, ps: legacy_mul(c, r)),
    S.MUL_CONST_1: _plain(lambda c, r, ps: legacy_mul(c, r)),
    S.ADD_CONST_0: _plain(lambda c, r, ps: c + r),
    S.ADD_CONST_1: _plain(lambda c, r, ps: c + r),
    S.SUB_CONST_0: _plain(lambda c, r, ps: c - r),
    S.SUB_CONST_1: _plain(lambda c, r, ps: c - r),
    S.SIN: _unary(np.sin),
    S.COS: _unary(np.cos),
    S.RETAIN_PREV: _retain,
}
