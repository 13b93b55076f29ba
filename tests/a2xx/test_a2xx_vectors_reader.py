"""The C reader of the A2XX / Xenos suite (examples/a2xx-vectors-reader), compiled with
-Wall -Wextra -Werror -pedantic when the machine has a C compiler: it reads every case of
cases.bin; its counts must equal those taken from the Python cases, and a corrupted
export must be named."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from gpuisa.a2xx.vectors import SUITE_VERSION
from gpuisa.a2xx.vectors.suite_io import suite_files

READER = Path(__file__).resolve().parents[2] / "examples" / "a2xx-vectors-reader"
COMPILER = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    if COMPILER is None:
        pytest.skip("no C compiler on this machine")
    binary = tmp_path_factory.mktemp("reader") / "a2xx-vectors-example"
    subprocess.run([COMPILER, "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O1",
                    "-o", str(binary), str(READER / "example.c")], check=True, timeout=120)
    return binary


@pytest.fixture(scope="module")
def suite_and_file(vectors_suite, tmp_path_factory):
    suite = vectors_suite
    path = tmp_path_factory.mktemp("suite") / "cases.bin"
    path.write_bytes(suite_files(suite, SUITE_VERSION)["cases.bin"])
    return suite, path


def _run(binary, *args):
    return subprocess.run([str(binary), *map(str, args)], capture_output=True, text=True,
                          timeout=120, check=False)


@pytest.mark.parametrize("target", ["adreno", "xenos"])
def test_the_reader_sees_every_case_as_python_does(example, suite_and_file, target):
    suite, path = suite_and_file
    done = _run(example, path, target)
    assert done.returncode == 0, done.stderr
    kinds = [case.provenance.kind for case in suite]
    expected = (f"cases {len(suite)} document {kinds.count('document')} emulator "
                f"{kinds.count('emulator')} evidence {kinds.count('evidence')} "
                f"documented-choice {kinds.count('documented-choice')} model "
                f"{kinds.count('model')} pixel {sum(c.shader == 'pixel' for c in suite)} "
                f"differ {sum(bool(c.differences) for c in suite)} words "
                f"{sum(len(c.words) for c in suite)} mismatches 0")
    assert done.stdout.strip() == expected


def test_a_corrupted_export_is_named(example, suite_and_file):
    _, path = suite_and_file
    done = _run(example, path, "xenos", "quirk/abs-constants/0")
    assert done.returncode == 1
    assert done.stdout.splitlines()[0] == "mismatch quirk/abs-constants/0"
    assert done.stdout.strip().endswith("mismatches 1")


def test_a_truncated_suite_is_reported(example, suite_and_file, tmp_path):
    _, path = suite_and_file
    cut = tmp_path / "cut.bin"
    cut.write_bytes(path.read_bytes()[:-5])
    done = _run(example, cut)
    assert done.returncode == 1
    assert "malformed at case" in done.stderr
