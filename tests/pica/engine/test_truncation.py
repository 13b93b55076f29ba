"""The truncating float24 rounding (``rounding="truncate"``, pica-emulation.md#f24-truncation).

* The rule: ``primitives.trunc24`` (Numba compiling its text, and plain Python on a
  sample) equals a derivation with NumPy bit operations written here (the 36 low
  mantissa bits of the float64 cleared, then float24's range), over every float24
  pattern and half an ulp either side, and random float64 patterns; and the array rule
  ``floats.round_f24(x, "truncate")`` on float32 values.  Values by hand.
* The arithmetic of the mode: the recipes of the bounded opcodes lowered to LLVM IR with
  bounded operands (``tree.operand_bounds``) equal the scalar recipes in both modes.
* The loaders: the LLVM input loader equals ``load_floats`` in both modes.
* Both engines: hand-worked results of ``run(..., rounding=...)``, the compiled kernels
  kept apart by mode, and the option's errors.
"""

from __future__ import annotations

import ctypes
import math

import numpy as np
import pytest
from test_alu_lowering import BOUNDED_OPCODES, _bounded_values
from test_lowering import over_lanes
from test_rules import (
    RANDOM32,
    f24_neighbours,
    f24_patterns,
    numpy_trunc24,
    round24_model,
    same_bits,
)

from gpuisa.errors import InputError
from gpuisa.floats import round_f24
from gpuisa.pica.asm import assemble
from gpuisa.pica.engine import run
from gpuisa.pica.engine.compiled import llvmjit, nativeload, nativerun
from gpuisa.pica.engine.compiled import textir as ir
from gpuisa.pica.engine.compiled.alu import AluLowering
from gpuisa.pica.engine.compiled.irtypes import F32, I8, I64
from gpuisa.pica.engine.compiled.lower import Lowering
from gpuisa.pica.engine.loading import load_floats, precision_of
from gpuisa.pica.engine.reference.values import narrow, widen
from gpuisa.pica.engine.rules import primitives as P
from gpuisa.pica.engine.rules import scalar, tree
from gpuisa.pica.engine.rules.recipes import recipe_for


def plain(rule, x: np.ndarray) -> np.ndarray:
    """The plain-Python rule on each value."""
    return np.array([rule(float(v)) for v in x.tolist()], np.float64)


@pytest.mark.parametrize("offset", ["exact", "tie", "above", "below"])
def test_trunc24_equals_the_numpy_derivation_on_float24_patterns(offset):
    # every 61st pattern (the compiled rule is held to the derivation on all of them:
    # test_lowering)
    for x in f24_neighbours(offset):
        same_bits(plain(P.trunc24, x[::61]), numpy_trunc24(x[::61]))


def test_trunc24_equals_the_numpy_derivation_on_random_float64_patterns():
    x = np.concatenate([np.random.default_rng(7).integers(0, 2**64, 1 << 16, dtype=np.uint64)
                        .view(np.float64), widen(RANDOM32[:20_000])])
    same_bits(plain(P.trunc24, x), numpy_trunc24(x))


def test_trunc24_equals_round_f24_truncating_on_float32_values():
    """round_f24 loads inputs; quiet NaNs only (loading keeps signalling payloads)."""
    for values in (*f24_patterns(3), RANDOM32):
        values = values[~np.isnan(values) | ((values.view(np.uint32) >> 22) & 1 == 1)]
        same_bits(narrow(plain(P.trunc24, widen(values))), round_f24(values, "truncate"))


def test_the_two_roundings_differ_where_the_numpy_derivation_says():
    """A check of the test data: truncation and rounding to nearest disagree on most
    values between float24 neighbours (a test of the mode that never sees them could
    not fail)."""
    for x in f24_neighbours("above"):  # positive values above the tie: nearest rounds up
        finite = np.isfinite(x) & (x > 2.0**-60) & (x < 2.0**63)
        if finite.sum() < 2:  # a chunk of negative patterns (and -0 + 2^-18, not a tie)
            continue
        truncated, nearest = numpy_trunc24(x[finite]), round24_model(x[finite])
        assert (truncated != nearest).mean() > 0.99
        assert (truncated <= x[finite]).all()


def test_trunc24_by_hand():
    largest = (2.0 - 2.0**-16) * 2.0**63
    assert P.trunc24(1.0 + 2.0**-17) == 1.0  # a tie: toward zero
    assert P.trunc24(1.0 + 2.0**-16 - 2.0**-40) == 1.0  # just below the next float24
    assert P.trunc24(-(1.0 + 3 * 2.0**-17)) == -(1.0 + 2.0**-16)
    assert P.trunc24(2.0 - 2.0**-30) == 2.0 - 2.0**-16  # no carry into the exponent
    assert P.trunc24(2.0**64 - 2.0**40) == largest  # nearest even gives infinity here
    assert P.round24(2.0**64 - 2.0**40) == math.inf
    assert P.trunc24(2.0**64) == math.inf and P.trunc24(-1e300) == -math.inf
    assert P.trunc24(2.0**-62 - 2.0**-80) == 0.0  # nearest even rounds up into the range
    assert P.round24(2.0**-62 - 2.0**-80) == 2.0**-62
    assert math.copysign(1.0, P.trunc24(-(2.0**-63))) == 1.0  # +0, never -0
    nan = P.trunc24(P.bits_f64(0xFFF0_0011_0000_0001))  # signalling; bits < 36 dropped
    assert P.f64_bits(nan) == 0xFFF8_0010_0000_0000


def test_the_modes_are_one_table():
    assert {"nearest-even": P.round24, "truncate": P.trunc24} == P.ROUNDINGS
    assert set(scalar.F24_ROUNDED) == set(P.ROUNDINGS)
    assert scalar.ARITHMETIC["f24-truncate"].rounded is P.trunc24
    assert scalar.ARITHMETIC["f24"].rounded is P.round24
    assert precision_of("f24", "truncate") == "f24-truncate"


# -- the bounded arithmetic, lowered to LLVM, in both modes -----------------------------------


def _lowered_recipe(opcode, uniform, rounding):
    """The f24 value of ``opcode``'s recipe lowered bounded (``AluLowering.lower`` with
    ``bounded``) by a Lowering of ``rounding``: ``f(n, values, out)`` over 12 x n
    float32 operands; and the bound of each of the 12 source components (None: unused)."""
    result = tree.trace(opcode, 3, lambda name: 0)
    bounds = tree.operand_bounds(result, lambda s: uniform[s.index])
    module = ir.Module(name=f"bounded_{opcode.name}")
    pointer = I8.as_pointer()
    function = ir.Function(module, ir.FunctionType(ir.VoidType(), [I64, pointer, pointer]),
                           "run")
    n, source, target = function.args
    b = ir.IRBuilder(function.append_basic_block("entry"))
    values = b.bitcast(source, F32.as_pointer())
    out = b.bitcast(target, F32.as_pointer())
    L = Lowering(b, rounding=rounding)
    alu = AluLowering(L, precision_of("f24", rounding), in_range=True)
    assert alu.computes_in_range(result)
    with over_lanes(b, n, 1) as i:

        def read(s):
            row = ir.Constant(I64, 4 * s.index + s.component)
            return b.load(b.gep(values, [b.add(b.mul(row, n), i)]))

        lowered = alu.lower(result, read, bounded=True)
        for k, value in enumerate(lowered.value):
            b.store(L.store24(value), b.gep(out, [b.add(b.mul(ir.Constant(I64, k), n), i)]))
    b.ret_void()
    compiled = llvmjit.compile_kernel(module, signature=_SIGNATURE)
    per_component = [bounds.get(tree.Source(k // 4, k % 4)) for k in range(12)]
    return compiled, per_component


_SIGNATURE = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p)


@pytest.mark.parametrize("rounding", ["nearest-even", "truncate"])
@pytest.mark.parametrize("uniform", [(False, False, False), (True, False, False),
                                     (False, True, False)],
                         ids=["registers", "src1-uniform", "src2-uniform"])
@pytest.mark.parametrize("opcode", BOUNDED_OPCODES, ids=[op.name for op in BOUNDED_OPCODES])
def test_bounded_llvm_recipes_equal_the_scalar_recipes_in_both_modes(opcode, uniform,
                                                                      rounding):
    """primitives.bounded24's lemma holds for truncation too (truncation never raises a
    magnitude, so nothing overflows, and keeps every nonzero multiple of 2^-62 a nonzero
    multiple of 2^-62, so nothing is flushed): the bounded IR of each mode equals the
    scalar recipe of that mode bit for bit on operands drawn at the bounds; the other
    mode's IR does not."""
    compiled, bounds = _lowered_recipe(opcode, uniform, rounding)
    other, _ = _lowered_recipe(opcode, uniform, "truncate" if rounding == "nearest-even"
                               else "nearest-even")
    rng = np.random.default_rng(int(opcode) * 8 + sum(k * u for k, u in enumerate(uniform)))
    values = np.ascontiguousarray(_bounded_values(rng, 4000, bounds, opcode), np.float32)
    n = values.shape[1]
    got, theirs = np.zeros((4, n), np.float32), np.zeros((4, n), np.float32)
    compiled.function(n, values.ctypes.data, got.ctypes.data)
    other.function(n, values.ctypes.data, theirs.ctypes.data)
    m = scalar.F24_ROUNDED[rounding]
    wide = widen(values)
    kept = differing = 0
    for lane in range(n):
        w = wide[:, lane].tolist()
        if not all(bound is None or P.bounded24(w[k], bound) for k, bound in enumerate(bounds)):
            continue
        kept += 1
        want = narrow(np.array(recipe_for(opcode)(m, w[0:4], w[4:8], w[8:12],
                                                  lambda name: 0).value))
        same_bits(got[:, lane], want)
        differing += not np.array_equal(theirs[:, lane].view(np.uint32), want.view(np.uint32))
    assert kept > 0.6 * n
    assert differing > 0.1 * kept


# -- loading ---------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("precision", ["f24", "f24-truncate"])
def test_the_llvm_loader_equals_load_floats(precision, dtype):
    rng = np.random.default_rng(9)
    values = (rng.standard_normal(50_000) * np.exp2(rng.integers(-70, 70, 50_000)))
    values = np.concatenate([values, [0.0, -0.0, np.inf, -np.inf, 2.0**64, 2.0**64 - 2.0**39,
                                      2.0**-62 - 2.0**-80, 1 + 2.0**-17]]).astype(dtype)
    out = np.empty(values.shape, np.float32)
    nativeload.load(values, precision, out)
    want = load_floats(values, precision)
    same_bits(out, want)
    if precision == "f24-truncate":  # the data tells the modes apart
        assert (want != load_floats(values, "f24")).mean() > 0.4
        finite = np.isfinite(want)  # from 2^64 on: infinity, in either mode
        assert (np.abs(want[finite]) <= np.abs(values[finite].astype(np.float64))).all()


# -- runs ------------------------------------------------------------------------------------

_SHADER = assemble([("t.v.pica", """
.out o0 position
.out o1 color
.out o2 texcoord0
.proc main
    mov r0, v0
    add o0, r0, v1
    mul o1, r0, v1
    dp4 o2.x, r0, v1
    mad o2.y, r0.x, v1.x, v1.y
    rcp o2.z, r0.z
    mov o2.w, r0.w
    end
.end
""")])
_U = 2.0**-16  # float24's ulp at 1.0


def _inputs(lanes: int) -> dict[str, np.ndarray]:
    v0 = np.array([1.0, 1.0 + _U, 5.0, 1.0 + 2.0**-17 + 2.0**-20], np.float32)
    v1 = np.array([0.75 * _U, 1.0 + _U, 1.0, -0.25 * _U], np.float32)
    return {"v0": np.tile(v0, (lanes, 1)), "v1": np.tile(v1, (lanes, 1))}


#: Worked by hand (u = 2^-16, float24's ulp in [1, 2); 2u in [2, 4), 4u in [4, 8), u/2 in
#: [0.5, 1)).  Loading: v0.w = 1 + u/2 + u/16 is 1 + u to nearest, 1 truncated.
#: o0 = v0 + v1: x 1 + 0.75u; w (1 + u) - 0.25u = 1 + 0.75u, truncated 1 - 0.25u -> 1 - u/2.
#: o1 = v0 * v1: y (1 + u)^2 = 1 + 2u + u^2 -> 1 + 2u; w -(1 + u) * 0.25u = -(2^-18 + 2^-34),
#: exact (2^-34 is the ulp at 2^-18), truncated -1 * 0.25u = -2^-18.
#: o2.x = DP4(v0, v1), left to right: 0.75u; + (1 + 2u) = 1 + 2.75u -> 1 + 3u (1 + 2u);
#: + 5 = 6 + 3u -> 6 + 4u (6); + -(0.25u + ...) -> 6 + 4u (6 - 0.25u -> 6 - 4u).
#: o2.y = MAD: 0.75u + (1 + u) = 1 + 1.75u -> 1 + 2u (1 + u).  o2.z = RCP(5): 1/5 =
#: 2^-3 * 1.1001 1001 1001 1001 | 1001...: 0x999A to nearest, 0x9999 truncated.
_EXPECTED = {
    "nearest-even": {
        "o0": [1.0 + _U, 2.0 + 2 * _U, 6.0, 1.0 + _U],
        "o1": [0.75 * _U, 1.0 + 2 * _U, 5.0, -(2.0**-18 + 2.0**-34)],
        "o2": [6.0 + 4 * _U, 1.0 + 2 * _U, (1 + 0x999A * _U) / 8, 1.0 + _U],
    },
    "truncate": {
        "o0": [1.0, 2.0 + 2 * _U, 6.0, 1.0 - _U / 2],
        "o1": [0.75 * _U, 1.0 + 2 * _U, 5.0, -(2.0**-18)],
        "o2": [6.0 - 4 * _U, 1.0 + _U, (1 + 0x9999 * _U) / 8, 1.0],
    },
}


@pytest.mark.parametrize("engine", ["reference", "jit"])
@pytest.mark.parametrize("rounding", ["nearest-even", "truncate"])
def test_runs_give_the_hand_worked_results_of_each_mode(monkeypatch, rounding, engine):
    lanes = 3 * 8 + 5  # full vectors of the LLVM kernels and a partial one
    result = run(_SHADER, _inputs(lanes), rounding=rounding, engine=engine)
    assert result.precision == "f24" and result.rounding == rounding
    for name, row in _EXPECTED[rounding].items():
        same_bits(result.outputs[name], np.tile(np.array(row, np.float32), (lanes, 1)))


def test_the_hand_worked_values_tell_the_modes_apart():
    for name in ("o0", "o1", "o2"):
        assert _EXPECTED["nearest-even"][name] != _EXPECTED["truncate"][name]
    assert all(np.float32(v) == v for table in _EXPECTED.values() for row in table.values()
               for v in row)  # every value written exactly


def test_compiled_kernels_are_kept_apart_by_mode(monkeypatch):
    """One program run in both modes in one process: each run gets the kernel of its
    mode (nativerun's key holds it), so each equals the reference engine of its mode."""
    made = []
    real = nativerun.kernel
    monkeypatch.setattr(nativerun, "kernel", lambda *args, **kw: made.append(
        (args[2], real(*args, **kw))) or made[-1][1])
    inputs = _inputs(40)
    for rounding in ("nearest-even", "truncate", "nearest-even"):
        got = run(_SHADER, inputs, rounding=rounding, engine="jit")
        want = run(_SHADER, inputs, rounding=rounding, engine="reference")
        for name in want.outputs:
            same_bits(got.outputs[name], want.outputs[name])
    assert [precision for precision, _ in made] == ["f24", "f24-truncate", "f24"]
    assert made[0][1] is made[2][1] and made[0][1] is not made[1][1]


@pytest.mark.parametrize(("options", "message"), [
    (dict(precision="f32", rounding="truncate"), "rounding='truncate' applies to precision"),
    (dict(rounding="trunc"), "rounding='trunc'.*'nearest-even' or 'truncate'"),
    (dict(rounding=None), "rounding=None"),
])
def test_the_option_is_checked(options, message):
    with pytest.raises(InputError, match=message):
        run(_SHADER, _inputs(1), **options)


def test_f32_accepts_nearest_even_what_float32_does():
    result = run(_SHADER, _inputs(1), precision="f32", rounding="nearest-even")
    assert result.precision == "f32" and result.rounding == "nearest-even"
