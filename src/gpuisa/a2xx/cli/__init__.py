"""The ``a2xx`` command line: one module per command, the parser in :mod:`.app`."""

from .app import build_parser, main

__all__ = ["build_parser", "main"]
