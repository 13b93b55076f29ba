"""Step-by-step execution records for one vertex (``pica trace``).

:func:`trace` runs one invocation on the reference engine and records, after every
instruction, which registers it changed and what the control-flow stacks hold.  When
the shader hangs or faults, the records up to that point are kept with the error.  With
an ``observer``, each record goes to it as soon as its instruction has executed and is
not kept (``pica trace`` prints a million steps as they come, in bounded memory).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ...errors import GpuIsaError, InputError
from ..disasm.syntax import UnitNames, condition_text, instruction_text
from ..encoding import decode
from ..flow.stacks import CALL_WIDTH, IF_WIDTH, LOOP_WIDTH
from ..isa import NUM_INT_UNIFORMS, Condition, Flow, Kind
from ..program import Program
from ..shbin import Shbin
from .api import Executable, StartRegisters, check_max_steps, executable, initial_state
from .decode import Step
from .geometry import GS_DONE_BOOL
from .loading import DEFAULT_ROUNDING, Arithmetic, Precision, Rounding, precision_of
from .pipeline import geometry_stream
from .reference import run_invocation
from .reference.emitter import Emitter
from .reference.lanes import Lane
from .reference.machine import Stacks
from .reference.values import narrow
from .state import ADDRESS_NAMES, ShaderState

_COMPONENTS = "xyzw"


@dataclass(frozen=True, slots=True)
class TraceStep:
    """One executed instruction: ``changes`` are ``(register, new value)`` texts such as
    ``("r0.xy", "(1, 2)")``; ``stacks`` describes the stacks after the stack check;
    ``next_pc`` is None after END."""

    number: int
    pc: int
    word: int
    text: str
    changes: tuple[tuple[str, str], ...]
    stacks: str
    next_pc: int | None


@dataclass(frozen=True, slots=True)
class Trace:
    steps: tuple[TraceStep, ...]
    error: GpuIsaError | None  # the hang or fault that ended execution, if any


def trace(shader: Shbin | Program, inputs: Mapping[str, object], *, vertex: int = 0,
          uniforms: Mapping[str, object] | None = None, dvle: int = 0,
          entry: int | str | None = None, precision: Precision = "f24",
          rounding: Rounding = DEFAULT_ROUNDING,
          cmp: Sequence[bool] = (False, False), max_steps: int = 100_000,
          observer: Callable[[TraceStep], None] | None = None) -> Trace:
    """Trace vertex number ``vertex`` of ``inputs`` (arguments as for :func:`run`); with
    an ``observer``, each step goes to it instead of into the returned :class:`Trace`."""
    precision = precision_of(precision, rounding)
    max_steps = check_max_steps(max_steps)
    exe = executable(shader, dvle, entry)
    state = initial_state(exe, inputs, uniforms=uniforms, precision=precision,
                          start=StartRegisters(cmp=cmp))
    if isinstance(vertex, bool) or not isinstance(vertex, int) or not (
            0 <= vertex < state.lanes):
        raise InputError(f"vertex must be 0..{state.lanes - 1}, got {vertex!r}")
    one = state.lane(vertex)
    emitter = Emitter(exe.output_registers) if exe.geometry else None
    return _record(exe, one, emitter, precision, max_steps, observer)


def trace_primitive(shbin: Shbin, inputs: Mapping[str, object], *, primitive: int = 0,
                    uniforms: Mapping[str, object] | None = None,
                    gs_uniforms: Mapping[str, object] | None = None,
                    vs_dvle: int | None = None, gs_dvle: int | None = None,
                    precision: Precision = "f24", rounding: Rounding = DEFAULT_ROUNDING,
                    max_steps: int = 100_000, stride: int | None = None,
                    primitive_sizes: Sequence[int] | None = None,
                    observer: Callable[[TraceStep], None] | None = None) -> Trace:
    """Trace geometry shader invocation ``primitive`` of a vertex + geometry pipeline
    (arguments as for :func:`~.pipeline.run_pipeline`; ``observer`` as for
    :func:`trace`).  The invocations before it run
    first, untraced, on the same unit: its registers and emission state persist between
    invocations, so they are part of what the traced one starts from."""
    arithmetic = precision_of(precision, rounding)
    max_steps = check_max_steps(max_steps)
    stream = geometry_stream(shbin, inputs, uniforms=uniforms, vs_dvle=vs_dvle,
                             gs_dvle=gs_dvle, precision=precision, rounding=rounding,
                             max_steps=max_steps, stride=stride,
                             primitive_sizes=primitive_sizes)
    exe, feed = stream.executable, stream.feed
    if isinstance(primitive, bool) or not isinstance(primitive, int) or not (
            0 <= primitive < feed.count):
        raise InputError(f"primitive must be 0..{feed.count - 1} (the geometry shader runs "
                         f"{feed.count} times), got {primitive!r}")
    unit = initial_state(exe, {}, uniforms=gs_uniforms, precision=arithmetic).lane(0)
    emitter = Emitter(exe.output_registers)
    for index in range(primitive):
        feed.apply(unit, index)
        run_invocation(exe.program, unit, exe.entry, precision=arithmetic,
                       max_steps=max_steps, emitter=emitter)
        unit.uniforms.set_bool(GS_DONE_BOOL, True)
    feed.apply(unit, primitive)
    return _record(exe, unit, emitter, arithmetic, max_steps, observer)


def _record(exe: Executable, one: ShaderState, emitter: Emitter | None,
            precision: Arithmetic, max_steps: int,
            observer: Callable[[TraceStep], None] | None = None) -> Trace:
    """Run the one-lane state ``one`` from the entry point, recording every step (into
    the Trace, or to ``observer``)."""
    records: list[TraceStep] = []
    count = 0
    address, cmp = one.results()
    banks = [bank.stacked()[..., 0] for bank in one.outputs]
    previous = _snapshot(one.temporaries.stacked()[..., 0], banks, address[:, 0].tolist(),
                         cmp[:, 0].tolist(), one.bank, emitter)
    names = _register_names(len(previous[0]) - sum(map(len, banks)), list(map(len, banks)))
    opdescs = exe.program.program.opdescs

    def observe(step: Step, lane: Lane, stacks: Stacks, next_pc: int | None):
        nonlocal previous, count
        current = _snapshot(_registers(lane.r), [_registers(bank) for bank in lane.o],
                            lane.a, lane.cmp, lane.bank, emitter)
        count += 1
        record = TraceStep(count, step.pc, step.word, describe(step, opdescs, exe.geometry),
                           _changes(previous, current, names), describe_stacks(stacks),
                           next_pc)
        if observer is None:
            records.append(record)
        else:
            observer(record)
        previous = current

    try:
        run_invocation(exe.program, one, exe.entry, precision=precision, max_steps=max_steps,
                       emitter=emitter, observer=observe)
    except GpuIsaError as error:
        return Trace(tuple(records), error)
    return Trace(tuple(records), None)


def describe(step: Step, opdescs: tuple[int, ...], geometry: bool = False) -> str:
    """Readable text of an instruction: picasso syntax where possible."""
    ins = decode(step.word)
    info = ins.info
    if info.kind is Kind.FLOW:
        return _flow_text(step)
    text = instruction_text(ins, opdescs, UnitNames(geometry=geometry))
    if text is not None:
        return text
    parts = [info.mnemonic or f"opcode 0x{step.word >> 26:02X}"]
    parts += [f"{name}={value}" for name, value in ins.fields]
    return " ".join(parts)


def _flow_text(step: Step) -> str:
    """A flow instruction in picasso syntax, its parts chosen by the table (format 0: no
    operands; format 2: condition, target, count; format 3: uniform, target, count)."""
    info = step.info
    name = info.mnemonic
    if not info.has_operands:  # BREAK
        return name
    target = f"0x{step.field('dst'):03X}"
    num = step.field("num")
    if info.format.name == "2":
        cond = "" if info.condition is Condition.ALWAYS else (condition_text(
            step.field("condop"), step.field("refx"), step.field("refy"))
            or f"condop={step.field('condop')} refx={step.field('refx')} "
               f"refy={step.field('refy')}")
        if info.flow is Flow.BREAK:
            return f"{name} {cond}"
        args = [cond] if cond else []
        args.append(target)
        if info.flow is not Flow.JUMP:
            args.append(str(num))
        return f"{name} {', '.join(args)}"
    ident = step.field("id")
    if info.flow is Flow.LOOP:
        return f"{name} i{ident % NUM_INT_UNIFORMS}, {target}"
    if info.condition is Condition.BOOLNUM:  # JMPU
        negated = "!" if num & 1 else ""
        return f"{name} {negated}b{ident}, {target}"
    return f"{name} b{ident}, {target}, {num}"


def describe_stacks(stacks: Stacks) -> str:
    """``IF dst>end ... | CALL trigger>return | LOOP trigger>body n=left +step``; oldest
    entry first, the top last."""
    ifs, n_if, calls, n_call, loops, n_loop = stacks
    parts = []
    if n_if:
        parts.append("IF " + " ".join(f"{ifs[k]:03X}>{ifs[k + 1]:03X}"
                                      for k in range(0, n_if * IF_WIDTH, IF_WIDTH)))
    if n_call:
        parts.append("CALL " + " ".join(f"{calls[k]:03X}>{calls[k + 1]:03X}"
                                        for k in range(0, n_call * CALL_WIDTH, CALL_WIDTH)))
    if n_loop:
        parts.append("LOOP " + " ".join(f"{loops[k]:03X}>{loops[k + 1]:03X} n={loops[k + 2]} "
                                        f"+{loops[k + 3]}"
                                        for k in range(0, n_loop * LOOP_WIDTH, LOOP_WIDTH)))
    return " | ".join(parts) or "-"


def number(value: float) -> str:
    """Shortest text that reads back as the same float32."""
    text = str(np.float32(value))
    return text[:-2] if text.endswith(".0") else text


def _registers(registers: list) -> np.ndarray:
    """A lane's register file as a float32 ``(count, 4)`` array."""
    return narrow(np.array(registers, dtype=np.float64).reshape(len(registers), 4))


Snapshot = tuple[np.ndarray, dict[str, object]]


def _register_names(temporaries: int, banks: list[int]) -> list[str]:
    """Names of the rows of a snapshot's registers: r0.., o0.., then o0'.. (bank 1)."""
    names = [f"r{n}" for n in range(temporaries)]
    for b, count in enumerate(banks):
        suffix = "" if b == 0 else "'"
        names += [f"o{n}{suffix}" for n in range(count)]
    return names


def _snapshot(temporaries: np.ndarray, outputs: list[np.ndarray], address: list[int],
              cmp: list[bool], bank: int, emitter: Emitter | None) -> Snapshot:
    """Everything a step can change: the registers as one float32 ``(count, 4)`` array
    (rows named by :func:`_register_names`; compared at once, which most of a step's
    cost was) and the rest by name."""
    registers = np.concatenate([temporaries, *outputs]).astype(np.float32, copy=False)
    rest: dict[str, object] = {}
    for k, name in enumerate(ADDRESS_NAMES):
        rest[name] = int(address[k])
    rest["cmp"] = (bool(cmp[0]), bool(cmp[1]))
    if emitter is not None:
        rest["bank"] = bank
        rest["emitted"] = len(emitter.vertices)
        rest["primitives"] = len(emitter.primitives)
    return registers, rest


def _changes(before: Snapshot, after: Snapshot, names: list[str]
             ) -> tuple[tuple[str, str], ...]:
    (old, old_rest), (new, new_rest) = before, after
    changed = old.view(np.uint32) != new.view(np.uint32)
    out = []
    for row in np.flatnonzero(changed.any(axis=1)).tolist():
        comps = np.flatnonzero(changed[row]).tolist()
        mask = "" if len(comps) == 4 else "." + "".join(_COMPONENTS[c] for c in comps)
        values = ", ".join(number(new[row, c]) for c in comps)
        out.append((f"{names[row]}{mask}", f"({values})" if len(comps) > 1 else values))
    for name, value in new_rest.items():
        if value != old_rest[name]:
            if name == "cmp":
                out.append(("cmp", f"x={int(value[0])} y={int(value[1])}"))  # type: ignore[index]
            else:
                out.append((name, str(value)))
    return tuple(out)
