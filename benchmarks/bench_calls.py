"""The per-call and cold-start speed goals (``python -m benchmarks.bench_calls``).

* One ``run()`` of 1 vertex through a shader whose kernel this process has compiled
  (the transform of :mod:`benchmarks.shaders`, default engine): best and median of
  2,000 calls, and the CPU time per call (less affected by other work on a shared
  machine).  Target: under 30 µs.
* ``pica run`` of a 30-instruction shader (``benchmarks/lit_fog.v.pica``) on 10
  vertices, as a new process: with an empty compile cache (a fresh
  ``GPUISA_JIT_CACHE``), then with the cache that run left.  Targets: under 2 s and
  under 0.5 s.

Prints the figures and whether each target is met.  Timings on a shared machine vary:
run it in a quiet window, or several times.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks import processes
from benchmarks.shaders import WORKLOADS
from gpuisa.pica.engine import run

SHADER = Path(__file__).with_name("lit_fog.v.pica")
VERTICES = 10
CALLS = 2000


def one_vertex_calls() -> tuple[float, float, float]:
    """Best and median seconds of a 1-vertex run() of the compiled transform, and the
    CPU seconds per call over all of them."""
    workload = WORKLOADS["transform"]
    rng = np.random.default_rng(0)
    uniforms = workload.uniforms(rng)
    one = workload.inputs(1, rng)
    many = workload.inputs(10**6, rng)
    for _ in range(3):  # large runs make getting the kernel pay; it is then compiled here
        run(workload.shbin, many, uniforms=uniforms)
    for _ in range(200):
        run(workload.shbin, one, uniforms=uniforms)
    times = []
    cpu = time.process_time()
    for _ in range(CALLS):
        start = time.perf_counter()
        run(workload.shbin, one, uniforms=uniforms)
        times.append(time.perf_counter() - start)
    cpu = (time.process_time() - cpu) / CALLS
    return min(times), statistics.median(times), cpu


def _files(folder: Path) -> tuple[Path, Path]:
    rng = np.random.default_rng(1)
    position = np.concatenate([rng.uniform(-1, 1, (VERTICES, 3)), np.ones((VERTICES, 1))], 1)
    normal = rng.normal(size=(VERTICES, 3))
    normal /= np.linalg.norm(normal, axis=1, keepdims=True)
    inputs = {"pos": position.tolist(),
              "nrm": np.concatenate([normal, np.zeros((VERTICES, 1))], 1).tolist(),
              "uv": rng.uniform(0, 1, (VERTICES, 4)).tolist()}
    uniforms = {"mvp": [[1.2, 0, 0, 0.1], [0, 1.6, 0, -0.2], [0, 0, -1.002, -0.2002],
                        [0, 0, -1, 0]],
                "mv": [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, -3]],
                "light": [0.30305, 0.50508, 0.80812, 0], "half": [0, 0.3162, 0.9487, 0],
                "diffuse": [1, 0.9, 0.8, 1], "ambient": [0.1, 0.1, 0.15, 0],
                "fogp": [-0.1, 1.2, 0, 0]}
    paths = folder / "inputs.json", folder / "uniforms.json"
    for path, data in zip(paths, (inputs, uniforms), strict=True):
        path.write_text(json.dumps(data), encoding="utf-8")
    return paths


def pica_run_seconds(cache: Path, inputs: Path, uniforms: Path) -> float:
    """Wall time of one ``pica run`` process (``python -m gpuisa``, as the console script
    runs it) with the compile cache in ``cache``."""
    environment = processes.environment(str(cache))
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "gpuisa", "run", str(SHADER), "--inputs",
                    str(inputs), "--uniforms", str(uniforms)], check=True, env=environment,
                   stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> int:
    best, median, cpu = one_vertex_calls()
    print(f"1-vertex run() of the compiled transform: best {best * 1e6:.0f} us, median "
          f"{median * 1e6:.0f} us, CPU {cpu * 1e6:.0f} us per call (target < 30 us: "
          f"{'met' if best < 30e-6 else 'NOT met'})")
    with tempfile.TemporaryDirectory() as folder:
        inputs, uniforms = _files(Path(folder))
        cache = Path(folder) / "cache"
        cold = pica_run_seconds(cache, inputs, uniforms)
        warm = min(pica_run_seconds(cache, inputs, uniforms) for _ in range(3))
    print(f"pica run of a 30-instruction shader on {VERTICES} vertices: empty cache "
          f"{cold:.2f} s (target < 2 s: {'met' if cold < 2 else 'NOT met'}), warm cache "
          f"{warm:.2f} s (target < 0.5 s: {'met' if warm < 0.5 else 'NOT met'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
