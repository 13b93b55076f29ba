"""Engine throughput: ``python -m benchmarks.run [--quick | --full]``.

Runs five workloads (:mod:`benchmarks.shaders`: a transform shader, per-vertex lighting
with a data-dependent branch, a 27-word lighting shader given as raw words, skinning in a
LOOP with relative addressing, a geometry shader expanding points to quads) through
``gpuisa.pica.engine.run`` — from the caller's float32 arrays to the result,
everything included — at N = 10^4, 10^5 and 10^6 (``--quick``, the default) or also 10^7
(``--full``), in f24 and f32 mode: with engine="auto" (what ``run()`` picks) in its steady state, on
the LLVM kernels compiled quickly ("jit-quick": what a process's first runs of a shader
get) and on them compiled with the optimising code generator ("jit-optimised").  Each
figure is the best of several runs after warm-up runs: for "auto", runs of at least
:func:`warm_up_seconds` (past the compiled engine's move to its optimised kernel once
runs have taken ``nativerun.UPGRADE_AFTER`` seconds: the steady state a process running
a shader again and again is in), else one run; the reference engine is timed on a
few hundred vertices and extrapolated (its cost per vertex does not depend on N);
"NumPy" is the same math written directly in NumPy (float32, no PICA rounding rules:
the speed limit of array code).

Prints a Markdown table (date, machine, NumPy version) for the README, then the speed
goals (:data:`TARGETS`) with their status.  ``--engines auto,jit-quick,jit-optimised``
picks engines;
``--workloads`` picks workloads; ``--memory`` adds the peak resident memory of each run
(Linux).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import gc
import os
import platform
import sys
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator

import numpy as np

from benchmarks import peers
from benchmarks.shaders import WORKLOADS, Workload
from gpuisa.pica.engine import run
from gpuisa.pica.engine.api import engine_names

#: Vertices the reference engine runs per workload (then extrapolated).
REFERENCE_LANES = 200
#: The LLVM kernels compiled with the optimising code generator from the first run (what
#: "jit" and "auto" run once a shader's runs have taken nativerun.UPGRADE_AFTER seconds).
OPTIMISED = "jit-optimised"
#: The LLVM kernels compiled quickly (what a process's first runs of a shader get, unless
#: another process left the optimised kernel on disk).
QUICK = "jit-quick"


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def machine() -> str:
    return (f"{platform.system()} {platform.release()} {platform.machine()}, {cpu_model()}, "
            f"{os.cpu_count()} cores, Python {platform.python_version()}, "
            f"NumPy {np.__version__}")


def best_time(function: Callable[[], object], repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        gc.collect()
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best


def warm_up_seconds() -> float:
    """Seconds of warm-up runs before "auto" is timed: twice the runs' time after which
    the compiled engine moves to its optimised kernel (its steady state)."""
    from gpuisa.pica.engine.compiled import nativerun

    return 2 * nativerun.UPGRADE_AFTER


def warm_up(function: Callable[[], object], seconds: float) -> None:
    """Run ``function`` once, and again until ``seconds`` have passed."""
    started = time.perf_counter()
    function()
    while time.perf_counter() - started < seconds:
        function()


def _resident(field: str) -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(field):
                return int(line.split()[1]) * 1024
    raise OSError(field)


def peak_memory(function: Callable[[], object]) -> float:
    """Peak resident memory while ``function`` runs, beyond what was resident before
    (Linux: the peak is reset through /proc/self/clear_refs).  Zero-filled arrays the
    run never touches cost nothing, which tracemalloc would not see."""
    gc.collect()
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as clear:
            clear.write("5")  # reset VmHWM to the current resident size
        before = _resident("VmRSS:")
        result = function()
        peak = _resident("VmHWM:")
    except OSError:
        return float("nan")
    del result
    return peak - before


def repeats_for(n: int) -> int:
    return 7 if n <= 10**4 else 5 if n <= 10**6 else 1


class Bench:
    def __init__(self, engines: list[str], memory: bool):
        self.engines = engines
        self.memory = memory
        self.rows: list[dict[str, object]] = []
        self.rng = np.random.default_rng(2024)
        from gpuisa.pica.engine.compiled.facts import Memo
        #: The compiled engine's memo of kernels, its current ones and its tally of
        #: time on quick kernels, for "jit-quick".
        self.quick_kernels: tuple[Memo, dict, OrderedDict] = (Memo(256), {}, OrderedDict())

    def runner(self, workload: Workload, inputs, uniforms, precision: str, engine: str):
        shbin = workload.shbin
        if engine in (OPTIMISED, QUICK):
            def tiered():
                with self.tier(engine):
                    return run(shbin, inputs, uniforms=uniforms, precision=precision,
                               engine="jit", max_steps=10_000)

            return tiered
        return lambda: run(shbin, inputs, uniforms=uniforms, precision=precision,
                           engine=engine, max_steps=10_000)

    @contextlib.contextmanager
    def tier(self, engine: str) -> Iterator[None]:
        """The compiled engine held to one tier of kernels while the block runs: the
        quickly compiled ones (never upgraded, never loaded from disk, kept apart from
        the kernels "auto" moved on to) or the optimised ones from the first run."""
        from gpuisa.pica.engine.compiled import geometryrun, nativerun

        quick = engine == QUICK
        modules = (nativerun, geometryrun)  # each asks whether the disk holds one
        saved = (nativerun.UPGRADE_AFTER, nativerun._kernels, nativerun._current,
                 nativerun._spent, [m.cached for m in modules])
        nativerun.UPGRADE_AFTER = float("inf") if quick else 0.0
        if quick:
            nativerun._kernels, nativerun._current, nativerun._spent = self.quick_kernels
        for module in modules:
            module.cached = lambda *args, **kwargs: not quick
        try:
            yield
        finally:
            (nativerun.UPGRADE_AFTER, nativerun._kernels, nativerun._current,
             nativerun._spent) = saved[:4]
            for module, cached in zip(modules, saved[4], strict=True):
                module.cached = cached

    def reference_rate(self, workload: Workload, precision: str) -> float:
        inputs = workload.inputs(REFERENCE_LANES, self.rng)
        uniforms = workload.uniforms(self.rng)
        seconds = best_time(self.runner(workload, inputs, uniforms, precision, "reference"), 2)
        return REFERENCE_LANES / seconds

    def measure(self, workload: Workload, n: int, precision: str, reference: float) -> None:
        inputs = workload.inputs(n, self.rng)
        uniforms = workload.uniforms(self.rng)
        repeats = repeats_for(n)
        numpy_rate = n / best_time(lambda: workload.numpy(inputs, uniforms), repeats)
        row: dict[str, object] = dict(workload=workload.name, precision=precision, n=n,
                                      reference=reference, numpy=numpy_rate)
        for engine in self.engines:
            function = self.runner(workload, inputs, uniforms, precision, engine)
            if n < 10**7:  # warm-up (compilation, caches); 10^7 follows 10^6
                warm_up(function, warm_up_seconds() if engine == "auto" else 0.0)
            row[engine] = n / best_time(function, repeats)
            if self.memory:
                row[f"{engine} MiB"] = peak_memory(function) / 2**20
        self.rows.append(row)
        shown = ", ".join(f"{e} {row[e] / 1e6:.2f} M/s" for e in self.engines  # type: ignore[operator]
                          if row[e] == row[e])
        print(f"  {workload.name:9s} {precision} N={n:>8d}: {shown}, reference "
              f"{reference / 1e6:.4f} M/s, NumPy {numpy_rate / 1e6:.1f} M/s",
              file=sys.stderr, flush=True)


def table(bench: Bench) -> str:
    engines = bench.engines
    head = ["shader", "mode", "N"]
    for engine in engines:
        head += [f"{engine} (M vertices/s)", f"{engine} vs reference",
                 f"{engine} vs NumPy"]
        if bench.memory:
            head.append(f"{engine} peak MiB")
    head += ["reference (M/s)", "NumPy (M/s)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in bench.rows:
        cells = [str(row["workload"]), str(row["precision"]), f"10^{int(np.log10(row['n']))}"]
        for engine in engines:
            rate = float(row[engine])  # type: ignore[arg-type]
            if rate != rate:  # not measured
                cells += ["—"] * (3 + bench.memory)
                continue
            cells += [f"{rate / 1e6:.2f}", f"{rate / float(row['reference']):,.0f}x",
                      f"{rate / float(row['numpy']):.2f}x"]
            if bench.memory:
                cells.append(f"{float(row[f'{engine} MiB']):.0f}")  # type: ignore[arg-type]
        cells += [f"{float(row['reference']) / 1e6:.4f}", f"{float(row['numpy']) / 1e6:.1f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


TARGETS = [
    # (description, workload, precision, N, minimum vertices/s, or a reference factor):
    # gpuisa's speed goals, through run() with the default engine
    ("transform, f24, N = 10^6: >= 100 M vertices/s", "transform", "f24", 10**6, 100e6, None),
    ("transform, f32, N = 10^6: >= 250 M vertices/s", "transform", "f32", 10**6, 250e6, None),
    ("transform, f24, N = 10^4: >= 5 M vertices/s", "transform", "f24", 10**4, 5e6, None),
    ("peer lighting (27 words), f24, N = 10^6: >= 20 M vertices/s", "peer-lighting", "f24",
     10**6, 20e6, None),
    ("skinning, f24, N = 10^6: >= 25 M vertices/s", "skinning", "f24", 10**6, 25e6, None),
    ("geometry point -> quad, f24, N = 10^6: >= 5 M points/s", "geometry", "f24", 10**6, 5e6,
     None),
    ("transform, f24, N = 10^6: >= 1,000x the reference engine", "transform", "f24", 10**6,
     None, 1000),
]


def targets(bench: Bench) -> str:
    lines = []
    for text, workload, precision, n, rate, factor in TARGETS:
        rows = [r for r in bench.rows if (r["workload"], r["precision"], r["n"]) == (
            workload, precision, n)]
        if not rows:
            continue
        row = rows[0]
        for engine in bench.engines:
            if engine != "auto":  # the targets are for run()'s default engine
                continue
            got = float(row[engine])  # type: ignore[arg-type]
            if rate is not None:
                ok, shown = got >= rate, f"{got / 1e6:.1f} M/s"
            else:
                ratio = got / float(row["reference"])  # type: ignore[arg-type]
                ok, shown = ratio >= factor, f"{ratio:,.0f}x"
            lines.append(f"- {text} — {engine}: {shown} {'(met)' if ok else '(NOT met)'}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="N = 10^4, 10^6 (default)")
    size.add_argument("--full", action="store_true", help="N = 10^4, 10^6, 10^7")
    parser.add_argument("--engines", default=None,
                        help="comma-separated engines (default: auto, jit-quick, "
                             "jit-optimised; also jit, reference)")
    parser.add_argument("--workloads", default=",".join(WORKLOADS),
                        help=f"comma-separated subset of {', '.join(WORKLOADS)}")
    parser.add_argument("--memory", action="store_true",
                        help="also report the peak memory of each run")
    peers.add_option(parser, "print the ratios")
    args = parser.parse_args(argv)
    peer_rates = peers.from_arguments(parser, args)
    sizes = [10**4, 10**5, 10**6] + ([10**7] if args.full else [])
    engines = (args.engines.split(",") if args.engines
               else ["auto", QUICK, OPTIMISED])
    unknown = [e for e in engines if e not in (*engine_names(), OPTIMISED, QUICK)]
    if unknown:
        parser.error(f"unknown engine(s) {', '.join(unknown)}; available: "
                     f"{', '.join(engine_names())}")
    bench = Bench(engines, args.memory)
    started = time.perf_counter()
    for name in args.workloads.split(","):
        workload = WORKLOADS[name]
        for precision in ("f24", "f32"):
            reference = bench.reference_rate(workload, precision)
            for n in sizes:
                bench.measure(workload, n, precision, reference)
    stamp = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    print(f"Measured {stamp} on {machine()}; `python -m benchmarks.run"
          f"{' --full' if args.full else ''}` ({time.perf_counter() - started:.0f} s).  "
          f"Vertices/s through `gpuisa.pica.engine.run` from float32 inputs to results "
          f"(geometry: input points, 4 vertices emitted each); best of several runs; "
          f"reference engine extrapolated from {REFERENCE_LANES} vertices.\n")
    print(table(bench))
    print("\nSpeed goals:\n")
    print(targets(bench))
    if peer_rates:
        print(f"\nAgainst {args.peer} (measured in the same window):\n")
        print(peers.comparison(bench.rows, peer_rates))
    return 0


if __name__ == "__main__":
    sys.exit(main())
