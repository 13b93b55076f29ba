"""``pica lsp``: the language server for picasso shader sources, over stdio.

Editors start it as ``pica lsp``; it speaks the Language Server Protocol on standard
input and output until the editor ends the session.  It needs the optional ``lsp`` extra
(``pip install "gpuisa[lsp]"``: pygls and lsprotocol), imported only here and in
:mod:`gpuisa.pica.lsp.server`.
"""

from __future__ import annotations

import argparse

from ...errors import InputError

PROG = "pica lsp"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "lsp", help="run the language server (LSP over stdio) for editors",
        description="Run the PICA200 shader language server on standard input/output: "
                    "diagnostics, hover, go to definition, references, rename, completion, "
                    "signature help, document symbols and semantic tokens for picasso "
                    "sources. Files analysed together are listed in a .picaproject file.")
    parser.add_argument("--stdio", action="store_true",
                        help="accepted for editors that pass it; stdio is the only transport")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        from ..lsp.server import serve
    except ImportError as error:
        raise InputError(f"pica lsp needs the optional dependencies pygls and lsprotocol "
                         f"({error}); install them with: pip install \"gpuisa[lsp]\"") from None
    return serve()
