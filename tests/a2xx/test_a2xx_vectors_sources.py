"""The suite's cases whose expectation comes from a source, checked against that source's
data in tests/a2xx/data/ (each file's header names the source and revision), never
against gpuisa's output: the freedreno wiki's opcode rows, Xenia's Xenos half floats and
xenia-canary PR #1149's scalar-operand lane."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from gpuisa.a2xx.vectors.catalog_sources import source_groups
from gpuisa.a2xx.vectors.generate import build

DATA = Path(__file__).parent / "data"


def _table(name: str) -> list[list[str]]:
    lines = (DATA / name).read_text(encoding="utf-8").splitlines()
    return [line.split("\t") for line in lines if line and not line.startswith("#")]


@pytest.fixture(scope="module")
def sourced():
    return {c.id: c for c in build(source_groups())}


def _floats(rows) -> np.ndarray:
    return np.array(rows, np.uint32).reshape(-1, 4).view(np.float32)


def _export(case, target: str, number: int = 0) -> np.ndarray:
    return _floats(case.expected[target].export(number))


def _registers(case) -> dict[int, np.ndarray]:
    return {n: _floats(rows).astype(np.float64) for n, rows in case.registers}


#: The wiki's rows as formulas over the printed operands (Mesa prints MULADDv's Rsrc3
#: first: ``MULADDv dst = src3, src1, src2``), computed in float64.
WIKI_VECTOR = {
    "ADDv": lambda a, b, c: a + b,
    "MULv": lambda a, b, c: a * b,
    "MAXv": lambda a, b, c: np.maximum(a, b),
    "MINv": lambda a, b, c: np.minimum(a, b),
    "FLOORv": lambda a, b, c: np.floor(a),
    "MULADDv": lambda a, b, c: a + b * c,
    "DOT4v": lambda a, b, c: np.repeat((a * b).sum(axis=1, keepdims=True), 4, axis=1),
    "DOT3v": lambda a, b, c: np.repeat((a * b)[:, :3].sum(axis=1, keepdims=True), 4, axis=1),
}
WIKI_SCALAR = {"RCP": ("RECIP_IEEE", lambda x: 1 / x),
               "RSQ": ("RECIPSQ_IEEE", lambda x: 1 / np.sqrt(x)),
               "EXP2": ("EXP_IEEE", np.exp2), "LOG2": ("LOG_IEEE", np.log2),
               "SQRT": ("SQRT_IEEE", np.sqrt)}


def test_wiki_rows(sourced):
    rows = {row.split()[0]: (table, row)
            for table, row in _table("freedreno-wiki-opcode-rows.txt")}
    checked = 0
    for case in sourced.values():
        if not case.id.startswith("doc/wiki/"):
            continue
        name = case.id.split("/")[2]
        wiki_name = next((k for k, (op, _) in WIKI_SCALAR.items() if op == name), name)
        table, row = rows[wiki_name]
        assert f'table row "{row}"' in case.provenance.source
        regs = _registers(case)
        if table == "vector":
            a, b, c = (regs.get(n, np.zeros((4, 4))) for n in (1, 2, 3))
            want = WIKI_VECTOR[name](a, b, c)
            assert np.array_equal(want.astype(np.float32), want)  # exact in float32
            for target in ("adreno", "xenos"):
                np.testing.assert_array_equal(_export(case, target), want.astype(np.float32))
        else:
            want = WIKI_SCALAR[wiki_name][1](regs[1][:, 3]).astype(np.float32)
            for target in ("adreno", "xenos"):
                np.testing.assert_array_equal(_export(case, target)[:, 0], want)
        checked += 1
    assert checked == 3 * 8 + 5  # three cases per vector row, one per scalar row


def _half_ieee(bits: int) -> float:
    return float(np.array([bits], np.uint16).view(np.float16)[0])


def test_xenos_half_floats_follow_xenia(sourced):
    table = {int(h, 16): float(v) for h, v in _table("xenia-xenos-half.txt")}
    header = (DATA / "xenia-xenos-half.txt").read_text()
    cases = [c for c in sourced.values() if c.id.startswith("emu/xenia/half-exponent-31/")]
    assert len(cases) == 4
    for case in cases:
        assert "a904f297c8487e5c08bc777234967a1f09f70d6d" in case.provenance.source
        assert "a904f297c8487e5c08bc777234967a1f09f70d6d" in header
        halves = np.frombuffer(case.vertex_buffers[0].data, "<u2")
        xenos = _export(case, "xenos")[0]
        adreno = _export(case, "adreno")[0]
        for k, half in enumerate(halves):
            want = table[int(half)]
            assert xenos[k] == want and math.copysign(1, xenos[k]) == math.copysign(1, want)
            ieee = _half_ieee(int(half))
            assert (np.isnan(adreno[k]) and np.isnan(ieee)) or adreno[k] == ieee
        assert case.differences == ("half_floats",)


def test_scalar_lane_evidence(sourced):
    facts = dict(_table("xenia-canary-1149.txt"))
    first, second = int(facts["first-operand-lane"]), int(facts["second-operand-lane"])
    previous = int(facts["previous-second-operand-lane"])
    ops = {"ADDs": np.add, "MULs": np.multiply, "MAXs": np.maximum, "MINs": np.minimum,
           "SUBs": np.subtract}
    assert set(facts["operations"].split()) == set(ops)
    cases = [c for c in sourced.values() if c.id.startswith("evidence/scalar-lane/")]
    assert len(cases) == 30
    for case in cases:
        _, _, op, swizzle = case.id.split("/")
        assert "pull/1149" in case.provenance.source and case.provenance.kind == "evidence"
        r1 = _registers(case)[1]
        lane = {ch: i for i, ch in enumerate("xyzw")}
        a = r1[:, lane[swizzle[first]]]
        want = ops[op](a, r1[:, lane[swizzle[second]]]).astype(np.float32)
        alternative = ops[op](a, r1[:, lane[swizzle[previous]]]).astype(np.float32)
        for target in ("adreno", "xenos"):
            np.testing.assert_array_equal(_export(case, target)[:, 0], want)
        label, result = case.alternatives[0]
        assert label == "scalar_b_lane=0"
        np.testing.assert_array_equal(_floats(result.export(0))[:, 0], alternative)
        assert swizzle[second] == swizzle[previous] or not np.array_equal(want, alternative)


def test_muladd_choice_names_its_alternative(sourced):
    case = sourced["choice/muladd-not-fused"]
    assert case.provenance.kind == "documented-choice"
    assert "fused" in case.provenance.choice and "a2xx-isa.md#open-muladd" in case.provenance.source
    regs = _registers(case)
    c, a, b = regs[3], regs[1], regs[2]
    a32, b32, c32 = (x.astype(np.float32) for x in (a, b, c))
    unfused = (a32 * b32).astype(np.float32) + c32
    fused = (a * b + c).astype(np.float32)  # exact product in float64, one rounding
    np.testing.assert_array_equal(_export(case, "adreno"), unfused)
    assert not np.array_equal(unfused[0], fused[0])  # the choice matters for these operands
