"""Language server on large documents: the time from an edit to its diagnostics, and of
a hover, on 10,000 / 100,000 / 200,000-line documents.

Run: ``python -m benchmarks.bench_lsp_large [--lines 10000,100000,200000]`` from the
repository root.  Starts ``python -m gpuisa lsp`` and speaks the protocol to it over its
standard input and output, as an editor does: opens a document, then edits one
character of a line in its middle (an incremental change) three times, each time
waiting for the diagnostics the server publishes, and asks for a hover there.  Prints
the time of the first analysis (didOpen), the best and the worst of the edits, and the
hover.  Not part of the test suite: timings depend on the machine.

Three kinds of document: ``mixed``, a shader whose body is instructions with comments and
comment lines (past the 512-instruction limit: one error), ``clean``, 400 instructions
among comment lines (no diagnostic: ``pica check`` runs too), and ``errors``, one error
per line (``add r0, r1, c0``: every line a diagnostic), the case that was quadratic.

``--cpu`` measures instead, in this process, the processor time the server spends on an
edit (applying the change, analysing, sending the diagnostics) and then on indexing the
new version (what the first hover, completion or token request after an edit waits
for): a shared machine's load stretches the wall-clock figures far more than these.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from queue import Empty, Queue

URI = "file:///bench/large.v.pica"


def document(kind: str, lines: int) -> str:
    if kind == "errors":
        body = "".join("    add r0, r1, c0\n" for _ in range(lines))
    elif kind == "clean":  # 400 instructions among comment lines: no diagnostic
        every = max(lines // 400, 1)
        body = "".join(f"    dp4 r0.{'xyzw'[k // every % 4]}, m[{k % 90}], v0 ; step {k}\n"
                       if k % every == 0 else f"; --- note {k} ---\n" for k in range(lines))
        return ".fvec m[90]\n.out opos position\n.proc main\n" + body + \
            "    mov opos, r0\n    end\n.end\n"
    else:
        body = "".join(f"    dp4 r{k % 8}.x, c{k % 90}, v{k % 4} ; step {k}\n" if k % 4
                       else f"; --- block {k} ---\n" for k in range(lines))
    return ".out opos position\n.proc main\n" + body + "    mov opos, r0\n    end\n.end\n"


class Client:
    """A minimal LSP client over a subprocess's pipes."""

    def __init__(self) -> None:
        root = Path(__file__).resolve().parents[1]
        env = dict(os.environ, PYTHONPATH=str(root / "src"))
        self.process = subprocess.Popen([sys.executable, "-m", "gpuisa", "lsp"],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, env=env)
        self.messages: Queue = Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.next_id = 0

    def _read(self) -> None:
        stream = self.process.stdout
        while True:
            header = b""
            while not header.endswith(b"\r\n\r\n"):
                byte = stream.read(1)
                if not byte:
                    return
                header += byte
            length = int(header.split(b"Content-Length:")[1].split(b"\r\n")[0])
            self.messages.put(json.loads(stream.read(length)))

    def send(self, message: dict) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def request(self, method: str, params: dict) -> dict:
        self.next_id += 1
        ident = self.next_id
        self.send({"id": ident, "method": method, "params": params})
        return self.wait(lambda m: m.get("id") == ident)

    def wait(self, wanted, timeout: float = 600) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            try:
                message = self.messages.get(timeout=max(deadline - time.monotonic(), 0.01))
            except Empty:
                raise TimeoutError("no answer from the server") from None
            if wanted(message):
                return message

    def diagnostics(self) -> dict:
        return self.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                         and m["params"]["uri"] == URI)

    def close(self) -> None:
        self.request("shutdown", {})
        self.send({"method": "exit"})
        self.process.wait(timeout=60)


def measure(kind: str, lines: int) -> dict[str, float]:
    text = document(kind, lines)
    middle = lines // 2 + 2  # a body line
    client = Client()
    client.request("initialize", {"capabilities": {}})
    client.send({"method": "initialized", "params": {}})
    start = time.perf_counter()
    client.send({"method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": URI, "languageId": "pica", "version": 1, "text": text}}})
    published = client.diagnostics()
    times = {"open": time.perf_counter() - start,
             "diagnostics": len(published["params"]["diagnostics"])}
    edits = []
    for version, register in enumerate("123", start=2):
        # "    dp4 r5..." / "    add r0...": the register number, column 9
        change = {"range": {"start": {"line": middle, "character": 9},
                            "end": {"line": middle, "character": 10}}, "text": register}
        start = time.perf_counter()
        client.send({"method": "textDocument/didChange", "params": {
            "textDocument": {"uri": URI, "version": version}, "contentChanges": [change]}})
        client.diagnostics()
        edits.append(time.perf_counter() - start)
    start = time.perf_counter()
    client.request("textDocument/hover", {"textDocument": {"uri": URI},
                                          "position": {"line": middle, "character": 5}})
    times.update(edit_best=min(edits), edit_worst=max(edits),
                 hover=time.perf_counter() - start)
    client.close()
    return times


def measure_cpu(kind: str, lines: int) -> dict[str, float]:
    """Processor time of the server's handling of an edit, in this process: the best of
    three edits, and the index built after the last."""
    import io
    import tempfile

    from lsprotocol import types
    from pygls.io_ import StdoutWriter

    from gpuisa.pica.lsp.server import PicaServer

    ls = PicaServer()
    for _ in ls.protocol.lsp_initialize(types.InitializeParams(
            capabilities=types.ClientCapabilities())):
        pass
    ls.protocol.set_writer(StdoutWriter(io.BytesIO()))
    uri = (Path(tempfile.gettempdir()) / "bench-large.v.pica").as_uri()
    ls.workspace.put_text_document(types.TextDocumentItem(
        uri=uri, language_id="pica", version=1, text=document(kind, lines)))
    ls.publish(uri)
    middle = lines // 2 + 2
    edits = []
    for version, register in enumerate("123", start=2):
        start = time.process_time()
        ls.workspace.update_text_document(
            types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            types.TextDocumentContentChangePartial(range=types.Range(
                start=types.Position(line=middle, character=9),
                end=types.Position(line=middle, character=10)), text=register))
        ls.publish(uri)
        edits.append(time.process_time() - start)
    start = time.process_time()
    assert ls.analysis(uri).index.occurrences
    return {"edit": min(edits), "index": time.process_time() - start}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", default="10000,100000,200000",
                        help="document sizes, comma-separated")
    parser.add_argument("--kinds", default="mixed,clean,errors",
                        help="mixed, clean and/or errors")
    parser.add_argument("--cpu", action="store_true",
                        help="processor time of the server's work, in this process")
    args = parser.parse_args()
    if args.cpu:
        print("| document | lines | edit to diagnostics (CPU) | then the index (CPU) |")
        print("|---|---|---|---|")
        for kind in args.kinds.split(","):
            for lines in (int(n) for n in args.lines.split(",")):
                t = measure_cpu(kind, lines)
                print(f"| {kind} | {lines:,} | {t['edit']:.2f} s | {t['index']:.2f} s |",
                      flush=True)
        return 0
    print("| document | lines | diagnostics | didOpen | edit (best) | edit (worst) | hover |")
    print("|---|---|---|---|---|---|---|")
    for kind in args.kinds.split(","):
        for lines in (int(n) for n in args.lines.split(",")):
            t = measure(kind, lines)
            print(f"| {kind} | {lines:,} | {t['diagnostics']:,} | {t['open']:.2f} s | "
                  f"{t['edit_best']:.2f} s | {t['edit_worst']:.2f} s | {t['hover']:.3f} s |",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
