"""End-to-end tests of the language server through a real LSP client (pytest-lsp) over stdio.

The server runs as `python -m tf_insight_server` in a subprocess. Tests never sleep for a fixed
time: they wait for the notifications they expect (with a timeout), and mark places in the data
files with `# @marker` comments instead of hard-coding line numbers.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

DATA = Path(__file__).parent / "data"
SERVER = [sys.executable, "-m", "tf_insight_server"]
TIMEOUT = 60.0


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient) -> Any:
    yield
    await lsp_client.shutdown_session()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A private copy of the data project (tests edit and delete files)."""
    root = tmp_path / "project"
    shutil.copytree(DATA / "project", root)
    return root


def capabilities(pull: bool = False, progress: bool = True) -> types.ClientCapabilities:
    return types.ClientCapabilities(
        general=types.GeneralClientCapabilities(
            position_encodings=[types.PositionEncodingKind.Utf16]),
        window=types.WindowClientCapabilities(work_done_progress=progress),
        workspace=types.WorkspaceClientCapabilities(
            workspace_edit=types.WorkspaceEditClientCapabilities(document_changes=True),
            configuration=False,
            diagnostics=types.DiagnosticWorkspaceClientCapabilities(refresh_support=True),
            inlay_hint=types.InlayHintWorkspaceClientCapabilities(refresh_support=True),
        ),
        text_document=types.TextDocumentClientCapabilities(
            publish_diagnostics=types.PublishDiagnosticsClientCapabilities(
                related_information=True, version_support=True, code_description_support=True,
                data_support=True),
            diagnostic=types.DiagnosticClientCapabilities() if pull else None,
            hover=types.HoverClientCapabilities(
                content_format=[types.MarkupKind.Markdown, types.MarkupKind.PlainText]),
            inlay_hint=types.InlayHintClientCapabilities(),
            code_action=types.CodeActionClientCapabilities(
                code_action_literal_support=types.ClientCodeActionLiteralOptions(
                    code_action_kind=types.ClientCodeActionKindOptions(
                        value_set=[types.CodeActionKind.QuickFix]))),
        ),
    )


async def start(client: LanguageClient, root: Path, options: Any = None,
                pull: bool = False, progress: bool = True) -> types.InitializeResult:
    return await client.initialize_session(types.InitializeParams(
        capabilities=capabilities(pull=pull, progress=progress),
        root_uri=root.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
        initialization_options=options,
    ))


def open_file(client: LanguageClient, path: Path, text: str | None = None, version: int = 1) -> str:
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(
            uri=uri, language_id="python", version=version,
            text=path.read_text(encoding="utf-8") if text is None else text)))
    return uri


def replace_all(client: LanguageClient, uri: str, text: str, version: int) -> None:
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))


async def wait_until(client: LanguageClient, condition: Callable[[], Any],
                     method: str = types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS,
                     timeout: float = TIMEOUT) -> Any:
    """Wait for notifications of `method` until `condition()` is truthy (checked first)."""

    async def loop() -> Any:
        while not (value := condition()):
            await client.wait_for_notification(method)
        return value

    return await asyncio.wait_for(loop(), timeout)


async def diagnostics_for(client: LanguageClient, uri: str,
                          check: Callable[[list[types.Diagnostic]], bool] = bool,
                          timeout: float = TIMEOUT) -> list[types.Diagnostic]:
    def ready() -> tuple[list[types.Diagnostic]] | None:
        found = client.diagnostics.get(uri)
        return (list(found),) if found is not None and check(list(found)) else None

    result: tuple[list[types.Diagnostic]] = await wait_until(client, ready, timeout=timeout)
    return result[0]


async def server_info(client: LanguageClient) -> dict[str, Any]:
    info: dict[str, Any] = await client.protocol.send_request_async("tfInsight/serverInfo", {})
    return _plain(info)


def _plain(value: Any) -> Any:
    """pygls hands custom results over as namedtuples; tests want dicts and lists."""
    if hasattr(value, "_asdict"):
        return {k: _plain(v) for k, v in value._asdict().items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


plain = _plain


def marker(path: Path, name: str) -> tuple[int, int]:
    """(0-based line, column of the code) of the line marked `# @name`."""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        if re.search(rf"#\s*@{re.escape(name)}\b", line):
            return number, len(line) - len(line.lstrip())
    raise LookupError(f"no `# @{name}` in {path}")


def apply_edits(text: str, edits: list[types.TextEdit]) -> str:
    """Apply LSP edits (UTF-16 positions; the data files are ASCII) to text."""
    lines = text.splitlines(keepends=True)

    def offset(position: types.Position) -> int:
        return sum(len(line) for line in lines[:position.line]) + position.character

    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character),
                       reverse=True):
        start, end = offset(edit.range.start), offset(edit.range.end)
        text = text[:start] + edit.new_text + text[end:]
    return text
