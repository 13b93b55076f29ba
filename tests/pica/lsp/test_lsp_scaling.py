"""The language server's work after an edit grows linearly with the document.

Not a timed test: the work is counted.  :func:`work` counts every Python call made while
the server handles an edit, plus the length of every string or bytes a built-in method
that reads all of it was called on, so that a C-speed rescan of the whole document (the
``str.count`` per diagnostic that made 200,000 lines take minutes) counts as the
document's length each time, not as one call.  A linear implementation does about four
times the work on a document four times as long; one that rescans the document per
diagnostic does about sixteen times.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Callable

import pytest

pytest.importorskip("pygls")
from lsprotocol import types
from pygls.io_ import StdoutWriter

from gpuisa.pica.lsp import server as server_module
from gpuisa.pica.lsp.server import PicaServer

#: Every line an error ("c0 is not a valid source2"); every fifth one has characters
#: that take more than one UTF-16 unit before the error, so positions are converted.
ERROR_LINE = "    add r0, r1, c0\n"
WIDE_LINE = "    add r0, r1, c0 ; é 😀\n"


def document(lines: int) -> str:
    body = "".join(WIDE_LINE if k % 5 == 0 else ERROR_LINE for k in range(lines))
    return ".out opos position\n.proc main\n" + body + "    mov opos, r0\n    end\n.end\n"


#: Methods that read the whole string they are called on (``find`` from a position, by
#: contrast, reads only up to what it finds: the lexer's line-by-line walk).
WHOLE_READS = frozenset({"count", "split", "rsplit", "splitlines", "replace", "encode",
                         "decode", "lower", "upper", "isascii", "expandtabs", "translate"})


def work(run: Callable[[], object]) -> int:
    count = 0

    def profile(frame, event, arg) -> None:
        nonlocal count
        if event == "call":
            count += 1
        elif event == "c_call":
            target = getattr(arg, "__self__", None)
            whole = isinstance(target, str | bytes) and arg.__name__ in WHOLE_READS
            count += len(target) if whole else 1

    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(None)
    return count


def edit_work(lines: int, tmp_path) -> tuple[int, bytes]:
    """The work of publishing the diagnostics after an edit of one line in the middle of
    a ``lines``-line document and of indexing it, and what was sent to the client."""
    ls = PicaServer()
    for _ in ls.protocol.lsp_initialize(types.InitializeParams(
            capabilities=types.ClientCapabilities())):
        pass
    sent = io.BytesIO()
    ls.protocol.set_writer(StdoutWriter(sent))
    uri = (tmp_path / f"doc{lines}.v.pica").as_uri()
    ls.workspace.put_text_document(types.TextDocumentItem(
        uri=uri, language_id="pica", version=1, text=document(lines)))
    ls.publish(uri)
    middle = lines // 2 + 3
    ls.workspace.update_text_document(
        types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        types.TextDocumentContentChangePartial(range=types.Range(
            start=types.Position(line=middle, character=9),
            end=types.Position(line=middle, character=10)), text="2"))
    sent.seek(0)
    sent.truncate()

    def edited() -> int:
        ls.publish(uri)
        return len(ls.analysis(uri).index.occurrences)  # what hover and completion read

    return work(edited), sent.getvalue()


def test_the_work_of_an_edit_is_linear_in_the_document(tmp_path):
    small, sent = edit_work(400, tmp_path)
    large, _ = edit_work(1600, tmp_path)
    assert sent.count(b'"severity": 1') == 400  # one error a line, each published
    # the wide lines' error columns are in UTF-16 units: "😀" after the error counts 2
    assert b'"start": {"line": 2, "character": 16}' in sent
    assert large < 5 * small, (small, large)


def test_the_measure_sees_a_rescan_per_diagnostic(tmp_path, monkeypatch):
    """The same measure on a server that splits the document into lines again for every
    position it converts (its line table not kept): quadratic, and seen as such."""
    monkeypatch.setattr(server_module, "_lines", server_module._lines.__wrapped__)
    small, _ = edit_work(400, tmp_path)
    large, _ = edit_work(1600, tmp_path)
    assert large > 10 * small, (small, large)


def test_diagnostics_do_not_wait_for_the_index(monkeypatch):
    """An analysis's index is built when first asked for, from the last version whose
    index was built (a version nobody asked about is passed over)."""
    from gpuisa.pica.lsp import analysis as analysis_module

    built: list[object] = []
    build_index = analysis_module.build_index

    def counting(sources, previous=None):
        built.append(previous)
        return build_index(sources, previous)

    monkeypatch.setattr(analysis_module, "build_index", counting)
    versions = [document(20).replace("r1", f"r{k}", 1) for k in range(2, 5)]
    first = analysis_module.analyse([("a.pica", versions[0])])
    second = analysis_module.analyse([("a.pica", versions[1])], first)
    assert built == [] and len(second.problems["a.pica"]) == 20
    assert second.index is second.index
    assert built == [None]  # the first version was never indexed: nothing to reuse
    third = analysis_module.analyse([("a.pica", versions[2])], second)
    assert third.index.occurrences
    assert built == [None, second.index]
