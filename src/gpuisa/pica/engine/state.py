"""The state of a shader unit for N lanes: register files, uniforms, flags, output banks.

Registers are component-major float32 arrays: ``temporaries[n]`` is the ``(4, N)`` value
of rn, ``outputs[bank, n]`` that of on in one of the two output banks (notes §6.2).
They are views of lane-major storage (:func:`register_file`), so that a register's
``(N, 4)`` form needs no copy and registers that are never touched take no memory.
Uniforms are shared by all lanes.  Reading an input or a uniform that was never given is
an :class:`~gpuisa.errors.InputError` naming the register and the instruction, so that
a forgotten value never turns silently into zeros.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...errors import InputError
from ..isa import (
    NUM_BOOL_UNIFORMS,
    NUM_INPUTS,
    NUM_INT_UNIFORMS,
    NUM_OUTPUTS,
    NUM_TEMPORARIES,
)
from .decode import ADDRESS_REGISTERS, Operand
from .semantics import (
    MISSING_UNIFORM_ROW,
    UNIFORM_TABLE_ROWS,
    Precision,
    relative_uniform_index,
    select,
)

#: Address register rows of :attr:`ShaderState.address`.
ADDRESS_NAMES = ADDRESS_REGISTERS
AL = ADDRESS_REGISTERS.index("aL")


@dataclass(slots=True)
class Uniforms:
    """Float, integer and boolean uniforms with a record of which were given.

    ``floats`` has :data:`~.semantics.UNIFORM_TABLE_ROWS` rows: c0-c95, then the rows a
    relative index beyond c95 reads, which hold (1, 1, 1, 1) (seed "Relative
    addressing").  ``ints[n]`` is (x, y, z, w) of in as unsigned bytes.
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


def register_file(count: int, lanes: int) -> np.ndarray:
    """``count`` registers of ``lanes`` lanes as a component-major ``(count, 4, lanes)``
    view of lane-major storage ``(count, lanes, 4)``, zero-filled.

    Each register is one contiguous block, so ``file[n].T`` is a C-contiguous
    ``(lanes, 4)`` array (results need no copy), a register given as an ``(N, 4)`` array
    loads with a plain copy, and registers a program never touches cost no memory
    (``np.zeros`` pages are mapped on first write).
    """
    return np.zeros((count, lanes, 4), dtype=np.float32).transpose(0, 2, 1)


@dataclass(slots=True)
class ShaderState:
    """Everything an instruction can read or write, for ``lanes`` lanes.

    ``address`` rows are :data:`ADDRESS_NAMES` (a0.x, a0.y, aL; signed integers); ``cmp``
    rows cmp.x, cmp.y.
    ``bank`` is the output bank that writes go to; EMIT flips it (notes §6.2).
    """

    lanes: int
    uniforms: Uniforms = field(default_factory=Uniforms)
    inputs: np.ndarray = field(init=False)
    input_given: np.ndarray = field(init=False)
    temporaries: np.ndarray = field(init=False)
    outputs: np.ndarray = field(init=False)
    address: np.ndarray = field(init=False)
    cmp: np.ndarray = field(init=False)
    bank: int = 0

    def __post_init__(self) -> None:
        n = self.lanes
        self.inputs = register_file(NUM_INPUTS, n)
        self.input_given = np.zeros(NUM_INPUTS, dtype=bool)
        self.temporaries = register_file(NUM_TEMPORARIES, n)
        self.outputs = register_file(2 * NUM_OUTPUTS, n).reshape(2, NUM_OUTPUTS, 4, n)
        self.address = np.zeros((n, 3), dtype=np.int64).T  # lane-major, like the registers
        self.cmp = np.zeros((n, 2), dtype=bool).T

    def lane(self, index: int) -> ShaderState:
        """A one-lane copy of lane ``index`` (uniforms shared, not copied)."""
        one = ShaderState(1, self.uniforms, bank=self.bank)
        s = slice(index, index + 1)
        one.inputs[...] = self.inputs[..., s]
        one.input_given[...] = self.input_given
        one.temporaries[...] = self.temporaries[..., s]
        one.outputs[...] = self.outputs[..., s]
        one.address[...] = self.address[:, s]
        one.cmp[...] = self.cmp[:, s]
        return one

    def store_lane(self, index: int, one: ShaderState) -> None:
        """Write a one-lane state back into lane ``index``."""
        s = slice(index, index + 1)
        self.temporaries[..., s] = one.temporaries
        self.outputs[..., s] = one.outputs
        self.address[:, s] = one.address
        self.cmp[:, s] = one.cmp

    @property
    def active_outputs(self) -> np.ndarray:
        """The output registers of the bank that writes currently go to."""
        return self.outputs[self.bank]

    def read(self, operand: Operand, precision: Precision, pc: int) -> np.ndarray:
        """A source operand's (4, N) value: register read, relative index, swizzle, negation.

        The index register applies to float uniforms only; on v and r operands it is
        ignored (seed "Relative addressing").
        """
        if operand.bank == "c":
            if operand.relative is not None:
                rows = relative_uniform_index(operand.number, self.address[operand.relative])
            else:
                rows = np.full(self.lanes, operand.number)
            if not self.uniforms.float_given[rows].all():
                missing = sorted({int(r) for r in rows if not self.uniforms.float_given[r]})
                raise InputError(f"float uniform c{missing[0]} is read at pc 0x{pc:03X} but "
                                 f"was not given")
            value = self.uniforms.floats[rows].T
        elif operand.bank == "v":
            if not self.input_given[operand.number]:
                raise InputError(f"input v{operand.number} is read at pc 0x{pc:03X} but was "
                                 f"not given")
            value = self.inputs[operand.number]
        else:
            value = self.temporaries[operand.number]
        return select(value, operand.swizzle, operand.negate, precision)

    def write(self, dest: tuple[str, int], mask: np.ndarray, value: np.ndarray) -> None:
        """Write the components in ``mask`` of a (4, N) result to on or rn."""
        bank, number = dest
        target = self.outputs[self.bank, number] if bank == "o" else self.temporaries[number]
        target[mask] = value[mask]

    def copy(self) -> ShaderState:
        other = ShaderState(self.lanes, self.uniforms.copy(), bank=self.bank)
        for name in ("inputs", "input_given", "temporaries", "outputs", "address", "cmp"):
            getattr(other, name)[...] = getattr(self, name)
        return other

