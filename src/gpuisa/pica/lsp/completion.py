"""Completion candidates and signature help for a cursor position.

The statement under the cursor is cut the way the lexer cuts it (comment, labels, the
statement name, comma-separated operands); the operand position decides what fits: a
register or a declared name, a procedure, a label, a comparison operator, a swizzle.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

from ..isa import BANK_SIZES, COMPONENTS, EmitEffect
from .analysis import Analysis
from .index import INSTRUCTIONS, SYMBOL_ROLES, Role, instruction_operand_roles
from .syntax import (
    BOOL_VALUES,
    COMPARE_OPERATORS,
    CONDITIONS,
    DIRECTIVES,
    GEOMETRY_MODES,
    MOVA_TARGETS,
    OUTPUT_TYPES,
    SETEMIT_FLAGS,
    operand_names,
)


@dataclass(frozen=True, slots=True)
class Candidate:
    label: str
    role: Role
    detail: str = ""


@dataclass(frozen=True, slots=True)
class Signature:
    label: str
    parameters: tuple[str, ...]
    active: int
    documentation: str


#: Registers in the order the editor offers them: temporaries first.
_REGISTERS = tuple(f"{letter}{n}" for letter in "rvocib" for n in range(BANK_SIZES[letter]))
#: Destination masks in ascending order, then the replicated source swizzles.
SWIZZLES = tuple("".join(c) for k in range(1, 5) for c in combinations(COMPONENTS, k)) + \
    tuple(c * 4 for c in COMPONENTS)


@dataclass(frozen=True, slots=True)
class _Context:
    name: str  # the statement name, lower case ("" while it is being typed)
    argument: int  # which operand the cursor is in (comma- or space-separated)
    current: str  # the text of that operand up to the cursor


def _context(prefix: str) -> _Context | None:
    if ";" in prefix:
        return None
    statement = prefix.rsplit(":", 1)[-1].lstrip() if ":" in prefix else prefix.lstrip()
    if statement.startswith("#"):
        return None
    parts = statement.split(None, 1)
    if len(parts) < 2 and not statement[-1:].isspace():
        return _Context("", 0, statement)
    name = parts[0].lower() if parts else ""
    args = parts[1] if len(parts) == 2 else ""
    if name.startswith(".") and name not in (".fvec", ".ivec", ".bool"):
        words = args.split()
        index = len(words) - (0 if not args or args[-1].isspace() else 1)
        return _Context(name, index, "" if not args or args[-1].isspace() else words[-1])
    return _Context(name, args.count(","), args.rsplit(",", 1)[-1].lstrip())


def _unit_at(analysis: Analysis, path: str, line: int) -> int:
    units = [o.unit for o in analysis.index.in_file(path) if o.line <= line]
    if units:
        return units[-1]
    return next((u for u, p in enumerate(analysis.index.unit_paths) if p == path), 0)


def _symbols(analysis: Analysis, unit: int, roles: frozenset[Role]) -> list[Candidate]:
    return [Candidate(name, o.role, o.role.value)
            for name, o in analysis.index.declared(unit).items() if o.role in roles]


def _words(words, role: Role, detail: str = "") -> list[Candidate]:
    return [Candidate(w, role, detail) for w in words]


def _values(analysis: Analysis, unit: int) -> list[Candidate]:
    names = _symbols(analysis, unit, SYMBOL_ROLES - {Role.PROCEDURE, Role.LABEL})
    return names + _words(_REGISTERS, Role.REGISTER)


def _statement_names() -> list[Candidate]:
    out = [Candidate(m, Role.MNEMONIC, i.summary)
           for m, i in sorted(INSTRUCTIONS.items())]
    out += [Candidate(f".{d}", Role.DIRECTIVE, syntax) for d, (syntax, _) in DIRECTIVES.items()]
    return out


def _operand(analysis: Analysis, unit: int, role: str) -> list[Candidate]:
    if role == "o":
        return _values(analysis, unit)
    if role == "p":
        return _symbols(analysis, unit, frozenset({Role.PROCEDURE}))
    if role == "l":
        return _symbols(analysis, unit, frozenset({Role.LABEL}))
    if role == "k":
        return _words(COMPARE_OPERATORS, Role.KEYWORD, "comparison")
    if role == "r":
        return _words(MOVA_TARGETS, Role.REGISTER, "address register")
    if role == "c":
        return _words(CONDITIONS, Role.KEYWORD, "condition")
    return []


def _directive(analysis: Analysis, unit: int, name: str, argument: int) -> list[Candidate]:
    if name == ".out" and argument == 1:
        return _words(OUTPUT_TYPES, Role.KEYWORD, "output semantic")
    if name == ".gsh" and argument == 0:
        return _words(GEOMETRY_MODES, Role.KEYWORD, "geometry mode")
    if name == ".entry" and argument == 0:
        return _symbols(analysis, unit, frozenset({Role.PROCEDURE}))
    if name == ".setb" and argument == 1:
        return _words(BOOL_VALUES, Role.KEYWORD)
    if (name == ".alias" and argument == 1) or name in (".setf", ".seti", ".setb"):
        return _values(analysis, unit)
    return []


def complete(analysis: Analysis, path: str, line: int, prefix: str) -> list[Candidate]:
    """Candidates for a cursor after ``prefix`` (the line's text before the cursor)."""
    ctx = _context(prefix)
    if ctx is None:
        return []
    if not ctx.name:
        return _statement_names()
    unit = _unit_at(analysis, path, line)
    swizzle = "." in ctx.current and not ctx.current.lstrip("-!").lower().startswith("cmp")
    if swizzle and (not ctx.name.startswith(".") or ctx.name == ".alias"):
        return _words(SWIZZLES, Role.SWIZZLE, "swizzle")
    if ctx.name.startswith("."):
        return _directive(analysis, unit, ctx.name, ctx.argument)
    info = INSTRUCTIONS.get(ctx.name)
    if info is None:
        return []
    if info.emission is EmitEffect.SETUP:
        return _words(SETEMIT_FLAGS, Role.KEYWORD, "setemit flag") if ctx.argument == 1 else []
    roles = instruction_operand_roles(info)
    return _operand(analysis, unit, roles[min(ctx.argument, len(roles) - 1)])


def signature_help(prefix: str) -> Signature | None:
    """The operand list of the instruction before the cursor, with the active operand."""
    ctx = _context(prefix)
    if ctx is None or not ctx.name or ctx.name not in INSTRUCTIONS:
        return None
    info = INSTRUCTIONS[ctx.name]
    names = operand_names(info)
    if not names:
        return None
    label = f"{ctx.name} {', '.join(names)}"
    return Signature(label, names, min(ctx.argument, len(names) - 1),
                     info.summary)
