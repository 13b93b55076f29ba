"""The C reader example (examples/vectors-reader): compiled with the system C compiler
when there is one, it reads every case of the binary suite and compares outputs; its
counts must equal those taken from the Python cases, and a corrupted output must be named."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from gpuisa.pica import vectors

READER = Path(__file__).resolve().parents[3] / "examples" / "vectors-reader"
COMPILER = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    if COMPILER is None:
        pytest.skip("no C compiler on this machine")
    binary = tmp_path_factory.mktemp("reader") / "pica-vectors-example"
    subprocess.run([COMPILER, "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O1",
                    "-o", str(binary), str(READER / "example.c")], check=True, timeout=120)
    return binary


@pytest.fixture(scope="module")
def suite_file(suite, tmp_path_factory):
    directory = tmp_path_factory.mktemp("suite") / "suite"
    vectors.write_suite(str(directory), suite)
    return directory / "cases.bin"


def _run(binary, *args):
    return subprocess.run([str(binary), *map(str, args)], capture_output=True, text=True,
                          timeout=120, check=False)


@pytest.mark.parametrize("mode", ["f24", "f32"])
def test_the_reader_sees_every_case_as_python_does(example, suite_file, suite, mode):
    done = _run(example, suite_file, mode)
    assert done.returncode == 0, done.stderr
    kinds = [case.provenance.kind for case in suite]
    statuses = [case.expected[mode].status for case in suite]
    expected = (f"cases {len(suite)} hardware {kinds.count('hardware')} seed "
                f"{kinds.count('seed')} documented-choice {kinds.count('documented-choice')} "
                f"model {kinds.count('model')} ok {statuses.count('ok')} hang "
                f"{statuses.count('hang')} fault {statuses.count('fault')} code-words "
                f"{sum(len(case.code) for case in suite)} mismatches 0")
    assert done.stdout.strip() == expected


def test_a_corrupted_output_is_named(example, suite_file):
    done = _run(example, suite_file, "f24", "seed/max-0-minus-inf")
    assert done.returncode == 1
    assert done.stdout.splitlines()[0] == "mismatch seed/max-0-minus-inf"
    assert done.stdout.strip().endswith("mismatches 1")


def test_a_truncated_suite_is_reported(example, suite_file, tmp_path):
    cut = tmp_path / "cut.bin"
    cut.write_bytes(suite_file.read_bytes()[:-5])
    done = _run(example, cut)
    assert done.returncode == 1
    assert "malformed at case" in done.stderr
