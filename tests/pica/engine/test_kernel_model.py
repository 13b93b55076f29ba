"""The rules of :mod:`kernel_model` (what the differential test runs kernel text with) equal
the compiled rules the kernels call, bit for bit.

Each entry of ``kernel_model.RULES`` is evaluated in Python and compiled code
(``intrinsics.<name>`` in one Numba function, arguments of the types kernels pass) on
special values (zeros, subnormals, infinities, quiet and signalling NaNs of both signs),
all their pairs, float24 patterns, random float32 and float64 patterns, and the products
and sums of working values that reach the roundings.  An in-range rule is compared with
its contract: the same bits where the compiled result is finite, and not finite where it
is not.
"""

import math

import numpy as np
import pytest

pytest.importorskip("numba")

import kernel_model as M
from numba import njit

from gpuisa.floats import f24_to_f32
from gpuisa.pica.engine.compiled import intrinsics
from gpuisa.pica.engine.reference.values import narrow as values_narrow
from gpuisa.pica.engine.reference.values import widen as values_widen
from gpuisa.pica.engine.rules import primitives as P

#: The bounds the kernels pass to unbounded24 (codegen.operand_bounds).
BOUNDS = sorted({P.BOUND_UNIFORM, P.BOUND_FACTOR, P.PRODUCT_BOUND - P.BOUND_UNIFORM,
                 P.PRODUCT_BOUND - P.BOUND_FACTOR, P.BOUND_ADDEND, P.PRODUCT_BOUND})
#: (rule, argument types (kN: the integer constant N), result type, in range)
TABLE = [
    ("work24", "32", "64", False),
    ("store", "64", "32", False),
    ("round24", "64", "64", False),
    ("mul64", "64 64", "64", False),
    ("add64", "64 64", "64", False),
    ("negate24", "32", "32", False),
    ("negate32", "32", "32", False),
    ("mul32", "32 32", "32", False),
    ("add32", "32 32", "32", False),
    ("pica_max", "32 32", "32", False),
    ("pica_min", "32 32", "32", False),
    ("sge", "32 32", "32", False),
    ("slt", "32 32", "32", False),
    ("rcp24", "32", "32", False),
    ("rsq24", "32", "32", False),
    ("flr24", "32", "32", False),
    ("rcp32", "32", "32", False),
    ("rsq32", "32", "32", False),
    ("flr32", "32", "32", False),
    ("ex2_24", "32 scratch", "32", False),
    ("lg2_24", "32 scratch", "32", False),
    ("ex2_f32", "32 scratch", "32", False),
    ("lg2_f32", "32 scratch", "32", False),
    ("round24_in_range", "64", "64", True),
    ("mul64_in_range", "64 64", "64", True),
    ("add64_in_range", "64 64", "64", True),
    ("mul32_in_range", "32 32", "32", True),
    ("add32_in_range", "32 32", "32", True),
    ("nonfinite32", "32", "8", False),
    ("round24_bounded", "64", "64", False),
    *(("unbounded24", f"32 k{k}", "8", False) for k in BOUNDS),
]
#: Entries that are the compiled code's own objects (the primitives' text, which Numba
#: compiles as it is), and what the model does without: constants and EX2/LG2's buffers.
SAME_OBJECT = ["compare", "relative_row", "address_from_float"]
OTHER = ["ZERO32", "ONE32", "make_scratch"]

SPECIAL = np.concatenate([
    np.array([0.0, -0.0, np.inf, -np.inf, 1.0, -1.0, 0.5, 3.0, -3.5, 1e-40, -1e-45,
              2.0**-62, -(2.0**-63), 1.5 * 2.0**-62, 2.0**63, 2.0**64, -3.4e38, 127.99609375,
              128.0, -129.0, 1e20, 0.1], np.float32),
    # the bounded arithmetic's limits (primitives.bounded24), and their neighbours
    *(np.array([bound, -np.nextafter(bound, np.float32(0))], np.float32)
      for bound in [np.float32(2.0**-k) for k in BOUNDS] + [np.float32(2.0**30)]),
    np.array([0x7FC00000, 0xFFC00000, 0x7F800080, 0xFFA00001, 0x7FC12300, 0xFFBFFF80],
             np.uint32).view(np.float32)])


def _float32_columns(n: int = 6000) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(23)
    a, b = (x.ravel() for x in np.meshgrid(SPECIAL, SPECIAL))
    f24 = f24_to_f32(rng.integers(0, 1 << 24, (2, n)).astype(np.uint32))
    random = rng.integers(0, 1 << 32, (2, n), dtype=np.uint64).astype(np.uint32).view(
        np.float32)
    return (np.concatenate([a, f24[0], random[0]]), np.concatenate([b, f24[1], random[1]]))


def _float64_columns(a32: np.ndarray, b32: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """As many pairs as ``a32`` has: values next to the float24 limits, random float64
    patterns, and the rest drawn from the products and sums of the working values
    (f24-flushed registers) of ``a32`` and ``b32``: what reaches a rounding."""
    work = np.array([P.flush24(M.widen(x)) for x in a32])
    other = np.array([P.flush24(M.widen(x)) for x in b32])
    with np.errstate(all="ignore"):
        reached = np.concatenate([work * other, work + other])
    limits = np.array([2.0**64, 2.0**64 - 2.0**46, 2.0**64 - 2.0**47, 2.0**-62,
                       2.0**-62 - 2.0**-80, 2.0**-63, 1 + 2.0**-17, 1 + 3 * 2.0**-17])
    rng = np.random.default_rng(29)
    random = rng.integers(0, 2**64, (2, 4000), dtype=np.uint64)
    # Quiet NaNs only: every float64 value of a kernel is a working value (float32 ->
    # float64 quiets) or a result computed from them; mul64 and add64 rely on that.
    random = np.where((random & np.uint64(0x7FF0000000000000)) == np.uint64(0x7FF0000000000000),
                      random | np.uint64(1 << 51), random).view(np.float64)
    drawn = rng.choice(reached.size, (2, a32.size - random.shape[1] - 2 * limits.size),
                       replace=False)
    return (np.concatenate([limits, -limits, random[0], reached[drawn[0]]]),
            np.concatenate([-limits, limits, random[1], reached[drawn[1]]]))


def _compiled_source() -> str:
    lines = ["def rules(a32, b32, a64, b64, natives, out32, out64, out8):",
             "    scratch = R.make_scratch(natives)",
             "    for i in range(a32.size):"]
    for row, (name, arguments, result, _) in enumerate(TABLE):
        given = {"32": ["a32[i]", "b32[i]"], "64": ["a64[i]", "b64[i]"]}
        args = []
        for kind in arguments.split():
            args.append("scratch" if kind == "scratch" else kind[1:] if kind[0] == "k"
                        else given[kind].pop(0))
        lines.append(f"        out{result}[{row}, i] = R.{name}({', '.join(args)})")
    return "\n".join(lines)


def _modelled(name, arguments, a32, b32, a64, b64):
    rule = getattr(M.RULES, name)
    given = {"32": [a32, b32], "64": [a64, b64]}
    columns = [None if kind == "scratch" else [int(kind[1:])] * a32.size if kind[0] == "k"
               else given[kind].pop(0) for kind in arguments.split()]
    with np.errstate(all="ignore"):
        return [rule(*(None if c is None else c[i] for c in columns)) for i in range(a32.size)]


def test_the_table_names_every_rule_of_the_model():
    modelled = set(vars(M.RULES))
    assert modelled == {row[0] for row in TABLE} | set(SAME_OBJECT) | set(OTHER)
    for name in modelled:
        assert hasattr(intrinsics, name), name  # the kernels' R.<name> exists
    for name in SAME_OBJECT:
        assert getattr(M.RULES, name) is getattr(intrinsics, name)


def test_each_modelled_rule_equals_the_compiled_rule():
    a32, b32 = _float32_columns()
    a64, b64 = _float64_columns(a32, b32)
    count = a32.size
    assert a64.size == count
    namespace = {"np": np, "R": intrinsics}
    exec(_compiled_source(), namespace)
    rules = njit(error_model="numpy")(namespace["rules"])
    out = {"32": np.zeros((len(TABLE), count), np.float32),
           "64": np.zeros((len(TABLE), count), np.float64),
           "8": np.zeros((len(TABLE), count), np.int8)}
    rules(a32, b32, a64, b64, intrinsics.NATIVE_LOOPS, out["32"], out["64"], out["8"])
    for row, (name, arguments, result, in_range) in enumerate(TABLE):
        if "scratch" in arguments and not intrinsics.UFUNC_LOOPS_OK:
            continue
        want = out[result][row]
        got = np.array(_modelled(name, arguments, a32, b32, a64, b64), want.dtype)
        if in_range:
            finite = np.isfinite(want)
            assert np.array_equal(finite, np.isfinite(got)), name
            want, got = want[finite], got[finite]
        bits = f"u{want.itemsize}"
        bad = np.flatnonzero(want.view(bits) != got.view(bits))
        assert bad.size == 0, (name, [(hex(int(want.view(bits)[i])),
                                       hex(int(got.view(bits)[i]))) for i in bad[:4]])


def test_widen_and_narrow_keep_every_nan_payload():
    """And give what their array twins in reference.values give."""
    values = np.array([0x7F800001, 0xFF800001, 0x7FBFFFFF, 0x7FC00000, 0xFFFFFFFF, 0x3F800000,
                       0x80000000, 0x00000001], np.uint32).view(np.float32)
    wide_all = values_widen(values)
    for k, x in enumerate(values):
        wide = M.widen(x)
        assert P.f64_bits(wide) == int(wide_all.view(np.uint64)[k])  # its array twin
        assert values_narrow(np.array([wide]))[0].view(np.uint32) == x.view(np.uint32)
        assert M.narrow(wide).view(np.uint32) == x.view(np.uint32)
        if x != x:
            assert math.isnan(wide)
            assert (P.f64_bits(wide) >> 29) & 0x7FFFFF == int(x.view(np.uint32)) & 0x7FFFFF
