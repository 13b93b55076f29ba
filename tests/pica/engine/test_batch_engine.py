"""The batch engine's own mechanics: per-lane divergence and reconvergence, chunks and
threads, errors from the lowest failing lane, the program cache, geometry speculation,
and the engine="auto" choice.

The engine-wide suite (test_picaemu_*) runs every test on every engine; these tests
target what only the batch engine has.  Expected values are worked out by hand from
each lane's inputs (small integers, exact in float24), or, for random programs, come
from the reference engine (the yardstick).
"""

from __future__ import annotations

import numpy as np
import pytest
from picaemu_kit import Asm, assert_same

import gpuisa.pica.engine.batch as batch
import gpuisa.pica.engine.batch_lanes as batch_lanes
import gpuisa.pica.engine.batch_runner as batch_runner
from gpuisa.errors import InputError, ShaderHang
from gpuisa.pica.engine import api, run
from gpuisa.pica.engine.batch_program import prepared
from gpuisa.pica.engine.decode import decode_program
from gpuisa.pica.isa import CompareOp, CondOp

ONES = [1.0, 1.0, 1.0, 1.0]


@pytest.fixture
def small_chunks(monkeypatch):
    """Chunks of 8 lanes on two threads: many chunks even for small tests."""
    monkeypatch.setattr(batch, "CHUNK_LANES", 8)
    monkeypatch.setenv("GPUISA_THREADS", "2")


def divergent_if():
    """o0 = v0 + (10 if v0.x < 0 else 20); r1.x counts the joined instruction."""
    a = Asm()
    a.op("cmp", None, "c0", "v0", cmpx=CompareOp.GT, cmpy=CompareOp.GT)  # 0: 0 > v0.x
    a.flow("ifc", dst=4, num=2, condop=CondOp.X, refx=1)  # 1: then 2..3, else 4..5
    a.op("mov", "r0", "c1")  # 2
    a.nop()  # 3
    a.op("mov", "r0", "c2")  # 4
    a.nop()  # 5
    a.op("add", "o0", "v0", "r0")  # 6: joined
    a.op("add", "r1", "c3", "r1")  # 7
    a.end()  # 8
    return a.program()


UNIFORMS = {"c0": [0.0] * 4, "c1": [10.0] * 4, "c2": [20.0] * 4, "c3": ONES}


def test_lanes_take_their_own_branch_and_reconverge(small_chunks):
    v0 = np.array([[-1, 2, 3, 4], [5, 6, 7, 8], [-9, 1, 1, 1]] * 7, dtype=float)
    result = run(divergent_if(), {"v0": v0}, uniforms=UNIFORMS, engine="batch", registers=True)
    assert_same(result.outputs["o0"], v0 + np.where(v0[:, :1] < 0, 10, 20))
    assert result.temporaries["r1"][:, 0].tolist() == [1.0] * len(v0)
    # then: cmp, ifc, mov, nop, add, add, end = 7; else: cmp, ifc, mov, nop, add, add, end
    assert result.steps.tolist() == [7] * len(v0)


def test_reconverged_lanes_execute_together(monkeypatch):
    executed = []
    real = batch_runner.execute

    def spy(ins, group, ctx):
        executed.append((ins.pc, group.file.count))
        real(ins, group, ctx)

    monkeypatch.setattr(batch_runner, "execute", spy)
    v0 = np.array([[-1, 0, 0, 0], [1, 0, 0, 0]] * 32, dtype=float)
    run(divergent_if(), {"v0": v0}, uniforms=UNIFORMS, engine="batch", registers=True)
    assert sorted(executed) == sorted([(0, 64), (2, 32), (4, 32), (6, 64), (7, 64)])


def test_uniform_control_flow_is_one_group(monkeypatch):
    splits = []
    real = batch.Runner._flow

    def spy(self, ins, group):
        parts = real(self, ins, group)
        splits.append(len(parts))
        return parts

    monkeypatch.setattr(batch.Runner, "_flow", spy)
    v0 = np.ones((100, 4))
    result = run(divergent_if(), {"v0": v0}, uniforms=UNIFORMS, engine="batch", registers=True)
    assert splits == [1]
    assert_same(result.outputs["o0"], v0 + 20)


def breaking_loop():
    """Up to 10 iterations of r0 += 1, leaving when r0.x >= v0.x; aL counts with step 2."""
    a = Asm()
    a.flow("loop", dst=4, id=0)  # 0: i0 = (9, 0, 2)
    a.op("add", "r0", "c0", "r0")  # 1
    a.op("cmp", None, "r0", "v0", cmpx=CompareOp.GE, cmpy=CompareOp.GE)  # 2
    a.flow("breakc", condop=CondOp.X, refx=1)  # 3
    a.nop()  # 4: last of the body
    a.op("mov", "o0", "r0")  # 5
    a.end()  # 6
    return a.program()


def test_loops_left_at_different_iterations(small_chunks):
    limits = np.array([3, 1, 12, 7, 10, 2, 5, 11, 4] * 3)
    v0 = np.zeros((len(limits), 4))
    v0[:, 0] = limits
    result = run(breaking_loop(), {"v0": v0}, uniforms={"c0": ONES, "i0": [9, 0, 2, 0]},
                 engine="batch", registers=True)
    iterations = np.minimum(limits, 10)
    assert result.outputs["o0"][:, 0].tolist() == iterations.tolist()
    broke = limits <= 10
    # per iteration 4 instructions, the breaking one 3; LOOP, MOV, END
    steps = 4 * iterations - broke + 3
    assert result.steps.tolist() == steps.tolist()
    # aL = 0, then + 2 after every iteration, also on the break (notes §5.3)
    assert result.address[:, 2].tolist() == (2 * iterations).tolist()


def test_max_steps_stops_the_lowest_lane_that_runs_too_long(small_chunks):
    limits = np.array([2, 3, 10, 2, 10, 1] * 4)
    v0 = np.zeros((len(limits), 4))
    v0[:, 0] = limits
    with pytest.raises(ShaderHang, match=r"max_steps=30 .*\(vertex 2\)") as info:
        run(breaking_loop(), {"v0": v0}, uniforms={"c0": ONES, "i0": [9, 0, 2, 0]},
            engine="batch", max_steps=30, registers=True)
    # lane 2 runs 4 * 10 + 3 = 43 instructions; the 31st is at pc 2 of iteration 8
    assert info.value.pc == 2


def test_the_lowest_failing_lane_is_reported(small_chunks):
    """Lane 9 breaks outside a loop (a hang), lane 13 reads c[a0.x] with a0.x = 50, a
    uniform that was not given; later lanes would fail too.  The reference engine runs
    lanes in order, so lane 9's hang is the error."""
    a = Asm()
    a.op("mova", "a0.x", "v0")  # 0
    a.op("mov", "r0", "c0", idx=1)  # 1: c[a0.x]
    a.op("cmp", None, "c1", "v1", cmpx=CompareOp.EQ, cmpy=CompareOp.EQ)  # 2: v1.x == 1
    a.flow("breakc", condop=CondOp.X, refx=1)  # 3
    a.end()  # 4
    v0 = np.zeros((40, 4))
    v1 = np.zeros((40, 4))
    v0[13:, 0] = 50
    v1[9, 0] = v1[20:, 0] = 1
    uniforms = {"c0": ONES, "c1": ONES}
    with pytest.raises(ShaderHang, match=r"BREAK with an empty LOOP stack \(vertex 9\)"):
        run(a.program(), {"v0": v0, "v1": v1}, uniforms=uniforms, engine="batch", registers=True)
    v1[9, 0] = 0
    with pytest.raises(InputError, match="float uniform c50 is read at pc 0x001"):
        run(a.program(), {"v0": v0, "v1": v1}, uniforms=uniforms, engine="batch", registers=True)


def test_relative_addressing_per_lane(small_chunks):
    a = Asm()
    a.op("mova", "a0.xy", "v0")
    a.op("mov", "o0", "c10", idx=1)  # c[10 + a0.x]
    a.op("mov", "o1", "c10", idx=2)  # c[10 + a0.y]
    a.end()
    table = {f"c{k}": [float(k)] * 4 for k in range(96)}
    v0 = np.array([[k % 7, (3 * k) % 11 - 5, 0, 0] for k in range(30)], dtype=float)
    result = run(a.program(), {"v0": v0}, uniforms=table, engine="batch", registers=True)
    assert result.outputs["o0"][:, 0].tolist() == (10 + v0[:, 0]).tolist()
    assert result.outputs["o1"][:, 0].tolist() == (10 + v0[:, 1]).tolist()


def test_per_lane_calls(small_chunks):
    a = Asm()
    a.op("cmp", None, "c0", "v0", cmpx=CompareOp.LT, cmpy=CompareOp.LT)  # 0: 0 < v0.x
    a.flow("callc", dst=4, num=2, condop=CondOp.X, refx=1)  # 1
    a.op("add", "o0", "c1", "r0")  # 2: o0 = 1 + r0
    a.end()  # 3
    a.op("mov", "r0", "v0")  # 4: procedure
    a.op("add", "r0", "r0", "r0")  # 5
    v0 = np.array([[k - 10.0, 0, 0, 0] for k in range(25)])
    result = run(a.program(), {"v0": v0}, uniforms={"c0": [0.0] * 4, "c1": ONES},
                 engine="batch", registers=True)
    called = v0[:, 0] > 0
    assert result.outputs["o0"][:, 0].tolist() == np.where(called, 1 + 2 * v0[:, 0],
                                                           1).tolist()
    assert result.steps.tolist() == np.where(called, 6, 4).tolist()


@pytest.mark.parametrize("compact_below", [0.0, 2.0])
def test_shared_and_compact_groups_agree_with_the_reference(monkeypatch, compact_below):
    """Random divergent programs with groups always kept as masks of the chunk's store
    (0) or always given stores of their own (2), on small chunks and two threads."""
    import differential

    monkeypatch.setattr(batch_lanes, "COMPACT_BELOW", compact_below)
    monkeypatch.setattr(batch, "CHUNK_LANES", 24)
    monkeypatch.setenv("GPUISA_THREADS", "2")
    with np.errstate(all="ignore"):
        for seed in range(60):
            assert differential.difference(differential.case(seed), "batch") is None, seed


def test_steps_and_initial_al_per_lane():
    """The engine entry point takes any per-lane initial state, aL included."""
    a = Asm()
    a.op("mov", "o0", "c0", idx=3)  # c[aL]
    a.end()
    exe = api.executable(a.program())
    state = api.initial_state(exe, {"v0": np.zeros((6, 4))},
                              uniforms={f"c{k}": [float(k)] * 4 for k in range(96)},
                              precision="f24")
    state.address[2] = [0, 5, 5, 9, 0, 1]
    steps = batch.run_batch(exe.program, state, 0, precision="f24", max_steps=10)
    assert steps.tolist() == [2] * 6
    assert state.outputs[0][0][0].tolist() == [0, 5, 5, 9, 0, 1]


def test_prepared_programs_are_cached():
    program = divergent_if()
    first = prepared(decode_program(program))
    assert prepared(decode_program(program)) is first
    assert prepared(decode_program(breaking_loop())) is not first
    assert first.inputs == (0,) and first.temporaries == (0, 1) and first.outputs == (0,)


def test_auto_chooses_by_size(monkeypatch):
    assert api.choose_engine("auto", 1) == "reference"
    assert api.choose_engine("auto", api.AUTO_MIN_LANES) == "batch"
    assert api.choose_engine("batch", 1) == "batch"
    monkeypatch.setitem(api.ENGINES, "fast", batch.run_batch)
    monkeypatch.setattr(api, "AUTO_PREFERRED", {"fast": ("gpuisa", 1000)})
    assert api.choose_engine("auto", 999) == "batch"
    assert api.choose_engine("auto", 1000) == "fast"
    # A preferred engine with nothing to compile first is chosen for any input size.
    assert api.choose_engine("auto", 1, lambda name: name == "fast") == "fast"
    assert api.choose_engine("auto", 1, lambda name: False) == "reference"
    monkeypatch.setattr(api, "AUTO_PREFERRED", {"missing": ("no.such.module", 1)})
    assert api.choose_engine("auto", 10) == "batch"
    with pytest.raises(InputError, match="reserved"):
        api.register_engine("auto", batch.run_batch)
