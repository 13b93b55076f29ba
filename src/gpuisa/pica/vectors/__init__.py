"""PICA200 conformance vectors (``pica vectors``): a versioned shader test suite with the
provenance of every expected value.  See docs/vectors-format.md.

>>> from gpuisa.pica import vectors
>>> cases = vectors.build_suite()           # list[Case], deterministic
>>> vectors.write_suite("suite", cases)     # cases.jsonl, cases.bin, manifest.json
>>> report = vectors.check(cases, vectors.read_results("results.jsonl"), "f24")
"""

from __future__ import annotations

from collections.abc import Callable

from ...floats import check_rounding
from ..engine.loading import DEFAULT_ROUNDING
from . import suite_io
from .catalog import SUITE_VERSION, groups
from .check import Report, check, render
from .generate import build
from .model import Case, Expected, Provenance, Register
from .suite_io import read_results


def build_suite(progress: Callable[[int], None] | None = None,
                rounding: str = DEFAULT_ROUNDING) -> list[Case]:
    """Every case of the suite, in order (a pure function of gpuisa's version and
    ``rounding``, the float24 rounding of its f24 expectations and of the f24 patterns
    of values given as numbers: pica-emulation.md#f24-truncation)."""
    return list(build(groups(), progress, check_rounding(rounding, "rounding")))


def write_suite(directory: str, cases: list[Case], rounding: str = DEFAULT_ROUNDING) -> None:
    """Write ``cases`` (made with ``rounding``, which the manifest records)."""
    suite_io.write_suite(directory, cases, SUITE_VERSION, rounding)


__all__ = ["SUITE_VERSION", "Case", "Expected", "Provenance", "Register", "Report",
           "build_suite", "check", "read_results", "render", "write_suite"]
