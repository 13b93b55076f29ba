"""Random PICA200 programs, their inputs and the bit-for-bit comparison of two engines.

Shared by the differential tests (:mod:`test_differential`) and the compiled-kernel
tests: the programs and inputs come from :mod:`gpuisa.pica.fuzz.generator` (the
generator ``pica fuzz`` uses too); a *profile* restricts their shape so that every way a
compiled kernel runs a program is reached: "mixed" (anything: lanes that part and
rejoin, stacks that overflow, hangs and faults), "straight" (ALU only, no relative
uniform reads: one block from entry to END), "forward" (IF and forward jumps only: lanes
parting on their flags) and "uniform" (branches on uniforms only: one control state for
all lanes).

Uniforms are ordinary or as wild, so that f24 runs get kernels of both kinds of in-range
arithmetic.  Vertex shaders run on 64 lanes that repeat 8 distinct
input rows in shuffled order: the reference engine runs only the distinct rows, the
engine under test sees divergence, reconvergence and duplicate lanes everywhere.
Geometry shaders run 24 invocations on one persistent unit.

:func:`difference` compares every register, flag, address register, step count, emitted
vertex, primitive and winding bit for bit (NaN payloads and zero signs included), and
errors by type, message and pc.  :func:`shrink` reduces a differing case (delta
debugging: instructions replaced by NOPs, lanes dropped, while the difference persists)
and :func:`reproducer` prints it.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable

import numpy as np

from gpuisa.errors import GpuIsaError
from gpuisa.pica import Program
from gpuisa.pica.disasm import disassemble
from gpuisa.pica.engine import F24Bits, run
from gpuisa.pica.fuzz.generator import (
    DISTINCT,
    INVOCATIONS,
    NOP,
    PROFILES,
    TEMPS,
    Generator,
    input_rows,
    random_floats,
    random_uniforms,
)
from gpuisa.pica.shbin import (
    Dvle,
    OutputEntry,
    OutputSemantic,
    ShaderType,
    Shbin,
)

LANES = 64
MAX_STEPS = 2000


def _expand(value: object, order: np.ndarray) -> object:
    if isinstance(value, F24Bits):
        return F24Bits(value.bits[order].astype(np.int64))
    return np.asarray(value)[order]


@dataclasses.dataclass(frozen=True)
class Case:
    """One program with its inputs.  Vertex shaders: ``rows`` are the distinct input
    rows and ``lanes`` the row of each lane; geometry shaders: ``rows`` are the inputs
    of the invocations and ``lanes`` those that run, in order."""

    seed: int
    profile: str
    geometry: bool
    precision: str
    code: tuple[int, ...]
    opdescs: tuple[int, ...]
    dvle: Dvle
    rows: dict
    lanes: np.ndarray
    uniforms: dict
    cmp: tuple[bool, bool] = (False, False)
    temporaries: dict | None = None
    address: tuple[int, int, int] = (0, 0, 0)
    max_steps: int = MAX_STEPS
    #: f24's rounding (f32 cases: "nearest-even", what float32 does).
    rounding: str = "nearest-even"

    def shbin(self) -> Shbin:
        return Shbin(Program(list(self.code), list(self.opdescs)), (self.dvle,))


def _rng(seed: int, profile: str, geometry: bool) -> np.random.Generator:
    if profile == "mixed":  # the seeds of the original vertex and geometry suites
        return np.random.default_rng(10_000_000 + seed if geometry else seed)
    return np.random.default_rng([int(geometry), PROFILES.index(profile), seed])


def case(seed: int, profile: str = "mixed", geometry: bool = False,
         rounding: str = "nearest-even") -> Case:
    """The case of ``seed``: f24 for even seeds (rounded by ``rounding``), f32 for odd
    ones."""
    rng = _rng(seed, profile, geometry)
    precision = "f24" if seed % 2 == 0 else "f32"
    rounding = rounding if precision == "f24" else "nearest-even"
    if geometry:
        outputs = tuple(sorted(set(int(x) for x in rng.integers(0, 7, rng.integers(1, 4)))))
        program = Generator(rng, True, profile).program(outputs)
        wild = bool(rng.random() < 0.4)
        uniforms, names = random_uniforms(rng, wild)
        uniforms["b15"] = bool(rng.integers(0, 2))
        dvle = Dvle(ShaderType.GEOMETRY, main_offset=0, endmain_offset=len(program.code),
                    outputs=tuple(OutputEntry(OutputSemantic.POSITION, r) for r in outputs),
                    uniforms=names)
        rows = {f"v{n}": random_floats(rng, (INVOCATIONS, 4), wild) for n in range(3)}
        rows["v3"] = rng.integers(-140, 140, (INVOCATIONS, 4)).astype(np.float32)
        return Case(seed, profile, True, precision, tuple(program.code),
                    tuple(program.opdescs), dvle, rows, np.arange(INVOCATIONS), uniforms,
                    rounding=rounding)
    program = Generator(rng, False, profile).program()
    wild = bool(rng.random() < 0.6)
    rows = input_rows(rng, precision, wild)
    # half the wild inputs meet ordinary uniforms: f24 runs get bounded kernels then
    uniforms, names = random_uniforms(rng, wild and rng.random() < 0.5)
    dvle = Dvle(main_offset=0, endmain_offset=len(program.code), uniforms=names)
    order = np.concatenate([np.arange(DISTINCT), rng.integers(0, DISTINCT, LANES - DISTINCT)])
    rng.shuffle(order)
    cmp = (bool(rng.integers(0, 2)), bool(rng.integers(0, 2)))
    temporaries, address = None, (0, 0, 0)
    if profile != "mixed":  # these also start from given temporaries and address registers
        temporaries = {f"r{n}": random_floats(rng, (DISTINCT, 4), wild) for n in range(TEMPS)}
        address = tuple(int(v) for v in rng.integers(-140, 140, 3))
    return Case(seed, profile, False, precision, tuple(program.code), tuple(program.opdescs),
                dvle, rows, order, uniforms, cmp, temporaries, address, rounding=rounding)


def replay(seed: int, profile: str = "mixed", geometry: bool = False,
           code: list[int] | None = None, lanes: list[int] | None = None,
           rounding: str = "nearest-even") -> Case:
    """The case of ``seed`` with the words and lanes a :func:`shrink` left."""
    found = case(seed, profile, geometry, rounding)
    return dataclasses.replace(
        found, code=found.code if code is None else tuple(code),
        lanes=found.lanes if lanes is None else np.asarray(lanes, dtype=np.int64))


# -- comparison -----------------------------------------------------------------------------


def outcome(found: Case, engine: str, lanes: np.ndarray | None = None):
    """The run's result (registers included), or the GpuIsaError it raised."""
    lanes = found.lanes if lanes is None else lanes
    inputs = {name: _expand(value, lanes) for name, value in found.rows.items()}
    temporaries = (None if found.temporaries is None else
                   {name: _expand(value, lanes) for name, value in found.temporaries.items()})
    try:
        with np.errstate(all="ignore"):
            return run(found.shbin(), inputs, uniforms=found.uniforms,
                       precision=found.precision, rounding=found.rounding, cmp=found.cmp,
                       engine=engine,
                       max_steps=found.max_steps, temporaries=temporaries, address=found.address,
                       registers=True)
    except GpuIsaError as error:
        return error


def _bits(array: np.ndarray) -> np.ndarray:
    array = np.asarray(array)
    return array.view(np.uint32) if array.dtype == np.float32 else array


def _arrays(result, geometry: bool) -> dict[str, np.ndarray]:
    """Every array of a result as integers (float bits), one row per lane/invocation."""
    regs = {**result.outputs, **result.temporaries}
    out = {name: _bits(value) for name, value in regs.items()}
    out.update(cmp=_bits(result.cmp), address=_bits(result.address),
               steps=np.asarray(result.steps).reshape(len(result.steps), -1))
    if geometry:
        out.update({f"vertices {k}": _bits(v) for k, v in result.vertices.items()})
        out.update(primitives=np.asarray(result.primitives),
                   windings=np.asarray(result.windings).reshape(-1, 1))
    return out


@dataclasses.dataclass(frozen=True)
class Difference:
    """How the engine under test differs: ``text`` says it, ``lane`` is the first
    differing lane (an index into the case's ``lanes``) if the registers of one do."""

    text: str
    lane: int | None = None


def _errors_differ(want, got) -> bool:
    return not (type(got) is type(want) and str(got) == str(want)
                and getattr(got, "pc", None) == getattr(want, "pc", None))


def difference(found: Case, engine: str = "jit") -> Difference | None:
    """The first difference between the reference engine and ``engine`` on ``found``."""
    try:
        got = outcome(found, engine)
    except Exception as error:  # a crash that is not a GpuIsaError is a difference too
        return Difference(f"{engine} crashed: {error!r}")
    if found.geometry:
        want = outcome(found, "reference")
    else:  # the distinct rows only, expanded to the lanes below
        want = outcome(found, "reference", np.arange(DISTINCT))
    if isinstance(want, GpuIsaError) or isinstance(got, GpuIsaError):
        if not found.geometry:
            want = outcome(found, "reference")  # the first failing lane reports
        if isinstance(want, GpuIsaError) or isinstance(got, GpuIsaError):
            if _errors_differ(want, got):
                return Difference(f"reference: {want!r}\n{engine}: {got!r}")
            return None
    expected, have = _arrays(want, found.geometry), _arrays(got, found.geometry)
    if expected.keys() != have.keys():
        return Difference(f"registers: reference {sorted(expected)}, {engine} {sorted(have)}")
    for name, value in expected.items():
        if not found.geometry and name not in ("primitives", "windings"):
            value = value[found.lanes]
        if value.shape != have[name].shape:
            return Difference(f"{name}: shape {value.shape} (reference), "
                              f"{have[name].shape} ({engine})")
        if np.array_equal(value, have[name]):
            continue
        rows = np.flatnonzero((value != have[name]).reshape(len(value), -1).any(axis=1))
        if len(rows):
            row = int(rows[0])
            lane = row if not name.startswith(("vertices", "primitives", "windings")) else None
            return Difference(f"{name}, row {row}: reference "
                              f"{[hex(v) for v in value[row].ravel().tolist()]}, {engine} "
                              f"{[hex(v) for v in have[name][row].ravel().tolist()]}", lane)
    return None


# -- shrinking and reporting ----------------------------------------------------------------


def _ddmin(items: list[int], fails: Callable[[list[int]], bool], deadline: float) -> list[int]:
    """A smallest-found subset of ``items`` (order kept) for which ``fails`` holds
    (delta debugging: drop chunks, halving their size when none can go)."""
    chunks = 2
    while items and time.monotonic() < deadline:
        size = -(-len(items) // chunks)
        for start in range(0, len(items), size):
            rest = items[:start] + items[start + size:]
            if fails(rest):
                items = rest
                chunks = max(chunks - 1, 2)
                break
            if time.monotonic() >= deadline:
                return items
        else:
            if size == 1:
                return items
            chunks = min(len(items), 2 * chunks)
    return items


def shrink(found: Case, engine: str = "jit", seconds: float = 60.0) -> Case:
    """A smaller case on which ``engine`` still differs from the reference: fewer lanes
    (for vertex shaders first the first differing lane alone), then as many
    instructions replaced by NOPs as delta debugging finds within ``seconds``."""
    deadline = time.monotonic() + seconds

    def differs(candidate: Case) -> bool:
        return difference(candidate, engine) is not None

    first = difference(found, engine)
    if first is None:
        return found
    if not found.geometry and first.lane is not None:
        alone = dataclasses.replace(found, lanes=found.lanes[[first.lane]])
        if differs(alone):
            found = alone
    kept = _ddmin(list(range(len(found.lanes))), lambda keep: bool(keep) and differs(
        dataclasses.replace(found, lanes=found.lanes[keep])), deadline)
    found = dataclasses.replace(found, lanes=found.lanes[kept])
    words = [pc for pc, word in enumerate(found.code) if word != NOP]

    def with_words(keep: list[int]) -> Case:
        keep = set(keep)
        return dataclasses.replace(found, code=tuple(
            word if pc in keep else NOP for pc, word in enumerate(found.code)))

    kept = _ddmin(words, lambda keep: differs(with_words(keep)), deadline)
    return with_words(kept)


def _hexes(value: object) -> list:
    if isinstance(value, F24Bits):
        return [[hex(v) for v in row] for row in np.asarray(value.bits).tolist()]
    return [[hex(v) for v in row] for row in _bits(np.asarray(value, np.float32)).tolist()]


def reproducer(found: Case, what: Difference | None, note: str = "") -> str:
    """The text printed for a differing case: how to rebuild it, the program, the inputs
    of the differing lane (or invocations), the difference."""
    try:
        text = disassemble(found.shbin().program)
    except GpuIsaError as error:  # pragma: no cover - the disassembler handles any words
        text = f"(disassembly failed: {error})"
    if found.geometry:
        lanes = found.lanes.tolist()
        where = f"invocations {lanes} (inputs, float bits):"
    else:
        lane = 0 if what is None or what.lane is None else what.lane
        lanes = [int(found.lanes[lane])]
        where = f"lane {lane} = input row {lanes[0]} (float bits; F24Bits patterns as given):"
    inputs = {name: [_hexes(value)[row] for row in lanes] for name, value in found.rows.items()}
    if found.temporaries is not None:
        inputs.update({name: [_hexes(value)[row] for row in lanes]
                       for name, value in found.temporaries.items()})
    ints = {k: v for k, v in found.uniforms.items() if k[0] in "ib"}
    floats = {k: _hexes(v) for k, v in found.uniforms.items() if k[0] not in "ib"}
    words = [hex(w) for w in found.code]
    return (f"\nseed={found.seed} profile={found.profile} geometry={found.geometry} "
            f"precision={found.precision} rounding={found.rounding} {note}\n"
            f"{what.text if what is not None else 'no difference'}\n"
            f"rebuild: differential.replay({found.seed}, {found.profile!r}, {found.geometry}, "
            f"code=[{', '.join(words)}], lanes={found.lanes.tolist()}, "
            f"rounding={found.rounding!r})\n"
            f"words other than NOP (pc: word): "
            f"{ {hex(pc): hex(w) for pc, w in enumerate(found.code) if w != NOP} }\n"
            f"opdescs: {[hex(w) for w in found.opdescs]}\n{where} {inputs}\n"
            f"cmp={found.cmp} address={found.address}\nint/bool uniforms: {ints}\n"
            f"float uniforms (float bits, DVLE ranges 'low' = c0.., 'high'): {floats}\n"
            f"--- disassembly ---\n{text}")

