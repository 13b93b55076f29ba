"""engine="auto": the choice between the reference and the compiled engine by estimated
cost (engine/choice.py), from what the compiled engine would have to do first.

The table fixes the situations and the engine each must get, the costs worked out by
hand from choice.py's constants; none of it measures time.  Instruction counts are
worked out by hand from the programs."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from engine_kit import Asm

from gpuisa.pica.engine import api, choice
from gpuisa.pica.engine.compiled import nativerun
from gpuisa.pica.engine.state import Uniforms
from gpuisa.pica.isa import CompareOp, CondOp


@pytest.mark.parametrize(
    ("lanes", "steps", "words", "imported", "geometry", "spent", "engine"),
    [
        # a few vertices: never wait for LLVM (0.05 s import, 0.02 s + 3 ms a word)
        (1, 5, 6, False, False, 0.0, "reference"),
        (10, 30, 30, True, False, 0.0, "reference"),
        # 10^3 vertices of 15 steps: 58 ms on the reference engine, 121 ms to import
        # LLVM and compile 17 words; with LLVM imported 71 ms: still the reference engine
        (1000, 15, 17, False, False, 0.0, "reference"),
        (1000, 15, 17, True, False, 0.0, "reference"),
        # ... until its runs have cost as much (rent or buy)
        (1000, 15, 17, False, False, 0.07, "jit"),
        # 10^4 vertices: 0.58 s on the reference engine
        (10**4, 15, 17, False, False, 0.0, "jit"),
        (10**6, 5, 6, False, False, 0.0, "jit"),
        # geometry: 3 invocations of 25 steps (1 ms) stay, 10^3 (0.32 s) compile
        (3, 25, 25, True, True, 0.0, "reference"),
        (1000, 25, 25, True, True, 0.0, "jit"),
    ],
)
def test_auto_picks_by_estimated_cost(lanes, steps, words, imported, geometry, spent,
                                      engine):
    assert choice.pick(lanes, steps, words, imported, geometry, spent) == engine


def test_costs_grow_with_lanes_and_with_what_must_happen_first():
    for lanes in (1, 100, 10**5, 10**7):
        costs = [choice.native_cost(lanes, 10, 10, compiled, imported)
                 for compiled, imported in ((True, True), (False, True), (False, False))]
        assert costs == sorted(costs) and costs[0] < costs[2]
    assert choice.native_cost(10, 10, 10, True, True) < choice.native_cost(10**6, 10, 10,
                                                                           True, True)


def straight():
    a = Asm()
    for k in range(4):
        a.op("dp4", "o0", f"c{k}", "v0")
    a.end()
    a.op("mov", "o1", "v0")  # after END: never runs
    return a.program()


def looping():
    """LOOP i0 over 2 words, then mov and END."""
    a = Asm()
    a.op("mov", "r0", "v0")  # 0
    a.flow("loop", dst=3, id=0)  # 1: body 2..3
    a.op("add", "r0", "c0", "r0")  # 2
    a.op("cmp", None, "c0", "r0", cmpx=CompareOp.GT, cmpy=CompareOp.GT)  # 3
    a.op("mov", "o0", "r0")  # 4
    a.end()  # 5
    return a.program()


def test_instructions_are_counted_to_end_with_loops_repeated():
    from gpuisa.pica.engine.decode import decode_program

    uniforms = Uniforms()
    assert choice.estimated_steps(decode_program(straight()), 0, uniforms) == 5
    assert choice.estimated_steps(decode_program(straight()), 4, uniforms) == 1
    program = decode_program(looping())
    # i0 not given: one iteration (6 words)
    assert choice.estimated_steps(program, 0, uniforms) == 6
    uniforms.set_int(0, np.array([3, 0, 1, 0]))  # INT.x = 3: 4 iterations of 2 words
    assert choice.estimated_steps(program, 0, uniforms) == 6 + 2 * 3


def test_run_passes_what_it_runs_to_the_choice(monkeypatch):
    """Explicit names are kept; "auto" on a 10-vertex run of nothing compiled takes the
    reference engine; a branching program's run with the kernel compiled in this
    process takes the compiled engine even for one vertex."""
    a = Asm()
    a.op("cmp", None, "c0", "v0", cmpx=CompareOp.GT, cmpy=CompareOp.GT)
    a.flow("ifc", dst=3, num=1, condop=CondOp.X, refx=1)
    a.op("mov", "o0", "c0")
    a.op("mov", "o1", "v0")
    a.end()
    program = a.program()
    exe = api.executable(program)
    state = api.initial_state(exe, {"v0": np.ones((10, 4))}, uniforms={"c0": [2.0] * 4},
                              precision="f24")
    run = api.Run(exe.program, state, 0, "f24")
    assert api.choose_engine("reference", 10, run) == "reference"
    assert api.choose_engine("jit", 10, run) == "jit"
    # nothing compiled yet, no reference time spent on the program
    monkeypatch.setattr(nativerun, "_kernels", type(nativerun._kernels)())
    monkeypatch.setattr(choice, "_spent", type(choice._spent)())
    assert api.choose_engine("auto", 10, run) == "reference"
    nativerun.kernel(exe.program, 0, "f24", frozenset(), bounded=True)
    assert api.choose_engine("auto", 10, run) == "jit"


def test_a_large_input_goes_to_the_compiled_engine(monkeypatch):
    monkeypatch.setattr(nativerun, "_kernels", type(nativerun._kernels)())
    exe = api.executable(straight())
    lanes = 10**6
    state = api.ShaderState(lanes)
    state.input_given[0] = True
    for k in range(4):
        state.uniforms.set_float(k, np.ones(4, np.float32))
    # 10^6 lanes x 5 instructions: seconds on the reference engine
    assert api.choose_engine("auto", lanes, api.Run(exe.program, state, 0, "f24")) == "jit"


def test_a_small_pica_run_imports_no_llvm(tmp_path):
    """The cold-start promise: a 10-vertex `pica run` of a 30-instruction shader with
    nothing compiled never waits for LLVM (llvmlite is not even imported)."""
    body = "\n".join("    add r0, r0, v0" for _ in range(28))  # + mov, end: 30
    source = tmp_path / "s.pica"
    source.write_text(f".out o position\n.proc main\n{body}\n    mov o, r0\n    end\n.end\n")
    inputs = tmp_path / "in.json"
    inputs.write_text("{\"v0\": " + str([[1, 2, 3, 4]] * 10) + "}")
    code = ("import sys\nfrom gpuisa.pica.cli import main\n"
            f"code = main(['run', {str(source)!r}, '--inputs', {str(inputs)!r}])\n"
            "print(code, 'llvmlite' in sys.modules, file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, env=dict(os.environ))
    assert done.stderr.strip().splitlines()[-1] == "0 False", done.stderr
    assert "28" in done.stdout and "112" in done.stdout, done.stdout  # 28 * v0


def test_repeated_geometry_feeds_move_to_the_compiled_engine(monkeypatch):
    """Feeds of 100 invocations of a 13-instruction geometry shader with nothing
    compiled: the first runs stay on the reference engine (17 ms each against 60 ms to
    compile, 0.11 s with importing LLVM), later ones compile once the reference engine
    has cost as much (rent or buy)."""
    from gpuisa.pica.engine.compiled import geometryrun
    from gpuisa.pica.engine.decode import decode_program

    monkeypatch.setattr(choice, "_spent", type(choice._spent)())
    monkeypatch.setattr(geometryrun, "_made", set())
    a = Asm()
    for k in range(4):  # 13 instructions per invocation
        a.flow("setemit", vtxid=k % 3, primemit=int(k >= 2))
        a.op("add", "o0", f"c{k}", "v0")
        a.flow("emit")
    a.end()
    program = decode_program(a.program())
    assert choice.estimated_steps(program, 0, Uniforms()) == 13
    run = api.Run(program, api.ShaderState(1), 0, "f24", geometry=True)
    answers = [api.choose_engine("auto", 100, run) for _ in range(30)]
    assert answers[0] == "reference" and answers[-1] == "jit"
    assert answers == sorted(answers, key=lambda name: name == "jit")
