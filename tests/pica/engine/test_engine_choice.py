"""engine="auto": the choice between the reference and the compiled engine by estimated
cost (engine/choice.py), from what the compiled engine would have to do first.

The table fixes the situations and the engine each must get; none of it measures time.
Instruction counts are worked out by hand from the programs."""

from __future__ import annotations

import math
import os
import subprocess
import sys

import numpy as np
import pytest
from engine_kit import Asm

from gpuisa.pica.engine import api, choice
from gpuisa.pica.engine.choice import Kept, Readiness
from gpuisa.pica.engine.state import Uniforms
from gpuisa.pica.isa import CompareOp, CondOp

#: These tests are about Numba's vertex kernels (conftest).
pytestmark = pytest.mark.usefixtures("numba_vertex_kernels")

P, D, N = Kept.PROCESS, Kept.DISK, Kept.NONE


@pytest.mark.parametrize(
    ("lanes", "steps", "words", "numba", "kernel", "interpreter", "spent", "engine"),
    [
        # nothing compiled, a few vertices: never wait for Numba
        (1, 5, 6, False, N, N, 0.0, "reference"),
        (10, 30, 30, False, N, D, 0.0, "reference"),
        # kernel on disk, but a 10-vertex run: importing Numba costs more than running
        (10, 30, 30, False, D, D, 0.0, "reference"),
        # the kernel is compiled in this process: it wins even for one vertex
        (1, 5, 6, False, P, N, 0.0, "jit"),
        (1, 2, 2, True, P, P, 0.0, "jit"),
        # large inputs pay for loading or compiling the kernel
        (10**6, 5, 6, False, D, D, 0.0, "jit"),
        (10**6, 5, 6, False, N, N, 0.0, "jit"),
        (10**7, 15, 17, False, N, N, 0.0, "jit"),
        # 10^4 vertices: the interpreter, if it is loaded ...
        (10**4, 15, 17, True, N, P, 0.0, "jit"),
        # ... but not if it has to be compiled first, or Numba and it loaded for one run
        (10**4, 15, 17, True, N, N, 0.0, "reference"),
        (5_000, 15, 17, False, N, D, 0.0, "reference"),
        # repeated runs of that program: once the reference engine has cost as much as
        # getting the compiled engine ready, the compiled engine takes over
        (5_000, 15, 17, False, N, D, 10.0, "jit"),
        # 2 * 10^4 vertices: importing Numba and loading the interpreter (0.6 s) cost
        # less than the reference engine (1.15 s); compiling the kernel would not pay
        (20_000, 15, 27, False, N, D, 0.0, "jit"),
        (20_000, 15, 27, False, N, N, 0.0, "reference"),
    ],
)
def test_auto_picks_by_estimated_cost(lanes, steps, words, numba, kernel, interpreter,
                                      spent, engine):
    ready = Readiness(numba, kernel, interpreter)
    assert choice.pick(lanes, steps, words, ready, spent) == engine


def test_costs_grow_with_lanes_and_with_what_must_happen_first():
    cold = Readiness(False, N, N)
    on_disk = Readiness(False, D, D)
    compiled = Readiness(True, P, P)
    for lanes in (1, 100, 10**5, 10**7):
        costs = [choice.compiled_cost(lanes, 10, 10, r) for r in (compiled, on_disk, cold)]
        assert costs == sorted(costs) and costs[0] < costs[2]
    assert choice.reference_cost(2000, 10) > choice.reference_cost(1000, 10)
    # best_case is a lower bound of every readiness without a kernel in the process
    bound = choice.best_case(10**4, 15, numba=False)
    for ready in (on_disk, cold, Readiness(False, N, D)):
        assert bound <= choice.compiled_cost(10**4, 15, 17, ready)


@pytest.mark.parametrize(
    ("lanes", "steps", "words", "kernel", "interpreted", "pays"),
    [
        # 10^4 lanes of 20 instructions: the interpreter needs 60 us + 1.6 ms more than
        # the kernel (8 ns per step), loading the kernel from disk 30 ms, compiling
        # 27 words 0.5 + 27 * 0.75 = 20.75 s
        (10**4, 20, 27, D, 0.0, False),
        (10**4, 20, 27, D, 0.029, True),  # rent paid: 0.029 + 0.00166 >= 0.03
        (10**4, 20, 27, N, 0.029, False),
        (10**4, 20, 27, N, 20.749, True),
        # 10^6 lanes: 0.16 s more, loading at once, compiling not
        (10**6, 20, 27, D, 0.0, True),
        (10**6, 20, 27, N, 0.0, False),
        # one run large enough pays at once: 10^8 x 30 x 8 ns = 24 s
        (10**8, 30, 27, N, 0.0, True),
        # a kernel compiled in this process is always used
        (1, 1, 1, P, 0.0, True),
    ],
)
def test_the_kernel_is_got_once_interpreting_has_cost_as_much(lanes, steps, words, kernel,
                                                               interpreted, pays):
    assert choice.kernel_pays(lanes, steps, words, kernel, interpreted) is pays


def test_an_interpreter_still_to_compile_counts_as_interpreting():
    """Compiling the interpreter kernel (10 s, once per installation) is part of what
    interpreting costs: a 6-word kernel (0.5 + 6 * 0.75 = 5 s) is compiled instead, a
    27-word one (20.75 s) is not."""
    assert choice.kernel_pays(10, 5, 6, N, 0.0, interpreter=N)
    assert not choice.kernel_pays(10, 5, 6, N, 0.0, interpreter=D)
    assert not choice.kernel_pays(10, 5, 27, N, 0.0, interpreter=N)


@pytest.mark.parametrize(("lanes", "steps", "interpreter", "again"), [
    # reference: 60 us + lanes * (5 + 10 * 3.5) us; interpreter: getting it ready
    # (loaded 0, on disk 50 ms, compiling 10 s) + 60 us + lanes * 10 * 10 ns
    (1, 10, P, True),  # 100 us against 60.1 us
    (1000, 10, P, True),  # 40.06 ms against 0.16 ms
    (1000, 10, D, False),  # 40.06 ms against 50.16 ms
    (10**4, 10, D, True),  # 0.4 s against 51 ms
    (10**4, 10, N, False),  # 0.4 s against 10 s
    (10**6, 10, N, True),  # 40 s against 10.1 s
])
def test_lanes_a_kernel_hands_back_go_where_they_cost_least(lanes, steps, interpreter, again):
    assert choice.rerun_on_interpreter(lanes, steps, interpreter) is again


def test_repeated_runs_move_from_the_interpreter_to_the_kernel(monkeypatch):
    """The compiled engine (its interpreter loaded) interprets a program's runs and
    records what that cost beyond the kernel; once it adds up to loading the kernel, the
    next run loads it."""
    pytest.importorskip("numba")
    from gpuisa.pica.engine.compiled import runner as jit

    monkeypatch.setattr(choice, "_spent", type(choice._spent)())
    monkeypatch.setattr(jit, "_cache", type(jit._cache)())
    monkeypatch.setattr(jit, "_on_disk", lambda source: True)
    monkeypatch.setattr(choice, "interpreter_kept", lambda: Kept.PROCESS)
    made = []
    monkeypatch.setattr(jit, "kernel_for", lambda *args: made.append(args) or 1 / 0)
    exe = api.executable(straight())
    lanes = 10**4
    state = api.initial_state(exe, {"v0": np.ones((lanes, 4))},
                              uniforms={f"c{k}": [1.0] * 4 for k in range(4)},
                              precision="f24")
    # the kernel is loaded by the run after the one that makes the extra time (60 us +
    # 10^4 lanes x 5 steps x 8 ns per run) reach the loading time
    extra = choice.INTERPRETER_CALL + lanes * 5 * (choice.INTERPRETER_STEP
                                                   - choice.COMPILED_STEP)
    expected = math.ceil(choice.LOAD_KERNEL / extra)
    runs = 0
    while not made:
        assert runs <= expected
        try:
            jit.run_lanes_jit(exe.program, state, 0, precision="f24", max_steps=100)
        except ZeroDivisionError:
            break
        runs += 1
    assert runs == expected - 1 or runs == expected, (runs, expected)


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
    pytest.importorskip("numba")
    from gpuisa.pica.engine.compiled import runner as jit

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
    # nothing compiled yet, the interpreter not loaded (other tests may have run it in
    # this process: then it would rightly win), no reference time spent on the program
    monkeypatch.setattr(jit, "_cache", type(jit._cache)())
    monkeypatch.setattr(choice, "interpreter_kept", lambda: Kept.NONE)
    monkeypatch.setattr(choice, "_spent", type(choice._spent)())
    assert api.choose_engine("auto", 10, run) == "reference"
    jit.kernel_for(exe.program, 0, "f24", frozenset(), bounded=True)
    assert api.choose_engine("auto", 10, run) == "jit"


def test_a_large_input_goes_to_the_compiled_engine(monkeypatch):
    pytest.importorskip("numba")
    from gpuisa.pica.engine.compiled import runner as jit

    monkeypatch.setattr(jit, "_cache", type(jit._cache)())
    exe = api.executable(straight())
    lanes = 10**6
    state = api.ShaderState(lanes)
    state.input_given[0] = True
    for k in range(4):
        state.uniforms.set_float(k, np.ones(4, np.float32))
    # 10^6 lanes x 5 instructions: seconds on the reference engine, whatever the cache
    assert api.choose_engine("auto", lanes, api.Run(exe.program, state, 0, "f24")) == "jit"


def test_a_small_pica_run_with_an_empty_compile_cache_imports_no_numba(tmp_path):
    """The cold-start promise: a 10-vertex `pica run` of a 30-instruction shader with
    nothing compiled never waits for Numba (it is not even imported)."""
    body = "\n".join("    add r0, r0, v0" for _ in range(28))  # + mov, end: 30
    source = tmp_path / "s.pica"
    source.write_text(f".out o position\n.proc main\n{body}\n    mov o, r0\n    end\n.end\n")
    inputs = tmp_path / "in.json"
    inputs.write_text("{\"v0\": " + str([[1, 2, 3, 4]] * 10) + "}")
    code = ("import sys\nfrom gpuisa.pica.cli import main\n"
            f"code = main(['run', {str(source)!r}, '--inputs', {str(inputs)!r}])\n"
            "print(code, 'numba' in sys.modules, file=sys.stderr)\n")
    env = dict(os.environ, GPUISA_JIT_CACHE=str(tmp_path / "cache"))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, env=env)
    assert done.stderr.strip().splitlines()[-1] == "0 False", done.stderr
    assert "28" in done.stdout and "112" in done.stdout, done.stdout  # 28 * v0


def test_geometry_feeds_compile_when_it_pays(monkeypatch):
    """The compiled geometry engine compiles a kernel that is not cached for a long
    feed, never for a few invocations, and for a middling feed once its runs on the
    reference engine have cost more than compiling (rent or buy)."""
    from gpuisa.pica.engine.decode import decode_program

    monkeypatch.setattr(choice, "_spent", type(choice._spent)())
    a = Asm()
    for k in range(4):  # 13 instructions per invocation
        a.flow("setemit", vtxid=k % 3, primemit=int(k >= 2))
        a.op("add", "o0", f"c{k}", "v0")
        a.flow("emit")
    a.end()
    program = decode_program(a.program())
    assert choice.estimated_steps(program, 0, Uniforms()) == 13
    assert not choice.compile_geometry(program, Uniforms(), 0, 10)
    assert choice.compile_geometry(program, Uniforms(), 0, 10**6)
    answers = [choice.compile_geometry(program, Uniforms(), 0, 10**4) for _ in range(30)]
    assert not answers[0] and answers[-1] and answers == sorted(answers)


def test_asking_the_compiled_engine_imports_no_numba(tmp_path):
    """Vertices of a 30-instruction program with nothing compiled, as many as make the
    reference engine's estimate exceed the compiled engine's best case (so auto asks
    the compiled engine what it would have to do) while importing Numba and loading the
    interpreter still cost more: the answer is the reference engine, and asking
    imported nothing of Numba."""
    steps = 30.0
    lanes = next(n for n in range(100, 10**5, 100)
                 if choice.reference_cost(n, steps) > choice.best_case(n, steps, False))
    loaded = Readiness(False, N, D)
    assert choice.compiled_cost(lanes, steps, 30, loaded) > choice.reference_cost(lanes, steps)
    body = "".join(f"0x{0x08000000 | 0 << 21:08X}, " for _ in range(29))  # dp4 o0.x, v0, c0
    code = ("import sys, numpy as np\n"
            "from gpuisa.pica import Program, run\n"
            "from gpuisa.pica.engine import api\n"
            "from gpuisa.pica.engine.compiled import runner\n"
            "runner.NATIVE = False\n"
            f"program = Program(({body}0x88000000), (0x0006C368,))\n"
            "chosen = []\n"
            "real = api.choose_engine\n"
            "api.choose_engine = lambda *a: chosen.append(real(*a)) or chosen[-1]\n"
            f"run(program, {{'v0': np.ones(({lanes}, 4))}}, uniforms={{'c0': [1.0] * 4}})\n"
            "print(chosen[-1], 'numba' in sys.modules)\n")
    env = dict(os.environ, GPUISA_JIT_CACHE=str(tmp_path / "cache"))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, env=env)
    assert done.stdout.split() == ["reference", "False"], done.stderr
