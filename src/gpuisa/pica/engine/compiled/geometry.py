"""Compiled geometry shaders: the Numba engine's geometry engine (``api.GEOMETRY_ENGINES``).

A geometry shader unit is one lane whose registers, output banks and emission state
persist from one invocation to the next (pica-emulation.md#initial-state,
pica-emulation.md#geometry), so its invocations run in order.  Each (program, entry, precision,
output mask, missing registers) is compiled once into a kernel that runs every invocation of a feed:
the one-lane code of
:mod:`.codegen` (registers in local scalars, basic blocks dispatched on the PC, the
stack machine of :mod:`.stacks`) inside a loop over the invocations, which before
each one loads the feed's input registers and uniforms, and after it records the
registers at END and sets b15 (:data:`.geometry.GS_DONE_BOOL`).  The output registers
of both banks are rows of one array indexed by the active bank.  SETEMIT and EMIT call
the rules of :mod:`.flow.emission` (compiled through :mod:`.stacks`); vertices and
primitives go into preallocated arrays, grown and the run repeated if they fill up.

Most geometry shaders do not carry values from one invocation to the next: each runs the
same straight instructions, reads only temporaries it wrote and emits only registers it
wrote.  Such a program (checked when its kernel is generated, :meth:`vector_kernel`)
gets a kernel that runs the ALU instructions over blocks of invocations, vectorized like
the straight-line vertex kernels, and SETEMIT/EMIT's rules for the invocations in order
afterwards.

Whatever the kernel cannot finish exactly as the reference engine would (a hang, a
fault, a read of a register that was not given, the step limit) stops it, and the whole
run is repeated on the reference engine, which gives the exact error.  Feeds shorter
than :data:`COMPILE_THRESHOLD` whose kernel is not compiled yet (in this process
or on disk) run on the reference engine instead of waiting for a compiler, unless the
compilation pays (:func:`.choice.compile_geometry`).
"""

from __future__ import annotations

import numpy as np

from ...flow import emission as E
from ...isa import NUM_OUTPUTS, NUM_TEMPORARIES, EmitEffect, Flow, Kind, Writes
from ..api import GEOMETRY_ENGINES
from ..choice import compile_geometry
from ..decode import DecodedProgram, Step
from ..geometry import GS_DONE_BOOL, Emission, GeometryFeed, InvocationLog
from ..loading import Arithmetic
from ..memory import lane_array
from ..state import RegisterFile, ShaderState
from .codegen import LANE_BLOCK, _Generator, _Source
from .kernels import NUMBA_PRECISIONS, Memo, analysis, compile_source, needs_reference, on_disk

#: What the kernel returns first: every invocation ran / one needs the reference engine /
#: the vertex or primitive arrays are full.
_DONE, _REFERENCE, _FULL = 0, 1, 2
#: Feeds with fewer invocations whose kernel is neither compiled nor cached on disk run
#: on the reference engine unless compiling pays (:func:`.choice.compile_geometry`).
COMPILE_THRESHOLD = 20_000
_kernels = Memo(32)
#: The first line of both kinds of geometry kernel (:func:`_run` calls them alike).
_SIGNATURE = ("def kernel(count, entry, inputs, stride, fed, fed_values, fed_loaded, "
              "temporaries, banks, bank, address, cmp, floats, float_given, ints, bools, "
              "max_steps, natives, emission, VX, PR, WD, log_outputs, log_temporaries, "
              "log_address, log_cmp, log_steps):")


class _GeometryGenerator(_Generator):
    """The kernel text of a geometry shader (see the module docstring)."""

    def __init__(self, program: DecodedProgram, entry: int, precision: Arithmetic,
                 missing: frozenset, emitted: tuple[int, ...], logged: tuple[int, ...]):
        super().__init__(program, analysis(program), (entry,), precision, missing)
        self.output_bank = "ob"
        self.emitted = emitted
        self.logged = logged
        # In the vectorized kernel (:meth:`vector_kernel`): the output bank relative to
        # the invocation's first, and the output components written so far.
        self.parity: int | None = None
        self.outputs_written: set[tuple[str, int, int]] = set()

    def register(self, bank: str, number: int, component: int) -> str:
        if self.parity is not None and bank == "o":
            # Output registers are only ever written; in the vectorized kernel each bank
            # relative to the invocation's first ("o", then "p") has its own rows.
            bank = "op"[self.parity]
            self.outputs_written.add((bank, number, component))
        return super().register(bank, number, component)

    def path(self, entry: int) -> list[Step] | None:
        """The instructions from ``entry`` to END if they are all ALU instructions
        without MOVA or relative addressing, NOPs, SETEMIT and EMIT (so every invocation
        runs exactly these); None otherwise."""
        steps = []
        pc = entry
        while 0 <= pc < self.a.length:
            step = self.steps[pc]
            steps.append(step)
            if step.fault is not None or Writes.ADDRESS in step.info.writes:
                return None
            if step.info.flow is Flow.END:
                return steps
            if step.kind in (Kind.ARITHMETIC, Kind.COMPARE):
                if any(o.bank == "c" and o.relative is not None for o in step.sources):
                    return None
            elif step.kind is not Kind.GEOMETRY and not step.info.inert:
                return None
            pc += 1
        return None

    def vector_kernel(self, entry: int) -> str | None:
        """The kernel of a geometry shader whose invocations do not depend on each other
        except through the emission state: every invocation runs the same straight
        instructions (:meth:`path`), reads no uniform that was not given, reads only
        temporaries it wrote before and emits only register components it wrote before
        in the same bank.  Then the emitted vertices do not depend on the order, and the
        kernel runs the ALU instructions over blocks of invocations like the
        straight-line vertex kernels (vectorized); a second pass runs SETEMIT/EMIT's
        rules for the invocations in order.  The output bank active at END holds what
        this invocation wrote into it, else (an odd number of EMITs: the invocations
        alternate banks) what the previous one wrote into its first bank, else the
        initial value.  None if the program is not of this kind (or the feed sets
        uniforms: checked by the caller)."""
        path = self.path(entry)
        if path is None or self.missing:
            return None
        emits = sum(step.info.emission is EmitEffect.EMIT for step in path)
        self.rows = {}
        self.output_bank = None
        self.parity = 0
        self.outputs_written = set()
        self.flag_names = ("F[0, j]", "F[1, j]")
        block = LANE_BLOCK
        body = _Source(depth=2)
        self.out = body
        emitted = 0
        flags = False
        for step in path[:-1]:
            if step.info.emission is not EmitEffect.EMIT and step.info.writes is Writes.NONE:
                continue  # NOP, SETEMIT: SETEMIT's rules run in the second pass
            body(f"# 0x{step.pc:03X}: {step.info.mnemonic}")
            if step.info.emission is EmitEffect.EMIT:
                bank = "op"[self.parity]
                if any((bank, r, c) not in self.outputs_written
                       for r in self.emitted for c in range(4)):
                    return None
                if self.emitted:
                    body("for j in range(m):")
                    body(f"    vertex = (base + j) * {emits} + {emitted}")
                    for k, r in enumerate(self.emitted):
                        for c in range(4):
                            body(f"    VX[{k}, vertex, {c}] = {self.register('o', r, c)}")
                emitted += 1
                self.parity ^= 1
                continue
            flags |= Writes.FLAGS in step.info.writes
            body("for j in range(m):")
            body.depth = 3
            self.emit_alu(step)
            body.depth = 2
        if any(bank == "r" and access == "read"
               for (bank, _, _), access in self.first_access.items()):
            return None
        out = _Source()
        out(_SIGNATURE)
        out.depth = 1
        out("# invocations independent but for the emission state: ALU over blocks")
        out(f"if {len(path)} > max_steps or count * {emits} > VX.shape[1] "
            f"or count * {emits} > PR.shape[0]:")
        out(f"    return {_REFERENCE}, 0, 0, 0")
        self.hoist_uniforms(out)
        odd = emits % 2
        end = "op"[odd]
        # Odd: per logged component only in the first bank, the previous invocation's.
        carried = [(number, c) for number in self.logged for c in range(4)
                   if odd and (end, number, c) not in self.outputs_written
                   and ("o", number, c) in self.outputs_written]
        out(f"PREV = np.empty({max(1, len(carried))}, np.float32)")
        for slot, (number, c) in enumerate(carried):
            out(f"PREV[{slot}] = banks[bank ^ 1, {number}, {c}]")
        self.open_blocks(out, block, "0", "count", False, True)
        out("inv = base + j")
        for (bank, number), row in self.rows.items():
            if bank == "v":
                for c in range(4):
                    out(f"W[{row + c}, j] = inputs[{number}, {c}, inv * stride]")
        out("F[0, j] = cmp[0]")
        out("F[1, j] = cmp[1]")
        self.lanes_after(out, body)
        out("inv = base + j")
        initial = "bank ^ ((inv + 1) % 2)" if odd else "bank"
        for k, number in enumerate(self.logged):
            for c in range(4):
                if (end, number, c) in self.outputs_written:
                    value = f"W[{self.rows[(end, number)] + c}, j]"
                elif (number, c) in carried:
                    row = self.rows[("o", number)] + c
                    value = f"W[{row}, j - 1] if j > 0 else PREV[{carried.index((number, c))}]"
                else:
                    value = f"banks[{initial}, {number}, {c}]"
                out(f"log_outputs[{k}, inv, {c}] = {value}")
        for k, number in enumerate(self.temporaries()):
            for c in range(4):
                value = (f"W[{self.rows[('r', number)] + c}, j]"
                         if ("r", number, c) in self.first_access
                         else f"temporaries[{number}, {c}]")
                out(f"log_temporaries[{k}, inv, {c}] = {value}")
        if self.a.address:
            for c in range(3):
                out(f"log_address[{c}, inv] = address[{c}]")
        if self.a.flags:
            for c in range(2):
                out(f"log_cmp[{c}, inv] = {f'F[{c}, j]' if flags else f'cmp[{c}]'}")
        out(f"log_steps[inv] = {len(path)}")
        out.depth = 2
        for slot, (number, c) in enumerate(carried):
            out(f"PREV[{slot}] = W[{self.rows[('o', number)] + c}, m - 1]")
        out.depth = 1
        out("npr = 0")
        out("for inv in range(count):")
        out.depth = 2
        out("pass")  # a path without SETEMIT or EMIT leaves nothing else here
        emitted = 0
        for step in path:
            if step.info.emission is EmitEffect.SETUP:
                out(f"S.setemit(emission, {step.field('vtxid')}, "
                    f"{bool(step.field('primemit'))}, {bool(step.field('winding'))})")
            elif step.info.emission is EmitEffect.EMIT:
                out(f"what, first, second, third = S.emit(emission, inv * {emits} + "
                    f"{emitted})")
                emitted += 1
                out(f"if what == {E.FAULT}:")
                out(f"    return {_REFERENCE}, inv, 0, 0")
                out(f"if what == {E.PRIMITIVE}:")
                out("    PR[npr, 0] = first")
                out("    PR[npr, 1] = second")
                out("    PR[npr, 2] = third")
                out(f"    WD[npr] = emission[{E.WINDING}] != 0")
                out("    npr += 1")
        out.depth = 1
        out(f"return {_DONE}, count, count * {emits}, npr")
        return out.text()

    def temporaries(self) -> list[int]:
        """The temporaries the program names (each gets a row of the log)."""
        return sorted(number for bank, number in self.a.registers if bank == "r")

    def emit_geometry(self, step: Step) -> bool:
        out = self.out
        if step.info.emission is EmitEffect.SETUP:
            out(f"S.setemit(emission, {step.field('vtxid')}, {bool(step.field('primemit'))}, "
                f"{bool(step.field('winding'))})")
            return True
        if step.info.emission is not EmitEffect.EMIT:
            return False
        out("if nv >= VX.shape[1] or npr >= PR.shape[0]:")
        out(f"    return {_FULL}, inv, nv, npr")
        for k, register in enumerate(self.emitted):
            for c in range(4):
                out(f"VX[{k}, nv, {c}] = OB[ob, {4 * register + c}]")
        out("what, first, second, third = S.emit(emission, nv)")
        out(f"if what == {E.FAULT}:")
        out("    st = 1")
        out("else:")
        out("    nv += 1")
        out(f"    ob = emission[{E.BANK}]")
        out(f"    if what == {E.PRIMITIVE}:")
        out("        PR[npr, 0] = first")
        out("        PR[npr, 1] = second")
        out("        PR[npr, 2] = third")
        out(f"        WD[npr] = emission[{E.WINDING}] != 0")
        out("        npr += 1")
        return True

    def geometry_kernel(self) -> str:
        body = _Source(depth=3)
        self.out = body
        for k, leader in enumerate(self.leaders):
            body.depth = 3
            body(f"{'if' if k == 0 else 'elif'} pc == {leader}:")
            body.depth = 4
            self.emit_block(leader, self.block_steps(leader), dispatch=True)
        body.depth = 3
        body("else:")
        body("    st = 1")
        used = self.a.registers
        out = _Source()
        out(_SIGNATURE)
        out.depth = 1
        self.hoist_uniforms(out, uniforms=False)
        out("ifs = np.zeros(S.IF_SIZE, np.int64)")
        out("calls = np.zeros(S.CALL_SIZE, np.int64)")
        out("loops = np.zeros(S.LOOP_SIZE, np.int64)")
        for bank, number in sorted(used):
            if bank == "r":
                for c in range(4):
                    out(f"r{number}_{c} = temporaries[{number}, {c}]")
        out(f"OB = np.empty((2, {4 * NUM_OUTPUTS}), np.float32)")
        out("for b in range(2):")
        out(f"    for k in range({4 * NUM_OUTPUTS}):")
        out("        OB[b, k] = banks[b, k // 4, k % 4]")
        out("ob = bank")
        out("a0x, a0y, al = address[0], address[1], address[2]")
        out("cmpx, cmpy = cmp[0], cmp[1]")
        out("nv = 0")
        out("npr = 0")
        out("for inv in range(count):")
        out.depth = 2
        for bank, number in sorted(used):
            if bank == "v":
                for c in range(4):
                    out(f"v{number}_{c} = inputs[{number}, {c}, inv * stride]")
        out("for k in range(fed.shape[0]):")
        out("    if fed_loaded[k, inv]:")
        out("        for c in range(4):")
        out("            floats[fed[k], c] = fed_values[k, inv, c]")
        out("        float_given[fed[k]] = True")
        self.hoist_uniforms(out, scratch=False)
        for line in ("st = 0", "executed = 0", "jump = -1", "brk = False", "n_if = 0",
                     "n_call = 0", "n_loop = 0", "pc = entry"):
            out(line)
        out("while pc >= 0 and st == 0:")
        out.lines.extend(body.lines)
        out.depth = 2
        out("if st != 0:")
        out(f"    return {_REFERENCE}, inv, nv, npr")
        # The registers at END: rows of one array per bank (indexing a tuple of arrays
        # would cost reference counting on every store).
        for k, number in enumerate(self.logged):
            for c in range(4):
                out(f"log_outputs[{k}, inv, {c}] = OB[ob, {4 * number + c}]")
        for k, number in enumerate(self.temporaries()):
            for c in range(4):
                out(f"log_temporaries[{k}, inv, {c}] = r{number}_{c}")
        if self.a.address:
            out("log_address[0, inv] = a0x")
            out("log_address[1, inv] = a0y")
            out("log_address[2, inv] = al")
        if self.a.flags:
            out("log_cmp[0, inv] = cmpx")
            out("log_cmp[1, inv] = cmpy")
        out("log_steps[inv] = executed")
        out(f"bools[{GS_DONE_BOOL}] = True")
        out.depth = 1
        out(f"return {_DONE}, count, nv, npr")
        return out.text()


def _given(unit: ShaderState, feed: GeometryFeed) -> dict[str, np.ndarray]:
    """Which registers the unit has before the first invocation (a fed uniform counts if
    the first invocation loads it; a later load after an earlier read would be an error,
    which the static check leaves to the reference engine by flagging the read)."""
    floats = unit.uniforms.float_given.copy()
    for number, (_, loaded) in feed.uniforms.items():
        floats[number] |= bool(loaded[0])
    inputs = feed.input_given if feed.inputs is not None else unit.input_given
    return {"v": inputs, "c": floats, "i": unit.uniforms.int_given,
            "b": unit.uniforms.bool_given}


def _source(program: DecodedProgram, entry: int, precision: Arithmetic, missing: frozenset,
            emitted: tuple[int, ...], logged: tuple[int, ...], vector: bool) -> str:
    """The vectorized kernel if ``vector`` (the feed sets no uniforms) and the program
    allows it, else the one of invocations in order."""
    def generator():
        return _GeometryGenerator(program, entry, precision, missing, emitted, logged)

    source = generator().vector_kernel(entry) if vector else None
    return source if source is not None else generator().geometry_kernel()


def run_geometry_jit(program: DecodedProgram, unit: ShaderState, entry: int,
                     registers: tuple[int, ...], feed: GeometryFeed, *, precision: Arithmetic,
                     max_steps: int) -> tuple[InvocationLog, Emission]:
    """The Numba engine's geometry shader run (see :data:`.api.GEOMETRY_ENGINES`)."""
    reference = GEOMETRY_ENGINES["reference"]
    count = feed.count
    if count == 0 or precision not in NUMBA_PRECISIONS or needs_reference(program):
        return reference(program, unit, entry, registers, feed, precision=precision,
                         max_steps=max_steps)
    facts = analysis(program)
    given = _given(unit, feed)
    missing = frozenset(r for r in facts.reads if not given[r[0]][r[1]])
    written = {number for bank, number in facts.registers if bank == "o"}
    logged = tuple(sorted(written | {n for n in range(NUM_OUTPUTS)
                                     if unit.outputs[0].allocated(n)
                                     or unit.outputs[1].allocated(n)}))
    vector = not feed.uniforms
    key = (program.program, entry, precision, missing, registers, logged, vector)
    function = _kernels.get(key)
    if function is None:
        source = _source(program, entry, precision, missing, registers, logged, vector)
        if (count < COMPILE_THRESHOLD and not on_disk(source)
                and not compile_geometry(program, unit.uniforms, entry, count)):
            return reference(program, unit, entry, registers, feed, precision=precision,
                            max_steps=max_steps)
        function = _kernels.make(key, lambda: compile_source(source))
    outcome = _run(function, program, unit, entry, registers, feed, precision, max_steps,
                   facts, logged)
    if outcome is None:
        return reference(program, unit, entry, registers, feed, precision=precision,
                         max_steps=max_steps)
    return outcome


def _emits(program: DecodedProgram) -> int:
    return max(1, sum(step.info.emission is EmitEffect.EMIT for step in program.steps))


def _run(function, program: DecodedProgram, unit: ShaderState, entry: int,
         registers: tuple[int, ...], feed: GeometryFeed, precision: Arithmetic,
         max_steps: int, facts, logged: tuple[int, ...]):
    """Run the kernel (again with larger emission arrays while they fill up); None if
    the reference engine must run the feed."""
    from .intrinsics import NATIVE_LOOPS

    count = feed.count
    uniforms = unit.uniforms
    if feed.inputs is not None:
        inputs, stride = np.ascontiguousarray(feed.inputs, dtype=np.float32), 1
    else:
        inputs, stride = unit.inputs.stacked(), 0
    fed = np.array(sorted(feed.uniforms), dtype=np.int64)
    fed_values = np.zeros((len(fed), count, 4), np.float32)
    fed_loaded = np.zeros((len(fed), count), bool)
    for k, number in enumerate(fed.tolist()):
        fed_values[k], fed_loaded[k] = feed.uniforms[number]
    temporaries = unit.temporaries.stacked()[..., 0]
    banks = np.stack([unit.outputs[b].stacked()[..., 0] for b in range(2)])
    address = np.ascontiguousarray(unit.address[:, 0], dtype=np.int64)
    cmp = np.ascontiguousarray(unit.cmp[:, 0])
    used = facts.registers
    # Pooled memory (.memory): fresh pages cost more than this kernel's work on them.
    named = sorted(number for bank, number in used if bank == "r")
    log_outputs = lane_array(len(logged) * count, 4, np.float32, fill=False).reshape(
        len(logged), count, 4)
    log_temporaries = lane_array(len(named) * count, 4, np.float32, fill=False).reshape(
        len(named), count, 4)
    log_address = lane_array(3, count, np.int64, fill=False)
    log_cmp = lane_array(2, count, bool, fill=False)
    log_steps = lane_array(count, 1, np.int64, fill=False).reshape(-1)
    capacity = count * _emits(program)
    # The kernel writes the fed uniforms, b15 and the emission state into its own copies:
    # the unit stays as it was for a run on the reference engine (or a second attempt).
    while True:
        emission = np.array(E.new_emission(), dtype=np.int64)
        emission[E.BANK] = unit.bank
        vertices = lane_array(len(registers) * capacity, 4, np.float32, fill=False).reshape(
            len(registers), capacity, 4)
        primitives = lane_array(capacity, 3, np.int64, fill=False)
        windings = lane_array(capacity, 1, bool, fill=False).reshape(-1)
        status, _, emitted, made = function(
            count, entry, inputs, stride, fed, fed_values, fed_loaded, temporaries, banks,
            unit.bank, address, cmp, np.array(uniforms.floats, np.float32),
            uniforms.float_given.copy(), np.ascontiguousarray(uniforms.ints, np.int64),
            uniforms.bools.copy(), np.int64(max_steps), NATIVE_LOOPS, emission, vertices,
            primitives, windings, log_outputs, log_temporaries, log_address, log_cmp,
            log_steps)
        if status != _FULL:
            break
        capacity *= 2
    if status != _DONE:
        return None
    outputs = RegisterFile(NUM_OUTPUTS, count)
    for k, n in enumerate(logged):
        outputs.adopt(n, log_outputs[k])
    temps = RegisterFile(NUM_TEMPORARIES, count)
    for n in range(NUM_TEMPORARIES):
        if n in named:
            temps.adopt(n, log_temporaries[named.index(n)])
        elif unit.temporaries.allocated(n):
            temps.adopt(n, np.broadcast_to(temporaries[n], (count, 4)))
    log = InvocationLog(
        outputs, temps,
        log_address if facts.address else np.broadcast_to(address[:, None], (3, count)),
        log_cmp if facts.flags else np.broadcast_to(cmp[:, None], (2, count)),
        log_steps)
    emission_result = Emission(emitted, {f"o{r}": vertices[k, :emitted]
                                         for k, r in enumerate(registers)},
                               primitives[:made], windings[:made])
    return log, emission_result


__all__ = ["run_geometry_jit"]
