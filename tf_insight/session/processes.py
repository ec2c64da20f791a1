"""Child processes that always end: start in a new session, kill the whole tree.

Each child gets its own session (process group), so killing the group also ends grandchildren
that stayed in it; descendants found through /proc (Linux) are killed too, in case one moved
to a new group. Helpers that only support the debuggee run at a lower CPU priority. Standard
library only: the debuggee bootstrap loads this file by path.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from pathlib import Path
from typing import Any

# Helpers (debug adapter, probe resolver) run beside the debuggee's TensorFlow import, which is
# the critical path: on a busy machine they should not take its CPU.
HELPER_NICENESS = 5


def run_as_helper(process: subprocess.Popen[Any]) -> None:
    """Lower `process`'s CPU priority to a helper's (best effort: it may have ended)."""
    with contextlib.suppress(OSError, AttributeError):  # no setpriority off POSIX
        os.setpriority(os.PRIO_PROCESS, process.pid, HELPER_NICENESS)


def descendants(pid: int) -> list[int]:
    """All live descendants of `pid` (empty where /proc is unavailable)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # The command name may contain spaces and parentheses: fields start after the last ')'.
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 1:
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    found: list[int] = []
    pending = [pid]
    while pending:
        for child in children.get(pending.pop(), []):
            found.append(child)
            pending.append(child)
    return found


def kill_tree(process: subprocess.Popen[Any], grace_s: float = 0.0) -> None:
    """End `process`, its process group and every descendant; reap `process`."""
    if process.poll() is None and grace_s > 0:
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(grace_s)
    tree = descendants(process.pid)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)  # children were started with a new session
    alive = [process.pid] if process.poll() is None else []  # a reaped pid may be reused
    for pid in [*alive, *tree]:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(5)
