"""The A2XX / Xenos conformance suite (``a2xx vectors``): size and coverage, determinism,
every stored expectation re-computed from the stored case on the reference engine, the
Adreno/Xenos differences, and ``--check`` on corrupted and malformed results."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from gpuisa.a2xx import isa
from gpuisa.a2xx.cli import main
from gpuisa.a2xx.cli import vectors as vectors_cli
from gpuisa.a2xx.program import read_program
from gpuisa.a2xx.vectors import SUITE_VERSION, build_suite, check, read_cases, render
from gpuisa.a2xx.vectors.replay import batches, config, run_batch
from gpuisa.a2xx.vectors.suite_io import MAX_RESULT_LINE, read_results, suite_files
from gpuisa.errors import InputError


@pytest.fixture(scope="module")
def suite(vectors_suite):
    return vectors_suite


@pytest.fixture(autouse=True)
def _built_once(suite, monkeypatch):
    """The command line's tests use the suite built once (its speed is a benchmark)."""
    monkeypatch.setattr(vectors_cli.vectors, "build_suite", lambda progress=None: suite)


@pytest.fixture(scope="module")
def written(suite, tmp_path_factory):
    directory = tmp_path_factory.mktemp("a2xx-suite")
    for name, data in suite_files(suite, SUITE_VERSION).items():
        (directory / name).write_bytes(data)
    return directory


def test_size_and_coverage(suite):
    assert len(suite) >= 2000
    assert len({c.id for c in suite}) == len(suite)
    tags = {t for c in suite for t in c.tags}
    for op in (*isa.VECTOR_OPS, *isa.SCALAR_OPS):
        assert f"op:{op.name}" in tags, op.name
    cf_used = {clause.opcode for c in suite for clause in read_program(c.words).cf}
    assert cf_used == set(isa.CfOpcode)
    for tag in ("quirk:co-issue", "quirk:predication", "quirk:kill", "quirk:scalar-lane",
                "quirk:a0", "quirk:aL", "flow:loop", "flow:call", "flow:jump",
                "export:position", "export:point-size", "export:parameters", "export:colors",
                "export:memexport", "special:nan", "special:+inf", "special:-0",
                "special:denorm", "special:2^127", "quirk:xenos-half", "op:TEX_FETCH"):
        assert tag in tags, tag
    formats = {t.split(":")[1] for t in tags if t.startswith("format:")}
    assert formats == {f.name for f in isa.VERTEX_FORMAT_INFO}


def test_written_twice_byte_identical(suite):
    first = suite_files(suite, SUITE_VERSION)
    second = suite_files(build_suite(), SUITE_VERSION)
    assert first == second
    manifest = json.loads(first["manifest.json"])
    assert manifest["cases"] == len(suite) and manifest["suite_version"] == SUITE_VERSION


def _recompute(cases):
    """(case id, what) of every stored expectation the reference engine does not give."""
    wrong = []
    for group in batches(cases):
        labels = {label for case in group for label, _ in case.alternatives}
        for target in ("adreno", "xenos"):
            for case, got in zip(group, run_batch(group, config(target)), strict=True):
                if got != case.expected[target]:
                    wrong.append((case.id, target))
        for label in sorted(labels):
            for case, got in zip(group, run_batch(group, config("adreno", label)), strict=True):
                if got != dict(case.alternatives).get(label, got):
                    wrong.append((case.id, label))
    return wrong


def test_every_stored_expectation_is_recomputed(written):
    cases = list(read_cases(str(written / "cases.jsonl")))
    assert _recompute(cases) == []
    # The re-computation would see a wrong value: flip one bit of one expectation.
    case = next(c for c in cases if c.id == "alu/vector/ADDv/00")
    number, rows = case.expected["xenos"].exports[0]
    bad = type(case.expected["xenos"])(((number, ((rows[0][0] ^ 1, *rows[0][1:]),)),),
                                       case.expected["xenos"].killed)
    broken = type(case)(**{f: getattr(case, f) for f in case.__slots__} | {
        "expected": {"adreno": case.expected["adreno"], "xenos": bad}})
    assert _recompute([broken]) == [("alu/vector/ADDv/00", "xenos")]


def test_targets_differ_exactly_where_recorded(suite):
    for case in suite:
        assert bool(case.differences) == (case.expected["adreno"] != case.expected["xenos"])
    by_id = {c.id: c for c in suite}
    # By hand: R1 = (0, 1, -0, 0.5), C4 = (-1, -1, 0.5, -1) with d0 bit 7 set: Adreno adds
    # C4, Xenos adds |C4| (a2xx-isa.md#adreno-vs-xenos).
    case = by_id["quirk/abs-constants/0"]
    assert case.differences == ("abs_constants",)
    adreno = np.array(case.expected["adreno"].export(0), np.uint32).view(np.float32)
    xenos = np.array(case.expected["xenos"].export(0), np.uint32).view(np.float32)
    np.testing.assert_array_equal(adreno, [[-1, 0, 0.5, -0.5]])
    np.testing.assert_array_equal(xenos, [[1, 2, 0.5, 1.5]])
    assert by_id["fetch/vertex/offset-1/xyzw"].differences == ("address_unit",)


def _results(written, target, corrupt=None):
    """Results lines that echo the suite's expectations, with ``corrupt`` applied."""
    lines = []
    for line in (written / "cases.jsonl").read_text().splitlines():
        record = json.loads(line)
        result = {"id": record["id"], **record["expected"][target]}
        if corrupt:
            corrupt(result)
        lines.append(json.dumps(result))
    return "\n".join(lines) + "\n"


def _corrupt(ident, export, invocation, component):
    def apply(result):
        if result["id"] == ident:
            value = int(result["exports"][export][invocation][component], 16)
            assert (value >> 23) & 0xFF != 0xFF  # not a NaN or INF: any NaN matches a NaN
            result["exports"][export][invocation][component] = f"0x{value ^ 0x10:08x}"
    return apply


@pytest.mark.parametrize(("ident", "export", "invocation", "component", "instruction"), [
    ("alu/vector/MULADDv/07", "export0", 0, 2, "mad o0"),
    ("alu/scalar/RECIP_IEEE/05", "export0", 0, 0, "rcp o0.x___"),
    ("loop/count-5/start-2-step-3", "export1", 0, 1, "max o1, r2, r3"),
    ("export/vertex/1", "export62", 0, 3, "max oPos, r1, r1"),
    ("predication/alu/3", "export1", 2, 0, "add o1, r1, c0"),
    ("fetch/vertex/FMT_8_8_8_8/signed-normalized", "export0", 1, 2,
     "max o0, r1, r1  +       maxs o0._, r0.wx  (produces export0.z of invocation 1)\n"
     "      <- r1 from cf 0.0 slot 1  vfetch_full r1, r0.x"),
])
def test_check_names_the_case_and_instruction(written, suite, tmp_path, ident, export,
                                              invocation, component, instruction):
    path = tmp_path / "results.jsonl"
    path.write_text(_results(written, "adreno", _corrupt(ident, export, invocation, component)))
    report = check(suite, read_results(str(path)), "adreno", str(path))
    assert [d.case.id for d in report.divergences] == [ident]
    text = render(report)
    assert f"case {ident}  [" in text
    at = text.index("first differing instruction")
    first = text[at: text.index("\n    | ", at)]
    assert instruction in first, first
    assert f"{export}.{'xyzw'[component]} of invocation {invocation}" in first
    assert "| \tEXEC" in text  # the disassembly follows


def test_check_kill_and_xenos_target(written, suite, tmp_path):
    def flip(result):
        if result["id"] == "kill/KILLGTv/1":
            result["killed"][2] = 1 - result["killed"][2]
    path = tmp_path / "results.jsonl"
    path.write_text(_results(written, "xenos", flip))
    report = check(suite, read_results(str(path)), "xenos", str(path))
    assert [d.case.id for d in report.divergences] == ["kill/KILLGTv/1"]
    assert "kill_gt r3._, r0, r2" in render(report) and "kills invocation 2" in render(report)
    clean = tmp_path / "clean.jsonl"
    clean.write_text(_results(written, "xenos"))
    assert not check(suite, read_results(str(clean)), "xenos").divergences
    # The Adreno expectations differ from the Xenos results where the targets differ.
    report = check(suite, read_results(str(clean)), "adreno")
    assert {d.case.id for d in report.divergences} == {c.id for c in suite if c.differences}


def test_check_recognises_the_alternative_lane(written, suite, tmp_path):
    """Results of a translator that reads the second scalar operand from lane X (upstream
    Xenia) diverge exactly in the scalar-lane cases where the lane changes the result,
    and the report says they follow the stored alternative."""
    def upstream(result):
        if result["id"].startswith("evidence/scalar-lane/"):
            case = next(c for c in suite if c.id == result["id"])
            alternative = dict(case.alternatives)["scalar_b_lane=0"]
            result["exports"] = {f"export{n}": [[f"0x{v:08x}" for v in row] for row in rows]
                                 for n, rows in alternative.exports}
    path = tmp_path / "results.jsonl"
    path.write_text(_results(written, "xenos", upstream))
    report = check(suite, read_results(str(path)), "xenos", str(path))
    lane_cases = [c for c in suite if c.id.startswith("evidence/scalar-lane/")]
    changed = {c.id for c in lane_cases if c.alternatives[0][1] != c.expected["xenos"]}
    assert {d.case.id for d in report.divergences} == changed
    assert len(changed) >= 20
    assert list(report.groups()) == ["quirk:scalar-lane"]
    text = render(report, disasm=False)
    assert text.count("the results match the alternative scalar_b_lane=0") == len(
        report.divergences)
    assert "documented choice: lane 2 (Z)" in text


def test_check_on_the_command_line(written, suite, tmp_path, capsys):
    path = tmp_path / "results.jsonl"
    path.write_text(_results(written, "adreno", _corrupt("alu/vector/ADDv/01", "export0", 0, 0))
                    + '{"id": "no/such/case", "exports": {}}\n')
    assert main(["vectors", "--check", str(path), "--no-disasm"]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"1 of {len(suite)} checked cases diverge (adreno expectations)")
    assert "1 results name no case of the suite (first: 'no/such/case')" in out
    assert "| " not in out


@pytest.mark.parametrize(("line", "message"), [
    ("{bad json", r"results.jsonl:2: invalid JSON"),
    ('{"exports": {}}', r"results.jsonl:2: each line must be an object with an 'id'"),
    ('{"id": "alu/vector/ADDv/00", "exports": {"export0": [["0x1", "0x2", "0x3"]]}}',
     r"results.jsonl:2: exports.export0\[0\]: expected four bit patterns"),
    ('{"id": "alu/vector/ADDv/00", "exports": {"oPos": []}}',
     r"results.jsonl:2: exports: \"oPos\" is not an export register"),
    ('{"id": "alu/vector/ADDv/00", "exports": {"export' + "9" * 5000 + '": []}}',
     r"results.jsonl:2: exports: \"export9999"),
    ('{"id": "alu/vector/ADDv/00", "exports": {"export\u00b2": []}}',
     r"results.jsonl:2: exports: \"export\\u00b2\" is not an export register"),
    ('{"id": "alu/vector/ADDv/00", "killed": [2]}', r"results.jsonl:2: 'killed' must be 1"),
    ('{"id": "alu/vector/ADDv/00", "exports": {"export0": [["0x1", "0x2", "0x3", "zz"]]}}',
     r'"zz" is not a float32 bit pattern'),
])
def test_malformed_results_name_the_line(suite, tmp_path, capsys, line, message):
    path = tmp_path / "results.jsonl"
    path.write_text('{"id": "alu/vector/ADDv/01"}\n' + line + "\n")
    with pytest.raises(InputError, match=message):
        check(suite, read_results(str(path)), "adreno", str(path))
    assert main(["vectors", "--check", str(path)]) == 1
    assert re.search(r"^a2xx: error: .*" + message, capsys.readouterr().err)


def test_results_are_streamed_with_a_line_limit(suite, tmp_path):
    path = tmp_path / "results.jsonl"
    path.write_text('{"id": "alu/vector/ADDv/01"}\n' + "x" * (MAX_RESULT_LINE + 10) + "\n")
    with pytest.raises(InputError, match=r"results.jsonl:2: a line longer than"):
        check(suite, read_results(str(path)), "adreno")
    path.write_text('{"id": "alu/vector/ADDv/01"}\n{"id": "alu/vector/ADDv/01"}\n')
    with pytest.raises(InputError, match=r":2: case alu/vector/ADDv/01 appears twice"):
        check(suite, read_results(str(path)), "adreno", str(path))


def test_command_line_writes_the_suite(suite, tmp_path, capsys):
    assert main(["vectors"]) == 1
    assert "give -o DIR to write the suite or --check RESULTS" in capsys.readouterr().err
    target = tmp_path / "suite"
    assert main(["vectors", "-o", str(target)]) == 0
    err = capsys.readouterr().err
    # No progress counter when standard error is not a terminal.
    assert err.strip() == f"a2xx vectors: wrote {len(suite)} cases to {target}"
    assert len(list(read_cases(str(target / "cases.jsonl")))) == len(suite)
    files = suite_files(suite, SUITE_VERSION)
    assert {p.name: p.read_bytes() for p in Path(target).iterdir()} == files
    plain = tmp_path / "plain"
    plain.write_text("keep")
    capsys.readouterr()
    assert main(["vectors", "-o", str(plain)]) == 1
    assert "it exists and is not a directory" in capsys.readouterr().err
    assert plain.read_text() == "keep"
