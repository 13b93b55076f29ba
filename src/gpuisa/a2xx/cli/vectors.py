"""``a2xx vectors -o DIR`` writes the A2XX / Xenos conformance suite
(docs/a2xx-vectors-format.md); ``a2xx vectors --check RESULTS [--target xenos]`` compares
another implementation's results with it."""

from __future__ import annotations

import argparse
import sys

from ...cli_support import Progress
from ...errors import InputError
from .. import vectors
from ..vectors.model import TARGETS


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "vectors",
        help="write the A2XX/Xenos conformance suite, or check a translator's results",
        description="Write the conformance vectors (cases.jsonl, cases.bin, manifest.json; "
        "docs/a2xx-vectors-format.md) into DIR, or compare the results another "
        "implementation produced for them (JSON Lines, one object per case) with the "
        "expected values of one target.",
    )
    parser.add_argument("-o", "--output", metavar="DIR", help="directory to write the suite to")
    parser.add_argument("--check", metavar="RESULTS", help="JSON Lines results to check")
    parser.add_argument("--target", choices=TARGETS, default="adreno",
                        help="which expectations --check compares with (default adreno)")
    parser.add_argument("--no-disasm", action="store_true",
                        help="--check: leave out the disassembly of diverging cases")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if not args.output and not args.check:
        raise InputError("vectors: give -o DIR to write the suite or --check RESULTS")
    progress = Progress("a2xx vectors: building the suite")
    cases = vectors.build_suite(progress)
    progress.finish()
    if args.output:
        vectors.write_suite(args.output, cases)
        print(f"a2xx vectors: wrote {len(cases)} cases to {args.output}", file=sys.stderr)
    if not args.check:
        return 0
    report = vectors.check(cases, vectors.read_results(args.check), args.target, args.check)
    sys.stdout.write(vectors.render(report, disasm=not args.no_disasm))
    return 1 if report.divergences else 0
