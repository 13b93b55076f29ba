"""The suite in both float24 roundings (docs/vectors-format.md#rounding): what changes
between them, the cases tagged as depending on the mode, the manifest, and --check."""

import json

import pytest

from gpuisa.errors import InputError
from gpuisa.pica import cli, vectors
from gpuisa.pica.vectors import suite_io
from gpuisa.pica.vectors.generate import ROUNDING_DEPENDENT
from gpuisa.pica.vectors.replay import rerun


@pytest.fixture
def both(suite, truncating_suite, monkeypatch):
    """The command line gets the suite of the rounding it asks for."""
    suites = {"nearest-even": suite, "truncate": truncating_suite}
    monkeypatch.setattr(vectors, "build_suite",
                        lambda progress=None, rounding="nearest-even": suites[rounding])
    return suites


def test_the_tag_marks_exactly_the_cases_whose_f24_expectation_the_mode_changes(
        suite, truncating_suite):
    assert [c.id for c in suite] == [c.id for c in truncating_suite]
    changed = {a.id for a, b in zip(suite, truncating_suite, strict=True)
               if a.expected["f24"] != b.expected["f24"]}
    for cases in (suite, truncating_suite):
        assert {c.id for c in cases if ROUNDING_DEPENDENT in c.tags} == changed
    assert len(changed) > 200  # arithmetic cases mostly, not a handful
    for a, b in zip(suite, truncating_suite, strict=True):
        assert a.expected["f32"] == b.expected["f32"], a.id  # f32 has no such mode


def test_the_rounding_experiments_by_hand(suite, truncating_suite):
    """pica-emulation.md#f24-rounding's experiments: 1 + 0.75 ulp (nearest 1 + ulp,
    truncated 1), 1 + 0.5 ulp (a tie: 1 to even, 1 truncated), (1 + ulp)^2 = 1 + 2 ulp +
    ulp^2 (1 + 2 ulp either way)."""
    nearest = {c.id: c for c in suite}
    truncated = {c.id: c for c in truncating_suite}
    want = {"choice/rounding/add-1-above-half-ulp": (0x3F0001, 0x3F0000),
            "choice/rounding/add-1-tie-half-ulp": (0x3F0000, 0x3F0000),
            "choice/rounding/mul-1ulp-squared": (0x3F0002, 0x3F0002)}
    for ident, (to_nearest, toward_zero) in want.items():
        assert nearest[ident].expected["f24"].outputs[0][1] == (to_nearest,) * 4, ident
        assert truncated[ident].expected["f24"].outputs[0][1] == (toward_zero,) * 4, ident
    assert ROUNDING_DEPENDENT in truncated["choice/rounding/add-1-above-half-ulp"].tags
    assert ROUNDING_DEPENDENT not in truncated["choice/rounding/add-1-tie-half-ulp"].tags
    case = truncated["choice/rounding/add-1-above-half-ulp"]
    assert case.provenance.choice.startswith("truncate toward zero")
    assert nearest[case.id].provenance.choice.startswith("round to nearest even")


def test_inputs_given_as_numbers_are_converted_by_the_mode(suite, truncating_suite):
    """A float32 input that is not a float24 value: its f24 pattern is the suite's
    conversion; the float32 pattern is the same."""
    differing = 0
    for a, b in zip(suite, truncating_suite, strict=True):
        for x, y in zip(a.inputs, b.inputs, strict=True):
            assert x.f32 == y.f32
            differing += x.f24 != y.f24
    assert differing > 0


def test_truncating_cases_rerun_from_their_stored_data(suite, truncating_suite):
    # Rerun from its stored patterns, a case gives its expectation in its own rounding;
    # the tag says the suite made in the other rounding (its inputs converted by that
    # rounding too) expects other bits.
    nearest = {case.id: case for case in suite}
    sample = [c for c in truncating_suite if ROUNDING_DEPENDENT in c.tags][::7]
    for case in sample:
        assert rerun(case, "f24", rounding="truncate") == case.expected["f24"], case.id
        assert nearest[case.id].expected["f24"] != case.expected["f24"], case.id


def _results(cases, path):
    with open(path, "w") as stream:
        for case in cases:
            record = {"id": case.id, **suite_io.expected_json(case.expected["f24"], "f24")}
            stream.write(json.dumps(record) + "\n")


def test_cli_writes_and_checks_the_rounding(both, tmp_path, capsys):
    out = tmp_path / "suite"
    assert cli.main(["vectors", "-o", str(out), "--rounding", "truncate"]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["rounding"] == "truncate" and manifest["modes"] == ["f24", "f32"]
    results = tmp_path / "truncated.jsonl"
    _results(both["truncate"], results)
    capsys.readouterr()
    assert cli.main(["vectors", "--check", str(results), "--rounding", "truncate"]) == 0
    assert "0 of " in capsys.readouterr().out
    # the same results against the default suite: every mode-dependent case diverges
    assert cli.main(["vectors", "--check", str(results), "--no-disasm"]) == 1
    first = capsys.readouterr().out.splitlines()[0]
    dependent = sum(ROUNDING_DEPENDENT in c.tags for c in both["nearest-even"])
    assert first.startswith(f"{dependent} of ")


def test_cli_rounding_errors(both, tmp_path, capsys):
    results = tmp_path / "r.jsonl"
    results.write_text("")
    assert cli.main(["vectors", "--check", str(results), "--mode", "f32",
                     "--rounding", "truncate"]) == 1
    assert "--rounding truncate changes the f24 expectations only" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(["vectors", "-o", str(tmp_path / "s"), "--rounding", "up"])
    assert "invalid choice" in capsys.readouterr().err


def test_build_suite_checks_the_rounding():
    with pytest.raises(InputError, match="rounding='up'"):
        vectors.build_suite(rounding="up")


def test_mode_dependent_cases_carry_both_expectations(suite, truncating_suite):
    """Each tagged case holds the f24 expectation of either rounding: its own, and the
    one the suite made in the other rounding has; the others hold none."""
    for cases, own in ((suite, "nearest-even"), (truncating_suite, "truncate")):
        others = {c.id: c for c in (truncating_suite if own == "nearest-even" else suite)}
        for case in cases:
            if ROUNDING_DEPENDENT not in case.tags:
                assert case.f24_by_rounding == (), case.id
                continue
            both = dict(case.f24_by_rounding)
            assert [m for m, _ in case.f24_by_rounding] == ["nearest-even", "truncate"]
            assert both[own] == case.expected["f24"]
            other = next(m for m in both if m != own)
            assert both[other] == others[case.id].expected["f24"] != both[own], case.id
    tagged = next(c for c in suite if c.f24_by_rounding)
    line = json.loads(json.dumps(suite_io.case_json(tagged)))
    assert set(line["f24_by_rounding"]) == {"nearest-even", "truncate"}
    assert suite_io.case_from_json(line).f24_by_rounding == tagged.f24_by_rounding


def test_check_says_which_rounding_a_result_is(suite, truncating_suite):
    """Results of an engine that truncates, checked against the default suite: every
    divergence is named as the truncating expectation; a result that is neither is not."""
    truncated = {c.id: c for c in truncating_suite}
    dependent = [c for c in suite if ROUNDING_DEPENDENT in c.tags][:40]
    records = [(n, {"id": c.id, **suite_io.expected_json(truncated[c.id].expected["f24"],
                                                         "f24")})
               for n, c in enumerate(dependent)]
    report = vectors.check(dependent, records, "f24")
    assert len(report.divergences) == len(dependent)
    assert {d.matches for d in report.divergences} == {"truncate"}
    assert "is the expectation of the truncate rounding" in vectors.render(report, False)
    wrong = dict(records[0][1], outputs={name: ["0x000001"] * 4
                                         for name in records[0][1]["outputs"]})
    (only,) = vectors.check(dependent[:1], [(0, wrong)], "f24").divergences
    assert only.matches == ""
