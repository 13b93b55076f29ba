"""The data of the lanes executing together in the batch engine.

A :class:`Group` is a set of lanes that share their control state — program counter,
aL, the IF/CALL/LOOP stacks, the output bank and (for geometry shaders) the emission
state — so one instruction executes for all of them at once.  What differs per lane
lives in a :class:`Store`: the registers as component-major ``(4, w)`` float32 arrays
(cmp flags and a0.x/a0.y as ``(2, w)`` arrays under the keys :data:`CMP` and
:data:`A0`), per-lane step counts beyond the group's count, per-lane uniforms of
geometry shaders.  A group's :class:`LaneFile` is the store plus the columns the group
owns (``active``; None: all of them).

All groups of a chunk normally share the chunk's store: instructions compute every
column and write only the group's (a bit blend), a split only splits the mask and a
merge joins two masks — no data moves.  A group that shrinks below an eighth of its
store gets a compact store of its own (its columns gathered), so that few lanes looping
on do not pay for all; merging it back scatters its columns into the chunk's store.

Registers are materialised lazily and by component: a component is loaded from the
run's initial values (the store's :class:`Origin`) when first read or partly written;
``dirty`` records what was written, which is all that needs storing at the end.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from .stacks import StackKey

#: Register keys: ('v', n), ('r', n), ('o', bank, n), CMP, A0.
CMP = ("cmp",)
A0 = ("a0",)
#: A group smaller than this fraction of its store's columns gets a store of its own.
COMPACT_BELOW = 1 / 8


def rows_of(key: tuple) -> int:
    return 2 if key in (CMP, A0) else 4


def bits(components: Sequence[int]) -> int:
    out = 0
    for c in components:
        out |= 1 << c
    return out


def _dtype(key: tuple) -> type:
    return bool if key == CMP else np.int64 if key == A0 else np.float32


class Origin(Protocol):
    """Where a store's registers come from before the program writes them."""

    def load(self, key: tuple, rows: list[int], lanes: np.ndarray | None,
             out: np.ndarray) -> None:
        """Write the initial values of ``rows`` of register ``key`` for chunk lanes
        ``lanes`` (None: the whole chunk) into the same rows of ``out``."""


@dataclass(slots=True)
class Store:
    """Per-lane data of ``width`` lanes; column j is chunk lane ``lanes[j]`` (None:
    column j is chunk lane j).  ``valid``/``dirty`` are component bit masks per register:
    loaded or written / written."""

    width: int
    origin: Origin
    lanes: np.ndarray | None = None
    regs: dict[tuple, np.ndarray] = field(default_factory=dict)
    valid: dict[tuple, int] = field(default_factory=dict)
    dirty: dict[tuple, int] = field(default_factory=dict)
    offsets: np.ndarray | None = None
    #: Per-lane float uniform registers (geometry shaders fed through uniforms):
    #: number -> (values (4, w), given (w,)).
    uniforms: dict[int, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    #: Per-lane arrays of later stages (geometry: emission counters), lane axis last.
    extra: dict[str, np.ndarray] = field(default_factory=dict)
    #: Facts about register components, computed on demand and forgotten when the
    #: register is written: (key, rows, what) -> value.
    facts: dict[tuple, object] = field(default_factory=dict)

    def fact(self, key: tuple, rows: tuple[int, ...], what: str, compute) -> object:
        """A cached fact about components ``rows`` of register ``key``."""
        token = (key, rows, what)
        value = self.facts.get(token)
        if value is None:
            value = compute()
            self.facts[token] = value
        return value

    def ensure(self, key: tuple, wanted: int) -> np.ndarray:
        """The register's array with the components in bit mask ``wanted`` loaded."""
        array = self.regs.get(key)
        if array is None:
            array = np.empty((rows_of(key), self.width), dtype=_dtype(key))
            self.regs[key] = array
        have = self.valid.get(key, 0)
        missing = wanted & ~have
        if missing:
            rows = [c for c in range(rows_of(key)) if missing >> c & 1]
            self.origin.load(key, rows, self.lanes, array)
            self.valid[key] = have | missing
        return array

    def mark(self, key: tuple, components: int) -> None:
        self.valid[key] = self.valid.get(key, 0) | components
        self.dirty[key] = self.dirty.get(key, 0) | components
        if self.facts:
            self.facts = {t: v for t, v in self.facts.items() if t[0] != key}

    def step_offsets(self) -> np.ndarray:
        if self.offsets is None:
            self.offsets = np.zeros(self.width, np.int64)
        return self.offsets

    def written(self) -> list[tuple[tuple, list[int], np.ndarray]]:
        """Every (key, written components, array)."""
        return [(key, [c for c in range(rows_of(key)) if mask >> c & 1], self.regs[key])
                for key, mask in self.dirty.items() if mask]

    def gather(self, columns: np.ndarray) -> Store:
        """A compact store holding ``columns`` of this one."""
        return Store(
            width=len(columns), origin=self.origin,
            lanes=columns if self.lanes is None else self.lanes[columns],
            regs={k: np.take(v, columns, axis=1) for k, v in self.regs.items()},
            valid=dict(self.valid), dirty=dict(self.dirty),
            offsets=None if self.offsets is None else self.offsets[columns],
            uniforms={k: (np.take(v, columns, axis=1), g[columns])
                      for k, (v, g) in self.uniforms.items()},
            extra={k: np.take(v, columns, axis=-1) for k, v in self.extra.items()})

    def scatter(self, other: Store, columns: np.ndarray) -> None:
        """Copy ``other``'s lanes into this store's ``columns`` (other is a compact store
        of lanes of this one)."""
        for key, mask in other.valid.items():
            wanted = other.dirty.get(key, 0) | (mask & self.valid.get(key, 0))
            if not wanted:
                continue
            target = self.ensure(key, wanted)
            source = other.regs[key]
            for c in range(rows_of(key)):
                if wanted >> c & 1:
                    target[c, columns] = source[c]
            self.mark(key, other.dirty.get(key, 0))
        if other.offsets is not None:
            self.step_offsets()[columns] = other.offsets
        for number, (values, given) in other.uniforms.items():
            mine = self.uniforms[number]
            mine[0][:, columns] = values
            mine[1][columns] = given
        for name, values in other.extra.items():
            self.extra[name][..., columns] = values


class LaneFile:
    """The lanes of one group: the columns ``active`` (None: all) of a store."""

    __slots__ = ("_blend", "active", "count", "store")

    def __init__(self, store: Store, active: np.ndarray | None = None):
        self.store = store
        self.active = active
        self.count = store.width if active is None else int(np.count_nonzero(active))
        self._blend: np.ndarray | None = None

    @property
    def width(self) -> int:
        return self.store.width

    def columns(self) -> np.ndarray:
        return np.arange(self.store.width) if self.active is None else np.flatnonzero(
            self.active)

    def positions(self) -> np.ndarray:
        """Chunk-local lane of every lane of the group."""
        lanes = self.store.lanes
        columns = self.columns()
        return columns if lanes is None else lanes[columns]

    def offsets(self) -> np.ndarray | None:
        """Steps beyond the group's count, per lane of the group (None: all zero)."""
        offsets = self.store.offsets
        if offsets is None:
            return None
        return offsets if self.active is None else offsets[self.active]

    def max_offset(self) -> int:
        offsets = self.offsets()
        return 0 if offsets is None or not len(offsets) else int(offsets.max())

    # -- registers ------------------------------------------------------------------

    def read(self, key: tuple, rows: Sequence[int] = (0, 1, 2, 3)) -> np.ndarray:
        """Register ``key``, every column, with components ``rows`` loaded."""
        return self.store.ensure(key, bits(rows))

    def write(self, key: tuple, components: Sequence[int], values: Sequence[np.ndarray]) -> None:
        """Set component ``components[i]`` of the group's lanes to ``values[i]`` (a row
        of every column, or anything broadcasting to one)."""
        store = self.store
        wanted = bits(components)
        if self.active is None:
            array = store.ensure(key, 0)
            for c, value in zip(components, values, strict=True):
                array[c] = value
        else:  # other groups' lanes keep their values: load before blending
            array = store.ensure(key, wanted)
            for c, value in zip(components, values, strict=True):
                self._merge(array[c], value)
        store.mark(key, wanted)

    def write_block(self, key: tuple, first: int, block: np.ndarray) -> None:
        """Components first, first + 1, ... from the rows of ``block``."""
        if self.active is None:
            self.store.ensure(key, 0)[first:first + len(block)] = block
            self.store.mark(key, bits(range(first, first + len(block))))
            return
        self.write(key, tuple(range(first, first + len(block))), list(block))

    def _merge(self, row: np.ndarray, value: np.ndarray) -> None:
        if row.dtype != np.float32:
            np.copyto(row, value, where=self.active)
            return
        # bit blend, exact for every pattern: row ^= (row ^ value) & mask
        if self._blend is None:
            self._blend = np.negative(self.active, dtype=np.uint32)  # 0 or all ones
        bits_row = row.view(np.uint32)
        new = np.broadcast_to(np.asarray(value, np.float32), row.shape).view(np.uint32)
        delta = np.bitwise_xor(bits_row, new)
        np.bitwise_and(delta, self._blend, out=delta)
        np.bitwise_xor(bits_row, delta, out=bits_row)

    # -- lanes ----------------------------------------------------------------------

    def select(self, mask: np.ndarray) -> LaneFile:
        """The group's lanes where ``mask`` (over every column) is true; a compact store
        if they are few."""
        active = mask if self.active is None else mask & self.active
        count = int(np.count_nonzero(active))
        if count < COMPACT_BELOW * self.store.width:
            return LaneFile(self.store.gather(np.flatnonzero(active)))
        return LaneFile(self.store, None if count == self.store.width else active)

    def without(self, mask: np.ndarray) -> LaneFile:
        return self.select(~mask)

    def absorb(self, other: LaneFile, shift_self: int, shift_other: int) -> LaneFile:
        """This group's lanes and ``other``'s; lanes of each executed ``shift_*`` more
        steps than the merged group's count."""
        for file, shift in ((self, shift_self), (other, shift_other)):
            if shift:
                offsets = file.store.step_offsets()
                if file.active is None:
                    offsets += shift
                else:
                    offsets[file.active] += shift
        if self.store is other.store:
            if self.active is None or other.active is None:
                return LaneFile(self.store)
            return LaneFile(self.store, self.active | other.active)
        big, small = (self, other) if self.store.width >= other.store.width else (other, self)
        if big.store.lanes is None:  # the chunk's store: bring the compact lanes home
            columns = small.positions()
            big.store.scatter(small.store.gather(small.columns()) if small.active is not None
                              else small.store, columns)
            active = np.zeros(big.store.width, bool) if big.active is None else big.active.copy()
            if big.active is None:
                active[:] = True
            active[columns] = True
            return LaneFile(big.store, None if active.all() else active)
        return LaneFile(_concat([f.store if f.active is None else f.store.gather(f.columns())
                                 for f in (self, other)]))


def _concat(stores: list[Store]) -> Store:
    valid: dict[tuple, int] = {}
    for s in stores:
        for key, mask in s.valid.items():
            valid[key] = valid.get(key, 0) | mask
    dirty: dict[tuple, int] = {}
    for s in stores:
        for key, mask in s.dirty.items():
            dirty[key] = dirty.get(key, 0) | mask
    offsets = None
    if any(s.offsets is not None for s in stores):
        offsets = np.concatenate([s.step_offsets() for s in stores])
    first = stores[0]
    return Store(
        width=sum(s.width for s in stores), origin=first.origin,
        lanes=np.concatenate([np.arange(s.width) if s.lanes is None else s.lanes
                              for s in stores]),
        regs={key: np.concatenate([s.ensure(key, mask) for s in stores], axis=1)
              for key, mask in valid.items()},
        valid=valid, dirty=dirty, offsets=offsets,
        uniforms={k: (np.concatenate([s.uniforms[k][0] for s in stores], axis=1),
                      np.concatenate([s.uniforms[k][1] for s in stores]))
                  for k in first.uniforms},
        extra={k: np.concatenate([s.extra[k] for s in stores], axis=-1) for k in first.extra})


@dataclass(slots=True)
class Group:
    """Lanes sharing one control state.  ``steps`` instructions were executed by every
    lane (plus its store offset); ``extra`` is engine-specific control state that must
    also agree for lanes to run together (geometry shaders: emission state)."""

    pc: int
    al: int
    stacks: StackKey
    file: LaneFile
    steps: int = 0
    bank: int = 0
    extra: tuple = ()
    gid: int = 0
    spare: int = 0  # cached file.max_offset()
    #: Geometry shaders: state bits some lane read before writing them (merged by OR).
    reads: int = 0

    def key(self) -> tuple:
        return (self.pc, self.al, self.stacks, self.bank, self.extra)

    def priority(self) -> tuple[int, int, int]:
        """Groups further behind run first: deeper in CALLs (they return to code the
        others may wait at), then lower program counter (forward branches reconverge)."""
        return (-len(self.stacks[1]), self.pc, self.gid)

    def with_file(self, file: LaneFile, gid: int) -> Group:
        return Group(self.pc, self.al, self.stacks, file, self.steps, self.bank, self.extra,
                     gid, file.max_offset(), self.reads)
