"""`python -m tf_insight_server` — the TF Insight language server over stdio
(`--tcp HOST:PORT` to attach a client to a running server while debugging it)."""

from __future__ import annotations

import os
import sys

# First, before any other import: `python -m` inside a workspace put that folder first on
# sys.path, where a workspace file could stand in for any module imported from here on.
if sys.path and sys.path[0] in ("", os.getcwd()):
    del sys.path[0]

import argparse
import logging

from tf_insight import __version__, harden_this_process


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tf_insight_server",
                                     description="TF Insight language server (LSP over stdio)")
    parser.add_argument("--tcp", metavar="HOST:PORT",
                        help="serve one client over TCP instead of stdio (for debugging)")
    parser.add_argument("--stdio", action="store_true",
                        help="talk LSP over stdin/stdout (the default; accepted because "
                             "clients such as vscode-languageclient pass it)")
    parser.add_argument("--log-file", help="write the server's log here (default: stderr)")
    parser.add_argument("--log-level", default="WARNING",
                        choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    parser.add_argument("--version", action="version", version=f"tf-insight-server {__version__}")
    options = parser.parse_args(argv)

    logging.basicConfig(
        level=getattr(logging, options.log_level),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        **({"filename": options.log_file} if options.log_file else {"stream": sys.stderr}),
    )
    harden_this_process()  # after the log file is open: a relative --log-file is the user's
    from tf_insight_server.server import create_server
    from tf_insight_server.stdio import framed_stdin

    # Workspace checks and explanations run on threads and hold the GIL for long stretches; a
    # short switch interval lets the event loop read and answer messages in between.
    sys.setswitchinterval(0.0005)

    server = create_server()
    if options.tcp:
        host, _, port = options.tcp.rpartition(":")
        if not port.isdigit():
            parser.error("--tcp expects HOST:PORT, e.g. 127.0.0.1:2087")
        server.start_tcp(host or "127.0.0.1", int(port))
    else:
        server.start_io(stdin=framed_stdin(sys.stdin.buffer, server.framing_problem))
    return 0


if __name__ == "__main__":
    sys.exit(main())
