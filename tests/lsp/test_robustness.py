"""The server survives bad input: a rule that throws, binary, huge and deleted files, syntax
errors, unknown documents and bad command arguments."""

from __future__ import annotations

import os
import subprocess
import sys
import time
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
from tf_insight.framing import FrameDecoder, encode_message

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


def test_requests_with_impossible_parameters_are_answered(tmp_path: Path) -> None:
    """A negative position does not fit LSP's types: the request is answered "invalid
    params" (pygls logged it and never answered: the client waited forever). Raw frames: a
    typed client would not send them."""
    server = subprocess.Popen([str(Path(sys.executable).with_name("tf-insight-server"))],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL)
    assert server.stdin is not None and server.stdout is not None
    uri = (tmp_path / "x.py").as_uri()
    position = {"textDocument": {"uri": uri}}
    messages: list[dict[str, Any]] = [
        {"id": 1, "method": "initialize", "params": {"capabilities": {}}},
        {"method": "initialized", "params": {}},
        {"method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": uri, "languageId": "python", "version": 1, "text": "import tensorflow\n"}}},
        {"id": 2, "method": "textDocument/hover",
         "params": {**position, "position": {"line": -1, "character": 0}}},
        {"id": 3, "method": "textDocument/hover",
         "params": {**position, "position": {"line": 0, "character": -2**40}}},
        {"id": 4, "method": "textDocument/codeAction", "params": {
            **position, "context": {"diagnostics": []},
            "range": {"start": {"line": -3, "character": 0}, "end": {"line": 0, "character": 0}}}},
        {"id": 5, "method": "shutdown"},
    ]
    for message in messages:
        server.stdin.write(encode_message({"jsonrpc": "2.0", **message}))
    server.stdin.flush()
    decoder, answers = FrameDecoder(), {}
    deadline = time.monotonic() + 30
    while 5 not in answers and time.monotonic() < deadline:
        for answer in decoder.feed(os.read(server.stdout.fileno(), 65536)):
            answers[answer.get("id")] = answer
    server.kill()
    server.wait()
    for request in (2, 3, 4):
        assert answers[request]["error"]["code"] == -32602, answers
    assert answers[5]["result"] is None
