"""The reference page docs/reference/pica-isa.md, generated from the opcode table.

:func:`page` renders the tables of :mod:`gpuisa.pica.isa` (limits, opcodes and their
facts, instruction formats, operand descriptor, register fields, index registers,
comparison and condition operators) as Markdown.  ``python -m gpuisa.pica.isadoc``
prints the page; ``--write`` writes it into the repository's ``docs/reference/``.
``tests/pica/test_isa_page.py`` fails when the committed page differs from the output.

The words explaining each column value live here, keyed by enum member; a member or a
field without one stops the generator, so the page cannot silently miss a new fact.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Mapping
from enum import Enum
from pathlib import Path

from . import isa

#: The page, relative to the repository root.
PAGE = Path("docs/reference/pica-isa.md")
#: The command that regenerates the committed page.
COMMAND = "python -m gpuisa.pica.isadoc --write"

THREEDBREW = "https://www.3dbrew.org/wiki/GPU/Shader_Instruction_Set"

# -- words for the columns -----------------------------------------------------------------

_KIND = {
    "ARITHMETIC": "writes a register (or the address registers) through an operand descriptor",
    "COMPARE": "CMP: sets the condition flags from an operand descriptor",
    "FLOW": "control flow (formats 0, 2, 3)",
    "GEOMETRY": "geometry shaders only (EMIT, SETEMIT)",
    "CONTROL": "NOP and END",
    "UNKNOWN": "no known function; executing it is a fault in gpuisa",
}
_USE = {
    "MASKED": "component *i* of every source, for each destination component *i* written",
    "DP3": "x, y, z of SRC1 and SRC2",
    "DPH": "x, y, z of SRC1; all of SRC2",
    "SCALAR": "x of SRC1 only",
    "MOVA": "x of SRC1 if a0.x is written, y if a0.y is written",
    "CMP": "x, y of SRC1; all of SRC2 (picasso keeps SRC2's z, w significant)",
    "ALL": "every component of every source",
    "NONE": "no register source",
}
_FLOW = {
    "NONE": "falls through to PC + 1",
    "JUMP": "pending jump to DST, taken only if no stack pops after it",
    "IF": "taken: push IF (DST, DST + NUM); not taken: jump to DST",
    "CALL": "taken: push CALL (DST + NUM, PC + 1) and jump to DST",
    "LOOP": "push LOOP (DST + 1, PC + 1, INT.x, INT.z, aL); aL = INT.y",
    "BREAK": "taken: pending break of the innermost LOOP",
    "END": "the invocation stops; no stack check",
}
_CONDITION = {
    "ALWAYS": "unconditional",
    "FLAGS": "CONDOP over REFX/REFY and cmp.x/cmp.y",
    "BOOL": "the bool uniform in the ID field is true",
    "BOOLNUM": "the bool uniform equals NOT bit 0 of NUM (JMPU)",
}
_WRITES = {
    "REGISTER": ("reg", "an output or temporary register, through the destination mask"),
    "FLAGS": ("flags", "the condition flags cmp.x, cmp.y"),
    "ADDRESS": ("addr", "the address registers a0.x, a0.y"),
}
_RESULT = {
    "NONE": "no register result",
    "VECTOR": "each component computed on its own",
    "SCALAR": "one value written to every component the mask enables",
}
_ARITHMETIC = {
    "NONE": "no rounding arithmetic (selects, compares or uses a special-function unit)",
    "SUM": "one rounded sum",
    "PRODUCT": "rounded products with the PICA multiply (0 · ∞ = 0)",
    "DOT": "products summed left to right, each product and partial sum rounded",
    "MAD": "a rounded product plus SRC3, rounded again (not fused)",
}
_PAD = {
    "NONE": "never makes picasso pad",
    "BLOCK": "picasso pads any `.end` or `.else` right after it",
    "LOOP": "picasso pads the `.end` of a `for` right after it",
}
_EMISSION = {
    "NONE": "no effect on the emission state",
    "SETUP": "selects the vertex slot, primitive and winding flags",
    "EMIT": "writes the vertex (and primitive) that SETEMIT set up",
}
_FIELDS = {
    "opcode": "opcode",
    "desc": "operand-descriptor index",
    "src1": "SRC1 register",
    "src2": "SRC2 register",
    "src3": "SRC3 register",
    "idx": "index register applied to the wide source (see [IDX](#index-registers))",
    "dst": "destination register (DST)",
    "cmpx": "comparison operator for x (CMPX)",
    "cmpy": "comparison operator for y (CMPY)",
    "num": "instruction count (NUM)",
    "condop": "condition operator (CONDOP)",
    "refx": "reference value for cmp.x (REFX)",
    "refy": "reference value for cmp.y (REFY)",
    "id": "bool uniform bN (IFU, CALLU, JMPU) or integer uniform iN (LOOP)",
    "winding": "FLAG_WINDING: invert the emitted primitive's winding",
    "primemit": "FLAG_PRIMEMIT: EMIT also emits a triangle",
    "vtxid": "VTXID: vertex buffer entry the next EMIT writes",
    "mask": "destination component mask",
    "neg1": "SRC1 negation",
    "sel1": "SRC1 component selector",
    "neg2": "SRC2 negation",
    "sel2": "SRC2 component selector",
    "neg3": "SRC3 negation",
    "sel3": "SRC3 component selector",
}
#: DST of the flow formats (those with a NUM field) is a word address, not a register.
_FLOW_DST = "target word address (DST)"
_COMPARE = {
    "EQ": "src1 == src2", "NE": "src1 != src2", "LT": "src1 < src2",
    "LE": "src1 <= src2", "GT": "src1 > src2", "GE": "src1 >= src2",
    "TRUE_6": "always true", "TRUE_7": "always true",
}
_CONDOP = {
    "OR": "cmp.x == REFX OR cmp.y == REFY",
    "AND": "cmp.x == REFX AND cmp.y == REFY",
    "X": "cmp.x == REFX",
    "Y": "cmp.y == REFY",
}
_GEOMETRY = {
    "POINT": "one invocation per group of vertex-shader outputs, delivered in v0, v1, ...",
    "VARIABLE": "variable-size primitives delivered in float uniforms",
    "FIXED": "fixed-size primitives delivered in float uniforms from a start register",
}
_LIMITS = (
    ("MAX_CODE_WORDS", "program memory of a shader unit, in instruction words"),
    ("MAX_VERTEX_CODE_WORDS", "vertex shader program limit, in words"),
    ("MAX_OPDESCS", "operand-descriptor table entries"),
    ("IF_STACK_DEPTH", "IF stack entries"),
    ("CALL_STACK_DEPTH", "CALL stack entries"),
    ("LOOP_STACK_DEPTH", "LOOP stack entries"),
    ("CALL_POPS_EFFECTIVE", "CALL pops per instruction whose return address takes effect"),
    ("GS_VERTEX_BUFFER_ENTRIES", "geometry shader output vertex buffer entries"),
    ("NUM_INPUTS", "input registers v0-v15"),
    ("NUM_OUTPUTS", "output registers o0-o15 (vertex shaders)"),
    ("NUM_GEOMETRY_OUTPUTS", "output registers a geometry shader may use (o0-o6)"),
    ("NUM_TEMPORARIES", "temporary registers r0-r15"),
    ("NUM_FLOAT_UNIFORMS", "float uniforms c0-c95"),
    ("NUM_INT_UNIFORMS", "integer uniforms i0-i3"),
    ("NUM_BOOL_UNIFORMS", "bool uniforms b0-b15"),
)


class PageError(Exception):
    """The table has a value this generator has no words for."""


def _words(enum: Iterable[Enum], words: Mapping[str, object], what: str) -> None:
    missing = [m.name for m in enum if m.name not in words]
    if missing:
        raise PageError(f"isadoc has no description of {what} {', '.join(missing)}")


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|")


def _table(header: tuple[str, ...], rows: Iterable[tuple[object, ...]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return lines


def _anchor(name: str) -> str:
    return f'<a id="{name}"></a>'


def _values(info: isa.OpcodeInfo) -> str:
    """The 6-bit values that decode to the row (CMP, MADI, MAD have narrower opcodes)."""
    spread = 1 << (isa.OPCODE_BITS - info.format.opcode_width)
    first = int(info.opcode)
    if spread == 1:
        return f"0x{first:02X}"
    return f"0x{first:02X}–0x{first + spread - 1:02X}"


def opcode_anchor(info: isa.OpcodeInfo) -> str:
    """The anchor of an opcode's row: ``op-<mnemonic>``, or ``op-0x10`` if unknown."""
    return f"op-{info.mnemonic}" if info.mnemonic else f"op-0x{int(info.opcode):02x}"


def _writes(writes: isa.Writes) -> str:
    tokens = [_WRITES[m.name][0] for m in isa.Writes if m.name != "NONE" and m in writes]
    return "+".join(tokens) or "-"


def _bits(field) -> str:
    top = field.lsb + field.width - 1
    return f"{field.lsb}" if field.width == 1 else f"{field.lsb}–{top}"


def _check_words() -> None:
    for enum, words, what in (
        (isa.Kind, _KIND, "kind"), (isa.SourceUse, _USE, "source use"),
        (isa.Flow, _FLOW, "flow effect"), (isa.Condition, _CONDITION, "condition"),
        (isa.Result, _RESULT, "result"), (isa.Arithmetic, _ARITHMETIC, "arithmetic"),
        (isa.Pad, _PAD, "padding rule"), (isa.EmitEffect, _EMISSION, "emission effect"),
        (isa.CompareOp, _COMPARE, "comparison operator"), (isa.CondOp, _CONDOP, "CONDOP"),
        (isa.GeometryMode, _GEOMETRY, "geometry mode"),
    ):
        _words(enum, words, what)
    _words((m for m in isa.Writes if m.name != "NONE"), _WRITES, "write target")
    layouts = [f.layout for f in isa.FORMATS.values()] + [isa.OPDESC_LAYOUT]
    fields = {name for layout in layouts for name in layout.names}
    missing = sorted(fields - set(_FIELDS))
    if missing:
        raise PageError(f"isadoc has no description of field(s) {', '.join(missing)}")
    unknown = [name for name, _ in _LIMITS if not hasattr(isa, name)]
    if unknown:
        raise PageError(f"isa.py has no limit {', '.join(unknown)}")


def _intro() -> list[str]:
    return [
        f"<!-- Generated from src/gpuisa/pica/isa.py by `{COMMAND}`; do not edit. -->",
        "",
        "# PICA200 instruction set: the opcode table",
        "",
        "This page is generated from gpuisa's one description of the PICA200 shader ISA,",
        "`gpuisa.pica.isa`: every fact below is a value the assembler, disassembler,",
        "linter and emulators read from that module.  Regenerate it with",
        f"`{COMMAND}`; `tests/pica/test_isa_page.py` fails when it is out of date.",
        "",
        "Sources: the opcode numbers, formats, field positions, register maps, operators and",
        f'stack depths come from the 3dbrew page ["GPU/Shader Instruction Set"]({THREEDBREW})',
        "(see [README](README.md#sources) for the revision).  The padding column is",
        "picasso's behaviour ([pica-assembly.md](pica-assembly.md#padding)); the rounding",
        "and flow columns are explained in [pica-emulation.md](pica-emulation.md).",
        "",
    ]


def _limits() -> list[str]:
    lines = [_anchor("limits"), "## Limits", ""]
    lines += _table(("Constant", "Value", "Meaning"),
                    ((f"`{n}`", getattr(isa, n), m) for n, m in _LIMITS))
    return [*lines, ""]


def _opcodes() -> list[str]:
    lines = [_anchor("opcodes"), "## Opcodes", "",
             "One row per opcode value; CMP, MADI and MAD have narrower opcode fields and",
             "take every 6-bit value that shares their top bits.  The columns are explained",
             "[below](#columns).", ""]
    header = ("Value", "Mnemonic", "Format", "Kind", "Srcs", "Reads", "I-form", "Flow",
              "Condition", "Writes", "Result", "Rounding", "Emission", "Pad", "Summary")
    rows = []
    for info in isa.OPCODES.values():
        partner = isa.OPCODES[info.inverted].mnemonic if info.inverted is not None else "-"
        name = f"`{info.mnemonic}`" if info.mnemonic else "—"
        rows.append((
            _values(info), f"{_anchor(opcode_anchor(info))}{name}",
            f"[{info.format.name}](#format-{info.format.name})", info.kind.value,
            info.sources, info.use.value, partner, info.flow.name.lower(),
            info.condition.name.lower(), _writes(info.writes), info.result.value,
            info.arithmetic.value, info.emission.value, info.pad.value, info.summary or "?",
        ))
    return [*lines, *_table(header, rows), ""]


def _legend(title: str, enum: Iterable[Enum], words: Mapping[str, str], value) -> list[str]:
    lines = [f"**{title}**", ""]
    lines += [f"- `{value(m)}`: {words[m.name]}" for m in enum]
    return [*lines, ""]


def _columns() -> list[str]:
    lines = [_anchor("columns"), "## Columns", "",
             "- **Value**: bits 26–31 of the instruction word.",
             "- **Format**: the field layout ([formats](#formats)).",
             "- **Srcs**: register source operands.",
             "- **I-form**: the partner with the other source-width arrangement (the",
             "  `1i`/`5i` form puts the 7-bit field on the other source; both compute the",
             "  same function).  picasso chooses the form from the operands.",
             ""]
    lines += _legend("Kind", isa.Kind, _KIND, lambda m: m.value)
    lines += _legend("Reads (source components read)", isa.SourceUse, _USE, lambda m: m.value)
    lines += _legend("Flow", isa.Flow, _FLOW, lambda m: m.name.lower())
    lines += _legend("Condition", isa.Condition, _CONDITION, lambda m: m.name.lower())
    lines += ["**Writes**", ""]
    lines += [f"- `{_WRITES[m.name][0]}`: {_WRITES[m.name][1]}"
              for m in isa.Writes if m.name != "NONE"]
    lines += ["- `-`: nothing", ""]
    lines += _legend("Result", isa.Result, _RESULT, lambda m: m.value)
    lines += _legend("Rounding (where float24 rounds)", isa.Arithmetic, _ARITHMETIC,
                     lambda m: m.value)
    lines += _legend("Emission", isa.EmitEffect, _EMISSION, lambda m: m.value)
    lines += _legend("Pad (picasso's padding NOP)", isa.Pad, _PAD, lambda m: m.value)
    return lines


def _formats() -> list[str]:
    lines = [_anchor("formats"), "## Instruction formats", "",
             "Bit positions in the 32-bit little-endian instruction word.  Bits no field",
             "covers are kept verbatim by gpuisa's codec.", ""]
    for fmt in isa.FORMATS.values():
        users = [i.mnemonic or f"0x{int(i.opcode):02X}" for i in isa.OPCODES.values()
                 if i.format is fmt]
        fields = sorted([*fmt.layout.fields, fmt.opcode_field], key=lambda f: f.lsb)
        lines += [_anchor(f"format-{fmt.name}"), f"### Format {fmt.name}", "",
                  f"Used by: {', '.join(users)}.", ""]
        flow = "num" in fmt.layout
        lines += _table(("Bits", "Field", "Meaning"),
                        ((_bits(f), f"`{f.name}`",
                          _FLOW_DST if flow and f.name == "dst" else _FIELDS[f.name])
                         for f in fields))
        extra = []
        if fmt.unused_mask:
            extra.append(f"Unused bits: mask `0x{fmt.unused_mask:08X}`.")
        if fmt.indexed_source is not None:
            extra.append(f"IDX applies to `{fmt.indexed_source}`.")
        lines += ["", " ".join(extra), ""] if extra else [""]
    return lines


def _opdesc() -> list[str]:
    lines = [_anchor("opdesc"), "## Operand descriptor", "",
             "Each arithmetic or compare instruction names one 32-bit descriptor by index.",
             ""]
    lines += _table(("Bits", "Field", "Meaning"),
                    ((_bits(f), f"`{f.name}`", _FIELDS[f.name])
                     for f in isa.OPDESC_LAYOUT.fields))
    order = ", ".join(f"{isa.COMPONENTS[c]} = bit {3 - c}" for c in range(4))
    first = isa.components_selector((3, 0, 0, 0)).bit_length() - 2  # component 0's bits
    lines += [
        "",
        f"Destination mask: {order}.",
        "A component selector holds four 2-bit values",
        f"({', '.join(f'{i} = {c}' for i, c in enumerate(isa.COMPONENTS))});",
        f"component 0 is bits {first}–{first + 1}, component 3 bits 0–1.",
        f"The identity `.xyzw` is `0x{isa.IDENTITY_SELECTOR:02X}`.",
        "Bit 31 is undescribed; gpuisa keeps it.",
        "",
    ]
    return lines


def _registers() -> list[str]:
    lines = [_anchor("registers"), "## Register fields", ""]
    for title, banks in (("Source fields", isa.SOURCE_BANKS),
                         ("Destination fields", isa.DESTINATION_BANKS)):
        lines += [f"**{title}**", ""]
        lines += _table(("Raw values", "Registers"),
                        ((f"0x{b.base:02X}–0x{b.base + b.count - 1:02X}",
                          f"{b.prefix}0–{b.prefix}{b.count - 1}") for b in banks))
        lines.append("")
    return lines


def _index_registers() -> list[str]:
    low, high = isa.RELATIVE_OFFSET_RANGE
    lines = [_anchor("index-registers"), "## Index registers (IDX)", ""]
    lines += _table(("IDX", "Adds"), ((v, name or "nothing")
                                      for v, name in isa.INDEX_REGISTERS.items()))
    lines += ["",
              f"An offset outside {low}..{high} is not applied; the sum is masked with",
              f"`0x{isa.RELATIVE_INDEX_MASK:02X}`.  Behaviour: "
              "[pica-emulation.md](pica-emulation.md#relative).", ""]
    return lines


def _operators() -> list[str]:
    lines = [_anchor("compare-ops"), "## Comparison operators (CMPX, CMPY)", ""]
    lines += _table(("Value", "Name", "True when"),
                    ((int(m), m.name, _COMPARE[m.name]) for m in isa.CompareOp))
    flagged = ", ".join(i.mnemonic.upper() for i in isa.OPCODES.values() if i.reads_flags)
    lines += ["", _anchor("conditions"), "## Conditions (CONDOP)", "",
              f"{flagged} test the flags against REFX and REFY:", ""]
    lines += _table(("CONDOP", "Name", "True when"),
                    ((int(m), m.name, _CONDOP[m.name]) for m in isa.CondOp))
    lines += ["", _anchor("geometry-modes"), "## Geometry shader input modes", ""]
    lines += _table(("Value", "Name", "Input"),
                    ((int(m), m.name.lower(), _GEOMETRY[m.name]) for m in isa.GeometryMode))
    return [*lines, ""]


def page() -> str:
    """The Markdown text of docs/reference/pica-isa.md."""
    _check_words()
    parts = (_intro(), _limits(), _opcodes(), _columns(), _formats(), _opdesc(),
             _registers(), _index_registers(), _operators())
    lines = [line for part in parts for line in part]
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines) + "\n"


def repository_page() -> Path:
    """Where the page lives in a source checkout (src/gpuisa/pica -> the root)."""
    return Path(__file__).resolve().parents[3] / PAGE


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gpuisa.pica.isadoc",
                                     description="Print the PICA200 opcode table page.")
    parser.add_argument("--write", nargs="?", const="", metavar="PATH",
                        help=f"write the page (default: {PAGE} of this checkout)")
    args = parser.parse_args(argv)
    text = page()
    if args.write is None:
        sys.stdout.write(text)
        return 0
    target = Path(args.write) if args.write else repository_page()
    if not target.parent.is_dir():
        parser.error(f"no directory {target.parent}: give the page's path")
    target.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
