"""Guided sessions on real TF scripts: steps streamed as they happen, the verdict at the end,
annotations as inlay hints, and cancellation that leaves nothing running (slow: real TF)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.conftest import DATA, open_file, plain, server_info, start

pytestmark = pytest.mark.slow
SESSION = DATA / "session"
SESSION_TIMEOUT = 400.0
TRUSTED = {"tfInsight": {"trustedWorkspace": True}}  # sessions start only in trusted workspaces


def record_sessions(client: LanguageClient) -> list[tuple[str, dict[str, Any]]]:
    """Every tfInsight/sessionStep and tfInsight/sessionEnd, in the order received."""
    received: list[tuple[str, dict[str, Any]]] = []
    for method in ("tfInsight/sessionStep", "tfInsight/sessionEnd"):
        def handler(params: Any, method: str = method) -> None:
            received.append((method, plain(params)))
        client.feature(method)(handler)

    @client.feature(types.WORKSPACE_INLAY_HINT_REFRESH)
    def refresh(params: Any) -> None:
        received.append((types.WORKSPACE_INLAY_HINT_REFRESH, {}))

    return received


async def wait_for_end(client: LanguageClient, received: list[tuple[str, dict[str, Any]]],
                       session_id: str) -> dict[str, Any]:
    async def loop() -> dict[str, Any]:
        while True:
            for method, params in received:
                if method == "tfInsight/sessionEnd" and params["sessionId"] == session_id:
                    return params["result"]
            await client.wait_for_notification("tfInsight/sessionEnd")

    return await asyncio.wait_for(loop(), SESSION_TIMEOUT)


def descendants(pid: int) -> list[int]:
    """Live child processes (recursively) of `pid`, from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] != "Z":
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


async def test_session_streams_steps_and_verdict(client: LanguageClient) -> None:
    await start(client, SESSION, options=TRUSTED)
    received = record_sessions(client)
    script = SESSION / "train_layernorm.py"
    uri = open_file(client, script)

    started = plain(await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="tfInsight.startSession", arguments=[{"script": str(script), "args": [],
                                                      "python": None, "cwd": None, "env": {}}])))
    session_id = started["sessionId"]
    result = await wait_for_end(client, received, session_id)

    steps = [p["step"] for m, p in received if m == "tfInsight/sessionStep"
             and p["sessionId"] == session_id]
    order = [m for m, _ in received if m != types.WORKSPACE_INLAY_HINT_REFRESH]
    assert order[-1] == "tfInsight/sessionEnd", "steps stream before the end"
    assert any(m == types.WORKSPACE_INLAY_HINT_REFRESH for m, _ in received)
    assert steps, "no step streamed"
    assert [s["index"] for s in steps] == sorted(s["index"] for s in steps)
    rejected = [s for s in steps if s["probe"] == "custom_gradient._graph_mode_decorator"]
    assert rejected and "training" in rejected[-1]["kwargs"]
    assert result["status"] == "failed" and result["exit_code"] not in (0, None)
    assert result["verdict"]["rule"] == "TFI001"
    assert result["exception"]["type"].endswith("ValueError")
    assert len(result["steps"]) == len(steps)

    # progress: begun, reported per step, ended with the verdict
    reports = next(r for r in client.progress_reports.values()
                   if r and r[0].kind == "begin" and "train_layernorm.py" in r[0].title)
    assert reports[-1].kind == "end"

    # annotations on the user's lines: inlay hints and the custom request
    fit_line = next(i for i, line in enumerate(script.read_text().splitlines())
                    if line.startswith("model.fit("))
    hints = await client.text_document_inlay_hint_async(types.InlayHintParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=types.Position(line=0, character=0),
                          end=types.Position(line=100, character=0))))
    assert hints, "no inlay hints"
    labels = [h.label for h in hints if h.position.line == fit_line]
    assert any("LayerNormalization.__call__" in str(label) and "kwargs: training=True"
               in str(label) for label in labels), labels
    assert all(str(label).startswith("⟵ ") for label in labels)
    annotations = plain(await client.protocol.send_request_async(
        "tfInsight/sessionAnnotations", {"uri": uri}))
    assert any(a["line"] == fit_line and "Bind(recompute_grad)" in a["label"]
               for a in annotations), annotations

    info = await server_info(client)
    assert info["sessions"] == [] and info["tensorflowImported"] is False


@pytest.mark.parametrize("how", ["stopSession", "progressCancel"])
async def test_cancel_session_leaves_nothing_running(client: LanguageClient, how: str) -> None:
    await start(client, SESSION, options=TRUSTED)
    received = record_sessions(client)
    server_pid = (await server_info(client))["pid"]  # the analysis worker is up by now
    before = set(descendants(server_pid))  # the server's own: worker, resource tracker
    started = plain(await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="tfInsight.startSession",
        arguments=[{"script": "runs_forever.py", "cwd": str(SESSION)}])))
    session_id = started["sessionId"]

    async def first_step() -> None:
        while not any(m == "tfInsight/sessionStep" for m, _ in received):
            await client.wait_for_notification("tfInsight/sessionStep")

    await asyncio.wait_for(first_step(), SESSION_TIMEOUT)
    assert set(descendants(server_pid)) - before, "the script runs in a child process"

    if how == "stopSession":
        stopped = plain(await client.workspace_execute_command_async(types.ExecuteCommandParams(
            command="tfInsight.stopSession", arguments=[{"sessionId": session_id}])))
        assert stopped["stopped"] is True
    else:
        token = next(t for t, r in client.progress_reports.items()
                     if r and "runs_forever.py" in getattr(r[0], "title", ""))
        client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))

    result = await wait_for_end(client, received, session_id)
    assert result["status"] == "cancelled"
    info = await server_info(client)
    assert info["sessions"] == []
    assert not any(t.startswith("tfi-session") for t in info["threads"])
    leftovers = [pid for pid in set(descendants(server_pid)) - before
                 if os.path.exists(f"/proc/{pid}")]
    assert leftovers == [], leftovers


async def test_stop_after_setting_ends_the_session_with_the_result_so_far(
        client: LanguageClient) -> None:
    """`tfInsight.session.stopAfter`: a loop that never ends stops after its first step, with
    the counters so far, and nothing is left running."""
    await start(client, SESSION, options={"tfInsight": {
        "trustedWorkspace": True, "session": {"stopAfter": "first-step"}}})
    received = record_sessions(client)
    server_pid = (await server_info(client))["pid"]
    before = set(descendants(server_pid))
    started = plain(await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="tfInsight.startSession",
        arguments=[{"script": "runs_forever.py", "cwd": str(SESSION)}])))
    result = await wait_for_end(client, received, started["sessionId"])
    assert (result["status"], result["stopped_after"]) == ("stopped", "the first step")
    assert result["steps"] and result["exit_code"] is None
    assert any(e["function_calls"] for e in result["side_effects"]), result["side_effects"]
    leftovers = [pid for pid in set(descendants(server_pid)) - before
                 if os.path.exists(f"/proc/{pid}")]
    assert leftovers == [], leftovers
