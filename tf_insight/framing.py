"""`Content-Length: N\\r\\n\\r\\n` + N bytes of UTF-8 JSON: the framing of DAP and LSP, sans-IO.

The length counts *bytes*, not characters, so a body with multibyte text must be measured
after encoding. The decoder accepts data in arbitrary chunks (split headers, split bodies).

A strict decoder (DAP: the peer is debugpy) raises `FramingError` on bytes that are not a
frame. A resynchronising one (LSP: the peer is any editor, or anything writing to our stdin)
reports them to `on_garbage` and carries on at the next `Content-Length` header: a missing,
negative or non-numeric length loses that one message, never the rest of the stream.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

HEADER_END = b"\r\n\r\n"
MAX_HEADER_BYTES = 64 * 1024
MAX_BODY_BYTES = 256 * 1024 * 1024
_LENGTH = re.compile(rb"content-length:[ \t]*([^\r\n]*)", re.I)


class FramingError(ValueError):
    """The peer sent bytes that are not a frame."""


def encode_message(message: dict[str, Any]) -> bytes:
    """One frame for `message`."""
    body = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class FrameDecoder:
    """Turns a byte stream into messages; feed it whatever the transport read."""

    def __init__(self, on_garbage: Callable[[str], None] | None = None) -> None:
        """`on_garbage`: resynchronise instead of raising, telling it what was skipped."""
        self._buffer = bytearray()
        self._body_length: int | None = None
        self._on_garbage = on_garbage

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        """Add bytes; return every message completed by them, in order."""
        messages: list[dict[str, Any]] = []
        for body in self.feed_bodies(data):
            try:
                message = json.loads(body.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError) as error:
                raise FramingError(f"body is not UTF-8 JSON: {error}") from error
            if not isinstance(message, dict):
                raise FramingError("body is not a JSON object")
            messages.append(message)
        return messages

    def feed_bodies(self, data: bytes) -> list[bytes]:
        """Add bytes; return the body of every frame completed by them, undecoded."""
        self._buffer += data
        bodies: list[bytes] = []
        while True:
            if self._body_length is None:
                end = self._buffer.find(HEADER_END)
                if end < 0:
                    if len(self._buffer) > MAX_HEADER_BYTES:
                        self._garbage(f"no end of header within {MAX_HEADER_BYTES // 1024} KiB")
                        del self._buffer[:-256]  # keep what may be a header starting
                    return bodies
                header = bytes(self._buffer[:end])
                del self._buffer[: end + len(HEADER_END)]
                self._body_length = self._content_length(header)
                if self._body_length is None:
                    continue
            if len(self._buffer) < self._body_length:
                return bodies
            bodies.append(bytes(self._buffer[: self._body_length]))
            del self._buffer[: self._body_length]
            self._body_length = None

    def _content_length(self, header: bytes) -> int | None:
        """The header's length; None (reported) if it has none that can be used. In a
        resynchronising decoder the last `Content-Length` counts: an unframed body before it
        was glued to the next frame's header."""
        found = list(_LENGTH.finditer(header))
        if not found:
            self._garbage(f"header without Content-Length: {_show(header)}")
            return None
        match = found[-1] if self._on_garbage is not None else found[0]
        if self._on_garbage is not None and header[:match.start()].strip():
            self._on_garbage(f"skipped {match.start()} bytes of unframed input: "
                             f"{_show(header[:match.start()])}")
        value = match.group(1).strip()
        if not value.isdigit():
            self._garbage(f"bad Content-Length {value!r}" if not value.lstrip(b"-").isdigit()
                          else f"negative Content-Length {int(value)}")
            return None
        length = int(value)
        if length > MAX_BODY_BYTES:
            self._garbage(f"Content-Length {length} is over {MAX_BODY_BYTES} bytes")
            return None
        return length

    def _garbage(self, problem: str) -> None:
        if self._on_garbage is None:
            raise FramingError(problem)
        self._on_garbage(problem)


def _show(data: bytes) -> str:
    text = repr(data[:80])
    return text + "…" if len(data) > 80 else text
