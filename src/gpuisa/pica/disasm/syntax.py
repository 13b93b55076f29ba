"""Instructions to picasso-syntax text, and whether the text would assemble back exactly.

Every formatter returns ``None`` when the instruction cannot be written in picasso's
language so that the assembler (pica-assembly.md) rebuilds the identical word:
the disassembler then prints a ``.word`` for it.  Flow-control targets are resolved by
the caller (:mod:`.structure`), which owns labels and procedures.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..encoding import Instruction, OperandDescriptor, decode_opdesc
from ..isa import (
    COMPONENTS,
    IDENTITY_SELECTOR,
    INDEX_REGISTERS,
    NUM_GEOMETRY_OUTPUTS,
    OPDESC_LAYOUT,
    CondOp,
    EmitEffect,
    Format,
    Kind,
    Writes,
    destination_register,
    mask_components,
    selector_components,
    source_register,
)
from ..syntax import (
    COMPARE_OPERATORS,
    FORMS,
    MAX_EMIT_VERTEX,
    MOVA_TARGETS,
    SETEMIT_FLAGS,
    printed_spelling,
)

#: Register-field values from this one up can only be reached through a 7-bit field.
WIDE_ONLY = 0x20
_INPUT_BANK_END = 0x10


@dataclass(slots=True)
class UnitNames:
    """How one translation unit names registers: uniform and input aliases."""

    #: c-register number -> (alias name, index within the alias's array, array size)
    floats: dict[int, tuple[str, int, int]] = field(default_factory=dict)
    #: v-register number -> alias name
    inputs: dict[int, str] = field(default_factory=dict)
    geometry: bool = False

    def source(self, raw: int) -> tuple[str, int | None, int]:
        """(base name, static offset or None, array size) for a source register value."""
        bank, number = source_register(raw)
        if bank == "c" and number in self.floats:
            name, offset, size = self.floats[number]
            return name, offset, size
        if bank == "v" and number in self.inputs:
            return self.inputs[number], None, 1
        return f"{bank}{number}", None, 1


def swizzle_text(selector: int) -> str:
    """``.xy`` style text for a selector, shortest form that picasso pads back identically
    (a short swizzle repeats its last component); empty for the identity ``.xyzw``."""
    if selector == IDENTITY_SELECTOR:
        return ""
    comps = list(selector_components(selector))
    while len(comps) > 1 and comps[-1] == comps[-2]:
        comps.pop()
    return "." + "".join(COMPONENTS[c] for c in comps)


def mask_text(mask: int) -> str:
    """Destination mask (hardware bit order) as ``.xz``; empty for the full mask."""
    if mask == 0xF:
        return ""
    return "." + "".join(COMPONENTS[c] for c in mask_components(mask))


def source_text(raw: int, index: int, selector: int, negate: bool, names: UnitNames) -> str | None:
    """One source operand, or None if picasso syntax cannot express it."""
    bank, _ = source_register(raw)
    if index and bank != "c":
        return None  # picasso only allows index registers on c registers
    base, offset, size = names.source(raw)
    inner = []
    if index:
        inner.append(INDEX_REGISTERS[index])
    if offset is not None and (offset or size > 1 or index):
        inner.append(str(offset))
    bracket = f"[{'+'.join(inner)}]" if inner else ""
    return f"{'-' if negate else ''}{base}{bracket}{swizzle_text(selector)}"


def destination_text(raw: int, mask: int, names: UnitNames) -> str | None:
    if mask == 0:
        return None
    bank, number = destination_register(raw)
    if bank == "o" and names.geometry and number >= NUM_GEOMETRY_OUTPUTS:
        return None  # picasso rejects o7-o15 in geometry shaders
    return f"{bank}{number}{mask_text(mask)}"


def condition_text(condop: int, refx: int, refy: int) -> str | None:
    """``cmp.x && !cmp.y`` style text; None for encodings picasso never produces (an
    unused flag's reference bit is always left at 1, pica-assembly.md#conditions)."""
    x = "cmp.x" if refx else "!cmp.x"
    y = "cmp.y" if refy else "!cmp.y"
    op = CondOp(condop)
    if op is CondOp.OR:
        return f"{x} || {y}"
    if op is CondOp.AND:
        return f"{x} && {y}"
    if op is CondOp.X:
        return x if refy else None
    return y if refx else None


def printable_descriptor_bits(ins: Instruction) -> int:
    """Descriptor bits that the printed operands determine.  The assembler sets all other
    bits of the descriptor value it builds to 0 (e.g. src3 of a two-source instruction,
    the mask of CMP), exactly as picasso does."""
    info = ins.info
    names = [f"{kind}{n}" for n in range(1, info.sources + 1) for kind in ("neg", "sel")]
    if info.kind is Kind.ARITHMETIC:
        names.append("mask")
    bits = 0
    for name in names:
        bits |= OPDESC_LAYOUT[name].mask
    return bits


def _sources_are_legal(ins: Instruction) -> bool:
    """picasso's source checks: at most one distinct input register per instruction
    (hardware erratum, picasso issue #6) and the automatic I-form choice must give back
    this very opcode (pica-assembly.md#i-forms)."""
    fmt: Format = ins.format
    raws = [ins[s] for s in fmt.sources]
    if len({r for r in raws if r < _INPUT_BANK_END}) > 1:
        return False
    name = fmt.name
    if name == "1i":
        return ins["src2"] >= WIDE_ONLY
    if name == "5i":
        return ins["src3"] >= WIDE_ONLY
    return True


def instruction_text(ins: Instruction, opdescs: tuple[int, ...], names: UnitNames) -> str | None:
    """Text of a non-flow-control instruction, or None when it needs a ``.word``."""
    if ins.extra:
        return None
    info = ins.info
    if not info.has_operands:
        return info.mnemonic
    if info.emission is EmitEffect.SETUP:
        # In a vertex unit a `setemit` would make the assembler's DVLE a geometry shader
        # (and forbid o7-o15 from there on): the word is printed raw instead.
        return _setemit_text(ins) if names.geometry else None
    if (not info.has_descriptor or ins["desc"] >= len(opdescs)
            or not _sources_are_legal(ins)):
        return None
    desc = decode_opdesc(opdescs[ins["desc"]])
    srcs = _source_texts(ins, desc, names)
    if srcs is None:
        return None
    operands = _leading_operands(ins, desc, names)
    if operands is None:
        return None
    if info.kind is Kind.COMPARE:
        return FORMS[info.base_opcode].text([srcs[0], *operands, srcs[1]])
    return FORMS[info.base_opcode].text([*operands, *srcs])


def _source_texts(ins: Instruction, desc: OperandDescriptor, names: UnitNames) -> list[str] | None:
    """The text of each source operand, or None when one has no spelling."""
    srcs = []
    for n, source in enumerate(ins.format.sources, start=1):
        index = ins["idx"] if ins.format.indexed_source == source else 0
        text = source_text(ins[source], index, desc.selectors[n - 1], desc.negate[n - 1], names)
        if text is None:
            return None
        srcs.append(text)
    return srcs


def _leading_operands(ins: Instruction, desc: OperandDescriptor,
                      names: UnitNames) -> list[str] | None:
    """What stands before the sources: CMP's two operators (printed between them), MOVA's
    target or the destination register; None when one has no spelling."""
    if ins.info.kind is Kind.COMPARE:
        ops = [printed_spelling(COMPARE_OPERATORS, ins[field]) for field in ("cmpx", "cmpy")]
        return None if None in ops else ops
    if ins.info.writes is Writes.ADDRESS:
        target = printed_spelling(MOVA_TARGETS, desc.mask)
        return None if target is None or ins["dst"] != 0 else [target]
    dst = destination_text(ins["dst"], desc.mask, names)
    return None if dst is None else [dst]


def _setemit_text(ins: Instruction) -> str | None:
    vtxid = ins["vtxid"]
    if vtxid > MAX_EMIT_VERTEX:
        return None  # picasso: Value out of range (0..2)
    fields = dict.fromkeys(SETEMIT_FLAGS.values())
    flags = [printed_spelling(SETEMIT_FLAGS, f) for f in fields if ins[f]]
    return FORMS[ins.opcode].text([str(vtxid), *([" ".join(flags)] if flags else [])])
