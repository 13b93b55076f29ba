"""Checking a program before running it, and decoding what its EXEC clauses run.

Everything that would make execution undefined is reported up front as an
:class:`~gpuisa.a2xx.errors.A2xxError` naming the CF clause or slot: a truncated program,
an EXEC whose slots lie outside the program or inside the CF program, a jump, call or loop
address beyond the CF program, an undefined fetch or scalar opcode, an undefined vector
opcode whose result is written, and a vertex fetch format that has no vertex layout.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ...errors import GpuIsaError
from .. import isa
from ..encoding import (
    AluInstruction,
    CfClause,
    CfExec,
    CfJmpCall,
    CfLoop,
    TextureFetch,
    VertexFetch,
    words_from_bytes,
)
from ..errors import A2xxError
from ..isa import CfOpcode
from ..program import Program, read_program
from .config import EmulatorConfig


@dataclass(frozen=True, slots=True)
class Step:
    """One instruction of an EXEC block."""

    slot: int
    instr: AluInstruction | VertexFetch | TextureFetch


@dataclass(frozen=True, slots=True)
class LoadedShader:
    program: Program
    clauses: tuple[CfClause, ...]
    addresses: tuple[int, ...]  # each clause's address field, at the configured width
    blocks: Mapping[int, tuple[Step, ...]]  # CF index of an EXEC -> its instructions


def as_words(words: Iterable[int] | bytes) -> Iterable[int]:
    """A program's dwords, given as dwords or as little-endian bytes."""
    if isinstance(words, bytes | bytearray | memoryview):
        return words_from_bytes(bytes(words))
    return words


def _address(raw: int, clause: CfClause, config: EmulatorConfig) -> int:
    kind = clause.info.kind
    if config.wide_addresses and kind in isa.XENIA_ADDRESS_BITS:
        return raw & ((1 << isa.XENIA_ADDRESS_BITS[kind]) - 1)
    return int(getattr(clause, "address", 0))


def _describe(index: int, clause: CfClause, address: int) -> str:
    return f"CF clause {index} ({clause.info.name} ADDR(0x{address:x}))"


def _check_instruction(slot: int, instr: AluInstruction | VertexFetch | TextureFetch) -> None:
    where = f"slot {slot} (dword {3 * slot})"
    if isinstance(instr, VertexFetch):
        if instr.format not in isa.VERTEX_FORMAT_INFO:
            fmt = getattr(instr.format, "name", str(int(instr.format)))
            raise A2xxError(f"{where}: vertex fetch format {fmt} has no vertex data layout")
    elif isinstance(instr, AluInstruction):
        if instr.scalar_info is None:
            raise A2xxError(f"{where}: scalar opcode {int(instr.scalar_opc)} is undefined")
        if instr.vector_info is None and instr.vector_write_mask:
            raise A2xxError(
                f"{where}: vector opcode {int(instr.vector_opc)} is undefined but its "
                "result is written"
            )


def fetch_slots(program: Program, config: EmulatorConfig) -> frozenset[int]:
    """The slots that some EXEC clause runs as a fetch (unchecked: a program's vertex
    fetch templates are patched before it is loaded)."""
    slots = set()
    for raw, clause in zip(program.cf_raw, program.cf, strict=True):
        if isinstance(clause, CfExec):
            address = _address(raw, clause, config)
            slots.update(address + i for i in range(clause.count) if clause.is_fetch(i))
    return frozenset(slots)


def load_shader(words: Iterable[int] | bytes, config: EmulatorConfig) -> LoadedShader:
    try:
        program = read_program(as_words(words))
    except A2xxError:
        raise
    except GpuIsaError as exc:
        raise A2xxError(str(exc)) from None
    cf_slots = len(program.cf) // 2
    addresses = tuple(
        _address(raw, clause, config)
        for raw, clause in zip(program.cf_raw, program.cf, strict=True)
    )
    blocks: dict[int, tuple[Step, ...]] = {}
    for index, (clause, address) in enumerate(zip(program.cf, addresses, strict=True)):
        if isinstance(clause, CfExec) and clause.count:
            end = address + clause.count
            if address < cf_slots or end > len(program.slots):
                raise A2xxError(
                    f"{_describe(index, clause, address)} CNT(0x{clause.count:x}) runs slots "
                    f"{address}..{end - 1}, but instructions occupy slots {cf_slots}.."
                    f"{len(program.slots) - 1}"
                )
            steps = []
            for i in range(clause.count):
                slot = address + i
                instr = program.fetch(slot) if clause.is_fetch(i) else program.alu(slot)
                _check_instruction(slot, instr)
                steps.append(Step(slot, instr))
            blocks[index] = tuple(steps)
        elif (
            isinstance(clause, CfLoop | CfJmpCall)
            and clause.opcode != CfOpcode.RETURN
            and address >= len(program.cf)
        ):
            raise A2xxError(
                f"{_describe(index, clause, address)} targets CF clause {address}, but "
                f"the CF program has only {len(program.cf)} clauses"
            )
    return LoadedShader(program, program.cf, addresses, blocks)
