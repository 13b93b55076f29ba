"""Running a case's program on gpuisa's engines and reading its results back as bit
patterns: used to make the suite and to re-check any case from its stored data alone."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...errors import GpuIsaError, InputError, ShaderFault, ShaderHang
from ..engine import F24Bits, RunResult, run, run_pipeline
from ..engine.loading import DEFAULT_ROUNDING
from ..engine.trace import Trace, trace
from ..shbin import Shbin
from .model import Case, Expected, Register, exact_f24

#: Step limit of every case run: the longest case takes a few hundred steps.
MAX_STEPS = 20_000


def register_values(reg: Register, mode: str, single: bool = False) -> object:
    """What ``run()`` is given for ``reg``: exact float24 patterns in f24 mode, float32
    values in f32 mode (``single``: the first row only, as a uniform)."""
    if mode == "f24":
        bits = np.array(reg.f24, dtype=np.int64).reshape(-1, 4)
        return F24Bits(bits[0] if single else bits)
    values = np.array(reg.f32, dtype=np.uint32).reshape(-1, 4).view(np.float32)
    return values[0] if single else values


def uniform_values(floats: Sequence[Register], ints: Sequence[tuple[str, Sequence[int]]],
                   bools: int, mode: str) -> dict[str, object]:
    out: dict[str, object] = {r.name: register_values(r, mode, single=True) for r in floats}
    out.update((name, list(v)) for name, v in ints)
    out.update((f"b{n}", bool(bools >> n & 1)) for n in range(16))
    return out


def _rounding(mode: str, rounding: str) -> str:
    """f24's rounding for a run in ``mode`` (f32 runs round as float32 does)."""
    return rounding if mode == "f24" else DEFAULT_ROUNDING


@dataclass(frozen=True, slots=True)
class Launch:
    """How a case's program starts: its SHBIN, the DVLE it runs (``pipeline``: the geometry
    mode of DVLE 0 feeding DVLE 1 instead), the conditional flags and address registers."""

    shbin: Shbin
    dvle: int
    pipeline: str
    cmp: tuple[bool, bool]
    address: tuple[int, int, int]


def execute(launch: Launch, inputs: dict[str, object], uniforms: dict[str, object], mode: str,
            engine: str = "auto", rounding: str = DEFAULT_ROUNDING) -> RunResult:
    """One run of a case (vertex shader, geometry shader, or vertex then geometry);
    ``rounding`` is the f24 mode's."""
    rounding = _rounding(mode, rounding)
    if launch.pipeline:
        return run_pipeline(launch.shbin, inputs, uniforms=uniforms,  # type: ignore[arg-type]
                            precision=mode, rounding=rounding,  # type: ignore[arg-type]
                            engine=engine, max_steps=MAX_STEPS, registers=True).geometry
    return run(launch.shbin, inputs, uniforms=uniforms, dvle=launch.dvle,  # type: ignore[arg-type]
               precision=mode, rounding=rounding, cmp=launch.cmp,  # type: ignore[arg-type]
               address=launch.address, engine=engine, max_steps=MAX_STEPS, registers=True)


def pattern(value: np.ndarray, mode: str, where: str) -> tuple[int, ...]:
    """Bit patterns of one register row: float32 bits, or the exact float24 patterns."""
    bits = np.asarray(value, dtype=np.float32).view(np.uint32)
    if mode == "f32":
        return tuple(int(b) for b in bits)  # type: ignore[return-value]
    out = []
    for b in bits:
        exact = exact_f24(int(b))
        if exact is None:
            raise InputError(f"{where}: f24 result 0x{int(b):08X} is not a float24 value")
        out.append(exact)
    return tuple(out)  # type: ignore[return-value]


def expectation(result: RunResult, outputs: Sequence[str], geometry: bool, row: int,
                mode: str, where: str, semantics: Sequence[str] = ()) -> Expected:
    """The Expected of lane ``row`` of ``result`` (geometry: everything emitted;
    ``semantics``: attributes after the output map, vertex shaders only)."""
    regs = tuple((name, pattern(result.outputs[name][row], mode, where)) for name in outputs)
    cmp = (bool(result.cmp[row][0]), bool(result.cmp[row][1]))
    address = tuple(int(v) for v in result.address[row])
    if not geometry:
        attributes = tuple((name, pattern(result.outputs_by_semantic[name][row], mode, where))
                           for name in semantics)
        return Expected("ok", regs, cmp, address, semantics=attributes)  # type: ignore[arg-type]
    count = len(result.vertices[outputs[0]]) if outputs else 0
    vertices = tuple(tuple(pattern(result.vertices[name][v], mode, where) for name in outputs)
                     for v in range(count))
    primitives = tuple((int(a), int(b), int(c), bool(w))
                       for (a, b, c), w in zip(result.primitives, result.windings, strict=True))
    return Expected("ok", regs, cmp, address, vertices, primitives)  # type: ignore[arg-type]


def failure(error: GpuIsaError) -> Expected | None:
    """The Expected of a run that hung or faulted; None for other errors."""
    if isinstance(error, ShaderHang | ShaderFault):
        status = "hang" if isinstance(error, ShaderHang) else "fault"
        return Expected(status, (), (False, False), (0, 0, 0), pc=error.pc)
    return None


def case_inputs(case: Case, mode: str) -> dict[str, object]:
    return {reg.name: register_values(reg, mode) for reg in case.inputs}


def case_uniforms(case: Case, mode: str) -> dict[str, object]:
    return uniform_values(case.float_uniforms, case.int_uniforms, case.bool_uniforms, mode)


def rerun(case: Case, mode: str, engine: str = "reference",
          rounding: str = DEFAULT_ROUNDING) -> Expected:
    """Recompute a case's expectation from its stored data (SHBIN bytes, patterns), f24
    rounded by ``rounding`` (the suite's: its manifest says which)."""
    shbin = Shbin.from_bytes(case.shbin)
    try:
        launch = Launch(shbin, case.dvle, case.pipeline, case.cmp, case.address)
        result = execute(launch, case_inputs(case, mode), case_uniforms(case, mode), mode,
                         engine, rounding)
    except GpuIsaError as error:
        failed = failure(error)
        if failed is None:
            raise
        return failed
    geometry = case.geometry or bool(case.pipeline)
    row = len(result.steps) - 1 if geometry else 0
    return expectation(result, case.output_names, case.geometry, row, mode, case.id,
                       case.semantic_names)


def case_trace(case: Case, mode: str, rounding: str = DEFAULT_ROUNDING) -> Trace:
    """The reference engine's step-by-step trace of the case's (first) invocation."""
    shbin = Shbin.from_bytes(case.shbin)
    dvle = 0 if case.pipeline else case.dvle  # a pipeline case: trace its vertex shader
    return trace(shbin, case_inputs(case, mode), uniforms=case_uniforms(case, mode),
                 dvle=dvle, precision=mode, rounding=_rounding(mode, rounding),  # type: ignore[arg-type]
                 cmp=case.cmp, max_steps=MAX_STEPS)
