"""Whatever ends a session, nothing it started outlives it, every time.

`kill -9` of `tf-insight trace` or of the language server while the script runs, and a script
that kills its own process group, each repeated: the script's child in a new session and its
double-forked daemon (both outside the script's process group) must be gone too. The process
that cleans up (the supervisor) was once in the group that got killed, and died before it had
ended them (1 run in 4 for `trace`, 2 in 4 for the server)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import IO

import pytest

from tests.session.helpers import assert_nothing_left_running, script
from tf_insight.framing import FrameDecoder, encode_message
from tf_insight.session.processes import descendants

pytestmark = pytest.mark.slow
REPEATS = 10
TF_INSIGHT = str(Path(sys.executable).with_name("tf-insight"))
SERVER = str(Path(sys.executable).with_name("tf-insight-server"))
SPAWNED = re.compile(r"child (\d+) daemon (\d+)")


def _wait_for_spawned(stream: IO[str], timeout: float = 60) -> tuple[int, int]:
    """The pids `spawns_daemons.py` prints (its output passes through `stream`)."""
    deadline = time.monotonic() + timeout
    seen = ""
    while time.monotonic() < deadline:
        line = stream.readline()
        seen += line
        found = SPAWNED.search(line)
        if found:
            return int(found.group(1)), int(found.group(2))
        if not line:
            break
    raise AssertionError(f"the script never printed its children: {seen[-2000:]}")


@pytest.mark.parametrize("attempt", range(REPEATS))
def test_trace_killed_outright_leaves_nothing(attempt: int) -> None:
    trace = subprocess.Popen([TF_INSIGHT, "trace", script("spawns_daemons.py"), "hang"],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert trace.stdout is not None
    spawned = _wait_for_spawned(trace.stdout)
    session = descendants(trace.pid)
    trace.kill()
    trace.wait()
    trace.stdout.close()
    assert_nothing_left_running(extra_pids=(*session, *spawned))


@pytest.mark.parametrize("attempt", range(REPEATS))
def test_a_script_that_kills_its_own_process_group_leaves_nothing(attempt: int) -> None:
    trace = subprocess.run([TF_INSIGHT, "trace", "--format", "json", script("spawns_daemons.py"),
                            "killpg"], capture_output=True, text=True, timeout=120)
    found = SPAWNED.search(trace.stderr + trace.stdout)
    assert found, trace.stderr[-2000:]
    assert '"exit_code": -9' in trace.stdout
    assert_nothing_left_running(extra_pids=(int(found.group(1)), int(found.group(2))))


@pytest.mark.parametrize("attempt", range(REPEATS))
def test_server_killed_outright_during_a_session_leaves_nothing(attempt: int) -> None:
    server = subprocess.Popen([SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL)
    assert server.stdin is not None and server.stdout is not None
    root = Path(script("spawns_daemons.py")).parent
    messages = [
        {"id": 1, "method": "initialize", "params": {
            "capabilities": {}, "rootUri": root.as_uri(),
            "initializationOptions": {"tfInsight": {"trustedWorkspace": True}}}},
        {"method": "initialized", "params": {}},
        {"id": 2, "method": "workspace/executeCommand", "params": {
            "command": "tfInsight.startSession",
            "arguments": [{"script": script("spawns_daemons.py"), "args": ["hang"]}]}},
    ]
    for message in messages:
        server.stdin.write(encode_message({"jsonrpc": "2.0", **message}))
    server.stdin.flush()
    spawned = _spawned_in_log(server.stdout)
    session = descendants(server.pid)
    server.send_signal(signal.SIGKILL)
    server.wait()
    server.stdin.close()
    server.stdout.close()
    assert_nothing_left_running(extra_pids=(*session, *spawned))


def _spawned_in_log(stream: IO[bytes], timeout: float = 60) -> tuple[int, int]:
    """The pids `spawns_daemons.py` printed, from the server's log messages of its output."""
    decoder = FrameDecoder()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        data = os.read(stream.fileno(), 65536)
        if not data:
            break
        for message in decoder.feed(data):
            found = SPAWNED.search(str(message.get("params", {}).get("message", "")))
            if found:
                return int(found.group(1)), int(found.group(2))
    raise AssertionError("the session never reported its script's children")
