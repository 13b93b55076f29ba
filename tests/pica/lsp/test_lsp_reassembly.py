"""Reading a program again after an edit (``gpuisa.pica.lsp.reassembly``) gives what a
run from the start gives: the same diagnostics in the same order, the same symbol tables
and procedures, whatever the edit (lines replaced, inserted, deleted, characters typed)
and whatever the program (blocks, aliases, labels, units, line markers, errors), with a
checkpoint every couple of statements so that runs start again from and catch up with
checkpoints all through the program.  And it does read only around the edit."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpuisa.pica.lsp import reassembly
from gpuisa.pica.lsp.analysis import analyse
from gpuisa.pica.lsp.reassembly import assemble

#: Lines that change the assembler's state in each of its ways, and lines in error.
LINES = [
    "", "; a comment", "    nop", "    end", ".proc main", ".proc other", ".end",
    ".out opos position", ".out oclr color", ".alias pos v0", ".alias pos r3.xy",
    ".fvec mvp[4]", ".constf half(0.5, 0.5, 0.5, 0.5)", "    mov opos, v0",
    "    mov r0, pos", "    dp4 opos.x, mvp[0], v0", "    add r0, r1, c0",
    "    mov r2, half", "    mad r0, r1, c5, r2", "loop:", "    jmpu b0, loop",
    "    call other", "    ifu b1", "    .else", "    for i0", "    add r0, r1, bogus",
    ".unit second", "# 40 \"other.pica\"", "label: mov r1, v1", "    cmp r0, eq, eq, r1",
    ".entry other", "    mov opos, r0 ; done", "    mova a0.x, v1", "    mov r0, c[a0.x + 3]",
]

lines = st.lists(st.sampled_from(LINES), min_size=0, max_size=40)


@st.composite
def edits(draw, document: list[str]) -> list[str]:
    """``document`` with one edit: a line replaced, a few consecutive lines replaced by
    as many, lines inserted or deleted, or a few characters typed over part of a line."""
    edited = list(document)
    where = draw(st.integers(0, len(edited)))
    kind = draw(st.sampled_from(["replace", "rewrite", "insert", "delete", "type"]))
    if kind == "rewrite" and edited:
        count = len(edited[where:where + 3])
        edited[where:where + count] = draw(st.lists(st.sampled_from(LINES), min_size=count,
                                                    max_size=count))
    elif kind == "insert" or not edited:
        edited[where:where] = draw(st.lists(st.sampled_from(LINES), min_size=1, max_size=3))
    elif kind == "delete":
        del edited[min(where, len(edited) - 1):where + draw(st.integers(1, 3))]
    else:
        k = min(where, len(edited) - 1)
        text = edited[k]
        if kind == "replace":
            edited[k] = draw(st.sampled_from(LINES))
        else:
            start = draw(st.integers(0, len(text)))
            typed = draw(st.text(alphabet="r0123 ,.:;xyzcv\n", max_size=3))
            edited[k] = text[:start] + typed + text[start + draw(st.integers(0, 2)):]
    return edited


def _same(incremental: reassembly.Assembly, scratch: reassembly.Assembly) -> None:
    assert incremental.diagnostics == scratch.diagnostics
    assert incremental.assembled == scratch.assembled
    assert incremental.errors == scratch.errors
    assert incremental.units == scratch.units
    assert incremental.procedures == scratch.procedures


@pytest.fixture(autouse=True)
def _frequent_checkpoints(monkeypatch):
    monkeypatch.setattr(reassembly, "CHECKPOINT_STATEMENTS", 2)
    monkeypatch.setattr(reassembly, "STATE_BYTES_PER_STATEMENT", 1 << 40)


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data(), lines, st.sampled_from(["\n", "\n\n"]))
def test_an_edit_gives_what_a_run_from_the_start_gives(data, document, ending):
    """Three edits in a row, each read again from the run before it."""
    text = "\n".join(document) + ending
    previous = assemble([("a.v.pica", text)])
    for _ in range(3):
        document = data.draw(edits(document))
        text = "\n".join(document) + ending
        incremental = assemble([("a.v.pica", text)], previous)
        _same(incremental, assemble([("a.v.pica", text)]))
        previous = incremental


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data(), lines, lines)
def test_an_edit_of_one_file_of_a_program(data, first, second):
    """Two files assembled together (procedures shared): an edit of either."""
    old = [("a.v.pica", "\n".join(first)), ("b.g.pica", "\n".join(second))]
    previous = assemble(old)
    which = data.draw(st.integers(0, 1))
    edited = data.draw(edits([first, second][which]))
    new = list(old)
    new[which] = (old[which][0], "\n".join(edited))
    _same(assemble(new, previous), assemble(new))


def test_analyses_agree():
    """Through the language server's analysis: the same problems, by document."""
    body = "".join("    add r0, r1, c0\n" if k % 3 else "    mov r0, v0\n" for k in range(60))
    text = ".out opos position\n.proc main\n" + body + "    mov opos, r0\n    end\n.end\n"
    first = analyse([("a.v.pica", text)])
    edited = text.replace("    add r0, r1, c0\n", "    add r0, r1, r2\n", 1)
    assert analyse([("a.v.pica", edited)], first).problems == \
        analyse([("a.v.pica", edited)]).problems


def test_an_edit_is_read_again_only_around_it(monkeypatch):
    """A one-line edit in the middle of 2,000 erring lines: from the checkpoint before it
    to the one after it (2 statements apart here), not the whole program."""
    read = []
    item = reassembly._Recorder.item
    monkeypatch.setattr(reassembly._Recorder, "item",
                        lambda self, it: (read.append(it), item(self, it))[1])
    body = ["    add r0, r1, c0"] * 2000
    text = ".proc main\n" + "\n".join(body) + "\n    end\n.end\n"
    previous = assemble([("a.v.pica", text)])
    assert len(read) == 2003
    body[1000] = "    add r0, r2, c0"
    read.clear()
    edited = ".proc main\n" + "\n".join(body) + "\n    end\n.end\n"
    result = assemble([("a.v.pica", edited)], previous)
    assert 1 <= len(read) <= 4
    assert len(result.diagnostics) == 2000
    assert result.diagnostics[1000].location.line == 1002
    assert result.diagnostics[1000].source_line == "    add r0, r2, c0"


def test_equal_states_inside_the_edit_are_not_taken_for_a_catch_up():
    """Two lines changed: after the first the state is the same as before (an error in
    either version), but the second differs; the run must read on past it."""
    old = ".proc main\n    add r0, r1, c0\n    nop       \n    end\n.end\n"
    new = ".proc main\n    add r0, r1, c1\n    add r0, c0\n    end\n.end\n"
    previous = assemble([("a.v.pica", old)])
    assert [d.location.line for d in previous.diagnostics] == [2]
    assert [d.location.line for d in assemble([("a.v.pica", new)], previous).diagnostics] \
        == [2, 3]


def _program(body: list[str]) -> str:
    return ".out opos position\n.proc main\n" + "\n".join(body) + \
        "\n    mov opos, r0\n    end\n.end\n"


def test_fixing_an_error_among_many_reads_around_it(monkeypatch):
    """The error count is not part of the state compared: one error fewer still catches
    up with the previous run at its next checkpoint (one statement fewer on the way)."""
    read = []
    item = reassembly._Recorder.item
    monkeypatch.setattr(reassembly._Recorder, "item",
                        lambda self, it: (read.append(it), item(self, it))[1])
    body = ["    add r0, r1, c0"] * 2000
    previous = assemble([("a.v.pica", _program(body))])
    body[1000] = ";   add r0, r1, c0"  # commented out (a fix would emit a word: new state)
    read.clear()
    result = assemble([("a.v.pica", _program(body))], previous)
    assert len(read) <= 4
    assert (len(result.diagnostics), result.errors) == (1999, 1999)


def test_fixing_the_only_error_assembles_the_program():
    """The rest of the run is the same, but with no error left linking makes a SHBIN:
    that is not the previous run's outcome, so it is not taken from it."""
    body = ["    mov r0, v0"] * 40
    body[20] = "    add r0, r1, c0"
    previous = assemble([("a.v.pica", _program(body))])
    assert (previous.assembled, previous.errors) == (False, 1)
    body[20] = ";   add r0, r1, c0"  # the state after it is the same as before
    result = assemble([("a.v.pica", _program(body))], previous)
    assert (result.assembled, result.errors, result.diagnostics) == (True, 0, ())


def test_linking_errors_that_depend_on_earlier_ones():
    """"No DVLEs" is an error only when reading made none: a catch-up that counted it
    among the errors of the rest took an erring program for one without errors (found
    by the property test)."""
    with_error = "    nop\n.alias pos v0\n"  # nop outside a block: an error
    first = assemble([("a.v.pica", with_error)])
    second = assemble([("a.v.pica", "\n.alias pos v0\n")], first)
    assert [d.message for d in second.diagnostics] == \
        ["no DVLEs can be generated from the given input file(s)"]
    third = assemble([("a.v.pica", with_error)], second)
    assert [d.message for d in third.diagnostics] == ["instruction outside block"]
    assert third.diagnostics == assemble([("a.v.pica", with_error)]).diagnostics
