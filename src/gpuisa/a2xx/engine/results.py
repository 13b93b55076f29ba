"""What a run returns.  Per-invocation values are rows: vec4s are ``(N, 4)`` float32."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import isa


@dataclass(frozen=True, slots=True)
class Alloc:
    """An ALLOC clause some invocation executed: ``size`` = number of exports - 1."""

    cf_index: int
    buffer: isa.AllocBuffer
    size: int


@dataclass(frozen=True, slots=True)
class ShaderResult:
    """The final state of every invocation.

    ``exports`` maps each export register an executed instruction wrote (0-63, a2xx-isa.md#exports)
    to its value; components never written are 0.0.  ``registers`` holds the final value
    of every temp register that was given or written.  ``killed`` is set for invocations
    that executed a KILL* operation whose condition held; they still ran to the end.
    ``predicate``, ``address`` and ``previous_scalar`` are the final p0, a0 and ps.
    ``unsupported_fetches`` lists the slots of texture fetches that returned zeros
    because they could not be emulated.
    """

    exports: dict[int, np.ndarray]
    registers: dict[int, np.ndarray]
    killed: np.ndarray
    predicate: np.ndarray
    address: np.ndarray
    previous_scalar: np.ndarray
    allocs: tuple[Alloc, ...]
    unsupported_fetches: tuple[int, ...]

    @property
    def count(self) -> int:
        return len(self.killed)

    def export(self, number: int) -> np.ndarray:
        """Export register ``number`` as (N, 4); zeros if nothing wrote it."""
        value = self.exports.get(number)
        return np.zeros((self.count, 4), dtype=np.float32) if value is None else value


@dataclass(frozen=True, slots=True)
class VertexResult(ShaderResult):
    """A vertex shader run: ``position`` (export 62), ``point_size`` (x of export 63)
    and ``params`` (the interpolators, exports 0-15, that were written)."""

    @property
    def position(self) -> np.ndarray:
        return self.export(isa.EXPORT_POSITION)

    @property
    def point_size(self) -> np.ndarray:
        return self.export(isa.EXPORT_POINT_SIZE)[:, 0]

    @property
    def params(self) -> dict[int, np.ndarray]:
        return {n: v for n, v in self.exports.items() if n < isa.EXPORT_INTERPOLATORS}


@dataclass(frozen=True, slots=True)
class FragmentResult(ShaderResult):
    """A pixel shader run: ``colors`` (exports 0-3 that were written; 0 is gl_FragColor)
    and ``depth`` (x of export 61, None if not written)."""

    @property
    def colors(self) -> dict[int, np.ndarray]:
        return {n: v for n, v in self.exports.items() if n < isa.EXPORT_COLORS}

    @property
    def color(self) -> np.ndarray:
        return self.export(isa.EXPORT_FRAG_COLOR)

    @property
    def depth(self) -> np.ndarray | None:
        value = self.exports.get(isa.EXPORT_DEPTH)
        return None if value is None else value[:, 0]
