"""tfInsight.checkWorkspace: diagnostics for every file with work-done progress; cancellation
through $/cancelRequest leaves the server serving."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from tests.lsp.conftest import diagnostics_for, open_file, plain, server_info, start


async def test_check_workspace(client: LanguageClient, workspace: Path) -> None:
    (workspace / "broken.py").write_text("import tensorflow as tf\ndef f(:\n")
    (workspace / "latin1.py").write_bytes("# caf\xe9\nimport tensorflow\n".encode("latin-1"))
    await start(client, workspace)
    result = plain(await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="tfInsight.checkWorkspace", arguments=[])))
    assert result["files"] >= 6 and result["findings"] >= 3 and result["cancelled"] is False

    seed = (workspace / "seed_layernorm.py").as_uri()
    uses = (workspace / "pkg" / "uses.py").as_uri()
    broken = (workspace / "broken.py").as_uri()
    assert any(d.code == "TFI001" for d in client.diagnostics[seed])
    assert any(d.code == "TFI001" for d in client.diagnostics[uses])
    assert [d.code for d in client.diagnostics[broken]] == ["TFI000"]
    latin1 = client.diagnostics[(workspace / "latin1.py").as_uri()]
    assert [(d.code, "cannot decode the file: not utf-8 text" in d.message) for d in latin1] == [
        ("TFI000", True)], "undecodable text is a finding, like a syntax error"

    (progress,) = client.progress_reports.values()
    assert progress[0].kind == "begin" and progress[-1].kind == "end"


async def test_thousands_of_files_and_cancel(client: LanguageClient, workspace: Path) -> None:
    block = ("import tensorflow as tf\n\n\n@tf.custom_gradient\ndef f(x, scale=1.0):\n"
             "    return x, lambda dy: dy * scale\n\n\n@tf.function\ndef g(x):\n"
             "    return f(x, scale=2.0)\n")
    for i in range(2000):
        folder = workspace / f"gen{i // 100}"
        folder.mkdir(exist_ok=True)
        (folder / f"m{i}.py").write_text(block)
    await start(client, workspace)
    uri = open_file(client, workspace / "clean.py")
    await diagnostics_for(client, uri, check=lambda d: True)

    request = asyncio.ensure_future(client.protocol.send_request_async(
        types.WORKSPACE_EXECUTE_COMMAND,
        types.ExecuteCommandParams(command="tfInsight.checkWorkspace", arguments=[]),
        msg_id="check-everything"))
    await asyncio.wait_for(client.wait_for_notification(types.PROGRESS), 60)  # begun
    client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="check-everything"))
    with pytest.raises(JsonRpcException, match="cancel"):
        await asyncio.wait_for(request, 60)

    # the server is still serving, and the cancelled check ends
    async def check_ended() -> None:
        while not any(r and r[-1].kind == "end" for r in client.progress_reports.values()):
            await client.wait_for_notification(types.PROGRESS)

    await asyncio.wait_for(check_ended(), 120)
    assert (await server_info(client))["openDocuments"] == 1
    published = sum(1 for key in client.diagnostics if "/gen" in key)
    assert published < 2000, "the check stopped early"
