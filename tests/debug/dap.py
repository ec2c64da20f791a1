"""A DAP client as nvim-dap is: it attaches to `tf-insight debug --listen`, sets breakpoints
on marked lines, and at every stop records where it stopped and TF Insight's annotations."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from tf_insight.session.channel import Message, MessageChannel

PROGRAMS = Path(__file__).parent / "programs"
LISTENING = re.compile(r"attach to ([\d.]+):(\d+)")
TIMEOUT_S = 120.0


def marked_lines(path: Path) -> dict[str, int]:
    """`# stop: NAME` markers of a program: NAME → its line."""
    found = {}
    for number, line in enumerate(path.read_text().splitlines(), 1):
        match = re.search(r"# stop: (\S+)", line)
        if match:
            found[match.group(1)] = number
    return found


@dataclass
class Stop:
    path: str
    line: int
    function: str
    annotations: dict[str, Any]
    console: str  # what `tfi()` shows in the debug console
    locals: dict[str, str] = field(default_factory=dict)


@dataclass
class DebugRun:
    """What a debugged run did: its stops in order, its output and exit status."""

    stops: list[Stop]
    output: str
    returncode: int | None


def debug(program: Path, breakpoints: list[str], *, eager: bool = False,
          steps: list[str] | None = None, max_stops: int = 60) -> DebugRun:
    """Run `tf-insight debug --listen 127.0.0.1:0 --wait-for-client PROGRAM`, attach, set a
    breakpoint at each named marker, and `continue` at each stop (or, for the first stops,
    the DAP commands in `steps`: "next", "stepIn")."""
    command = [sys.executable, "-m", "tf_insight.cli", "debug", "--listen", "127.0.0.1:0",
               "--wait-for-client", *(["--eager"] if eager else []), str(program)]
    # Output to a file, not a pipe: debugpy's adapter, a child, would hold a pipe open.
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                                   cwd=program.parent, start_new_session=True,
                                   env={**os.environ, "PYTHONUNBUFFERED": "1"})
        try:
            deadline = time.monotonic() + TIMEOUT_S
            while (match := LISTENING.search(_read(log))) is None:
                assert process.poll() is None and time.monotonic() < deadline, _read(log)
                time.sleep(0.1)
            connection = socket.create_connection((match.group(1), int(match.group(2))),
                                                  TIMEOUT_S)
            connection.settimeout(None)  # the channel reads the descriptor: it must block
            events: queue.Queue[Message] = queue.Queue()
            channel = MessageChannel(connection.makefile("rb"), connection.makefile("wb"),
                                     events.put)
            try:
                stops = _drive(channel, events, "attach", {"justMyCode": True}, program,
                               breakpoints, steps, max_stops, lambda: None)
            finally:
                connection.shutdown(socket.SHUT_RDWR)
                connection.close()
            process.wait(timeout=TIMEOUT_S)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)  # the adapter, if it outlives its client
        return DebugRun(stops, _read(log), process.returncode)


def launch(configuration: dict[str, Any], program: Path, breakpoints: list[str], *,
           at_first_stop: Callable[[int], None] = lambda adapter_pid: None,
           max_stops: int = 60) -> DebugRun:
    """As VS Code does with `tfInsight.debugConfiguration`'s answer: start its adapter over
    stdio (in its folder, its variables added to ours) and send `launch` with its arguments;
    then as `debug`, calling `at_first_stop` with the adapter's pid while stopped. The output
    is what the adapter sent as `output` events."""
    adapter = configuration["adapter"]
    process = subprocess.Popen([adapter["command"], *adapter["args"]], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               cwd=adapter["cwd"], env={**os.environ, **adapter["env"]},
                               start_new_session=True)
    assert process.stdin is not None and process.stdout is not None
    events: queue.Queue[Message] = queue.Queue()
    output: list[str] = []
    exit_codes: list[int] = []

    def on_event(event: Message) -> None:
        if event.get("event") == "output":
            output.append(str(event["body"].get("output", "")))
        elif event.get("event") == "exited":
            exit_codes.append(int(event["body"]["exitCode"]))
        events.put(event)

    channel = MessageChannel(process.stdout, process.stdin, on_event)
    try:
        stops = _drive(channel, events, "launch", configuration["launch"], program,
                       breakpoints, None, max_stops, lambda: at_first_stop(process.pid))
        process.wait(timeout=TIMEOUT_S)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    return DebugRun(stops, "".join(output), exit_codes[0] if exit_codes else None)


def _drive(channel: MessageChannel, events: queue.Queue[Message], start: str,
           arguments: dict[str, Any], program: Path, breakpoints: list[str],
           steps: list[str] | None, max_stops: int,
           at_first_stop: Callable[[], None]) -> list[Stop]:
    """The DAP conversation: initialize, `start` (attach or launch), breakpoints on the
    marked lines, then a stop record and a `continue` (or the next of `steps`) per stop."""
    lines = marked_lines(program)
    channel.start()
    stops: list[Stop] = []
    try:
        channel.request("initialize", {"clientID": "tests", "adapterID": "debugpy",
                                       "pathFormat": "path", "linesStartAt1": True,
                                       "columnsStartAt1": True}, TIMEOUT_S)
        started = channel.send_request(start, arguments)
        _wait(events, "initialized")
        channel.request("setBreakpoints", {
            "source": {"path": str(program)},
            "breakpoints": [{"line": lines[name]} for name in breakpoints]}, TIMEOUT_S)
        channel.request("setExceptionBreakpoints", {"filters": []}, TIMEOUT_S)
        channel.request("configurationDone", None, TIMEOUT_S)
        started.result(TIMEOUT_S)
        pending_steps = list(steps or [])
        while len(stops) < max_stops:
            event = _wait(events, "stopped", "terminated")
            if event["event"] != "stopped":
                break
            thread = event["body"]["threadId"]
            stops.append(_stop(channel, thread))
            if len(stops) == 1:
                at_first_stop()
            command = pending_steps.pop(0) if pending_steps else "continue"
            channel.request(command, {"threadId": thread}, TIMEOUT_S)
    finally:
        if not channel.closed:
            with contextlib.suppress(ConnectionError, RuntimeError):
                channel.request("disconnect", {"terminateDebuggee": True}, TIMEOUT_S)
        channel.close()
    return stops


def _read(log: IO[bytes]) -> str:
    log.seek(0)
    return log.read().decode(errors="replace")


def _stop(channel: MessageChannel, thread: int) -> Stop:
    frames = channel.request("stackTrace", {"threadId": thread, "levels": 1},
                             TIMEOUT_S)["body"]["stackFrames"]
    top = frames[0]
    answer = channel.request("evaluate", {"expression": "__tf_insight_stop__()",
                                          "frameId": top["id"], "context": "clipboard"},
                             TIMEOUT_S)["body"]["result"]
    console = channel.request("evaluate", {"expression": "tfi()", "frameId": top["id"],
                                           "context": "repl"}, TIMEOUT_S)["body"]["result"]
    scopes = channel.request("scopes", {"frameId": top["id"]}, TIMEOUT_S)["body"]["scopes"]
    variables = channel.request("variables", {
        "variablesReference": scopes[0]["variablesReference"]}, TIMEOUT_S)["body"]["variables"]
    return Stop(top["source"]["path"], top["line"], top["name"], json.loads(answer), console,
                {v["name"]: v["value"] for v in variables})


def _wait(events: queue.Queue[Message], *names: str) -> Message:
    deadline = time.monotonic() + TIMEOUT_S
    while True:
        event = events.get(timeout=max(0.1, deadline - time.monotonic()))
        if event.get("event") in names:
            return event
