"""Executing the groups of lanes of one chunk: scheduling, divergence, reconvergence.

Lanes that share their control state form a :class:`~.batch_lanes.Group` and execute
together; the state is exactly the reference engine's (program counter, aL, the
IF/CALL/LOOP stacks of :mod:`.stacks`), so every lane follows the path the reference
engine would take.

Divergence.  A condition on per-lane cmp flags (IFC, CALLC, JMPC, BREAKC) that lanes
disagree on splits a group in two (its lane mask is split; :mod:`.batch_lanes`); so
does a relative uniform read that faults for some lanes, or the step limit reached by
some lanes.  Waiting groups sit in a pool; the group that is furthest behind runs next
(the deepest CALL nesting first, then the lowest program counter), and a group whose
control state becomes equal to a waiting group's absorbs it: lanes reconverge after
IF/ELSE blocks, forward jumps, CALLs and loops left at different times (when they leave
with the same aL).  With uniform control flow there is one group and no bookkeeping
beyond a check that the pool is empty.  The stack effects of flow instructions and the
stack check after each instruction (:func:`~.stacks.flow_effect`,
:func:`~.stacks.next_pc`) are memoised per control state.

Errors.  A lane stops at its first hang or fault, as in the reference engine; the run
keeps the error of the lowest-numbered failing lane (the reference engine runs lanes in
order and reports the first lane that fails), and groups whose lanes all come after it
are dropped.
"""

from __future__ import annotations

import heapq
import itertools
import threading
from collections.abc import Callable

import numpy as np

from ...errors import GpuIsaError, InputError, ShaderFault, ShaderHang
from ..isa import NUM_INT_UNIFORMS, Opcode
from .batch_kernels import LaneFault, RunContext, execute
from .batch_lanes import CMP, Group
from .batch_program import BatchProgram, Instr
from .reference import vertex_error
from .semantics import condition, jmpu_taken
from .stacks import ControlStacks, StackKey, flow_effect, next_pc

_ALU_KINDS = frozenset({"alu", "cmp", "mova", "litp"})


class _Pool:
    """Waiting groups: by control state (for merging) and by priority."""

    def __init__(self) -> None:
        self.heap: list[tuple[tuple[int, int, int], Group]] = []
        self.by_key: dict[tuple, Group] = {}

    def __bool__(self) -> bool:
        return bool(self.by_key)

    def add(self, group: Group) -> None:
        key = group.key()
        other = self.by_key.get(key)
        if other is not None:
            _absorb(other, group)
            return
        self.by_key[key] = group
        heapq.heappush(self.heap, (group.priority(), group))

    def take(self, key: tuple) -> Group | None:
        """Remove and return the waiting group with control state ``key``, if any."""
        return self.by_key.pop(key, None)

    def _clean(self) -> None:
        heap = self.heap
        while heap and self.by_key.get(heap[0][1].key()) is not heap[0][1]:
            heapq.heappop(heap)

    def lowest(self) -> tuple[int, int, int] | None:
        self._clean()
        return self.heap[0][0] if self.heap else None

    def pop(self) -> Group:
        self._clean()
        group = heapq.heappop(self.heap)[1]
        del self.by_key[group.key()]
        return group


def _absorb(into: Group, other: Group) -> None:
    """Merge ``other``'s lanes into ``into`` (equal control states)."""
    low = min(into.steps, other.steps)
    into.file = into.file.absorb(other.file, into.steps - low, other.steps - low)
    into.steps = low
    into.spare = into.file.max_offset()
    into.reads |= other.reads


class Shared:
    """What the chunks of one run share: the program, the run context, the step limit,
    the memoised stack transitions and the first failure (guarded by a lock: chunks may
    run on several threads)."""

    def __init__(self, program: BatchProgram, ctx: RunContext, max_steps: int):
        self.program = program
        self.ctx = ctx
        self.max_steps = max_steps
        self.failure: tuple[int, GpuIsaError] | None = None
        self.transitions: dict[tuple, tuple[int, int, StackKey] | ShaderHang] = {}
        self.gids = itertools.count(1)
        self.lock = threading.Lock()

    def record(self, lane: int, error: GpuIsaError) -> None:
        with self.lock:
            if self.failure is None or lane < self.failure[0]:
                self.failure = (lane, error)

    def failed_before(self, lane: int) -> bool:
        failure = self.failure
        return failure is not None and failure[0] < lane

    def raise_failure(self, lanes: int) -> None:
        if self.failure is None:
            return
        lane, error = self.failure
        if lanes == 1 or not isinstance(error, ShaderHang | ShaderFault):
            raise error
        raise vertex_error(error, lane)


class Runner:
    """Executes the groups of one chunk (global lanes from ``base``); subclasses add the
    chunk's data and geometry-shader behaviour (:meth:`geometry`, :meth:`finish`,
    :meth:`track` when ``tracking``)."""

    tracking = False

    def __init__(self, shared: Shared, base: int):
        self.shared = shared
        self.program = shared.program
        self.ctx = shared.ctx
        self.max_steps = shared.max_steps
        self.base = base

    # -- bookkeeping ------------------------------------------------------------------

    def gid(self) -> int:
        return next(self.shared.gids)

    def fail(self, group: Group, columns: np.ndarray | None,
             error: Callable[[int], GpuIsaError]) -> None:
        """Record the error of the lowest-numbered lane among store ``columns`` (None:
        the group's); ``error(column)`` makes the error of the lane in that column."""
        file = group.file
        candidates = file.columns() if columns is None else columns
        lanes = file.store.lanes
        chunk_lanes = candidates if lanes is None else lanes[candidates]
        best = int(np.argmin(chunk_lanes))
        lane = self.base + int(chunk_lanes[best])
        if not self.shared.failed_before(lane):
            self.shared.record(lane, error(int(candidates[best])))

    def fail_all(self, group: Group, error: GpuIsaError) -> None:
        self.fail(group, None, lambda _position: error)

    def hopeless(self, group: Group) -> bool:
        """Whether every lane of the group comes after an already failed lane."""
        return self.shared.failed_before(self.base + int(group.file.positions().min()))

    # -- scheduling -------------------------------------------------------------------

    def run_groups(self, groups: list[Group]) -> None:
        pool = _Pool()
        for group in groups:
            pool.add(group)
        while pool:
            group = pool.pop()
            if not self.hopeless(group):
                self.advance(group, pool)

    def advance(self, g: Group, pool: _Pool) -> None:
        """Run ``g`` until it ends, fails, splits, or a waiting group is further behind."""
        instrs = self.program.instrs
        count = len(instrs)
        ctx = self.ctx
        while True:
            pc = g.pc
            if not 0 <= pc < count:
                self.fail_all(g, ShaderHang(f"execution ran past the end of the program "
                                            f"({count} words); no END was reached", pc=pc))
                return
            if g.steps + g.spare >= self.max_steps:
                g = self._exhausted(g, pc)
                if g is None:
                    return
            g.steps += 1
            ins = instrs[pc]
            kind = ins.kind
            if self.tracking:
                self.track(ins, g)
            taken: object = None
            if kind in _ALU_KINDS:
                try:
                    execute(ins, g, ctx)
                except LaneFault as fault:
                    g.steps -= 1  # the surviving lanes execute it again
                    g = self._drop(g, fault)
                    if g is None:
                        return
                    continue
            elif kind == "flow":
                try:
                    parts = self._flow(ins, g)
                except InputError as error:
                    self.fail_all(g, error)
                    return
                if len(parts) > 1:
                    for part, part_taken in parts:
                        moved = self._transition(part, ins, part_taken)
                        if moved is not None:
                            pool.add(moved)
                    return
                taken = parts[0][1]
            elif kind == "end":
                self.finish(g)
                return
            elif kind == "fault":
                self.fail_all(g, ShaderFault(ins.fault, pc=pc))  # type: ignore[arg-type]
                return
            elif kind != "nop":
                g = self.geometry(ins, g)
                if g is None:
                    return
            moved = self._transition(g, ins, taken)
            if moved is None:
                return
            g = moved
            if pool:
                other = pool.take(g.key())
                if other is not None:
                    _absorb(g, other)
                lowest = pool.lowest()
                if lowest is not None and lowest < g.priority():
                    pool.add(g)
                    return

    def _exhausted(self, g: Group, pc: int) -> Group | None:
        error = ShaderHang(f"no END after max_steps={self.max_steps} instructions", pc=pc)
        file = g.file
        if file.store.offsets is None:
            self.fail_all(g, error)
            return None
        over = g.steps + file.store.offsets >= self.max_steps
        if file.active is not None:
            over &= file.active
        return self._remove(g, over, lambda _column: error)

    def _drop(self, g: Group, fault: LaneFault) -> Group | None:
        if fault.mask is None:
            self.fail(g, None, fault.error)
            return None
        return self._remove(g, fault.mask, fault.error)

    def _remove(self, g: Group, mask: np.ndarray,
                error: Callable[[int], GpuIsaError]) -> Group | None:
        """Fail the group's lanes in ``mask`` (over every column); the rest go on."""
        self.fail(g, np.flatnonzero(mask), error)
        if int(np.count_nonzero(mask)) == g.file.count:
            return None
        return g.with_file(g.file.without(mask), g.gid)

    # -- control flow -----------------------------------------------------------------

    def _flow(self, ins: Instr, g: Group) -> list[tuple[Group, object]]:
        """The groups that continue (one, or two when lanes disagree) and what the
        instruction's condition evaluated to for each."""
        op, fields, pc = ins.op, ins.fields, ins.pc
        uniforms = self.ctx.uniforms
        if op in (Opcode.BREAK, Opcode.CALL):
            return [(g, True)]
        if op in (Opcode.IFU, Opcode.CALLU, Opcode.JMPU):
            value = uniforms.bool_value(fields["id"], pc)
            taken = bool(jmpu_taken(value, fields["num"])) if op is Opcode.JMPU else value
            return [(g, taken)]
        if op is Opcode.LOOP:
            # The integer uniform number is the low 2 bits of the ID field (i0-i3).
            x, y, z, _ = (int(v) for v in uniforms.int_vector(
                fields["id"] % NUM_INT_UNIFORMS, pc))
            return [(g, (x, y, z))]
        file = g.file
        cond = condition(fields["condop"], fields["refx"], fields["refy"],
                         file.read(CMP, (0, 1)))
        taken = int(np.count_nonzero(cond if file.active is None else cond & file.active))
        if taken == file.count:
            return [(g, True)]
        if not taken:
            return [(g, False)]
        return [(g.with_file(file.select(cond), self.gid()), True),
                (g.with_file(file.select(~cond), self.gid()), False)]

    def _transition(self, g: Group, ins: Instr, taken: object) -> Group | None:
        """Apply the instruction's stack effect and the per-instruction stack check."""
        key = (ins.pc, g.stacks, g.al, taken)
        transitions = self.shared.transitions
        result = transitions.get(key)
        if result is None:
            result = self._compute_transition(ins, g.stacks, g.al, taken)
            transitions[key] = result
        if isinstance(result, ShaderHang):
            self.fail_all(g, result)
            return None
        g.pc, g.al, g.stacks = result
        return g

    @staticmethod
    def _compute_transition(ins: Instr, stacks_key: StackKey, al: int,
                            taken: object) -> tuple[int, int, StackKey] | ShaderHang:
        stacks = ControlStacks.from_key(stacks_key)
        jump, breaking = None, False
        if ins.kind == "flow":
            fields = ins.fields
            loop = taken if isinstance(taken, tuple) else None
            jump, breaking, al = flow_effect(ins.op, ins.pc, fields.get("dst", 0),
                                             fields.get("num", 0), bool(taken), stacks, al,
                                             loop)
        try:
            pc, al = next_pc(stacks, ins.pc, jump, breaking, al)
        except ShaderHang as hang:
            return hang
        return pc, al, stacks.key()

    # -- hooks ------------------------------------------------------------------------

    def track(self, ins: Instr, g: Group) -> None:
        """Called before each instruction when ``tracking``."""

    def geometry(self, ins: Instr, g: Group) -> Group | None:
        """SETEMIT/EMIT; vertex shaders have no emitter (notes §6.1)."""
        self.fail_all(g, ShaderFault(f"{ins.step.info.mnemonic.upper()} in a vertex shader "
                                     f"(geometry shaders only)", pc=ins.pc))
        return None

    def finish(self, g: Group) -> None:
        raise NotImplementedError


