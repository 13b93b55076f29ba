"""The reference engine's geometry shader runs: the invocations of a feed one after
another on the persistent one-lane unit (:mod:`..geometry`), emitting through an
:class:`~.emitter.Emitter`.
"""

from __future__ import annotations

import numpy as np

from ....errors import InputError
from ..decode import DecodedProgram
from ..geometry import GS_DONE_BOOL, Emission, GeometryFeed, InvocationLog
from ..loading import Arithmetic
from ..state import ShaderState
from . import run_invocation
from .emitter import Emitter


def run_geometry(program: DecodedProgram, unit: ShaderState, entry: int, emitter: Emitter,
                 feed: GeometryFeed, *, precision: Arithmetic, max_steps: int) -> InvocationLog:
    """Run one invocation per entry of the feed on the persistent one-lane ``unit``."""
    if feed.count == 0:
        raise InputError("the geometry shader has no input to run on")
    ends = []
    for index in range(feed.count):
        feed.apply(unit, index)
        steps = run_invocation(program, unit, entry, precision=precision,
                               max_steps=max_steps, emitter=emitter)
        ends.append((unit.outputs[unit.bank].stacked(), unit.temporaries.stacked(),
                     unit.address.copy(), unit.cmp.copy(), steps))
        unit.uniforms.set_bool(GS_DONE_BOOL, True)
    return InvocationLog(
        outputs=np.concatenate([e[0] for e in ends], axis=-1),
        temporaries=np.concatenate([e[1] for e in ends], axis=-1),
        address=np.concatenate([e[2] for e in ends], axis=-1),
        cmp=np.concatenate([e[3] for e in ends], axis=-1),
        steps=np.array([e[4] for e in ends], dtype=np.int64),
    )


def emitted(emitter: Emitter) -> Emission:
    """The :class:`~..geometry.Emission` of an emitter."""
    count = len(emitter.vertices)
    stacked = (np.stack(emitter.vertices) if count
               else np.zeros((0, len(emitter.registers), 4), dtype=np.float32))
    return Emission(
        count,
        {f"o{r}": stacked[:, k].copy() for k, r in enumerate(emitter.registers)},
        np.array(emitter.primitives, dtype=np.int64).reshape(-1, 3),
        np.array(emitter.windings, dtype=bool),
    )


def reference_geometry(program: DecodedProgram, unit: ShaderState, entry: int,
                       registers: tuple[int, ...], feed: GeometryFeed, *,
                       precision: Arithmetic,
                       max_steps: int) -> tuple[InvocationLog, Emission]:
    """The reference engine's geometry shader run (see :data:`..api.GEOMETRY_ENGINES`)."""
    emitter = Emitter(registers)
    log = run_geometry(program, unit, entry, emitter, feed, precision=precision,
                       max_steps=max_steps)
    return log, emitted(emitter)
