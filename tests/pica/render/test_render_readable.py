"""pica render pictures that explain themselves (issue 28): flat shading that is flat, a
warning when everything is clipped, a --compare heat map with its scale in the summary,
JPEG output, progress on animations.  Expected pixels worked out by hand."""

import sys

import pytest
from render_kit import PASS

from gpuisa import pica
from gpuisa.pica import cli
from gpuisa.pica.render import render_frame
from gpuisa.pica.render.compare import compare_frames
from gpuisa.pica.render.shade import EmptyPictureWarning

BACKGROUND = (0, 0, 0, 0)
#: One triangle at z = -0.5 covering the middle of the picture.
TRIANGLE_PLY = ("ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\n"
                "property float y\nproperty float z\nelement face 1\n"
                "property list uchar int vertex_indices\nend_header\n"
                "-1 -1 -0.5\n1 -1 -0.5\n0 1 -0.5\n3 0 1 2\n")


@pytest.fixture
def run_pica(capsys):
    """``pica ARGS`` -> (exit status, stdout, stderr)."""
    return lambda *argv: (cli.main([str(a) for a in argv]), *capsys.readouterr())


#: Two triangles, w = 1 everywhere (so depth is z): A in the left half, parallel to the
#: screen, corners red, green and blue; B in the right half, white, its z falling from
#: -0.25 at x = 0 to -0.75 at x = 1.
TWO_FACES = {
    "position": [[-1, -1, -0.5], [0, -1, -0.5], [-1, 1, -0.5],
                 [0, -1, -0.25], [1, -1, -0.75], [0, 1, -0.25]],
    "faces": [[0, 1, 2], [3, 4, 5]],
    "color": [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1], [1, 1, 1], [1, 1, 1]],
}


def test_flat_gives_each_triangle_one_colour():
    image = pica.render(PASS, TWO_FACES, size=(16, 8), mode="flat", background=BACKGROUND)
    drawn = image[..., 3] == 255
    colours = {tuple(c) for c in image[drawn, :3]}
    # A: the mean of its corners (1/3, 1/3, 1/3); its normal is the depth axis, so the
    # facing factor 0.25 + 0.75 * 1 is 1: round(255 / 3) = 85.
    # B: plane z = -0.25 - 0.5 x, normal (0.5, 0, 1): cos = 1 / sqrt(1.25) = 0.894427;
    # 0.25 + 0.75 * 0.894427 = 0.920820, times 255 = 234.81 -> 235.
    assert colours == {(85, 85, 85), (235, 235, 235)}
    assert (image[:, :8][drawn[:, :8]] == [85, 85, 85, 255]).all()
    # Colour mode interpolates A's corners: many colours, not one.
    smooth = pica.render(PASS, TWO_FACES, size=(16, 8), background=BACKGROUND)
    assert len({tuple(c) for c in smooth[:, :8][drawn[:, :8]]}) > 3


def test_all_triangles_clipped_is_a_warning_with_the_depth_found():
    # z = +0.5 with w = 1: beyond the far plane z = 0 of the PICA clip volume.
    mesh = {"position": [[-1, -1, 0.5], [1, -1, 0.5], [0, 1, 0.5]], "faces": [[0, 1, 2]]}
    with pytest.warns(EmptyPictureWarning,
                      match=r"all 1 triangles lie outside the PICA clip volume "
                            r"\(-w <= z <= 0, w > 0\).*z/w of the vertices lies in "
                            r"\[0.5, 0.5\]"):
        image = pica.render(PASS, mesh, size=(4, 4), background=BACKGROUND)
    assert not image.any()


def test_a_visible_triangle_gives_no_warning(recwarn):
    mesh = {"position": [[-1, -1, -0.5], [1, -1, -0.5], [0, 1, -0.5]], "faces": [[0, 1, 2]]}
    pica.render(PASS, mesh, size=(4, 4))
    assert not [w for w in recwarn if issubclass(w.category, EmptyPictureWarning)]


def _halves(left, right):
    """Two squares filling the left and right halves, each of one colour."""
    return {"position": [[-1, -1, -0.5], [0, -1, -0.5], [0, 1, -0.5], [-1, 1, -0.5],
                         [0, -1, -0.5], [1, -1, -0.5], [1, 1, -0.5], [0, 1, -0.5]],
            "faces": [[0, 1, 2], [0, 2, 3], [4, 5, 6], [4, 6, 7]],
            "color": [left] * 4 + [right] * 4}


def test_compare_heat_map_is_scaled_to_the_largest_difference():
    first = render_frame(PASS, _halves((1, 0, 0), (0, 1, 0)), size=(8, 4))
    second = render_frame(PASS, _halves((0.8, 0, 0), (0, 0.6, 0)), size=(8, 4))
    result = compare_frames(first, second)
    # Left: red 255 against round(0.8 * 255) = 204, a difference of 51; right: green
    # 255 against 153, 102, the largest.  Heat = 0.25 + 0.75 * difference / 102: left
    # 0.625, right 1.  The hot map (3t, 3t - 1, 3t - 2 clipped to 0..1): left (1, 0.875,
    # 0) -> (255, 223, 0); right white.
    assert (result.difference[:, :4] == [255, 223, 0, 255]).all()
    assert (result.difference[:, 4:] == [255, 255, 255, 255]).all()
    assert result.pixels_differ == 32 and result.max_pixel_difference == 102
    # Colours differ at all 8 vertices, but none moved: no boxes.
    assert result.vertices_differ == 8 and result.vertices_moved == 0
    assert result.summary().endswith(
        "32 pixels differ (heat map: dark red = 1, white = 102 of 255 in the largest "
        "channel; 0 vertices moved >= 0.5 px, boxed in cyan)")


def test_compare_leaves_identical_pixels_dimmed_and_boxes_only_moved_vertices():
    mesh = _halves((1, 1, 1), (1, 1, 1))
    first = render_frame(PASS, mesh, size=(8, 4))
    tiny = dict(mesh, position=[[x + 1e-4, y, z] for x, y, z in mesh["position"]])
    second = render_frame(PASS, tiny, size=(8, 4))
    result = compare_frames(first, second)
    # 1e-4 in NDC is 4e-4 px: every vertex differs, none moved visibly; the pixels are
    # the same, shown as white dimmed to int(255 * 0.35) = 89.
    assert result.vertices_differ == 8 and result.vertices_moved == 0
    assert result.pixels_differ == 0
    assert (result.difference == [89, 89, 89, 255]).all()
    assert result.summary().endswith("0 pixels differ")


def _files(tmp_path, ply=TRIANGLE_PLY):
    """The pass-through shader and a mesh file: (shader path, mesh path)."""
    pytest.importorskip("PIL")
    pytest.importorskip("trimesh")
    shader = tmp_path / "s.v.pica"
    shader.write_text(PASS)
    mesh = tmp_path / "t.ply"
    mesh.write_text(ply)
    return shader, mesh


def test_jpg_output_is_jpeg(tmp_path, run_pica):
    shader, mesh = _files(tmp_path)
    status, _, err = run_pica("render", shader, "--mesh", mesh, "-o", tmp_path / "x.jpg",
                              "--size", "8x8")
    assert status == 0, err
    assert (tmp_path / "x.jpg").read_bytes()[:3] == b"\xff\xd8\xff"  # JPEG's SOI marker
    status, _, err = run_pica("render", shader, "--mesh", mesh, "-o", tmp_path / "x.bmp",
                              "--size", "8x8")
    assert status == 1 and not (tmp_path / "x.bmp").exists()
    assert err == (f"pica: error: {tmp_path / 'x.bmp'}: pica render writes pictures as "
                   f".png, .jpg/.jpeg or .gif (animations with --frames: .gif, .png, "
                   f".apng), not .bmp\n")
    status, _, err = run_pica("render", shader, "--mesh", mesh, "-o", tmp_path / "x.gif",
                              "--size", "8x8")
    assert status == 0 and (tmp_path / "x.gif").read_bytes()[:4] == b"GIF8"


def test_clipped_scene_warns_on_the_command_line(tmp_path, run_pica):
    shader, mesh = _files(tmp_path, TRIANGLE_PLY.replace("-0.5", "0.5"))  # beyond z = 0
    status, _, err = run_pica("render", shader, "--mesh", mesh, "-o", tmp_path / "x.png",
                              "--size", "4x4")
    assert status == 0
    assert err.startswith("pica: warning: all 1 triangles lie outside the PICA clip volume")


class _Terminal:
    """A standard error that says it is a terminal."""

    def __init__(self):
        self.text = ""

    def isatty(self):
        return True

    def write(self, text):
        self.text += text

    def flush(self):
        pass


def test_animation_progress_on_a_terminal_only(tmp_path, run_pica, monkeypatch):
    pytest.importorskip("PIL")
    pytest.importorskip("trimesh")
    shader = tmp_path / "s.v.pica"
    shader.write_text(".fvec offset\n.in pos\n.out opos position\n.proc main\n"
                      "    add opos, offset, pos\n    end\n.end\n")
    mesh = tmp_path / "t.ply"
    mesh.write_text(TRIANGLE_PLY)
    argv = ("render", shader, "--mesh", mesh, "--size", "4x4", "--frames", "3",
            "--uniform-step", "offset=0.1,0,0,0", "-o")
    status, _, err = run_pica(*argv, tmp_path / "piped.gif")
    assert status == 0 and err == ""  # captured, not a terminal: quiet
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert cli.main([str(a) for a in (*argv, tmp_path / "shown.gif")]) == 0
    assert terminal.text == "\rframe 1/3\rframe 2/3\rframe 3/3\n"


def test_compare_boxes_a_vertex_that_moved_a_pixel():
    mesh = {"position": [[-0.5, -0.5, -0.5], [0.5, -0.5, -0.5], [0.0, 0.5, -0.5]],
            "faces": [[0, 1, 2]]}
    first = render_frame(PASS, mesh, size=(16, 16))
    moved = dict(mesh, position=[[-0.25, -0.5, -0.5], *mesh["position"][1:]])
    result = compare_frames(first, render_frame(PASS, moved, size=(16, 16)))
    # 0.25 NDC is 2 px of a 16-pixel picture: vertex 0 moved, at pixel (6, 12) of the
    # second picture ((x + 1) * 8 = 6, (1 - y) * 8 = 12); its box's corners are 2 px
    # away each way.
    assert result.vertices_moved == 1 and result.max_position_error == pytest.approx(2.0)
    for row, col in ((10, 4), (10, 8), (14, 4), (14, 8)):
        assert tuple(result.difference[row, col, :3]) == (0, 255, 255)
