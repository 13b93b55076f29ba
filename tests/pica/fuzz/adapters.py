"""The C reference adapter (examples/adapter/pica_adapter.c) built with the system C
compiler, as it is or as one of its deliberately wrong builds (its -D options)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
COMPILER = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")


def build(directory: Path, *defines: str) -> Path:
    """The adapter compiled with ``defines``; skips the test without a C compiler."""
    if COMPILER is None:
        pytest.skip("no C compiler on this machine")
    binary = directory / ("pica-adapter" + "".join(d.replace("=", "") for d in defines))
    subprocess.run([COMPILER, "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O1",
                    *defines, "-I", str(EXAMPLES / "vectors-reader"), "-o", str(binary),
                    str(EXAMPLES / "adapter" / "pica_adapter.c"), "-lm"],
                   check=True, timeout=120)
    return binary
