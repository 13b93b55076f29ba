"""Hover texts (Markdown): instructions, directives, registers and declared names.

An instruction's opcode, format, operand fields and source-component use come from the
ISA table (:mod:`..isa`); what it computes, with the float24 and hardware rules, from the
emulator's documentation (the docstrings of :mod:`..engine.rules.recipes`), headed by a
one-line summary written here.  A name's register, swizzle, size and constant value come
from the assembler's symbol tables of the last analysis.
"""

from __future__ import annotations

from collections.abc import Callable

from ...floats import f24_to_f32
from ..asm.operands import B_BASE, C_BASE, I_BASE, R_BASE, Alias
from ..engine.rules.recipes import RECIPES
from ..isa import (
    CALL_STACK_DEPTH,
    COMPONENTS,
    GS_VERTEX_BUFFER_ENTRIES,
    IDENTITY_SELECTOR,
    IF_STACK_DEPTH,
    LOOP_STACK_DEPTH,
    OPCODES,
    Arithmetic,
    EmitEffect,
    Flow,
    Opcode,
    OpcodeInfo,
    SourceUse,
    Writes,
    selector_components,
)
from ..shbin.records import ConstantKind
from .analysis import Analysis
from .index import INSTRUCTIONS, Occurrence, Role, is_register
from .syntax import DIRECTIVES, operand_names

_USE = {
    SourceUse.MASKED: "component i of each source for each written component i",
    SourceUse.DP3: "x, y, z of both sources",
    SourceUse.DPH: "x, y, z of src1 and all of src2",
    SourceUse.SCALAR: "only src1.x (a multi-component swizzle is wasted)",
    SourceUse.MOVA: "src1.x for a0.x, src1.y for a0.y",
    SourceUse.CMP: "x and y of both sources",
    SourceUse.ALL: "every component of every source",
}


def _engine_function(op: Opcode) -> Callable | None:
    """The emulator's recipe of an opcode, whose docstring describes its math."""
    return RECIPES.get(op)


def _engine_doc(op: Opcode) -> str:
    """The emulator's description of an opcode's math."""
    function = _engine_function(op)
    doc = function.__doc__ if function is not None else None
    if not doc:
        return ""
    return " ".join(doc.split())


def _hardware_notes(info: OpcodeInfo) -> list[str]:
    notes = []
    if info.arithmetic is not Arithmetic.NONE:
        notes.append("float24 (`precision=\"f24\"`): inputs are flushed (subnormals and -0 "
                     "become +0), each product and partial sum is rounded to float24 "
                     "(round to nearest even); 0 · ±inf = +0")
    if Writes.ADDRESS in info.writes:
        notes.append("two consecutive `mova` freeze the GPU (picasso manual errata; "
                     "`pica asm` warns)")
    if info.flow is Flow.IF:
        notes.append(f"the IF stack holds {IF_STACK_DEPTH} entries")
    if info.flow is Flow.CALL:
        notes.append(f"the CALL stack holds {CALL_STACK_DEPTH} entries")
    if info.flow is Flow.LOOP:
        notes.append(f"the LOOP stack holds {LOOP_STACK_DEPTH} entries")
    if info.emission is EmitEffect.SETUP:
        notes.append(f"vertex slots 0..{GS_VERTEX_BUFFER_ENTRIES - 2}")
    if info.format.sources and len({info.format.source_width(s)
                                    for s in info.format.sources}) > 1:
        notes.append("two different input registers (v) in one instruction give wrong "
                     "results (hardware erratum, an error in `pica asm`)")
    return notes


def _field(width: int) -> str:
    return ("v0-v15, r0-r15, c0-c95, indexable with a0.x, a0.y or aL" if width == 7
            else "v0-v15, r0-r15")


def _operand_lines(info: OpcodeInfo) -> list[str]:
    if not info.has_descriptor:
        return []
    lines = []
    for source in info.format.sources:
        lines.append(f"- {source}: {_field(info.format.source_width(source))}")
    if info.inverted is not None:
        partner = OPCODES[info.inverted]
        lines.append(f"- the form with the other field widths, {partner.mnemonic.upper()} "
                     f"(opcode 0x{partner.opcode:02X}, format {partner.format.name}), is "
                     "chosen automatically from the operands")
    if info.use in _USE:
        lines.append(f"- reads {_USE[info.use]}")
    return lines


def mnemonic_hover(name: str) -> str | None:
    info = INSTRUCTIONS.get(name.lower())
    if info is None:
        return None
    op = info.base_opcode
    base = OPCODES[op]
    head = (f"**{name.lower()}** `{signature(name.lower())}`\n\n"
            f"opcode 0x{base.opcode:02X}, format {base.format.name}, {base.kind.value}")
    parts = [head, base.summary]
    parts.append("\n".join(_operand_lines(base)))
    doc = _engine_doc(op)
    if doc:
        parts.append(f"Emulator: {doc}")
    notes = _hardware_notes(base)
    if notes:
        parts.append("Hardware: " + "; ".join(notes) + ".")
    return "\n\n".join(p for p in parts if p)


def signature(mnemonic: str) -> str:
    names = operand_names(INSTRUCTIONS[mnemonic])
    return f"{mnemonic} {', '.join(names)}".rstrip()


def directive_hover(name: str) -> str | None:
    entry = DIRECTIVES.get(name.lower().lstrip("."))
    if entry is None:
        return None
    syntax, text = entry
    return f"**.{name.lower().lstrip('.')}** `{syntax}`\n\n{text}"


_BANKS = (("b", B_BASE, "boolean uniform"), ("i", I_BASE, "integer vector uniform"),
          ("c", C_BASE, "float vector uniform"), ("r", R_BASE, "temporary register"))
_REGISTER_KIND = {"v": "input attribute", "o": "output register", "r": "temporary register",
                  "c": "float vector uniform", "i": "integer vector uniform",
                  "b": "boolean uniform", "a": "address register (written by `mova`)",
                  "l": "loop counter (`for`)", "m": "condition flag (`cmp`, `litp`)"}


def register_name(reg: int, low: str = "v") -> str:
    """The name of an internal register id (pica-assembly.md#register-names); ids below 0x10 are
    ``low`` (v or o)."""
    for letter, base, _ in _BANKS:
        if reg >= base:
            return f"{letter}{reg - base}"
    return f"{low}{reg}"


def swizzle_text(sel: int) -> str:
    return "".join(COMPONENTS[c] for c in selector_components(sel))


def register_hover(text: str) -> str:
    lower = text.lower()
    if lower.startswith("cmp"):
        kind = _REGISTER_KIND["m"]
    elif lower in ("al", "a2", "lcnt"):
        kind = _REGISTER_KIND["l"]
    elif lower.startswith("a"):
        kind = _REGISTER_KIND["a"]
    else:
        kind = _REGISTER_KIND.get(lower[0], "register")
    return f"**{text}**: {kind}"


def _root_letter(analysis: Analysis, unit: int, occurrence: Occurrence, depth: int = 0) -> str:
    """v or o for a name standing for a register id below 0x10."""
    if occurrence.role is Role.OUTPUT:
        return "o"
    if occurrence.role is Role.INPUT or depth > 16:
        return "v"
    target = occurrence.detail.lstrip("-")[:1]
    if is_register(occurrence.detail.lstrip("-").split(".")[0].split("[")[0]):
        return "o" if target.lower() == "o" else "v"
    name = occurrence.detail.lstrip("-").split(".")[0].split("[")[0]
    declared = analysis.index.declared(unit).get(name)
    return _root_letter(analysis, unit, declared, depth + 1) if declared else "v"


def _constant_values(analysis: Analysis, unit: int, alias: Alias, count: int) -> list[str]:
    bank = next(((k, b) for k, b in ((ConstantKind.BOOL, B_BASE), (ConstantKind.INT, I_BASE),
                                     (ConstantKind.FLOAT, C_BASE)) if alias.reg >= b), None)
    if bank is None or unit >= len(analysis.units):
        return []
    kind, base = bank
    by_register = {c.register: c for c in analysis.units[unit].constants if c.kind is kind}
    values = []
    for i in range(count):
        constant = by_register.get(alias.reg - base + i)
        if constant is None:
            break
        if kind is ConstantKind.FLOAT:
            floats = f24_to_f32([w & 0xFFFFFF for w in constant.words])
            values.append("(" + ", ".join(f"{float(v):g}" for v in floats) + ")")
        elif kind is ConstantKind.INT:
            word = constant.words[0]
            values.append("(" + ", ".join(str((word >> (8 * k)) & 0xFF) for k in range(4)) + ")")
        else:
            values.append("true" if constant.words[0] else "false")
    return values


def _array_size(definition: Occurrence) -> int:
    """Registers a uniform or constant declaration covers (its ``[N]``, else 1)."""
    detail = definition.detail
    if definition.role in (Role.UNIFORM, Role.CONSTANT) and detail.isdigit():
        return min(max(int(detail), 1), 96)
    return 1


def symbol_hover(analysis: Analysis, occurrence: Occurrence) -> str | None:
    key = occurrence.key
    if key is None:
        return None
    definitions = analysis.index.definitions(key)
    if not definitions:
        return None
    same_unit = [d for d in definitions if d.unit == occurrence.unit]
    definition = (same_unit or definitions)[0]
    role = definition.role
    if role is Role.PROCEDURE:
        place = analysis.procedures.get(definition.text)
        where = (f": words 0x{place[0]:03X}-0x{place[0] + place[1] - 1:03X} ({place[1]} words)"
                 if place and place[1] else "")
        return f"procedure **{definition.text}**{where}"
    if role is Role.LABEL:
        facts = analysis.units[definition.unit] if definition.unit < len(analysis.units) else None
        pos = facts.labels.get(definition.text) if facts else None
        return f"label **{definition.text}**" + (f": word 0x{pos:03X}" if pos is not None else "")
    facts = analysis.units[definition.unit] if definition.unit < len(analysis.units) else None
    alias = facts.aliases.get(definition.text) if facts else None
    head = f"{role.value} **{definition.text}**"
    if alias is None:
        return head
    register = register_name(alias.reg, _root_letter(analysis, definition.unit, definition))
    size = _array_size(definition)
    values = _constant_values(analysis, definition.unit, alias, size)
    where = register
    if size > 1:
        where = f"{register}-{register_name(alias.reg + size - 1)} (array of {size})"
    text = f"{head}: {'-' if alias.neg else ''}{where}"
    if alias.sel != IDENTITY_SELECTOR:
        text += f".{swizzle_text(alias.sel)}"
    if values:
        text += "\n\n= " + ", ".join(values)
    return text


def hover_text(analysis: Analysis, occurrence: Occurrence) -> str | None:
    role = occurrence.role
    if role is Role.MNEMONIC:
        return mnemonic_hover(occurrence.text)
    if role is Role.DIRECTIVE:
        return directive_hover(occurrence.text)
    if role is Role.REGISTER:
        return register_hover(occurrence.text)
    return symbol_hover(analysis, occurrence)
