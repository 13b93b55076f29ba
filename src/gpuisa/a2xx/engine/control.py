"""Control flow over lane groups (a2xx-isa.md#cf, a2xx-isa.md#control): divergence handled exactly,
per invocation.

Invocations that share a CF position, call stack and loop stack form a *group* and run
together.  A clause whose outcome differs between a group's invocations (a predicated
jump, call, exec-end or loop break) splits the group; groups that reach the same state
again are merged.  The scheduler always advances the group with the lowest CF index, so
groups that split at a forward branch meet again where the branches join.  Each
invocation sees exactly the control flow it would see running alone (the hardware's
64-wide any/all rules are not modelled).

Stacks (XE-I): the call stack holds 4 return addresses; a call with a full stack and a
RETURN with an empty one are skipped.  The loop stack holds 4 loops; each depth keeps
its iteration counter after the loop ends, which LOOP_START's is_repeat reuses.  A
LOOP_START with a full stack, or whose counter is already >= its count, jumps to its
address without pushing.  aL = start + counter * step of the innermost loop (0 outside
loops), clamped to [-256, 256].
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol

import numpy as np

from ...errors import ShaderHang
from .. import isa
from ..encoding import AluInstruction, CfAlloc, CfExec, CfJmpCall, CfLoop, VertexFetch
from ..errors import A2xxError
from ..isa import CfOpcode, ExecCondition
from .alu import execute_alu, plan_alu
from .config import EmulatorConfig
from .fetch import execute_vertex_fetch, write_fetch_result
from .inputs import LoopConstant
from .loader import LoadedShader, Step
from .state import ALL, BatchState, Lanes
from .texture import execute_texture_fetch


@dataclass(frozen=True, slots=True)
class Flow:
    """Where a group is: CF index, stacks and per-depth loop counters (hashable)."""

    pc: int = 0
    calls: tuple[int, ...] = ()
    loops: tuple[LoopConstant, ...] = ()
    counters: tuple[int, ...] = (0,) * isa.LOOP_STACK_DEPTH

    def loop_address(self) -> int:
        if not self.loops:
            return 0
        depth = len(self.loops) - 1
        return self.loops[depth].address(self.counters[depth])

    def at(self, pc: int) -> Flow:
        return replace(self, pc=pc)

    def with_counter(self, depth: int, value: int) -> Flow:
        counters = list(self.counters)
        counters[depth] = value
        return replace(self, counters=tuple(counters))


class Observer(Protocol):
    """Told of every CF clause a group starts and every instruction it runs (a trace)."""

    def start(self, state: BatchState) -> None: ...
    def clause(self, pc: int, lanes: np.ndarray) -> None: ...
    def instruction(self, slot: int, lanes: np.ndarray, active: np.ndarray) -> None: ...


@dataclass(slots=True)
class Group:
    flow: Flow
    lanes: np.ndarray  # sorted invocation indices
    steps: int  # CF clauses executed so far


class ControlFlow:
    """Runs a loaded shader on every invocation of a :class:`BatchState`."""

    def __init__(
        self,
        shader: LoadedShader,
        state: BatchState,
        config: EmulatorConfig,
        max_steps: int,
        observer: Observer | None = None,
    ):
        self.shader = shader
        self.state = state
        self.config = config
        self.max_steps = max_steps
        self.observer = observer
        # Counters of finished loops only matter to a LOOP_START with is_repeat; without
        # one they are reset on exit so that invocations leaving a loop at different
        # iterations can merge again.
        self.keep_counters = any(
            isinstance(c, CfLoop) and c.opcode == CfOpcode.LOOP_START and c.is_repeat
            for c in shader.clauses
        )

    def run(self) -> None:
        pending: dict[Flow, Group] = {Flow(): Group(Flow(), np.arange(self.state.count), 0)}
        while pending:
            flow = min(pending, key=lambda f: f.pc)
            for group in self._step(pending.pop(flow)):
                other = pending.get(group.flow)
                if other is not None:  # the same state again: run them together
                    lanes = np.sort(np.concatenate([other.lanes, group.lanes]))
                    group = Group(group.flow, lanes, max(other.steps, group.steps))
                pending[group.flow] = group

    # -- one CF clause ----------------------------------------------------------------------

    def _step(self, group: Group) -> list[Group]:
        pc = group.flow.pc
        clauses = self.shader.clauses
        if pc >= len(clauses):
            raise A2xxError(
                f"control flow ran past the last CF clause ({len(clauses) - 1}) without "
                "reaching an *_END clause"
            )
        if group.steps >= self.max_steps:
            raise ShaderHang(
                f"more than {self.max_steps} CF clauses executed (endless loop?)", pc=pc
            )
        group.steps += 1
        clause = clauses[pc]
        if self.observer is not None:
            self.observer.clause(pc, group.lanes)
        if isinstance(clause, CfExec):
            return self._exec(group, clause)
        if isinstance(clause, CfLoop):
            if clause.opcode == CfOpcode.LOOP_START:
                return self._loop_start(group, clause)
            return self._loop_end(group, clause)
        if isinstance(clause, CfJmpCall):
            return self._jump(group, clause)
        if isinstance(clause, CfAlloc):
            self.state.allocs.add((pc, int(clause.buffer_select), clause.size))
        return [self._moved(group, group.lanes, group.flow.at(pc + 1))]

    @staticmethod
    def _moved(group: Group, lanes: np.ndarray, flow: Flow) -> Group:
        return Group(flow, lanes, group.steps)

    def _split(
        self, group: Group, taken: np.ndarray, if_taken: Flow, otherwise: Flow | None
    ) -> list[Group]:
        """The group's lanes where ``taken`` go to ``if_taken``, the others to
        ``otherwise`` (None: they end)."""
        out = []
        if taken.any():
            out.append(self._moved(group, group.lanes[taken], if_taken))
        if otherwise is not None and not taken.all():
            out.append(self._moved(group, group.lanes[~taken], otherwise))
        return out

    def _condition(self, group: Group, predicated: bool, bool_addr: int, want: int) -> np.ndarray:
        """Per lane: does the clause's condition hold (predicate or bool constant)?"""
        if predicated:
            return self.state.p0[group.lanes] == bool(want)
        value = bool(self.state.constants.bools[bool_addr]) == bool(want)
        return np.full(len(group.lanes), value)

    def _exec(self, group: Group, clause: CfExec) -> list[Group]:
        pc = group.flow.pc
        kind = clause.info.condition
        if kind is ExecCondition.NONE:
            runs = np.ones(len(group.lanes), dtype=bool)
        else:
            runs = self._condition(
                group, kind is ExecCondition.PREDICATE, clause.bool_addr, clause.condition
            )
        if runs.any():
            self._run_block(self.shader.blocks.get(pc, ()), group.lanes[runs], group.flow)
        nxt = group.flow.at(pc + 1)
        if clause.info.ends:
            return self._split(group, ~runs, nxt, None)
        return [self._moved(group, group.lanes, nxt)]

    def _loop_start(self, group: Group, clause: CfLoop) -> list[Group]:
        flow = group.flow
        target = self.shader.addresses[flow.pc]
        depth = len(flow.loops)
        if depth >= isa.LOOP_STACK_DEPTH:
            return [self._moved(group, group.lanes, flow.at(target))]
        constant = self.state.constants.loops[clause.loop_id]
        counter = flow.counters[depth] if clause.is_repeat else 0
        if counter >= constant.count:
            return [self._moved(group, group.lanes, flow.with_counter(depth, counter).at(target))]
        entered = replace(flow.with_counter(depth, counter), loops=(*flow.loops, constant))
        return [self._moved(group, group.lanes, entered.at(flow.pc + 1))]

    def _loop_end(self, group: Group, clause: CfLoop) -> list[Group]:
        flow = group.flow
        if not flow.loops:
            return [self._moved(group, group.lanes, flow.at(flow.pc + 1))]
        depth = len(flow.loops) - 1
        counter = flow.counters[depth] + 1
        counted = flow.with_counter(depth, counter)
        again = np.full(len(group.lanes), counter < flow.loops[depth].count)
        if clause.is_predicated_break:
            again &= self.state.p0[group.lanes] != bool(clause.condition)
        back = counted.at(self.shader.addresses[flow.pc])
        left = counted if self.keep_counters else flow.with_counter(depth, 0)
        out = replace(left, loops=flow.loops[:-1]).at(flow.pc + 1)
        return self._split(group, again, back, out)

    def _jump(self, group: Group, clause: CfJmpCall) -> list[Group]:
        flow = group.flow
        nxt = flow.at(flow.pc + 1)
        if clause.opcode == CfOpcode.RETURN:
            if not flow.calls:
                return [self._moved(group, group.lanes, nxt)]
            returned = replace(flow, calls=flow.calls[:-1]).at(flow.calls[-1])
            return [self._moved(group, group.lanes, returned)]
        call = clause.opcode == CfOpcode.COND_CALL
        if call and len(flow.calls) >= isa.CALL_STACK_DEPTH:
            return [self._moved(group, group.lanes, nxt)]
        if clause.force_call:
            taken = np.ones(len(group.lanes), dtype=bool)
        else:
            taken = self._condition(
                group, bool(clause.predicated_jmp), clause.bool_addr, clause.condition
            )
        target = self.shader.addresses[flow.pc]
        jumped = replace(flow, calls=(*flow.calls, flow.pc + 1)) if call else flow
        return self._split(group, taken, jumped.at(target), nxt)

    # -- EXEC blocks ------------------------------------------------------------------------

    def _run_block(self, steps: tuple[Step, ...], lanes: np.ndarray, flow: Flow) -> None:
        state = self.state
        loop_address = flow.loop_address()
        for step in steps:
            instr = step.instr
            active = lanes
            if instr.pred_select:
                active = lanes[state.p0[lanes] == bool(instr.pred_condition)]
                if not len(active):
                    if self.observer is not None:
                        self.observer.instruction(step.slot, lanes, active)
                    continue
            selector: Lanes = ALL if len(active) == state.count else active
            if isinstance(instr, AluInstruction):
                execute_alu(plan_alu(instr, self.config), state, selector, loop_address)
            elif isinstance(instr, VertexFetch):
                execute_vertex_fetch(instr, step.slot, state, selector, loop_address, self.config)
            else:
                value = execute_texture_fetch(instr, step.slot, state, selector, loop_address)
                if value is not None:
                    write_fetch_result(
                        state,
                        selector,
                        instr.dst_reg,
                        instr.dst_reg_am,
                        instr.dst_swiz,
                        loop_address,
                        value,
                    )
            if self.observer is not None:
                self.observer.instruction(step.slot, lanes, active)
