"""Make the binary inputs the README's commands use, in examples/ (the text ones,
shaders, verts.json, verts.csv, unif.json, time.json, consts.json and the A2XX sources,
are written by hand beside them).

Run from the repository root: ``python examples/make_examples.py`` (needs
``pip install -e ".[render]"``).  Every file is a pure function of this script and the
gpuisa version (results*.jsonl hold gpuisa's own expected values for a few cases of
``pica vectors``, standing in for an emulator's results).
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import trimesh

from gpuisa.fileio import write_output
from gpuisa.pica import vectors
from gpuisa.pica.vectors.suite_io import hex_pattern

HERE = Path(__file__).parent
#: Particles of the particles example: seeds spread along x (the shader hashes them).
PARTICLES = 400
#: Cases of the conformance suite written to results*.jsonl.
RESULT_CASES = 5


def npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


def npz(**arrays: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def meshes() -> dict[str, bytes]:
    """model.ply / model.glb (a torus with normals), m.obj (an icosphere) and
    points.ply (the particles' seeds, a point cloud)."""
    torus = trimesh.creation.torus(major_radius=1.0, minor_radius=0.4, major_sections=32,
                                   minor_sections=16)
    # The torus's own normals (away from the nearest point of its major circle, about
    # z), not trimesh's average of face normals, whose rounding depends on whether SciPy
    # is installed: the files must be the same bytes everywhere.
    around = torus.vertices * [1.0, 1.0, 0.0]
    centre = around / np.linalg.norm(around, axis=1, keepdims=True)
    normals = torus.vertices - centre
    torus.vertex_normals = normals / np.linalg.norm(normals, axis=1, keepdims=True)
    sphere = trimesh.creation.icosphere(subdivisions=1)
    seeds = np.zeros((PARTICLES, 3))
    seeds[:, 0] = np.arange(PARTICLES) / PARTICLES * 7.3 + 0.01
    return {"model.ply": torus.export(file_type="ply", encoding="ascii",
                                      include_attributes=False, vertex_normal=True),
            "model.glb": torus.export(file_type="glb", include_normals=True),
            "m.obj": sphere.export(file_type="obj", include_normals=False).encode(),
            "points.ply": trimesh.PointCloud(seeds).export(file_type="ply",
                                                           encoding="ascii")}


def inputs() -> dict[str, bytes]:
    """verts.npy (the rows of verts.json: inpos and innrm, (4, 2, 4)), the A2XX vertex
    buffer (buffers.npz: three float positions, fetch slot 12) and pixel-shader
    interpolants (interpolants.npy: R0 of 4 fragments)."""
    verts = json.loads((HERE / "verts.json").read_text())
    stacked = np.stack([verts["inpos"], verts["innrm"]], axis=1).astype(np.float32)
    positions = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], dtype=np.float32)
    interpolants = np.array([[0.25, 0.5, 0.75, 1.0]] * 4, dtype=np.float32)
    return {"verts.npy": npy(stacked), "buffers.npz": npz(**{"12": positions}),
            "interpolants.npy": npy(interpolants)}


def results() -> dict[str, bytes]:
    """What a float24 and a float32 emulator that agree with gpuisa write for the first
    few cases (docs/vectors-format.md)."""
    cases = vectors.build_suite()[:RESULT_CASES]
    out = {}
    for mode, name in (("f24", "results.jsonl"), ("f32", "results-f32.jsonl")):
        lines = []
        for case in cases:
            expected = case.expected[mode]
            outputs = {register: [hex_pattern(v, mode) for v in values]
                       for register, values in expected.outputs}
            lines.append(json.dumps({"id": case.id, "status": expected.status,
                                     "outputs": outputs}))
        out[name] = ("\n".join(lines) + "\n").encode()
    return out


def main() -> None:
    for name, data in {**meshes(), **inputs(), **results()}.items():
        write_output(HERE / name, data)
        print(name)


if __name__ == "__main__":
    main()
