"""``pica check``: static analysis of shader sources and SHBIN files.

``pica check [--format text|json|sarif] [-o OUT] [--Werror] FILE...`` checks the assembly
sources together (``pica asm``'s multi-file rules: one DVLE per file) and every SHBIN on
its own.  Exit status 0 when clean, 1 when a finding is an error (any finding with
``--Werror``) or the input cannot be read.  ``--explain ID`` prints why a check exists,
``--list`` every check.
"""

from __future__ import annotations

import argparse
import sys

from ...cli_support import integer, number
from ...datafiles import MAX_SHADER_BYTES, read_input
from ...errors import InputError
from ...fileio import write_output
from ..check import CHECKS, Finding, Severity, explain
from ..check.api import check, enabled_checks
from ..check.report import FORMATS, render, summary
from .common import source_text


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "check", help="find shader bugs that only show on the console",
        description="Static analysis of PICA200 shader sources (checked together, as "
                    "'pica asm' assembles them) and SHBIN files (each on its own).")
    parser.add_argument("files", nargs="*", metavar="FILE",
                        help="assembly sources and/or .shbin files")
    parser.add_argument("--format", choices=FORMATS, default="text",
                        help="output format (sarif: SARIF 2.1.0 for code scanning)")
    parser.add_argument("-o", "--out", default="-", metavar="OUT",
                        help="write the report here (default: stdout)")
    parser.add_argument("--Werror", action="store_true", dest="werror",
                        help="exit 1 on any finding, not only on errors")
    parser.add_argument("--enable", action="append", default=[], metavar="ID",
                        help="also run a check that is off by default (repeatable)")
    parser.add_argument("--disable", action="append", default=[], metavar="ID",
                        help="do not run this check (repeatable)")
    parser.add_argument("--explain", metavar="ID", help="explain a check and exit")
    parser.add_argument("--list", action="store_true", help="list every check and exit")
    parser.add_argument("--max-states", type=integer("--max-states", 1), default=None,
                        metavar="N",
                        help="path-exploration steps per entry point (default 200000)")
    parser.add_argument("--max-seconds", type=number("--max-seconds", above=0), default=None,
                        metavar="S",
                        help="path-exploration time per entry point (default 10)")
    parser.set_defaults(handler=run)


def _list() -> str:
    lines = []
    for c in CHECKS.values():
        off = "" if c.default else "  (off by default)"
        lines.append(f"{c.id}  {c.severity.label:<7}  {c.title}{off}")
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    if args.explain:
        sys.stdout.write(explain(args.explain))
        return 0
    if args.list:
        sys.stdout.write(_list())
        return 0
    if not args.files:
        raise InputError("check: no input files are specified (see pica check --help)")
    enabled_checks(args.enable, args.disable)  # unknown identifiers fail before any work
    options = dict(enable=args.enable, disable=args.disable, max_states=args.max_states,
                   max_seconds=args.max_seconds)
    sources: list[tuple[str, str]] = []
    findings: list[Finding] = []
    for path in args.files:
        data = read_input(path, limit=MAX_SHADER_BYTES)
        if data[:4] == b"DVLB":
            findings.extend(check(data, name=path, **options))
        else:
            sources.append((path, source_text(path, data, "pica check")))
    if sources:
        findings.extend(check(sources, **options))
    write_output(args.out, render(findings, args.format).encode("utf-8", "surrogateescape"))
    if args.format == "text":
        print(f"pica check: {summary(findings)}", file=sys.stderr)
    failing = findings if args.werror else [f for f in findings
                                            if f.severity is Severity.ERROR]
    return 1 if failing else 0
