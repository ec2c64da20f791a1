"""Kills its own debug adapter (a sibling process started by the same client), then goes on."""

import os
import signal
import time
from pathlib import Path


def adapters():
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parent = int(stat[stat.rfind(")") + 2 :].split()[1])
        is_adapter = any(part.endswith(b"debuggee/adapter.py") for part in cmdline)
        if is_adapter and parent == os.getppid():
            yield int(entry.name)


for pid in adapters():
    os.kill(pid, signal.SIGKILL)  # @kill
time.sleep(1)
print("still running after the adapter died", flush=True)
