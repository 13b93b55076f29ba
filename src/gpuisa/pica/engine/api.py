"""``run()``: execute a shader on a batch of vertices and collect its results."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Collection, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ...errors import InputError
from ..isa import NUM_GEOMETRY_OUTPUTS, NUM_OUTPUTS, NUM_TEMPORARIES
from ..program import Program
from ..shbin import Dvle, ShaderType, Shbin
from ..shbin.outmap import SEMANTIC_SLOTS, output_map
from . import choice
from .decode import DecodedProgram, decode_program
from .geometry import Emission, GeometryFeed, InvocationLog, register_feed
from .loading import (
    DEFAULT_ROUNDING,
    Arithmetic,
    Precision,
    Rounding,
    float24,
    load_floats,
    precision_of,
    rounding_of,
)
from .reference import run_lanes
from .reference.geometry import reference_geometry
from .state import RegisterFile, ShaderState
from .uniform_table import load_uniforms, shared_uniforms
from .values import Loader, vertex_arrays

#: An engine runs every lane of a state from ``entry`` (vertex shaders) and returns the
#: instruction count of each lane: ``engine(program, state, entry, precision=...,
#: max_steps=...)``.  The state's registers are :class:`.state.RegisterFile` objects
#: (inputs may be read-only: the caller's own arrays); the engine writes results into
#: them, and may return a read-only broadcast count.
Engine = Callable[..., np.ndarray]
#: The reference engine (:mod:`.reference`) and the compiled engine (:mod:`.compiled.runner`, which
#: registers itself when imported: :data:`COMPILED` imports it on first use).
ENGINES: dict[str, Engine] = {"reference": run_lanes}

#: A geometry engine runs every invocation of a feed on a persistent one-lane unit and
#: returns the registers at each END and what was emitted: ``engine(program, unit,
#: entry, registers, feed, precision=..., max_steps=...) -> (InvocationLog, Emission)``.
#: Engines without one run geometry shaders on the reference engine's.
GeometryEngine = Callable[..., tuple[InvocationLog, Emission]]
GEOMETRY_ENGINES: dict[str, GeometryEngine] = {"reference": reference_geometry}

#: The default engine name: the engine expected to finish first (:mod:`.choice`).
AUTO = "auto"
#: The compiled engine's name and the module that registers it (imported when the
#: engine is asked for by name or chosen; importing it imports no LLVM).
COMPILED = ("jit", "gpuisa.pica.engine.compiled.runner")


#: Engines' own input converters (same results as :func:`.loading.load_floats`,
#: faster); the others use load_floats.
LOADERS: dict[str, Loader] = {}


def register_engine(name: str, engine: Engine, geometry: GeometryEngine | None = None,
                    loader: Loader | None = None) -> None:
    """Make ``engine`` available as ``run(..., engine=name)`` (and ``geometry`` for
    geometry shaders; without it they run on the reference engine's; ``loader`` converts
    the vertices it gets, without it :func:`.loading.load_floats` does)."""
    if name == AUTO:
        raise InputError(f"{AUTO!r} is reserved for the automatic choice of engine")
    ENGINES[name] = engine
    if geometry is not None:
        GEOMETRY_ENGINES[name] = geometry
    if loader is not None:
        LOADERS[name] = loader


def run_geometry_engine(engine: str, program: DecodedProgram, unit: ShaderState, entry: int,
                        registers: tuple[int, ...], feed: GeometryFeed, *,
                        precision: Arithmetic,
                        max_steps: int) -> tuple[InvocationLog, Emission]:
    """Run a geometry shader's invocations on the engine ``engine`` asks for."""
    name = choose_engine(engine, feed.count, Run(program, unit, entry, precision, True))
    function = GEOMETRY_ENGINES.get(name, GEOMETRY_ENGINES["reference"])
    return function(program, unit, entry, registers, feed, precision=precision,
                    max_steps=max_steps)


def engine_names() -> tuple[str, ...]:
    """Every value ``run(engine=...)`` accepts: "auto" and the engines."""
    return (AUTO, *dict.fromkeys((*ENGINES, COMPILED[0])))


@dataclass(frozen=True, slots=True)
class Run:
    """What :func:`choose_engine` looks at: the program, the state of its lanes (for a
    geometry shader the unit, whose feed has ``lanes`` invocations), where it starts."""

    program: DecodedProgram
    state: ShaderState
    entry: int
    precision: Arithmetic
    geometry: bool = False


def choose_engine(engine: str, lanes: int, run: Run | None = None) -> str:
    """The engine that runs ``lanes`` lanes when ``engine`` was asked for.  "auto" picks
    by estimated cost (:mod:`.choice`) when ``run`` says what would run, else the
    reference engine; other names are checked (the compiled engine's module is imported
    when it is asked for)."""
    if engine != AUTO:
        if engine == COMPILED[0] and engine not in ENGINES and not _compiled_engine():
            raise InputError(f"engine {engine!r} needs llvmlite, which is not installed "
                             f"(pip install llvmlite)")
        if engine not in ENGINES:
            raise InputError(f"unknown engine {engine!r} (available: "
                             f"{', '.join(engine_names())})")
        return engine
    if run is None:
        return "reference"
    return _cheapest(run, lanes)


def _cheapest(run: Run, lanes: int) -> str:
    """The engine :mod:`.choice` expects to cost least for ``run``: the compiled engine
    if this process has compiled the program's kernel (its module is then imported),
    else by :func:`.choice.pick`."""
    jit = sys.modules.get(COMPILED[1])
    if (jit is not None and COMPILED[0] in ENGINES
            and jit.compiled(run.program, run.state, run.entry, run.precision,
                             run.geometry)):
        return COMPILED[0]
    if _compiled_engine() is None:
        return "reference"
    steps = choice.estimated_steps(run.program, run.entry, run.state.uniforms)
    key = (run.program.program, run.geometry)
    name = choice.pick(lanes, steps, len(run.program), "llvmlite.binding" in sys.modules,
                       run.geometry, choice.spent(key))
    if name == "reference":
        choice.record(key, choice.reference_cost(lanes, steps, run.geometry))
    return name


def _compiled_engine():
    """The compiled engine's module (registering it), or None if it cannot be imported
    (a broken installation)."""
    name, module = COMPILED
    try:
        jit = importlib.import_module(module)
    except ImportError:
        return None
    return jit if name in ENGINES else None


@lru_cache(maxsize=32)
def _decoded(program: Program) -> DecodedProgram:
    return decode_program(program)


@dataclass(frozen=True, slots=True)
class Executable:
    """A program plus what a DVLE says about running it."""

    program: DecodedProgram
    entry: int
    dvle: Dvle | None
    geometry: bool

    @property
    def output_registers(self) -> tuple[int, ...]:
        """The registers an output vertex consists of (the DVLE output mask; without a
        DVLE all registers, o0-o6 for geometry shaders)."""
        if self.dvle is not None:
            mask = output_map(self.dvle.outputs).mask
            return tuple(n for n in range(NUM_OUTPUTS) if mask >> n & 1)
        return tuple(range(NUM_GEOMETRY_OUTPUTS if self.geometry else NUM_OUTPUTS))


#: The shader last made executable, its DVLE and entry, and the result (shaders are
#: frozen: runs of a few vertices in a loop pass the same one).
_last_executable: tuple = (None, None, None, None)


def executable(shader: Shbin | Program, dvle: int = 0, entry: int | str | None = None
               ) -> Executable:
    """What runs: the program (decoded), its entry point and DVLE."""
    global _last_executable
    last = _last_executable
    if last[0] is shader and last[1] is dvle and last[2] is entry:
        return last[3]
    exe = _executable(shader, dvle, entry)
    _last_executable = (shader, dvle, entry, exe)
    return exe


def _executable(shader: Shbin | Program, dvle: int, entry: int | str | None) -> Executable:
    if isinstance(shader, Shbin):
        if not shader.entries:
            raise InputError("the SHBIN has no DVLE; run its .program with an entry offset")
        if isinstance(dvle, bool) or not isinstance(dvle, int) or not (
                0 <= dvle < len(shader.entries)):
            raise InputError(f"dvle must be 0..{len(shader.entries) - 1}, got {dvle!r}")
        record = shader.entries[dvle]
        program = shader.program
        start = _entry(record, entry, record.main_offset)
        geometry = record.shader_type == ShaderType.GEOMETRY
    elif isinstance(shader, Program):
        record, program, geometry = None, shader, False
        start = _entry(None, entry, 0)
    else:
        raise InputError(f"shader must be a Shbin or a Program, got {type(shader).__name__}")
    if not 0 <= start < len(program.code):
        raise InputError(f"entry point {start} is outside the program "
                         f"(0..{len(program.code) - 1})")
    return Executable(_decoded(program), start, record, geometry)


def _entry(record: Dvle | None, entry: int | str | None, default: int) -> int:
    if entry is None:
        return default
    if isinstance(entry, str):
        labels = record.labels if record is not None else ()
        for label in labels:
            if label.name == entry:
                return label.offset
        raise InputError(f"no label {entry!r} in the DVLE's label table")
    if isinstance(entry, bool) or not isinstance(entry, int | np.integer):
        raise InputError(f"entry must be a word offset or a label name, got {entry!r}")
    return int(entry)


@dataclass(frozen=True, slots=True)
class RunResult:
    """What ``run()`` returns.  Arrays are per vertex (geometry shaders: per invocation).

    ``outputs`` maps 'o0'-'o15' to float32 ``(N, 4)`` (for geometry shaders the bank
    active at END); ``outputs_by_semantic`` maps 'position', 'normalquat', 'color',
    'texcoord0', 'texcoord0w', 'texcoord1', 'texcoord2', 'view' to float32 ``(N, k)``
    through the DVLE's output map, slots no output feeds reading 1.0 (pica-emulation.md#output-map)
    — empty without a DVLE.  With ``run(..., registers=True)`` only (None otherwise, so that a
    result holds no more than the outputs): ``temporaries`` maps 'r0'-'r15' to
    ``(N, 4)``; ``cmp`` is bool ``(N, 2)`` (cmp.x, cmp.y); ``address`` int64 ``(N, 3)``
    (a0.x, a0.y, aL); ``steps`` the instructions each vertex executed.  Geometry shaders
    also give ``vertices`` (one entry per EMIT: output register name -> float32
    ``(V, 4)``), ``primitives`` (int ``(P, 3)`` indices into the vertices, winding
    applied) and ``windings`` (bool ``(P,)``, FLAG_WINDING of each primitive); they are
    None for vertex shaders.

    ``precision`` ("f24", "f32") and ``rounding`` (f24's: "nearest-even" or "truncate";
    "nearest-even" for f32) say how the run computed.

    Arrays are handed out without copies, and some may be read-only broadcast views that
    take no memory per vertex, depending on the engine: registers, flags and address
    registers the run never used (all zero), and ``steps`` when every vertex executed
    the same instructions (the JIT's straight-line kernels).  Copy them (``np.array(x)``)
    to get arrays to write into.
    """

    outputs: Mapping[str, np.ndarray]
    outputs_by_semantic: Mapping[str, np.ndarray]
    temporaries: Mapping[str, np.ndarray] | None
    cmp: np.ndarray | None
    address: np.ndarray | None
    steps: np.ndarray | None
    precision: str
    rounding: str = DEFAULT_ROUNDING
    vertices: dict[str, np.ndarray] | None = None
    primitives: np.ndarray | None = None
    windings: np.ndarray | None = None


#: The largest step limit engines count to (step counters are 64-bit): no shader runs
#: this long, so a larger ``max_steps`` means the same thing.
MAX_STEPS_LIMIT = 1 << 62


def check_max_steps(max_steps: object) -> int:
    """``max_steps`` validated: a positive int, capped at :data:`MAX_STEPS_LIMIT`."""
    if isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 1:
        raise InputError(f"max_steps must be a positive integer, got {max_steps!r}")
    return min(max_steps, MAX_STEPS_LIMIT)


#: Whether the caller of the run being made sees its temporaries (``run(...,
#: registers=True)``; True for any other caller of an engine): engines need not store
#: temporaries nobody reads.
RESULT_TEMPORARIES: ContextVar[bool] = ContextVar("result_temporaries", default=True)


#: The initial flags and address registers when none are given.
NO_FLAGS = (False, False)
NO_ADDRESS = (0, 0, 0)


def run(shader: Shbin | Program, inputs: Mapping[str, object], *,
        uniforms: Mapping[str, object] | None = None, dvle: int = 0,
        entry: int | str | None = None, precision: Precision = "f24",
        rounding: Rounding = DEFAULT_ROUNDING,
        engine: str = AUTO, cmp: Sequence[bool] = NO_FLAGS,
        max_steps: int = 100_000, temporaries: Mapping[str, object] | None = None,
        outputs: Mapping[str, object] | None = None,
        address: Sequence[int] = NO_ADDRESS, registers: bool = False) -> RunResult:
    """Run a vertex shader on N vertices, or a geometry shader N times.

    ``shader`` is a :class:`~gpuisa.pica.shbin.Shbin` (``dvle`` picks the executable,
    whose constants are loaded first and whose names may be used) or a bare
    :class:`~gpuisa.pica.Program` (run as a vertex shader from ``entry``, default 0).
    ``inputs`` maps 'v0'-'v15' or ``.in`` names to ``(N, 4)`` arrays (``(4,)``: the same
    for every vertex).  ``uniforms`` maps 'c0'-'c95' to 4 floats (or :class:`F24Bits`),
    'i0'-'i3' to 4 ints 0..255, 'b0'-'b15' to bools, or DVLE uniform names to the same
    per register (``(k, 4)`` for an array of k).  Reading an input or uniform that was
    not given raises :class:`~gpuisa.errors.InputError`.  ``temporaries``/``outputs``
    ('r0'.../'o0'... -> values like inputs), ``address`` (a0.x, a0.y, aL) and ``cmp``
    give the initial registers; by default everything starts at 0 / false.  The result
    holds the outputs (and a geometry shader's emissions); ``registers=True`` adds the
    temporaries, flags, address registers and step counts of every vertex.

    ``precision`` is "f24" (float24 registers and rounding) or "f32" (float32, as
    emulators compute).  ``rounding`` is f24's rounding of inputs, uniforms and every
    result: "nearest-even" (the default) or "truncate" (toward zero, the conversion of
    Citra PR #7372: pica-emulation.md#f24-truncation); with "f32" only "nearest-even",
    what float32 arithmetic does, is accepted.  A geometry shader DVLE runs one
    invocation per input row on one unit whose registers persist, with b15 set after
    each invocation.  Hangs raise
    :class:`~gpuisa.errors.ShaderHang` (after ``max_steps`` instructions of one vertex;
    values beyond :data:`MAX_STEPS_LIMIT` mean that limit).

    ``engine`` is "auto" (the default: :func:`choose_engine` picks the engine expected
    to finish first, :mod:`.choice`), "reference", "jit" (compiled with LLVM) or another
    registered engine.  All give bit-identical results and raise identical errors: the
    error of the first vertex, in input order, that hangs or faults (the reference
    engine runs vertices in order), with its message and pc.
    """
    precision = precision_of(precision, rounding)
    choose_engine(engine, 1)  # reject an unknown name before looking at the inputs
    max_steps = check_max_steps(max_steps)
    exe = executable(shader, dvle, entry)
    start = StartRegisters(cmp, temporaries, outputs, address)
    state, name = _initial_state(exe, inputs, uniforms=uniforms, precision=precision,
                                 start=start, engine=engine, shared=True)
    if exe.geometry:
        log, emission = run_geometry_engine(
            engine, exe.program, state.lane(0), exe.entry, exe.output_registers,
            register_feed(state.inputs, state.input_given), precision=precision,
            max_steps=max_steps)
        return build_result(exe, log, precision, emission, registers)
    token = RESULT_TEMPORARIES.set(registers)
    try:
        steps = ENGINES[name](exe.program, state, exe.entry, precision=precision,
                              max_steps=max_steps)
    finally:
        RESULT_TEMPORARIES.reset(token)
    log = InvocationLog(state.outputs[state.bank], state.temporaries, *state.results(),
                        np.asarray(steps, dtype=np.int64))
    return build_result(exe, log, precision, None, registers)


@dataclass(frozen=True, slots=True)
class StartRegisters:
    """What a run's registers other than inputs and uniforms start from (the ``cmp``,
    ``temporaries``, ``outputs`` and ``address`` of :func:`run`)."""

    cmp: Sequence[bool] = NO_FLAGS
    temporaries: Mapping[str, object] | None = None
    outputs: Mapping[str, object] | None = None
    address: Sequence[int] = NO_ADDRESS


def initial_state(exe: Executable, inputs: Mapping[str, object], *,
                  uniforms: Mapping[str, object] | None, precision: Arithmetic,
                  start: StartRegisters = StartRegisters(), engine: str = AUTO) -> ShaderState:
    """A state with N lanes holding the given inputs, uniforms and initial registers,
    converted by the loader of the engine that will run them (:func:`register_engine`)."""
    return _initial_state(exe, inputs, uniforms=uniforms, precision=precision, start=start,
                          engine=engine)[0]


def _initial_state(exe: Executable, inputs: Mapping[str, object], *,
                   uniforms: Mapping[str, object] | None, precision: Arithmetic,
                   start: StartRegisters, engine: str,
                   shared: bool = False) -> tuple[ShaderState, str]:
    """:func:`initial_state` and the engine chosen to run it (chosen once the state
    knows which registers were given, before the inputs are converted); with
    ``shared``, a vertex shader's uniforms may be a remembered read-only table
    (:func:`.uniform_table.shared_uniforms`)."""
    cmp, temporaries, outputs, address = (start.cmp, start.temporaries, start.outputs,
                                          start.address)
    lanes, values = vertex_arrays(inputs, "v", exe.dvle, "input")
    for given, bank, what in ((temporaries, "r", "temporary"), (outputs, "o", "output")):
        if given is not None:
            n, regs = vertex_arrays(given, bank, None, what)
            if n not in (1, lanes):
                raise InputError(f"initial {what} registers have {n} rows, the inputs "
                                 f"{lanes} vertices")
            values |= regs
    # A vertex run never writes its uniforms: it may start from a shared table.
    table = (load_uniforms(exe.dvle, uniforms or {}, precision) if exe.geometry or not shared
             else shared_uniforms(exe.dvle, uniforms, precision))
    state = ShaderState(lanes, table)
    for bank, number in values:
        if bank == "v":
            state.input_given[number] = True
    # A geometry shader's engine is chosen for its feed (run_geometry_engine).
    name = choose_engine(engine, lanes, None if exe.geometry else Run(
        exe.program, state, exe.entry, precision))
    loader = LOADERS.get(name, load_floats)
    for (bank, number), value in values.items():
        if bank == "v":
            unchanged = value.as_is(precision, lanes)
            if unchanged is not None:  # inputs are never written: no copy needed
                state.inputs.adopt(number, unchanged)
                continue
            registers = state.inputs
        else:
            registers = state.temporaries if bank == "r" else state.outputs[0]
        # Loading writes every element: no zero fill first.
        value.load(precision, registers.storage(number, fill=False), loader)
    # the defaults need no checking (a run of a few vertices notices the cost)
    flags = cmp if cmp is NO_FLAGS else _flags(cmp)
    registers = address if address is NO_ADDRESS else _address(address)
    if any(flags):  # the arrays start zeroed; leaving them untouched costs no memory
        state.cmp[...] = np.asarray(flags, dtype=bool)[:, np.newaxis]
    if any(registers):
        state.address[...] = np.asarray(registers, dtype=np.int64)[:, np.newaxis]
    return state, name


def _flags(cmp: object) -> tuple[bool, bool]:
    try:
        x, y = cmp  # type: ignore[misc]
    except (TypeError, ValueError):
        raise InputError(f"cmp must be a pair of bools (cmp.x, cmp.y), got {cmp!r}") from None
    if not all(isinstance(v, bool | np.bool_) for v in (x, y)):
        raise InputError(f"cmp must be a pair of bools (cmp.x, cmp.y), got {cmp!r}")
    return bool(x), bool(y)


def _address(address: object) -> tuple[int, int, int]:
    try:
        values = tuple(address)  # type: ignore[arg-type]
    except TypeError:
        values = ()
    ok = len(values) == 3 and all(isinstance(v, int | np.integer) and not isinstance(
        v, bool | np.bool_) and -(2**31) <= int(v) < 2**31 for v in values)
    if not ok:
        raise InputError(f"address must be three 32-bit integers (a0.x, a0.y, aL), got "
                         f"{address!r}")
    return tuple(int(v) for v in values)  # type: ignore[return-value]


def build_result(exe: Executable, log: InvocationLog, precision: Arithmetic,
                 emission: Emission | None, registers: bool = True) -> RunResult:
    # Registers are handed out as the (N, 4) storage of the register files when it is
    # lane-major (state.RegisterFile): results for 10^7 vertices are not copied.
    outputs = RegisterValues(log.outputs, "o", NUM_OUTPUTS)
    result = dict(
        outputs=outputs,
        outputs_by_semantic=(by_semantic(exe.dvle, outputs, log.steps.shape[0])
                             if exe.dvle is not None else {}),
        temporaries=(RegisterValues(log.temporaries, "r", NUM_TEMPORARIES)
                     if registers else None),
        cmp=_lane_major(log.cmp) if registers else None,
        address=_lane_major(log.address) if registers else None,
        steps=log.steps if registers else None,
        precision="f24" if float24(precision) else "f32",
        rounding=rounding_of(precision),
    )
    if emission is not None:
        result.update(emission.fields())
    return RunResult(**result)


class _Lazy(Mapping[str, np.ndarray]):
    """A mapping whose keys are known up front and whose values are made on first access
    (:meth:`_make`), once: results for many lanes hold arrays nobody may look at."""

    __slots__ = ("_keys", "_values")

    def __init__(self, keys: Collection[str]):
        self._keys = keys
        self._values: dict[str, np.ndarray] = {}

    def _make(self, key: str) -> np.ndarray:
        raise NotImplementedError

    def __getitem__(self, key: str) -> np.ndarray:
        value = self._values.get(key)
        if value is None:
            if key not in self._keys:
                raise KeyError(key)
            value = self._values[key] = self._make(key)
        return value

    def __iter__(self):
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)


class RegisterValues(_Lazy):
    """Register name ('o0', ...) -> ``(lanes, 4)`` float32 of a result, each looked up on
    first access (building sixteen entries costs more than running a compiled shader on
    one vertex)."""

    __slots__ = ("_registers",)

    def __init__(self, registers: np.ndarray | RegisterFile, bank: str, count: int):
        super().__init__(_NAMES[bank][:count])
        self._registers = registers

    def _make(self, name: str) -> np.ndarray:
        return _register(self._registers, int(name[1:]))

    def __repr__(self) -> str:
        return repr(dict(self))


#: Each bank's register names, made once.
_NAMES = {bank: tuple(f"{bank}{n}" for n in range(max(NUM_OUTPUTS, NUM_TEMPORARIES)))
          for bank in "or"}


def _register(registers: np.ndarray | RegisterFile, number: int) -> np.ndarray:
    if isinstance(registers, RegisterFile):
        return registers.result(number)
    return _lane_major(registers[number])


def _lane_major(register: np.ndarray) -> np.ndarray:
    """A component-major ``(k, N)`` array as ``(N, k)``: its storage when that is
    lane-major (no copy), a broadcast (read-only, zero strides) as it is, else a
    C-contiguous copy."""
    view = register.T
    if view.flags.c_contiguous or 0 in view.strides:
        return view
    return np.ascontiguousarray(view)


#: Semantic name -> (first slot, count), made once (enum names cost a call each).
_SEMANTIC_RANGES = {semantic.name.lower(): span for semantic, span in SEMANTIC_SLOTS.items()}


class SemanticOutputs(_Lazy):
    """Semantic name -> ``(lanes, k)`` float32, each assembled on first access: building
    all eight for 10^7 vertices costs more than running a small shader."""

    __slots__ = ("_dvle", "_lanes", "_outputs")

    def __init__(self, dvle: Dvle, outputs: Mapping[str, np.ndarray], lanes: int):
        super().__init__(_SEMANTIC_RANGES)
        self._dvle = dvle  # its output map is worked out on first access too
        self._outputs = outputs
        self._lanes = lanes

    def _make(self, name: str) -> np.ndarray:
        first, count = _SEMANTIC_RANGES[name]
        value = np.ones((self._lanes, count), dtype=np.float32)
        for register, codes in enumerate(output_map(self._dvle.outputs).slots):
            for component, code in enumerate(codes):
                if first <= code < first + count:
                    value[:, code - first] = self._outputs[f"o{register}"][:, component]
        return value

    def __repr__(self) -> str:
        return f"SemanticOutputs({', '.join(self._keys)})"


def by_semantic(dvle: Dvle, outputs: Mapping[str, np.ndarray],
                lanes: int) -> Mapping[str, np.ndarray]:
    """Semantic attributes through the DVLE output map (libctru's algorithm,
    shbin-format.md#dvle-outputs) from ``outputs`` ('oN' -> (lanes, 4)); slots no component
    feeds read 1.0 (pica-emulation.md#output-map, Azahar ``output_vertex.cpp`` citing hardware
    tests)."""
    return SemanticOutputs(dvle, outputs, lanes)
