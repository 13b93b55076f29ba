"""The language's surface for the editor: directive syntax, instruction operand lists and
the keywords each operand position accepts.

The instructions' operands and keywords are the language's one description
(:mod:`..syntax`, which the assembler and the disassembler read too), the directive
keywords the assembler's own tables (so completion offers exactly what ``pica asm``
accepts); the directive texts summarise pica-assembly.md#directives and
docs/assembly-extensions.md.
"""

from __future__ import annotations

from .. import syntax as _syntax
from ..asm import directives as _directives
from ..asm.directives import DIRECTIVES as _HANDLERS
from ..isa import OpcodeInfo
from ..syntax import FORMS, SlotKind

OUTPUT_TYPES: tuple[str, ...] = tuple(_directives.OUTPUT_TYPES)
GEOMETRY_MODES: tuple[str, ...] = tuple(_directives.GSH_MODES)
COMPARE_OPERATORS: tuple[str, ...] = tuple(_syntax.COMPARE_OPERATORS)
MOVA_TARGETS: tuple[str, ...] = tuple(t for t in _syntax.MOVA_TARGETS if "." in t)
SETEMIT_FLAGS: tuple[str, ...] = tuple(_syntax.SETEMIT_FLAGS)
CONDITIONS = ("cmp.x", "cmp.y", "!cmp.x", "!cmp.y", "cmp.x && cmp.y", "cmp.x || cmp.y")
BOOL_VALUES = ("true", "false")

#: Directive name (no dot) -> (syntax, what it does).
DIRECTIVES: dict[str, tuple[str, str]] = {
    "proc": (".proc NAME", "Opens a procedure (global across the files of a program); "
             "`.end` closes it."),
    "end": (".end", "Closes the innermost block: `.proc`, `ifc`/`ifu`, `for` or `.constfa`."),
    "else": (".else", "Starts the else part of the innermost `ifc`/`ifu` block."),
    "alias": (".alias NAME REG[.swizzle]", "Names a register, with a swizzle and negation "
              "(REG may be another alias, with a static offset)."),
    "fvec": (".fvec NAME[, NAME[N], ...] [REG]", "Declares float vector uniforms (c0-c95); "
             "`[N]` declares an array of N registers. Names starting with `_` are private."),
    "ivec": (".ivec NAME[, ...]", "Declares integer vector uniforms (i0-i3)."),
    "bool": (".bool NAME[, ...]", "Declares boolean uniforms (b0-b15)."),
    "constf": (".constf NAME(x, y, z, w) [REG]", "A float constant in a register taken from "
               "the top of the uniform space (c95 downwards)."),
    "consti": (".consti NAME(x, y, z, w) [REG]", "An integer constant (values 0-255) in "
               "i0-i3."),
    "constfa": (".constfa NAME[N] / .constfa (x, y, z, w) / .end", "A float constant array: "
                "one `.constfa (...)` line per element, closed by `.end`."),
    "in": (".in NAME [REG]", "Declares an input attribute (the lowest free v register "
           "unless REG is given)."),
    "out": (".out NAME TYPE[.mask] [REG]", "Wires an output register to a semantic: "
           + ", ".join(OUTPUT_TYPES) + ". NAME `-` declares no alias."),
    "entry": (".entry NAME", "The entry procedure of this file's shader (default `main`)."),
    "nodvle": (".nodvle", "This file contributes code only (no DVLE)."),
    "gsh": (".gsh [point cF | variable cF N | fixed cF cS N]", "Marks the shader as a "
            "geometry shader; with a mode, its uniforms get the private space from cF."),
    "setf": (".setf REG(x, y, z, w)", "A float constant for an explicit register."),
    "seti": (".seti REG(x, y, z, w)", "An integer constant for an explicit register."),
    "setb": (".setb REG VALUE", "A boolean constant for an explicit register "
             "(true/false/on/off/1/0)."),
    "opdesc": (".opdesc VALUE[, ...]", "gpuisa extension: raw operand descriptors, before "
               "the first instruction."),
    "word": (".word VALUE[, ...]", "gpuisa extension: raw instruction words."),
    "unit": (".unit [NAME]", "gpuisa extension: the following lines are the next input "
             "file."),
    # Raw SHBIN fields (docs/assembly-extensions.md): what the disassembler prints for
    # table entries and header fields picasso's declarations cannot rebuild.
    "dvlp": (".dvlp version=V [dvles=0]", "gpuisa extension: the DVLP version word; "
             "dvles=0 makes a SHBIN without DVLEs."),
    "opdeschigh": (".opdeschigh VALUE[, ...]", "gpuisa extension: the operand descriptors' "
                   "second words, from entry 0 on."),
    "dvle": (".dvle KEY=VALUE ...", "gpuisa extension: DVLE header fields (version, type, "
             "merge, inputs, outputs, mode, fixedstart, variablecount, fixedcount, main, "
             "endmain)."),
    "dvleconst": (".dvleconst TYPE, REG, W0, W1, W2, W3", "gpuisa extension: a constant-"
                  "table entry as stored (TYPE 0 bool, 1 int, 2 float)."),
    "dvleout": (".dvleout SEMANTIC, REG, MASK, UPPER", "gpuisa extension: an output-table "
                "entry as stored."),
    "dvleuniform": ('.dvleuniform FIRST, LAST, "NAME"', "gpuisa extension: a uniform-table "
                    "entry (registers in uniform register space)."),
    "dvlelabel": ('.dvlelabel ID, OFFSET, UNKNOWN, "NAME"', "gpuisa extension: a label-"
                  "table entry."),
}
#: The directives the assembler handles itself (the rest are in its handler table).
DRIVER_DIRECTIVES = frozenset({"word", "unit"})
ASSEMBLER_DIRECTIVES = frozenset(_HANDLERS) | DRIVER_DIRECTIVES


def operand_names(info: OpcodeInfo) -> tuple[str, ...]:
    """The operands of an instruction as written in assembly (pica-assembly.md#mnemonics):
    the names of its form's slots."""
    form = FORMS.get(info.opcode)
    return tuple(slot.name for slot in form.slots) if form is not None else ()


def operand_kinds(info: OpcodeInfo) -> tuple[SlotKind, ...]:
    """What each operand of an instruction is (its form's slots)."""
    form = FORMS.get(info.opcode)
    return tuple(slot.kind for slot in form.slots) if form is not None else ()
