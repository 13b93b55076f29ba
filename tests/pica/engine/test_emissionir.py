"""The emission rules lowered to LLVM IR (``compiled.emissionir``) equal ``flow.emission``.

Random scripts of SETEMIT and EMIT (buffer entries 0-3, with and without FLAG_PRIMEMIT
and FLAG_WINDING, so that primitives are made, reversed and fault on entries no EMIT
has written) run through both: the plain-Python rules on a list, and one compiled
function per script that applies the same steps to its state in memory and writes,
after every EMIT, what it reported and the whole state.
"""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

from gpuisa.pica.engine.compiled import emissionir, llvmjit
from gpuisa.pica.engine.compiled import textir as ir
from gpuisa.pica.engine.compiled.irtypes import I64
from gpuisa.pica.flow import emission as E

SCRIPTS = 60
STEPS = 30
_SIGNATURE = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)


def script(seed: int) -> list[tuple]:
    """(True, vtxid, primemit, winding) for SETEMIT, (False,) for EMIT."""
    rng = np.random.default_rng(seed)
    return [(True, int(rng.integers(0, 4)), bool(rng.random() < 0.4),
             bool(rng.integers(2))) if rng.random() < 0.4 else (False,)
            for _ in range(STEPS)]


def python_run(steps: list[tuple], bank: int) -> list[list[int]]:
    state = E.new_emission()
    state[E.BANK] = bank
    rows = []
    for vertex, step in enumerate(steps):
        if step[0]:
            E.setemit(state, *step[1:])
        else:
            rows.append([*E.emit(state, vertex), *state])
    return rows


def compiled_run(steps: list[tuple], bank: int) -> list[list[int]]:
    module = ir.Module(name="emissionir_test")
    pointer = I64.as_pointer()
    function = ir.Function(module, ir.FunctionType(ir.VoidType(), [pointer, pointer]), "run")
    state, out = function.args
    b = ir.IRBuilder(function.append_basic_block("entry"))
    position = 0
    for vertex, step in enumerate(steps):
        if step[0]:
            emissionir.setemit(b, state, *step[1:])
            continue
        reported = emissionir.emit(b, state, ir.Constant(I64, vertex))
        fields = [b.load(b.gep(state, [ir.Constant(I64, k)])) for k in range(E.SIZE)]
        for value in (*reported, *fields):
            b.store(value, b.gep(out, [ir.Constant(I64, position)]))
            position += 1
    b.ret_void()
    memory = np.array(E.new_emission(), np.int64)
    memory[E.BANK] = bank
    rows = np.zeros(max(position, 1), np.int64)
    kept = llvmjit.compile_kernel(module, signature=_SIGNATURE)  # keeps the code alive
    kept.function(memory.ctypes.data, rows.ctypes.data)
    return rows[:position].reshape(-1, 4 + E.SIZE).tolist()


@pytest.mark.parametrize("first", range(0, SCRIPTS, 20))
def test_compiled_emission_equals_flow_emission(first):
    for seed in range(first, first + 20):
        steps = script(seed)
        want, got = python_run(steps, seed % 2), compiled_run(steps, seed % 2)
        assert want == got, seed


def test_scripts_reach_every_outcome():
    """Vertices alone, primitives in both windings, and faults all occur."""
    rows = [row for seed in range(SCRIPTS) for row in python_run(script(seed), 0)]
    outcomes = {row[0] for row in rows}
    assert outcomes == {E.VERTEX, E.PRIMITIVE, E.FAULT}
    assert {row[4 + E.WINDING] for row in rows if row[0] == E.PRIMITIVE} == {0, 1}
