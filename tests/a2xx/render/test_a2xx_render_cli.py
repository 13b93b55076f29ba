"""``a2xx render`` on the command line: the picture written, ``--compare`` and the errors
(one line naming the file or option, exit status 1, no traceback, no output file)."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from gpuisa.a2xx.cli import main

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
    return tmp_path


def picture(path) -> np.ndarray:
    with Image.open(io.BytesIO(path.read_bytes())) as image:
        return np.asarray(image.convert("RGBA"))


def test_writes_the_colour_export_as_a_png(files):
    code = main(["render", "vs.txt", "ps.txt", "--mesh", "quad.obj", "--ps-constants",
                 "ps.json", "--size", "6x4", "-o", "out.png"])
    assert code == 0
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
