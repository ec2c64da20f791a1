"""Debuggee bootstrap: runs the user's script under debugpy, in the user's interpreter.

Started as `python bootstrap.py` with `TF_INSIGHT_SESSION` (JSON) in the environment. Order
matters for speed. The main thread imports debugpy, then TensorFlow/Keras, before the debugger
traces anything (its tracer roughly doubles their import time); meanwhile a second thread
attaches: it reads the probe locations from the control pipe and connects to the adapter
through the socket the client passed (`debugger_fd`: no port, nothing another process could
reach), and the client sets the logpoints. The client sends `configurationDone`, which
turns tracing on, only once the bootstrap reports its imports done; then the script runs as
`__main__`. Annotations go to an inherited pipe, never to the script's stdout.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import importlib
import importlib.util
import json
import os
import runpy
import signal
import sys
import threading
import traceback
from types import ModuleType, TracebackType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # at run time, this package is loaded by path under PACKAGE
    from tf_insight.session.debuggee.messages import Configure, Launch
    from tf_insight.session.debuggee.probe import ProbeSession

PACKAGE = "_tf_insight_debuggee"
PROBE_MODULE = "_tf_insight_probe"  # what logpoints import (`hit`)
PROCESSES_MODULE = "_tf_insight_processes"
EXIT_NO_CLIENT = 3
HERE = os.path.dirname(os.path.abspath(__file__))
RUNPY = os.path.basename(runpy.__file__)


def main() -> int:
    # No garbage collection while the bootstrap imports and attaches: TensorFlow's import
    # creates ~280k objects, and the collections over them (more with pydevd's threads
    # allocating beside) took ~0.7 s. The script runs with the collector as usual.
    collecting = gc.isenabled()
    gc.disable()
    package = _load_package()
    launch: Launch = package.schema.read(json.loads(os.environ.pop("TF_INSIGHT_SESSION")),
                                         package.messages.Launch, "launch")
    probe = importlib.import_module(f"{PACKAGE}.probe")
    sys.modules[PROBE_MODULE] = probe
    session: ProbeSession = probe.open_session(launch["annotation_fd"])
    lifeline = _Lifeline(launch["control_fd"], session, package)
    session.install_hooks()
    tweaks = importlib.import_module(f"{PACKAGE}.debugpy_tweaks")
    _import_debugpy(tweaks, launch["debugger_fd"])
    attach = _Attach(lifeline, session)
    for name in launch["preimport"]:
        try:
            importlib.import_module(name)
        except Exception as error:  # the script will meet the same error, in its own frame
            problem = f"{type(error).__name__}: {error}"
            session.pipe.send({"kind": "preimport_failed", "module": name, "error": problem})
    session.pipe.send({"kind": "imported"})  # the client may let tracing start now
    if not attach.wait():
        return EXIT_NO_CLIENT
    tweaks.exit_without_waiting()
    import debugpy

    debugpy.debug_this_thread()  # attached from the other thread: make sure this one is traced
    atexit.register(lambda: session.pipe.send(session.summary()))
    _report_thread_exceptions(session)
    session.pipe.send({"kind": "started"})
    session.start()
    # What the imports created is long-lived: into the oldest generation with it, as if it
    # had survived collections, or the script's first ones would go over all of it (~0.3 s).
    gc.freeze()
    gc.unfreeze()
    if collecting:
        gc.enable()
    try:
        return _run_script(package.frames.without_hooks, launch, session)
    finally:
        _stop_debugging_when_done(tweaks)


def _load_package() -> ModuleType:
    """This folder as the package PACKAGE, with its `schema`, `messages` and `frames` (the
    user's interpreter does not have tf_insight installed; a private name keeps it apart from
    the user's modules)."""
    folder = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location(
        PACKAGE, os.path.join(folder, "__init__.py"), submodule_search_locations=[folder])
    assert spec is not None and spec.loader is not None
    package = importlib.util.module_from_spec(spec)
    sys.modules[PACKAGE] = package
    spec.loader.exec_module(package)
    for name in ("schema", "messages", "frames"):
        importlib.import_module(f"{PACKAGE}.{name}")
    return package


def _import_debugpy(tweaks: ModuleType, debugger_fd: int) -> None:
    """debugpy and pydevd, imported before TensorFlow rather than on the attaching thread
    beside it (both would import the same standard modules at once), connected through our
    socket and made faster. Without debugpy the client says what to install and never lets
    the attach start."""
    tweaks.skip_unlogged_environment_description()
    try:
        import debugpy
    except ImportError:
        return
    debugpy.configure(subProcess=False)
    tweaks.connect_through(debugger_fd)
    tweaks.read_each_file_once()


class _Attach:
    """The attach, on its own thread: wait for the client's message, configure the probes,
    connect to the adapter (through our socket: the address is not used). `debugpy.connect`
    returns once the client has sent `configurationDone`, with tracing on in every thread."""

    def __init__(self, lifeline: _Lifeline, session: ProbeSession) -> None:
        self._lifeline = lifeline
        self._session = session
        self._connected = False
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="tf-insight-attach", daemon=True)
        self._thread.start()

    def wait(self) -> bool:
        """Block until attached; False if the client went away first. A failed connect
        raises here, on the main thread, as it would have without the second thread."""
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._connected

    def _run(self) -> None:
        try:
            control = self._lifeline.wait_for_message()
            if control is None:
                return
            self._session.configure(control)
            import debugpy

            debugpy.connect(("127.0.0.1", 0))
            self._connected = True
        except BaseException as error:
            self._error = error


def _stop_debugging_when_done(tweaks: ModuleType) -> None:
    """The script has returned: unless other threads of it still run, stop the debugger now
    rather than when pydevd's watcher thread notices (it polls every 0.2 s)."""
    current = threading.current_thread()
    if all(thread.daemon or thread is current for thread in threading.enumerate()):
        tweaks.stop_debugging()


def _load_module(name: str, path: str) -> ModuleType:
    """A standard-library-only module of tf_insight by path, relative to this folder."""
    spec = importlib.util.spec_from_file_location(
        name, os.path.join(os.path.dirname(os.path.abspath(__file__)), path))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _Lifeline:
    """The control pipe from the client: first its `Configure` message, then EOF when the
    client goes away. If the client dies, even by SIGKILL, the debuggee and all it started
    die with it; the client's own cleanup cannot run then. A later `Stop` message ends the
    script the same way, once the probe's counters are sent."""

    def __init__(self, fd: int, session: ProbeSession, package: ModuleType) -> None:
        self._fd = fd
        self._session = session
        self._package: Any = package  # its `schema` reads, `messages` has the types
        self._message: Configure | None = None
        self._received = threading.Event()
        threading.Thread(target=self._watch, name="tf-insight-lifeline", daemon=True).start()

    def wait_for_message(self) -> Configure | None:
        """Block until the client's message arrives (None: the client went away first)."""
        self._received.wait()
        return self._message

    def _watch(self) -> None:
        data = b""
        while chunk := os.read(self._fd, 65536):
            data += chunk
            while b"\n" in data:
                line, _, data = data.partition(b"\n")
                if not self._received.is_set():
                    self._message = self._read(line, self._package.messages.Configure,
                                               "configure")
                    self._received.set()
                elif self._read(line, self._package.messages.Stop, "stop") is not None:
                    self._session.pipe.send(self._session.summary())
                    self._session.pipe.send({"kind": "stopped"})
                    self._end_all()
        self._received.set()
        self._end_all()

    def _read(self, line: bytes, kind: type, where: str) -> Any:
        """A control message, checked (a bad one is reported, and read as none)."""
        try:
            return self._package.schema.read(json.loads(line), kind, where)
        except ValueError as error:  # a JSON or a schema error: our bug, said to the client
            self._session.pipe.send({"kind": "probe_error", "probe": "control",
                                     "error": str(error)})
            return None

    def _end_all(self) -> None:
        """Kill every process below this one, then this process group."""
        processes = _load_module(PROCESSES_MODULE, os.path.join("..", "processes.py"))
        for pid in processes.descendants(os.getpid()):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        os.killpg(os.getpgid(0), signal.SIGKILL)


def _report_thread_exceptions(session: ProbeSession) -> None:
    original = threading.excepthook

    def excepthook(args: threading.ExceptHookArgs) -> None:
        if args.exc_value is not None:
            event = session.exception(args.exc_value)
            event["thread"] = args.thread.name if args.thread else None
            session.pipe.send(event)
        original(args)

    threading.excepthook = excepthook


def _run_script(without_hooks: Any, launch: Launch, session: ProbeSession) -> int:
    """The script (or module, as `python -m` runs it) as `__main__`, with the folder of the
    launch first on `sys.path` (the script's own, a traced notebook's, or the working
    directory for a module)."""
    script = launch["script"]
    sys.argv = [script, *launch["args"]]
    sys.path[0] = os.path.abspath(launch["folder"] or os.path.dirname(script))
    try:
        if launch["module"]:
            runpy.run_module(script, run_name="__main__", alter_sys=True)
        else:
            runpy.run_path(script, run_name="__main__")
    except (SystemExit, KeyboardInterrupt):
        raise
    except BaseException as error:
        error.__traceback__ = without_hooks(_from_user_code(error.__traceback__))
        session.pipe.send(session.exception(error))
        traceback.print_exception(type(error), error, error.__traceback__)
        return 1
    return 0


def _from_user_code(tb: TracebackType | None) -> TracebackType | None:
    """Drop the bootstrap's and runpy's frames, so the traceback reads as under plain python."""
    current = tb
    while current is not None:
        path = current.tb_frame.f_code.co_filename
        if os.path.dirname(os.path.abspath(path)) != HERE and os.path.basename(path) not in (
                RUNPY, "<frozen runpy>"):
            return current
        current = current.tb_next
    return tb


if __name__ == "__main__":
    sys.exit(main())
