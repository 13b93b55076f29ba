"""Side effects of an ALU operation besides its result (a2xx-isa.md#alu-execution)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import isa
from .floatops import F32


@dataclass(slots=True)
class Effects:
    """New values for the invocations an operation ran on; None = unchanged."""

    predicate: np.ndarray | None = None  # p0
    address: np.ndarray | None = None  # a0
    kill: np.ndarray | None = None  # True: discard this invocation


def address_register(value: np.ndarray, *, round_half_up: bool) -> np.ndarray:
    """a0 from a float: clamp to [-256, 255] (NaN -> -256), then round half up or floor.

    The clamp is ``min(255, max(-256, v))`` with C++'s std::max/min (XE-I), which is
    where NaN becomes -256.
    """
    low, high = (F32(v) for v in isa.ADDRESS_REGISTER_RANGE)
    clamped = np.where(value > low, value, low)
    clamped = np.where(clamped < high, clamped, high)
    if round_half_up:
        clamped = clamped + F32(0.5)
    return np.floor(clamped).astype(np.int32)
