"""Rasterizer speed: 10^5 triangles at 400x240 should be drawn in under 2 s.

Run: ``python -m benchmarks.bench_render`` (prints the best time of several runs of the
rasterizer and of the whole ``pica.render`` on a 10^5-triangle sphere, then ``pica
render`` of examples/lit.v.pica, which reads normals, on a 300,000-triangle PLY file
that stores none, as a new process: once as it comes, once more with the shader's
compiled kernel on disk; exits with status 1 if the rasterizer exceeds the budget).
``--skip-file`` leaves the last part out.  Not part of the test suite: timings depend
on the machine.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks.shaders import TRANSFORM
from gpuisa.pica.render import render
from gpuisa.pica.render.raster import rasterize

BUDGET_SECONDS = 2.0
SIZE = (400, 240)

def sphere(triangles: int = 100_000) -> dict[str, np.ndarray]:
    """A UV sphere of about ``triangles`` triangles, radius 1."""
    rows = int(np.sqrt(triangles / 4))
    cols = triangles // (2 * rows)
    theta = np.linspace(0, np.pi, rows + 1)
    phi = np.linspace(0, 2 * np.pi, cols + 1)
    t, p = np.meshgrid(theta, phi, indexing="ij")
    position = np.stack([np.sin(t) * np.cos(p), np.cos(t), np.sin(t) * np.sin(p)], -1)
    index = np.arange((rows + 1) * (cols + 1)).reshape(rows + 1, cols + 1)
    a, b = index[:-1, :-1].ravel(), index[:-1, 1:].ravel()
    c, d = index[1:, :-1].ravel(), index[1:, 1:].ravel()
    faces = np.concatenate([np.stack([a, c, b], 1), np.stack([b, c, d], 1)])
    return {"position": position.reshape(-1, 3), "faces": faces}


def random_triangles(count: int, rng: np.random.Generator) -> np.ndarray:
    """Small triangles scattered over the screen, clip space ``(count, 3, 4)``."""
    centre = rng.uniform(-1, 1, (count, 1, 2))
    corners = centre + rng.normal(0, 0.02, (count, 3, 2))
    depth = np.repeat(rng.uniform(-0.9, -0.1, (count, 1, 1)), 3, axis=1)
    return np.concatenate([corners, depth, np.ones((count, 3, 1))], axis=-1)


def best(function, runs: int = 5) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def grid_ply(path: Path, triangles: int = 300_000) -> int:
    """A wavy grid of about ``triangles`` triangles as a binary PLY file with positions
    and faces only (no normals); returns the number of triangles written."""
    side = int(np.sqrt(triangles / 2)) + 1
    xs, ys = np.meshgrid(np.linspace(-1, 1, side), np.linspace(-1, 1, side))
    zs = 0.1 * np.sin(4 * xs) * np.cos(3 * ys)
    position = np.stack([xs, ys, zs], -1).reshape(-1, 3).astype("<f4")
    index = np.arange(side * side).reshape(side, side)
    a, b = index[:-1, :-1].ravel(), index[:-1, 1:].ravel()
    c, d = index[1:, :-1].ravel(), index[1:, 1:].ravel()
    faces = np.concatenate([np.stack([a, b, c], 1), np.stack([b, d, c], 1)])
    records = np.zeros(len(faces), dtype=[("n", "u1"), ("i", "<i4", 3)])
    records["n"], records["i"] = 3, faces
    header = (f"ply\nformat binary_little_endian 1.0\nelement vertex {len(position)}\n"
              "property float x\nproperty float y\nproperty float z\n"
              f"element face {len(faces)}\nproperty list uchar int vertex_indices\n"
              "end_header\n")
    path.write_bytes(header.encode() + position.tobytes() + records.tobytes())
    return len(faces)


def render_file(mesh: Path, out: Path, cache: Path) -> float:
    """Seconds of ``pica render examples/lit.v.pica --mesh MESH`` as a new process."""
    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, PYTHONPATH=str(root / "src"), GPUISA_JIT_CACHE=str(cache))
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "gpuisa", "render", str(root / "examples" /
                    "lit.v.pica"), "--mesh", str(mesh), "-o", str(out), "--camera", "auto"],
                   check=True, env=env)
    return time.perf_counter() - start


def main() -> int:
    rng = np.random.default_rng(17)
    scattered = random_triangles(100_000, rng)
    raster = best(lambda: rasterize(scattered, SIZE))
    mesh = sphere()
    mvp = np.diag([0.5, 0.8, -0.4, 1.0])
    mvp[2, 3] = -0.5
    whole = best(lambda: render(TRANSFORM, mesh, size=SIZE, uniforms={"mvp": mvp},
                                precision="f32"), runs=3)
    print(f"rasterize 10^5 scattered triangles at 400x240: {raster:.3f} s "
          f"(budget {BUDGET_SECONDS} s)")
    print(f"pica.render of a {len(mesh['faces'])}-triangle sphere (assemble, run, draw): "
          f"{whole:.3f} s")
    if "--skip-file" not in sys.argv:
        from gpuisa.pica.render.mesh import _normals, load_mesh

        with tempfile.TemporaryDirectory() as work:
            folder = Path(work)
            count = grid_ply(folder / "grid.ply")
            start = time.perf_counter()
            loaded = load_mesh(folder / "grid.ply")
            read = time.perf_counter() - start
            normals = best(lambda: _normals(loaded))
            first = render_file(folder / "grid.ply", folder / "out.png", folder / "jit")
            warm = render_file(folder / "grid.ply", folder / "out.png", folder / "jit")
            print(f"pica render of a {count:,}-triangle PLY without normals "
                  f"({len(loaded.positions):,} vertices; examples/lit.v.pica, --camera auto), "
                  f"a new process: {first:.2f} s with an empty compile cache, {warm:.2f} s "
                  f"with the kernel on disk (reading the mesh {read:.2f} s, its normals "
                  f"{normals:.3f} s)")
    return 0 if raster <= BUDGET_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main())
