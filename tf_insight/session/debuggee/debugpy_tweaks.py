"""Changes to debugpy's behaviour that cut a session's overhead, for the adapter and debuggee.

Each relies on debugpy internals (checked on debugpy 1.8) and does nothing where those are
missing: the session is then only slower. Standard library only: the adapter launcher imports
this file and the bootstrap loads it by path.
"""

from __future__ import annotations

import contextlib
import importlib.machinery
import socket
import sys
import time
from collections.abc import Iterator
from typing import Any

CODE_NAME = "_tf_insight_probed_file"  # a module name for the loader; nothing is imported
# pydevd's ReaderThread: whether the end of the adapter's stream disposes of the debugger.
READER_ENDS_SESSION = "_ReaderThread__terminate_on_socket_close"
THREADS_END_S = 0.5  # what pydevd itself waits for its threads at the end


def skip_unlogged_environment_description() -> None:
    """debugpy describes the environment when the adapter and the debuggee start, reading the
    metadata of every installed distribution (0.1-0.3 s of CPU beside TensorFlow's import),
    even when no log records it. Describe it only when some log takes "info" messages."""
    try:
        from debugpy.common import log
    except ImportError:
        return
    describe = getattr(log, "describe_environment", None)
    if describe is None or not hasattr(log, "_levels"):
        return

    def describe_if_logged(header: str) -> None:
        if "info" in log._levels:
            describe(header)

    log.describe_environment = describe_if_logged


def read_each_file_once() -> None:
    """To check a breakpoint's line pydevd compiles the whole file, again for every breakpoint
    in it (14 compiles for our probes: ~0.2 s of CPU beside TensorFlow's import). Read each
    file's code once, from its bytecode cache when fresh, as an import would."""
    api: Any = sys.modules.get("_pydevd_bundle.pydevd_api")
    code_lines = getattr(api, "_get_code_lines", None)
    if code_lines is None:
        return
    by_path: dict[str, tuple[int, ...]] = {}

    def code_lines_once_per_file(code_or_path: Any) -> Iterator[int]:
        if not isinstance(code_or_path, str):
            return iter(code_lines(code_or_path))
        lines = by_path.get(code_or_path)
        if lines is None:
            code: Any = code_or_path  # on failure pydevd compiles the path and reports it
            with contextlib.suppress(ImportError, OSError, SyntaxError, ValueError):
                loader = importlib.machinery.SourceFileLoader(CODE_NAME, code_or_path)
                code = loader.get_code(CODE_NAME)
            lines = by_path[code_or_path] = tuple(code_lines(code))
        return iter(lines)

    api._get_code_lines = code_lines_once_per_file


def connect_without_nagle() -> None:
    """pydevd writes each message's header and body separately: with Nagle's algorithm on,
    every answer waits ~40 ms for a delayed ACK. Turn it off on the socket pydevd opens."""
    pydevd: Any = sys.modules.get("pydevd")
    start_client = getattr(pydevd, "start_client", None)
    if start_client is None:
        return

    def start_client_without_nagle(host: str, port: int) -> Any:
        client = start_client(host, port)
        with contextlib.suppress(OSError, AttributeError):
            client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return client

    pydevd.start_client = start_client_without_nagle


def exit_without_waiting() -> None:
    """At exit pydevd waits 0.5 s for its reader thread, while that thread, seeing the adapter
    close the connection, waits for the same wait to end. Let the reader simply stop at end
    of stream (a broken connection is still noticed by the writer). Call once connected."""
    reader = getattr(_debugger(), "reader", None)
    if hasattr(reader, READER_ENDS_SESSION):
        setattr(reader, READER_ENDS_SESSION, False)


def stop_debugging() -> None:
    """`pydevd.stoptrace()` without its 0.1 s nap: it asks its threads to end, then sleeps
    0.1 s before looking whether they have. Ask them first (the writer's goodbye makes the
    adapter close the connection, which ends the reader) and wait just as long as it takes."""
    pydevd: Any = sys.modules.get("pydevd")
    stoptrace = getattr(pydevd, "stoptrace", None)
    if stoptrace is None:
        return
    threads = list(getattr(_debugger(), "created_pydb_daemon_threads", None) or ())
    if all(hasattr(thread, "do_kill_pydev_thread") for thread in threads):
        for thread in threads:
            thread.do_kill_pydev_thread()
        deadline = time.monotonic() + THREADS_END_S
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
    stoptrace()


def _debugger() -> Any:
    """pydevd's PyDB of this process, None before `debugpy.connect`."""
    pydevd: Any = sys.modules.get("pydevd")
    return pydevd.get_global_debugger() if hasattr(pydevd, "get_global_debugger") else None
