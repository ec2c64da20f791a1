"""The debuggee's supervisor: `python supervisor.py CLIENT_PID COMMAND...` runs COMMAND (the
bootstrap) as its child and makes sure that nothing the user's script started outlives it.

On Linux it is a *child subreaper* (`prctl(PR_SET_CHILD_SUBREAPER)`), as process supervisors
are: a process the script starts stays below it even when its parent exits (a double-forked
daemon) or it moves to a new session (`setsid`, `start_new_session=True`), so it stays in the
tree the client kills at a timeout or a cancel. When the script's process exits, the
supervisor kills whatever is left below it, reaps it all and exits with the script's status
(killed by signal N: it kills itself with N). It dies with the client (`PR_SET_PDEATHSIG`),
and ends everything on SIGTERM. Elsewhere it only forwards the exit status.

Standard library only: it runs in the user's interpreter, by path.
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib.util
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36


def main() -> None:
    client = int(sys.argv[1])
    command = sys.argv[2:]
    with contextlib.suppress(AttributeError, OSError):
        libc = ctypes.CDLL(None)
        libc.prctl(PR_SET_CHILD_SUBREAPER, 1)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != client:
        sys.exit("tf-insight: the client went away before the session started")
    # Loaded now: an import inside the signal handler, interrupted by a second SIGTERM, left
    # `typing` half imported and the supervisor dead before it had ended anything.
    descendants = _processes().descendants
    signal.signal(signal.SIGTERM, lambda *_: _end_all_and_exit(descendants,
                                                               128 + signal.SIGTERM))
    # The fds the client passed (annotation and control pipes) go on to the bootstrap, and
    # only there: the client sees the end of the annotations when the bootstrap has gone.
    # The bootstrap gets a session (and process group) of its own: whoever kills its group
    # (its lifeline, the script's own `os.killpg(0, SIGKILL)`) must not kill the supervisor
    # before it has ended what the script left behind.
    child = subprocess.Popen(command, close_fds=False, start_new_session=True)
    _close_inherited_fds()
    status = _wait_for(child.pid)
    _end_descendants(descendants)
    if os.WIFSIGNALED(status):
        with contextlib.suppress(OSError, ValueError):  # SIGKILL has no handler to reset
            signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
        os.kill(os.getpid(), os.WTERMSIG(status))
    sys.exit(os.waitstatus_to_exitcode(status))


def _close_inherited_fds() -> None:
    try:
        fds = [int(fd) for fd in os.listdir("/proc/self/fd")]
    except OSError:
        fds = list(range(3, 256))
    for fd in fds:
        if fd > 2:
            with contextlib.suppress(OSError):
                os.close(fd)


def _wait_for(pid: int) -> int:
    """Reap adopted orphans as they exit, until `pid` does; its wait status."""
    while True:
        try:
            reaped, status = os.wait()
        except ChildProcessError:  # cannot happen while `pid` lives
            return 0
        except InterruptedError:
            continue
        if reaped == pid:
            return status


def _end_all_and_exit(descendants: Callable[[int], list[int]], code: int) -> None:
    """Once (a second SIGTERM must not interrupt the first's work)."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    _end_descendants(descendants)
    os._exit(code)


def _end_descendants(descendants: Callable[[int], list[int]]) -> None:
    """SIGKILL every process below this one, until none is left, and reap them."""
    for _ in range(50):
        found = descendants(os.getpid())
        if not found:
            break
        for pid in found:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline:
            try:
                reaped, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if reaped == 0:
                time.sleep(0.01)


def _processes() -> ModuleType:
    """tf_insight/session/processes.py, by path (the user's interpreter lacks tf_insight)."""
    path = Path(__file__).resolve().parent.parent / "processes.py"
    spec = importlib.util.spec_from_file_location("_tf_insight_processes", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


if __name__ == "__main__":
    main()
