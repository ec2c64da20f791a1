"""Changes to debugpy's behaviour, for the adapter and the debuggee: who can reach the debugger
(`serve_only_the_debuggee`, `connect_through`), and what cuts a session's overhead.

Each relies on debugpy internals (checked on debugpy 1.8). The speed-ups do nothing where those
are missing (the session is then only slower); the access changes fail closed (`Unsupported`):
a debugger that any local process could reach must not start. Standard library only: the
adapter launcher imports this file and the bootstrap loads it by path.
"""

from __future__ import annotations

import contextlib
import importlib.machinery
import socket
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

CODE_NAME = "_tf_insight_probed_file"  # a module name for the loader; nothing is imported
# pydevd's ReaderThread: whether the end of the adapter's stream disposes of the debugger.
READER_ENDS_SESSION = "_ReaderThread__terminate_on_socket_close"
THREADS_END_S = 0.5  # what pydevd itself waits for its threads at the end
UNREACHABLE = ("127.0.0.1", 0)  # the address reported for a listener that does not exist


class Unsupported(RuntimeError):
    """This debugpy lacks what keeps its debugger private: the session must not start."""


def serve_only_the_debuggee(debuggee_fd: int) -> None:
    """In the adapter: no socket at all. Besides `refuse_other_clients`, the one debuggee is
    the other end of a socket pair our client made (`debuggee_fd`), not a listener's first
    caller (in `listen` mode debugpy listens on a loopback port for it)."""
    refuse_other_clients()
    from debugpy.adapter import servers
    served: list[bool] = []

    def serve_the_debuggee(host: str = "", port: int = 0) -> tuple[str, int]:
        if not served:  # one debuggee, once
            served.append(True)
            sock = socket.socket(fileno=debuggee_fd)
            threading.Thread(target=servers.Connection, args=(sock,), daemon=True,
                             name="tf-insight-debuggee").start()
        return UNREACHABLE

    servers.serve = serve_the_debuggee


def refuse_other_clients() -> None:
    """In the adapter: the one client is our stdio. debugpy's adapter listens on a loopback
    port for more DAP clients, with no authentication (any local process could attach to any
    process of the user's and run code): no such listener, and attaching by process id (code
    injection) is refused. (A debuggee debugpy launches still connects back to a listener
    that checks the adapter's per-session access token.)"""
    try:
        from debugpy.adapter import clients, servers
    except ImportError as error:
        raise Unsupported(f"debugpy's adapter cannot be loaded: {error}") from error
    if not (callable(getattr(clients, "serve", None)) and callable(getattr(servers, "serve", None))
            and hasattr(servers, "Connection") and hasattr(clients.Client, "attach_request")):
        raise Unsupported("this debugpy's adapter is not the one TF Insight knows (1.8)")

    def serve_no_clients(host: str, port: int | None = None) -> tuple[str, int]:
        return UNREACHABLE

    attach = clients.Client.attach_request

    def attach_request(self: Any, request: Any) -> Any:
        if "processId" in request.arguments:
            raise request.isnt_valid('TF Insight: "processId" (attach by injection) is refused')
        return attach(self, request)

    adapter_clients: Any = clients  # debugpy's modules, typed loosely: we replace their parts
    adapter_clients.listener = None  # what the adapter reports as its client socket: none
    adapter_clients.serve = serve_no_clients
    adapter_clients.Client.attach_request = attach_request


def connect_through(fd: int) -> None:
    """In the debuggee: pydevd "connects" to the adapter through the socket pair's other end
    (`fd`), whatever address it is given."""
    pydevd: Any = sys.modules.get("pydevd")
    if not callable(getattr(pydevd, "start_client", None)):
        raise Unsupported("this debugpy's pydevd has no start_client")
    sock = socket.socket(fileno=fd)
    sock.set_inheritable(False)  # the script's own child processes get no way in

    def start_client(host: str, port: int) -> socket.socket:
        return sock

    pydevd.start_client = start_client


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
