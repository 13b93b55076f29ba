"""``pica fuzz`` against deliberately wrong engines: the C reference adapter built with
one rule changed must be found, shrunk to a few instructions and filed under a cause
naming the rule; a crash and a hang of the adapter are findings and the campaign goes
on.  The seeds and program counts are the smallest that reach each bug (found by running
the campaign), so each test takes seconds."""

from __future__ import annotations

import json

import pytest
from adapters import build

from gpuisa.pica import cli
from gpuisa.pica.fuzz.campaign import Settings, run_campaign
from gpuisa.pica.fuzz.generator import NOP


def campaign(adapter, directory, seed, programs, **options):
    settings = Settings((str(adapter),), "f32", seed, programs, **{
        "timeout": 5.0, "batch": 32, "shrink_seconds": 8.0, "shrink_per_signature": 1,
        **options})
    return run_campaign(settings, str(directory))


@pytest.mark.parametrize("define,seed,programs,cause,rule", [
    ("-DMUTANT_RCP_NEG_ZERO", 1, 89, "rcp with -0", "pica-emulation.md#scalar-units"),
    ("-DMUTANT_IF_NO_POP", 0, 5, "if", "pica-emulation.md#flow-check"),
    ("-DMUTANT_LOOP_AL_EARLY", 1, 1, "loop", "pica-emulation.md#flow-check"),
])
def test_a_wrong_rule_is_found_shrunk_and_named(tmp_path, define, seed, programs, cause, rule):
    state = campaign(build(tmp_path, define), tmp_path / "out", seed, programs)
    named = [f for f in state.findings if cause in f["cause"] and rule in f["cause"]]
    assert named, [f["cause"] for f in state.findings]
    assert min(f["instructions"] for f in named) <= 4
    finding = min(named, key=lambda f: f["instructions"])
    record = json.loads((tmp_path / "out" / finding["case"]).read_text())
    assert record["id"].startswith("fuzz/") and record["expected"]["f32"]["status"] == "ok"
    kept = [w for w in record["program"]["code"] if int(w, 16) != NOP]
    assert len(kept) == finding["instructions"]
    pica = (tmp_path / "out" / finding["case"]).with_suffix(".pica").read_text()
    assert pica.startswith(f"; pica fuzz --seed {seed}") and "\n.proc main\n" in pica


def test_the_right_engine_has_no_finding(tmp_path):
    state = campaign(build(tmp_path), tmp_path / "out", 1, 24)
    assert state.findings == [] and state.next == 24


@pytest.mark.parametrize("define,status", [("-DCRASH_ON_OPCODE=4", "crash"),
                                           ("-DHANG_ON_OPCODE=6", "timeout")])
def test_a_crash_or_hang_is_a_finding_and_the_campaign_goes_on(tmp_path, define, status):
    """Opcode 4 is DST, 6 is LG2: the adapter dies of SIGSEGV, or never answers."""
    # A hanging candidate costs the whole 0.5 s time limit: a loaded machine needs more
    # than the 4 s an idle one takes to shrink the hang to a few instructions.
    state = campaign(build(tmp_path, define), tmp_path / "out", 2, 16, timeout=0.5,
                     shrink_seconds=12.0)
    assert state.next == 16
    statuses = [f for f in state.findings if f["cause"].startswith(f"status {status}")]
    assert statuses and min(f["instructions"] for f in statuses) <= 3
    mnemonic = "dst" if status == "crash" else "lg2"
    assert any(mnemonic in f["cause"] for f in statuses)
    if status == "crash":
        assert any("SIGSEGV" in f["detail"] for f in statuses)


def test_a_campaign_is_deterministic_and_resumable(tmp_path):
    adapter = build(tmp_path, "-DMUTANT_IF_NO_POP")
    whole = campaign(adapter, tmp_path / "a", 0, 8, batch=4)
    campaign(adapter, tmp_path / "b", 0, 4, batch=4)
    resumed = run_campaign(Settings((str(adapter),), "f32", 0, 8, 5.0, 4, 8.0, 1),
                           str(tmp_path / "b"), resume=True)
    assert whole.findings and resumed.findings == whole.findings
    assert (tmp_path / "a" / "findings.jsonl").read_text() == \
        (tmp_path / "b" / "findings.jsonl").read_text()


def test_the_cli_is_quiet_when_piped_and_names_its_errors(tmp_path, capsys):
    adapter = build(tmp_path)
    assert cli.main(["fuzz", "--adapter", str(adapter), "--mode", "f32", "--programs", "4",
                     "-o", str(tmp_path / "out")]) == 0
    captured = capsys.readouterr()
    assert captured.err == "" and captured.out.startswith("4 programs")
    assert cli.main(["fuzz", "--adapter", str(adapter), "--mode", "f24", "--programs", "8",
                     "-o", str(tmp_path / "out"), "--resume"]) == 1
    assert "pica: error:" in capsys.readouterr().err
