"""`tfInsight.debugConfiguration`: what an editor needs to debug a script with breakpoints in
graph code (issue 26), refused in an untrusted workspace; its answer, used as VS Code uses it
(the adapter started over stdio, `launch` sent with the arguments), stops in a tf.function."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from tests.debug.dap import PROGRAMS, launch, marked_lines
from tests.lsp.conftest import plain, start

TRUSTED = {"tfInsight": {"trustedWorkspace": True}}
PROGRAM = PROGRAMS / "graph_function.py"


async def configuration(client: LanguageClient, **request: Any) -> dict[str, Any]:
    return plain(await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="tfInsight.debugConfiguration", arguments=[request])))


async def test_untrusted_workspace_is_refused(client: LanguageClient) -> None:
    await start(client, PROGRAMS)
    with pytest.raises(JsonRpcException, match="trusted workspace"):
        await configuration(client, script=str(PROGRAM))


async def test_a_missing_script_is_named(client: LanguageClient) -> None:
    await start(client, PROGRAMS, options=TRUSTED)
    with pytest.raises(JsonRpcException, match=r"tfInsight\.debugConfiguration: script .*nope\.py"):
        await configuration(client, script="nope.py")


@pytest.mark.slow
async def test_the_configuration_stops_in_a_tf_function_eagerly(client: LanguageClient) -> None:
    await start(client, PROGRAMS, options=TRUSTED)
    answer = await configuration(client, script="graph_function.py", eager=True)
    assert answer["launch"]["request"] == "launch" and answer["launch"]["cwd"] == str(PROGRAMS)
    run = await asyncio.to_thread(launch, answer, PROGRAM, ["if"])
    assert run.returncode == 0, run.output
    line = marked_lines(PROGRAM)["if"]
    assert [stop.line for stop in run.stops] == [line] * 3  # once per call, eagerly
    assert all(stop.annotations["mode"] == "eager" for stop in run.stops)
    assert "graph functions run eagerly" in run.output
