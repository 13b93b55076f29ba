"""Pictures of what a shader does to a mesh: ``render()``, ``compare()``, ``animate()``.

>>> from gpuisa import pica
>>> image = pica.render(shbin, "model.obj", uniforms={...}, camera="auto")
>>> image.shape             # (240, 400, 4) uint8, RGBA

Mesh files are read with trimesh and images written with Pillow (``pip install
'gpuisa[render]'``); both are imported only when needed.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

import numpy as np

from ...errors import InputError
from ...render.images import MAX_SIDE, check_size, load_texture
from ...render.mesh import Mesh, as_mesh, load_mesh, mesh_from_arrays
from ..engine.loading import DEFAULT_ROUNDING
from ..program import Program
from ..shbin import ShaderType, Shbin
from .camera import Camera, camera_uniforms, look_at, perspective
from .compare import Comparison, compare_frames
from .scene import Scene, as_shbin, build_scene, first_vertex_dvle
from .shade import BACKGROUND, MODES, Frame, draw
from .stages import name_unset_uniform, route_uniforms

#: Screen sizes of the 3DS (width, height) as seen when the console is held normally.
SCREENS = {"top": (400, 240), "bottom": (320, 240)}
#: What gives a uniform of each stage a value (both take --uniforms: render_frame routes
#: each name to the stage that declares it).
_UNIFORM_FIXES = {stage: "give it with --uniforms FILE (uniforms=), or --camera auto for "
                         "a projection or model-view matrix" for stage in ShaderType}

__all__ = ["BACKGROUND", "MAX_SIDE", "MODES", "SCREENS", "Camera", "Comparison", "Frame",
           "Mesh", "Scene", "as_mesh", "compare", "load_mesh", "look_at", "mesh_from_arrays",
           "perspective", "render", "render_frame"]


def render_frame(shader: Shbin | Program | str | Sequence[tuple[str, str]],
                 mesh: Mesh | str | os.PathLike[str] | Mapping[str, object], *,
                 size: Sequence[int] = SCREENS["top"],
                 uniforms: Mapping[str, object] | None = None,
                 gs_uniforms: Mapping[str, object] | None = None,
                 dvle: int | None = None, gsh: int | None = None,
                 attributes: Mapping[str, str] | None = None, mode: str = "color",
                 texture: np.ndarray | str | None = None,
                 camera: Camera | str | None = None, projection: str | None = None,
                 modelview: str | None = None, tilt: bool = False,
                 precision: str = "f24", rounding: str = DEFAULT_ROUNDING,
                 engine: str = "auto",
                 background: Sequence[int] = BACKGROUND, max_steps: int = 100_000,
                 stride: int | None = None) -> Frame:
    """Like :func:`render`, returning the :class:`Frame` (image, raster and the screen
    positions of the output vertices)."""
    size = check_size(size)
    program = as_shbin(shader)
    the_mesh = as_mesh(mesh)
    if mode not in MODES:
        raise InputError(f"unknown shading mode {mode!r}; use one of {', '.join(MODES)}")
    if isinstance(program, Shbin):
        uniforms, gs_uniforms = route_uniforms(
            program, uniforms, gs_uniforms, gsh=_index(program, gsh),
            dvle=first_vertex_dvle(program) if dvle is None else _index(program, dvle))
    if camera is not None:
        if camera == "auto":
            camera = Camera.fit(the_mesh.positions)
        if not isinstance(camera, Camera):
            raise InputError(f"camera must be a Camera or 'auto', got {camera!r}")
        proj, view = camera.matrices(size[0] / size[1], the_mesh.positions, tilt=tilt)
        filled, stage = _camera_uniforms(program, proj, view, projection, modelview,
                                         dvle, gsh)
        if stage == "geometry":
            gs_uniforms = {**(gs_uniforms or {}), **filled}
        else:
            uniforms = {**(uniforms or {}), **filled}
    elif projection is not None or modelview is not None:
        raise InputError("--projection/--modelview name the uniforms the camera fills: "
                         "give a camera too")
    if isinstance(texture, str | os.PathLike):
        texture = load_texture(os.fspath(texture))
    try:
        scene = build_scene(program, the_mesh, uniforms=uniforms, gs_uniforms=gs_uniforms,
                            dvle=dvle, gsh=gsh, attributes=attributes, precision=precision,
                            rounding=rounding, engine=engine, max_steps=max_steps, stride=stride)
    except InputError as error:
        vs = first_vertex_dvle(program) if isinstance(program, Shbin) and dvle is None \
            else dvle
        raise name_unset_uniform(error, program, (vs, gsh), _UNIFORM_FIXES) from None
    return draw(scene, size, mode=mode, tilt=tilt, texture=texture,
                background=tuple(background))


def _index(shbin: Shbin, index: int | None) -> int | None:
    """``index`` if it names a DVLE (a bad one is reported by build_scene), else None."""
    return index if index is not None and 0 <= index < len(shbin.entries) else None


def _camera_uniforms(program: Shbin | Program, proj: np.ndarray, view: np.ndarray,
                     projection: str | None, modelview: str | None, dvle: int | None,
                     gsh: int | None) -> tuple[dict[str, np.ndarray], str]:
    """The camera's uniforms and the stage they go to: the vertex shader's if it has the
    matrices, else the geometry shader's (where devkitPro's geometry-shader example
    keeps its projection)."""
    if not isinstance(program, Shbin):
        return camera_uniforms(None, proj, view, projection_name=projection,
                               modelview_name=modelview), "vertex"
    vertex = program.entries[first_vertex_dvle(program) if dvle is None
                             else _index(program, dvle) or 0]
    try:
        return camera_uniforms(vertex, proj, view, projection_name=projection,
                               modelview_name=modelview), "vertex"
    except InputError:
        if _index(program, gsh) is None:
            raise
    try:
        return camera_uniforms(program.entries[gsh], proj, view,
                               projection_name=projection,
                               modelview_name=modelview), "geometry"
    except InputError as error:
        raise InputError(f"{error} (looked in the vertex DVLE and the geometry DVLE "
                         f"{gsh})") from None


def render(shader: Shbin | Program | str | Sequence[tuple[str, str]],
           mesh: Mesh | str | os.PathLike[str] | Mapping[str, object], *,
           size: Sequence[int] = SCREENS["top"],
           uniforms: Mapping[str, object] | None = None, **options: object) -> np.ndarray:
    """Run ``shader`` on ``mesh`` and draw the triangles: an ``(H, W, 4)`` uint8 RGBA
    image.

    ``shader``: a Shbin, a Program or assembly source; ``mesh``: a file (OBJ, PLY,
    glTF/GLB, STL) or ``{"position": (V, 3), "faces": (F, 3), "color"?, "normal"?,
    "texcoord"?}``.  ``uniforms`` as for :func:`gpuisa.pica.run`.  Options:
    ``gsh`` (a geometry shader DVLE run after the vertex DVLE ``dvle``, with
    ``gs_uniforms``), ``attributes`` ({input name or 'vN': 'position' | 'normal' |
    'color' | 'texcoord'}), ``mode`` ("color", "flat", "wireframe", "depth"),
    ``texture`` (image path or array, sampled at texcoord0), ``camera`` ("auto" or a
    :class:`Camera`: fills the projection/model-view uniforms, named by ``projection``
    and ``modelview`` or found by their usual names), ``tilt`` (undo the 3DS screen's
    quarter turn), ``precision`` and ``rounding`` (as for :func:`gpuisa.pica.run`),
    ``engine``, ``background`` (RGBA).
    """
    return render_frame(shader, mesh, size=size, uniforms=uniforms, **options).image


def compare(shader: Shbin | Program | str | Sequence[tuple[str, str]],
            mesh: Mesh | str | os.PathLike[str] | Mapping[str, object], *,
            precisions: tuple[str, str] = ("f24", "f32"), rounding: str = DEFAULT_ROUNDING,
            **options: object) -> Comparison:
    """Render the same scene in two precisions (options as for :func:`render`, except
    ``precision``; ``rounding`` is that of the f24 frame): both frames, a difference
    image and the numbers."""
    if "precision" in options:
        raise InputError("compare() renders in both precisions: give precisions=(a, b)")
    the_mesh = as_mesh(mesh)  # read once
    program = as_shbin(shader)
    first, second = (render_frame(program, the_mesh, precision=p,
                                  rounding=rounding if p == "f24" else DEFAULT_ROUNDING,
                                  **options)
                     for p in precisions)
    return compare_frames(first, second)
