"""Every error message, with its exact text and location (file:line:column).

Message texts are picasso's (pica-assembly.md#directives, pica-assembly.md#operand-checks,
pica-assembly.md#messages) unless marked as gpuisa's own.  The column is that of the offending
token, given here as the token's text: the test looks it up in the source line (``where``), or as an
explicit column.
"""

import re

import pytest
from asm_testutil import errors

from gpuisa.errors import SourceError
from gpuisa.pica.asm import assemble_with_warnings


def main(*lines: str) -> str:
    """The lines inside ``.proc main`` (the first of them is line 2)."""
    return ".proc main\n" + "\n".join(lines) + "\nend\n.end\n"


def at(text: str, line: int, where: str | int, message: str, file: str = "test.pica"):
    """Expected error: ``where`` is the offending token (its first occurrence in the line)
    or a 1-based column."""
    source_line = text.split("\n")[line - 1]
    column = where if isinstance(where, int) else source_line.index(where) + 1
    return (file, line, column, message)


# (source, line, token or column, message)
INSTRUCTION_ERRORS = [
    (main("foo r0"), 2, "foo", "invalid instruction: foo"),
    (main("mov r0"), 2, 7, "missing parameter"),
    (main("mov r0, r1, r2"), 2, "r2", "too many parameters"),
    (main("mov r0, q1"), 2, "q1", "invalid register: q1"),
    (main("mov r0, r1.xyzwx"), 2, "xyzwx", "invalid swizzling mask: xyzwx"),
    (main("mov r0, r1.xe"), 2, "xe", "invalid swizzling mask: xe"),
    (main("mov r0, c1[2"), 2, "c1[2", "missing closing bracket: c1[2"),
    (main("mov r0, c1[2+a0.x]"), 2, "2+", "invalid index register: 2"),
    (main("mov r0.x[a0.x], r1"), 2, "a0.x", "index register not allowed here: a0.x"),
    (main("mov r0, r1[a0.x]"), 2, "r1",
     "index register not allowed with this kind of register"),
    (main("mov r0, c1[foo]"), 2, "foo", "invalid register offset: foo"),
    (main("mov r0, c1[a0.x-x]"), 2, 17, "invalid register offset: x"),
    (main("mov r0, r1[-2]"), 2, "-2", "invalid register offset: -2"),
    (main("mov r0, c1[1]x"), 2, "x", "garbage found: x"),
    (main("mov r0, r1x"), 2, "r1x", "invalid register: r1x"),
    (main("mov r0, r08"), 2, "r08", "invalid register: r08"),
    (main("mov r0, c300"), 2, "c300", "Value out of range (0..255): 300"),
    (main("mov r0, v16"), 2, "v16", "invalid input register: v16"),
    (main("mov o16, r0"), 2, "o16", "invalid output register: o16"),
    (main("mov r16, r0"), 2, "r16", "invalid temporary register: r16"),
    (main("mov r0, c96"), 2, "c96", "invalid floating-point vector uniform register: c96"),
    (main("mov r0, i4"), 2, "i4", "invalid integer vector uniform register: i4"),
    (main("mov r0, b16"), 2, "b16", "invalid boolean uniform register: b16"),
    (main("mov r0, i0"), 2, "i0", "invalid source1 register: i0"),
    (main("mov c0, r0"), 2, "c0", "invalid destination register: c0"),
    (main("mov -c0.x, r0"), 2, "-c0", "invalid destination register: -c0"),
    (main("add r0, r1, c0"), 2, "c0", "invalid source2 register: c0"),
    (".alias t r1\n" + main("add r0, c0, t[a0.x]"), 3, "t[",
     "index register not allowed in source2"),
    (".alias t r1\n" + main("dph r0, t[a0.x], c0"), 3, "t[",
     "index register not allowed in source1"),
    (main("add r0, v0, v1"), 2, "v1",
     "source operands must be different input registers (v0..v15)"),
    (main("mad r0, v0, r1, v1"), 2, 17,
     "source registers must be different input registers (v0..v15)"),
    # picasso's MAD quirks: src1 is checked as "source2", and an index register on src3 of
    # the normal form is reported for "source2"
    (main("mad r0, c0, r1, r2"), 2, "c0", "invalid source2 register: c0"),
    (main("mad r0, r1, c0, c1"), 2, "c1", "invalid source3 register: c1"),
    (".alias t r2\n" + main("mad r0, r1, c0, t[a0.x]"), 3, "t[",
     "index register not allowed in source2"),
    (main("mad r0, r1[a0.x], r2, r3"), 2, "a0.x", "index register not allowed here: a0.x"),
    (main("mova a2, r0"), 2, "a2", "invalid destination register for mova: a2"),
    (main("cmp r0, xx, eq, r1"), 2, "xx", "invalid conditional operator: xx"),
    (main("cmp r0, eq, eq, c1"), 2, "c1", "invalid source2 register: c1"),
    (main("call 1abc"), 2, "1abc", "invalid target: 1abc"),
    (main("jmpc cmp.x, a b"), 2, "a b", "invalid target: a b"),
    (main("ifu c0", ".end"), 2, "c0", "invalid boolean uniform: c0"),
    (main("ifu !b0", ".end"), 2, "!b0", "Inverting the condition is not supported by IFU"),
    (main("callu !b0, main"), 2, "!b0", "Inverting the condition is not supported by CALLU"),
    (main("for c0", ".end"), 2, "c0", "invalid integer vector uniform: c0"),
    (main("ifc cmp.z", ".end"), 2, "cmp.z", "invalid condition register: cmp.z"),
    (main("ifc !cmp.w", ".end"), 2, "cmp.w", "invalid condition register: cmp.w"),
    (main("ifc cmp.x && cmp.q", ".end"), 2, "cmp.q", "invalid condition register: cmp.q"),
    (main("breakc cmp.x && cmp.x"), 2, "cmp.x", "condition register checked twice"),
    (main("setemit 3"), 2, "3", "Value out of range (0..2): 3"),
    (main("setemit x"), 2, "x", "Invalid value: x"),
    (main("setemit 1x"), 2, "1x", "Invalid value: 1x"),
    (main("setemit 0, prim foo"), 2, "foo", "unknown setemit flag: foo"),
    (main("call nowhere"), 2, "nowhere", "procedure 'nowhere' is undefined"),
    (main("jmpc cmp.x, nowhere"), 2, "nowhere", "label 'nowhere' is undefined"),
    (main("1lbl: nop"), 2, "1lbl", "invalid label name: 1lbl"),
    (main("a b: nop"), 2, "a b", "invalid label name: a b"),
    (main("a:", "a: nop"), 3, "a", "duplicate label: a"),
    ("nop\n.proc main\nend\n.end\n", 1, "nop", "instruction outside block"),
    ("foo\n.proc main\nend\n.end\n", 1, "foo", "instruction outside block"),
    # an empty operand between two commas is an empty register name (pica-assembly.md#statements)
    (main("add r0, , r1"), 2, 9, "invalid register: "),
    (main("mov r0, c0.x[1]"), 2, "c0.x", "invalid register: c0.x"),
    (main("mov r0, c8[4x]"), 2, "4x", "invalid register offset: 4x"),
    (main("mov r0, c0[foo+1]"), 2, "foo", "invalid index register: foo"),
    (main("callu c0, main"), 2, "c0", "invalid boolean uniform: c0"),
    (main("jmpu c1, L", "L:"), 2, "c1", "invalid boolean uniform: c1"),
    (main("jmpu b16, L", "L:"), 2, "b16", "invalid boolean uniform register: b16"),
    # both sources wide: no I-form can hold them
    (main("dph r0, c0, c1"), 2, "c1", "invalid source2 register: c1"),
    (main("mov r0, r1", "slt r0, v0, v1"), 3, "v1",
     "source operands must be different input registers (v0..v15)"),
    # MADI (src2 narrow, src3 wide) with an index register on src2 (only through an alias)
    (".alias t r2\n" + main("mad r0, r1, t[a0.x], c0"), 3, "t[",
     "index register not allowed in source2"),
    (main("mad r0, r1, c0, c1[a0.x]"), 2, "c1", "invalid source3 register: c1"),
    (main("cmp c0, eq, lt, c1"), 2, "c1", "invalid source2 register: c1"),
    (main("cmp i0, eq, lt, r1"), 2, "i0", "invalid source1 register: i0"),
    (main("cmp r0, eq, 6, r1"), 2, "6", "invalid conditional operator: 6"),
    (main("for i0", "nop", "breakc cmp.y || !!cmp.y", ".end"), 4, "cmp.y",
     "condition register checked twice"),
    # missing and extra operands of every instruction shape
    (main("nop x"), 2, "x", "too many parameters"),
    (main("mova a0.x"), 2, 10, "missing parameter"),
    (main("cmp r0, eq, eq"), 2, 15, "missing parameter"),
    (main("mad r0, r1, r2"), 2, 15, "missing parameter"),
    (main("setemit"), 2, 8, "missing parameter"),
    (main("setemit 0, prim, x"), 2, 18, "too many parameters"),
    (main("call"), 2, 5, "missing parameter"),
    (main("callc cmp.x"), 2, 12, "missing parameter"),
    (main("jmpu b0"), 2, 8, "missing parameter"),
    (main("breakc"), 2, 7, "missing parameter"),
    (main("ifc", ".end"), 2, 4, "missing parameter"),
    (main("ifu", ".end"), 2, 4, "missing parameter"),
    (main("for", ".end"), 2, 4, "missing parameter"),
    (main("for i0, i1", ".end"), 2, "i1", "too many parameters"),
    # not picasso mnemonics (pica-assembly.md#mnemonics)
    *[(main(f"{name} r0"), 2, name, f"invalid instruction: {name}")
      for name in ("lit", "exp", "log", "loop", "endloop", "if", "else", "endif", "jmp",
                   "ret")],
]

DIRECTIVE_ERRORS = [
    (".foo\n" + main(), 1, ".foo", "invalid instruction: foo"),
    (main() + ".proc main\nend\n.end\n", 5, "main", "proc already exists: main"),
    (main() + ".proc\nend\n.end\n", 5, 6, "missing parameter"),
    (".alias 1x r0\n" + main(), 1, "1x", "invalid alias name: 1x"),
    (".alias r1 r0\n" + main(), 1, "r1", "cannot redefine register"),
    (".alias B2 r0\n" + main(), 1, "B2", "cannot redefine register"),
    (".alias x r0\n.alias x r1\n" + main(), 2, "x", "identifier already used: x"),
    (".alias x c0[a0.x]\n" + main(), 1, "a0.x", "index register not allowed here: a0.x"),
    (".alias x\n" + main(), 1, 9, "missing parameter"),
    (".alias x r0 r1\n" + main(), 1, "r1", "too many parameters"),
    (".fvec a[\n" + main(), 1, "a[", "missing closing bracket: a["),
    (".fvec a[0]\n" + main(), 1, "0", "invalid uniform size: a[0]"),
    (".fvec a[2x]\n" + main(), 1, "2x", "invalid uniform size: a[2x]"),
    (".fvec 1a\n" + main(), 1, "1a", "invalid uniform name: 1a"),
    (".fvec a\n.bool a\n" + main(), 2, "a", "identifier already used: a"),
    (".fvec a[97]\n" + main(), 1, "a", "not enough uniform space: a[97]"),
    (".constf a(1, 2)\n" + main(), 1, 16, "missing parameter"),
    (".constf a(1, 2, 3)\n" + main(), 1, 19, "invalid syntax"),
    (".constf a(1, 2, 3, 4, 5)\n" + main(), 1, ", 5",
     "too many values: a vector has four components"),
    (".constf 1a(1, 2, 3, 4)\n" + main(), 1, "1a", "invalid identifier: 1a"),
    (".constf a(1, 2, 3, 4)\n.consti a(1, 2, 3, 4)\n" + main(), 2, "a",
     "identifier already used: a"),
    (".fvec big[96]\n.constf k(1, 2, 3, 4)\n" + main(), 2, "k",
     "not enough space for local constant 'k'"),
    (".consti a(1, 2, 3, 4)\n.consti b(1, 2, 3, 4)\n.consti c(1, 2, 3, 4)\n"
     ".consti d(1, 2, 3, 4)\n.consti e(1, 2, 3, 4)\n" + main(), 5, "e",
     "not enough space for local constant 'e'"),
    (".setf c0(1, 2, 3, 4)\n" * 96 + ".setf c0(1, 2, 3, 4)\n" + main(), 97, ".setf",
     "too many local constants"),
    (".constfa a\n.constfa (1, 2, 3, 4)\n.end\n" + main(), 1, 10, "missing opening bracket: a"),
    (".constfa a[\n.constfa (1, 2, 3, 4)\n.end\n" + main(), 1, 10, "missing closing bracket: a["),
    (".constfa a[0]\n.end\n" + main(), 1, "0", "invalid array size: a[0]"),
    (".constfa 1a[]\n.end\n" + main(), 1, "1a", "invalid array name: 1a"),
    (".constfa a[1]\n.constfa (1, 2, 3, 4)\n.constfa (1, 2, 3, 4)\n.end\n" + main(), 3,
     ".constfa", "too many elements in the array, expected 1"),
    (".constfa a[]\n.constfa 1, 2, 3, 4)\n.end\n" + main(), 2, "1",
     "invalid syntax"),
    (".constfa a[]\n.constfa (1, 2, 3, 4\n.end\n" + main(), 2, 21, "invalid syntax"),
    (".constfa a[]\n.end\n" + main(), 1, 10, "no elements have been specified in array 'a'"),
    (".fvec big[95]\n.constfa a[2]\n.constfa (1, 2, 3, 4)\n.end\n" + main(), 2, 10,
     "not enough space for local constant array 'a'"),
    (".alias a r0\n.constfa a[]\n.constfa (1, 2, 3, 4)\n.end\n" + main(), 2, 10,
     "identifier already used: a"),
    (".setf r0(1, 2, 3, 4)\n" + main(), 1, "r0", "invalid floating point vector uniform: r0"),
    (".seti c0(1, 2, 3, 4)\n" + main(), 1, "c0", "invalid integer vector uniform: c0"),
    (".setf c0[a0.x](1, 2, 3, 4)\n" + main(), 1, "a0.x",
     "index register not allowed here: a0.x"),
    (".setb c0 true\n" + main(), 1, "c0", "invalid boolean uniform: c0"),
    (".setb b0 maybe\n" + main(), 1, "maybe", "invalid bool value: maybe"),
    (".in 1x\n" + main(), 1, "1x", "invalid identifier: 1x"),
    (".in x r0\n" + main(), 1, "r0", "invalid input register: r0"),
    ("".join(f".in x{i}\n" for i in range(17)) + main(), 17, ".in", "too many inputs"),
    (".fvec " + ", ".join(f"u{i}" for i in range(96)) + "\n.in x\n" + main(), 2, ".in",
     "too many uniforms in DVLE"),
    (".in x\n.fvec " + ", ".join(f"u{i}" for i in range(96)) + "\n" + main(), 2, "u95",
     "too many referenced uniforms: u95"),
    (".out 1x position\n" + main(), 1, "1x", "invalid identifier: 1x"),
    (".out x foo\n" + main(), 1, "foo", "invalid output type: foo"),
    (".out x position.e\n" + main(), 1, "e", "invalid output mask: e"),
    (".out x position r0\n" + main(), 1, "r0", "invalid output register: r0"),
    (".out a position o0\n.out b color o0.x\n" + main(), 2, "o0.x",
     "this output collides with another one previously defined"),
    (".out x position o7\n" + main(), 1, "o7", "this register (o7) can only be a dummy output"),
    (".out a position\n.out a color\n" + main(), 2, "a", "identifier already used: a"),
    (".gsh\n" + "".join(f".out x{i} dummy\n" for i in range(8)) + main(), 9, "dummy",
     "too many outputs"),
    (".out x position o1 extra\n" + main(), 1, "extra", "too many parameters"),
    (".entry 1x\n" + main(), 1, "1x", "invalid identifier: 1x"),
    (".gsh point c0\n.gsh point c0\n" + main(), 2, ".gsh", ".gsh had already been used"),
    (".fvec a\n.gsh point c1\n" + main(), 2, ".gsh",
     ".gsh must be used before any constant, uniform or output is declared"),
    (".gsh foo c0\n" + main(), 1, "foo", "invalid geometry shader mode: foo"),
    (".gsh point r0\n" + main(), 1, "r0", "invalid float uniform register: r0"),
    (".gsh point c0 1\n" + main(), 1, "1", "too many parameters"),
    (".gsh fixed c4 c5 3\n" + main(), 1, "c5",
     "specified location overlaps uniform allocation pool: c5"),
    (".gsh fixed c4 r0 3\n" + main(), 1, "r0", "invalid float uniform register: r0"),
    (".gsh variable c4 300\n" + main(), 1, "300", "Value out of range (0..255): 300"),
    (".gsh variable c4\n" + main(), 1, 17, "missing parameter"),
    (".gsh variable c4 3x\n" + main(), 1, "3x", "Invalid value: 3x"),
    (".gsh point\n" + main(), 1, 11, "missing parameter"),
    (".gsh fixed c8 c4\n" + main(), 1, 17, "missing parameter"),
    (".gsh fixed c8 c4 256\n" + main(), 1, "256", "Value out of range (0..255): 256"),
    (".in x\n.gsh point c0\n" + main(), 2, ".gsh",
     ".gsh must be used before any constant, uniform or output is declared"),
    (".setb b0 on\n.gsh point c0\n" + main(), 2, ".gsh",
     ".gsh must be used before any constant, uniform or output is declared"),
    (".out - dummy\n.gsh point c0\n" + main(), 2, ".gsh",
     ".gsh must be used before any constant, uniform or output is declared"),
    (main("setemit 0") + ".gsh point c0\n", 5, ".gsh", ".gsh had already been used"),
    # uniforms: every bank runs out
    (".ivec a, b, c, d, e\n" + main(), 1, 19, "not enough uniform space: e[1]"),
    (".bool f[16], g\n" + main(), 1, "g", "not enough uniform space: g[1]"),
    (".fvec a[4]\n.ivec a\n" + main(), 2, "a", "identifier already used: a"),
    # picasso checks the register's bank after the register parser: i4-i7 parse in strict
    # mode only, so the default mode reports the parser's message
    (".seti i4(1, 2, 3, 4)\n" + main(), 1, "i4", "invalid integer vector uniform register: i4"),
    (".setb b0\n" + main(), 1, 9, "missing parameter"),
    (".setb b0 on x\n" + main(), 1, "x", "too many parameters"),
    (".setf\n" + main(), 1, 6, "missing parameter"),
    (".setf c0(1, 2, 3, 4) x\n" + main(), 1, "x", "garbage found: x"),
    (".constf\n" + main(), 1, 8, "missing parameter"),
    (".constf k 1, 2, 3, 4\n" + main(), 1, 21, "missing parameter"),
    (".setf c0(1, 2, 3, 4)\n" * 96 + ".constf k(1, 2, 3, 4)\n" + main(), 97, ".constf",
     "too many local constants"),
    (".setf c0(1, 2, 3, 4)\n" * 95 + ".constfa t[2]\n.constfa (1, 2, 3, 4)\n.end\n" + main(),
     96, 10, "too many local constants"),
    (".constfa\n.constfa (1, 2, 3, 4)\n.end\n" + main(), 1, 9, "missing parameter"),
    (".constfa a[], b[]\n.end\n" + main(), 1, "b[]", "too many parameters"),
    (".constfa t[2x]\n.constfa (1, 2, 3, 4)\n.end\n" + main(), 1, "2x",
     "invalid array size: t[2x]"),
    (".constfa t[-1]\n.end\n" + main(), 1, "-1", "invalid array size: t[-1]"),
    (".constfa t[]\n.constfa (1, 2)\n.end\n" + main(), 2, 16, "missing parameter"),
    (".constfa t[]\n.constfa (1, 2, 3, 4) x\n.end\n" + main(), 2, "x", "garbage found: x"),
    (".constfa t[]\n.constfa (#x, 1, 2, 3)\n.end\n" + main(), 2, "#x",
     "invalid raw constant word: #x"),
    (".in x\n.in x\n" + main(), 2, "x", "identifier already used: x"),
    (".in x v0 extra\n" + main(), 1, "extra", "too many parameters"),
    (".in\n" + main(), 1, 4, "missing parameter"),
    (".out x\n" + main(), 1, 7, "missing parameter"),
    (".out x position o16\n" + main(), 1, "o16", "invalid output register: o16"),
    (".alias\n" + main(), 1, 7, "missing parameter"),
    (".entry a b\n" + main(), 1, "b", "too many parameters"),
    (".entry\n" + main(), 1, 7, "missing parameter"),
    (".nodvle x\n" + main(), 1, "x", "too many parameters"),
    (".proc a, b\n.end\n" + main(), 1, "b", "too many parameters"),
    (main("ifc cmp.x", "nop", ".else x", ".end"), 4, "x", "too many parameters"),
    (main(".end x"), 2, "x", "too many parameters"),
    (main(".else"), 2, ".else", ".else with unmatched IF"),
    (main("for i0", "nop", ".else", ".end"), 4, ".else", ".else with unmatched IF"),
    (".alias x c0[a0.x+1]\n" + main(), 1, "a0.x+1", "index register not allowed here: a0.x+1"),
    (".alias x c0[aL-2]\n" + main(), 1, "aL-2", "index register not allowed here: aL-2"),
    (main("mov r0, c8[aL--2]"), 2, "-2", "invalid register offset: -2"),
    # gpuisa extensions
    (".ivec n c0\n" + main(), 1, "c0", "expected an integer uniform register (i0-i3): c0"),
    (".consti k(1, 2, 3, 4) i4\n" + main(), 1, "i4",
     "invalid integer vector uniform register: i4"),
    (".opdesc " + ", ".join(["1"] * 129) + "\n" + main(), 1, 8 + 3 * 128 + 1,
     "too many operand descriptors (limit is 128)"),
    (".opdesc\n" + main(), 1, 8, "missing parameter"),
    (".fvec a\n.unit a b\n" + main(), 2, "b", "too many parameters"),
]


@pytest.mark.parametrize(("text", "line", "where", "message"),
                         INSTRUCTION_ERRORS + DIRECTIVE_ERRORS,
                         ids=[e[3] for e in INSTRUCTION_ERRORS + DIRECTIVE_ERRORS])
def test_error(text, line, where, message):
    assert errors(text) == [at(text, line, where, message)]


def test_mismatched_uniform_type_across_files():
    a, b = ".fvec u\n" + main(), ".ivec u\n" + main().replace("main", "m2") + ".entry m2\n"
    assert errors([("a.pica", a), ("b.pica", b)]) == [
        ("b.pica", 1, 7, "mismatched uniform type: u")]


def test_uniform_size_mismatch_across_files():
    a = ".fvec u[2]\n" + main()
    b = ".fvec u[3]\n.entry m2\n" + main().replace("main", "m2")
    assert errors([("a.pica", a), ("b.pica", b)]) == [
        ("b.pica", 1, 7, "uniform 'u' previously declared as having size 2")]


def test_too_many_global_uniforms():
    text = ".fvec " + ", ".join(f"u{i}" for i in range(96)) + "\n.bool extra\n" + main()
    assert errors(text) == [("test.pica", 2, 7, "too many global uniforms: extra")]


def test_vertex_code_limit():
    text = ".proc main\n" + "nop\n" * 512 + "end\nnop\n.end\n"
    # the 513th instruction (line 514) would not fit; reported once
    assert errors(text) == [
        ("test.pica", 514, 1,
         "instruction outside vertex shader code memory (max 512 instructions, currently 512)")]


def test_program_memory_limit():
    text = ".gsh\n.proc main\n" + "nop\n" * 4096 + "end\n.end\n"
    assert errors(text) == [
        ("test.pica", 4101, 1, "the program has 4097 words; shader program memory holds 4096")]


def test_entrypoint_undefined_without_entry_directive():
    assert errors(".fvec a\n") == [("test.pica", 1, 1, "entrypoint 'main' is undefined")]


def test_entrypoint_undefined_points_at_entry_directive():
    assert errors(".entry vmain\n" + main()) == [
        ("test.pica", 1, 8, "entrypoint 'vmain' is undefined")]


def test_no_dvles():
    assert errors(".proc main\n.end\n") == [
        ("test.pica", 3, 1, "no DVLEs can be generated from the given input file(s)")]
    assert errors(".nodvle\n" + main()) == [
        ("test.pica", 6, 1, "no DVLEs can be generated from the given input file(s)")]


def test_every_error_of_a_run_is_reported():
    text = main("mov r0, q1", "add r0, r1, c0", "foo", "mov r0, r1.e")
    assert [(line, col) for _, line, col, _ in errors(text)] == [(2, 9), (3, 13), (4, 1),
                                                                 (5, 12)]


def test_diagnostic_rendering():
    with pytest.raises(SourceError) as info:
        assemble_with_warnings([("x.pica", ".proc main\n\tadd r0, r1, c0\n\tend\n.end\n")])
    assert str(info.value) == ("x.pica:2:14: error: invalid source2 register: c0\n"
                               "   add r0, r1, c0\n"
                               "               ^~")


def test_notes_follow_their_error():
    with pytest.raises(SourceError) as info:
        assemble_with_warnings(main("mov r0, c1[2+a0.x]"))
    rendered = [d.render().splitlines()[0] for d in info.value.diagnostics]
    assert rendered == ["<source>:2:12: error: invalid index register: 2",
                        "<source>:2:12: note: write the index register first: [a0.x+2]"]


def test_uses_of_a_failed_declaration_are_not_reported_again():
    text = ".fvec b[\n.alias c\n" + main("mov r0, b", "mov r0, c")
    assert [m for *_, m in errors(text)] == ["missing closing bracket: b[",
                                             "missing parameter"]


def test_else_after_an_if_that_failed_at_the_start_of_the_program():
    # the IF word was never emitted, so the code buffer is still empty at the .else (this
    # used to crash the padding rule, which looks at the last word)
    assert errors(".proc main\nifc cmp.z\n.else\nnop\n.end\nend\n.end\n") == [
        ("test.pica", 2, 5, "invalid condition register: cmp.z")]


@pytest.mark.parametrize(("opening", "column", "body"), [
    ("ifc cmp.x", 1, "nop"), ("ifu b0", 1, "nop"), ("for i0", 1, "nop"),
    (".proc p", 7, "nop"), (".constfa t[]", 10, ".constfa (1, 2, 3, 4)"),
])
def test_too_many_nested_blocks_is_reported_once(opening, column, body):
    # .proc main and 31 IFs are open; the 33rd block is refused, but its .end still
    # closes it (not the IF around it), so nothing else is reported
    text = (".proc main\n" + "ifc cmp.x\n" * 31 + f"{opening}\n{body}\n.end\n"
            + "nop\n.end\n" * 31 + "end\n.end\n")
    assert errors(text) == [("test.pica", 33, column, "too many nested blocks")]


def test_uses_of_a_procedure_refused_for_nesting_are_not_reported():
    # p0-p31 are open, so `.proc main` is the 33rd block: main is never defined, but the
    # call to it and the missing entry point are consequences, not new errors
    text = ("".join(f".proc p{i}\n    nop\n" for i in range(32)) + ".proc main\n    end\n"
            + ".end\n" * 33 + ".proc q\n    call main\n    end\n.end\n")
    assert errors(text) == [("test.pica", 2 * 32 + 1, 7, "too many nested blocks")]


def test_repeated_shared_uniform_still_needs_a_global_record():
    # every declaration of a shared uniform appends a header record
    # (pica-assembly.md#global-uniforms), also a repeat
    a = ".fvec " + ", ".join(f"u{i}" for i in range(96)) + "\n" + main()
    b = ".fvec u0\n.entry m2\n" + main().replace("main", "m2")
    assert errors([("a.pica", a), ("b.pica", b)]) == [
        ("b.pica", 1, 7, "too many global uniforms: u0")]


def test_api_rejects_malformed_source_lists():
    from gpuisa.errors import InputError

    for bad, message in [(b".proc main", "sources must be a string or a list"),
                         ([("a.pica", 1)], "sources[0] must be a (name, text) pair"),
                         ([], "no input files are specified")]:
        with pytest.raises(InputError, match=re.escape(message)):
            assemble_with_warnings(bad)


def test_errors_of_every_file_and_of_linking_are_all_reported():
    a = main("mov r0, q1", "call missing")
    b = ".entry m2\n.proc m2\n    add r0, r1, c0\n    jmpc cmp.x, nowhere\n    end\n.end\n"
    assert errors([("a.pica", a), ("b.pica", b)]) == [
        ("a.pica", 2, 9, "invalid register: q1"),
        ("b.pica", 3, 17, "invalid source2 register: c0"),
        ("b.pica", 4, 17, "label 'nowhere' is undefined"),  # at the end of b
        ("a.pica", 3, 6, "procedure 'missing' is undefined"),  # after all files
    ]


def test_a_uniform_in_a_narrow_source_says_why_in_a_note():
    # src2 of ADD is 5 bits wide (v0-v15, r0-r15): a uniform there is picasso's "invalid
    # source2 register", and gpuisa's note says what fits where (issue 28).
    text = ".fvec time\n.out o position\n" + main("add o, v0, time")
    with pytest.raises(SourceError) as info:
        assemble_with_warnings(text)
    error, note = info.value.diagnostics[:2]
    assert error.message == "invalid source2 register: time"
    assert note.severity == "note" and note.message.startswith(
        "source2 holds only an input (v) or temporary (r) register; 'time' is the float "
        "uniform c0: put it in the wide source")
    # A literal c0 keeps picasso's message alone; nor do other registers get the note.
    for operand in ("c0", "b1"):
        with pytest.raises(SourceError) as info:
            assemble_with_warnings(main(f"add r0, v0, {operand}"))
        assert [d.severity for d in info.value.diagnostics] == ["error"]
