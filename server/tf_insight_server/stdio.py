"""What the server reads LSP messages from: stdin, with bad frames skipped.

pygls's loop reads a header line, then the body; a header without a usable `Content-Length`
(missing, negative, not a number) leaves it reading the unframed body as the next header, and
from then on every message is lost. Here the stream goes through the resynchronising decoder of
`tf_insight.framing` first, and pygls only ever sees well-formed frames: a bad one costs that
one message, and is logged. What pygls gets is an ordinary binary stream (`start_io(stdin=)`),
so how it reads from it does not matter.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import TYPE_CHECKING, BinaryIO

from tf_insight import FrameDecoder

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

CHUNK = 1 << 16


class _FramedStdin(io.RawIOBase):
    """The well-formed frames of `stream`, each with a header of its own."""

    def __init__(self, stream: BinaryIO, on_garbage: Callable[[str], None]) -> None:
        super().__init__()
        self._stream = stream
        self._decoder = FrameDecoder(on_garbage=on_garbage)
        self._pending = bytearray()

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer) -> int:
        while not self._pending:
            read = getattr(self._stream, "read1", self._stream.read)
            data = read(CHUNK)
            if not data:
                return 0  # end of input: pygls stops
            for body in self._decoder.feed_bodies(data):
                self._pending += b"Content-Length: %d\r\n\r\n" % len(body)
                self._pending += body
        with memoryview(buffer) as view, view.cast("B") as out:
            count = min(len(out), len(self._pending))
            out[:count] = self._pending[:count]
        del self._pending[:count]
        return count


def framed_stdin(stream: BinaryIO, on_garbage: Callable[[str], None]) -> BinaryIO:
    """`stream` with only its well-formed frames; `on_garbage` hears of the bytes skipped."""
    return io.BufferedReader(_FramedStdin(stream, on_garbage), CHUNK)
