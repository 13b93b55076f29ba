"""Compiling and first calls of the LLVM kernels: ``python -m benchmarks.bench_compile``.

* Compiling one kernel from nothing (IR generation, LLVM's passes and code
  generator; the kernel memo emptied between tries), as a first run gets it (the
  quick code generator) and as runs get it later (the optimising one), for the
  transform, skinning, lighting and the 27-word peer lighting shader, f24 and f32:
  best and median of 5, wall time.
  Goals: transform 50 ms, skinning 100 ms, the 27-word lighting shader 150 ms.
* The first ``run()`` of a new shader on 10^6 vertices in a warm process (compile and
  run), beside the second (run only).
* ``pica run`` of the 27-word lighting shader on 10^6 vertices (``.npy`` in, ``.npz``
  out) as a fresh process with an empty kernel cache: goal 1.5 s.

The disk cache of machine code is switched off here (compiling is what is measured).

Prints a Markdown table; timings depend on the machine (not part of the test suite).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks import peers, processes
from benchmarks.shaders import PEER_LIGHTING_CODE, PEER_LIGHTING_OPDESCS, WORKLOADS
from gpuisa.pica.engine import run
from gpuisa.pica.engine.api import executable
from gpuisa.pica.engine.compiled import nativerun, objectcache
from gpuisa.pica.engine.compiled.facts import Memo


def _forget() -> None:
    """No kernel of this process remembered (the tiers' memo and the current kernels)."""
    nativerun._kernels = Memo(256)
    nativerun._current.clear()

SHADERS = ("transform", "skinning", "lighting", "peer-lighting")
GOALS = {"transform": 0.05, "skinning": 0.1, "peer-lighting": 0.15}


def compile_times(name: str, precision: str, repeats: int = 5,
                  upgrade: float | None = None) -> list[float]:
    """Seconds to compile the kernel a first run gets (``upgrade`` 0: the one compiled
    with the optimising code generator, what runs get after UPGRADE_AFTER seconds)."""
    program = executable(WORKLOADS[name].shbin).program
    saved = nativerun.UPGRADE_AFTER
    if upgrade is not None:
        nativerun.UPGRADE_AFTER = upgrade
    times = []
    try:
        for _ in range(repeats):
            _forget()
            started = time.perf_counter()
            nativerun.kernel(program, 0, precision, frozenset())
            times.append(time.perf_counter() - started)
    finally:
        nativerun.UPGRADE_AFTER = saved
    return times


def first_calls(name: str, precision: str) -> tuple[float, float]:
    workload = WORKLOADS[name]
    rng = np.random.default_rng(7)
    inputs, uniforms = workload.inputs(10**6, rng), workload.uniforms(rng)
    _forget()
    times = []
    for _ in range(2):
        started = time.perf_counter()
        run(workload.shbin, inputs, uniforms=uniforms, precision=precision)
        times.append(time.perf_counter() - started)
    return times[0], times[1]


def fresh_pica_run(fresh_install: bool = False) -> float:
    """Seconds of ``pica run`` of the peer lighting shader on 10^6 vertices in a new
    process (the SHBIN written by ``pica asm`` of its words first), with an empty kernel
    cache; ``fresh_install``: also gpuisa's modules without bytecode (a copy of the
    package that no process has imported, as a new editable install has it)."""
    from gpuisa.pica import Program
    from gpuisa.pica.shbin import Shbin
    from gpuisa.pica.shbin.records import Dvle, OutputEntry, OutputSemantic

    workload = WORKLOADS["peer-lighting"]
    rng = np.random.default_rng(7)
    inputs, uniforms = workload.inputs(10**6, rng), workload.uniforms(rng)
    with tempfile.TemporaryDirectory() as folder:
        shader = os.path.join(folder, "peer.shbin")
        program = Program(PEER_LIGHTING_CODE, PEER_LIGHTING_OPDESCS)
        with open(shader, "wb") as file:
            # position, colour, a second colour-like output and the normal (view)
            outputs = (OutputEntry(OutputSemantic.POSITION, 0),
                       OutputEntry(OutputSemantic.COLOR, 1),
                       OutputEntry(OutputSemantic.TEXCOORD0, 2, 0x3),
                       OutputEntry(OutputSemantic.VIEW, 3, 0x7))
            dvle = Dvle(main_offset=0, endmain_offset=len(PEER_LIGHTING_CODE) - 1,
                        outputs=outputs)
            file.write(Shbin(program, (dvle,)).to_bytes())
        np.savez(os.path.join(folder, "in.npz"), **inputs)
        import json

        with open(os.path.join(folder, "u.json"), "w") as file:
            json.dump({k: list(v) for k, v in uniforms.items()}, file)
        command = [sys.executable, "-m", "gpuisa", "run", shader, "--inputs",
                   os.path.join(folder, "in.npz"), "--uniforms", os.path.join(folder, "u.json"),
                   "--format", "npz", "-o", os.path.join(folder, "out.npz")]
        environment = processes.environment(os.path.join(folder, "cache"))
        if fresh_install:
            import gpuisa

            package = Path(gpuisa.__file__).parent
            shutil.copytree(package, os.path.join(folder, "src", "gpuisa"),
                            ignore=shutil.ignore_patterns("__pycache__"))
            environment["PYTHONPATH"] = os.pathsep.join(
                [os.path.join(folder, "src"), environment.get("PYTHONPATH", "")])
        started = time.perf_counter()
        subprocess.run(command, check=True, env=environment)
        return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_compile",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    peers.add_option(parser, "compare the first run()s")
    args = parser.parse_args(argv)
    peer_rates = peers.from_arguments(parser, args)
    objectcache.folder = lambda: None  # compiling is measured: no code from the disk cache
    print("| shader | mode | compile best | compile median | goal | optimising compile | "
          "first run() 10^6 | second run() 10^6 |")
    print("|---|---|---|---|---|---|---|---|")
    missed = 0
    compared = []
    for name in SHADERS:
        for precision in ("f24", "f32"):
            times = compile_times(name, precision)
            goal = GOALS.get(name)
            met = "" if goal is None else ("met" if min(times) <= goal else "missed")
            missed += met == "missed"
            optimising = min(compile_times(name, precision, 3, upgrade=0.0))
            first, second = first_calls(name, precision)
            goal_text = "" if goal is None else f"{goal * 1000:.0f} ms: {met}"
            print(f"| {name} | {precision} | {min(times) * 1000:.0f} ms | "
                  f"{statistics.median(times) * 1000:.0f} ms | {goal_text} | "
                  f"{optimising * 1000:.0f} ms | {first * 1000:.0f} ms | "
                  f"{second * 1000:.0f} ms |")
            against = peers.first_call(peer_rates, name, first)
            if against:
                compared.append(f"- {name}, {precision}: first run() {first * 1000:.0f} ms "
                                f"= {against}")
    if compared:
        print(f"\nFirst run() of a new shader on 10^6 vertices against {args.peer}:\n")
        print("\n".join(compared))
    fresh, installed = fresh_pica_run(), fresh_pica_run(fresh_install=True)
    print(f"\n`pica run` of the peer lighting shader on 10^6 vertices, fresh process: "
          f"{fresh:.2f} s (goal 1.5 s: {'met' if fresh <= 1.5 else 'missed'}); after a "
          f"fresh install (no bytecode either): {installed:.2f} s (goal 3 s: "
          f"{'met' if installed <= 3 else 'missed'})")
    return 1 if missed or fresh > 1.5 or installed > 3 else 0


if __name__ == "__main__":
    sys.exit(main())
