"""The debuggee's channel to the runner: the annotation pipe, one JSON event a line.

Whole lines even when several threads send at once; silently off once the runner has gone
(a closed pipe must never break the user's script). Standard library only.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Mapping


class Pipe:
    """Writes events (`messages.Event`) to the inherited pipe `fd` (None: nowhere)."""

    def __init__(self, fd: int | None) -> None:
        self._fd = fd
        self._lock = threading.Lock()

    def send(self, event: Mapping[str, object]) -> None:
        if self._fd is None:
            return
        data = (json.dumps(event, default=str, separators=(",", ":")) + "\n").encode()
        with self._lock:
            try:
                while data:
                    data = data[os.write(self._fd, data) :]
            except OSError:
                self._fd = None
