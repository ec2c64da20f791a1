"""Guided debug sessions (`tf_insight.session.run_trace`) on worker threads.

Each session runs the user's script under the user's interpreter (the server process itself
never imports TensorFlow). Steps are handed to `on_step` as they happen, the result to
`on_end`; both are called on the session thread, the server marshals them to the event loop.
A session stops when its `cancel` event is set (`tfInsight.stopSession`, a cancelled progress,
shutdown) — `run_trace` then ends the debuggee, so nothing is left running.

Steps that carry a user file and line become *annotations*, served as inlay hints and through
the `tfInsight/sessionAnnotations` request.
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from lsprotocol import types

from tf_insight_server.commands import START_SESSION, CommandError
from tf_insight_server.settings import SessionSettings

if TYPE_CHECKING:
    from tf_insight.session.model import Step, TraceConfig
    from tf_insight.session.wire import (
        SessionEndParams,
        SessionStepParams,
        StepData,
        TraceResultData,
    )

MAX_ANNOTATIONS_PER_LINE = 8
SESSION_STEP = "tfInsight/sessionStep"  # notifications to the client
SESSION_END = "tfInsight/sessionEnd"


@dataclass(frozen=True)
class Request:
    script: str
    args: tuple[str, ...] = ()
    python: str | None = None
    cwd: str | None = None
    env: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Annotation:
    session_id: str
    path: str
    line: int  # 1-based
    label: str
    tooltip: str  # Markdown

    def to_dict(self) -> dict[str, Any]:
        return {"sessionId": self.session_id, "path": self.path, "line": self.line - 1,
                "label": self.label, "tooltip": self.tooltip}


@dataclass
class Session:
    id: str
    request: Request
    cancel: threading.Event = field(default_factory=threading.Event)
    done: threading.Event = field(default_factory=threading.Event)
    thread: threading.Thread | None = None
    steps: int = 0
    result: TraceResultData | None = None
    started: float = field(default_factory=time.monotonic)


def parse_request(args: tuple[Any, ...], root: Path | None, interpreter: str | None,
                  command: str = START_SESSION) -> Request:
    """The script a `command` runs (a guided session's, a debug configuration's): its path,
    arguments, interpreter, folder and environment, each checked."""
    example = '{"script": "train.py", "args": [], "python": null, "cwd": null, "env": {}}'
    if len(args) != 1 or not isinstance(args[0], dict):
        raise CommandError(f"{command} expects one argument {example}")
    raw = args[0]
    script = raw.get("script")
    if not isinstance(script, str) or not script:
        raise CommandError(f"{command}: `script` must be the path of a Python script")
    cwd = raw.get("cwd")
    if cwd is not None and not isinstance(cwd, str):
        raise CommandError(f"{command}: `cwd` must be a folder path or null")
    base = Path(cwd) if cwd else (root or Path.cwd())
    script_path = Path(script) if os.path.isabs(script) else base / script
    if not script_path.is_file():
        raise CommandError(f"{command}: script {str(script_path)!r} does not exist")
    script_args = raw.get("args") or []
    if not isinstance(script_args, list) or not all(isinstance(a, str) for a in script_args):
        raise CommandError(f"{command}: `args` must be a list of strings")
    python = raw.get("python") or interpreter or sys.executable
    if not isinstance(python, str) or not (os.path.exists(python) or _on_path(python)):
        raise CommandError(f"{command}: interpreter {python!r} does not exist")
    env = raw.get("env") or {}
    if not isinstance(env, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                            for k, v in env.items()):
        raise CommandError(f"{command}: `env` must map names to strings")
    return Request(script=str(script_path.resolve()), args=tuple(script_args), python=python,
                   cwd=str(Path(cwd).resolve()) if cwd else str(script_path.resolve().parent),
                   env=tuple(sorted(env.items())))


def _on_path(name: str) -> bool:
    import shutil

    return shutil.which(name) is not None


class OutputBatcher:
    """The script's output on its way to the editor: coalesced into one message per stream at
    most every `FLUSH_S` (or per `CHUNK` characters), and capped at `CAP` characters a
    session, then one line saying how much more there was (a 50 MB print flood was 6,122
    log messages, 20 MB, for the editor to take in)."""

    FLUSH_S = 0.2
    CHUNK = 4000
    CAP = 1_000_000

    def __init__(self, send: Callable[[str, str], None]) -> None:
        self._send = send
        self._pending: dict[str, list[str]] = {}
        self._sent = 0
        self._dropped = 0
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None

    def write(self, stream: str, text: str) -> None:
        with self._lock:
            room = self.CAP - self._sent - sum(map(len, self._pending.get(stream, [])))
            if room <= 0:
                self._dropped += len(text)
                return
            if len(text) > room:
                self._dropped += len(text) - room
                text = text[:room]
            self._pending.setdefault(stream, []).append(text)
            if sum(map(len, self._pending[stream])) >= self.CHUNK:
                self._flush_locked()
            elif self._timer is None:
                self._timer = threading.Timer(self.FLUSH_S, self.flush)
                self._timer.daemon = True
                self._timer.start()

    def flush(self) -> None:
        with self._lock:
            self._flush_locked()

    def close(self) -> None:
        """Send what is left, and say what was not sent."""
        with self._lock:
            self._flush_locked()
            if self._dropped:
                self._send("stderr", f"… {self._dropped:,} more characters of output not "
                                     f"shown (the editor gets the first {self.CAP:,})")
                self._dropped = 0

    def _flush_locked(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        pending, self._pending = self._pending, {}
        for stream, parts in pending.items():
            text = "".join(parts)
            self._sent += len(text)
            for start in range(0, len(text), self.CHUNK):
                self._send(stream, text[start:start + self.CHUNK])


class Sessions:
    def __init__(self) -> None:
        self._sessions: dict[str, Session] = {}
        self._annotations: dict[str, dict[int, list[Annotation]]] = {}  # path → line → ...
        self._lock = threading.Lock()

    def start(
        self,
        request: Request,
        limits: SessionSettings,
        on_step: Callable[[Session, StepData], None],
        on_end: Callable[[Session, TraceResultData], None],
        on_output: Callable[[Session, str, str], None] | None = None,
    ) -> Session:
        session = Session(id=uuid.uuid4().hex[:12], request=request)
        with self._lock:
            self._sessions[session.id] = session
        thread = threading.Thread(target=self._run,
                                  args=(session, limits, on_step, on_end, on_output),
                                  name=f"tfi-session-{session.id}", daemon=True)
        session.thread = thread
        thread.start()
        return session

    def _run(
        self,
        session: Session,
        limits: SessionSettings,
        on_step: Callable[[Session, StepData], None],
        on_end: Callable[[Session, TraceResultData], None],
        on_output: Callable[[Session, str, str], None] | None,
    ) -> None:
        """Run the session; every step and the result are checked against their schema
        (`tf_insight.session.wire`) before they go to the editor."""

        def send(stream: str, text: str) -> None:
            if on_output is not None:
                on_output(session, stream, text)

        batcher = OutputBatcher(send)
        # Here, not at the top: the session's modules cost the server's start ~0.13 s.
        from tf_insight.session import TraceResult, run_trace
        from tf_insight.session.wire import StepData, TraceResultData, check

        def step(step_object: Step) -> None:
            data = check(step_object.to_dict(), StepData, "step")  # with its annotation
            session.steps += 1
            self._annotate(session, data)
            on_step(session, data)

        try:
            config = _trace_config(session.request, limits, batcher.write)
            outcome = run_trace(config, step, session.cancel)
            result = check(outcome.to_dict(), TraceResultData, "result")
        except Exception as error:  # the server must survive any session failure
            failed = TraceResult(script=session.request.script, status="error",
                                 problems=[f"the session failed: {type(error).__name__}: {error}"])
            result = failed.to_dict()
        batcher.close()
        session.result = result
        try:
            on_end(session, result)
        finally:
            session.done.set()
            with self._lock:
                self._sessions.pop(session.id, None)

    def stop(self, session_id: str) -> bool:
        with self._lock:
            session = self._sessions.get(session_id)
        if session is None:
            return False
        session.cancel.set()
        return True

    def stop_all(self, wait: float = 0.0) -> None:
        with self._lock:
            sessions = list(self._sessions.values())
        for session in sessions:
            session.cancel.set()
        deadline = time.monotonic() + wait
        for session in sessions:
            session.done.wait(max(0.0, deadline - time.monotonic()))

    @property
    def running(self) -> list[str]:
        with self._lock:
            return list(self._sessions)

    # ---- annotations ------------------------------------------------------------------------

    def annotations(self, path: str) -> list[Annotation]:
        key = _norm(path)
        with self._lock:
            by_line = self._annotations.get(key, {})
            return [a for line in sorted(by_line) for a in by_line[line]]

    def _annotate(self, session: Session, step: StepData) -> None:
        annotation = annotation_from_step(session.id, step)
        if annotation is None:
            return
        with self._lock:
            if not any(a.session_id == session.id for lines in self._annotations.values()
                       for items in lines.values() for a in items):
                # a new session replaces the annotations of earlier ones
                self._annotations.clear()
            items = self._annotations.setdefault(_norm(annotation.path), {}).setdefault(
                annotation.line, [])
            if annotation.label not in {a.label for a in items}:
                items.append(annotation)
                del items[:-MAX_ANNOTATIONS_PER_LINE]


def annotation_from_step(session_id: str, step: StepData) -> Annotation | None:
    """The annotation of the user file line a step came from (its `user_frame`): the step's
    `annotation` label (`tf_insight.session.annotation`, what VS Code shows too), with its
    Markdown as the tooltip."""
    frame = step["user_frame"]
    if frame is None or frame["line"] < 1:
        return None
    shown = step["annotation"]
    return Annotation(session_id=session_id, path=frame["path"], line=frame["line"],
                      label=shown["label"], tooltip=shown["markdown"])


def _trace_config(request: Request, limits: SessionSettings,
                  output: Callable[[str, str], None]) -> TraceConfig:
    from tf_insight.session.model import StopAfter, TraceConfig

    return TraceConfig(
        script=request.script,
        args=list(request.args),
        python=request.python or sys.executable,
        cwd=request.cwd,
        env=dict(request.env),
        max_hits=limits.max_hits,
        timeout_s=limits.timeout_seconds,
        stop_after=StopAfter.parse(limits.stop_after) if limits.stop_after else None,  # checked
        output=output,  # never None: the script must not write into the LSP stream
    )


def _norm(path: str) -> str:
    try:
        return str(Path(path).resolve())
    except OSError:
        return path


class SessionClient(Protocol):
    """What a session started for an editor needs of the server (`TfInsightServer`)."""

    sessions: Sessions

    def post(self, fn: Callable[..., Any], *args: Any) -> None: ...

    def notify(self, method: str, params: Any) -> None: ...

    async def begin_progress(self, title: str, on_cancel: Callable[[], None]) -> str | None: ...

    def report_progress(self, token: str | None, message: str,
                        percentage: int | None = None) -> None: ...

    def end_progress(self, token: str | None, message: str) -> None: ...

    def refresh_inlay_hints(self, force: bool = False) -> None: ...

    def log_message(self, kind: types.MessageType, message: str) -> None: ...


def start_for_client(client: SessionClient, request: Request, limits: SessionSettings) -> Session:
    """Start a session whose steps and end reach the client as notifications, with progress
    (cancelling it stops the session), inlay hints refreshed, and the script's output logged.
    Session threads hand everything to the event loop (`client.post`)."""
    tokens: dict[str, str | None] = {}

    def on_step(session: Session, step: StepData) -> None:
        def send() -> None:
            params: SessionStepParams = {"sessionId": session.id, "step": step}
            client.notify(SESSION_STEP, params)
            client.report_progress(tokens.get("token"),
                                   f"step {session.steps}: {step['probe']}"[:200])
            client.refresh_inlay_hints()
        client.post(send)

    def on_end(session: Session, result: TraceResultData) -> None:
        def send() -> None:
            params: SessionEndParams = {"sessionId": session.id, "result": result}
            client.notify(SESSION_END, params)
            verdict = result["verdict"]
            client.end_progress(tokens.get("token"),
                                "stopped" if session.cancel.is_set()
                                else (verdict["title"] if verdict else result["status"])[:200])
            client.refresh_inlay_hints(force=True)
        client.post(send)

    def on_output(session: Session, stream: str, text: str) -> None:
        if text.strip():
            client.log_message(types.MessageType.Log,
                               f"[session {session.id} {stream}] {text.rstrip()}")

    session = client.sessions.start(request, limits, on_step, on_end, on_output)

    async def progress() -> None:
        tokens["token"] = await client.begin_progress(
            f"TF Insight session: {Path(request.script).name}", session.cancel.set)
        if session.done.is_set():
            client.end_progress(tokens["token"], "done")

    asyncio.get_running_loop().create_task(progress())
    return session
