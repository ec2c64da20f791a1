"""DAP wire framing, sans-IO: `Content-Length: N\\r\\n\\r\\n` + N bytes of UTF-8 JSON.

The length counts *bytes*, not characters, so a body with multibyte text must be measured
after encoding. The decoder accepts data in arbitrary chunks (split headers, split bodies).
"""

from __future__ import annotations

import json
from typing import Any

HEADER_END = b"\r\n\r\n"
MAX_HEADER_BYTES = 64 * 1024


class FramingError(ValueError):
    """The peer sent bytes that are not a DAP frame."""


def encode_message(message: dict[str, Any]) -> bytes:
    """One DAP frame for `message`."""
    body = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class FrameDecoder:
    """Turns a byte stream into DAP messages; feed it whatever the transport read."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._body_length: int | None = None

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        """Add bytes; return every message completed by them, in order."""
        self._buffer += data
        messages: list[dict[str, Any]] = []
        while True:
            if self._body_length is None:
                end = self._buffer.find(HEADER_END)
                if end < 0:
                    if len(self._buffer) > MAX_HEADER_BYTES:
                        raise FramingError("no end of header within 64 KiB")
                    return messages
                self._body_length = _content_length(bytes(self._buffer[:end]))
                del self._buffer[: end + len(HEADER_END)]
            if len(self._buffer) < self._body_length:
                return messages
            body = bytes(self._buffer[: self._body_length])
            del self._buffer[: self._body_length]
            self._body_length = None
            try:
                message = json.loads(body.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError) as error:
                raise FramingError(f"body is not UTF-8 JSON: {error}") from error
            if not isinstance(message, dict):
                raise FramingError("body is not a JSON object")
            messages.append(message)


def _content_length(header: bytes) -> int:
    for line in header.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            try:
                length = int(value.strip())
            except ValueError:
                raise FramingError(f"bad Content-Length {value!r}") from None
            if length < 0:
                raise FramingError(f"negative Content-Length {length}")
            return length
    raise FramingError(f"header without Content-Length: {header!r}")
