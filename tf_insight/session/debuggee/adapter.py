"""Debug adapter launcher: `python -m debugpy.adapter` in the user's interpreter, started as
`python adapter.py CLIENT_PID DEBUGGEE_FD`.

It talks DAP with its one client over stdio and with its one debuggee over DEBUGGEE_FD (one end
of a socket pair the client made): it opens no socket of its own, so no other process can reach
it (`debugpy_tweaks.serve_only_the_debuggee`). A debugpy whose adapter cannot be kept private
ends it at once with EXIT_UNSUPPORTED. The kernel kills the adapter if the client dies, even by
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


def main() -> None:
    client, debuggee_fd = int(sys.argv[1]), int(sys.argv[2])
    with contextlib.suppress(AttributeError, OSError):
        ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, SIGKILL)
    if os.getppid() != client:
        sys.exit("tf-insight: the client went away before the adapter started")
    del sys.argv[1:]  # the adapter reads its own options from the command line
    try:
        debugpy_tweaks.serve_only_the_debuggee(debuggee_fd)
    except debugpy_tweaks.Unsupported as error:
        print(f"tf-insight: {error}", file=sys.stderr)
        sys.exit(EXIT_UNSUPPORTED)
    debugpy_tweaks.skip_unlogged_environment_description()
    runpy.run_module("debugpy.adapter", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
