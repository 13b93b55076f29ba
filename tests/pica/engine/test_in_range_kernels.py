"""The LLVM vertex kernels' vector functions compute ADD, MUL, MAD and the dot products
in range (``compiled.alu``; f24 runs whose uniforms are bounded: those of inputs and
uniforms with the bounded arithmetic, ``primitives.bounded24``): vectors of lanes
where a value leaves the range, or an operand the bounds, are run again lane by lane
by the exact function of one lane (and the reference engine where that cannot finish).

Programs that run with one control state (straight-line, uniform control) and with
lanes that part (divergent blocks, a conditional call) run over lanes of ordinary
values mixed with lanes holding infinities, NaNs with payloads, magnitudes whose
products pass 2^64 and ones whose products fall below 2^-62, and magnitudes at and
beyond the bounded arithmetic's bounds; the results must equal the reference engine's
bit for bit."""

import numpy as np
import pytest
from engine_kit import Asm

from gpuisa.pica.engine import run
from gpuisa.pica.engine.compiled import nativerun
from gpuisa.pica.isa import CompareOp, CondOp

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
    a.op("dp4", "o2.x", "c0", "v0")  # 6
    a.end()  # 7
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
    a.flow("callc", dst=7, num=1, condop=CondOp.X, refx=1)  # 2: lanes with v0.x < 0
    a.op("dp4", "o0.x", "c0", "r0")  # 3
    a.op("mul", "o1", "c1", "r0")  # 4
    a.op("dph", "o2", "c0", "v1")  # 5
    a.end()  # 6
    a.op("mad", "r0", "r0", "c0", "v0")  # 7
    return a.program()


KINDS = {"straight": straight, "uniform": uniform, "divergent": divergent,
         "lane by lane": lane_by_lane}


@pytest.fixture
def kernels(monkeypatch) -> list[tuple]:
    """The arguments of every nativerun.kernel call (the last is ``bounded``)."""
    made: list[tuple] = []
    real = nativerun.kernel
    monkeypatch.setattr(nativerun, "kernel", lambda *args: made.append(args) or real(*args))
    return made


def same_bits(got, want) -> None:
    for registers in ("outputs", "temporaries"):
        for name, values in getattr(want, registers).items():
            assert np.array_equal(getattr(got, registers)[name].view(np.uint32),
                                  values.view(np.uint32)), name
    assert np.array_equal(got.steps, want.steps)


def _inputs(rng):
    ordinary = rng.uniform(-4, 4, (2, LANES, 4)).astype(np.float32)
    wild = np.array([np.inf, -np.inf, np.nan, 1e30, -3e19, 1e-30, -1e-25, -0.0, 2.0**63],
                    np.float32)
    lanes = rng.choice(LANES, LANES // 10, replace=False)
    ordinary[:, lanes] = rng.choice(wild, (2, len(lanes), 4))
    payload = np.array([0x7FC12300, 0xFF800001], np.uint32).view(np.float32)
    ordinary[0, lanes[:2], 1] = payload
    return {"v0": ordinary[0], "v1": ordinary[1]}


#: Inputs at and beyond the bounds of the bounded arithmetic (primitives.bounded24): a
#: factor times a uniform from 2^-30 on, an added value from 2^-39, every one below 2^30.
EDGES = np.array([2.0**-30, -(2.0**-31), 2.0**-39, 2.0**-40, 2.0**-62, 1.5 * 2.0**-63,
                  2.0**30, -(2.0**30 - 2.0**13), 2.0**-23, 1e-12], np.float32)


@pytest.mark.parametrize("precision", ["f24", "f32"])
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_lanes_out_of_range_are_run_again_exactly(kind, precision, kernels):
    program = KINDS[kind]()
    rng = np.random.default_rng(sorted(KINDS).index(kind))
    inputs = _inputs(rng)
    # c1.x puts every lane's x out of range (f24: products past 2^64; f32: infinite)
    far = 1e20 if precision == "f24" else np.inf
    uniforms = {"c0": [0.5, -1.25, 3.0, 1e-20], "c1": [far, 2.0, -0.75, 1.5],
                "c2": [0.0, 0.0, 0.0, 0.0], "i0": [2, 0, 1, 0]}
    got, want = (run(program, inputs, uniforms=uniforms, engine=engine, registers=True,
                     precision=precision) for engine in ("jit", "reference"))
    same_bits(got, want)
    assert kernels and not kernels[-1][-1]  # not the bounded arithmetic


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_bounded_kernels_run_lanes_out_of_bounds_again_exactly(kind, kernels):
    program = KINDS[kind]()
    rng = np.random.default_rng(7 + sorted(KINDS).index(kind))
    inputs = _inputs(rng)
    lanes = rng.choice(LANES, LANES // 10, replace=False)
    for values in inputs.values():
        values[lanes] = rng.choice(EDGES, (len(lanes), 4)) * rng.choice([-1, 1], (len(lanes), 4))
    # bounded uniforms (from 2^-16 on, below 2^30), so the run gets a bounded kernel
    uniforms = {"c0": [0.5, -1.25, 3.0, 2.0**-16], "c1": [2.0**29, 2.0, -0.75, 1.5],
                "c2": [0.0, 0.0, 0.0, 0.0], "i0": [2, 0, 1, 0]}
    got, want = (run(program, inputs, uniforms=uniforms, engine=engine, registers=True)
                 for engine in ("jit", "reference"))
    same_bits(got, want)
    assert kernels and kernels[-1][-1]  # the bounded arithmetic


@pytest.mark.parametrize(("precision", "extra", "bounded"), [
    ("f24", {}, True),
    ("f24", {"c0": [0.5, -1.25, 3.0, 1e-10]}, False),  # a uniform the program reads
    ("f24", {"c1": [2.0**30, 2.0, -0.75, 1.5]}, False),
    ("f24", {"c7": [1e-10, np.inf, 0.0, 0.0]}, True),  # one it never reads
    ("f32", {}, False),
], ids=["bounded", "tiny-read", "large-read", "unread", "f32"])
def test_the_uniforms_choose_the_kind_of_in_range_arithmetic(precision, extra, bounded,
                                                             kernels):
    """A run gets the bounded kernel only in f24 and when every uniform the program can
    read is bounded (primitives.BOUND_UNIFORM); its results are exact either way."""
    uniforms = {"c0": [0.5, -1.25, 3.0, 2.0], "c1": [4.0, 2.0, -0.75, 1.5],
                "c2": [0.0, 0.0, 0.0, 0.0], **extra}
    inputs = _inputs(np.random.default_rng(3))
    got, want = (run(straight(), inputs, uniforms=uniforms, engine=engine,
                     precision=precision) for engine in ("jit", "reference"))
    assert kernels[-1][-1] == bounded
    for name, values in want.outputs.items():
        assert np.array_equal(got.outputs[name].view(np.uint32), values.view(np.uint32))
