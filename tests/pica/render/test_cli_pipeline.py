"""``pica run --gsh N`` and ``pica trace --gsh N --primitive K``: a vertex + geometry
shader pair from the command line (issue 17, deliverable 4).

The pair: the vertex shader passes position and colour through; the geometry shader
(point mode) turns each point into a quad of side 2*size centred on it.  Expected corners
are worked out by hand with values exact in float24 (multiples of 1/8).
"""

import json

import numpy as np
import pytest
from render_kit import PASS as VERTEX
from render_kit import POINT_TO_QUAD as GEOMETRY

from gpuisa.pica import assemble, cli

POINTS = [[0.0, 0.0, 0.0, 1.0], [0.5, -0.5, 0.0, 1.0]]
COLOURS = [[1.0, 0.0, 0.0, 1.0], [0.0, 1.0, 0.0, 1.0]]


@pytest.fixture
def pica(capsys):
    """``pica ARGS`` -> (exit status, stdout, stderr)."""
    return lambda *argv: (cli.main([str(a) for a in argv]), *capsys.readouterr())


@pytest.fixture
def files(tmp_path):
    shbin = assemble([("quad.v.pica", VERTEX), ("quad.g.pica", GEOMETRY)])
    shbin_path = tmp_path / "quad.shbin"
    shbin.to_file(str(shbin_path))
    inputs = tmp_path / "in.json"
    inputs.write_text(json.dumps({"pos": POINTS, "col": COLOURS}))
    gs_uniforms = tmp_path / "gs.json"
    gs_uniforms.write_text(json.dumps({"size": [0.125, 0.125, 0.125, 0.125]}))
    return shbin_path, inputs, gs_uniforms


def test_run_without_gsh_runs_the_vertex_dvle_only(pica, files):
    shbin, inputs, _ = files
    status, out, _ = pica("run", shbin, "--inputs", inputs, "--format", "json")
    assert status == 0
    data = json.loads(out)
    assert data["outputs"]["o0"] == POINTS
    assert "vertices" not in data


def test_run_gsh_emits_a_quad_per_point(pica, files):
    shbin, inputs, gs_uniforms = files
    status, out, err = pica("run", shbin, "--inputs", inputs, "--gsh", 1,
                            "--gs-uniforms", gs_uniforms, "--format", "json")
    assert status == 0, err
    data = json.loads(out)
    positions = np.array(data["vertices"]["o0"])
    colours = np.array(data["vertices"]["o1"])
    s = 0.125
    expected = []
    for x, y, _, _ in POINTS:
        expected += [[x - s, y - s, 0, 1], [x + s, y - s, 0, 1], [x - s, y + s, 0, 1],
                     [x + s, y + s, 0, 1]]
    np.testing.assert_array_equal(positions, expected)
    np.testing.assert_array_equal(colours, [COLOURS[0]] * 4 + [COLOURS[1]] * 4)
    # setemit 2, prim closes (0, 1, 2); setemit 0, prim inv closes (1, 2, 3) with the
    # winding flag, which reverses the triangle by swapping its first two: (2, 1, 3).
    assert data["primitives"] == [[0, 1, 2], [2, 1, 3], [4, 5, 6], [6, 5, 7]]
    assert data["windings"] == [False, True, False, True]


def test_run_gsh_table_lists_emitted_vertices(pica, files):
    shbin, inputs, gs_uniforms = files
    status, out, _ = pica("run", shbin, "--inputs", inputs, "--gsh", 1,
                          "--gs-uniforms", gs_uniforms)
    assert status == 0
    assert "emitted vertices: 8" in out
    assert "primitives: 4" in out


def test_trace_primitive_follows_one_invocation(pica, files):
    shbin, inputs, gs_uniforms = files
    status, out, err = pica("trace", shbin, "--inputs", inputs, "--gsh", 1,
                            "--gs-uniforms", gs_uniforms, "--primitive", 1)
    assert status == 0, err
    # The first EMIT of invocation 1 is the fifth vertex emitted (four came before).
    assert "emitted=5" in out
    # Its first corner: (0.5 - 0.125, -0.5 - 0.125).
    assert "o0.xy=(0.375, -0.625)" in out
    assert out.count("emit ") + out.count("emit\n") >= 4


def test_trace_primitive_out_of_range(pica, files):
    shbin, inputs, gs_uniforms = files
    status, _, err = pica("trace", shbin, "--inputs", inputs, "--gsh", 1,
                          "--gs-uniforms", gs_uniforms, "--primitive", 2)
    assert status == 1
    assert "primitive must be 0..1" in err


@pytest.mark.parametrize("flag", [("--stride", "2"), ("--primitive-sizes", "1,1")])
def test_geometry_options_need_gsh(pica, files, flag):
    shbin, inputs, _ = files
    status, _, err = pica("run", shbin, "--inputs", inputs, *flag)
    assert status == 1
    assert f"{flag[0]} needs --gsh N" in err


def test_gsh_that_is_not_a_geometry_dvle(pica, files):
    shbin, inputs, _ = files
    status, _, err = pica("run", shbin, "--inputs", inputs, "--gsh", 0)
    assert status == 1
    # In the command line's words (it was the API's "gs_dvle=0 is not a geometry ...").
    assert err == ("pica: error: --gsh 0: DVLE 0 is a vertex shader; the geometry shader "
                   "DVLEs are: 1\n")


# -- errors in the command line's words (issue 28) ------------------------------------------

@pytest.mark.parametrize("command", ["run", "trace"])
def test_a_geometry_uniform_not_given_is_named_with_its_option(pica, files, command):
    shbin, inputs, _ = files
    status, _, err = pica(command, shbin, "--inputs", inputs, "--gsh", 1)
    assert status == 1
    # POINT_TO_QUAD reads its .fvec size (c0) first thing: "mov r0, size" at pc 0 of the
    # geometry DVLE, whose code follows the vertex shader's three words.
    assert err == ("pica: error: float uniform 'size' (c0) is read at pc 0x003 but was not "
                   "given: give it with --gs-uniforms FILE\n")


def test_a_stride_the_vertex_outputs_do_not_divide_names_the_option(pica, files):
    shbin, inputs, gs_uniforms = files
    status, _, err = pica("run", shbin, "--inputs", inputs, "--gsh", 1, "--gs-uniforms",
                          gs_uniforms, "--stride", 3)
    assert status == 1
    # PASS has two output registers (o0 position, o1 colour) per vertex.
    assert err == ("pica: error: --stride 3: give a multiple of the vertex shader's 2 output "
                   "registers per vertex, at most 16 (one vertex per invocation: 2; three: "
                   "6)\n")


def test_a_vertex_uniform_not_given_is_named(pica, tmp_path):
    shader = tmp_path / "t.v.pica"
    shader.write_text(".fvec projection[4], modelview[4]\n.out o position\n.proc main\n"
                      "    dp4 o.x, modelview[1], v0\n    mov o.yzw, v0\n    end\n.end\n")
    inputs = tmp_path / "in.json"
    inputs.write_text(json.dumps({"v0": POINTS}))
    status, _, err = pica("run", shader, "--inputs", inputs)
    assert status == 1
    # modelview follows projection's four registers: modelview[1] is c5.
    assert err == ("pica: error: float uniform 'modelview[1]' (c5) is read at pc 0x000 but "
                   "was not given: give it with --uniforms FILE\n")


@pytest.mark.parametrize(("rounding", "size"), [("nearest-even", 1.0 + 2.0**-16),
                                                ("truncate", 1.0)])
def test_run_gsh_rounding(pica, files, tmp_path, rounding, size):
    """The geometry shader's uniform is loaded by the mode (1 + 2^-17 + 2^-20: 1 + 2^-16
    to nearest, 1.0 truncated); each corner x +- size is exact in float24."""
    shbin, inputs, _ = files
    gs_uniforms = tmp_path / "gs-between.json"
    between = 1.0 + 2.0**-17 + 2.0**-20
    gs_uniforms.write_text(json.dumps({"size": [between] * 4}))
    status, out, err = pica("run", shbin, "--inputs", inputs, "--gsh", 1, "--gs-uniforms",
                            gs_uniforms, "--format", "json", "--rounding", rounding)
    assert status == 0, err
    positions = np.array(json.loads(out)["vertices"]["o0"])
    expected = []
    for x, y, _, _ in POINTS:
        expected += [[x - size, y - size, 0, 1], [x + size, y - size, 0, 1],
                     [x - size, y + size, 0, 1], [x + size, y + size, 0, 1]]
    np.testing.assert_array_equal(positions, expected)
