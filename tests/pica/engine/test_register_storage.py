"""Register storage: one lazily allocated lane-major array per register, the caller's
float32 inputs used in place, and results that cost no memory for what a run never used.

Expected values are the inputs themselves (MOV/ADD of exact small values) or zeros (the
registers' initial contents, pica-emulation.md#initial-state): nothing here depends on gpuisa's
arithmetic.
"""

import threading

import numpy as np
import pytest
from engine_kit import Asm

from gpuisa.pica.engine import api, memory, run
from gpuisa.pica.engine.state import RegisterFile
from gpuisa.pica.isa import CompareOp, CondOp

LANES = 1000


def copy_program():
    """o0 = v0; o1.xy = v0 + v0."""
    a = Asm()
    a.op("mov", "o0", "v0")
    a.op("add", "o1.xy", "v0", "v0")
    a.end()
    return a.program()


def positions(lanes: int = LANES) -> np.ndarray:
    rng = np.random.default_rng(7)
    return rng.integers(-1000, 1000, (lanes, 4)).astype(np.float32)


def test_registers_are_allocated_when_first_used():
    registers = RegisterFile(16, 5)
    assert not any(registers.allocated(n) for n in range(16))
    registers[3][1] = 2.0  # row y of r3, all lanes
    assert [n for n in range(16) if registers.allocated(n)] == [3]
    assert registers.storage(3).shape == (5, 4)
    assert registers.storage(3)[:, 1].tolist() == [2.0] * 5
    assert registers.storage(3)[:, [0, 2, 3]].tolist() == [[0.0] * 3] * 5


def test_never_used_registers_read_as_read_only_zeros_without_allocation():
    registers = RegisterFile(16, 10**7)  # 160 MB per register if it were allocated
    zeros = registers.result(0)
    assert zeros.shape == (10**7, 4) and not zeros.flags.writeable
    assert zeros[[0, -1]].tolist() == [[0.0] * 4] * 2
    assert not registers.allocated(0)


def test_lanes_are_taken_and_put_back_register_by_register():
    registers = RegisterFile(16, 6)
    registers.storage(2)[:] = np.arange(24, dtype=np.float32).reshape(6, 4)
    one = registers.take(slice(4, 5))
    assert one.lanes == 1 and one.storage(2).tolist() == [[16.0, 17.0, 18.0, 19.0]]
    assert not one.allocated(0)
    one.storage(2)[0, 0] = -1.0
    one.storage(7)[0, 3] = 5.0
    registers.put(slice(1, 2), one)
    assert registers.storage(2)[1].tolist() == [-1.0, 17.0, 18.0, 19.0]
    assert registers.storage(7)[:, 3].tolist() == [0.0, 5.0, 0.0, 0.0, 0.0, 0.0]
    stacked = registers.stacked()
    assert stacked.shape == (16, 4, 6)
    assert stacked[2, :, 0].tolist() == [0.0, 1.0, 2.0, 3.0]
    assert not stacked[0].any()


def test_threads_that_allocate_the_same_register_share_one_array():
    """Engines run chunks of lanes on several threads; two threads allocating one
    register at once must not each get an array of their own (one's writes would be
    lost)."""
    for _ in range(50):
        registers = RegisterFile(16, 64)
        start = threading.Barrier(4)
        seen = []

        def allocate(registers=registers, start=start, seen=seen):
            start.wait()
            seen.append(registers.storage(5))

        threads = [threading.Thread(target=allocate) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert all(array is seen[0] for array in seen)


def test_float32_inputs_are_used_in_place_in_f32_mode():
    v0 = positions()
    exe = api.executable(copy_program())
    state = api.initial_state(exe, {"v0": v0}, uniforms=None, precision="f32")
    stored = state.inputs.storage(0)
    assert np.shares_memory(stored, v0)
    assert not stored.flags.writeable  # nothing can write into the caller's array
    assert v0.flags.writeable  # ... which itself stays as it was


@pytest.mark.parametrize("precision, values", [
    ("f24", positions()),  # float24 rounding makes new values
    ("f32", positions().astype(np.float64)),  # converted to float32
    ("f32", np.asfortranarray(positions())),  # not lane-major
    ("f32", positions(2 * LANES)[::2]),  # strided
])
def test_inputs_that_need_converting_are_copied(precision, values):
    exe = api.executable(copy_program())
    state = api.initial_state(exe, {"v0": values}, uniforms=None, precision=precision)
    assert not np.shares_memory(state.inputs.storage(0), values)
    assert state.inputs.storage(0).tolist() == np.asarray(values, np.float32).tolist()


def test_inputs_used_in_place_give_the_same_results_and_stay_unchanged(engine):
    v0 = positions()
    before = v0.copy()
    result = run(copy_program(), {"v0": v0}, precision="f32", engine=engine, registers=True)
    assert np.array_equal(v0, before)
    assert result.outputs["o0"].view(np.uint32).tolist() == v0.view(np.uint32).tolist()
    assert result.outputs["o1"][:, :2].tolist() == (2 * v0[:, :2]).tolist()
    assert not result.outputs["o1"][:, 2:].any()


def test_what_a_run_never_touched_reads_as_zeros(engine):
    result = run(copy_program(), {"v0": positions()}, precision="f32", engine=engine,
        registers=True)
    for name in ("o2", "o15"):
        assert result.outputs[name].shape == (LANES, 4) and not result.outputs[name].any()
    for name in ("r0", "r15"):
        assert result.temporaries[name].shape == (LANES, 4)
        assert not result.temporaries[name].any()
    assert result.address.shape == (LANES, 3) and not result.address.any()
    assert result.cmp.shape == (LANES, 2) and not result.cmp.any()
    assert result.steps.tolist() == [3] * LANES


def test_given_initial_registers_come_back_where_the_shader_left_them(engine):
    r7 = np.full((LANES, 4), -3.0, np.float32)
    result = run(copy_program(), {"v0": positions()}, precision="f32", engine=engine,
                 temporaries={"r7": r7}, address=(1, 2, 3), cmp=(True, False), registers=True)
    assert result.temporaries["r7"].tolist() == r7.tolist()
    assert result.address.tolist() == [[1, 2, 3]] * LANES
    assert result.cmp.tolist() == [[True, False]] * LANES


def partial_writes_program():
    """o0 written whole in two halves, o1 and r1 in part, r2 read before written."""
    a = Asm()
    a.op("mov", "o0.xy", "v0")
    a.op("mov", "o0.zw", "v0")
    a.op("mov", "o1.x", "v0")
    a.op("mov", "r1.x", "v0")
    a.op("add", "r2", "r2", "v0")
    a.op("mov", "o2", "r2")
    a.end()
    return a.program()


def test_registers_written_in_part_keep_zeros_in_the_rest(engine):
    v0 = positions()
    for _ in range(3):  # leave garbage in memory the allocator may hand out again
        garbage = np.full((LANES, 4), np.nan, np.float32)
        del garbage
    result = run(partial_writes_program(), {"v0": v0}, precision="f32", engine=engine,
        registers=True)
    assert result.outputs["o0"].tolist() == v0.tolist()
    assert result.outputs["o1"][:, 0].tolist() == v0[:, 0].tolist()
    assert not result.outputs["o1"][:, 1:].any()
    assert not result.temporaries["r1"][:, 1:].any()
    assert result.temporaries["r2"].tolist() == v0.tolist()  # 0 + v0 (exact integers)
    assert result.outputs["o2"].tolist() == v0.tolist()


@pytest.mark.parametrize("engine", ["reference", "jit"])
def test_recycled_memory_is_zero_where_a_run_does_not_write(engine):
    """Large registers come from recycled memory (engine.memory); blocks left full of
    NaNs by an earlier run must read as zeros where the next run writes nothing."""
    lanes = 2 * memory.MIN_POOLED_BYTES // 16
    nans = np.full((lanes, 4), np.nan, np.float32)
    for _ in range(2):  # every register, flag and address row of these runs: NaN / set
        run(partial_writes_program(), {"v0": nans}, precision="f32", engine=engine,
            temporaries={f"r{n}": nans for n in range(16)},
            outputs={f"o{n}": nans for n in range(16)}, address=(5, 6, 7),
            cmp=(True, True), registers=True)
    v0 = positions(lanes)
    result = run(partial_writes_program(), {"v0": v0}, precision="f32", engine=engine,
        registers=True)
    assert np.array_equal(result.outputs["o0"], v0)
    assert np.array_equal(result.outputs["o1"][:, 0], v0[:, 0])
    assert not result.outputs["o1"][:, 1:].any()
    assert not result.temporaries["r1"][:, 1:].any()
    assert np.array_equal(result.temporaries["r2"], v0)
    assert not result.address.any() and not result.cmp.any()


def forward_branch_program():
    """r0 = v0, r2.x = v0.x; lanes with v0.x < 0 skip r0 += c1; o0 = r0 + r1 (r1 only
    read: its initial value), o1 = r0."""
    a = Asm()
    a.op("mov", "r0", "v0")  # 0
    a.op("mov", "r2.x", "v0")  # 1
    a.op("cmp", None, "c0", "v0", cmpx=CompareOp.GT, cmpy=CompareOp.GT)  # 2: 0 > v0.x
    a.flow("jmpc", dst=5, condop=CondOp.X, refx=1)  # 3: the entry block ends here
    a.op("add", "r0", "c1", "r0")  # 4
    a.op("add", "o0", "r0", "r1")  # 5
    a.op("mov", "o1", "r0")  # 6
    a.end()  # 7
    return a.program()


@pytest.mark.parametrize("registers", [True, False])
def test_temporaries_nobody_sees_get_no_storage(registers, monkeypatch):
    """run(registers=False): the kernel is handed no storage for the temporaries the
    caller did not give (it stores nothing there); registers=True: every one it writes,
    with the values the program leaves.  The outputs are the same."""
    from gpuisa.pica.engine.compiled import nativerun

    handed = []
    original = nativerun.launch

    def spy(found, program, state, max_steps, parallel):
        outcome = original(found, program, state, max_steps, parallel)
        handed.append([state.temporaries.allocated(n) for n in range(3)])
        return outcome

    monkeypatch.setattr(nativerun, "launch", spy)
    v0 = np.array([[-1, 2, 3, 4], [5, 6, 7, 8], [-9, 1, 1, 1], [0, 0, 0, 0]] * 5, float)
    r1 = np.arange(len(v0) * 4, dtype=float).reshape(-1, 4)
    uniforms = {"c0": [0.0] * 4, "c1": [10.0] * 4}
    result = run(forward_branch_program(), {"v0": v0}, uniforms=uniforms, engine="jit",
                 temporaries={"r1": r1}, registers=registers)
    r0 = v0 + np.where(v0[:, :1] < 0, 0, 10)
    assert result.outputs["o0"].tolist() == (r0 + r1).tolist()
    assert result.outputs["o1"].tolist() == r0.tolist()
    assert handed == [[registers, True, registers]]  # r1: given
    if registers:
        assert result.temporaries["r0"].tolist() == r0.tolist()
        assert result.temporaries["r2"].tolist() == [[x, 0, 0, 0] for x in v0[:, 0]]
        assert result.temporaries["r1"].tolist() == r1.tolist()


def addressing_loop_program():
    """a0.x = v0.x; cmp.x = 0 > v0.x, cmp.y = 0 == v0.y; LOOP i0 with r0 += c[1 + a0.x];
    o0 = r0."""
    a = Asm()
    a.op("mova", "a0.x", "v0")  # 0
    a.op("cmp", None, "c0", "v0", cmpx=CompareOp.GT, cmpy=CompareOp.EQ)  # 1
    a.flow("loop", dst=3, id=0)  # 2
    a.op("add", "r0", "c1", "r0", idx=1)  # 3: c[1 + a0.x]
    a.op("mov", "o0", "r0")  # 4
    a.end()  # 5
    return a.program()


@pytest.mark.parametrize("registers", [True, False])
def test_address_registers_and_flags_nobody_sees_get_no_storage(registers, monkeypatch):
    """run(registers=False) from zero address registers and false flags: the kernel
    gets (and allocates) no storage for them; registers=True: they hold what the
    program leaves (a0.x = v0.x, the flags of the CMP, aL = 0 + (1 + 1) * 1 after a loop
    of two trips from y = 0 by z = 1).  Also from given, non-zero initial values (which
    are then loaded).  The outputs are the same: r0 = 2 * c[1 + a0.x]; a run of 1,200
    lanes, then of one lane."""
    from gpuisa.pica.engine.state import ShaderState

    allocated = []
    original = ShaderState._allocate

    def spy(self, name, width, dtype):
        allocated.append(name)
        return original(self, name, width, dtype)

    monkeypatch.setattr(ShaderState, "_allocate", spy)
    v0 = np.array([[0, 1, 0, 0], [1, 0, 0, 0], [2, 0, 0, 0], [1, 5, 0, 0]] * 300, float)
    uniforms = {"c0": [0.0] * 4, "c1": [1.0] * 4, "c2": [10.0] * 4, "c3": [100.0] * 4,
                "i0": [1, 0, 1, 0]}
    for rows, address in ((v0, (0, 0, 0)), (v0, (0, 7, 0)), (v0[2:3], (0, 0, 0)),
                          (v0[3:4], (0, 7, 0))):
        allocated.clear()
        result = run(addressing_loop_program(), {"v0": rows}, uniforms=uniforms,
                     engine="jit", registers=registers, address=address)
        expected = 2 * np.array([1.0, 10.0, 100.0])[rows[:, 0].astype(int)]
        assert result.outputs["o0"].tolist() == [[x] * 4 for x in expected]
        given = address != (0, 0, 0)
        assert ("_address" in allocated) is (registers or given)
        assert "_cmp" not in allocated or registers
        if registers:
            assert result.address.tolist() == [[x, address[1], 2] for x in rows[:, 0]]
            assert result.cmp.tolist() == [[x < 0, y == 0] for x, y, _, _ in rows]
