"""Debug adapter session: debugpy's adapter over stdio, attached in listen mode.

We start `python -m debugpy.adapter` ourselves (through `debuggee/adapter.py`), with one end of
a socket pair: the debuggee, which our bootstrap starts with the other end, reaches it there
while TensorFlow imports. The adapter opens no socket of its own, so no other process can talk
to it. Only logpoints are used: they never stop the debuggee, so no stop/evaluate round trips.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass

from tf_insight import isolation
from tf_insight.session.channel import ChannelClosed, Message, MessageChannel, RequestFailed
from tf_insight.session.probes import DEBUGGEE_DIR
from tf_insight.session.processes import kill_tree, run_as_helper

LOOPBACK = "127.0.0.1"
EXIT_UNSUPPORTED = 78  # debuggee/adapter.py: this debugpy cannot be kept private


@dataclass(frozen=True)
class Logpoint:
    line: int
    message: str


class BreakpointMoved(RuntimeError):
    """debugpy verified a breakpoint on another line than asked (it silently moves them)."""


class DebugAdapter:
    """One debugpy adapter process and the DAP conversation with it."""

    def __init__(self, python: str, debuggee_fd: int) -> None:
        """`debuggee_fd`: the adapter's end of the socket pair whose other end the debuggee
        has."""
        self._process = subprocess.Popen(
            [python, str(DEBUGGEE_DIR / "adapter.py"), str(os.getpid()), str(debuggee_fd)],
            pass_fds=(debuggee_fd,),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            cwd=isolation.private_dir(),
            env=isolation.with_bundled_debugpy(isolation.python_env()),
        )
        run_as_helper(self._process)
        assert self._process.stdin is not None and self._process.stdout is not None
        self._ready: Future[None] = Future()
        self.initialized = threading.Event()
        self.terminated = threading.Event()
        self.gone = threading.Event()
        self._closed = False
        self._channel = MessageChannel(
            self._process.stdout, self._process.stdin, self._on_event, self._on_gone
        )
        self._channel.start()

    def exit_code(self, wait_s: float = 1.0) -> int | None:
        """The adapter's exit code once it has exited (None if it is still running)."""
        with contextlib.suppress(subprocess.TimeoutExpired):
            return self._process.wait(wait_s)
        return None

    def listen(self) -> Future[None]:
        """Initialize and attach in listen mode; the future is done when the adapter waits for
        the debuggee (or fails if the adapter refuses or dies)."""
        initialize = self._channel.send_request(
            "initialize",
            {
                "clientID": "tf-insight",
                "adapterID": "debugpy",
                "pathFormat": "path",
                "linesStartAt1": True,
                "columnsStartAt1": True,
            },
        )
        initialize.add_done_callback(self._check_initialize)
        # The attach response only comes after configurationDone: do not wait for it.
        self._channel.send_request(
            "attach",
            {
                "type": "python",
                "request": "attach",
                "listen": {"host": LOOPBACK, "port": 0},
                "justMyCode": False,
                "subProcess": False,
                "redirectOutput": False,
            },
        )
        return self._ready

    def _check_initialize(self, answer: Future[Message]) -> None:
        error = answer.exception()
        if error is None and not answer.result().get("success"):
            error = RequestFailed("initialize", str(answer.result().get("message")))
        if error is not None and not self._ready.done():
            self._ready.set_exception(error)

    def _on_gone(self) -> None:
        if not self._ready.done():
            reason = ("this debugpy cannot be kept private (it would listen for other "
                      "clients): install debugpy 1.8" if self.exit_code() == EXIT_UNSUPPORTED
                      else "the debug adapter exited at start")
            self._ready.set_exception(ChannelClosed(reason))
        self.gone.set()

    def set_logpoints(self, files: Mapping[str, Sequence[Logpoint]], timeout_s: float) -> None:
        """Replace the logpoints of each file (requests pipelined); raise `BreakpointMoved`
        unless every breakpoint came back verified on the line asked for."""
        pending = {
            path: self._channel.send_request(
                "setBreakpoints",
                {
                    "source": {"path": path},
                    "breakpoints": [{"line": lp.line, "logMessage": lp.message} for lp in points],
                },
            )
            for path, points in files.items()
        }
        for path, future in pending.items():
            try:
                response = future.result(timeout_s)
            except FutureTimeout:
                raise ChannelClosed(f"setBreakpoints: no answer within {timeout_s:g} s") from None
            _check_lines(path, files[path], response)

    def disable_exception_breakpoints(self, timeout_s: float) -> None:
        """No stop on exceptions: the "raised" filter stops hundreds of times in TF's import."""
        self._channel.request("setExceptionBreakpoints", {"filters": []}, timeout_s)

    def configuration_done(self) -> Future[Message]:
        """Let the debuggee run. Not awaited: the script starts as soon as pydevd has it, and
        may end (or kill the adapter) before the adapter answers."""
        return self._channel.send_request("configurationDone")

    def close(self) -> None:
        """Disconnect politely if possible, then make sure the adapter is gone (once)."""
        if self._closed:
            return
        self._closed = True
        if not self._channel.closed:
            with contextlib.suppress(ChannelClosed, RuntimeError):
                self._channel.request("disconnect", {"terminateDebuggee": False}, 2.0)
        self._channel.close()
        kill_tree(self._process, grace_s=0.5)
        self._channel.wait_closed(2.0)

    def _on_event(self, message: Message) -> None:
        event = message.get("event")
        if event == "debugpyWaitingForServer" and not self._ready.done():
            self._ready.set_result(None)
        elif event == "initialized":
            self.initialized.set()
        elif event in ("terminated", "exited"):
            self.terminated.set()


def _check_lines(path: str, asked: Sequence[Logpoint], response: Message) -> None:
    if not response.get("success"):
        raise BreakpointMoved(f"{path}: {response.get('message', 'setBreakpoints failed')}")
    returned = response.get("body", {}).get("breakpoints", [])
    if len(returned) != len(asked):
        raise BreakpointMoved(f"{path}: asked for {len(asked)} breakpoints, got {len(returned)}")
    for logpoint, answer in zip(asked, returned, strict=True):
        if not answer.get("verified") or answer.get("line") != logpoint.line:
            raise BreakpointMoved(
                f"{path}:{logpoint.line} came back as line {answer.get('line')} "
                f"(verified={answer.get('verified')}): {answer.get('message', '')}"
            )
