"""pica check on SHBIN files, limits, bounded exploration, report formats, the CLI and the
known-good shader shapes whose findings are real."""

import json

import pytest

from gpuisa.errors import InputError
from gpuisa.pica import Dvle, Program, Shbin, assemble, check
from gpuisa.pica.check.findings import BinarySpot, Severity
from gpuisa.pica.cli import main

END = 0x88000000  # opcode 0x22 << 26
NOP = 0x84000000  # opcode 0x21 << 26
MOV_O0_V0 = 0x4C000000  # mov o0, v0: opcode 0x13, dst 0, src1 v0, descriptor 0
IDENTITY = 0x0000036F  # mask xyzw (0xF), selector 1 .xyzw (0x1B << 5)

SOURCE = (".constf k(1.0, 1.0, 1.0, 1.0)\n.out p position\n.proc main\n"
          "    mov r0, k\n    .word 0x02000080\n    mov p, r0\n    end\n.end\n")


def ids(findings):
    return sorted({f.check for f in findings})


def test_binary_findings_name_address_word_and_disassembly():
    data = assemble(SOURCE).to_bytes()
    found = [f for f in check(data, name="s.shbin") if f.check == "PICA404"]
    assert len(found) == 1
    where = found[0].where
    assert isinstance(where, BinarySpot)
    assert (where.file, where.address, where.word) == ("s.shbin", 1, 0x02000080)
    # no picasso text exists for it: the fields (DST 0x10 = r0, SRC1 v0, SRC2 v1)
    assert where.disassembly == "add desc=0, src2=1, src1=0, idx=0, dst=16"


def _shbin(code, opdescs=(IDENTITY,), dvle=None):
    dvle = dvle or Dvle(main_offset=0, endmain_offset=len(code))
    return Shbin(Program(code, opdescs), (dvle,))


def test_limits_on_binaries():
    code = [NOP] * 600 + [END]
    assert "PICA601" in ids(check(_shbin(code)))  # vertex shader over 512 words
    assert "PICA602" in ids(check(_shbin([END], [IDENTITY] * 129)))
    from gpuisa.pica import OutputEntry

    many = Dvle(main_offset=0, endmain_offset=1,
                outputs=tuple(OutputEntry(0, r % 16) for r in range(17)))
    assert "PICA603" in ids(check(_shbin([END], dvle=many)))
    assert "PICA604" in ids(check(_shbin([END]), enable=["PICA604"]))


def test_pica604_is_off_by_default_and_names_the_libctru_versions(capsys):
    # libctru #535 was fixed in December 2023: a DVLE without constants is only a
    # problem for libctru releases before it, so the check is not run unless asked for.
    assert "PICA604" not in ids(check(_shbin([END])))
    assert main(["check", "--explain", "PICA604"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("PICA604 (warning (off by default: --enable PICA604)): DVLE "
                          "without constants (libctru before December 2023)")
    assert "before the bug was reported and fixed in December 2023" in out


def test_a_program_within_limits_is_clean():
    from gpuisa.pica import Constant, OutputEntry

    dvle = Dvle(main_offset=0, endmain_offset=2, outputs=(OutputEntry(0, 0),),
                constants=(Constant.from_floats(0, (1.0, 1.0, 1.0, 1.0)),), output_mask=1)
    assert check(_shbin([MOV_O0_V0, END], dvle=dvle)) == []


def test_binary_scalar_swizzle_is_not_judged():
    # rcp r0, v0 with descriptor .xyzw: in a binary the y/z/w selector bits may belong to
    # a shared descriptor (don't-care), so PICA401 only looks at sources
    rcp = (0x0E << 26) | (0x10 << 21)
    assert "PICA401" not in ids(check(_shbin([rcp, END])))


def test_exploration_stops_early_and_says_so():
    text = ".constf k(1,1,1,1)\n.out p position\n.proc main\n    mov p, r5\n.end\n"
    full = ids(check(text))
    assert "PICA305" in full and "PICA201" in full
    bounded = check(text, max_states=1)
    assert ids(bounded) == ["PICA009"]
    assert bounded[0].severity is Severity.NOTE


def test_not_a_shbin_and_unknown_ids():
    with pytest.raises(InputError):
        check(b"nope")
    with pytest.raises(InputError):
        check(SOURCE, enable=["PICA999"])


# -- known-good shapes whose findings are real ------------------------------------------

def test_stale_w_read_into_a_dead_component_is_not_reported():
    # 3ds-examples graphics/gpu/fragment_light/source/vshader.v.pica does
    # "mul r5, half, r14" with only r14.xyz written: the hardware reads the stale r14.w
    # into r5.w, which nothing reads afterwards, so no output can see it (issue 28).
    text = (".constf k(0.5, 0.5, 0.5, 0.5)\n.out p position\n.proc main\n"
            "    mov r14.xyz, v0\n    mul r5, k, r14\n    mov p.xy, r5\n    mov p.zw, k\n"
            "    end\n.end\n")
    assert check(text) == []
    # The same stale w moved on into the output is reported, where it is read.
    seen = text.replace("mov p.xy, r5\n    mov p.zw, k", "mov p, r5")
    found = [(f.check, f.where.line, f.message) for f in check(seen)]
    assert found == [("PICA201", 5, "r14.w read before it is written on some path")]


def test_stale_y_compared_in_a_particle_loop_is_reported():
    # 3ds-examples graphics/gpu/particles/source/particle.g.pica compares r15 with itself
    # (a NaN test, "cmp r15, ne, ne, r15") before r15.y is first written further down the
    # loop: on the first particle cmp.y depends on the previous invocation's r15.y, and
    # the "jmpc cmp.x || cmp.y" after it can skip the particle.  A real finding.
    text = (".gsh point c0\n.constf k(1.0, 1.0, 1.0, 1.0)\n.out p position\n.proc main\n"
            "    mov r15.x, k\n    cmp r15, ne, ne, r15\n    mov r15.y, k\n"
            "    setemit 0\n    mov p.xy, r15\n    mov p.zw, k\n    emit\n    end\n.end\n")
    found = [(f.check, f.where.line, f.message) for f in check(text)]
    assert found == [("PICA201", 6, "r15.y read before it is written on some path")]


# -- reports and the command line ------------------------------------------------------------

@pytest.fixture
def files(tmp_path):
    bad = tmp_path / "bad.pica"
    bad.write_text(".constf k(1,1,1,1)\n.out p position\n.proc main\n    mov p, k\n"
                   "    break\n    end\n.end\n")
    warn = tmp_path / "warn.pica"
    warn.write_text(".constf k(1,1,1,1)\n.out p position\n.proc main\n    mov p.xyz, k\n"
                    "    end\n.end\n")
    return bad, warn


def test_cli_exit_status_and_text(files, capsys):
    bad, warn = files
    assert main(["check", str(warn)]) == 0
    out = capsys.readouterr().out
    assert f"{warn}:5:5: warning: o0.w mapped by the DVLE but not written" in out
    assert "[PICA101]" in out and "\n      end\n      ^~~\n" in out
    assert main(["check", "--Werror", str(warn)]) == 1
    assert main(["check", str(bad)]) == 1  # PICA302 is an error


def test_cli_json_and_sarif(files, tmp_path, capsys):
    _, warn = files
    assert main(["check", "--format", "json", str(warn)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [(f["id"], f["line"], f["column"]) for f in doc["findings"]] == [("PICA101", 5, 5)]
    out = tmp_path / "r.sarif"
    assert main(["check", "--format", "sarif", "-o", str(out), str(warn)]) == 0
    log = json.loads(out.read_text())
    assert log["version"] == "2.1.0"
    run = log["runs"][0]
    rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
    (result,) = run["results"]
    assert result["ruleId"] == "PICA101" and rules[result["ruleIndex"]] == "PICA101"
    assert result["level"] == "warning"
    region = result["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (5, 5)


#: r3 is never written and read on lines 4, 5 and 6 (a mul and two adds into o0).
UNSET_THRICE = (".constf k(1,1,1,1)\n.out p position\n.proc main\n    mul r0, k, r3\n"
                "    add r1, k, r3\n    add r2, r0, r3\n    add p, r1, r2\n    end\n.end\n")


def test_one_uninitialised_register_is_one_finding_with_its_uses(tmp_path, capsys):
    (finding,) = check([("u.pica", UNSET_THRICE)])
    assert (finding.check, finding.where.line) == ("PICA201", 4)
    assert [(r.where.line, r.where.column, r.message) for r in finding.related] == [
        (5, 5, "r3.xyzw also read here before it is written"),
        (6, 5, "r3.xyzw also read here before it is written")]
    path = tmp_path / "u.pica"
    path.write_text(UNSET_THRICE)
    assert main(["check", str(path)]) == 0
    out = capsys.readouterr().out
    assert (f"{path}:5:5: note: r3.xyzw also read here before it is written\n"
            f"{path}:6:5: note: r3.xyzw also read here before it is written\n") in out
    assert main(["check", "--format", "json", str(path)]) == 0
    (item,) = json.loads(capsys.readouterr().out)["findings"]
    assert [(r["line"], r["column"]) for r in item["related"]] == [(5, 5), (6, 5)]
    assert main(["check", "--format", "sarif", str(path)]) == 0
    (result,) = json.loads(capsys.readouterr().out)["runs"][0]["results"]
    lines = [r["physicalLocation"]["region"]["startLine"] for r in result["relatedLocations"]]
    assert lines == [5, 6]


def test_the_editor_shows_the_uses_as_related_information():
    from gpuisa.pica.lsp.analysis import analyse

    (problem,) = [p for p in analyse([("u.pica", UNSET_THRICE)]).problems["u.pica"]
                  if p.code == "PICA201"]
    # 0-based lines and columns: the reads on lines 5 and 6 at column 5.
    assert [(r.line, r.col) for r in problem.related] == [(4, 4), (5, 4)]


def test_cli_shbin_explain_and_errors(tmp_path, capsys):
    path = tmp_path / "s.shbin"
    path.write_bytes(assemble(SOURCE).to_bytes())
    assert main(["check", str(path)]) == 1  # PICA404 is an error
    out = capsys.readouterr().out
    assert f"{path}:0x001: error: one instruction reads two different input registers" in out
    assert "  001: 02000080  add desc=0, src2=1, src1=0, idx=0, dst=16" in out
    assert main(["check", "--explain", "PICA604"]) == 0
    assert "libctru issue #535" in capsys.readouterr().out
    assert main(["check", "--explain", "PICA302"]) == 0
    assert "Source: pica-emulation.md#flow-check (3dbrew)\n(<page>.md#<anchor>: a section of " \
        "gpuisa's reference pages, docs/reference/" in capsys.readouterr().out
    assert main(["check", "--explain", "PICA999"]) == 1
    assert "pica: error: unknown check 'PICA999'" in capsys.readouterr().err
    broken = tmp_path / "broken.pica"
    broken.write_text(".proc main\n    foo\n.end\n")
    assert main(["check", str(broken)]) == 1
    assert "invalid instruction: foo" in capsys.readouterr().err


def test_explain_states_the_false_positive_rate_on_the_corpus():
    # The counts in the registry are those of the judged findings listed with the corpus
    # (tests/pica/check/data/corpus.txt), check by check.
    from pathlib import Path

    from gpuisa.pica.check import registry

    lines = (Path(__file__).parent / "data" / "corpus.txt").read_text().splitlines()
    shaders = [line.split() for line in lines if line.startswith("shader ")]
    assert len(shaders) == 12 and all(len(s) == 4 and len(s[3]) == 40 for s in shaders)
    assert registry.CORPUS.startswith("12 public homebrew shaders")
    counts: dict[str, list[int]] = {}
    for line in lines:
        if line.startswith("finding "):
            _, check_id, _, verdict = line.split()[:4]
            found = counts.setdefault(check_id, [0, 0])
            found[0] += 1
            found[1] += verdict == "false"
    assert {i: c.corpus for i, c in registry.CHECKS.items() if c.corpus != (0, 0)} == {
        i: tuple(c) for i, c in counts.items()}
    assert "False positives: 0 of 1 finding on 12 public" in registry.explain("PICA201")
    assert "False positives: 4 of 4 findings on 12 public" in registry.explain("PICA402")
    assert "False positives: not measured, no findings on 12" in registry.explain("PICA302")


def test_where_prints_as_a_place():
    # print(finding.where) as README's Python example does: file:line:col, or the
    # program address of a SHBIN finding (issue 28; it printed a dataclass repr).
    (source,) = check([("w.pica", ".constf k(1,1,1,1)\n.out p position\n.proc main\n"
                                  "    mov p.xyz, k\n    end\n.end\n")])
    assert str(source.where) == "w.pica:5:5"
    binary = [f for f in check(assemble(SOURCE), name="s.shbin") if f.check == "PICA404"]
    assert [str(f.where) for f in binary] == ["s.shbin:0x001"]


def test_assemble_and_assemble_with_warnings_take_the_same_shapes():
    from gpuisa import pica

    text = ".out o position\n.proc main\n    mov o, v0\n    end\n.end\n"
    words = pica.assemble(text).to_bytes()
    for shape in (text, [("a.pica", text)]):
        assert pica.assemble(shape).to_bytes() == words
        assert pica.assemble_with_warnings(shape).shbin.to_bytes() == words
