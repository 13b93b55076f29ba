"""The stack machine of :mod:`...flow.stacks` lowered to LLVM IR, for one control state.

The compiled kernels keep a control state (the IF, CALL and LOOP ring buffers, their
counts and aL) in stack slots of the function and change it with the IR this module
builds: a flow instruction's effect (``stacks.EFFECTS``) with its fields as constants,
and the per-instruction check (``stacks.next_pc``) after instructions where a stack can
pop.  It is the second realisation of those rules; ``tests/pica/engine/test_flowir.py``
runs both on the same random instruction sequences and compares every state.

Integers are ``i64``.
"""

from __future__ import annotations

from collections.abc import Mapping

from ... import isa
from ...flow import stacks as S
from ...isa import Condition, CondOp, Flow
from . import textir as ir
from .irtypes import I1, I64, i64

#: Each stack by its count's name: (stack, depth, words per entry).
_STACKS = {"n_if": ("ifs", isa.IF_STACK_DEPTH, S.IF_WIDTH),
           "n_call": ("calls", isa.CALL_STACK_DEPTH, S.CALL_WIDTH),
           "n_loop": ("loops", isa.LOOP_STACK_DEPTH, S.LOOP_WIDTH)}
_SIZES = {stack: depth * width for stack, depth, width in _STACKS.values()}
_COUNTS = ("n_if", "n_call", "n_loop", "al")
#: A lane's control state is one row of words: the three stacks, then the counts and aL.
_OFFSETS = {"ifs": 0, "calls": _SIZES["ifs"], "loops": _SIZES["ifs"] + _SIZES["calls"]}
_OFFSETS.update({name: sum(_SIZES.values()) + k for k, name in enumerate(_COUNTS)})
_ROW = sum(_SIZES.values()) + len(_COUNTS)
#: What the loop stage gives for a break on an empty LOOP stack (no PC is negative).
_HANG = -2


class ControlState:
    """The control states of ``lanes`` lanes, stored in the entry block of ``builder``'s
    function, and the rules that change them: the IR built acts on the state of lane
    :attr:`lane` (an ``i64`` value, 0 to start with)."""

    def __init__(self, builder: ir.IRBuilder, lanes: int = 1, outline: bool = False):
        self.b = builder
        self.lanes = lanes
        #: Whether the stages of the check and the pushes are functions of the module
        #: that the code calls (made once per module: far less code to compile).
        self.outline = outline
        self._words = builder.alloca(ir.ArrayType(I64, lanes * _ROW))
        self.lane = i64(0)

    def _called(self, name: str, arguments: list[ir.Value], result: ir.Type, body):
        """``body(state, *arguments)`` built once per module as a function of the rows'
        storage, the lane's row and ``arguments``, and called here."""
        module = self.b.module
        full = f"gpuisa.control.{name}.{self.lanes}"
        function = module.globals.get(full)
        if function is None:
            kinds = [self._words.type, I64, *(a.type for a in arguments)]
            function = ir.Function(module, ir.FunctionType(result, kinds), full)
            function.linkage = "internal"
            inner = ControlState.__new__(ControlState)
            inner.b = ir.IRBuilder(function.append_basic_block("entry"))
            inner.lanes, inner.outline = self.lanes, False
            inner._words, inner._lane, inner._base = function.args[0], None, function.args[1]
            value = body(inner, *function.args[2:])
            if isinstance(result, ir.VoidType):
                inner.b.ret_void()
            else:
                inner.b.ret(value)
        return self.b.call(function, [self._words, self._base, *arguments])

    @property
    def lane(self) -> ir.Value:
        """The lane whose state the IR built acts on (an ``i64`` value)."""
        return self._lane

    @lane.setter
    def lane(self, lane: ir.Value) -> None:
        # the start of the lane's row, computed once where the lane is chosen
        self._lane = lane
        self._base = (i64(lane.constant * _ROW) if isinstance(lane, ir.Constant)
                      else self.b.mul(lane, i64(_ROW)))

    def _word(self, index: ir.Value) -> ir.Value:
        """The slot of word ``index`` of the current lane's row."""
        base = self._base
        if isinstance(base, ir.Constant) and isinstance(index, ir.Constant):
            at = i64(base.constant + index.constant)
        else:
            at = self.b.add(base, index)
        return self.b.gep(self._words, [ir.Constant(ir.IntType(32), 0), at])

    def _count(self, name: str) -> ir.Value:
        return self._word(i64(_OFFSETS[name]))

    #: The stacks by name, and the slots of the current lane's counts and aL (the names
    #: of :mod:`...flow.stacks`' parameters).
    ifs, calls, loops = "ifs", "calls", "loops"
    n_if = property(lambda self: self._count("n_if"))
    n_call = property(lambda self: self._count("n_call"))
    n_loop = property(lambda self: self._count("n_loop"))
    al = property(lambda self: self._count("al"))

    def slot_of(self, stack: str, index: int) -> ir.Value:
        """The slot of entry word ``index`` of a stack of the current lane (tests)."""
        return self._slot(stack, i64(index))

    def reset(self, al: ir.Value) -> None:
        """Empty stacks for every lane; aL = ``al`` (a value, or a vector with one per
        lane)."""
        b = self.b
        for k in range(self.lanes):
            self.lane = i64(k)
            for name in ("n_if", "n_call", "n_loop"):
                b.store(i64(0), self._count(name))
            value = al if self.lanes == 1 else b.extract_element(al, ir.Constant(ir.IntType(32), k))
            b.store(value, self.al)
        self.lane = i64(0)

    def broadcast(self) -> None:
        """Copy lane 0's control state to every other lane (an IR loop over the lanes,
        each copying lane 0's row word by word)."""
        if self.outline:
            self._called("broadcast", [], ir.VoidType(), lambda inner: inner.broadcast())
            return
        b = self.b
        counter = b.alloca(I64)
        b.store(i64(1), counter)
        test, body, done = (b.append_basic_block(name) for name in ("copy", "copy_lane",
                                                                     "copied"))
        b.branch(test)
        b.position_at_end(test)
        k = b.load(counter)
        b.cbranch(b.icmp_signed("<", k, i64(self.lanes)), body, done)
        b.position_at_end(body)
        zero = ir.Constant(ir.IntType(32), 0)
        base = b.mul(k, i64(_ROW))
        for i in range(_ROW):
            value = b.load(b.gep(self._words, [zero, i64(i)]))
            b.store(value, b.gep(self._words, [zero, b.add(base, i64(i))]))
        b.store(b.add(k, i64(1)), counter)
        b.branch(test)
        b.position_at_end(done)

    def _slot(self, stack: str, index: ir.Value) -> ir.Value:
        if isinstance(index, ir.Constant):
            return self._word(i64(index.constant + _OFFSETS[stack]))
        return self._word(self.b.add(index, i64(_OFFSETS[stack])))

    def _get(self, stack, index: ir.Value) -> ir.Value:
        return self.b.load(self._slot(stack, index))

    def _set(self, stack, index: ir.Value, value: ir.Value) -> None:
        self.b.store(value, self._slot(stack, index))

    # -- pushes ----------------------------------------------------------------------------

    def _push(self, stack, count, depth: int, width: int, values: list[ir.Value]) -> None:
        """``stacks._make_room`` and the push: a full stack first drops its oldest
        entry; then the entry goes to the top."""
        b = self.b
        n = b.load(count)
        full = b.icmp_signed("==", n, i64(depth))
        with b.if_then(full, likely=False):
            for i in range((depth - 1) * width):
                self._set(stack, i64(i), self._get(stack, i64(i + width)))
        row = b.select(full, i64(depth - 1), n)
        base = b.mul(row, i64(width))
        for k, value in enumerate(values):
            self._set(stack, b.add(base, i64(k)), value)
        b.store(b.add(row, i64(1)), count)

    def _push_to(self, name: str, values: list[ir.Value]) -> None:
        stack, depth, width = _STACKS[name]
        if self.outline:
            self._called(f"push_{stack}", values, ir.VoidType(),
                         lambda inner, *args: inner._push_to(name, list(args)))
            return
        self._push(stack, getattr(self, name), depth, width, values)

    def push_if(self, trigger: int, destination: int) -> None:
        self._push_to("n_if", [i64(trigger), i64(destination)])

    def push_call(self, trigger: int, return_to: int) -> None:
        self._push_to("n_call", [i64(trigger), i64(return_to)])

    def push_loop(self, trigger: int, body: int, count: ir.Value, step: ir.Value) -> None:
        self._push_to("n_loop", [i64(trigger), i64(body), count, step,
                                 self.b.load(self.al)])

    # -- a flow instruction --------------------------------------------------------------

    def effect(self, flow: Flow, taken: ir.Value, pc: int, dst: int, num: int,
               loop: tuple[ir.Value, ir.Value, ir.Value] | None = None
               ) -> tuple[ir.Value, ir.Value]:
        """``stacks.EFFECTS[flow]`` once the condition ``taken`` (an ``i1``) is known:
        returns (the pending jump or ``NO_JUMP``, whether a break is pending)."""
        b = self.b
        no_jump, false = i64(S.NO_JUMP), ir.Constant(I1, 0)
        if flow is Flow.BREAK:
            return no_jump, taken
        if flow is Flow.CALL:
            with b.if_then(taken):
                self.push_call(dst + num, pc + 1)
            return b.select(taken, i64(dst), no_jump), false
        if flow is Flow.IF:
            with b.if_then(taken):
                self.push_if(dst, dst + num)
            return b.select(taken, no_jump, i64(dst)), false
        if flow is Flow.LOOP:
            x, y, z = loop
            self.push_loop(dst + 1, pc + 1, x, z)
            b.store(y, self.al)
            return no_jump, false
        if flow is Flow.JUMP:
            return b.select(taken, i64(dst), no_jump), false
        return no_jump, false

    # -- the check after an instruction ----------------------------------------------------

    def next_pc(self, pc: int, jump: ir.Value, breaking: ir.Value, check_call: bool,
                check_if: bool, check_loop: bool) -> tuple[ir.Value, ir.Value]:
        """``stacks.next_pc`` after the instruction at ``pc``: (the new PC, hang)."""
        b = self.b
        following = i64(pc + 1)
        no_jump = i64(S.NO_JUMP)
        call_pc = self._stage("check_call", [following]) if check_call else no_jump
        if_pc = self._stage("check_if", [following]) if check_if else no_jump
        hang = ir.Constant(I1, 0)
        loop_pc = no_jump
        if check_loop:
            # the loop stage's result: its PC, or HANG
            loop_pc = self._stage("check_loop", [following, breaking])
            hang = b.icmp_signed("==", loop_pc, i64(_HANG))
            loop_pc = b.select(hang, no_jump, loop_pc)
        chosen = b.select(b.icmp_signed("!=", jump, no_jump), jump, following)
        for candidate in (call_pc, if_pc, loop_pc):
            if candidate is not no_jump:
                chosen = b.select(b.icmp_signed("!=", candidate, no_jump), candidate, chosen)
        return b.select(hang, following, chosen), hang

    def _stage(self, name: str, arguments: list[ir.Value]) -> ir.Value:
        """A stage of the check (``_check_call`` ...): called, or built here."""
        method = getattr(ControlState, f"_{name}")
        if self.outline:
            return self._called(name, arguments, I64, method)
        return method(self, *arguments)

    def _check_call(self, following: ir.Value) -> ir.Value:
        """The CALL stage: pops while the top matches its copy of the PC, up to the
        stack depth; a pop after the third no longer updates the PC."""
        b = self.b
        result, copy = b.alloca(I64), b.alloca(I64)
        b.store(i64(S.NO_JUMP), result)
        b.store(following, copy)
        done = b.append_basic_block("call_done")
        for pops in range(1, isa.CALL_STACK_DEPTH + 1):
            n = b.load(self.n_call)
            empty = b.icmp_signed("==", n, i64(0))
            top = b.sub(n, i64(1))
            trigger = self._get(self.calls, b.mul(b.select(empty, i64(0), top),
                                                  i64(S.CALL_WIDTH)))
            stop = b.or_(empty, b.icmp_signed("!=", trigger, b.load(copy)))
            go = b.append_basic_block(f"call_pop{pops}")
            b.cbranch(stop, done, go)
            b.position_at_end(go)
            b.store(top, self.n_call)
            returned = self._get(self.calls, b.add(b.mul(top, i64(S.CALL_WIDTH)), i64(1)))
            b.store(returned, copy)
            if pops <= isa.CALL_POPS_EFFECTIVE:
                b.store(returned, result)
        b.branch(done)
        b.position_at_end(done)
        return b.load(result)

    def _check_if(self, following: ir.Value) -> ir.Value:
        """The IF stage: at most one pop, compared with PC + 1."""
        b = self.b
        n = b.load(self.n_if)
        nonempty = b.icmp_signed(">", n, i64(0))
        top = b.select(nonempty, b.sub(n, i64(1)), i64(0))
        base = b.mul(top, i64(S.IF_WIDTH))
        pops = b.and_(nonempty, b.icmp_signed("==", self._get(self.ifs, base), following))
        b.store(b.select(pops, top, n), self.n_if)
        destination = self._get(self.ifs, b.add(base, i64(1)))
        return b.select(pops, destination, i64(S.NO_JUMP))

    def _check_loop(self, following: ir.Value, breaking: ir.Value) -> ir.Value:
        """The LOOP stage: at most one pop; a pending break acts on the top loop; a break
        on an empty stack hangs (:data:`_HANG`)."""
        b = self.b
        result = b.alloca(I64)
        b.store(i64(S.NO_JUMP), result)
        n = b.load(self.n_loop)
        empty = b.icmp_signed("==", n, i64(0))
        hang = b.and_(breaking, empty)
        top = b.mul(b.select(empty, i64(0), b.sub(n, i64(1))), i64(S.LOOP_WIDTH))
        at_trigger = b.icmp_signed("==", self._get(self.loops, b.add(top, i64(S.TRIGGER))),
                                   following)
        acts = b.and_(b.not_(empty), b.or_(breaking, at_trigger))
        with b.if_then(acts):
            step = self._get(self.loops, b.add(top, i64(S.STEP)))
            b.store(b.add(b.load(self.al), step), self.al)
            count_slot = b.add(top, i64(S.COUNT))
            count = self._get(self.loops, count_slot)
            leave = b.or_(breaking, b.icmp_signed("==", count, i64(0)))
            with b.if_else(leave) as (leaving, again):
                with leaving:
                    b.store(self._get(self.loops, b.add(top, i64(S.TRIGGER))), result)
                    remaining = b.sub(n, i64(1))
                    b.store(remaining, self.n_loop)
                    with b.if_then(b.icmp_signed(">", remaining, i64(0))):
                        b.store(self._get(self.loops, b.add(top, i64(S.SAVED_AL))), self.al)
                with again:
                    self._set(self.loops, count_slot, b.sub(count, i64(1)))
                    b.store(self._get(self.loops, b.add(top, i64(S.BODY))), result)
        return b.select(hang, i64(_HANG), b.load(result))


def condition(builder: ir.IRBuilder, source: Condition, fields: Mapping[str, int],
              flags: tuple[ir.Value, ir.Value] | None, boolean: ir.Value | None) -> ir.Value:
    """``stacks.taken`` with an instruction's constant ``fields`` (``condop``, ``refx``,
    ``refy``, ``num``; 0 where absent) and the values of the flags and of the boolean
    it reads: an ``i1`` (a vector of them where the flags are vectors)."""
    b = builder
    condop, num = fields.get("condop", 0), fields.get("num", 0)
    if source is Condition.FLAGS:
        cmpx, cmpy = flags
        x = cmpx if fields.get("refx", 0) else b.not_(cmpx)
        y = cmpy if fields.get("refy", 0) else b.not_(cmpy)
        if condop == CondOp.OR:
            return b.or_(x, y)
        if condop == CondOp.AND:
            return b.and_(x, y)
        return x if condop == CondOp.X else y
    if source is Condition.BOOL:
        return boolean
    if source is Condition.BOOLNUM:
        return boolean if (num & 1) == 0 else b.not_(boolean)
    return ir.Constant(I1, 1)
