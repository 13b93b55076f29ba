"""Regenerate the pictures in docs/images/ from the shaders in examples/.

Run from the repository root: ``python examples/make_pictures.py`` (needs
``pip install -e ".[render]"``); ``python examples/make_pictures.py a2xx`` makes only the
``a2xx render`` ones.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import trimesh

from gpuisa.a2xx import assemble
from gpuisa.a2xx.render import compare as compare_a2xx
from gpuisa.fileio import write_output
from gpuisa.pica.render import compare, render
from gpuisa.pica.render.shade import png_bytes

HERE = Path(__file__).parent
IMAGES = HERE.parent / "docs" / "images"
PARTICLES = 400


def source(*names: str) -> list[tuple[str, str]]:
    return [(name, (HERE / name).read_text()) for name in names]


def main() -> None:
    IMAGES.mkdir(parents=True, exist_ok=True)
    torus = trimesh.creation.torus(major_radius=1.0, minor_radius=0.4)
    mesh = {"position": torus.vertices, "faces": torus.faces, "normal": torus.vertex_normals}
    lit = render(source("lit.v.pica"), mesh, camera="auto")
    write_output(IMAGES / "lit-torus.png", png_bytes(lit))

    # devkitPro's geometry-shader shape: the projection in the geometry shader, three
    # vertices of two registers per invocation (stride 6).
    sphere = trimesh.creation.icosphere(subdivisions=1)
    shrink = render(source("shrink.v.pica", "shrink.g.pica"),
                    {"position": sphere.vertices, "faces": sphere.faces}, gsh=1, stride=6,
                    camera="auto", mode="flat")
    write_output(IMAGES / "shrink.png", png_bytes(shrink))

    seeds = np.zeros((PARTICLES, 3))
    seeds[:, 0] = np.arange(PARTICLES) / PARTICLES * 7.3 + 0.01
    points = {"position": seeds}  # a point cloud: the geometry shader makes the quads
    result = compare(source("particles.v.pica", "particles.g.pica"), points, gsh=1,
                     attributes={"seed": "position"},
                     gs_uniforms={"time": [3.0, 0, 0, 0]})
    write_output(IMAGES / "particles-f24.png", png_bytes(result.first.image))
    write_output(IMAGES / "particles-diff.png", png_bytes(result.difference))
    print("particles:", result.summary())
    a2xx_pictures()


def a2xx_pictures() -> None:
    """The lit torus of examples/torus.*.txt drawn by a2xx render, and where reading the
    second scalar operand from lane X instead of Z changes it."""
    def constants(name: str) -> dict[str, object]:
        rows = json.loads((HERE / name).read_text())["float"]
        return {"float_constants": {int(k[1:]): v for k, v in rows.items()}}

    result = compare_a2xx(assemble((HERE / "torus.vs.txt").read_text()),
                          assemble((HERE / "torus.ps.txt").read_text()), HERE / "model.ply",
                          between="lanes", size=(400, 300),
                          vertex_constants=constants("torus-vs.json"),
                          pixel_constants=constants("torus-ps.json"))
    write_output(IMAGES / "a2xx-torus.png", png_bytes(result.first.image))
    write_output(IMAGES / "a2xx-lanes-diff.png", png_bytes(result.difference))
    print("a2xx torus:", result.summary())


if __name__ == "__main__":
    import sys

    if sys.argv[1:] == ["a2xx"]:
        a2xx_pictures()
    else:
        main()
