"""``a2xx render`` speed: a 10^5-triangle mesh at 1280x720 with a 20-instruction pixel
shader should be drawn in under 2 s.

Run: ``python -m benchmarks.bench_a2xx_render`` (prints the best time of several runs of
``gpuisa.a2xx.render.render`` on a 10^5-triangle sphere filling most of the picture,
split into the vertex shader, rasterizer and pixel shader parts, then the whole ``a2xx
render`` command on the same mesh as an OBJ file, as a new process, PNG written; exits
with status 1 if the in-process render exceeds the budget).  Not part of the test suite:
timings depend on the machine.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks.bench_render import best, sphere
from gpuisa.a2xx import assemble
from gpuisa.a2xx.render import render

BUDGET_SECONDS = 2.0
SIZE = (1280, 720)

#: Position and normal from two fetches; the position times the matrix in C0-C3.
VERTEX = """\
ALLOC POSITION SIZE(0x0)
EXEC
  FETCH: VERTEX R1.xyz1 = R0.x FMT_32_32_32_FLOAT SIGNED STRIDE(24) CONST(4, 0)
  FETCH: VERTEX R2.xyz0 = R0.x FMT_32_32_32_FLOAT SIGNED STRIDE(24) OFFSET(12) CONST(4, 0)
  ALU: DOT4v R3.x___ = R1, C0
  ALU: DOT4v R3._y__ = R1, C1
  ALU: DOT4v R3.__z_ = R1, C2
  ALU: DOT4v R3.___w = R1, C3
EXEC
  ALU: MAXv export62 = R3, R3
ALLOC PARAM/PIXEL SIZE(0x1)
EXEC_END
  ALU: MAXv export0 = R2, R2
  ALU: MAXv export1 = R1, R1
"""

#: 20 ALU instructions: the normal normalised and lit, then a procedural pattern.
PIXEL = """\
EXEC
  ALU: DOT3v R2.x___ = R0, R0
  ALU: MAXv R3 = R0, R0
  RECIPSQ_IEEE R2._y__ = R2.xxxx
  ALU: MULv R0.xyz_ = R0, R2.yyyy
  ALU: DOT3v R2.x___ = R0, C0
  ALU: MAXv R3 = R2, R2
  MAXs R2._y__ = R2.xywx
  ALU: MULADDv R4 = C2, C1, R2.yyyy
EXEC
  ALU: MULv R5 = R1, C3
  ALU: FRACv R5 = R5
  ALU: ADDv R5 = R5, -C4
  ALU: MULv R5 = R5, R5
  ALU: DOT3v R6.x___ = R5, C5
  ALU: MULADDv R6 = C6, R6.xxxx, C7
EXEC
  ALU: MAXv R6 = R6, C8
  ALU: MINv R6 = R6, C9
  ALU: MULv R6 = R6, R6
  ALU: MULADDv R6 = C7, R6, C6
  ALU: MULv R4 = R4, R6
  ALU: ADDv R4 = R4, C10
  ALU: MAXv R4 = R4, C8
EXEC_END
  ALU: MINv export0 = R4, C9
"""


def constants() -> tuple[dict, dict]:
    """A camera 1.9 units from the sphere (it fills the picture's height) and the light."""
    aspect, t, near, far = SIZE[0] / SIZE[1], 1 / np.tan(np.radians(30)), 0.5, 10.0
    proj = np.array([[t / aspect, 0, 0, 0], [0, t, 0, 0],
                     [0, 0, -far / (far - near), -near * far / (far - near)], [0, 0, -1, 0]])
    view = np.eye(4)
    view[2, 3] = -1.9
    mvp = proj @ view
    light = np.array([-0.4, 0.5, 0.77, 0.0])
    vertex = {"float_constants": {k: mvp[k] for k in range(4)}}
    pixel = {"float_constants": {
        0: light, 1: [0.9, 0.6, 0.3, 1], 2: [0.1, 0.1, 0.15, 1], 3: [4, 4, 4, 0],
        4: [0.5, 0.5, 0.5, 0], 5: [1, 1, 1, 0], 6: [0.4, 0.4, 0.4, 0],
        7: [0.8, 0.8, 0.8, 1], 8: [0, 0, 0, 0], 9: [1, 1, 1, 1], 10: [0.02, 0.02, 0.02, 0]}}
    return vertex, pixel


def main() -> int:
    mesh = sphere(100_000)
    mesh["normal"] = mesh["position"]
    vs, ps = assemble(VERTEX), assemble(PIXEL)
    alu = PIXEL.count("ALU:")
    vertex, pixel = constants()
    parts: dict[str, float] = {}

    def timed(stage: str, fraction: float) -> None:
        parts[stage] = time.perf_counter()  # the last report: the stage's end

    frame = render(vs, ps, mesh, size=SIZE, vertex_constants=vertex, pixel_constants=pixel)
    seconds = best(lambda: render(vs, ps, mesh, size=SIZE, vertex_constants=vertex,
                                  pixel_constants=pixel), runs=3)
    start = time.perf_counter()
    render(vs, ps, mesh, size=SIZE, vertex_constants=vertex, pixel_constants=pixel,
           progress=timed)
    end = time.perf_counter()
    marks = [start, parts["vertex shader"], parts["rasterizing"], parts["pixel shader"], end]
    print(f"a2xx render: {len(mesh['faces'])} triangles, {SIZE[0]}x{SIZE[1]}, "
          f"{alu}-instruction pixel shader on {frame.covered} covered pixels: "
          f"{seconds:.2f} s best of 3 (budget {BUDGET_SECONDS} s)")
    print("  split of one run: " + ", ".join(
        f"{name} {b - a:.2f} s" for name, a, b in zip(
            ("vertex shader", "rasterizing", "pixel shader", "the rest"), marks[:-1], marks[1:],
            strict=True)))
    print(f"  whole command, new process, PNG written: {_command(mesh, vertex, pixel):.2f} s")
    return 0 if seconds <= BUDGET_SECONDS else 1


def _command(mesh: dict, vertex: dict, pixel: dict) -> float:
    """``a2xx render`` on the mesh as an OBJ file, timed as a new process."""
    import json

    with tempfile.TemporaryDirectory() as folder:
        here = Path(folder)
        lines = [f"v {x:.6f} {y:.6f} {z:.6f}" for x, y, z in mesh["position"]]
        lines += [f"vn {x:.6f} {y:.6f} {z:.6f}" for x, y, z in mesh["normal"]]
        lines += [f"f {a}//{a} {b}//{b} {c}//{c}" for a, b, c in mesh["faces"] + 1]
        (here / "sphere.obj").write_text("\n".join(lines) + "\n")
        (here / "vs.txt").write_text(VERTEX)
        (here / "ps.txt").write_text(PIXEL)
        for name, table in (("vs.json", vertex), ("ps.json", pixel)):
            rows = {f"C{k}": [float(v) for v in row]
                    for k, row in table["float_constants"].items()}
            (here / name).write_text(json.dumps({"float": rows}))
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "gpuisa.a2xx", "render", "vs.txt", "ps.txt",
                        "--mesh", "sphere.obj", "--vs-constants", "vs.json",
                        "--ps-constants", "ps.json", "--size", f"{SIZE[0]}x{SIZE[1]}",
                        "-o", "out.png"], cwd=here, check=True)
        return time.perf_counter() - start


if __name__ == "__main__":
    sys.exit(main())
