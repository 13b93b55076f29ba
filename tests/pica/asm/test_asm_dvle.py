"""DVLE contents: constants, outputs, uniforms, inputs, entry points, geometry settings,
and a whole SHBIN compared byte for byte with one built by hand from shbin-format.md.

float24 patterns follow picasso's truncating conversion (shbin-format.md#f24-constants):
sign << 23 | (e32 - 64) << 16 | mantissa32 >> 7; 1.0 = 0x3F0000, -1.0 = 0xBF0000,
0.5 = 0x3E0000, 3.0 = 0x408000, -0.0 = 0x800000, overflow = +-0x7F0000.
"""

from asm_testutil import END, build, opdesc, shbin_bytes
from shbin_testutil import DvleFields, constant, output

from gpuisa.pica.shbin import (
    Constant,
    ConstantKind,
    GeometryMode,
    OutputEntry,
    OutputSemantic,
    ShaderType,
    Uniform,
)

QUICK_REFERENCE = """\
; vertex shader
.fvec projection[4]
.constf consts(0.0, 1.0, -1.0, 0.5)
.alias  ones consts.yyyy
.out outpos position
.out outtc  texcoord0.xy
.in  inpos
.in  intc

.proc main
    mov r0.xyz, inpos
    mov r0.w, ones
    dp4 outpos.x, projection[0], r0
    dp4 outpos.y, projection[1], r0
    dp4 outpos.z, projection[2], r0
    dp4 outpos.w, projection[3], r0
    mov outtc, intc
    end
.end
"""


def test_quick_reference_example_byte_for_byte():
    # pica-assembly.md#example: projection = c0-c3, consts = c95, inpos/intc = v0/v1,
    # outpos/outtc = o0/o1
    code = [
        0x13 << 26 | 0x10 << 21 | 0x00 << 12 | 0,  # mov r0.xyz, v0
        0x13 << 26 | 0x10 << 21 | 0x7F << 12 | 1,  # mov r0.w, c95.yyyy
        0x02 << 26 | 0x00 << 21 | 0x20 << 12 | 0x10 << 7 | 2,  # dp4 o0.x, c0, r0
        0x02 << 26 | 0x00 << 21 | 0x21 << 12 | 0x10 << 7 | 3,
        0x02 << 26 | 0x00 << 21 | 0x22 << 12 | 0x10 << 7 | 4,
        0x02 << 26 | 0x00 << 21 | 0x23 << 12 | 0x10 << 7 | 5,
        0x13 << 26 | 0x01 << 21 | 0x01 << 12 | 6,  # mov o1, v1
        END,
    ]
    # descriptor masks differ (x = 8, y = 4, z = 2, w = 1), so nothing merges
    opdescs = [opdesc(0xE, "xyzw"), opdesc(0x1, "yyyy"), opdesc(0x8, "xyzw", "xyzw"),
               opdesc(0x4, "xyzw", "xyzw"), opdesc(0x2, "xyzw", "xyzw"),
               opdesc(0x1, "xyzw", "xyzw"), opdesc(0xF, "xyzw")]
    dvle = DvleFields(
        main=0, endmain=8, in_mask=0x3, out_mask=0x3,
        constants=[constant(2, 95, 0x000000, 0x3F0000, 0xBF0000, 0x3E0000)],
        # output mask: x = bit 0 ... w = bit 3
        outputs=[output(0, 0, 0xF), output(3, 1, 0x3)],
        # sorted by register: inputs (0x00-0x0F) first, then c0-c3 = 0x10-0x13
        uniforms=[("inpos", 0x00, 0x00), ("intc", 0x01, 0x01), ("projection", 0x10, 0x13)],
    ).to_bytes()
    expected = shbin_bytes(code, opdescs, [dvle])
    assert build(QUICK_REFERENCE).shbin.to_bytes() == expected


def dvle_of(text: str, index: int = 0):
    return build(text).shbin.entries[index]


MAIN = "\n.proc main\n    end\n.end\n"


def test_constants_in_declaration_order():
    d = dvle_of(".constf a(1.0, 0.5, 3.0, -1.0)\n.setb b3 on\n.constfa t[]\n"
                ".constfa (0.0, 0.0, 0.0, 1.0)\n.constfa (1.0, 1.0, 1.0, 1.0)\n.end\n"
                ".seti i2(1, 2, -1, 256)\n.consti k(4, 0, 1, 0)\n.setf c7(0, 0, 0, 0)" + MAIN)
    assert d.constants == (
        Constant(ConstantKind.FLOAT, 95, (0x3F0000, 0x3E0000, 0x408000, 0xBF0000)),
        Constant(ConstantKind.BOOL, 3, (1, 0, 0, 0)),
        # the array: 2 registers below c95, ascending
        Constant(ConstantKind.FLOAT, 93, (0, 0, 0, 0x3F0000)),
        Constant(ConstantKind.FLOAT, 94, (0x3F0000,) * 4),
        # int components are bytes x | y << 8 | z << 16 | w << 24; -1 -> 255, 256 -> 0
        Constant(ConstantKind.INT, 2, (1 | 2 << 8 | 255 << 16 | 0 << 24, 0, 0, 0)),
        Constant(ConstantKind.INT, 3, (4 | 0 << 8 | 1 << 16 | 0 << 24, 0, 0, 0)),
        Constant(ConstantKind.FLOAT, 7, (0, 0, 0, 0)),
    )


def test_float_constant_conversion_truncates():
    d = dvle_of(".constf a(1.0000001, -0.0, 1e30, -inf)\n.constf b(nan, 0x1p-62, 1e-30, 1.5e0)"
                + MAIN)
    # 1.0000001 -> float32 0x3F800001: the low 7 mantissa bits are dropped -> 1.0.
    # 1e30 = 2^99.66: exponent 99 + 63 > 127 -> infinity.  nan -> +infinity.
    # 2^-62: e32 = 65 -> e24 = 1, mantissa 0.  1e-30 (2^-99.66) -> +0.
    assert d.constants[0].words == (0x3F0000, 0x800000, 0x7F0000, 0xFF0000)
    assert d.constants[1].words == (0x7F0000, 0x010000, 0x000000, 0x3F8000)


def test_float_constant_conversion_keeps_picasso_patterns():
    # [2^64, 2^65): e24 = 127 with a mantissa (a NaN pattern); 2^-63 * 1.5: e24 = 0 with
    # the mantissa kept (a denormal pattern)
    d = dvle_of(".constf a(0x1.8p64, 0x1.8p-63, 0, 0)" + MAIN)
    assert d.constants[0].words[:2] == (0x7F8000, 0x008000)


def test_uniform_table_sorted_by_register_and_symbol_names():
    d = dvle_of(".bool flag\n.ivec cfg\n.fvec obj$color, _private, mtx[3]\n.in pos\n.in nrm v5"
                + MAIN)
    # ids: flag b0 -> 0x78, cfg i0 -> 0x70, obj$color c0 -> 0x10, _private c1 (no entry),
    # mtx c2-c4 -> 0x12-0x14; inputs keep their v number; '$' is written as '.'
    assert d.uniforms == (Uniform("pos", 0x00, 0x00), Uniform("nrm", 0x05, 0x05),
                          Uniform("obj.color", 0x10, 0x10), Uniform("mtx", 0x12, 0x14),
                          Uniform("cfg", 0x70, 0x70), Uniform("flag", 0x78, 0x78))
    assert d.input_mask == 1 << 0 | 1 << 5


def test_inputs_take_the_lowest_free_register():
    d = dvle_of(".in a v0\n.in b v2\n.in c\n.in d" + MAIN)
    assert [u.first for u in d.uniforms] == [0, 1, 2, 3]
    assert d.input_mask == 0xF


def test_outputs():
    d = dvle_of(".out p pos\n.out c clr\n.out t0 tcoord0.xy\n.out - texcoord1 o2.zw\n"
                ".out n nquat\n.out v view.xyz\n.out w TEXCOORD0W\n.out t2 texcoord2 o6.x\n"
                ".out d dummy o9" + MAIN)
    assert d.outputs == (
        OutputEntry(OutputSemantic.POSITION, 0, 0xF),
        OutputEntry(OutputSemantic.COLOR, 1, 0xF),
        OutputEntry(OutputSemantic.TEXCOORD0, 2, 0x3),
        OutputEntry(OutputSemantic.TEXCOORD1, 2, 0xC),
        # o2 is taken (whole register) although z/w were free: next is o3
        OutputEntry(OutputSemantic.NORMALQUAT, 3, 0xF),
        OutputEntry(OutputSemantic.VIEW, 4, 0x7),
        OutputEntry(OutputSemantic.TEXCOORD0W, 5, 0xF),
        OutputEntry(OutputSemantic.TEXCOORD2, 6, 0x1),
        OutputEntry(OutputSemantic.DUMMY, 9, 0xF),
    )
    assert d.output_mask == 0b10_0111_1111
    assert not d.merge_outmaps


def test_output_alias_and_mask_from_register_swizzle():
    result = build(".alias dst o1\n.out x color dst.wz\n.proc main\n    mov x, r0\n    end\n"
                   ".end\n")
    d = result.shbin.entries[0]
    assert d.outputs == (OutputEntry(OutputSemantic.COLOR, 1, 0xC),)
    assert result.shbin.program.code[0] == 0x13 << 26 | 0x01 << 21 | 0x10 << 12
    warnings = [w.message for w in result.warnings]
    assert "arbitrary swizzling has no effect for destination mask" in warnings


def test_blargsnes_style_alias_shadowing_a_register_name():
    # `.out o0 position` creates an alias literally named o0
    d = dvle_of(".out o0 color o1\n.proc main\n    mov o0, r0\n    end\n.end\n")
    code = build(".out o0 color o1\n.proc main\n    mov o0, r0\n    end\n.end\n")
    assert d.outputs == (OutputEntry(OutputSemantic.COLOR, 1, 0xF),)
    assert code.shbin.program.code[0] == 0x13 << 26 | 0x01 << 21 | 0x10 << 12


def test_entry_directive():
    result = build(".proc helper\n    nop\n.end\n.entry vmain\n.proc vmain\n    end\n.end\n")
    d = result.shbin.entries[0]
    assert (d.main_offset, d.endmain_offset) == (1, 2)


def test_vertex_shader_header_fields():
    d = dvle_of(".in a" + MAIN)
    assert d.shader_type is ShaderType.VERTEX
    assert (d.geometry_mode, d.fixed_vertex_start, d.variable_vertex_count,
            d.fixed_vertex_count) == (GeometryMode.POINT, 0, 0, 0)


def test_geometry_point_mode_and_private_uniform_space():
    d = dvle_of(".gsh point c10\n.fvec m[2]\n.bool " + ", ".join(f"b{i}x" for i in range(15))
                + "\n.constf k(1, 1, 1, 1)\n.out p position\n.out - dummy" + MAIN)
    assert d.shader_type is ShaderType.GEOMETRY
    assert d.geometry_mode is GeometryMode.POINT
    assert d.merge_outmaps  # a dummy output in a .gsh MODE shader
    uniforms = {u.name: (u.first, u.last) for u in d.uniforms}
    # floats from c10 (0x1A), bools b0-b14 (0x78-0x86)
    assert uniforms["m"] == (0x1A, 0x1B)
    assert uniforms["b14x"] == (0x86, 0x86)
    assert d.constants[0].register == 95


def test_geometry_bool_space_stops_at_b14():
    from asm_testutil import errors

    line = ".bool " + ", ".join(f"f{i}" for i in range(16))
    assert errors(".gsh point c0\n" + line + MAIN) == [
        ("test.pica", 2, line.index("f15") + 1, "not enough uniform space: f15[1]")]


def test_geometry_variable_and_fixed_modes():
    d = dvle_of(".gsh variable c4 3" + MAIN)
    assert (d.geometry_mode, d.variable_vertex_count) == (GeometryMode.VARIABLE, 3)
    d = dvle_of(".gsh subdivision c4 0x10" + MAIN)
    assert d.variable_vertex_count == 16
    d = dvle_of(".gsh fixed c8 c4 3" + MAIN)
    assert (d.geometry_mode, d.fixed_vertex_start, d.fixed_vertex_count) == (
        GeometryMode.FIXED, 4, 3)
    d = dvle_of(".gsh particle c8 c2 010" + MAIN)
    assert (d.fixed_vertex_start, d.fixed_vertex_count) == (2, 8)  # 010 is octal


def test_legacy_gsh_and_setemit_make_a_compat_geometry_shader():
    for text in (".gsh\n.fvec a\n.out - dummy" + MAIN,
                 ".fvec a\n.out - dummy\n.proc main\n    setemit 0\n    end\n.end\n"):
        d = dvle_of(text)
        assert d.shader_type is ShaderType.GEOMETRY
        assert d.geometry_mode is GeometryMode.POINT
        assert not d.merge_outmaps  # compat shaders do not merge output maps
        assert d.uniforms == (Uniform("a", 0x10, 0x10),)  # shared vertex space


def test_geometry_shader_outputs_are_limited_to_o6():
    from asm_testutil import errors

    assert errors(".gsh\n.proc main\n    mov o7, r0\n    end\n.end\n") == [
        ("test.pica", 3, 9, "invalid output register: o7")]


def test_float_constant_is_rounded_to_float32_before_truncation():
    # 1 + 2^-16 - 2^-25: the double rounds (nearest) to the float32 1 + 2^-16, whose
    # mantissa bit 7 survives the truncation to 16 bits: float24 0x3F0001.  Truncating
    # the double directly would give 0x3F0000.
    d = dvle_of(".constf a(1.0000152289867401123046875, 0, 0, 0)" + MAIN)
    assert d.constants[0].words[0] == 0x3F0001
