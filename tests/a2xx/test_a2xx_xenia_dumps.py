"""Real shaders: Xenia's own disassembly dumps of seven pixel shaders
(tests/a2xx/data/xenia-text-dumps.txt, with their provenance).

Each text is assembled (a2xx-isa.md#xenia-asm) and the words printed again in Xenia's
style (a2xx-isa.md#xna-text); the result must be Xenia's file byte for byte.  The texts
were written by Xenia, not by gpuisa, so this checks the printer against Xenia's real
output and the assembler against Xenia's real text.  None of them has a two-operand
scalar operation beside a three-source vector operation or a tfetch1D, so upstream
Xenia's and xenia-canary's text agree on them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gpuisa.a2xx import disassemble
from gpuisa.a2xx.xna_asm import assemble_xenia

DUMPS = Path(__file__).parent / "data" / "xenia-text-dumps.txt"


def dumps() -> list[tuple[str, str]]:
    parts = re.split(r"^=== index file (\d+) ===\n", DUMPS.read_text(), flags=re.MULTILINE)
    return list(zip(parts[1::2], parts[2::2], strict=True))


def test_the_data_holds_seven_shaders() -> None:
    assert len(dumps()) == 7


@pytest.mark.parametrize(("ident", "text"), dumps(), ids=[i for i, _ in dumps()])
@pytest.mark.parametrize("style", ["xenia", "xenia-canary"])
def test_xenia_text_reprints_identically(ident: str, text: str, style: str) -> None:
    words = assemble_xenia(text, filename=f"shader {ident}").words
    assert disassemble(list(words), "fragment", style=style) == text
