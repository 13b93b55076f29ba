"""Malformed programs and inputs raise clear GpuIsaErrors before anything runs."""

from __future__ import annotations

import numpy as np
import pytest
from a2xx_helpers import EXEC, EXEC_END, NOP, cf_program, exec_clause
from test_a2xx_engine_support import patch_alu, patch_clause, patch_fetch, program

from gpuisa.a2xx import EmulatorConfig, LoopConstant, VertexFetchConstant, run_fragment, run_vertex
from gpuisa.a2xx.errors import A2xxError
from gpuisa.errors import GpuIsaError, InputError

SIMPLE = program("EXEC_END\n  ALU: MAXv export62 = R0, R0\n")


def test_truncated_program() -> None:
    with pytest.raises(GpuIsaError, match="not a whole number of 96-bit slots"):
        run_vertex(SIMPLE[:-1], 1)
    with pytest.raises(GpuIsaError, match="not a whole number of 32-bit dwords"):
        run_vertex(b"\x00" * 10, 1)


def test_non_word_values() -> None:
    with pytest.raises(GpuIsaError, match="dword 2 is not a 32-bit unsigned value"):
        run_vertex([0, 0, -1], 1)
    with pytest.raises(GpuIsaError, match="dword 0"):
        run_vertex([1.5, 0, 0], 1)


def test_no_exec_clause() -> None:
    with pytest.raises(A2xxError, match="no EXEC-type CF clause"):
        run_vertex(cf_program([NOP, NOP]), 1)


def test_exec_beyond_the_program() -> None:
    words = [*cf_program([exec_clause(EXEC_END, 1, 3)]), 0, 0, 0]  # one slot, CNT 3
    with pytest.raises(A2xxError, match=r"runs slots 1\.\.3"):
        run_vertex(words, 1)


def test_exec_inside_the_cf_program() -> None:
    words = cf_program([exec_clause(EXEC, 2, 0), NOP, exec_clause(EXEC_END, 0, 1)]) + [0] * 3
    with pytest.raises(A2xxError, match=r"CF clause 2 \(EXEC_END ADDR\(0x0\)\) CNT\(0x1\)"):
        run_vertex(words, 1)


@pytest.mark.parametrize(
    "clause",
    [
        "COND_JMP ADDR(9) DIR(1) FORCE_CALL",
        "COND_CALL ADDR(4) DIR(1) FORCE_CALL",
        "LOOP_START ADDR(7) LOOP_ID(0)",
    ],
)
def test_cf_target_out_of_range(clause: str) -> None:
    words = program(f"{clause}\nEXEC_END\n  ALU: MAXv R1 = R0, R0\n")
    with pytest.raises(
        A2xxError,
        match=r"CF clause 0 .* targets CF clause \d+, but the CF "
        r"program has only 2 clauses",
    ):
        run_vertex(words, 1)


def test_wide_addresses_are_checked_too() -> None:
    words = program("COND_JMP ADDR(1) DIR(1) FORCE_CALL\nEXEC_END\n  ALU: MAXv R1 = R0, R0\n")
    run_vertex(words, 1)  # fine as printed
    # bit 10 is reserved for Mesa but part of Xenia's 13-bit address
    words = patch_clause(words, 0, reserved=1 << 10)
    run_vertex(words, 1)
    with pytest.raises(A2xxError, match="targets CF clause 1025"):
        run_vertex(words, 1, target="xenos")


def test_undefined_opcodes() -> None:
    words = patch_alu(SIMPLE, 1, scalar_opc=41)
    with pytest.raises(A2xxError, match=r"slot 1 .*scalar opcode 41 is undefined"):
        run_vertex(words, 1)
    words = patch_alu(SIMPLE, 1, vector_opc=30)
    with pytest.raises(A2xxError, match="vector opcode 30 is undefined but its result"):
        run_vertex(words, 1)
    # an undefined vector opcode whose result is not used is harmless
    run_vertex(patch_alu(SIMPLE, 1, vector_opc=31, vector_write_mask=0), 1)


def test_undefined_fetch_opcode_and_format() -> None:
    fetch = program("EXEC_END\n  FETCH: VERTEX R1 = R0.x FMT_32_FLOAT STRIDE(4) CONST(0, 0)\n")
    words = list(fetch)
    words[3] = (words[3] & ~0x1F) | 5  # fetch opcode 5 is undefined
    with pytest.raises(A2xxError, match=r"slot 1 .*fetch opcode 5"):
        run_vertex(words, 1)
    with pytest.raises(A2xxError, match="format FMT_DXT1 has no vertex data layout"):
        run_vertex(patch_fetch(fetch, 1, format=18), 1)


def test_unknown_mnemonic_is_a_source_error() -> None:
    with pytest.raises(GpuIsaError, match="unknown vector opcode 'FOOv'"):
        program("EXEC_END\n  ALU: FOOv R0 = R1, R1\n")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"float_constants": np.zeros((600, 4))}, "float_constants must have shape"),
        ({"float_constants": {512: [0, 0, 0, 0]}}, "index 512 is out of range"),
        ({"float_constants": {3: [1, 2]}}, r"float_constants\[3\] must be 4 numbers"),
        ({"bool_constants": {300: True}}, "bool_constants index 300"),
        ({"bool_constants": ["yes"]}, "must be true/false"),
        ({"loop_constants": {0: (300, 0, 1)}}, "count must be 0..255"),
        ({"loop_constants": {32: 1}}, "index 32 is out of range"),
        ({"loop_constants": {0: (1, 0, 200)}}, "step must be -128..127"),
        ({"registers": {64: np.zeros((1, 4))}}, "register 64 is out of range"),
        ({"registers": {"X1": np.zeros((1, 4))}}, "is not a register"),
        ({"registers": {1: np.zeros((2, 4))}}, r"must have shape \(1, 4\)"),
        ({"vertex_buffers": {0: "text"}}, "must be bytes or a NumPy array"),
        ({"vertex_buffers": {0: b"1234"}, "fetch_constants": {0: "nope"}}, "names vertex buffer"),
        (
            {"vertex_buffers": {0: b"1234"}, "fetch_constants": {0: VertexFetchConstant(0, 0, 8)}},
            "lie outside vertex buffer",
        ),
        ({"fetch_constants": {96: 0}}, "index 96 is out of range"),
        ({"max_steps": 0}, "max_steps must be a positive integer"),
        ({"target": "r600"}, "target must be"),
        ({"config": "adreno"}, "config must be an EmulatorConfig"),
        ({"indices": [1, 2]}, "indices must be 1 numbers"),
    ],
)
def test_bad_inputs(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(InputError, match=message):
        run_vertex(SIMPLE, 1, **kwargs)  # type: ignore[arg-type]


def test_bad_counts_and_interpolants() -> None:
    with pytest.raises(InputError, match="give the number of vertices"):
        run_vertex(SIMPLE)
    with pytest.raises(InputError, match="count must be a non-negative integer"):
        run_vertex(SIMPLE, -1)
    with pytest.raises(InputError, match="interpolants must have shape"):
        run_fragment(SIMPLE, np.zeros((3, 5)))
    with pytest.raises(InputError, match="one common length"):
        run_fragment(SIMPLE, {0: np.zeros((3, 4)), 1: np.zeros((2, 4))})


def test_bad_config_values() -> None:
    with pytest.raises(InputError, match="scalar_b_lane must be 2"):
        EmulatorConfig(scalar_b_lane=1)
    with pytest.raises(InputError, match="address_unit"):
        EmulatorConfig(address_unit="words")
    with pytest.raises(InputError, match="unknown emulator setting"):
        EmulatorConfig.for_target("adreno", stride=4)
    with pytest.raises(InputError, match=r"count must be 0\.\.255"):
        LoopConstant(256)


def test_zero_invocations() -> None:
    res = run_vertex(SIMPLE, 0)
    assert res.position.shape == (0, 4) and res.killed.shape == (0,)
