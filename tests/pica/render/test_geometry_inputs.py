"""pica render driving geometry shaders fully (issue 28): point clouds, lines and
triangles fed as the shader's input mode takes them, uniforms of either stage for
--uniforms, --uniform-step and --camera.  Expected pictures and counts by hand."""

import numpy as np
import pytest
from render_kit import PASS, POINT_TO_QUAD

from gpuisa import GpuIsaError, pica
from gpuisa.pica.asm import assemble
from gpuisa.pica.render import Camera
from gpuisa.pica.render.animate import stepped_uniforms
from gpuisa.pica.render.mesh import mesh_from_arrays
from gpuisa.pica.render.scene import build_scene

BACKGROUND = (0, 0, 0, 0)

#: The devkitPro geometry-shader example's shape: the vertex shader passes position and
#: colour on (two outputs), the geometry shader takes three vertices per invocation
#: (stride 6 = 3 x 2 registers: v0/v1, v2/v3, v4/v5) and holds the projection.
TRIANGLE_GS = """
.gsh point c0
.entry gmain
.fvec projection[4]
.out opos position
.out oclr color
.proc gmain
    setemit 0
    dp4 opos.x, projection[0], v0
    dp4 opos.y, projection[1], v0
    dp4 opos.z, projection[2], v0
    dp4 opos.w, projection[3], v0
    mov oclr, v1
    emit
    setemit 1
    dp4 opos.x, projection[0], v2
    dp4 opos.y, projection[1], v2
    dp4 opos.z, projection[2], v2
    dp4 opos.w, projection[3], v2
    mov oclr, v3
    emit
    setemit 2, prim
    dp4 opos.x, projection[0], v4
    dp4 opos.y, projection[1], v4
    dp4 opos.z, projection[2], v4
    dp4 opos.w, projection[3], v4
    mov oclr, v5
    emit
    end
.end
"""

#: Two vertices per invocation (stride 4): one triangle (a, b, (0, 0)) per line a-b.
LINE_GS = """
.gsh point c0
.entry gmain
.constf origin(0.0, 0.0, -0.5, 1.0)
.out opos position
.proc gmain
    setemit 0
    mov opos, v0
    emit
    setemit 1
    mov opos, v2
    emit
    setemit 2, prim
    mov opos, origin
    emit
    end
.end
"""

SHADER = [("t.v.pica", PASS), ("t.g.pica", TRIANGLE_GS)]
IDENTITY = np.eye(4)


def _ply_points(path, points):
    """A PLY file of vertices only (no face element), written by hand."""
    lines = ["ply", "format ascii 1.0", f"element vertex {len(points)}",
             "property float x", "property float y", "property float z", "end_header"]
    lines += [" ".join(map(str, p)) for p in points]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_point_cloud_ply_feeds_a_point_mode_geometry_shader(tmp_path):
    pytest.importorskip("trimesh")
    path = _ply_points(tmp_path / "points.ply", [[-0.5, 0.5, -0.5], [0.5, -0.5, -0.5]])
    shader = [("p.v.pica", PASS), ("p.g.pica", POINT_TO_QUAD)]
    image = pica.render(shader, str(path), size=(16, 16), gsh=1, background=BACKGROUND,
                        gs_uniforms={"size": [0.25] * 4})
    # Each point becomes a square of half-side 0.25: pixel = (ndc + 1) * 8, y flipped;
    # no colour in the file, so white (v1 defaults to white).
    expected = np.zeros((16, 16, 4), dtype=np.uint8)
    expected[2:6, 2:6] = 255
    expected[10:14, 10:14] = 255
    np.testing.assert_array_equal(image, expected)


def test_a_point_cloud_without_a_geometry_shader_is_explained(tmp_path):
    pytest.importorskip("trimesh")
    path = _ply_points(tmp_path / "points.ply", [[0, 0, 0], [1, 0, 0], [0, 1, 0]])
    with pytest.raises(GpuIsaError, match=r"no faces \(a point cloud\).*--gsh"):
        pica.render(PASS, str(path), size=(4, 4))


#: A square of four corners plus two vertices no face uses: listed in vertex order, the
#: second invocation of three would get corner 3 and the two strays.
SQUARE = {"position": [[-1, -1, -0.5], [1, -1, -0.5], [1, 1, -0.5], [-1, 1, -0.5],
                       [5, 5, -0.5], [6, 5, -0.5]],
          "faces": [[0, 1, 2], [0, 2, 3]], "color": [[0, 1, 0]] * 6}


def test_indexed_mesh_is_expanded_to_one_triangle_per_invocation():
    image = pica.render(SHADER, SQUARE, size=(8, 8), gsh=1, stride=6,
                        background=BACKGROUND, gs_uniforms={"projection": IDENTITY})
    # Both triangles of the full-screen square: every pixel centre is inside one.
    assert (image == [0, 255, 0, 255]).all()


def test_uniforms_declared_by_the_geometry_shader_reach_it():
    # The projection given as a plain uniform (--uniforms), not as a geometry uniform.
    image = pica.render(SHADER, SQUARE, size=(8, 8), gsh=1, stride=6,
                        background=BACKGROUND, uniforms={"projection": IDENTITY})
    assert (image == [0, 255, 0, 255]).all()


def test_camera_fills_a_projection_the_geometry_shader_holds():
    camera = Camera((0, 0, 3), (0, 0, 0), fov=90.0, near=1.0, far=10.0)
    mesh = {"position": [[-1, -1, 0], [1, -1, 0], [1, 1, 0], [-1, 1, 0]],
            "faces": [[0, 1, 2], [0, 2, 3]]}
    image = pica.render(SHADER, mesh, size=(120, 120), gsh=1, stride=6, camera=camera,
                        background=BACKGROUND)
    # A square of half-side 1 at distance 3 with a 90-degree field of view spans a third
    # of the half-height each side of the centre: rows 40..79 of 120 (as for a vertex
    # shader's projection in test_render_pixels).
    rows = np.flatnonzero(image[:, 60, 3])
    assert rows.min() == 40 and rows.max() == 79


def test_lines_feed_each_edge_of_the_triangles_once():
    shader = assemble([("l.v.pica", PASS), ("l.g.pica", LINE_GS)])
    mesh = mesh_from_arrays(SQUARE)
    scene = build_scene(shader, mesh, gsh=1, stride=4)
    # The square's two triangles share the diagonal 0-2: five edges, one invocation
    # (one triangle) each.
    assert len(scene.triangles) == 5
    ends = {tuple(sorted((tuple(scene.positions[a, :2]), tuple(scene.positions[b, :2]))))
            for a, b, _ in scene.triangles}
    corner = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
    assert ends == {tuple(sorted((corner[a], corner[b])))
                    for a, b in ((0, 1), (1, 2), (2, 0), (2, 3), (3, 0))}


def test_a_primitive_size_render_cannot_feed_names_the_stride():
    with pytest.raises(GpuIsaError, match=r"4 vertices per invocation \(--stride 8 / 2"):
        pica.render(SHADER, SQUARE, size=(8, 8), gsh=1, stride=8,
                    gs_uniforms={"projection": IDENTITY})


def test_uniform_step_finds_a_uniform_only_the_geometry_shader_declares():
    # The vertex shader declares no uniform at all: the step must not go to it too.
    shader = assemble([("p.v.pica", PASS), ("p.g.pica", POINT_TO_QUAD)])
    vertex, geometry = stepped_uniforms(shader, None, None, {"size": [0.5, 0, 0, 0]}, 2,
                                        gsh=1)
    assert "size" not in vertex
    np.testing.assert_array_equal(geometry["size"], [1.0, 0, 0, 0])


def test_a_projection_not_given_is_named_with_the_options_that_give_it():
    # The geometry shader reads projection[0] (c0) first in its second instruction (after
    # setemit 0): pc 4, PASS's three words coming first.
    with pytest.raises(GpuIsaError) as error:
        pica.render(SHADER, SQUARE, size=(8, 8), gsh=1, stride=6)
    assert str(error.value) == (
        "float uniform 'projection[0]' (c0) is read at pc 0x004 but was not given: give it "
        "with --uniforms FILE (uniforms=), or --camera auto for a projection or model-view "
        "matrix")
