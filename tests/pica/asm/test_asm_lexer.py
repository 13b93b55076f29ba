"""Lexical rules (pica-assembly.md#lexical) and the C number parsers picasso uses."""

import math

import pytest
from asm_testutil import END, NOP, build, errors, program, warnings

from gpuisa.pica.asm.cnum import atof, atoi, strtoll

MOV_R0_R1 = 0x13 << 26 | 0x10 << 21 | 0x11 << 12


@pytest.mark.parametrize(("text", "expected"), [
    ("0", (0, 1)), ("42", (42, 2)), ("0x1F", (31, 4)), ("0X1f", (31, 4)), ("010", (8, 3)),
    ("  -7", (-7, 4)), ("+3", (3, 2)), ("12abc", (12, 2)), ("0x", (0, 1)), ("09", (0, 1)),
    ("0xg", (0, 1)), ("", None), ("x1", None), ("-", None),
    ("99999999999999999999", ((1 << 63) - 1, 20)),
])
def test_strtoll_base_0(text, expected):
    assert strtoll(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("12", (12, 2)), (" -3", (-3, 3)), ("4x", (4, 1)), ("0x10", (0, 1)), ("abc", (0, 0)),
    ("", (0, 0)), ("010", (10, 3)), ("4294967296", (0, 10)),
])
def test_atoi(text, expected):
    assert atoi(text) == expected


@pytest.mark.parametrize(("text", "value", "used"), [
    ("1.5", 1.5, 3), (" -2e3", -2000.0, 5), (".5", 0.5, 2), ("5.", 5.0, 2),
    ("1e", 1.0, 1), ("1.0f", 1.0, 3), ("0x1.8p1", 3.0, 7), ("0x10", 16.0, 4),
    ("-inf", -math.inf, 4), ("Infinity", math.inf, 8), ("abc", 0.0, 0), ("", 0.0, 0),
    ("1e999", math.inf, 5), ("0x1p99999", math.inf, 9),
])
def test_atof(text, value, used):
    assert atof(text) == (value, used)


def test_atof_nan():
    value, used = atof("nan(123)x")
    assert math.isnan(value) and used == 8


def test_comments_blank_lines_and_crlf():
    text = "; comment\r\n\r\n.proc main ; trailing\r\n  mov r0, r1;x\r\n\tend\r\n.end\r\n"
    assert build(text).shbin.program.code == (MOV_R0_R1, END)


def test_labels():
    # several labels on one line, a label alone on its line, the empty label
    code, _ = program("a: b: nop\nc:\n: nop\n    jmpc cmp.x, b\n    jmpc cmp.x, c\n    end")
    jmp = 0x2C << 26 | 1 << 25 | 1 << 24 | 2 << 22
    assert code == (NOP, NOP, jmp | 0 << 10, jmp | 1 << 10, END)


def test_label_outside_a_procedure():
    code, _ = program("    jmpc cmp.x, out\n    end\n.end\nout:\n.proc other\n    nop")
    assert code[0] >> 10 & 0xFFF == 2


def test_case_insensitive_names():
    text = ".PROC main\n    MoV r0, r1\n    END\n.End\n"
    assert build(text).shbin.program.code == (MOV_R0_R1, END)


def test_identifiers_may_contain_dollar():
    code, _ = program("    mov r0, a$b", ".alias a$b r1")
    assert code == (MOV_R0_R1,)


def test_operand_spacing():
    code, _ = program("    mov\tr0 ,\t r1   ,")  # a trailing comma is ignored by picasso
    assert code == (MOV_R0_R1,)


def test_line_markers_change_reported_file_and_line():
    text = ('.proc main\n# 40 "shader.pica"\n    foo\n# 7 "other.h" 2\n    bar\n'
            '    end\n.end\n')
    assert errors(text) == [("shader.pica", 40, 5, "invalid instruction: foo"),
                            ("other.h", 7, 5, "invalid instruction: bar")]
    # picasso drops the first and last characters of the rest of the line
    assert errors(text, strict=True)[1][0] == 'other.h" '



def test_line_marker_with_colon_in_the_file_name():
    text = '.proc main\n# 3 "C:\\src\\a.pica"\n    foo\n    end\n.end\n'
    assert errors(text) == [("C:\\src\\a.pica", 3, 5, "invalid instruction: foo")]
    # picasso splits the label first: "# 3 "C" is an invalid label name
    assert errors(text, strict=True)[0][3] == 'invalid label name: # 3 "C'


def test_end_of_file_position_counts_a_final_newline():
    assert errors(".proc main\n    end\n")[0][:3] == ("test.pica", 3, 1)
    assert errors(".proc main\n    end")[0][:3] == ("test.pica", 2, 1)


def test_octal_register_numbers_warn():
    # strtoll base 0: c010 is c8
    text = ".proc main\n    mov r0, c010\n    end\n.end\n"
    assert build(text).shbin.program.code[0] == 0x13 << 26 | 0x10 << 21 | 0x28 << 12
    assert warnings(text) == [(2, 13, "the leading 0 makes '010' octal: this is c8")]


def test_hex_register_numbers():
    code, _ = program("    mov r0, c0x10")
    assert code == (0x13 << 26 | 0x10 << 21 | 0x30 << 12,)


def test_mixed_swizzle_letter_sets():
    from asm_testutil import opdesc

    _, table = program("    mov r0, c0.xgpW")
    assert table == (opdesc(0xF, "xyzw"),)


def test_every_directive_of_the_language_and_no_other():
    # pica-assembly.md#directives and docs/assembly-extensions.md (.word and .unit are
    # handled before the directive table: .word like an instruction, .unit by the driver)
    from gpuisa.pica.asm.directives import DIRECTIVES

    assert set(DIRECTIVES) == {
        "proc", "end", "else", "alias", "fvec", "ivec", "bool", "constf", "consti", "constfa",
        "in", "out", "entry", "nodvle", "gsh", "setf", "seti", "setb", "opdesc",
        # raw SHBIN fields (docs/assembly-extensions.md)
        "dvlp", "opdeschigh", "dvle", "dvleconst", "dvleout", "dvleuniform", "dvlelabel"}
    text = ".include foo\n.proc main\n    end\n.end\n"
    assert errors(text) == [("test.pica", 1, 1, "invalid instruction: include")]
