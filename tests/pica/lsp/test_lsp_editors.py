"""The VS Code extension folder: valid manifest, a TextMate grammar that knows every
mnemonic and directive the assembler accepts (pica-assembly.md#directives,
pica-assembly.md#mnemonics)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from gpuisa.pica.lsp.index import INSTRUCTIONS
from gpuisa.pica.lsp.syntax import DIRECTIVES

VSCODE = Path(__file__).resolve().parents[3] / "editors" / "vscode"


def _grammar() -> dict:
    return json.loads((VSCODE / "syntaxes" / "pica.tmLanguage.json").read_text())


def test_manifest_points_at_grammar_and_client():
    manifest = json.loads((VSCODE / "package.json").read_text())
    (grammar,) = manifest["contributes"]["grammars"]
    assert (VSCODE / grammar["path"]).is_file()
    assert grammar["scopeName"] == _grammar()["scopeName"]
    assert (VSCODE / manifest["main"]).is_file()
    assert "pica" in (VSCODE / "extension.js").read_text()
    assert ".pica" in manifest["contributes"]["languages"][0]["extensions"]


def test_editor_set_ups_know_vsh_sources():
    # picasso's own example and blargSnes name their sources .vsh (issue 28).
    manifest = json.loads((VSCODE / "package.json").read_text())
    assert ".vsh" in manifest["contributes"]["languages"][0]["extensions"]
    readme = (VSCODE.parents[1] / "README.md").read_text()
    assert 'vim.filetype.add({ extension = { pica = "pica", vsh = "pica" } })' in readme
    assert 'file-types = ["pica", "vsh"]' in readme


def _full(rule: str, text: str) -> bool:
    """Whether the grammar rule's pattern matches the whole text."""
    match = re.compile(_grammar()["repository"][rule]["match"]).search(text)
    return match is not None and match.group(0) == text


def test_grammar_knows_the_language():
    for mnemonic in INSTRUCTIONS:
        assert _full("mnemonic", mnemonic) and _full("mnemonic", mnemonic.upper()), mnemonic
    for directive in DIRECTIVES:
        assert _full("directive", f".{directive}"), directive
    assert not _full("mnemonic", "loop")  # picasso spells LOOP `for`
    assert not _full("mnemonic", "movx")
    for register in ("r15", "c95", "v0", "o6", "i3", "b15", "a0.x", "aL", "cmp.y"):
        assert _full("register", register), register
    assert _full("comment", "; dp4 r0, c0, r1")
