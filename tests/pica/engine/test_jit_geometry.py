"""The JIT engine's compiled geometry shaders (jit_geometry) against the reference engine.

The hand-derived geometry tests of :mod:`test_geometry` (output banking, b15,
the buffer kept between invocations, point / fixed / variable input modes) on the
compiled path (random geometry programs: :mod:`test_differential`).  Each case compiles
a kernel (``COMPILE_THRESHOLD = 0``).
"""

import numpy as np
import pytest

pytest.importorskip("numba")

import differential
import test_geometry as geometry

from gpuisa.pica.engine.compiled import geometry as jit_geometry


@pytest.fixture
def compiled(monkeypatch):
    monkeypatch.setattr(jit_geometry, "COMPILE_THRESHOLD", 0)


@pytest.mark.parametrize("test", [
    geometry.test_triangle_strip_with_alternating_winding,
    geometry.test_emit_flips_the_output_bank,
    geometry.test_b15_is_set_after_each_invocation_and_registers_persist,
    geometry.test_vertex_buffer_is_not_cleared_between_invocations,
    geometry.test_primitive_with_an_unwritten_entry_faults,
    geometry.test_emit_copies_only_the_output_mask,
    geometry.test_point_mode,
    geometry.test_fixed_mode,
    geometry.test_variable_mode,
], ids=lambda test: test.__name__)
def test_compiled_geometry_passes_the_geometry_tests(compiled, test):
    test("jit")


def test_small_feeds_do_not_wait_for_a_compiler(monkeypatch):
    """Below the threshold, a program whose kernel is not compiled runs elsewhere."""
    monkeypatch.setattr(jit_geometry, "_kernels", type(jit_geometry._kernels)())
    monkeypatch.setattr(jit_geometry, "on_disk", lambda source: False)
    compiled = []
    monkeypatch.setattr(jit_geometry, "compile_source",
                        lambda source: compiled.append(source))
    geometry.test_point_mode("jit")
    assert not compiled


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


def _generated(shbin, precision):
    from gpuisa.pica.engine.api import executable

    exe = executable(shbin)
    return jit_geometry._source(exe.program, exe.entry, precision, frozenset(),
                                exe.output_registers, (0, 1, 2, 3, 5), True)


@pytest.mark.parametrize(("precision", "emits"), [("f24", 4), ("f32", 4), ("f24", 3)])
def test_independent_invocations_run_vectorized(compiled, precision, emits):
    """A program whose invocations depend on each other only through the emission state
    gets the kernel that runs its ALU instructions over blocks of invocations (70: two
    full blocks of 32 and a partial one), with special values among the inputs; at every
    END the registers the program never writes (o5, r7) and those written in one bank
    only (o2, o3: with three EMITs per invocation, the bank active at END was last
    written by the invocation before, or holds its initial value) are as the reference
    engine has them."""
    shbin = quads(emits=emits)
    assert "ALU over blocks" in _generated(shbin, precision)
    rng = np.random.default_rng(7)
    inputs, uniforms = quad_arguments(rng, 70)
    given = dict(outputs={"o2": [1.0, 2.0, 3.0, 4.0], "o3": [9.0, 9.5, 10.0, 10.5],
                          "o5": [5.0, 6.0, 7.0, 8.0]},
                 temporaries={"r7": [-1.0, -2.0, -3.0, -4.0]}, cmp=(True, False))
    want, got = (differential.run(shbin, inputs, uniforms=uniforms, precision=precision,
                                  engine=engine, registers=True, **given)
                 for engine in ("reference", "jit"))
    expected, have = differential._arrays(want, True), differential._arrays(got, True)
    assert expected.keys() == have.keys()
    for name, value in expected.items():
        assert value.shape == have[name].shape and np.array_equal(value, have[name]), name
    assert len(want.primitives) == 70 * (emits - 2)  # two triangles per quad, or one


def test_vectorized_emission_fault_is_the_reference_error(compiled):
    shbin = quads(fault=True)
    assert "ALU over blocks" in _generated(shbin, "f24")
    inputs, uniforms = quad_arguments(np.random.default_rng(8), 40)
    errors = []
    for engine in ("reference", "jit"):
        with pytest.raises(geometry.ShaderFault) as error:
            differential.run(shbin, inputs, uniforms=uniforms, engine=engine)
        errors.append((str(error.value), error.value.pc))
    assert errors[0] == errors[1]


def test_carried_state_keeps_invocations_in_order():
    """An EMIT of a register component this invocation did not write (its value comes
    from an earlier invocation) needs the ordered kernel; an odd number of EMITs does
    not."""
    a = geometry.Asm()
    geometry.setemit(a, 0)
    a.op("mov", "o0.xyz", "v0")  # o0.w is whatever an earlier invocation left
    a.flow("emit")
    a.op("mov", "o0", "v0")
    a.flow("emit")
    a.end()
    assert "ALU over blocks" not in _generated(geometry.gs_shbin(a), "f24")
    b = geometry.Asm()
    geometry.setemit(b, 0)
    b.op("mov", "o0", "v0")
    b.flow("emit")
    b.end()
    assert "ALU over blocks" in _generated(geometry.gs_shbin(b), "f24")
