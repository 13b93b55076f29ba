"""The JIT engine's compiled geometry shaders (jit_geometry) against the reference engine.

Random geometry programs of :mod:`test_differential_geometry` (24 invocations on one
persistent unit; loops, calls, branches on the flags, relative addressing, SETEMIT/EMIT
with primitives and windings; a fault and a missing uniform), compared bit for bit:
registers at every END, vertices, primitives, windings, errors.  Then the hand-derived
geometry tests of :mod:`test_picaemu_geometry` (output banking, b15, the buffer kept
between invocations, point / fixed / variable input modes) on the compiled path.  Each
case compiles a kernel (``COMPILE_THRESHOLD = 0``), so only a few programs run here.
"""

import pytest

pytest.importorskip("numba")

import test_differential_geometry as differential
import test_picaemu_geometry as geometry

from gpuisa.pica.engine import jit_geometry

#: Seeds of test_differential_geometry.case: 6, 9, 15, 18 emit primitives (6 and 18 with
#: loops, calls, BREAKC and MOVA), 10 faults, 39 reads a uniform that was not given.
SEEDS = [6, 9, 10, 15, 18, 39]


@pytest.fixture
def compiled(monkeypatch):
    monkeypatch.setattr(jit_geometry, "COMPILE_THRESHOLD", 0)


@pytest.mark.parametrize("seed", SEEDS)
def test_compiled_geometry_matches_the_reference_engine(compiled, seed):
    differential.check(seed, "jit")


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
