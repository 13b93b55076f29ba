"""``pica asm``: picasso's command line (pica-assembly.md#command-line).

``pica asm -o OUT.shbin [-h HEADER.h] [-n|--no-nop] FILE...`` assembles the files, in
order, into one SHBIN (one DVLE per file).  Options may follow the files, as with picasso.
Because ``-h`` names the header file, help is ``-?``/``--help``.  Diagnostics go to stderr
as ``file:line:col: error: message`` with the source line and a caret; on any error the
exit status is 1 and no file is written.  Output files are written atomically.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ... import __version__
from ...datafiles import MAX_SHADER_BYTES, read_input
from ...errors import Diagnostic, SourceError
from ...fileio import write_output
from ..asm import assemble_with_warnings
from .common import source_text

PROG = "pica asm"


class _IntermixedParser(argparse.ArgumentParser):
    """Accepts options after the file names (``pica asm a.pica -o a.shbin b.pica``), as
    picasso's getopt does; plain argparse stops collecting files at the first option."""

    _inner = False

    def parse_known_args(self, args=None, namespace=None):
        if self._inner:
            return super().parse_known_args(args, namespace)
        self._inner = True
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._inner = False


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "asm", add_help=False, help="assemble picasso shader source into a SHBIN",
        description="Assemble PICA200 shader source (picasso's language) into one SHBIN, "
                    "one DVLE per file, byte-identical to picasso 2.7.1.")
    parser.__class__ = _IntermixedParser
    parser.add_argument("files", nargs="*", metavar="FILE", help="input source files, in order")
    parser.add_argument("-o", "--out", metavar="OUT.shbin", help="the SHBIN file to generate")
    parser.add_argument("-h", "--header", metavar="HEADER.h",
                        help="also generate picasso's C header of uniform locations")
    parser.add_argument("-n", "--no-nop", action="store_true",
                        help="do not insert padding NOPs; warn where one is required")
    parser.add_argument("--picasso-strict", action="store_true",
                        help="reproduce picasso's defects (v15 rejected, upper-case register "
                             "letters mis-read, 513 vertex instructions accepted, ...)")
    parser.add_argument("--Werror", action="store_true", dest="werror",
                        help="treat warnings as errors")
    parser.add_argument("-?", "--help", action="help", help="show this help and exit")
    parser.add_argument("-v", "--version", action="version",
                        version=f"pica asm (gpuisa) {__version__}")
    parser.set_defaults(handler=run)


def _read(path: str) -> str:
    # picasso reads bytes; undecodable bytes can only be in comments or reach an error.
    return source_text(path, read_input(path, limit=MAX_SHADER_BYTES), "pica asm")


def _print(diagnostics: Sequence[Diagnostic]) -> None:
    for diagnostic in diagnostics:
        print(diagnostic.render(), file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    if not args.files:
        print(f"{PROG}: no input files are specified (see pica asm --help)", file=sys.stderr)
        return 1
    if not args.out:
        print(f"{PROG}: no output file is specified (use -o OUT.shbin)", file=sys.stderr)
        return 1
    sources = [(path, _read(path)) for path in args.files]
    try:
        result = assemble_with_warnings(sources, pad_nops=not args.no_nop,
                                        strict=args.picasso_strict, werror=args.werror)
    except SourceError as error:
        _print(error.diagnostics)
        count = sum(1 for d in error.diagnostics if d.severity == "error")
        print(f"{count} error{'s' if count != 1 else ''} generated.", file=sys.stderr)
        return 1
    _print(result.warnings)
    write_output(args.out, result.shbin.to_bytes())
    if args.header:
        write_output(args.header, result.header.encode("ascii", errors="surrogateescape"))
    return 0
