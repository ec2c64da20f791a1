"""Notebook cells through LSP notebook sync, and a smoke test of the installed server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.conftest import diagnostics_for, start

CELLS = [
    "import tensorflow as tf\n%matplotlib inline\n",
    "# a markdown-free comment cell\n",
    "class Scale(tf.keras.layers.Layer):\n"
    "    @tf.custom_gradient\n"
    "    def call(self, inputs, training=None):\n"
    "        return inputs * 2.0, lambda dy: dy * 2.0\n",
]


async def test_notebook_cells(client: LanguageClient, workspace: Path) -> None:
    await start(client, workspace)
    notebook = (workspace / "demo.ipynb").as_uri()
    cells = [f"{notebook}#cell{i}" for i in range(len(CELLS))]
    client.notebook_document_did_open(types.DidOpenNotebookDocumentParams(
        notebook_document=types.NotebookDocument(
            uri=notebook, notebook_type="jupyter-notebook", version=1,
            cells=[types.NotebookCell(kind=types.NotebookCellKind.Code, document=uri)
                   for uri in cells]),
        cell_text_documents=[types.TextDocumentItem(uri=uri, language_id="python", version=1,
                                                    text=text)
                             for uri, text in zip(cells, CELLS, strict=True)]))
    found = await diagnostics_for(client, cells[2])
    assert [d.code for d in found] == ["TFI001"]
    assert found[0].range.start.line == 1, "cell-relative line"
    assert await diagnostics_for(client, cells[0], check=lambda d: True) == []

    # edit the third cell: the finding goes away
    client.notebook_document_did_change(types.DidChangeNotebookDocumentParams(
        notebook_document=types.VersionedNotebookDocumentIdentifier(uri=notebook, version=2),
        change=types.NotebookDocumentChangeEvent(cells=types.NotebookDocumentCellChanges(
            text_content=[types.NotebookDocumentCellContentChanges(
                document=types.VersionedTextDocumentIdentifier(uri=cells[2], version=2),
                changes=[types.TextDocumentContentChangeWholeDocument(
                    text=CELLS[2].replace("@tf.custom_gradient", "# fixed"))])]))))
    assert await diagnostics_for(client, cells[2], check=lambda d: d == []) == []

    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=cells[2]),
        position=types.Position(line=2, character=9)))
    assert hover is not None and "graph mode" in str(hover.contents)


def _frame(message: dict[str, object]) -> bytes:
    body = json.dumps(message).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _read(stream: object) -> dict[str, object]:
    headers = {}
    while (line := stream.readline().strip()):  # type: ignore[attr-defined]
        name, _, value = line.decode().partition(":")
        headers[name.lower()] = value.strip()
    return json.loads(stream.read(int(headers["content-length"])))  # type: ignore[attr-defined, no-any-return]


def test_installed_server_answers_initialize(tmp_path: Path) -> None:
    """`python -m tf_insight_server` from an unrelated folder (the installed package, not the
    source tree) answers initialize, then shuts down cleanly."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    process = subprocess.Popen([sys.executable, "-m", "tf_insight_server"], cwd=tmp_path,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=env)
    try:
        assert process.stdin and process.stdout
        process.stdin.write(_frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "processId": os.getpid(), "rootUri": tmp_path.as_uri(), "capabilities": {}}}))
        process.stdin.flush()
        reply = _read(process.stdout)
        result = reply["result"]
        assert isinstance(result, dict)
        assert result["serverInfo"]["name"] == "tf-insight"
        capabilities = result["capabilities"]
        assert capabilities["hoverProvider"] and capabilities["codeActionProvider"]
        assert set(capabilities["executeCommandProvider"]["commands"]) >= {
            "tfInsight.explainError", "tfInsight.startSession", "tfInsight.stopSession",
            "tfInsight.checkWorkspace", "tfInsight.showRule"}
        for message in ({"jsonrpc": "2.0", "method": "initialized", "params": {}},
                        {"jsonrpc": "2.0", "id": 2, "method": "shutdown"}):
            process.stdin.write(_frame(message))
        process.stdin.flush()
        assert _read(process.stdout)["id"] == 2
        process.stdin.write(_frame({"jsonrpc": "2.0", "method": "exit"}))
        process.stdin.flush()
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_killed_server_leaves_no_worker(tmp_path: Path) -> None:
    """An editor may SIGKILL the server; its analysis worker process must not outlive it."""
    process = subprocess.Popen([sys.executable, "-m", "tf_insight_server"], cwd=tmp_path,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL)
    try:
        assert process.stdin and process.stdout
        for message in ({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                            "processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}}},
                        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
                        {"jsonrpc": "2.0", "id": 2, "method": "tfInsight/serverInfo",
                         "params": {}}):
            process.stdin.write(_frame(message))
        process.stdin.flush()
        while (reply := _read(process.stdout)).get("id") != 2:
            pass
        worker = reply["result"]["worker"]["pid"]  # type: ignore[index]
        assert Path(f"/proc/{worker}").exists()
    finally:
        process.kill()
        process.wait()
    deadline = time.monotonic() + 30
    while Path(f"/proc/{worker}").exists() and time.monotonic() < deadline:
        time.sleep(0.1)  # polling for the worker's exit, not a fixed wait
    assert not Path(f"/proc/{worker}").exists(), "orphaned analysis worker"
