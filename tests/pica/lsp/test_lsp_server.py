"""End-to-end: the real ``pica lsp`` subprocess driven by an LSP client (pytest-lsp).

Expected values come from pica-assembly-language.md (the §5.1 opcode table, the §14
example's register allocation, the §13 diagnostic example) and from running ``pica asm``
on the same files, never from the server's own output.
"""

from __future__ import annotations

import os
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
; vertex shader (pica-assembly-language.md §14)
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
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri(path), language_id="pica", version=1,
                                             text=path.read_text())))
    while True:
        params = await client.wait_for_notification("textDocument/publishDiagnostics")
        if params.uri == uri(path):
            return list(params.diagnostics)


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
    # §13.1's example: the c0 of `add r0, r1, c0` (line 2, column 17 in this file)
    assert (1, 16, "error", "invalid source2 register: c0") in got
    # §3.3: a descending destination mask is a warning
    assert any(sev == "warning" and line == 2 for line, _, sev, _ in got)
    assert any("nowhere" in msg for *_, msg in got)


async def test_project_file_assembles_files_together(client: LanguageClient, project: Path):
    # `helper` is defined in helper.pica: alone, main.v.pica has an error (as with
    # `pica asm main.v.pica`); listed together in .picaproject, none
    assert pica_asm(project / "main.v.pica") == {
        (17, 9, "error", "procedure 'helper' is undefined")}
    assert pica_asm(project / "main.v.pica", project / "helper.pica") == set()
    assert await open_doc(client, project / "main.v.pica") == []
