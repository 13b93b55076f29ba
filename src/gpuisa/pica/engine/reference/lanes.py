"""The reference engine's state of one lane as plain Python lists, and the conversions
from and to a :class:`~..state.ShaderState` of many lanes.

Register values are Python floats (:mod:`.values`); a register is a list of four.  The
arrays of a state are converted once per run (``tolist`` of each register's ``(N, 4)``
array), so that executing an instruction allocates no array.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...isa import NUM_INPUTS, NUM_OUTPUTS, NUM_TEMPORARIES
from ..state import RegisterFile, ShaderState, Uniforms
from .values import narrow, widen

#: The value of every register nothing has written (shared: only read).
_ZEROS = (0.0, 0.0, 0.0, 0.0)


@dataclass(slots=True)
class Lane:
    """One lane: ``v`` inputs (None: not given), ``r`` temporaries, ``o`` the two output
    banks (``o[bank]`` receives writes; None for a bank that cannot be active), ``a``
    [a0.x, a0.y, aL], ``cmp`` [cmp.x, cmp.y]."""

    v: list
    r: list
    o: tuple
    bank: int
    a: list[int]
    cmp: list[bool]


class UniformTables:
    """The uniforms as lists; reading one that was not given is the error of
    :class:`~..state.Uniforms`."""

    __slots__ = ("bool_given", "bools", "float_given", "floats", "int_given", "ints",
                 "source")

    def __init__(self, uniforms: Uniforms):
        self.source = uniforms
        self.floats = widen(uniforms.floats).tolist()
        self.float_given = uniforms.float_given.tolist()
        self.ints = uniforms.ints.tolist()
        self.int_given = uniforms.int_given.tolist()
        self.bools = uniforms.bools.tolist()
        self.bool_given = uniforms.bool_given.tolist()

    def int_vector(self, number: int, pc: int) -> list[int]:
        if not self.int_given[number]:
            self.source.int_vector(number, pc)  # raises the error naming it
        return self.ints[number]

    def bool_value(self, number: int, pc: int) -> bool:
        if not self.bool_given[number]:
            self.source.bool_value(number, pc)
        return self.bools[number]


def _rows(registers: RegisterFile, number: int, lanes: slice) -> list[list[float]]:
    return widen(registers.result(number)[lanes]).tolist()


class StateLists:
    """The registers of the lanes ``lanes`` (a slice) of a state as lists; :meth:`lane`
    hands out one of them (whose lists are the rows here, written in place),
    :meth:`store` writes the written registers back.  Only the registers in ``used`` are
    converted (the others read as zeros and are never written); ``both_banks`` converts
    the inactive output bank too (geometry shaders flip banks on EMIT)."""

    def __init__(self, state: ShaderState, lanes: slice, used: frozenset[tuple[str, int]],
                 written: frozenset[tuple[str, int]], both_banks: bool):
        self.state = state
        self.lanes = lanes
        self.written = written
        self.v = [_rows(state.inputs, n, lanes) if state.input_given[n] and ("v", n) in used
                  else None for n in range(NUM_INPUTS)]
        self.r = [_rows(state.temporaries, n, lanes) if ("r", n) in used else None
                  for n in range(NUM_TEMPORARIES)]
        banks = (0, 1) if both_banks else (state.bank,)
        self.o = [[_rows(state.outputs[b], n, lanes) if ("o", n) in used else None
                   for n in range(NUM_OUTPUTS)] if b in banks else None for b in (0, 1)]
        address, cmp = state.results()
        self.a = address.T[lanes].tolist()
        self.cmp = cmp.T[lanes].tolist()

    def lane(self, i: int) -> Lane:
        v = [None if rows is None else rows[i] for rows in self.v]
        r = [_ZEROS if rows is None else rows[i] for rows in self.r]
        o = tuple(None if bank is None else
                  [_ZEROS if rows is None else rows[i] for rows in bank] for bank in self.o)
        return Lane(v, r, o, self.state.bank, self.a[i], self.cmp[i])

    def store(self, bank: int, address: bool, flags: bool) -> None:
        """Write the written registers back (and the address registers and flags if the
        program can change them); ``bank`` becomes the active bank."""
        state, lanes = self.state, self.lanes
        for b, registers in enumerate(self.o):
            if registers is None:
                continue
            for n, rows in enumerate(registers):
                if rows is not None and ("o", n) in self.written:
                    state.outputs[b].storage(n)[lanes] = narrow(np.array(rows))
        for n, rows in enumerate(self.r):
            if rows is not None and ("r", n) in self.written:
                state.temporaries.storage(n)[lanes] = narrow(np.array(rows))
        if address:
            state.address[:, lanes] = np.array(self.a, dtype=np.int64).T
        if flags:
            state.cmp[:, lanes] = np.array(self.cmp, dtype=bool).T
        state.bank = bank
