"""The C reference adapter (examples/adapter): built with the system C compiler when there
is one, it runs the suite through the adapter protocol in f32 mode and must agree with
gpuisa's f32 engine on every vertex-shader case; geometry cases and f24 mode it declines
as "unsupported".  Its EX2/LG2 are C's double exp2/log2 rounded to float32, which is
correctly rounded on every input of the suite, as gpuisa's f32 rule is
(pica-emulation.md#f32-ex2-lg2)."""

from __future__ import annotations

import pytest
from adapters import build

from gpuisa.pica import vectors
from gpuisa.pica.vectors.adapter import run_cases


@pytest.fixture(scope="module")
def adapter(tmp_path_factory):
    return build(tmp_path_factory.mktemp("adapter"))


def test_the_c_adapter_passes_the_suite_in_f32(adapter, suite):
    records = list(run_cases([str(adapter)], suite, "f32", timeout=20.0, batch=1000))
    by_id = {case.id: case for case in suite}
    geometry = {case.id for case in suite if case.geometry or case.pipeline}
    assert {r["id"] for r in records if r["status"] == "unsupported"} == geometry
    vertex = [r for r in records if r["id"] not in geometry]
    report = vectors.check([by_id[r["id"]] for r in vertex], enumerate(vertex, 1), "f32")
    assert report.checked == len(suite) - len(geometry) > 2500
    assert [d.case.id for d in report.divergences] == []


def test_f24_mode_is_declined(adapter, suite):
    records = list(run_cases([str(adapter)], suite[:20], "f24", timeout=20.0))
    assert {r["status"] for r in records} == {"unsupported"}
