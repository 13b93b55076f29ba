"""The output map libctru derives from a DVLE's output table (shbin-format.md#dvle-outputs).

For each output register o0-o15 the map holds four slot codes, one per component x, y,
z, w: the hardware output attribute slot that component feeds, or 0x1F when unused.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ...errors import ShbinError
from .records import OUTPUT_REGISTERS, OutputEntry, OutputSemantic

#: Slot code of an unused component.
UNUSED_SLOT = 0x1F

#: Semantic -> (first slot code, number of components it consumes).  ``DUMMY`` and
#: unknown codes consume nothing: their register is counted but all its slots stay unused.
SEMANTIC_SLOTS = {
    OutputSemantic.POSITION: (0x00, 4),
    OutputSemantic.NORMALQUAT: (0x04, 4),
    OutputSemantic.COLOR: (0x08, 4),
    OutputSemantic.TEXCOORD0: (0x0C, 2),
    OutputSemantic.TEXCOORD0W: (0x10, 1),
    OutputSemantic.TEXCOORD1: (0x0E, 2),
    OutputSemantic.TEXCOORD2: (0x16, 2),
    OutputSemantic.VIEW: (0x12, 3),
}

_TEXCOORDS = frozenset(
    {
        OutputSemantic.TEXCOORD0,
        OutputSemantic.TEXCOORD0W,
        OutputSemantic.TEXCOORD1,
        OutputSemantic.TEXCOORD2,
    }
)


@dataclass(frozen=True, slots=True)
class OutputMap:
    """Per-register slot codes plus the summary values libctru computes with them."""

    count: int  # registers that have at least one entry
    mask: int  # bit n set = on has at least one entry
    slots: tuple[tuple[int, int, int, int], ...]  # slots[n] = codes of on.x, .y, .z, .w
    texcoord_used: bool  # some entry is a texcoord semantic (libctru's outmapMode = 1)

    @property
    def words(self) -> tuple[int, ...]:
        """The slot codes of each register packed as libctru does: x in bits 0-7 ... w 24-31."""
        return tuple(x | y << 8 | z << 16 | w << 24 for x, y, z, w in self.slots)


def output_map(outputs: Iterable[OutputEntry]) -> OutputMap:
    slots = [[UNUSED_SLOT] * 4 for _ in range(OUTPUT_REGISTERS)]
    mask = 0
    texcoord = False
    for i, entry in enumerate(outputs):
        if not 0 <= entry.register < OUTPUT_REGISTERS:
            raise ShbinError(
                f"output register o{entry.register} does not exist (o0-o15)",
                field=f"outputs[{i}].register",
            )
        mask |= 1 << entry.register
        if entry.semantic not in SEMANTIC_SLOTS:
            continue
        code, wanted = SEMANTIC_SLOTS[entry.semantic]
        texcoord |= entry.semantic in _TEXCOORDS
        # Codes go, consecutively, to the set mask bits in ascending component order.
        for component in range(4):
            if wanted == 0:
                break
            if entry.mask >> component & 1:
                slots[entry.register][component] = code
                code += 1
                wanted -= 1
    return OutputMap(
        count=mask.bit_count(),
        mask=mask,
        slots=tuple(tuple(s) for s in slots),
        texcoord_used=texcoord,
    )
