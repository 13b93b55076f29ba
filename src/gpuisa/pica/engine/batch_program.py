"""A decoded program prepared for the batch engine: one :class:`Instr` per word.

Everything that does not depend on the run is worked out here, once per program (and
cached): which kind of kernel executes a word, which register components each source
operand contributes (the swizzle restricted to what the opcode reads), the written
components, the registers the program touches, and the flow-control fields.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field

from ..isa import Kind, Opcode
from ..program import Program
from .decode import ADDRESS_REGISTERS, DecodedProgram, Operand, Step
from .semantics import LANE_WISE_OPS

#: Register key in a lane file: ('v', n), ('r', n) or ('o', bank, n).
RegKey = tuple


@dataclass(frozen=True, slots=True)
class Source:
    """One source operand as the kernels fetch it.

    ``rows`` are the register components read, in the order the opcode consumes them
    (the swizzle restricted to the components that matter, see :func:`_rows`).
    """

    bank: str
    number: int
    rows: tuple[int, ...]
    negate: bool
    relative: int | None  # row of ADDRESS_REGISTERS, or None
    operand: Operand

    @property
    def key(self) -> RegKey:
        return (self.bank, self.number)

    @property
    def relative_to_al(self) -> bool:
        return self.relative == ADDRESS_REGISTERS.index("aL")


@dataclass(frozen=True, slots=True)
class Instr:
    """One program word.  ``kind`` selects the kernel: 'alu' (a vector opcode), 'cmp',
    'mova', 'litp', 'flow', 'end', 'nop', 'setemit', 'emit' or 'fault'."""

    pc: int
    kind: str
    op: Opcode
    step: Step
    sources: tuple[Source, ...] = ()
    dest: tuple[str, int] | None = None
    mask: tuple[int, ...] = ()
    fields: dict[str, int] = field(default_factory=dict)

    @property
    def fault(self) -> str | None:
        return self.step.fault


def _rows(op: Opcode, index: int, mask: tuple[int, ...]) -> tuple[int, ...]:
    """The result components of source ``index`` (0-based) that opcode ``op`` reads.

    Lane-wise opcodes: the written components (the others are computed and discarded
    by the reference engine).  MOVA: x and/or y as written.  The scalar units read x;
    CMP x and y; DP3 and DPH's first source x, y, z; everything else all four.
    """
    if op in LANE_WISE_OPS:
        return mask
    if op is Opcode.MOVA:
        return tuple(c for c in mask if c < 2)
    if op in (Opcode.RCP, Opcode.RSQ, Opcode.EX2, Opcode.LG2):
        return (0,)
    if op is Opcode.CMP:
        return (0, 1)
    if op is Opcode.DP3 or (op is Opcode.DPH and index == 0):
        return (0, 1, 2)
    return (0, 1, 2, 3)


def _instr(step: Step) -> Instr:
    info = step.info
    fields = dict(step.fields)
    if step.fault is not None:
        return Instr(step.pc, "fault", step.op, step, fields=fields)
    if info.kind is Kind.CONTROL:
        return Instr(step.pc, "end" if step.op is Opcode.END else "nop", step.op, step,
                     fields=fields)
    if info.kind is Kind.FLOW:
        return Instr(step.pc, "flow", step.op, step, fields=fields)
    if info.kind is Kind.GEOMETRY:
        return Instr(step.pc, step.op.name.lower(), step.op, step, fields=fields)
    mask = tuple(int(c) for c in step.mask)
    sources = []
    for index, operand in enumerate(step.sources):
        rows = tuple(int(operand.swizzle[c]) for c in _rows(step.op, index, mask))
        sources.append(Source(operand.bank, operand.number, rows, bool(operand.negate),
                              operand.relative, operand))
    op = step.op
    kind = {Opcode.CMP: "cmp", Opcode.MOVA: "mova", Opcode.LITP: "litp"}.get(op, "alu")
    return Instr(step.pc, kind, op, step, tuple(sources), step.dest, mask, fields)


@dataclass(frozen=True, slots=True)
class BatchProgram:
    """All words of a program as :class:`Instr` records plus the registers it uses."""

    decoded: DecodedProgram
    instrs: tuple[Instr, ...]
    inputs: tuple[int, ...]  # v registers read
    temporaries: tuple[int, ...]  # r registers read or written
    outputs: tuple[int, ...]  # o registers written
    uses_address: bool  # MOVA or LOOP present: a0/aL may change
    uses_cmp: bool  # CMP or LITP present: the flags may change

    def __len__(self) -> int:
        return len(self.instrs)


def prepare(decoded: DecodedProgram) -> BatchProgram:
    instrs = tuple(_instr(step) for step in decoded.steps)
    used: dict[str, set[int]] = {"v": set(), "r": set(), "o": set()}
    for ins in instrs:
        for source in ins.sources:
            if source.bank != "c":
                used[source.bank].add(source.number)
        if ins.dest is not None:
            used[ins.dest[0]].add(ins.dest[1])
    ops = {ins.op for ins in instrs if ins.kind != "fault"}
    return BatchProgram(
        decoded, instrs, tuple(sorted(used["v"])), tuple(sorted(used["r"])),
        tuple(sorted(used["o"])),
        uses_address=bool(ops & {Opcode.MOVA, Opcode.LOOP}),
        uses_cmp=bool(ops & {Opcode.CMP, Opcode.LITP}),
    )


_CACHE_SIZE = 64
_cache: OrderedDict[Program, BatchProgram] = OrderedDict()
_cache_lock = threading.Lock()


def prepared(decoded: DecodedProgram) -> BatchProgram:
    """The :class:`BatchProgram` of a decoded program, prepared once per program (the
    most recently used programs are kept)."""
    key = decoded.program
    with _cache_lock:
        hit = _cache.get(key)
        if hit is not None:
            _cache.move_to_end(key)
            return hit
    result = prepare(decoded)
    with _cache_lock:
        _cache[key] = result
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return result
