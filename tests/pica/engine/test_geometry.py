"""Geometry shaders: SETEMIT/EMIT, the vertex buffer, winding, output banking, b15, the
persistent unit, and the three input modes through run_pipeline.

Expected vertices and primitives are traced by hand from 3dbrew's SETEMIT/EMIT rows
and pica-emulation.md#geometry.
"""

import numpy as np
import pytest
from engine_kit import Asm, assert_same

from gpuisa.errors import InputError
from gpuisa.pica.engine import ShaderFault, run, run_pipeline
from gpuisa.pica.shbin import Dvle, GeometryMode, OutputEntry, OutputSemantic, ShaderType, Shbin

POS, COLOR = OutputSemantic.POSITION, OutputSemantic.COLOR


def gs_shbin(a, outputs=((POS, 0),), main=0, **fields):
    entries = (Dvle(ShaderType.GEOMETRY, main_offset=main, endmain_offset=len(a.code),
                    outputs=tuple(OutputEntry(s, r) for s, r in outputs), **fields),)
    return Shbin(a.program(), entries)


def setemit(a, vtxid, prim=False, winding=False):
    a.flow("setemit", vtxid=vtxid, primemit=int(prim), winding=int(winding))


def test_triangle_strip_with_alternating_winding(engine):
    """Six strip vertices: vertex i goes to buffer entry i % 3; from the third on each
    EMIT makes a triangle, every other one with FLAG_WINDING."""
    a = Asm()
    for i in range(6):
        setemit(a, i % 3, prim=i >= 2, winding=i >= 2 and (i - 2) % 2 == 1)
        a.op("mov", "o0", f"v{i}")
        a.flow("emit")
    a.end()
    inputs = {f"v{i}": [float(i), 10.0 + i, 0, 1] for i in range(6)}
    result = run(gs_shbin(a), inputs, engine=engine, registers=True)
    assert_same(result.vertices["o0"], [[i, 10 + i, 0, 1] for i in range(6)])
    # buffer (entry 0, 1, 2) when each primitive is emitted, reversed if winding:
    # (0, 1, 2); (3, 1, 2) -> (2, 1, 3); (3, 4, 2); (3, 4, 5) -> (5, 4, 3)
    assert result.primitives.tolist() == [[0, 1, 2], [2, 1, 3], [3, 4, 2], [5, 4, 3]]
    assert result.windings.tolist() == [False, True, False, True]
    # each is the strip triangle {k, k+1, k+2} in strip orientation (odd k: k+1, k, k+2)
    for k, tri in enumerate(result.primitives.tolist()):
        strip = [k, k + 1, k + 2] if k % 2 == 0 else [k + 1, k, k + 2]
        assert tri in [strip[r:] + strip[:r] for r in range(3)]


def test_emit_flips_the_output_bank(engine):
    """An output not rewritten between two EMITs shows the value of two EMITs earlier."""
    a = Asm()
    setemit(a, 0)
    a.op("mov", "o0", "v0")  # bank 0: A
    a.flow("emit")  # A; -> bank 1
    a.op("mov", "o0", "v1")  # bank 1: B
    a.flow("emit")  # B; -> bank 0
    a.flow("emit")  # bank 0 still holds A
    a.end()
    result = run(gs_shbin(a), {"v0": [1, 1, 1, 1], "v1": [2, 2, 2, 2]}, engine=engine,
        registers=True)
    assert_same(result.vertices["o0"], [[1] * 4, [2] * 4, [1] * 4])
    assert result.primitives.shape == (0, 3)


def test_b15_is_set_after_each_invocation_and_registers_persist(engine):
    a = Asm()
    a.flow("ifu", dst=2, num=1, id=15)  # 0: b15 true: 1, else: 2
    a.op("add", "r0", "c0", "r0")  # 1
    a.op("add", "r1", "c0", "r1")  # 2
    a.end()  # 3
    result = run(gs_shbin(a), {"v0": np.zeros((3, 4))},
                 uniforms={"b15": False, "c0": [1, 1, 1, 1]}, engine=engine, registers=True)
    # first run: b15 false (else block); later runs see b15 = true; r0/r1 carry over
    assert result.temporaries["r0"][:, 0].tolist() == [0, 1, 2]
    assert result.temporaries["r1"][:, 0].tolist() == [1, 1, 1]
    assert result.steps.tolist() == [3, 3, 3]


def test_vertex_buffer_is_not_cleared_between_invocations(engine):
    """Invocation 0 fills entries 0 and 1; invocation 1 writes entry 2 with PRIMEMIT: the
    triangle reuses the two earlier vertices (pica-emulation.md#emit: buffer not cleared)."""
    a = Asm()
    a.flow("ifu", dst=6, num=4, id=15)  # 0: later invocations -> 1..5; first -> 6..9
    setemit(a, 2, prim=True)  # 1
    a.op("mov", "o0", "v0")  # 2
    a.flow("emit")  # 3
    a.end()  # 4
    a.nop()  # 5
    setemit(a, 0)  # 6
    a.op("mov", "o0", "v0")  # 7
    a.flow("emit")  # 8
    setemit(a, 1)  # 9
    a.op("mov", "o0", "v0")  # 10 (executed after the else block: falls on)
    a.flow("emit")  # 11
    a.end()  # 12
    result = run(gs_shbin(a), {"v0": [[1] * 4, [2] * 4]}, uniforms={"b15": False},
                 engine=engine, registers=True)
    assert_same(result.vertices["o0"], [[1] * 4, [1] * 4, [2] * 4])
    assert result.primitives.tolist() == [[0, 1, 2]]


def test_primitive_with_an_unwritten_entry_faults(engine):
    a = Asm()
    setemit(a, 2, prim=True)
    a.op("mov", "o0", "v0")
    a.flow("emit")
    a.end()
    with pytest.raises(ShaderFault, match="entry 0"):
        run(gs_shbin(a), {"v0": [1, 1, 1, 1]}, engine=engine, registers=True)


def test_emit_copies_only_the_output_mask(engine):
    a = Asm()
    setemit(a, 0)
    a.op("mov", "o0", "v0")
    a.op("mov", "o2", "v0")
    a.op("mov", "o3", "v0")
    a.flow("emit")
    a.end()
    result = run(gs_shbin(a, outputs=((POS, 0), (COLOR, 3))), {"v0": [1, 2, 3, 4]},
                 engine=engine, registers=True)
    assert sorted(result.vertices) == ["o0", "o3"]


# -- the pipeline -------------------------------------------------------------------------


def pipeline_shbin(gs_code, mode, **fields):
    """Vertex shader at 0: o0 = v0 + c0, o1 = v1 (outputs position, color); the geometry
    shader's code follows."""
    a = Asm()
    a.op("add", "o0", "c0", "v0")
    a.op("mov", "o1", "v1")
    a.end()
    main = a.pc
    gs_code(a)
    vs = Dvle(ShaderType.VERTEX, 0, main, outputs=(OutputEntry(POS, 0), OutputEntry(COLOR, 1)))
    outputs = fields.pop("outputs", (OutputEntry(POS, 0), OutputEntry(COLOR, 1)))
    gs = Dvle(ShaderType.GEOMETRY, main, a.pc, outputs=outputs, geometry_mode=mode, **fields)
    return Shbin(a.program(), (vs, gs))


POSITIONS = np.arange(24, dtype=float).reshape(6, 4)
COLORS = -POSITIONS - 1  # no zero: f24 has no -0
VS_UNIFORMS = {"c0": [100, 0, 0, 0]}
MOVED = POSITIONS + np.array([100, 0, 0, 0])


def test_point_mode(engine):
    def gs(a):
        for k in range(3):  # three vertices of 2 registers each: v0..v5
            setemit(a, k, prim=k == 2)
            a.op("mov", "o0", f"v{2 * k}")
            a.op("mov", "o1", f"v{2 * k + 1}")
            a.flow("emit")
        a.end()

    result = run_pipeline(pipeline_shbin(gs, GeometryMode.POINT),
                          {"v0": POSITIONS, "v1": COLORS}, uniforms=VS_UNIFORMS, stride=6,
                          engine=engine, registers=True)
    assert_same(result.vertex.outputs["o0"], MOVED)
    assert_same(result.vertices["o0"], MOVED)
    assert_same(result.vertices["o1"], COLORS)
    assert result.primitives.tolist() == [[0, 1, 2], [3, 4, 5]]
    assert result.geometry.steps.tolist() == [13, 13]
    assert_same(result.vertices_by_semantic["position"], MOVED)
    assert_same(result.vertices_by_semantic["texcoord0"], np.ones((6, 2)))


def test_point_mode_default_stride_is_one_vertex(engine):
    def gs(a):
        setemit(a, 0)
        a.op("mov", "o0", "v1")  # v0 = position, v1 = color of the one vertex
        a.op("mov", "o1", "v0")
        a.flow("emit")
        a.end()

    result = run_pipeline(pipeline_shbin(gs, GeometryMode.POINT),
                          {"v0": POSITIONS[:2], "v1": COLORS[:2]}, uniforms=VS_UNIFORMS,
                          engine=engine, registers=True)
    assert_same(result.vertices["o0"], COLORS[:2])
    assert_same(result.vertices["o1"], MOVED[:2])


def test_fixed_mode(engine):
    """3 vertices per invocation into c10.. (position, color, position, ...)."""
    def gs(a):
        for k in range(3):
            setemit(a, k, prim=k == 2)
            a.op("mov", "o0", f"c{10 + 2 * k}")
            a.op("mov", "o1", f"c{11 + 2 * k}")
            a.flow("emit")
        a.end()

    shbin = pipeline_shbin(gs, GeometryMode.FIXED, fixed_vertex_start=10, fixed_vertex_count=3)
    result = run_pipeline(shbin, {"v0": POSITIONS, "v1": COLORS}, uniforms=VS_UNIFORMS,
                          engine=engine, registers=True)
    assert_same(result.vertices["o0"], MOVED)
    assert_same(result.vertices["o1"], COLORS)
    assert result.primitives.tolist() == [[0, 1, 2], [3, 4, 5]]


def test_variable_mode(engine):
    """c0 = vertex count; then 1 full vertex (position, color), then positions only."""
    def gs(a):
        setemit(a, 0)
        for k in range(5):
            a.op("mov", f"o{k}", f"c{k}")
        a.flow("emit")
        a.end()

    outputs = tuple(OutputEntry(s, r) for r, s in enumerate(
        (POS, COLOR, OutputSemantic.TEXCOORD0, OutputSemantic.VIEW, OutputSemantic.NORMALQUAT)))
    shbin = pipeline_shbin(gs, GeometryMode.VARIABLE, variable_vertex_count=1,
                           outputs=outputs)
    result = run_pipeline(shbin, {"v0": POSITIONS[:5], "v1": COLORS[:5]}, uniforms=VS_UNIFORMS,
                          primitive_sizes=[3, 2], engine=engine, registers=True)
    v = result.vertices
    assert_same(v["o0"], [[3] * 4, [2] * 4])
    assert_same(v["o1"], [MOVED[0], MOVED[3]])
    assert_same(v["o2"], [COLORS[0], COLORS[3]])
    assert_same(v["o3"], [MOVED[1], MOVED[4]])
    # the second primitive has one position-only vertex: c4 keeps the first one's value
    assert_same(v["o4"], [MOVED[2], MOVED[2]])


def test_pipeline_input_checks(engine):
    def gs(a):
        a.end()

    shbin = pipeline_shbin(gs, GeometryMode.POINT)
    with pytest.raises(InputError, match="stride 3 must be a multiple"):
        run_pipeline(shbin, {"v0": POSITIONS, "v1": COLORS}, uniforms=VS_UNIFORMS, stride=3,
            registers=True)
    with pytest.raises(InputError, match="do not fill whole"):
        run_pipeline(shbin, {"v0": POSITIONS[:5], "v1": COLORS[:5]}, uniforms=VS_UNIFORMS,
                     stride=4, registers=True)
    variable = pipeline_shbin(gs, GeometryMode.VARIABLE, variable_vertex_count=1)
    with pytest.raises(InputError, match="add up to 5"):
        run_pipeline(variable, {"v0": POSITIONS, "v1": COLORS}, uniforms=VS_UNIFORMS,
                     primitive_sizes=[2, 3], registers=True)
