"""Geometry shader invocations and the three ways their input is delivered.

A geometry shader unit keeps its registers between invocations (notes §4.2: registers
are not reset, and geometry shaders rely on it, Citra PR #3787), and so does its
emission state (:mod:`.emitter`).  After every invocation the hardware sets b15 = true
(picasso manual; Azahar ``GeometryPipeline::SubmitVertex``; notes §6.3).

Input modes (DVLE ``.gsh`` mode, notes §6.3; layout as Azahar's
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

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ...errors import InputError
from ..isa import NUM_FLOAT_UNIFORMS, NUM_INPUTS
from .decode import DecodedProgram
from .emitter import Emitter
from .reference import run_invocation
from .semantics import Precision, load_floats
from .state import ShaderState

#: The bool uniform the hardware sets after each geometry shader invocation.
GS_DONE_BOOL = 15

#: Prepares the unit for one invocation (loads its inputs).
Load = Callable[[ShaderState], None]


@dataclass(frozen=True, slots=True)
class InvocationLog:
    """Registers at the END of each invocation (component-major, N = invocations)."""

    outputs: np.ndarray  # (16, 4, N): the active output bank
    temporaries: np.ndarray  # (16, 4, N)
    address: np.ndarray  # (3, N)
    cmp: np.ndarray  # (2, N)
    steps: np.ndarray  # (N,)


def run_geometry(program: DecodedProgram, unit: ShaderState, entry: int, emitter: Emitter,
                 loads: Sequence[Load], *, precision: Precision,
                 max_steps: int) -> InvocationLog:
    """Run one invocation per load on the persistent one-lane ``unit``."""
    ends = []
    for load in loads:
        load(unit)
        steps = run_invocation(program, unit, entry, precision=precision,
                               max_steps=max_steps, emitter=emitter)
        ends.append((unit.outputs[unit.bank].copy(), unit.temporaries.copy(),
                     unit.address.copy(), unit.cmp.copy(), steps))
        unit.uniforms.set_bool(GS_DONE_BOOL, True)
    if not ends:
        raise InputError("the geometry shader has no input to run on")
    return InvocationLog(
        outputs=np.concatenate([e[0] for e in ends], axis=-1),
        temporaries=np.concatenate([e[1] for e in ends], axis=-1),
        address=np.concatenate([e[2] for e in ends], axis=-1),
        cmp=np.concatenate([e[3] for e in ends], axis=-1),
        steps=np.array([e[4] for e in ends], dtype=np.int64),
    )


def register_loads(inputs: np.ndarray, given: np.ndarray) -> list[Load]:
    """One invocation per lane of ``inputs`` ``(16, 4, N)``: v registers set directly."""

    def load(lane: int) -> Load:
        def apply(unit: ShaderState) -> None:
            unit.inputs[...] = inputs[..., lane:lane + 1]
            unit.input_given[...] = given
        return apply

    return [load(lane) for lane in range(inputs.shape[-1])]


def point_loads(attributes: np.ndarray, stride: int) -> list[Load]:
    """Point mode: ``attributes`` is ``(V, k, 4)``, the k outputs of each vertex."""
    vertices, k, _ = attributes.shape
    if not 1 <= stride <= NUM_INPUTS or stride % k:
        raise InputError(f"geometry stride {stride} must be a multiple of the {k} vertex "
                         f"shader outputs per vertex, at most {NUM_INPUTS}")
    group = stride // k
    if vertices % group:
        raise InputError(f"{vertices} vertices do not fill whole geometry shader "
                         f"invocations of {group} vertices each")
    flat = attributes.reshape(vertices // group, stride, 4)

    def load(values: np.ndarray) -> Load:
        def apply(unit: ShaderState) -> None:
            unit.inputs[:stride, :, 0] = values
            unit.input_given[:stride] = True
        return apply

    return [load(values) for values in flat]


def fixed_loads(attributes: np.ndarray, start: int, count: int) -> list[Load]:
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
    flat = attributes.reshape(vertices // count, count * k, 4)

    def load(values: np.ndarray) -> Load:
        def apply(unit: ShaderState) -> None:
            for offset, value in enumerate(values):
                unit.uniforms.set_float(start + offset, value)
        return apply

    return [load(values) for values in flat]


def variable_loads(attributes: np.ndarray, sizes: Sequence[int], full: int,
                   precision: Precision) -> list[Load]:
    """Variable mode: one invocation per primitive of ``sizes[i]`` vertices."""
    vertices = attributes.shape[0]
    if sum(sizes) != vertices:
        raise InputError(f"primitive sizes add up to {sum(sizes)} vertices, the vertex "
                         f"shader produced {vertices}")
    loads: list[Load] = []
    first = 0
    for size in sizes:
        if not isinstance(size, int | np.integer) or size < 1:
            raise InputError(f"variable-mode primitive sizes must be positive integers, got "
                             f"{size!r}")
        prim = attributes[first:first + size]
        first += size
        rows = [load_floats(np.full(4, float(size)), precision)]
        rows += [vector for vertex in prim[:full] for vector in vertex]
        rows += [vertex[0] for vertex in prim[full:]]
        if len(rows) > NUM_FLOAT_UNIFORMS:
            raise InputError(f"variable-mode primitive of {size} vertices needs "
                             f"{len(rows)} float uniforms; there are {NUM_FLOAT_UNIFORMS}")

        def load(values: list[np.ndarray]) -> Load:
            def apply(unit: ShaderState) -> None:
                for number, value in enumerate(values):
                    unit.uniforms.set_float(number, value)
            return apply

        loads.append(load(rows))
    return loads
