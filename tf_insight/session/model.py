"""The result model of a trace session, and its JSON shape (`to_dict`)."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, cast

from tf_insight.session.annotation import annotation
from tf_insight.session.debuggee.messages import (
    AttributeWrite,
    CallableInfo,
    Frame,
    FunctionCount,
    Layer,
    Scalar,
    StaleGlobal,
    StepDetail,
    StepEvent,
    TracePrint,
    UserFrame,
    ValueSummary,
)
from tf_insight.session.wire import Status, StepData, TraceResultData, VerdictFrame

OutputSink = Callable[[str, str], None]
"""Receives the script's output as (stream name "stdout"/"stderr", text)."""


@dataclass(frozen=True)
class StopAfter:
    """When a session stops the script early, with the result so far: at the first `verdict`
    it can give (a completed run's would come at its end), after `count` `steps`, or `count`
    `seconds` after the script started."""

    kind: str
    count: float = 0.0

    FORMS = "verdict, first-step, N-steps or S-seconds"
    _TEXT = re.compile(
        r"(?P<word>verdict|first-step)|(?P<count>\d+(?:\.\d+)?)-(?P<unit>step|second)s?")

    @classmethod
    def parse(cls, text: str) -> StopAfter:
        """`verdict`, `first-step`, `20-steps`, `90-seconds`; ValueError names the forms."""
        found = cls._TEXT.fullmatch(text.strip().lower())
        count = float(found["count"]) if found and found["count"] else 1.0
        if found is None or count <= 0 or (found["unit"] == "step" and not count.is_integer()):
            raise ValueError(f"expected {cls.FORMS}, got {text!r}")
        if found["word"] == "verdict":
            return cls("verdict")
        return cls("seconds" if found["unit"] == "second" else "steps", count)

    def describe(self) -> str:
        """`a verdict`, `the first step`, `20 steps`, `90 seconds`."""
        if self.kind == "verdict":
            return "a verdict"
        if self.kind == "steps":
            return "the first step" if self.count == 1 else f"{self.count:g} steps"
        return f"{self.count:g} second{'s' if self.count != 1 else ''}"


@dataclass(frozen=True)
class TraceConfig:
    """What to run and how. `env` entries are added to the current environment;
    `output=None` lets the script write straight to our stdout/stderr. `trace_to_end` keeps
    the debugger's tracer on for the whole run (slower; the result is the same).
    `stop_after`: stop the script early, the result then as complete as the run so far.
    `module`: `script` names a module, run as `python -m script` (from `cwd`)."""

    script: str
    args: Sequence[str] = ()
    python: str = sys.executable
    cwd: str | None = None
    env: Mapping[str, str] | None = None
    max_hits: int = 3
    timeout_s: float | None = 600.0
    output: OutputSink | None = None
    trace_to_end: bool = False
    stop_after: StopAfter | None = None
    module: bool = False  # `script` is a module name, run as `python -m` runs it


@dataclass(frozen=True)
class Step:
    """One probe hit, annotated in the probed frame at hit time."""

    index: int
    probe: str
    location: Frame
    user_frame: UserFrame | None
    executing_eagerly: bool | None
    graph: str | None
    layer: Layer | None
    call_fn: CallableInfo | None
    args: list[ValueSummary]
    kwargs: dict[str, Scalar]
    detail: StepDetail = field(default_factory=lambda: StepDetail())

    @classmethod
    def from_event(cls, index: int, event: StepEvent) -> Step:
        """The `index`th step, from its (checked) event."""
        return cls(
            index=index,
            probe=event["probe"],
            location=event["location"],
            user_frame=event["user_frame"],
            executing_eagerly=event["executing_eagerly"],
            graph=event["graph"],
            layer=event["layer"],
            call_fn=event["call_fn"],
            args=event["args"],
            kwargs=event["kwargs"],
            detail=event.get("detail", {}),
        )

    @classmethod
    def from_record(cls, index: int, record: Mapping[str, Any]) -> Step:
        """A step from a record that may lack fields, unchecked: a step of a report written
        by another version, or made by hand (a missing field reads as unknown or empty)."""
        return cls(
            index=index,
            probe=str(record.get("probe", "")),
            location=record.get("location") or Frame(path="", line=0, function=""),
            user_frame=record.get("user_frame"),
            executing_eagerly=record.get("executing_eagerly"),
            graph=record.get("graph"),
            layer=record.get("layer"),
            call_fn=record.get("call_fn"),
            args=list(record.get("args", [])),
            kwargs=dict(record.get("kwargs", {})),
            detail=record.get("detail") or StepDetail(),
        )

    def to_dict(self) -> StepData:
        """The step, and what an editor shows for it (`annotation.annotation`)."""
        return cast(StepData, asdict(self) | {"annotation": annotation(self)})


@dataclass(frozen=True)
class ExceptionRecord:
    """An uncaught exception; `stack` is the unfiltered stack when a raise site recorded it."""

    type: str
    message: str
    traceback: str
    stack: list[str] = field(default_factory=list)
    thread: str | None = None


@dataclass(frozen=True)
class Verdict:
    """The chain of steps that led to the failure, linked to the catalogue and a rule."""

    id: str | None
    rule: str | None
    title: str
    summary: str
    cause: str | None = None
    fix: str | None = None
    chain: list[int] = field(default_factory=list)
    # The line of the user's that did it.
    user_frame: VerdictFrame | None = None
    # Static findings at or near that line (Finding.to_dict), as `explain` joins them.
    findings: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class Retrace:
    """One tf.function object traced more than once, and what changed each time.

    `cause`: what the recorded signatures show changed — "python value", "shape", "dtype",
    "object" (a Python object TF keys on by identity), "type" — or None when the arguments
    were keyed the same. `argument`: the (first) argument that changed."""

    function: str
    path: str
    line: int
    count: int
    reasons: list[str]
    call_site: UserFrame | None = None
    cell: int | None = None  # a traced notebook's cell holding the function
    id: str | None = None
    calls: int | None = None
    cause: str | None = None
    argument: str | None = None
    # What tells it from functions of the same name: "running train_step", "in main"...
    context: str | None = None
    # TF's second traces of a first call that created variables (not counted in `count`).
    variable_traces: int = 0
    # Why these traces are normal (a short last batch), or None: a hazard if `cause` says one.
    expected: str | None = None
    # An `input_signature` that serves every traced call, when all arguments are tensors.
    input_signature: str | None = None


@dataclass(frozen=True)
class SideEffect:
    """How often Python code ran (traces) compared with how often the graph ran (steps)."""

    subject: str
    python_runs: int
    function: str | None
    function_calls: int | None
    summary: str
    # A user tf.function's definition (its first decorator's line; `cell` in a notebook).
    path: str | None = None
    line: int | None = None
    cell: int | None = None
    runner: str | None = None  # "tf.data": the graph runs per element, in the pipeline


@dataclass
class TraceResult:
    """Everything a session found. `status`: completed, failed (non-zero exit), stopped (as
    `stop_after` asked: `stopped_after` says at what), timeout, cancelled or error (the
    session itself could not run; see `problems`)."""

    script: str
    status: Status = "completed"
    steps: list[Step] = field(default_factory=list)
    exception: ExceptionRecord | None = None
    verdict: Verdict | None = None
    retraces: list[Retrace] = field(default_factory=list)
    side_effects: list[SideEffect] = field(default_factory=list)
    # Every tf.function object that was called or traced: calls, graph runs, TF's traces.
    functions: list[FunctionCount] = field(default_factory=list)
    # Module-level Python values a graph kept after they changed.
    stale_globals: list[StaleGlobal] = field(default_factory=list)
    # The user's `print` calls that ran while a graph was traced.
    prints: list[TracePrint] = field(default_factory=list)
    # Number attributes of layers that traces of the user's `call` changed (a counter).
    attribute_writes: list[AttributeWrite] = field(default_factory=list)
    exit_code: int | None = None
    duration_s: float = 0.0
    problems: list[str] = field(default_factory=list)
    # Probes whose logpoints were removed after reaching their limit at every call site.
    retired_probes: list[str] = field(default_factory=list)
    # Logpoint hits per probe, steps or not (what the session cost the script).
    probe_hits: dict[str, int] = field(default_factory=dict)
    # The debugger's tracer went off once the run repeated itself (the hooks kept counting):
    # the way debugpy traced, `sys.monitoring` (Python 3.12+) or `sys.settrace`; None: never.
    tracer_switched_off: str | None = None
    stopped_after: str | None = None
    versions: dict[str, str | None] = field(default_factory=dict)

    def to_dict(self) -> TraceResultData:
        """The result as JSON (`wire.TraceResultData`)."""
        data = asdict(self)
        data["steps"] = [step.to_dict() for step in self.steps]
        data["duration_s"] = round(self.duration_s, 3)
        return cast(TraceResultData, data)
