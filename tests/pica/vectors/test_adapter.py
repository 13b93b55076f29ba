"""The adapter protocol's driver (gpuisa.pica.vectors.adapter): results come back in
order, a crash and a hang of the emulator are recorded for the case they happened on and
the batch goes on, a broken protocol is an error; and gpuisa's own adapter agrees with the
suite."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from gpuisa.pica import cli, vectors
from gpuisa.pica.vectors.adapter import AdapterError, run_cases

#: A stand-in emulator: answers each case with the suite's own expectation, except that it
#: dies of SIGSEGV on the case named CRASH, sleeps on HANG and lies on WRONG.
ECHO = textwrap.dedent('''
    import json, os, signal, sys, time
    mode, batch = sys.argv[1], sys.argv[2]
    for line in open(os.path.join(batch, "cases.jsonl")):
        case = json.loads(line)
        if case["id"] == os.environ.get("CRASH"):
            os.kill(os.getpid(), signal.SIGSEGV)
        if case["id"] == os.environ.get("HANG"):
            time.sleep(60)
        if case["id"] == os.environ.get("WRONG"):
            print("not json", flush=True)
        print(json.dumps({"id": case["id"], **case["expected"][mode]}), flush=True)
''')


@pytest.fixture(scope="module")
def sample(suite):
    """Vertex, geometry and hanging cases, a few of each."""
    kinds = {}
    for case in suite:
        key = (case.geometry, bool(case.pipeline), case.expected["f24"].status)
        kinds.setdefault(key, []).append(case)
    return [case for group in kinds.values() for case in group[:3]]


@pytest.fixture()
def echo(tmp_path):
    script = tmp_path / "echo_adapter.py"
    script.write_text(ECHO)
    return [sys.executable, str(script)]


def test_crash_and_hang_are_recorded_and_the_batch_goes_on(sample, echo, monkeypatch):
    crash, hang = sample[1].id, sample[4].id
    monkeypatch.setenv("CRASH", crash)
    monkeypatch.setenv("HANG", hang)
    records = list(run_cases(echo, sample, "f24", timeout=2.0, batch=100))
    assert [r["id"] for r in records] == [c.id for c in sample]
    by_id = {r["id"]: r for r in records}
    assert by_id[crash]["status"] == "crash" and "SIGSEGV" in by_id[crash]["detail"]
    assert by_id[hang]["status"] == "timeout"
    report = vectors.check(sample, enumerate(records, 1), "f24")
    assert sorted(d.case.id for d in report.divergences) == sorted([crash, hang])
    assert report.missing == []
    texts = [t for d in report.divergences for t in d.differences]
    assert any("got crash" in t for t in texts) and any("got timeout" in t for t in texts)


def test_batches_restart_the_process(sample, echo):
    records = list(run_cases(echo, sample, "f32", timeout=20.0, batch=2))
    assert vectors.check(sample, enumerate(records, 1), "f32").divergences == []


def test_a_line_that_is_not_the_next_result_is_a_protocol_error(sample, echo, monkeypatch):
    monkeypatch.setenv("WRONG", sample[0].id)
    with pytest.raises(AdapterError, match="one line per case"):
        list(run_cases(echo, sample, "f24", timeout=20.0))


def test_gpuisas_adapter_agrees_with_the_suite(sample):
    command = [sys.executable, "-m", "gpuisa.pica.vectors.gpuisa_adapter"]
    for mode in ("f24", "f32"):
        records = list(run_cases(command, sample, mode, timeout=60.0))
        assert vectors.check(sample, enumerate(records, 1), mode).divergences == [], mode


def test_the_cli_names_an_adapter_that_cannot_start(sample, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(vectors, "build_suite", lambda progress=None, rounding=None: sample)
    assert cli.main(["vectors", "--adapter", str(tmp_path / "missing")]) == 1
    assert "cannot start" in capsys.readouterr().err


def test_the_cli_writes_the_results_it_checked(sample, echo, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(vectors, "build_suite", lambda progress=None, rounding=None: sample)
    path = tmp_path / "results.jsonl"
    command = " ".join(echo)
    assert cli.main(["vectors", "--adapter", command, "--results", str(path),
                     "--no-disasm"]) == 0
    assert "0 of" in capsys.readouterr().out
    assert [json.loads(line)["id"] for line in path.read_text().splitlines()] == \
        [c.id for c in sample]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux's")
def test_a_hanging_adapter_dies_with_a_killed_driver(tmp_path):
    """A campaign killed from outside (SIGKILL: no cleanup runs) leaves no adapter
    behind holding a core."""
    pid_file = tmp_path / "adapter.pid"
    adapter = tmp_path / "hang.sh"
    adapter.write_text(f"#!/bin/sh\necho $$ > {pid_file}\nexec sleep 600\n")
    adapter.chmod(0o755)
    driver = subprocess.Popen([sys.executable, "-c", (
        "from gpuisa.pica import vectors\n"
        "from gpuisa.pica.vectors.adapter import run_cases\n"
        f"list(run_cases([{str(adapter)!r}], vectors.build_suite()[:1], 'f32', timeout=600))")])
    deadline = time.monotonic() + 120
    while not pid_file.exists() or not pid_file.read_text().strip():
        assert time.monotonic() < deadline and driver.poll() is None
        time.sleep(0.05)
    pid = int(pid_file.read_text())
    driver.kill()
    driver.wait()
    deadline = time.monotonic() + 10
    while _alive(pid):
        assert time.monotonic() < deadline, "the adapter outlived its driver"
        time.sleep(0.05)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"  # a zombie no longer runs
