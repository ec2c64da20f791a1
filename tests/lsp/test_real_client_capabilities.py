"""The server with the capabilities real clients declare (pytest-lsp's recorded sets): VS Code
(push, UTF-16) and Neovim 0.11 (pull, UTF-8). pytest-lsp checks every message the server sends
against the declared capabilities."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

from tests.lsp.conftest import diagnostics_for, marker, open_file, server_info


@pytest.mark.parametrize("spec", ["visual-studio-code", "neovim@v0.11.0"])
async def test_recorded_client(client: LanguageClient, workspace: Path, spec: str) -> None:
    await client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities(spec), root_uri=workspace.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="project")]))
    path = workspace / "seed_layernorm.py"
    uri = open_file(client, path)
    info = await server_info(client)
    if info["pushDiagnostics"]:
        found = list(await diagnostics_for(client, uri))
    else:
        report = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
            text_document=types.TextDocumentIdentifier(uri=uri)))
        found = list(report.items)
    assert info["positionEncoding"] == ("utf-8" if spec.startswith("neovim") else "utf-16")
    diagnostic = next(d for d in found if d.code == "TFI001")
    assert diagnostic.range.start.line == marker(path, "decorator")[0]

    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=diagnostic.range.start))
    assert hover is not None and "TFI001" in str(hover.contents)
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=diagnostic.range,
        context=types.CodeActionContext(diagnostics=[diagnostic])))
    assert actions and any("noqa" in a.title for a in actions)
