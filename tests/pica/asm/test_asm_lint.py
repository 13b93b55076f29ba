"""Warnings: missing ``end``, outputs written twice on a path, ``mova`` executed back to back,
destination swizzle order, ``--Werror``."""

import pytest
from asm_testutil import build, errors, warnings

from gpuisa.errors import SourceError
from gpuisa.pica.asm import assemble_with_warnings


def shader(body: str, decls: str = ".out o position\n.out c color\n") -> str:
    return f"{decls}.proc main\n{body}\n.end\n"


def messages(text: str) -> list[str]:
    return [m for _, _, m in warnings(text)]


def test_clean_shader_has_no_warnings():
    assert warnings(shader("    mov o, r0\n    mov c, r1\n    end")) == []


def test_entry_without_end():
    text = shader("    mov o, r0")
    assert warnings(text) == [(3, 7, "entry point 'main' contains no 'end' instruction")]


def test_entry_that_can_fall_off_its_end():
    text = shader("    ifc cmp.x\n        end\n    .end\n    mov o, r0")
    assert warnings(text) == [
        (3, 7, "entry point 'main' can reach its end without executing 'end'")]


def test_end_in_both_branches_or_in_a_called_procedure():
    assert messages(shader("    ifc cmp.x\n    end\n    .else\n    end\n    .end")) == []
    text = ".proc fin\n    end\n.end\n" + shader("    mov o, r0\n    call fin")
    assert messages(text) == []


def test_conditional_call_does_not_guarantee_end():
    text = ".proc fin\n    end\n.end\n" + shader("    callc cmp.x, fin")
    assert messages(text) == ["entry point 'main' can reach its end without executing 'end'"]


def test_jump_over_end_and_loops():
    text = shader("    jmpc cmp.x, skip\n    end\nskip:\n    nop")
    assert messages(text) == ["entry point 'main' can reach its end without executing 'end'"]
    # an unconditional loop back: every path ends at `end` or loops forever
    text = shader("top:\n    breakc cmp.y\n    jmpc cmp.x, top\n    end")
    assert messages(text) == []


def test_output_written_twice_on_one_path():
    text = shader("    mov o, r0\n    mov o.y, r1\n    end")
    assert warnings(text) == [(5, 9, "o0.y written twice on the same path")]


def test_outputs_written_on_different_branches_are_fine():
    text = shader("    ifc cmp.x\n    mov o, r0\n    .else\n    mov o, r1\n    .end\n"
                  "    mov c, r0\n    end")
    assert messages(text) == []


def test_output_written_after_a_conditional_write():
    text = shader("    ifc cmp.x\n    mov o.xy, r0\n    .end\n    mov o.yz, r1\n    end")
    assert warnings(text) == [(7, 9, "o0.y written twice on the same path")]


def test_output_written_in_a_loop():
    text = shader("    for i0\n    add o.x, r0, r1\n    .end\n    end")
    assert messages(text) == ["o0.x written twice on the same path"]


def test_emit_starts_a_new_vertex():
    text = ".gsh\n" + shader("    mov o, r0\n    setemit 0\n    emit\n    mov o, r1\n"
                             "    setemit 1\n    emit\n    end")
    assert messages(text) == []


def test_two_consecutive_mova():
    text = shader("    mova a0.x, r0\n    mova a0.y, r1\n    mov o, c0[a0.y]\n    end")
    assert warnings(text) == [(5, 5, "two consecutive 'mova' instructions can freeze the GPU")]


def test_destination_swizzle_order():
    text = shader("    mov o.yx, r0\n    end")
    diags = build(text).warnings
    assert [(d.severity, d.location.line, d.location.column, d.message) for d in diags] == [
        ("warning", 4, 11, "arbitrary swizzling has no effect for destination mask"),
        ("note", 4, 11, "the effective mask is .xy"),
    ]
    assert messages(shader("    mov o.xy, r0\n    mov c.xzw, r1\n    end")) == []


def test_output_mask_order_warning():
    assert messages(".out p position.wx\n.proc main\n    end\n.end\n") == [
        "arbitrary swizzling has no effect for destination mask"]


def test_duplicate_input_register_warning():
    assert warnings(".in a v1\n.in b v1\n.proc main\n    end\n.end\n") == [
        (2, 7, "input register v1 is already declared")]


def test_constant_text_that_is_not_a_number():
    assert messages(".constf k(1.0f, 2, x, 0)\n.consti n(1, 2u, 3, 4)\n"
                    ".proc main\n    end\n.end\n") == [
        "'1.0f' is not a number; it is read as 1.0",
        "'x' is not a number; it is read as 0.0",
        "'2u' is not an integer; it is read as 2",
    ]


def test_werror():
    text = shader("    mov o, r0")
    assert errors(text, werror=True) == [
        ("test.pica", 3, 7, "entry point 'main' contains no 'end' instruction [-Werror]")]


def test_warnings_are_kept_in_a_failed_run():
    text = shader("    mov o.yx, r0\n    foo\n    end")
    with pytest.raises(SourceError) as info:
        assemble_with_warnings([("t.pica", text)])
    assert [d.severity for d in info.value.diagnostics] == ["warning", "note", "error"]


def test_a_shared_procedure_is_reported_once():
    # two DVLEs with the same entry procedure: one warning per written-twice word
    a = shader("    mov o, r0\n    mov o.x, r1\n    end")
    b = ".out p position\n.entry main\n"
    assert [m for _, _, m in warnings([("a.pica", a), ("b.pica", b)])] == [
        "o0.x written twice on the same path"]


def test_programs_too_large_to_explore_are_not_checked(monkeypatch):
    from gpuisa.pica.asm import lint

    text = shader("    mov o, r0")  # no `end`: normally a warning
    monkeypatch.setattr(lint, "STATE_LIMIT", 0)
    assert warnings(text) == []


def diagnostics(text):
    return [(d.severity, d.location.line, d.message) for d in build(text).warnings]


@pytest.mark.parametrize(("body", "line", "note"), [
    # the loop jumps back to its body: a body that is a single mova repeats back to back
    ("    for i0\n    mova a0.x, r0\n    .end\n    end", 5,
     "a loop repeats it back to back: put another instruction in the loop"),
    # the then-part ends in a mova and jumps over the else part to the mova after the IF
    ("    ifc cmp.x\n    nop\n    mova a0.x, r0\n    .else\n    nop\n    .end\n"
     "    mova a0.y, r1\n    end", 10,
     "it can run right after the 'mova' on line 6: put another instruction between them"),
])
def test_movas_executed_back_to_back_but_not_neighbours_in_memory(body, line, note):
    assert diagnostics(shader(body)) == [
        ("warning", line, "two consecutive 'mova' instructions can freeze the GPU"),
        ("note", line, note)]


def test_mova_after_returning_from_a_procedure_ending_in_mova():
    text = (".proc f\n    nop\n    mova a0.x, r0\n.end\n"
            + shader("    call f\n    mova a0.y, r1\n    end"))
    assert warnings(text) == [(9, 5, "two consecutive 'mova' instructions can freeze the GPU")]


def test_movas_that_are_neighbours_in_memory_only():
    # f is never called: its last mova and main's first never run one after the other
    text = ".proc f\n    mova a0.x, r0\n.end\n" + shader("    mova a0.y, r1\n    end")
    assert warnings(text) == []


def test_mova_check_falls_back_to_neighbours_when_exploration_gives_up(monkeypatch):
    from gpuisa.pica.asm import lint

    monkeypatch.setattr(lint, "STATE_LIMIT", 0)
    text = ".proc f\n    mova a0.x, r0\n.end\n" + shader("    mova a0.y, r1\n    end")
    assert warnings(text) == [(7, 5, "two consecutive 'mova' instructions can freeze the GPU")]
