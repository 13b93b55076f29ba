"""Geometry shader invocations and the three ways their input is delivered.

A geometry shader unit keeps its registers between invocations (pica-emulation.md#initial-state:
registers are not reset, and geometry shaders rely on it, Citra PR #3787), and so does its
emission state (the reference engine's :mod:`.reference.emitter`).  After every
invocation the hardware sets b15 = true (picasso manual; Azahar
``GeometryPipeline::SubmitVertex``; pica-emulation.md#gs-input).  The reference engine's geometry
runs are :mod:`.reference.geometry`, the compiled engine's :mod:`.compiled.geometryrun`.

Input modes (DVLE ``.gsh`` mode, pica-emulation.md#gs-input; layout as Azahar's
``geometry_pipeline.cpp`` loads it, the reference implementation):

point (0)
    The vertex shader outputs of ``stride / k`` consecutive vertices (k = outputs per
    vertex) fill the input registers v0, v1, ... of one invocation (``stride`` is the
    application's GS input stride, libctru ``shaderProgramSetGsh``).
variable (1)
    A primitive of n vertices (n is the first index of the batch): c0 = (n, n, n, n);
    from c1 on, the first ``variable_vertex_count`` (DVLE) vertices with all k outputs,
    the rest with their first output only.
fixed (2)
    ``fixed_vertex_count`` (DVLE) vertices of k outputs each are written to consecutive
    float uniforms starting at c``fixed_vertex_start``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...errors import InputError
from ..isa import NUM_FLOAT_UNIFORMS, NUM_INPUTS
from .loading import Arithmetic, load_floats
from .state import RegisterFile, ShaderState, Uniforms

#: The bool uniform the hardware sets after each geometry shader invocation.
GS_DONE_BOOL = 15


@dataclass(frozen=True, slots=True)
class InvocationLog:
    """Registers at the END of each invocation (component-major, N = invocations)."""

    # (16, 4, N) arrays (geometry runs) or the register files of a vertex shader run.
    outputs: np.ndarray | RegisterFile  # the active output bank
    temporaries: np.ndarray | RegisterFile
    address: np.ndarray  # (3, N)
    cmp: np.ndarray  # (2, N)
    steps: np.ndarray  # (N,)


@dataclass(frozen=True, slots=True)
class GeometryFeed:
    """What a geometry shader unit receives before each of ``count`` invocations.

    ``inputs`` are the input registers of every invocation, component-major
    ``(16, 4, count)`` (None: the feed sets no inputs); ``input_given`` marks the
    registers set.  ``uniforms`` maps a float uniform register to ``(values (count, 4),
    loaded (count,))``: before invocation i the register is set to ``values[i]`` if
    ``loaded[i]``; otherwise it keeps its earlier value (registers persist).
    """

    count: int
    inputs: np.ndarray | None
    input_given: np.ndarray
    uniforms: dict[int, tuple[np.ndarray, np.ndarray]]

    def apply(self, unit: ShaderState, index: int) -> None:
        """Prepare the one-lane ``unit`` for invocation ``index``."""
        if self.inputs is not None:
            unit.inputs.assign(self.inputs[..., index:index + 1])
            unit.input_given[...] = self.input_given
        for number, (values, loaded) in self.uniforms.items():
            if loaded[index]:
                unit.uniforms.set_float(number, values[index])

    def lane_uniforms(self, initial: Uniforms) -> dict[int, tuple[np.ndarray, np.ndarray]]:
        """Each fed register's value in every invocation, given the unit's uniforms before
        the first: register -> (values (4, count), given (count,))."""
        out = {}
        lanes = np.arange(self.count)
        for number, (values, loaded) in self.uniforms.items():
            last = np.maximum.accumulate(np.where(loaded, lanes, -1))
            table = np.concatenate([initial.floats[number][np.newaxis], values])
            out[number] = (np.ascontiguousarray(table[last + 1].T),
                           (last >= 0) | bool(initial.float_given[number]))
        return out


def register_feed(inputs: RegisterFile, given: np.ndarray) -> GeometryFeed:
    """One invocation per lane of ``inputs``: v registers set directly."""
    return GeometryFeed(inputs.lanes, inputs.stacked(), given.copy(), {})


def point_feed(attributes: np.ndarray, stride: int) -> GeometryFeed:
    """Point mode: ``attributes`` is ``(V, k, 4)``, the k outputs of each vertex."""
    vertices, k, _ = attributes.shape
    if not 1 <= stride <= NUM_INPUTS or stride % k:
        raise InputError(f"geometry stride {stride} must be a multiple of the {k} vertex "
                         f"shader outputs per vertex, at most {NUM_INPUTS}")
    group = stride // k
    if vertices % group:
        raise InputError(f"{vertices} vertices do not fill whole geometry shader "
                         f"invocations of {group} vertices each")
    count = vertices // group
    flat = attributes.reshape(count, stride, 4)
    inputs = np.zeros((NUM_INPUTS, 4, count), dtype=np.float32)
    inputs[:stride] = flat.transpose(1, 2, 0)
    given = np.zeros(NUM_INPUTS, dtype=bool)
    given[:stride] = True
    return GeometryFeed(count, inputs, given, {})


def _uniform_feed(count: int, start: int, rows: np.ndarray) -> GeometryFeed:
    """Registers c``start``... set from ``rows`` ``(count, k, 4)`` before every
    invocation."""
    loaded = np.ones(count, dtype=bool)
    uniforms = {start + r: (np.ascontiguousarray(rows[:, r]), loaded)
                for r in range(rows.shape[1])}
    return GeometryFeed(count, None, np.zeros(NUM_INPUTS, dtype=bool), uniforms)


def fixed_feed(attributes: np.ndarray, start: int, count: int) -> GeometryFeed:
    """Fixed mode: ``count`` vertices per invocation from c``start`` on."""
    vertices, k, _ = attributes.shape
    if count < 1:
        raise InputError("fixed-mode geometry shader: the DVLE's fixed vertex count is 0")
    if start + count * k > NUM_FLOAT_UNIFORMS:
        raise InputError(f"fixed-mode geometry shader: {count} vertices of {k} outputs from "
                         f"c{start} do not fit in c0-c{NUM_FLOAT_UNIFORMS - 1}")
    if vertices % count:
        raise InputError(f"{vertices} vertices do not fill whole fixed-mode primitives of "
                         f"{count} vertices")
    return _uniform_feed(vertices // count, start,
                         attributes.reshape(vertices // count, count * k, 4))


def variable_feed(attributes: np.ndarray, sizes: Sequence[int], full: int,
                  precision: Arithmetic) -> GeometryFeed:
    """Variable mode: one invocation per primitive of ``sizes[i]`` vertices."""
    vertices, k, _ = attributes.shape
    if sum(sizes) != vertices:
        raise InputError(f"primitive sizes add up to {sum(sizes)} vertices, the vertex "
                         f"shader produced {vertices}")
    valid = next((i for i, size in enumerate(sizes)
                  if not isinstance(size, int | np.integer) or size < 1), len(sizes))
    counts = np.asarray(sizes[:valid], dtype=np.int64)
    whole = np.minimum(counts, full)  # vertices with all k outputs; the rest: the first
    rows = 1 + whole * k + (counts - whole)
    too_many = np.flatnonzero(rows > NUM_FLOAT_UNIFORMS)
    if len(too_many):  # the first problem in primitive order is reported
        index = int(too_many[0])
        raise InputError(f"variable-mode primitive of {counts[index]} vertices needs "
                         f"{rows[index]} float uniforms; there are {NUM_FLOAT_UNIFORMS}")
    if valid < len(sizes):
        raise InputError(f"variable-mode primitive sizes must be positive integers, got "
                         f"{sizes[valid]!r}")
    firsts = np.cumsum(counts) - counts
    uniforms = {0: (load_floats(np.repeat(counts.astype(np.float64)[:, np.newaxis], 4,
                                          axis=1), precision), np.ones(len(counts), bool))}
    for number in range(1, int(rows.max(initial=1))):
        loaded = number < rows
        row = number - 1
        in_whole = row < whole * k
        vertex = np.where(in_whole, row // k, whole + (row - whole * k))
        output = np.where(in_whole, row % k, 0)
        picked = np.where(loaded, firsts + vertex, 0)
        values = np.where(loaded[:, np.newaxis], attributes[picked, output], 0)
        uniforms[number] = (values.astype(np.float32), loaded)
    return GeometryFeed(len(counts), None, np.zeros(NUM_INPUTS, dtype=bool), uniforms)


@dataclass(frozen=True, slots=True)
class Emission:
    """What a geometry shader run emitted (see :class:`~.api.RunResult`): ``count``
    vertices (output register name -> ``(count, 4)``), ``primitives`` ``(P, 3)`` indices
    into them and ``windings`` ``(P,)``."""

    count: int
    vertices: dict[str, np.ndarray]
    primitives: np.ndarray
    windings: np.ndarray

    def fields(self) -> dict[str, object]:
        return dict(vertices=self.vertices, primitives=self.primitives,
                    windings=self.windings)
