"""Static facts about a program that its LLVM kernels are built from (:class:`Analysis`:
where stacks can pop, the basic blocks, the registers it names and reads), kept per
program, and :class:`Memo`, the thread-safe map of recent values the compiled engine
keeps its kernels in.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from ...isa import NUM_INT_UNIFORMS, OPCODES, Flow, Kind, Opcode, OpcodeInfo, Writes
from ..decode import DecodedProgram, Step
from ..rules.tree import RULES, rules_used, trace

_CACHE_SIZE = 64


class Memo:
    """A thread-safe map of the ``size`` most recently made values."""

    def __init__(self, size: int = _CACHE_SIZE):
        self._items: OrderedDict = OrderedDict()
        self._lock = threading.Lock()
        self._size = size

    def get(self, key: object) -> object | None:
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def make(self, key: object, make: Callable[[], object]) -> object:
        """The value for ``key``, made by ``make()`` (outside the lock) if missing."""
        value = self.get(key)
        if value is None:
            value = make()
            with self._lock:
                self._items[key] = value
                while len(self._items) > self._size:
                    self._items.popitem(last=False)
        return value


def _opcodes(keep: Callable[[OpcodeInfo], bool]) -> frozenset[Opcode]:
    """The opcodes whose row of the ISA table satisfies ``keep``."""
    return frozenset(op for op, info in OPCODES.items() if keep(info))


#: Opcodes that write the condition flags (CMP, LITP) or test them (the table's writes
#: and condition columns).
_FLAG_OPCODES = _opcodes(lambda info: info.reads_flags or Writes.FLAGS in info.writes)
_CALLS = _opcodes(lambda info: info.flow is Flow.CALL)
#: Opcodes after which relative addressing can change (MOVA writes a0, LOOP sets aL).
_ADDRESSING = _opcodes(lambda info: Writes.ADDRESS in info.writes or info.flow is Flow.LOOP)
_BREAKS = _opcodes(lambda info: info.flow is Flow.BREAK)


def _numpy_loops(step: Step) -> bool:
    """Whether the instruction's recipe applies a rule computed by NumPy's inner loops
    (``tree.Rule.numpy``)."""
    if step.fault is not None or step.kind not in (Kind.ARITHMETIC, Kind.COMPARE):
        return False
    tree = trace(step.op, len(step.sources), step.field)
    return any(RULES[name].numpy for name in rules_used(tree))


@dataclass(frozen=True, slots=True)
class Analysis:
    """Static facts about a program: where stacks can pop, the blocks, what is read."""

    length: int
    if_triggers: frozenset[int]
    call_triggers: frozenset[int]
    loop_triggers: frozenset[int]
    leaders: tuple[int, ...]
    #: Registers read by name: ('v' | 'c' | 'i' | 'b', number).
    reads: frozenset[tuple[str, int]]
    opcodes: frozenset[Opcode]
    #: Every input, temporary and output register an instruction names (the only ones
    #: a kernel touches): ('v' | 'r' | 'o', number).
    registers: frozenset[tuple[str, int]]
    #: Whether an instruction uses the address registers (MOVA, LOOP's aL, a uniform
    #: indexed by a0.x/a0.y/aL) / the condition flags (written or tested).
    address: bool
    flags: bool
    #: The float uniform rows read by name, and whether some instruction reads uniforms
    #: through an address register (what a bounded kernel's uniforms are checked on).
    uniform_rows: tuple[int, ...] = ()
    relative_uniforms: bool = False
    #: Whether some instruction computes through NumPy's inner loops (EX2, LG2).
    numpy_loops: bool = False

    def pops_after(self, pc: int) -> tuple[bool, bool, bool]:
        """Which stages of the stack check can pop after the instruction at ``pc``."""
        following = pc + 1
        return (following in self.call_triggers, following in self.if_triggers,
                following in self.loop_triggers)


def analyse(program: DecodedProgram) -> Analysis:
    """The facts of ``program`` (uncached: :func:`analysis`)."""
    steps = program.steps
    length = len(steps)
    if_t, call_t, loop_t = set(), set(), set()
    targets: set[int] = set()
    reads: set[tuple[str, int]] = set()
    registers: set[tuple[str, int]] = set()
    for step in steps:
        if step.fault is None and step.kind in (Kind.ARITHMETIC, Kind.COMPARE):
            _note_operands(step, reads, registers)
        if step.kind is Kind.FLOW:
            _note_flow(step, reads, (if_t, call_t, loop_t), targets)
    opcodes = frozenset(s.op for s in steps)
    relative = any(o.relative is not None for s in steps for o in s.sources if o.bank == "c")
    analysis = Analysis(length, frozenset(if_t), frozenset(call_t), frozenset(loop_t), (),
                        frozenset(reads), opcodes, frozenset(registers),
                        relative or bool(opcodes & _ADDRESSING),
                        bool(opcodes & _FLAG_OPCODES))
    rows = tuple(sorted(number for bank, number in reads if bank == "c"))
    leaders = set(targets)
    for step in steps:
        if _ends_block(step, analysis):
            leaders.add(step.pc + 1)
    leaders = {pc for pc in leaders if 0 <= pc < length}
    return Analysis(length, analysis.if_triggers, analysis.call_triggers,
                    analysis.loop_triggers, tuple(sorted(leaders)), analysis.reads,
                    analysis.opcodes, analysis.registers, analysis.address, analysis.flags,
                    rows, relative, any(_numpy_loops(step) for step in steps))



def _note_operands(step: Step, reads: set, registers: set) -> None:
    """Adds the uniforms an ALU step reads at a fixed register to ``reads`` and the
    registers it touches (other than uniforms) to ``registers``."""
    for operand in step.sources:
        relative = operand.bank == "c" and operand.relative is not None
        if operand.bank != "r" and not relative:
            reads.add((operand.bank, operand.number))
        if operand.bank != "c":
            registers.add((operand.bank, operand.number))
    if step.dest is not None:
        registers.add(step.dest)


def _note_flow(step: Step, reads: set, triggers: tuple[set, set, set],
               targets: set) -> None:
    """Adds the uniforms a flow step reads to ``reads``, where its IF, CALL or LOOP scope
    ends to ``triggers`` (in that order) and where it can jump to to ``targets``."""
    if_t, call_t, loop_t = triggers
    if step.info.reads_bool:
        reads.add(("b", step.field("id")))
    if step.info.flow is Flow.LOOP:
        reads.add(("i", step.field("id") % NUM_INT_UNIFORMS))
    op, pc = step.op, step.pc
    if op in _BREAKS:
        return
    dst, num = step.field("dst"), step.field("num")
    if step.info.flow is Flow.IF:
        if_t.add(dst)
        targets.update((dst, dst + num))
    elif op in _CALLS:
        call_t.add(dst + num)
        targets.update((dst, pc + 1))
    elif step.info.flow is Flow.LOOP:
        loop_t.add(dst + 1)
        targets.update((pc + 1, dst + 1))
    else:  # JMPC, JMPU
        targets.add(dst)

def _ends_block(step: Step, analysis: Analysis) -> bool:
    return (step.fault is not None or (step.kind not in (Kind.ARITHMETIC, Kind.COMPARE)
            and not step.info.inert) or any(analysis.pops_after(step.pc)))




_analyses = Memo()
#: The decoded program asked about last and its analysis (replaced as one tuple).
_recent: tuple = (None, None)

def analysis(program: DecodedProgram) -> Analysis:
    """The :func:`analyse` facts of ``program`` (cached; a run asks several times for the
    same decoded program object, found by identity without hashing the program's
    words)."""
    global _recent
    recent = _recent  # one read: another thread may replace the pair meanwhile
    if recent[0] is program:
        return recent[1]
    found = _analyses.make(program.program, lambda: analyse(program))
    _recent = (program, found)
    return found
