"""The server survives bad input: a rule that throws, binary, huge and deleted files, syntax
errors, unknown documents and bad command arguments."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp.conftest import (
    DATA,
    SERVER,
    diagnostics_for,
    open_file,
    plain,
    replace_all,
    server_info,
    start,
)

CRASHING = {**os.environ, "PYTHONPATH": os.pathsep.join(
    [str(DATA / "crashing_rule"), *sys.path])}


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, server_env=CRASHING))
async def crashing(lsp_client: LanguageClient) -> Any:
    yield
    await lsp_client.shutdown_session()


async def test_rule_that_throws_is_logged_once(crashing: LanguageClient, workspace: Path) -> None:
    client = crashing
    await start(client, workspace)
    assert "TFI099" in (await server_info(client))["rules"]
    uri = open_file(client, workspace / "seed_layernorm.py")
    found = await diagnostics_for(client, uri)
    assert "TFI001" in {d.code for d in found}, "the other rules still run"
    other = open_file(client, workspace / "pkg" / "uses.py")
    await diagnostics_for(client, other)
    replace_all(client, uri, (workspace / "seed_layernorm.py").read_text() + "\n", 2)
    await diagnostics_for(client, uri, check=lambda d: True)
    logged = [m for m in client.log_messages if "TFI099" in m.message]
    assert len(logged) == 1, [m.message for m in logged]
    assert logged[0].type == types.MessageType.Error and "boom" in logged[0].message


async def test_bad_input_never_kills_the_server(client: LanguageClient, workspace: Path) -> None:
    await start(client, workspace)

    binary = workspace / "binary.py"
    binary.write_bytes(b"import tensorflow as tf\x00\x01\x02")
    uri = open_file(client, binary, text="import tensorflow as tf\x00\x01\x02")
    assert await diagnostics_for(client, uri, check=lambda d: True) == []

    huge = workspace / "huge.py"
    text = "import tensorflow as tf\n" + "x = 1\n" * 120_000
    huge.write_text(text)
    uri = open_file(client, huge, text=text)
    assert await diagnostics_for(client, uri, check=lambda d: True) == []
    assert any("too large" in m.message for m in client.log_messages)

    # deleted while open: the editor's text is still analysed
    doomed = workspace / "seed_layernorm.py"
    source = doomed.read_text()
    uri = open_file(client, doomed)
    await diagnostics_for(client, uri)
    doomed.unlink()
    replace_all(client, uri, source + "\n# still typing\n", 2)
    found = await diagnostics_for(client, uri, check=lambda d: any(x.code == "TFI001" for x in d))
    assert found
    client.text_document_did_save(types.DidSaveTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    client.text_document_did_close(types.DidCloseTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    await diagnostics_for(client, uri, check=lambda d: d == [])

    # unknown documents, odd positions, bad command arguments
    ghost = (workspace / "ghost.py").as_uri()
    replace_all(client, ghost, "x = 1", 5)
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=ghost),
        position=types.Position(line=10_000, character=10_000)))
    assert hover is None
    for command, arguments in [("tfInsight.explainError", []),
                               ("tfInsight.startSession", [{"script": "/no/such.py"}]),
                               ("tfInsight.stopSession", [42]),
                               ("tfInsight.showRule", [None])]:
        with pytest.raises(JsonRpcException):
            await client.workspace_execute_command_async(types.ExecuteCommandParams(
                command=command, arguments=arguments))
    stopped = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="tfInsight.stopSession", arguments=[{"sessionId": "nope"}]))
    assert plain(stopped)["stopped"] is False

    info = await server_info(client)  # still answering
    assert info["tensorflowImported"] is False
