"""A geometry shader unit's emitted vertices and primitives, for the reference engine.

The rules of SETEMIT and EMIT (vertex buffer, primitive emission, winding, output
banking; 3dbrew's SETEMIT/EMIT rows, pica-emulation.md#geometry) are :mod:`..flow.emission`; this
module keeps what they produce: every EMIT copies the output registers of the DVLE's output mask
from the active bank into :attr:`Emitter.vertices`; buffer entries and primitives refer to
vertices by their index there.  The state persists across invocations of the unit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ....errors import ShaderFault
from ...flow import emission
from .values import narrow

if TYPE_CHECKING:
    from .lanes import Lane

#: Buffer entries that form the emitted triangle (pica-emulation.md#emit).
TRIANGLE_ENTRIES = (0, 1, 2)


@dataclass(slots=True)
class Emitter:
    """Emission state of a geometry shader unit: ``state`` is :mod:`..flow.emission`'s
    (its BANK is the unit's active output bank while it runs); each vertex is a
    ``(len(registers), 4)`` float32 array of the output registers ``registers``."""

    registers: tuple[int, ...]
    state: list[int] = field(default_factory=emission.new_emission)
    vertices: list[np.ndarray] = field(default_factory=list)
    primitives: list[tuple[int, int, int]] = field(default_factory=list)
    windings: list[bool] = field(default_factory=list)

    def setemit(self, vertex_id: int, primitive: bool, winding: bool) -> None:
        emission.setemit(self.state, vertex_id, primitive, winding)

    def emit(self, lane: Lane, pc: int) -> None:
        """EMIT on a lane: copy its active bank's registers, then the emission rules."""
        self.state[emission.BANK] = lane.bank
        bank = lane.o[lane.bank]
        values = np.array([bank[r] for r in self.registers], dtype=np.float64)
        self.vertices.append(narrow(values.reshape(len(self.registers), 4)))
        what, a, b, c = emission.emit(self.state, len(self.vertices) - 1)
        if what == emission.FAULT:
            raise ShaderFault(f"primitive emitted with vertex buffer entry {a} never "
                              f"written by EMIT", pc=pc)
        if what == emission.PRIMITIVE:
            self.primitives.append((a, b, c))
            self.windings.append(self.state[emission.WINDING] != 0)
        lane.bank = self.state[emission.BANK]
