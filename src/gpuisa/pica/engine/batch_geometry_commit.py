"""Committing speculative geometry-shader invocations in order, and assembling results.

:func:`run_geometry_batch` runs invocation 0 exactly, the rest speculatively
(:mod:`.batch_geometry`), then walks the invocations in order in blocks: with P the
parity of the EMITs of the committed invocations since invocation 0 (each EMIT switches
the output bank) and U the state bits they wrote, invocation i is exact unless it read
a bit in U before writing it, read an output register while P is odd (it assumed the
wrong bank), or stopped with an error (then the error is real if the rest holds).  Exact
invocations are committed to a :class:`Ledger` (their writes, in physical banks);
the first inexact one runs again alone from the exact state, is committed, and the walk
goes on after it.  The walk stops at the first real error.

Then the emitted vertices are put in invocation order, the vertex buffer entries each
primitive uses are found (the buffer is never cleared: the last EMIT into an entry
counts, whichever invocation it was), and the registers at every END are the unit's
initial state updated by every committed write up to that invocation.

The error raised is the one the reference engine meets first: the first invocation that
fails, at the first instruction that fails — a hang, a fault, a missing uniform or input,
or a primitive whose buffer entry no EMIT wrote.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...errors import GpuIsaError, InputError, ShaderFault
from ..isa import NUM_OUTPUTS, NUM_TEMPORARIES
from .batch_geometry import (
    AL_BIT,
    CMP_BITS,
    EMIT_BIT,
    MISC,
    InvocationRecords,
    Outcome,
    UnitState,
    context,
    run_invocations,
)
from .batch_kernels import RunContext
from .batch_program import prepared
from .decode import DecodedProgram
from .emitter import TRIANGLE_ENTRIES
from .geometry import GS_DONE_BOOL, Emission, GeometryFeed, InvocationLog
from .semantics import Precision
from .state import ShaderState, register_file

_FIRST_BLOCK = 64


def _physical(bits: np.ndarray, start_banks: np.ndarray) -> np.ndarray:
    """State bits with the output words (first bank, second bank of the invocation)
    turned into (bank 0, bank 1)."""
    out = bits.copy()
    swap = start_banks == 1
    out[swap, 1], out[swap, 2] = bits[swap, 2], bits[swap, 1]
    return out


def _bit(words: np.ndarray, bit: int) -> np.ndarray:
    return ((words[:, bit // 64] >> np.uint64(bit % 64)) & np.uint64(1)).astype(bool)


class Ledger(InvocationRecords):
    """The committed invocations: each one's writes and results, by physical output
    bank (``bank`` too)."""

    def __init__(self, count: int, initial: UnitState):
        super().__init__(count)
        self.initial = initial

    def commit(self, outcome: Outcome, position: int, lane: int,
               start_banks: np.ndarray) -> None:
        """Take ``outcome``'s run positions from ``position`` on as invocations from
        ``lane`` on (``len(start_banks)`` of them), which really started in output banks
        ``start_banks``."""
        count = len(start_banks)
        positions, lanes = slice(position, position + count), slice(lane, lane + count)
        flip = (start_banks ^ outcome.start.bank).astype(bool)  # run frame vs reality
        written = _physical(outcome.written[positions], start_banks)
        self.written[lanes] = written
        union = np.bitwise_or.reduce(written, axis=0)
        for n in range(NUM_TEMPORARIES):
            if int(union[0]) >> (4 * n) & 0xF:
                self.temporaries[n][:, lanes] = outcome.temporaries[n][:, positions]
        flips = int(np.count_nonzero(flip))
        for bank in (0, 1):
            for n in range(NUM_OUTPUTS):
                if int(union[1 + bank]) >> (4 * n) & 0xF:
                    same = outcome.outputs[bank, n][:, positions]
                    other = outcome.outputs[bank ^ 1, n][:, positions]
                    self.outputs[bank, n][:, lanes] = (
                        same if not flips else other if flips == count
                        else np.where(flip, other, same))
        self.a0[:, lanes] = outcome.a0[:, positions]
        self.cmp[:, lanes] = outcome.cmp[:, positions]
        self.al[lanes] = outcome.al[positions]
        self.bank[lanes] = outcome.bank[positions] ^ flip
        self.emit[:, lanes] = outcome.emit[:, positions]
        self.steps[lanes] = outcome.steps[positions]

    def advance(self, state: UnitState, lanes: np.ndarray, emits: np.ndarray) -> UnitState:
        """The unit state after committed invocations ``lanes`` (ascending, following
        ``state``), which executed ``emits`` EMITs."""
        state = state.copy()
        written = self.written[lanes]
        words = np.bitwise_or.reduce(written, axis=0)
        union = [int(w) for w in words]
        everywhere = bool((written[-1] == words).all())  # the last one wrote every bit
        for bit in (b for k, word in enumerate(union) for b in range(64 * k, 64 * k + 64)
                    if word >> (b - 64 * k) & 1):
            last = int(lanes[-1] if everywhere
                       else lanes[np.flatnonzero(_bit(written, bit))[-1]])
            if bit < 64:
                state.temporaries[bit // 4, bit % 4] = self.temporaries[bit // 4][bit % 4, last]
            elif bit < MISC:
                bank, rest = divmod(bit - 64, 64)
                state.outputs[bank, rest // 4, rest % 4] = self.outputs[bank, rest // 4][
                    rest % 4, last]
            elif bit < AL_BIT:
                state.a0[bit - MISC] = self.a0[bit - MISC, last]
            elif bit == AL_BIT:
                state.al = int(self.al[last])
            elif bit < EMIT_BIT:
                state.cmp[bit - CMP_BITS[0]] = self.cmp[bit - CMP_BITS[0], last]
            else:
                vtxid, primitive, winding = self.emit[:, last]
                state.emit = (int(vtxid), bool(primitive), bool(winding))
        state.bank ^= int(emits.sum()) & 1
        return state

    def _fill(self, bit: int, values: np.ndarray, initial: object) -> np.ndarray | None:
        """Per invocation, the value the last committed write of state bit ``bit`` up to
        it left (None: no invocation wrote it, so it holds ``initial`` throughout)."""
        if not self._union >> bit & 1:
            return None
        if self._everyone:
            return values
        wrote = _bit(self.written, bit)
        if wrote.all():
            return values
        last = np.maximum.accumulate(np.where(wrote, np.arange(len(wrote)), -1))
        return np.where(last >= 0, values[np.maximum(last, 0)], initial)

    def log(self) -> InvocationLog:
        """The registers at the END of every invocation."""
        count = len(self.steps)
        init = self.initial
        words = np.bitwise_or.reduce(self.written, axis=0)
        self._union = sum(int(w) << (64 * k) for k, w in enumerate(words))
        #: Whether every invocation wrote every bit any of them wrote (the usual case).
        self._everyone = bool((self.written == words).all())
        temporaries = register_file(NUM_TEMPORARIES, count)
        outputs = register_file(NUM_OUTPUTS, count)

        def put(target: np.ndarray, value: np.ndarray | None, initial: object) -> None:
            if value is not None:
                target[...] = value
            elif initial != 0 or np.signbit(initial):  # zeros are already there
                target[...] = initial

        for n in range(NUM_TEMPORARIES):
            for c in range(4):
                put(temporaries[n][c], self._fill(4 * n + c, self.temporaries[n][c],
                                                  init.temporaries[n, c]), init.temporaries[n, c])
        second = self.bank == 1
        for n in range(NUM_OUTPUTS):
            for c in range(4):
                banks = [self._fill(64 * (1 + b) + 4 * n + c, self.outputs[b, n][c],
                                    init.outputs[b, n, c]) for b in (0, 1)]
                if banks[0] is None and banks[1] is None and (
                        init.outputs[0, n, c] == init.outputs[1, n, c]):
                    put(outputs[n][c], None, init.outputs[0, n, c])
                    continue
                values = [init.outputs[b, n, c] if v is None else v
                          for b, v in enumerate(banks)]
                outputs[n][c] = np.where(second, values[1], values[0])
        address = np.zeros((count, 3), np.int64).T
        for k in (0, 1):
            put(address[k], self._fill(MISC + k, self.a0[k], init.a0[k]), init.a0[k])
        put(address[2], self._fill(AL_BIT, self.al, init.al), init.al)
        cmp = np.zeros((count, 2), bool).T
        for k in (0, 1):
            put(cmp[k], self._fill(CMP_BITS[k], self.cmp[k], init.cmp[k]), init.cmp[k])
        return InvocationLog(outputs, temporaries, address, cmp, self.steps)


Runs = Callable[[UnitState, np.ndarray], Outcome]


class _Walk:
    """The in-order commit of one run (see the module docstring).  ``run(start,
    invocations)`` runs invocations at once from ``start`` (b15 as the caller set it)."""

    def __init__(self, run: Runs, count: int, initial: UnitState):
        self.run = run
        self.ledger = Ledger(count, initial)
        self.count = count
        #: (outcome, committed positions) for every outcome whose EMITs count.
        self.emitters: list[tuple[Outcome, np.ndarray]] = []
        #: The first real error: (invocation, step, error).
        self.error: tuple[int, int, GpuIsaError] | None = None

    def single(self, start: UnitState, lane: int) -> UnitState | None:
        """Run invocation ``lane`` alone from the exact ``start``; commit it.  Returns the
        state after it, or None after an error."""
        outcome = self.run(start, np.array([lane]))
        self.emitters.append((outcome, np.array([0])))
        if outcome.error_step[0] >= 0:
            self.error = (lane, int(outcome.error_step[0]), outcome.error(0))
            return None
        lanes = np.array([lane])
        self.ledger.commit(outcome, 0, lane, np.array([start.bank]))
        return self.ledger.advance(start, lanes, outcome.emits[:1])

    def speculate(self, start: UnitState, run: Runs) -> None:
        """Invocations 1.. speculatively from ``start`` (the state after invocation 0),
        then the in-order walk; ``run`` from now on (b15 set)."""
        self.run = run
        spec = self.run(start, np.arange(1, self.count))
        committed = np.zeros(self.count - 1, bool)
        self.emitters.append((spec, committed))
        state, union, parity = start, np.zeros(4, np.uint64), 0
        i, size = 1, _FIRST_BLOCK
        while i < self.count:
            end = min(self.count, i + size)
            pos = slice(i - 1, end - 1)
            emits = spec.emits[pos] & 1
            flips = (parity ^ (np.cumsum(emits) - emits)) & 1
            banks = (start.bank ^ flips).astype(np.int8)
            written = _physical(spec.written[pos], banks)
            read = _physical(spec.read[pos], banks)
            before = np.bitwise_or.accumulate(written, axis=0)
            before = np.vstack([np.zeros((1, 4), np.uint64), before[:-1]]) | union
            stale = ((read & before) != 0).any(axis=1)
            stale |= ((spec.read[pos, 1] | spec.read[pos, 2]) != 0) & (flips == 1)
            stop = stale | (spec.error_step[pos] >= 0)
            first = int(np.argmax(stop)) if stop.any() else len(stop)
            good = np.arange(i - 1, i - 1 + first)
            if first:
                lanes = good + 1
                self.ledger.commit(spec, i - 1, i, banks[:first])
                committed[good] = True
                union |= np.bitwise_or.reduce(written[:first], axis=0)
                parity ^= int(emits[:first].sum()) & 1
                state = self.ledger.advance(state, lanes, spec.emits[good])
            if first == len(stop):
                i, size = end, size * 2
                continue
            lane = i + first
            if not stale[first]:  # an exact invocation that failed: the error is real
                committed[lane - 1] = True
                self.error = (lane, int(spec.error_step[lane - 1]), spec.error(lane - 1))
                return
            state_after = self.single(state, lane)
            if state_after is None:
                return
            union |= self.ledger.written[lane]
            parity ^= int(state_after.bank != state.bank)
            state = state_after
            i, size = lane + 1, _FIRST_BLOCK

    # -- results --------------------------------------------------------------------

    def emission(self, registers: tuple[int, ...]) -> Emission:
        """The emitted vertices and primitives; raises the first error (a primitive
        using an unwritten buffer entry, or the recorded error) where the reference
        engine would.

        Vertex k of invocation i is vertex (vertices of invocations before i) + k, so
        every EMIT record is scattered straight to its place (no sort)."""
        parts = []
        for outcome, committed in self.emitters:
            for positions, seq, steps, vtxid, prim, wind, pc, values in outcome.events:
                keep = (committed[positions] if committed.dtype == bool
                        else np.isin(positions, committed))
                lanes = outcome.invocations[positions]
                if self.error is not None:  # the reference engine stops at the error
                    err_lane, err_step, _ = self.error
                    keep &= (lanes < err_lane) | ((lanes == err_lane) & (steps < err_step))
                if keep.all():
                    parts.append((lanes, seq, vtxid, prim, wind, pc, values))
                elif keep.any():
                    parts.append((lanes[keep], seq[keep], vtxid, prim, wind, pc,
                                  values[:, keep]))
        per_lane = np.zeros(self.count + 1, np.int64)
        for lanes, *_ in parts:
            per_lane[lanes + 1] += 1  # an EMIT record names each lane once
        first = np.cumsum(per_lane)[:-1]
        total = int(per_lane.sum())
        vtxid = np.zeros(total, np.int8)
        prim = np.zeros(total, bool)
        wind = np.zeros(total, bool)
        pcs = np.zeros(total, np.int64)
        vertices = np.empty((len(registers), total, 4), np.float32)
        each = per_lane[1:]
        regular = total > 0 and each.min() == each.max()  # k vertices per invocation
        grid = vertices.reshape(len(registers), self.count, -1, 4) if regular else None
        for lanes, seq, vtx, primitive, winding, pc, values in parts:
            index = first[lanes] + seq
            vtxid[index] = vtx
            prim[index] = primitive
            wind[index] = winding
            pcs[index] = pc
            if grid is not None and seq.min() == seq.max():  # one EMIT of many lanes
                span = (slice(int(lanes[0]), int(lanes[-1]) + 1)
                        if len(lanes) == 1 or (np.diff(lanes) == 1).all() else lanes)
                grid[:, span, int(seq[0])] = values
            else:
                vertices[:, index] = values
        emitted = np.flatnonzero(prim)
        order = np.arange(total, dtype=np.int64 if total >= 2**31 else np.int32)
        triangles = np.empty((len(emitted), 3), np.int64)
        for k, entry in enumerate(TRIANGLE_ENTRIES):  # the last EMIT into each entry
            last = np.where(vtxid == entry, order, order.dtype.type(-1))
            np.maximum.accumulate(last, out=last)
            triangles[:, k] = last[emitted]
        unset = (triangles < 0).any(axis=1)
        if unset.any():
            k = int(np.argmax(unset))
            entry = TRIANGLE_ENTRIES[int(np.argmax(triangles[k] < 0))]
            raise ShaderFault(f"primitive emitted with vertex buffer entry {entry} never "
                              f"written by EMIT", pc=int(pcs[emitted[k]]))
        if self.error is not None:
            raise self.error[2]
        windings = wind[emitted]
        triangles = np.where(windings[:, np.newaxis], triangles[:, ::-1], triangles)
        return Emission(total, {f"o{r}": vertices[k] for k, r in enumerate(registers)},
                        triangles.astype(np.int64).reshape(-1, 3), windings)


def run_geometry_batch(program: DecodedProgram, unit: ShaderState, entry: int,
                       registers: tuple[int, ...], feed: GeometryFeed, *,
                       precision: Precision,
                       max_steps: int) -> tuple[InvocationLog, Emission]:
    """The batch engine's geometry shader run (see :data:`.api.GEOMETRY_ENGINES`)."""
    if feed.count == 0:
        raise InputError("the geometry shader has no input to run on")
    prepared_program = prepared(program)
    initial = UnitState.of(unit)
    lane_uniforms = feed.lane_uniforms(unit.uniforms)
    given = feed.input_given if feed.inputs is not None else unit.input_given.copy()
    first = context(precision, unit.uniforms, given, lane_uniforms)
    later_uniforms = unit.uniforms.copy()
    later_uniforms.set_bool(GS_DONE_BOOL, True)  # set after every invocation
    later = context(precision, later_uniforms, given, lane_uniforms)

    def runner(ctx: RunContext) -> Runs:
        return lambda start, lanes: run_invocations(prepared_program, ctx, start, feed,
                                                    lane_uniforms, lanes, registers, entry,
                                                    max_steps)

    with np.errstate(all="ignore"):
        walk = _Walk(runner(first), feed.count, initial)
        after_first = walk.single(initial, 0)
        if after_first is not None and feed.count > 1:
            walk.speculate(after_first, runner(later))
        emission = walk.emission(registers)
        return walk.ledger.log(), emission
