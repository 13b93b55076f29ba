"""The language server's analysis, in process: index, diagnostics adapter, project files,
hover, completion.  Expected values are derived by hand from pica-assembly.md
(allocation rules of pica-assembly.md#allocation, scopes of pica-assembly.md#aliases and
pica-assembly.md#linking) and from the test sources."""

from __future__ import annotations

import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from gpuisa.pica.lsp.analysis import analyse
from gpuisa.pica.lsp.completion import complete, signature_help
from gpuisa.pica.lsp.hover import hover_text, mnemonic_hover
from gpuisa.pica.lsp.index import Role, build_index
from gpuisa.pica.lsp.project import PROJECT_FILE, Workspace, program_files
from gpuisa.pica.lsp.syntax import ASSEMBLER_DIRECTIVES, DIRECTIVES


def test_every_directive_has_a_syntax_text():
    assert set(DIRECTIVES) == ASSEMBLER_DIRECTIVES


def test_every_mnemonic_has_a_hover():
    # the assembly mnemonics, with LOOP spelled `for`, `loop` not accepted
    # (pica-assembly.md#mnemonics)
    for name in ("add", "dp3", "dp4", "dph", "dphi", "dst", "dsti", "ex2", "lg2", "litp", "mul",
                 "sge", "sgei", "slt", "slti", "flr", "max", "min", "rcp", "rsq", "mova", "mov",
                 "cmp", "mad", "madi", "nop", "end", "emit", "break", "breakc", "call", "callc",
                 "callu", "ifc", "ifu", "jmpc", "jmpu", "for", "setemit"):
        assert mnemonic_hover(name.upper()), name
    assert mnemonic_hover("loop") is None
    # the I-forms are synonyms of the plain mnemonics (pica-assembly.md#mnemonics):
    # both show DPH, 0x03
    assert "opcode 0x03" in mnemonic_hover("dphi")


def occurrence(index, text, role, nth=0):
    return [o for o in index.occurrences if o.text == text and o.role is role][nth]


def test_units_scope_labels_and_aliases():
    source = (".proc main\nl: nop\n    jmpc cmp.x, l\n    end\n.end\n"
              ".unit second\n.alias l r0\n.proc other\nl: nop\n    jmpc cmp.y, l\n.end\n")
    index = build_index([("a.pica", source)])
    first = occurrence(index, "l", Role.LABEL, 0)
    second = occurrence(index, "l", Role.LABEL, 2)
    assert first.key != second.key
    assert [(o.line, o.col) for o in index.of_key(first.key)] == [(1, 0), (2, 16)]
    assert [(o.line, o.col) for o in index.of_key(second.key)] == [(8, 0), (9, 16)]
    # the alias `l` of the second unit is another symbol than its label
    assert occurrence(index, "l", Role.ALIAS).key not in (first.key, second.key)


def test_tokens_are_where_the_text_is():
    source = "\ufefflab: mov r0.x, -c1[a0.x+2].y ; note\n\t.fvec\tu[2] c4, w\n"
    index = build_index([("a.pica", source)])
    lines = source.split("\n")
    found = {(o.text, o.role) for o in index.occurrences}
    assert {("lab", Role.LABEL), ("mov", Role.MNEMONIC), ("r0", Role.REGISTER),
            ("x", Role.SWIZZLE), ("c1", Role.REGISTER), ("a0.x", Role.REGISTER),
            ("y", Role.SWIZZLE), ("u", Role.UNIFORM), ("c4", Role.REGISTER),
            ("w", Role.UNIFORM)} == found - {(".fvec", Role.DIRECTIVE)}
    for o in index.occurrences:
        assert lines[o.line][o.col:o.end] == o.text
    (comment,) = index.comments
    assert lines[0][comment.col:] == "; note"


def test_unclosed_block_note_is_related_information():
    analysis = analyse([("a.pica", ".proc main\n    nop\n")])
    (problem,) = analysis.problems["a.pica"]
    assert problem.message == "unclosed block(s)"
    # the end-of-file location (line 3) is shown on the last line of the document
    assert (problem.line, problem.col) == (2, 0)
    # pica asm prints the note as "u.pica:1:7: note: ..." under the procedure's name
    (note,) = problem.related
    assert (note.line, note.col, note.message) == (0, 6, "this .proc block is not closed")


def test_findings_of_pica_check_are_added_with_their_ids():
    # `rcp r0, r1` (line 4, 0-based 3; column 5, 0-based 4; "rcp" 3 long): RCP reads only
    # r1.x (pica-emulation.md#scalar-units), so writing r0.xyzw from "r1" is PICA401; r1 is never
    # written (PICA201).  `.constf` gives the DVLE a constant table (no PICA604).
    source = (".constf one(1, 1, 1, 1)\n.out o position\n.proc main\n    rcp r0, r1\n"
              "    mov o, r0\n    end\n.end\n")
    problems = analyse([("a.pica", source)]).problems["a.pica"]
    found = sorted((p.code, p.line, p.col, p.length, p.severity) for p in problems)
    assert found == [("PICA201", 3, 4, 3, "warning"), ("PICA401", 3, 4, 3, "warning")]
    # only for programs that assemble
    broken = analyse([("a.pica", source + "frob\n")]).problems["a.pica"]
    assert [p.code for p in broken] == [None]


def test_assembler_warnings_are_not_reported_twice():
    # two consecutive mova: an assembler warning, which pica check also carries (PICA001)
    source = (".constf one(1, 1, 1, 1)\n.proc main\n    mova a0.x, one\n    mova a0.y, one\n"
              "    end\n.end\n")
    codes = [p.code for p in analyse([("a.pica", source)]).problems["a.pica"]]
    assert codes.count(None) == 1 and "PICA001" not in codes


def test_hover_of_constant_array_and_register():
    # pica-assembly.md#pools: a local allocation of n registers takes end - n from the top
    # (c95 first)
    source = (".constfa arr[]\n.constfa (1, 2, 3, 4)\n.constfa (5, 6, 7, 8)\n"
              ".constfa (0.25, 0, 0, 0)\n.end\n.constf one(1, 1, 1, 1)\n"
              ".proc main\n    mov r0, arr[1]\n    mov r1, one\n    end\n.end\n")
    analysis = analyse([("a.pica", source)])
    assert analysis.problems["a.pica"] == ()
    arr = occurrence(analysis.index, "arr", Role.CONSTANT, 1)
    text = hover_text(analysis, arr)
    assert "c93-c95 (array of 3)" in text
    assert "(1, 2, 3, 4), (5, 6, 7, 8), (0.25, 0, 0, 0)" in text
    assert "c92" in hover_text(analysis, occurrence(analysis.index, "one", Role.CONSTANT, 1))


def test_project_file(tmp_path):
    (tmp_path / "src").mkdir()
    for name in ("a.v.pica", "b.g.pica", "c.v.pica", "lone.v.pica"):
        (tmp_path / "src" / name).write_text(".proc main\n    end\n.end\n")
    (tmp_path / PROJECT_FILE).write_text(
        "# two programs\n\nsrc/a.v.pica  src/b.g.pica\n  src/c.v.pica\n")
    a, b, c = (str(tmp_path / "src" / n) for n in ("a.v.pica", "b.g.pica", "c.v.pica"))
    assert program_files(b) == [a, b]
    assert program_files(c) == [c]
    lone = str(tmp_path / "src" / "lone.v.pica")
    assert program_files(lone) == [lone]
    (tmp_path / PROJECT_FILE).write_text("src/a.v.pica src/missing.pica\n")
    sources, error = Workspace().program(a)
    assert sources == [(a, ".proc main\n    end\n.end\n")]
    assert "missing.pica" in error.message


def test_workspace_reuses_an_analysis_until_the_text_changes():
    workspace = Workspace(read=lambda path: "")
    first = workspace.analyse([("a.pica", "nop\n")])
    assert workspace.analyse([("a.pica", "nop\n")]) is first
    assert workspace.analyse([("a.pica", "end\n")]) is not first


def test_completion_contexts():
    source = ".proc main\nloop: nop\n    end\n.end\n"
    analysis = analyse([("a.pica", source)])
    labels = {c.label for c in complete(analysis, "a.pica", 2, "    jmpc cmp.x, ")}
    assert labels == {"loop"}
    assert {c.label for c in complete(analysis, "a.pica", 2, "    jmpc ")} == {
        "cmp.x", "cmp.y", "!cmp.x", "!cmp.y", "cmp.x && cmp.y", "cmp.x || cmp.y"}
    assert {c.label for c in complete(analysis, "a.pica", 2, "    mova ")} == {
        "a0.x", "a0.y", "a0.xy"}
    assert {c.label for c in complete(analysis, "a.pica", 2, "    setemit 0, ")} == {
        "prim", "primitive", "inv", "invert"}
    assert complete(analysis, "a.pica", 2, "    nop ; mov ") == []
    directives = {c.label for c in complete(analysis, "a.pica", 2, ".c")}
    assert {".constf", ".consti", ".constfa"} <= directives
    help_ = signature_help("    mad r0, r1, ")
    assert (help_.label, help_.active) == ("mad dst, src1, src2, src3", 2)
    assert signature_help("    nop") is None


_PIECES = st.sampled_from([
    ".proc", "main", ".end", ".else", ".alias", ".fvec", ".constf", ".constfa", ".in", ".out",
    ".gsh", ".setb", ".unit", ".word", "mov", "mad", "cmp", "ifc", "for", "call", "jmpu",
    "r0", "c95", "v15", "o0", "x", "[", "]", "(", ")", "a0.x", "aL", "+", "-", "!", ",", ".",
    ":", ";", "#", " ", "\t", "\n", "\r", "\ufeff", "😋", "999999999999", "xyzw", "cmp.x",
    "&&", "position", "\x00"])


@settings(max_examples=150, deadline=None)
@given(st.lists(_PIECES, max_size=60).map("".join), st.integers(0, 8), st.integers(0, 30))
def test_any_text_is_analysed_without_crashing(text, line, col):
    other = ".proc helper\n    nop\n.end\n"
    analysis = analyse([("a.pica", text), ("b.pica", other)])
    lines = text.split("\n")
    for o in analysis.index.in_file("a.pica"):
        assert lines[o.line][o.col:o.end] == o.text
    for p in analysis.problems["a.pica"]:
        assert 0 <= p.line < len(lines)
    o = analysis.index.at("a.pica", line, col)
    if o is not None:
        hover_text(analysis, o)
    prefix = lines[line][:col] if line < len(lines) else ""
    complete(analysis, "a.pica", line, prefix)
    signature_help(prefix)


def test_cli_without_the_lsp_extra_is_a_clean_error(monkeypatch, capsys):
    from gpuisa.pica.cli import main

    monkeypatch.setitem(sys.modules, "gpuisa.pica.lsp.server", None)  # import fails
    assert main(["lsp"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("pica: error: pica lsp needs the optional dependencies")
    assert 'pip install "gpuisa[lsp]"' in err
