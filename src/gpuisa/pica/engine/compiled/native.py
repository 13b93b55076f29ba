"""A vertex program translated into LLVM IR: one function for a vector of lanes, one
for a single lane, and the loop over lanes that calls them.

Both functions are made by :class:`_Unit` from the same code: every basic block of the
program becomes an LLVM block, every register component a stack slot (LLVM keeps them
in registers), each ALU instruction its recipe lowered by :mod:`.alu`, each flow
instruction the stack machine of :mod:`.flowir`.

In the function of ``WIDTH`` lanes every value is a SIMD vector of the lanes' values,
and each lane has its own PC and control state: the basic block at the lowest PC any
lane waits at runs for all lanes, its writes masked to the lanes at that PC, then each
of those lanes takes the block's flow instruction and the stack check (lanes are
independent, so the order only affects speed; when the lanes agree, which is usual,
they stay together).  It computes ADD, MUL, MAD and the dot products in range
(:mod:`.alu`) and checks what they write.  Whatever it cannot finish exactly (a value
out of range, a relative read of a uniform that was not given, the step limit, a
fault, a hang) makes it give up before it has stored anything; the loop then runs each
of its lanes again from its initial registers in the function of one lane, which is
exact and marks a lane :data:`NEEDS_REFERENCE` for the reference engine (which raises
the exact error) where it cannot finish it.  A lane that needs another engine keeps its
initial registers.

The kernel ``run(lo, hi, args)`` takes lanes ``lo .. hi - 1`` and a table of 64-bit
words (:data:`ARGS`): the addresses of the arrays and a few numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...isa import Flow, Kind
from ..decode import DecodedProgram, Step
from ..loading import Arithmetic, float24, rounding_of
from ..state import UNIFORM_TABLE_ROWS as UNIFORM_ROWS
from . import textir as ir
from .alu import AluLowering
from .flowir import ControlState
from .irtypes import F32, F64, I1, I8, I32, I64
from .lower import Lowering
from .nativeabi import (
    ADDRESS_ROWS,
    ARG,
    ARG_COUNT,
    DONE,
    FILE_BASE,
    FINISHED,
    NEEDS_REFERENCE,
    WIDTH,
    arg_pointer,
    arg_word,
)
from .nativealu import AluMixin
from .nativeflow import FlowMixin, ends_block


@dataclass(frozen=True, slots=True)
class Plan:
    """What the code generator needs of a program: its decoded steps, the basic blocks'
    first PCs (the entry among them), which stages of the stack check can pop after
    each PC, and the registers it names."""

    program: DecodedProgram
    leaders: tuple[int, ...]
    pops: dict[int, tuple[bool, bool, bool]]
    registers: frozenset[tuple[str, int]]
    uniform_rows: tuple[int, ...]
    #: Whether the program uses the address registers / the flags at all.
    address: bool = True
    flags: bool = True
    #: Whether lanes can part: some flow instruction's condition reads the flags.
    parting: bool = True
    #: Whether some instruction reads a uniform through an address register.
    relative_uniforms: bool = True


class _Unit(FlowMixin, AluMixin):
    """The function running one vector of ``width`` lanes (or one lane) of a plan."""

    def __init__(self, module: ir.Module, plan: Plan, entry: int, precision: Arithmetic,
                 missing: frozenset, width: int, name: str, bounded: bool = False):
        self.plan = plan
        self.steps = plan.program.steps
        self.length = len(self.steps)
        self.entry = entry
        self.missing = missing
        self.width = width
        # f24 vector functions of programs that read uniforms through an address register
        # are also given the uniforms' working values (made once per call of run)
        self.tabled = width > 1 and float24(precision) and plan.relative_uniforms
        arguments = [I64, I64.as_pointer(), *([F64.as_pointer()] if self.tabled else [])]
        self.function = ir.Function(module, ir.FunctionType(I8, arguments), name)
        self.function.linkage = "internal"
        self.base, self.args = self.function.args[:2]
        self.table = self.function.args[2] if self.tabled else None
        self.b = b = ir.IRBuilder(self.function.append_basic_block("entry"))
        # the function of one lane runs rarely (lanes handed back, a partial vector):
        # its larger rules are functions it calls, which compile once per module
        self.L = Lowering(b, width, arg_pointer(b, self.args, ARG["loops"], I64), outline=True,
                          rounding=rounding_of(precision))
        self.L.unresolved = self.fail_if  # the reference engine decides those lanes
        # the vector function computes in range; lanes that leave the range run again
        # in the function of one lane, which is exact
        self.alu_ir = AluLowering(self.L, precision, in_range=width > 1)
        #: f24 vector function of a run whose uniforms are bounded: instructions of
        #: inputs and uniforms use the bounded arithmetic and check their operands.
        self.bounded = bounded and width > 1 and float24(precision)
        self.out_of_range = b.alloca(self.L.i1)
        #: Vector function: each lane has its PC and control state; the lanes at the
        #: block being run (``mask``).
        # (Lanes part only at flow instructions that read the flags: without them, the
        # vector function runs one control state and branches as the one-lane one does.)
        self.masked = width > 1 and plan.parting
        # the stack machine is written in place in the vector function: a call saves
        # and restores every live vector register around it (a fifth of the lighting
        # shader's time); the function of one lane calls it
        self.control = ControlState(b, width if self.masked else 1, outline=width == 1)
        self.executed = b.alloca(self.L.i64)
        self.pcs = b.alloca(self.L.i64)
        self.mask: ir.Value = ir.Constant(I1, 1)
        #: Vector function: whether every lane's control state is lane 0's (only lane
        #: 0's is kept up to date until the lanes part).
        self.shared = b.alloca(I1)
        self.slots: dict[tuple[str, int, int], ir.Value] = {}
        self.inputs: dict[tuple[int, int], ir.Value] = {}
        self.uniforms: dict[tuple[int, int], ir.Value] = {}
        self.blocks: dict[int, ir.Block] = {}
        #: Values made once in the prologue (:meth:`hoisted`), and which they are.
        self.prologue: ir.Block | None = None
        self.entry_values: dict[tuple, ir.Value] = {}
        self.entry_keys: dict[ir.Value, tuple] = {}
        self.alu_ir.hoist = self.hoist_work

    # -- lanes and memory ------------------------------------------------------------------

    def lane(self, k: int) -> ir.Value:
        return self.b.add(self.base, ir.Constant(I64, k))

    def _load_rows(self, pointer: ir.Value, columns: int, kind: ir.Type) -> list[ir.Value]:
        """The ``columns`` columns of this unit's lanes of a lane-major array."""
        b, w = self.b, self.width
        start = b.gep(pointer, [b.mul(self.base, ir.Constant(I64, columns))])
        if w == 1:
            return [b.load(b.gep(start, [ir.Constant(I64, c)])) for c in range(columns)]
        vector = ir.VectorType(kind, columns * w)
        whole = b.load(b.bitcast(start, vector.as_pointer()), align=kind.width // 8 if
                       isinstance(kind, ir.IntType) else 4)
        return [b.shuffle_vector(whole, ir.Constant(vector, ir.Undefined), ir.Constant(
            ir.VectorType(I32, w), [c + columns * k for k in range(w)]))
            for c in range(columns)]

    def _store_rows(self, pointer: ir.Value, values: list[ir.Value], kind: ir.Type) -> None:
        """Store the columns ``values`` of this unit's lanes into a lane-major array."""
        b, w, columns = self.b, self.width, len(values)
        start = b.gep(pointer, [b.mul(self.base, ir.Constant(I64, columns))])
        if w == 1:
            for c, value in enumerate(values):
                b.store(value, b.gep(start, [ir.Constant(I64, c)]))
            return
        # the columns side by side (padded to a power of two), then lane k's column c to
        # element columns * k + c
        parts = list(values)
        while len(parts) & (len(parts) - 1):
            parts.append(ir.Constant(values[0].type, ir.Undefined))
        while len(parts) > 1:
            size = parts[0].type.count
            joined = ir.Constant(ir.VectorType(I32, 2 * size), list(range(2 * size)))
            parts = [b.shuffle_vector(parts[i], parts[i + 1], joined)
                     for i in range(0, len(parts), 2)]
        order = [c * w + k for k in range(w) for c in range(columns)]
        whole = b.shuffle_vector(parts[0], ir.Constant(parts[0].type, ir.Undefined),
                                 ir.Constant(ir.VectorType(I32, len(order)), order))
        b.store(whole, b.bitcast(start, whole.type.as_pointer()), align=kind.width // 8
                if isinstance(kind, ir.IntType) else 4)

    def _vector(self, parts: list[ir.Value]) -> ir.Value:
        if self.width == 1:
            return parts[0]
        vector = ir.Constant(ir.VectorType(parts[0].type, self.width), ir.Undefined)
        for k, part in enumerate(parts):
            vector = self.b.insert_element(vector, part, ir.Constant(I32, k))
        return vector

    # -- failing -------------------------------------------------------------------------

    def fail_if(self, condition_value: ir.Value) -> None:
        """Give the lanes up (:meth:`give_up`) where ``condition_value`` holds (in the
        vector function: if it holds for any lane)."""
        b = self.b
        if isinstance(condition_value.type, ir.VectorType):
            condition_value = self.any(condition_value)
        go_on = self.function.append_basic_block()
        b.cbranch(condition_value, self.give_up_block, go_on)
        b.position_at_end(go_on)

    def fail(self) -> None:
        self.fail_if(ir.Constant(I1, 1))

    def any(self, flags: ir.Value) -> ir.Value:
        packed = self.b.bitcast(flags, ir.IntType(self.width))
        return self.b.icmp_unsigned("!=", packed, ir.Constant(ir.IntType(self.width), 0))

    def all(self, flags: ir.Value) -> ir.Value:
        packed = self.b.bitcast(flags, ir.IntType(self.width))
        return self.b.icmp_signed("==", packed, ir.Constant(ir.IntType(self.width), -1))

    # -- building --------------------------------------------------------------------------

    def build(self) -> ir.Function:
        b = self.b
        args = self.args
        self.give_up_block = self.function.append_basic_block("give_up")
        self.done_block = self.function.append_basic_block("done")
        self.load_state()
        b.store(self.L.const(I64, 0), self.executed)
        b.store(self.L.const(I1, 0), self.out_of_range)
        b.store(self.L.const(I64, self.entry), self.pcs)
        self.prologue = b.block
        for leader in self.plan.leaders:
            self.blocks[leader] = self.function.append_basic_block(f"pc_{leader:03x}")
        if self.masked:
            self.dispatch = self.function.append_basic_block("dispatch")
            b.branch(self.dispatch)
            self.emit_dispatch()
        else:
            b.branch(self.blocks[self.entry])
        for leader in self.plan.leaders:
            b.position_at_end(self.blocks[leader])
            if self.masked:
                self.mask = b.icmp_signed("==", b.load(self.pcs), self.L.const(I64, leader))
            self.emit_block(leader)
        b.position_at_end(self.done_block)
        if self.width > 1:
            self.fail_if(b.load(self.out_of_range))
        self.store_state()
        b.ret(ir.Constant(I8, DONE))
        b.position_at_end(self.give_up_block)
        if self.width == 1:
            status = arg_pointer(b, args, ARG["status"], I8)
            b.store(ir.Constant(I8, NEEDS_REFERENCE), b.gep(status, [self.base]))
        b.ret(ir.Constant(I8, NEEDS_REFERENCE))
        return self.function

    def write(self, slot: ir.Value, value: ir.Value) -> None:
        """Store a register component, flag or address register (in the vector
        function: only for the lanes at the block)."""
        if self.masked:
            value = self.b.select(self.mask, value, self.b.load(slot))
        self.b.store(value, slot)

    def load_state(self) -> None:
        """Every register the program names, the address registers and flags into the
        function's slots; the uniforms it reads by name as values."""
        b, L = self.b, self.L
        for bank, number in sorted(self.plan.registers):
            if bank == "v":
                if ("v", number) in self.missing:
                    continue
                pointer = arg_pointer(b, self.args, FILE_BASE["v"] + number, F32)
                for c, value in enumerate(self._load_rows(pointer, 4, F32)):
                    self.inputs[(number, c)] = value
                continue
            # Allocated here, after the prologue's branches, not in the entry block:
            # SROA then leaves the registers in memory, and the kernels ran 3-7 %
            # faster than with them promoted to SSA values (lighting and skinning,
            # measured 2026-11-27; the web of phis across the block dispatch costs more).
            slots = [b.alloca(L.f32) for _ in range(4)]
            for c in range(4):
                self.slots[(bank, number, c)] = slots[c]
            word = arg_word(b, self.args, FILE_BASE[bank] + number)
            self._load_optional(word, slots, lambda w=word: self._load_rows(
                b.inttoptr(w, F32.as_pointer()), 4, F32), L.const(F32, 0.0))
        self.load_uniforms()
        self.a0 = [b.alloca(L.i64) for _ in range(2)]
        self.flags = [b.alloca(L.i1) for _ in range(2)]
        none = ir.Constant(I64, 0)
        address = arg_word(b, self.args, ARG["address"]) if self.plan.address else none
        al = b.alloca(L.i64)
        self._load_optional(address, [*self.a0, al], lambda: self._load_rows(
            b.inttoptr(address, I64.as_pointer()), ADDRESS_ROWS, I64), L.const(I64, 0))
        al_values = b.load(al)
        together = ir.Constant(I1, 1)
        if self.width > 1:
            first = b.extract_element(al_values, ir.Constant(I32, 0))
            together = self.all(b.icmp_signed("==", al_values, L.splat(first)))
            if not self.masked:
                # one control state: the lanes must start with one aL (else one by one)
                self.fail_if(b.not_(together))
                al_values = first
        self.control.reset(al_values)
        b.store(together, self.shared)
        flags = arg_word(b, self.args, ARG["flags"]) if self.plan.flags else none
        self._load_optional(flags, self.flags, lambda: [
            b.trunc(row, L.i1) for row in self._load_rows(
                b.inttoptr(flags, I8.as_pointer()), 2, I8)], L.const(I1, 0))

    def load_uniforms(self) -> None:
        """The float uniforms the program reads by name, as values."""
        b = self.b
        floats = arg_pointer(b, self.args, ARG["floats"], F32)
        for number in self.plan.uniform_rows:
            if ("c", number) in self.missing:
                continue
            for c in range(4):
                value = b.load(b.gep(floats, [ir.Constant(I64, 4 * number + c)]))
                self.uniforms[(number, c)] = self.L.splat(value)

    def _load_optional(self, word: ir.Value, slots: list[ir.Value], load, zero) -> None:
        """Fill ``slots`` from ``load()`` if the address ``word`` is not 0, else with
        ``zero``."""
        b = self.b
        for slot in slots:
            b.store(zero, slot)
        with b.if_then(b.icmp_unsigned("!=", word, ir.Constant(I64, 0))):
            for slot, value in zip(slots, load(), strict=True):
                b.store(value, slot)

    def store_state(self) -> None:
        """The registers the program writes, the address registers and flags back to the
        arrays given (those whose address is not 0); the steps and the status."""
        b, args = self.b, self.args
        written = {(s.dest[0], s.dest[1]) for s in self.steps
                   if s.dest is not None and s.fault is None and s.mask is not None}
        for bank, number in sorted(self.plan.registers & written):
            word = arg_word(b, args, FILE_BASE[bank] + number)
            with b.if_then(b.icmp_unsigned("!=", word, ir.Constant(I64, 0))):
                values = [b.load(self.slots[(bank, number, c)]) for c in range(4)]
                self._store_rows(b.inttoptr(word, F32.as_pointer()), values, F32)
        address = arg_word(b, args, ARG["address"]) if self.plan.address else ir.Constant(I64, 0)
        with b.if_then(b.icmp_unsigned("!=", address, ir.Constant(I64, 0))):
            values = [b.load(slot) for slot in self.a0]
            values.append(self.al_values())
            self._store_rows(b.inttoptr(address, I64.as_pointer()), values, I64)
        flags = arg_word(b, args, ARG["flags"]) if self.plan.flags else ir.Constant(I64, 0)
        with b.if_then(b.icmp_unsigned("!=", flags, ir.Constant(I64, 0))):
            values = [b.zext(b.load(slot), self.L.lanes(I8)) for slot in self.flags]
            self._store_rows(b.inttoptr(flags, I8.as_pointer()), values, I8)
        executed = b.load(self.executed)
        for name, value, kind in (("steps", executed, I64),
                                  ("status", self.L.const(I8, DONE), I8)):
            word = arg_word(b, args, ARG[name])
            with b.if_then(b.icmp_unsigned("!=", word, ir.Constant(I64, 0))):
                pointer = b.inttoptr(word, kind.as_pointer())
                for k in range(self.width):
                    part = value if self.width == 1 else b.extract_element(
                        value, ir.Constant(I32, k))
                    b.store(part, b.gep(pointer, [self.lane(k)]))

    def al_values(self) -> ir.Value:
        """Each lane's aL (lane 0's for all while they share a control state)."""
        b = self.b
        if not self.masked:
            return self.L.splat(b.load(self.control.al))
        parts = []
        for k in range(self.width):
            self.control.lane = ir.Constant(I64, k)
            parts.append(b.load(self.control.al))
        self.control.lane = ir.Constant(I64, 0)
        return b.select(b.load(self.shared), self.L.splat(parts[0]), self._vector(parts))

    # -- blocks ----------------------------------------------------------------------------

    #: Whether SETEMIT and EMIT run (geometry shaders, :mod:`.nativegeometry`); in a
    #: vertex shader they fault, which the reference engine reports.
    geometry = False

    def emit_geometry(self, step: Step) -> None:
        self.fail()

    def emit_block(self, leader: int) -> None:
        b, L = self.b, self.L
        steps = self.block_steps(leader)
        #: Values written in this block (:meth:`.nativealu.AluMixin.read`), and the
        #: working values of those stored from rounded ones.
        self.fresh: dict[tuple[str, int, int], ir.Value] = {}
        self.working: dict[ir.Value, ir.Value] = {}
        count = L.const(I64, len(steps))
        if self.masked:
            count = b.select(self.mask, count, L.const(I64, 0))
        executed = b.add(b.load(self.executed), count)
        limit = L.splat(arg_word(b, self.args, ARG["max_steps"]))
        self.fail_if(b.icmp_signed(">", executed, limit))
        b.store(executed, self.executed)
        for step in steps:
            if step.fault is not None or step.kind is Kind.UNKNOWN:
                self.fail()
            elif step.kind is Kind.GEOMETRY:
                self.emit_geometry(step)
            elif step.kind in (Kind.ARITHMETIC, Kind.COMPARE):
                self.emit_alu(step)
        last = steps[-1]
        if last.fault is not None or last.kind is Kind.UNKNOWN or (
                last.kind is Kind.GEOMETRY and not self.geometry):
            b.branch(self.give_up_block)
        elif last.info.flow is Flow.END:
            if self.masked:
                self.write(self.pcs, L.const(I64, FINISHED))
                b.branch(self.dispatch)
            else:
                b.branch(self.done_block)
        elif self.masked:
            self.emit_lane_transfers(last)
        else:
            self.emit_transfer(last)

def build_module(plan: Plan, entry: int, precision: Arithmetic, missing: frozenset,
                 width: int = WIDTH, bounded: bool = False) -> ir.Module:
    """The IR of the kernel ``run(lo, hi, args)`` for ``plan`` started at ``entry``
    (``bounded``: for runs whose uniforms are ``primitives.bounded24`` with
    ``primitives.BOUND_UNIFORM``)."""
    module = ir.Module(name="gpuisa_pica_kernel")
    unit = _Unit(module, plan, entry, precision, missing, width, "lanes", bounded)
    wide = unit.build()
    narrow = _Unit(module, plan, entry, precision, missing, 1, "lane").build()
    run = ir.Function(module, ir.FunctionType(ir.VoidType(), [I64, I64, I64.as_pointer()]),
                      "run")
    lo, hi, args = run.args
    b = ir.IRBuilder(run.append_basic_block("entry"))
    extra = [_working_table(b, args)] if unit.tabled else []
    base = b.alloca(I64)
    b.store(lo, base)
    vectors = b.append_basic_block("vectors")
    vector = b.append_basic_block("vector")
    again = b.append_basic_block("again")
    single = b.append_basic_block("single")
    lane = b.append_basic_block("lane")
    done = b.append_basic_block("done")
    b.branch(vectors)
    b.position_at_end(vectors)
    start = b.load(base)
    b.cbranch(b.icmp_signed("<=", b.add(start, ir.Constant(I64, width)), hi), vector, single)
    b.position_at_end(vector)
    status = b.call(wide, [start, args, *extra])
    b.store(b.add(start, ir.Constant(I64, width)), base)
    b.cbranch(b.icmp_unsigned("==", status, ir.Constant(I8, DONE)), vectors, again)
    b.position_at_end(again)
    for k in range(width):
        b.call(narrow, [b.add(start, ir.Constant(I64, k)), args])
    b.branch(vectors)
    b.position_at_end(single)
    current = b.load(base)
    b.cbranch(b.icmp_signed("<", current, hi), lane, done)
    b.position_at_end(lane)
    b.call(narrow, [current, args])
    b.store(b.add(current, ir.Constant(I64, 1)), base)
    b.branch(single)
    b.position_at_end(done)
    b.ret_void()
    return module


def _working_table(b: ir.IRBuilder, args: ir.Value) -> ir.Value:
    """The working values (``Lowering.work24``) of every row of the uniform table, in a
    ``[4 * rows x double]`` stack array of ``run``: relative reads of f24 vector
    functions load them instead of flushing each value they read."""
    rows = UNIFORM_ROWS
    table = b.alloca(ir.ArrayType(F64, 4 * rows))
    table.align = 64
    floats = arg_pointer(b, args, ARG["floats"], F32)
    counter = b.alloca(I64)
    b.store(ir.Constant(I64, 0), counter)
    test = b.append_basic_block("table")
    body = b.append_basic_block("table_row")
    done = b.append_basic_block("tabled")
    b.branch(test)
    b.position_at_end(test)
    row = b.load(counter)
    b.cbranch(b.icmp_signed("<", row, ir.Constant(I64, rows)), body, done)
    b.position_at_end(body)
    at = b.mul(row, ir.Constant(I64, 4))
    quad = ir.VectorType(F32, 4)
    values = b.load(b.bitcast(b.gep(floats, [at]), quad.as_pointer()), align=4)
    working = Lowering(b, 4).work24(values)
    first = b.gep(table, [ir.Constant(I32, 0), at])
    b.store(working, b.bitcast(first, working.type.as_pointer()), align=8)
    b.store(b.add(row, ir.Constant(I64, 1)), counter)
    b.branch(test)
    b.position_at_end(done)
    return b.gep(table, [ir.Constant(I32, 0), ir.Constant(I32, 0)])


__all__ = ["ARG", "ARG_COUNT", "DONE", "FILE_BASE", "NEEDS_REFERENCE", "WIDTH", "Plan",
           "build_module", "ends_block"]
