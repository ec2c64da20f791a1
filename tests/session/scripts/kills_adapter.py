"""Kills its own debug adapter (started by the same client, which is the parent of this
script's supervisor), then would go on."""

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
        if is_adapter and parent == client:
            yield int(entry.name)


supervisor = Path(f"/proc/{os.getppid()}/stat").read_text()
client = int(supervisor[supervisor.rfind(")") + 2 :].split()[1])
for pid in adapters():
    os.kill(pid, signal.SIGKILL)  # @kill
time.sleep(5)
print("still running after the adapter died", flush=True)
