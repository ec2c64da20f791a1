"""What the debuggee and the runner say to each other: one `TypedDict` per message.

The debuggee writes *events* to the annotation pipe, one JSON object a line, each with its
`kind` (`EVENTS` maps every kind to its type); the runner reads each with
`schema.read(record, EVENTS[kind], kind)` before anything else looks at it. The runner writes
*control* messages to the debuggee (`Launch` in its environment, `Configure` on the control
pipe, then maybe `Stop`), read the same way. The
server's messages to the editor (`tf_insight/session/wire.py`) reuse the shapes below.

Standard library only: the debuggee loads this package in the user's interpreter.
"""

from __future__ import annotations

from typing import Literal, TypedDict

from .schema import MessageError, read

Scalar = str | int | float | bool | None


# --- places ------------------------------------------------------------------------------


class Frame(TypedDict):
    """A line of code: the library line a probe hit, or a line of the user's."""

    path: str
    line: int
    function: str


class UserFrame(Frame, total=False):
    """The user's line behind a probe hit. `generated`: the AutoGraph-generated line it was
    mapped from. The runner adds `cell` and `source` for a traced notebook."""

    generated: str
    cell: int | None
    source: str | None


class Place(TypedDict):
    """A probe's statement, resolved in the user's TensorFlow/Keras."""

    path: str
    line: int


# --- what a step shows -------------------------------------------------------------------

_LayerBase = TypedDict("_LayerBase", {"class": str, "name": str})


class Layer(_LayerBase, total=False):
    """The Keras layer being called. `remat`: the mode a `RematScope` gave it."""

    remat: str


class _LinkBase(TypedDict):
    kind: str  # "custom_gradient Bind", "bound method", "tf.function"…
    type: str
    repr: str
    id: int


class Link(_LinkBase, total=False):
    """One wrapper of a callable; `path`/`line`: where a Python function is defined (the
    runner adds `cell` for one defined in a traced notebook)."""

    path: str
    line: int
    cell: int | None


class CallableInfo(TypedDict):
    """A callable and its wrapper chain, outermost first."""

    repr: str
    type: str
    id: int
    chain: list[Link]


class _SummaryBase(TypedDict):
    type: str


class ValueSummary(_SummaryBase, total=False):
    """A bounded description of an argument: a tensor's `shape` and `dtype`, a scalar's
    `value`, a sequence's `len` and first `items`, a dict's `keys`, else its `repr`."""

    shape: str
    dtype: str
    value: Scalar
    len: int
    items: list[ValueSummary]
    keys: list[str]
    repr: str


class StepDetail(TypedDict, total=False):
    """What some probes add: `tf_convert`'s `returned` callable (and whether it is the one it
    was given), a trace's `function` and `trace_index`, a rejected call's `raises` and the
    unfiltered `stack` there (`path:function:line`, outermost first)."""

    returned: CallableInfo
    same_object: bool
    function: str
    trace_index: int
    raises: str
    stack: list[str]


class _SignatureBase(TypedDict):
    kind: Literal["tensor", "python", "object"]


class SignatureEntry(_SignatureBase, total=False):
    """What `tf.function` keyed a trace on for one argument: a tensor's `shape` and `dtype`,
    a Python value's `type` and `value`, an object's `type` and `id`; `tf_type`: TF's own
    trace type for it, which decides."""

    shape: str
    dtype: str
    type: str
    value: Scalar
    id: int
    tf_type: str


# --- events: debuggee → runner -----------------------------------------------------------


class StepFields(TypedDict):
    """What a step says of one probe hit: the probe, where (`location`, the library line;
    `user_frame`, the user's), in which mode and graph, the layer, the callable and its
    arguments. The event and the result's step (`wire.StepData`) both carry these."""

    probe: str
    location: Frame
    user_frame: UserFrame | None
    executing_eagerly: bool | None
    graph: str | None
    layer: Layer | None
    call_fn: CallableInfo | None
    args: list[ValueSummary]
    kwargs: dict[str, Scalar]


class _StepEventBase(StepFields):
    kind: Literal["step"]
    site_hit: int  # the steps at this call site so far, this one included


class StepEvent(_StepEventBase, total=False):
    """One probe hit, annotated in the probed frame at hit time."""

    detail: StepDetail


class _TraceEventBase(TypedDict):
    kind: Literal["trace"]
    scope: str  # VARIABLE_CREATION, then NO_VARIABLE_CREATION: a first call's two traces
    id: str
    function: str
    context: str | None
    path: str
    line: int
    index: int
    signature: dict[str, SignatureEntry]
    user_frame: UserFrame | None


class TraceEvent(_TraceEventBase, total=False):
    """One trace of a tf.function object (`id`), with the arguments it was keyed on. The
    runner adds `cell` for a function defined in a traced notebook."""

    cell: int | None


class _ExceptionEventBase(TypedDict):
    kind: Literal["exception"]
    type: str
    message: str
    traceback: str


class ExceptionEvent(_ExceptionEventBase, total=False):
    """An uncaught exception, its traceback as plain Python prints it; `thread`: the thread it
    ended (the main thread's has none)."""

    thread: str | None


class UnfilteredExceptionEvent(TypedDict):
    """An exception at a traceback filter (Keras's, TF's), with its whole stack."""

    kind: Literal["unfiltered_exception"]
    type: str
    message: str
    stack: list[str]


class _UserFunctionBase(TypedDict):
    name: str
    path: str
    line: int


class UserFunction(_UserFunctionBase, total=False):
    """A function of the user's: its qualified name and where it is defined (its first
    decorator's line). The runner adds `cell` for one defined in a traced notebook."""

    cell: int | None


class LayerRun(TypedDict):
    """How often one layer object's Python `call` ran in one phase: `function` is the id of
    the tf.function being traced, or "model construction", "eager", "graph building";
    `call`: the layer's `call` when the user wrote it."""

    layer: str
    name: str
    id: int
    graph: str
    function: str
    count: int
    call: UserFunction | None


class _FunctionCountBase(TypedDict):
    id: str
    function: str
    context: str | None  # what tells it from functions of one name: "running train_step"
    path: str
    line: int
    calls: int
    runs: int  # calls whose graph ran (a call whose trace raised ran none)
    traces: int
    failed_traces: int  # traces that raised (TF's own count has only the others)
    runner: Literal["tf.data"] | None
    user_function: UserFunction | None  # the user's Python its traces run
    inside: list[str]  # the functions whose traces traced it (their graphs run it)


class FunctionCount(_FunctionCountBase, total=False):
    """One tf.function object's calls, graph runs and traces. The runner adds `cell` for a
    function defined in a traced notebook."""

    cell: int | None


class StaleGlobal(TypedDict):
    """A module-level Python value that a traced function of the user's (`reader`) read while
    tracing, and that had another value when the graph of `function` (its outermost
    tf.function) later ran without tracing again: the graph kept the value it was traced
    with (`traced`), `runs` times."""

    function: str
    reader: UserFunction
    name: str
    traced: str
    now: str
    runs: int


class _TracePrintBase(TypedDict):
    path: str
    line: int
    tensors: bool  # a tensor (or the text of one) among its arguments
    count: int


class TracePrint(_TracePrintBase, total=False):
    """A Python `print` of the user's that ran while a graph was traced: once per trace, not
    per step. The runner adds `cell` for one in a traced notebook."""

    cell: int | None


class AttributeWrite(TypedDict):
    """A number attribute of a layer (`self.calls`) that traces of the user's `call` changed,
    `count` times: it counts traces, not steps."""

    layer: str
    id: int
    name: str
    count: int
    call: UserFunction


class SummaryEvent(TypedDict):
    """The counters, sent once when the script ends or is stopped."""

    kind: Literal["summary"]
    layer_runs: list[LayerRun]
    functions: list[FunctionCount]
    stale_globals: list[StaleGlobal]
    prints: list[TracePrint]
    attribute_writes: list[AttributeWrite]
    probe_hits: dict[str, int]


class RetireEvent(TypedDict):
    """A probe past its limit everywhere: the runner removes its logpoints."""

    kind: Literal["retire"]
    probe: str


class TracerOffEvent(TypedDict):
    """The run repeats itself: the debugger's tracer went off (`tracer`: how it traced)."""

    kind: Literal["tracer_off"]
    after_records: int
    tracer: str


class ImportedEvent(TypedDict):
    """The bootstrap's imports are done: tracing may start."""

    kind: Literal["imported"]


class StartedEvent(TypedDict):
    """The script starts."""

    kind: Literal["started"]


class StoppedEvent(TypedDict):
    """The script is being ended, as the runner asked (`Stop`)."""

    kind: Literal["stopped"]


class ProbeErrorEvent(TypedDict):
    """A probe failed (its first failure only); the run goes on without it."""

    kind: Literal["probe_error"]
    probe: str
    error: str


class PreimportFailedEvent(TypedDict):
    """A module the bootstrap imports ahead of the script failed to import."""

    kind: Literal["preimport_failed"]
    module: str
    error: str


Event = (StepEvent | TraceEvent | ExceptionEvent | UnfilteredExceptionEvent | SummaryEvent
         | RetireEvent | TracerOffEvent | ImportedEvent | StartedEvent | StoppedEvent
         | ProbeErrorEvent | PreimportFailedEvent)

EVENTS: dict[str, type] = {
    "step": StepEvent,
    "trace": TraceEvent,
    "exception": ExceptionEvent,
    "unfiltered_exception": UnfilteredExceptionEvent,
    "summary": SummaryEvent,
    "retire": RetireEvent,
    "tracer_off": TracerOffEvent,
    "imported": ImportedEvent,
    "started": StartedEvent,
    "stopped": StoppedEvent,
    "probe_error": ProbeErrorEvent,
    "preimport_failed": PreimportFailedEvent,
}


# --- control: runner → debuggee ----------------------------------------------------------


class Launch(TypedDict):
    """How the bootstrap starts (`TF_INSIGHT_SESSION` in its environment): the pipes and the
    debugger's socket it inherits, what to import before the debugger traces, the script (a
    module's name when `module`, run as `python -m` runs it), the folder first on its
    `sys.path`, its arguments."""

    annotation_fd: int
    control_fd: int
    debugger_fd: int
    preimport: list[str]
    script: str
    module: bool
    folder: str
    args: list[str]


class Configure(TypedDict):
    """The runner's first message: each probe's places, the steps kept per call site, and
    whether the tracer stays on to the end."""

    max_hits: int
    locations: dict[str, list[Place]]
    trace_to_end: bool


class Stop(TypedDict):
    """End the script now, after sending the counters."""

    stop: Literal[True]


def read_event(record: object) -> Event:
    """An event from the pipe, every field checked (`schema.MessageError` if not one)."""
    kind = record.get("kind") if isinstance(record, dict) else None
    schema = EVENTS.get(kind) if isinstance(kind, str) else None
    if schema is None:
        raise MessageError(f"event: no such kind {kind!r}")
    return read(record, schema, str(kind))
