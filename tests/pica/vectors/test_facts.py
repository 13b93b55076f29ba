"""Seed and hardware cases against values derived here from the cited tables.

Seed rows are parsed from the seed page itself; float24 patterns are written by hand from
the format (sign bit 23, exponent bits 16-22 with bias 63, 16 mantissa bits)."""

from pathlib import Path

import pytest

from gpuisa.pica.vectors.model import HARDWARE, SEED

SEED_FILE = Path("/work/shared/seeds/000_2801458166e9545b.txt")
INF, NINF, ZERO = 0x7F0000, 0xFF0000, 0x000000
NAN = "nan"
#: The seed's result words -> float24 pattern (s = largest subnormal, 0x00FFFF).
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
    text = SEED_FILE.read_text()
    table = text.split("Computation | Result | Notes |")[1].split("1.0 can be multiplied")[0]
    rows = []
    for line in table.splitlines():
        parts = [p.strip() for p in line.split("|")]
        if len(parts) >= 2 and parts[0] and not parts[0].startswith("---"):
            rows.append((parts[0], parts[1]))
    return rows


def test_the_seed_table_has_27_rows():
    assert len(seed_rows()) == 27


@pytest.mark.parametrize("row,result", seed_rows())
def test_every_seed_row_is_a_seed_case_with_the_tables_value(suite, row, result):
    cases = [c for c in suite if c.provenance.kind == SEED
             and f"row '{row}'" in c.provenance.source]
    assert cases, f"no seed case for row {row!r}"
    expected = RESULTS[result]
    if row == "max(0, -inf)":
        # pica-emulation-notes.md §3.2: hardware tests show max(0, -inf) = 0
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


# (case id, register, float24 x component derived by hand, section of the notes)
HARDWARE_VALUES = [
    ("hw/mul/inf-times-0", "o0", ZERO, "§3.1"),
    ("hw/mul/0-times-minus-inf", "o0", ZERO, "§3.1"),
    ("hw/mul/inf-times-minus-inf", "o0", NINF, "§3.1"),
    ("hw/mul/nan-times-0", "o0", NAN, "§3.1"),
    ("hw/dp4/inf-times-0-lane-x", "o0", f24(3.0), "§3.1"),
    ("hw/mad/inf-times-0-plus-1", "o0", f24(1.0), "§3.1"),
    ("hw/max/0-ninf", "o0", ZERO, "§3.2"),
    ("hw/max/nan-0", "o0", ZERO, "§3.2"),
    ("hw/max/0-nan", "o0", NAN, "§3.2"),
    ("hw/min/0-ninf", "o0", NINF, "§3.2"),
    ("hw/max/subnormal-0", "o0", 0x00FFFF, "§3.2"),
    ("hw/rcp/pinf", "o0", ZERO, "§3.3"),
    ("hw/rsq/minus-0", "o0", INF, "§3.3"),
    ("hw/rcp-x-only/swizzled-x", "o0", f24(0.5), "§3.3"),  # x after .yxzw is 2.0
    ("hw/ex2/ninf", "o0", ZERO, "§3.3"),
    ("hw/ex2/overflow", "o0", INF, "§3.3"),  # ex2(64) = 2^64 is above the float24 range
    ("hw/lg2/n0", "o0", NINF, "§3.3"),
    ("hw/lg2/negative", "o0", NAN, "§3.3"),
    ("hw/sge/nan-1", "o0", ZERO, "§3.5"),
    ("hw/slti/1-nan", "o0", ZERO, "§3.5"),
    ("hw/dph/w-replaced", "o0", f24(1 + 2 + 3 + 4.0), "§3.1"),
    ("hw/litp/clamps-y-high", "o0", f24(2.0), "§3.5"),
    ("hw/mova/0.9-truncates-to-0", "o0", f24(1.0), "§3.6"),  # c0 = 1.0, c1 = 2.0
    ("hw/relative/in-range", "o0", f24(13.0), "§4.3"),  # c[10 + 3]
    ("hw/relative/in-range", "o1", f24(6.0), "§4.3"),  # c[10 - 4]
    ("hw/relative/below-minus-128-is-0", "o0", f24(10.0), "§4.3"),
    ("hw/relative/above-127-is-0", "o0", f24(10.0), "§4.3"),
    ("hw/relative/wraps-to-c0", "o0", ZERO, "§4.3"),  # (10 + 118) & 0x7F = 0
    ("hw/relative/beyond-c95-reads-1.0", "o0", f24(1.0), "§4.3"),  # c96
    ("hw/relative/edge-127", "o0", f24(9.0), "§4.3"),  # (10 + 127) & 0x7F = 9
    ("hw/relative/edge-127", "o1", f24(10.0), "§4.3"),  # (10 - 128) & 0x7F = 10
    ("hw/mad-encoding/relative-wide-operand", "o0", f24(2.0 * 6 + 3), "§4.3"),  # c5 = 6
    ("hw/mad-encoding/relative-wide-operand", "o1", f24(2.0 * 3 + 6), "§4.3"),
]


@pytest.mark.parametrize("ident,register,value,section", HARDWARE_VALUES)
def test_hardware_cases_match_the_notes(by_id, ident, register, value, section):
    case = by_id[ident]
    assert case.provenance.kind == HARDWARE
    assert section in case.provenance.source
    x = dict(case.expected["f24"].outputs)[register][0]
    if value == NAN:
        assert is_nan24(x)
    else:
        assert x == value, hex(x)


def test_litp_clamps_to_0x7fff_over_256_and_sets_flags(by_id):
    out = dict(by_id["hw/litp/clamps-y-low"].expected["f24"].outputs)
    # (-2, -200, 5, -3) -> (max(x, 0), clamp(y), 0, max(w, 0)); cmp.x = x >= 0, cmp.y = w >= 0
    assert out["o0"] == (0, f24(-0x7FFF / 0x100), 0, 0)
    assert out["o1"] == (0,) * 4 and out["o2"] == (0,) * 4
    assert by_id["hw/litp/clamps-y-high"].expected["f24"].cmp == (True, True)


def test_output_banking_third_emit_sees_the_first_value(by_id):
    vertices = by_id["hw/gs-banking/third-emit-sees-first-value"].expected["f24"].vertices
    assert [v[0][0] for v in vertices] == [f24(1.0), f24(2.0), f24(1.0)]


#: Every hardware fact of pica-emulation-notes.md (by section) and the source it cites.
NOTES_FACTS = [("§3.1", "fp-tests"), ("§3.2", "fp-tests"), ("§3.3", "rcp/rsq"),
               ("§3.3", "ex2/lg2"), ("§3.5", "sge/slt"), ("§3.5", "PICA_LITP"),
               ("§3.6", "mova"), ("§4.3", "relative addressing"), ("§4.3", "mad-encoding"),
               ("§3.1", "dph/dphi"), ("§6.2", "Azahar PR #2338"),
               ("§4.2", "Citra PR #3787"), ("§6.3", "picasso manual"),
               ("§7", "output_vertex.cpp")]


@pytest.mark.parametrize("section,source", NOTES_FACTS)
def test_every_hardware_fact_of_the_notes_is_a_hardware_case(suite, section, source):
    assert any(c.provenance.kind == HARDWARE and section in c.provenance.source
               and source in c.provenance.source for c in suite)


def test_every_hardware_case_names_a_public_test_or_report(suite):
    sources = ("aroulin/3ds-gpu-tests", "Panda3DS", "Azahar PR", "JayFoxRox", "3dbrew",
               "Citra PR", "picasso manual", "Azahar output_vertex.cpp")
    for case in suite:
        if case.provenance.kind == HARDWARE:
            assert any(s in case.provenance.source for s in sources), case.id
            assert not case.unknowns or case.unknowns == ("f32-to-f24-conversion",), case.id


def test_unmapped_semantic_slots_read_one(by_id):
    """Notes §7 (Azahar output_vertex.cpp, citing hardware tests): o1 feeds only color.xy,
    so color.zw, texcoord0 and view read 1.0.  Patterns by hand: 1.0 is 0x3F0000 in
    float24 (exponent bias 63) and 0x3F800000 in float32; 0.125 = 2^-3 is 0x3C0000 /
    0x3E000000, 0.375 = 1.5 * 2^-2 is 0x3D8000 / 0x3EC00000."""
    case = by_id["hw/output-map/unmapped-slots-read-one"]
    one = {"f24": 0x3F0000, "f32": 0x3F800000}
    colour = {"f24": (0x3C0000, 0x3D8000), "f32": (0x3E000000, 0x3EC00000)}
    for mode in ("f24", "f32"):
        semantics = dict(case.expected[mode].semantics)
        assert semantics["color"] == (*colour[mode], one[mode], one[mode])
        assert semantics["texcoord0"] == (one[mode],) * 2
        assert semantics["view"] == (one[mode],) * 3
        assert dict(case.expected[mode].outputs)["o1"][2:] == (0, 0)  # the registers: 0
