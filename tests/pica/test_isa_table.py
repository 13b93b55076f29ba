"""The opcode table's facts, written out by hand from the "Instructions" table of 3dbrew
"GPU/Shader Instruction Set" (pica-isa.md#opcodes names the revision) and picasso's padding rules
(pica-assembly.md#padding), compared with isa.py; the validation that guards the
table; picasso_pads on cases worked out from the text of pica-assembly.md#padding."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpuisa.errors import IsaTableError
from gpuisa.pica import isa
from gpuisa.pica.isa import (
    BY_MNEMONIC,
    OPCODES,
    Arithmetic,
    EmitEffect,
    Opcode,
    Pad,
    Result,
    Writes,
    picasso_pads,
)

# mnemonic, what it writes, result shape, rounding arithmetic, padding rule.  From the
# 3dbrew's descriptions: "DST[i] = ... for all i" with SRC1[0] only, or a dot product
# ("DST = SRC1.SRC2"), is one value for every component; LITP "sets the cmp.x and cmp.y
# flags" besides DST; MOVA "assigns the result to (a0.x, a0.y)"; CMP "sets booleans cmp.x
# and cmp.y"; MAD "is not an FMA, the intermediate result is rounded".  Padding:
# pica-assembly.md#padding.
EXPECTED = """
add     reg        vec  sum      -
dp3     reg        one  dot      -
dp4     reg        one  dot      -
dph     reg        one  dot      -
dst     reg        vec  product  -
ex2     reg        one  -        -
lg2     reg        one  -        -
litp    reg+flags  vec  -        -
mul     reg        vec  product  -
sge     reg        vec  -        -
slt     reg        vec  -        -
flr     reg        vec  -        -
max     reg        vec  -        -
min     reg        vec  -        -
rcp     reg        one  -        -
rsq     reg        one  -        -
mova    addr       -    -        -
mov     reg        vec  -        -
dphi    reg        one  dot      -
dsti    reg        vec  product  -
sgei    reg        vec  -        -
slti    reg        vec  -        -
break   -          -    -        loop
nop     -          -    -        -
end     -          -    -        -
breakc  -          -    -        loop
call    -          -    -        block
callc   -          -    -        block
callu   -          -    -        block
ifu     -          -    -        -
ifc     -          -    -        -
loop    -          -    -        -
emit    -          -    -        -
setemit -          -    -        -
jmpc    -          -    -        block
jmpu    -          -    -        block
cmp     flags      -    -        -
madi    reg        vec  mad      -
mad     reg        vec  mad      -
"""
_WRITES = {"-": Writes.NONE, "reg": Writes.REGISTER, "flags": Writes.FLAGS,
           "addr": Writes.ADDRESS, "reg+flags": Writes.REGISTER | Writes.FLAGS}
_RESULT = {"-": Result.NONE, "vec": Result.VECTOR, "one": Result.SCALAR}
_ARITHMETIC = {"-": Arithmetic.NONE, "sum": Arithmetic.SUM, "product": Arithmetic.PRODUCT,
               "dot": Arithmetic.DOT, "mad": Arithmetic.MAD}
_PAD = {"-": Pad.NONE, "block": Pad.BLOCK, "loop": Pad.LOOP}
ROWS = [line.split() for line in EXPECTED.strip().splitlines()]

#: "If condition (see below for details) is true": CONDOP over the cmp flags.
READS_FLAGS = {"breakc", "callc", "ifc", "jmpc"}
#: "if BOOL is true".
READS_BOOL = {"callu", "ifu", "jmpu"}
#: "(geometry shader only)".
GEOMETRY_ONLY = {"emit", "setemit"}
#: Format 0: "BREAK, NOP, END, EMIT" have no operand fields.
NO_OPERANDS = {"break", "nop", "end", "emit"}
#: Formats 1, 1i, 1u, 1c, 5 and 5i carry an operand descriptor index (DESC).
WITH_DESCRIPTOR = {"add", "dp3", "dp4", "dph", "dst", "ex2", "lg2", "litp", "mul", "sge", "slt",
                   "flr", "max", "min", "rcp", "rsq", "mova", "mov", "dphi", "dsti", "sgei",
                   "slti", "cmp", "madi", "mad"}


def test_every_known_opcode_is_listed_here():
    assert sorted(row[0] for row in ROWS) == sorted(BY_MNEMONIC)


@pytest.mark.parametrize("row", ROWS, ids=lambda row: row[0])
def test_what_each_opcode_writes_and_how(row):
    mnemonic, writes, result, arithmetic, pad = row
    info = BY_MNEMONIC[mnemonic]
    assert info.writes is _WRITES[writes]
    assert info.result is _RESULT[result]
    assert info.arithmetic is _ARITHMETIC[arithmetic]
    assert info.pad is _PAD[pad]


@pytest.mark.parametrize("mnemonic", sorted(BY_MNEMONIC))
def test_derived_facts(mnemonic):
    info = BY_MNEMONIC[mnemonic]
    assert info.reads_flags == (mnemonic in READS_FLAGS)
    assert info.reads_bool == (mnemonic in READS_BOOL)
    assert info.geometry_only == (mnemonic in GEOMETRY_ONLY)
    assert info.has_operands == (mnemonic not in NO_OPERANDS)
    # pica-isa.md#op-nop: NOP does nothing but advance the PC
    assert info.inert == (mnemonic == "nop")
    assert info.has_descriptor == (mnemonic in WITH_DESCRIPTOR)


def test_unknown_opcodes_do_nothing_known():
    for info in OPCODES.values():
        if not info.mnemonic:
            assert (info.writes, info.result, info.arithmetic, info.pad, info.summary) == (
                Writes.NONE, Result.NONE, Arithmetic.NONE, Pad.NONE, "")


def test_summaries():
    assert OPCODES[Opcode.ADD].summary == "dst = src1 + src2, per component"
    # a continued line joins with one space; an I-form shares its partner's line
    assert OPCODES[Opcode.LOOP].summary.endswith("(`.end` closes it); the loop counter aL "
                                                 "indexes c registers")
    assert OPCODES[Opcode.DPHI].summary == OPCODES[Opcode.DPH].summary != ""
    assert OPCODES[Opcode.MADI].summary == "dst = src1 · src2 + src3, per component"


@pytest.mark.parametrize(("opcode", "change"), [
    (Opcode.ADD, {"writes": Writes.NONE}),  # arithmetic writes something
    (Opcode.NOP, {"writes": Writes.REGISTER, "result": Result.VECTOR}),  # control does not
    (Opcode.ADD, {"result": Result.NONE}),  # a register result has a shape
    (Opcode.MOVA, {"result": Result.VECTOR}),  # and only a register result
    (Opcode.CMP, {"writes": Writes.FLAGS | Writes.ADDRESS}),  # a compare writes the flags
    (Opcode.MOVA, {"arithmetic": Arithmetic.SUM}),  # rounding produces a register
    (Opcode.ADD, {"pad": Pad.BLOCK}),  # padding follows JMP and CALL words
    (Opcode.IFC, {"pad": Pad.BLOCK}),
    (Opcode.JMPC, {"pad": Pad.LOOP}),  # and BREAK words for a loop's end
    (Opcode.DPHI, {"result": Result.VECTOR}),  # I-form partners agree
    (Opcode.MAD, {"arithmetic": Arithmetic.PRODUCT}),
    (Opcode.ADD, {"result": Result.SCALAR}),  # reads per written component: not replicated
    (Opcode.DP4, {"arithmetic": Arithmetic.SUM}),  # a two-source scalar result is a dot
    (Opcode.DST, {"arithmetic": Arithmetic.DOT}),  # and a dot is one
    (Opcode.SETEMIT, {"writes": Writes.REGISTER, "result": Result.VECTOR}),  # no dst field
])
def test_validation_rejects_rows_that_disagree(opcode, change):
    row = replace(OPCODES[opcode], **change)
    with pytest.raises(IsaTableError):
        isa._validate_result(row)


def test_validation_accepts_the_table():
    isa._validate()


@pytest.mark.parametrize(("opcode", "change"), [
    (Opcode.ADD, {"summary": ""}),  # every known opcode has a summary
    (Opcode.UNKNOWN_10, {"summary": "does something"}),  # an unknown one has none
    (Opcode.ADD, {"writes": Writes.NONE}),  # the per-row checks run over the whole table
])
def test_whole_table_validation_rejects(opcode, change, monkeypatch):
    monkeypatch.setitem(OPCODES, opcode, replace(OPCODES[opcode], **change))
    with pytest.raises(IsaTableError):
        isa._validate()


# -- picasso's padding rule (pica-assembly.md#padding) -------------------------------------
# (closing, last opcode, block start P, position p, lastWasEnd) -> pad?
PADS = [
    # .else: lastWasEnd, a JMP/CALL last, or an empty then-part (p - P < 2)
    ("else", Opcode.ADD, 10, 12, True, True),
    ("else", Opcode.JMPC, 10, 12, False, True),
    ("else", Opcode.CALLU, 10, 15, False, True),
    ("else", Opcode.IFC, 10, 11, False, True),
    ("else", Opcode.ADD, 10, 12, False, False),
    ("else", Opcode.BREAK, 10, 12, False, False),  # BREAK pads only a FOR's end
    # .end of an IF: the same, and an empty body is p - P < 2
    ("if", Opcode.MUL, 4, 6, False, False),
    ("if", Opcode.IFU, 4, 5, False, True),
    ("if", Opcode.CALL, 4, 9, False, True),
    ("if", Opcode.BREAKC, 4, 9, False, False),
    ("if", Opcode.MOV, 4, 9, True, True),
    # .end of a FOR: also after BREAK and BREAKC
    ("for", Opcode.BREAK, 0, 5, False, True),
    ("for", Opcode.BREAKC, 0, 5, False, True),
    ("for", Opcode.JMPU, 0, 5, False, True),
    ("for", Opcode.DP4, 0, 5, False, False),
    ("for", Opcode.LOOP, 3, 4, False, True),
    # .end of a proc: empty when p - P < 1
    ("proc", Opcode.END, 7, 7, False, True),
    ("proc", Opcode.END, 7, 8, False, False),
    ("proc", Opcode.CALLC, 7, 9, False, True),
    ("proc", Opcode.BREAK, 7, 9, False, False),
    ("proc", None, 7, 9, False, False),  # after a .word no opcode rule applies
    ("proc", None, 0, 0, False, False),  # the code buffer is empty
    ("if", None, 0, 0, False, False),
]


@pytest.mark.parametrize(("closing", "last", "start", "position", "after_end", "pads"), PADS)
def test_picasso_pads(closing, last, start, position, after_end, pads):
    assert picasso_pads(closing, last, start, position, after_end) is pads


def test_emission_effects_by_hand():
    """3dbrew SETEMIT/EMIT (pica-emulation.md#emit): SETEMIT sets up the vertex slot, EMIT writes
    it; nothing else touches the emission state."""
    assert OPCODES[Opcode.SETEMIT].emission is EmitEffect.SETUP
    assert OPCODES[Opcode.EMIT].emission is EmitEffect.EMIT
    assert {op for op, info in OPCODES.items() if info.emission is not EmitEffect.NONE} == {
        Opcode.SETEMIT, Opcode.EMIT}
