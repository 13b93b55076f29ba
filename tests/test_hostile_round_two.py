"""Regression tests of issue 30 (hostile input, round two): no traceback, no hang,
nothing lost.  The numbered comments are the issue's defect classes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gpuisa.errors import InputError
from gpuisa.pica.cli import main as pica_main

SRC = str(Path(__file__).resolve().parents[1] / "src")
PASSTHROUGH = ".out opos position\n.proc main\n    mov opos, v0\n    end\n.end\n"


def _pica(capsys, *argv: object) -> tuple[int, str, str]:
    """``pica ARGV`` in this process -> (exit status, stdout, stderr)."""
    status = pica_main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def _ply(path: Path, vertices: list[list[float]], faces: list[list[int]],
         normals: list[list[float]] | None = None) -> Path:
    """An ASCII PLY file, written by hand (not by trimesh)."""
    lines = ["ply", "format ascii 1.0", f"element vertex {len(vertices)}",
             "property float x", "property float y", "property float z"]
    if normals is not None:
        lines += ["property float nx", "property float ny", "property float nz"]
    lines += [f"element face {len(faces)}", "property list uchar int vertex_indices",
              "end_header"]
    for k, vertex in enumerate(vertices):
        lines.append(" ".join(map(str, vertex + (normals[k] if normals else []))))
    lines += [f"3 {a} {b} {c}" for a, b, c in faces]
    path.write_text("\n".join(lines) + "\n")
    return path


# -- 1: normals of a mesh without stored normals ----------------------------------------

#: Two right triangles meeting at a right angle along the edge v0-v2: A = (v0, v1, v2)
#: in the plane z = 0, B = (v0, v2, v3) in the plane x = 0, twice A's area.
ROOF = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 2.0]]
ROOF_FACES = [[0, 1, 2], [0, 2, 3]]
# Cross products: A (1,0,0) x (0,1,0) = (0,0,1); B (0,1,0) x (0,0,2) = (2,0,0).  Area
# weighting sums them where the faces meet: (2,0,1)/sqrt(5) at v0 and v2.  (trimesh's
# angle weighting would give (1,0,1)/sqrt(2) there: both angles at v0 are right angles.)
ROOF_NORMALS = [[2 / 5**0.5, 0, 1 / 5**0.5], [0, 0, 1], [2 / 5**0.5, 0, 1 / 5**0.5],
                [1, 0, 0]]


def test_normals_of_a_mesh_without_them_are_area_weighted(tmp_path):
    pytest.importorskip("trimesh")
    from gpuisa.pica.render import load_mesh

    mesh = load_mesh(_ply(tmp_path / "roof.ply", ROOF, ROOF_FACES))
    assert mesh.normals is None  # not stored: computed by gpuisa when asked
    np.testing.assert_allclose(mesh.attribute("normal")[:, :3], ROOF_NORMALS, atol=1e-12)
    assert not mesh.attribute("normal")[:, 3].any()  # w = 0


def test_stored_normals_are_the_files(tmp_path):
    pytest.importorskip("trimesh")
    from gpuisa.pica.render import load_mesh

    stored = [[0.0, 0.0, 2.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]]
    mesh = load_mesh(_ply(tmp_path / "n.ply", ROOF[:3], [[0, 1, 2]], stored))
    np.testing.assert_allclose(mesh.normals, [[0, 0, 1], [0, 0, 1], [0, 1, 0]])


def test_stored_normals_move_with_the_scene_transform(tmp_path):
    trimesh = pytest.importorskip("trimesh")
    from gpuisa.pica.render import load_mesh

    triangle = trimesh.Trimesh(vertices=ROOF[:3], faces=[[0, 1, 2]], process=False,
                               vertex_normals=[[1, 0, 0], [0, 1, 0], [0, 0, 1]])
    scene = trimesh.Scene()
    shear = np.eye(4)
    shear[0, 1] = 1.0  # x' = x + y
    scene.add_geometry(triangle, transform=shear)
    path = tmp_path / "sheared.glb"
    path.write_bytes(scene.export(file_type="glb", include_normals=True))
    mesh = load_mesh(path)
    np.testing.assert_allclose(mesh.positions, [[0, 0, 0], [1, 0, 0], [1, 1, 0]])
    # The plane x = 0 (normal x) becomes x' = y' under the shear: normal (1, -1, 0)/sqrt 2;
    # the planes y = 0 and z = 0 stay where they are.
    h = 0.5**0.5
    np.testing.assert_allclose(mesh.normals, [[h, -h, 0], [0, 1, 0], [0, 0, 1]],
                               atol=1e-7)


def test_render_without_scipy_prints_no_traceback(tmp_path):
    pytest.importorskip("trimesh")
    pytest.importorskip("PIL")
    shader = tmp_path / "n.v.pica"
    # The normal as the colour: v2 (no .in names) is the normal.
    shader.write_text(".out opos position\n.out oclr color\n.proc main\n"
                      "    mov opos, v0\n    mov oclr, v2\n    end\n.end\n")
    mesh = _ply(tmp_path / "roof.ply", ROOF, ROOF_FACES)
    out = tmp_path / "out.png"
    # SciPy made unimportable, as where trimesh cannot import it.
    code = ("import sys; sys.modules['scipy'] = None\n"
            "from gpuisa.pica.cli import main\n"
            f"sys.exit(main(['render', {str(shader)!r}, '--mesh', {str(mesh)!r}, "
            f"'-o', {str(out)!r}, '--size', '8x8']))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=SRC), timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert out.stat().st_size > 0


def test_trimesh_log_records_reach_no_handler(caplog):
    # With no handler of its own, a record of trimesh's that reaches none is printed by
    # Python's last-resort handler on stderr, traceback included.
    import logging

    from gpuisa.pica.render.mesh import _quiet_trimesh

    logger = logging.getLogger("trimesh.exchange.test")
    with caplog.at_level(logging.WARNING), _quiet_trimesh():
        try:
            raise ModuleNotFoundError("No module named 'scipy.sparse'")
        except ImportError:
            logger.warning("unable to use sparse matrix, falling back!", exc_info=True)
    assert caplog.records == []
    with caplog.at_level(logging.WARNING):
        logger.warning("after")  # outside, the record reaches the root's handlers
    assert [r.getMessage() for r in caplog.records] == ["after"]


# -- 3: a typo in --attr ----------------------------------------------------------------


def test_attr_typo_names_the_attribute(tmp_path, capsys):
    pytest.importorskip("trimesh")
    shader = tmp_path / "s.pica"
    shader.write_text(PASSTHROUGH)
    mesh = _ply(tmp_path / "roof.ply", ROOF, ROOF_FACES)
    status, _, err = _pica(capsys, "render", shader, "--mesh", mesh, "-o",
                           tmp_path / "o.png", "--attr", "v0=banana")
    assert status == 1
    assert err == ("pica: error: --attr v0=banana: unknown mesh attribute 'banana'; use one "
                   "of position, color, normal, texcoord\n")
    assert not (tmp_path / "o.png").exists()


def test_attr_naming_a_missing_attribute_is_reported():
    from gpuisa.pica.render.mesh import mesh_from_arrays, shader_inputs

    mesh = mesh_from_arrays({"position": ROOF, "faces": ROOF_FACES})
    with pytest.raises(InputError, match="shader input v3: the mesh has no texture "
                                         "coordinates"):
        shader_inputs(mesh, None, {"v3": "texcoord"})
    # Without --attr, v3 = texcoord is only a default: left out for run() to report.
    assert sorted(shader_inputs(mesh, None)) == ["v0", "v1", "v2"]
