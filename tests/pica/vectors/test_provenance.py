"""Every ``hardware`` label audited against the hardware test programs it cites.

data/hardware-tests.txt holds, copied by hand from the programs (its header names them
and their revisions), each input a program feeds and the result it checks.  A hardware
case must name exactly one of those rows, run that row's opcode on exactly that row's
inputs and expect what the program checks; float24 values are decoded here from the
format (sign bit 23, exponent bits 16-22 with bias 63, 16 mantissa bits), independently
of gpuisa."""

import math
import struct
from pathlib import Path

import pytest

from gpuisa.pica.vectors.model import HARDWARE, SEED

DATA = Path(__file__).parent / "data" / "hardware-tests.txt"


def rows():
    table = {}
    for line in DATA.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            ref, op, *sources, result = (part.strip() for part in line.split("|"))
            table[ref] = (op, [s for s in sources if s], result)
    return table


def number(word):
    """A value as the programs feed it: a C float (0.9 is 0.9f)."""
    value = {"+inf": math.inf, "-inf": -math.inf, "NaN": math.nan}.get(word)
    return value if value is not None else struct.unpack("<f", struct.pack("<f", float(word)))[0]


def operand(text):
    """A row's operand: a vector gives its components, a scalar the x component."""
    return [number(w) for w in text.strip("()").split(",")]


def f24_value(p):
    sign = -1.0 if p >> 23 else 1.0
    exponent, mantissa = (p >> 16) & 0x7F, p & 0xFFFF
    if exponent == 0x7F:
        return math.nan if mantissa else sign * math.inf
    if exponent == 0:
        return sign * mantissa * 2.0 ** -78
    return sign * (1 + mantissa / 65536) * 2.0 ** (exponent - 63)


def f32_value(bits):
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def same(a, b):
    """Equal values of equal sign (-0 is not 0 here), or two NaNs."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1, a) == math.copysign(1, b)


def audit(case, table):
    """The reasons ``case`` does not match the row it cites (empty when it does)."""
    cited = [ref for ref in table if ref in case.provenance.source]
    if len(cited) != 1:
        return [f"cites {len(cited)} rows of the hardware test data"]
    op, sources, result = table[cited[0]]
    problems = [] if f"op:{op}" in case.tags else [f"does not run {op}"]
    registers = {r.name: r.f32[0] for r in case.inputs}
    for n, text in enumerate(sources):
        want = operand(text)
        got = [f32_value(b) for b in registers.get(f"v{n}", ())][:len(want)]
        if len(got) != len(want) or not all(map(same, got, want)):
            problems.append(f"v{n} is {got}, the program feeds {want}")
    expected = case.expected["f24"]
    x = [f24_value(p) for p in dict(expected.outputs).get("o0", ())]
    if result.startswith("cmp="):
        flags = tuple(bool(int(b)) for b in result[5:-1].split(","))
        if expected.cmp != flags:
            problems.append(f"flags {expected.cmp}, the program checks {flags}")
    elif result.startswith("a0.x="):
        # o0 = c0[a0.x] with c0 = 1.0, c1 = 2.0: the index shows in the value read
        if x[0] != 1.0 + int(result[5:]):
            problems.append(f"read c{x[0] - 1:g}, the program checks {result}")
    elif result.startswith("("):
        colour = [int(c) for c in result.strip("()").split(",")]
        if [int(v * 255) for v in x[:len(colour)]] != colour:
            problems.append(f"colour {[v * 255 for v in x]}, the program checks {colour}")
    elif not same(x[0], number(result)):
        problems.append(f"o0.x = {x[0]}, the program checks {result}")
    return problems


def test_the_data_has_a_header_naming_sources_and_revisions():
    header = [line for line in DATA.read_text().splitlines() if line.startswith("#")]
    text = "\n".join(header)
    for source in ("aroulin/3ds-gpu-tests", "084163cf145f462baa94175344a8d8dbd3043ace",
                   "wheremyfoodat/Panda3DS", "0343d908cea38570e9e597c6013be4e3774471b5"):
        assert source in text


def test_every_hardware_case_feeds_and_expects_what_its_cited_program_does(suite):
    table = rows()
    hardware = [case for case in suite if case.provenance.kind == HARDWARE]
    assert len(hardware) >= 40
    failures = {case.id: audit(case, table) for case in hardware}
    assert {k: v for k, v in failures.items() if v} == {}


def test_every_row_of_the_data_is_a_hardware_case(suite):
    cited = {ref for case in suite if case.provenance.kind == HARDWARE
             for ref in rows() if ref in case.provenance.source}
    assert cited == set(rows())


def test_hw_ids_are_exactly_the_hardware_cases(suite):
    for case in suite:
        assert case.id.startswith("hw/") == (case.provenance.kind == HARDWARE), case.id


@pytest.mark.parametrize("ident", ["hw/rcp/minus-0", "hw/rsq/minus-0", "hw/ex2/pinf",
                                   "hw/ex2/ninf"])
def test_the_four_overclaimed_cases_are_not_hardware(by_id, ident):
    """Issue 27: aroulin's tests never feed -0 or infinities to RCP, RSQ or EX2."""
    assert ident not in by_id


@pytest.mark.parametrize("ident,row", [("seed/rcp-minus-0", "row 'rcp(-0)'"),
                                       ("seed/rsq-minus-0", "row 'rsq(-0)'"),
                                       ("seed/ex2/pinf", "pica-emulation.md#scalar-units"),
                                       ("seed/ex2/ninf", "pica-emulation.md#scalar-units")])
def test_their_inputs_are_seed_cases_citing_the_seed(by_id, ident, row):
    case = by_id[ident]
    assert case.provenance.kind == SEED and "3dbrew" in case.provenance.source
    assert row in case.provenance.source


def test_the_audit_fails_on_an_overclaimed_label(suite, by_id):
    """The audit would have caught the old hw/rcp/minus-0: RCP of -0 under a citation of
    the RCP program that feeds 0."""
    from dataclasses import replace

    from gpuisa.pica.vectors.model import Provenance
    table = rows()
    seed = by_id["seed/rcp-minus-0"]
    claimed = replace(seed, provenance=Provenance(
        HARDWARE, "aroulin/3ds-gpu-tests fp-tests/source/main.cpp tests[0]"))
    assert any("the program feeds [0.0]" in p for p in audit(claimed, table))
    wrong = replace(by_id["hw/rcp/pinf"], provenance=Provenance(HARDWARE, "a report"))
    assert audit(wrong, table) == ["cites 0 rows of the hardware test data"]
