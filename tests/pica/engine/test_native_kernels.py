"""Differential test of the LLVM kernels (``compiled.native``) against the reference
engine, bit for bit: random programs of :mod:`differential` (nested IF/LOOP/CALL,
BREAKC, relative addressing, MOVA, hazards; NaN payloads, +-0, subnormals, infinities;
both precisions) run through ``engine="jit"``, whose vertex shaders the LLVM kernels
run.  Each program is compiled (a kernel takes a fraction of a second), and each case's
lanes are drawn again over more lanes than a SIMD vector holds with a partial vector at
the end, so that the vector function (masked blocks, in-range arithmetic), the lane
function (the exact rerun, the tail) and their hand-over all run.  Every register,
flag, address register and step count must agree, and a program that hangs or faults
must raise the same error.
"""

from __future__ import annotations

import dataclasses

import differential as D
import numpy as np
import pytest

from gpuisa.pica.engine.compiled import native, runner

PROGRAMS = 150
PROFILE_PROGRAMS = 30
PER_TEST = 30


@pytest.fixture(autouse=True)
def llvm_kernels(monkeypatch):
    monkeypatch.setattr(runner, "NATIVE", True)


def check(found: D.Case) -> None:
    rng = np.random.default_rng(found.seed)
    lanes = rng.choice(found.lanes, size=int(rng.integers(native.WIDTH + 1,
                                                          6 * native.WIDTH)))
    found = dataclasses.replace(found, lanes=lanes)
    what = D.difference(found)
    if what is not None:
        small = D.shrink(found, seconds=120.0)
        pytest.fail(D.reproducer(small, D.difference(small) or what, "(LLVM kernels)"),
                    pytrace=False)


@pytest.mark.parametrize("first", range(0, PROGRAMS, PER_TEST))
def test_llvm_kernels_match_the_reference_engine(first):
    for seed in range(first, first + PER_TEST):
        check(D.case(seed))


@pytest.mark.parametrize("first", range(0, PROFILE_PROGRAMS, PER_TEST))
@pytest.mark.parametrize("profile", ["straight", "forward", "uniform"])
def test_llvm_kernels_on_each_profile(profile, first):
    for seed in range(first, first + PER_TEST):
        check(D.case(seed, profile))
