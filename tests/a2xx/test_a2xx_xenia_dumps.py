"""Real shaders: Xenia's own disassembly dumps of nine pixel and sixteen vertex shaders
(tests/a2xx/data/xenia-text-dumps.txt and xenia-vertex-dumps.txt, with their provenance;
one file per shader type, which is how each dump's type is known).

Each text is assembled (a2xx-isa.md#xenia-asm) and the words printed again in Xenia's
style (a2xx-isa.md#xna-text) for the file's shader type; the result must be Xenia's file
byte for byte.  The texts were written by Xenia, not by gpuisa, so this checks the printer
against Xenia's real output and the assembler against Xenia's real text.  None of them has
a two-operand scalar operation beside a three-source vector operation or a tfetch1D, so
upstream Xenia's and xenia-canary's text agree on them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gpuisa.a2xx import disassemble
from gpuisa.a2xx.xna_asm import assemble_xenia

DATA = Path(__file__).parent / "data"
FILES = {"fragment": DATA / "xenia-text-dumps.txt", "vertex": DATA / "xenia-vertex-dumps.txt"}


def dumps(shader_type: str) -> list[tuple[str, str]]:
    text = FILES[shader_type].read_text()
    parts = re.split(r"^=== index file (\d+) ===\n", text, flags=re.MULTILINE)
    return list(zip(parts[1::2], parts[2::2], strict=True))


CASES = [(kind, ident, text) for kind in FILES for ident, text in dumps(kind)]


def test_the_data_holds_nine_pixel_and_sixteen_vertex_shaders() -> None:
    assert (len(dumps("fragment")), len(dumps("vertex"))) == (9, 16)
    idents = [ident for _, ident, _ in CASES]
    assert len(set(idents)) == len(idents)


@pytest.mark.parametrize("kind", list(FILES))
def test_each_file_holds_its_shader_type(kind: str) -> None:
    # Only a vertex shader fetches vertices or allocates interpolators, only a pixel shader
    # allocates colours: a dump filed under the wrong type would print the wrong alloc line.
    vertex_marks = ("vfetch_", "alloc interpolators", "alloc position")
    for ident, text in dumps(kind):
        looks_vertex = any(mark in text for mark in vertex_marks)
        assert looks_vertex == (kind == "vertex"), ident
        assert ("alloc colors" in text) == (kind == "fragment"), ident


@pytest.mark.parametrize(("kind", "ident", "text"), CASES, ids=[f"{k}-{i}" for k, i, _ in CASES])
@pytest.mark.parametrize("style", ["xenia", "xenia-canary"])
def test_xenia_text_reprints_identically(kind: str, ident: str, text: str, style: str) -> None:
    words = assemble_xenia(text, filename=f"shader {ident}").words
    assert disassemble(list(words), kind, style=style) == text
