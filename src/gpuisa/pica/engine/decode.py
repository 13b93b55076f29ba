"""A program decoded once into execution records, so engines never touch bit fields.

Every word of the program becomes one :class:`Step`: its opcode row, its register
operands (bank, number, swizzle, negation, index register) read through the operand
descriptor, its destination and mask, and the fields of flow-control and geometry
instructions.  Field layouts come from :mod:`..isa` and are unpacked by
:func:`..encoding.decode`; nothing here knows a bit position.

A word that cannot execute (an unknown opcode, or a descriptor index beyond the
descriptor table) still decodes: its ``fault`` says why, and the engine reports it only
if the word is reached.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..encoding import decode, decode_opdesc, field_value
from ..isa import (
    INDEX_REGISTERS,
    OPCODES,
    Kind,
    Opcode,
    OpcodeInfo,
    Writes,
    destination_register,
    mask_components,
    source_register,
)
from ..program import Program

#: The index registers in the order of the rows of ``ShaderState.address``.
ADDRESS_REGISTERS: tuple[str, ...] = tuple(r for r in INDEX_REGISTERS.values() if r)


@dataclass(frozen=True, slots=True)
class Operand:
    """One register source as the ALU sees it.

    ``swizzle`` lists the component read into each of x, y, z, w (an index array, so that
    a component-major ``(4, N)`` register is swizzled by ``reg[swizzle]``).  ``relative``
    is the row of :data:`ADDRESS_REGISTERS` named by the IDX field (pica-emulation.md#relative) when
    the operand is in the instruction's wide source slot and IDX is not 0; else None.
    """

    bank: str  # 'v', 'r' or 'c'
    number: int
    swizzle: np.ndarray
    negate: bool
    relative: int | None = None

    @property
    def name(self) -> str:
        return f"{self.bank}{self.number}"


@dataclass(frozen=True, slots=True)
class Step:
    """One decoded instruction word at address ``pc``.

    ``op`` is the opcode whose math applies (the I-forms share it: DPHI -> DPH).
    ``dest`` is ``('o' | 'r', number)`` for instructions writing a register, ``mask`` the
    written components (0 = x ... 3 = w; for MOVA 0 = a0.x, 1 = a0.y).  ``fields`` keeps
    every raw field of the word (flow targets, condition bits, CMP operators, SETEMIT
    flags) under the names of :data:`..isa.FORMATS`.
    """

    pc: int
    word: int
    info: OpcodeInfo
    op: Opcode
    sources: tuple[Operand, ...] = ()
    dest: tuple[str, int] | None = None
    mask: np.ndarray | None = None
    fields: tuple[tuple[str, int], ...] = ()
    fault: str | None = None

    @property
    def kind(self) -> Kind:
        return self.info.kind

    def field(self, name: str) -> int:
        return field_value(self.fields, name, self.info.opcode)


@dataclass(frozen=True, slots=True)
class DecodedProgram:
    """All words of a program decoded; ``steps[pc]`` is the instruction at ``pc``."""

    program: Program
    steps: tuple[Step, ...]

    def __len__(self) -> int:
        return len(self.steps)


def decode_program(program: Program) -> DecodedProgram:
    """Decode every instruction word of ``program`` against its descriptor table."""
    return DecodedProgram(program, tuple(_step(pc, w, program.opdescs)
                                         for pc, w in enumerate(program.code)))


def _step(pc: int, word: int, opdescs: tuple[int, ...]) -> Step:
    ins = decode(word)
    info = OPCODES[ins.opcode]
    fields = ins.fields
    if info.kind is Kind.UNKNOWN:
        return Step(pc, word, info, info.opcode, fields=fields,
                    fault=f"opcode 0x{word >> 26:02X} has no known function")
    if not info.has_descriptor:
        return Step(pc, word, info, info.opcode, fields=fields)

    index = ins["desc"]
    if index >= len(opdescs):
        return Step(pc, word, info, info.base_opcode, fields=fields,
                    fault=f"operand descriptor {index} does not exist (the program has "
                          f"{len(opdescs)})")
    desc = decode_opdesc(opdescs[index])
    fmt = info.format
    sources = []
    for n, slot in enumerate(fmt.sources, start=1):
        bank, number = source_register(ins[slot])
        index_register = INDEX_REGISTERS[ins["idx"]] if slot == fmt.indexed_source else None
        relative = ADDRESS_REGISTERS.index(index_register) if index_register else None
        sources.append(Operand(bank, number, np.array(desc.swizzle(n), dtype=np.intp),
                               desc.negate[n - 1], relative))
    dest = None
    if Writes.REGISTER in info.writes:
        dest = destination_register(ins["dst"])
    mask = np.array(mask_components(desc.mask), dtype=np.intp)
    return Step(pc, word, info, info.base_opcode, tuple(sources), dest, mask, fields)
