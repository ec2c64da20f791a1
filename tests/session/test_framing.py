"""The DAP framing layer, fed bytes the way a pipe delivers them."""

from __future__ import annotations

import json

import pytest

from tf_insight.framing import FrameDecoder, FramingError, encode_message


def test_round_trip_of_several_messages_in_one_read() -> None:
    messages = [{"seq": 1, "type": "event", "event": "initialized"}, {"seq": 2, "body": {}}]
    data = b"".join(encode_message(message) for message in messages)
    assert FrameDecoder().feed(data) == messages


def test_content_length_counts_bytes_of_multibyte_utf8() -> None:
    message = {"output": "résumé → 学习 🎉"}
    frame = encode_message(message)
    header, body = frame.split(b"\r\n\r\n", 1)
    assert int(header.split(b":")[1]) == len(body) > len(json.dumps(message, ensure_ascii=False))
    assert FrameDecoder().feed(frame) == [message]


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 16])
def test_split_anywhere_header_and_multibyte_body_included(chunk: int) -> None:
    messages = [{"seq": n, "text": "ÿ€😀" * n} for n in range(1, 4)]
    data = b"".join(encode_message(message) for message in messages)
    decoder = FrameDecoder()
    received = []
    for start in range(0, len(data), chunk):
        received += decoder.feed(data[start : start + chunk])
    assert received == messages


def test_extra_headers_and_case_are_accepted() -> None:
    body = b'{"seq":5}'
    data = b"Content-Type: application/json\r\ncontent-length: 9\r\n\r\n" + body
    assert FrameDecoder().feed(data) == [{"seq": 5}]


def test_partial_frame_waits_for_more() -> None:
    decoder = FrameDecoder()
    frame = encode_message({"seq": 1})
    assert decoder.feed(frame[:-1]) == []
    assert decoder.feed(frame[-1:]) == [{"seq": 1}]


@pytest.mark.parametrize(
    "data",
    [
        b"Content-Length: x\r\n\r\n{}",
        b"Content-Length: -1\r\n\r\n",
        b"X-Other: 1\r\n\r\n{}",
        b"Content-Length: 2\r\n\r\n[]",
        b"Content-Length: 2\r\n\r\n\xff\xfe",
    ],
)
def test_garbage_raises_framing_error(data: bytes) -> None:
    with pytest.raises(FramingError):
        FrameDecoder().feed(data)


def test_endless_header_is_rejected() -> None:
    with pytest.raises(FramingError):
        FrameDecoder().feed(b"X" * (70 * 1024))


@pytest.mark.parametrize("bad", [b"", b"Content-Length: x\r\n", b"Content-Length: -5\r\n",
                                 b"Content-Type: text\r\n", b"Content-Length: 99999999999\r\n"])
def test_resynchronising_decoder_loses_only_the_bad_message(bad: bytes) -> None:
    """A frame with a missing, non-numeric, negative or absurd length: its body arrives glued to
    the next header, and the decoder carries on there (an editor's stream keeps working)."""
    problems: list[str] = []
    decoder = FrameDecoder(on_garbage=problems.append)
    first, last = encode_message({"seq": 1}), encode_message({"seq": 3, "text": "é"})
    stream = first + bad + b"\r\n" + b'{"seq": 2}' + last
    received = []
    for chunk in (stream[:10], stream[10:37], stream[37:]):
        received += decoder.feed(chunk)
    assert [message["seq"] for message in received] == [1, 3]
    assert decoder.feed(encode_message({"seq": 4})) == [{"seq": 4}]
    assert problems, "what was skipped is reported"


def test_resynchronising_decoder_survives_endless_garbage() -> None:
    problems: list[str] = []
    decoder = FrameDecoder(on_garbage=problems.append)
    assert decoder.feed(b"x" * (200 * 1024)) == []
    assert decoder.feed(encode_message({"seq": 1})) == [{"seq": 1}]
    assert len(problems) == 2  # the endless header, then the junk before the real one
