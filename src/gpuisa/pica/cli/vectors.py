"""``pica vectors -o DIR``, ``pica vectors --check RESULTS [--mode f32]`` and
``pica vectors --adapter COMMAND [--results FILE]`` (docs/adapter-protocol.md);
``--rounding truncate`` makes (and checks against) the suite's f24 expectations with the
truncating float24 rounding (pica-emulation.md#f24-truncation)."""

from __future__ import annotations

import argparse
import json
import shlex
import sys

from ...cli_support import Progress
from ...errors import InputError
from .. import vectors
from ..engine.loading import DEFAULT_ROUNDING, ROUNDINGS
from .common import add_adapter_options


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "vectors",
        help="write the PICA200 conformance suite, or check another emulator's results",
        description="Write the conformance vectors (cases.jsonl, cases.bin, manifest.json; "
        "docs/vectors-format.md) into DIR, or compare the results another implementation "
        "produced for them (JSON Lines, one object per case) with the expected values.",
    )
    parser.add_argument("-o", "--output", metavar="DIR", help="directory to write the suite to")
    parser.add_argument("--check", metavar="RESULTS", help="JSON Lines results to check")
    parser.add_argument("--mode", choices=("f24", "f32"), default="f24",
                        help="which expectations --check compares with (default f24)")
    parser.add_argument("--rounding", choices=ROUNDINGS, default=DEFAULT_ROUNDING,
                        help="the float24 rounding of the f24 expectations (and of the f24 "
                        "patterns of inputs given as numbers): nearest-even (default) or "
                        "truncate (toward zero, as Citra PR #7372); manifest.json records "
                        "it")
    parser.add_argument("--adapter", metavar="COMMAND",
                        help="run the suite on an emulator through this adapter command "
                        "(docs/adapter-protocol.md) and check its results")
    parser.add_argument("--results", metavar="FILE",
                        help="--adapter: also write the results (JSON Lines) to FILE")
    add_adapter_options(parser, "case", 256)
    parser.add_argument("--emit", choices=("catch2",),
                        help="write the suite as a C++ Catch2 test file calling your "
                        "run_case (to -o FILE, or standard output)")
    parser.add_argument("--cases", metavar="CASES_JSONL",
                        help="--emit: the cases to write instead of the suite (a fuzz "
                        "campaign's cases/*.jsonl, or cases.jsonl)")
    parser.add_argument("--no-disasm", action="store_true",
                        help="--check: leave out the disassembly of diverging cases")
    parser.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    if args.emit:
        return _emit(args)
    if not args.output and not args.check and not args.adapter:
        raise InputError("vectors: give -o DIR to write the suite, --check RESULTS or "
                         "--adapter COMMAND")
    if args.check and args.adapter:
        raise InputError("vectors: --check and --adapter both name results; give one")
    if args.timeout <= 0 or args.batch < 1:
        raise InputError("vectors: --timeout must be positive and --batch at least 1")
    if args.rounding != DEFAULT_ROUNDING and not args.output and args.mode == "f32":
        raise InputError(f"--rounding {args.rounding} changes the f24 expectations only: "
                         f"--check with --mode f32 compares float32 ones (give --mode f24)")
    progress = Progress("building the suite")
    cases = vectors.build_suite(progress, args.rounding)
    progress.finish()
    if args.output:
        vectors.write_suite(args.output, cases, args.rounding)
        print(f"pica vectors: wrote {len(cases)} cases to {args.output}", file=sys.stderr)
    if args.adapter:
        results = _adapter_results(args, cases)
        report = vectors.check(cases, results, args.mode, "adapter", args.rounding)
    elif args.check:
        report = vectors.check(cases, vectors.read_results(args.check), args.mode, args.check,
                               args.rounding)
    else:
        return 0
    sys.stdout.write(vectors.render(report, disassemble=not args.no_disasm))
    return 1 if report.divergences else 0


def _adapter_results(args: argparse.Namespace, cases: list) -> list:
    from ..vectors.adapter import run_cases

    progress = Progress(f"running the suite on {args.adapter}")
    records = list(run_cases(shlex.split(args.adapter), cases, args.mode,
                             timeout=args.timeout, batch=args.batch, progress=progress,
                             rounding=args.rounding))
    progress.finish()
    if args.results:
        with open(args.results, "w", encoding="utf-8") as handle:
            handle.writelines(json.dumps(r) + "\n" for r in records)
    return list(enumerate(records, 1))


def _emit(args: argparse.Namespace) -> int:
    from ...fileio import write_output
    from ..vectors.catch2 import emit_catch2
    from ..vectors.suite_io import read_cases

    if args.check or args.adapter:
        raise InputError("vectors: --emit writes tests; give it without --check/--adapter")
    cases = (list(read_cases(args.cases)) if args.cases
             else vectors.build_suite(None, args.rounding))
    chunks = emit_catch2(cases, vectors.SUITE_VERSION, len(cases))
    write_output(args.output or "-", (chunk.encode("utf-8") for chunk in chunks))
    return 0
