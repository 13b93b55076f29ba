"""Mesa's A2XX text syntax as data: one description per instruction form.

Every form (a CF clause, the vector and scalar lines of an ALU slot, a vertex or texture
fetch) is a tuple of *pieces* in print order, after the model of Mesa isaspec's display
templates.  A piece prints itself from the slot's field values and parses itself from a
line's tokens back into those values, so the Mesa-style printer (:mod:`.disasm`) and the
assembler (:mod:`.asm`) are both driven by the tables of
:mod:`.forms` and cannot disagree on spelling, operand order or when an optional part appears.

Parsing writes over a :class:`Fields` that starts from the raw columns of the line (or
from the vendor defaults of :mod:`.isa`), so bits the text does not show keep their value.
An optional part that is missing from the text sets the value that makes the printer
leave it out (``VC`` missing: ``vc`` = 0; ``NORMALIZED`` missing: ``num_format_all`` = 1).
"""

from __future__ import annotations

from .forms import (
    CF_FORMS,
    FETCH_FORMS,
    FETCH_MNEMONIC,
    SCALAR_FORM,
    SCALAR_MNEMONIC,
    VECTOR_FORM,
    scalar_line_printed,
)
from .lexer import Cursor, LineError, Tok, token_error, tokenize
from .operands import SOURCE_FIELDS, source, vector_srcs
from .pieces import Fields, Unprintable, parse, render

__all__ = [
    "CF_FORMS",
    "FETCH_FORMS",
    "FETCH_MNEMONIC",
    "SCALAR_FORM",
    "SCALAR_MNEMONIC",
    "SOURCE_FIELDS",
    "VECTOR_FORM",
    "Cursor",
    "Fields",
    "LineError",
    "Tok",
    "Unprintable",
    "parse",
    "render",
    "scalar_line_printed",
    "source",
    "token_error",
    "tokenize",
    "vector_srcs",
]
