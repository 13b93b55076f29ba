"""The suite as a whole: size and coverage, determinism, self-contained cases that the
reference engine reproduces, the binary form, --check, and the command line."""

import json
import struct

import pytest

from gpuisa.pica import cli, vectors
from gpuisa.pica.vectors import catalog_facts, catalog_hardware, generate, suite_io
from gpuisa.pica.vectors.model import MODES, exact_f24
from gpuisa.pica.vectors.replay import rerun


@pytest.fixture(autouse=True)
def built_once(suite, monkeypatch):
    """The command line builds the suite on every call; it is the same every time (see
    the determinism test), so the tests hand it the one built for the session."""
    def build(progress=None, rounding="nearest-even"):
        assert rounding == "nearest-even"  # test_rounding.py has the other suite
        return suite

    monkeypatch.setattr(vectors, "build_suite", build)


@pytest.fixture(scope="module")
def written(suite, tmp_path_factory):
    directory = tmp_path_factory.mktemp("suite") / "out"
    vectors.write_suite(str(directory), suite)
    return directory


def test_exact_f24_by_hand():
    assert exact_f24(0x3F800000) == 0x3F0000  # 1.0
    assert exact_f24(0xBFC00000) == 0xBF8000  # -1.5
    assert exact_f24(0x80000000) == 0x800000  # -0
    assert exact_f24(0x7F800000) == 0x7F0000  # +inf
    assert exact_f24(0x7FC00000) == 0x7F8000  # NaN, payload kept
    assert exact_f24(0x3F800001) is None  # needs 23 mantissa bits
    # the largest denormal pattern 0xFFFF * 2^-78 = (2 - 2^-15) * 2^-63
    assert exact_f24(((127 - 63) << 23) | 0x7FFF00) == 0x00FFFF
    assert exact_f24((127 - 78) << 23) == 0x000001  # 2^-78
    assert exact_f24((127 - 79) << 23) is None  # below every float24


def test_size_and_coverage(suite):
    assert len(suite) >= 2000
    assert len({c.id for c in suite}) == len(suite)
    tags = {t for c in suite for t in c.tags}
    for op in ("add", "dp3", "dp4", "dph", "dphi", "dst", "dsti", "ex2", "lg2", "litp", "mul",
               "sge", "sgei", "slt", "slti", "flr", "max", "min", "rcp", "rsq", "mova", "mov",
               "cmp", "mad", "madi", "ifc", "ifu", "jmpc", "jmpu", "call", "callc", "callu",
               "loop", "break", "breakc", "setemit", "emit"):
        assert f"op:{op}" in tags, op
    for quirk in ("if-stack-overflow", "call-stack-overflow", "loop-stack-overflow",
                  "call-four-pops", "jmp-at-scope-end", "nested-loops-share-end",
                  "stack-priority", "break-empty-stack", "output-banking", "winding"):
        assert f"quirk:{quirk}" in tags, quirk
    for mode in ("point", "fixed", "variable"):
        assert f"gsh:{mode}" in tags
    for form in ("swizzle", "negate", "mask", "relative", "index-a0.x", "index-a0.y",
                 "index-aL", "out-of-range-index"):
        assert f"form:{form}" in tags


def test_the_suite_is_deterministic(suite, written, tmp_path):
    again = list(generate.build([*catalog_facts.seed_groups(),
                                 *catalog_hardware.hardware_groups()]))
    assert [suite_io.case_json(c) for c in again] == [suite_io.case_json(c)
                                                      for c in suite[:len(again)]]
    vectors.write_suite(str(tmp_path / "b"), suite)
    for name in ("cases.jsonl", "cases.bin", "manifest.json"):
        assert (tmp_path / "b" / name).read_bytes() == (written / name).read_bytes()
    manifest = json.loads((written / "manifest.json").read_text())
    assert manifest["cases"] == len(suite) and "time" not in json.dumps(manifest)


def test_cases_rerun_from_their_stored_data_on_the_reference_engine(suite):
    """Every case whose value is a fact, and a sample of the rest, recomputed from the
    case's SHBIN bytes and patterns on the reference engine (the suite used batch)."""
    sample = [c for i, c in enumerate(suite) if c.provenance.kind != "model" or i % 5 == 0]
    for case in sample:
        for mode in MODES:
            assert rerun(case, mode) == case.expected[mode], (case.id, mode)


def test_binary_form_by_hand(suite, written):
    data = (written / "cases.bin").read_bytes()
    assert data[:8] == b"PICAVEC1"
    version, count = struct.unpack_from("<II", data, 8)
    assert (version, count) == (vectors.SUITE_VERSION, len(suite))
    offset = 16
    for case in suite[:50]:
        size, = struct.unpack_from("<I", data, offset)
        n, = struct.unpack_from("<H", data, offset + 4)
        assert data[offset + 6:offset + 6 + n].decode() == case.id
        offset += 4 + size
    lines = (written / "cases.jsonl").read_bytes().splitlines()
    assert len(lines) == len(suite)
    first = json.loads(lines[0])
    assert first["id"] == suite[0].id and first["provenance"]["kind"] == "seed"


def _results(suite, path, mode, corrupt):
    with open(path, "w") as stream:
        for case in suite:
            record = {"id": case.id, **suite_io.expected_json(case.expected[mode], mode)}
            corrupt(case, record)
            stream.write(json.dumps(record) + "\n")


def test_check_finds_corrupted_results(suite, tmp_path, capsys):
    def corrupt(case, record):
        if case.id == "seed/max-0-minus-inf":  # Panda3DS's result: -inf
            record["outputs"]["o0"][0] = "0xff0000"
        if case.id == "flow/quirk/call-four-pops/tail-calls":  # o2 never written
            record["outputs"]["o2"] = ["0x000000"] * 4
        if case.id == "seed/nan-times-0":  # a NaN with another payload still matches
            record["outputs"]["o0"] = ["0x7f0001", "0xff8000", "0x7fffff", "0x7f8000"]
    path = tmp_path / "results.jsonl"
    _results(suite, path, "f24", corrupt)
    assert cli.main(["vectors", "--check", str(path)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("2 of ")
    assert "case seed/max-0-minus-inf" in out and "o0.x: expected 0x000000, got 0xff0000" in out
    assert "== op:max (1 case) ==" in out and "== quirk:call-four-pops (1 case) ==" in out
    max_line = next(line for line in out.splitlines() if "first differing" in line
                    and "max" in line)
    assert "produces o0.x" in max_line
    four = out.split("case flow/quirk/call-four-pops/tail-calls")[1]
    assert "o2.x: expected 0x410000, got 0x000000" in four  # c3 = 4.0, by the 'after' proc
    assert "mov o2, c3" in four.split("first differing instruction:")[1].splitlines()[0]


def test_check_in_f32_mode_and_missing_cases(suite, tmp_path, capsys):
    path = tmp_path / "r.jsonl"
    _results(suite[:100], path, "f32", lambda case, record: None)
    assert cli.main(["vectors", "--check", str(path), "--mode", "f32"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("0 of 100 checked cases diverge (f32 mode)")
    assert f"{len(suite) - 100} cases of the suite have no result" in out
    # f24 patterns read in f32 mode are wrong patterns: found
    _results(suite[:3], path, "f24", lambda case, record: None)
    assert cli.main(["vectors", "--check", str(path), "--mode", "f32", "--no-disasm"]) == 1


@pytest.mark.parametrize("text,message", [
    ("not json\n", "r.jsonl:1: invalid JSON"),
    ('{"x": 1}\n', "r.jsonl:1: each line must be an object with an 'id'"),
    ('{"id": "seed/inf-times-0", "outputs": {"o0": [1, 2]}}\n', "four bit patterns"),
    ('{"id": "seed/inf-times-0", "status": "crashed"}\n', "status must be one of"),
])
def test_bad_results_are_errors(tmp_path, capsys, text, message):
    path = tmp_path / "r.jsonl"
    path.write_text(text)
    assert cli.main(["vectors", "--check", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("pica: error: ") and message in err and "Traceback" not in err


def test_cli_needs_an_action_and_a_writable_target(tmp_path, capsys):
    assert cli.main(["vectors"]) == 1
    assert "give -o DIR" in capsys.readouterr().err
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert cli.main(["vectors", "-o", str(blocker)]) == 1
    assert "is not a directory" in capsys.readouterr().err
    assert blocker.read_text() == "x"


def test_check_compares_semantic_attributes_when_results_give_them(suite, tmp_path, capsys):
    """An emulator filling unmapped slots with 0 instead of 1.0 (pica-emulation.md#output-map) is
    found when its results include the attributes after the output map."""
    target = "model/output-map/unmapped-slots-read-one"
    cases = [case for case in suite if case.id == target]

    def zero_fill(case, record):
        record["semantics"]["color"][2] = "0x000000"

    path = tmp_path / "results.jsonl"
    _results(cases, path, "f24", zero_fill)
    assert cli.main(["vectors", "--check", str(path), "--no-disasm"]) == 1
    assert "semantic color[2]: expected 0x3f0000, got 0x000000" in capsys.readouterr().out
    _results(cases, path, "f24", lambda case, record: record.pop("semantics"))
    assert cli.main(["vectors", "--check", str(path), "--no-disasm"]) == 0  # not given
