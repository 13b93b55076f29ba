"""gpuisa's own engines behind the adapter protocol (docs/adapter-protocol.md):

    python -m gpuisa.pica.vectors.gpuisa_adapter [--engine NAME] [--mutate RULE] MODE BATCH_DIR

reads ``BATCH_DIR/cases.jsonl`` and writes one result line per case (the ``--check``
format) to standard output, flushed after each, so that a driver sees its progress.
``--mutate RULE`` runs the reference engine with one rule changed
(:mod:`gpuisa.pica.engine.reference.mutants`): a deliberately wrong engine for trying
``pica fuzz`` out."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Any

from ...errors import GpuIsaError
from ..engine.reference.mutants import MUTANTS, mutated
from .model import Case
from .replay import rerun
from .suite_io import expected_json, read_cases


def result(case: Case, mode: str, engine: str = "reference") -> dict[str, Any]:
    """The adapter's result line for ``case``, as a JSON object."""
    return {"id": case.id, **expected_json(rerun(case, mode, engine), mode)}


def serve(directory: str, mode: str, engine: str = "reference") -> None:
    for case in read_cases(os.path.join(directory, "cases.jsonl")):
        sys.stdout.write(json.dumps(result(case, mode, engine)) + "\n")
        sys.stdout.flush()


@dataclass(frozen=True, slots=True)
class Mutated:
    """The adapter ``--mutate RULE`` run in this process (``pica fuzz``'s ``local``):
    the reference engine with mutant ``rule``, one result record per case."""

    rule: str

    def __call__(self, cases: Sequence[Case], mode: str) -> list[dict[str, Any]]:
        with mutated(self.rule):
            return [result(case, mode) for case in cases]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gpuisa.pica.vectors.gpuisa_adapter",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", default="reference",
                        help="gpuisa engine: reference (default), jit or auto")
    parser.add_argument("--mutate", metavar="RULE", choices=sorted(MUTANTS),
                        help="run the reference engine with one rule changed: "
                             + "; ".join(f"{m.name}: {m.does}" for m in MUTANTS.values()))
    parser.add_argument("mode", choices=("f24", "f32"))
    parser.add_argument("batch", metavar="BATCH_DIR")
    args = parser.parse_args(argv)
    if args.mutate and args.engine != "reference":
        parser.error("--mutate changes the reference engine's rules: leave --engine out")
    try:
        with mutated(args.mutate) if args.mutate else nullcontext():
            serve(args.batch, args.mode, args.engine)
    except GpuIsaError as error:
        print(f"gpuisa_adapter: error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
