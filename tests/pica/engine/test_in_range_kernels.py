"""f24 vertex kernels compute ADD, MUL, MAD and the dot products in range
(``codegen.IN_RANGE``): lanes where a value leaves the range are run again by an exact
engine (the interpreter kernel, or the reference engine for a few lanes).

Each kind of kernel (straight-line, uniform control, divergent blocks, lane by lane) runs
a program of those instructions over lanes of ordinary values mixed with lanes holding
infinities, NaNs with payloads, magnitudes whose products pass 2^64 and ones whose
products fall below 2^-62; the results must equal the reference engine's bit for bit,
whichever engine runs the lanes again."""

import numpy as np
import pytest
from conftest import JIT
from differential import kernel_kind
from picaemu_kit import Asm

from gpuisa.pica.engine import run
from gpuisa.pica.engine.compiled.codegen import analyse, generate
from gpuisa.pica.engine.decode import decode_program
from gpuisa.pica.isa import CompareOp, CondOp

pytestmark = list(JIT.marks)
LANES = 3000


def straight():
    a = Asm()
    a.op("dp4", "o0.x", "c0", "v0")
    a.op("mad", "o1", "v0", "c1", "v1")
    a.op("add", "r0", "v0", "-v1")
    a.op("mul", "o2", "c2", "r0")
    a.op("dp3", "o0.y", "r0", "v1")
    a.op("mov", "o0.zw", "v1")
    a.end()
    return a.program()


def uniform():
    a = Asm()
    a.op("mov", "r0", "v1")  # 0
    a.flow("loop", dst=3, id=0)  # 1
    a.op("mad", "r0", "v0", "c1", "r0")  # 2
    a.op("dph", "r1.x", "c0", "r0")  # 3
    a.op("dp4", "o0.x", "c0", "r0")  # 4
    a.op("mul", "o1", "r0", "r1.xxxx")  # 5
    a.end()  # 6
    return a.program()


def divergent():
    a = Asm()
    a.op("mul", "r0", "c1", "v0")  # 0
    a.op("cmp", None, "c2", "v0", cmpx=CompareOp.GT, cmpy=CompareOp.GT)  # 1
    a.flow("jmpc", dst=4, condop=CondOp.X, refx=1)  # 2
    a.op("mad", "r0", "r0", "c0", "v1")  # 3
    a.op("dp4", "o0.x", "r0", "v1")  # 4
    a.op("add", "o1", "r0", "v0")  # 5
    a.end()  # 6
    return a.program()


def lane_by_lane():
    a = Asm()
    a.op("mov", "r0", "v1")  # 0
    a.op("cmp", None, "c2", "v0", cmpx=CompareOp.GT, cmpy=CompareOp.GT)  # 1
    a.flow("callc", dst=6, num=1, condop=CondOp.X, refx=1)  # 2: lanes with v0.x < 0
    a.op("dp4", "o0.x", "c0", "r0")  # 3
    a.op("mul", "o1", "c1", "r0")  # 4
    a.end()  # 5
    a.op("mad", "r0", "r0", "c0", "v0")  # 6
    return a.program()


KINDS = {"straight": (straight, "straight"), "uniform": (uniform, "uniform control"),
         "divergent": (divergent, "divergent blocks"),
         "lane by lane": (lane_by_lane, "lane by lane")}


def _inputs(rng):
    ordinary = rng.uniform(-4, 4, (2, LANES, 4)).astype(np.float32)
    wild = np.array([np.inf, -np.inf, np.nan, 1e30, -3e19, 1e-30, -1e-25, -0.0, 2.0**63],
                    np.float32)
    lanes = rng.choice(LANES, LANES // 10, replace=False)
    ordinary[:, lanes] = rng.choice(wild, (2, len(lanes), 4))
    payload = np.array([0x7FC12300, 0xFF800001], np.uint32).view(np.float32)
    ordinary[0, lanes[:2], 1] = payload
    return {"v0": ordinary[0], "v1": ordinary[1]}


@pytest.mark.parametrize("precision", ["f24", "f32"])
@pytest.mark.parametrize("again", ["interpreter", "reference"])
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_lanes_out_of_range_are_run_again_exactly(kind, again, precision, monkeypatch):
    from gpuisa.pica.engine import choice
    from gpuisa.pica.engine.compiled import runner

    make, header = KINDS[kind]
    program = make()
    decoded = decode_program(program)
    source = generate(decoded, analyse(decoded), (), precision, frozenset(), 0).source
    assert kernel_kind(source) == header
    exact = ("round24", "mul64", "add64") if precision == "f24" else ("mul32", "add32")
    assert f"R.{exact[0]}_in_range(" in source and "R.nonfinite32(" in source
    assert not any(f"R.{rule}(" in source for rule in exact)  # all of it in range
    monkeypatch.setattr(runner, "KERNELS", "always")
    monkeypatch.setattr(choice, "rerun_on_interpreter",
                        lambda lanes, steps, interpreter: again == "interpreter")
    interpreted, referenced = [], []
    original_interpreter, original_lane = runner._interpreter, runner.run_lane
    monkeypatch.setattr(runner, "_interpreter",
                        lambda *args: interpreted.append(1) or original_interpreter(*args))
    monkeypatch.setattr(runner, "run_lane",
                        lambda *args, **kw: referenced.append(1) or original_lane(*args, **kw))
    rng = np.random.default_rng(sorted(KINDS).index(kind))
    inputs = _inputs(rng)
    # c1.x puts every lane's x out of range (f24: products past 2^64; f32: infinite)
    far = 1e20 if precision == "f24" else np.inf
    uniforms = {"c0": [0.5, -1.25, 3.0, 1e-20], "c1": [far, 2.0, -0.75, 1.5],
                "c2": [0.0, 0.0, 0.0, 0.0], "i0": [2, 0, 1, 0]}
    got = run(program, inputs, uniforms=uniforms, engine="jit", registers=True,
              precision=precision)
    want = run(program, inputs, uniforms=uniforms, engine="reference", registers=True,
               precision=precision)
    for registers in ("outputs", "temporaries"):
        for name, values in getattr(want, registers).items():
            assert np.array_equal(getattr(got, registers)[name].view(np.uint32),
                                  values.view(np.uint32)), name
    assert np.array_equal(got.steps, want.steps)
    assert (len(interpreted), len(referenced)) == ((1, 0) if again == "interpreter"
                                                   else (0, LANES))
