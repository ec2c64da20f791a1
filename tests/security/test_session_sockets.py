"""Nothing but our own processes can reach a guided session's debugger.

While a real session runs, the test finds every socket that the session's processes listen on
and, as any local process could, tries each one as a DAP client: `initialize`, then `attach` by
`processId` to a Python process of the user's, then `evaluate` code that writes a marker file.
None of it may work, and the session must end as if nobody had tried."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.session.helpers import assert_nothing_left_running, script
from tf_insight.framing import FrameDecoder, encode_message
from tf_insight.session import TraceConfig, TraceResult, run_trace
from tf_insight.session.processes import descendants

pytestmark = pytest.mark.slow


def listening_ports(pids: list[int]) -> list[int]:
    """The TCP ports (IPv4 and IPv6) on which any of `pids` listens."""
    inodes: set[str] = set()
    for pid in pids:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if target.startswith("socket:["):
                inodes.add(target[len("socket:["):-1])
    ports = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for row in Path(table).read_text().splitlines()[1:]:
            fields = row.split()
            local, state, inode = fields[1], fields[3], fields[9]
            if state == "0A" and inode in inodes:  # 0A: LISTEN
                ports.append(int(local.rsplit(":", 1)[1], 16))
    return ports


def try_as_client(port: int, victim: int, marker: Path) -> list[dict[str, object]]:
    """Everything the port answered to a would-be client's initialize, attach and evaluate."""
    answers: list[dict[str, object]] = []
    try:
        sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    except OSError:
        return answers
    decoder = FrameDecoder()
    requests = [
        {"seq": 1, "type": "request", "command": "initialize",
         "arguments": {"clientID": "intruder", "adapterID": "debugpy"}},
        {"seq": 2, "type": "request", "command": "attach",
         "arguments": {"processId": victim, "justMyCode": False}},
        {"seq": 3, "type": "request", "command": "evaluate",
         "arguments": {"expression": f"open({str(marker)!r}, 'w').write('ran')",
                       "context": "repl"}},
    ]
    with sock:
        sock.settimeout(1.0)
        for request in requests:
            try:
                sock.sendall(encode_message(request))
            except OSError:
                break
            deadline = time.monotonic() + 8
            while time.monotonic() < deadline:
                try:
                    data = sock.recv(65536)
                except TimeoutError:
                    continue
                except OSError:
                    data = b""
                if not data:
                    return answers
                answers.extend(decoder.feed(data))
                if any(a.get("request_seq") == request["seq"] for a in answers):
                    break
    return answers


def test_no_other_process_can_use_the_sessions_debugger(tmp_path: Path) -> None:
    release, marker = tmp_path / "release", tmp_path / "marker"
    victim = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    output: list[str] = []
    results: list[TraceResult] = []
    config = TraceConfig(script=script("waits_for_release.py"), args=(str(release),),
                         output=lambda _stream, text: output.append(text), timeout_s=240)
    session = threading.Thread(target=lambda: results.append(run_trace(config)))
    session.start()
    try:
        deadline = time.monotonic() + 120
        while "ready" not in "".join(output) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert "ready" in "".join(output), output
        session_pids = [pid for pid in descendants(os.getpid()) if pid != victim.pid]
        tried = {port: try_as_client(port, victim.pid, marker)
                 for port in listening_ports(session_pids)}
        served = {port: [a for a in answers if a.get("type") == "response" and a.get("success")]
                  for port, answers in tried.items()}
        assert not any(served.values()), json.dumps(served, indent=1)[:3000]
        assert tried == {}, "the session listens on a port (it needs none)"
    finally:
        release.touch()
        session.join(240)
        victim.kill()
        victim.wait()
    assert not marker.exists(), "an intruder's code ran"
    result = results[0]
    assert (result.status, result.exit_code) == ("completed", 0), result.problems
    assert "done" in "".join(output)
    assert [s for s in result.steps if s.probe == "keras.Layer.__call__"], "the session was cut short"
    assert_nothing_left_running()
