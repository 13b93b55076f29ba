"""Pixel tests of ``a2xx render`` (a2xx-render.md): every expected picture is worked out
here from the conventions (window x = (x/w + 1) W/2, y = (1 - y/w) H/2; sample points at
i + 0.5 on adreno, at i on xenos; the top-left fill rule) with plain NumPy, never taken
from the renderer."""

from __future__ import annotations

import numpy as np
import pytest

from gpuisa.a2xx import Texture, assemble
from gpuisa.a2xx.render import EmptyPictureWarning, render

BACKGROUND = (0, 0, 0, 0)
CENTRE = {"adreno": 0.5, "xenos": 0.0}

# Position from CONST(4, 0); the second fetch (normal by default) from CONST(4, 1).
PASS_VS = assemble("""
EXEC
  FETCH: VERTEX R1.xyz1 = R0.x FMT_32_32_32_FLOAT SIGNED STRIDE(12) CONST(4, 0)
  FETCH: VERTEX R2.xyzw = R0.x FMT_32_32_32_32_FLOAT SIGNED STRIDE(16) CONST(4, 1)
EXEC_END
  ALU: MAXv export62 = R1, R1
  ALU: MAXv export0 = R2, R2
""")
EXPORTS = "EXEC_END\n  ALU: MAXv export62 = R1, R1\n  ALU: MAXv export0 = R2, R2\n"
CONSTANT_PS = assemble("EXEC_END\n  ALU: MAXv export0 = C0, C0\n")
PARAM_PS = assemble("EXEC_END\n  ALU: MAXv export0 = R0, R0\n")


def interleaved_vs(fetches: list[tuple[str, str, int]], body: str, target: str) -> list[int]:
    """A vertex shader reading ``fetches`` (destination, format, dwords) interleaved from
    one buffer, in the target's address unit (adreno: bytes, xenos: dwords), so that the
    fetches after the first mean the same as xenos' mini fetches."""
    unit = 4 if target == "adreno" else 1
    stride = sum(size for _, _, size in fetches) * unit
    lines, offset = [], 0
    for dst, fmt, size in fetches:
        lines.append(f"  FETCH: VERTEX {dst} = R0.x {fmt} SIGNED STRIDE({stride}) "
                     f"OFFSET({offset * unit}) CONST(4, 0)")
        offset += size
    return assemble("EXEC\n" + "\n".join(lines) + "\n" + body)


def quad(z: float = 0.5) -> dict[str, object]:
    return {"position": [[-1, -1, z], [1, -1, z], [1, 1, z], [-1, 1, z]],
            "faces": [[0, 1, 2], [0, 2, 3]]}


def draw(vs, ps, mesh, size, target="adreno", **options) -> np.ndarray:
    return render(vs, ps, mesh, size=size, target=target, background=BACKGROUND,
                  **options).image


@pytest.mark.parametrize("target", ["adreno", "xenos"])
def test_full_screen_quad_of_one_constant_colour(target):
    colour = [0.2, 0.4, 0.6, 1.0]
    image = draw(PASS_VS, CONSTANT_PS, quad(), (7, 5), target,
                 pixel_constants={"float_constants": {0: colour}})
    # 0.2 * 255 = 51, 0.4 * 255 = 102, 0.6 * 255 = 153 on every pixel.
    assert image.shape == (5, 7, 4)
    assert (image == [51, 102, 153, 255]).all()


def window(ndc: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    width, height = size
    return np.stack([(ndc[:, 0] + 1) * width / 2, (1 - ndc[:, 1]) * height / 2], axis=1)


def edge(a, b, px, py):
    return (b[0] - a[0]) * (py - a[1]) - (b[1] - a[1]) * (px - a[0])


@pytest.mark.parametrize("target", ["adreno", "xenos"])
@pytest.mark.parametrize("corners", [
    [(-0.83, -0.71), (0.77, -0.29), (-0.11, 0.93)],    # counter-clockwise on screen
    [(-0.9, 0.8), (0.6, 0.35), (-0.35, -0.95)],       # clockwise on screen
])
def test_triangle_coverage_from_edge_equations(target, corners):
    size = (23, 17)
    ndc = np.array(corners)
    mesh = {"position": [[x, y, 0.25] for x, y in corners], "faces": [[0, 1, 2]]}
    image = draw(PASS_VS, CONSTANT_PS, mesh, size, target,
                 pixel_constants={"float_constants": {0: [1, 1, 1, 1]}})
    a, b, c = window(ndc, size)
    px, py = np.meshgrid(np.arange(size[0]) + CENTRE[target],
                         np.arange(size[1]) + CENTRE[target])
    e = np.stack([edge(b, c, px, py), edge(c, a, px, py), edge(a, b, px, py)])
    assert (e != 0).all()  # no sample on an edge: coverage needs no fill rule here
    inside = (e > 0).all(axis=0) | (e < 0).all(axis=0)  # either winding
    assert 40 < inside.sum() < size[0] * size[1] - 40
    np.testing.assert_array_equal(image[..., 3] == 255, inside)


@pytest.mark.parametrize("target", ["adreno", "xenos"])
def test_a_shared_diagonal_goes_to_exactly_one_triangle_by_the_top_left_rule(target):
    # Two triangles of their own vertices, red (lower right) and green (upper left),
    # share the diagonal from the bottom-left to the top-right corner of a 4x4 picture.
    # Window corners (0, 4), (4, 4), (4, 0), (0, 0); the red triangle lies right of and
    # below the diagonal, so it is a left edge of red and owns samples on it.  Adreno
    # samples (i + .5, j + .5): on the diagonal when i + j = 3; xenos (i, j): i + j = 4,
    # and its row 0 and column 0 lie on the quad's top and left edges, owned by green.
    position = [[-1, -1, 0], [1, -1, 0], [1, 1, 0], [-1, -1, 0], [1, 1, 0], [-1, 1, 0]]
    red, green = [1, 0, 0, 1], [0, 1, 0, 1]
    mesh = {"position": position, "faces": [[0, 1, 2], [3, 4, 5]],
            "normal": [red[:3]] * 3 + [green[:3]] * 3}
    vs = interleaved_vs([("R1.xyz1", "FMT_32_32_32_FLOAT", 3),
                         ("R2.xyz1", "FMT_32_32_32_FLOAT", 3)], EXPORTS, target)
    image = draw(vs, PARAM_PS, mesh, (4, 4), target)
    i, j = np.meshgrid(np.arange(4), np.arange(4))
    limit = 3 if target == "adreno" else 4
    expected = np.where((i + j >= limit)[..., None], [255, 0, 0, 255], [0, 255, 0, 255])
    np.testing.assert_array_equal(image, expected)


def textured_quad() -> dict[str, object]:
    mesh = quad()
    mesh["texcoord"] = [[0, 1], [1, 1], [1, 0], [0, 0]]  # v = 0 at the top row
    return mesh


TEXTURE_FETCHES = [("R1.xyz1", "FMT_32_32_32_FLOAT", 3), ("R2.xy01", "FMT_32_32_FLOAT", 2)]
TEXTURE_PS = assemble("""
EXEC
  FETCH: SAMPLE R1 = R0.xyx CONST(2) MAG(LINEAR) MIN(LINEAR)
EXEC_END
  ALU: MAXv export0 = R1, R1
""")
TEXELS = (np.arange(4 * 4 * 4).reshape(4, 4, 4) * 4 + 3).astype(np.uint8)  # all distinct


def test_texture_sampled_at_texel_centres():
    # Adreno samples pixel (i, j) at (i + .5, j + .5): texture coordinates
    # ((i + .5) / 4, (j + .5) / 4), the centre of texel (i, j): bilinear gives it exactly.
    vs = interleaved_vs(TEXTURE_FETCHES, EXPORTS, "adreno")
    image = draw(vs, TEXTURE_PS, textured_quad(), (4, 4), "adreno",
                 textures={2: Texture(TEXELS / np.float32(255))},
                 attributes={"R2": "texcoord"})
    np.testing.assert_array_equal(image, TEXELS)


def test_texture_between_texels_with_the_half_pixel_offset():
    # Xenos samples pixel (i, j) at (i, j): texel space (i, j), the corner of four
    # texels: bilinear gives their mean (clamped to the edge texels at i = 0, j = 0).
    vs = interleaved_vs(TEXTURE_FETCHES, EXPORTS, "xenos")
    image = draw(vs, TEXTURE_PS, textured_quad(), (4, 4), "xenos",
                 textures={2: Texture(TEXELS / np.float32(255), address="clamp")},
                 attributes={"R2": "texcoord"})
    texels = TEXELS.astype(np.float64)
    expected = np.empty_like(texels)
    for j in range(4):
        for i in range(4):
            rows, cols = [max(j - 1, 0), j], [max(i - 1, 0), i]
            expected[j, i] = texels[np.ix_(rows, cols)].mean(axis=(0, 1))
    np.testing.assert_allclose(image, np.rint(expected), atol=1)
    assert (image != TEXELS).any()


@pytest.mark.parametrize("face", [[0, 1, 2], [0, 2, 1]])  # either winding
def test_interpolation_is_perspective_correct(face):
    # Clip position = (x w, y w, z w, w), w from the mesh's normal.x: the vertex shader
    # multiplies; the colour (third fetch) is interpolated with weights l_k / w_k.
    vs = assemble("""
EXEC
  FETCH: VERTEX R1.xyz1 = R0.x FMT_32_32_32_FLOAT SIGNED STRIDE(12) CONST(4, 0)
  FETCH: VERTEX R2.xyz1 = R0.x FMT_32_32_32_FLOAT SIGNED STRIDE(12) CONST(4, 1)
  FETCH: VERTEX R4.xyzw = R0.x FMT_32_32_32_32_FLOAT SIGNED STRIDE(16) CONST(5, 0)
  ALU: MULv R3 = R1, R2.xxxx
EXEC_END
  ALU: MAXv export62 = R3, R3
  ALU: MAXv export0 = R4, R4
""")
    ndc = np.array([[-0.9, -0.8], [0.85, -0.6], [-0.2, 0.9]])
    w = np.array([1.0, 4.0, 0.5])
    colours = np.array([[1, 0, 0, 1], [0, 1, 0, 1], [0, 0, 1, 1]], dtype=np.float64)
    mesh = {"position": [[x, y, 0.5] for x, y in ndc], "faces": [face],
            "normal": [[v, 0, 0] for v in w], "color": colours}
    size = (24, 20)
    image = draw(vs, PARAM_PS, mesh, size, "adreno")
    a, b, c = window(ndc, size)
    px, py = np.meshgrid(np.arange(size[0]) + 0.5, np.arange(size[1]) + 0.5)
    lam = np.stack([edge(b, c, px, py), edge(c, a, px, py), edge(a, b, px, py)], axis=-1)
    lam /= edge(a, b, *c)
    inside = (lam > 0).all(axis=-1)
    perspective = lam / w
    perspective /= perspective.sum(axis=-1, keepdims=True)
    expected = np.rint(np.clip(perspective @ colours, 0, 1) * 255)
    covered = image[..., 3] == 255
    np.testing.assert_array_equal(covered, inside)
    np.testing.assert_allclose(image[inside][:, :3], expected[inside][:, :3], atol=1)
    affine = np.rint(np.clip(lam @ colours, 0, 1) * 255)
    assert np.abs(affine[inside] - image[inside]).max() > 20  # the formula matters here


def test_clip_space_z_is_zero_to_w_on_xenos_and_minus_w_to_w_on_adreno():
    # A quad at z = -0.5 (w = 1) lies inside OpenGL's -w..w and in front of Direct3D's
    # near plane z = 0.
    ps = {"pixel_constants": {"float_constants": {0: [1, 1, 1, 1]}}}
    assert (draw(PASS_VS, CONSTANT_PS, quad(-0.5), (3, 2), "adreno", **ps) == 255).all()
    with pytest.warns(EmptyPictureWarning, match=r"xenos clip volume is 0 <= z <= w.*"
                                                 r"z/w of the vertices with w > 0 lies in "
                                                 r"\[-0.5, -0.5\]"):
        image = draw(PASS_VS, CONSTANT_PS, quad(-0.5), (3, 2), "xenos", **ps)
    assert (image == 0).all()
