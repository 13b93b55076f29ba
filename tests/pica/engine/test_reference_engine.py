"""The reference engine's own pieces, with values by hand: the float32 <-> Python float
conversion that keeps NaN payloads, registers it converts and writes back, the
emission record, the stack text of ``pica trace``."""

import numpy as np
import pytest
from engine_kit import Asm

from gpuisa.errors import ShaderFault
from gpuisa.pica.engine import run
from gpuisa.pica.engine.decode import decode_program
from gpuisa.pica.engine.reference.emitter import Emitter
from gpuisa.pica.engine.reference.lanes import Lane
from gpuisa.pica.engine.reference.plan import plan_for
from gpuisa.pica.engine.reference.values import narrow, widen
from gpuisa.pica.engine.rules.primitives import f64_bits
from gpuisa.pica.engine.trace import describe, describe_stacks
from gpuisa.pica.flow import stacks


def f32(*patterns):
    return np.array(patterns, dtype=np.uint32).view(np.float32)


def test_widen_keeps_signalling_nans_and_narrow_inverts_it():
    values = f32(0x7F800001, 0xFFC00002, 0x3F800000, 0x80000000, 0x00000001, 0x7F800000)
    wide = widen(values)
    assert [f64_bits(x) for x in wide.tolist()] == [
        0x7FF0000020000000,  # signalling: mantissa 1 << 29, quiet bit clear
        0xFFF8000040000000,  # quiet, payload 2
        0x3FF0000000000000, 0x8000000000000000,
        0x36A0000000000000,  # 2^-149
        0x7FF0000000000000]
    assert narrow(wide).view(np.uint32).tolist() == values.view(np.uint32).tolist()


@pytest.mark.parametrize("precision", ["f24", "f32"])
def test_mov_max_min_pass_a_signalling_nan_unchanged(precision):
    a = Asm()
    a.op("mov", "o0", "v0")
    a.op("max", "o1", "v1", "v0")  # v1 > NaN is false: the NaN (SRC2)
    a.op("min", "o2", "v1", "v0")
    a.end()
    nan = f32(0x7F800080)  # a float24 NaN pattern too (payload bit 7)
    inputs = {"v0": np.repeat(nan, 4)[None], "v1": np.ones((1, 4), np.float32)}
    result = run(a.program(), inputs, engine="reference", precision=precision)
    for name in ("o0", "o1", "o2"):
        assert result.outputs[name].view(np.uint32).tolist() == [[0x7F800080] * 4], name


def test_only_written_registers_are_written_back():
    a = Asm()
    a.op("add", "r3", "v0", "v0")
    a.op("mov", "o0", "r3")
    a.end()
    program = decode_program(a.program())
    plan = plan_for(program, "f24")
    assert plan.written == {("r", 3), ("o", 0)}
    assert plan.used == {("r", 3), ("o", 0), ("v", 0)}
    assert not plan.address and not plan.flags and not plan.geometry
    assert plan_for(program, "f24") is plan
    result = run(a.program(), {"v0": [[1.5, -2, 0, 3]]}, engine="reference",
                 registers=True)
    assert result.outputs["o0"].tolist() == [[3.0, -4.0, 0.0, 6.0]]
    assert result.temporaries["r3"].tolist() == [[3.0, -4.0, 0.0, 6.0]]
    assert result.temporaries["r0"].tolist() == [[0.0, 0.0, 0.0, 0.0]]


def _lane(bank0, bank1=None):
    zeros = [[0.0] * 4 for _ in range(16)]
    banks = ([list(r) for r in bank0] + zeros[len(bank0):],
             [list(r) for r in bank1 or []] + zeros[len(bank1 or []):])
    return Lane([None] * 16, zeros, banks, 0, [0, 0, 0], [False, False])


def test_emitter_banks_triangles_and_winding():
    emitter = Emitter((0, 2))
    lane = _lane([[1, 1, 1, 1], [9, 9, 9, 9], [2, 2, 2, 2]],
                 [[3, 3, 3, 3], [9, 9, 9, 9], [4, 4, 4, 4]])
    for vertex_id in (0, 1):
        emitter.setemit(vertex_id, False, False)
        emitter.emit(lane, 0x10)
    assert lane.bank == 0  # flipped twice
    emitter.setemit(2, True, True)
    emitter.emit(lane, 0x11)
    assert emitter.primitives == [(2, 1, 0)] and emitter.windings == [True]
    assert lane.bank == 1
    assert [v.tolist() for v in emitter.vertices] == [
        [[1, 1, 1, 1], [2, 2, 2, 2]], [[3, 3, 3, 3], [4, 4, 4, 4]],
        [[1, 1, 1, 1], [2, 2, 2, 2]]]


def test_emitting_a_primitive_before_its_vertices_faults():
    emitter = Emitter(())
    lane = _lane([])
    emitter.setemit(0, True, False)
    with pytest.raises(ShaderFault, match="vertex buffer entry 1 never written"):
        emitter.emit(lane, 0x20)
    assert lane.bank == 0  # no flip on the fault


def test_describe_stacks():
    ifs, calls, loops = stacks.new_stacks()
    n_if = stacks.push_if(ifs, 0, 0x10, 0x14)
    n_if = stacks.push_if(ifs, n_if, 0x12, 0x13)
    n_loop = stacks.push_loop(loops, 0, 0x31, 0x2A, 3, 2, 0)
    assert describe_stacks((ifs, 0, calls, 0, loops, 0)) == "-"
    assert describe_stacks((ifs, n_if, calls, 0, loops, n_loop)) == (
        "IF 010>014 012>013 | LOOP 031>02A n=3 +2")
    n_call = stacks.push_call(calls, 0, 0x40, 0x05)
    assert describe_stacks((ifs, 0, calls, n_call, loops, 0)) == "CALL 040>005"


def test_lanes_run_in_blocks_and_every_block_is_written_back():
    a = Asm()
    a.op("add", "o0", "v0", "v0")
    a.op("mova", "a0.x", "v0")
    a.end()
    lanes = 9000  # more than two blocks of 4096
    values = np.arange(lanes * 4, dtype=np.float32).reshape(lanes, 4) - 100
    result = run(a.program(), {"v0": values}, engine="reference", registers=True)
    assert np.array_equal(result.outputs["o0"], 2 * values)
    assert result.address[:, 0].tolist() == values[:, 0].astype(int).tolist()


def test_flow_instruction_text():
    """``pica trace``'s text of each flow instruction (picasso syntax), by hand."""
    a = Asm()
    a.flow("break")
    a.flow("breakc", condop=2, refx=1, refy=1)
    a.flow("call", dst=0x10, num=2)
    a.flow("callc", condop=1, refx=1, refy=0, dst=0x11, num=3)
    a.flow("callu", id=4, dst=0x12, num=1)
    a.flow("ifu", id=5, dst=0x13, num=0)
    a.flow("ifc", condop=0, refx=0, refy=1, dst=0x14, num=2)
    a.flow("loop", id=6, dst=0x15)
    a.flow("jmpc", condop=3, refx=1, refy=0, dst=0x16)
    a.flow("jmpu", id=7, dst=0x17, num=1)
    a.flow("jmpu", id=8, dst=0x18, num=0)
    a.flow("ifc", condop=2, refx=1, refy=0, dst=0x19, num=1)  # not picasso's encoding
    program = decode_program(a.program())
    assert [describe(step, ()) for step in program.steps] == [
        "break", "breakc cmp.x", "call 0x010, 2", "callc cmp.x && !cmp.y, 0x011, 3",
        "callu b4, 0x012, 1", "ifu b5, 0x013, 0", "ifc !cmp.x || cmp.y, 0x014, 2",
        "loop i2, 0x015", "jmpc !cmp.y, 0x016", "jmpu !b7, 0x017", "jmpu b8, 0x018",
        "ifc condop=2 refx=1 refy=0, 0x019, 1"]
