"""The language server: LSP over stdio with pygls, on top of the analysis modules.

This is the only module that imports pygls/lsprotocol (the optional ``lsp`` extra).
Every request is answered from the last analysis of the program the document belongs
to (:mod:`.project`); positions are converted between the editor's units (UTF-16 unless
the client negotiates otherwise) and Python characters here.  A handler that fails for
any reason logs the failure and answers "nothing": a broken file never stops the server.

The messages are read by :func:`serve`, not by pygls's reader, which waited for ever or
ran out of memory on a bad ``Content-Length`` and answered no request it could not
decode: every request gets a response (an error where it is invalid), every header and
message is bounded, and input that no longer follows the protocol ends the server with
an error (nothing after it can be framed).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import os
import sys
import threading
import traceback
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import BinaryIO

from lsprotocol import types
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInvalidParams,
    JsonRpcInvalidRequest,
    JsonRpcParseError,
)
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from ... import __version__
from ...errors import InputError
from ..asm.operands import is_identifier
from .analysis import Analysis, Problem
from .completion import complete, signature_help
from .hover import hover_text
from .index import SYMBOL_ROLES, Occurrence, is_register
from .project import Workspace, read_source
from .tokens import SYMBOL_KINDS, TOKEN_MODIFIERS, TOKEN_TYPES, document_symbols, semantic_tokens

_SEVERITY = {"error": int(types.DiagnosticSeverity.Error),
             "warning": int(types.DiagnosticSeverity.Warning),
             "information": int(types.DiagnosticSeverity.Information)}
_COMPLETION_KIND = {
    "mnemonic": types.CompletionItemKind.Keyword, "directive": types.CompletionItemKind.Keyword,
    "register": types.CompletionItemKind.Variable, "swizzle": types.CompletionItemKind.Field,
    "keyword": types.CompletionItemKind.EnumMember, "procedure": types.CompletionItemKind.Function,
    "label": types.CompletionItemKind.Reference, "uniform": types.CompletionItemKind.Variable,
    "constant": types.CompletionItemKind.Constant, "alias": types.CompletionItemKind.Variable,
    "input": types.CompletionItemKind.Field, "output": types.CompletionItemKind.Field,
}


@dataclass(frozen=True, slots=True)
class _Lines:
    """A document's lines, and the numbers of those holding a character that is not
    ASCII.  Only those need the client's position encoding: a column in an ASCII line is
    the same number in UTF-8, UTF-16 and UTF-32 units, and counting the units of every
    line a diagnostic is on was most of the time publishing 200,000 of them took."""

    lines: list[str]
    wide: frozenset[int]


@functools.lru_cache(maxsize=16)
def _lines(text: str) -> _Lines:
    lines = text.split("\n")
    if text.isascii():
        return _Lines(lines, frozenset())
    return _Lines(lines, frozenset(n for n, line in enumerate(lines) if not line.isascii()))


def _path(uri: str) -> str:
    """The file a URI names (normalised like the project file's entries), or the URI
    itself for documents that are not files."""
    path = to_fs_path(uri) if uri.startswith("file:") else None
    return os.path.normpath(os.path.abspath(path)) if path else uri


class PicaServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("pica-lsp", __version__,
                         text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.project = Workspace(self.read)
        #: Files diagnostics were last published for, per program file asked about.
        self.published: dict[str, set[str]] = {}

    # -- documents ----------------------------------------------------------------------

    def open_documents(self) -> dict[str, str]:
        return {_path(uri): uri for uri in self.workspace.text_documents}

    def read(self, path: str) -> str:
        uri = self.open_documents().get(path)
        if uri is not None:
            return self.workspace.get_text_document(uri).source
        return read_source(path)

    def uri(self, path: str) -> str:
        uri = self.open_documents().get(path)
        return uri if uri is not None else (from_fs_path(path) if os.path.isabs(path) else path)

    def analysis(self, uri: str) -> Analysis:
        return self.project.analysis_of(_path(uri))[0]

    # -- positions ----------------------------------------------------------------------

    def to_client(self, text: str, line: int, col: int) -> tuple[int, int]:
        """(line, character) of a character column, in the client's units."""
        doc = _lines(text)
        line = min(line, max(len(doc.lines) - 1, 0))
        if line not in doc.wide:
            return line, min(col, len(doc.lines[line]))
        found = self.workspace.position_codec.position_to_client_units(
            doc.lines, types.Position(line=line, character=col))
        return found.line, found.character

    def from_client(self, text: str, position: types.Position) -> tuple[int, int]:
        server = self.workspace.position_codec.position_from_client_units(
            _lines(text).lines, types.Position(line=position.line, character=position.character))
        return server.line, server.character

    def span(self, text: str, line: int, col: int,
             length: int) -> tuple[tuple[int, int], tuple[int, int]]:
        """The start and end (line, character) of ``length`` characters of a document's
        ``text``, in client units."""
        return self.to_client(text, line, col), self.to_client(text, line, col + max(length, 1))

    def range(self, analysis: Analysis, path: str, line: int, col: int,
              length: int) -> types.Range:
        (l0, c0), (l1, c1) = self.span(analysis.text(path), line, col, length)
        return types.Range(start=types.Position(line=l0, character=c0),
                           end=types.Position(line=l1, character=c1))

    def location(self, analysis: Analysis, o: Occurrence) -> types.Location:
        return types.Location(uri=self.uri(o.path),
                              range=self.range(analysis, o.path, o.line, o.col, o.length))

    def at(self, uri: str, position: types.Position) -> tuple[Analysis, Occurrence | None]:
        analysis = self.analysis(uri)
        path = _path(uri)
        line, col = self.from_client(analysis.text(path), position)
        return analysis, analysis.index.at(path, line, col)

    def symbol_at(self, params, roles=None) -> tuple[Analysis, Occurrence | None]:
        """The declared name under the cursor (of one of ``roles``), if any."""
        analysis, o = self.at(params.text_document.uri, params.position)
        if o is None or o.key is None or (roles is not None and o.role not in roles):
            return analysis, None
        return analysis, o

    # -- diagnostics --------------------------------------------------------------------

    def _json_range(self, text: str, line: int, col: int, length: int) -> dict:
        doc = _lines(text)
        line = min(line, max(len(doc.lines) - 1, 0))
        if line in doc.wide:
            (line, c0), (_, c1) = self.span(text, line, col, length)
        else:  # to_client's ASCII case, inline: one diagnostic per line of 200,000
            width = len(doc.lines[line])
            c0, c1 = min(col, width), min(col + max(length, 1), width)
        return {"start": {"line": line, "character": c0}, "end": {"line": line, "character": c1}}

    def _diagnostic(self, texts: dict[str, str], p: Problem) -> dict:
        """A diagnostic as the protocol's JSON (``texts``: the program's documents by
        path): built as plain data, since making and then unstructuring lsprotocol
        objects cost as much again as placing them."""
        found = {"range": self._json_range(texts[p.path], p.line, p.col, p.length),
                 "message": p.message, "severity": _SEVERITY[p.severity], "source": "gpuisa"}
        if p.code is not None:
            found["code"] = p.code
        if p.related:
            found["relatedInformation"] = [
                {"location": {"uri": self.uri(r.path),
                              "range": self._json_range(texts[r.path], r.line, r.col, 1)},
                 "message": r.message} for r in p.related]
        return found

    def send(self, message: dict) -> None:
        """Write one message to the client, framed (as pygls does, without its
        per-object conversion)."""
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        self.protocol.writer.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))

    def publish_diagnostics(self, uri: str, diagnostics: list[dict]) -> None:
        self.send({"method": types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS,
                   "params": {"uri": uri, "diagnostics": diagnostics}})

    def publish(self, uri: str) -> None:
        path = _path(uri)
        sources, error = self.project.program(path)
        analysis = self.project.analyse(sources)
        files = {p for p, _ in analysis.sources}
        for stale in self.published.get(path, set()) - files:
            self.publish_diagnostics(self.uri(stale), [])
        self.published[path] = files
        texts = dict(analysis.sources)
        for name in files:
            found = [self._diagnostic(texts, p) for p in analysis.problems.get(name, ())]
            if error is not None and name == path:
                found.insert(0, {"range": self._json_range(texts[path], 0, 0, 1),
                                 "message": error.message, "source": "gpuisa",
                                 "severity": _SEVERITY["error"]})
            self.publish_diagnostics(self.uri(name), found)


server = PicaServer()


def _safe(default=None) -> Callable:
    """Log any failure of a handler and answer ``default``."""

    def wrap(handler: Callable) -> Callable:
        @functools.wraps(handler)
        def run(ls: PicaServer, params):
            try:
                return handler(ls, params)
            except JsonRpcInvalidParams:
                raise
            except Exception:
                ls.window_log_message(types.LogMessageParams(
                    type=types.MessageType.Error,
                    message=f"pica lsp: {handler.__name__} failed:\n{traceback.format_exc()}"))
                return default

        return run

    return wrap


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
@_safe()
def _changed(ls: PicaServer, params) -> None:
    ls.publish(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
@_safe()
def _closed(ls: PicaServer, params: types.DidCloseTextDocumentParams) -> None:
    ls.publish_diagnostics(params.text_document.uri, [])


@server.feature(types.TEXT_DOCUMENT_HOVER)
@_safe()
def _hover(ls: PicaServer, params: types.HoverParams) -> types.Hover | None:
    analysis, o = ls.at(params.text_document.uri, params.position)
    text = hover_text(analysis, o) if o is not None else None
    if not text:
        return None
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text),
                       range=ls.range(analysis, o.path, o.line, o.col, o.length))


@server.feature(types.TEXT_DOCUMENT_DEFINITION)
@_safe()
def _definition(ls: PicaServer, params: types.DefinitionParams) -> list[types.Location] | None:
    analysis, o = ls.symbol_at(params)
    if o is None:
        return None
    found = analysis.index.definitions(o.key)
    same_unit = [d for d in found if d.unit == o.unit]
    return [ls.location(analysis, d) for d in (same_unit or found)]


@server.feature(types.TEXT_DOCUMENT_REFERENCES)
@_safe()
def _references(ls: PicaServer, params: types.ReferenceParams) -> list[types.Location] | None:
    analysis, o = ls.symbol_at(params)
    if o is None:
        return None
    include = params.context.include_declaration
    return [ls.location(analysis, r) for r in analysis.index.of_key(o.key)
            if include or not r.definition]


@server.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
@_safe()
def _prepare_rename(ls: PicaServer, params: types.PrepareRenameParams) -> types.Range | None:
    analysis, o = ls.symbol_at(params, SYMBOL_ROLES)
    return None if o is None else ls.range(analysis, o.path, o.line, o.col, o.length)


@server.feature(types.TEXT_DOCUMENT_RENAME)
@_safe()
def _rename(ls: PicaServer, params: types.RenameParams) -> types.WorkspaceEdit | None:
    analysis, o = ls.symbol_at(params, SYMBOL_ROLES)
    if o is None:
        return None
    new = params.new_name
    if not new or not is_identifier(new) or is_register(new):
        raise JsonRpcInvalidParams(f"'{new}' is not a valid name (letters, digits, _ and $, "
                                   "not a register name)")
    changes: dict[str, list[types.TextEdit]] = {}
    for r in analysis.index.of_key(o.key):
        changes.setdefault(ls.uri(r.path), []).append(types.TextEdit(
            range=ls.range(analysis, r.path, r.line, r.col, r.length), new_text=new))
    return types.WorkspaceEdit(changes=changes)


@server.feature(types.TEXT_DOCUMENT_COMPLETION,
                types.CompletionOptions(trigger_characters=[".", ",", " "]))
@_safe()
def _completion(ls: PicaServer, params: types.CompletionParams) -> types.CompletionList | None:
    analysis = ls.analysis(params.text_document.uri)
    path = _path(params.text_document.uri)
    text = analysis.text(path)
    line, col = ls.from_client(text, params.position)
    lines = _lines(text).lines
    prefix = lines[line][:col] if line < len(lines) else ""
    items = [types.CompletionItem(label=c.label, detail=c.detail or None,
                                  kind=_COMPLETION_KIND.get(c.role.value))
             for c in complete(analysis, path, line, prefix)]
    return types.CompletionList(is_incomplete=False, items=items)


@server.feature(types.TEXT_DOCUMENT_SIGNATURE_HELP,
                types.SignatureHelpOptions(trigger_characters=[" ", ","]))
@_safe()
def _signature(ls: PicaServer, params: types.SignatureHelpParams) -> types.SignatureHelp | None:
    text = ls.analysis(params.text_document.uri).text(_path(params.text_document.uri))
    line, col = ls.from_client(text, params.position)
    lines = _lines(text).lines
    found = signature_help(lines[line][:col] if line < len(lines) else "")
    if found is None:
        return None
    info = types.SignatureInformation(
        label=found.label, documentation=found.documentation,
        parameters=[types.ParameterInformation(label=p) for p in found.parameters])
    return types.SignatureHelp(signatures=[info], active_signature=0,
                               active_parameter=found.active)


@server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
@_safe()
def _symbols(ls: PicaServer, params: types.DocumentSymbolParams) -> list[types.DocumentSymbol]:
    analysis = ls.analysis(params.text_document.uri)
    path = _path(params.text_document.uri)
    out = []
    for o in document_symbols(analysis.index, path):
        span = ls.range(analysis, path, o.line, o.col, o.length)
        out.append(types.DocumentSymbol(name=o.text, kind=types.SymbolKind[SYMBOL_KINDS[o.role]],
                                        range=span, selection_range=span, detail=o.role.value))
    return out


@server.feature(types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL,
                types.SemanticTokensLegend(token_types=list(TOKEN_TYPES),
                                           token_modifiers=list(TOKEN_MODIFIERS)))
@_safe()
def _tokens(ls: PicaServer, params: types.SemanticTokensParams) -> types.SemanticTokens:
    analysis = ls.analysis(params.text_document.uri)
    path = _path(params.text_document.uri)
    text = analysis.text(path)
    data = semantic_tokens(analysis.index, path,
                           lambda line, col: ls.to_client(text, line, col)[1])
    return types.SemanticTokens(data=data)


#: Limits of the framing (the LSP base protocol): one header line, the header fields of
#: one message, one message (a 200,000-line document is about 10 MB of JSON).
MAX_HEADER_LINE = 8 << 10
MAX_HEADER_FIELDS = 32
MAX_MESSAGE_BYTES = 128 << 20


class _Broken(Exception):
    """The input no longer follows the protocol: no later message can be found in it."""


class _Input:
    """The client's byte stream, read in a thread of its own so that the event loop pygls
    schedules work on keeps running, never more than asked for at once."""

    def __init__(self, stream: BinaryIO):
        self.stream = stream
        self.pool = ThreadPoolExecutor(1, thread_name_prefix="pica-lsp-input")

    async def call(self, function: Callable[[int], bytes], size: int) -> bytes:
        return await asyncio.get_running_loop().run_in_executor(self.pool, function, size)

    async def header(self) -> int | None:
        """The Content-Length of the next message (None: the input ended between
        messages)."""
        fields: dict[bytes, bytes] = {}
        while True:
            line = await self.call(self.stream.readline, MAX_HEADER_LINE + 2)
            if not line:
                if fields:
                    raise _Broken("the input ended inside a message header")
                return None
            text = line.rstrip(b"\r\n")
            if len(text) > MAX_HEADER_LINE:
                raise _Broken(f"a header line longer than {MAX_HEADER_LINE} bytes")
            if not text:
                if fields:
                    break
                continue  # blank lines between messages
            name, colon, value = text.partition(b":")
            if not colon or not name.strip():
                raise _Broken(f"not a message header: {_shown(text)}")
            fields[name.strip().lower()] = value.strip()
            if len(fields) > MAX_HEADER_FIELDS:
                raise _Broken(f"more than {MAX_HEADER_FIELDS} header fields")
        length = fields.get(b"content-length")
        if length is None:
            raise _Broken("a message without a Content-Length header")
        if not length.isdigit():  # ASCII digits only (bytes)
            raise _Broken(f"Content-Length is not a byte count: {_shown(length)}")
        size = int(length) if len(length) <= 18 else MAX_MESSAGE_BYTES + 1
        if size > MAX_MESSAGE_BYTES:
            raise _Broken(f"a message of {int(length):,} bytes; at most "
                          f"{MAX_MESSAGE_BYTES:,} are read")
        return size

    async def body(self, size: int) -> bytes:
        data = await self.call(self.stream.read, size)
        if len(data) < size:
            raise _Broken(f"the input ended inside a message body ({len(data):,} of "
                          f"{size:,} bytes)")
        return data


def _shown(data: bytes, limit: int = 40) -> str:
    return repr(data[:limit]) + ("..." if len(data) > limit else "")


def _message_id(raw: object) -> int | str | None:
    """The request id of a decoded message, if it has a valid one (JSON-RPC: a string or
    a number), for an error response."""
    ident = raw.get("id") if isinstance(raw, dict) else None
    return ident if isinstance(ident, int | str) and not isinstance(ident, bool) else None


def _reply_error(ls: PicaServer, ident: int | str | None, code: int, message: str) -> None:
    ls.send({"id": ident, "error": {"code": code, "message": message}})


def _invalid(error: JsonRpcException) -> str:
    """What was wrong with a message pygls could not decode, in a line."""
    cause = error.__cause__
    if cause is None:
        return error.message
    try:
        from cattrs import transform_error

        details = "; ".join(transform_error(cause))
    except Exception:
        details = str(cause)
    return f"{error.message}: {details[:300]}"


def _handle(ls: PicaServer, body: bytes) -> None:
    """Decode and handle one message; a request that cannot be handled gets an error."""
    try:
        raw = json.loads(body)
    except (ValueError, RecursionError) as error:  # not JSON, not UTF-8, too deep
        _reply_error(ls, None, JsonRpcParseError.CODE, f"Parse error: {str(error)[:200]}")
        return
    ident = _message_id(raw)
    if not isinstance(raw, dict) or raw.get("jsonrpc") != "2.0":
        _reply_error(ls, ident, JsonRpcInvalidRequest.CODE,
                     "Invalid Request: not a JSON-RPC 2.0 message object")
        return
    try:
        message = ls.protocol.structure_message(raw)
    except JsonRpcException as error:  # e.g. a position at line -1 or 2^40
        if "id" in raw and "method" in raw:
            _reply_error(ls, ident, error.code, _invalid(error))
        else:
            _log.warning("ignored %s: %s", raw.get("method", "a message"), _invalid(error))
        return
    ls.protocol.handle_message(message)


async def _run(ls: PicaServer, source: _Input) -> int:
    while True:
        size = await source.header()
        if size is None:
            return 0  # the client closed the stream
        try:
            _handle(ls, await source.body(size))
        except SystemExit as done:  # pygls ends the process on "exit"
            return done.code if isinstance(done.code, int) else 0
        except BrokenPipeError:
            return 0  # the client stopped reading: nobody to answer


_log = logging.getLogger("gpuisa.pica.lsp")


class _OneLine(logging.Formatter):
    """Log records as one line on standard error: pygls logs a traceback with every
    message it cannot decode, which the editor shows the user."""

    def format(self, record: logging.LogRecord) -> str:
        first = record.getMessage().splitlines()[:1]
        return f"pica lsp: {record.levelname.lower()}: {first[0] if first else ''}"


def _quiet_logs() -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_OneLine())
    handler.setLevel(logging.WARNING)
    for name in ("pygls", _log.name):
        logger = logging.getLogger(name)
        logger.addHandler(handler)
        logger.propagate = False


def serve(stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> int:
    """Run the server on ``stdin``/``stdout`` (the process's by default) until the client
    says exit or closes the input; the exit status (1 for "exit" without "shutdown", as
    the protocol says).  Input that does not follow the protocol is answered with a parse
    error and raises :class:`InputError`."""
    _quiet_logs()
    server._stop_event = threading.Event()  # what pygls's shutdown() sets
    server.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
    source = _Input(stdin or sys.stdin.buffer)
    try:
        return asyncio.run(_run(server, source))
    except _Broken as error:
        with contextlib.suppress(OSError):
            _reply_error(server, None, JsonRpcParseError.CODE,
                         f"pica lsp: {error}: nothing after it can be read")
        raise InputError(f"lsp: standard input: {error}") from None
    finally:
        source.pool.shutdown(wait=False)
        server.shutdown()
