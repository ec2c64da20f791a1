"""`tfInsight.debugConfiguration`: what an editor needs to debug a script with breakpoints in
graph code (issue 26), refused in an untrusted workspace; its answer, used as VS Code uses it
(the adapter started over stdio, `launch` sent with the arguments), stops in a tf.function,
and while it is stopped no other local process can use its debugger (issue 24: every port the
adapter listens on is tried as an intruder's DAP client would)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from tests.debug.dap import PROGRAMS, launch, marked_lines
from tests.lsp.conftest import plain, start
from tests.security.test_session_sockets import listening_ports, try_as_client
from tf_insight.session.processes import descendants

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
async def test_the_configuration_stops_in_a_tf_function_eagerly(client: LanguageClient,
                                                                tmp_path: Path) -> None:
    await start(client, PROGRAMS, options=TRUSTED)
    answer = await configuration(client, script="graph_function.py", eager=True)
    assert answer["launch"]["request"] == "launch" and answer["launch"]["cwd"] == str(PROGRAMS)
    victim = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    marker = tmp_path / "marker"
    tried: dict[int, list[dict[str, object]]] = {}

    def intrude(adapter: int) -> None:
        for port in listening_ports([adapter, *descendants(adapter)]):
            tried[port] = try_as_client(port, victim.pid, marker)

    try:
        run = await asyncio.to_thread(launch, answer, PROGRAM, ["if"], at_first_stop=intrude)
    finally:
        victim.kill()
        victim.wait()
    served = {port: [a for a in answers if a.get("type") == "response" and a.get("success")]
              for port, answers in tried.items()}
    assert not any(served.values()), served
    assert not marker.exists(), "an intruder's code ran"
    assert run.returncode == 0, run.output
    line = marked_lines(PROGRAM)["if"]
    assert [stop.line for stop in run.stops] == [line] * 3  # once per call, eagerly
    assert all(stop.annotations["mode"] == "eager" for stop in run.stops)
    assert "graph functions run eagerly" in run.output
