"""A geometry program translated into LLVM IR: one function that runs every invocation of
a feed in order, on one geometry shader unit.

A geometry unit is one lane whose registers, output banks and emission state persist
from one invocation to the next (pica-emulation.md#initial-state,
pica-emulation.md#geometry), so the function is the one-lane function of
:class:`.native._Unit` (the same blocks, ALU lowering and stack machine) inside a loop
over the invocations.  Before each invocation the loop sets the fed float uniforms
(:class:`..geometry.GeometryFeed`), loads the invocation's input registers and the
uniforms the program reads by name (values computed from them are made once per
invocation), empties the stacks (aL, a0, the flags, temporaries and outputs keep their
values); at END it records the registers of the invocation and sets b15
(:data:`..geometry.GS_DONE_BOOL`).

The output registers of both banks live in stack slots, the active bank's where the ALU
code writes; EMIT copies the output mask's registers into the vertex array, applies the
rules of :mod:`...flow.emission` (:mod:`.emissionir`) and, as the active bank flips,
swaps the two banks' slots.  Whatever it cannot finish exactly as the reference engine
would (a hang, a fault, a read of a register that was not given, the step limit) makes
the function return :data:`.nativeabi.NEEDS_REFERENCE`; full vertex or primitive arrays
return :data:`.nativeabi.FULL`.  It works on copies of the unit's state: the caller
runs the whole feed again, or with larger arrays.

Two kernels can be made of a program: one computing ADD, MUL, MAD and the dot products
in range as the vertex kernels' vector functions do (``compiled.alu``), which gives up
at the END of an invocation that wrote a value that is not finite, and the exact one,
which the caller runs the feed on where the first gave up (and the reference engine
where that one did).

The kernel is ``int8 run(int64 invocations, int64 *args)`` with the words of
:data:`.nativeabi.ARGS` and :data:`.nativeabi.GEOMETRY_ARGS`.
"""

from __future__ import annotations

from ...flow import emission as E
from ...isa import NUM_OUTPUTS, EmitEffect
from ..decode import Step
from ..geometry import GS_DONE_BOOL
from ..loading import Arithmetic
from . import emissionir
from . import textir as ir
from .alu import AluLowering
from .irtypes import F32, I1, I8, I64, i64
from .native import Plan, _Unit
from .nativeabi import (
    ARG,
    DONE,
    FILE_BASE,
    FULL,
    GEOMETRY_ARG,
    NEEDS_REFERENCE,
    arg_pointer,
    arg_word,
)


class _GeometryUnit(_Unit):
    """The function running every invocation of a feed (see the module docstring)."""

    geometry = True

    def __init__(self, module: ir.Module, plan: Plan, entry: int, precision: Arithmetic,
                 missing: frozenset, emitted: tuple[int, ...], logged: tuple[int, ...],
                 in_range: bool):
        super().__init__(module, plan, entry, precision, missing, 1, "run")
        # every invocation runs here: the rules expanded where they are used; with
        # ``in_range`` the arithmetic of the vector functions, whose results are checked
        # at every END (the caller runs the feed again on the exact kernel if one was
        # not finite)
        self.L.outline = False
        self.alu_ir = AluLowering(self.L, precision, in_range=in_range)
        self.alu_ir.hoist = self.hoist_work
        self.function.linkage = ""  # the kernel itself
        self.invocations = self.base
        self.emitted = emitted
        self.logged = logged
        named = {number for bank, number in plan.registers if bank == "o"}
        #: The output registers kept in slots (the others never change and nobody sees
        #: them): "o" the active bank's, "p" the other's.
        self.outputs = tuple(sorted(named | set(emitted) | set(logged)))
        self.temporaries = tuple(sorted(n for bank, n in plan.registers if bank == "r"))

    def pointer(self, name: str, kind: ir.Type) -> ir.Value:
        return arg_pointer(self.b, self.args, GEOMETRY_ARG[name], kind)

    def element(self, pointer: ir.Value, index: ir.Value) -> ir.Value:
        return self.b.gep(pointer, [index])

    def at(self, *terms: tuple[ir.Value | int, int]) -> ir.Value:
        """The sum of ``value * factor`` over ``terms`` (an index into a flat array)."""
        b = self.b
        total = i64(0)
        for value, factor in terms:
            value = i64(value) if isinstance(value, int) else value
            total = b.add(total, b.mul(value, i64(factor)))
        return total

    # -- building --------------------------------------------------------------------------

    def build(self) -> ir.Function:
        b = self.b
        new = self.function.append_basic_block
        self.give_up_block = new("give_up")
        self.full_block = new("full")
        self.done_block = new("invocation_end")  # where END goes (emit_block)
        test, start, finished = new("invocations"), new("invocation"), new("finished")
        self.load_unit()
        self.vertex_count, self.primitive_count, counter = (b.alloca(I64) for _ in range(3))
        for slot in (self.vertex_count, self.primitive_count, counter):
            b.store(i64(0), slot)
        b.store(ir.Constant(I1, 0), self.out_of_range)
        b.branch(test)
        b.position_at_end(test)
        self.invocation = b.load(counter)
        b.cbranch(b.icmp_signed("<", self.invocation, self.invocations), start, finished)
        b.position_at_end(start)
        self.feed()
        self.load_inputs()
        self.load_uniforms()
        # stacks start empty at every invocation; aL keeps its value
        self.control.reset(b.load(self.control.al))
        b.store(i64(0), self.executed)
        self.prologue = b.block
        for leader in self.plan.leaders:
            self.blocks[leader] = new(f"pc_{leader:03x}")
        b.branch(self.blocks[self.entry])
        for leader in self.plan.leaders:
            b.position_at_end(self.blocks[leader])
            self.emit_block(leader)
        b.position_at_end(self.done_block)
        self.fail_if(b.load(self.out_of_range))
        self.log()
        bools = arg_pointer(b, self.args, ARG["bools"], I8)
        b.store(ir.Constant(I8, 1), self.element(bools, i64(GS_DONE_BOOL)))
        b.store(b.add(self.invocation, i64(1)), counter)
        b.branch(test)
        b.position_at_end(finished)
        counts = self.pointer("counts", I64)
        for k, slot in enumerate((self.vertex_count, self.primitive_count)):
            b.store(b.load(slot), self.element(counts, i64(k)))
        b.ret(ir.Constant(I8, DONE))
        for block, status in ((self.give_up_block, NEEDS_REFERENCE), (self.full_block, FULL)):
            b.position_at_end(block)
            b.ret(ir.Constant(I8, status))
        return self.function

    def load_unit(self) -> None:
        """The unit's registers into slots: temporaries, both output banks (the active
        one as "o"), address registers, flags; aL into the control state."""
        b, L = self.b, self.L
        temporaries = self.pointer("temporaries", F32)
        for number in self.temporaries:
            for c in range(4):
                slot = self.slots[("r", number, c)] = b.alloca(F32)
                b.store(b.load(self.element(temporaries, self.at((number, 4), (c, 1)))),
                        slot)
        banks = self.pointer("banks", F32)
        active = b.load(self.element(self.pointer("emission", I64), i64(E.BANK)))
        for name, bank in (("o", active), ("p", b.xor(active, i64(1)))):
            for number in self.outputs:
                for c in range(4):
                    slot = self.slots[(name, number, c)] = b.alloca(F32)
                    at = self.at((bank, 4 * NUM_OUTPUTS), (number, 4), (c, 1))
                    b.store(b.load(self.element(banks, at)), slot)
        address = arg_pointer(b, self.args, ARG["address"], I64)
        self.a0 = [b.alloca(L.i64) for _ in range(2)]
        for k, slot in enumerate(self.a0):
            b.store(b.load(self.element(address, i64(k))), slot)
        self.control.reset(b.load(self.element(address, i64(2))))
        flags = arg_pointer(b, self.args, ARG["flags"], I8)
        self.flags = [b.alloca(I1) for _ in range(2)]
        for k, slot in enumerate(self.flags):
            value = b.load(self.element(flags, i64(k)))
            b.store(b.icmp_unsigned("!=", value, ir.Constant(I8, 0)), slot)

    def feed(self) -> None:
        """The fed float uniforms this invocation loads (an IR loop over them)."""
        b = self.b
        fed, values = self.pointer("fed", I64), self.pointer("fed_values", F32)
        loaded = self.pointer("fed_loaded", I8)
        floats = arg_pointer(b, self.args, ARG["floats"], F32)
        counter = b.alloca(I64)
        b.store(i64(0), counter)
        new = self.function.append_basic_block
        test, body, load, following, done = (new(name) for name in (
            "feed", "fed", "load_fed", "next_fed", "feed_done"))
        b.branch(test)
        b.position_at_end(test)
        k = b.load(counter)
        fed_count = arg_word(b, self.args, GEOMETRY_ARG["fed_count"])
        b.cbranch(b.icmp_signed("<", k, fed_count), body, done)
        b.position_at_end(body)
        row = b.add(b.mul(k, self.invocations), self.invocation)
        flag = b.load(self.element(loaded, row))
        b.cbranch(b.icmp_unsigned("!=", flag, ir.Constant(I8, 0)), load, following)
        b.position_at_end(load)
        number = b.load(self.element(fed, k))
        for c in range(4):
            value = b.load(self.element(values, self.at((row, 4), (c, 1))))
            b.store(value, self.element(floats, self.at((number, 4), (c, 1))))
        b.branch(following)
        b.position_at_end(following)
        b.store(b.add(k, i64(1)), counter)
        b.branch(test)
        b.position_at_end(done)

    def load_inputs(self) -> None:
        """The input registers the program reads: row ``invocation * stride``."""
        b = self.b
        row = b.mul(self.invocation, arg_word(b, self.args, GEOMETRY_ARG["stride"]))
        for bank, number in sorted(self.plan.registers):
            if bank != "v" or ("v", number) in self.missing:
                continue
            pointer = arg_pointer(b, self.args, FILE_BASE["v"] + number, F32)
            for c in range(4):
                self.inputs[(number, c)] = b.load(self.element(pointer,
                                                               self.at((row, 4), (c, 1))))

    def log(self) -> None:
        """The registers at END into the logs' rows of this invocation."""
        b, row = self.b, self.invocation
        count = self.invocations
        for name, numbers, bank in (("log_outputs", self.logged, "o"),
                                    ("log_temporaries", self.temporaries, "r")):
            pointer = self.pointer(name, F32)
            for k, number in enumerate(numbers):
                start = b.mul(b.add(b.mul(i64(k), count), row), i64(4))
                for c in range(4):
                    b.store(b.load(self.slots[(bank, number, c)]),
                            self.element(pointer, b.add(start, i64(c))))
        address = self.pointer("log_address", I64)
        for k, value in enumerate([*(b.load(slot) for slot in self.a0),
                                   b.load(self.control.al)]):
            b.store(value, self.element(address, self.at((row, 3), (k, 1))))
        flags = self.pointer("log_cmp", I8)
        for k, slot in enumerate(self.flags):
            b.store(b.zext(b.load(slot), I8), self.element(flags, self.at((row, 2), (k, 1))))
        b.store(b.load(self.executed), self.element(self.pointer("log_steps", I64), row))

    # -- SETEMIT and EMIT ------------------------------------------------------------------

    def emit_geometry(self, step: Step) -> None:
        b = self.b
        state = self.pointer("emission", I64)
        if step.info.emission is EmitEffect.SETUP:
            emissionir.setemit(b, state, step.field("vtxid"), bool(step.field("primemit")),
                               bool(step.field("winding")))
            return
        if step.info.emission is not EmitEffect.EMIT:
            return
        vertex, made = b.load(self.vertex_count), b.load(self.primitive_count)
        capacity = arg_word(b, self.args, GEOMETRY_ARG["capacity"])
        full = b.or_(b.icmp_signed(">=", vertex, capacity), b.icmp_signed(">=", made, capacity))
        go_on = self.function.append_basic_block()
        b.cbranch(full, self.full_block, go_on)
        b.position_at_end(go_on)
        vertices = self.pointer("vertices", F32)
        for k, number in enumerate(self.emitted):
            start = b.mul(b.add(b.mul(i64(k), capacity), vertex), i64(4))
            for c in range(4):
                b.store(b.load(self.slots[("o", number, c)]),
                        self.element(vertices, b.add(start, i64(c))))
        what, first, second, third = emissionir.emit(b, state, vertex)
        self.fail_if(b.icmp_signed("==", what, i64(E.FAULT)))
        with b.if_then(b.icmp_signed("==", what, i64(E.PRIMITIVE))):
            primitives = self.pointer("primitives", I64)
            for k, value in enumerate((first, second, third)):
                b.store(value, self.element(primitives, self.at((made, 3), (k, 1))))
            winding = b.load(self.element(state, i64(E.WINDING)))
            b.store(b.trunc(winding, I8), self.element(self.pointer("windings", I8), made))
            b.store(b.add(made, i64(1)), self.primitive_count)
        b.store(b.add(vertex, i64(1)), self.vertex_count)
        # the active bank flipped: the slots of the two banks change places
        for number in self.outputs:
            for c in range(4):
                active, other = self.slots[("o", number, c)], self.slots[("p", number, c)]
                value = b.load(active)
                b.store(b.load(other), active)
                b.store(value, other)


def build_module(plan: Plan, entry: int, precision: Arithmetic, missing: frozenset,
                 emitted: tuple[int, ...], logged: tuple[int, ...],
                 in_range: bool = False) -> ir.Module:
    """The IR of the kernel ``run(invocations, args)`` for ``plan`` started at ``entry``:
    EMIT copies the output registers ``emitted``, each invocation's END records the
    output registers ``logged``; ``in_range``: ADD, MUL, MAD and the dot products
    computed in range, the kernel giving up where a result is not finite."""
    module = ir.Module(name="gpuisa_pica_geometry_kernel")
    _GeometryUnit(module, plan, entry, precision, missing, emitted, logged,
                  in_range).build()
    return module


__all__ = ["build_module"]
