"""The program a check run looks at, whatever it was read from: the SHBIN, the effect of
every word, one :class:`Unit` per DVLE, and the raw records checks return before they are
placed in a source or a binary (:class:`Raw`, located by an anchor)."""

from __future__ import annotations

from dataclasses import dataclass

from ..shbin import Dvle, ShaderType

#: Where a record points: ("word", pc), ("dst", pc) (the destination operand of the word
#: at pc), ("entry", unit) (the entry procedure), ("dvle", unit), ("program", 0).
Anchor = tuple[str, int]


@dataclass(frozen=True, slots=True)
class Raw:
    """A finding before it is placed; ``related``: other places of the same cause, each
    (anchor, what happens there)."""

    check: str
    message: str
    anchor: Anchor
    note: str | None = None
    related: tuple[tuple[Anchor, str], ...] = ()


@dataclass(frozen=True, slots=True)
class Unit:
    """One DVLE: its index, a name for messages (file name or "DVLE n"), the entry
    point's name and code range [start, stop)."""

    index: int
    name: str
    entry: str
    dvle: Dvle
    start: int
    stop: int

    @property
    def geometry(self) -> bool:
        return self.dvle.shader_type is ShaderType.GEOMETRY


def component_names(bits: int, prefix: str) -> str:
    """``o0.xy, o2.w``-style names of register-component bits (4 * register + c)."""
    names = []
    for reg in range(16):
        comps = "".join("xyzw"[c] for c in range(4) if bits >> (4 * reg + c) & 1)
        if comps:
            names.append(f"{prefix}{reg}.{comps}")
    return ", ".join(names)


def component_list(bits: int, prefix: str) -> str:
    """``o0.x, o0.y``-style names, one per component (the assembler's wording)."""
    return ", ".join(f"{prefix}{b // 4}.{'xyzw'[b % 4]}" for b in range(64) if bits >> b & 1)
