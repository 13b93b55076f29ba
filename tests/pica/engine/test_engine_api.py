"""gpuisa.pica.engine.run(): inputs, uniforms, DVLE names and constants, initial state,
result fields, and the errors bad arguments raise."""

import numpy as np
import pytest
from engine_kit import Asm, assert_same

from gpuisa.errors import InputError
from gpuisa.pica import Program
from gpuisa.pica.engine import F24Bits, run
from gpuisa.pica.shbin import Constant, Dvle, Label, OutputEntry, OutputSemantic, Shbin, Uniform


def shader():
    """o0 = v0 * c0 + c1; o1 = mvp[1]; o2.x = LOOP count via r0; o3 = b-dependent."""
    a = Asm()
    a.op("mad", "o0", "v0", "c0", "v1")  # 0: o0 = v0 * c0 + v1
    a.op("mov", "o1", "c9")  # 1: mvp[1] (mvp = c8..c11)
    a.flow("loop", dst=3, id=1)  # 2
    a.op("add", "r0", "c1", "r0")  # 3: r0 += c1, X + 1 times
    a.flow("ifu", dst=6, num=0, id=4)  # 4: no else block
    a.op("mov", "o2", "r0")  # 5: if b4
    a.op("mov", "o3", "c1")  # 6
    a.end()  # 7
    dvle = Dvle(
        main_offset=0, endmain_offset=8,
        constants=(Constant.from_f24(1, [0x3F0000, 0x400000, 0x3E0000, 0xBF0000]),  # 1 2 .5 -1
                   Constant.from_ints(1, [2, 1, 2, 0]), Constant.from_bool(4, True)),
        outputs=(OutputEntry(OutputSemantic.POSITION, 0),
                 OutputEntry(OutputSemantic.COLOR, 1, mask=0b0111),  # r, g, b only
                 OutputEntry(OutputSemantic.TEXCOORD0, 2, mask=0b0011)),
        uniforms=(Uniform.in_bank("pos", "v", 0), Uniform.in_bank("offset", "v", 1),
                  Uniform.in_bank("scale", "c", 0), Uniform.in_bank("mvp", "c", 8, 4),
                  Uniform.in_bank("loops", "i", 1), Uniform.in_bank("flag", "b", 4)),
        labels=(Label(0, 6, "tail"),),
    )
    return Shbin(a.program(), (dvle,))


MVP = np.arange(16, dtype=float).reshape(4, 4)


def test_names_constants_and_results(engine):
    result = run(shader(), {"pos": [[1, 2, 3, 4], [5, 6, 7, 8]], "offset": [1, 1, 1, 1]},
                 uniforms={"scale": [2, 2, 2, 2], "mvp": MVP}, engine=engine, registers=True)
    assert_same(result.outputs["o0"], [[3, 5, 7, 9], [11, 13, 15, 17]])
    assert_same(result.outputs["o1"], [MVP[1], MVP[1]])
    # constant i1 = (2, 1, 2, 0): 3 iterations adding constant c1 = (1, 2, 0.5, -1)
    assert_same(result.outputs["o2"], [[3, 6, 1.5, -3]] * 2)
    assert_same(result.outputs["o3"], [[1, 2, 0.5, -1]] * 2)
    assert sorted(result.outputs) == sorted(f"o{n}" for n in range(16))
    assert all(v.dtype == np.float32 and v.shape == (2, 4) for v in result.outputs.values())
    assert result.temporaries["r0"].shape == (2, 4)
    assert result.cmp.shape == (2, 2) and result.address.shape == (2, 3)
    assert result.address.tolist() == [[0, 0, 1 + 3 * 2]] * 2  # aL = Y + (X + 1) * Z
    assert result.vertices is None and result.primitives is None


def test_outputs_by_semantic_fill_unmapped_slots_with_one(engine):
    result = run(shader(), {"pos": [1, 2, 3, 4], "offset": [1, 1, 1, 1]},
                 uniforms={"scale": [2, 2, 2, 2], "mvp": MVP}, engine=engine, registers=True)
    sem = result.outputs_by_semantic
    assert_same(sem["position"], [[3, 5, 7, 9]])
    assert_same(sem["color"], [[4, 5, 6, 1]])  # o1 = (4, 5, 6, 7); alpha unmapped -> 1
    assert_same(sem["texcoord0"], [[3, 6]])  # o2.xy
    assert_same(sem["texcoord1"], [[1, 1]])
    assert_same(sem["view"], [[1, 1, 1]])
    assert sorted(sem) == sorted(["position", "normalquat", "color", "texcoord0",
                                  "texcoord0w", "texcoord1", "texcoord2", "view"])


def test_user_uniforms_override_constants_and_registers_work_too(engine):
    result = run(shader(), {"v0": [1, 1, 1, 1], "v1": [0, 0, 0, 0]},
                 uniforms={"c0": [1, 1, 1, 1], "c8": MVP[0], "c9": [7, 7, 7, 7], "c10": MVP[2],
                           "c11": MVP[3], "loops": [0, 0, 0, 0], "flag": False,
                           "c1": F24Bits([0x3F0000] * 4)},
                 engine=engine, registers=True)
    assert_same(result.outputs["o1"], [[7] * 4])
    assert_same(result.outputs["o2"], [[0] * 4])  # b4 false: skipped
    assert_same(result.outputs["o3"], [[1] * 4])


def test_entry_offset_and_label(engine):
    for entry in (6, "tail"):
        result = run(shader(), {}, entry=entry, engine=engine, registers=True)
        assert_same(result.outputs["o3"], [[1, 2, 0.5, -1]])
        assert result.steps.tolist() == [2]


def test_initial_registers(engine):
    a = Asm()
    a.op("mov", "o0", "r3")
    a.flow("jmpc", dst=3, condop=3, refy=1)
    a.end()
    a.op("mov", "o1", "r3")
    a.end()
    result = run(a.program(), {}, temporaries={"r3": [1, 2, 3, 4]}, cmp=(False, True),
                 address=(-5, 7, 300), outputs={"o2": [9, 9, 9, 9]}, engine=engine, registers=True)
    assert_same(result.outputs["o0"], [[1, 2, 3, 4]])
    assert_same(result.outputs["o1"], [[1, 2, 3, 4]])
    assert_same(result.outputs["o2"], [[9] * 4])
    assert result.address.tolist() == [[-5, 7, 300]]
    assert result.cmp.tolist() == [[False, True]]


def test_f24_bits_and_upload_words(engine):
    # packed upload words for (x, y, z, w) = (1.0, 2.0, 0.5, -1.0) (pica-emulation.md#upload-float):
    # b0 = w << 8 | z >> 16, b1 = (z & 0xFFFF) << 16 | y >> 8, b2 = (y & 0xFF) << 24 | x
    x, y, z, w = 0x3F0000, 0x400000, 0x3E0000, 0xBF0000
    words = (w << 8 | z >> 16, (z & 0xFFFF) << 16 | y >> 8, (y & 0xFF) << 24 | x)
    a = Asm()
    a.op("mov", "o0", "c0")
    a.end()
    for value in (F24Bits([x, y, z, w]), F24Bits.from_upload_words(*words)):
        for precision in ("f24", "f32"):
            result = run(a.program(), {}, uniforms={"c0": value}, precision=precision,
                         engine=engine, registers=True)
            assert_same(result.outputs["o0"], [[1, 2, 0.5, -1]])


# -- errors -------------------------------------------------------------------------------

MOV = Program([0x4C000000 | 0x20 << 12, 0x88000000], [0x0000036F])  # mov o0, c0; end


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(inputs={"v0": [1, 2, 3]}), r"shape \(3,\)"),
        (dict(inputs={"v0": [[1, 2, 3, 4]], "v1": [[1, 2, 3, 4]] * 2}), "2 vertices"),
        (dict(inputs={"v16": [1, 2, 3, 4]}), "no input v16"),
        (dict(inputs={"position": [1, 2, 3, 4]}), "unknown input 'position'"),
        (dict(inputs={"v0": ["a", "b", "c", "d"]}), "real numbers"),
        (dict(inputs={"v0": np.zeros((0, 4))}), "no vertices"),
        (dict(uniforms={"c96": [1, 2, 3, 4]}), "no float uniform c96"),
        (dict(uniforms={"c0": [[1, 2, 3, 4]] * 2}), "expected 4 values"),
        (dict(uniforms={"i0": [1, 2, 3, 256]}), "0..255"),
        (dict(uniforms={"i0": [1, 2, 3, -1]}), "0..255"),
        (dict(uniforms={"i0": [1.5, 2, 3, 4]}), "integers"),
        (dict(uniforms={"i4": [1, 2, 3, 4]}), "no integer uniform i4"),
        (dict(uniforms={"b0": 2}), "True/False"),
        (dict(uniforms={"b16": True}), "no bool uniform b16"),
        (dict(uniforms={"r0": [1, 2, 3, 4]}), "unknown uniform 'r0'"),
        (dict(uniforms={"c0": F24Bits([0x3F0000] * 4), "mvp": MVP}), "no.*mvp|unknown"),
        (dict(precision="f16"), "precision"),
        (dict(engine="fast"), "engine"),
        (dict(max_steps=0), "max_steps"),
        (dict(entry=2), "entry point 2"),
        (dict(cmp=(1, 0)), "cmp"),
        (dict(address=(0, 0)), "address"),
        (dict(temporaries={"r0": [[1, 2, 3, 4]] * 3}), "3 rows"),
    ],
)
def test_bad_arguments_raise_input_error(engine, kwargs, message):
    args = dict(inputs={}, uniforms={"c0": [1, 2, 3, 4]}, engine=engine)
    args.update(kwargs)
    inputs = args.pop("inputs")
    with pytest.raises(InputError, match=message):
        run(MOV, inputs, **args, registers=True)


def test_bad_f24_bits():
    for bad in ([0x1000000, 0, 0, 0], [-1, 0, 0, 0], [1.0, 0, 0, 0], [1, 2, 3]):
        with pytest.raises(InputError):
            F24Bits(bad)


def test_reading_a_missing_uniform_or_input_names_it(engine):
    with pytest.raises(InputError, match=r"c0 is read at pc 0x000"):
        run(MOV, {}, engine=engine, registers=True)
    a = Asm()
    a.nop()
    a.op("mov", "o0", "v3")
    a.end()
    with pytest.raises(InputError, match=r"input v3 is read at pc 0x001"):
        run(a.program(), {"v0": [1, 2, 3, 4]}, engine=engine, registers=True)


def test_reading_beyond_c95_is_not_a_missing_uniform(engine):
    a = Asm()
    a.op("mova", "a0.x", "v0")
    a.op("mov", "o0", "c95", idx=1)
    a.end()
    result = run(a.program(), {"v0": [3, 0, 0, 0]}, engine=engine, registers=True)
    assert_same(result.outputs["o0"], [[1, 1, 1, 1]])


def test_the_same_register_given_twice(engine):
    with pytest.raises(InputError, match="already given"):
        run(shader(), {}, uniforms={"mvp": MVP, "c9": [1, 2, 3, 4]}, engine=engine, registers=True)
    with pytest.raises(InputError, match="given twice"):
        run(shader(), {"pos": [1, 2, 3, 4], "v0": [1, 2, 3, 4]}, engine=engine, registers=True)


def test_shader_argument_checks(engine):
    with pytest.raises(InputError, match="Shbin or a Program"):
        run(b"\x00" * 16, {}, engine=engine, registers=True)
    with pytest.raises(InputError, match="no DVLE"):
        run(Shbin(MOV), {}, engine=engine, registers=True)
    with pytest.raises(InputError, match=r"dvle must be 0\.\.0"):
        run(shader(), {}, dvle=1, engine=engine, registers=True)
    with pytest.raises(InputError, match="no label 'nope'"):
        run(shader(), {}, entry="nope", engine=engine, registers=True)


@pytest.mark.parametrize("engine", ["reference", "jit"])
def test_results_hold_the_outputs_and_registers_only_on_request(engine):
    """By default a run returns what the shader outputs; temporaries, flags, address
    registers and step counts only with registers=True (gpuisa issue 11)."""
    from gpuisa.pica import assemble, run

    shbin = assemble(".out o position\n.proc main\n    mov r3, v0\n    mova a0.x, v0\n"
                     "    mov o, r3\n    end\n.end\n")
    values = np.array([[2.0, 3.0, 4.0, 5.0]] * 3)
    plain = run(shbin, {"v0": values}, engine=engine)
    assert plain.outputs["o0"].tolist() == values.tolist()
    assert (plain.temporaries, plain.cmp, plain.address, plain.steps) == (None,) * 4
    full = run(shbin, {"v0": values}, engine=engine, registers=True)
    assert full.temporaries["r3"].tolist() == values.tolist()
    assert full.address.tolist() == [[2, 0, 0]] * 3  # mova a0.x from 2.0
    assert full.steps.tolist() == [4] * 3  # mov, mova, mov, end
    assert full.cmp.tolist() == [[False, False]] * 3
