"""picasso's instruction syntax as data: one description per instruction form.

Each opcode with a mnemonic has a :class:`Form`: the spelling the assembler accepts and
the disassembler prints, and its operands in order, each a :class:`Slot` with the name
the editor shows (signature help, hover) and a :class:`SlotKind` that says what the text
is (a register, a condition, a procedure name, ...) and which instruction fields it
gives.  The keyword vocabularies of the language (MOVA's targets, SETEMIT's flags, the
comparison operators) are here too, once.  The assembler (:mod:`.asm.instructions`)
parses a statement slot by slot, the disassembler (:mod:`.disasm.syntax`,
:mod:`.disasm.structure`) prints one the same way, and the language server
(:mod:`.lsp.syntax`) names, completes and explains the operands from the same slots.

The forms follow from the ISA table (each opcode's format, kind, flow effect and
condition, :mod:`.isa`); pica-assembly.md#mnemonics and pica-assembly.md#conditions
describe the language.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from .isa import OPCODES, CompareOp, Condition, Flow, Kind, Opcode, OpcodeInfo, Writes


class SlotKind(Enum):
    """What one operand of an instruction is.  ``late``: picasso reads the rest of the
    statement ("too many parameters") before it looks at this operand's text, as it does
    for names and the loop register; the other operands are read as they come."""

    DESTINATION = ("dst", False)
    SOURCE = ("src", False)
    COMPARE = ("op", False)
    ADDRESS_TARGET = ("a0", False)
    CONDITION = ("cond", False)
    BOOL = ("bool", False)
    LOOP_REGISTER = ("int", True)
    PROCEDURE = ("proc", True)
    LABEL = ("label", True)
    VERTEX = ("vtx", False)
    EMIT_FLAGS = ("flags", False)

    def __init__(self, tag: str, late: bool):
        self.tag = tag
        self.late = late


@dataclass(frozen=True, slots=True)
class Slot:
    """One operand: the name the editor shows and what it is."""

    name: str
    kind: SlotKind


@dataclass(frozen=True, slots=True)
class Form:
    """How one opcode is written: ``mnemonic`` then the slots, separated by commas."""

    opcode: Opcode
    mnemonic: str
    slots: tuple[Slot, ...]

    def text(self, operands: list[str]) -> str:
        """The statement with the operands' texts (in slot order)."""
        return f"{self.mnemonic} {', '.join(operands)}" if operands else self.mnemonic


#: MOVA's destination: the a0 components it writes, as a mask (pica-assembly.md#mnemonics).
#: The first spelling of each mask is the one the disassembler prints; the others are
#: picasso's legacy names, which the assembler also accepts.
MOVA_TARGETS: dict[str, int] = {"a0.x": 0x8, "a0.y": 0x4, "a0.xy": 0xC,
                                "a0": 0x8, "a1": 0x4, "a01": 0xC}
#: SETEMIT's flags: spelling -> the field it sets; the first spelling of each field is
#: the one printed.
SETEMIT_FLAGS: dict[str, str] = {"prim": "primemit", "primitive": "primemit",
                                 "inv": "winding", "invert": "winding"}
#: CMP's comparison operators (the encodings above GE have no spelling).
COMPARE_OPERATORS: dict[str, CompareOp] = {op.name.lower(): op for op in CompareOp
                                           if op <= CompareOp.GE}
#: SETEMIT's vertex number: 0..2 (pica-assembly.md#mnemonics).
MAX_EMIT_VERTEX = 2


def printed_spelling(table: dict[str, object], value: object) -> str | None:
    """The spelling the disassembler prints for ``value`` of a vocabulary (its first)."""
    return next((text for text, v in table.items() if v == value), None)


_CONDITION_SLOT = {Condition.FLAGS: Slot("cond", SlotKind.CONDITION),
                   Condition.BOOL: Slot("bN", SlotKind.BOOL),
                   Condition.BOOLNUM: Slot("[!]bN", SlotKind.BOOL)}
_TARGET_SLOT = {Flow.CALL: Slot("proc", SlotKind.PROCEDURE),
                Flow.JUMP: Slot("label", SlotKind.LABEL)}


def _slots(info: OpcodeInfo) -> tuple[Slot, ...]:
    """The operands of an opcode, from what the ISA table says it does."""
    if not info.has_operands:
        return ()
    if info.kind is Kind.GEOMETRY:  # SETEMIT (EMIT has no operands)
        return (Slot("vtx", SlotKind.VERTEX), Slot("[prim] [inv]", SlotKind.EMIT_FLAGS))
    if info.flow is Flow.LOOP:
        return (Slot("iN", SlotKind.LOOP_REGISTER),)
    if info.kind is Kind.FLOW:
        found = (_CONDITION_SLOT.get(info.condition), _TARGET_SLOT.get(info.flow))
        return tuple(s for s in found if s is not None)
    sources = tuple(Slot(s, SlotKind.SOURCE) for s in info.format.sources)
    if info.kind is Kind.COMPARE:
        first, second = sources
        return (first, Slot("opx", SlotKind.COMPARE), Slot("opy", SlotKind.COMPARE), second)
    if info.writes is Writes.ADDRESS:
        return (Slot("|".join(t for t in MOVA_TARGETS if "." in t), SlotKind.ADDRESS_TARGET),
                *sources)
    return (Slot("dst", SlotKind.DESTINATION), *sources)


def _spelling(info: OpcodeInfo) -> str:
    # picasso spells LOOP "for" and does not accept "loop" (pica-assembly.md#mnemonics).
    return "for" if info.flow is Flow.LOOP else info.mnemonic


#: Every opcode that has a mnemonic -> its form.  An I-form opcode (dphi, madi, ...) has
#: its own entry; the assembler chooses the form from the operands either way.
FORMS: dict[Opcode, Form] = {
    info.opcode: Form(info.opcode, _spelling(info), _slots(info))
    for info in OPCODES.values() if info.mnemonic
}
