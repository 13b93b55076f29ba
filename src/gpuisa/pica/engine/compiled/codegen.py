"""Translating a decoded program into the Python source of a Numba kernel.

The kernel runs lanes ``lo .. hi - 1`` one after the other, each through the whole
shader, with every register component a local scalar.  The program is cut into basic
blocks; a ``while`` loop dispatches on the PC between blocks (a program that is one
block from its entry to END gets no loop at all).  Inside a block instructions run
straight through: a block ends at END, at every flow or geometry instruction, at every
instruction after which a stack can pop (its PC + 1 is the trigger of some IF, CALL or
LOOP push in the program: triggers are static fields) and before every address control
can reach (jump targets, IF destinations, return addresses, loop bodies and exits).
After instructions where a stack can pop, the kernel runs :func:`.stacks.next_pc`,
the per-instruction stack check; after any other instruction the check cannot change
anything, so it is left out.

A straight-line program (one block of ALU instructions ending with END, no relative
addressing, every register it reads given) gets a different kernel: lanes go in blocks
of :data:`LANE_BLOCK`, and each instruction is one loop over the block's lanes with the
registers in rows of a small array, which LLVM vectorizes.  A program whose branches
depend on uniforms only (LOOP, CALL, CALLU, IFU, JMPU, BREAK) gets a kernel of uniform
control: one control state per block of lanes, each basic block run that way.  A small
program whose control only moves forward (IF, JMP) on the flags gets a kernel of
divergent blocks: per block of lanes, the basic block of the lanes with the lowest PC
runs the same way over all lanes with writes masked to those lanes, then each of them
takes the block's flow instruction and the stack check; lanes are independent, so the
order only affects speed.

The math of each instruction is :mod:`.intrinsics`; nothing here computes a value.
ADD, MUL, MAD and the dot products are spelled out as one expression of its inlined
building blocks (the bodies of ``R.add24``, ``R.dp4_32`` etc.), so that the kernel has
no call in its inner loop; the other opcodes call their rule.  Vertex kernels
compute ADD, MUL, MAD and the dot products in range (:data:`IN_RANGE`): without the
hardware's infinity and NaN cases, which are most of the cost, and with a check of what
such an instruction writes that hands a lane whose value is not finite to an exact
engine.  In f24 runs whose uniforms are bounded, those of inputs and uniforms are
bounded instead (:data:`BOUNDED`, ``primitives.bounded24``): rounded without any range
case, their operands checked once per lane (inputs) or per call (uniforms).

Whatever the kernel cannot finish exactly the way the reference engine would (a hang, a
fault, a read of a register that was not given, the step limit, a value out of range)
sets the lane's status to :data:`NEEDS_REFERENCE`; :mod:`.runner` then runs that lane
again on an exact engine, which raises the error with its exact message (or, for the
step limit checked per block, finishes the lane).  Straight-line kernels write no
steps (every lane runs the same instructions, and :mod:`.runner` checks their count
against the step limit), and a status only if they compute in range.

Pure Python: this module does not need Numba.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from ...flow.stacks import EFFECTS
from ...isa import (
    NUM_INT_UNIFORMS,
    OPCODES,
    Condition,
    Flow,
    Kind,
    Opcode,
    OpcodeInfo,
    Writes,
)
from ..decode import DecodedProgram, Operand, Step
from ..loading import Precision
from ..rules import primitives as P
from ..rules.recipes import RECIPES
from ..rules.source import expressions

#: Lanes per block in the kernels of straight-line programs (one loop per instruction
#: over a block's lanes: long enough for LLVM's vector loops, short enough for the
#: block's registers to stay in the L1 cache).
LANE_BLOCK = 32
#: The most basic blocks a forward-only program may have to get the kernel of divergent
#: blocks (:meth:`_Generator.divergent_kernel`).  It runs such programs 1.3-2.3 times as
#: fast as one lane at a time (benchmarks: the lighting shaders, f24 and f32), but LLVM takes
#: about three times as long to compile it, which beyond a few blocks costs more than it
#: saves.
DIVERGENT_BLOCKS_MAX = 8
#: Lanes per block in the kernels of programs with uniform control
#: (:meth:`_Generator.uniform_kernel`): the flow rules run once per block of lanes, so a
#: longer block spreads their cost over more lanes.
UNIFORM_LANE_BLOCK = 64
#: Lane status values written by the kernels.
DONE = 0
NEEDS_REFERENCE = 1

XYZW = "xyzw"
#: The exact rules of :mod:`.intrinsics` and their in-range realisations
#: (``intrinsics.round24_in_range`` ...): instructions of vertex kernels that call
#: nothing but these and :data:`SAME_IN_RANGE` use the latter and check what
#: they write (:meth:`_Generator.in_range`).
IN_RANGE = {"round24": "round24_in_range", "mul64": "mul64_in_range",
            "add64": "add64_in_range", "mul32": "mul32_in_range", "add32": "add32_in_range"}
#: f24 kernels of runs whose uniforms are bounded (``primitives.bounded24``): the same
#: instructions round with Veltkamp's splitting alone, and their operands are checked
#: instead of their results (:meth:`_Generator.in_range`).
BOUNDED = {**IN_RANGE, "round24": "round24_bounded"}
#: Rules that turn infinities and NaNs into infinities and NaNs, and are exact anyway
#: (and keep bounded operands bounded).
SAME_IN_RANGE = frozenset({"work24", "negate24", "negate32"})
#: The rules of :mod:`.intrinsics` that are LLVM-IR intrinsics (expanded in place, no
#: call), and the rule names a line of kernel source calls.
INLINE_RULES = frozenset({"round24", "work24", "negate24", "negate32", "quiet32", "mul64",
                          "add64", "mul32", "add32", "pica_max", "pica_min", "sge", "slt",
                          *IN_RANGE.values(), *BOUNDED.values(), "nonfinite32",
                          "unbounded24"})
_CALLED = re.compile(r"\bR\.(\w+)\(")
_IN_RANGE_CALL = re.compile(rf"\bR\.({'|'.join(IN_RANGE)})\(")
#: A product of two source values (or of one and DPH's constant 1.0) in exact f24 code.
_PRODUCT = re.compile(r"R\.mul64\((R\.work24\((s\d+)\)|1\.0), (R\.work24\((s\d+)\)|1\.0)\)")


def operand_bounds(text: str, uniform: dict[str, bool]) -> dict[str, int] | None:
    """The bound k of each source value of an instruction's code ``text`` (exact rules,
    before :func:`in_range_text`) that the bounded arithmetic needs:
    ``primitives.bounded24(x, k)``.  ``uniform`` maps the names of the source values the
    code uses to whether each is a uniform.  A uniform's bound is
    ``primitives.BOUND_UNIFORM`` (what a bounded kernel's run guarantees), a register
    value's ``primitives.BOUND_ADDEND``, tightened for a factor so that the bounds of
    the two factors of every product add up to at most ``primitives.PRODUCT_BOUND``
    (the partner a uniform, another register value bounded by
    ``primitives.BOUND_FACTOR``, or DPH's constant 1.0).  None for code summing more
    than four products (the proof of ``primitives.bounded24`` covers at most four)."""
    bounds = {name: P.BOUND_UNIFORM if is_uniform else P.BOUND_ADDEND
              for name, is_uniform in uniform.items()}
    products = list(_PRODUCT.finditer(text))
    if len(products) > 4:
        return None
    for product in products:
        a, b = product.group(2), product.group(4)
        for name, partner in ((a, b), (b, a)):
            if name is None or uniform[name]:
                continue
            partner_bound = (0 if partner is None else P.BOUND_UNIFORM if uniform[partner]
                             else P.BOUND_FACTOR)
            bounds[name] = min(bounds[name], P.PRODUCT_BOUND - partner_bound)
    return bounds


def in_range_text(text: str, bounded: bool) -> str:
    """Kernel text with the exact rules of :data:`IN_RANGE` replaced by their in-range
    realisations (``bounded``: those of :data:`BOUNDED`)."""
    table = BOUNDED if bounded else IN_RANGE
    return _IN_RANGE_CALL.sub(lambda match: f"R.{table[match.group(1)]}(", text)


#: The names :meth:`_Generator.read` gives source values, and a line reading one.
_NAME = re.compile(r"\bs\d+\b")
_READ = re.compile(r"\s*(s\d+) = ")
#: The kernel argument holding each register bank.
_ARRAYS = {"v": "inputs", "r": "temporaries", "o": "outputs"}
#: Where kernels over blocks of lanes keep lane j's address registers and flags.
_BLOCK_CONTROL = (("A[0, j]", "A[1, j]", "A[2, j]"), ("F[0, j]", "F[1, j]"))


def _opcodes(keep: Callable[[OpcodeInfo], bool]) -> frozenset[Opcode]:
    """The opcodes whose row of the ISA table satisfies ``keep``."""
    return frozenset(op for op, info in OPCODES.items() if keep(info))


#: Opcodes that write the condition flags (CMP, LITP) or test them (the table's writes
#: and condition columns).
_FLAG_OPCODES = _opcodes(lambda info: info.reads_flags or Writes.FLAGS in info.writes)
_CALLS = _opcodes(lambda info: info.flow is Flow.CALL)
#: Control that can move backwards: LOOP, BREAK (out of a loop) and CALL (the return).
_BACKWARD = _opcodes(lambda info: info.flow in (Flow.LOOP, Flow.BREAK, Flow.CALL))
#: Opcodes after which relative addressing can change (MOVA writes a0, LOOP sets aL).
_ADDRESSING = _opcodes(lambda info: Writes.ADDRESS in info.writes or info.flow is Flow.LOOP)
#: Flow instructions whose condition is per lane (the flags; isa.py's condition column).
_LANE_CONDITIONS = frozenset(op for op, info in OPCODES.items()
                             if info.condition is Condition.FLAGS)
_BREAKS = _opcodes(lambda info: info.flow is Flow.BREAK)


def _uses_scratch(opcode: Opcode) -> bool:
    """Whether the recipe's source text calls NumPy's inner loops through ``scratch``."""
    sources = [[f"s{k}_{c}" for c in range(4)] for k in range(3)]
    texts: list[str] = []

    def bind(expression: str) -> str:
        texts.append(expression)
        return f"t{len(texts)}"

    for precision in ("f24", "f32"):
        result = expressions(opcode, precision, sources, lambda name: 0, bind)
        for part in (result.value, result.flags, result.address):
            texts.extend(part or ())
    return any("scratch" in text for text in texts)


#: Opcodes computed through NumPy's inner loops (EX2, LG2; intrinsics.UFUNC_LOOPS_OK),
#: found in their recipes' source text.
UFUNC_OPCODES = frozenset(op for op in RECIPES if _uses_scratch(op))


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

    def pops_after(self, pc: int) -> tuple[bool, bool, bool]:
        """Which stages of the stack check can pop after the instruction at ``pc``."""
        following = pc + 1
        return (following in self.call_triggers, following in self.if_triggers,
                following in self.loop_triggers)


def analyse(program: DecodedProgram) -> Analysis:
    steps = program.steps
    length = len(steps)
    if_t, call_t, loop_t = set(), set(), set()
    targets: set[int] = set()
    reads: set[tuple[str, int]] = set()
    registers: set[tuple[str, int]] = set()
    for step in steps:
        op, pc = step.op, step.pc
        if step.fault is None and step.kind in (Kind.ARITHMETIC, Kind.COMPARE):
            for operand in step.sources:
                relative = operand.bank == "c" and operand.relative is not None
                if operand.bank != "r" and not relative:
                    reads.add((operand.bank, operand.number))
                if operand.bank != "c":
                    registers.add((operand.bank, operand.number))
            if step.dest is not None:
                registers.add(step.dest)
        if step.kind is not Kind.FLOW:
            continue
        if step.info.reads_bool:
            reads.add(("b", step.field("id")))
        if step.info.flow is Flow.LOOP:
            reads.add(("i", step.field("id") % NUM_INT_UNIFORMS))
        if op in _BREAKS:
            continue
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
                    rows, relative)


def _ends_block(step: Step, analysis: Analysis) -> bool:
    return (step.fault is not None or (step.kind not in (Kind.ARITHMETIC, Kind.COMPARE)
            and not step.info.inert) or any(analysis.pops_after(step.pc)))


def _transfer_control(out: _Source, array: str, pairs: list[tuple[str, str]], zero: str,
                      store: bool) -> None:
    """Copy address registers or flags between the caller's ``array`` and the kernel's
    names (``pairs``: array element, name); to the array with ``store``.  The stand-ins
    :data:`.kernels.ZERO_ADDRESS`, :data:`.kernels.ZERO_FLAGS` (told by their first
    dimension) mean every lane starts with ``zero`` and nobody sees the results: nothing
    is stored."""
    out(f"if {array}.shape[0] == {len(pairs)}:")
    for element, name in pairs:
        out(f"    {element} = {name}" if store else f"    {name} = {element}")
    if not store:
        out("else:")
        for _, name in pairs:
            out(f"    {name} = {zero}")


@dataclass(slots=True)
class _Source:
    """Python source text with indentation."""

    lines: list[str] = field(default_factory=list)
    depth: int = 0

    def __call__(self, text: str) -> None:
        self.lines.append("    " * self.depth + text)

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


@dataclass(frozen=True, slots=True)
class KernelSource:
    """A kernel's text; ``steps``: the instructions every lane executes when that is
    one number and no lane can need the reference engine (straight-line kernels, which
    then write neither ``status`` nor ``steps``; :mod:`.runner` checks the step limit),
    else None (the kernel writes both for every lane)."""

    source: str
    steps: int | None
    #: Whether the kernel touches the address registers / the cmp flags.
    address: bool = True
    flags: bool = True
    #: Registers ('r' | 'o', number) whose four components the kernel writes for every
    #: lane before any read (their earlier contents are never seen).
    overwrites: frozenset[tuple[str, int]] = frozenset()
    #: Temporaries the kernel never loads: they may be handed in as zero-length
    #: stand-ins, and are then not stored.
    optional: frozenset[tuple[str, int]] = frozenset()
    #: Whether some instruction computes in range (:data:`IN_RANGE`): then a
    #: straight-line kernel writes the lane status (not the steps) after all.
    checks: bool = False


def generate(program: DecodedProgram, analysis: Analysis, entries: tuple[int, ...],
             precision: Precision, missing: frozenset[tuple[str, int]],
             entry: int | None = None, bounded: bool = False) -> KernelSource:
    """The source of ``kernel(lo, hi, entry, inputs, temporaries, outputs, address, cmp,
    floats, float_given, ints, bools, max_steps, status, steps, natives)`` for
    ``program``: ``inputs``, ``temporaries``, ``outputs`` are tuples of 16 lane-major
    ``(lanes, 4)`` arrays, one per register (only those of ``analysis.registers`` are
    touched), ``natives`` is :data:`.intrinsics.NATIVE_LOOPS`.

    ``entries`` are the entry points the kernel must accept besides the static leaders;
    ``missing`` the registers of ``analysis.reads`` that were not given (reading one
    hands the lane to the reference engine).  ``entry``: the one entry point the kernel
    will be run from (then kernels over blocks of lanes load no register component the
    entry block writes before reading it, and may be handed no storage for temporaries
    they overwrite, :attr:`KernelSource.overwrites`); None: any of the leaders.
    ``bounded``: an f24 vertex kernel computes in range on bounded operands
    (:data:`BOUNDED`; for runs whose uniforms are all ``primitives.bounded24``).
    """
    return _Generator(program, analysis, entries, precision, missing, entry,
                      bounded).kernel()


class _Generator:
    def __init__(self, program: DecodedProgram, analysis: Analysis,
                 entries: tuple[int, ...], precision: Precision,
                 missing: frozenset[tuple[str, int]], entry: int | None = None,
                 bounded: bool = False):
        self.steps = program.steps
        self.bounded = bounded and precision == "f24"
        # Where each source value name comes from: "c" a uniform read by name, "g" one
        # read through an address register, else the register bank.
        self.origin: dict[str, str] = {}
        # Whether a bounded instruction reads uniforms through an address register (the
        # kernel then checks every given uniform row once, :meth:`hoist_uniforms`).
        self.bounded_relative = False
        # The bound each input component (number, component) must meet (the tightest
        # over the bounded instructions reading it).
        self.input_bounds: dict[tuple[int, int], int] = {}
        # The uniform components (number, component) bounded instructions read by name,
        # and the name of each source value read from one.
        self.bounded_uniforms: set[tuple[int, int]] = set()
        self.uniform_components: dict[str, tuple[int, int]] = {}
        self.entry = entry
        self.a = analysis
        self.precision = precision
        self.missing = missing
        self.leaders = tuple(sorted(set(analysis.leaders) | set(entries)
                                    | ({entry} if entry is not None else set())))
        self.out = _Source()
        self.temp = 0
        self.used_regs: set[tuple[str, int]] = set()
        self.written_regs: set[tuple[str, int]] = set()
        # Register components by the kind of their first access, in program order (what
        # a straight-line kernel must load and store).
        self.first_access: dict[tuple[str, int, int], str] = {}
        # In kernels over blocks of lanes with one entry: the register components every
        # lane writes before reading them and before its END (not loaded).
        self.unloaded: frozenset[tuple[str, int, int]] = frozenset()
        # Every access in program order within a block: (component, "read" | "write").
        self.accesses: list[tuple[tuple[str, int, int], str]] = []
        # The register components behind the source values :meth:`read` named.
        self.pending: dict[str, tuple[str, int, int]] = {}
        # Where the kernel keeps a lane's registers: local scalars (one lane at a time) or,
        # in the straight-line kernels, rows of per-block arrays indexed by the lane j.
        self.rows: dict[tuple[str, int], int] | None = None
        self.flag_names = ("cmpx", "cmpy")
        self.address_names = ("a0x", "a0y", "al")
        # In the kernels of divergent blocks (:meth:`divergent_kernel`): writes go only
        # to the lanes at the block being run (AT[j]).
        self.masked = False
        # In the kernels of uniform control (:meth:`uniform_kernel`), while inside a loop
        # over the lanes j: a lane that needs the reference engine is marked in ST[j].
        self.lane_status = False
        #: Rows of ``G`` the kernels of uniform control gather uniform rows into.
        self.gather_rows = 0
        # In vertex kernels (not geometry ones): eligible instructions compute in range
        # (:meth:`in_range`), and whether one did.
        self.in_range_allowed = False
        self.checks = False
        # Geometry kernels (:mod:`.geometry`): output registers live in the rows of
        # ``OB``, one per bank, and this names the active bank.
        self.output_bank: str | None = None

    def register(self, bank: str, number: int, component: int) -> str:
        if bank == "o" and self.output_bank is not None:
            return f"OB[{self.output_bank}, {4 * number + component}]"
        if self.rows is None:
            return f"{bank}{number}_{component}"
        row = self.rows.setdefault((bank, number), 4 * len(self.rows))
        return f"W[{row + component}, j]"

    # -- helpers -------------------------------------------------------------------------

    def fresh(self, prefix: str = "t") -> str:
        self.temp += 1
        return f"{prefix}{self.temp}"

    def flag(self) -> None:
        """Hand the lane to the reference engine."""
        if self.masked:
            self.out("if AT[j]:")
            self.out("    ST[j] = 1")
        elif self.lane_status:
            self.out("ST[j] = 1")
        else:
            self.out("st = 1")

    def flag_if(self, condition: str) -> None:
        """Hand the lane to an exact engine if ``condition`` (0 or 1) is 1: or-ed into the
        lane status without a branch, which keeps the loops over lanes vectorized (a
        conditional store there made the transform's f24 kernel 15-30 % slower,
        measured 2026-11-25).  A relative read's check stays a branch: or-ed, it made
        the skinning kernel slower."""
        if self.masked:
            self.out(f"ST[j] |= {condition} & AT[j]")
        elif self.lane_status:
            self.out(f"ST[j] |= {condition}")
        else:
            self.out(f"st |= {condition}")

    def assign(self, target: str, value: str) -> None:
        """Write a register component, flag or address register (masked: only for the
        lanes at the block)."""
        if self.masked:
            self.out(f"{target} = {value} if AT[j] else {target}")
        else:
            self.out(f"{target} = {value}")

    # -- the kernel ----------------------------------------------------------------------

    def kernel(self) -> KernelSource:
        body = _Source(depth=3)
        self.out = body
        self.in_range_allowed = True
        blocks = [(leader, self.block_steps(leader)) for leader in self.leaders]
        if self.straight(blocks):
            steps = blocks[0][1]
            address, flags = self.a.address, self.a.flags
            source = self.straight_kernel(steps, address, flags)
            return KernelSource(source, len(steps), address, flags, *self.overwritten(),
                                checks=self.checks)
        if self.uniform_control():
            source = self.uniform_kernel(self.entry_first(blocks))
            return KernelSource(source, None, self.a.address, self.a.flags,
                                *self.overwritten())
        if len(blocks) <= DIVERGENT_BLOCKS_MAX and self.forward_only():
            source = self.divergent_kernel(self.entry_first(blocks))
            return KernelSource(source, None, self.a.address, self.a.flags,
                                *self.overwritten())
        single = len(blocks) == 1
        if single:
            body.depth = 2
            self.emit_block(*blocks[0], dispatch=False)
        else:
            for k, (leader, steps) in enumerate(blocks):
                body.depth = 3
                body(f"{'if' if k == 0 else 'elif'} pc == {leader}:")
                body.depth = 4
                self.emit_block(leader, steps, dispatch=True)
            body.depth = 3
            body("else:")
            body("    st = 1")
        return KernelSource(self.wrap(body, single), None)

    def entry_first(self, blocks: list[tuple[int, list[Step]]]
                    ) -> list[tuple[int, list[Step]]]:
        """``blocks`` with the entry block first (if the kernel has one entry): the
        dispatch on the PC tests it first."""
        first = [block for block in blocks if block[0] == self.entry]
        return first + [block for block in blocks if block[0] != self.entry]

    @staticmethod
    def ends(blocks: list[tuple[int, list[Step]]]) -> set[int]:
        """The leaders of the blocks that end with END."""
        return {leader for leader, steps in blocks
                if steps[-1].info.flow is Flow.END and steps[-1].fault is None}

    def successors(self, blocks: list[tuple[int, list[Step]]]) -> dict[int, frozenset[int]]:
        """Where control can go after each block, by leader: a superset of the real
        transfers (pica-emulation.md#flow-check, :func:`.stacks.next_pc`), so that
        :meth:`written_on_every_path` only ever finds fewer registers written.  After its last
        instruction a block goes on to PC + 1, to the instruction's DST (JMP, IF's else, CALL),
        for BREAK to any loop's exit, and where a stack can pop after it (PC + 1 is a trigger) to
        the destination of every IF and the body of every LOOP with that trigger and to
        every CALL's return address (CALL pops chain through return addresses).  END,
        a fault and anything the kernel hands to the reference engine end the path."""
        flows = [step for step in self.steps if step.fault is None and step.kind is Kind.FLOW]

        def of(flow: Flow) -> list[Step]:
            return [step for step in flows if step.info.flow is flow]

        ifs, calls, loops = of(Flow.IF), of(Flow.CALL), of(Flow.LOOP)
        leaders = {leader for leader, _ in blocks}
        result = {}
        for leader, steps in blocks:
            last = steps[-1]
            if last.fault is not None or last.kind in (Kind.UNKNOWN, Kind.GEOMETRY) or (
                    last.info.flow is Flow.END):
                result[leader] = frozenset()
                continue
            following = last.pc + 1
            targets = {following}
            flow = last.info.flow if last.kind is Kind.FLOW else Flow.NONE
            if flow in (Flow.JUMP, Flow.IF, Flow.CALL):
                targets.add(last.field("dst"))
            if flow is Flow.BREAK:
                targets.update(step.field("dst") + 1 for step in loops)
            check_call, check_if, check_loop = self.a.pops_after(last.pc)
            if check_if:
                targets.update(step.field("dst") + step.field("num") for step in ifs
                               if step.field("dst") == following)
            if check_call:
                targets.update(step.pc + 1 for step in calls)
            if check_loop:
                targets.update(step.pc + 1 for step in loops
                               if step.field("dst") + 1 == following)
            result[leader] = frozenset(targets & leaders)
        return result

    def written_on_every_path(self, accesses: dict[int, list], ends: set[int],
                              successors: dict[int, frozenset[int]]) -> None:
        """Set :attr:`unloaded`: the components that on every path from the entry are
        written before any read and before the END.  ``accesses``: each block's accesses
        in order, by leader; ``ends``: the blocks that end with END; ``successors``:
        where control can go after each block (:meth:`successors`).  A forward data-flow
        problem, solved by iterating to its greatest fixed point: what is written when
        a block starts is what all its predecessors wrote by their ends."""
        if self.entry is None:
            return  # any block may come first
        everything = frozenset(self.first_access)
        written = {leader: everything for leader in accesses}  # at each block's end
        predecessors: dict[int, list[int]] = {leader: [] for leader in accesses}
        for leader, targets in successors.items():
            for target in targets:
                predecessors[target].append(leader)
        reached = {self.entry}
        pending = [self.entry]
        while pending:
            for target in successors[pending.pop()]:
                if target not in reached:
                    reached.add(target)
                    pending.append(target)

        def at_start(leader: int) -> set[tuple[str, int, int]]:
            if leader == self.entry:
                return set()  # the first block starts with nothing written
            return set(frozenset.intersection(
                *(written[p] for p in predecessors[leader] if p in reached)))

        changed = True
        while changed:
            changed = False
            for leader in sorted(reached):
                done = at_start(leader)
                done.update(key for key, kind in accesses[leader] if kind == "write")
                if done != written[leader]:
                    written[leader] = frozenset(done)
                    changed = True
        needed: set[tuple[str, int, int]] = set()
        for leader in reached:
            done = at_start(leader)
            for key, kind in accesses[leader]:
                if kind == "write":
                    done.add(key)
                elif key not in done:
                    needed.add(key)
        finals = [written[leader] for leader in ends if leader in reached]
        at_end = frozenset.intersection(*finals) if finals else frozenset()
        self.unloaded = frozenset(key for key in self.first_access
                                  if key in at_end and key not in needed)

    def loaded(self, key: tuple[str, int, int]) -> bool:
        """Whether a kernel over blocks of lanes loads the register component ``key``:
        an instruction touches it, and not every lane writes it first."""
        return key in self.first_access and key not in self.unloaded

    def stored(self, key: tuple[str, int, int]) -> bool:
        """Whether a kernel over blocks of lanes stores ``key`` (it is touched)."""
        return key in self.first_access

    def overwritten(self) -> tuple[frozenset, frozenset]:
        """The written registers whose four components every lane writes before reading
        them (not zero-filled by :mod:`.runner`), and the temporaries none of whose
        components is loaded (their storage is optional)."""
        whole = frozenset(register for register in self.written_regs
                          if not any(self.loaded((*register, c)) or not self.stored(
                              (*register, c)) for c in range(4)))
        optional = frozenset(register for register in self.written_regs
                             if register[0] == "r"
                             and not any(self.loaded((*register, c)) for c in range(4)))
        return whole, optional

    def straight(self, blocks: list[tuple[int, list[Step]]]) -> bool:
        """Whether the program is one block of ALU instructions ending with END that
        reads only registers that were given and no uniform through an address
        register: then every lane does the same, and no lane can need the reference
        engine except through the step limit."""
        if len(blocks) != 1:
            return False
        *body, last = blocks[0][1]
        if last.info.flow is not Flow.END or last.fault is not None:
            return False
        for step in body:
            if step.info.inert:
                continue
            if step.fault is not None or step.kind not in (Kind.ARITHMETIC, Kind.COMPARE):
                return False
            for operand in step.sources:
                if operand.bank == "c" and operand.relative is not None:
                    return False
                if (operand.bank, operand.number) in self.missing:
                    return False
        return True

    def straight_kernel(self, steps: list[Step], address: bool, flags: bool) -> str:
        """The kernel of a straight-line program: lanes go in blocks of
        :data:`LANE_BLOCK`; each instruction is one loop over the lanes of a block with
        its registers in rows of ``W`` (flags in ``F``, address registers in ``A``), so
        that LLVM vectorizes the arithmetic across lanes."""
        self.rows = {}
        self.address_names, self.flag_names = _BLOCK_CONTROL
        self.lane_status = True
        body = _Source(depth=2)
        fused = False
        for step in steps[:-1]:
            if step.info.inert:
                continue
            self.out = _Source(depth=3)
            self.out(f"# 0x{step.pc:03X}: {step.info.mnemonic}")
            self.emit_alu(step)
            # Instructions whose code is inline IR only share one loop (LLVM still
            # vectorizes it, and reuses values across them); a call keeps its own loop.
            inline = set(_CALLED.findall("\n".join(self.out.lines))) <= INLINE_RULES
            if not (fused and inline):
                body("for j in range(m):")
            body.lines.extend(self.out.lines)
            fused = inline
        self.out = body
        # Components written before any read are not loaded, and only written ones are
        # stored: an output register costs no read of its fresh (not yet mapped) pages.
        self.unloaded = frozenset(key for key, kind in self.first_access.items()
                                  if kind == "write")
        if not self.checks:
            out = self.block_kernel_head(LANE_BLOCK, address, flags, self.loaded)
            self.lanes_after(out, body)
            self.emit_lane_store(out, address, flags, self.stored)
            return out.text()
        # Lanes whose values left the in-range arithmetic keep their registers and are
        # run again by an exact engine (:mod:`.runner`); steps stay one number.
        out = self.block_kernel_head(LANE_BLOCK, address, flags, self.loaded, (
            f"ST = np.zeros({LANE_BLOCK}, np.int8)",))
        out(f"ST[j] = {self.input_checks()}")
        self.lanes_after(out, body)
        out("if ST[j] == 0:")
        out.depth += 1
        self.emit_lane_store(out, address, flags, self.stored)
        out.depth -= 1
        out("status[base + j] = ST[j]")
        return out.text()

    def block_kernel_head(self, block: int, address: bool, flags: bool,
                          wanted: Callable[[tuple[str, int, int]], bool],
                          prologue: tuple[str, ...] = ()) -> _Source:
        """The start of a kernel over blocks of ``block`` lanes: its signature, the
        ``prologue`` lines, the hoisted uniforms, the per-block registers ``W`` (address
        registers ``A`` and flags ``F`` if wanted), and the loop over the blocks up to
        inside the loop over a block's lanes j that loads their registers (the components
        ``wanted`` accepts); further lines of that loop follow."""
        out = _Source()
        out("def kernel(lo, hi, entry, inputs, temporaries, outputs, address, cmp, floats, "
            "float_given, ints, bools, max_steps, status, steps, natives):")
        out.depth = 1
        for line in prologue:
            out(line)
        self.hoist_uniforms(out)
        self.open_blocks(out, block, "lo", "hi", address, flags)
        self.emit_lane_load(out, address, flags, wanted)
        return out

    def open_blocks(self, out: _Source, block: int, lo: str, hi: str, address: bool,
                    flags: bool) -> None:
        """The per-block registers ``W`` (``A``, ``F`` if wanted) and the loop over the
        blocks of lanes ``lo .. hi - 1``, up to inside the loop over a block's lanes j."""
        out(f"W = np.empty(({max(4, 4 * len(self.rows))}, {block}), np.float32)")
        if address:
            out(f"A = np.empty((3, {block}), np.int64)")
        if flags:
            out(f"F = np.empty((2, {block}), np.bool_)")
        out(f"for base in range({lo}, {hi}, {block}):")
        out.depth = 2
        out(f"m = min({block}, {hi} - base)")
        out("for j in range(m):")
        out.depth = 3

    @staticmethod
    def lanes_after(out: _Source, body: _Source) -> None:
        """Append ``body`` to ``out`` inside its loop over blocks of lanes, then open a
        loop over the block's lanes j (to store their registers)."""
        out.depth = 2
        out.lines.extend(body.lines)
        out("for j in range(m):")
        out.depth = 3

    def emit_lane_load(self, out: _Source, address: bool, flags: bool,
                       wanted: Callable[[tuple[str, int, int]], bool]) -> None:
        """Inside a loop over ``j``: copy lane ``base + j``'s registers (the components
        ``wanted`` accepts), address registers and flags into ``W``, ``A``, ``F``."""
        out("lane = base + j")
        for (bank, number), row in self.rows.items():
            for c in range(4):
                if wanted((bank, number, c)):
                    out(f"W[{row + c}, j] = {_ARRAYS[bank]}[{number}][lane, {c}]")
        self.emit_lane_control(out, address, flags, store=False)

    @staticmethod
    def emit_lane_control(out: _Source, address: bool, flags: bool, store: bool,
                          names: tuple[tuple[str, ...], tuple[str, ...]] = _BLOCK_CONTROL
                          ) -> None:
        """Copy lane ``lane``'s address registers and flags between the caller's arrays
        and the kernel's ``names`` for them (to the caller's with ``store``): the
        block's ``A``, ``F`` unless said otherwise."""
        for used, array, locals_, zero in ((address, "address", names[0], "0"),
                                           (flags, "cmp", names[1], "False")):
            if used:
                _transfer_control(out, array, [(f"{array}[{k}, lane]", local)
                                               for k, local in enumerate(locals_)], zero, store)

    def emit_lane_store(self, out: _Source, address: bool, flags: bool,
                        wanted: Callable[[tuple[str, int, int]], bool]) -> None:
        """The reverse of :meth:`emit_lane_load` for the registers the program writes."""
        out("lane = base + j")
        for bank, number in sorted(self.written_regs):
            row = self.rows[(bank, number)]
            optional = (bank, number) in self.overwritten()[1]
            if optional:  # a temporary nobody will see is given no storage (runner.py)
                out(f"if {_ARRAYS[bank]}[{number}].shape[0] != 0:")
                out.depth += 1
            for c in range(4):
                if wanted((bank, number, c)):
                    out(f"{_ARRAYS[bank]}[{number}][lane, {c}] = W[{row + c}, j]")
            if optional:
                out.depth -= 1
        self.emit_lane_control(out, address, flags, store=True)

    def uniform_control(self) -> bool:
        """Whether no flow instruction tests the per-lane flags (IFC, CALLC, JMPC,
        BREAKC): then every branch depends on uniforms only (LOOP counts, bool uniforms)
        and all lanes follow the same path, except that a lane can need the reference
        engine (a relative read of a uniform that was not given)."""
        return not self.a.opcodes & _LANE_CONDITIONS

    def uniform_kernel(self, blocks: list[tuple[int, list[Step]]]) -> str:
        """The kernel of a program whose control is uniform (:meth:`uniform_control`):
        lanes go in blocks of :data:`UNIFORM_LANE_BLOCK` with registers in rows of
        ``W``; one control state (PC, stacks, aL, step count) per block of lanes runs
        the flow rules once, and each ALU instruction is one loop over the block's lanes
        (a0.x/a0.y per lane in ``A``).  A failure of the shared control (a hang, the step
        limit, a fault) hands every lane of the block to the reference engine, a
        per-lane one (``ST[j]``) that lane."""
        self.rows = {}
        self.flag_names = ("F[0, j]", "F[1, j]")
        self.address_names = ("A[0, j]", "A[1, j]", "al")
        body = _Source(depth=3)
        self.out = body
        accesses: dict[int, list] = {}
        for k, (leader, steps) in enumerate(blocks):
            body.depth = 3
            body(f"{'if' if k == 0 else 'elif'} pc == {leader}:")
            body.depth = 4
            start = len(self.accesses)
            self.emit_block(leader, steps, dispatch=True, lanes=True)
            accesses[leader] = self.accesses[start:]
        self.written_on_every_path(accesses, self.ends(blocks), self.successors(blocks))
        body.depth = 3
        body("else:")
        body("    st = 1")
        address, flags = self.a.address, self.a.flags
        block = UNIFORM_LANE_BLOCK
        out = self.block_kernel_head(block, address, flags, self.loaded, (
            "# uniform control: one control state per block of lanes",
            f"ST = np.zeros({block}, np.int8)",
            f"G = np.empty(({max(1, self.gather_rows)}, {block}), np.float32)",
            "ifs = np.zeros(S.IF_SIZE, np.int64)", "calls = np.zeros(S.CALL_SIZE, np.int64)",
            "loops = np.zeros(S.LOOP_SIZE, np.int64)"))
        out(f"ST[j] = {self.input_checks()}")
        out.depth = 2
        for line in ("st = 0", "executed = 0", "jump = -1", "brk = False", "n_if = 0",
                     "n_call = 0", "n_loop = 0", "pc = entry"):
            out(line)
        if address:
            # aL is part of the shared control state: lanes that start with different
            # aL values do not share one (run() gives every lane the same).
            out("al = A[2, 0]")
            out("for j in range(m):")
            out("    if A[2, j] != al:")
            out("        st = 1")
        else:
            out("al = 0")
        out("while pc >= 0 and st == 0:")
        out.lines.extend(body.lines)
        out.depth = 2
        out("for j in range(m):")
        out.depth = 3
        out("if st != 0:")
        out("    ST[j] = st")
        out("if ST[j] == 0:")
        out.depth = 4
        if address:
            out("A[2, j] = al")
        # Lanes handed to the reference engine keep their initial registers.
        self.emit_lane_store(out, address, flags, self.stored)
        out.depth = 3
        out("lane = base + j")
        out("status[lane] = ST[j]")
        out("steps[lane] = executed")
        return out.text()

    def forward_only(self) -> bool:
        """Whether control only moves forward (IF, JMP; no LOOP, CALL or BREAK): then a
        lane runs each block at most once, and a block of lanes needs at most one pass
        over each basic block."""
        if self.a.opcodes & _BACKWARD:
            return False
        return all(step.field("dst") > step.pc for step in self.steps
                   if step.fault is None and step.info.flow in (Flow.IF, Flow.JUMP))

    def divergent_kernel(self, blocks: list[tuple[int, list[Step]]]) -> str:
        """The kernel of a program with forward branches: lanes go in blocks of
        :data:`LANE_BLOCK` with registers
        in rows of ``W``; until every lane is done, the basic block of the lanes with the
        lowest PC runs as one loop per instruction over the whole block of lanes (LLVM
        vectorizes it), writes masked to those lanes, then each of them takes the
        block's last instruction and the stack check one at a time."""
        self.rows = {}
        self.masked = True
        self.address_names, self.flag_names = _BLOCK_CONTROL
        body = _Source(depth=2)
        self.out = body
        body("while True:")
        body("    p = -1")
        body("    for j in range(m):")
        body("        if ST[j] == 0 and PC[j] >= 0 and (p < 0 or PC[j] < p):")
        body("            p = PC[j]")
        body("    if p < 0:")
        body("        break")
        body("    for j in range(m):")
        body("        AT[j] = ST[j] == 0 and PC[j] == p")
        accesses: dict[int, list] = {}
        for k, (leader, steps) in enumerate(blocks):
            body.depth = 3
            body(f"{'if' if k == 0 else 'elif'} p == {leader}:")
            body.depth = 4
            start = len(self.accesses)
            self.emit_masked_block(steps)
            accesses[leader] = self.accesses[start:]
        self.written_on_every_path(accesses, self.ends(blocks), self.successors(blocks))
        body.depth = 3
        body("else:")
        body("    for j in range(m):")
        body("        if AT[j]:")
        body("            ST[j] = 1")
        return self.wrap_blocks(body)

    def emit_masked_block(self, steps: list[Step]) -> None:
        out = self.out
        out("for j in range(m):")
        out("    if AT[j]:")
        out(f"        if EX[j] + {len(steps)} > max_steps:")
        out("            ST[j] = 1")
        out(f"        EX[j] += {len(steps)}")
        last = steps[-1]
        for step in steps:
            alu = step.fault is None and step.kind in (Kind.ARITHMETIC, Kind.COMPARE)
            if not alu:
                continue  # a fault or a flow instruction: the block's last, see below
            out(f"# 0x{step.pc:03X}: {step.info.mnemonic}")
            out("for j in range(m):")
            out.depth += 1
            self.emit_alu(step)
            out.depth -= 1
        out("for j in range(m):")
        out("    if AT[j]:")
        out.depth += 2
        if last.info.flow is Flow.END and last.fault is None:
            out("PC[j] = -1")
        elif last.fault is not None or last.kind in (Kind.GEOMETRY, Kind.UNKNOWN):
            out("ST[j] = 1")
        else:
            self.emit_lane_transfer(last)
        out.depth -= 2

    def emit_lane_transfer(self, step: Step) -> None:
        """The block's last instruction (if it is a flow instruction) and the stack check
        after it, for lane ``j``, on local copies of its control state."""
        out = self.out
        out("st = ST[j]")
        out("cmpx = F[0, j]" if self.a.flags else "cmpx = False")
        out("cmpy = F[1, j]" if self.a.flags else "cmpy = False")
        out("al = A[2, j]" if self.a.address else "al = 0")
        out("n_if = NIF[j]")
        out("ifs = IFS[j]")
        # no CALL or LOOP in these programs: the other stacks stay empty
        out("n_call = 0")
        out("n_loop = 0")
        out("calls = CALLS")
        out("loops = LOOPS")
        out("brk = False")
        out("jump = -1")
        saved = self.masked, self.flag_names
        self.masked, self.flag_names = False, ("cmpx", "cmpy")
        if step.kind is Kind.FLOW:
            self.emit_flow(step)
        self.emit_transfer(step)
        self.masked, self.flag_names = saved
        out("PC[j] = pc")
        out("ST[j] = st")
        if self.a.if_triggers:
            out("NIF[j] = n_if")

    def wrap_blocks(self, body: _Source) -> str:
        block = LANE_BLOCK
        prologue = tuple(f"{name} = np.zeros({block}, np.{kind})" for name, kind in (
            ("ST", "int8"), ("PC", "int64"), ("EX", "int64"), ("AT", "bool_"), ("NIF", "int64")))
        out = self.block_kernel_head(block, self.a.address, self.a.flags, self.loaded, (
            *prologue, f"IFS = np.zeros(({block}, S.IF_SIZE), np.int64)",
            "CALLS = np.zeros(S.CALL_SIZE, np.int64)", "LOOPS = np.zeros(S.LOOP_SIZE, np.int64)"))
        out(f"ST[j] = {self.input_checks()}")
        out("PC[j] = entry")
        out("EX[j] = 0")
        out("NIF[j] = 0")
        self.lanes_after(out, body)
        out("if ST[j] == 0:")
        out.depth = 4
        # Lanes handed to the reference engine keep their initial registers.
        self.emit_lane_store(out, self.a.address, self.a.flags, self.stored)
        out.depth = 3
        out("lane = base + j")
        out("status[lane] = ST[j]")
        out("steps[lane] = EX[j]")
        return out.text()

    def input_checks(self) -> str:
        """The initial status of a lane: 1 if one of its input components that bounded
        instructions read, or a uniform they read (``ub``), is not bounded
        (:meth:`in_range`), else 0."""
        checks = [f"R.unbounded24({self.register('v', number, c)}, {bound})"
                  for (number, c), bound in sorted(self.input_bounds.items())]
        if self.bounded_uniforms or self.bounded_relative:
            checks.append("ub")
        return " | ".join(checks) or "0"

    def hoist_uniforms(self, out: _Source, uniforms: bool = True,
                       scratch: bool = True) -> None:
        """Load the uniforms read by name (and make EX2/LG2's scratch buffers) once; if
        bounded instructions read uniforms, set ``ub`` to 1 if one of those they read by
        name, or (reading some through an address register) of any given row, is not
        bounded (:meth:`in_range`), else 0."""
        if uniforms:
            for _, number in sorted(r for r in self.a.reads if r[0] == "c"):
                for c in range(4):
                    out(f"c{number}_{c} = floats[{number}, {c}]")
        if self.bounded_uniforms or self.bounded_relative:
            out("ub = " + (" | ".join(f"R.unbounded24(c{number}_{c}, {P.BOUND_UNIFORM})"
                                      for number, c in sorted(self.bounded_uniforms)) or "0"))
        if self.bounded_relative:
            out("for row in range(floats.shape[0]):")
            out("    if float_given[row]:")
            out("        for c in range(4):")
            out(f"            ub |= R.unbounded24(floats[row, c], {P.BOUND_UNIFORM})")
        if scratch and self.a.opcodes & UFUNC_OPCODES:
            out("scratch = R.make_scratch(natives)")

    def block_steps(self, leader: int) -> list[Step]:
        steps = []
        pc = leader
        while pc < self.a.length:
            step = self.steps[pc]
            steps.append(step)
            if _ends_block(step, self.a) or step.info.flow is Flow.END or (
                    pc + 1 in self.leaders):
                break
            pc += 1
        return steps

    def emit_block(self, leader: int, steps: list[Step], dispatch: bool,
                   lanes: bool = False) -> None:
        """A basic block for one lane, or with ``lanes`` (:meth:`uniform_kernel`) for the
        lanes of a block sharing one control state: each ALU instruction is then a loop
        over the lanes j, the rest runs once."""
        out = self.out
        out(f"if executed + {len(steps)} > max_steps:")
        out("    st = 1")
        out(f"executed += {len(steps)}")
        fused = False
        gathered: dict[int, dict[int, list[str]]] = {}
        for index, step in enumerate(steps):
            if lanes and self.alu(step):
                if step.pc not in gathered:
                    # the relative rows of every instruction up to the next address write
                    gathered = self.gather(self.same_address(steps[index:]))
                    fused = fused and not any(gathered.values())
                self.out = _Source(depth=out.depth + 1)
                self.out(f"# 0x{step.pc:03X}: {step.info.mnemonic}")
                self.lane_status = True
                self.emit_alu(step, gathered[step.pc])
                self.lane_status = False
                piece, self.out = self.out, out
                # As in straight-line kernels: inline code joins the loop before it.
                inline = set(_CALLED.findall("\n".join(piece.lines))) <= INLINE_RULES
                if not (fused and inline):
                    out("for j in range(m):")
                out.lines.extend(piece.lines)
                fused = inline
            else:
                fused = False
                self.emit_step(step)
        last = steps[-1]
        if last.info.flow is Flow.END and last.fault is None:
            out("pc = -1")
            return
        if last.fault is not None or last.kind is Kind.UNKNOWN or (
                last.kind is Kind.GEOMETRY and not self.emit_geometry(last)):
            out("st = 1")
            return
        self.emit_transfer(last)
        if not dispatch:
            # A single block that does not end with END runs past the program's end or
            # jumps: only the reference engine's hang message is exact.
            out("st = 1")

    def emit_geometry(self, step: Step) -> bool:
        """Emit SETEMIT/EMIT; False if this kernel cannot (vertex shaders: the
        reference engine reports the fault)."""
        return False

    def emit_transfer(self, step: Step) -> None:
        """Set ``pc`` after the block's last instruction (it may jump, push, or pop)."""
        out = self.out
        following = step.pc + 1
        check_call, check_if, check_loop = self.a.pops_after(step.pc)
        breaks = step.op in _BREAKS
        jump = "jump" if step.kind is Kind.FLOW and step.op not in _BREAKS else "-1"
        if not (check_call or check_if or check_loop or breaks):
            out(f"pc = {following} if {jump} < 0 else {jump}" if jump != "-1"
                else f"pc = {following}")
        else:
            brk = "brk" if breaks else "False"
            out(f"pc, al, n_if, n_call, n_loop, hang = S.next_pc(ifs, n_if, calls, n_call, "
                f"loops, n_loop, {step.pc}, {jump}, {brk}, al, {check_call}, {check_if}, "
                f"{check_loop or breaks})")
            out("if hang:")
            out("    st = 1")
        out(f"if pc >= {self.a.length}:")
        out("    st = 1")

    # -- instructions ----------------------------------------------------------------------

    def emit_step(self, step: Step) -> None:
        out = self.out
        out(f"# 0x{step.pc:03X}: {step.info.mnemonic or 'unknown'}")
        if step.fault is not None:
            self.flag()
            return
        kind = step.kind
        if kind in (Kind.ARITHMETIC, Kind.COMPARE):
            self.emit_alu(step)
        elif kind is Kind.FLOW:
            self.emit_flow(step)

    def read(self, operand: Operand, gathered: list[str] | None = None) -> list[str]:
        """Emit the reads of one source operand; returns its 4 component expressions
        (``gathered``: where :meth:`gather` put a relatively addressed uniform)."""
        bank, number = operand.bank, operand.number
        if gathered is not None:
            raw = gathered
        elif bank == "c" and operand.relative is not None:
            index = self.address_names[operand.relative]
            row = self.fresh("row")
            self.out(f"{row} = R.relative_row({number}, {index})")
            self.out(f"if not float_given[{row}]:")
            self.out.depth += 1
            self.flag()
            self.out.depth -= 1
            raw = [f"floats[{row}, {c}]" for c in range(4)]
        else:
            if (bank, number) in self.missing:
                self.flag()
            if bank != "c":
                self.used_regs.add((bank, number))
                raw = [self.register(bank, number, c) for c in range(4)]
            else:
                raw = [f"c{number}_{c}" for c in range(4)]
        origin = ("g" if gathered is not None or operand.relative is not None else "c"
                  ) if bank == "c" else bank
        values = []
        for c in operand.swizzle.tolist():
            value = raw[c]
            if operand.negate:
                value = f"R.negate{self.precision[1:]}({value})"
            name = self.fresh("s")
            self.out(f"{name} = {value}")
            values.append(name)
            self.origin[name] = origin
            if origin == "c":
                self.uniform_components[name] = (number, c)
            if bank != "c":
                self.pending[name] = (bank, number, c)
        return values

    @staticmethod
    def alu(step: Step) -> bool:
        return step.fault is None and step.kind in (Kind.ARITHMETIC, Kind.COMPARE)

    @classmethod
    def same_address(cls, steps: list[Step]) -> list[Step]:
        """The ALU instructions of ``steps`` up to the first that writes the address
        registers (it still reads the old ones): they all see the same a0.x/a0.y/aL."""
        found = []
        for step in steps:
            if not cls.alu(step):
                break
            found.append(step)
            if Writes.ADDRESS in step.info.writes:
                break
        return found

    def gather(self, steps: list[Step]) -> dict[int, dict[int, list[str]]]:
        """Inside the kernels of uniform control: copy each lane's uniform rows that the
        sources of ``steps`` (instructions that see the same address registers) read
        through an address register into rows of ``G``, in one loop of its own (a gather
        in the loop of the arithmetic would keep LLVM from vectorizing it; one loop for
        all lets the arithmetic of the instructions share one loop); returns pc ->
        source index -> the 4 component expressions."""
        found: dict[int, dict[int, list[str]]] = {step.pc: {} for step in steps}
        relative = [(step, k) for step in steps for k, operand in enumerate(step.sources)
                    if operand.bank == "c" and operand.relative is not None]
        if not relative:
            return found
        out = self.out
        out("for j in range(m):")
        out.depth += 1
        for slot, (step, k) in enumerate(relative):
            operand = step.sources[k]
            row = self.fresh("row")
            out(f"{row} = R.relative_row({operand.number}, "
                f"{self.address_names[operand.relative]})")
            out(f"if not float_given[{row}]:")
            out("    ST[j] = 1")
            found[step.pc][k] = [f"G[{4 * slot + c}, j]" for c in range(4)]
            for c in range(4):
                out(f"{found[step.pc][k][c]} = floats[{row}, {c}]")
        self.gather_rows = max(self.gather_rows, 4 * len(relative))
        out.depth -= 1
        return found

    def emit_alu(self, step: Step, gathered: dict[int, list[str]] | None = None) -> None:
        """An ALU instruction: its recipe (:mod:`.rules.recipes`) turned into source text
        by :mod:`.rules.source`, written through the destination mask; ``gathered`` holds
        the uniform rows :meth:`gather` copied for relative sources."""
        gathered = gathered or {}
        self.pending = {}
        reads = len(self.out.lines)
        src = [self.read(operand, gathered.get(k)) for k, operand in enumerate(step.sources)]
        src_names = [name for names in src for name in names]
        start = len(self.out.lines)
        writes = []
        mask = step.mask.tolist()
        result = expressions(step.op, self.precision, src, step.field, self.bind)
        if result.flags is not None:
            flags = [self.bind(flag) for flag in result.flags]
        if result.address is not None:
            for component in mask:
                if component < 2:
                    self.assign(self.address_names[component], result.address[component])
        if result.value is not None:
            bank, number = step.dest
            if mask:  # an empty mask writes nothing: the register need not exist in a kernel
                self.used_regs.add((bank, number))
                self.written_regs.add((bank, number))
            for component in mask:
                self.assign(self.register(bank, number, component), result.value[component])
                writes.append((bank, number, component))
        if result.flags is not None:
            self.assign(self.flag_names[0], flags[0])
            self.assign(self.flag_names[1], flags[1])
        # A source component counts as read only if the instruction's code uses it (a
        # swizzle names four; a dot product of three or a masked write uses fewer).
        used = set(_NAME.findall("\n".join(self.out.lines[start:])))
        for name, key in self.pending.items():
            if name in used:
                self.first_access.setdefault(key, "read")
                self.accesses.append((key, "read"))
        for key in writes:
            self.first_access.setdefault(key, "write")
            self.accesses.append((key, "write"))
        if result.flags is None and result.address is None and writes:
            self.in_range(start, writes, sorted(used & set(src_names), key=src_names.index))
        # Unused source components are not read at all (less for Numba to compile).
        self.out.lines[reads:start] = [
            line for line in self.out.lines[reads:start]
            if (match := _READ.match(line)) is None or match.group(1) in used]
        if len(self.out.lines) == reads:
            self.out("pass")  # nothing to do (an empty mask): still a statement

    def in_range(self, start: int, writes: list[tuple[str, int, int]],
                 operands: list[str]) -> None:
        """If allowed, turn the instruction whose code begins at line ``start`` of the
        output into the in-range arithmetic of :data:`IN_RANGE` (when it calls nothing
        else) and hand the lanes where a component it wrote is not finite to an exact
        engine (the lane status).  In a bounded kernel, an instruction whose
        ``operands`` (the names of the source values its code uses) are all inputs and
        uniforms computes that of :data:`BOUNDED` instead and hands over the lanes where
        one of them is not bounded (:func:`operand_bounds`): inputs and uniforms are
        never written, so these checks are shared by every instruction reading them
        (LLVM hoists a uniform's out of the loop over lanes); a temporary's would cost as
        much as the checks they save."""
        lines = self.out.lines[start:]
        text = "\n".join(lines)
        called = set(_CALLED.findall(text))
        if not (self.in_range_allowed and called & IN_RANGE.keys()
                and called <= IN_RANGE.keys() | SAME_IN_RANGE):
            return
        bounds = None
        if self.bounded and all(self.origin[name] in ("v", "c", "g") for name in operands):
            bounds = operand_bounds(text, {n: self.origin[n] in ("c", "g") for n in operands})
        self.out.lines[start:] = [in_range_text(line, bounds is not None) for line in lines]
        self.checks = True
        if bounds is not None:
            # Inputs and uniforms are never written: their checks are made once, the
            # uniforms' per kernel call (hoist_uniforms), a lane's inputs when they are
            # loaded (input_checks).
            for name, bound in bounds.items():
                if self.origin[name] == "v":
                    key = self.pending[name][1:]
                    self.input_bounds[key] = min(self.input_bounds.get(key, bound), bound)
                elif self.origin[name] == "g":
                    self.bounded_relative = True
                else:
                    self.bounded_uniforms.add(self.uniform_components[name])
            return
        # The float32 sum of the components written is not finite if one of them is
        # not (f24: each finite one is below 2^64, so the sum is finite exactly when all
        # are; f32: a sum of finite ones may overflow, and the lane is run again for
        # nothing).
        total = " + ".join(self.register(*key) for key in writes)
        self.flag_if(f"R.nonfinite32({total})")

    def bind(self, expression: str) -> str:
        """Emit ``name = expression`` for a value used more than once; returns the name."""
        name = self.fresh("v")
        self.out(f"{name} = {expression}")
        return name

    def emit_flow(self, step: Step) -> None:
        """A flow instruction: ``flow.stacks.taken`` and the effect of its flow kind
        (``flow.stacks.EFFECTS``, what ``flow.stacks.effect`` calls), the stack machine's
        own text compiled through :mod:`.stacks`, called with this word's fields; the
        jump or break is left for the check after the instruction.  Which values the
        condition reads (the flags, a bool uniform) and LOOP's integer uniform are chosen
        by the table's columns."""
        info = step.info
        flow = info.flow
        if flow is Flow.NONE or flow is Flow.END:
            return
        fields = dict(step.fields)
        number = fields.get("id", 0)
        flags = ("cmpx", "cmpy") if info.reads_flags else ("False", "False")
        boolean = "False"
        if info.reads_bool:
            if ("b", number) in self.missing:
                self.flag()
            boolean = f"bools[{number}]"
        loop = ("0", "0", "0")
        if flow is Flow.LOOP:
            number %= NUM_INT_UNIFORMS
            if ("i", number) in self.missing:
                self.flag()
            loop = tuple(f"ints[{number}, {k}]" for k in range(3))
        dst, num = fields.get("dst", 0), fields.get("num", 0)
        taken = (f"S.taken({int(info.condition)}, {fields.get('condop', 0)}, "
                 f"{fields.get('refx', 0)}, {fields.get('refy', 0)}, {flags[0]}, {flags[1]}, "
                 f"{boolean}, {num})")
        effect = EFFECTS[flow].__name__
        self.out(f"jump, brk, n_if, n_call, n_loop, al = S.{effect}({taken}, {step.pc}, "
                 f"{dst}, {num}, ifs, n_if, calls, n_call, loops, n_loop, al, "
                 f"{', '.join(loop)})")

    # -- prologue and epilogue -------------------------------------------------------------

    def wrap(self, body: _Source, single: bool) -> str:
        out = _Source()
        out("def kernel(lo, hi, entry, inputs, temporaries, outputs, address, cmp, floats, "
            "float_given, ints, bools, max_steps, status, steps, natives):")
        out.depth = 1
        self.hoist_uniforms(out)
        # flow instructions run flow.stacks.effect, which takes the stacks
        stacks = any(OPCODES[op].flow not in (Flow.NONE, Flow.END) for op in self.a.opcodes)
        if stacks:
            out("ifs = np.zeros(S.IF_SIZE, np.int64)")
            out("calls = np.zeros(S.CALL_SIZE, np.int64)")
            out("loops = np.zeros(S.LOOP_SIZE, np.int64)")
        out("for lane in range(lo, hi):")
        out.depth = 2
        for bank, number in sorted(self.used_regs):
            for c in range(4):
                out(f"{bank}{number}_{c} = {_ARRAYS[bank]}[{number}][lane, {c}]")
        # Address registers and flags are loaded and stored only if the program uses them
        # (aL also goes through the stack check).
        address = stacks or self.a.address
        flags = self.a.flags
        names = (self.address_names, self.flag_names)
        self.emit_lane_control(out, address, flags, store=False, names=names)
        out(f"st = {self.input_checks()}")
        out("executed = 0")
        out("jump = -1")
        out("brk = False")
        if stacks:
            out("n_if = 0")
            out("n_call = 0")
            out("n_loop = 0")
        out("pc = entry")
        if not single:
            out("while pc >= 0 and st == 0:")
        out.lines.extend(body.lines)
        out.depth = 2
        out("if st == 0:")
        out.depth = 3
        for bank, number in sorted(self.written_regs):
            for c in range(4):
                out(f"{_ARRAYS[bank]}[{number}][lane, {c}] = {bank}{number}_{c}")
        self.emit_lane_control(out, address, flags, store=True, names=names)
        out.depth = 2
        out("status[lane] = st")
        out("steps[lane] = executed")
        return out.text()


__all__ = ["DONE", "NEEDS_REFERENCE", "Analysis", "KernelSource", "analyse", "generate"]
