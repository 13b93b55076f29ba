"""SHBIN files in picasso's layout, built by hand from shbin-format.md#layout.

The DVLE builder (``shbin_testutil.DvleFields``) and the DVLB builder here follow
shbin-format.md's tables and offset formulas with ``struct``; the other ``test_shbin_*`` modules
import them.  Expected records are written out literally.
"""

from __future__ import annotations

import struct

import pytest
from shbin_testutil import DvleFields, constant, output

from gpuisa.errors import GpuIsaError, InputError, ShbinError
from gpuisa.pica.program import Program
from gpuisa.pica.shbin import (
    Constant,
    ConstantKind,
    Dvle,
    GeometryMode,
    Label,
    OutputEntry,
    OutputSemantic,
    ShaderType,
    Shbin,
    Uniform,
)

DVLB, DVLP, DVLE = 0x424C5644, 0x504C5644, 0x454C5644
#: shbin-format.md#dvle-header: 4+2+1+1+4+4+2+2+1+1+1+1 bytes, then 10 words.
DVLE_HEADER = "<IHBBIIHHBBBB10I"


def picasso_shbin(code, opdescs, dvles) -> bytes:
    """DVLB header, 10-word DVLP header, code, opdescs (high word 0), DVLEs (shbin-format.md#dvlb,
    shbin-format.md#dvlp, shbin-format.md#offsets)."""
    dvlp_size = 0x28 + 4 * len(code) + 8 * len(opdescs)
    head = struct.pack("<2I", DVLB, len(dvles))
    offset = 8 + 4 * len(dvles) + dvlp_size
    for blob in dvles:
        head += struct.pack("<I", offset)
        offset += len(blob)
    dvlp = struct.pack(
        "<10I", DVLP, 0, 0x28, len(code), 0x28 + 4 * len(code), len(opdescs), dvlp_size, 0, 0, 0
    )
    dvlp += struct.pack(f"<{len(code)}I", *code)
    dvlp += b"".join(struct.pack("<2I", op, 0) for op in opdescs)
    return head + dvlp + b"".join(dvles)


# -- sample A: three DVLEs (vertex, fixed-mode geometry, variable-mode geometry) ------------

CODE_A = [0x4E000000 | i << 8 | i for i in range(9)]
OPDESCS_A = [0x0000036F, 0x00000F1B, 0x7FFFFFFF]

DVLE_A0 = DvleFields(
    main=0,
    endmain=5,
    in_mask=0x3,
    out_mask=0x7,
    constants=[
        constant(2, 95, 0x3F0000, 0xBF0000, 0x3E0000, 0x408000),  # 1, -1, 0.5, 3
        constant(1, 0, 0xFF030201),  # i0 = (1, 2, 3, 255)
        constant(0, 3, 1),  # b3 = true
        constant(2, 94, 0, 0, 0, 0x800000),
    ],  # (0, 0, 0, -0)
    outputs=[output(0, 0, 0xF), output(2, 1, 0xF), output(3, 2, 0x3), output(5, 2, 0xC)],
    uniforms=[
        ("inpos", 0x00, 0x00),
        ("inclr", 0x01, 0x01),
        ("projection", 0x10, 0x13),
        ("obj.color", 0x14, 0x14),
        ("loop.params", 0x71, 0x71),
        ("flags.b2", 0x7A, 0x7A),
    ],
).to_bytes()
DVLE_A1 = DvleFields(
    shader_type=1,
    merge=1,
    main=5,
    endmain=9,
    out_mask=0x7,
    gsh=(2, 8, 0, 3),
    constants=[constant(2, 20, 0x3F0000, 0, 0, 0x3F0000)],
    outputs=[output(0, 0, 0xF), output(9, 1, 0xF), output(2, 2, 0x7)],
    uniforms=[("gsh.mats", 0x18, 0x1B), ("gsh.flag", 0x78, 0x78)],
).to_bytes()
DVLE_A2 = DvleFields(shader_type=1, main=9, endmain=9, gsh=(1, 0, 4, 0)).to_bytes()
SAMPLE_A = picasso_shbin(CODE_A, OPDESCS_A, [DVLE_A0, DVLE_A1, DVLE_A2])

EXPECTED_A = Shbin(
    Program(CODE_A, OPDESCS_A),
    (
        Dvle(
            shader_type=ShaderType.VERTEX,
            main_offset=0,
            endmain_offset=5,
            input_mask=0x3,
            output_mask=0x7,
            constants=(
                Constant(ConstantKind.FLOAT, 95, (0x3F0000, 0xBF0000, 0x3E0000, 0x408000)),
                Constant(ConstantKind.INT, 0, (0xFF030201, 0, 0, 0)),
                Constant(ConstantKind.BOOL, 3, (1, 0, 0, 0)),
                Constant(ConstantKind.FLOAT, 94, (0, 0, 0, 0x800000)),
            ),
            outputs=(
                OutputEntry(OutputSemantic.POSITION, 0, 0xF),
                OutputEntry(OutputSemantic.COLOR, 1, 0xF),
                OutputEntry(OutputSemantic.TEXCOORD0, 2, 0x3),
                OutputEntry(OutputSemantic.TEXCOORD1, 2, 0xC),
            ),
            uniforms=(
                Uniform("inpos", 0x00, 0x00),
                Uniform("inclr", 0x01, 0x01),
                Uniform("projection", 0x10, 0x13),
                Uniform("obj.color", 0x14, 0x14),
                Uniform("loop.params", 0x71, 0x71),
                Uniform("flags.b2", 0x7A, 0x7A),
            ),
        ),
        Dvle(
            shader_type=ShaderType.GEOMETRY,
            merge_outmaps=True,
            main_offset=5,
            endmain_offset=9,
            output_mask=0x7,
            geometry_mode=GeometryMode.FIXED,
            fixed_vertex_start=8,
            variable_vertex_count=0,
            fixed_vertex_count=3,
            constants=(Constant(ConstantKind.FLOAT, 20, (0x3F0000, 0, 0, 0x3F0000)),),
            outputs=(
                OutputEntry(OutputSemantic.POSITION, 0, 0xF),
                OutputEntry(OutputSemantic.DUMMY, 1, 0xF),
                OutputEntry(OutputSemantic.COLOR, 2, 0x7),
            ),
            uniforms=(Uniform("gsh.mats", 0x18, 0x1B), Uniform("gsh.flag", 0x78, 0x78)),
        ),
        Dvle(
            shader_type=ShaderType.GEOMETRY,
            main_offset=9,
            endmain_offset=9,
            geometry_mode=GeometryMode.VARIABLE,
            variable_vertex_count=4,
        ),
    ),
)

# -- sample B: one vertex DVLE with no tables at all, no opdescs ---------------------------

SAMPLE_B = picasso_shbin([0x88000000], [], [DvleFields(main=0, endmain=1).to_bytes()])
EXPECTED_B = Shbin(Program([0x88000000]), (Dvle(main_offset=0, endmain_offset=1),))


def test_builder_offsets_match_the_formulas_by_hand():
    # dvlpSize = 0x28 + 4*9 + 8*3 = 100; off[0] = 8 + 4*3 + 100 = 120.
    assert struct.unpack_from("<3I", SAMPLE_A, 8) == (120, 120 + 280, 120 + 280 + 144)
    # DVLE 0: 0x40 + 4*20 + 4*8 + 6*8 + 54 = 278 bytes, padded to 280 with two zeros.
    assert len(DVLE_A0) == 280 and DVLE_A0[-2:] == b"\0\0"
    # DVLE 1: 0x40 + 20 + 3*8 + 2*8 + 18 = 142, padded to 144.
    assert len(DVLE_A1) == 144
    assert len(SAMPLE_A) == 120 + 280 + 144 + 0x40


def test_reads_every_field_of_sample_a():
    shbin = Shbin.from_bytes(SAMPLE_A)
    assert shbin == EXPECTED_A
    assert shbin.warnings == ()
    vertex, fixed, variable = shbin.entries
    assert vertex.shader_type is ShaderType.VERTEX and vertex.version == 0x1002
    assert (vertex.input_mask, vertex.output_mask) == (0x3, 0x7)
    assert [u.name for u in vertex.uniforms][3:5] == ["obj.color", "loop.params"]
    assert fixed.merge_outmaps is True and fixed.geometry_mode is GeometryMode.FIXED
    assert (fixed.fixed_vertex_start, fixed.fixed_vertex_count) == (8, 3)
    assert variable.geometry_mode is GeometryMode.VARIABLE
    assert variable.variable_vertex_count == 4
    assert shbin.program.code == tuple(CODE_A) and shbin.program.opdescs == tuple(OPDESCS_A)
    assert shbin.opdesc_high == () and shbin.dvlp_version == 0


@pytest.mark.parametrize(("data", "expected"), [(SAMPLE_A, EXPECTED_A), (SAMPLE_B, EXPECTED_B)])
def test_picasso_files_rewrite_byte_identical(data, expected):
    assert Shbin.from_bytes(data).to_bytes() == data
    assert Shbin.from_bytes(data).to_bytes(preserve_layout=True) == data
    # The writer alone (no parsed layout) produces picasso's bytes.
    assert expected.to_bytes() == data
    assert Shbin.from_bytes(data) == expected


def test_trailing_bytes_are_tolerated():
    # shbin-format.md#round-trip: the TIC-80 port embeds a picasso file with one extra NUL.
    shbin = Shbin.from_bytes(SAMPLE_A + b"\0")
    assert shbin == EXPECTED_A
    assert shbin.to_bytes() == SAMPLE_A
    assert shbin.to_bytes(preserve_layout=True) == SAMPLE_A + b"\0"


def test_constant_accessors_from_raw_words():
    float_c, int_c, bool_c, neg_zero = EXPECTED_A.entries[0].constants
    assert float_c.f24 == (0x3F0000, 0xBF0000, 0x3E0000, 0x408000)
    assert int_c.ints == (1, 2, 3, 255)
    assert bool_c.value is True
    assert Constant.from_ints(0, (1, 2, 3, 255)) == int_c
    assert Constant.from_bool(3, True) == bool_c
    assert Constant.from_f24(94, (0, 0, 0, 0x800000)) == neg_zero


def test_constant_float_conversions():
    pytest.importorskip("gpuisa.floats")
    float_c = EXPECTED_A.entries[0].constants[0]
    assert float_c.floats == (1.0, -1.0, 0.5, 3.0)
    # the examples of shbin-format.md#f24-constants
    assert Constant.from_floats(95, (1.0, -1.0, 0.5, 3.0)) == float_c


def test_uniform_helpers():
    uniforms = EXPECTED_A.entries[0].uniforms
    assert [(u.bank, u.register, u.count) for u in uniforms] == [
        ("v", 0, 1),
        ("v", 1, 1),
        ("c", 0, 4),
        ("c", 4, 1),
        ("i", 1, 1),
        ("b", 2, 1),
    ]
    assert Uniform.in_bank("projection", "c", 0, 4) == uniforms[2]
    assert Uniform.in_bank("x", "b", 15).first == 0x87
    assert Uniform("odd", 0x74, 0x74).bank is None
    assert EXPECTED_A.entries[1].uniform("gsh.flag") == Uniform("gsh.flag", 0x78, 0x78)
    with pytest.raises(InputError):
        Uniform.in_bank("x", "r", 0)


def test_output_entry_keeps_unknown_semantics_and_upper_bits():
    entry = OutputEntry(7, 3, 0x5, upper=0xABCDEF)
    assert entry.semantic == 7 and not entry.known and entry.components == "xz"
    assert OutputEntry(8, 0).semantic is OutputSemantic.VIEW
    data = picasso_shbin(
        [0], [],
        [DvleFields(outputs=[output(7, 3, 0x5, 0xABCDEF), output(0x1234, 4, 0xF)]).to_bytes()],
    )
    shbin = Shbin.from_bytes(data)
    assert shbin.entries[0].outputs == (entry, OutputEntry(0x1234, 4, 0xF))
    assert shbin.to_bytes() == data


def test_labels_are_written_between_constants_and_outputs():
    # picasso never writes labels; ours go where aemstro puts them (shbin-format.md#offsets), names
    # after the uniform names.
    dvle = Dvle(
        main_offset=0,
        endmain_offset=1,
        constants=(Constant.from_bool(0, False),),
        outputs=(OutputEntry(OutputSemantic.POSITION, 0),),
        uniforms=(Uniform("u", 0x10, 0x10),),
        labels=(Label(1, 0, "main"), Label(2, 1, "end", unknown=7)),
    )
    data = Shbin(Program([0, 0]), (dvle,)).to_bytes()
    base = struct.unpack_from("<I", data, 8)[0]
    tables = struct.unpack_from("<10I", data, base + 0x18)
    assert tables == (0x40, 1, 0x54, 2, 0x74, 1, 0x7C, 1, 0x84, 11)
    assert struct.unpack_from("<4I", data, base + 0x54) == (1, 0, 0, 2)
    assert struct.unpack_from("<4I", data, base + 0x64) == (2, 1, 7, 7)
    assert data[base + 0x84 : base + 0x84 + 11] == b"u\0main\0end\0"
    assert Shbin.from_bytes(data).entries == (dvle,)


def test_records_reject_bad_construction():
    with pytest.raises(InputError):
        Dvle(shader_type=5)
    with pytest.raises(InputError):
        Dvle(geometry_mode=3)
    with pytest.raises(InputError):
        Dvle(constants=[Uniform("x", 0, 0)])
    with pytest.raises(InputError):
        Constant(ConstantKind.FLOAT, 0, (1, 2, 3))
    with pytest.raises(InputError):
        Constant(7, 0)
    with pytest.raises(InputError):
        Constant.from_ints(0, (1, 2, 3, 256))
    with pytest.raises(InputError):
        Shbin(Program([0], [1, 2]), opdesc_high=(0xF,))
    with pytest.raises(InputError):
        Shbin([0])
    with pytest.raises(InputError):
        Shbin.from_bytes("DVLB")
    with pytest.raises(InputError, match=r"Uniform\.first is str"):
        Uniform("x", "c0", 0)
    with pytest.raises(InputError, match=r"Uniform\.name is int"):
        Uniform(5, 0x10, 0x10)
    with pytest.raises(InputError, match=r"Label\.name is NoneType"):
        Label(0, 0, None)
    with pytest.raises(InputError, match=r"OutputEntry\.mask is str"):
        OutputEntry(0, 0, "xyzw")
    with pytest.raises(InputError, match=r"Constant\.words\[1\] is float"):
        Constant(ConstantKind.FLOAT, 0, (0, 1.0, 0, 0))
    with pytest.raises(InputError, match=r"Dvle\.main_offset is NoneType"):
        Dvle(main_offset=None)
    with pytest.raises(InputError, match="entries must be a sequence"):
        Shbin(Program([0]), entries=5)


def test_lists_become_tuples_and_zero_high_words_normalize():
    dvle = Dvle(constants=[Constant(2, 0, [0, 0, 0, 0])])
    assert isinstance(dvle.constants, tuple) and isinstance(dvle.constants[0].words, tuple)
    assert Shbin(Program([], [5, 6]), opdesc_high=[0, 0]).opdesc_high == ()
    assert Shbin(Program([], [5, 6]), opdesc_high=[0, 15]).opdesc_high == (0, 15)


def test_files_round_trip(tmp_path):
    path = tmp_path / "a.shbin"
    EXPECTED_A.to_file(path)
    assert path.read_bytes() == SAMPLE_A
    assert Shbin.from_file(path) == EXPECTED_A
    assert [p.name for p in tmp_path.iterdir()] == ["a.shbin"]


def test_to_file_leaves_existing_file_on_error(tmp_path, monkeypatch):
    path = tmp_path / "a.shbin"
    path.write_bytes(b"old")
    bad = Shbin(Program([0]), (Dvle(main_offset=2**32),))
    with pytest.raises(GpuIsaError):
        bad.to_file(path)
    assert path.read_bytes() == b"old"

    def failing_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("os.replace", failing_replace)
    with pytest.raises(InputError, match="No space left"):
        EXPECTED_A.to_file(path)
    assert path.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["a.shbin"]


def test_file_errors_are_input_errors(tmp_path):
    with pytest.raises(InputError, match="cannot read"):
        Shbin.from_file(tmp_path / "missing.shbin")
    with pytest.raises(InputError, match="cannot write"):
        EXPECTED_A.to_file(tmp_path / "no" / "dir.shbin")


def test_strict_mode_accepts_clean_files():
    assert Shbin.from_bytes(SAMPLE_A, strict=True) == EXPECTED_A


def test_shbin_error_is_raised_not_other_exceptions_for_non_shbin():
    with pytest.raises(ShbinError):
        Shbin.from_bytes(b"\x7fELF" + bytes(60))
