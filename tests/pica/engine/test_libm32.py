"""f32 EX2/LG2 are correctly rounded (``rules.libm32``): checked against an oracle of this
file (exact values from ``fractions`` and ``decimal`` at 80 digits, the nearest float32
found by exact comparison), over random and special inputs, with the exact path forced
for every input, and at the boundaries where rounding a float64 value would go wrong."""

from __future__ import annotations

import decimal
import math
from fractions import Fraction

import numpy as np
import pytest

from gpuisa.pica.engine.rules import libm32

_CONTEXT = decimal.Context(prec=80)
_LN2 = _CONTEXT.ln(2)
_BIG = Fraction(2) ** 128 - Fraction(2) ** 103  # halfway between FLT_MAX and 2^128


def _nearest_f32(exact: Fraction) -> float:
    """The float32 nearest ``exact``, ties to even, found among neighbours by exact
    comparison with Fractions."""
    if abs(exact) >= _BIG:
        return math.copysign(math.inf, exact)
    guess = np.float32(float(exact))
    candidates = {guess, np.nextafter(guess, np.float32(np.inf)),
                  np.nextafter(guess, np.float32(-np.inf))}
    candidates = [c for c in candidates if math.isfinite(c)]

    def distance(c: np.float32) -> tuple[Fraction, int]:
        return abs(Fraction(float(c)) - exact), int(c.view(np.uint32)) & 1

    return float(min(candidates, key=distance))


def _exp2(x: float) -> float:
    if x == int(x):
        return _nearest_f32(Fraction(2) ** int(x))
    value = _CONTEXT.exp(_CONTEXT.multiply(decimal.Decimal(x), _LN2))
    return _nearest_f32(Fraction(value))


def _log2(x: float) -> float:
    mantissa, exponent = math.frexp(x)
    if mantissa == 0.5:
        return float(exponent - 1)
    value = _CONTEXT.divide(_CONTEXT.ln(decimal.Decimal(x)), _LN2)
    return _nearest_f32(Fraction(value))


def _inputs(rng: np.random.Generator) -> np.ndarray:
    special = [0.5, -0.5, 1.0, -1.0, 3.0, 0.1, -0.1, 127.0, 127.5, 127.99999, 128.0,
               -126.0, -149.0, -149.5, -150.0, -151.0, 1e-8, -1e-8, 2.0**-20]
    return np.concatenate([special, rng.uniform(-150, 128, 1500),
                           rng.uniform(-1, 1, 300)]).astype(np.float32)


def _positive(rng: np.random.Generator) -> np.ndarray:
    special = [1.0, 2.0, 0.5, 3.0, 1.0 + 2.0**-23, 1.0 - 2.0**-24, 2.0**-149, 2.0**-126,
               float(np.finfo(np.float32).max), 10.0, 0.1]
    return np.concatenate([special, np.exp2(rng.uniform(-149, 128, 1500)),
                           rng.uniform(0.5, 2, 300)]).astype(np.float32)


def test_ex2_is_correctly_rounded():
    for x in _inputs(np.random.default_rng(1)):
        assert libm32.ex2_32(float(x)) == _exp2(float(x)), x


def test_lg2_is_correctly_rounded():
    for x in _positive(np.random.default_rng(2)):
        assert libm32.lg2_32(float(x)) == _log2(float(x)), x


def test_the_exact_path_gives_the_same_values(monkeypatch):
    # every input decided by decimal arithmetic, as only boundary cases are normally
    monkeypatch.setattr(libm32, "TOLERANCE", 1.0)
    rng = np.random.default_rng(3)
    for x in _inputs(rng)[:300]:
        assert libm32.ex2_32(float(x)) == _exp2(float(x)), x
    for x in _positive(rng)[:300]:
        assert libm32.lg2_32(float(x)) == _log2(float(x)), x


def test_special_values():
    assert libm32.ex2_32(-math.inf) == 0.0 and libm32.ex2_32(math.inf) == math.inf
    assert libm32.ex2_32(128.0) == math.inf  # 2^128 is beyond the largest float32
    assert libm32.ex2_32(-150.0) == 0.0  # 2^-150: halfway to 2^-149, ties to even (0)
    assert libm32.ex2_32(-149.0) == 2.0**-149
    assert libm32.lg2_32(0.0) == -math.inf and libm32.lg2_32(-0.0) == -math.inf
    assert math.isnan(libm32.lg2_32(-1.0)) and libm32.lg2_32(math.inf) == math.inf
    assert libm32.lg2_32(2.0**-149) == -149.0
    for unit in (libm32.ex2_32, libm32.lg2_32):
        assert math.isnan(unit(math.nan))


def test_values_near_a_boundary_are_ambiguous():
    one = 1.0
    step = 2.0**-23  # float32 spacing above 1
    middle = one + step / 2
    assert libm32.ambiguous(middle) and libm32.ambiguous(middle + 2.0**-60)
    assert not libm32.ambiguous(one) and not libm32.ambiguous(one + step / 4)
    assert libm32.ambiguous(float(_BIG)) and not libm32.ambiguous(2.0**127)
    assert not libm32.ambiguous(0.0) and not libm32.ambiguous(math.inf)


def _decimal(exact: Fraction) -> decimal.Decimal:
    """``exact`` as a Decimal: exactly when it is a float64 value, else to 80 digits."""
    if Fraction(float(exact)) == exact:
        return decimal.Decimal(float(exact))
    return _CONTEXT.divide(decimal.Decimal(exact.numerator), decimal.Decimal(exact.denominator))


@pytest.mark.parametrize(("exact", "expected"), [
    (Fraction(1) + Fraction(1, 2**24), 1.0),  # tie: 1.0 is even
    (Fraction(1) + Fraction(3, 2**24), 1.0 + 2.0**-22),  # tie between odd and even
    (Fraction(1) + Fraction(1, 2**24) + Fraction(1, 10**40), 1.0 + 2.0**-23),
    (Fraction(1) + Fraction(1, 2**24) - Fraction(1, 10**40), 1.0),
    (-(Fraction(1) + Fraction(1, 2**24) + Fraction(1, 10**40)), -(1.0 + 2.0**-23)),
    (_BIG, math.inf), (_BIG - Fraction(1, 10**30), float(np.finfo(np.float32).max)),
    (Fraction(3, 2**150), 2.0**-148),  # 1.5 least subnormals: ties to even
])
def test_rounding_an_exact_value(exact, expected):
    assert libm32.round_decimal(_decimal(exact)) == expected


def test_numpys_float32_loop_is_not_the_rule():
    # why f32 mode no longer calls NumPy's float32 exp2: it is off by an ulp on many
    # inputs (about one in five over the exponent range)
    xs = _inputs(np.random.default_rng(4))
    with np.errstate(all="ignore"):
        differ = sum(float(np.exp2(x)) != _exp2(float(x)) for x in xs)
    assert differ > len(xs) // 20


def test_the_compiled_engine_hands_boundary_lanes_to_the_reference_engine(tmp_path,
                                                                          monkeypatch):
    # With every value "near a boundary", every EX2/LG2 lane of an LLVM kernel must be
    # decided by the reference engine (which then takes the exact path).
    from engine_kit import Asm

    from gpuisa.pica.engine import run
    from gpuisa.pica.engine.compiled import nativerun, runner

    monkeypatch.setenv("GPUISA_JIT_CACHE", str(tmp_path))  # no kernel of another tolerance
    monkeypatch.setattr(nativerun, "_current", {})
    monkeypatch.setattr(nativerun._kernels, "_items", type(nativerun._kernels._items)())
    monkeypatch.setattr(libm32, "TOLERANCE", 1.0)
    handed = []
    original = runner.run_lane
    monkeypatch.setattr(runner, "run_lane", lambda *a, **k: handed.append(a[3]) or
                        original(*a, **k))
    a = Asm()
    a.op("ex2", "o0", "v0")
    a.op("lg2", "o1", "v0")
    a.end()
    xs = np.array([[0.3, 1, 1, 1], [1.7, 1, 1, 1], [-2.25, 1, 1, 1]] * 4, np.float32)
    result = run(a.program(), {"v0": xs}, precision="f32", engine="jit")
    assert sorted(handed) == list(range(len(xs)))
    assert [float(v) for v in result.outputs["o0"][:3, 0]] == [
        _exp2(float(x)) for x in xs[:3, 0]]
    assert float(result.outputs["o1"][1, 0]) == _log2(float(np.float32(1.7)))
