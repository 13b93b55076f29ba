"""A2XX / Xenos conformance vectors (``a2xx vectors``): a versioned suite of shader cases
with the provenance of every expected value and the Adreno/Xenos differences of each.
See docs/a2xx-vectors-format.md.

>>> from gpuisa.a2xx import vectors
>>> cases = vectors.build_suite()             # list[Case], deterministic
>>> vectors.write_suite("suite", cases)       # cases.jsonl, cases.bin, manifest.json
>>> report = vectors.check(cases, vectors.read_results("results.jsonl"), "xenos")
"""

from __future__ import annotations

from collections.abc import Callable

from . import suite_io
from .catalog import SUITE_VERSION, drafts
from .check import Report, check, render
from .generate import build
from .model import Case, Provenance, Result
from .suite_io import read_cases, read_results


def build_suite(progress: Callable[[int], None] | None = None) -> list[Case]:
    """Every case of the suite, in order (a pure function of gpuisa's version)."""
    return list(build(drafts(), progress))


def write_suite(directory: str, cases: list[Case]) -> None:
    suite_io.write_suite(directory, cases, SUITE_VERSION)


__all__ = ["SUITE_VERSION", "Case", "Provenance", "Report", "Result", "build_suite", "check",
           "read_cases", "read_results", "render", "write_suite"]
