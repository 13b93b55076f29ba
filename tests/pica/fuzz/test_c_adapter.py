"""The C reference adapter (examples/adapter): built with the system C compiler when there
is one, it runs the suite through the adapter protocol in f32 mode and must agree with
gpuisa's f32 engine on every vertex-shader case; geometry cases and f24 mode it declines
as "unsupported".

Its EX2/LG2 are the correctly rounded functions (float64 rounded to float32, what the C
library's exp2f/log2f give), while gpuisa's f32 rule is still NumPy's float32 exp2/log2
(issue 27, deliverable 1, changes it): a case whose program runs EX2 or LG2 may differ by
one unit in the last place, and by nothing else."""

from __future__ import annotations

import re

import pytest
from adapters import build

from gpuisa.pica import vectors
from gpuisa.pica.vectors.adapter import run_cases

SPECIAL = re.compile(r"^\s*(ex2|lg2)\b", re.M)


@pytest.fixture(scope="module")
def adapter(tmp_path_factory):
    return build(tmp_path_factory.mktemp("adapter"))


def ulps(expected: int, got: int) -> int:
    return abs(expected - got) if (expected ^ got) >> 31 == 0 else 1 << 32


def test_the_c_adapter_passes_the_suite_in_f32(adapter, suite):
    records = list(run_cases([str(adapter)], suite, "f32", timeout=20.0, batch=1000))
    by_id = {case.id: case for case in suite}
    geometry = {case.id for case in suite if case.geometry or case.pipeline}
    assert {r["id"] for r in records if r["status"] == "unsupported"} == geometry
    vertex = [r for r in records if r["id"] not in geometry]
    report = vectors.check([by_id[r["id"]] for r in vertex], enumerate(vertex, 1), "f32")
    assert report.checked == len(suite) - len(geometry) > 2500
    for divergence in report.divergences:
        case = divergence.case
        assert SPECIAL.search(case.source), (case.id, divergence.differences)
        got = dict(next(r for r in vertex if r["id"] == case.id)["outputs"])
        for name, values in case.expected["f32"].outputs:
            assert all(ulps(e, g) <= 1 for e, g in zip(values, got[name], strict=True)), case.id


def test_f24_mode_is_declined(adapter, suite):
    records = list(run_cases([str(adapter)], suite[:20], "f24", timeout=20.0))
    assert {r["status"] for r in records} == {"unsupported"}
