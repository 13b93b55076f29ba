"""Loading the caller's values into registers: load_floats, the JIT's loader (an LLVM
kernel, compiled.nativeload), and which engine's loader run() uses.

Expected float24 values come from an exact rounding of the rational value (17
significant bits, ties to even, below 2^-62 -> +0, from 2^64 on -> infinity), written
here independently of gpuisa; NaN patterns are derived by hand from pica-emulation.md#f24-format (a
NaN keeps its sign and the 16 payload bits float24 has, the quiet bit set only if none
survive).
"""

import math
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuisa.errors import InputError
from gpuisa.pica.engine import api, loading


def exact_f24(value: float) -> float:
    if not math.isfinite(value):  # NaN: callers compare finite values only
        return value
    q = Fraction(value)
    if q == 0:
        return 0.0
    sign, a = (-1 if q < 0 else 1), abs(q)
    e = math.floor(math.log2(a))
    while Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    step = Fraction(2) ** (e - 16)
    rounded = round(a / step) * step  # Python rounds half to even
    if rounded >= Fraction(2) ** 64:
        return sign * math.inf
    if rounded < Fraction(2) ** -62:
        return 0.0
    return float(sign * rounded)


def expected_f24(values: np.ndarray) -> np.ndarray:
    flat = [exact_f24(float(v)) for v in np.asarray(values, dtype=np.float64).reshape(-1)]
    return np.array(flat, dtype=np.float32).reshape(np.shape(values))


def bits(x: np.ndarray) -> np.ndarray:
    return np.asarray(x, dtype=np.float32).view(np.uint32)


def test_f24_ties_and_limits_from_float32_and_float64():
    one = 1.0
    values = [one + 2**-17,            # tie between 1 and 1 + 2^-16: even (1.0)
              one + 3 * 2**-17,        # tie: rounds up to the even 1 + 2^-15
              one + 2**-17 + 2**-40,   # just above a tie (float64 only): up
              2.0**-62, 2.0**-62 * (1 - 2**-18), -(2.0**-70), -0.0,
              (2 - 2**-16) * 2.0**63, (2 - 2**-17) * 2.0**63, 2.0**64, -(2.0**70)]
    want = np.array([1.0, one + 2**-15, one + 2**-16, 2.0**-62, 2.0**-62, 0.0, 0.0,
                     (2 - 2**-16) * 2.0**63, math.inf, math.inf, -math.inf], np.float32)
    got64 = loading.load_floats(np.array(values, np.float64), "f24")
    assert bits(got64).tolist() == bits(want).tolist()
    # float32 cannot hold 1 + 2^-17 + 2^-40: its nearest float32 is the tie itself
    got32 = loading.load_floats(np.array(values, np.float32), "f24")
    assert bits(got32).tolist() == bits(expected_f24(np.array(values, np.float32))).tolist()


def test_nan_payloads_and_signs_are_kept():
    patterns = np.array([0x7F800080, 0xFF800080, 0x7F800001, 0x7FC00000, 0x7FFFFFFF],
                        np.uint32)
    # bits 7-22 survive; a NaN whose surviving bits are all zero gets the quiet bit
    want = [0x7F800080, 0xFF800080, 0x7FC00000, 0x7FC00000, 0x7FFFFF80]
    got = loading.load_floats(patterns.view(np.float32).reshape(1, 5), "f24")
    assert bits(got).reshape(-1).tolist() == want


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int32, np.int64, np.float16,
                                   np.float32, np.float64])
def test_every_numeric_dtype_is_rounded_from_its_exact_value(dtype):
    rng = np.random.default_rng(7)
    if np.dtype(dtype).kind == "f":
        values = (rng.standard_normal((50, 4)) * 10.0 ** rng.integers(-5, 6, (50, 4)))
    else:
        info = np.iinfo(dtype)
        values = rng.integers(max(info.min, -(2**40)), min(info.max, 2**40), (50, 4))
    with np.errstate(over="ignore"):  # float16 ends at 65504: larger draws become +-inf,
        values = values.astype(dtype)  # which the conversion must keep as well
    got = loading.load_floats(values, "f24")
    assert bits(got).tolist() == bits(expected_f24(values)).tolist()
    f32 = loading.load_floats(values, "f32")
    assert bits(f32).tolist() == bits(values.astype(np.float32)).tolist()


def test_blocks_of_rows_and_strided_input_give_the_same_values():
    """More rows than one conversion block, read through a strided view, written into
    a strided ``out``: the same as converting each value alone."""
    rng = np.random.default_rng(3)
    rows = 3 * (1 << 14) + 5
    wide = rng.integers(0, 1 << 32, (rows, 8), dtype=np.uint64).astype(np.uint32)
    values = wide.view(np.float32)[:, ::2]
    storage = np.full((rows, 4, 2), 99.0, np.float32)
    out = storage[:, :, 0]
    assert loading.load_floats(values, "f24", out=out) is out
    sample = rng.integers(0, rows, 300)
    finite = np.isfinite(values[sample])
    # the exact oracle takes the finite values only (a signalling NaN pattern would
    # raise NumPy's invalid-value warning when widened to float64)
    assert np.array_equal(bits(out[sample])[finite],
                          bits(expected_f24(values[sample][finite])))
    assert (storage[:, :, 1] == 99.0).all()



@pytest.mark.parametrize("arithmetic", ["f24", "f24-truncate"])
def test_the_jit_loader_rounds_float32_bits_as_load_floats_does(arithmetic):
    """The loader's float32 rule works on float32's bits (Lowering.round24_32): every
    exponent, both signs, and the mantissas where rounding decides (ties below and
    above an even and an odd kept bit, the carry into the next exponent, 0 and the
    largest), against load_floats."""
    from gpuisa.pica.engine.compiled import runner as jit

    mantissas = np.array([0, 1, 0x3F, 0x40, 0x41, 0x7F, 0x80, 0xBF, 0xC0, 0xC1,
                          0x7FFF3F, 0x7FFF40, 0x7FFFBF, 0x7FFFC0, 0x7FFFFF], np.uint32)
    exponents = np.arange(255, dtype=np.uint32) << 23  # not 255: infinities and NaNs
    patterns = (exponents[:, None] | mantissas[None, :]).reshape(-1)
    patterns = np.concatenate([patterns, patterns | np.uint32(0x80000000),
                               np.array([0x7F800000, 0xFF800000], np.uint32)])
    values = np.resize(patterns, (-(-patterns.size // 4) * 4,)).reshape(-1, 4)
    values = np.ascontiguousarray(values).view(np.float32)
    out = np.empty_like(values)
    jit.load_jit(values, arithmetic, out)
    assert np.array_equal(bits(out), bits(loading.load_floats(values, arithmetic)))


@pytest.mark.parametrize("arithmetic", ["f24", "f24-truncate"])
@pytest.mark.parametrize("contiguous", [True, False])  # the kernel, or load_floats
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_jit_loader_equals_load_floats_bit_for_bit(dtype, contiguous, arithmetic):
    from gpuisa.pica.engine.compiled import runner as jit

    rng = np.random.default_rng(11)
    rows = 70_000  # two threads' worth
    if dtype == np.float32:
        raw = rng.integers(0, 1 << 32, (rows, 4), dtype=np.uint64).astype(np.uint32)
        special = np.array([0, 0x80000000, 1, 0x7F800000, 0xFF800000, 0x7F800001,
                            0xFF800080, 0x7FC00000, 0x1F800000, 0x5F7FFFC0, 0x5F7FFFBF],
                           np.uint32)
        raw[:len(special), 0] = special
        values = raw.view(np.float32)
    else:
        raw = rng.integers(0, 1 << 64, (rows, 4), dtype=np.uint64)
        raw[:, 1] = (raw[:, 1] & np.uint64(0x800FFFFFFFFFFFFF)) | np.uint64((1023 + 3) << 52)
        values = raw.view(np.float64)
    if not contiguous:
        values = values[:, ::-1]
    out = np.empty((rows, 4), np.float32)
    jit.load_jit(values, arithmetic, out)
    want = loading.load_floats(values, arithmetic)
    assert np.array_equal(bits(out), bits(want))


def test_run_uses_the_loader_of_the_engine_it_picks(monkeypatch):
    calls = []

    def loader(values, precision, out):
        calls.append(values.shape)
        loading.load_floats(values, precision, out)

    monkeypatch.setitem(api.ENGINES, "spy", api.ENGINES["reference"])
    monkeypatch.setitem(api.LOADERS, "spy", loader)
    from gpuisa.pica import Program
    from gpuisa.pica.encoding import Instruction, encode

    program = Program([encode(Instruction.make("end"))], [])
    inputs = {"v0": np.ones((3, 4)), "v1": [1.0, 2.0, 3.0, 4.0]}
    api.run(program, inputs, engine="spy", registers=True)
    assert calls == [(3, 4)]  # a single row for every vertex is converted once, directly
    api.run(program, inputs, engine="reference", registers=True)
    assert calls == [(3, 4)]


def test_the_compiled_engine_without_llvmlite_says_how_to_get_it(monkeypatch):
    monkeypatch.setattr(api, "COMPILED", ("turbo", "gpuisa.no_such_module"))
    with pytest.raises(InputError, match=r"engine 'turbo' needs llvmlite, which is not "
                                         r"installed \(pip install llvmlite\)"):
        api.choose_engine("turbo", 10)
    with pytest.raises(InputError, match=r"unknown engine 'nope' \(available: auto, "
                                         r"reference"):
        api.choose_engine("nope", 10)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False, width=64), min_size=1,
                max_size=20))
def test_loading_float64_values_rounds_once(values):
    got = loading.load_floats(np.array(values), "f24")
    assert bits(got).tolist() == bits(expected_f24(np.array(values))).tolist()


def test_engine_jit_works_without_importing_its_module_first():
    code = ("import numpy as np\n"
            "from gpuisa.pica import Program, run\n"
            "from gpuisa.pica.encoding import Instruction, encode\n"
            "p = Program([encode(Instruction.make('end'))], [])\n"
            "print(run(p, {'v0': np.ones((2, 4))}, engine='jit', registers=True).steps.tolist())\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[1, 1]"


def test_small_runs_do_not_import_llvm():
    """engine="auto" on a few vertices asks whether the JIT already has the kernel; that
    question must not import LLVM (llvmlite and setting LLVM up for this CPU cost more
    than a 10-vertex run)."""
    import subprocess
    import sys

    code = ("import sys, numpy as np\n"
            "from gpuisa.pica import Program, run\n"
            "run(Program((0x4C000000, 0x88000000), (0x0006C36F,)), {'v0': np.ones((10, 4))})\n"
            "print('llvmlite' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=True)
    assert done.stdout.strip() == "False"


@pytest.mark.parametrize("precision", ["f24", "f32"])
def test_uniforms_converted_together_are_each_converted_from_their_own_value(precision):
    """run() converts all float uniforms of a call at once: each register still gets
    the rounding of its own exact value and dtype (a float64 just above a float24 tie,
    the float32 nearest to it, which is the tie, integers, a NaN with a payload), and
    F24Bits patterns stay as given."""
    from gpuisa.pica.engine.values import F24Bits, uniform_values

    above_tie = 1.0 + 2**-17 + 2**-40
    nan = np.array([0x7F800080], np.uint32).view(np.float32)[0]
    given = {"c0": np.full(4, above_tie), "c1": np.full(4, above_tie, np.float32),
             "c2": np.array([3, -7, 2**30 + 1, 0], np.int64),
             "c3": np.array([nan, 1.5, -2.0, 0.25], np.float32),
             "c4": F24Bits([0x3F0000, 0x400000, 0xBF0000, 0]),
             "c5": [5.0, 6.0, 7.0, -above_tie]}
    got = {f"c{number}": value for _, number, value in uniform_values(given, None,
                                                                      precision)}
    assert sorted(got) == ["c0", "c1", "c2", "c3", "c4", "c5"]
    for name in ("c0", "c1", "c2", "c5"):
        raw = np.asarray(given[name])
        want = expected_f24(raw) if precision == "f24" else raw.astype(np.float32)
        assert bits(got[name]).tolist() == bits(want).tolist(), name
    assert bits(got["c0"]).tolist() != bits(got["c1"]).tolist() or precision == "f32"
    assert bits(got["c3"]).tolist()[0] == 0x7F800080
    assert got["c4"].tolist() == [1.0, 2.0, -1.0, 0.0]


def test_repeated_uniforms_are_converted_once_and_kept_read_only(monkeypatch):
    """The same uniform values (same dtype, bytes and precision) are converted once;
    other values, another dtype or precision are converted anew; what is kept cannot be
    written through the rows handed out."""
    from gpuisa.pica.engine import values

    calls = []
    original = values.load_floats

    def counting(array, precision):
        calls.append((array.dtype.str, precision))
        return original(array, precision)

    monkeypatch.setattr(values, "load_floats", counting)
    monkeypatch.setattr(values, "_CONVERTED", type(values._CONVERTED)())
    third = [0.1, 0.2, 0.3, 1 / 3]
    first = values.uniform_values({"c0": third}, None, "f24")[0][2]
    again = values.uniform_values({"c0": list(third)}, None, "f24")[0][2]
    assert len(calls) == 1 and bits(first).tolist() == bits(again).tolist()
    assert bits(first).tolist() == bits(expected_f24(np.array(third))).tolist()
    values.uniform_values({"c0": third}, None, "f32")
    values.uniform_values({"c0": np.array(third, np.float32)}, None, "f24")
    values.uniform_values({"c0": [0.1, 0.2, 0.3, 0.5]}, None, "f24")
    assert len(calls) == 4
    with pytest.raises(ValueError):
        first[0] = 5.0
