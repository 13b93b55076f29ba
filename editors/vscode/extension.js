// Starts `pica lsp` (gpuisa's language server) for PICA200 shader sources.
"use strict";

const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const [command, ...args] = vscode.workspace
    .getConfiguration("pica")
    .get("server.command", ["pica", "lsp"]);
  const server = { command, args, transport: TransportKind.stdio };
  client = new LanguageClient(
    "pica",
    "PICA200 shaders (pica lsp)",
    { run: server, debug: server },
    {
      documentSelector: [{ scheme: "file", language: "pica" }, { scheme: "untitled", language: "pica" }],
      synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher("**/.picaproject") },
    }
  );
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
