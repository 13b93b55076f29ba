"""The state of a shader unit for N lanes: register files, uniforms, flags, output banks.

Registers are component-major float32 arrays: ``temporaries[n]`` is the ``(4, N)`` value
of rn, ``outputs[bank][n]`` that of on in one of the two output banks
(pica-emulation.md#output-banks).  Each is a view of its own lane-major ``(N, 4)`` array
(:class:`RegisterFile`), allocated when first used, so that a register's ``(N, 4)`` form needs no
copy and registers a program never touches cost nothing.  Uniforms are shared by all lanes.  Reading
an input or a uniform that was never given is an :class:`~gpuisa.errors.InputError` naming the
register and the instruction, so that a forgotten value never turns silently into zeros.
"""

from __future__ import annotations

import functools
import threading
from dataclasses import dataclass, field

import numpy as np

from ...errors import InputError
from ..isa import (
    NUM_BOOL_UNIFORMS,
    NUM_FLOAT_UNIFORMS,
    NUM_INPUTS,
    NUM_INT_UNIFORMS,
    NUM_OUTPUTS,
    NUM_TEMPORARIES,
    RELATIVE_INDEX_MASK,
)
from .decode import ADDRESS_REGISTERS
from .memory import lane_array

#: Address register rows of :attr:`ShaderState.address`.
ADDRESS_NAMES = ADDRESS_REGISTERS
AL = ADDRESS_REGISTERS.index("aL")

#: Rows of the float uniform table: every index a relative read ``c[n + a0]`` can form
#: (masked with :data:`~..isa.RELATIVE_INDEX_MASK`, pica-emulation.md#relative).
UNIFORM_TABLE_ROWS = RELATIVE_INDEX_MASK + 1
#: First row past c95: every row from here reads (1, 1, 1, 1).
MISSING_UNIFORM_ROW = NUM_FLOAT_UNIFORMS


@dataclass(slots=True)
class Uniforms:
    """Float, integer and boolean uniforms with a record of which were given.

    ``floats`` has :data:`UNIFORM_TABLE_ROWS` rows: c0-c95, then the rows a
    relative index beyond c95 reads, which hold (1, 1, 1, 1)
    (pica-emulation.md#relative).  ``ints[n]`` is (x, y, z, w) of in as unsigned bytes.
    """

    floats: np.ndarray = field(default_factory=lambda: _float_table())
    float_given: np.ndarray = field(default_factory=lambda: _float_given())
    ints: np.ndarray = field(
        default_factory=lambda: np.zeros((NUM_INT_UNIFORMS, 4), dtype=np.int64))
    int_given: np.ndarray = field(
        default_factory=lambda: np.zeros(NUM_INT_UNIFORMS, dtype=bool))
    bools: np.ndarray = field(default_factory=lambda: np.zeros(NUM_BOOL_UNIFORMS, dtype=bool))
    bool_given: np.ndarray = field(
        default_factory=lambda: np.zeros(NUM_BOOL_UNIFORMS, dtype=bool))

    def copy(self) -> Uniforms:
        return Uniforms(self.floats.copy(), self.float_given.copy(), self.ints.copy(),
                        self.int_given.copy(), self.bools.copy(), self.bool_given.copy())

    def set_float(self, number: int, value: np.ndarray) -> None:
        self.floats[number] = value
        self.float_given[number] = True

    def set_int(self, number: int, value: np.ndarray) -> None:
        self.ints[number] = value
        self.int_given[number] = True

    def set_bool(self, number: int, value: bool) -> None:
        self.bools[number] = value
        self.bool_given[number] = True

    def int_vector(self, number: int, pc: int) -> np.ndarray:
        if not self.int_given[number]:
            raise InputError(f"integer uniform i{number} is read at pc 0x{pc:03X} but was "
                             f"not given")
        return self.ints[number]

    def bool_value(self, number: int, pc: int) -> bool:
        if not self.bool_given[number]:
            raise InputError(f"bool uniform b{number} is read at pc 0x{pc:03X} but was "
                             f"not given")
        return bool(self.bools[number])


def _float_table() -> np.ndarray:
    table = np.zeros((UNIFORM_TABLE_ROWS, 4), dtype=np.float32)
    table[MISSING_UNIFORM_ROW:] = 1.0
    return table


def _float_given() -> np.ndarray:
    given = np.zeros(UNIFORM_TABLE_ROWS, dtype=bool)
    given[MISSING_UNIFORM_ROW:] = True
    return given


_ALLOCATION = threading.Lock()


class RegisterFile:
    """``count`` float32 registers of ``lanes`` lanes, each stored lane-major as its own
    ``(lanes, 4)`` array and allocated when first used (zero-filled unless the caller
    writes it whole, :meth:`storage`, or hands in the array, :meth:`adopt`).

    ``file[n]`` is register n's component-major ``(4, lanes)`` view (allocating it).
    Separate allocations from :mod:`.memory`, not one ``(count, lanes, 4)`` block,
    because fresh memory is expensive: registers a run never uses take none, and the
    memory of those it uses is recycled for the next run.
    """

    __slots__ = ("_storage", "lanes")

    def __init__(self, count: int, lanes: int):
        self.lanes = lanes
        self._storage: list[np.ndarray | None] = [None] * count

    def __len__(self) -> int:
        return len(self._storage)

    def __getitem__(self, number: int) -> np.ndarray:
        return self.storage(number).T

    def storage(self, number: int, fill: bool = True) -> np.ndarray:
        """Register ``number``'s lane-major ``(lanes, 4)`` array, allocated if needed
        (by one thread: engines run chunks of lanes in parallel); zero-filled unless
        ``fill`` is False (for a caller about to write every element)."""
        array = self._storage[number]
        if array is None:
            with _ALLOCATION:
                array = self._storage[number]
                if array is None:
                    array = lane_array(self.lanes, 4, np.float32, fill)
                    self._storage[number] = array
        return array

    def allocated(self, number: int) -> bool:
        return self._storage[number] is not None

    def adopt(self, number: int, values: np.ndarray) -> None:
        """Use ``values`` (C-contiguous float32 ``(lanes, 4)``, e.g. the caller's input
        array) as register ``number`` without a copy; it is made read-only here, so that
        nothing writes into the caller's array."""
        view = values.view()
        view.flags.writeable = False
        self._storage[number] = view

    def result(self, number: int) -> np.ndarray:
        """Register ``number`` as ``(lanes, 4)`` for a caller: its storage, or a read-only
        view of zeros if it was never used (allocating 32 zero registers of 10^7 lanes
        would cost more than running a small shader)."""
        array = self._storage[number]
        if array is None:
            return _zero_rows(self.lanes)
        return array

    def stacked(self) -> np.ndarray:
        """Every register as one component-major ``(count, 4, lanes)`` copy."""
        out = np.zeros((len(self._storage), 4, self.lanes), dtype=np.float32)
        for number, array in enumerate(self._storage):
            if array is not None:
                out[number] = array.T
        return out

    def assign(self, values: np.ndarray) -> None:
        """Set every register from a component-major ``(count, 4, lanes)`` array."""
        for number in range(len(self._storage)):
            self.storage(number)[...] = values[number].T

    def take(self, lanes: slice | np.ndarray) -> RegisterFile:
        """A copy of the registers of ``lanes`` (a slice of this file's lanes, or their
        indices)."""
        count = (len(range(*lanes.indices(self.lanes))) if isinstance(lanes, slice)
                 else len(lanes))
        other = RegisterFile(len(self._storage), count)
        for number, array in enumerate(self._storage):
            if array is not None:
                other._storage[number] = array[lanes].copy()
        return other

    def put(self, lanes: slice | np.ndarray, other: RegisterFile,
            allocated_only: bool = False) -> None:
        """Write ``other``'s used registers into ``lanes`` of this file (with
        ``allocated_only``: only into registers this file has storage for)."""
        for number, array in enumerate(other._storage):
            if array is not None and not (allocated_only and self._storage[number] is None):
                self.storage(number)[lanes] = array


@dataclass(slots=True)
class ShaderState:
    """Everything an instruction can read or write, for ``lanes`` lanes.

    ``address`` rows are :data:`ADDRESS_NAMES` (a0.x, a0.y, aL; signed integers); ``cmp``
    rows cmp.x, cmp.y; both are lane-major like the registers and allocated on first use.
    ``outputs`` holds the two output banks; ``bank`` is the one that writes go to; EMIT
    flips it (pica-emulation.md#output-banks).
    """

    lanes: int
    uniforms: Uniforms = field(default_factory=Uniforms)
    inputs: RegisterFile = field(init=False)
    input_given: np.ndarray = field(init=False)
    temporaries: RegisterFile = field(init=False)
    outputs: tuple[RegisterFile, RegisterFile] = field(init=False)
    bank: int = 0
    _address: np.ndarray | None = field(init=False, default=None, repr=False)
    _cmp: np.ndarray | None = field(init=False, default=None, repr=False)

    def __post_init__(self) -> None:
        n = self.lanes
        self.inputs = RegisterFile(NUM_INPUTS, n)
        self.input_given = np.zeros(NUM_INPUTS, dtype=bool)
        self.temporaries = RegisterFile(NUM_TEMPORARIES, n)
        self.outputs = (RegisterFile(NUM_OUTPUTS, n), RegisterFile(NUM_OUTPUTS, n))

    @property
    def address(self) -> np.ndarray:
        """``(3, lanes)`` int64: a0.x, a0.y, aL."""
        address = self._address
        return address if address is not None else self._allocate("_address", 3, np.int64)

    @property
    def cmp(self) -> np.ndarray:
        """``(2, lanes)`` bool: cmp.x, cmp.y."""
        cmp = self._cmp
        return cmp if cmp is not None else self._allocate("_cmp", 2, np.bool_)

    @property
    def holds_control(self) -> tuple[bool, bool]:
        """Whether ``address`` / ``cmp`` were allocated: until then every lane holds
        zeros / false."""
        return self._address is not None, self._cmp is not None

    def _allocate(self, name: str, width: int, dtype: type) -> np.ndarray:
        """Allocate the zeroed component-major field ``name`` once (by one thread: engines
        run chunks of lanes in parallel)."""
        with _ALLOCATION:
            if getattr(self, name) is None:
                setattr(self, name, lane_array(self.lanes, width, dtype).T)
            return getattr(self, name)

    def results(self) -> tuple[np.ndarray, np.ndarray]:
        """``address`` and ``cmp`` for a caller, without allocating: never-used ones are
        read-only broadcast zeros (component-major like the properties)."""
        address, cmp = self._address, self._cmp
        if address is None:
            address = _zero_control(self.lanes, len(ADDRESS_REGISTERS), np.int64)
        if cmp is None:
            cmp = _zero_control(self.lanes, 2, np.bool_)
        return address, cmp

    def lane(self, index: int) -> ShaderState:
        """A one-lane copy of lane ``index`` (uniforms shared, not copied)."""
        return self.take_lanes(slice(index, index + 1))

    def take_lanes(self, lanes: slice | np.ndarray) -> ShaderState:
        """A copy of ``lanes`` (a slice, or lane indices; uniforms shared, not copied)."""
        inputs = self.inputs.take(lanes)
        some = ShaderState(inputs.lanes, self.uniforms, bank=self.bank)
        some.inputs = inputs
        some.input_given[...] = self.input_given
        some.temporaries = self.temporaries.take(lanes)
        some.outputs = (self.outputs[0].take(lanes), self.outputs[1].take(lanes))
        if self._address is not None:
            some.address[...] = self._address[:, lanes]
        if self._cmp is not None:
            some.cmp[...] = self._cmp[:, lanes]
        return some

    def put_lanes(self, lanes: slice | np.ndarray, some: ShaderState,
                  allocated_only: bool = False) -> None:
        """Write :meth:`take_lanes`'s copy back into ``lanes``; with ``allocated_only``
        only into the registers, address registers and flags this state has storage for
        (a run of the compiled engine allocates what its caller will see)."""
        self.temporaries.put(lanes, some.temporaries, allocated_only)
        for bank in (0, 1):
            self.outputs[bank].put(lanes, some.outputs[bank], allocated_only)
        for name, array in (("_address", some._address), ("_cmp", some._cmp)):
            if array is not None and not (allocated_only and getattr(self, name) is None):
                getattr(self, name[1:])[:, lanes] = array

    def store_lane(self, index: int, one: ShaderState) -> None:
        """Write a one-lane state back into lane ``index``."""
        self.put_lanes(slice(index, index + 1), one)


@functools.lru_cache(maxsize=16)
def _zero_control(lanes: int, count: int, dtype: type) -> np.ndarray:
    """A read-only ``(count, lanes)`` view of zeros, shared by the results of every run of
    ``lanes`` lanes whose address registers or flags were never used (broadcast_to costs
    more than a small run's kernel)."""
    return np.broadcast_to(np.zeros(count, dtype), (lanes, count)).T


@functools.lru_cache(maxsize=8)
def _zero_rows(lanes: int) -> np.ndarray:
    """A read-only ``(lanes, 4)`` float32 broadcast of zeros, shared by every unused
    register of a result (one per lane count: small runs made in a loop don't pay for
    32 broadcasts each)."""
    return np.broadcast_to(np.zeros(4, dtype=np.float32), (lanes, 4))
