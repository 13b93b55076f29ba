"""The stack machine lowered to LLVM IR (``compiled.flowir``) equals ``flow.stacks``.

Random scripts of flow instructions (each flow kind, taken or not, fields from a small
range so that triggers meet PCs and stacks fill, overflow and pop) run through both:
the plain-Python rules on lists, and one compiled function per script that applies
the same effects and per-instruction checks to its control state and writes, after
every step, the new PC, the hang flag, the counts, aL and every stack slot.  The
conditions' IR (``flowir.condition``) is compared with ``stacks.taken`` over every
operator and flag combination.
"""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

from gpuisa.pica.engine.compiled import llvmjit
from gpuisa.pica.engine.compiled import textir as ir
from gpuisa.pica.engine.compiled.flowir import ControlState, condition
from gpuisa.pica.engine.compiled.irtypes import I1, I64
from gpuisa.pica.flow import stacks as S
from gpuisa.pica.isa import CALL_STACK_DEPTH, IF_STACK_DEPTH, LOOP_STACK_DEPTH, Condition, Flow

SCRIPTS = 40
STEPS = 40
_SIGNATURE = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_FLOWS = (Flow.JUMP, Flow.IF, Flow.CALL, Flow.LOOP, Flow.BREAK, Flow.NONE)
#: IF most often: its stack is the deepest, and only a run of pushes overflows it.
_WEIGHTS = (0.1, 0.35, 0.2, 0.15, 0.1, 0.1)
_SLOTS = (IF_STACK_DEPTH * S.IF_WIDTH + CALL_STACK_DEPTH * S.CALL_WIDTH
          + LOOP_STACK_DEPTH * S.LOOP_WIDTH)
RECORD = 6 + _SLOTS


def script(seed: int) -> list[tuple]:
    rng = np.random.default_rng(seed)
    steps = []
    for _ in range(STEPS):
        flow = _FLOWS[int(rng.choice(len(_FLOWS), p=_WEIGHTS))]
        pc, dst, num = (int(v) for v in rng.integers(0, 8, 3))
        loop = tuple(int(v) for v in rng.integers(0, 4, 3))
        checks = tuple(bool(v) for v in rng.integers(0, 2, 3))
        steps.append((flow, bool(rng.integers(2)), pc, dst, num, loop, checks))
    return steps


def python_run(steps: list[tuple], al: int) -> np.ndarray:
    ifs, calls, loops = S.new_stacks()
    n_if = n_call = n_loop = 0
    rows = []
    for flow, taken, pc, dst, num, (x, y, z), checks in steps:
        jump, brk, n_if, n_call, n_loop, al = S.effect(
            int(flow), taken, pc, dst, num, ifs, n_if, calls, n_call, loops, n_loop, al,
            x, y, z)
        check_loop = checks[2] or flow is Flow.BREAK
        following, al, n_if, n_call, n_loop, hang = S.next_pc(
            ifs, n_if, calls, n_call, loops, n_loop, pc, jump, brk, al, checks[0],
            checks[1], check_loop)
        rows.append([following, int(hang), n_if, n_call, n_loop, al, *ifs, *calls, *loops])
    return np.array(rows, np.int64)


def compiled_run(steps: list[tuple], al: int, outline: bool = False) -> np.ndarray:
    module = ir.Module(name="flowir_test")
    function = ir.Function(module, ir.FunctionType(ir.VoidType(), [I64.as_pointer()]), "run")
    (out,) = function.args
    b = ir.IRBuilder(function.append_basic_block("entry"))
    state = ControlState(b, outline=outline)
    state.reset(ir.Constant(I64, al))
    position = 0

    def write(value: ir.Value) -> None:
        nonlocal position
        if value.type != I64:
            value = b.zext(value, I64)
        b.store(value, b.gep(out, [ir.Constant(I64, position)]))
        position += 1

    for flow, taken, pc, dst, num, loop, checks in steps:
        values = tuple(ir.Constant(I64, v) for v in loop)
        jump, brk = state.effect(flow, ir.Constant(I1, taken), pc, dst, num, values)
        following, hang = state.next_pc(pc, jump, brk, checks[0], checks[1],
                                        checks[2] or flow is Flow.BREAK)
        for value in (following, hang, b.load(state.n_if), b.load(state.n_call),
                      b.load(state.n_loop), b.load(state.al)):
            write(value)
        for stack, size in (("ifs", IF_STACK_DEPTH * S.IF_WIDTH),
                            ("calls", CALL_STACK_DEPTH * S.CALL_WIDTH),
                            ("loops", LOOP_STACK_DEPTH * S.LOOP_WIDTH)):
            for k in range(size):
                write(b.load(state.slot_of(stack, k)))
    b.ret_void()
    result = np.zeros((len(steps), RECORD), np.int64)
    kept = llvmjit.compile_kernel(module, signature=_SIGNATURE)  # keeps the code alive
    kept.function(result.ctypes.data)
    return result


def live(rows: np.ndarray) -> np.ndarray:
    """``rows`` with the stack slots beyond each stack's count zeroed (never read: the
    compiled stacks leave them uninitialised)."""
    rows = rows.copy()
    start = 6
    for column, depth, width in ((2, IF_STACK_DEPTH, S.IF_WIDTH),
                                 (3, CALL_STACK_DEPTH, S.CALL_WIDTH),
                                 (4, LOOP_STACK_DEPTH, S.LOOP_WIDTH)):
        slots = np.arange(depth * width)
        dead = slots[None, :] >= (rows[:, column] * width)[:, None]
        rows[:, start:start + depth * width][dead] = 0
        start += depth * width
    return rows


@pytest.mark.parametrize("outline", [False, True], ids=["inline", "outlined"])
@pytest.mark.parametrize("first", range(0, SCRIPTS, 20))
def test_compiled_stack_machine_equals_flow_stacks(first, outline):
    """Both builds of the stack machine: expanded where it is used, and as functions of
    the module that the code calls (what the kernels use)."""
    for seed in range(first, first + 20):
        steps = script(seed)
        al = seed % 5
        want, got = live(python_run(steps, al)), live(compiled_run(steps, al, outline))
        bad = np.flatnonzero((want != got).any(axis=1))
        assert bad.size == 0, (seed, int(bad[0]), steps[int(bad[0])], want[bad[0]].tolist(),
                               got[bad[0]].tolist())


def test_scripts_reach_every_rule():
    """The scripts overflow every stack, pop each kind and hang on an empty BREAK."""
    rows = np.concatenate([python_run(script(seed), 0) for seed in range(SCRIPTS)])
    assert rows[:, 2].max() == IF_STACK_DEPTH and rows[:, 3].max() == CALL_STACK_DEPTH
    assert rows[:, 4].max() == LOOP_STACK_DEPTH and rows[:, 1].any()


def test_conditions_equal_stacks_taken():
    module = ir.Module(name="conditions")
    function = ir.Function(module, ir.FunctionType(ir.VoidType(), [I64.as_pointer()]), "run")
    (out,) = function.args
    b = ir.IRBuilder(function.append_basic_block("entry"))
    cases, position = [], 0
    for source in Condition:
        for condop in range(4):
            for refx, refy, cmpx, cmpy, boolean, num in np.ndindex(2, 2, 2, 2, 2, 2):
                fields = {"condop": condop, "refx": refx, "refy": refy, "num": num}
                flags = (ir.Constant(I1, cmpx), ir.Constant(I1, cmpy))
                value = condition(b, source, fields, flags, ir.Constant(I1, boolean))
                b.store(b.zext(value, I64), b.gep(out, [ir.Constant(I64, position)]))
                position += 1
                cases.append(bool(S.taken(int(source), condop, refx, refy, bool(cmpx),
                                          bool(cmpy), bool(boolean), num)))
    b.ret_void()
    got = np.zeros(position, np.int64)
    kept = llvmjit.compile_kernel(module, signature=_SIGNATURE)
    kept.function(got.ctypes.data)
    assert got.astype(bool).tolist() == cases
