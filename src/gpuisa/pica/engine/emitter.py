"""SETEMIT/EMIT: the geometry shader's vertex buffer and primitive emission.

Seed SETEMIT/EMIT rows and notes §6: SETEMIT stores VTXID, FLAG_PRIMEMIT and
FLAG_WINDING for the following EMITs.  EMIT copies the output registers of the output
mask, from the active output bank, into vertex buffer entry VTXID and flips the active
bank (notes §6.2, Azahar PR #2338).  With FLAG_PRIMEMIT, buffer entries 0, 1, 2 form a
triangle, its order reversed when FLAG_WINDING is set (3Beans submits the vertices in
reverse order).  The buffer (4 entries) is never cleared, so a later primitive can reuse
earlier vertices (seed: "working hypothesis").

Every EMIT produces one vertex in :attr:`Emitter.vertices`; buffer entries and
primitives refer to vertices by their index there.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...errors import ShaderFault
from ..isa import GS_VERTEX_BUFFER_ENTRIES
from .state import ShaderState

#: Buffer entries that form the emitted triangle (notes §6.1).
TRIANGLE_ENTRIES = (0, 1, 2)


@dataclass(slots=True)
class Emitter:
    """Emission state of a geometry shader unit; persists across invocations.

    ``registers`` are the output registers an EMIT copies (the DVLE's output mask), in
    ascending order; each vertex is a ``(len(registers), 4)`` float32 array.
    """

    registers: tuple[int, ...]
    vertex_id: int = 0
    primitive: bool = False
    winding: bool = False
    buffer: list[int | None] = field(
        default_factory=lambda: [None] * GS_VERTEX_BUFFER_ENTRIES)
    vertices: list[np.ndarray] = field(default_factory=list)
    primitives: list[tuple[int, int, int]] = field(default_factory=list)
    windings: list[bool] = field(default_factory=list)

    def setemit(self, vertex_id: int, primitive: bool, winding: bool) -> None:
        self.vertex_id = vertex_id
        self.primitive = primitive
        self.winding = winding

    def emit(self, state: ShaderState, pc: int) -> None:
        """EMIT for a one-lane state."""
        bank = state.outputs[state.bank]
        self.vertices.append(np.stack([bank[r][:, 0] for r in self.registers])
                             if self.registers else np.zeros((0, 4), np.float32))
        self.buffer[self.vertex_id] = len(self.vertices) - 1
        if self.primitive:
            entries = [self.buffer[e] for e in TRIANGLE_ENTRIES]
            unset = [e for e, v in zip(TRIANGLE_ENTRIES, entries, strict=True) if v is None]
            if unset:
                raise ShaderFault(f"primitive emitted with vertex buffer entry {unset[0]} "
                                  f"never written by EMIT", pc=pc)
            triangle = tuple(entries[::-1] if self.winding else entries)
            self.primitives.append(triangle)  # type: ignore[arg-type]
            self.windings.append(self.winding)
        state.bank ^= 1
