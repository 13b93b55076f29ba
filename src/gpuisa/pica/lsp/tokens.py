"""Semantic tokens (highlighting) and document symbols, from the program index."""

from __future__ import annotations

from collections.abc import Callable

from .index import Occurrence, ProgramIndex, Role

#: The token types and modifiers announced to the editor (LSP's standard names).
TOKEN_TYPES = ("keyword", "macro", "variable", "parameter", "enumMember", "property",
               "function", "label", "comment", "type")
TOKEN_MODIFIERS = ("declaration", "readonly", "defaultLibrary")

_TYPE = {
    Role.MNEMONIC: "keyword", Role.DIRECTIVE: "macro", Role.REGISTER: "variable",
    Role.ALIAS: "variable", Role.UNIFORM: "parameter", Role.CONSTANT: "enumMember",
    Role.INPUT: "property", Role.OUTPUT: "property", Role.PROCEDURE: "function",
    Role.LABEL: "label", Role.SWIZZLE: "type", Role.KEYWORD: "keyword",
    Role.UNRESOLVED: "variable", Role.COMMENT: "comment",
}


def _modifiers(o: Occurrence) -> int:
    bits = 1 if o.definition else 0
    if o.role is Role.CONSTANT:
        bits |= 2
    if o.role is Role.REGISTER:
        bits |= 4
    return bits


def semantic_tokens(index: ProgramIndex, path: str,
                    units: Callable[[int, int], int]) -> list[int]:
    """LSP's relative encoding of every token of one file.  ``units(line, col)`` converts
    a character column to the editor's position units (UTF-16 by default)."""
    rows = [(o.line, o.col, o.end, TOKEN_TYPES.index(_TYPE[o.role]), _modifiers(o))
            for o in index.in_file(path)]
    comment = TOKEN_TYPES.index("comment")
    rows += [(c.line, c.col, c.col + c.length, comment, 0)
             for c in index.comments if c.path == path]
    rows.sort()
    data: list[int] = []
    last_line = last_start = 0
    for line, col, end, kind, mods in rows:
        start = units(line, col)
        length = units(line, end) - start
        if length <= 0:
            continue
        delta_start = start - last_start if line == last_line else start
        data += [line - last_line, delta_start, length, kind, mods]
        last_line, last_start = line, start
    return data


#: Roles listed as document symbols (the LSP SymbolKind name of each).
SYMBOL_KINDS = {Role.PROCEDURE: "Function", Role.UNIFORM: "Variable",
                Role.CONSTANT: "Constant", Role.INPUT: "Field", Role.OUTPUT: "Field",
                Role.ALIAS: "Variable", Role.LABEL: "Key"}


def document_symbols(index: ProgramIndex, path: str) -> list[Occurrence]:
    """The declarations of a file, in document order."""
    return [o for o in index.in_file(path) if o.definition and o.role in SYMBOL_KINDS]
