"""Blocks and picasso's automatic padding NOPs (pica-assembly.md#blocks).

Word layouts: IFC = 0x28 << 26 | REFX 25 | REFY 24 | CONDOP 22-23 | DST 10-21 | NUM 0-7;
``cmp.x`` alone is REFX = REFY = 1, CONDOP 2 (pica-assembly.md#conditions).
LOOP = 0x29 << 26 | int id 22-23 | DST 10-21.
"""

from asm_testutil import END, NOP, build, errors, program, warnings

IFX = 0x28 << 26 | 1 << 25 | 1 << 24 | 2 << 22  # ifc cmp.x, DST/NUM 0
IFY = 0x28 << 26 | 1 << 25 | 1 << 24 | 3 << 22  # ifc cmp.y
LOOP0 = 0x29 << 26  # for i0
CALL = 0x24 << 26
BREAK = 0x20 << 26
BREAKCX = 0x23 << 26 | 1 << 25 | 1 << 24 | 2 << 22


def test_else_after_a_closed_block_is_padded():
    code, _ = program("""
    ifc cmp.x
        ifc cmp.y
            nop
        .end
    .else
        nop
    .end
    end""")
    # inner IF: DST 3; the .else follows an .end: NOP at 3, else part starts at 4
    assert code == (IFX | 4 << 10 | 1, IFY | 3 << 10, NOP, NOP, NOP, END)


def test_else_after_a_call_is_padded():
    code, _ = program("    ifc cmp.x\n    call f\n    .else\n    nop\n    .end\n    end\n.end\n"
                      ".proc f\n    nop")
    # f at 5, 1 word long
    assert code == (IFX | 3 << 10 | 1, CALL | 5 << 10 | 1, NOP, NOP, END, NOP)


def test_empty_then_part_is_padded_at_else():
    code, _ = program("    ifc cmp.x\n    .else\n    nop\n    .end\n    end")
    assert code == (IFX | 2 << 10 | 1, NOP, NOP, END)


def test_empty_if_is_padded_at_end():
    code, _ = program("    ifc cmp.x\n    .end\n    end")
    assert code == (IFX | 2 << 10, NOP, END)


def test_empty_else_part_is_not_padded():
    code, _ = program("    ifc cmp.x\n    nop\n    .else\n    .end\n    end")
    # DST 2, NUM 0: the p - P rule measures from the IF word
    assert code == (IFX | 2 << 10 | 0, NOP, END)


def test_if_ending_in_a_jump_is_padded():
    code, _ = program("    ifc cmp.x\n    jmpc cmp.y, L\n    .end\nL:\n    end")
    # the label is defined after the padding NOP (at 3)
    assert code == (IFX | 3 << 10, 0x2C << 26 | 1 << 25 | 1 << 24 | 3 << 22 | 3 << 10, NOP, END)


def test_for_ending_in_break_or_breakc_is_padded():
    code, _ = program("    for i0\n    nop\n    break\n    .end\n    for i0\n    nop\n"
                      "    breakc cmp.x\n    .end\n    end")
    assert code == (LOOP0 | 3 << 10, NOP, BREAK, NOP,
                    LOOP0 | 7 << 10, NOP, BREAKCX, NOP, END)


def test_if_ending_in_break_is_not_padded():
    code, _ = program("    for i0\n    ifc cmp.x\n    nop\n    break\n    .end\n    nop\n"
                      "    .end\n    end")
    assert code == (LOOP0 | 4 << 10, IFX | 4 << 10, NOP, BREAK, NOP, END)


def test_empty_for_is_padded():
    code, _ = program("    for i3\n    .end\n    end")
    assert code == (0x29 << 26 | 3 << 22 | 1 << 10, NOP, END)


def test_end_after_end_is_padded_and_the_nop_belongs_to_the_outer_block():
    code, _ = program("    for i0\n    ifc cmp.x\n    nop\n    .end\n    .end\n    end")
    # the FOR's DST (last body word) is the padding NOP
    assert code == (LOOP0 | 3 << 10, IFX | 3 << 10, NOP, NOP, END)


def test_directives_do_not_reset_last_was_end():
    code, _ = program("    ifc cmp.x\n    nop\n    nop\n    .end\n.alias foo r0")
    # the proc's .end follows the IF's .end (an .alias in between does not count)
    assert code == (IFX | 3 << 10, NOP, NOP, NOP)


def test_proc_ending_in_a_call_and_empty_procs():
    result = build(".proc f\n.end\n.proc main\n    call g\n.end\n.proc g\n.end\n.proc h\n.end\n"
                   ".proc main2\n    end\n.end\n")
    code = result.shbin.program.code
    # f: empty at the very start with an empty code buffer: no NOP, length 0.
    # main: ends with a call: NOP.  g, h: empty procedures get a NOP each.
    assert code == (CALL | 2 << 10 | 1, NOP, NOP, NOP, END)
    assert result.shbin.entries[0].main_offset == 0
    assert result.shbin.entries[0].endmain_offset == 2


def test_last_was_end_survives_the_end_of_a_file():
    # an IF may sit directly in a .constfa block; its .end sets the flag, the array's .end
    # neither pads nor clears it, and the next file's first .end pads
    first = ".nodvle\n.constfa arr[1]\nifc cmp.x\nnop\nnop\n.end\n.end\n"
    second = ".proc main\n.end\n"
    code = build([("a.pica", first), ("b.pica", second)]).shbin.program.code
    assert code == (IFX | 3 << 10, NOP, NOP, NOP)


def test_no_nop_mode_warns_instead():
    text = ".proc main\n    ifc cmp.x\n    .end\n    end\n.end\n"
    result = build(text, pad_nops=False)
    assert result.shbin.program.code == (IFX | 1 << 10, END)
    assert warnings(text, pad_nops=False) == [(3, 5, "a padding NOP is required here")]


def test_no_nop_warning_at_else():
    text = ".proc main\n    ifc cmp.x\n    .else\n    nop\n    .end\n    end\n.end\n"
    assert warnings(text, pad_nops=False) == [(3, 5, "a padding NOP is required here")]


def test_block_errors():
    assert errors(".end\n") == [("test.pica", 1, 1, ".end with unmatched block")]
    assert errors(".else\n") == [("test.pica", 1, 1, ".else with unmatched IF")]
    assert errors(".proc main\n.else\nend\n.end\n") == [
        ("test.pica", 2, 1, ".else with unmatched IF")]
    assert errors(".proc main\nifc cmp.x\nnop\n.else\nnop\n.else\n.end\nend\n.end\n") == [
        ("test.pica", 6, 1, "spurious .else")]


def test_too_many_nested_blocks():
    text = ".proc main\n" + "ifc cmp.x\n" * 32 + ".end\n" * 32 + "end\n.end\n"
    # .proc is block 1; the 32nd ifc would be block 33: refused, but its .end still
    # matches it, so the rest of the file reports nothing more
    assert errors(text) == [("test.pica", 33, 1, "too many nested blocks")]


def test_unclosed_blocks_point_at_the_end_of_file_and_the_open_blocks():
    text = ".proc main\n  for i0\n  nop\n"
    from gpuisa.errors import SourceError
    try:
        build(text)
    except SourceError as exc:
        diags = [(d.severity, d.location.line, d.location.column, d.message)
                 for d in exc.diagnostics]
    assert diags == [
        ("error", 4, 1, "unclosed block(s)"),
        ("note", 2, 3, "this for block is not closed"),
        ("note", 1, 7, "this .proc block is not closed"),
    ]


def test_end_of_file_line_without_trailing_newline():
    assert errors(".proc main\nnop") == [("test.pica", 2, 1, "unclosed block(s)")]


def test_long_else_part():
    body = "    ifc cmp.x\n    nop\n    .else\n" + "    nop\n" * 256 + "    .end\n    end"
    assert errors(f".proc main\n{body}\n.end\n") == [
        ("test.pica", 261, 5, "the else part is 256 words long; an IF can skip at most 255")]
    # picasso writes NUM unmasked: 256 lands in bits 8-9
    code, _ = program(body, strict=True)
    assert code[0] == IFX | 2 << 10 | 256


def test_long_procedure_cannot_be_called():
    text = (".proc main\n    call f\n    end\n.end\n.proc f\n" + "    nop\n" * 256 + ".end\n")
    assert errors(text) == [
        ("test.pica", 2, 10, "procedure 'f' is too long to be called (256 words, a call "
                             "covers at most 255)")]
    code = build(text, strict=True).shbin.program.code
    # picasso ORs NUM into the word unmasked: 256 sets bit 8
    assert code[0] == CALL | 2 << 10 | 256
