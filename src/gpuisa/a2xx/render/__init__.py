"""Pictures of what an A2XX / Xenos shader pair draws: :func:`render`, :func:`compare`.

>>> from gpuisa.a2xx.render import render
>>> frame = render(vs_words, ps_words, "model.obj", size=(320, 240), target="xenos",
...                vertex_constants={"float_constants": {0: ...}})
>>> frame.image.shape      # (240, 320, 4) uint8, RGBA

The vertex shader runs once per mesh vertex, its vertex fetches reading the mesh
(:mod:`.bind`); its position export is clipped, mapped to the picture and rasterized by
the target's conventions (:mod:`.conventions`, :mod:`.raster`); its parameter exports
0-15 are interpolated perspective-correctly into the pixel shader's registers R0-R15
(export n in Rn, or for a pair of XDK containers by the semantics they declare:
:mod:`.linkage`), and the pixel shader runs on every covered pixel at once, in batches;
its colour export 0, clamped to 0..1, is the pixel's RGBA (a2xx-render.md).
"""

from __future__ import annotations

import contextlib
import os
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from ...errors import GpuIsaError, GpuIsaWarning, InputError
from ...render.heat import heat_legend, heat_map
from ...render.images import MAX_SIDE, check_size
from ...render.mesh import Mesh, as_mesh
from .. import isa
from ..containers import Semantic
from ..engine import EmulatorConfig, Texture, run_fragment, run_vertex
from ..engine.api import DEFAULT_MAX_STEPS
from ..engine.attributes import template_semantics
from .bind import assign, bind_mesh, semantic_inputs, vertex_fetches
from .conventions import Conventions
from .linkage import links, route
from .raster import Raster, clip_triangles, rasterize

#: The default background: dark grey, opaque.
BACKGROUND = (32, 32, 32, 255)
#: Invocations run at once (bounds the engines' working memory: 64 registers of
#: (4, N) float32 at most).
BATCH = 1 << 18

Progress = Callable[[str, float], None]
MeshLike = Mesh | str | os.PathLike[str] | Mapping[str, object]

__all__ = ["BACKGROUND", "MAX_SIDE", "Comparison", "EmptyPictureWarning", "Frame", "Options",
           "compare", "render"]


@dataclass(frozen=True, slots=True)
class Frame:
    """A drawn picture: ``image`` ``(H, W, 4)`` uint8; ``positions`` the vertex
    shader's position export per mesh vertex ``(V, 4)``; ``covered`` how many pixels a
    triangle covers and ``killed`` how many of them the pixel shader killed;
    ``unsupported_fetches`` the slots of texture fetches that read zeros."""

    image: np.ndarray
    positions: np.ndarray
    covered: int
    killed: int
    unsupported_fetches: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Options:
    """How :func:`render` draws (each a keyword argument of it).

    ``size`` (width, height); ``vertex_constants`` and ``pixel_constants``: the
    ``float_constants`` / ``bool_constants`` / ``loop_constants`` keyword arguments of
    each stage's run; ``textures``: texture fetch constant -> :class:`Texture` (or texel
    array); ``attributes``: ``"R<n>"`` (the register a vertex fetch writes) or, for an
    XDK container, a semantic (``"TEXCOORD1"``) -> mesh attribute; ``elements``: the
    vertex shader container's ``vertex_elements`` (what each vertex fetch reads);
    ``vs_interpolators`` and ``ps_interpolators``: each container's ``interpolators``
    (None when a shader is no XDK container), by which the exports reach the pixel
    shader; ``background`` RGBA; ``max_steps`` as for ``run_vertex``; ``names``: what a
    stage's errors start with."""

    size: tuple[int, int] = (640, 480)
    vertex_constants: Mapping[str, object] | None = None
    pixel_constants: Mapping[str, object] | None = None
    textures: Mapping[int, Texture | np.ndarray] | None = None
    attributes: Mapping[str, str] | None = None
    elements: Sequence[Semantic] = ()
    vs_interpolators: Sequence[Semantic] | None = None
    ps_interpolators: Sequence[Semantic] | None = None
    background: tuple[int, ...] = BACKGROUND
    max_steps: int = DEFAULT_MAX_STEPS
    names: tuple[str, str] = ("vertex shader", "pixel shader")

    @classmethod
    def of(cls, settings: Mapping[str, object]) -> Options:
        unknown = set(settings) - set(cls.__slots__)  # type: ignore[arg-type]
        if unknown:
            raise InputError(f"unknown render option {sorted(unknown)[0]!r}; use "
                             f"{', '.join(cls.__slots__)}")  # type: ignore[arg-type]
        options = cls(**settings)  # type: ignore[arg-type]
        background = np.asarray(options.background)
        if background.shape != (4,) or not ((background >= 0) & (background <= 255)).all():
            raise InputError(f"background must be 4 numbers 0..255 (RGBA), got "
                             f"{options.background!r}")
        return replace(options, size=check_size(options.size),
                       vertex_constants=_constants(options.vertex_constants,
                                                   "vertex_constants"),
                       pixel_constants=_constants(options.pixel_constants,
                                                  "pixel_constants"))


def render(vertex: Sequence[int], pixel: Sequence[int], mesh: MeshLike, *,
           target: str = "adreno", config: EmulatorConfig | None = None,
           progress: Progress | None = None, **settings: object) -> Frame:
    """Draw ``mesh`` (a :class:`Mesh`, a mesh file or arrays) with the vertex shader
    ``vertex`` and the pixel shader ``pixel`` (program words).

    ``target`` ("adreno" or "xenos") picks the clip and pixel-centre conventions and,
    unless ``config`` is given, the :class:`EmulatorConfig`; ``progress(stage,
    fraction)`` hears of long work; ``settings`` are the fields of :class:`Options`.
    """
    options = Options.of(settings)
    width, height = options.size
    conventions = Conventions.for_target(target)
    cfg = config if config is not None else EmulatorConfig.for_target(target)
    the_mesh = as_mesh(mesh)
    report = progress or (lambda stage, fraction: None)
    linked = links(options.vs_interpolators, options.ps_interpolators, options.names)
    with _stage(options.names[0]):
        positions, params = _shade_vertices(vertex, the_mesh, cfg, options, report)
    params = route(params, linked)
    faces = the_mesh.faces
    corners, carried, _ = clip_triangles(positions[faces], params[faces], conventions)
    raster = rasterize(corners, (width, height), conventions,
                       lambda fraction: report("rasterizing", fraction))
    if len(faces) and not len(raster.pixels):
        _warn_empty(positions[np.unique(faces)], conventions, len(faces))
    image = np.empty((height * width, 4), dtype=np.uint8)
    image[:] = np.asarray(options.background, dtype=np.uint8)
    with _stage(options.names[1]):
        if vertex_fetches(pixel, cfg):
            raise InputError("the pixel shader has vertex fetches: is it a vertex shader "
                             "given as the pixel shader?")
        killed, unsupported = _shade_pixels(pixel, raster, carried, image, cfg, options,
                                            report)
    return Frame(image.reshape(height, width, 4), positions, len(raster.pixels), killed,
                 unsupported)


class EmptyPictureWarning(GpuIsaWarning):
    """No triangle of the draw covers a pixel."""


def _warn_empty(positions: np.ndarray, conventions: Conventions, triangles: int) -> None:
    """Say why the picture is empty, with where the vertices' z/w lie."""
    with np.errstate(all="ignore"):
        ratio = positions[:, 2] / positions[:, 3]
    finite = ratio[np.isfinite(ratio) & (positions[:, 3] > 0)]
    spread = (f"; z/w of the vertices with w > 0 lies in [{finite.min():.4g}, "
              f"{finite.max():.4g}]" if len(finite) else "; no vertex has w > 0")
    low = "0" if conventions.near == 0 else "-w"
    warnings.warn(f"none of the {triangles} triangles covers a pixel: the picture is "
                  f"empty (the {conventions.target} clip volume is {low} <= z <= w, w > 0, "
                  f"-w <= x, y <= w){spread}", EmptyPictureWarning, stacklevel=3)


@contextlib.contextmanager
def _stage(name: str) -> Iterator[None]:
    """Prefix the errors of a stage's run with ``name``."""
    try:
        yield
    except GpuIsaError as error:
        if str(error).startswith(f"{name}:"):
            raise
        raise InputError(f"{name}: {error}") from None


def _constants(value: Mapping[str, object] | None, what: str) -> dict[str, object]:
    allowed = {"float_constants", "bool_constants", "loop_constants"}
    given = dict(value or {})
    if "fetch_constants" in given:
        raise InputError(f"{what}: the renderer binds the vertex fetch constants to the "
                         f"mesh itself; give no fetch constants")
    unknown = set(given) - allowed
    if unknown:
        raise InputError(f"{what}: unknown key {sorted(unknown)[0]!r}; use "
                         f"{', '.join(sorted(allowed))}")
    return given


def _shade_vertices(words: Sequence[int], mesh: Mesh, config: EmulatorConfig,
                    options: Options, report: Progress) -> tuple[np.ndarray, np.ndarray]:
    """Every mesh vertex's position ``(V, 4)`` and parameters ``(V, 4 k)`` (exports
    0..k-1, zero where not written)."""
    inputs = _vertex_inputs(words, mesh, config, options)
    count = len(mesh.positions)
    positions = np.zeros((count, 4))
    exports: dict[int, np.ndarray] = {}
    wrote_position = count == 0
    for start in range(0, count, BATCH):
        stop = min(start + BATCH, count)
        result = run_vertex(words, indices=np.arange(start, stop), config=config,
                            max_steps=options.max_steps, **inputs,
                            **options.vertex_constants)  # type: ignore[arg-type]
        wrote_position |= isa.EXPORT_POSITION in result.exports
        positions[start:stop] = result.position
        for number, value in result.params.items():
            exports.setdefault(number, np.zeros((count, 4)))[start:stop] = value
        report("vertex shader", stop / count)
    if not wrote_position:
        raise InputError("the vertex shader writes no position (export 62): is it a pixel "
                         "shader given as the vertex shader?")
    k = max(exports, default=-1) + 1
    params = np.zeros((count, 4 * k))
    for number, value in exports.items():
        params[:, 4 * number:4 * number + 4] = value
    return positions, params


def _vertex_inputs(words: Sequence[int], mesh: Mesh, config: EmulatorConfig,
                   options: Options) -> dict[str, object]:
    """The ``run_vertex`` arguments that feed the mesh to the vertex shader: for an XDK
    container's fetch templates, the mesh's attributes by semantic (completed as the
    runtime would, a2xx-formats.md#xdk-vertex-input); otherwise buffers laid out as the
    fetches read them (a2xx-render.md#vertex-fetch)."""
    templates = template_semantics(words, options.elements, config)
    if templates:
        return {"attributes": semantic_inputs(mesh, templates, options.attributes),
                "elements": options.elements}
    uses = vertex_fetches(words, config)
    declared = {e.slot: e.usage for e in options.elements}
    buffers, fetch = bind_mesh(mesh, uses, assign(uses, options.attributes, declared))
    return {"vertex_buffers": buffers, "fetch_constants": fetch}


def _shade_pixels(words: Sequence[int], raster: Raster, carried: np.ndarray,
                  image: np.ndarray, config: EmulatorConfig, options: Options,
                  report: Progress) -> tuple[int, tuple[int, ...]]:
    """Run the pixel shader on the covered pixels and write their colour into ``image``
    ``(H * W, 4)``; the number of killed pixels and the unsupported fetch slots."""
    total = len(raster.pixels)
    registers = carried.shape[-1] // 4
    killed = 0
    unsupported: set[int] = set()
    for start in range(0, total, BATCH):
        pixels = raster.pixels[start:start + BATCH]
        triangles = raster.triangles[start:start + BATCH]
        weights = raster.weights(pixels, triangles)
        values = np.einsum("nc,nck->nk", weights, carried[triangles]).astype(np.float32)
        interpolants = ({r: values[:, 4 * r:4 * r + 4] for r in range(registers)}
                        or {0: np.zeros((len(pixels), 4), dtype=np.float32)})
        result = run_fragment(words, interpolants, textures=options.textures, config=config,
                              max_steps=options.max_steps,
                              **options.pixel_constants)  # type: ignore[arg-type]
        if isa.EXPORT_POSITION in result.exports:
            raise InputError("the pixel shader writes a position (export 62): is it a "
                             "vertex shader given as the pixel shader?")
        colour = np.clip(np.nan_to_num(result.color.astype(np.float64)), 0.0, 1.0)
        keep = ~result.killed
        image[pixels[keep]] = np.rint(colour[keep] * 255).astype(np.uint8)
        killed += int(result.killed.sum())
        unsupported.update(result.unsupported_fetches)
        report("pixel shader", min(start + BATCH, total) / total)
    return killed, tuple(sorted(unsupported))


@dataclass(frozen=True, slots=True)
class Comparison:
    """Two frames of one draw, their heat map and the numbers."""

    first: Frame
    second: Frame
    names: tuple[str, str]
    difference: np.ndarray
    pixels_differ: int
    max_pixel_difference: int
    vertices_differ: int

    def summary(self) -> str:
        a, b = self.names
        legend = f" ({heat_legend(self.max_pixel_difference)})" if self.pixels_differ else ""
        return (f"{a} vs {b}: {len(self.first.positions)} vertices, {self.vertices_differ} "
                f"positions differ; {self.first.covered} / {self.second.covered} pixels "
                f"covered; {self.pixels_differ} pixels differ{legend}")


#: What ``compare`` can set apart: the two targets, or the two scalar-operand lanes.
COMPARISONS = ("targets", "lanes")


def compare(vertex: Sequence[int], pixel: Sequence[int], mesh: MeshLike, *,
            between: str = "targets", target: str = "adreno",
            overrides: Mapping[str, object] | None = None, **options: object) -> Comparison:
    """Render twice and compare: ``between="targets"`` draws with the adreno and the
    xenos target (conventions and emulator presets); ``"lanes"`` draws with ``target``
    and the second scalar operand read from lane Z, then X (a2xx-isa.md#scalar-ops).
    ``overrides`` are :class:`EmulatorConfig` settings applied to both; other options
    as for :func:`render`."""
    the_mesh = as_mesh(mesh)  # read once
    settings = dict(overrides or {})
    if between == "targets":
        runs = [(name, name, EmulatorConfig.for_target(name, **settings))
                for name in ("adreno", "xenos")]
    elif between == "lanes":
        settings.pop("scalar_b_lane", None)
        runs = [(f"lane {name}", target,
                 EmulatorConfig.for_target(target, **settings, scalar_b_lane=lane))
                for name, lane in (("z", 2), ("x", 0))]
    else:
        raise InputError(f"compare between must be one of {', '.join(COMPARISONS)}, not "
                         f"{between!r}")
    first, second = (render(vertex, pixel, the_mesh, target=run_target, config=config,
                            **options)  # type: ignore[arg-type]
                     for _, run_target, config in runs)
    heat = heat_map(first.image, second.image)
    a, b = first.positions, second.positions
    differ = int(((a != b) & ~(np.isnan(a) & np.isnan(b))).any(axis=1).sum())
    return Comparison(first, second, (runs[0][0], runs[1][0]), heat.image,
                      heat.pixels_differ, heat.largest, differ)
