"""``pica fuzz`` on Dask distributed: a campaign cut into shards on a two-worker local
cluster files exactly the findings of the same campaign in one process (the C adapter
with a wrong IF rule and a crash on DST, so that there are findings of several causes to
select, shrink and order).  The workers are threads of this process: 4.5 s for the
test, against 10 s with worker processes (their start and imports), measured on the
shared 2-core machine; pica fuzz --workers starts processes."""

from __future__ import annotations

import pytest
from adapters import build

from gpuisa.errors import InputError
from gpuisa.pica.fuzz import distributed
from gpuisa.pica.fuzz.campaign import Settings, run_campaign


def test_two_workers_find_what_one_process_finds(tmp_path):
    pytest.importorskip("distributed")
    adapter = build(tmp_path, "-DMUTANT_IF_NO_POP", "-DCRASH_ON_OPCODE=4")
    settings = Settings((str(adapter),), "f32", 0, 8, timeout=5.0, batch=4,
                        shrink_seconds=30.0, shrink_per_signature=1)
    serial = run_campaign(settings, str(tmp_path / "serial"))
    with distributed.cluster(workers=2, processes=False) as client:
        assert len(client.scheduler_info()["workers"]) == 2
        sharded = distributed.run_distributed(settings, str(tmp_path / "dask"), client)
    assert len(serial.findings) >= 2 and sharded.findings == serial.findings
    assert (sharded.next, sharded.skipped, sharded.signatures) == \
        (serial.next, serial.skipped, serial.signatures)
    for name in ("findings.jsonl", *(f["case"] for f in serial.findings)):
        assert (tmp_path / "dask" / name).read_text() == (tmp_path / "serial" / name).read_text()


def test_without_dask_the_error_names_the_extra(monkeypatch):
    def no_dask(name):
        raise ImportError(f"No module named {name!r}")

    monkeypatch.setattr(distributed.importlib, "import_module", no_dask)
    with pytest.raises(InputError, match=r"pip install \"gpuisa\[dist\]\""), \
            distributed.cluster(workers=2):
        pass
