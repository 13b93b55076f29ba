"""Geometry shaders on the batch engine: many invocations of one persistent unit at once.

A geometry shader unit keeps its registers, its output bank and its SETEMIT state from
one invocation to the next, so invocation i starts where i - 1 ended (notes §4.2, §6).
The batch engine runs invocation 0 alone, then all the others at once, each
*speculatively* from the state invocation 0 left, with b15 = true (as after every
invocation).  For every lane it records which state components it wrote (W) and which
it read before writing them (R): each component of r0-r15 and of o0-o15 (per output
bank, relative to the bank the invocation started in), a0.x, a0.y, aL, cmp.x, cmp.y and
the SETEMIT state (:func:`state_effects`).

A speculative invocation computed what the real one computes if no invocation between
0 and it wrote anything it read before writing, and — if it read an output register —
it started in the same output bank.  :mod:`.batch_geometry_order` checks this in
invocation order, runs the first invocation that fails it again alone from the exact
state, and resumes; then it assembles the registers at every END, the emitted
vertices and the primitives.  Invocations that only read their inputs (the usual
geometry shader) cost one batched pass; a shader that carries values from invocation to
invocation runs invocation by invocation.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import GpuIsaError
from ..isa import NUM_OUTPUTS, NUM_TEMPORARIES, Opcode
from .batch import chunks, each_chunk
from .batch_kernels import RunContext
from .batch_lanes import CMP, Group, LaneFile, Store
from .batch_program import BatchProgram, Instr
from .batch_runner import Runner, Shared
from .geometry import GeometryFeed
from .semantics import condition_reads
from .stacks import EMPTY_STACKS
from .state import AL, ShaderState, Uniforms, register_file

# State bits, as four 64-bit words: r components, o components of the invocation's first
# bank, of its second bank, and the rest.
WORD = 64
O_FIRST, O_SECOND, MISC = 64, 128, 192
A0_BITS = (MISC, MISC + 1)
AL_BIT = MISC + 2
CMP_BITS = (MISC + 3, MISC + 4)
EMIT_BIT = MISC + 5
WORDS = 4
_WORD_MASK = (1 << WORD) - 1


def words(value: int) -> list[int]:
    return [(value >> (WORD * k)) & _WORD_MASK for k in range(WORDS)]


def register_bits(base: int, number: int, components: tuple[int, ...]) -> int:
    out = 0
    for c in components:
        out |= 1 << (base + 4 * number + c)
    return out


def state_effects(ins: Instr, relative_bank: int,
                  registers: tuple[int, ...]) -> tuple[int, int]:
    """(state bits the instruction reads, state bits it writes) when the current output
    bank is ``relative_bank`` (0: the bank the invocation started in).

    Inputs and uniforms are not state: they are fed to each invocation.  LOOP reads aL
    only to save it for a restore, which happens only for a loop nested in another one,
    after the outer LOOP wrote aL: not a read of the previous invocation's aL.
    """
    reads = writes = 0
    out_base = O_SECOND if relative_bank else O_FIRST
    kind = ins.kind
    if kind in ("alu", "cmp", "mova", "litp"):
        for src in ins.sources:
            if src.bank == "r":
                reads |= register_bits(0, src.number, src.rows)
            elif src.bank == "c" and src.relative is not None:
                reads |= 1 << (AL_BIT if src.relative_to_al else A0_BITS[src.relative])
        if kind in ("cmp", "litp"):
            writes |= (1 << CMP_BITS[0]) | (1 << CMP_BITS[1])
        if kind == "mova":
            for c in ins.mask:
                if c < 2:
                    writes |= 1 << A0_BITS[c]
        elif ins.dest is not None:
            bank, number = ins.dest
            writes |= register_bits(0 if bank == "r" else out_base, number, ins.mask)
    elif kind == "flow":
        if ins.op in (Opcode.IFC, Opcode.CALLC, Opcode.JMPC, Opcode.BREAKC):
            for flag in condition_reads(ins.fields["condop"]):
                reads |= 1 << CMP_BITS[flag]
        elif ins.op is Opcode.LOOP:
            writes |= 1 << AL_BIT
    elif kind == "setemit":
        writes |= 1 << EMIT_BIT
    elif kind == "emit":
        reads |= 1 << EMIT_BIT
        for number in registers:
            reads |= register_bits(out_base, number, (0, 1, 2, 3))
    return reads, writes


@dataclass(slots=True)
class UnitState:
    """Everything of a geometry shader unit that persists between invocations."""

    temporaries: np.ndarray  # (16, 4) float32
    outputs: np.ndarray  # (2, 16, 4) float32, by physical bank
    a0: np.ndarray  # (2,) int64
    al: int
    cmp: np.ndarray  # (2,) bool
    bank: int
    emit: tuple[int, bool, bool]  # VTXID, FLAG_PRIMEMIT, FLAG_WINDING of the last SETEMIT

    @classmethod
    def of(cls, unit: ShaderState) -> UnitState:
        outputs = np.stack([bank.stacked()[..., 0] for bank in unit.outputs])
        return cls(unit.temporaries.stacked()[..., 0], outputs,
                   unit.address[:AL, 0].copy(), int(unit.address[AL, 0]),
                   unit.cmp[:, 0].copy(), unit.bank, (0, False, False))

    def copy(self) -> UnitState:
        return UnitState(self.temporaries.copy(), self.outputs.copy(), self.a0.copy(),
                         self.al, self.cmp.copy(), self.bank, self.emit)


class InvocationRecords:
    """What is kept of each of ``count`` invocations: registers, address registers and
    flags at END, the output bank at END, the last SETEMIT (VTXID, PRIMEMIT, WINDING),
    the register bits written (``WORDS`` words) and the instructions executed."""

    def __init__(self, count: int):
        self.temporaries = register_file(NUM_TEMPORARIES, count)
        self.outputs = register_file(2 * NUM_OUTPUTS, count).reshape(2, NUM_OUTPUTS, 4, count)
        self.a0 = np.zeros((2, count), np.int64)
        self.cmp = np.zeros((2, count), bool)
        self.al = np.zeros(count, np.int64)
        self.bank = np.zeros(count, np.int8)
        self.emit = np.zeros((3, count), np.int64)
        self.written = np.zeros((count, WORDS), np.uint64)
        self.steps = np.zeros(count, np.int64)


class Outcome(InvocationRecords):
    """The results of one batched run over some invocations (run positions 0..m-1 are
    invocations ``invocations[p]``), in the run's frame: output registers (and ``bank``)
    are stored by the bank the run assumed (``start.bank`` at the start of each
    invocation)."""

    def __init__(self, invocations: np.ndarray, start: UnitState):
        m = len(invocations)
        super().__init__(m)
        self.invocations = invocations
        self.start = start
        self.read = np.zeros((m, WORDS), np.uint64)
        self.emits = np.zeros(m, np.int64)
        self.error_step = np.full(m, -1, np.int64)
        self.error_event = np.zeros(m, np.int64)
        self.error_slot = np.zeros(m, np.int64)
        self.failures: list[tuple[np.ndarray, object]] = []
        #: One entry per EMIT executed by a group: (run positions, per-lane emission
        #: number, per-lane step, VTXID, PRIMEMIT, WINDING, pc, values (R, n, 4)).
        self.events: list[tuple] = []

    def error(self, position: int) -> GpuIsaError:
        """The error that stopped run position ``position``."""
        group_positions, make = self.failures[int(self.error_event[position])]
        return make(int(group_positions[int(self.error_slot[position])]))  # type: ignore[operator]


class _UnitOrigin:
    """Initial values of a chunk of speculative lanes: the start state for every lane,
    and each invocation's inputs from the feed."""

    def __init__(self, start: UnitState, feed: GeometryFeed, invocations: np.ndarray,
                 first: int, end: int):
        self.start = start
        self.feed = feed
        self.invocations = invocations[first:end]
        self.count = end - first

    def load(self, key: tuple, rows: list[int], lanes: np.ndarray | None,
             out: np.ndarray) -> None:
        kind = key[0]
        if kind == "v":
            assert self.feed.inputs is not None
            register = self.feed.inputs[key[1]]
            picked = self.invocations if lanes is None else self.invocations[lanes]
            for row in rows:
                out[row] = register[row, picked]
            return
        start = self.start
        if kind == "r":
            value = start.temporaries[key[1]]
        elif kind == "o":
            value = start.outputs[key[1], key[2]]
        else:
            value = start.cmp if key == CMP else start.a0
        for row in rows:
            out[row] = value[row]


class GeometryRunner(Runner):
    """One chunk of a batched geometry-shader run: tracks W and R per group, records
    EMITs, and keeps every lane's result and error (speculative results are judged
    later, so no error ends the run here)."""

    tracking = True

    def __init__(self, shared: Shared, outcome: Outcome, feed: GeometryFeed,
                 lane_uniforms: dict[int, tuple[np.ndarray, np.ndarray]],
                 registers: tuple[int, ...], start: int, end: int,
                 effects: dict[tuple[int, int], tuple[int, int]]):
        super().__init__(shared, start)
        self.outcome = outcome
        self.feed = feed
        self.lane_uniforms = lane_uniforms
        self.registers = registers
        self.end = end
        self.effects = effects

    def run(self, entry: int) -> None:
        outcome, start = self.outcome, self.outcome.start
        origin = _UnitOrigin(start, self.feed, outcome.invocations, self.base, self.end)
        picked = outcome.invocations[self.base:self.end]
        width = self.end - self.base
        self.root = Store(width, origin,
                          uniforms={n: (np.ascontiguousarray(v[:, picked]), g[picked])
                                    for n, (v, g) in self.lane_uniforms.items()},
                          extra={"emits": np.zeros(width, np.int64)})
        group = Group(entry, start.al, EMPTY_STACKS, LaneFile(self.root), bank=start.bank,
                      extra=(0, start.emit), gid=self.gid())
        self.run_groups([group])
        where = slice(self.base, self.end)
        for key, rows, values in self.root.written():
            target = self._target(key)
            for row in rows:
                target[row, where] = values[row]
        outcome.emits[where] = self.root.extra["emits"]

    def _target(self, key: tuple) -> np.ndarray:
        outcome = self.outcome
        kind = key[0]
        if kind == "r":
            return outcome.temporaries[key[1]]
        if kind == "o":
            return outcome.outputs[key[1], key[2]]
        return outcome.cmp if key == CMP else outcome.a0

    # -- tracking -------------------------------------------------------------------

    def track(self, ins: Instr, g: Group) -> None:
        relative = g.bank ^ self.outcome.start.bank
        key = (ins.pc, relative)
        effect = self.effects.get(key)
        if effect is None:
            effect = state_effects(ins, relative, self.registers)
            self.effects[key] = effect
        reads, writes = effect
        written, emit = g.extra
        if reads & ~written:
            g.reads |= reads & ~written
        if writes & ~written:
            g.extra = (written | writes, emit)

    def geometry(self, ins: Instr, g: Group) -> Group | None:
        written, emit = g.extra
        fields = ins.fields
        if ins.op is Opcode.SETEMIT:
            g.extra = (written, (fields["vtxid"], bool(fields["primemit"]),
                                 bool(fields["winding"])))
            return g
        file = g.file
        columns: slice | np.ndarray = slice(None) if file.active is None else file.columns()
        values = np.stack([file.read(("o", g.bank, r))[:, columns].T for r in self.registers]
                          ) if self.registers else np.zeros((0, file.count, 4), np.float32)
        emits = file.store.extra["emits"]
        offsets = file.offsets()
        steps = np.full(file.count, g.steps) if offsets is None else g.steps + offsets
        self.outcome.events.append((self.base + file.positions(), emits[columns].copy(),
                                    steps, emit[0], emit[1], emit[2], ins.pc, values))
        emits[columns] += 1
        g.bank ^= 1  # EMIT switches the output bank (notes §6.2)
        return g

    # -- results --------------------------------------------------------------------

    def fail(self, group: Group, columns: np.ndarray | None, error) -> None:
        file = group.file
        slots = file.columns() if columns is None else columns
        lanes = file.store.lanes
        where = self.base + (slots if lanes is None else lanes[slots])
        outcome = self.outcome
        offsets = file.store.offsets
        steps = group.steps if offsets is None else group.steps + offsets[slots]
        with self.shared.lock:  # chunks may run on several threads
            outcome.error_event[where] = len(outcome.failures)
            outcome.failures.append((slots, error))
        outcome.error_step[where] = steps
        outcome.error_slot[where] = np.arange(len(slots))

    def hopeless(self, group: Group) -> bool:
        return False  # speculative errors do not end the run

    def finish(self, g: Group) -> None:
        outcome, file = self.outcome, g.file
        if file.store is not self.root:  # a compact group: its lanes go home
            self.root.scatter(file.store if file.active is None else
                              file.store.gather(file.columns()), file.positions())
        where = self.base + file.positions()
        written, emit = g.extra
        outcome.al[where] = g.al
        outcome.bank[where] = g.bank
        outcome.emit[:, where] = np.array(emit, np.int64)[:, np.newaxis]
        outcome.written[where] = np.array(words(written), np.uint64)
        outcome.read[where] = np.array(words(g.reads), np.uint64)
        offsets = file.offsets()
        outcome.steps[where] = g.steps if offsets is None else g.steps + offsets


def run_invocations(program: BatchProgram, ctx: RunContext, start: UnitState,
                    feed: GeometryFeed, lane_uniforms: dict[int, tuple[np.ndarray, np.ndarray]],
                    invocations: np.ndarray, registers: tuple[int, ...], entry: int,
                    max_steps: int) -> Outcome:
    """Run ``invocations`` of the feed at once, every one from ``start``."""
    outcome = Outcome(invocations, start)
    shared = Shared(program, ctx, max_steps)
    effects: dict[tuple[int, int], tuple[int, int]] = {}

    def work(first: int, end: int) -> None:
        GeometryRunner(shared, outcome, feed, lane_uniforms, registers, first, end,
                       effects).run(entry)

    each_chunk(work, chunks(len(invocations)), shared)
    return outcome


def context(precision: str, uniforms: Uniforms, given: np.ndarray,
            lane_uniforms: dict[int, tuple[np.ndarray, np.ndarray]]) -> RunContext:
    return RunContext(precision, uniforms, given,  # type: ignore[arg-type]
                      frozenset(lane_uniforms))

