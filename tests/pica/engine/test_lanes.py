"""Many lanes at once on every engine: lanes that take their own branches, leave loops
at different iterations, call per lane and address uniforms per lane; which lane's error
is reported; float24 ADD/MUL rounding on many lanes against exact rational arithmetic;
the NaN an operation returns; geometry feeds whose invocations depend on each other or
not.

Expected values are worked out by hand from each lane's inputs (small integers, exact in
float24), from 3dbrew's SETEMIT/EMIT rows and pica-emulation.md#geometry, or from exact fractions.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from engine_kit import Asm, assert_same
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpuisa.errors import InputError, ShaderFault, ShaderHang
from gpuisa.pica.engine import api, run
from gpuisa.pica.isa import CompareOp, CondOp
from gpuisa.pica.shbin import Dvle, OutputEntry, OutputSemantic, ShaderType, Shbin

ONES = [1.0, 1.0, 1.0, 1.0]
POS = OutputSemantic.POSITION


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


def test_lanes_take_their_own_branch_and_reconverge(engine):
    v0 = np.array([[-1, 2, 3, 4], [5, 6, 7, 8], [-9, 1, 1, 1]] * 7, dtype=float)
    result = run(divergent_if(), {"v0": v0}, uniforms=UNIFORMS, engine=engine, registers=True)
    assert_same(result.outputs["o0"], v0 + np.where(v0[:, :1] < 0, 10, 20))
    assert result.temporaries["r1"][:, 0].tolist() == [1.0] * len(v0)
    # then: cmp, ifc, mov, nop, add, add, end = 7; else: cmp, ifc, mov, nop, add, add, end
    assert result.steps.tolist() == [7] * len(v0)


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


def test_loops_left_at_different_iterations(engine):
    limits = np.array([3, 1, 12, 7, 10, 2, 5, 11, 4] * 3)
    v0 = np.zeros((len(limits), 4))
    v0[:, 0] = limits
    result = run(breaking_loop(), {"v0": v0}, uniforms={"c0": ONES, "i0": [9, 0, 2, 0]},
                 engine=engine, registers=True)
    iterations = np.minimum(limits, 10)
    assert result.outputs["o0"][:, 0].tolist() == iterations.tolist()
    broke = limits <= 10
    # per iteration 4 instructions, the breaking one 3; LOOP, MOV, END
    steps = 4 * iterations - broke + 3
    assert result.steps.tolist() == steps.tolist()
    # aL = 0, then + 2 after every iteration, also on the break (pica-emulation.md#flow-check)
    assert result.address[:, 2].tolist() == (2 * iterations).tolist()


def test_max_steps_stops_the_lowest_lane_that_runs_too_long(engine):
    limits = np.array([2, 3, 10, 2, 10, 1] * 4)
    v0 = np.zeros((len(limits), 4))
    v0[:, 0] = limits
    with pytest.raises(ShaderHang, match=r"max_steps=30 .*\(vertex 2\)") as info:
        run(breaking_loop(), {"v0": v0}, uniforms={"c0": ONES, "i0": [9, 0, 2, 0]},
            engine=engine, max_steps=30, registers=True)
    # lane 2 runs 4 * 10 + 3 = 43 instructions; the 31st is at pc 2 of iteration 8
    assert info.value.pc == 2


def test_the_lowest_failing_lane_is_reported(engine):
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
        run(a.program(), {"v0": v0, "v1": v1}, uniforms=uniforms, engine=engine, registers=True)
    v1[9, 0] = 0
    with pytest.raises(InputError, match="float uniform c50 is read at pc 0x001"):
        run(a.program(), {"v0": v0, "v1": v1}, uniforms=uniforms, engine=engine, registers=True)


def test_relative_addressing_per_lane(engine):
    a = Asm()
    a.op("mova", "a0.xy", "v0")
    a.op("mov", "o0", "c10", idx=1)  # c[10 + a0.x]
    a.op("mov", "o1", "c10", idx=2)  # c[10 + a0.y]
    a.end()
    table = {f"c{k}": [float(k)] * 4 for k in range(96)}
    v0 = np.array([[k % 7, (3 * k) % 11 - 5, 0, 0] for k in range(30)], dtype=float)
    result = run(a.program(), {"v0": v0}, uniforms=table, engine=engine, registers=True)
    assert result.outputs["o0"][:, 0].tolist() == (10 + v0[:, 0]).tolist()
    assert result.outputs["o1"][:, 0].tolist() == (10 + v0[:, 1]).tolist()


def test_per_lane_calls(engine):
    a = Asm()
    a.op("cmp", None, "c0", "v0", cmpx=CompareOp.LT, cmpy=CompareOp.LT)  # 0: 0 < v0.x
    a.flow("callc", dst=4, num=2, condop=CondOp.X, refx=1)  # 1
    a.op("add", "o0", "c1", "r0")  # 2: o0 = 1 + r0
    a.end()  # 3
    a.op("mov", "r0", "v0")  # 4: procedure
    a.op("add", "r0", "r0", "r0")  # 5
    v0 = np.array([[k - 10.0, 0, 0, 0] for k in range(25)])
    result = run(a.program(), {"v0": v0}, uniforms={"c0": [0.0] * 4, "c1": ONES},
                 engine=engine, registers=True)
    called = v0[:, 0] > 0
    assert result.outputs["o0"][:, 0].tolist() == np.where(called, 1 + 2 * v0[:, 0],
                                                           1).tolist()
    assert result.steps.tolist() == np.where(called, 6, 4).tolist()


def test_steps_and_initial_al_per_lane(engine):
    """The engine entry point takes any per-lane initial state, aL included."""
    a = Asm()
    a.op("mov", "o0", "c0", idx=3)  # c[aL]
    a.end()
    exe = api.executable(a.program())
    state = api.initial_state(exe, {"v0": np.zeros((6, 4))},
                              uniforms={f"c{k}": [float(k)] * 4 for k in range(96)},
                              precision="f24")
    state.address[2] = [0, 5, 5, 9, 0, 1]
    steps = api.ENGINES[engine](exe.program, state, 0, precision="f24", max_steps=10)
    assert steps.tolist() == [2] * 6
    assert state.outputs[0][0][0].tolist() == [0, 5, 5, 9, 0, 1]


# -- float24 ADD and MUL on many lanes --------------------------------------------------------

# A normal float24 value (sign, exponent 1..126, mantissa) or zero, decoded by hand:
# (-1)^s * (1 + m / 2^16) * 2^(e - 63).
f24_values = st.one_of(
    st.just(Fraction(0)),
    st.builds(lambda s, e, m: (-1) ** s * (1 + Fraction(m, 2**16)) * Fraction(2) ** (e - 63),
              st.integers(0, 1), st.integers(1, 126), st.integers(0, 0xFFFF)),
    # values near each other, so that sums cancel and round at every position
    st.builds(lambda s, e, m: (-1) ** s * (1 + Fraction(m, 2**16)) * Fraction(2) ** (e - 63),
              st.integers(0, 1), st.integers(60, 66), st.integers(0, 0xFFFF)),
)


def f24_round(q: Fraction) -> float:
    """Exact value q rounded to float24: 17 significant bits, ties to even, flushed below
    2^-62, infinite from 2^64."""
    if q == 0:
        return 0.0
    sign, a = (-1 if q < 0 else 1), abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    while Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    value = round(a / Fraction(2) ** (e - 16)) * Fraction(2) ** (e - 16)  # half to even
    if value >= Fraction(2) ** 64:
        return sign * math.inf
    if value < Fraction(2) ** -62:
        return 0.0
    return float(sign * value)


def add_and_mul():
    a = Asm()
    a.op("add", "o0", "v0", "v1")
    a.op("mul", "o1", "v0", "v1")
    a.end()
    return a.program()


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # engine: a name
@given(pairs=st.lists(st.tuples(f24_values, f24_values), min_size=1, max_size=40))
def test_f24_add_and_mul_are_correctly_rounded(engine, pairs):
    v0 = np.array([[float(x)] * 4 for x, _ in pairs], dtype=np.float32)
    v1 = np.array([[float(y)] * 4 for _, y in pairs], dtype=np.float32)
    result = run(add_and_mul(), {"v0": v0, "v1": v1}, engine=engine)
    for register, exact in (("o0", lambda x, y: x + y), ("o1", lambda x, y: x * y)):
        want = np.array([[f24_round(exact(x, y))] * 4 for x, y in pairs], dtype=np.float32)
        got = result.outputs[register]
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), (pairs, got, want)


@pytest.mark.parametrize("lanes", [1, 3, 100])
def test_the_first_nan_operand_wins_quieted_on_every_lane(engine, lanes):
    """f32 mode keeps NaN payloads: ADD and MUL of two NaNs give the first operand with
    its quiet bit set (pica-emulation.md#mul: what an x86 FPU does), whatever the number of
    lanes."""
    signalling = np.uint32(0x7F800080).view(np.float32)  # payload 0x80, quiet bit clear
    quiet = np.uint32(0xFFC12300).view(np.float32)
    v0 = np.full((lanes, 4), signalling, np.float32)
    v1 = np.full((lanes, 4), quiet, np.float32)
    forward = run(add_and_mul(), {"v0": v0, "v1": v1}, precision="f32", engine=engine)
    backward = run(add_and_mul(), {"v0": v1, "v1": v0}, precision="f32", engine=engine)
    for register in ("o0", "o1"):
        assert set(forward.outputs[register].view(np.uint32).ravel().tolist()) == {0x7FC00080}
        assert set(backward.outputs[register].view(np.uint32).ravel().tolist()) == {0xFFC12300}


# -- geometry feeds -----------------------------------------------------------------------------


def gs_shbin(a, registers=(0,)):
    outputs = tuple(OutputEntry(POS, r) for r in registers)
    return Shbin(a.program(), (Dvle(ShaderType.GEOMETRY, 0, len(a.code), outputs=outputs),))


def quads():
    """Each invocation emits v0 + (0, 0), (1, 0), (0, 1), (1, 1) as two triangles."""
    a = Asm()
    for k in range(4):
        a.flow("setemit", vtxid=k % 3, primemit=int(k >= 2), winding=int(k == 3))
        a.op("add", "o0", f"c{k}", "v0")
        a.flow("emit")
    a.end()
    return gs_shbin(a)


CORNERS = {f"c{k}": [dx, dy, 0, 0] for k, (dx, dy) in enumerate(((0, 0), (1, 0), (0, 1),
                                                                  (1, 1)))}


def test_independent_invocations_emit_a_quad_each(engine):
    points = np.array([[10 * k, 20 * k, 0, 1] for k in range(40)], dtype=float)
    result = run(quads(), {"v0": points}, uniforms=CORNERS, engine=engine, registers=True)
    corners = np.array([[0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 1, 0, 0]])
    assert_same(result.vertices["o0"], (points[:, None, :] + corners).reshape(-1, 4))
    # per invocation: entries (0, 1, 2) after the third EMIT; the fourth goes to entry 0
    # and is wound the other way: (3, 1, 2) reversed
    base = 4 * np.arange(40)[:, None, None]
    expected = (base + np.array([[0, 1, 2], [2, 1, 3]])).reshape(-1, 3)
    assert result.primitives.tolist() == expected.tolist()
    assert result.windings.tolist() == [False, True] * 40


def test_a_value_carried_from_invocation_to_invocation(engine):
    """r0 += v0 in every invocation: each one depends on the one before."""
    a = Asm()
    a.op("add", "r0", "v0", "r0")
    a.op("mov", "o0", "r0")
    a.flow("setemit", vtxid=0)
    a.flow("emit")
    a.end()
    v0 = np.array([[k, 1, 0, 0] for k in range(12)], dtype=float)
    result = run(gs_shbin(a), {"v0": v0}, engine=engine, registers=True)
    totals = np.cumsum(v0, axis=0)
    assert_same(result.temporaries["r0"], totals)
    assert_same(result.vertices["o0"], totals)


def test_bank_parity_decides_what_later_emits_copy(engine):
    """One EMIT per invocation flips the output bank each time (pica-emulation.md#output-banks).  o1
    is written only in the first invocation (b15 false), into bank 0; later EMITs copy o1
    from the bank the invocation starts in: 100 from bank 0, 0 from bank 1."""
    a = Asm()
    a.flow("jmpu", dst=2, num=0, id=15)  # 0: b15 true: skip the write
    a.op("mov", "o1", "v0")  # 1
    a.op("mov", "o0", "v0")  # 2
    a.flow("setemit", vtxid=0)  # 3
    a.flow("emit")  # 4
    a.end()  # 5
    v0 = np.array([[k, 0, 0, 0] for k in range(8)], dtype=float)
    v0[0, 0] = 100
    result = run(gs_shbin(a, (0, 1)), {"v0": v0}, uniforms={"b15": False}, engine=engine,
        registers=True)
    assert_same(result.vertices["o0"], v0)
    assert result.vertices["o1"][:, 0].tolist() == [100, 0, 100, 0, 100, 0, 100, 0]


def test_a_primitive_with_an_unwritten_entry_in_a_later_invocation_faults(engine):
    a = Asm()
    a.flow("jmpu", dst=4, num=0, id=15)  # 0: b15 true (later invocations): to 4
    a.flow("setemit", vtxid=0)  # 1
    a.flow("emit")  # 2
    a.end()  # 3
    a.flow("setemit", vtxid=1, primemit=1)  # 4: entry 2 was never written
    a.flow("emit")  # 5
    a.end()  # 6
    with pytest.raises(ShaderFault, match="entry 2") as info:
        run(gs_shbin(a), {"v0": np.zeros((5, 4))}, uniforms={"b15": False}, engine=engine,
            registers=True)
    assert info.value.pc == 5
