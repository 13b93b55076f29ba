"""gpuisa's own engines behind the adapter protocol (docs/adapter-protocol.md):

    python -m gpuisa.pica.vectors.gpuisa_adapter [--engine NAME] MODE BATCH_DIR

reads ``BATCH_DIR/cases.jsonl`` and writes one result line per case (the ``--check``
format) to standard output, flushed after each, so that a driver sees its progress."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence

from ...errors import GpuIsaError
from .replay import rerun
from .suite_io import expected_json, read_cases


def serve(directory: str, mode: str, engine: str = "reference") -> None:
    for case in read_cases(os.path.join(directory, "cases.jsonl")):
        result = expected_json(rerun(case, mode, engine), mode)
        sys.stdout.write(json.dumps({"id": case.id, **result}) + "\n")
        sys.stdout.flush()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gpuisa.pica.vectors.gpuisa_adapter",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", default="reference",
                        help="gpuisa engine: reference (default), jit or auto")
    parser.add_argument("mode", choices=("f24", "f32"))
    parser.add_argument("batch", metavar="BATCH_DIR")
    args = parser.parse_args(argv)
    try:
        serve(args.batch, args.mode, args.engine)
    except GpuIsaError as error:
        print(f"gpuisa_adapter: error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
