"""DAP message channel: sequence numbers, pending requests keyed by `seq`, events.

A reader thread decodes frames from the peer; responses complete the pending request with the
same `request_seq`, events go to `on_event` (called on the reader thread, keep it short).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import IO, Any

from tf_insight.framing import FrameDecoder, FramingError, encode_message

Message = dict[str, Any]


class ChannelClosed(ConnectionError):
    """The peer went away (or sent garbage) before answering."""


class RequestFailed(RuntimeError):
    """The peer answered a request with `success: false`."""

    def __init__(self, command: str, message: str) -> None:
        super().__init__(f"{command}: {message}")
        self.command = command


class MessageChannel:
    """Requests and events over a pair of byte streams (e.g. an adapter's stdio)."""

    def __init__(
        self,
        reader: IO[bytes],
        writer: IO[bytes],
        on_event: Callable[[Message], None],
        on_close: Callable[[], None] = lambda: None,
    ) -> None:
        self._reader = reader
        self._writer = writer
        self._on_event = on_event
        self._on_close = on_close
        self._seq = 0
        self._pending: dict[int, tuple[str, Future[Message]]] = {}
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._read_loop, name="dap-reader", daemon=True)

    def start(self) -> None:
        self._thread.start()

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    def send_request(
        self, command: str, arguments: dict[str, Any] | None = None
    ) -> Future[Message]:
        """Send a request; the future resolves to the response body's message."""
        future: Future[Message] = Future()
        with self._lock:
            if self._closed.is_set():
                future.set_exception(ChannelClosed(f"{command}: channel closed"))
                return future
            self._seq += 1
            message: Message = {"seq": self._seq, "type": "request", "command": command}
            if arguments is not None:
                message["arguments"] = arguments
            self._pending[self._seq] = (command, future)
            try:
                self._writer.write(encode_message(message))
                self._writer.flush()
            except (OSError, ValueError) as error:
                del self._pending[self._seq]
                future.set_exception(ChannelClosed(f"{command}: {error}"))
        return future

    def request(
        self, command: str, arguments: dict[str, Any] | None = None, timeout: float = 10.0
    ) -> Message:
        """Send a request and wait for its successful response."""
        try:
            response = self.send_request(command, arguments).result(timeout)
        except FutureTimeout:
            raise ChannelClosed(f"{command}: no answer within {timeout:g} s") from None
        if not response.get("success", False):
            raise RequestFailed(command, str(response.get("message", "failed")))
        return response

    def close(self) -> None:
        """Stop writing; pending requests fail. The reader ends when the peer closes."""
        with self._lock:
            self._closed.set()
            with contextlib.suppress(OSError):
                self._writer.close()
        self._fail_pending()

    def wait_closed(self, timeout: float) -> bool:
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def _read_loop(self) -> None:
        decoder = FrameDecoder()
        try:
            while True:
                data = os.read(self._reader.fileno(), 65536)
                if not data:
                    break
                for message in decoder.feed(data):
                    self._dispatch(message)
        except (OSError, ValueError, FramingError):
            pass  # a dead or confused peer ends the channel like EOF does
        finally:
            self._closed.set()
            self._fail_pending()
            self._on_close()

    def _dispatch(self, message: Message) -> None:
        kind = message.get("type")
        if kind == "response":
            with self._lock:
                entry = self._pending.pop(int(message.get("request_seq", -1)), None)
            if entry is not None:
                entry[1].set_result(message)
        elif kind == "event":
            self._on_event(message)
        # Reverse requests (runInTerminal, startDebugging) are never enabled by our
        # initialize arguments, so there is nothing to answer.

    def _fail_pending(self) -> None:
        with self._lock:
            pending, self._pending = self._pending, {}
        for command, future in pending.values():
            if not future.done():
                future.set_exception(ChannelClosed(f"{command}: channel closed"))
