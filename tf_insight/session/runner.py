"""`run_trace`: one guided debug session, from environment check to verdict.

Timeline: start the probe resolution, the debuggee bootstrap and the adapter at once (the
bootstrap imports TensorFlow meanwhile) → send the bootstrap the adapter's loopback port and
the probe locations → set logpoints once it connects (still during TensorFlow's import) →
`configurationDone` once the bootstrap reports its imports done, which turns the tracer on →
collect annotations from the pipe until the script ends, the deadline passes or `cancel` is
set → tear everything down (process trees included) and build the result.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import queue
import re
import shutil
import socket
import subprocess
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from typing import IO, Any, TypeVar

from tf_insight import isolation
from tf_insight.check.notebook import NotebookError
from tf_insight.session.channel import ChannelClosed, Message
from tf_insight.session.dap import BreakpointMoved, DebugAdapter, Logpoint
from tf_insight.session.debuggee.messages import (
    Configure,
    ExceptionEvent,
    Launch,
    Place,
    PreimportFailedEvent,
    ProbeErrorEvent,
    RetireEvent,
    StartedEvent,
    StepEvent,
    SummaryEvent,
    TraceEvent,
    TracerOffEvent,
    UnfilteredExceptionEvent,
    read_event,
)
from tf_insight.session.debuggee.schema import MessageError
from tf_insight.session.effects import side_effects
from tf_insight.session.model import ExceptionRecord, Step, TraceConfig, TraceResult
from tf_insight.session.notebooks import NotebookScript, notebook_script
from tf_insight.session.preimport import modules_to_preimport
from tf_insight.session.probes import (
    DEBUGGEE_DIR,
    Environment,
    ProbePoint,
    UnusableInterpreter,
    missing_requirements,
    resolve_environment,
)
from tf_insight.session.processes import kill_tree
from tf_insight.session.retraces import explain_retraces
from tf_insight.session.verdict import build_verdict, load_explain_engine

T = TypeVar("T")
MODULE_NAME = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")
PROBE_MODULE = "_tf_insight_probe"
POLL_S = 0.01  # how soon the end of the script or a cancel is noticed
DAP_TIMEOUT_S = 20.0


class _Collector:
    """Events from the debuggee's pipe, each checked against its schema, then handled by its
    kind (`_handlers`, one per `messages.EVENTS` kind): steps (streamed to `on_step`),
    traces, exceptions, counters, the run's milestones."""

    def __init__(self, on_step: Callable[[Step], None] | None,
                 notebook: NotebookScript | None = None) -> None:
        self._on_step = on_step
        self._notebook = notebook  # records in the notebook's cells, not the joined module's
        self.steps: list[Step] = []
        self.traces: list[TraceEvent] = []
        self.exceptions: list[ExceptionRecord] = []
        self.unfiltered: list[UnfilteredExceptionEvent] = []
        self.summary: SummaryEvent | None = None
        self.retired: queue.Queue[str] = queue.Queue()
        self.retired_probes: list[str] = []
        self.tracer_switched_off: str | None = None
        self.imported = threading.Event()
        self.started = threading.Event()
        self.started_at: float | None = None
        self.problems: list[str] = []
        self._verdict_prepared = False
        self._handlers: dict[str, Callable[[Any], None]] = {
            "step": self._step,
            "trace": self._trace,
            "exception": self._exception,
            "unfiltered_exception": self._unfiltered,
            "summary": self._summary,
            "retire": self._retire,
            "tracer_off": self._tracer_off,
            "imported": lambda _event: self.imported.set(),
            "started": self._started,
            "stopped": lambda _event: None,
            "probe_error": self._probe_error,
            "preimport_failed": self._preimport_failed,
        }

    @property
    def kinds(self) -> frozenset[str]:
        """The event kinds handled (every kind of `messages.EVENTS`)."""
        return frozenset(self._handlers)

    def add(self, record: object) -> None:
        """One record from the pipe: checked, then handled (a bad one is a problem)."""
        try:
            event = read_event(record)
        except MessageError as error:
            self.problems.append(f"a bad message from the debuggee: {error}")
            return
        self._handlers[event["kind"]](event)

    def read_pipe(self, fd: int) -> None:
        with os.fdopen(fd, "rb") as pipe:
            for line in pipe:
                try:
                    record = json.loads(line)
                except ValueError:
                    continue  # a line cut short by the debuggee's end
                self.add(record)

    def _step(self, event: StepEvent) -> None:
        if self._notebook is not None:
            event = self._notebook.record(event)
        step = Step.from_event(len(self.steps), event)
        self.steps.append(step)
        if self._on_step is not None:
            try:
                self._on_step(step)
            except Exception as error:  # the caller's bug must not cut the session short
                self.problems.append(f"on_step failed: {type(error).__name__}: {error}")

    def _trace(self, event: TraceEvent) -> None:
        self.traces.append(self._notebook.trace(event) if self._notebook else event)

    def _exception(self, event: ExceptionEvent) -> None:
        self._prepare_verdict()
        self.exceptions.append(ExceptionRecord(type=event["type"], message=event["message"],
                                               traceback=event["traceback"],
                                               thread=event.get("thread")))

    def _unfiltered(self, event: UnfilteredExceptionEvent) -> None:
        self._prepare_verdict()
        self.unfiltered.append(event)

    def _summary(self, event: SummaryEvent) -> None:
        self.summary = self._notebook.summary(event) if self._notebook else event

    def _retire(self, event: RetireEvent) -> None:
        self.retired_probes.append(event["probe"])
        self.retired.put(event["probe"])

    def _tracer_off(self, event: TracerOffEvent) -> None:
        self.tracer_switched_off = event["tracer"]

    def _started(self, _event: StartedEvent) -> None:
        self.started_at = time.monotonic()
        self.started.set()

    def _probe_error(self, event: ProbeErrorEvent) -> None:
        self.problems.append(f"probe {event['probe']} failed: {event['error']}")

    def _preimport_failed(self, event: PreimportFailedEvent) -> None:
        self.problems.append(f"could not pre-import {event['module']}: {event['error']}")

    def _prepare_verdict(self) -> None:
        """The verdict will need the explain engine: import it now, beside the script."""
        if not self._verdict_prepared:
            self._verdict_prepared = True
            threading.Thread(target=load_explain_engine, name="load-explain", daemon=True).start()


def run_trace(
    config: TraceConfig,
    on_step: Callable[[Step], None] | None = None,
    cancel: threading.Event | None = None,
) -> TraceResult:
    """Run `config.script` under the debugger and return what the probes saw.

    `on_step` is called (on a reader thread) as each step is captured. Setting `cancel` ends
    the session promptly; nothing is left running in any case.
    """
    started = time.monotonic()
    result = TraceResult(script=f"-m {config.script}" if config.module else config.script)
    script = Path(config.cwd or ".", config.script)
    if config.module and not MODULE_NAME.fullmatch(config.script):
        return _failed(result, f"not a module name: {config.script!r}", started)
    if not config.module and not script.is_file():
        return _failed(result, f"script not found: {script}", started)
    if shutil.which(config.python) is None:
        return _failed(result, f"Python interpreter not found: {config.python}", started)
    if config.module:
        folder = Path(config.cwd or ".").resolve()  # first on sys.path, as `python -m` has it
        return _trace(config, module_source(config.script, folder), result, on_step, cancel,
                      started, folder=folder)
    if script.suffix != ".ipynb":
        return _trace(config, script.resolve(), result, on_step, cancel, started)
    try:
        with notebook_script(script) as notebook:
            # Run All runs in the notebook's folder and imports its neighbours from there
            config = dataclasses.replace(config, cwd=config.cwd or str(notebook.notebook.parent))
            return _trace(config, notebook.script, result, on_step, cancel, started, notebook)
    except (NotebookError, OSError, UnicodeDecodeError) as error:
        return _failed(result, f"cannot run {script}: {error}", started)


def _trace(config: TraceConfig, script: Path | None, result: TraceResult,
           on_step: Callable[[Step], None] | None, cancel: threading.Event | None,
           started: float, notebook: NotebookScript | None = None,
           folder: Path | None = None) -> TraceResult:
    """`script`: the file that runs (a module's, when found; None: a module not found
    here), `folder` first on its `sys.path` (its own folder by default)."""
    collector = _Collector(on_step, notebook)
    if folder is None:
        folder = notebook.notebook.parent if notebook else script.parent if script else Path()
    root = Path(config.cwd) if config.cwd else folder
    _Session(config, script, folder, root, collector, cancel or threading.Event()).run(result)
    _fill_findings(result, collector, root)
    if notebook is not None:
        notebook.result(result)
    result.problems.extend(collector.problems)
    result.retired_probes = list(collector.retired_probes)
    result.tracer_switched_off = collector.tracer_switched_off
    result.probe_hits = dict(collector.summary["probe_hits"]) if collector.summary else {}
    result.duration_s = time.monotonic() - started
    return result


def _fill_findings(result: TraceResult, collector: _Collector, root: Path) -> None:
    """Steps, counts, retraces, side effects, the exception and the verdict from what the
    collector has (so far)."""
    summary = collector.summary
    functions = {entry["id"]: entry for entry in summary["functions"]} if summary else {}
    result.steps = collector.steps
    result.functions = list(functions.values())
    result.retraces = explain_retraces(collector.traces, functions)
    result.side_effects = side_effects(summary["layer_runs"] if summary else [], functions)
    result.stale_globals = list(summary["stale_globals"]) if summary else []
    result.prints = list(summary["prints"]) if summary else []
    result.attribute_writes = list(summary["attribute_writes"]) if summary else []
    if collector.exceptions:
        main = collector.exceptions[-1]
        # The stack recorded before traceback filtering, for the same error (Keras may have
        # wrapped its message).
        unfiltered = next(
            (u for u in reversed(collector.unfiltered) if u["message"] in main.message), None
        )
        stack = list(unfiltered["stack"]) if unfiltered else []
        result.exception = ExceptionRecord(
            main.type, main.message, main.traceback, stack, main.thread
        )
    result.verdict = build_verdict(result, root)


def module_source(module: str, folder: Path) -> Path | None:
    """The file `python -m module` would run from `folder`, looked for in it and in its `src`
    folder (a src-layout project installed in development mode); None when not there (an
    installed module: the script's own interpreter finds it)."""
    parts = module.split(".")
    for base in (folder, folder / "src"):
        for candidate in (base.joinpath(*parts).with_suffix(".py"),
                          base.joinpath(*parts, "__main__.py")):
            if candidate.is_file():
                return candidate.resolve()
    return None


def _failed(result: TraceResult, problem: str, started: float) -> TraceResult:
    result.status = "error"
    result.problems.append(problem)
    result.duration_s = time.monotonic() - started
    return result


def _resolve_in_background(
    python: str, on_start: Callable[[subprocess.Popen[str]], None]
) -> Future[Environment]:
    future: Future[Environment] = Future()

    def resolve() -> None:
        try:
            future.set_result(resolve_environment(python, on_start=on_start))
        except Exception as error:
            future.set_exception(error)

    threading.Thread(target=resolve, name="resolve-probes", daemon=True).start()
    return future


def _message(probe: str) -> str:
    """The logpoint text: a call into the probe helper, which returns ''."""
    return f"{{__import__('{PROBE_MODULE}').hit('{probe}')}}"


class _Stopped(Exception):
    """Cancel or the deadline came before the session got going."""


class _Session:
    """The processes and pipes of one run; `run` always tears them down."""

    def __init__(
        self,
        config: TraceConfig,
        script: Path | None,
        folder: Path,
        root: Path,
        collector: _Collector,
        cancel: threading.Event,
    ) -> None:
        self._config = config
        self._script = script  # the file that runs, if known (a module may not be found here)
        self._folder = folder  # first on the script's sys.path
        self._root = root  # where the verdict looks for the user's files
        self._control_fd = -1  # `_stop_script` writes there
        self._verdict_checked = (0, 0)  # traces and exceptions when `stop_after` last looked
        # the adapter died while the script ran: its exit code counts, even when the
        # bootstrap's "started" never arrived (under load the adapter can die first)
        self._adapter_died_mid_run = False
        self._collector = collector
        self._cancel = cancel
        self._deadline = (
            time.monotonic() + config.timeout_s if config.timeout_s is not None else float("inf")
        )
        self._probes: tuple[ProbePoint, ...] = ()
        self._threads: list[threading.Thread] = []
        self._helpers: list[subprocess.Popen[str]] = []  # the probe resolver

    def run(self, result: TraceResult) -> None:
        """Start all three processes at once (probe resolution, debuggee, adapter): TF's
        import in the debuggee overlaps the rest. Always ends them all."""
        environment = _resolve_in_background(self._config.python, self._helpers.append)
        annotation_read, annotation_write = os.pipe()
        control_read, control_write = os.pipe()
        # The debugger's only connection: the adapter and the debuggee each get one end.
        adapter_end, debuggee_end = (s.detach() for s in socket.socketpair())
        adapter: DebugAdapter | None = None
        debuggee: subprocess.Popen[bytes] | None = None
        try:
            debuggee = self._start_debuggee(annotation_write, control_read, debuggee_end)
            adapter = DebugAdapter(self._config.python, adapter_end)
            for fd in (annotation_write, control_read, debuggee_end, adapter_end):
                os.close(fd)  # theirs now: the reader sees EOF once the debuggee has gone
            annotation_write = control_read = debuggee_end = adapter_end = -1
            self._spawn(self._collector.read_pipe, annotation_read)
            annotation_read = -1
            ready = adapter.listen()
            self._use_environment(self._await(environment, "resolving the probes"), result)
            self._await(ready, "starting the debug adapter")
            self._send_control(control_write)
            self._control_fd = control_write
            attached = self._wait(debuggee, adapter, until=adapter.initialized)
            if attached:
                self._set_logpoints(adapter, retired=set())
                adapter.disable_exception_breakpoints(DAP_TIMEOUT_S)
            # configurationDone turns the tracer on: not before TensorFlow's import is done.
            if attached and self._wait(debuggee, adapter, until=self._collector.imported):
                configured = adapter.configuration_done()
                self._supervise(debuggee, adapter, configured, result)
            else:
                self._explain_early_end(debuggee, adapter, result)
        except _Stopped:
            pass  # `_finish` reports cancelled / timeout
        except UnusableInterpreter as error:
            result.status = "error"
            result.problems.append(str(error))
        except (ChannelClosed, BreakpointMoved, RuntimeError, OSError) as error:
            result.status = "error"
            result.problems.append(f"debug session failed: {error}")
        finally:
            for fd in (annotation_read, annotation_write, control_read, control_write,
                       debuggee_end, adapter_end):
                if fd >= 0:
                    with contextlib.suppress(OSError):
                        os.close(fd)
            self._finish(debuggee, adapter, result)

    def _await(self, future: Future[T], what: str) -> T:
        """The future's result, unless cancel or the deadline comes first."""
        limit = time.monotonic() + DAP_TIMEOUT_S
        while True:
            if self._cancel.is_set() or time.monotonic() > self._deadline:
                raise _Stopped
            if time.monotonic() > limit:
                raise RuntimeError(f"no answer within {DAP_TIMEOUT_S:g} s while {what}")
            try:
                return future.result(POLL_S)
            except FutureTimeout:
                continue

    def _use_environment(self, environment: Environment, result: TraceResult) -> None:
        missing = missing_requirements(environment)
        if missing is not None:
            raise UnusableInterpreter(missing)
        result.versions = dict(environment.versions)
        result.problems.extend(environment.problems)
        self._probes = environment.probes

    def _send_control(self, fd: int) -> None:
        """Tell the waiting bootstrap to connect, and what to annotate."""
        locations: dict[str, list[Place]] = defaultdict(list)
        for point in self._probes:
            locations[point.name].append({"path": point.path, "line": point.line})
        message: Configure = {"max_hits": self._config.max_hits, "locations": dict(locations),
                              "trace_to_end": self._config.trace_to_end}
        os.write(fd, json.dumps(message).encode() + b"\n")

    def _start_debuggee(self, annotation_fd: int, control_fd: int,
                        debugger_fd: int) -> subprocess.Popen[bytes]:
        session: Launch = {
            "annotation_fd": annotation_fd,
            "control_fd": control_fd,
            "debugger_fd": debugger_fd,
            "preimport": modules_to_preimport(self._script) if self._script else [],
            "script": self._config.script if self._config.module else str(self._script),
            "module": self._config.module,
            "folder": str(self._folder),
            "args": list(self._config.args),
        }
        env = isolation.with_bundled_debugpy({**os.environ, **(self._config.env or {})})
        env.setdefault("PYTHONUNBUFFERED", "1")  # a killed script still shows what it printed
        env["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"
        env["TF_INSIGHT_SESSION"] = json.dumps(session)
        piped = subprocess.PIPE if self._config.output is not None else None
        process = subprocess.Popen(
            [self._config.python, str(DEBUGGEE_DIR / "supervisor.py"), str(os.getpid()),
             self._config.python, str(DEBUGGEE_DIR / "bootstrap.py")],
            cwd=self._config.cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=piped,
            stderr=piped,
            pass_fds=(annotation_fd, control_fd, debugger_fd),
            start_new_session=True,
        )
        if self._config.output is not None:
            assert process.stdout is not None and process.stderr is not None
            self._spawn(self._pump, "stdout", process.stdout)
            self._spawn(self._pump, "stderr", process.stderr)
        return process

    def _pump(self, name: str, stream: IO[bytes]) -> None:
        sink = self._config.output
        assert sink is not None
        with stream:
            while chunk := os.read(stream.fileno(), 65536):
                sink(name, chunk.decode("utf-8", errors="replace"))

    def _spawn(self, target: Callable[..., None], *args: Any) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True)
        thread.start()
        self._threads.append(thread)

    def _wait(
        self, debuggee: subprocess.Popen[bytes], adapter: DebugAdapter, until: threading.Event
    ) -> bool:
        """Wait for `until`; False if the debuggee ended, the adapter died, time ran out or
        the caller cancelled first."""
        while not until.is_set():
            if (
                debuggee.poll() is not None
                or adapter.gone.is_set()
                or self._cancel.is_set()
                or time.monotonic() > self._deadline
            ):
                return until.is_set()
            until.wait(POLL_S)
        return True

    def _set_logpoints(
        self, adapter: DebugAdapter, retired: set[str], only: set[str] | None = None
    ) -> None:
        """Logpoints for every probe not retired, in all files (or only those in `only`)."""
        files: dict[str, list[Logpoint]] = defaultdict(list)
        for point in self._probes:
            if only is None or point.path in only:
                files[point.path].extend(
                    [] if point.name in retired else [Logpoint(point.line, _message(point.name))]
                )
        adapter.set_logpoints(files, DAP_TIMEOUT_S)

    def _supervise(
        self,
        debuggee: subprocess.Popen[bytes],
        adapter: DebugAdapter,
        configured: Future[Message],
        result: TraceResult,
    ) -> None:
        retired: set[str] = set()
        while debuggee.poll() is None:
            if adapter.terminated.is_set():
                adapter.close()  # the debug session is over: no need to wait for the exit
            if self._cancel.is_set() or time.monotonic() > self._deadline:
                return
            refused = (
                configured.done()
                and not configured.exception()
                and not configured.result().get("success")
            )
            if refused:
                message = configured.result().get("message")
                raise RuntimeError(f"the adapter refused configurationDone: {message}")
            # Without "terminated" first, the adapter did not see the debuggee go: it died.
            if adapter.gone.is_set() and not adapter.terminated.is_set():
                self._adapter_died_mid_run = True
                result.status = "error"
                result.problems.append(
                    f"the debug adapter exited mid-run (code {adapter.exit_code()}); the "
                    "script was stopped there, with every process it started"
                )
                return
            if result.status != "stopped" and self._stop_reached():
                self._stop_script(result)
            try:
                probe = self._collector.retired.get(timeout=POLL_S)
            except queue.Empty:
                continue
            if probe not in retired and not adapter.gone.is_set():
                retired.add(probe)  # past its limit everywhere: stop paying for its logpoint
                files = {p.path for p in self._probes if p.name == probe}
                with contextlib.suppress(ChannelClosed, RuntimeError):
                    self._set_logpoints(adapter, retired, only=files)

    def _stop_reached(self) -> bool:
        """Whether the run has reached what `stop_after` asks for."""
        stop, collector = self._config.stop_after, self._collector
        if stop is None or collector.started_at is None:
            return False
        if stop.kind == "steps":
            return len(collector.steps) >= stop.count
        if stop.kind == "seconds":
            return time.monotonic() - collector.started_at >= stop.count
        seen = (len(collector.traces), len(collector.exceptions))
        if seen == self._verdict_checked:
            return False  # a verdict can only come with a new trace or exception
        self._verdict_checked = seen
        scratch = TraceResult(script=self._config.script)
        _fill_findings(scratch, collector, self._root)
        return scratch.verdict is not None

    def _stop_script(self, result: TraceResult) -> None:
        """Ask the bootstrap to send its counters and end the script with all it started;
        the session then ends as at the script's exit (`_finish` kills what is left)."""
        assert self._config.stop_after is not None
        result.status = "stopped"
        result.stopped_after = self._config.stop_after.describe()
        with contextlib.suppress(OSError):
            os.write(self._control_fd, b'{"stop": true}\n')

    def _explain_early_end(
        self, debuggee: subprocess.Popen[bytes], adapter: DebugAdapter, result: TraceResult
    ) -> None:
        if debuggee.poll() is not None:
            result.problems.append(
                f"the script's interpreter exited (code {debuggee.returncode}) before the "
                "debugger attached"
            )
        elif adapter.gone.is_set():
            result.problems.append(
                f"the debug adapter exited (code {adapter.exit_code()}) before the debuggee attached"
            )

    def _finish(
        self,
        debuggee: subprocess.Popen[bytes] | None,
        adapter: DebugAdapter | None,
        result: TraceResult,
    ) -> None:
        if debuggee is not None:
            if debuggee.poll() is None:
                if self._cancel.is_set():
                    result.status = "cancelled"
                elif time.monotonic() > self._deadline:
                    result.status = "timeout"
                    result.problems.append(
                        f"the script ran longer than {self._config.timeout_s:g} s and was "
                        "killed (with its child processes)"
                    )
            kill_tree(debuggee)
            script_ran = (self._collector.started.is_set() or result.status != "error"
                          or self._adapter_died_mid_run)
            exited = script_ran and result.status != "stopped"  # stopped: it did not exit
            result.exit_code = debuggee.returncode if exited else None
        if adapter is not None:
            adapter.close()
        for helper in self._helpers:
            kill_tree(helper)
        for thread in self._threads:
            thread.join(5.0)
        if result.status == "completed" and result.exit_code not in (0, None):
            result.status = "failed"
