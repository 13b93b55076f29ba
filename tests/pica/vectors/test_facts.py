"""``seed`` and ``hardware`` cases against values derived here from the cited tables.

The ``seed`` rows are parsed from a verbatim copy of 3dbrew's "Floating-Point Behavior"
table kept in data/ (its header names the page and revision); float24 patterns are written
by hand from the format (sign bit 23, exponent bits 16-22 with bias 63, 16 mantissa bits)."""

from pathlib import Path

import pytest

from gpuisa.pica.vectors.model import HARDWARE, MODEL, SEED

FP_TABLE = Path(__file__).parent / "data" / "3dbrew-floating-point-behavior.txt"
INF, NINF, ZERO = 0x7F0000, 0xFF0000, 0x000000
NAN = "nan"
#: 3dbrew's result words -> float24 pattern (s = largest subnormal, 0x00FFFF).
RESULTS = {"0": ZERO, "+inf": INF, "-inf": NINF, "NaN": NAN, "s": 0x00FFFF, "false": "false"}


def f24(value):
    """A float24 pattern by hand: value = m * 2^e with 1 <= m < 2."""
    if value == 0:
        return 0
    sign = 0x800000 if value < 0 else 0
    value = abs(value)
    e = 0
    while value >= 2:
        value /= 2
        e += 1
    while value < 1:
        value *= 2
        e -= 1
    mantissa = (value - 1) * 65536
    assert mantissa == int(mantissa)
    return sign | (e + 63) << 16 | int(mantissa)


def is_nan24(p):
    return (p >> 16) & 0x7F == 0x7F and p & 0xFFFF


def seed_rows():
    text = FP_TABLE.read_text(encoding="utf-8")
    table = text.split("Computation | Result | Notes |")[1].split("1.0 can be multiplied")[0]
    rows = []
    for line in table.splitlines():
        parts = [p.strip() for p in line.split("|")]
        if len(parts) >= 2 and parts[0] and not parts[0].startswith("---"):
            rows.append((parts[0], parts[1]))
    return rows


def test_the_3dbrew_table_has_27_rows():
    assert len(seed_rows()) == 27


@pytest.mark.parametrize("row,result", seed_rows())
def test_every_seed_row_is_a_seed_case_with_the_tables_value(suite, row, result):
    cases = [c for c in suite if c.provenance.kind == SEED
             and f"row '{row}'" in c.provenance.source]
    assert cases, f"no seed case for row {row!r}"
    expected = RESULTS[result]
    if row == "max(0, -inf)":
        # pica-emulation.md#min-max: hardware tests show max(0, -inf) = 0
        assert "overridden by hardware" in cases[0].provenance.source
        expected = ZERO
    for case in cases:
        got = case.expected["f24"]
        if expected == "false":
            assert got.cmp == (False, False)
            assert dict(got.outputs)["o0"] == (ZERO,) * 4  # the program writes c1 = 0.0
        elif expected == NAN:
            assert all(is_nan24(p) for p in dict(got.outputs)["o0"])
        else:
            assert dict(got.outputs)["o0"] == (expected,) * 4


def test_halving_one_63_times_gives_zero(by_id):
    ids = [i for i in by_id if i.startswith("seed/halve-1.0-")]
    values = {i: dict(by_id[i].expected["f24"].outputs)["o0"][0] for i in ids}
    assert values == {"seed/halve-1.0-62-times": f24(2.0 ** -62), "seed/halve-1.0-63-times": 0}
    # float32 keeps going: 2^-63 is still a normal float32 (0x20000000)
    assert dict(by_id["seed/halve-1.0-63-times"].expected["f32"].outputs)["o0"][0] == 0x20000000


#: The rules of pica-emulation.md the hardware cases below come under.
MUL = "pica-emulation.md#mul"
MIN_MAX = "pica-emulation.md#min-max"
SCALAR = "pica-emulation.md#scalar-units"
COMPARE = "pica-emulation.md#compare"
MOVA = "pica-emulation.md#flr-mov-mova"
RELATIVE = "pica-emulation.md#relative"

# (case id, register, float24 x component derived by hand, its rule in pica-emulation.md);
# whether each is a hardware case is audited in test_provenance.py
FACT_VALUES = [
    ("hw/mul/inf-times-0", "o0", ZERO, MUL),
    ("model/mul/0-times-minus-inf", "o0", ZERO, MUL),
    ("model/mul/inf-times-minus-inf", "o0", NINF, MUL),
    ("hw/mul/nan-times-0", "o0", NAN, MUL),
    ("model/dp4/inf-times-0-lane-x", "o0", f24(3.0), MUL),
    ("hw/mad/inf-times-0-plus-1", "o0", f24(1.0), MUL),
    ("hw/max/0-ninf", "o0", ZERO, MIN_MAX),
    ("hw/max/nan-0", "o0", ZERO, MIN_MAX),
    ("hw/max/0-nan", "o0", NAN, MIN_MAX),
    ("hw/min/0-ninf", "o0", NINF, MIN_MAX),
    ("model/max/subnormal-0", "o0", 0x00FFFF, MIN_MAX),
    ("hw/rcp/pinf", "o0", ZERO, SCALAR),
    ("hw/rsq/0", "o0", INF, SCALAR),
    ("hw/rcp-tests/use-only-first-component", "o0", f24(1.0), SCALAR),  # x is 1.0
    ("seed/ex2/ninf", "o0", ZERO, SCALAR),
    ("seed/ex2/overflow", "o0", INF, SCALAR),  # ex2(64) = 2^64 is above the float24 range
    ("seed/lg2/n0", "o0", NINF, SCALAR),
    ("seed/lg2/negative", "o0", NAN, SCALAR),
    ("hw/sge/nan-0", "o0", ZERO, COMPARE),
    ("hw/slti/0-nan", "o0", ZERO, COMPARE),
    ("model/dphi/w-replaced", "o0", f24(1 + 2 + 3 + 4.0), MUL),
    ("model/litp/clamps-y-high", "o0", f24(2.0), COMPARE),
    ("hw/mova/0.9-truncates-to-0", "o0", f24(1.0), MOVA),  # c0 = 1.0, c1 = 2.0
    ("model/relative/in-range", "o0", f24(13.0), RELATIVE),  # c[10 + 3]
    ("model/relative/in-range", "o1", f24(6.0), RELATIVE),  # c[10 - 4]
    ("model/relative/below-minus-128-is-0", "o0", f24(10.0), RELATIVE),
    ("model/relative/above-127-is-0", "o0", f24(10.0), RELATIVE),
    ("model/relative/wraps-to-c0", "o0", ZERO, RELATIVE),  # (10 + 118) & 0x7F = 0
    ("model/relative/beyond-c95-reads-1.0", "o0", f24(1.0), RELATIVE),  # c96
    ("model/relative/edge-127", "o0", f24(9.0), RELATIVE),  # (10 + 127) & 0x7F = 9
    ("model/relative/edge-127", "o1", f24(10.0), RELATIVE),  # (10 - 128) & 0x7F = 10
    ("model/mad-encoding/relative-wide-operand", "o0", f24(2.0 * 6 + 3), RELATIVE),  # c5 = 6
    ("model/mad-encoding/relative-wide-operand", "o1", f24(2.0 * 3 + 6), RELATIVE),
]


@pytest.mark.parametrize("ident,register,value,rule", FACT_VALUES)
def test_fact_cases_match_the_reference_page(by_id, ident, register, value, rule):
    case = by_id[ident]
    assert rule in case.provenance.source
    x = dict(case.expected["f24"].outputs)[register][0]
    if value == NAN:
        assert is_nan24(x)
    else:
        assert x == value, hex(x)


def test_litp_clamps_to_0x7fff_over_256_and_sets_flags(by_id):
    out = dict(by_id["model/litp/clamps-y-low"].expected["f24"].outputs)
    # (-2, -200, 5, -3) -> (max(x, 0), clamp(y), 0, max(w, 0)); cmp.x = x >= 0, cmp.y = w >= 0
    assert out["o0"] == (0, f24(-0x7FFF / 0x100), 0, 0)
    assert out["o1"] == (0,) * 4 and out["o2"] == (0,) * 4
    assert by_id["model/litp/clamps-y-high"].expected["f24"].cmp == (True, True)


def test_output_banking_third_emit_sees_the_first_value(by_id):
    vertices = by_id["model/gs-banking/third-emit-sees-first-value"].expected["f24"].vertices
    assert [v[0][0] for v in vertices] == [f24(1.0), f24(2.0), f24(1.0)]


#: Every hardware fact of pica-emulation.md (by rule) and the test program its cases cite.
HARDWARE_FACTS = [
    ("pica-emulation.md#mul", "fp-tests"), ("pica-emulation.md#min-max", "fp-tests"),
    ("pica-emulation.md#scalar-units", "rcp-tests"),
    ("pica-emulation.md#scalar-units", "ex2-tests"),
    ("pica-emulation.md#compare", "fp-tests"), ("pica-emulation.md#compare", "PICA_LITP"),
    ("pica-emulation.md#flr-mov-mova", "mova-tests"), ("pica-emulation.md#mul", "dph-tests"),
]
#: Facts reported as hardware-verified with no public program feeding the cases' inputs:
#: model cases that cite the rule and the report.
REPORTED_FACTS = [
    ("pica-emulation.md#relative", "relative addressing"),
    ("pica-emulation.md#relative", "mad-encoding"),
    ("pica-emulation.md#output-banks", "Azahar PR #2338"),
    ("pica-emulation.md#initial-state", "Citra PR #3787"),
    ("pica-emulation.md#gs-input", "picasso manual"),
    ("pica-emulation.md#output-map", "output_vertex.cpp"),
]


@pytest.mark.parametrize("rule,source", HARDWARE_FACTS)
def test_every_hardware_fact_of_the_reference_page_is_a_hardware_case(suite, rule, source):
    assert any(c.provenance.kind == HARDWARE and rule in c.provenance.source
               and source in c.provenance.source for c in suite)


@pytest.mark.parametrize("rule,source", REPORTED_FACTS)
def test_every_reported_fact_is_a_model_case_naming_the_report(suite, rule, source):
    assert any(c.provenance.kind == MODEL and rule in c.provenance.source
               and source in c.provenance.source for c in suite)


def test_every_hardware_case_names_a_test_program(suite):
    for case in suite:
        if case.provenance.kind == HARDWARE:
            assert any(s in case.provenance.source for s in (
                "aroulin/3ds-gpu-tests ", "Panda3DS tests/")), case.id
            assert set(case.unknowns) <= {"f32-to-f24-conversion",
                                          "special-function-precision"}, case.id


def test_unmapped_semantic_slots_read_one(by_id):
    """pica-emulation.md#output-map (Azahar output_vertex.cpp, citing hardware tests): o1
    feeds only color.xy, so color.zw, texcoord0 and view read 1.0.  Patterns by hand: 1.0
    is 0x3F0000 in float24 (exponent bias 63) and 0x3F800000 in float32; 0.125 = 2^-3 is
    0x3C0000 / 0x3E000000, 0.375 = 1.5 * 2^-2 is 0x3D8000 / 0x3EC00000."""
    case = by_id["model/output-map/unmapped-slots-read-one"]
    one = {"f24": 0x3F0000, "f32": 0x3F800000}
    colour = {"f24": (0x3C0000, 0x3D8000), "f32": (0x3E000000, 0x3EC00000)}
    for mode in ("f24", "f32"):
        semantics = dict(case.expected[mode].semantics)
        assert semantics["color"] == (*colour[mode], one[mode], one[mode])
        assert semantics["texcoord0"] == (one[mode],) * 2
        assert semantics["view"] == (one[mode],) * 3
        assert dict(case.expected[mode].outputs)["o1"][2:] == (0, 0)  # the registers: 0
