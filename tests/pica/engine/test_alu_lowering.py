"""Each ALU opcode's recipe lowered to LLVM IR (``compiled.alu``) equals the scalar recipe
(``rules.scalar``, the reference engine's), bit for bit.

* Every opcode, both precisions: the exact lowering on pairs of special values (signed
  zeros, float24 limits, subnormals, infinities, NaNs with payloads) and random float24
  and float32 patterns; the in-range lowering of the arithmetic opcodes (what vector
  functions compute) wherever it writes finite values (elsewhere the kernels rerun the
  lane exactly).
* The bounded arithmetic (``primitives.bounded24``'s lemma, run): wherever every source
  component meets the bound ``rules.tree.operand_bounds`` gives it (uniforms
  ``BOUND_UNIFORM``), the recipe lowered with ``round24_bounded`` and plain products and
  sums equals the scalar recipe (round24 with its flushing and overflow).

Each recipe is compiled into a function over lanes that reads 12 source components per
lane (SRC1-SRC3, as the ALU reads them) and writes the result's value, flags and
address registers.
"""

from __future__ import annotations

import ctypes
import functools

import numpy as np
import pytest
from test_lowering import over_lanes
from test_rules import ALU, RANDOM32, VALUES, same_bits

from gpuisa.floats import f24_to_f32, round_f24
from gpuisa.pica.engine.compiled import llvmjit
from gpuisa.pica.engine.compiled import textir as ir
from gpuisa.pica.engine.compiled.alu import AluLowering
from gpuisa.pica.engine.compiled.irtypes import F32, I8, I64
from gpuisa.pica.engine.compiled.lower import Lowering
from gpuisa.pica.engine.compiled.numpyloops import LOOPS_OK, NATIVE_LOOPS
from gpuisa.pica.engine.reference.values import narrow, widen
from gpuisa.pica.engine.rules import primitives as P
from gpuisa.pica.engine.rules import scalar
from gpuisa.pica.engine.rules.recipes import recipe_for
from gpuisa.pica.engine.rules.tree import Source, operand_bounds, trace
from gpuisa.pica.isa import Opcode

_SIGNATURE = ctypes.CFUNCTYPE(None, ctypes.c_int64, *[ctypes.c_void_p] * 5)
#: CMP's operators (the other opcodes read no field).
FIELDS = {"cmpx": 2, "cmpy": 5}.__getitem__


@functools.cache
def compiled(opcode: Opcode, precision: str, mode: str):
    """``run(n, values (12, n) float32, value (4, n) float32, flags (2, n) int8,
    address (2, n) int64, loops)``: the recipe lowered "exact", "in range" or
    "bounded"; and whether the lowering computes in range."""
    module = ir.Module(name=f"test_{opcode.name}")
    pointer = I8.as_pointer()
    function = ir.Function(module, ir.FunctionType(ir.VoidType(), [I64, *[pointer] * 5]),
                           "run")
    n, values, value_out, flags_out, address_out, loops = function.args
    b = ir.IRBuilder(function.append_basic_block("entry"))
    L = Lowering(b, 1, b.bitcast(loops, I64.as_pointer()))
    alu = AluLowering(L, precision, in_range=mode != "exact")
    tree = trace(opcode, 3, FIELDS)
    with over_lanes(b, n) as i:

        def at(array, kind, row):
            typed = b.bitcast(array, kind.as_pointer())
            return b.gep(typed, [b.add(b.mul(ir.Constant(I64, row), n), i)])

        def read(item: Source) -> ir.Value:
            return b.load(at(values, F32, 4 * item.index + item.component))

        result = alu.lower(tree, read, bounded=mode == "bounded")
        for row, part in enumerate(result.value or ()):
            b.store(part, at(value_out, F32, row))
        for row, part in enumerate(result.flags or ()):
            b.store(b.zext(part, I8), at(flags_out, I8, row))
        for row, part in enumerate(result.address or ()):
            b.store(b.sext(part, I64), at(address_out, I64, row))
    b.ret_void()
    return llvmjit.compile_kernel(module, signature=_SIGNATURE), alu.computes_in_range(tree)


def lowered(opcode: Opcode, precision: str, mode: str, values: np.ndarray):
    """The lowered recipe on every column of ``values`` (12, n): value, flags, address."""
    kernel, _ = compiled(opcode, precision, mode)
    n = values.shape[1]
    values = np.ascontiguousarray(values, np.float32)
    value, flags = np.zeros((4, n), np.float32), np.zeros((2, n), np.int8)
    address = np.zeros((2, n), np.int64)
    kernel.function(n, *(a.ctypes.data for a in (values, value, flags, address,
                                                  NATIVE_LOOPS)))
    return value, flags, address


def scalar_recipe(opcode: Opcode, precision: str, column: np.ndarray):
    w = widen(column).tolist()
    m = scalar.F24 if precision == "f24" else scalar.F32
    return recipe_for(opcode)(m, w[0:4], w[4:8], w[8:12], FIELDS)


def operands(seed: int, precision: str) -> np.ndarray:
    """Columns of 12 source components: every pair of special values in the first two
    sources, then random float24 values and float32 patterns."""
    rng = np.random.default_rng(seed)
    a, b = np.meshgrid(VALUES, VALUES)
    pairs = len(a.ravel())
    columns = np.empty((12, pairs + 1200), np.float32)
    columns[:, :pairs] = rng.choice(VALUES, (12, pairs))
    columns[0:4, :pairs] = a.ravel()
    columns[4:8, :pairs] = b.ravel()
    random24 = f24_to_f32(rng.integers(0, 1 << 24, (12, 600)).astype(np.uint32))
    columns[:, pairs:pairs + 600] = random24
    columns[:, pairs + 600:] = rng.choice(RANDOM32, (12, 600))
    if precision == "f24":  # f24 registers hold float24 values
        columns = round_f24(columns)
    return columns


def check_lane(opcode, precision, column, value, flags, address):
    want = scalar_recipe(opcode, precision, column)
    if want.value is not None:
        same_bits(value, narrow(np.array(want.value)))
    if want.flags is not None:
        assert tuple(flags.astype(bool)) == tuple(want.flags)
    if want.address is not None:
        assert tuple(address) == tuple(want.address)


@pytest.mark.skipif(not LOOPS_OK, reason="NumPy's inner loops are not callable")
@pytest.mark.parametrize("mode", ["exact", "in range"])
@pytest.mark.parametrize("precision", ["f24", "f32"])
@pytest.mark.parametrize("opcode", ALU, ids=[op.name for op in ALU])
def test_each_recipe_lowered_equals_the_scalar_recipe(opcode, precision, mode):
    """In range: the lanes where every component written is finite (the kernels rerun
    the others exactly); a recipe that is not computed in range is lowered exactly."""
    values = operands(int(opcode) * 2 + (precision == "f32"), precision)
    value, flags, address = lowered(opcode, precision, mode, values)
    in_range = compiled(opcode, precision, mode)[1]
    checked = 0
    for lane in range(values.shape[1]):
        if in_range and not np.isfinite(value[:, lane]).all():
            continue
        checked += 1
        check_lane(opcode, precision, values[:, lane], value[:, lane], flags[:, lane],
                   address[:, lane])
    assert checked == values.shape[1] or (in_range and checked > 200)


def test_the_arithmetic_opcodes_are_computed_in_range():
    """And only those (the in-range and bounded lowerings above apply to them)."""
    for precision in ("f24", "f32"):
        found = {op for op in ALU if compiled(op, precision, "in range")[1]}
        assert found == set(BOUNDED_OPCODES), precision


BOUNDED_OPCODES = [Opcode.ADD, Opcode.MUL, Opcode.MAD, Opcode.DP3, Opcode.DP4, Opcode.DPH,
                   Opcode.DST]


def _bounded_values(rng, n, bounds, opcode):
    """Operands (12 components by n lanes) for components with these bounds, drawn to hit
    the bounded arithmetic's limits: zeros, magnitudes at and just above each
    component's lower bound and just below BOUNDED_HIGH, dot products whose products
    nearly cancel (the second factors of neighbouring products of one sign opposite and
    a few ulps apart), and MAD and ADD whose addend nearly cancels the rest.  Half the
    lanes are float24 values (what f24 registers hold), half plain float32 values with
    more significant bits (which the proof covers too: BOUND_ADDEND is for them)."""
    values = np.zeros((12, n))
    for k, bound in enumerate(bounds):
        low = 2.0 ** -(bound if bound is not None else P.BOUND_ADDEND)
        pick = rng.random(n)
        ulps = 1.0 + rng.integers(0, 8, n) * 2.0**-16
        spread = np.exp2(rng.uniform(np.log2(low), np.log2(P.BOUNDED_HIGH), n))
        high = P.BOUNDED_HIGH * (1 - ulps * 2.0**-17)
        values[k] = np.where(pick < 0.15, 0.0, np.where(
            pick < 0.45, low * ulps, np.where(pick < 0.55, high, spread)))
    values *= rng.choice([-1.0, 1.0], values.shape)
    near = rng.random(n) < 0.4  # products nearly cancelling: a_k = a_0, b_k = -b_0 * (1 + e)
    for k in range(1, 4):
        values[k, near] = values[0, near]
        values[4 + k, near] = -values[4 + k - 1, near] * (
            1.0 + rng.integers(-4, 5, near.sum()) * 2.0**-16)
    close = rng.random(n) < 0.4  # an addend nearly cancelling the product or the other term
    error = 1.0 + rng.integers(-4, 5, (4, close.sum())) * 2.0**-23
    if opcode is Opcode.MAD:
        values[8:12, close] = -values[0:4, close] * values[4:8, close] * error
    elif opcode is Opcode.ADD:
        values[4:8, close] = -values[0:4, close] * error
    plain = values.astype(np.float32)
    rounded = np.asarray(round_f24(plain), np.float32)
    return np.where(rng.random(n) < 0.5, rounded, plain)


@pytest.mark.parametrize("uniform", [(False, False, False), (True, False, False),
                                     (False, True, False), (False, False, True)],
                         ids=["registers", "src1-uniform", "src2-uniform", "src3-uniform"])
@pytest.mark.parametrize("opcode", BOUNDED_OPCODES, ids=[op.name for op in BOUNDED_OPCODES])
def test_bounded_recipes_equal_the_exact_ones_on_bounded_operands(opcode, uniform):
    tree = trace(opcode, 3, FIELDS)
    given = operand_bounds(tree, lambda item: uniform[item.index])
    assert given is not None
    bounds = [given.get(Source(k // 4, k % 4)) for k in range(12)]
    rng = np.random.default_rng(int(opcode) * 8 + sum(k * u for k, u in enumerate(uniform)))
    values = _bounded_values(rng, 4000, bounds, opcode)
    value, _, _ = lowered(opcode, "f24", "bounded", values)
    wide = widen(values)
    kept = 0
    for lane in range(values.shape[1]):
        w = wide[:, lane].tolist()
        if not all(bound is None or P.bounded24(w[k], bound) for k, bound in enumerate(bounds)):
            continue
        kept += 1
        want = recipe_for(opcode)(scalar.F24, w[0:4], w[4:8], w[8:12], FIELDS)
        same_bits(value[:, lane], narrow(np.array(want.value)))
    assert kept > 0.6 * values.shape[1]
