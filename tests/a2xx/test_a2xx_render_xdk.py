"""``a2xx render`` of XDK container pairs (a2xx-render.md#xdk-semantics,
a2xx-formats.md#xdk-linkage): the published Scaleform containers of
data/xdk-listings.txt, their vertex fetch templates completed with the mesh's attributes
by semantic and their interpolators linked by semantic.  Every expected picture is
worked out here from the listings, the xenos conventions (pixel (i, j) sampled at window
(i, j)) and the edge equations, with plain NumPy."""

from __future__ import annotations

import struct

import numpy as np
import pytest
from container_helpers import build_container
from PIL import Image
from test_a2xx_render_pixels import edge, window
from xdk_listing_helpers import shaders

from gpuisa.a2xx import Texture, assemble
from gpuisa.a2xx.cli import main
from gpuisa.a2xx.containers import read_shader_file
from gpuisa.a2xx.render import render
from gpuisa.a2xx.render.bind import semantic_inputs
from gpuisa.errors import InputError
from gpuisa.render.mesh import as_mesh

CONTAINERS = {ident.split("-", 1)[-1]: data for ident, _, data in shaders()}
SHADERS = {name: read_shader_file(CONTAINERS[name]) for name in
           ("VTexTG", "FTexTG", "VTexTGEAlpha", "FTexTGEAlpha")}
BACKGROUND = (0, 0, 0, 0)
SIZE = (15, 11)  # odd: no sample of the 2 x 2 texture below falls on a texel edge
CORNERS = np.array([(-0.83, -0.71), (0.77, -0.29), (-0.11, 0.93)])
# The listings' oPos = (dp4(pos, mvp[0]), dp4(pos, mvp[1]), 0, 1) and o0.xy =
# (dp4(pos, texgen[0]), dp4(pos, texgen[1])), pos = (x, y, z, 1): c0, c1 pass x and y
# through; c2, c3 make u = (x + 1) / 2 and v = (1 - y) / 2, which at the sample of pixel
# (i, j) (window (i, j), xenos) are i / W and j / H.
VS_CONSTANTS = {"float_constants": {0: [1, 0, 0, 0], 1: [0, 1, 0, 0],
                                    2: [0.5, 0, 0, 0.5], 3: [0, -0.5, 0, 0.5]}}


def draw(vs: str, ps: str, mesh, **options) -> np.ndarray:
    vertex, pixel = SHADERS[vs], SHADERS[ps]
    settings = {"elements": vertex.vertex_elements, "vs_interpolators": vertex.interpolators,
                "ps_interpolators": pixel.interpolators, **options}
    return render(vertex.words, pixel.words, mesh, size=SIZE, target="xenos",
                  background=BACKGROUND, vertex_constants=VS_CONSTANTS, **settings).image


def triangle(**arrays) -> dict[str, object]:
    return {"position": [[x, y, 0.5] for x, y in CORNERS], "faces": [[0, 1, 2]], **arrays}


def barycentrics() -> tuple[np.ndarray, np.ndarray]:
    """Whether each xenos sample point (i, j) is inside the triangle, and its
    barycentric coordinates (w = 1 everywhere: screen space is the interpolation)."""
    a, b, c = window(CORNERS, SIZE)
    px, py = np.meshgrid(np.arange(SIZE[0]), np.arange(SIZE[1]))
    lam = np.stack([edge(b, c, px, py), edge(c, a, px, py), edge(a, b, px, py)], axis=-1)
    assert (lam != 0).all()  # no sample on an edge: coverage needs no fill rule here
    lam /= edge(a, b, *c)
    return (lam > 0).all(axis=-1), lam


def test_vtextg_and_ftextg_sample_the_texture_at_the_texgen_coordinates():
    # FTexTG: tfetch2D r0, r0.xy, tf0; mov oC0, r0.  Nearest filtering of a 2 x 2
    # texture: pixel (i, j) reads texel (row floor(2 j / H), column floor(2 i / W)).
    texels = np.array([[[1, 0, 0, 1], [0, 1, 0, 1]], [[0, 0, 1, 1], [1, 1, 1, 0.6]]],
                      np.float32)
    image = draw("VTexTG", "FTexTG", triangle(),
                 textures={0: Texture(texels, filter="nearest")})
    inside, _ = barycentrics()
    assert 40 < inside.sum() < SIZE[0] * SIZE[1] - 40
    j, i = np.mgrid[:SIZE[1], :SIZE[0]]
    expected = np.rint(texels[2 * j // SIZE[1], 2 * i // SIZE[0]] * 255)
    np.testing.assert_array_equal(image[inside], expected[inside])
    assert (image[~inside] == BACKGROUND).all()
    assert len({tuple(p) for p in image[inside]}) == 4  # all four texels are seen


def test_vtextgealpha_passes_the_vertex_colour_alpha_on():
    # VTexTGEAlpha: mov o1, r1 (COLOR0); FTexTGEAlpha: oC0.xyz = tex.xyz, oC0.w = tex.w *
    # r1.w.  A flat texture and per-vertex alphas: alpha = 255 * (lam . alphas).
    alphas = np.array([0.2, 1.0, 0.5])
    colours = np.column_stack([np.full((3, 3), 0.25), alphas])
    texel = np.array([[[0.2, 0.4, 0.6, 0.8]]], np.float32)
    image = draw("VTexTGEAlpha", "FTexTGEAlpha", triangle(color=colours),
                 textures={0: Texture(texel)})
    inside, lam = barycentrics()
    assert (image[inside][:, :3] == [51, 102, 153]).all()
    np.testing.assert_allclose(image[inside][:, 3], np.rint(204 * (lam @ alphas))[inside],
                               atol=1)
    assert (image[~inside] == BACKGROUND).all()


def colour_ps(interpolators: tuple[int, ...]) -> bytes:
    """A pixel shader container (layout of a2xx-formats.md#xdk-shader-header) whose
    microcode writes r0 to oC0 and whose interpolator words are ``interpolators``."""
    words = assemble("EXEC_END\n  ALU: MAXv export0 = R0, R0\n")
    return build_container(magic=0x102A1100, interpolators=interpolators,
                           microcode=struct.pack(f">{len(words)}I", *words))


# bits 0-3 usage index, 4-7 usage (10: COLOR), 8-11 register, 12-15 components.
COLOR0_IN_R0 = 0x0 | 10 << 4 | 0 << 8 | 0xF << 12


def test_the_pair_is_linked_by_semantic_not_by_register_number():
    # VTexTGEAlpha writes TEXCOORD0 to o0 and COLOR0 to o1; this pixel shader receives
    # COLOR0 in r0.  By semantic, r0 holds the vertex colour; by number it would hold
    # the texture coordinates (u, v, 0, 0): alpha 0.
    pixel = read_shader_file(colour_ps((COLOR0_IN_R0,)))
    vertex = SHADERS["VTexTGEAlpha"]
    colour = [0.2, 0.4, 0.6, 1.0]
    args = (vertex.words, pixel.words, triangle(color=[colour] * 3))
    kwargs = {"size": SIZE, "target": "xenos", "background": BACKGROUND,
              "vertex_constants": VS_CONSTANTS, "elements": vertex.vertex_elements}
    image = render(*args, vs_interpolators=vertex.interpolators,
                   ps_interpolators=pixel.interpolators, **kwargs).image
    inside, _ = barycentrics()
    assert (image[inside] == [51, 102, 153, 255]).all()
    assert (image[~inside] == BACKGROUND).all()
    by_number = render(*args, **kwargs).image  # no declarations: export n reaches Rn
    assert (by_number[inside][:, 3] == 0).all()


def test_a_semantic_the_vertex_shader_does_not_write_names_both_shaders():
    vertex, pixel = SHADERS["VTexTG"], SHADERS["FTexTGEAlpha"]
    with pytest.raises(InputError, match=r"^PS reads COLOR0 \(in r1\), which VS does not "
                       r"write \(it writes TEXCOORD0 in o0\)"):
        render(vertex.words, pixel.words, triangle(), target="xenos",
               elements=vertex.vertex_elements, vs_interpolators=vertex.interpolators,
               ps_interpolators=pixel.interpolators, names=("VS", "PS"))


def test_semantics_take_the_mesh_attribute_of_their_usage_every_index_alike():
    mesh = as_mesh(triangle(texcoord=[[0, 1], [1, 0.5], [0.25, 0]],
                            color=[[0.5, 0, 1, 1]] * 3))
    inputs = semantic_inputs(mesh, ["POSITION0", "TEXCOORD0", "TEXCOORD1", "COLOR1",
                                    "NORMAL0"])
    f32 = np.float32
    np.testing.assert_array_equal(inputs["POSITION0"], mesh.positions.astype(f32))
    np.testing.assert_array_equal(inputs["TEXCOORD0"], mesh.texcoords.astype(f32))
    np.testing.assert_array_equal(inputs["TEXCOORD1"], mesh.texcoords.astype(f32))  # one set
    np.testing.assert_array_equal(inputs["COLOR1"], mesh.colors.astype(f32))
    # The triangle lies in z = 0.5: its normal is +-z.
    np.testing.assert_allclose(np.abs(inputs["NORMAL0"]), [[0, 0, 1]] * 3)
    inputs = semantic_inputs(mesh, ["POSITION0", "TEXCOORD1"], {"texcoord1": "position"})
    np.testing.assert_array_equal(inputs["TEXCOORD1"], mesh.positions.astype(f32))


@pytest.mark.parametrize(("semantics", "overrides", "message"), [
    (["POSITION0", "COLOR0"], {}, "the vertex shader reads POSITION0, COLOR0; the mesh has "
     "no vertex colours for COLOR0: feed it one the mesh has \\(position, normal\\) with "
     "--attr COLOR0=ATTRIBUTE, or give a --mesh with vertex colours"),
    (["BLENDWEIGHT0"], {}, "no mesh attribute stands for BLENDWEIGHT0: .* --attr "
     "BLENDWEIGHT0=ATTRIBUTE$"),
    (["POSITION0"], {"R0": "position"}, "--attr R0: the vertex shader is an XDK container, "
     "whose vertex fetches read semantics \\(POSITION0\\)"),
    (["POSITION0"], {"TEXCOORD1": "texcoord"}, "--attr TEXCOORD1: the vertex shader reads "
     "POSITION0, not TEXCOORD1"),
    (["POSITION0"], {"POSITION": "uv"}, "unknown mesh attribute 'uv'"),
])
def test_errors_name_the_semantics_and_the_mesh_attributes(semantics, overrides, message):
    with pytest.raises(InputError, match=message):
        semantic_inputs(as_mesh(triangle()), semantics, overrides)


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("VTexTGEAlpha", "FTexTGEAlpha"):
        (tmp_path / f"{name}.bin").write_bytes(CONTAINERS[name])
    (tmp_path / "r0.bin").write_bytes(colour_ps((COLOR0_IN_R0,)))
    (tmp_path / "tri.obj").write_text("".join(f"v {x} {y} 0.5\n" for x, y in CORNERS)
                                      + "f 1 2 3\n")
    (tmp_path / "vs.json").write_text('{"float": {"C0": [1, 0, 0, 0], "C1": [0, 1, 0, 0]}}')
    return tmp_path


def test_the_command_line_feeds_a_semantic_the_attribute_attr_names(files, capsys):
    # tri.obj has no colours: COLOR0 needs --attr.  Fed the normal, (b - a) x (c - a) of
    # the counter-clockwise triangle: (0, 0, 1), the pixel shader reading COLOR0 in r0
    # paints (0, 0, 1) with alpha 1 (the runtime's w of a three-component element).
    argv = ["render", "VTexTGEAlpha.bin", "r0.bin", "--mesh", "tri.obj", "--size", "15x11",
            "--vs-constants", "vs.json", "--background", "00000000", "-o", "o.png"]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith("a2xx: error: VTexTGEAlpha.bin: the vertex shader reads COLOR0, "
                          "POSITION0; the mesh has no vertex colours for COLOR0")
    assert err.count("\n") == 1 and not (files / "o.png").exists()
    assert main([*argv, "--attr", "COLOR0=normal"]) == 0
    with Image.open(files / "o.png") as picture:
        image = np.asarray(picture.convert("RGBA"))
    inside, _ = barycentrics()
    assert (image[inside] == [0, 0, 255, 255]).all()
    assert (image[~inside] == 0).all()


def test_the_command_line_names_both_shaders_when_a_semantic_is_missing(files, capsys):
    (files / "ps.bin").write_bytes(colour_ps((0x0 | 5 << 4 | 0 << 8 | 0xF << 12,
                                              1 | 5 << 4 | 1 << 8 | 0xF << 12)))
    assert main(["render", "VTexTGEAlpha.bin", "ps.bin", "--mesh", "tri.obj",
                 "--attr", "COLOR0=normal", "-o", "o.png"]) == 1
    assert capsys.readouterr().err == (
        "a2xx: error: ps.bin reads TEXCOORD1 (in r1), which VTexTGEAlpha.bin does not "
        "write (it writes TEXCOORD0 in o0, COLOR0 in o1): the console's runtime links the "
        "two by semantic; give a vertex shader that writes TEXCOORD1\n")


def test_a_container_whose_declarations_cannot_be_read_keeps_the_register_rule(files):
    # Usage 15 is no D3DDECLUSAGE, so the reader drops this pixel shader's declarations.
    # It reads r1, which by number is export 1: VTexTGEAlpha's COLOR0, fed the normal
    # (0, 0, 1) of the counter-clockwise triangle, with w 1.  Linked as if it declared
    # nothing, r1 would read zeros.
    words = assemble("EXEC_END\n  ALU: MAXv export0 = R1, R1\n")
    (files / "ps.bin").write_bytes(build_container(
        magic=0x102A1100, interpolators=(15 << 4 | 1 << 8 | 0xF << 12,),
        microcode=struct.pack(f">{len(words)}I", *words)))
    assert read_shader_file((files / "ps.bin").read_bytes()).config is None
    assert main(["render", "VTexTGEAlpha.bin", "ps.bin", "--mesh", "tri.obj", "--size",
                 "15x11", "--vs-constants", "vs.json", "--background", "00000000",
                 "--attr", "COLOR0=normal", "-o", "o.png"]) == 0
    with Image.open(files / "o.png") as picture:
        image = np.asarray(picture.convert("RGBA"))
    inside, _ = barycentrics()
    assert (image[inside] == [0, 0, 255, 255]).all()
