"""``a2xx render`` on the command line: the picture written, ``--compare`` and the errors
(one line naming the file or option, exit status 1, no traceback, no output file)."""

from __future__ import annotations

import io
import struct

import numpy as np
import pytest
from container_helpers import build_container
from PIL import Image

from gpuisa.a2xx import assemble
from gpuisa.a2xx.cli import main
from gpuisa.a2xx.encoding import words_to_bytes

VS = """\
EXEC
  FETCH: VERTEX R1.xyz1 = R0.x FMT_32_32_32_FLOAT SIGNED STRIDE(12) CONST(4, 0)
EXEC_END
  ALU: MAXv export62 = R1, R1
  ALU: MAXv export0 = R1, R1
"""
PS = "EXEC_END\n  ALU: MULADDv export0 = C1, R0, C0\n"
QUAD = "v -1 -1 0.5\nv 1 -1 0.5\nv 1 1 0.5\nv -1 1 0.5\nf 1 2 3\nf 1 3 4\n"


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "vs.txt").write_text(VS)
    (tmp_path / "ps.txt").write_text(PS)
    (tmp_path / "quad.obj").write_text(QUAD)
    # colour = position * C0 + C1: (0, 0, 0, 0) * ... + (0.2, 0.4, 0.6, 1) at C0 = 0.
    (tmp_path / "ps.json").write_text('{"float": {"C0": [0, 0, 0, 0], "C1": [0.2, 0.4, 0.6, 1]}}')
    (tmp_path / "fc.json").write_text('{"fetch": {"12": {"buffer": "12"}}}')
    return tmp_path


def picture(path) -> np.ndarray:
    with Image.open(io.BytesIO(path.read_bytes())) as image:
        return np.asarray(image.convert("RGBA"))


def test_writes_the_colour_export_as_a_png(files, capsys):
    code = main(["render", "vs.txt", "ps.txt", "--mesh", "quad.obj", "--ps-constants",
                 "ps.json", "--size", "6x4", "-o", "out.png"])
    assert code == 0
    assert capsys.readouterr().err == ""  # no progress when stderr is not a terminal
    image = picture(files / "out.png")
    assert image.shape == (4, 6, 4)
    assert (image == [51, 102, 153, 255]).all()


def test_compare_targets_writes_both_pictures_and_a_heat_map(files, capsys):
    # colour = the position exported as export0, interpolated: x, y and z = 0.5; the
    # half-pixel offset moves every sample by half a pixel, so every pixel differs.
    (files / "ps.json").write_text('{"float": {"C0": [1, 1, 1, 1], "C1": [0, 0, 0, 1]}}')
    code = main(["render", "vs.txt", "ps.txt", "--mesh", "quad.obj", "--ps-constants",
                 "ps.json", "--size", "8x8", "-o", "cmp.png", "--compare", "targets"])
    assert code == 0
    adreno, xenos = picture(files / "cmp.adreno.png"), picture(files / "cmp.xenos.png")
    # Red is x = (i + c) / 4 - 1 clamped at 0: pixel 7 is 0.875 (adreno), 0.75 (xenos).
    assert adreno[0, 7, 0] == 223 and xenos[0, 7, 0] == 191
    assert (files / "cmp.diff.png").is_file()
    out = capsys.readouterr().out
    assert "adreno vs xenos" in out and "pixels differ (heat map: dark red = 1, white =" in out


@pytest.mark.parametrize(("argv", "message"), [
    (["--size", "0x4"], "--size: expected an integer from 1 to 8192, got '0'"),
    (["--texture", "32=t.png"], "--texture '32=t.png': texture fetch constants are 0-31"),
    (["--texture", "0=missing.png"], "missing.png"),
    (["--attr", "R9=normal"], "--attr R9: no vertex fetch of the vertex shader writes"),
    (["--attr", "R1=colour"], "unknown mesh attribute 'colour'"),
    (["--max-steps", "0"], "--max-steps"),
    (["-o", "out.jpg"], "--output out.jpg: a2xx render writes PNG pictures"),
    (["--vs-constants", "fc.json"], "--vs-constants fc.json: a2xx render binds the vertex"),
    (["--ps-constants", "none.json"], "none.json"),
])
def test_bad_options_name_the_option(files, capsys, argv, message):
    base = ["render", "vs.txt", "ps.txt", "--mesh", "quad.obj", "-o", "out.png"]
    assert main(base + argv) == 1
    err = capsys.readouterr().err
    assert err.startswith("a2xx: error: ") and message in err and "Traceback" not in err
    assert not (files / "out.png").exists()


@pytest.mark.parametrize(("argv", "message"), [
    (["ps.txt", "ps.txt", "--mesh", "quad.obj"], "ps.txt: the vertex shader writes no position"),
    (["vs.txt", "vs.txt", "--mesh", "quad.obj"], "vs.txt: the pixel shader has vertex fetches"),
    (["vs.txt", "ps.txt", "--mesh", "quad.xyz"], "unknown mesh file type 'xyz'"),
    (["vs.txt", "ps.txt", "--mesh", "nothing.obj"], "nothing.obj"),
    (["vs.txt", "ps.txt", "--mesh", "bad.obj"], "bad.obj"),
])
def test_bad_inputs_are_one_line_errors(files, capsys, argv, message):
    (files / "bad.obj").write_text("f 1 2 3\nthis is not a mesh\n")
    assert main(["render", *argv, "-o", "out.png"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("a2xx: error: ") and message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert not (files / "out.png").exists()


def test_xenia_dumps_say_their_type_and_draw_as_xenos(files, capsys):
    # A Xenia dump's name says its type: given in the wrong place it is refused; in the
    # right one it draws, as xenos (its file implies the target): the quad's colour.
    vertex = files / "shader_00000000000000AA.ucode.bin.vert"
    pixel = files / "shader_00000000000000BB.ucode.bin.frag"
    vertex.write_bytes(words_to_bytes(assemble(VS)))
    pixel.write_bytes(words_to_bytes(assemble(PS)))
    assert main(["render", pixel.name, vertex.name, "--mesh", "quad.obj", "-o", "o.png"]) == 1
    err = capsys.readouterr().err
    assert f"{pixel.name}: the file holds a pixel shader, given as the vertex shader" in err
    code = main(["render", vertex.name, pixel.name, "--mesh", "quad.obj", "--ps-constants",
                 "ps.json", "--size", "3x2", "-o", "o.png"])
    assert code == 0
    assert (picture(files / "o.png") == [51, 102, 153, 255]).all()


def test_a_texture_from_an_image_file(files):
    # A 2x2 picture of a 2x2 texture on the quad, texture coordinates (0, 0) at the top
    # left: adreno samples pixel (i, j) at ((i + .5) / 2, (j + .5) / 2), the centre of
    # texel (i, j), so the picture is the image file's pixels.
    texels = np.array([[[255, 0, 0, 255], [0, 255, 0, 255]],
                       [[0, 0, 255, 255], [255, 255, 0, 255]]], dtype=np.uint8)
    Image.fromarray(texels, "RGBA").save(files / "t.png")
    (files / "tq.obj").write_text(QUAD.replace("f 1 2 3\nf 1 3 4\n", "")
                                  + "vt 0 1\nvt 1 1\nvt 1 0\nvt 0 0\n"
                                  + "f 1/1 2/2 3/3\nf 1/1 3/3 4/4\n")
    (files / "tvs.txt").write_text(VS.replace(
        "EXEC_END", "  FETCH: VERTEX R2.xy01 = R0.x FMT_32_32_FLOAT SIGNED STRIDE(8) "
        "CONST(4, 1)\nEXEC_END").replace("export0 = R1, R1", "export0 = R2, R2"))
    (files / "tps.txt").write_text("EXEC\n  FETCH: SAMPLE R1 = R0.xyx CONST(5)\n"
                                   "EXEC_END\n  ALU: MAXv export0 = R1, R1\n")
    code = main(["render", "tvs.txt", "tps.txt", "--mesh", "tq.obj", "--attr", "R2=texcoord",
                 "--texture", "5=t.png", "--filter", "nearest", "--size", "2x2", "-o", "o.png"])
    assert code == 0
    np.testing.assert_array_equal(picture(files / "o.png"), texels)


def test_an_xdk_containers_vertex_elements_say_what_each_fetch_reads(files):
    # Texture coordinates are fetched first (slot 1, after the slot of the two CF
    # clauses; 2 dwords at offset 0) and the position second (slot 2, a xenos mini fetch
    # at offset 2 dwords): in program order
    # the first would get the position; the container's elements say TEXCOORD0 and
    # POSITION0.  The pixel shader paints the texture coordinates: red = u, green = v.
    words = assemble(
        "EXEC\n"
        "  FETCH: VERTEX R2.xy01 = R0.x FMT_32_32_FLOAT SIGNED STRIDE(5) CONST(4, 0)\n"
        "  FETCH: VERTEX R1.xyz1 = R0.x FMT_32_32_32_FLOAT SIGNED STRIDE(5) OFFSET(2) "
        "CONST(4, 0)\n"
        "EXEC_END\n  ALU: MAXv export62 = R1, R1\n  ALU: MAXv export0 = R2, R2\n")
    elements = (1 | 5 << 12, 2 | 0 << 12)  # slot 1: TEXCOORD0; slot 2: POSITION0
    container = build_container(microcode=struct.pack(f">{len(words)}I", *words),
                                elements=elements)
    (files / "vs.xvu").write_bytes(container)
    (files / "uv.txt").write_text("EXEC_END\n  ALU: MAXv export0 = R0, R0\n")
    (files / "tq.obj").write_text(QUAD.replace("f 1 2 3\nf 1 3 4\n", "")
                                  + "vt 0 1\nvt 1 1\nvt 1 0\nvt 0 0\n"
                                  + "f 1/1 2/2 3/3\nf 1/1 3/3 4/4\n")
    assert main(["render", "vs.xvu", "uv.txt", "--mesh", "tq.obj", "--size", "2x2",
                 "-o", "o.png"]) == 0
    # xenos samples pixel (i, j) at (i, j): u = i / 2, v = j / 2 (v = 0 at the top).
    expected = [[[0, 0, 0, 255], [128, 0, 0, 255]], [[0, 128, 0, 255], [128, 128, 0, 255]]]
    np.testing.assert_array_equal(picture(files / "o.png"), expected)


def test_progress_on_a_terminal_only(files, monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    argv = ["render", "vs.txt", "ps.txt", "--mesh", "quad.obj", "--size", "4x4", "-o", "o.png"]
    assert main(argv) == 0
    shown = terminal.getvalue()
    for stage in ("vertex shader", "rasterizing", "pixel shader"):
        assert f"\ra2xx render: {stage} 100%" in shown
    assert shown.endswith("\n")
