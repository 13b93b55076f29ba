"""Running geometry shaders on their LLVM kernels (:mod:`.nativegeometry`): the compiled
engine's geometry engine (``api.GEOMETRY_ENGINES``).

A kernel is made for each (program, entry, precision, missing registers, output mask,
logged output registers), compiled in milliseconds the first time a process needs it
(or loaded from the machine-code cache, :func:`.llvmjit.compile_cached`) and kept for
the process.  A launch hands it copies of the unit's state (registers,
uniforms, emission state), the feed and arrays for what it emits and logs; vertex and
primitive arrays that fill up are made twice as large and the feed run again.  A feed
first runs on the kernel that computes in range; where that gives up, on the exact
kernel; where that gives up too, whole, on the reference engine from the unit as it
was, which gives the exact result or error.
"""

from __future__ import annotations

import ctypes
import time
from dataclasses import dataclass

import numpy as np

from ...flow import emission as E
from ...isa import NUM_OUTPUTS, NUM_TEMPORARIES, EmitEffect
from ..api import GEOMETRY_ENGINES
from ..decode import DecodedProgram
from ..geometry import Emission, GeometryFeed, InvocationLog
from ..loading import Arithmetic
from ..memory import lane_array
from ..state import RegisterFile, ShaderState
from . import nativegeometry
from .facts import analysis
from .llvmjit import Compiled, cached, compile_cached
from .nativeabi import ARG, DONE, FILE_BASE, FULL, GEOMETRY_ARG, GEOMETRY_ARG_COUNT
from .nativerun import plan, record, tiered
from .numpyloops import NATIVE_LOOPS

#: ``int8 run(int64 invocations, int64 *args)``.
SIGNATURE = ctypes.CFUNCTYPE(ctypes.c_int8, ctypes.c_int64, ctypes.c_void_p)


@dataclass(frozen=True, slots=True)
class GeometryKernel:
    """A compiled kernel, what it was made for and its code generator's level."""

    compiled: Compiled
    key: tuple
    level: int


def kernel(program: DecodedProgram, entry: int, precision: Arithmetic, missing: frozenset,
           emitted: tuple[int, ...], logged: tuple[int, ...],
           in_range: bool) -> GeometryKernel:
    """The kernel (``in_range``: the one computing in range), compiled quickly first and
    with the optimising code generator once runs on it have taken a while
    (:func:`.nativerun.tiered`)."""
    key = ("geometry", program.program, entry, precision, missing, emitted, logged,
           in_range)

    text = (f"pica geometry kernel\n{program.program.code}\n{program.program.opdescs}\n"
            f"{entry} {precision} {sorted(missing)} {emitted} {logged} {in_range}")

    def make(level: int) -> GeometryKernel:
        def module():
            return nativegeometry.build_module(plan(program, analysis(program), entry),
                                               entry, precision, missing, emitted, logged,
                                               in_range)

        return GeometryKernel(compile_cached(text, module, signature=SIGNATURE,
                                             level=level), key, level)

    found = tiered(key, make, lambda: cached(text))
    _made.add((program.program, entry, precision))
    return found


def compiled(program: DecodedProgram, entry: int, precision: Arithmetic) -> bool:
    """Whether this process has compiled a geometry kernel of the program."""
    return (program.program, entry, precision) in _made


#: The (program, entry, precision) of every kernel made (for :func:`compiled`).
_made: set[tuple] = set()


def _given(unit: ShaderState, feed: GeometryFeed) -> dict[str, np.ndarray]:
    """Which registers the unit has before the first invocation (a fed uniform counts if
    the first invocation loads it; one loaded only later counts as missing, and a read
    of it hands the feed to the reference engine)."""
    floats = unit.uniforms.float_given.copy()
    for number, (_, loaded) in feed.uniforms.items():
        floats[number] |= bool(loaded[0])
    inputs = feed.input_given if feed.inputs is not None else unit.input_given
    return {"v": inputs, "c": floats, "i": unit.uniforms.int_given,
            "b": unit.uniforms.bool_given}


def run_geometry_native(program: DecodedProgram, unit: ShaderState, entry: int,
                        registers: tuple[int, ...], feed: GeometryFeed, *,
                        precision: Arithmetic,
                        max_steps: int) -> tuple[InvocationLog, Emission]:
    """The compiled engine's geometry shader run (see :data:`.api.GEOMETRY_ENGINES`)."""
    reference = GEOMETRY_ENGINES["reference"]
    if feed.count == 0:
        return reference(program, unit, entry, registers, feed, precision=precision,
                         max_steps=max_steps)
    facts = analysis(program)
    given = _given(unit, feed)
    missing = frozenset(r for r in facts.reads if not given[r[0]][r[1]])
    written = {number for bank, number in facts.registers if bank == "o"}
    logged = tuple(sorted(written | {n for n in range(NUM_OUTPUTS)
                                     if unit.outputs[0].allocated(n)
                                     or unit.outputs[1].allocated(n)}))
    outcome = None
    for in_range in (True, False):  # the exact kernel where the other gave up
        found = kernel(program, entry, precision, missing, registers, logged, in_range)
        outcome = _launch(found, program, unit, registers, feed, given["c"], max_steps,
                          logged)
        if outcome is not None:
            break
    if outcome is None:
        return reference(program, unit, entry, registers, feed, precision=precision,
                         max_steps=max_steps)
    return outcome


def _address(array: np.ndarray) -> int:
    return array.ctypes.data


class _Arguments:
    """The kernel's argument block: numbers, and the addresses of arrays kept alive here
    for as long as the block is used."""

    def __init__(self) -> None:
        self.args = np.zeros(GEOMETRY_ARG_COUNT, np.int64)
        self.kept: list[np.ndarray] = []  # every array whose address is in args

    def put(self, index: int, array: np.ndarray) -> None:
        if not array.flags.c_contiguous:
            raise AssertionError("the kernel's arrays are C-contiguous")
        self.kept.append(array)
        self.args[index] = _address(array)

    def put_all(self, names: dict[str, int], arrays: dict[str, np.ndarray]) -> None:
        for name, array in arrays.items():
            self.put(names[name], array)


def _launch(found: GeometryKernel, program: DecodedProgram, unit: ShaderState,
            registers: tuple[int, ...], feed: GeometryFeed, floats_given: np.ndarray,
            max_steps: int, logged: tuple[int, ...]):
    """Run the kernel (again with larger emission arrays while they fill up); None if
    the reference engine must run the feed."""
    count = feed.count
    facts = analysis(program)
    block = _Arguments()
    args = block.args
    _put_inputs(block, facts.registers, feed, unit)
    block.put(ARG["ints"], np.ascontiguousarray(unit.uniforms.ints, np.int64))
    block.put(ARG["loops"], NATIVE_LOOPS)
    args[ARG["rows_given"]] = bool(floats_given.all())
    bits = np.packbits(floats_given, bitorder="little").view(np.int64)
    args[ARG["given_low"]], args[ARG["given_high"]] = bits
    args[ARG["max_steps"]] = max_steps
    _put_fed_uniforms(block, feed)
    named = sorted(number for bank, number in facts.registers if bank == "r")
    logs = {"log_outputs": lane_array(len(logged) * count, 4, np.float32, fill=False),
            "log_temporaries": lane_array(len(named) * count, 4, np.float32, fill=False),
            "log_address": lane_array(count, 3, np.int64, fill=False),
            "log_cmp": lane_array(count, 2, np.uint8, fill=False),
            "log_steps": lane_array(count, 1, np.int64, fill=False)}
    block.put_all(GEOMETRY_ARG, logs)
    counts = np.zeros(2, np.int64)
    block.put(GEOMETRY_ARG["counts"], counts)
    capacity = count * max(1, sum(step.info.emission is EmitEffect.EMIT
                                  for step in program.steps))
    while True:
        own = _put_state(block, unit, count, len(registers), capacity)
        started = time.perf_counter()
        status = found.compiled.function(count, _address(args))
        record(found.key, found.level, time.perf_counter() - started)
        if status != FULL:
            break
        capacity *= 2
    if status != DONE:
        return None
    log = _invocation_log(logs, unit, own["temporaries"], count, logged, named)
    emitted, made = counts.tolist()
    vertices = own["vertices"].reshape(len(registers), capacity, 4)
    return log, Emission(emitted, {f"o{r}": vertices[k, :emitted]
                                   for k, r in enumerate(registers)},
                         own["primitives"][:made], own["windings"][:made, 0].view(bool))


def _put_inputs(block: _Arguments, registers, feed: GeometryFeed, unit: ShaderState) -> None:
    """The input registers the program reads: the feed's lanes, or the unit's."""
    inputs = feed.inputs
    for bank, number in registers:
        if bank != "v":
            continue
        if inputs is not None:
            block.put(FILE_BASE["v"] + number,
                      np.ascontiguousarray(inputs[number].T, np.float32))
        elif unit.input_given[number]:
            block.put(FILE_BASE["v"] + number, unit.inputs.storage(number))
    block.args[GEOMETRY_ARG["stride"]] = 1 if inputs is not None else 0


def _put_fed_uniforms(block: _Arguments, feed: GeometryFeed) -> None:
    """The float uniforms the vertex stage feeds, one value per invocation."""
    fed = np.array(sorted(feed.uniforms), dtype=np.int64)
    fed_values = np.zeros((len(fed), feed.count, 4), np.float32)
    fed_loaded = np.zeros((len(fed), feed.count), np.uint8)
    for k, number in enumerate(fed.tolist()):
        fed_values[k], fed_loaded[k] = feed.uniforms[number]
    block.put_all(GEOMETRY_ARG, {"fed": fed, "fed_values": fed_values,
                                 "fed_loaded": fed_loaded})
    block.args[GEOMETRY_ARG["fed_count"]] = len(fed)


def _put_state(block: _Arguments, unit: ShaderState, count: int, n_registers: int,
               capacity: int) -> dict[str, np.ndarray]:
    """Fresh copies of the state the kernel changes and emission arrays of ``capacity``
    entries; returns the arrays the results are read from."""
    # the kernel changes its copies of the state: the unit stays as it was for a run
    # on the reference engine (or a second attempt)
    uniforms = unit.uniforms
    block.put_all(ARG, {"floats": np.array(uniforms.floats, np.float32),
                        "bools": uniforms.bools.astype(np.uint8),
                        "address": np.ascontiguousarray(unit.address[:, 0], np.int64),
                        "flags": unit.cmp[:, 0].astype(np.uint8)})
    emission = np.array(E.new_emission(), np.int64)
    emission[E.BANK] = unit.bank
    own = {"temporaries": np.ascontiguousarray(unit.temporaries.stacked()[..., 0]),
           "banks": np.stack([unit.outputs[b].stacked()[..., 0] for b in range(2)]),
           "emission": emission,
           "vertices": lane_array(n_registers * capacity, 4, np.float32, fill=False),
           "primitives": lane_array(capacity, 3, np.int64, fill=False),
           "windings": lane_array(capacity, 1, np.uint8, fill=False)}
    block.put_all(GEOMETRY_ARG, own)
    block.args[GEOMETRY_ARG["capacity"]] = capacity
    return own


def _invocation_log(logs: dict[str, np.ndarray], unit: ShaderState, initial: np.ndarray,
                    count: int, logged: tuple[int, ...], named: list[int]) -> InvocationLog:
    """The registers each invocation ended with, from the kernel's log arrays
    (``initial``: the temporaries the kernel started from)."""
    outputs = RegisterFile(NUM_OUTPUTS, count)
    log_outputs = logs["log_outputs"].reshape(len(logged), count, 4)
    for k, number in enumerate(logged):
        outputs.adopt(number, log_outputs[k])
    temporaries = RegisterFile(NUM_TEMPORARIES, count)
    log_temporaries = logs["log_temporaries"].reshape(len(named), count, 4)
    for number in range(NUM_TEMPORARIES):
        if number in named:
            temporaries.adopt(number, log_temporaries[named.index(number)])
        elif unit.temporaries.allocated(number):
            temporaries.adopt(number, np.broadcast_to(initial[number], (count, 4)))
    return InvocationLog(outputs, temporaries, logs["log_address"].T,
                         logs["log_cmp"].view(bool).T, logs["log_steps"].reshape(-1))


__all__ = ["compiled", "kernel", "run_geometry_native"]
