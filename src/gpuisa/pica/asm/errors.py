"""The exception that carries one assembly error from deep inside a statement to the driver.

Statement handlers raise :class:`AsmError` at the first problem; the driver turns it into
a :class:`gpuisa.errors.Diagnostic` pointing at ``tok`` and continues with the next line.
"""

from __future__ import annotations

from .source import Cursor, Tok


class AsmError(Exception):
    """One error: ``message`` about the source piece ``tok``, with optional notes."""

    def __init__(self, message: str, tok: Tok | None,
                 notes: tuple[tuple[str, Tok | None], ...] = ()):
        super().__init__(message)
        self.message = message
        self.tok = tok
        self.notes = notes


class Poisoned(Exception):
    """A name whose declaration already failed was used: the error is reported once, at
    the declaration, and this use is skipped silently."""


def need(tok: Tok | None, args: Cursor) -> Tok:
    """picasso's NEXT_ARG: a missing argument is "missing parameter"."""
    if tok is None:
        raise AsmError("missing parameter", args.end_tok())
    return tok


def no_more(args: Cursor) -> None:
    """picasso's ENSURE_NO_MORE_ARGS (a comma-separated read of the rest)."""
    extra = args.arg()
    if extra is not None:
        raise AsmError("too many parameters", extra if extra.text else args.end_tok())
