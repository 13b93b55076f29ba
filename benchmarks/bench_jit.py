"""Throughput and compile time of the Numba JIT engine (``python benchmarks/bench_jit.py``).

For each workload and precision: the first call on a small input (the compile or the
disk-cache load of the program's kernel, which this script always gets), then the best
of a few runs at N vertices,
both of the engine alone (``jit.run_lanes_jit`` on a prepared state) and of the whole
``run(..., engine="jit")`` (with loading the inputs and building the result).  Not a
test: it prints numbers.  ``GPUISA_JIT_CACHE=$(mktemp -d)`` measures a cold cache.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from shaders import WORKLOADS

from gpuisa.pica.engine import run
from gpuisa.pica.engine.api import executable, initial_state
from gpuisa.pica.engine.compiled import runner as jit


def _best(function, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-n", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("workloads", nargs="*", default=["transform", "lighting"])
    args = parser.parse_args()
    jit.KERNELS = "always"  # the program's own kernel, whatever the input size
    rng = np.random.default_rng(0)
    for name in args.workloads:
        workload = WORKLOADS[name]
        exe = executable(workload.shbin)
        inputs = workload.inputs(args.n, rng)
        uniforms = workload.uniforms(rng)
        small = {k: v[:10_000] for k, v in inputs.items()}
        for precision in ("f24", "f32"):
            start = time.perf_counter()
            run(workload.shbin, small, uniforms=uniforms, precision=precision, engine="jit")
            first = time.perf_counter() - start
            state = initial_state(exe, inputs, uniforms=uniforms, precision=precision)
            engine = _best(lambda: jit.run_lanes_jit(
                exe.program, state, exe.entry, precision=precision,  # noqa: B023
                max_steps=1000), args.repeat)
            whole = _best(lambda: run(workload.shbin, inputs, uniforms=uniforms,  # noqa: B023
                                      precision=precision, engine="jit"),  # noqa: B023
                          args.repeat)
            print(f"{name:10s} {precision}: first call {first:6.2f} s, engine "
                  f"{args.n / engine / 1e6:7.1f} M vertices/s, run() "
                  f"{args.n / whole / 1e6:6.1f} M vertices/s")


if __name__ == "__main__":
    main()
