"""The ``pica`` command line.

Each subcommand lives in its own module of this package (:mod:`.asm`, :mod:`.run`, ...)
exposing ``register(subparsers)``, which adds a parser whose ``handler`` default is
called with the parsed arguments and returns the exit status.  This module only
dispatches and turns :class:`GpuIsaError` into ``pica: error: …`` with exit status 1.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from importlib import import_module

from ... import __version__
from ...cli_support import dispatch

PROG = "pica"
#: Subcommand modules, in the order their commands are listed by ``pica --help``.
_COMMAND_MODULES = ("asm", "disasm", "run", "check", "render", "vectors", "fuzz", "lsp")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description="PICA200 (Nintendo 3DS) shader tools: assemble, disassemble, run."
    )
    parser.add_argument("--version", action="version", version=f"{PROG} (gpuisa) {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in _COMMAND_MODULES:
        import_module(f"{__package__}.{name}").register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    return dispatch(PROG, build_parser(), argv)
