"""The public emulator API: names, argument forms and result properties."""

from __future__ import annotations

import numpy as np
import pytest
from test_a2xx_engine_support import program

import gpuisa.a2xx as a2xx
from gpuisa.a2xx import (
    EmulatorConfig,
    FragmentResult,
    LoopConstant,
    VertexFetchConstant,
    VertexResult,
    run_fragment,
    run_vertex,
)
from gpuisa.a2xx.encoding import words_to_bytes

PROG = program(
    "EXEC_END\n"
    "  FETCH: VERTEX R1.xy__ = R0.x FMT_32_32_FLOAT STRIDE(8) CONST(20, 0)\n"
    "  ALU: MAXv export62 = R1, R1\n"
    "  ALU: ADDv export2 = R2, C1\n"
)


def test_exported_names() -> None:
    for name in (
        "run_vertex",
        "run_fragment",
        "EmulatorConfig",
        "VertexResult",
        "FragmentResult",
        "ShaderResult",
        "LoopConstant",
        "VertexFetchConstant",
        "Texture",
    ):
        assert name in a2xx.__all__ and hasattr(a2xx, name)


def test_vertex_indices_buffers_and_result() -> None:
    data = np.arange(20, dtype="<f4").reshape(10, 2)
    consts = {1: [1, 2, 3, 4]}
    res = run_vertex(
        words_to_bytes(PROG),  # a binary works as well as a list of dwords
        indices=[9, 0, 4],
        vertex_buffers={60: data},  # CONST(20, 0) = slot 60, bound by its number
        float_constants=consts,
        registers={"r2": [10, 20, 30, 40]},  # one vec4 for every vertex
    )
    assert isinstance(res, VertexResult) and res.count == 3
    np.testing.assert_array_equal(res.position[:, :2], data[[9, 0, 4]])
    np.testing.assert_array_equal(res.registers[0][:, 0], [9, 0, 4])  # R0.x = index
    np.testing.assert_array_equal(res.params[2], np.tile([11, 22, 33, 44], (3, 1)))
    assert sorted(res.params) == [2]
    np.testing.assert_array_equal(res.point_size, [0, 0, 0])  # never exported
    np.testing.assert_array_equal(res.export(40), np.zeros((3, 4)))


def test_named_buffers_with_fetch_constants() -> None:
    data = np.arange(8, dtype="<f4")
    res = run_vertex(
        PROG,
        2,
        vertex_buffers={"positions": data},
        fetch_constants={60: VertexFetchConstant("positions", offset=8)},
    )
    np.testing.assert_array_equal(res.position[:, :2], [[2, 3], [4, 5]])


def test_fragment_result() -> None:
    words = program("EXEC_END\n  ALU: MAXv export0 = R3, R3\n")
    res = run_fragment(words, {"R3": np.ones((2, 4))}, config=EmulatorConfig())
    assert isinstance(res, FragmentResult)
    np.testing.assert_array_equal(res.color, np.ones((2, 4)))
    assert sorted(res.colors) == [0] and res.depth is None


def test_loop_constant_register_round_trip() -> None:
    c = LoopConstant(5, start=7, step=-2)
    assert c.to_register() == 5 | 7 << 8 | 0xFE << 16
    assert LoopConstant.from_register(c.to_register()) == c
    assert [c.address(i) for i in range(3)] == [7, 5, 3]


def test_target_presets() -> None:
    xenos = EmulatorConfig.for_target("xenos")
    assert (xenos.address_unit, xenos.mini_fetch, xenos.abs_constants) == ("dwords", True, True)
    adreno = EmulatorConfig.for_target("adreno", scalar_b_lane=0)
    assert (adreno.address_unit, adreno.scalar_b_lane) == ("bytes", 0)


def test_abs_constants_only_on_xenos() -> None:
    words = program("EXEC_END\n  ALU: MAXv R4 = C0, C0\n")
    words[3] |= 1 << 7  # d0 bit 7 of slot 1: abs_constants (Xenos) / low precision (Adreno)
    consts = [[-1.0, 2.0, -3.0, 4.0]]
    adreno = run_vertex(words, 1, float_constants=consts)
    xenos = run_vertex(words, 1, float_constants=consts, target="xenos")
    np.testing.assert_array_equal(adreno.registers[4][0], [-1, 2, -3, 4])
    np.testing.assert_array_equal(xenos.registers[4][0], [1, 2, 3, 4])


@pytest.mark.parametrize("count", [1, 64, 1000])
def test_many_invocations(count: int) -> None:
    data = np.random.default_rng(0).normal(size=(count, 2)).astype("<f4")
    res = run_vertex(PROG, count, vertex_buffers={60: data})
    np.testing.assert_array_equal(res.position[:, :2], data)
