"""A decoded program prepared for the reference engine: one small Python function per ALU
instruction (operand reads, the opcode's recipe with the scalar arithmetic, the masked
write) and the constant fields of every other instruction, made once per program and
precision so that running an instruction only calls them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ....errors import InputError
from ...isa import Condition, EmitEffect, Flow, Kind, Writes
from ..decode import DecodedProgram, Operand, Step
from ..rules.primitives import relative_row
from ..rules.recipes import recipe_for
from ..rules.scalar import ARITHMETIC
from .lanes import Lane, UniformTables

#: What a plan entry is (the first item of each :attr:`Plan.entries` tuple).
ALU, FLOW, END, SETEMIT, EMIT, NOP, FAULT = range(7)
#: Flow and condition codes of the FLOW entries (isa.py's integer values).
FLOW_LOOP = int(Flow.LOOP)
USES_BOOL = frozenset({int(Condition.BOOL), int(Condition.BOOLNUM)})

Reader = Callable[[Lane, UniformTables], Any]


@dataclass(frozen=True, slots=True)
class Plan:
    """``entries[pc]`` is (what, ...): (ALU, execute), (FLOW, flow, condition, condop,
    refx, refy, dst, num, id), (SETEMIT, vtxid, primemit, winding), (END,), (EMIT,),
    (NOP,), (FAULT, reason).  ``used`` and ``written`` name the registers the program
    reads or writes, ``address`` and ``flags`` whether it can change a0/aL or cmp."""

    entries: tuple[tuple, ...]
    used: frozenset[tuple[str, int]]
    written: frozenset[tuple[str, int]]
    address: bool
    flags: bool
    geometry: bool


_PLANS: dict[tuple[int, str], tuple[DecodedProgram, Plan]] = {}
_PLANS_KEPT = 16
_PLANS_LOCK = threading.Lock()


def plan_for(program: DecodedProgram, precision: str) -> Plan:
    """The plan of ``program`` (cached for the programs used last)."""
    key = (id(program), precision)
    cached = _PLANS.get(key)
    if cached is not None and cached[0] is program:
        return cached[1]
    plan = _make_plan(program, precision)
    with _PLANS_LOCK:  # threads share the cache (a Dask worker's, pica fuzz --workers)
        if len(_PLANS) >= _PLANS_KEPT:
            _PLANS.pop(next(iter(_PLANS)))
        _PLANS[key] = (program, plan)
    return plan


def _make_plan(program: DecodedProgram, precision: str) -> Plan:
    used: set[tuple[str, int]] = set()
    written: set[tuple[str, int]] = set()
    entries = []
    for step in program.steps:
        entries.append(_entry(step, precision))
        for operand in step.sources:
            if operand.bank != "c":
                used.add((operand.bank, operand.number))
        if step.dest is not None and step.fault is None:
            used.add(step.dest)
            written.add(step.dest)
    infos = [step.info for step in program.steps if step.fault is None]
    return Plan(tuple(entries), frozenset(used), frozenset(written),
                any(Writes.ADDRESS in i.writes or i.flow is Flow.LOOP for i in infos),
                any(Writes.FLAGS in i.writes for i in infos),
                any(i.geometry_only for i in infos))


def _fields(step: Step) -> dict[str, int]:
    return dict(step.fields)


def _entry(step: Step, precision: str) -> tuple:
    if step.fault is not None:
        return (FAULT, step.fault)
    kind = step.kind
    if kind is Kind.ARITHMETIC or kind is Kind.COMPARE:
        return (ALU, _alu(step, precision))
    fields = _fields(step)
    if step.info.flow is Flow.END:
        return (END,)
    if kind is Kind.FLOW:
        info = step.info
        return (FLOW, int(info.flow), int(info.condition), fields.get("condop", 0),
                fields.get("refx", 0), fields.get("refy", 0), fields.get("dst", 0),
                fields.get("num", 0), fields.get("id", 0))
    if step.info.emission is EmitEffect.SETUP:
        return (SETEMIT, fields["vtxid"], bool(fields["primemit"]), bool(fields["winding"]))
    if step.info.emission is EmitEffect.EMIT:
        return (EMIT,)
    return (NOP,)


def _register(operand: Operand, pc: int) -> Reader:
    """A function returning the register an operand reads (a sequence of 4 floats)."""
    n = operand.number
    if operand.bank == "r":
        return lambda lane, u: lane.r[n]
    if operand.bank == "v":
        missing = f"input v{n} is read at pc 0x{pc:03X} but was not given"

        def input_register(lane: Lane, u: UniformTables):
            register = lane.v[n]
            if register is None:
                raise InputError(missing)
            return register

        return input_register
    if operand.relative is None:
        missing = f"float uniform c{n} is read at pc 0x{pc:03X} but was not given"

        def uniform(lane: Lane, u: UniformTables):
            if not u.float_given[n]:
                raise InputError(missing)
            return u.floats[n]

        return uniform
    index = operand.relative

    def relative(lane: Lane, u: UniformTables):
        row = relative_row(n, lane.a[index])
        if not u.float_given[row]:
            raise InputError(f"float uniform c{row} is read at pc 0x{pc:03X} but was not "
                             f"given")
        return u.floats[row]

    return relative


def _reader(operand: Operand, pc: int, negate: Callable[[float], float]) -> Reader:
    """A function returning an operand's 4 components: swizzled, then negated."""
    register = _register(operand, pc)
    x, y, z, w = (int(c) for c in operand.swizzle)
    if operand.negate:
        return lambda lane, u: (lambda s: (negate(s[x]), negate(s[y]), negate(s[z]),
                                           negate(s[w])))(register(lane, u))
    if (x, y, z, w) == (0, 1, 2, 3):
        return register
    return lambda lane, u: (lambda s: (s[x], s[y], s[z], s[w]))(register(lane, u))


def _alu(step: Step, precision: str) -> Callable[[Lane, UniformTables], None]:
    """The function executing one ALU instruction on a lane."""
    m = ARITHMETIC[precision]
    recipe = recipe_for(step.op)
    field = _fields(step).__getitem__
    readers = [_reader(operand, step.pc, m.negate) for operand in step.sources]
    mask = tuple(int(c) for c in step.mask)
    address_mask = tuple(c for c in mask if c < 2)
    dest = step.dest
    a_reader, b_reader, c_reader = [*readers, None, None, None][:3]

    def execute(lane: Lane, u: UniformTables) -> None:
        a = a_reader(lane, u)
        b = b_reader(lane, u) if b_reader is not None else None
        c = c_reader(lane, u) if c_reader is not None else None
        value, flags, address = recipe(m, a, b, c, field)
        if value is not None and dest is not None:
            bank, number = dest
            target = lane.r[number] if bank == "r" else lane.o[lane.bank][number]
            for component in mask:
                target[component] = value[component]
        if flags is not None:
            lane.cmp[0], lane.cmp[1] = flags
        if address is not None:
            for component in address_mask:
                lane.a[component] = address[component]

    return execute
