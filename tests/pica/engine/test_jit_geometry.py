"""Geometry shaders on their LLVM kernels (``compiled.nativegeometry``, run by
``compiled.geometryrun``) against the reference engine, bit for bit.

The hand-derived geometry tests of :mod:`test_geometry` (output banking, b15, the
buffer kept between invocations, point / fixed / variable input modes: fed uniforms
carried between invocations) through ``engine="jit"``, each checked to have run on its
kernel (or, where the reference engine raises, handed back); random geometry programs
of :mod:`differential` (nested IF/LOOP/CALL, BREAKC, relative addressing, MOVA,
SETEMIT/EMIT; special values; both precisions), each compiled; a shader whose
invocations alternate output banks and carry registers, with special values; an
emission fault; a loop emitting more vertices than the arrays first hold.
"""

from __future__ import annotations

import differential as D
import numpy as np
import pytest
import test_geometry as geometry

from gpuisa.pica.engine import run
from gpuisa.pica.engine.compiled import geometryrun

#: Random geometry programs per profile ("mixed": every kind of flow; "straight").
PROGRAMS = 150
PER_TEST = 30


@pytest.fixture
def launches(monkeypatch) -> list[tuple[bool, bool]]:
    """Each launch of a geometry kernel: whether it computed in range, and whether it
    finished the feed (False: handed back, to the exact kernel or the reference
    engine)."""
    made: list[tuple[bool, bool]] = []
    real = geometryrun._launch

    def launch(found, *args):
        outcome = real(found, *args)
        made.append((found.key[-1], outcome is not None))
        return outcome

    monkeypatch.setattr(geometryrun, "_launch", launch)
    return made


@pytest.mark.parametrize("test", [
    geometry.test_triangle_strip_with_alternating_winding,
    geometry.test_emit_flips_the_output_bank,
    geometry.test_b15_is_set_after_each_invocation_and_registers_persist,
    geometry.test_vertex_buffer_is_not_cleared_between_invocations,
    geometry.test_emit_copies_only_the_output_mask,
    geometry.test_point_mode,
    geometry.test_point_mode_default_stride_is_one_vertex,
    geometry.test_fixed_mode,
    geometry.test_variable_mode,
], ids=lambda test: test.__name__)
def test_compiled_geometry_passes_the_geometry_tests(launches, test):
    test("jit")
    assert launches == [(True, True)]


def test_an_emission_fault_is_handed_to_the_reference_engine(launches):
    geometry.test_primitive_with_an_unwritten_entry_faults("jit")
    assert launches == [(True, False), (False, False)]


def check(found: D.Case) -> None:
    what = D.difference(found)
    if what is not None:
        small = D.shrink(found, seconds=120.0)
        pytest.fail(D.reproducer(small, D.difference(small) or what, "(geometry kernel)"),
                    pytrace=False)


@pytest.mark.parametrize("profile", ["mixed", "straight"])
@pytest.mark.parametrize("first", range(0, PROGRAMS, PER_TEST))
def test_random_geometry_programs_match_the_reference_engine(launches, profile, first):
    """Most programs finish on their kernel; the others hang, fault or read a register
    that was not given, and the reference engine gives the same error."""
    for seed in range(first, first + PER_TEST):
        check(D.case(seed, profile, True))
    assert sum(finished for _, finished in launches) >= 0.7 * PER_TEST


def quads(fault=False, emits=4):
    """Each point becomes a quad of two triangles (the benchmarks' workload, with more
    arithmetic): temporaries written before they are read, o0/o1 rewritten before each of
    the four EMITs, o2 written only in the second bank, o3 only in the first, CMP;
    ``emits=3``: one triangle, and the invocations alternate output banks; ``fault``:
    the first SETEMIT asks for a primitive while buffer entries 1 and 2 were never
    written."""
    a = geometry.Asm()
    a.op("mov", "r1", "c1")
    a.op("mul", "r0", "c0", "r1.xyzz")
    a.op("dp4", "r2.x", "c2", "v0")
    a.op("mul", "r3", "c0.x", "v1")
    a.op("add", "r2.yzw", "r3", "-r2.x")
    a.op("cmp", "", "c0", "v0", cmpx=2, cmpy=5)
    corners = ("-r0.xxzz", "r0.xyzz", "r0.yxzz", "r0.xxzz")
    for k, (corner, prim, winding) in enumerate(zip(corners[:emits],
                                                     (fault, False, True, True),
                                                     (False, False, False, True),
                                                     strict=False)):
        geometry.setemit(a, k % 3, prim=prim, winding=winding)
        a.op("add", "o0", "v0", corner)
        a.op("mul", "o1", "v1", "r2")
        if k == 1:
            a.op("mov", "o2", "r2.wzyx")  # while the second bank is active
        if k == 0:
            a.op("mov", "o3", "r2.yxwz")  # while the first bank is active
        a.flow("emit")
    a.end()
    return geometry.gs_shbin(a, outputs=((geometry.POS, 0), (geometry.COLOR, 1)))


def quad_arguments(rng, count):
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, 3e38, -1.5, 2.0**-63])
    inputs = {}
    for n in range(2):
        values = rng.normal(size=(count, 4)) * 10.0 ** rng.integers(-3, 4, (count, 4))
        inputs[f"v{n}"] = np.where(rng.random((count, 4)) < 0.2,
                                   rng.choice(special, (count, 4)), values)
    uniforms = {"c0": [0.5, 0.25, -0.75, 2.0], "c1": [1.0, -1.0, 0.0, 0.0],
                "c2": [1.0, -2.0, 0.5, 3.0]}
    return inputs, uniforms


@pytest.mark.parametrize(("precision", "emits"), [("f24", 4), ("f32", 4), ("f24", 3)])
def test_banks_and_registers_carried_between_invocations(launches, precision, emits):
    """70 invocations with special values among the inputs; at every END the registers
    the program never writes (o5, r7) and those written in one bank only (o2, o3: with
    three EMITs per invocation the invocations alternate banks, so the bank active at
    END was last written by the invocation before, or holds its initial value) are as
    the reference engine has them."""
    shbin = quads(emits=emits)
    rng = np.random.default_rng(7)
    inputs, uniforms = quad_arguments(rng, 70)
    given = dict(outputs={"o2": [1.0, 2.0, 3.0, 4.0], "o3": [9.0, 9.5, 10.0, 10.5],
                          "o5": [5.0, 6.0, 7.0, 8.0]},
                 temporaries={"r7": [-1.0, -2.0, -3.0, -4.0]}, cmp=(True, False))
    want, got = (run(shbin, inputs, uniforms=uniforms, precision=precision,
                       engine=engine, registers=True, **given)
                 for engine in ("reference", "jit"))
    assert launches[-1] == (False, True)  # special values: finished by the exact kernel
    expected, have = D._arrays(want, True), D._arrays(got, True)
    assert expected.keys() == have.keys()
    for name, value in expected.items():
        assert value.shape == have[name].shape and np.array_equal(value, have[name]), name
    assert len(got.primitives) == 70 * (emits - 2)  # two triangles per quad, or one


def test_emission_fault_is_the_reference_error(launches):
    shbin = quads(fault=True)
    inputs, uniforms = quad_arguments(np.random.default_rng(8), 40)
    errors = []
    for engine in ("reference", "jit"):
        with pytest.raises(geometry.ShaderFault) as error:
            run(shbin, inputs, uniforms=uniforms, engine=engine)
        errors.append((str(error.value), error.value.pc))
    assert errors[0] == errors[1] and launches == [(True, False), (False, False)]


def test_a_loop_emitting_more_than_the_arrays_hold(launches):
    """A LOOP of i0.x + 1 = 5 trips around one EMIT word: 5 vertices per invocation where
    the kernel's first arrays hold one per EMIT word, so they are made larger and the
    feed run again.  Each trip emits v0 + r0, then adds c0 = 1 to r0, which persists
    from one invocation to the next (pica-emulation.md#initial-state): vertex j of
    invocation i is v0 of i plus 5 i + j."""
    a = geometry.Asm()
    a.flow("loop", dst=4, id=0)  # 0: body 1..4
    geometry.setemit(a, 0)  # 1
    a.op("add", "o0", "v0", "r0")  # 2
    a.flow("emit")  # 3
    a.op("add", "r0", "c0", "r0")  # 4
    a.end()  # 5
    count = 7
    base = np.arange(count * 4, dtype=np.float64).reshape(count, 4)
    result = run(geometry.gs_shbin(a), {"v0": base},
                 uniforms={"i0": [4, 0, 1, 0], "c0": [1.0] * 4}, engine="jit",
                 registers=True)
    assert launches == [(True, True)]
    added = np.arange(count * 5, dtype=np.float64).reshape(count, 5)
    want = (base[:, None, :] + added[:, :, None]).reshape(-1, 4)
    assert np.array_equal(result.vertices["o0"], want.astype(np.float32))
    assert result.primitives.shape == (0, 3)


def test_auto_compiles_a_geometry_kernel_when_it_pays(monkeypatch):
    """``engine="auto"`` for a geometry feed (``choice.native_cost`` against the
    reference engine's cost): 3 invocations of the 25-word quad shader with nothing
    compiled stay on the reference engine (about a millisecond there, over 0.1 s to
    compile); 10^4 invocations go to the compiled engine (seconds on the reference
    engine); once the program's kernel is compiled in this process, one invocation
    does too."""
    from gpuisa.pica.engine import api, choice

    monkeypatch.setattr(choice, "_spent", type(choice._spent)())
    monkeypatch.setattr(geometryrun, "_made", set())
    shbin = quads()
    exe = api.executable(shbin)
    pending = api.Run(exe.program, api.ShaderState(1), exe.entry, "f24", geometry=True)
    assert api.choose_engine("auto", 3, pending) == "reference"
    assert api.choose_engine("auto", 10**4, pending) == "jit"
    inputs, uniforms = quad_arguments(np.random.default_rng(9), 2)
    run(shbin, inputs, uniforms=uniforms, engine="jit")
    assert api.choose_engine("auto", 1, pending) == "jit"
