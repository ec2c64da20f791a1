"""What the server reads LSP messages from: stdin, with bad frames skipped.

pygls's loop reads a header line, then the body; a header without a usable `Content-Length`
(missing, negative, not a number) leaves it reading the unframed body as the next header, and
from then on every message is lost. Here the stream goes through the resynchronising decoder of
`tf_insight.framing` first, and pygls only ever sees well-formed frames: a bad one costs that
one message, and is logged.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import BinaryIO

from tf_insight import FrameDecoder

CHUNK = 1 << 16


class FramedStdin:
    """A reader for pygls (`readline`, `read`) that yields only well-formed frames."""

    def __init__(self, stream: BinaryIO, on_garbage: Callable[[str], None]) -> None:
        self._stream = stream
        self._decoder = FrameDecoder(on_garbage=on_garbage)
        self._pending: deque[bytes] = deque()

    def readline(self) -> bytes:
        while not self._pending:
            read = getattr(self._stream, "read1", self._stream.read)
            data = read(CHUNK)
            if not data:
                return b""  # end of input: pygls stops
            for body in self._decoder.feed_bodies(data):
                self._pending.extend((b"Content-Length: %d\r\n" % len(body), b"\r\n", body))
        return self._pending.popleft()

    def read(self, size: int) -> bytes:
        """The body that the header just returned announced (`size` is its length)."""
        return self._pending.popleft()
