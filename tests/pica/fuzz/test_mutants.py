"""``pica fuzz`` against gpuisa's reference engine with one rule changed
(``gpuisa_adapter --mutate RULE``): each wrong rule is found, shrunk to a few
instructions and filed under a cause that names the rule.  The campaigns run the mutant
in this process (``local``), which the adapter command also runs; the seeds and program
counts are the smallest that reach each bug, so each test takes a second or two."""

from __future__ import annotations

import json
import math
import struct
import subprocess
import sys

import pytest

from gpuisa.pica.engine.reference.mutants import MUTANTS, mutated
from gpuisa.pica.fuzz.campaign import Settings, run_campaign
from gpuisa.pica.fuzz.generator import NOP
from gpuisa.pica.vectors.adapter import run_cases
from gpuisa.pica.vectors.gpuisa_adapter import Mutated
from gpuisa.pica.vectors.suite_io import read_cases

ADAPTER = (sys.executable, "-m", "gpuisa.pica.vectors.gpuisa_adapter")
#: IEEE float32 infinities, by hand: sign, exponent all ones, mantissa 0.
PLUS_INF, MINUS_INF = 0x7F800000, 0xFF800000


def campaign(rule, directory, seed, programs):
    settings = Settings((*ADAPTER, "--mutate", rule), "f32", seed, programs, timeout=5.0,
                        batch=32, shrink_seconds=8.0, shrink_per_signature=1)
    return run_campaign(settings, str(directory), local=Mutated(rule))


#: RCP(-0) = -inf: found through an FLR of it, filed under the RCP and the -0 it reads.
RCP = ("rcp-negative-zero", 13, 8)


@pytest.fixture(scope="module")
def rcp_campaign(tmp_path_factory):
    directory = tmp_path_factory.mktemp("rcp")
    return campaign(*RCP[:1], directory, *RCP[1:]), directory


@pytest.mark.parametrize("rule,seed,programs,names", [
    (*RCP, ("rcp with -0", "pica-emulation.md#fp-table")),
    ("if-never-pops", 0, 5, ("ifc: IF-stack pop", "pica-emulation.md#flow-check")),
    ("loop-al-restored-early", 1, 1, ("loop: LOOP iteration", "state aL",
                                      "pica-emulation.md#flow-check")),
])
def test_a_changed_rule_is_found_shrunk_and_named(tmp_path, rcp_campaign, rule, seed,
                                                  programs, names):
    if rule == RCP[0]:
        state, tmp_path = rcp_campaign
    else:
        state = campaign(rule, tmp_path, seed, programs)
    named = [f for f in state.findings if all(n in f["cause"] for n in names)]
    assert named, [f["cause"] for f in state.findings]
    finding = min(named, key=lambda f: f["instructions"])
    assert finding["instructions"] <= 4
    record = json.loads((tmp_path / finding["case"]).read_text())
    kept = [w for w in record["program"]["code"] if int(w, 16) != NOP]
    assert len(kept) == finding["instructions"]
    assert record["expected"]["f32"]["status"] == record["expected"]["f24"]["status"] == "ok"


def test_the_adapter_command_runs_the_mutant(rcp_campaign):
    """The shrunk RCP(-0) finding, on the real adapter process: where the right engine
    gives one infinity the mutant gives the other (RCP(-0) feeds a negated read)."""
    _, tmp_path = rcp_campaign
    finding = json.loads((tmp_path / "findings.jsonl").read_text().splitlines()[0])
    (case,) = read_cases(str(tmp_path / finding["case"]))
    right, wrong = (next(run_cases(ADAPTER + extra, [case], "f32", timeout=30))
                    for extra in ((), ("--mutate", "rcp-negative-zero")))
    assert right["status"] == wrong["status"] == "ok"
    got = {name: [int(v, 16) for v in wrong["outputs"][name]] for name in wrong["outputs"]}
    expected = {name: [int(v, 16) for v in right["outputs"][name]] for name in right["outputs"]}
    changed = [(name, k) for name in got for k in range(4) if got[name][k] != expected[name][k]]
    assert changed and all({got[n][k], expected[n][k]} == {PLUS_INF, MINUS_INF}
                           for n, k in changed)


def test_a_mutant_lasts_its_with_block():
    from gpuisa.pica.engine.rules.scalar import F32
    from gpuisa.pica.flow import stacks

    original = (F32.rcp, stacks.next_pc)
    with mutated("rcp-negative-zero"):
        assert F32.rcp(-0.0) == -math.inf and F32.rcp(0.0) == math.inf
        assert struct.pack("<f", F32.rcp(4.0)) == struct.pack("<f", 0.25)
    with mutated("if-never-pops"):
        assert stacks.next_pc is not original[1]
    assert (F32.rcp, stacks.next_pc) == original and F32.rcp(-0.0) == math.inf
    # the PICA's inf * 0 = +0 and EX2(-inf) = +0, EX2(+inf) = +inf (pica-emulation.md#mul,
    # #fp-table); the mutants give IEEE's NaN
    assert F32.mul(math.inf, 0.0) == 0.0 and F32.ex2(-math.inf) == 0.0
    with mutated("mul-inf-zero-nan"):
        assert math.isnan(F32.mul(math.inf, 0.0)) and math.isnan(F32.mul(0.0, -math.inf))
        assert F32.mul(2.0, 3.0) == 6.0
    with mutated("ex2-infinity-nan"):
        assert math.isnan(F32.ex2(math.inf)) and F32.ex2(1.0) == 2.0
    ifs, calls, loops = stacks.new_stacks()
    n_if = stacks.push_if(ifs, 0, 5, 9)  # an IF whose true branch ends before PC 5
    right = stacks.next_pc(ifs, n_if, calls, 0, loops, 0, 4, stacks.NO_JUMP, False, 0, True,
                           True, True)
    with mutated("if-never-pops"):
        wrong = stacks.next_pc(ifs, n_if, calls, 0, loops, 0, 4, stacks.NO_JUMP, False, 0,
                               True, True, True)
    assert (right[0], right[2]) == (9, 0) and (wrong[0], wrong[2]) == (5, 1)


def test_every_mutant_names_its_rule_and_the_cli_refuses_jit():
    assert {"rcp-negative-zero", "if-never-pops", "loop-al-restored-early"} <= set(MUTANTS)
    assert all(m.rule.startswith("pica-emulation.md#") for m in MUTANTS.values())
    done = subprocess.run([*ADAPTER, "--mutate", "if-never-pops", "--engine", "jit", "f32",
                           "nowhere"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "--mutate" in done.stderr
