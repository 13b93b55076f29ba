"""End-to-end: the real ``pica lsp`` subprocess driven by an LSP client (pytest-lsp).

Expected values come from pica-assembly.md (the opcode table of pica-assembly.md#mnemonics,
the register allocation of pica-assembly.md#example, the diagnostic example of
pica-assembly.md#diagnostics) and from running ``pica asm``
on the same files, never from the server's own output.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest_lsp = pytest.importorskip("pytest_lsp")
from lsprotocol import types  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient  # noqa: E402

SRC = str(Path(__file__).resolve().parents[3] / "src")
ENV = dict(os.environ, PYTHONPATH=SRC)

pytestmark = pytest.mark.asyncio(loop_scope="module")

MAIN = """\
; vertex shader (pica-assembly.md#example)
.fvec projection[4]
.constf consts(0.0, 1.0, -1.0, 0.5)
.alias  ones consts.yyyy
.out outpos position
.out outtc  texcoord0.xy
.in  inpos
.in  intc

.proc main
    mov r0.xyz, inpos
    mov r0.w, ones
    dp4 outpos.x, projection[0], r0
    dp4 outpos.y, projection[1], r0
    dp4 outpos.z, projection[2], r0
    dp4 outpos.w, projection[3], r0
    mov outtc, intc
    call helper
    end
.end
"""

HELPER = """\
.nodvle
.fvec projection[4]
.proc helper
    mov r1, projection[1]
.end
"""

BROKEN = """\
.proc main
    add r0, r1, c0
    mov r0.yx, r1
    frob r2, r3
    mov r0, nothere
    jmpc cmp.x, nowhere
.end
"""


@pytest_lsp.fixture(config=ClientServerConfig(
    server_command=[sys.executable, "-m", "gpuisa", "lsp"], server_env=ENV), scope="module")
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=pytest_lsp.client_capabilities("visual-studio-code")))
    yield
    await lsp_client.shutdown_session()


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("proj")
    (root / "main.v.pica").write_text(MAIN)
    (root / "helper.pica").write_text(HELPER)
    (root / "broken.v.pica").write_text(BROKEN)
    (root / ".picaproject").write_text("# programs\nmain.v.pica helper.pica\n")
    return root


def uri(path: Path) -> str:
    return path.as_uri()


async def open_doc(client: LanguageClient, path: Path) -> list[types.Diagnostic]:
    """Open a document and return the diagnostics published for it.  (Received
    diagnostics are collected by the client: waiting for the notification itself could
    miss one that arrives while the previous wait resolves.)"""
    client.diagnostics.pop(uri(path), None)
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri(path), language_id="pica", version=1,
                                             text=path.read_text())))
    for _ in range(2000):
        if uri(path) in client.diagnostics:
            return list(client.diagnostics[uri(path)])
        await asyncio.sleep(0.005)
    raise AssertionError(f"no diagnostics published for {path.name}")


def position_of(text: str, needle: str, nth: int = 0, offset: int = 0) -> types.Position:
    index = -1
    for _ in range(nth + 1):
        index = text.index(needle, index + 1)
    index += offset
    line = text.count("\n", 0, index)
    return types.Position(line=line, character=index - (text.rfind("\n", 0, index) + 1))


def pica_asm(*paths: Path) -> set[tuple[int, int, str, str]]:
    """(line, column from 0, severity, message) of every error and warning `pica asm`
    prints for the files."""
    done = subprocess.run([sys.executable, "-m", "gpuisa", "asm", "-o", os.devnull,
                           *map(str, paths)], capture_output=True, text=True, env=ENV,
                          check=False)
    found = set()
    for line in done.stderr.splitlines():
        m = re.match(r".*:(\d+):(\d+): (error|warning): (.*)$", line)
        if m:
            found.add((int(m[1]) - 1, int(m[2]) - 1, m[3], m[4]))
    return found


_SEVERITY = {types.DiagnosticSeverity.Error: "error", types.DiagnosticSeverity.Warning: "warning"}


async def test_diagnostics_match_pica_asm(client: LanguageClient, project: Path):
    diagnostics = await open_doc(client, project / "broken.v.pica")
    got = {(d.range.start.line, d.range.start.character, _SEVERITY[d.severity], d.message)
           for d in diagnostics}
    assert got == pica_asm(project / "broken.v.pica")
    # the example of pica-assembly.md#diagnostic-format: the c0 of `add r0, r1, c0`
    # (line 2, column 17 in this file)
    assert (1, 16, "error", "invalid source2 register: c0") in got
    # pica-assembly.md#swizzles: a descending destination mask is a warning
    assert any(sev == "warning" and line == 2 for line, _, sev, _ in got)
    assert any("nowhere" in msg for *_, msg in got)


async def test_project_file_assembles_files_together(client: LanguageClient, project: Path):
    # `helper` is defined in helper.pica: alone, main.v.pica has an error (as with
    # `pica asm main.v.pica`); listed together in .picaproject, none
    assert pica_asm(project / "main.v.pica") == {
        (17, 9, "error", "procedure 'helper' is undefined")}
    assert pica_asm(project / "main.v.pica", project / "helper.pica") == set()
    assert await open_doc(client, project / "main.v.pica") == []


async def hover(client: LanguageClient, path: Path, needle: str, nth: int = 0) -> str:
    result = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri(path)),
        position=position_of(path.read_text(), needle, nth, 1)))
    assert result is not None, needle
    return result.contents.value


# opcode values and formats: pica-assembly.md#mnemonics (3dbrew numbering)
@pytest.mark.parametrize(("needle", "nth", "expected"), [
    ("mov ", 0, ("opcode 0x13", "format 1u")),
    ("dp4 ", 0, ("opcode 0x02", "format 1,", "float24")),
    ("call ", 0, ("opcode 0x24", "format 2", "CALL stack holds 4")),
    ("end\n", 0, ("opcode 0x22", "format 0")),
])
async def test_hover_mnemonics_in_a_file(client: LanguageClient, project: Path, needle, nth,
                                         expected):
    await open_doc(client, project / "main.v.pica")
    text = await hover(client, project / "main.v.pica", needle, nth)
    for part in expected:
        assert part in text


async def test_hover_more_mnemonics(client: LanguageClient, tmp_path: Path):
    path = tmp_path / "ops.v.pica"
    path.write_text(".proc main\n    mad r0, r1, c0, r2\n    cmp r0, lt, ge, r1\n"
                    "    mova a0.x, r0\n    setemit 0\n    rcp r1, r0\n    end\n.end\n")
    await open_doc(client, path)
    mad = await hover(client, path, "mad")
    assert "opcode 0x38" in mad and "MADI (opcode 0x30" in mad and "not an FMA" in mad
    assert "opcode 0x2E" in await hover(client, path, "cmp")
    mova = await hover(client, path, "mova")
    assert "opcode 0x12" in mova and "truncation" in mova
    assert "opcode 0x2B" in await hover(client, path, "setemit")
    rcp = await hover(client, path, "rcp")
    assert "opcode 0x0E" in rcp and "only src1.x" in rcp


async def test_hover_names(client: LanguageClient, project: Path):
    main = project / "main.v.pica"
    await open_doc(client, main)
    # pica-assembly.md#example: projection gets c0-c3, consts c95, inpos v0, outpos o0, outtc o1
    assert "c95.yyyy" in await hover(client, main, "ones", 1)
    assert "(0, 1, -1, 0.5)" in await hover(client, main, "ones", 1)
    assert "c0-c3" in await hover(client, main, "projection", 1)
    assert "v0" in await hover(client, main, "inpos", 1)
    assert "o1" in await hover(client, main, "outtc", 1)
    assert "`.proc NAME`" in await hover(client, main, ".proc")
    assert "temporary" in await hover(client, main, "r0")


def _locations(result) -> set[tuple[str, int, int]]:
    return {(loc.uri, loc.range.start.line, loc.range.start.character) for loc in result}


async def test_definition_and_references_across_files(client: LanguageClient, project: Path):
    main, helper = project / "main.v.pica", project / "helper.pica"
    await open_doc(client, main)
    ident = types.TextDocumentIdentifier(uri=uri(main))
    found = await client.text_document_definition_async(types.DefinitionParams(
        text_document=ident, position=position_of(MAIN, "helper", 0, 2)))
    assert _locations(found) == {(uri(helper), 2, 6)}
    refs = await client.text_document_references_async(types.ReferenceParams(
        text_document=ident, position=position_of(MAIN, "helper", 0, 2),
        context=types.ReferenceContext(include_declaration=True)))
    assert _locations(refs) == {(uri(helper), 2, 6), (uri(main), 17, 9)}
    # the uniform declared in both files is one uniform (pica-assembly.md#global-uniforms)
    refs = await client.text_document_references_async(types.ReferenceParams(
        text_document=ident, position=position_of(MAIN, "projection"),
        context=types.ReferenceContext(include_declaration=False)))
    assert _locations(refs) == {(uri(main), 12 + k, 18) for k in range(4)} | {
        (uri(helper), 3, 12)}


async def test_rename_across_files(client: LanguageClient, project: Path):
    main, helper = project / "main.v.pica", project / "helper.pica"
    await open_doc(client, main)
    edit = await client.text_document_rename_async(types.RenameParams(
        text_document=types.TextDocumentIdentifier(uri=uri(main)),
        position=position_of(MAIN, "projection", 2), new_name="mvp"))
    edits = {(u, e.range.start.line, e.range.start.character, e.range.end.character, e.new_text)
             for u, es in edit.changes.items() for e in es}
    expected = {(uri(main), 1, 6, 16, "mvp"), (uri(helper), 1, 6, 16, "mvp"),
                (uri(helper), 3, 12, 22, "mvp")}
    expected |= {(uri(main), 12 + k, 18, 28, "mvp") for k in range(4)}
    assert edits == expected
    # applying the edit gives sources that still assemble to the same program
    texts = {uri(main): MAIN.splitlines(), uri(helper): HELPER.splitlines()}
    for u, line, start, end, new in sorted(edits, reverse=True):
        texts[u][line] = texts[u][line][:start] + new + texts[u][line][end:]
    for u, path in ((uri(main), project / "r1.v.pica"), (uri(helper), project / "r2.pica")):
        path.write_text("\n".join(texts[u]) + "\n")
    assert pica_asm(project / "r1.v.pica", project / "r2.pica") == set()
    with pytest.raises(Exception, match="not a valid name"):
        await client.text_document_rename_async(types.RenameParams(
            text_document=types.TextDocumentIdentifier(uri=uri(main)),
            position=position_of(MAIN, "projection", 2), new_name="r5"))


async def complete(client: LanguageClient, path: Path, text: str) -> set[str]:
    """Labels offered after ``text`` typed on a new line before `end` of main."""
    source = path.read_text()
    cut = source.index("    end\n")
    edited = source[:cut] + text + "\n" + source[cut:]
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri(path), version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=edited)]))
    line = source.count("\n", 0, cut)
    result = await client.text_document_completion_async(types.CompletionParams(
        text_document=types.TextDocumentIdentifier(uri=uri(path)),
        position=types.Position(line=line, character=len(text))))
    return {item.label for item in result.items}


async def test_completion(client: LanguageClient, project: Path):
    main = project / "main.v.pica"
    await open_doc(client, main)
    start = await complete(client, main, "    ")
    assert {"mad", "dp4", "for", "setemit", ".proc", ".fvec", ".constfa"} <= start
    assert "loop" not in start  # picasso spells LOOP `for` (pica-assembly.md#mnemonics)
    operands = await complete(client, main, "    dp4 r1, ")
    assert {"projection", "inpos", "ones", "consts", "r15", "c95", "v15"} <= operands
    assert "main" not in operands
    assert {"xyz", "w", "xxxx"} <= await complete(client, main, "    mov r1.")
    assert {"helper", "main"} <= await complete(client, main, "    call ")
    assert set(await complete(client, main, "    cmp r0, ")) == {
        "eq", "ne", "lt", "le", "gt", "ge"}
    assert "texcoord0" in await complete(client, main, ".out x ")
    help_ = await client.text_document_signature_help_async(types.SignatureHelpParams(
        text_document=types.TextDocumentIdentifier(uri=uri(main)),
        position=types.Position(line=12, character=len("    dp4 outpos.x, pro"))))
    assert help_.signatures[0].label == "dp4 dst, src1, src2"
    assert help_.active_parameter == 1


async def test_symbols_and_tokens(client: LanguageClient, project: Path):
    main = project / "main.v.pica"
    await open_doc(client, main)
    ident = types.TextDocumentIdentifier(uri=uri(main))
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=ident))
    names = {(s.name, s.kind) for s in symbols}
    assert {("main", types.SymbolKind.Function), ("projection", types.SymbolKind.Variable),
            ("outpos", types.SymbolKind.Field), ("consts", types.SymbolKind.Constant)} <= names
    tokens = await client.text_document_semantic_tokens_full_async(
        types.SemanticTokensParams(text_document=ident))
    data = list(tokens.data)
    # first token: the comment on line 0 (type "comment"), then `.fvec` on line 1
    assert data[:3] == [0, 0, len(MAIN.splitlines()[0])]
    assert data[5:8] == [1, 0, 5]


async def test_survives_malformed_input_and_random_edits(client: LanguageClient,
                                                          tmp_path: Path):
    path = tmp_path / "fuzz.v.pica"
    path.write_text(MAIN)
    await open_doc(client, path)
    rng = random.Random(15)
    alphabet = [
        *".,;:#[]()-+!&|\t \n\ufeffxyzwrvcoiba0123456789",
        "mov", "dp4", ".proc", ".end", ".constfa", "ifc", "for", "call", "cmp.x", "a0.x",
        "\x00", "\udcff", "😋", "[aL+999999999999999999999]", ".fvec x[99999999999]"]
    text = MAIN
    for version in range(3, 60):
        pos = rng.randrange(len(text) + 1)
        cut = rng.randrange(0, 12)
        text = text[:pos] + "".join(rng.choice(alphabet) for _ in range(rng.randrange(8))) + \
            text[pos + cut:]
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri(path), version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))
        line = rng.randrange(text.count("\n") + 1)
        position = types.Position(line=line, character=rng.randrange(40))
        ident = types.TextDocumentIdentifier(uri=uri(path))
        await client.text_document_hover_async(types.HoverParams(text_document=ident,
                                                                 position=position))
        await client.text_document_completion_async(types.CompletionParams(
            text_document=ident, position=position))
    # still alive, still right
    path2 = tmp_path / "after.v.pica"
    path2.write_text(BROKEN)
    diagnostics = await open_doc(client, path2)
    assert any(d.message == "invalid source2 register: c0" for d in diagnostics)
    assert not [m for m in client.log_messages if m.type == types.MessageType.Error]
