"""``pica fuzz --adapter COMMAND``: a differential campaign against an emulator
(docs/fuzzing.md)."""

from __future__ import annotations

import argparse
import shlex
import sys

from ...errors import InputError
from ..fuzz.campaign import Settings, State, run_campaign
from ..fuzz.distributed import INSTALL, cluster, run_distributed
from .common import add_adapter_options


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "fuzz",
        help="differential fuzzing of an emulator through an adapter",
        description="Run random programs on gpuisa and on an emulator behind an adapter "
        "command (docs/adapter-protocol.md), compare them in the adapter's precision, "
        "shrink every divergence to a minimal program and file it under its cause as a "
        "ready-to-add case of the suite (docs/fuzzing.md).",
    )
    parser.add_argument("--adapter", metavar="COMMAND", required=True,
                        help="the adapter command (started as COMMAND MODE BATCH_DIR)")
    parser.add_argument("--mode", choices=("f24", "f32"), default="f24",
                        help="the adapter's precision (default f24)")
    parser.add_argument("--seed", type=int, default=0, help="campaign seed (default 0)")
    parser.add_argument("--programs", type=int, default=1000, metavar="N",
                        help="programs to run (default 1000)")
    parser.add_argument("-o", "--output", metavar="DIR", default="fuzz-findings",
                        help="where the findings and the campaign's state go "
                        "(default fuzz-findings)")
    parser.add_argument("--resume", action="store_true",
                        help="go on with the campaign in DIR after its last finished batch")
    add_adapter_options(parser, "program", 64)
    parser.add_argument("--shrink-seconds", type=float, default=30.0, metavar="SECONDS",
                        help="time to shrink one divergence (default 30)")
    parser.add_argument("--workers", type=int, metavar="N",
                        help="run the campaign on a local Dask cluster of N worker processes "
                        f"(same findings as one process; {INSTALL})")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="run the campaign on the Dask cluster of this scheduler, e.g. "
                        "tcp://10.0.0.1:8786 (the adapter must run on every worker)")
    parser.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    if args.programs < 0 or args.batch < 1 or args.timeout <= 0 or args.shrink_seconds < 0:
        raise InputError("fuzz: --programs must be 0 or more, --batch at least 1, --timeout "
                         "positive and --shrink-seconds 0 or more")
    command = tuple(shlex.split(args.adapter))
    settings = Settings(command, args.mode, args.seed, args.programs, args.timeout,
                        args.batch, args.shrink_seconds)
    terminal = sys.stderr.isatty()

    def progress(state: State) -> None:
        if terminal:  # a progress line on a terminal; nothing when piped
            print(f"\rpica fuzz: {state.next}/{args.programs} programs, "
                  f"{sum(f['count'] for f in state.findings)} divergences, "
                  f"{len(state.findings)} causes", end="", file=sys.stderr, flush=True)

    if args.workers is not None or args.scheduler:
        if args.resume or (args.workers is not None and args.workers < 1):
            raise InputError("fuzz: --workers needs at least 1 worker, and a campaign on "
                             "Dask runs whole (leave --resume out)")
        with cluster(args.workers, args.scheduler) as client:
            state = run_distributed(settings, args.output, client, progress)
    else:
        state = run_campaign(settings, args.output, args.resume, progress)
    if terminal:
        print(file=sys.stderr)
    print(f"{state.next} programs ({state.skipped} refused by gpuisa, {state.unsupported} "
          f"unsupported by the adapter), {len(state.findings)} causes of divergence "
          f"({args.output}/findings.jsonl)")
    for finding in state.findings:
        print(f"  {finding['cause']}: {finding['count']}x, minimal program "
              f"{finding['instructions']} instructions ({args.output}/{finding['case']})")
    return 1 if state.findings else 0
