"""Assembling Xenia's listing (a2xx-isa.md#xenia-asm).

Rows: the hand-built (words, text) rows of test_a2xx_xna.py read backwards — their words
were written from the bit tables, their text from Xenia's printing rules — and words that
set only bits the text shows must come back exactly.  Property: for random slots, the text
of the assembled words is the text that was assembled (every bit the text shows
survives), for upstream Xenia's and xenia-canary's text.
"""

from __future__ import annotations

import re

import pytest
from a2xx_helpers import EXEC_END, NOP, cf_program, exec_clause
from container_helpers import WORDS
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from test_a2xx_xna import CF_CASES, CLEAN, END, END_TEXT, MAD_MAXS

from gpuisa.a2xx import disassemble
from gpuisa.a2xx.errors import A2xxError
from gpuisa.a2xx.xna_asm import assemble_xenia
from gpuisa.errors import SourceError

# Two rows set bits Xenia's text does not show: ret's address (7) and bit 3 of the
# memory alloc's size (15, of which Xenia reads 3 bits); their text still comes back.
UNSHOWN = {"      ret\n", "      alloc export = 7\n"}


@pytest.mark.parametrize(("clause", "text"), CF_CASES)
def test_cf_rows_assemble_back(clause: int, text: str) -> None:
    listing = "/*    0.0 */ " + text + END_TEXT
    words = list(assemble_xenia(listing).words)
    if text in UNSHOWN:
        assert words != cf_program([clause, END])
        assert disassemble(words, "vertex", style="xenia") == listing
    else:
        assert words == cf_program([clause, END])


def test_vendor_program_round_trips_exactly() -> None:
    for style, canary in (("xenia", False), ("xenia-canary", True)):
        text = disassemble(list(WORDS), "vertex", style=style)
        assert assemble_xenia(text, canary=canary).words == WORDS


def test_guesses_are_reported() -> None:
    result = assemble_xenia(disassemble(list(WORDS), "vertex", style="xenia"))
    assert "vertex fetch: signed_rf_mode 0 (Xenia's text does not show it)" in result.guesses


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("exec\n", "no /\\* slot.clause \\*/ markers"),
        ("/*    0.0 */       exece\n/*    1   */          frobnicate r0\n", "unknown vector"),
        ("/*    0.1 */       exece\n", "out of order"),
        ("/*    0.0 */       alloc nothing\n", "unknown alloc"),
        ("/*    0.0 */       exece\n/*    1   */          add r1, r2\n", "takes 2 source"),
        ("/*    0.0 */       exece\n/*    1   */     (p0)\n", "a predicate without an instr"),
        ("/*    0.0 */       exece\n/*    1   */     add r1, r2, r3\n     +\n", "is missing"),
    ],
)
def test_errors_name_the_line(text: str, message: str) -> None:
    with pytest.raises(SourceError, match=message) as caught:
        assemble_xenia(text, filename="x.ucode.vert")
    assert caught.value.diagnostics[0].location.file == "x.ucode.vert"


SLOT = st.integers(0, (1 << 96) - 1)


@st.composite
def one_slot_program(draw: st.DrawFn) -> list[int]:
    fetch = draw(st.booleans())
    slot = draw(SLOT)
    if fetch:
        opcode = draw(st.sampled_from([0, 1, 16, 17, 18, 19, 24, 25, 26]))
        slot = (slot & ~0x1F) | opcode
    words = cf_program([exec_clause(EXEC_END, 1, 1, int(fetch)) | CLEAN, NOP])
    return [*words, slot & 0xFFFFFFFF, slot >> 32 & 0xFFFFFFFF, slot >> 64]


@settings(max_examples=300, deadline=None)
@given(program=one_slot_program(), shader=st.sampled_from(["vertex", "fragment"]))
def test_text_survives_assembly(program: list[int], shader: str) -> None:
    for style, canary in (("xenia", False), ("xenia-canary", True)):
        try:
            text = disassemble(program, shader, style=style)  # type: ignore[arg-type]
        except A2xxError:
            assume(False)
        # Xenia prints no name for exports it does not know: such text cannot be read.
        assume(not re.search(r"(?:^|\s)(?:\.[_xyzw01]|,)", text, re.MULTILINE))
        words = assemble_xenia(text, canary=canary).words
        assert disassemble(list(words), shader, style=style) == text  # type: ignore[arg-type]


def test_either_flavour_beside_a_three_source_vector_operation() -> None:
    # test_a2xx_xna.MAD_MAXS: src3 = r3 with the identity swizzle beside a mad; upstream
    # Xenia shows maxs's b from lane 0 (x), xenia-canary from lane 2 (z).
    words = [*cf_program([exec_clause(EXEC_END, 1, 1) | CLEAN, NOP]), *MAD_MAXS]
    upstream = disassemble(words, "vertex", style="xenia")
    canary = disassemble(words, "vertex", style="xenia-canary")
    assert "r3.wx" in upstream and "r3.wz" in canary
    for text in (upstream, canary):
        assert list(assemble_xenia(text).words) == words
    assert list(assemble_xenia(canary, canary=True).words) == words
    with pytest.raises(SourceError, match="disagrees with the vector operation's source 3"):
        assemble_xenia(canary, canary=False)
