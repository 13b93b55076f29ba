"""``run_pipeline()``: a vertex shader DVLE feeding a geometry shader DVLE of one SHBIN.

As the PICA does it (pica-emulation.md#geometry; libctru ``shaderProgramConfigure``; Azahar
``GeometryPipeline``): every vertex runs through the vertex shader; its outputs — the
registers of the vertex DVLE's output mask, in ascending order — are delivered to the
geometry shader unit in the DVLE's input mode (:mod:`.geometry`); the geometry shader
runs once per delivered group on one unit whose registers persist, with b15 set after
every invocation; its EMITs produce the vertices and primitives.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ...errors import InputError
from ..isa import GeometryMode
from ..shbin import ShaderType, Shbin
from .api import (
    AUTO,
    Executable,
    RunResult,
    build_result,
    by_semantic,
    check_max_steps,
    executable,
    initial_state,
    run,
    run_geometry_engine,
)
from .geometry import GeometryFeed, fixed_feed, point_feed, variable_feed
from .loading import DEFAULT_ROUNDING, Precision, Rounding, precision_of


@dataclass(frozen=True, slots=True)
class PipelineResult:
    """``vertex``: the vertex shader's :class:`RunResult` (one row per input vertex);
    ``geometry``: the geometry shader's (one row per invocation), whose ``vertices``,
    ``primitives`` and ``windings`` are the pipeline's output, also available here.
    ``vertices_by_semantic`` maps semantic names to ``(V, k)`` through the geometry DVLE's
    output map (empty when that DVLE asks for merged output maps, which gpuisa does not
    model)."""

    vertex: RunResult
    geometry: RunResult
    vertices_by_semantic: dict[str, np.ndarray]

    @property
    def vertices(self) -> dict[str, np.ndarray]:
        return self.geometry.vertices  # type: ignore[return-value]

    @property
    def primitives(self) -> np.ndarray:
        return self.geometry.primitives  # type: ignore[return-value]

    @property
    def windings(self) -> np.ndarray:
        return self.geometry.windings  # type: ignore[return-value]


def run_pipeline(shbin: Shbin, inputs: Mapping[str, object], *,
                 uniforms: Mapping[str, object] | None = None,
                 gs_uniforms: Mapping[str, object] | None = None,
                 vs_dvle: int | None = None, gs_dvle: int | None = None,
                 precision: Precision = "f24", rounding: Rounding = DEFAULT_ROUNDING,
                 engine: str = AUTO, max_steps: int = 100_000, stride: int | None = None,
                 primitive_sizes: Sequence[int] | None = None,
                 registers: bool = False) -> PipelineResult:
    """Run ``inputs`` through a vertex shader and then a geometry shader (``registers``
    as for :func:`~.api.run`, for both results).

    ``vs_dvle``/``gs_dvle`` default to the first vertex and the first geometry DVLE.
    ``uniforms`` are the vertex shader's, ``gs_uniforms`` the geometry shader's (each
    unit has its own uniform registers).  Point mode: ``stride`` is the number of
    geometry input registers per invocation (default: the vertex shader's output count,
    i.e. one vertex per invocation, as libctru).  Variable mode: ``primitive_sizes`` gives
    the vertex count of each primitive (default: all vertices form one primitive).
    Fixed mode takes its vertex count and start register from the DVLE.
    """
    arithmetic = precision_of(precision, rounding)
    stream = geometry_stream(shbin, inputs, uniforms=uniforms, vs_dvle=vs_dvle,
                             gs_dvle=gs_dvle, precision=precision, rounding=rounding,
                             engine=engine, max_steps=max_steps, stride=stride,
                             primitive_sizes=primitive_sizes, registers=registers)
    gs_exe, feed = stream.executable, stream.feed
    state = initial_state(gs_exe, {}, uniforms=gs_uniforms, precision=arithmetic)
    log, emission = run_geometry_engine(engine, gs_exe.program, state.lane(0), gs_exe.entry,
                                        gs_exe.output_registers, feed, precision=arithmetic,
                                        max_steps=check_max_steps(max_steps))
    geometry = build_result(gs_exe, log, arithmetic, emission, registers)
    gs = gs_exe.dvle
    semantic = {} if gs.merge_outmaps else by_semantic(gs, geometry.vertices, emission.count)
    return PipelineResult(stream.vertex, geometry, semantic)


@dataclass(frozen=True, slots=True)
class GeometryStream:
    """The first half of :func:`run_pipeline`: the vertex shader's result, the geometry
    DVLE chosen and what its unit receives before each invocation."""

    vertex: RunResult
    executable: Executable
    feed: GeometryFeed


def geometry_stream(shbin: Shbin, inputs: Mapping[str, object], *,
                    uniforms: Mapping[str, object] | None = None,
                    vs_dvle: int | None = None, gs_dvle: int | None = None,
                    precision: Precision = "f24", rounding: Rounding = DEFAULT_ROUNDING,
                    engine: str = AUTO, max_steps: int = 100_000, stride: int | None = None,
                    primitive_sizes: Sequence[int] | None = None,
                    registers: bool = False) -> GeometryStream:
    """Run the vertex shader and deliver its outputs in the geometry DVLE's input mode
    (arguments as for :func:`run_pipeline`)."""
    arithmetic = precision_of(precision, rounding)
    if not isinstance(shbin, Shbin):
        raise InputError(f"run_pipeline needs a Shbin, got {type(shbin).__name__}")
    vs_index = _pick(shbin, vs_dvle, ShaderType.VERTEX, "vs_dvle")
    gs_index = _pick(shbin, gs_dvle, ShaderType.GEOMETRY, "gs_dvle")
    vertex = run(shbin, inputs, uniforms=uniforms, dvle=vs_index, precision=precision,
                 rounding=rounding, engine=engine, max_steps=max_steps, registers=registers)

    vs_exe = executable(shbin, vs_index)
    gs_exe = executable(shbin, gs_index)
    registers = vs_exe.output_registers
    if not registers:
        raise InputError("the vertex shader DVLE has no outputs to pass on")
    attributes = np.stack([vertex.outputs[f"o{r}"] for r in registers], axis=1)

    gs = gs_exe.dvle
    mode = GeometryMode(int(gs.geometry_mode))
    if mode is GeometryMode.POINT:
        feed = point_feed(attributes, len(registers) if stride is None else stride)
    elif mode is GeometryMode.FIXED:
        feed = fixed_feed(attributes, gs.fixed_vertex_start, gs.fixed_vertex_count)
    else:
        sizes = [attributes.shape[0]] if primitive_sizes is None else list(primitive_sizes)
        feed = variable_feed(attributes, sizes, gs.variable_vertex_count, arithmetic)
    return GeometryStream(vertex, gs_exe, feed)


def _pick(shbin: Shbin, index: int | None, kind: ShaderType, what: str) -> int:
    if index is None:
        for i, entry in enumerate(shbin.entries):
            if entry.shader_type == kind:
                return i
        raise InputError(f"the SHBIN has no {kind.name.lower()} shader DVLE")
    if isinstance(index, bool) or not isinstance(index, int) or not (
            0 <= index < len(shbin.entries)):
        raise InputError(f"{what} must be 0..{len(shbin.entries) - 1}, got {index!r}")
    if shbin.entries[index].shader_type != kind:
        raise InputError(f"{what}={index} is not a {kind.name.lower()} shader DVLE")
    return index
