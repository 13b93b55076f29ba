"""pica render with mesh files (every supported format, written with trimesh), the
command line, bad input and animations."""

import numpy as np
import pytest

from gpuisa.pica import cli
from gpuisa.pica.render import load_mesh

trimesh = pytest.importorskip("trimesh")
Image = pytest.importorskip("PIL.Image")

SHADER = """
.in pos
.out opos position
.proc main
    mov opos, pos
    end
.end
"""

STEP_SHADER = """
.fvec offset
.in pos
.out opos position
.proc main
    add opos, offset, pos
    end
.end
"""


@pytest.fixture
def pica(capsys):
    """``pica ARGS`` -> (exit status, stdout, stderr)."""
    return lambda *argv: (cli.main([str(a) for a in argv]), *capsys.readouterr())


@pytest.fixture
def square(tmp_path):
    """A square of half-side 0.5 at z = -0.5 (a triangle pair), as a trimesh."""
    (tmp_path / "s.v.pica").write_text(SHADER)
    return trimesh.Trimesh(vertices=[[-0.5, -0.5, -0.5], [0.5, -0.5, -0.5],
                                     [0.5, 0.5, -0.5], [-0.5, 0.5, -0.5]],
                           faces=[[0, 1, 2], [0, 2, 3]], process=False)


@pytest.mark.parametrize("kind", ["obj", "ply", "stl", "glb", "gltf"])
def test_each_mesh_format_renders_the_square(tmp_path, square, pica, kind):
    mesh_path = tmp_path / f"square.{kind}"
    if kind == "gltf":
        for name, data in square.export(file_type="gltf").items():
            (tmp_path / name).write_bytes(data)
        mesh_path = tmp_path / "model.gltf"
    else:
        square.export(str(mesh_path))
    assert len(load_mesh(str(mesh_path)).faces) == 2
    out = tmp_path / "out.png"
    status, _, err = pica("render", tmp_path / "s.v.pica", "--mesh", mesh_path, "-o", out,
                          "--size", "8x8", "--background", "00000000")
    assert status == 0, err
    image = np.asarray(Image.open(out))
    # NDC [-0.5, 0.5] is pixels 2..5 of 8 (centres 2.5..5.5); the mesh has no colours:
    # white.
    expected = np.zeros((8, 8, 4), dtype=np.uint8)
    expected[2:6, 2:6] = 255
    np.testing.assert_array_equal(image, expected)


def test_unreadable_mesh_writes_nothing(tmp_path, pica):
    (tmp_path / "s.v.pica").write_text(SHADER)
    bad = tmp_path / "bad.ply"
    bad.write_bytes(b"ply\nformat nonsense\n\x00\x01")
    out = tmp_path / "out.png"
    status, _, err = pica("render", tmp_path / "s.v.pica", "--mesh", bad, "-o", out)
    assert status == 1
    assert err.startswith("pica: error:") and "bad.ply" in err
    assert "Traceback" not in err
    assert not out.exists()
    status, _, err = pica("render", tmp_path / "s.v.pica", "--mesh", tmp_path / "none.obj",
                          "-o", out)
    assert status == 1 and "cannot read" in err and not out.exists()


def test_nan_position_keeps_the_old_picture(tmp_path, square, pica):
    (tmp_path / "s.v.pica").write_text(STEP_SHADER)
    square.export(str(tmp_path / "sq.ply"))
    (tmp_path / "u.json").write_text('{"offset": ["nan", 0, 0, 0]}')
    out = tmp_path / "out.png"
    out.write_bytes(b"old")
    status, _, err = pica("render", tmp_path / "s.v.pica", "--mesh", tmp_path / "sq.ply",
                          "-o", out, "--uniforms", tmp_path / "u.json")
    assert status == 1 and "position is NaN" in err
    assert out.read_bytes() == b"old"


def test_animation_moves_by_the_step(tmp_path, square, pica):
    (tmp_path / "s.v.pica").write_text(STEP_SHADER)
    square.export(str(tmp_path / "sq.ply"))
    pattern = str(tmp_path / "frame_%02d.png")
    status, _, err = pica("render", tmp_path / "s.v.pica", "--mesh", tmp_path / "sq.ply",
                          "-o", pattern, "--size", "8x8", "--frames", "3",
                          "--uniform-step", "offset=0.25,0,0,0", "--background", "00000000")
    assert status == 0, err
    # Frame k: the square moved right by 0.25 k NDC units = k pixels.
    for k in range(3):
        alpha = np.asarray(Image.open(pattern % k))[..., 3]
        columns = np.flatnonzero(alpha.any(axis=0))
        assert list(columns) == list(range(2 + k, 6 + k))
    gif = tmp_path / "anim.gif"
    status, _, err = pica("render", tmp_path / "s.v.pica", "--mesh", tmp_path / "sq.ply",
                          "-o", gif, "--size", "8x8", "--frames", "3",
                          "--uniform-step", "offset=0.25,0,0,0")
    assert status == 0, err
    with Image.open(gif) as picture:
        assert picture.n_frames == 3


def test_compare_writes_three_pictures(tmp_path, square, pica):
    (tmp_path / "s.v.pica").write_text(SHADER)
    square.export(str(tmp_path / "sq.ply"))
    status, out, err = pica("render", tmp_path / "s.v.pica", "--mesh", tmp_path / "sq.ply",
                            "-o", tmp_path / "c.png", "--compare", "--size", "8x8")
    assert status == 0, err
    for name in ("c.f24.png", "c.f32.png", "c.diff.png"):
        assert (tmp_path / name).exists()
    # mov of values exact in float24: nothing differs.
    assert "4 vertices: 0 differ" in out and "0 pixels differ" in out


#: An offset float24 rounds to 0.25 to nearest and to 0.25 - 2^-19 truncating.
OFFSET = 0.25 - 2.0**-20 - 2.0**-40


@pytest.mark.parametrize(("rounding", "xs"), [
    ("nearest-even", [-0.25, 0.75]),
    # -0.5 + (0.25 - 2^-19) = -(0.25 + 2^-19), between float24's -0.25 and -(0.25 + 2^-18):
    # toward zero -0.25; 0.5 + (0.25 - 2^-19): between 0.75 - 2^-17 and 0.75, down.
    ("truncate", [-0.25, 0.75 - 2.0**-17])])
def test_render_rounding(tmp_path, square, pica, rounding, xs):
    """--rounding reaches the shader's run: the corners' x plus the uniform, as the mode
    loads the uniform and rounds the sum."""
    from gpuisa.pica.render import render_frame

    (tmp_path / "s.v.pica").write_text(STEP_SHADER)
    square.export(str(tmp_path / "sq.ply"))
    (tmp_path / "u.json").write_text(f'{{"offset": [{OFFSET!r}, 0, 0, 0]}}')
    out = tmp_path / "out.png"
    status, _, err = pica("render", tmp_path / "s.v.pica", "--mesh", tmp_path / "sq.ply",
                          "-o", out, "--size", "8x8", "--uniforms", tmp_path / "u.json",
                          "--rounding", rounding)
    assert status == 0, err
    frame = render_frame((tmp_path / "s.v.pica").read_text(), str(tmp_path / "sq.ply"),
                         size=(8, 8), uniforms={"offset": [OFFSET, 0, 0, 0]},
                         rounding=rounding)
    assert sorted(set(frame.scene.positions[:, 0].tolist())) == xs


def test_render_rounding_needs_f24(tmp_path, square, pica):
    square.export(str(tmp_path / "sq.ply"))
    (tmp_path / "s.v.pica").write_text(SHADER)
    out = tmp_path / "out.png"
    status, _, err = pica("render", tmp_path / "s.v.pica", "--mesh", tmp_path / "sq.ply",
                          "-o", out, "--precision", "f32", "--rounding", "truncate")
    assert status == 1 and "--rounding truncate needs --precision f24" in err
    assert not out.exists()
