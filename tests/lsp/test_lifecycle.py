"""The server under attack and at the end of its life: `shutdown` answered at once while an
analysis runs, one analysis bounded in time, malformed input logged and survived (never a
dialog in the editor), nothing left running after `exit`."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp.conftest import (
    DATA,
    SERVER,
    diagnostics_for,
    open_file,
    server_info,
    start,
    wait_until,
)

SLOW = {**os.environ, "PYTHONPATH": os.pathsep.join([str(DATA / "slow_rule"), *sys.path])}
SLOW_FILE = "import tensorflow as tf\n# tfi-test: slow\n"


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, server_env=SLOW))
async def slow(lsp_client: LanguageClient) -> Any:
    yield
    if lsp_client._server is not None and lsp_client._server.returncode is None:
        await lsp_client.shutdown_session()


def alive(pid: int) -> bool:
    """Running (a zombie waiting for its parent to reap it counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


async def test_shutdown_is_answered_at_once_during_an_analysis(slow: LanguageClient,
                                                               tmp_path: Path) -> None:
    await start(slow, tmp_path)
    worker = (await server_info(slow))["worker"]["pid"]
    open_file(slow, tmp_path / "slow.py", text=SLOW_FILE)
    await asyncio.sleep(1.0)  # the worker is inside the two-minute rule by now
    started = time.monotonic()
    await asyncio.wait_for(slow.shutdown_async(None), 10)
    answered = time.monotonic() - started
    slow.exit(None)
    assert slow._server is not None
    code = await asyncio.wait_for(slow._server.wait(), 10)
    assert answered < 1.0, f"shutdown took {answered:.2f} s"
    assert code == 0
    for _ in range(50):
        if not alive(worker):
            break
        await asyncio.sleep(0.1)
    assert not alive(worker), "the analysis worker outlived the server"


@pytest.mark.slow
async def test_one_analysis_is_bounded_in_time(slow: LanguageClient, tmp_path: Path) -> None:
    await start(slow, tmp_path)
    open_file(slow, tmp_path / "slow.py", text=SLOW_FILE)
    await wait_until(slow, lambda: any("was stopped after" in m.message
                                       for m in slow.log_messages),
                     method=types.WINDOW_LOG_MESSAGE, timeout=60)
    other = tmp_path / "other.py"
    other.write_text("import tensorflow as tf\n\n@tf.function\ndef f(x):\n    print(x)\n"
                     "    return x\n")
    found = await diagnostics_for(slow, open_file(slow, other), timeout=60)
    assert [d.code for d in found] == ["TFI006"], "a fresh worker serves the other files"
    assert slow.messages == [], "no dialog for it"


async def test_malformed_input_is_logged_and_survived(slow: LanguageClient,
                                                      tmp_path: Path) -> None:
    await start(slow, tmp_path)
    assert slow._server is not None and slow._server.stdin is not None
    good = tmp_path / "good.py"
    good.write_text("import tensorflow as tf\n\n@tf.function\ndef f(x):\n    print(x)\n"
                    "    return x\n")
    stdin = slow._server.stdin
    for frame in (b"Content-Length: x\r\n\r\n{}",             # not a number
                  b"Content-Length: -4\r\n\r\n{}",            # negative
                  b"Content-Type: text/plain\r\n\r\n{}",      # missing
                  b"Content-Length: 9\r\n\r\n{not json",     # not JSON
                  b"garbage without any header at all"):
        stdin.write(frame)
    await stdin.drain()
    ghost = (tmp_path / "never_opened.py").as_uri()
    slow.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=ghost, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text="x = 1")]))
    found = await diagnostics_for(slow, open_file(slow, good))
    assert [d.code for d in found] == ["TFI006"], "the stream is back in sync"
    assert (await server_info(slow))["pid"]
    assert slow.messages == [], [m.message for m in slow.messages]
    logged = " ".join(m.message for m in slow.log_messages)
    for problem in ("bad Content-Length", "negative Content-Length", "without Content-Length",
                    "could not handle a message"):
        assert problem in logged, problem


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise LookupError(pid)


async def test_memory_is_bounded_and_released(slow: LanguageClient, tmp_path: Path) -> None:
    """Thousands of edits do not grow the server (pygls kept a future per notification), and
    the memory of a huge document is released when it closes."""
    await start(slow, tmp_path)
    pid = (await server_info(slow))["pid"]
    path = tmp_path / "edited.py"
    text = (DATA / "project" / "seed_layernorm.py").read_text()
    uri = open_file(slow, path, text=text)
    await diagnostics_for(slow, uri)

    async def edits(first: int, count: int) -> None:
        for version in range(first, first + count):
            last = f"\n@tf.function\ndef edit_{version}(x):\n    print(x)\n    return x\n"
            slow.text_document_did_change(types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(
                    text=text + (last if version == first + count - 1 else f"\n# {version}\n"))]))
        await diagnostics_for(slow, uri, check=lambda found: any(
            f"edit_{first + count - 1}" in d.message for d in found))

    await edits(2, 500)
    settled = rss_mb(pid)
    await edits(502, 3000)
    grown = rss_mb(pid) - settled
    assert grown < 3.0, f"{grown:.1f} MB more after 3,000 edits"

    huge = tmp_path / "huge.py"
    huge_uri = open_file(slow, huge, text="x = 1\n" * 5_000_000)  # 30 MB
    await wait_until(slow, lambda: any("too large" in m.message for m in slow.log_messages),
                     method=types.WINDOW_LOG_MESSAGE)
    slow.text_document_did_close(types.DidCloseTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=huge_uri)))
    await server_info(slow)  # the close has been handled
    held = rss_mb(pid) - settled
    assert held < 30.0, f"{held:.0f} MB still held after the 30 MB document closed"


@pytest.mark.parametrize("command", ["tfInsight.explainError", "tfInsight.checkWorkspace"])
async def test_shutdown_is_answered_at_once_during_a_command(slow: LanguageClient,
                                                             tmp_path: Path,
                                                             command: str) -> None:
    """A long command still runs on its thread: `shutdown` answers null all the same (pygls
    cancels the pending requests while iterating over them)."""
    for number in range(40):
        (tmp_path / f"m{number}.py").write_text(SLOW_FILE if number == 0 else "x = 1\n" * 5000)
    await start(slow, tmp_path)
    paste = "Traceback (most recent call last):\n" + '  File "a.py", line 1, in f\n' * 150_000
    arguments = [{"text": paste + "ValueError: boom\n"}] if command.endswith("Error") else []
    running = asyncio.ensure_future(slow.workspace_execute_command_async(
        types.ExecuteCommandParams(command=command, arguments=arguments)))
    await asyncio.sleep(0.5)  # the command is under way
    started = time.monotonic()
    answer = await asyncio.wait_for(slow.shutdown_async(None), 10)
    assert answer is None
    assert time.monotonic() - started < 1.0
    running.cancel()
    slow.exit(None)
    assert slow._server is not None
    await asyncio.wait_for(slow._server.wait(), 10)
