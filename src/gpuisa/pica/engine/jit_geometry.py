"""Compiled geometry shaders: the Numba engine's geometry engine (``api.GEOMETRY_ENGINES``).

A geometry shader unit is one lane whose registers, output banks and emission state
persist from one invocation to the next (notes §4.2, §6), so its invocations run in
order.  Each (program, entry, precision, output mask, missing registers) is compiled
once into a kernel that runs every invocation of a feed: the one-lane code of
:mod:`.jit_codegen` (registers in local scalars, basic blocks dispatched on the PC, the
stack machine of :mod:`.jit_stacks`) inside a loop over the invocations, which before
each one loads the feed's input registers and uniforms, and after it records the
registers at END and sets b15 (:data:`.geometry.GS_DONE_BOOL`).  The output registers
of both banks are rows of one array indexed by the active bank.  SETEMIT and EMIT call
the rules of :mod:`.flow.emission` (compiled through :mod:`.jit_stacks`); vertices and
primitives go into preallocated arrays, grown and the run repeated if they fill up.

Whatever the kernel cannot finish exactly as the reference engine would (a hang, a
fault, a read of a register that was not given, the step limit) stops it, and the whole
run is repeated on the reference engine, which gives the exact error.  Feeds shorter
than :data:`COMPILE_THRESHOLD` whose kernel is not compiled yet (in this process
or on disk) run on the batch engine's geometry path instead of waiting for a compiler.
"""

from __future__ import annotations

import numpy as np

from ..isa import NUM_OUTPUTS, NUM_TEMPORARIES, Opcode
from .api import GEOMETRY_ENGINES
from .decode import DecodedProgram, Step
from .flow import emission as E
from .geometry import GS_DONE_BOOL, Emission, GeometryFeed, InvocationLog
from .jit_codegen import _Generator, _Source
from .jit_kernels import Memo, analysis, compile_source, needs_reference, on_disk
from .memory import lane_array
from .semantics import Precision
from .state import RegisterFile, ShaderState

#: What the kernel returns first: every invocation ran / one needs the reference engine /
#: the vertex or primitive arrays are full.
_DONE, _REFERENCE, _FULL = 0, 1, 2
#: Feeds with fewer invocations run on the batch engine unless their kernel is compiled
#: or cached on disk (compiling one takes seconds).
COMPILE_THRESHOLD = 20_000
_kernels = Memo(32)


class _GeometryGenerator(_Generator):
    """The kernel text of a geometry shader (see the module docstring)."""

    def __init__(self, program: DecodedProgram, entry: int, precision: Precision,
                 missing: frozenset, emitted: tuple[int, ...], logged: tuple[int, ...]):
        super().__init__(program, analysis(program), (entry,), precision, missing)
        self.output_bank = "ob"
        self.emitted = emitted
        self.logged = logged

    def temporaries(self) -> list[int]:
        """The temporaries the program names (each gets a row of the log)."""
        return sorted(number for bank, number in self.a.registers if bank == "r")

    def emit_geometry(self, step: Step) -> bool:
        out = self.out
        if step.op is Opcode.SETEMIT:
            out(f"S.setemit(emission, {step.field('vtxid')}, {bool(step.field('primemit'))}, "
                f"{bool(step.field('winding'))})")
            return True
        if step.op is not Opcode.EMIT:
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
        out("def kernel(count, entry, inputs, stride, fed, fed_values, fed_loaded, "
            "temporaries, banks, bank, address, cmp, floats, float_given, ints, bools, "
            "max_steps, natives, emission, VX, PR, WD, log_outputs, log_temporaries, "
            "log_address, log_cmp, log_steps):")
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


def _source(program: DecodedProgram, entry: int, precision: Precision, missing: frozenset,
            emitted: tuple[int, ...], logged: tuple[int, ...]) -> str:
    return _GeometryGenerator(program, entry, precision, missing, emitted,
                              logged).geometry_kernel()


def run_geometry_jit(program: DecodedProgram, unit: ShaderState, entry: int,
                     registers: tuple[int, ...], feed: GeometryFeed, *, precision: Precision,
                     max_steps: int) -> tuple[InvocationLog, Emission]:
    """The Numba engine's geometry shader run (see :data:`.api.GEOMETRY_ENGINES`)."""
    reference = GEOMETRY_ENGINES["reference"]
    count = feed.count
    if count == 0 or needs_reference(program):
        return reference(program, unit, entry, registers, feed, precision=precision,
                         max_steps=max_steps)
    facts = analysis(program)
    given = _given(unit, feed)
    missing = frozenset(r for r in facts.reads if not given[r[0]][r[1]])
    written = {number for bank, number in facts.registers if bank == "o"}
    logged = tuple(sorted(written | {n for n in range(NUM_OUTPUTS)
                                     if unit.outputs[0].allocated(n)
                                     or unit.outputs[1].allocated(n)}))
    key = (program.program, entry, precision, missing, registers, logged)
    function = _kernels.get(key)
    if function is None:
        source = _source(program, entry, precision, missing, registers, logged)
        if count < COMPILE_THRESHOLD and not on_disk(source):
            fallback = GEOMETRY_ENGINES.get("batch", reference)
            return fallback(program, unit, entry, registers, feed, precision=precision,
                            max_steps=max_steps)
        function = _kernels.make(key, lambda: compile_source(source))
    outcome = _run(function, program, unit, entry, registers, feed, precision, max_steps,
                   facts, logged)
    if outcome is None:
        return reference(program, unit, entry, registers, feed, precision=precision,
                         max_steps=max_steps)
    return outcome


def _emits(program: DecodedProgram) -> int:
    return max(1, sum(step.op is Opcode.EMIT for step in program.steps))


def _run(function, program: DecodedProgram, unit: ShaderState, entry: int,
         registers: tuple[int, ...], feed: GeometryFeed, precision: Precision,
         max_steps: int, facts, logged: tuple[int, ...]):
    """Run the kernel (again with larger emission arrays while they fill up); None if
    the reference engine must run the feed."""
    from .jit_rules import NATIVE_LOOPS

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
    while True:
        emission = np.array(E.new_emission(), dtype=np.int64)
        emission[E.BANK] = unit.bank
        vertices = lane_array(len(registers) * capacity, 4, np.float32, fill=False).reshape(
            len(registers), capacity, 4)
        primitives = lane_array(capacity, 3, np.int64, fill=False)
        windings = lane_array(capacity, 1, bool, fill=False).reshape(-1)
        status, _, emitted, made = function(
            count, entry, inputs, stride, fed, fed_values, fed_loaded, temporaries, banks,
            unit.bank, address, cmp, np.ascontiguousarray(uniforms.floats, np.float32),
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
