"""Every ALU opcode on ordinary values, the I-forms, CMP, LITP, MOVA, NOP/END and the
instructions that fault.  Expected values are computed by hand from 3dbrew's
instruction table ("Instructions", pica-isa.md#opcodes).  Unread source components hold NaN, so a
test fails if the engine reads a component the opcode does not use.
"""

import math

import pytest
from engine_kit import Asm, assert_same, one_op

from gpuisa.pica import Program
from gpuisa.pica.engine import ShaderFault, run

NAN = math.nan
INF = math.inf


def o0(result):
    return result.outputs["o0"][0]


def f24_round(x):
    """x rounded to 16 fraction bits, for 1 <= |x| < 2 (round half to even)."""
    return round(x * 2**16) / 2**16


@pytest.mark.parametrize(
    ("mnemonic", "c0", "v0", "expected"),
    [
        ("add", [1, 2, 3, 4], [0.5, -2, 1, -4], [1.5, 0, 4, 0]),
        ("mul", [1.5, -2, 3, 0.25], [2, 3, -1, 4], [3, -6, -3, 1]),
        ("dp3", [1, 2, 3, NAN], [4, 5, 6, NAN], [32] * 4),  # 4 + 10 + 18
        ("dp4", [1, 2, 3, 4], [5, 6, 7, 8], [70] * 4),  # 5 + 12 + 21 + 32
        ("dph", [1, 2, 3, NAN], [5, 6, 7, 8], [46] * 4),  # 5 + 12 + 21 + 8
        ("dst", [NAN, 2, 3, NAN], [NAN, 5, NAN, 7], [1, 10, 3, 7]),
        ("sge", [1, 2, NAN, -1], [1, 3, 0, -2], [1, 0, 0, 1]),
        ("slt", [1, 2, NAN, -1], [1, 3, 0, -2], [0, 1, 0, 0]),
        ("max", [1, -2, 3, -4], [0, 0, 5, -5], [1, 0, 5, -4]),
        ("min", [1, -2, 3, -4], [0, 0, 5, -5], [0, -2, 3, -5]),
    ],
)
def test_two_source_opcodes(engine, mnemonic, c0, v0, expected):
    assert_same(o0(one_op(engine, mnemonic, "o0", "c0", "v0", uniforms={"c0": c0},
                          inputs={"v0": v0})), expected)


@pytest.mark.parametrize(
    ("mnemonic", "x", "expected"),
    [
        ("rcp", 4.0, 0.25),
        ("rcp", -0.5, -2.0),
        ("rsq", 4.0, 0.5),
        ("rsq", 2.0, f24_round(math.sqrt(2)) / 2),  # 1/sqrt(2) = sqrt(2) / 2
        ("ex2", 3.0, 8.0),
        ("ex2", -1.0, 0.5),
        ("ex2", 0.5, f24_round(math.sqrt(2))),
        ("ex2", -INF, 0.0),
        ("ex2", 64.0, INF),  # 2^64 is beyond float24
        ("lg2", 8.0, 3.0),
        ("lg2", 0.5, -1.0),
        ("lg2", 0.0, -INF),
        ("lg2", -1.0, NAN),
        ("lg2", INF, INF),
    ],
)
def test_scalar_opcodes_read_x_and_write_every_component(engine, mnemonic, x, expected):
    result = one_op(engine, mnemonic, "o0", "c0", uniforms={"c0": [x, NAN, NAN, NAN]})
    assert_same(o0(result), [expected] * 4)


def test_flr(engine):
    result = one_op(engine, "flr", "o0", "c0", uniforms={"c0": [1.5, -1.5, -0.25, 0.75]})
    assert_same(o0(result), [1, -2, -1, 0])
    result = one_op(engine, "flr", "o0", "c0", uniforms={"c0": [INF, -INF, NAN, 3]})
    assert_same(o0(result), [INF, -INF, NAN, 3])


def test_mov_and_swizzles(engine):
    result = one_op(engine, "mov", "o0", "c0.wzyx", uniforms={"c0": [1, 2, 3, 4]})
    assert_same(o0(result), [4, 3, 2, 1])
    result = one_op(engine, "mov", "o0", "-c0.y", uniforms={"c0": [1, 2, 3, 4]})
    assert_same(o0(result), [-2, -2, -2, -2])


def test_mad(engine):
    result = one_op(engine, "mad", "o0", "v0", "c0", "-v1", uniforms={"c0": [1.5, -1, 0.5, 2]},
                    inputs={"v0": [2, 3, 4, 5], "v1": [-1, -1, -1, -1]})
    assert_same(o0(result), [4, -2, 3, 11])


def test_inverted_forms_compute_the_same_function(engine):
    """DPHI/DSTI/SGEI/SLTI/MADI: SRC1 narrow, the wide (uniform) operand is SRC2 or, for
    MADI, SRC3; the math is that of the plain form (pica-emulation.md#arithmetic)."""
    v0 = [1, 2, 3, NAN]
    c0 = [5, 6, 7, 8]
    assert_same(o0(one_op(engine, "dphi", "o0", "v0", "c0", uniforms={"c0": c0},
                          inputs={"v0": v0})), [46] * 4)
    assert_same(o0(one_op(engine, "dsti", "o0", "v0", "c0", uniforms={"c0": [NAN, 6, NAN, 8]},
                          inputs={"v0": [NAN, 2, 3, NAN]})), [1, 12, 3, 8])
    assert_same(o0(one_op(engine, "sgei", "o0", "v0", "c0", uniforms={"c0": [1, 3, 3, 0]},
                          inputs={"v0": [1, 2, 4, NAN]})), [1, 0, 1, 0])
    assert_same(o0(one_op(engine, "slti", "o0", "v0", "c0", uniforms={"c0": [1, 3, 3, 0]},
                          inputs={"v0": [1, 2, 4, NAN]})), [0, 1, 0, 0])
    assert_same(o0(one_op(engine, "madi", "o0", "v0", "v1", "c0", uniforms={"c0": [1, 1, 1, 1]},
                          inputs={"v0": [2, 3, 4, 5], "v1": [1.5, -1, 0.5, 2]})),
                [4, -2, 3, 11])


def test_destination_mask_and_masked_source_components(engine):
    """ADD o0.xz reads only x and z: NaN in y/w changes nothing, and o0.y/w keep their
    initial value."""
    a = Asm()
    a.op("add", "o0.xz", "c0", "v0")
    a.end()
    result = run(a.program(), {"v0": [1, NAN, 2, NAN]}, uniforms={"c0": [10, NAN, 20, NAN]},
                 outputs={"o0": [7, 7, 7, 7]}, engine=engine, registers=True)
    assert_same(o0(result), [11, 7, 22, 7])


def test_writes_go_to_temporaries_and_outputs(engine):
    a = Asm()
    a.op("mov", "r5.y", "c0")
    a.op("mov", "o15.w", "r5.y")
    a.end()
    result = run(a.program(), {}, uniforms={"c0": [1, 2, 3, 4]}, engine=engine, registers=True)
    assert_same(result.temporaries["r5"][0], [0, 2, 0, 0])
    assert_same(result.outputs["o15"][0], [0, 0, 0, 2])


# -- CMP and LITP --------------------------------------------------------------------------

PAIRS = [(1.0, 2.0), (2.0, 2.0), (3.0, 2.0), (NAN, 2.0)]  # less, equal, greater, NaN


@pytest.mark.parametrize(
    ("operator", "expected"),
    [
        (0, [False, True, False, False]),  # EQ
        (1, [True, False, True, True]),  # NE (NaN != x is true, IEEE)
        (2, [True, False, False, False]),  # LT
        (3, [True, True, False, False]),  # LE
        (4, [False, False, True, False]),  # GT
        (5, [False, True, True, False]),  # GE
        (6, [True] * 4),  # "seem to always return true"
        (7, [True] * 4),
    ],
)
def test_cmp_operators(engine, operator, expected):
    got = []
    for a, b in PAIRS:
        # cmp.x from the x components with CMPX, cmp.y from y with CMPY = EQ
        result = one_op(engine, "cmp", None, "c0", "v0", uniforms={"c0": [a, 5, NAN, NAN]},
                        inputs={"v0": [b, 5, NAN, NAN]}, cmpx=operator, cmpy=0)
        assert result.cmp[0, 1]
        got.append(bool(result.cmp[0, 0]))
    assert got == expected


def test_cmp_y_uses_the_y_components(engine):
    result = one_op(engine, "cmp", None, "c0", "v0", uniforms={"c0": [1, 1, 0, 0]},
                    inputs={"v0": [1, 2, 0, 0]}, cmpx=1, cmpy=2)  # x: 1 != 1, y: 1 < 2
    assert result.cmp[0].tolist() == [False, True]


LIMIT = 0x7FFF / 0x100  # 127.99609375


@pytest.mark.parametrize(
    ("src", "result", "flags"),
    [
        # the six vertices of Panda3DS's hardware test PICA_LITP
        ([1, 0, 0, 1], [1, 0, 0, 1], [True, True]),
        ([-0.5, 1, 0, 1], [0, 1, 0, 1], [False, True]),
        ([0.5, 0, 1, -1], [0.5, 0, 0, 0], [True, False]),
        ([-1, 64, 0, -1], [0, 64, 0, 0], [False, False]),
        ([-1, 256, 1, -1], [0, LIMIT, 0, 0], [False, False]),
        ([-1, 0, 0.5, -1], [0, 0, 0, 0], [False, False]),
        ([2, -300, 9, 0], [2, -LIMIT, 0, 0], [True, True]),
    ],
)
def test_litp(engine, src, result, flags):
    out = one_op(engine, "litp", "o0", "c0", uniforms={"c0": src})
    assert_same(o0(out), result)
    assert out.cmp[0].tolist() == flags


# -- MOVA and relative addressing ----------------------------------------------------------

TABLE = {f"c{k}": [float(k)] * 4 for k in range(96)}


def addressed(engine, a0, source, idx, **kw):
    """a0 = (a0.x, a0.y) set by MOVA, then ``mov o0, source`` with index register idx."""
    a = Asm()
    a.op("mova", "a0.xy", "v0")
    a.op("mov", "o0", source, idx=idx)
    a.end()
    return run(a.program(), {"v0": [a0[0], a0[1], 0, 0], "v1": [-7] * 4, **kw.pop("inputs", {})},
               uniforms=TABLE, engine=engine, **kw, registers=True)


@pytest.mark.parametrize(
    ("value", "truncated"),
    [(2.9, 2), (-1.9, -1), (0.9, 0), (-0.9, 0), (-1.5, -1), (3e9, 2**31 - 1), (NAN, 0)],
)
def test_mova_truncates_toward_zero(engine, value, truncated):
    result = one_op(engine, "mova", "a0.x", "c0", uniforms={"c0": [value, 0, 0, 0]})
    assert result.address[0].tolist() == [truncated, 0, 0]


def test_mova_respects_the_mask(engine):
    a = Asm()
    a.op("mova", "a0.y", "c0.yx")  # a0.y = trunc(c0.x) via the swizzle; a0.x untouched
    a.end()
    result = run(a.program(), {}, uniforms={"c0": [5.5, 9, 0, 0]}, address=(3, 4, 6),
                 engine=engine, registers=True)
    assert result.address[0].tolist() == [3, 5, 6]


@pytest.mark.parametrize(
    ("a0", "source", "idx", "expected"),
    [
        ((2, -1), "c4", 1, 6),  # c4 + a0.x
        ((2, -1), "c4", 2, 3),  # c4 + a0.y
        ((0, 0), "c4", 0, 4),
        ((127, 0), "c0", 1, None),  # 127 in range; index 127 > 95: (1, 1, 1, 1)
        ((128, 0), "c9", 1, 9),  # offset out of -128..127: not applied
        ((-129, 0), "c9", 1, 9),
        ((-100, 0), "c50", 1, 78),  # -50 & 0x7F = 78
        ((40, 0), "c90", 1, 2),  # (90 + 40) & 0x7F = 2
        ((6, 0), "c90", 1, None),  # 96: beyond c95
        ((-10, 0), "c5", 1, None),  # -5 & 0x7F = 123
        ((-3, 0), "c10", 1, 7),
    ],
)
def test_relative_addressing(engine, a0, source, idx, expected):
    result = addressed(engine, a0, source, idx)
    assert_same(o0(result), [1.0] * 4 if expected is None else [float(expected)] * 4)


def test_index_register_is_ignored_on_inputs_and_temporaries(engine):
    a = Asm()
    a.op("mova", "a0.x", "v0")
    a.op("mov", "r1", "v1")
    a.op("mov", "o0", "v1", idx=1)  # v1 + a0.x would be v3: ignored
    a.op("mov", "o1", "r1", idx=1)
    a.end()
    result = run(a.program(), {"v0": [2, 0, 0, 0], "v1": [5] * 4}, engine=engine, registers=True)
    assert_same(o0(result), [5] * 4)
    assert_same(result.outputs["o1"][0], [5] * 4)


def test_index_applies_to_the_wide_source_of_inverted_forms(engine):
    a = Asm()
    a.op("mova", "a0.x", "v0")
    a.op("sgei", "o0", "v1", "c2", idx=1)  # v1 >= c[2 + 3] = 5
    a.op("madi", "o1", "v1", "v1", "c2", idx=1)  # v1 * v1 + c5
    a.end()
    result = run(a.program(), {"v0": [3, 0, 0, 0], "v1": [4, 5, 6, 7]}, uniforms=TABLE,
                 engine=engine, registers=True)
    assert_same(o0(result), [0, 1, 1, 1])
    assert_same(result.outputs["o1"][0], [21, 30, 41, 54])


# -- the rest ------------------------------------------------------------------------------


def test_nop_does_nothing_and_end_stops(engine):
    a = Asm()
    a.nop()
    a.op("mov", "o0", "c0")
    a.end()
    a.op("mov", "o1", "c0")
    result = run(a.program(), {}, uniforms={"c0": [1, 2, 3, 4]}, engine=engine, registers=True)
    assert_same(o0(result), [1, 2, 3, 4])
    assert_same(result.outputs["o1"][0], [0, 0, 0, 0])
    assert result.steps.tolist() == [3]


@pytest.mark.parametrize("word", [0x40000000, 0x44000000, 0x5C000000, 0x7C000000])
def test_unknown_opcodes_fault(engine, word):
    with pytest.raises(ShaderFault, match="no known function") as info:
        run(Program([0x84000000, word, 0x88000000]), {}, engine=engine, registers=True)
    assert info.value.pc == 1


def test_missing_operand_descriptor_faults(engine):
    a = Asm()
    a.op("mov", "o0", "c0")
    a.end()
    program = Program(a.code, [])  # the descriptor table is empty
    with pytest.raises(ShaderFault, match="operand descriptor 0"):
        run(program, {}, uniforms={"c0": [1, 2, 3, 4]}, engine=engine, registers=True)


@pytest.mark.parametrize("mnemonic", ["emit", "setemit"])
def test_geometry_instructions_fault_in_a_vertex_shader(engine, mnemonic):
    a = Asm()
    a.flow(mnemonic)
    a.end()
    with pytest.raises(ShaderFault, match="vertex shader"):
        run(a.program(), {}, engine=engine, registers=True)


def test_vertices_run_independently(engine):
    a = Asm()
    a.op("add", "r0", "c0", "r0")  # r0 starts at 0 for every vertex
    a.op("mul", "o0", "r0", "v0")
    a.end()
    result = run(a.program(), {"v0": [[1, 2, 3, 4], [5, 6, 7, 8]]},
                 uniforms={"c0": [2, 2, 2, 2]}, engine=engine, registers=True)
    assert_same(result.outputs["o0"], [[2, 4, 6, 8], [10, 12, 14, 16]])
