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

from gpuisa.pica.engine.compiled import native

PROGRAMS = 1000
PROFILE_PROGRAMS = 150
PER_TEST = 30
#: Programs compiled with the optimising code generator.
OPTIMISED_PROGRAMS = 150


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


@pytest.mark.parametrize("first", range(PROGRAMS, PROGRAMS + OPTIMISED_PROGRAMS, PER_TEST))
def test_optimised_kernels_match_the_reference_engine(monkeypatch, first):
    """Kernels compiled with the optimising code generator (what a program gets once
    runs on its quickly compiled kernel have taken nativerun.UPGRADE_AFTER seconds)."""
    from gpuisa.pica.engine.compiled import nativerun

    monkeypatch.setattr(nativerun, "UPGRADE_AFTER", 0.0)
    for seed in range(first, first + PER_TEST):
        check(D.case(seed))


def _no_kernels_yet(monkeypatch, folder) -> None:
    """An empty kernel cache and no kernel or tally of this process: an optimised kernel
    an earlier run left on disk, or compiled here, would be taken from the first run."""
    from gpuisa.pica.engine.compiled import nativerun

    monkeypatch.setenv("GPUISA_JIT_CACHE", str(folder))
    monkeypatch.setattr(nativerun, "_current", {})
    monkeypatch.setattr(nativerun, "_spent", type(nativerun._spent)())
    monkeypatch.setattr(nativerun._kernels, "_items", type(nativerun._kernels._items)())


def test_runs_move_to_the_optimised_kernel_once_they_have_cost_enough(monkeypatch, tmp_path):
    from gpuisa.pica.asm import assemble
    from gpuisa.pica.engine import run
    from gpuisa.pica.engine.compiled import llvmjit, nativerun

    _no_kernels_yet(monkeypatch, tmp_path)
    monkeypatch.setattr(nativerun, "UPGRADE_AFTER", 0.002)
    made = []
    real = nativerun.kernel
    monkeypatch.setattr(nativerun, "kernel", lambda *args: made.append(real(*args)) or made[-1])
    shader = assemble([("t.v.pica", ".fvec m\n.in p\n.out o position\n.proc main\n"
                                    "    mul o, m, p\n    end\n.end\n")])
    inputs = {"p": np.ones((200_000, 4), np.float32)}
    for _ in range(40):
        result = run(shader, inputs, uniforms={"m": [2.0, 3.0, 4.0, 5.0]}, engine="jit")
        if made[-1].level == llvmjit.OPTIMISED:
            break
    assert made[0].level == llvmjit.QUICK and made[-1].level == llvmjit.OPTIMISED
    assert np.array_equal(result.outputs["o0"][0], [2.0, 3.0, 4.0, 5.0])


def test_a_large_run_moves_to_the_optimised_kernel_after_its_first_part(monkeypatch, tmp_path):
    """A run whose rest would spend UPGRADE_AFTER on the quick kernel runs its first
    PROBE_LANES lanes on it and the rest on the optimised kernel, with every lane's
    result that of the reference engine (a branch on each lane's input parts them)."""
    from gpuisa.pica.asm import assemble
    from gpuisa.pica.engine import run
    from gpuisa.pica.engine.compiled import llvmjit, nativerun

    _no_kernels_yet(monkeypatch, tmp_path)
    monkeypatch.setattr(nativerun, "UPGRADE_AFTER", 1e-9)
    monkeypatch.setattr(nativerun, "PROBE_LANES", 40)
    monkeypatch.setattr(nativerun, "MIN_LANES_PER_THREAD", 8)  # both parts on threads
    made = []
    real = nativerun.kernel
    monkeypatch.setattr(nativerun, "kernel", lambda *args: made.append(real(*args)) or made[-1])
    parts = []
    launch = nativerun.launch

    def launched(found, *args, **kwargs):
        parts.append((found.level, kwargs.get("start", 0), kwargs.get("stop")))
        return launch(found, *args, **kwargs)

    monkeypatch.setattr(nativerun, "launch", launched)
    shader = assemble([("t.v.pica", ".fvec m\n.constf k(0.0, 2.0, 0.0, 0.0)\n.in p\n"
                                    ".out o position\n.proc main\n    mul r0, m, p\n"
                                    "    cmp k, gt, gt, p\n    ifc cmp.x\n"
                                    "        add r0, k.yyyy, r0\n    .end\n"
                                    "    mov o, r0\n    end\n.end\n")])
    rng = np.random.default_rng(5)
    inputs = {"p": rng.uniform(-1, 1, (1000, 4)).astype(np.float32)}
    uniforms = {"m": [2.0, 3.0, 0.5, -1.0]}
    got = run(shader, inputs, uniforms=uniforms, engine="jit", registers=True)
    assert [k.level for k in made] == [llvmjit.QUICK, llvmjit.OPTIMISED]
    assert parts == [(llvmjit.QUICK, 0, 40), (llvmjit.OPTIMISED, 40, None)]
    want = run(shader, inputs, uniforms=uniforms, engine="reference", registers=True)
    assert np.array_equal(got.outputs["o0"].view(np.uint32), want.outputs["o0"].view(np.uint32))
    assert np.array_equal(got.steps, want.steps) and len(set(want.steps.tolist())) == 2


@pytest.mark.parametrize("first", range(0, PROFILE_PROGRAMS, PER_TEST))
@pytest.mark.parametrize("profile", ["straight", "forward", "uniform"])
def test_llvm_kernels_on_each_profile(profile, first):
    for seed in range(first, first + PER_TEST):
        check(D.case(seed, profile))


SHADER = """
.fvec m[4]
.fvec bias
.in pos
.in idx
.out o0 position
.out o1 color
.proc main
    dp4 o0.x, m[0], pos
    dp4 o0.y, m[1], pos
    mad o0.zw, pos, pos, m[2]
    add o1.xy, bias, pos
    mova a0.x, idx.x
    dph o1.zw, pos, m[a0.x]
    mul o1.w, pos, pos
    end
.end
"""


@pytest.mark.parametrize("tiny_row", [False, True])
@pytest.mark.parametrize("precision", ["f24", "f32"])
def test_operands_outside_the_bounds_leave_the_bounded_arithmetic(monkeypatch, precision,
                                                                  tiny_row):
    """The f24 kernel of a run whose uniforms are bounded computes with the bounded
    arithmetic, trusting the check of every uniform row it can read at launch (with a
    row outside the bound, here one read through a0.x, the run gets the kernel that
    checks its results instead); inputs outside its bounds (tiny, huge, infinite, NaN,
    subnormal; products of register values below 2^-46) give the reference engine's
    bits."""
    from gpuisa.pica.engine.compiled import nativerun

    made = []
    real = nativerun.kernel
    monkeypatch.setattr(nativerun, "kernel", lambda *args: made.append(args) or real(*args))
    from gpuisa.pica.asm import assemble
    from gpuisa.pica.engine import run

    shader = assemble([("bounds.v.pica", SHADER)])
    special = np.array([1.5, -2.0, 2.0**-40, 2.0**-20, 2.0**35, np.inf, -np.inf, np.nan,
                        1e-42, 0.0, -0.0, 3.0, 2.0**29, 2.0**31, 0.75, -1e-10], np.float32)
    rng = np.random.default_rng(3)
    pos = rng.choice(special, size=(67, 4)).astype(np.float32)
    pos[::3] = rng.uniform(-4, 4, (23, 4))
    idx = np.zeros((67, 4), np.float32)
    idx[:, 0] = rng.integers(0, 6 if tiny_row else 5, 67)
    uniforms = {"m": rng.uniform(0.5, 2, (4, 4)).astype(np.float32),
                "bias": [1.0, -1.0, 0.25, 4.0]}
    if tiny_row:
        uniforms["c5"] = [2.0**-30, 1.0, 1.0, 1.0]
    inputs = {"pos": pos, "idx": idx}
    want = run(shader, inputs, uniforms=uniforms, precision=precision, engine="reference")
    got = run(shader, inputs, uniforms=uniforms, precision=precision, engine="jit")
    for name in ("o0", "o1"):
        assert np.array_equal(got.outputs[name].view(np.uint32),
                              want.outputs[name].view(np.uint32)), name
    # the bounded kernel ran, unless a uniform row is out of its bound
    assert made and made[-1][-1] == (precision == "f24" and not tiny_row)
