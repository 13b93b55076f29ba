"""Differential test for geometry shaders: the batch engine against the reference engine.

Random programs as in :mod:`test_differential` plus SETEMIT/EMIT statements (any
vertex buffer entry, random primitive and winding flags), run as geometry shaders: one
persistent unit, 24 invocations, b15 random at the start.  Invocations often read
registers an earlier invocation wrote (the programs read r0-r7 freely), so the batch
engine's speculation is exercised both ways: invocations it can commit and invocations
it must run again.  Registers at every END, emitted vertices, primitives, windings and
errors must agree bit for bit.

``GPUISA_DIFFERENTIAL_GEOMETRY_PROGRAMS`` (default 150) sets how many programs run.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from test_differential import Generator, _bits, _f32, _uniforms

from gpuisa.errors import GpuIsaError
from gpuisa.pica.disasm import disassemble
from gpuisa.pica.engine import run
from gpuisa.pica.shbin import Dvle, OutputEntry, OutputSemantic, ShaderType, Shbin

PROGRAMS = int(os.environ.get("GPUISA_DIFFERENTIAL_GEOMETRY_PROGRAMS", "150"))
PER_TEST = 50
INVOCATIONS = 24


def case(seed: int):
    rng = np.random.default_rng(10_000_000 + seed)
    registers = tuple(sorted(set(int(x) for x in rng.integers(0, 7, rng.integers(1, 4)))))
    program = Generator(rng, geometry=True).program(registers)
    precision = "f24" if seed % 2 == 0 else "f32"
    wild = bool(rng.random() < 0.4)
    uniforms, names = _uniforms(rng, wild)
    uniforms["b15"] = bool(rng.integers(0, 2))
    outputs = tuple(OutputEntry(OutputSemantic.POSITION, r) for r in registers)
    dvle = Dvle(ShaderType.GEOMETRY, main_offset=0, endmain_offset=len(program.code),
                outputs=outputs, uniforms=names)
    shbin = Shbin(program, (dvle,))
    inputs = {f"v{n}": _f32(rng, (INVOCATIONS, 4), wild) for n in range(3)}
    inputs["v3"] = rng.integers(-140, 140, (INVOCATIONS, 4)).astype(np.float32)
    return shbin, precision, inputs, uniforms


def _outcome(shbin, inputs, uniforms, precision, engine):
    try:
        return run(shbin, inputs, uniforms=uniforms, precision=precision, engine=engine,
                   max_steps=2000, registers=True)
    except GpuIsaError as error:
        return error


def _arrays(result) -> dict[str, np.ndarray]:
    out = {f"end {k}": _bits(v) for k, v in {**result.outputs, **result.temporaries}.items()}
    out.update({"end cmp": result.cmp, "end address": result.address, "steps": result.steps,
                "primitives": result.primitives, "windings": result.windings})
    out.update({f"vertices {k}": _bits(v) for k, v in result.vertices.items()})
    return out


def check(seed: int, engine: str = "batch") -> None:
    shbin, precision, inputs, uniforms = case(seed)
    want = _outcome(shbin, inputs, uniforms, precision, "reference")
    got = _outcome(shbin, inputs, uniforms, precision, engine)
    where = (f"\nseed={seed} precision={precision}\n--- disassembly ---\n"
             f"{disassemble(shbin.program)}")
    if isinstance(want, GpuIsaError) or isinstance(got, GpuIsaError):
        ok = (type(got) is type(want) and str(got) == str(want)
              and getattr(got, "pc", None) == getattr(want, "pc", None))
        if not ok:
            pytest.fail(f"reference: {want!r}\n{engine}: {got!r}{where}")
        return
    expected, have = _arrays(want), _arrays(got)
    for name, value in expected.items():
        if value.shape != have[name].shape or not np.array_equal(value, have[name]):
            diff = "shape " + str((value.shape, have[name].shape))
            if value.shape == have[name].shape:
                rows = np.flatnonzero((value != have[name]).reshape(len(value), -1).any(1))
                diff = (f"first differing row {rows[0]}: reference {value[rows[0]]!r}, "
                        f"{engine} {have[name][rows[0]]!r}")
            pytest.fail(f"{name}: {diff}{where}")


@pytest.mark.parametrize("first", range(0, PROGRAMS, PER_TEST))
def test_batch_geometry_matches_reference(first):
    with np.errstate(all="ignore"):
        for seed in range(first, min(first + PER_TEST, PROGRAMS)):
            check(seed)
