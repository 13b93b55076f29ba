"""Speed of ``a2xx vectors -o DIR``: writing the A2XX / Xenos conformance suite should
take at most 10 s.

Run: ``python -m benchmarks.bench_a2xx_vectors`` (times ``a2xx vectors -o`` as a new
process, as a user runs it, several times, and prints the best and the worst wall-clock
time and the processor time of the best run; then the in-process split between building
the cases and writing the files; exits with status 1 if the best run exceeds the budget).
Not part of the test suite: timings depend on the machine.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gpuisa.a2xx.vectors import SUITE_VERSION, build_suite
from gpuisa.a2xx.vectors.suite_io import suite_files

BUDGET_SECONDS = 10.0
RUNS = 3


def _command(target: Path) -> tuple[float, float]:
    """(wall-clock, processor) seconds of one ``a2xx vectors -o target`` process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "gpuisa.a2xx", "vectors", "-o", str(target)],
                   check=True, capture_output=True, env=os.environ.copy())
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> int:
    with tempfile.TemporaryDirectory() as work:
        runs = [_command(Path(work) / f"suite{k}") for k in range(RUNS)]
        cases = len((Path(work) / "suite0" / "cases.jsonl").read_bytes().splitlines())
    wall, cpu = min(runs)
    print(f"a2xx vectors -o: {cases} cases, best {wall:.2f} s (processor {cpu:.2f} s), "
          f"worst {max(r[0] for r in runs):.2f} s of {RUNS} runs; budget {BUDGET_SECONDS:.0f} s")
    start = time.perf_counter()
    suite = build_suite()
    built = time.perf_counter() - start
    start = time.perf_counter()
    suite_files(suite, SUITE_VERSION)
    encoded = time.perf_counter() - start
    print(f"in process: building the cases {built:.2f} s, encoding the files {encoded:.2f} s")
    return 0 if wall <= BUDGET_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main())
