"""The control flow of the LLVM kernels' functions (a mixin of :class:`.native._Unit`):
the vector function's loop over the lowest PC any lane waits at, the transfers after a
block (each lane's flow instruction and stack check with its own control state, or the
lanes' next PCs as one vector where no stack can change), and the one-lane function's
branches to the block of the next PC."""

from __future__ import annotations

from ...isa import NUM_INT_UNIFORMS, Flow, Kind
from ..decode import Step
from . import textir as ir
from .flowir import condition
from .irtypes import I1, I8, I64
from .nativeabi import ARG, FINISHED, arg_pointer


class FlowMixin:
    """What :class:`.native._Unit` does at the ends of blocks."""

    def emit_dispatch(self) -> None:
        """The vector function's loop: the block at the lowest PC a lane waits at, or
        the end when every lane has reached END."""
        b = self.b
        b.position_at_end(self.dispatch)
        pcs = b.load(self.pcs)
        name = f"llvm.vector.reduce.umin.v{self.width}i64"
        reduce = b.module.globals.get(name) or ir.Function(
            b.module, ir.FunctionType(I64, [self.L.i64]), name)
        lowest = b.call(reduce, [pcs])
        running = b.append_basic_block("running")
        b.cbranch(b.icmp_unsigned("==", lowest, ir.Constant(I64, FINISHED)),
                  self.done_block, running)
        b.position_at_end(running)
        switch = b.switch(lowest, self.give_up_block)
        for leader, block in self.blocks.items():
            switch.add_case(ir.Constant(I64, leader), block)

    def block_steps(self, leader: int) -> list[Step]:
        steps = []
        leaders = set(self.plan.leaders)
        pc = leader
        while pc < self.length:
            step = self.steps[pc]
            steps.append(step)
            if ends_block(step, self.plan.pops[pc]) or step.info.flow is Flow.END or (
                    pc + 1 in leaders):
                break
            pc += 1
        return steps

    def emit_lane_transfers(self, step: Step) -> None:
        """In the vector function: each lane at the block takes its flow instruction and
        the stack check with its own control state, in a loop over the lanes; then the
        next block."""
        b = self.b
        taken = self.flow_condition(step) if step.kind is Kind.FLOW else None
        if not any(self.plan.pops[step.pc]) and (
                step.kind is not Kind.FLOW or step.info.flow is Flow.JUMP):
            # No stack changes: the lanes' next PCs as one vector, whatever their states
            target = self.L.const(I64, step.pc + 1)
            if taken is not None:
                if not isinstance(taken.type, ir.VectorType):
                    taken = self.L.splat(taken)
                target = b.select(taken, self.L.const(I64, step.field("dst")), target)
            b.store(b.select(self.mask, target, b.load(self.pcs)), self.pcs)
            b.branch(self.dispatch)
            return
        # Lanes that share a control state, all at this block, that agree on the
        # condition keep sharing it: one transfer for all.
        agree = ir.Constant(I1, 1)
        if taken is not None and isinstance(taken.type, ir.VectorType):
            agree = b.or_(self.all(taken), b.not_(self.any(taken)))
        together = b.and_(b.and_(b.load(self.shared), self.all(self.mask)), agree)
        counter, limit = b.alloca(I64), b.alloca(I64)
        # Together: lane 0's transfer, for all; else every lane at the block its own.
        with b.if_else(together) as (one, parting):
            with one:
                b.store(ir.Constant(I64, 1), limit)
            with parting:
                with b.if_then(b.load(self.shared)):
                    self.control.broadcast()
                    b.store(ir.Constant(I1, 0), self.shared)
                b.store(ir.Constant(I64, self.width), limit)
        b.store(ir.Constant(I64, 0), counter)
        test, body, work, following, finished = (self.function.append_basic_block(name)
                                                 for name in ("lanes", "lane", "at_block",
                                                              "next_lane", "lanes_done"))
        b.branch(test)
        b.position_at_end(test)
        k = b.load(counter)
        b.cbranch(b.icmp_signed("<", k, b.load(limit)), body, finished)
        b.position_at_end(body)
        b.cbranch(b.extract_element(self.mask, k), work, following)
        b.position_at_end(work)
        self.control.lane = k
        lane_taken = taken
        if taken is not None and isinstance(taken.type, ir.VectorType):
            lane_taken = b.extract_element(taken, k)
        pc = self.next_pc(step, lane_taken)
        self.control.lane = ir.Constant(I64, 0)
        pcs = b.select(b.load(self.shared), self.L.splat(pc),
                       b.insert_element(b.load(self.pcs), pc, k))
        b.store(pcs, self.pcs)
        b.branch(following)
        b.position_at_end(following)
        b.store(b.add(k, ir.Constant(I64, 1)), counter)
        b.branch(test)
        b.position_at_end(finished)
        b.branch(self.dispatch)

    def next_pc(self, step: Step, taken: ir.Value | None) -> ir.Value:
        """The PC after ``step`` (a block's last instruction) for one control state: its
        flow effect given the condition ``taken``, then the stack check."""
        b = self.b
        no_jump = ir.Constant(I64, -1)
        jump, breaking = no_jump, ir.Constant(I1, 0)
        if step.kind is Kind.FLOW:
            jump, breaking = self.emit_flow(step, taken)
        check_call, check_if, check_loop = self.plan.pops[step.pc]
        is_break = step.info.flow is Flow.BREAK
        if check_call or check_if or check_loop or is_break:
            pc, hang = self.control.next_pc(step.pc, jump, breaking, check_call, check_if,
                                            check_loop or is_break)
            self.fail_if(hang)
            return pc
        return b.select(b.icmp_signed("!=", jump, no_jump), jump,
                        ir.Constant(I64, step.pc + 1))

    def emit_transfer(self, step: Step) -> None:
        """The PC after a block's last instruction: its flow effect, the stack check,
        then a branch to the block of that PC (or the reference engine past the end)."""
        b = self.b
        pc = self.next_pc(step, self.flow_condition(step) if step.kind is Kind.FLOW else None)
        if isinstance(pc, ir.Constant):
            target = self.blocks.get(pc.constant)
            b.branch(target if target is not None else self.give_up_block)
            return
        switch = b.switch(pc, self.give_up_block)
        for leader, block in self.blocks.items():
            switch.add_case(ir.Constant(I64, leader), block)

    def flow_condition(self, step: Step) -> ir.Value:
        """``stacks.taken`` of a flow instruction: a vector of conditions where they
        read the lanes' flags."""
        b, info = self.b, step.info
        fields = dict(step.fields)
        number = fields.get("id", 0)
        boolean = None
        if info.reads_bool:
            if ("b", number) in self.missing:
                self.fail()
            bools = arg_pointer(b, self.args, ARG["bools"], I8)
            byte = b.load(b.gep(bools, [ir.Constant(I64, number)]))
            boolean = b.icmp_unsigned("!=", byte, ir.Constant(I8, 0))
        flags = tuple(b.load(slot) for slot in self.flags) if info.reads_flags else None
        return condition(b, info.condition, fields, flags, boolean)

    def emit_flow(self, step: Step, taken: ir.Value) -> tuple[ir.Value, ir.Value]:
        """The effect of a flow instruction on the current control state."""
        b = self.b
        fields = dict(step.fields)
        number = fields.get("id", 0)
        loop = None
        if step.info.flow is Flow.LOOP:
            number %= NUM_INT_UNIFORMS
            if ("i", number) in self.missing:
                self.fail()
            ints = arg_pointer(b, self.args, ARG["ints"], I64)
            loop = tuple(b.load(b.gep(ints, [ir.Constant(I64, 4 * number + k)]))
                         for k in range(3))
        return self.control.effect(step.info.flow, taken, step.pc, fields.get("dst", 0),
                                   fields.get("num", 0), loop)


def ends_block(step: Step, pops: tuple[bool, bool, bool]) -> bool:
    """Whether a basic block ends after ``step``: at a fault, a flow or geometry
    instruction, or where a stack can pop."""
    return (step.fault is not None or (step.kind not in (Kind.ARITHMETIC, Kind.COMPARE)
            and not step.info.inert) or any(pops))
