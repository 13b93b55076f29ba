"""What makes a run of a few vertices cheap must not change what it computes: uniform
tables remembered by content (``uniform_table.shared_uniforms``), results looked up
on access (``api.RegisterValues``), programs hashed once."""

import numpy as np
import pytest
from engine_kit import Asm, assert_same

from gpuisa.errors import InputError
from gpuisa.pica import Program
from gpuisa.pica.engine import F24Bits, run
from gpuisa.pica.engine.uniform_table import shared_uniforms


def _scale_shader() -> Program:
    """o0 = c0 * v0; o1 = c1 (a 3-instruction program with no flow)."""
    a = Asm()
    a.op("mul", "o0", "c0", "v0")
    a.op("mov", "o1", "c1")
    a.end()
    return a.program()


def test_changing_a_uniform_array_in_place_changes_the_next_run(engine):
    # Runs made in a loop usually pass the same objects: a table remembered by identity
    # instead of content would keep the first values.
    program = _scale_shader()
    scale = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    uniforms = {"c0": scale, "c1": [0.5, 0.25, 0.125, 1.0]}
    first = run(program, {"v0": [1, 1, 1, 1]}, uniforms=uniforms, engine=engine)
    scale *= 2  # the same dict, the same array object, new values
    uniforms["c1"][0] = 8.0
    second = run(program, {"v0": [1, 1, 1, 1]}, uniforms=uniforms, engine=engine)
    assert_same(first.outputs["o0"], [[1, 2, 3, 4]])
    assert_same(second.outputs["o0"], [[2, 4, 6, 8]])
    assert_same(second.outputs["o1"], [[8, 0.25, 0.125, 1]])


def test_a_missing_uniform_given_later_is_read(engine):
    program = _scale_shader()
    with pytest.raises(InputError, match="c1"):
        run(program, {"v0": [1, 1, 1, 1]}, uniforms={"c0": [1, 1, 1, 1]}, engine=engine)
    result = run(program, {"v0": [1, 1, 1, 1]},
                 uniforms={"c0": [1, 1, 1, 1], "c1": [1, 2, 3, 4]}, engine=engine)
    assert_same(result.outputs["o1"], [[1, 2, 3, 4]])


def test_remembered_tables_are_shared_read_only_and_told_apart_by_content():
    one = shared_uniforms(None, {"c0": [1.0, 2.0, 3.0, 4.0]}, "f24")
    assert shared_uniforms(None, {"c0": [1.0, 2.0, 3.0, 4.0]}, "f24") is one
    assert not one.floats.flags.writeable and not one.bools.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        one.floats[0, 0] = 5.0
    assert shared_uniforms(None, {"c0": [1.0, 2.0, 3.0, 5.0]}, "f24") is not one
    assert shared_uniforms(None, {"c0": [1.0, 2.0, 3.0, 4.0]}, "f32") is not one
    as_array = shared_uniforms(None, {"c0": np.array([1.0, 2.0, 3.0, 4.0])}, "f24")
    assert as_array is not one and as_array.floats[0].tolist() == [1, 2, 3, 4]


def test_nan_payloads_and_bit_patterns_are_not_confused():
    # repr() prints every NaN alike: such values are loaded again each time.
    nan = float("nan")
    assert shared_uniforms(None, {"c0": [nan, 0.0, 0.0, 0.0]}, "f24") is not \
        shared_uniforms(None, {"c0": [nan, 0.0, 0.0, 0.0]}, "f24")
    # 0x3F0000 is 1.0 and 0x400000 is 2.0 in float24 (sign 0, exponent 63/64, mantissa 0)
    low = shared_uniforms(None, {"c0": F24Bits([0x3F0000] * 4)}, "f24")
    high = shared_uniforms(None, {"c0": F24Bits([0x400000] * 4)}, "f24")
    assert low.floats[0].tolist() == [1.0] * 4 and high.floats[0].tolist() == [2.0] * 4


def test_result_registers_are_looked_up_on_access(engine):
    result = run(_scale_shader(), {"v0": [[1, 2, 3, 4], [5, 6, 7, 8]]},
                 uniforms={"c0": [2, 2, 2, 2], "c1": [0, 0, 0, 0]}, engine=engine,
                 registers=True)
    assert list(result.outputs) == [f"o{n}" for n in range(16)]
    assert len(result.temporaries) == 16 and "r15" in result.temporaries
    assert result.outputs["o0"] is result.outputs["o0"]
    assert_same(dict(result.outputs)["o0"], [[2, 4, 6, 8], [10, 12, 14, 16]])
    for missing in ("o16", "r0", "v0"):
        with pytest.raises(KeyError):
            result.outputs[missing]
    assert "'o0': array(" in repr(result.outputs)


def test_programs_hash_by_their_words():
    first, second = Program([1, 2, 3], [4]), Program([1, 2, 3], [4])
    assert first == second and hash(first) == hash(second)
    assert {first: "kernel"}[second] == "kernel"
    assert Program([1, 2, 4], [4]) != first
