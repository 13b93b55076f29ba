"""picasso's defects (pica-assembly.md#defects): fixed by default, reproduced by
``--picasso-strict`` (``strict=True``)."""

from asm_testutil import END, build, errors, program, warnings

MOV = 0x13 << 26


def test_v15_is_a_valid_input_register():
    # 15.1: picasso's range test rejects v15 (reachable only as v14[1])
    code, _ = program("    mov r0, v15\n    mov r0, v14[1]")
    assert code == (MOV | 0x10 << 21 | 0x0F << 12,) * 2
    assert build(".in x v15\n.proc main\n    end\n.end\n").shbin.entries[0].input_mask == 0x8000
    text = ".proc main\n    mov r0, v15\n    end\n.end\n"
    assert errors(text, strict=True) == [("test.pica", 2, 13, "invalid input register: v15")]
    code, _ = program("    mov r0, v14[1]", strict=True)
    assert code == (MOV | 0x10 << 21 | 0x0F << 12,)


def test_negative_static_offsets():
    # 15.2: the Manual's r4[-2] = r2
    code, _ = program("    mov r0, r4[-2]\n    mov r0, c8[aL-2]\n    mov r0, c8[a0.x - 1]")
    assert code[0] == MOV | 0x10 << 21 | 0x12 << 12
    assert code[1] == MOV | 0x10 << 21 | 3 << 19 | 0x26 << 12
    assert code[2] == MOV | 0x10 << 21 | 1 << 19 | 0x27 << 12
    text = ".proc main\n    mov r0, r4[-2]\n    end\n.end\n"
    assert errors(text, strict=True) == [("test.pica", 2, 16, "invalid register offset: -2")]
    # picasso reads "aL-2" with atoi: 0, and no index register
    code, _ = program("    mov r0, c8[aL-2]", strict=True)
    assert code == (MOV | 0x10 << 21 | 0x28 << 12,)


def test_offsets_must_stay_in_the_bank():
    text = ".proc main\n    mov r0, r0[-1]\n    mov r0, r15[1]\n    end\n.end\n"
    assert errors(text) == [("test.pica", 2, 16, "invalid register offset: -1"),
                            ("test.pica", 3, 17, "invalid register offset: 1")]
    # picasso: r15[1] is id 0x20 = c0
    code, _ = program("    mov r0, r15[1]", strict=True)
    assert code == (MOV | 0x10 << 21 | 0x20 << 12,)


def test_upper_case_register_letters():
    # 15.3: picasso gives R5 no bank base: id 5 (o5 as destination, v5 as source)
    code, _ = program("    mov R5, C10")
    assert code == (MOV | 0x15 << 21 | 0x2A << 12,)
    code, _ = program("    mov R5, C10", strict=True)
    assert code == (MOV | 0x05 << 21 | 0x0A << 12,)
    text = ".proc main\n    mov R5, r0\n    end\n.end\n"
    assert warnings(text, strict=True) == [
        (2, 9, "upper-case register letter: picasso reads 'R5' as register id 0x05, not r5")]


def test_513_vertex_instructions():
    # 15.4: picasso checks "size > 512" before adding a word
    text = ".proc main\n" + "nop\n" * 512 + "end\n.end\n"
    assert len(build(text, strict=True).shbin.program.code) == 513
    assert errors(text)[0][3] == (
        "instruction outside vertex shader code memory (max 512 instructions, currently 512)")
    text = ".proc main\n" + "nop\n" * 513 + "end\n.end\n"
    assert errors(text, strict=True)[0][1:3] == (515, 1)


def test_padding_nops_count_against_the_vertex_limit():
    text = ".proc main\n" + "nop\n" * 511 + "ifc cmp.x\n.end\n.end\n"
    # the IF is word 511; the padding NOP its .end (line 514) needs would be word 513
    assert errors(text)[0][1:] == (
        514, 1,
        "instruction outside vertex shader code memory (max 512 instructions, currently 512)")


def test_unknown_setemit_flag():
    # 15.5: picasso prints an error and succeeds anyway
    text = ".gsh\n.proc main\n    setemit 0, prim foo\n    end\n.end\n"
    assert errors(text) == [("test.pica", 3, 21, "unknown setemit flag: foo")]
    assert build(text, strict=True).shbin.program.code == (0x2B << 26 | 1 << 23, END)
    assert warnings(text, strict=True) == [(3, 21, "unknown setemit flag: foo")]


def test_trailing_garbage_after_register_numbers():
    text = ".proc main\n    mov r0, r1x\n    end\n.end\n"
    assert errors(text)[0][3] == "invalid register: r1x"
    code, _ = program("    mov r0, r1x", strict=True)
    assert code == (MOV | 0x10 << 21 | 0x11 << 12,)


def test_garbage_offsets_and_sizes():
    code, _ = program("    mov r0, c8[foo]\n    mov r0, c8[1]x.y", strict=True)
    assert code[0] == MOV | 0x10 << 21 | 0x28 << 12
    assert code[1] == MOV | 0x10 << 21 | 0x29 << 12 | 1  # .y: descriptor 1
    result = build(".fvec a[2x]\n.proc main\n    end\n.end\n", strict=True)
    assert result.shbin.entries[0].uniforms[0].last == 0x11


def test_integer_registers_i4_to_i7():
    # picasso's literal parser and `for` accept i0-i7
    code, _ = program("    for i5\n    nop\n    .end\n    end", strict=True)
    assert code[0] == 0x29 << 26 | 5 << 22 | 1 << 10
    text = ".proc main\n    for i5\n    nop\n    .end\n    end\n.end\n"
    assert errors(text) == [("test.pica", 2, 9, "invalid integer vector uniform register: i5")]


def test_constf_ignores_text_after_the_parenthesis_in_strict_mode():
    text = ".constf k(1, 2, 3, 4) junk\n.proc main\n    end\n.end\n"
    assert errors(text)[0][3] == "invalid register: junk"
    assert warnings(text, strict=True) == [(1, 23, "text after ')' is ignored: junk")]
    text = ".constf k(1, 2, 3, 4, 5)\n.proc main\n    end\n.end\n"
    assert build(text, strict=True).shbin.entries[0].constants[0].words[3] == 0x410000  # 4.0


def test_mova_target_case():
    code, _ = program("    mova A0.X, r0")
    assert code == (0x12 << 26 | 0x10 << 12,)
    text = ".proc main\n    mova A0.X, r0\n    end\n.end\n"
    assert errors(text, strict=True) == [
        ("test.pica", 2, 10, "invalid destination register for mova: A0.X")]


def test_procedure_reopened_inside_itself():
    text = ".proc main\n.proc main\n    end\n.end\n.end\n"
    assert errors(text) == [("test.pica", 2, 7, "proc already exists: main")]
    # picasso: the inner block closes first and is the one recorded
    result = build(text, strict=True)
    assert (result.shbin.entries[0].main_offset, result.shbin.entries[0].endmain_offset) == (0, 1)


def test_text_after_vectors_and_arrays():
    text = ".setf c1(1, 2, 3, 4) x\n.proc main\n    end\n.end\n"
    assert errors(text) == [("test.pica", 1, 22, "garbage found: x")]
    assert warnings(text, strict=True) == [(1, 22, "text after ')' is ignored: x")]
    text = ".constfa t[] x\n.constfa (1, 2, 3, 4)\n.end\n.proc main\n    end\n.end\n"
    assert errors(text, strict=True) == [("test.pica", 1, 14, "garbage found: x")]
    text = ".constf k(1, 2, 3, 4, 5)\n.proc main\n    end\n.end\n"
    assert warnings(text, strict=True) == [(1, 21, "extra values are ignored")]


def test_integer_register_checks_of_seti_and_for():
    # picasso's register parser takes i0-i7; `.seti` then checks 0x80-0x83, `for`
    # 0x80-0x87 (pica-assembly.md#register-ranges, pica-assembly.md#operand-checks)
    text = ".seti i4(1, 2, 3, 4)\n.proc main\n    end\n.end\n"
    assert errors(text, strict=True) == [("test.pica", 1, 7, "invalid integer vector uniform: i4")]
    text = ".proc main\n    for i8\n    nop\n    .end\n    end\n.end\n"
    assert errors(text, strict=True) == [
        ("test.pica", 2, 9, "invalid integer vector uniform register: i8")]


def test_v15_in_an_input_declaration():
    text = ".in x v15\n.proc main\n    end\n.end\n"
    assert errors(text, strict=True) == [("test.pica", 1, 7, "invalid input register: v15")]


def test_text_after_an_array_element():
    text = ".constfa t[]\n.constfa (1, 2, 3, 4) x\n.end\n.proc main\n    end\n.end\n"
    assert warnings(text, strict=True) == [(2, 23, "text after ')' is ignored: x")]


def test_labels_before_a_line_marker():
    # picasso splits labels off first, so `L: # 10 "f"` defines L and is a line marker
    text = '.proc main\n    jmpc cmp.x, L\nL: # 10 "f.pica"\n    end\n.end\n'
    code = build(text, strict=True).shbin.program.code
    assert code[0] >> 10 & 0xFFF == 1


def test_a_register_range_is_read_as_its_first_register():
    # picasso's parseInt reads "0-c3" with strtoll and ignores what follows the digits
    # (source/picasso_assembler.cpp), so ".alias projMtx c0-c3" is an alias of c0 and
    # projMtx[1] is c1: MOV (0x13) r0 (id 0x10) from c1 (id 0x21).
    decls = ".alias projMtx c0-c3"
    code, _ = program("    mov r0, projMtx[1]", decls)
    assert code == (MOV | 0x10 << 21 | 0x21 << 12,)
    assert warnings(f"{decls}\n.proc main\n    mov r0, projMtx[1]\n    end\n.end\n") == [
        (1, 16, "'c0-c3' is read as c0: picasso ignores the text after the register "
                "number, and a range is not a register")]
    assert program("    mov r0, projMtx[1]", decls, strict=True)[0] == code
    # Other text after the number stays an error (a typo such as r1x).
    assert errors(".alias m c0-3\n.proc main\n    end\n.end\n")[0][3] == "invalid register: c0-3"
