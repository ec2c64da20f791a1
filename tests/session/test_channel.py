"""The message channel against a scripted peer over real pipes."""

from __future__ import annotations

import os
import threading
from typing import Any

import pytest

from tf_insight.framing import FrameDecoder, encode_message
from tf_insight.session.channel import ChannelClosed, MessageChannel, RequestFailed


class Peer:
    """Answers requests: `ok*` succeed, `bad*` fail, `silent*` get no answer, `bye` closes."""

    def __init__(self) -> None:
        to_client_read, self._to_client = os.pipe()
        self._from_client, from_client_write = os.pipe()
        self.events: list[dict[str, Any]] = []
        self.closed = threading.Event()
        self.channel = MessageChannel(
            os.fdopen(to_client_read, "rb"),
            os.fdopen(from_client_write, "wb"),
            self.events.append,
            self.closed.set,
        )
        threading.Thread(target=self._serve, daemon=True).start()
        self.channel.start()

    def _serve(self) -> None:
        decoder = FrameDecoder()
        while data := os.read(self._from_client, 4096):
            for request in decoder.feed(data):
                self._answer(request)
        os.close(self._to_client)

    def _answer(self, request: dict[str, Any]) -> None:
        command = request["command"]
        if command == "bye":
            os.close(self._to_client)
            return
        if command.startswith("silent"):
            return
        # An event before the response, and responses in reverse order of a burst are fine.
        os.write(self._to_client, encode_message({"seq": 0, "type": "event", "event": "note"}))
        response = {
            "seq": 0,
            "type": "response",
            "request_seq": request["seq"],
            "command": command,
            "success": command.startswith("ok"),
            "message": "nope",
            "body": {"echo": request.get("arguments")},
        }
        os.write(self._to_client, encode_message(response))


def test_responses_are_matched_by_request_seq_and_events_delivered() -> None:
    peer = Peer()
    futures = [peer.channel.send_request(f"ok{n}", {"n": n}) for n in range(5)]
    answers = [future.result(5) for future in futures]
    assert [answer["body"]["echo"] for answer in answers] == [{"n": n} for n in range(5)]
    assert [answer["command"] for answer in answers] == [f"ok{n}" for n in range(5)]
    assert [event["event"] for event in peer.events] == ["note"] * 5
    peer.channel.close()


def test_failed_request_raises_with_the_peer_message() -> None:
    peer = Peer()
    with pytest.raises(RequestFailed, match="bad: nope"):
        peer.channel.request("bad", timeout=5)
    peer.channel.close()


def test_unanswered_request_times_out() -> None:
    peer = Peer()
    with pytest.raises(ChannelClosed, match="no answer"):
        peer.channel.request("silent", timeout=0.2)
    peer.channel.close()


def test_peer_going_away_fails_pending_requests_and_reports_close() -> None:
    peer = Peer()
    pending = peer.channel.send_request("silent")
    peer.channel.send_request("bye")
    with pytest.raises(ChannelClosed):
        pending.result(5)
    assert peer.closed.wait(5)
    assert peer.channel.closed
    with pytest.raises(ChannelClosed):
        peer.channel.request("ok", timeout=1)
