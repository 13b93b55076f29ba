"""Differential test: the compiled engine ("jit") against the reference engine, bit for bit.

Random programs and inputs come from :mod:`differential` (nested IF/LOOP/CALL, BREAKC,
relative addressing, MOVA, hazards, geometry SETEMIT/EMIT; NaN payloads, +-0,
subnormals, infinities; both precisions).  Every register, flag, address register,
step count, emitted vertex, primitive and winding must agree bit for bit, and a program
that hangs or faults must raise the same error.  Every program is compiled into its own
LLVM kernel (milliseconds each).

- Default suite, 2,020 programs, each compiled: ``test_native_kernels.py`` runs 1,000
  "mixed" vertex programs and 150 of each other vertex profile ("straight", "forward",
  "uniform") over lanes that fill SIMD vectors and a partial one, 30 more on optimised
  kernels; ``test_jit_geometry.py`` 150 "mixed" and 150 "straight" geometry programs;
  this file 200 vertex and 40 geometry programs with the truncating rounding, and
  checks the generator and the shrinker, and that a wrong result is reported with a
  minimal reproducer.
- Release check: ``GPUISA_DIFFERENTIAL_PROGRAMS=N`` also runs the first N "mixed" vertex
  programs, and the first N // 10 of each other vertex profile and of each geometry
  profile (N = 2000: 2,000 + 3 x 200 vertex and 4 x 200 geometry programs).

A failure shrinks the case (:func:`differential.shrink`: NOPs for instructions, fewer
lanes) and prints :func:`differential.reproducer`: seed, profile, a
``differential.replay(...)`` call that rebuilds it, words, uniforms, the inputs of the
differing lane and the differing register in both engines.
"""

from __future__ import annotations

import dataclasses
import os

import differential as D
import numpy as np
import pytest

from gpuisa.pica.encoding import decode
from gpuisa.pica.engine.compiled import nativerun
from gpuisa.pica.isa import BY_MNEMONIC, Opcode

PER_TEST = 50
RELEASE = int(os.environ.get("GPUISA_DIFFERENTIAL_PROGRAMS", "0"))
#: Seconds a failing case may spend shrinking.
SHRINK = 120.0


def check(found: D.Case, note: str) -> None:
    what = D.difference(found)
    if what is not None:
        small = D.shrink(found, seconds=SHRINK)
        pytest.fail(D.reproducer(small, D.difference(small) or what, note), pytrace=False)


# -- the truncating rounding ---------------------------------------------------------------

#: f24 programs (the even seeds) run with rounding="truncate" on their LLVM kernels.
TRUNCATING_PROGRAMS = 200
TRUNCATING_PER_TEST = 20
TRUNCATING_GEOMETRY = 20


def _truncating(seed: int, profile: str = "mixed", geometry: bool = False) -> D.Case:
    found = D.case(2 * seed, profile, geometry, rounding="truncate")
    assert found.precision == "f24" and found.rounding == "truncate"
    return found


def _mode_matters(found: D.Case) -> bool:
    """Whether the reference engine's results of ``found`` differ between the modes (a
    case where they agree could not catch an engine that ignores the mode)."""
    nearest = D.outcome(dataclasses.replace(found, rounding="nearest-even"), "reference")
    truncated = D.outcome(found, "reference")
    if isinstance(nearest, Exception) or isinstance(truncated, Exception):
        return type(nearest) is not type(truncated)
    return any(not np.array_equal(np.asarray(a).view(np.uint32), np.asarray(b).view(np.uint32))
               for a, b in zip(nearest.outputs.values(), truncated.outputs.values(),
                               strict=True))


@pytest.mark.parametrize("first", range(0, TRUNCATING_PROGRAMS, TRUNCATING_PER_TEST))
def test_truncating_rounding_on_the_llvm_kernels(first):
    """rounding="truncate" through engine="jit": every program compiled to its LLVM
    kernel (in-range, bounded and exact arithmetic, over lanes that fill SIMD vectors and
    a partial one), against the reference engine in the same mode."""
    from gpuisa.pica.engine.compiled import native

    differing = 0
    for seed in range(first, first + TRUNCATING_PER_TEST):
        found = _truncating(seed)
        rng = np.random.default_rng(found.seed)
        found = dataclasses.replace(found, lanes=rng.choice(
            found.lanes, size=int(rng.integers(native.WIDTH + 1, 6 * native.WIDTH))))
        differing += _mode_matters(found)
        check(found, "(LLVM kernels, rounding='truncate')")
    assert differing >= TRUNCATING_PER_TEST // 4


@pytest.mark.parametrize("profile", ["mixed", "straight"])
def test_truncating_rounding_on_the_geometry_kernels(profile):
    for seed in range(TRUNCATING_GEOMETRY):
        check(_truncating(seed, profile, True), "(LLVM geometry kernels, rounding='truncate')")


# -- release check ------------------------------------------------------------------------


@pytest.mark.skipif(not RELEASE, reason="release check: set GPUISA_DIFFERENTIAL_PROGRAMS")
@pytest.mark.parametrize("first", range(0, max(RELEASE, 1), PER_TEST))
def test_every_program_on_its_own_kernel(first):
    for seed in range(first, min(first + PER_TEST, RELEASE)):
        check(D.case(seed), "(own kernel)")


@pytest.mark.skipif(RELEASE < 10, reason="release check: set GPUISA_DIFFERENTIAL_PROGRAMS")
@pytest.mark.parametrize("first", range(0, max(RELEASE // 10, 1), 10))
@pytest.mark.parametrize(("profile", "geometry"), [
    ("straight", False), ("forward", False), ("uniform", False), ("mixed", True),
    ("straight", True), ("forward", True), ("uniform", True)])
def test_every_profile_program_on_its_own_kernel(profile, geometry, first):
    for seed in range(first, min(first + 10, RELEASE // 10)):
        check(D.case(seed, profile, geometry), "(own kernel)")


# -- the generator and the shrinker ---------------------------------------------------------


def _opcodes(profile: str, geometry: bool = False, count: int = 300) -> set[Opcode]:
    found: set[Opcode] = set()
    for seed in range(count):
        found |= {decode(word).opcode for word in D.case(seed, profile, geometry).code}
    return found


def test_the_generator_makes_what_the_docstrings_promise():
    ops = {m: BY_MNEMONIC[m].opcode for m in (
        "ifu", "ifc", "loop", "call", "callc", "callu", "jmpc", "jmpu", "breakc", "break",
        "mova", "cmp", "madi", "dphi", "ex2", "lg2", "litp", "emit", "setemit", "end")}
    mixed = _opcodes("mixed")
    assert {ops[m] for m in ops if m != "setemit"} <= mixed
    assert {ops["setemit"], ops["emit"], ops["loop"], ops["callc"]} <= _opcodes("mixed", True, 60)
    flow = {ops[m] for m in ("ifu", "ifc", "loop", "call", "callc", "callu", "jmpc", "jmpu",
                             "breakc", "break")}
    assert not _opcodes("straight") & flow
    assert not _opcodes("straight", True, 60) & (flow | {ops["mova"]})
    assert _opcodes("forward") & flow == {ops[m] for m in ("ifu", "ifc", "jmpc", "jmpu")}
    assert _opcodes("uniform") & flow == {ops[m] for m in ("ifu", "loop", "call", "callu",
                                                           "jmpu", "break")}


@pytest.mark.parametrize("geometry", [False, True])
def test_shrink_keeps_only_what_the_difference_needs(monkeypatch, geometry):
    """With a stand-in difference (any RSQ word, and a lane of input row 3 or the
    invocation 3), the shrunk case keeps one word, an RSQ, and that one lane."""
    rsq = BY_MNEMONIC["rsq"].opcode
    seed = next(s for s in range(100)
                if sum(decode(w).opcode is rsq for w in D.case(s, geometry=geometry).code) >= 2)

    def fake(found, engine="jit"):
        has_rsq = any(decode(w).opcode is rsq for w in found.code)
        return D.Difference("stand-in") if has_rsq and 3 in found.lanes.tolist() else None

    monkeypatch.setattr(D, "difference", fake)
    original = D.case(seed, geometry=geometry)
    small = D.shrink(original)
    left = [w for w in small.code if w != D.NOP]
    assert len(left) == 1 and decode(left[0]).opcode is rsq
    assert small.lanes.tolist() == [3]
    assert len(small.code) == len(original.code)  # addresses kept


def test_a_wrong_result_is_reported_with_a_minimal_reproducer(monkeypatch):
    """Sabotage the vertex kernels (flip the sign of o0.x in every lane they run): the
    test fails with a reproducer of at most two instructions on one lane that shows o0
    in both engines."""
    real = nativerun.launch

    def sabotaged(found, program, state, max_steps, parallel):
        status, steps = real(found, program, state, max_steps, parallel)
        if state.outputs[state.bank].allocated(0):
            o0 = state.outputs[state.bank].storage(0)
            o0[:, 0].view(np.uint32)[:] ^= np.uint32(0x80000000)
        return status, steps

    monkeypatch.setattr(nativerun, "launch", sabotaged)
    seed = next(s for s in range(50) if D.difference(D.case(s)) is not None)
    with pytest.raises(pytest.fail.Exception) as failure:
        check(D.case(seed), "(sabotaged)")
    text = str(failure.value)
    assert f"seed={seed} profile=mixed" in text
    assert "o0, row 0: reference" in text and ", jit [" in text
    assert "--- disassembly ---" in text and "rebuild: differential.replay(" in text
    code = [int(word, 16) for word in
            text.split("code=[")[1].split("]")[0].split(", ")]
    assert len(code) == len(D.case(seed).code)
    assert sum(word != D.NOP for word in code) <= 2
    assert "lanes=[" in text and text.split("lanes=[")[1].split("]")[0].count(",") == 0
