"""``pica vectors -o DIR`` and ``pica vectors --check RESULTS [--mode f32]``; ``--rounding
truncate`` makes (and checks against) the suite's f24 expectations with the truncating
float24 rounding (pica-emulation.md#f24-truncation)."""

from __future__ import annotations

import argparse
import sys

from ...errors import InputError
from .. import vectors
from ..engine.loading import DEFAULT_ROUNDING, ROUNDINGS


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
    parser.add_argument("--no-disasm", action="store_true",
                        help="--check: leave out the disassembly of diverging cases")
    parser.set_defaults(handler=_run)


class _Progress:
    """Counts cases on stderr when it is a terminal; silent otherwise."""

    def __init__(self, what: str):
        self.what = what
        self.done = 0
        self.active = sys.stderr.isatty()

    def __call__(self, count: int) -> None:
        self.done += count
        if self.active:
            print(f"\r{self.what}: {self.done} cases", end="", file=sys.stderr, flush=True)

    def finish(self) -> None:
        if self.active:
            print(file=sys.stderr)


def _run(args: argparse.Namespace) -> int:
    if not args.output and not args.check:
        raise InputError("vectors: give -o DIR to write the suite or --check RESULTS")
    if args.rounding != DEFAULT_ROUNDING and not args.output and args.mode == "f32":
        raise InputError(f"--rounding {args.rounding} changes the f24 expectations only: "
                         f"--check with --mode f32 compares float32 ones (give --mode f24)")
    progress = _Progress("building the suite")
    cases = vectors.build_suite(progress, args.rounding)
    progress.finish()
    if args.output:
        vectors.write_suite(args.output, cases, args.rounding)
        print(f"pica vectors: wrote {len(cases)} cases to {args.output}", file=sys.stderr)
    if not args.check:
        return 0
    report = vectors.check(cases, vectors.read_results(args.check), args.mode, args.check,
                           args.rounding)
    sys.stdout.write(vectors.render(report, disassemble=not args.no_disasm))
    return 1 if report.divergences else 0
