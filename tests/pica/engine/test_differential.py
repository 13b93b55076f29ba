"""Differential test: the compiled engine ("jit") against the reference engine, bit for bit.

Random programs and inputs come from :mod:`differential` (nested IF/LOOP/CALL, BREAKC,
relative addressing, MOVA, hazards, geometry SETEMIT/EMIT; NaN payloads, +-0,
subnormals, infinities; both precisions).  Every register, flag, address register,
step count, emitted vertex, primitive and winding must agree bit for bit, and a program
that hangs or faults must raise the same error.

Which compiled code runs what (a per-program kernel takes about 3-10 s to compile on a
cold cache, a geometry kernel 5-25 s, so the default suite cannot compile 2,000):

- Interpreter kernel (``compiled.interpreter``: compiled once, interprets any program; what
  ``engine="jit"`` runs for small inputs whose kernel is not compiled): 600 vertex
  programs of every shape ("mixed" profile, seeds 0-1999) plus 100 of each restricted
  profile ("straight", "forward", "uniform"), f24 for even seeds, f32 for odd ones.
  This part never compiles or loads a per-program kernel (no disk-cache lookup).
- Per-program kernels, their text run by CPython (:mod:`kernel_model`: the generated text
  as it is, each rule by its primitive, proven equal to the compiled rule by
  ``test_kernel_model.py``): every program's own kernel, 2,000 "mixed" vertex programs
  and 300 of each other vertex and geometry profile, vertex programs over 100 lanes
  (full and partial blocks).  This checks what the code generators write; how Numba
  compiles that text is what the next part checks.
- Per-program kernels compiled by Numba (``compiled.codegen``, ``compiled.geometry``): 14
  programs.  One per kind of kernel and precision (straight-line blocks, uniform
  control, divergent blocks, lane by lane; geometry vectorized and ordered), each the
  first seed of its profile that gets that kind (found from the generated source,
  without compiling; the f24 lane-by-lane one hangs or faults, the vectorized geometry
  ones and the f32 ordered one emit primitives), and two more geometry programs (a
  fault; a read of a uniform that was not given).  Geometry shaders have no interpreter
  kernel: only these (and their text, above) reach the compiled engine by default.
- Release check: ``GPUISA_DIFFERENTIAL_PROGRAMS=N`` also runs the first N "mixed"
  vertex programs, and the first N // 10 of each other profile and of the "mixed" and
  "straight" geometry programs, through their own kernels compiled by Numba (N = 2000
  compiles 3,000 kernels: hours on a 2-core machine with a cold cache).

Kernels are cached on disk as usual (a warm cache only saves compile time; every kernel
is still loaded and run).  A failure shrinks the case (:func:`differential.shrink`:
NOPs for instructions, fewer lanes) and prints :func:`differential.reproducer`: seed,
profile, a ``differential.replay(...)`` call that rebuilds it, words, uniforms, the
inputs of the differing lane and the differing register in both engines.
"""

from __future__ import annotations

import dataclasses
import os

import differential as D
import kernel_model as M
import numpy as np
import pytest

pytest.importorskip("numba")

from gpuisa.pica.encoding import decode
from gpuisa.pica.engine.compiled import geometry as jit_geometry
from gpuisa.pica.engine.compiled import runner as jit
from gpuisa.pica.engine.compiled.codegen import KernelSource
from gpuisa.pica.isa import BY_MNEMONIC, Opcode

#: These tests are about Numba's vertex kernels (conftest).
pytestmark = pytest.mark.usefixtures("numba_vertex_kernels")

#: Numba's vertex kernels are no longer the default (test_native_kernels.py checks the
#: LLVM kernels that are): fewer programs than when they were.
PROGRAMS = 600
PROFILE_PROGRAMS = 100
PER_TEST = 50
RELEASE = int(os.environ.get("GPUISA_DIFFERENTIAL_PROGRAMS", "0"))
#: Seconds a failing case may spend shrinking (each step of a compiled kernel compiles).
SHRINK_INTERPRETED, SHRINK_COMPILED = 60.0, 300.0


def check(found: D.Case, note: str, seconds: float) -> None:
    what = D.difference(found)
    if what is not None:
        small = D.shrink(found, seconds=seconds)
        pytest.fail(D.reproducer(small, D.difference(small) or what, note), pytrace=False)


@pytest.fixture
def interpreted(monkeypatch):
    """Vertex programs run on the interpreter kernel: no kernel compiled in this process
    is used, none is looked up on disk (nor its source generated), none is compiled.
    Returns the list of interpreter runs."""
    monkeypatch.setattr(jit, "KERNELS", "never")
    monkeypatch.setattr(jit, "_cache", type(jit._cache)())
    monkeypatch.setattr(jit, "_source", lambda program, key: KernelSource("", None))
    monkeypatch.setattr(jit, "_on_disk", lambda source: False)

    def no_compiling(source):
        raise AssertionError("the interpreter part compiled a per-program kernel")

    monkeypatch.setattr(jit, "_compile", no_compiling)
    runs = []
    real = jit._interpreter
    monkeypatch.setattr(jit, "_interpreter", lambda *args: runs.append(1) or real(*args))
    return runs


def _own_kernels(monkeypatch, make) -> list[str]:
    """Every run makes its program's own kernel with ``make`` (source -> kernel).  Returns
    the sources of the kernels made."""
    monkeypatch.setattr(jit, "KERNELS", "always")
    monkeypatch.setattr(jit_geometry, "COMPILE_THRESHOLD", 0)
    monkeypatch.setattr(jit, "_cache", type(jit._cache)())
    monkeypatch.setattr(jit_geometry, "_kernels", type(jit_geometry._kernels)())
    sources: list[str] = []

    def made(source: str):
        sources.append(source)
        return make(source)

    monkeypatch.setattr(jit, "_compile", made)
    monkeypatch.setattr(jit_geometry, "compile_source", made)
    return sources


@pytest.fixture
def compiled(monkeypatch):
    """Every run compiles (or loads from the disk cache) the program's own kernel.
    Returns the sources of the kernels made."""
    return _own_kernels(monkeypatch, jit._compile)


# -- the interpreter kernel: 2,300 programs -------------------------------------------------


@pytest.mark.parametrize("first", range(0, PROGRAMS, PER_TEST))
def test_interpreter_kernel_matches_the_reference_engine(interpreted, first):
    for seed in range(first, first + PER_TEST):
        check(D.case(seed), "(jit interpreter kernel)", SHRINK_INTERPRETED)
    assert interpreted  # the runs did go through the interpreter


@pytest.mark.parametrize("first", range(0, PROFILE_PROGRAMS, PER_TEST))
@pytest.mark.parametrize("profile", ["straight", "forward", "uniform"])
def test_interpreter_kernel_on_each_profile(interpreted, profile, first):
    for seed in range(first, first + PER_TEST):
        check(D.case(seed, profile), "(jit interpreter kernel)", SHRINK_INTERPRETED)
    assert interpreted


@pytest.mark.parametrize("first", range(0, 300, PER_TEST))
def test_interpreter_kernel_over_several_blocks_of_lanes(interpreted, first):
    """The interpreter kernel runs lanes in blocks of interpreter.LANES: the cases'
    lanes, drawn again with repeats, over one to three blocks, the last one partial."""
    from gpuisa.pica.engine.compiled.interpreter import LANES

    for seed in range(first, first + PER_TEST):
        found = D.case(seed, D.PROFILES[seed % len(D.PROFILES)])
        rng = np.random.default_rng(seed)
        lanes = rng.choice(found.lanes, size=int(rng.integers(LANES + 1, 3 * LANES)))
        check(dataclasses.replace(found, lanes=lanes), "(jit interpreter kernel)",
              SHRINK_INTERPRETED)
    assert interpreted


# -- per-program kernels: one of each kind ----------------------------------------------


def _fails(result) -> bool:
    return isinstance(result, D.GpuIsaError)


def _emits_primitives(result) -> bool:
    return not _fails(result) and len(result.primitives) > 0


#: What the program chosen for a kernel kind must also do on the reference engine.
WANTED = {("lane by lane", "f24"): _fails, ("geometry ordered", "f32"): _emits_primitives,
          ("geometry vectorized", "f24"): _emits_primitives,
          ("geometry vectorized", "f32"): _emits_primitives}


def first_seed(kind: str, profile: str, geometry: bool, precision: str) -> int:
    """The first seed of ``profile`` in ``precision`` whose kernel is of ``kind`` (and
    whose reference run is as :data:`WANTED` says)."""
    wanted = WANTED.get((kind, precision))
    for seed in range(precision == "f32", 400, 2):
        found = D.case(seed, profile, geometry)
        if D.kernel_kind(D.kernel_source(found)) != kind:
            continue
        if wanted is None or wanted(D.outcome(found, "reference")):
            return seed
    pytest.fail(f"no {profile} program of the first 200 gets a {kind} kernel")


KINDS = [("straight", "straight", False), ("uniform control", "uniform", False),
         ("divergent blocks", "forward", False), ("lane by lane", "mixed", False),
         ("geometry vectorized", "straight", True), ("geometry ordered", "mixed", True)]


@pytest.mark.parametrize("precision", ["f24", "f32"])
@pytest.mark.parametrize(("kind", "profile", "geometry"), KINDS, ids=[k[0] for k in KINDS])
def test_each_kind_of_kernel_matches_the_reference_engine(compiled, kind, profile, geometry,
                                                          precision):
    """One program per kind and precision; the lane-by-lane one in f24 hangs or faults
    (the kernel hands lanes to the reference engine for the error), the ordered
    geometry one in f32 and the vectorized ones emit primitives."""
    seed = first_seed(kind, profile, geometry, precision)
    found = D.case(seed, profile, geometry)
    if not geometry:  # blocks of 32 or 64 lanes: full blocks and a partial one
        found = dataclasses.replace(found, lanes=np.resize(found.lanes, 150))
    check(found, f"(kernel: {kind})", SHRINK_COMPILED)
    assert [D.kernel_kind(source) for source in compiled] == [kind]
    if kind == "straight":  # a step limit below the length: the reference engine's error
        short = dataclasses.replace(found, max_steps=3)
        assert isinstance(D.outcome(short, "reference"), D.GpuIsaError)
        check(short, f"(kernel: {kind})", SHRINK_COMPILED)


# -- per-program kernels, their text run by CPython: every program ------------------------


@pytest.fixture
def modelled(monkeypatch):
    """Every run makes the program's own kernel and runs its text in CPython, with the rules
    of :mod:`kernel_model` (nothing compiled by Numba, nothing on disk).  Returns the
    sources of the kernels made."""
    return _own_kernels(monkeypatch, M.compile_source)


#: Lanes of a vertex program whose kernel text runs in CPython: two full blocks of 32
#: lanes and a partial one (one full block of 64 and a partial one).
TEXT_LANES = 100
#: The other profiles' programs whose kernel text runs in CPython (vertex and geometry).
TEXT_PROGRAMS = 300
TEXT_PROFILES = [("straight", False), ("forward", False), ("uniform", False),
                 ("mixed", True), ("straight", True), ("forward", True), ("uniform", True)]


def _text_check(found: D.Case) -> None:
    if not found.geometry:
        found = dataclasses.replace(found, lanes=np.resize(found.lanes, TEXT_LANES))
    check(found, "(own kernel, its text run by CPython: tests/pica/engine/kernel_model.py)",
          SHRINK_INTERPRETED)


@pytest.mark.parametrize("first", range(0, PROGRAMS, PER_TEST))
def test_every_program_on_its_own_kernel_text(modelled, first):
    """Numba would take hours to compile these 2,000 kernels; their text runs in seconds.
    (An instruction that wrote nothing once left a loop without a body.)"""
    for seed in range(first, first + PER_TEST):
        _text_check(D.case(seed))
    assert modelled  # the runs did make their kernels


@pytest.mark.parametrize("first", range(0, TEXT_PROGRAMS, PER_TEST))
@pytest.mark.parametrize(("profile", "geometry"), TEXT_PROFILES)
def test_every_profile_program_on_its_own_kernel_text(modelled, profile, geometry, first):
    """The straight, divergent-block, uniform-control and geometry kernels, which few
    "mixed" vertex programs get."""
    for seed in range(first, first + PER_TEST):
        _text_check(D.case(seed, profile, geometry))
    assert modelled


@pytest.mark.parametrize(("kind", "profile", "geometry"), KINDS, ids=[k[0] for k in KINDS])
def test_the_kernel_text_runs_reach_every_kind_of_kernel(kind, profile, geometry):
    for precision in ("f24", "f32"):
        assert first_seed(kind, profile, geometry, precision) < TEXT_PROGRAMS


#: Geometry seeds (mixed): 10 faults, 39 reads a uniform that was not given.
GEOMETRY_SEEDS = [10, 39]


@pytest.mark.parametrize("seed", GEOMETRY_SEEDS)
def test_geometry_kernels_match_the_reference_engine(compiled, seed):
    check(D.case(seed, geometry=True), "(geometry kernel)", SHRINK_COMPILED)


# -- the truncating rounding ---------------------------------------------------------------

#: f24 programs (the even seeds) run with rounding="truncate" on the LLVM kernels, and on
#: every profile; the vertex and geometry programs Numba's kernels would run.
TRUNCATING_PROGRAMS = 60
TRUNCATING_PER_TEST = 20
TRUNCATING_DECLINED = 10


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
def test_truncating_rounding_on_the_llvm_kernels(monkeypatch, first):
    """rounding="truncate" through engine="jit": every program compiled to its LLVM
    kernel (in-range, bounded and exact arithmetic, over lanes that fill SIMD vectors and
    a partial one), against the reference engine in the same mode."""
    from gpuisa.pica.engine.compiled import native

    monkeypatch.setattr(jit, "NATIVE", True)
    differing = 0
    for seed in range(first, first + TRUNCATING_PER_TEST):
        found = _truncating(seed)
        rng = np.random.default_rng(found.seed)
        found = dataclasses.replace(found, lanes=rng.choice(
            found.lanes, size=int(rng.integers(native.WIDTH + 1, 6 * native.WIDTH))))
        differing += _mode_matters(found)
        check(found, "(LLVM kernels, rounding='truncate')", SHRINK_INTERPRETED)
    assert differing >= TRUNCATING_PER_TEST // 4


@pytest.mark.parametrize(("profile", "geometry"), [("mixed", False), ("uniform", False),
                                                   ("mixed", True), ("straight", True)])
def test_numba_kernels_hand_the_truncating_rounding_to_the_reference_engine(
        monkeypatch, profile, geometry):
    """Numba's kernels round to nearest even only: engine="jit" runs truncating vertex
    programs (with runner.NATIVE off) and geometry programs on the reference engine,
    compiling and interpreting nothing."""

    def refuse(*args):
        raise AssertionError("a Numba kernel ran a truncating program")

    for module, name in ((jit, "_compile"), (jit, "_interpreter"), (jit, "kernel_for"),
                         (jit_geometry, "compile_source"), (jit_geometry, "_run")):
        monkeypatch.setattr(module, name, refuse)
    monkeypatch.setattr(jit, "KERNELS", "always")
    monkeypatch.setattr(jit_geometry, "COMPILE_THRESHOLD", 0)
    for seed in range(TRUNCATING_DECLINED):
        check(_truncating(seed, profile, geometry), "(Numba, rounding='truncate')", 10.0)


# -- release check --------------------------------------------------------------------------


@pytest.mark.skipif(not RELEASE, reason="release check: set GPUISA_DIFFERENTIAL_PROGRAMS")
@pytest.mark.parametrize("first", range(0, max(RELEASE, 1), PER_TEST))
def test_every_program_on_its_own_kernel(compiled, first):
    for seed in range(first, min(first + PER_TEST, RELEASE)):
        check(D.case(seed), "(own kernel)", SHRINK_COMPILED)


@pytest.mark.skipif(RELEASE < 10, reason="release check: set GPUISA_DIFFERENTIAL_PROGRAMS")
@pytest.mark.parametrize("first", range(0, max(RELEASE // 10, 1), 10))
@pytest.mark.parametrize(("profile", "geometry"), [("straight", False), ("forward", False),
                                                   ("uniform", False), ("mixed", True),
                                                   ("straight", True)])
def test_every_profile_program_on_its_own_kernel(compiled, profile, geometry, first):
    """The straight, divergent-block, uniform-control and geometry kernels, which few
    "mixed" vertex programs get."""
    for seed in range(first, min(first + 10, RELEASE // 10)):
        check(D.case(seed, profile, geometry), "(own kernel)", SHRINK_COMPILED)


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


def test_a_wrong_result_is_reported_with_a_minimal_reproducer(interpreted, monkeypatch):
    """Sabotage the interpreter kernel (flip the sign of o0.x in every lane it runs):
    the test fails with a reproducer of at most two instructions on one lane that shows
    o0 in both engines."""
    real = jit._interpreter

    def sabotaged(*args):
        kernel = real(*args)

        def function(lo, hi, entry, *arrays):
            kernel.function(lo, hi, entry, *arrays)
            o0 = arrays[2][0]
            if len(o0):
                o0[lo:hi, 0].view(np.uint32)[:] ^= np.uint32(0x80000000)

        return jit.Kernel(function, kernel.steps)

    monkeypatch.setattr(jit, "_interpreter", sabotaged)
    seed = next(s for s in range(50) if D.difference(D.case(s)) is not None)
    with pytest.raises(pytest.fail.Exception) as failure:
        check(D.case(seed), "(sabotaged)", SHRINK_INTERPRETED)
    text = str(failure.value)
    assert f"seed={seed} profile=mixed" in text
    assert "o0, row 0: reference" in text and ", jit [" in text
    assert "--- disassembly ---" in text and "rebuild: differential.replay(" in text
    code = [int(word, 16) for word in
            text.split("code=[")[1].split("]")[0].split(", ")]
    assert len(code) == len(D.case(seed).code)
    assert sum(word != D.NOP for word in code) <= 2
    assert "lanes=[" in text and text.split("lanes=[")[1].split("]")[0].count(",") == 0
