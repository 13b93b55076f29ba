"""Assembler: the wiki's syntax, disassembly round trips (hypothesis) and diagnostics."""

from __future__ import annotations

import pytest
from a2xx_helpers import EXEC, EXEC_END, cf_program, cf_slot, exec_clause, wiki_example
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuisa.a2xx import assemble, assemble_with_warnings, disassemble
from gpuisa.errors import Diagnostic, SourceError

# The freedreno wiki's first listing (a2xx-isa.md#sources names the page), verbatim apart from
# indentation.
WIKI_FIRST = """\
EXEC ADDR(0x3) CNT(0x1)
   (S)FETCH:    VERTEX  R1.xyz1 = R0.x FMT_32_32_32_FLOAT UNSIGNED STRIDE(12) CONST(10)
ALLOC COORD SIZE(0x0)
EXEC ADDR(0x4) CNT(0x1)
      ALU:  MAXv    export62 = R1, R1   ; gl_Position
ALLOC PARAM/PIXEL SIZE(0x0)
EXEC_END ADDR(0x5) CNT(0x0)
"""


def test_wiki_first_listing_by_hand() -> None:
    cf = cf_program(
        [
            exec_clause(EXEC, 3, 1, sequence=0b11),  # fetch, serialized
            (12 << 44) | (1 << 41),  # ALLOC POSITION (COORD) SIZE(0)
            exec_clause(EXEC, 4, 1),
            (12 << 44) | (2 << 41),  # ALLOC PARAM/PIXEL
            exec_clause(EXEC_END, 5, 0),
            # padded with a NOP clause to an even count
        ]
    )
    fetch = [
        (0 << 0)  # VTX_FETCH
        | (0 << 5)  # src R0
        | (1 << 12)  # dst R1
        | (1 << 19)  # must_be_one
        | (10 << 20)  # CONST(10): const_index 10, selector 0
        | (3 << 27)  # first vertex fetch: prefetch 3 (Mesa's encoder)
        | (0 << 30),  # src swizzle x
        0xA88  # dst x y z 1
        | (0 << 12)  # UNSIGNED
        | (1 << 13)  # no NORMALIZED: integer
        | (0 << 15)  # is_index_rounded: the GLES driver's first fetch leaves it clear
        | (57 << 16),  # FMT_32_32_32_FLOAT
        12,  # STRIDE(12)
    ]
    alu = [
        62
        | (1 << 15)
        | (0xF << 16)  # export62, vector mask xyzw, scalar mask 0
        | (5 << 26),  # no scalar line: the vendor's MAXs filler
        0,  # identity swizzles, no negate, no predicate
        (1 << 8)
        | (1 << 16)
        | (2 << 24)
        | (1 << 31)
        | (1 << 30)  # MAXv R1, R1
        | (1 << 29),  # unused src3: the vendor's register bank R
    ]
    assert assemble(WIKI_FIRST) == cf + fetch + alu


def test_wiki_second_listing() -> None:
    words = assemble(wiki_example())
    out = disassemble(words, "vertex")
    # aliases: RCP = RECIP_IEEE, RSQ = RECIPSQ_IEEE, MOV = MAXs (a2xx-isa.md#assembler)
    assert "\t\t    \tRECIP_IEEE\tR4.x___ = R0\n" in out
    assert "\t\t    \tRECIPSQ_IEEE\tR0.___w = R4.xyzx\n" in out
    assert "\t\t    \tMAXs\texport0.___w = C12.xyzx\n" in out
    # EXECs without ADDR/CNT: 6 CF clauses -> 3 CF slots; 6 + 6 + 4 + 5 instructions
    assert [line for line in out.splitlines() if "EXEC" in line] == [
        "\tEXEC ADDR(0x3) CNT(0x6)",
        "\tEXEC ADDR(0x9) CNT(0x6)",
        "\tEXEC ADDR(0xf) CNT(0x4)",
        "\tEXEC_END ADDR(0x13) CNT(0x5)",
    ]
    assert "\t   (S)ALU:\tMULv\tR0 = R2.wwww, C7\n" in out
    assert "\t      ALU:\tMULADDv\tR0.xyz_ = C11.xxzw, -R0, R4.xxxw\n" in out


def test_scalar_pairing_and_source_forms() -> None:
    text = """
    EXEC_END
        ALU: MULADDvEQ R1.xz = -|C3|, R2.x, R4.xyzw CLAMP
             SQRT_IEEE R5.w = -|C3| CLAMP
    """
    words = assemble(text)
    assert words[3:6] == [
        1  # vector_dest R1
        | (5 << 8)  # scalar_dest R5
        | (0b0101 << 16)  # "xz" = mask x_z_
        | (0b1000 << 20)  # "w"
        | (1 << 24)  # vector CLAMP
        | (1 << 25)  # scalar CLAMP
        | (40 << 26),  # SQRT_IEEE
        (0x00 << 0)  # src3 (-|C3|) swizzle: identity
        | (0x00 << 8)  # src2 R4.xyzw: identity
        | (0x6C << 16)  # src1 R2.x -> xxxx (last component repeated)
        | (1 << 24)  # src3 negate
        | (1 << 27)  # EQ
        | (1 << 28),  # predicated
        (0x80 | 3)  # src3: C3 with bit 7 (abs)
        | (4 << 8)  # src2 = R4
        | (2 << 16)  # src1 = R2
        | (11 << 24)  # MULADDv (operands printed src3, src1, src2)
        | (1 << 31)
        | (1 << 30)
        | (0 << 29),  # src1, src2 temps; src3 constant
    ]


def test_export_flags_must_agree() -> None:
    text = "EXEC_END\n  ALU: MAXv R1 = R0, R0\n  MAXs export1.x = R0\n"
    with pytest.raises(SourceError, match="both be exports"):
        assemble(text)


# --------------------------------------------------------------------------------------
# Round trips
# --------------------------------------------------------------------------------------

EXEC_OPS = (1, 2, 3, 4, 5, 6, 13, 14)
TEX_ANISO = 7 << 50  # aniso_filter field in the 96-bit slot
TEX_ARB = 7 << 53


@st.composite
def fetch_slots(draw: st.DrawFn, opcodes: list[int]) -> list[int]:
    slot = draw(st.integers(0, (1 << 96) - 1))
    op = draw(st.sampled_from(opcodes))
    slot = (slot & ~0x1F) | op
    if op != 0:
        # reserved filter value 6 cannot be disassembled (Mesa reads past its table)
        if (slot >> 50) & 7 == 6:
            slot |= TEX_ANISO
        if (slot >> 53) & 7 == 6:
            slot |= TEX_ARB
    return [(slot >> s) & 0xFFFFFFFF for s in (0, 32, 64)]


@st.composite
def programs(draw: st.DrawFn, fetch_opcodes: list[int]) -> list[int]:
    ops = draw(st.lists(st.integers(0, 15), min_size=1, max_size=6))
    if not any(op in EXEC_OPS for op in ops):
        ops[draw(st.integers(0, len(ops) - 1))] = draw(st.sampled_from(EXEC_OPS))
    next_slot = (len(ops) + 1) // 2
    clauses, body = [], []
    for op in ops:
        bits = draw(st.integers(0, (1 << 44) - 1))
        if op in EXEC_OPS:
            count = draw(st.integers(0, 7))
            bits = (bits & ~0x1FF & ~(7 << 12)) | next_slot | (count << 12)
            for i in range(count):
                is_fetch = i < 6 and (bits >> (16 + 2 * i)) & 1
                if is_fetch:
                    body += draw(fetch_slots(fetch_opcodes))
                else:
                    body += [draw(st.integers(0, 0xFFFFFFFF)) for _ in range(3)]
            next_slot += count
        clauses.append(bits | (op << 44))
    return cf_program(clauses) + body


@settings(max_examples=150, deadline=None)
@given(words=programs([0, 1, 16, 17, 18, 19, 24, 25, 26, 27]))
def test_raw_listing_reassembles_bit_exact(words: list[int]) -> None:
    text = disassemble(words, "vertex", raw=True)
    assert assemble(text) == words


@settings(max_examples=150, deadline=None)
@given(words=programs([0, 1, 24]), level=st.integers(0, 3))
def test_plain_listing_is_stable(words: list[int], level: int) -> None:
    # Plain text does not show every bit, but what it shows survives: the reassembled
    # program disassembles to the same text.
    text = disassemble(words, "fragment", level=level)
    assert disassemble(assemble(text), "fragment", level=level) == text


def test_plain_listing_of_defaults_is_bit_exact() -> None:
    text = (
        "\tEXEC ADDR(0x1) CNT(0x2)\n"
        "\t   (S)FETCH:\tSAMPLE\tR1.xyzw = R0.xyx CONST(2) LOCATION(CENTER)\n"
        "\t   (S)ALU:\tMULv\texport0 = R1, C0\t; gl_FragColor\n"
        "\tEXEC_END ADDR(0x3) CNT(0x0)\n"
    )
    words = assemble(text)
    assert disassemble(words, "fragment") == text
    tex = [
        1 | (0 << 5) | (1 << 12) | (2 << 20) | ((0 | 1 << 2 | 0 << 4) << 26),
        0x688 | (3 << 12) | (3 << 14) | (3 << 16) | (7 << 18) | (7 << 21) | (3 << 24)
        | (3 << 26) | (1 << 28),  # fetch-constant filters, use_comp_lod
        1 << 1,  # CENTER
    ]  # fmt: skip
    alu = [  # no scalar line, src3 unused: vendor MAXs filler and src3_sel = 1
        (1 << 15) | (0xF << 16) | (5 << 26),
        0,
        (1 << 16) | (0 << 8) | (1 << 24) | (1 << 31) | (1 << 29),
    ]
    cf = cf_slot(exec_clause(EXEC, 1, 2, 0b10_11), exec_clause(EXEC_END, 3, 0))
    assert words == cf + tex + alu


def test_given_addresses_are_honoured() -> None:
    # Two EXECs running the same slot: only possible with explicit ADDR.
    text = """
        EXEC ADDR(0x1) CNT(0x1)
              ALU: ADDv R0 = R0, R0
        EXEC_END ADDR(0x1) CNT(0x1)
              ALU: ADDv R0 = R0, R0
    """
    words = assemble(text)
    assert len(words) == 6
    assert disassemble(words, "vertex").count("ADDv") == 2


def test_gap_slots_are_zero() -> None:
    text = "EXEC_END ADDR(0x1) CNT(0x0)\nEXEC ADDR(0x3) CNT(0x1)\n  ALU: ADDv R0 = R0, R0\n"
    words = assemble(text)
    # CF slot 0; slots 1 and 2 run by no EXEC; slot 3: ADDv R0 = R0, R0
    assert words[3:9] == [0] * 6
    assert words[9:12] == [(0xF << 16) | (5 << 26), 0, (1 << 31) | (1 << 30) | (1 << 29)]


# --------------------------------------------------------------------------------------
# Diagnostics
# --------------------------------------------------------------------------------------


def diagnostics(text: str) -> list[Diagnostic]:
    with pytest.raises(SourceError) as info:
        assemble(text, filename="t.asm")
    return info.value.diagnostics


def test_error_has_line_column_and_caret() -> None:
    (d,) = diagnostics("EXEC_END\n      ALU:\tFOOv\tR0 = R0, R0\n")
    assert (d.location.line, d.location.column) == (2, 12)
    assert d.render() == (
        "t.asm:2:12: error: unknown vector opcode 'FOOv'\n"
        "        ALU: FOOv R0 = R0, R0\n"
        "             ^~~~"
    )


def test_every_bad_line_is_reported() -> None:
    found = diagnostics("EXEC_END\n  ALU: ADDv R64 = R0, R0\n  FETCH: VERTEX R0 = R0.x BOGUS\n")
    assert [(d.location.line, d.location.column) for d in found] == [(2, 13), (3, 27)]
    assert "does not fit" in found[0].message and "BOGUS" in found[1].message


@pytest.mark.parametrize(
    ("text", "message", "col"),
    [
        ("ALU: ADDv R0 = R0, R0\nEXEC_END\n", "outside an EXEC", 1),
        ("EXEC_END\nALLOC POSITION\n  ALU: ADDv R0 = R0, R0\n", "outside an EXEC", 3),
        ("EXEC_END\n  RCP R0 = R1\n", "must follow the ALU", 3),
        ("EXEC_END\n  FETCH: ? R0 = R0.xyz CONST(0)\n", "'?' does not say", 10),
        ("EXEC_END ADDR(0x200) CNT(0x0)\n", "does not fit", 15),
        ("ALLOC SOMEWHERE SIZE(0x0)\nEXEC_END\n", "unknown ALLOC buffer", 7),
        ("EXEC_END ADDR(0x2) CNT(0x0)\n", "first EXEC's ADDR", 15),
        ("NOP\n", "at least one EXEC", 1),
        ("EXEC_END\n  (S)NOP\n", "must be followed by ALU", 3),
        ("EXEC_END\n  ALU: ADDv R0 = |C64|, R0\n", "cannot take |abs|", 19),
        ("EXEC_END #\n", "unexpected character", 10),
        ("EXEC_END\n  ALU: ADDv R0 = R0.xyzq, R0\n", "invalid swizzle", 21),
        ("EXEC_END\n  ALU: ADDv R0 = R0\n", "expected ','", 20),
    ],
)
def test_errors(text: str, message: str, col: int) -> None:
    (d,) = diagnostics(text)
    assert message in d.message
    assert d.location.column == col


def test_eighth_instruction_and_seventh_fetch() -> None:
    alu = "  ALU: ADDv R0 = R0, R0\n"
    (d,) = diagnostics("EXEC_END\n" + alu * 8)
    assert "at most 7" in d.message and d.location.line == 9
    (d,) = diagnostics(
        "EXEC_END\n" + alu * 6 + "  FETCH: VERTEX R0 = R0.x FMT_8 SIGNED STRIDE(1) CONST(0, 0)\n"
    )
    assert "only describes 6" in d.message


def test_overlapping_addresses() -> None:
    text = (
        "EXEC ADDR(0x1) CNT(0x1)\n  ALU: ADDv R0 = R0, R0\n"
        "EXEC_END ADDR(0x1) CNT(0x1)\n  ALU: MULv R0 = R0, R0\n"
    )
    (d,) = diagnostics(text)
    assert "slot 1 already holds" in d.message and d.location.line == 4


def test_raw_index_mismatch() -> None:
    text = (
        "\t    1001 0000 2000            \tEXEC_END ADDR(0x1) CNT(0x1)\n"
        "\t05: 00000000 00000000 00000000\t      ALU:\tADDv\tR0.____ = C0, C0\n"
        "\t                          \t\t    \tADDs\tR0.____ = C0\n"
    )
    (d,) = diagnostics(text)
    assert "raw slot index 0x05" in d.message


def test_cnt_mismatch_is_a_warning() -> None:
    result = assemble_with_warnings("EXEC_END ADDR(0x1) CNT(0x3)\n  ALU: ADDv R0 = R0, R0\n")
    (w,) = result.warnings
    assert w.severity == "warning" and "CNT(0x3)" in w.message and w.location.column == 24
    assert (result.words[0] >> 12) & 7 == 1


def test_fdre_forms() -> None:
    text = """
@varying(R0) vColor
@const(C11) 2.0, 2.0, 20.0, 0.0
EXEC_END ; comment
      ALU: MAXv R0.____ = R0, R0 RCP R4.x = C200    ; scalar part on the same line
      FETCH: TEX_GET_GRADIENTS R1 = R2.xy CONST(3) LOCATION(CENTROID)
"""
    words = assemble(text)
    alu, fetch = words[3:6], words[6:9]
    assert alu == [
        (4 << 8) | (0b0001 << 20) | (19 << 26),  # R0.____ / RECIP_IEEE R4.x___
        0,
        200  # src3 = C200: full 8-bit index
        | (2 << 24)  # MAXv
        | (1 << 31)
        | (1 << 30),
    ]
    assert fetch[0] == 18 | (2 << 5) | (1 << 12) | (3 << 20) | ((0 | 1 << 2 | 1 << 4) << 26)
    assert fetch[2] == 0  # CENTROID, no offsets


def test_unknown_opcodes_round_trip() -> None:
    text = (
        "\tEXEC_END ADDR(0x1) CNT(0x1)\n"
        "\t      ALU:\tOP(31)EQ\tR1.x___ = -R2.yyyy\n"
        "\t\t    \tOP(55)\tR3.___w = C4\n"
        "\tNOP\n"
    )
    words = assemble(text)
    assert disassemble(words, "vertex") == text
    d0, d1, d2 = words[3:6]
    assert d2 >> 24 & 0x1F == 31 and d0 >> 26 == 55
    assert d1 >> 27 & 3 == 0b11  # predicated, EQ


def test_bad_argument_types() -> None:
    from gpuisa.errors import InputError

    with pytest.raises(InputError, match="words_from_bytes"):
        disassemble(b"\x00" * 12, "vertex")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="source text"):
        assemble(b"EXEC_END")  # type: ignore[arg-type]
