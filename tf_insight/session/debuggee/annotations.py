"""Annotations: what a probe hit records, taken in the probed frame at hit time (so that
`executing_eagerly()` is still the value the library code sees).

A hit becomes a `step` event, and a tf.function's trace a `trace` event too, until its call
site in the user's code has had `max_hits` steps; past that it only counts. A probe that is
not needed for counting and keeps being suppressed is retired (the runner then removes its
logpoints). Never raises: a failure is reported once per probe and the run goes on.
Standard library only.
"""

from __future__ import annotations

import contextlib
import re
import sys
import traceback
import types
from collections.abc import Callable
from typing import Any

from . import frames, introspect
from .counters import Counters, function_id
from .frames import Library
from .messages import (
    Configure,
    Event,
    ExceptionEvent,
    StepDetail,
    StepEvent,
    TraceEvent,
    UserFrame,
)
from .values import (
    MAX_ITEMS,
    describe_callable,
    innermost,
    parameter_names,
    qualified_type,
    safe_str,
    short_value,
    signature_entry,
    summarize,
)

# Probes whose every hit feeds a counter (side effects, retraces): never retired.
COUNTING_PROBES = frozenset({"keras.Layer.__call__", "tf.function.trace", "tf.function.call"})
# Probes that are steps only for a layer's or the user's own functions: TF and Keras run
# their own through them too (tf.data's functions, the optimizer's `all_reduce` gradient).
CONTEXT_PROBES = frozenset(
    {
        "autograph.tf_convert",
        "autograph.converted_call",
        "tf.function.trace",
        "custom_gradient.Bind.__call__",
        "custom_gradient.decorated",
        "custom_gradient._graph_mode_decorator",
        "custom_gradient._eager_mode_decorator",
    }
)
GRAPH_MODE_DECORATOR = "custom_gradient._graph_mode_decorator"
ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;]*m")
RETIRE_AFTER_SUPPRESSED = 200
MAX_TRACE_RECORDS = 50
SEEN_MARK = "_tf_insight_recorded"

# Probe → the names of the locals holding (the callable, positional args, keyword args).
CALL_LOCALS = {
    "autograph.converted_call": ("f", "args", "kwargs"),
    "custom_gradient.Bind.__call__": ("self", "a", "k"),
    "custom_gradient.decorated": ("wrapped", "args", "kwargs"),
    GRAPH_MODE_DECORATOR: ("f", "args", "kwargs"),
    "custom_gradient._eager_mode_decorator": ("f", "args", "kwargs"),
}

Site = tuple[str, str, int]  # (probe, path, line) of a call site in the user's code


class Annotator:
    """One per session: the steps and trace records so far, per call site and per probe."""

    def __init__(self, send: Callable[[Event], None], library: Library,
                 counters: Counters) -> None:
        self._send = send
        self.library = library
        self._counters = counters
        self.max_hits = 3
        self._locations: dict[str, list[tuple[str, int]]] = {}
        self._site_hits: dict[Site, int] = {}
        self._suppressed: dict[str, int] = {}
        self._retired: set[str] = set()
        self._errors: dict[str, str] = {}
        self.hits: dict[str, int] = {}  # per probe, steps or not: what the session cost
        self.recorded = 0  # steps and trace records so far
        self.custom_gradients = False  # a step at a custom_gradient probe was recorded

    def configure(self, message: Configure) -> None:
        """The steps kept per call site and each probe's places."""
        self.max_hits = message["max_hits"]
        for name, places in message["locations"].items():
            self._locations[name] = [(self.library.real_path(place["path"]), place["line"])
                                     for place in places]

    # --- hits ----------------------------------------------------------------------------

    def hit_at(self, probe: str, find_frame: Callable[[], types.FrameType | None]) -> None:
        """Count a hit of `probe` and annotate the frame `find_frame` gives."""
        self.hits[probe] = self.hits.get(probe, 0) + 1
        try:
            frame = find_frame()
            if frame is not None:
                self._on_hit(probe, frame)
        except Exception as error:  # never break the debuggee; report the first failure
            self.report_error(probe, error)

    def probed_frame(self, probe: str) -> types.FrameType | None:
        """The frame stopped at `probe`'s line: a logpoint's evaluation runs a few frames
        above it."""
        wanted = self._locations.get(probe, ())
        frame: types.FrameType | None = sys._getframe(2)
        for _ in range(40):
            if frame is None:
                return None
            if (self.library.real_path(frame.f_code.co_filename), frame.f_lineno) in wanted:
                return frame
            frame = frame.f_back
        return None

    def report_error(self, probe: str, error: Exception) -> None:
        if probe not in self._errors:
            self._errors[probe] = f"{type(error).__name__}: {error}"
            self._send({"kind": "probe_error", "probe": probe, "error": self._errors[probe]})

    def seen_enough(self, frame: types.FrameType) -> bool:
        """Whether the layer call site of `frame` has had its `max_hits` steps."""
        site = _site("keras.Layer.__call__", self.user_frame(frame))
        return self._site_hits.get(site, 0) >= self.max_hits

    def user_frame(self, frame: types.FrameType) -> UserFrame | None:
        """The user's line behind `frame`: in a `MirroredStrategy` replica thread running no
        code of the user's, the line in the thread that runs `strategy.run`."""
        found = self.library.user_frame(frame)
        if found is None:
            parent = introspect.replica_parent()
            if parent is not None:
                found = self.library.user_frame(parent)
        return found

    def _on_hit(self, probe: str, frame: types.FrameType) -> None:
        if probe == "exception.unfiltered":
            self._record_unfiltered(frame)
            return
        local = frame.f_locals
        layer = introspect.probed_layer(probe, frame, local)
        if probe == "keras.Layer.__call__" and layer is None:
            return  # Keras 3 Operation.__call__ also runs non-layer ops
        user = self.user_frame(frame)
        site = _site(probe, user)
        trace = self._trace(frame, user) if probe == "tf.function.trace" else None
        if trace is not None:
            self.recorded += 1
            self._send(trace)
        call_fn, args, kwargs, detail = _probe_values(probe, local)
        rejects_kwargs = probe == GRAPH_MODE_DECORATOR and bool(kwargs)
        if (probe in CONTEXT_PROBES and layer is None and not rejects_kwargs
                and not self._is_user_code(call_fn)):
            # tf.data and Keras internals converting or tracing their own functions.
            # AutoGraph converts thousands of those calls in a big model: they count
            # towards retirement.
            if probe != "tf.function.trace":
                self._suppress(probe)
            return
        count = self._site_hits.get(site, 0) + 1
        self._site_hits[site] = count
        if count > self.max_hits:
            self._suppress(probe)
            return
        self._suppressed[probe] = 0
        eager = introspect.executing_eagerly()
        step: StepEvent = {
            "kind": "step",
            "probe": probe,
            "location": {
                "path": frame.f_code.co_filename,
                "line": frame.f_lineno,
                "function": frame.f_code.co_name,
            },
            "user_frame": user,
            "executing_eagerly": eager,
            "graph": introspect.graph_name(eager),
            "layer": introspect.describe_layer(layer),
            "call_fn": describe_callable(call_fn) if call_fn is not None else None,
            "args": [summarize(value) for value in args[:MAX_ITEMS]],
            "kwargs": {str(k): short_value(v) for k, v in list(kwargs.items())[:12]},
            "site_hit": count,
        }
        if trace is not None:
            detail["trace_index"] = trace["index"]
        if rejects_kwargs:
            detail["raises"] = "ValueError: custom_gradient rejects keyword arguments in graph mode"
            detail["stack"] = frames.stack(frame)
        if detail:
            step["detail"] = detail
        self.recorded += 1
        self.custom_gradients = self.custom_gradients or probe.startswith("custom_gradient.")
        self._send(step)

    def _is_user_code(self, value: Any) -> bool:
        """Whether the innermost function under `value`'s wrappers was written by the user."""
        inner = innermost(value)
        function = getattr(inner, "__func__", inner)
        code = getattr(function, "__code__", None)
        return code is not None and not self.library.is_library(code.co_filename)

    def _suppress(self, probe: str) -> None:
        if probe in COUNTING_PROBES or probe in self._retired:
            return
        self._suppressed[probe] = self._suppressed.get(probe, 0) + 1
        if self._suppressed[probe] >= RETIRE_AFTER_SUPPRESSED:
            self._retired.add(probe)
            self._send({"kind": "retire", "probe": probe})

    # --- traces --------------------------------------------------------------------------

    def _trace(self, frame: types.FrameType, user: UserFrame | None) -> TraceEvent | None:
        """Count a trace (`frame`: TF's `_maybe_define_function`); while few, also record the
        argument signature that caused it."""
        local = frame.f_locals
        options = local.get("tracing_options")
        python_function = getattr(options, "python_function", None)
        scope = safe_str(getattr(getattr(options, "scope_type", None), "name", None))
        key, index = self._counters.count_trace(options, frame)
        if index > MAX_TRACE_RECORDS:
            return None
        args = tuple(local.get("args") or ())
        kwargs = dict(local.get("kwargs") or {})
        names = parameter_names(python_function, len(args))
        signature = {names[i]: signature_entry(value) for i, value in enumerate(args)}
        signature.update({str(k): signature_entry(v) for k, v in kwargs.items()})
        for name, tf_type in introspect.trace_types(local.get("lookup_func_type")).items():
            if name in signature:
                signature[name]["tf_type"] = tf_type
        return {
            "kind": "trace",
            "scope": scope,
            "id": function_id(key),
            "function": key[1],
            "context": introspect.function_context(python_function),
            "path": key[2],
            "line": key[3],
            "index": index,
            "signature": signature,
            "user_frame": user,
        }

    # --- exceptions ----------------------------------------------------------------------

    def _record_unfiltered(self, frame: types.FrameType) -> None:
        """At a traceback-filtering handler: keep the innermost exception's full stack once."""
        error = frame.f_locals.get("e")
        if not isinstance(error, BaseException) or getattr(error, SEEN_MARK, False):
            return
        with contextlib.suppress(AttributeError):  # outer handlers see the same object again
            setattr(error, SEEN_MARK, True)
        outer = frames.stack(frame)
        inner = [
            f"{entry.filename}:{entry.name}:{entry.lineno}"
            for entry in traceback.extract_tb(error.__traceback__)[1:]
            if not frames.is_ours(entry.filename)
        ]
        self._send(
            {
                "kind": "unfiltered_exception",
                "type": qualified_type(error),
                "message": ANSI_ESCAPE.sub("", safe_str(error, limit=4000)),
                "stack": outer + inner,
            }
        )


def exception_event(error: BaseException) -> ExceptionEvent:
    """The event of an uncaught exception (type, message, traceback text)."""
    return {
        "kind": "exception",
        "type": qualified_type(error),
        "message": ANSI_ESCAPE.sub("", safe_str(error, limit=4000)),
        "traceback": ANSI_ESCAPE.sub(
            "", "".join(traceback.format_exception(type(error), error,
                                                   frames.without_hooks(error.__traceback__)))
        ),
    }


def _site(probe: str, user: UserFrame | None) -> Site:
    """A probe's call site in the user's code: what `max_hits` counts steps by."""
    return (probe, user["path"], user["line"]) if user else (probe, "", 0)


def _layer_args(local: dict[str, Any]) -> tuple[Any, ...]:
    if "inputs" in local:  # tf-keras: call_fn(inputs, *args, **kwargs)
        return (local.get("inputs"), *tuple(local.get("args") or ()))
    return tuple(local.get("args") or ())


def _probe_values(
    probe: str, local: dict[str, Any]
) -> tuple[Any, tuple[Any, ...], dict[str, Any], StepDetail]:
    """(call_fn, positional args, kwargs, extra detail) as each probed function names them."""
    detail: StepDetail = {}
    if probe == "keras.Layer.__call__":
        return local.get("call_fn"), _layer_args(local), dict(local.get("kwargs") or {}), detail
    if probe == "autograph.tf_convert":
        given, returned = local.get("f_wrapper"), local.get("wrapper")
        detail["returned"] = describe_callable(returned)
        detail["same_object"] = given is returned
        return given, (), {}, detail
    named = CALL_LOCALS.get(probe)
    if named is not None:
        function, args, kwargs = named
        return (local.get(function), tuple(local.get(args) or ()),
                dict(local.get(kwargs) or {}), detail)
    if probe == "tf.function.trace":
        options = local.get("tracing_options")
        detail["function"] = str(getattr(options, "name", "?"))
        return (
            getattr(options, "python_function", None),
            tuple(local.get("args") or ()),
            dict(local.get("kwargs") or {}),
            detail,
        )
    return None, (), {}, detail
