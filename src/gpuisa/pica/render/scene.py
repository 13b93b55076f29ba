"""Running a shader (or a vertex + geometry pair) on a mesh: the clip-space triangles
and the attributes their corners carry, read through the DVLE's output semantics."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ...errors import InputError
from ..engine import run, run_pipeline
from ..engine.loading import DEFAULT_ROUNDING
from ..isa import GeometryMode
from ..program import Program
from ..shbin import Dvle, OutputSemantic, ShaderType, Shbin
from .mesh import Mesh, shader_inputs

#: Semantic outputs the renderer uses besides the position.
SHADED = ("color", "texcoord0")


@dataclass(frozen=True, slots=True)
class Scene:
    """``positions`` ``(M, 4)`` clip-space positions of the output vertices,
    ``attributes`` semantic name -> ``(M, k)``, ``triangles`` ``(T, 3)`` indices."""

    positions: np.ndarray
    attributes: dict[str, np.ndarray]
    triangles: np.ndarray


def as_shbin(shader: Shbin | Program | str | Sequence[tuple[str, str]]) -> Shbin | Program:
    """A Shbin or Program as it is; source text (or (name, text) pairs, one DVLE each)
    assembled."""
    if isinstance(shader, Shbin | Program):
        return shader
    if isinstance(shader, str) or (isinstance(shader, Sequence) and all(
            isinstance(s, tuple) and len(s) == 2 for s in shader)):
        from ..asm import assemble

        return assemble(shader if not isinstance(shader, str) else [("shader.pica", shader)])
    raise InputError(f"shader must be a Shbin, a Program or assembly source, got "
                     f"{type(shader).__name__}")


def first_vertex_dvle(shbin: Shbin) -> int:
    for index, entry in enumerate(shbin.entries):
        if entry.shader_type == ShaderType.VERTEX:
            return index
    raise InputError("the SHBIN has no vertex shader DVLE")


def build_scene(shader: Shbin | Program, mesh: Mesh, *,
                uniforms: Mapping[str, object] | None = None,
                gs_uniforms: Mapping[str, object] | None = None,
                dvle: int | None = None, gsh: int | None = None,
                attributes: Mapping[str, str] | None = None, precision: str = "f24",
                rounding: str = DEFAULT_ROUNDING, engine: str = "auto",
                max_steps: int = 100_000,
                stride: int | None = None) -> Scene:
    """Run the shader on the mesh's vertices; with ``gsh``, the geometry shader DVLE
    ``gsh`` on what the vertex shader produces, fed the mesh's points, edges or
    triangles as its input mode takes 1, 2 or 3 vertices per primitive (point mode: the
    stride over the vertex shader's output count; fixed mode: its vertex count; variable
    mode: triangles)."""
    if isinstance(shader, Program):
        if gsh is not None:
            raise InputError("a geometry shader needs a SHBIN (a Program has no DVLE)")
        _needs_faces(mesh)
        result = run(shader, shader_inputs(mesh, None, attributes), uniforms=uniforms,
                     precision=precision, rounding=rounding, engine=engine,
                     max_steps=max_steps)
        # Without an output table: o0 is the position, o1 the colour.
        semantic = {"position": result.outputs["o0"], "color": result.outputs["o1"]}
        return _scene(semantic, mesh.faces)
    vs = first_vertex_dvle(shader) if dvle is None else dvle
    if not 0 <= vs < len(shader.entries):
        raise InputError(f"--dvle {vs}: the SHBIN has DVLEs 0..{len(shader.entries) - 1}")
    inputs = shader_inputs(mesh, shader.entries[vs], attributes)
    if gsh is None:
        _needs_position(shader, vs)
        _needs_faces(mesh)
        result = run(shader, inputs, uniforms=uniforms, dvle=vs, precision=precision,
                     rounding=rounding, engine=engine, max_steps=max_steps)
        return _scene(result.outputs_by_semantic, mesh.faces, shader.entries[vs])
    if not 0 <= gsh < len(shader.entries):
        raise InputError(f"--gsh {gsh}: the SHBIN has DVLEs 0..{len(shader.entries) - 1}")
    _needs_position(shader, gsh)
    gs = shader.entries[gsh]
    mode = GeometryMode(int(gs.geometry_mode))
    sizes = None
    if mode is GeometryMode.VARIABLE:
        corners = _primitives(mesh, 3, "a variable-mode geometry shader")
        sizes = [3] * (len(corners) // 3)
    elif mode is GeometryMode.FIXED:
        corners = _primitives(mesh, gs.fixed_vertex_count,
                              f"a fixed-mode geometry shader of {gs.fixed_vertex_count} "
                              f"vertices (.gsh fixed)")
    else:
        outputs = len({entry.register for entry in shader.entries[vs].outputs}) or 1
        group = (outputs if stride is None else stride) // outputs
        corners = _primitives(mesh, group,
                              f"a point-mode geometry shader taking {group} vertices per "
                              f"invocation (--stride {stride or outputs} / {outputs} "
                              f"vertex shader outputs)")
    inputs = {name: value[corners] for name, value in inputs.items()}
    pipeline = run_pipeline(shader, inputs, uniforms=uniforms, gs_uniforms=gs_uniforms,
                            vs_dvle=vs, gs_dvle=gsh, precision=precision,
                            rounding=rounding, engine=engine,
                            max_steps=max_steps, stride=stride, primitive_sizes=sizes)
    return _scene(pipeline.vertices_by_semantic, pipeline.primitives, gs)


def _primitives(mesh: Mesh, group: int, who: str) -> np.ndarray:
    """The mesh's vertex indices in the order a geometry shader taking ``group`` vertices
    per primitive needs them: 1, every vertex; 2, each edge of the triangles once; 3,
    the triangles' corners.  An indexed mesh is expanded so that each invocation gets
    one whole primitive, not ``group`` neighbours of the vertex list."""
    if group == 1:
        return np.arange(len(mesh.positions))
    if group not in (2, 3):
        raise InputError(f"pica render feeds {who} points, lines or triangles of a mesh "
                         f"(1, 2 or 3 vertices); give --stride for one of them")
    if not len(mesh.faces):
        raise InputError(f"the mesh has no faces, but {who} needs "
                         f"{'lines' if group == 2 else 'triangles'}; give a mesh with "
                         f"faces, or a point-mode shader taking one vertex")
    if group == 3:
        return mesh.faces.reshape(-1)
    edges = np.sort(mesh.faces[:, [0, 1, 1, 2, 2, 0]].reshape(-1, 2), axis=1)
    _, first = np.unique(edges, axis=0, return_index=True)
    return edges[np.sort(first)].reshape(-1)


def _needs_faces(mesh: Mesh) -> None:
    if not len(mesh.faces):
        raise InputError("the mesh has no faces (a point cloud): a vertex shader alone "
                         "draws nothing of it; add a geometry shader that makes triangles "
                         "(--gsh N)")


def _needs_position(shbin: Shbin, index: int) -> None:
    if not any(entry.semantic == OutputSemantic.POSITION
               for entry in shbin.entries[index].outputs):
        kind = "geometry" if shbin.entries[index].shader_type == ShaderType.GEOMETRY \
            else "vertex"
        raise InputError(f"DVLE {index} ({kind} shader) has no position output "
                         f"(.out NAME position): there is nothing to place on the screen")


def _scene(semantic: Mapping[str, np.ndarray], triangles: np.ndarray,
           dvle: Dvle | None = None) -> Scene:
    """The scene of output vertices; with a DVLE, only the semantics its output table
    feeds are shaded with (unfed slots read 1.0, which a texture must not mistake for
    texture coordinates)."""
    positions = np.asarray(semantic["position"], dtype=np.float64)
    triangles = np.asarray(triangles, dtype=np.int64).reshape(-1, 3)
    used = np.unique(triangles)
    bad = used[np.isnan(positions[used]).any(axis=1)]
    if len(bad):
        vertex = int(bad[0])
        values = ", ".join(f"{v:g}" for v in positions[vertex])
        raise InputError(f"output vertex {vertex}: the shader's position is NaN "
                         f"({values}); {len(bad)} vertices are affected")
    fed = None if dvle is None else {
        getattr(entry.semantic, "name", "").lower() for entry in dvle.outputs}
    attributes = {name: np.asarray(semantic[name], dtype=np.float64) for name in SHADED
                  if name in semantic and (fed is None or name in fed)}
    return Scene(positions, attributes, triangles)
