"""Uniform and constant register allocation (pica-assembly.md#allocation).

Each pool hands out global uniforms upward from ``start`` and local constants downward
from ``end``; ``bound`` remembers the lowest local register ever used so that a later
global can never take a register some earlier file used for a constant.  At the start of
each file the local end returns to the top, so every DVLE's first ``.constf`` is c95.

gpuisa's explicit placement (``.fvec mvp[4] c4``, picasso issue #36) takes registers out
of both directions of the pool; without it the pools behave exactly like picasso's.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..shbin.records import ConstantKind
from .operands import B_BASE, B_END, C_BASE, C_END, I_BASE, I_END

#: picasso: the hardware sets b15 after each geometry-shader run, so geometry space stops
#: at b14 (pica-assembly.md#pools).
GEOMETRY_BOOL_END = B_END - 1


def _overlaps(pos: int, size: int, regs: set[int]) -> bool:
    return any(r in regs for r in range(pos, pos + size))


@dataclass(slots=True)
class Pool:
    """One register bank's allocator."""

    start: int
    end: int
    first: int = field(init=False)
    top: int = field(init=False)
    bound: int = field(init=False)
    #: Explicitly placed registers: global ones (kept for the whole run) and local ones
    #: of the current file / of any file.
    explicit_global: set[int] = field(default_factory=set)
    explicit_local_file: set[int] = field(default_factory=set)
    explicit_local_ever: set[int] = field(default_factory=set)
    #: Every register handed out, for the conflict checks of explicit placement.
    used_global: set[int] = field(default_factory=set)
    used_local_file: set[int] = field(default_factory=set)
    used_local_ever: set[int] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.first = self.start
        self.top = self.end
        self.bound = self.end

    def clear_local(self) -> None:
        self.end = self.top
        self.explicit_local_file.clear()
        self.used_local_file.clear()

    def alloc_global(self, size: int) -> int | None:
        pos = self.start
        avoid = self.explicit_global | self.explicit_local_ever
        while avoid and _overlaps(pos, size, avoid) and pos + size <= self.bound:
            pos += 1
        if pos + size > self.bound:
            return None
        self.start = pos + size
        self.used_global.update(range(pos, pos + size))
        return pos

    def alloc_local(self, size: int) -> int | None:
        pos = self.end - size
        avoid = self.explicit_global | self.explicit_local_file
        while avoid and _overlaps(pos, size, avoid) and pos >= self.start:
            pos -= 1
        if pos < self.start:
            return None
        self.end = pos
        self.bound = min(self.bound, pos)
        self._mark_local(pos, size)
        return pos

    def contains(self, pos: int, size: int) -> bool:
        return self.first <= pos and pos + size <= self.top

    def place_global(self, pos: int, size: int) -> str | None:
        """Reserve ``pos..pos+size-1`` for a global uniform; a problem description or None."""
        if _overlaps(pos, size, self.used_global | self.used_local_ever):
            return "already used"
        self.explicit_global.update(range(pos, pos + size))
        self.used_global.update(range(pos, pos + size))
        return None

    def place_local(self, pos: int, size: int) -> str | None:
        """Reserve ``pos..pos+size-1`` for a local constant of this file."""
        if _overlaps(pos, size, self.used_global | self.used_local_file):
            return "already used"
        self.explicit_local_file.update(range(pos, pos + size))
        self.explicit_local_ever.update(range(pos, pos + size))
        self._mark_local(pos, size)
        return None

    def _mark_local(self, pos: int, size: int) -> None:
        self.used_local_file.update(range(pos, pos + size))
        self.used_local_ever.update(range(pos, pos + size))


@dataclass(slots=True)
class PoolBundle:
    """The float, int and bool pools of one uniform space."""

    pools: dict[ConstantKind, Pool]

    @classmethod
    def vertex(cls) -> PoolBundle:
        return cls({ConstantKind.FLOAT: Pool(C_BASE, C_END), ConstantKind.INT: Pool(I_BASE, I_END),
                    ConstantKind.BOOL: Pool(B_BASE, B_END)})

    @classmethod
    def geometry(cls, first_float: int) -> PoolBundle:
        """The private space a ``.gsh MODE cF`` opens: c(F)-c95, i0-i3, b0-b14."""
        return cls({ConstantKind.FLOAT: Pool(first_float, C_END),
                    ConstantKind.INT: Pool(I_BASE, I_END),
                    ConstantKind.BOOL: Pool(B_BASE, GEOMETRY_BOOL_END)})

    def __getitem__(self, kind: ConstantKind) -> Pool:
        return self.pools[kind]

    def clear_local(self) -> None:
        for pool in self.pools.values():
            pool.clear_local()


@dataclass(frozen=True, slots=True)
class UniformRecord:
    """A declared uniform: name as written, first register id, size, type."""

    name: str
    reg: int
    size: int
    kind: ConstantKind
