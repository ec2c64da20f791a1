"""Debug adapter launcher: `python -m debugpy.adapter`, started as `python adapter.py
CLIENT_PID DEBUGGEE_FD` (a guided session) or `python adapter.py --editor` (an editor's debug
session: VS Code runs it for the `tf-insight` debug type).

It talks DAP with its one client over stdio. A guided session's debuggee is reached over
DEBUGGEE_FD (one end of a socket pair the client made): the adapter opens no socket of its own,
so no other process can reach it (`debugpy_tweaks.serve_only_the_debuggee`). An editor's
debuggee is one debugpy launches, which connects back with the adapter's access token; no
other DAP client is listened for and attach by process id is refused
(`debugpy_tweaks.refuse_other_clients`). A debugpy whose adapter cannot be kept private ends it
at once with EXIT_UNSUPPORTED. The kernel kills the adapter if the client dies, even by
SIGKILL (Linux PR_SET_PDEATHSIG); elsewhere the client's own cleanup has to do.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import runpy
import sys

# This file's folder, put first on sys.path by hand (we start it in safe path mode, which adds
# no script folder), for its neighbour (the package: the user's interpreter lacks it).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import debugpy_tweaks  # type: ignore[import-not-found]

PR_SET_PDEATHSIG = 1
SIGKILL = 9
EXIT_UNSUPPORTED = 78
EDITOR = "--editor"


def main() -> None:
    editor = sys.argv[1:] == [EDITOR]
    with contextlib.suppress(AttributeError, OSError):
        ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, SIGKILL)
    if not editor and os.getppid() != int(sys.argv[1]):
        sys.exit("tf-insight: the client went away before the adapter started")
    debuggee_fd = None if editor else int(sys.argv[2])
    del sys.argv[1:]  # the adapter reads its own options from the command line
    try:
        if debuggee_fd is None:
            debugpy_tweaks.refuse_other_clients()
        else:
            debugpy_tweaks.serve_only_the_debuggee(debuggee_fd)
    except debugpy_tweaks.Unsupported as error:
        print(f"tf-insight: {error}", file=sys.stderr)
        sys.exit(EXIT_UNSUPPORTED)
    debugpy_tweaks.skip_unlogged_environment_description()
    runpy.run_module("debugpy.adapter", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
