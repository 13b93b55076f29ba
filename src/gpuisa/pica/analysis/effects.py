"""What each instruction word reads and writes, from the ISA tables of :mod:`..isa` and
the program's operand descriptors: the per-instruction facts the checks need.

Register components are bit sets: bit ``4 * n + c`` for register n, component c (x = 0)
of the outputs (o0-o15) and of the temporaries (r0-r15).  The other state the checks
follow is one small bit set, :data:`MISC_BITS`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..encoding import Instruction, decode, decode_opdesc
from ..isa import (
    NUM_INPUTS,
    Kind,
    SourceUse,
    Writes,
    mask_components,
    selector_components,
    source_register,
)

A0X, A0Y, AL, CMPX, CMPY, NO_SETEMIT = (1 << i for i in range(6))
#: Names of the MISC bits, for messages.
MISC_BITS = {A0X: "a0.x", A0Y: "a0.y", AL: "aL", CMPX: "cmp.x", CMPY: "cmp.y"}
#: The bit INDEX reads (pica-emulation.md#relative: 1 = a0.x, 2 = a0.y, 3 = aL).
_INDEX_BITS = {1: A0X, 2: A0Y, 3: AL}
#: Condition flags a CONDOP tests (pica-emulation.md#flow-instructions: 0 = x OR y,
#: 1 = x AND y, 2 = x, 3 = y).
_CONDOP_BITS = {0: CMPX | CMPY, 1: CMPX | CMPY, 2: CMPX, 3: CMPY}
#: Destination field values of the temporaries start here (isa DESTINATION_BANKS).
_TEMP_DST = 0x10


@dataclass(frozen=True, slots=True)
class SourceRead:
    """One register source: its bank and number, the components read (after swizzle)
    and the index register applied to it (0 = none; only float uniforms are indexed)."""

    bank: str
    number: int
    components: tuple[int, ...]
    index: int
    swizzle: tuple[int, int, int, int]


@dataclass(frozen=True, slots=True)
class Effect:
    ins: Instruction
    dst_mask: int = 0  # hardware order (bit 3 = x); 0 when nothing is written
    out_writes: int = 0
    tmp_writes: int = 0
    tmp_reads: int = 0
    misc_writes: int = 0
    misc_reads: int = 0
    sources: tuple[SourceRead, ...] = ()


def _lanes(use: SourceUse, dst_mask: int, count: int) -> list[tuple[int, ...]]:
    """Per source, the lanes (positions before the swizzle) the hardware reads."""
    written = mask_components(dst_mask)
    if use is SourceUse.MASKED:
        return [written] * count
    if use is SourceUse.DP3:
        return [(0, 1, 2)] * count
    if use is SourceUse.DPH:
        return [(0, 1, 2), (0, 1, 2, 3)][:count]
    if use is SourceUse.SCALAR:
        return [(0,)]
    if use is SourceUse.MOVA:
        return [tuple(c for c in written if c < 2)]
    if use is SourceUse.CMP:
        # the hardware compares x and y only (pica-emulation.md#compare)
        return [(0, 1)] * count
    if use is SourceUse.ALL:
        return [(0, 1, 2, 3)] * count
    return [()] * count


def effect(word: int, opdescs: tuple[int, ...]) -> Effect:
    ins = decode(word)
    info = ins.info
    misc_reads = 0
    if info.reads_flags:
        misc_reads = _CONDOP_BITS[ins["condop"]]
    if not info.has_descriptor:
        return Effect(ins, misc_reads=misc_reads)
    desc_index = ins["desc"]
    if desc_index >= len(opdescs):
        return Effect(ins)
    desc = decode_opdesc(opdescs[desc_index])
    dst_mask = desc.mask if info.kind is Kind.ARITHMETIC else 0
    sources = []
    tmp_reads = 0
    for n, (name, lanes) in enumerate(zip(info.format.sources,
                                          _lanes(info.use, dst_mask, info.sources), strict=True)):
        bank, number = source_register(ins[name])
        swizzle = selector_components(desc.selectors[n])
        comps = tuple(sorted({swizzle[lane] for lane in lanes}))
        index = ins["idx"] if info.format.indexed_source == name and bank == "c" else 0
        misc_reads |= _INDEX_BITS.get(index, 0)
        sources.append(SourceRead(bank, number, comps, index, swizzle))
        if bank == "r":
            tmp_reads |= sum(1 << (4 * number + c) for c in comps)
    comps = mask_components(dst_mask)
    out_writes = tmp_writes = misc_writes = 0
    if Writes.ADDRESS in info.writes:
        misc_writes = (A0X if dst_mask & 8 else 0) | (A0Y if dst_mask & 4 else 0)
    if Writes.FLAGS in info.writes:
        misc_writes |= CMPX | CMPY  # CMP, and LITP besides its register (pica-emulation.md#compare)
    if Writes.REGISTER in info.writes:
        dst = ins["dst"]
        bits = sum(1 << (4 * (dst % _TEMP_DST) + c) for c in comps)
        if dst < _TEMP_DST:
            out_writes = bits
        else:
            tmp_writes = bits
    return Effect(ins, dst_mask, out_writes, tmp_writes, tmp_reads, misc_writes, misc_reads,
                  tuple(sources))


def effects(code: tuple[int, ...], opdescs: tuple[int, ...]) -> list[Effect]:
    return [effect(w, opdescs) for w in code]


def input_registers(e: Effect) -> set[int]:
    """The v registers an instruction reads."""
    return {s.number for s in e.sources if s.bank == "v" and s.number < NUM_INPUTS}
