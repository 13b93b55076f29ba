"""Pixel tests of pica.render: expected images derived by hand (a full-screen quad, a
quad from a geometry shader), from edge equations evaluated independently in plain
Python, and from which of two triangles is nearer."""

import numpy as np
import pytest
from render_kit import PASS, POINT_TO_QUAD

from gpuisa import GpuIsaError, pica
from gpuisa.pica.render import Camera, compare
from gpuisa.pica.render.camera import look_at, perspective

BACKGROUND = (0, 0, 0, 0)


def quad(z=-0.5, extent=1.0, colour=(1.0, 0.0, 0.2)):
    e = extent
    return {"position": [[-e, -e, z], [e, -e, z], [e, e, z], [-e, e, z]],
            "faces": [[0, 1, 2], [0, 2, 3]], "color": [colour] * 4}


def draw(mesh, size=(8, 6), **options):
    return pica.render(PASS, mesh, size=size, background=BACKGROUND, **options)


def test_full_screen_quad_is_one_colour():
    image = draw(quad(colour=(1.0, 0.0, 0.2)))
    assert image.shape == (6, 8, 4)
    # 0.2 * 255 = 51 exactly; every pixel centre lies inside one of the two triangles.
    assert (image == np.array([255, 0, 51, 255], dtype=np.uint8)).all()


def _covered_by_hand(ndc, width, height):
    """Pixel centres inside the triangle, from its three edge equations (plain Python;
    image y grows downwards, NDC y upwards)."""
    pts = [((x + 1) * width / 2, (1 - y) * height / 2) for x, y in ndc]
    mask = np.zeros((height, width), dtype=bool)
    for row in range(height):
        for col in range(width):
            px, py = col + 0.5, row + 0.5
            sides = []
            for (ax, ay), (bx, by) in zip(pts, pts[1:] + pts[:1], strict=True):
                sides.append((bx - ax) * (py - ay) - (by - ay) * (px - ax))
            mask[row, col] = all(s > 0 for s in sides) or all(s < 0 for s in sides)
    return mask


@pytest.mark.parametrize("ndc", [
    [(-0.9, -0.8), (0.7, -0.3), (-0.2, 0.85)],     # counter-clockwise
    [(0.8, 0.9), (0.1, -0.95), (-0.85, 0.3)],      # clockwise: drawn too (no culling)
])
def test_triangle_covers_the_pixels_its_edge_equations_give(ndc):
    # No pixel centre lies on an edge of these triangles (checked below), so the tie
    # rule does not matter.
    width, height = 40, 30
    mesh = {"position": [[x, y, -0.5] for x, y in ndc], "faces": [[0, 1, 2]],
            "color": [[0, 1, 0]] * 3}
    image = draw(mesh, size=(width, height))
    expected = _covered_by_hand(ndc, width, height)
    assert 100 < expected.sum() < width * height
    np.testing.assert_array_equal(image[..., 3] == 255, expected)
    assert (image[expected] == [0, 255, 0, 255]).all()


def test_nearer_triangle_wins_whatever_the_order():
    # Depth: z/w in [-1, 0], -1 at the near plane, so the red square (z = -0.8) is in
    # front of the green one (z = -0.3) wherever they overlap, in either drawing order.
    front = quad(z=-0.8, extent=0.5, colour=(1, 0, 0))
    back = quad(z=-0.3, extent=1.0, colour=(0, 1, 0))
    for first, second in ((front, back), (back, front)):
        mesh = {"position": first["position"] + second["position"],
                "faces": [[0, 1, 2], [0, 2, 3], [4, 5, 6], [4, 6, 7]],
                "color": first["color"] + second["color"]}
        image = draw(mesh, size=(8, 8))
        # NDC [-0.5, 0.5] is pixels 2..5 of 8 both ways (centres 2.5..5.5).
        inner = np.zeros((8, 8), dtype=bool)
        inner[2:6, 2:6] = True
        assert (image[inner] == [255, 0, 0, 255]).all()
        assert (image[~inner] == [0, 255, 0, 255]).all()


def test_geometry_shader_turns_points_into_quads():
    shader = [("p.v.pica", PASS), ("p.g.pica", POINT_TO_QUAD)]
    # Three points; each becomes a square of half-side 0.25 around it.  In a 16x16
    # image NDC (-0.5, 0.5) +- 0.25 covers pixels x 2..5, y 2..5, (0.5, -0.5) x 10..13,
    # y 10..13 and (0, 0) x 6..9, y 6..9 (pixel = (ndc + 1) * 8, y flipped).  Faces
    # are not used in point mode.
    mesh = {"position": [[-0.5, 0.5, -0.5], [0.5, -0.5, -0.5], [0, 0, -0.5]],
            "faces": [[0, 1, 2]], "color": [[1, 0, 0], [0, 0, 1], [0, 1, 0]]}
    image = pica.render(shader, mesh, size=(16, 16), gsh=1, background=BACKGROUND,
                        gs_uniforms={"size": [0.25] * 4})
    expected = np.zeros((16, 16, 4), dtype=np.uint8)
    expected[2:6, 2:6] = [255, 0, 0, 255]
    expected[10:14, 10:14] = [0, 0, 255, 255]
    expected[6:10, 6:10] = [0, 255, 0, 255]
    np.testing.assert_array_equal(image, expected)


def test_tilt_undoes_the_quarter_turn():
    # A quad covering clip x in [0, 1] (the right half).  citro3d's tilted projection
    # puts view y into clip x, so with tilt that is the upper half of the picture.
    mesh = quad(extent=1.0)
    mesh["position"] = [[0, -1, -0.5], [1, -1, -0.5], [1, 1, -0.5], [0, 1, -0.5]]
    plain = draw(mesh, size=(4, 4))
    tilted = draw(mesh, size=(4, 4), tilt=True)
    assert (plain[:, 2:, 3] == 255).all() and (plain[:, :2, 3] == 0).all()
    assert (tilted[:2, :, 3] == 255).all() and (tilted[2:, :, 3] == 0).all()


def test_perspective_depth_range_and_tilt():
    near, far = 2.0, 10.0
    m = perspective(90.0, 2.0, near, far)
    for z, expected in ((-near, -1.0), (-far, 0.0)):
        clip = m @ [0, 0, z, 1]
        assert clip[2] / clip[3] == pytest.approx(expected)
    # 90 degrees: a point 45 degrees up is at the top edge; aspect 2 halves x.
    clip = m @ [4, 4, -4, 1]
    assert clip[1] / clip[3] == pytest.approx(1.0)
    assert clip[0] / clip[3] == pytest.approx(0.5)
    tilted = perspective(90.0, 2.0, near, far, tilt=True)
    np.testing.assert_allclose(tilted[0], m[1])
    np.testing.assert_allclose(tilted[1], -m[0])


def test_look_at_puts_the_target_straight_ahead():
    view = look_at((0, 0, 5), (0, 0, 0), (0, 1, 0))
    np.testing.assert_allclose(view @ [0, 0, 0, 1], [0, 0, -5, 1])
    np.testing.assert_allclose(view @ [1, 0, 0, 1], [1, 0, -5, 1])


CAMERA_SHADER = """
.fvec projection[4], modelview[4]
.in pos
.out opos position
.proc main
    dp4 r0.x, modelview[0], pos
    dp4 r0.y, modelview[1], pos
    dp4 r0.z, modelview[2], pos
    dp4 r0.w, modelview[3], pos
    dp4 opos.x, projection[0], r0
    dp4 opos.y, projection[1], r0
    dp4 opos.z, projection[2], r0
    dp4 opos.w, projection[3], r0
    end
.end
"""


def test_camera_fills_projection_and_modelview():
    camera = Camera((0, 0, 3), (0, 0, 0), fov=90.0, near=1.0, far=10.0)
    # A square of half-side 1 at distance 3 with a 90-degree field of view spans 1/3
    # of the half-height each side of the centre: rows 60 - 20 .. 60 + 20 of 120.
    mesh = {"position": [[-1, -1, 0], [1, -1, 0], [1, 1, 0], [-1, 1, 0]],
            "faces": [[0, 1, 2], [0, 2, 3]]}
    image = pica.render(CAMERA_SHADER, mesh, size=(120, 120), camera=camera,
                        background=BACKGROUND)
    rows = np.flatnonzero(image[:, 60, 3])
    assert rows.min() == 40 and rows.max() == 79


def test_compare_counts_the_vertices_float24_rounds():
    # x + 2^-20: float24 has 16 mantissa bits, so 0.5 + 2^-20 rounds back to 0.5 in f24
    # but not in f32; 0 + 2^-20 is exact in both.
    shader = """
.fvec nudge
.in pos
.out opos position
.proc main
    add opos, nudge, pos
    end
.end
"""
    mesh = {"position": [[-0.5, -0.5, -0.5], [0.5, -0.5, -0.5], [0.0, 0.5, -0.5]],
            "faces": [[0, 1, 2]]}
    result = compare(shader, mesh, size=(8, 8), uniforms={"nudge": [2.0**-20, 0, 0, 0]})
    assert result.vertices == (3, 3)
    assert result.vertices_differ == 2
    # One NDC unit is 4 pixels of an 8-pixel-wide picture.
    assert result.max_position_error == pytest.approx(2.0**-20 * 4)
    assert result.difference.shape == (8, 8, 4)


@pytest.mark.parametrize("mesh, message", [
    ({"position": [[np.nan, 0, -0.5], [1, 0, -0.5], [0, 1, -0.5]], "faces": [[0, 1, 2]]},
     "output vertex 0: the shader's position is NaN"),
    ({"position": [[0, 0, 0]], "faces": [[0, 0, 5]]}, "mesh faces index vertices 0..0"),
])
def test_bad_meshes(mesh, message):
    with pytest.raises(GpuIsaError, match=message):
        draw(mesh)


def test_shader_without_position_output():
    shader = """
.in pos
.out oclr color
.proc main
    mov oclr, pos
    end
.end
"""
    with pytest.raises(GpuIsaError, match="has no position output"):
        pica.render(shader, quad())


def test_attribute_the_shader_does_not_have():
    with pytest.raises(GpuIsaError, match="the shader has no input 'innrm'"):
        draw(quad(), attributes={"innrm": "normal"})


TEXTURED = """
.in pos
.in col
.in uv
.out opos position
.out oclr color
.out otc texcoord0
.proc main
    mov opos, pos
    mov oclr, col
    mov otc, uv
    end
.end
"""


def test_texture_is_sampled_at_texcoord0_nearest_texel():
    # A full-screen quad with u, v = 0..1 over a 2x2 texture: pixel (col, row) of the 8x6
    # image has u = (col + 0.5) / 8 and v = 1 - (row + 0.5) / 6 (w = 1: affine), so the
    # left four columns sample texel column 0 and the top three rows texel row 0 (row 0
    # is the top of the image file; v = 0 is its bottom).
    texels = np.array([[[255, 0, 0, 255], [0, 255, 0, 255]],
                       [[0, 0, 255, 255], [255, 255, 0, 255]]], dtype=np.uint8)
    mesh = dict(quad(colour=(1.0, 1.0, 1.0)),
                texcoord=[[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    image = pica.render(TEXTURED, mesh, size=(8, 6), background=BACKGROUND,
                        texture=texels)
    expected = np.empty((6, 8, 4), dtype=np.uint8)
    expected[:3, :4], expected[:3, 4:] = texels[0, 0], texels[0, 1]
    expected[3:, :4], expected[3:, 4:] = texels[1, 0], texels[1, 1]
    assert (image == expected).all()


def test_texture_without_a_texcoord0_output_is_an_error():
    with pytest.raises(GpuIsaError, match="texcoord0"):
        draw(quad(), texture=np.zeros((2, 2, 4), dtype=np.uint8))
