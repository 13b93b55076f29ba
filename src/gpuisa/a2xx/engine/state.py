"""The register state of a batch of invocations, component-major.

Every vec4 register is a ``(4, N)`` float32 array (row = component, column = invocation),
so a swizzle selects rows and a write mask assigns rows.  Registers are allocated on first
write; reading one never written gives zeros.  Operations address a subset of the
invocations with a *lane selector*: ``slice(None)`` for all of them or a sorted int array.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ...errors import InputError
from .. import isa

if TYPE_CHECKING:  # inputs -> texture -> state would be circular at run time
    from .inputs import Constants

Lanes = slice | np.ndarray
ALL: slice = slice(None)

#: Invocations in one run.  Each takes up to ~1.3 KiB of registers (64 temps, exports and
#: per-lane state), so this bounds a run's memory at about 20 GiB for the worst program
#: and far less for real ones; larger batches are run in parts by the caller.
MAX_INVOCATIONS = 1 << 24


def lane_count(lanes: Lanes, total: int) -> int:
    return total if isinstance(lanes, slice) else len(lanes)


@dataclass(eq=False)
class BatchState:
    """Registers and flags of ``count`` invocations, plus what they read."""

    count: int
    constants: Constants
    temps: dict[int, np.ndarray] = field(default_factory=dict)
    exports: dict[int, np.ndarray] = field(default_factory=dict)
    allocs: set[tuple[int, int, int]] = field(default_factory=set)  # (cf index, buffer, size)
    unsupported_fetches: set[int] = field(default_factory=set)  # slot indices

    def __post_init__(self) -> None:
        n = self.count
        if n > MAX_INVOCATIONS:  # refuse before allocating anything per invocation
            raise InputError(f"{n:,} invocations requested; at most {MAX_INVOCATIONS:,} run "
                             f"at once (run larger batches in parts)")
        self.ps = np.zeros(n, dtype=np.float32)  # previous scalar result
        self.p0 = np.zeros(n, dtype=bool)  # predicate
        self.a0 = np.zeros(n, dtype=np.int32)  # address register
        self.killed = np.zeros(n, dtype=bool)
        # The last full vertex fetch of each invocation (for Xenos mini fetches): its fetch
        # slot (-1: none yet) and the byte address of the element it read.
        self.fetch_slot = np.full(n, -1, dtype=np.int16)
        self.fetch_address = np.zeros(n, dtype=np.int64)

    # -- temps ----------------------------------------------------------------------------

    def read_temp(self, index: int, lanes: Lanes) -> np.ndarray:
        """(4, n) values of temp ``index`` (taken modulo 64)."""
        reg = self.temps.get(index % isa.TEMP_REGISTERS)
        if reg is None:
            return np.zeros((4, lane_count(lanes, self.count)), dtype=np.float32)
        return reg[:, lanes]

    def temp(self, index: int) -> np.ndarray:
        """The writable (4, N) array of temp ``index`` (taken modulo 64)."""
        return self._register(self.temps, index % isa.TEMP_REGISTERS)

    def export(self, index: int) -> np.ndarray:
        return self._register(self.exports, index)

    def _register(self, bank: dict[int, np.ndarray], index: int) -> np.ndarray:
        reg = bank.get(index)
        if reg is None:
            reg = bank[index] = np.zeros((4, self.count), dtype=np.float32)
        return reg
