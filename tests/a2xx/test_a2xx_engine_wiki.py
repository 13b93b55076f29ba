"""Acceptance: the freedreno wiki's complete example (tests/a2xx/data/) against its GLSL source.

The listing is assembled as printed and run on random inputs; its exports must match the
GLSL shader evaluated independently in NumPy (float64).  The listing's three fetches use
the same fetch constant (CONST(4)) and differ only in the component of R0 they take the
vertex index from (R0.z colour, R0.x position, R0.y normal), so the test keeps the three
attributes in one buffer, one after another, and loads R0 with the three row numbers.
"""

from __future__ import annotations

import numpy as np
import pytest
from a2xx_helpers import wiki_example

from gpuisa.a2xx import VertexFetchConstant, assemble, run_vertex
from gpuisa.a2xx.isa import AllocBuffer


def _glsl(*arrays: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The wiki's GLSL vertex shader, in float64."""
    mv, mvp, normal_matrix, position, normal, color = arrays
    light_source = np.array([2.0, 2.0, 20.0, 0.0])
    in_position = np.concatenate([position, np.ones((len(position), 1))], axis=1)
    gl_position = in_position @ mvp.T
    eye_normal = normal @ normal_matrix.T
    position4 = in_position @ mv.T
    position3 = position4[:, :3] / position4[:, 3:]
    light_dir = light_source[:3] - position3
    light_dir /= np.linalg.norm(light_dir, axis=1, keepdims=True)
    diff = np.maximum(0.0, np.sum(eye_normal * light_dir, axis=1))
    varying = np.concatenate([diff[:, None] * color, np.ones((len(color), 1))], axis=1)
    return gl_position, varying


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_wiki_lighting_shader_matches_glsl(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = 257
    position = rng.uniform(-2, 2, (n, 3))
    normal = rng.normal(size=(n, 3))
    color = rng.uniform(0, 1, (n, 3))
    # Keep vPosition4.w away from zero so the division is well conditioned.
    mv = rng.uniform(-1, 1, (4, 4))
    mv[3] = [0.1, -0.1, 0.05, 2.0]
    mvp = rng.uniform(-1, 1, (4, 4))
    normal_matrix = rng.uniform(-1, 1, (3, 3))
    position, normal, color, mv, mvp, normal_matrix = (
        a.astype(np.float32) for a in (position, normal, color, mv, mvp, normal_matrix)
    )

    # Register/constant assignment from the listing's comment block: GLSL matrices are
    # column-major, so column j of a matrix is constant C(base + j).
    constants = np.zeros((13, 4), dtype=np.float32)
    constants[0:4] = mv.T
    constants[4:8] = mvp.T
    constants[8:11, :3] = normal_matrix.T
    constants[11] = [2.0, 2.0, 20.0, 0.0]
    constants[12] = [1.0, 0.0, 0.0, 0.0]
    buffer = np.concatenate([position, normal, color]).astype("<f4")
    rows = np.arange(n, dtype=np.float32)
    r0 = np.stack([rows, rows + n, rows + 2 * n, np.zeros(n, np.float32)], axis=1)

    result = run_vertex(
        assemble(wiki_example()),
        n,
        vertex_buffers={"attributes": buffer},
        fetch_constants={4 * 3 + 0: VertexFetchConstant("attributes")},  # CONST(4, 0)
        float_constants=constants,
        registers={0: r0},
    )

    f64 = (a.astype(np.float64) for a in (mv, mvp, normal_matrix, position, normal, color))
    gl_position, varying = _glsl(*f64)
    np.testing.assert_allclose(result.position, gl_position, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(result.params[0], varying, rtol=1e-4, atol=1e-5)
    assert set(result.params) == {0}
    assert not result.killed.any()
    assert [(a.buffer, a.size) for a in result.allocs] == [
        (AllocBuffer.POSITION, 0),
        (AllocBuffer.PARAM_PIXEL, 0),
    ]


def test_wiki_first_listing_moves_the_fetched_position() -> None:
    text = """
    EXEC ADDR(0x3) CNT(0x1)
       (S)FETCH:    VERTEX  R1.xyz1 = R0.x FMT_32_32_32_FLOAT UNSIGNED STRIDE(12) CONST(10)
    ALLOC COORD SIZE(0x0)
    EXEC ADDR(0x4) CNT(0x1)
          ALU:  MAXv    export62 = R1, R1   ; gl_Position
    ALLOC PARAM/PIXEL SIZE(0x0)
    EXEC_END ADDR(0x5) CNT(0x0)
    """
    xyz = np.arange(15, dtype="<f4").reshape(5, 3) - 7.5
    result = run_vertex(assemble(text), 5, vertex_buffers={30: xyz})
    np.testing.assert_array_equal(result.position, np.concatenate([xyz, np.ones((5, 1))], 1))
