"""What a session's result looks like as JSON: `tf-insight trace --format json`, and the
server's notifications to the editor (`tfInsight/sessionStep`, `tfInsight/sessionEnd`).

One `TypedDict` per shape, built on the debuggee's (`debuggee/messages.py`: a step's frames,
layer, callable and values are the ones the probe sent). `TraceResult.to_dict` and
`Step.to_dict` return these; the server checks each message with `check` before it sends it;
the client's TypeScript types are generated from them (`typescript.py`, the block in
`client/src/core/protocol.ts`, compared by `tests/session/test_schema.py`).
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict, TypeVar

from tf_insight.session.debuggee import schema
from tf_insight.session.debuggee.messages import (
    AttributeWrite,
    FunctionCount,
    StaleGlobal,
    StepDetail,
    StepFields,
    TracePrint,
    UserFrame,
)

T = TypeVar("T")

Status = Literal["completed", "failed", "stopped", "timeout", "cancelled", "error"]


class Annotation(TypedDict):
    """What an editor shows for a step (`annotation.py`): its title, its mode ("" when
    unknown), the one-line label after the line, the hover's Markdown."""

    title: str
    mode: str
    label: str
    markdown: str


class StepData(StepFields):
    """One probe hit (`index`: its place in the run), with its annotation."""

    index: int
    detail: StepDetail
    annotation: Annotation


class _VerdictFrameBase(TypedDict):
    path: str
    line: int
    function: str
    source: str | None


class VerdictFrame(_VerdictFrameBase, total=False):
    """The user's line a verdict names, with its source; `cell` in a traced notebook."""

    cell: int | None


class VerdictData(TypedDict):
    """The hazard and its fix, linked to the explain catalogue (`id`) and a rule; `chain`:
    the `index` of the steps that led to it; `findings`: the static findings at or near its
    line (`tf_insight.findings.Finding.to_dict`)."""

    id: str | None
    rule: str | None
    title: str
    summary: str
    cause: str | None
    fix: str | None
    chain: list[int]
    user_frame: VerdictFrame | None
    findings: list[dict[str, Any]]


class ExceptionData(TypedDict):
    """An uncaught exception; `stack`: the unfiltered stack where a raise site recorded it;
    `thread`: the thread it ended (None: the main thread)."""

    type: str
    message: str
    traceback: str
    stack: list[str]
    thread: str | None


class RetraceData(TypedDict):
    """A tf.function object traced more than once, and why."""

    function: str
    path: str
    line: int
    count: int
    reasons: list[str]
    call_site: UserFrame | None
    cell: int | None
    id: str | None
    calls: int | None
    cause: str | None
    argument: str | None
    context: str | None
    variable_traces: int
    expected: str | None
    input_signature: str | None


class SideEffectData(TypedDict):
    """How often Python ran (traces) against how often the graph ran."""

    subject: str
    python_runs: int
    function: str | None
    function_calls: int | None
    summary: str
    path: str | None
    line: int | None
    cell: int | None
    runner: str | None


class TraceResultData(TypedDict):
    """Everything a session found (`model.TraceResult`)."""

    script: str
    status: Status
    steps: list[StepData]
    exception: ExceptionData | None
    verdict: VerdictData | None
    retraces: list[RetraceData]
    side_effects: list[SideEffectData]
    functions: list[FunctionCount]
    stale_globals: list[StaleGlobal]
    prints: list[TracePrint]
    attribute_writes: list[AttributeWrite]
    exit_code: int | None
    duration_s: float
    problems: list[str]
    retired_probes: list[str]
    probe_hits: dict[str, int]
    tracer_switched_off: str | None
    stopped_after: str | None
    versions: dict[str, str | None]


class SessionStepParams(TypedDict):
    """`tfInsight/sessionStep`: a step, as it happens."""

    sessionId: str
    step: StepData


class SessionEndParams(TypedDict):
    """`tfInsight/sessionEnd`: the result, once the session has ended."""

    sessionId: str
    result: TraceResultData


# The server's messages to the client, and every shape inside them (for `typescript.py`).
MESSAGES = (SessionStepParams, SessionEndParams)


def check(value: object, shape: type[T], where: str) -> T:
    """`value` as a `shape`, every field checked (`schema.MessageError` if it is not)."""
    return schema.read(value, shape, where)
