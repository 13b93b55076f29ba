"""``pica disasm FILE.shbin [-o OUT] [--raw]``."""

from __future__ import annotations

import argparse
import sys

from ...fileio import STDOUT, write_text
from ..disasm import disassemble
from .common import load_shbin


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "disasm",
        help="disassemble a SHBIN into picasso-syntax source",
        description="Print each DVLE of a SHBIN as source that `pica asm` assembles back "
        "to the identical file.",
    )
    parser.add_argument("file", help="the .shbin file")
    parser.add_argument("-o", "--output", help="write the source here instead of stdout")
    parser.add_argument(
        "--raw",
        action="store_true",
        help="add each line's address, instruction word and descriptor index",
    )
    parser.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    shbin = load_shbin(args.file)
    text = disassemble(shbin, raw=args.raw)
    write_text(args.output or STDOUT, text)
    for warning in shbin.warnings:
        print(f"pica: warning: {args.file}: {warning}", file=sys.stderr)
    return 0
