"""The session's counters: tf.function calls, graph runs and traces per function object, and
layer runs per layer object and phase, sent once as the `summary` event.

A tf.function object is known by its trace cache (two functions sharing code, such as Keras's
train and test steps or two models' `train_step`s, keep apart), with the name and source of
its Python function. Standard library only.
"""

from __future__ import annotations

import types
from typing import Any

from . import introspect
from .messages import FunctionCount, LayerRun, SummaryEvent
from .values import safe_str

# (serial of the tf.function's trace cache, which is one per tf.function object: `serial`;
# name; file; line)
FunctionKey = tuple[int, str, str, int]
TRACING_FILE = "tracing_compilation.py"
MAX_STACK = 400


def function_id(key: FunctionKey) -> str:
    """A stable name for one tf.function object within a run, for the JSON records."""
    return f"{key[1]}@{key[0]:x}"


class Counters:
    """One per session. Hooks count here from several threads: each counter is one dict
    update, and `summary` copies each dict first (a copy is atomic)."""

    def __init__(self) -> None:
        # Layers by object: (class, name, id, graph, the key of the function traced or a phase)
        self.layer_runs: dict[tuple[str, str, int, str, FunctionKey | str], int] = {}
        self.calls: dict[FunctionKey, int] = {}
        self.unrun: dict[FunctionKey, int] = {}  # calls whose trace raised: no graph ran
        self.traces: dict[FunctionKey, int] = {}
        self.runners: dict[FunctionKey, str] = {}  # "tf.data": its graph runs in the pipeline
        self._generations: dict[int, int] = {}  # cache id → how many functions have had it
        self._traced_caches: set[int] = set()  # serials of caches with a trace

    # --- tf.functions --------------------------------------------------------------------

    def count_call(self, function: Any) -> FunctionKey:
        """A tf.function called eagerly (its graph runs, unless its trace raises)."""
        name = safe_str(getattr(function, "_name", "?"))
        key = self.function_key(getattr(function, "_function_cache", None),
                                getattr(function, "_python_function", None), name,
                                starting=True)
        self.calls[key] = self.calls.get(key, 0) + 1
        return key

    def count_unrun(self, key: FunctionKey) -> None:
        self.unrun[key] = self.unrun.get(key, 0) + 1

    def count_trace(self, options: Any, tf_data_roots: tuple[str, ...]) -> tuple[FunctionKey, int]:
        """One trace of the function `options` (TF's tracing options) describes: its key and
        how many traces it has had, this one included."""
        scope = safe_str(getattr(getattr(options, "scope_type", None), "name", None))
        key = self.traced_function_key(options, starting=scope == "VARIABLE_CREATION")
        index = self.traces.get(key, 0) + 1
        self.traces[key] = index
        self._traced_caches.add(key[0])
        if key[2].startswith(tf_data_roots):
            self.runners[key] = "tf.data"
        return key, index

    def traced_function_key(self, options: Any, starting: bool = False) -> FunctionKey:
        """`starting`: this trace may be a new function's first (`serial`)."""
        name = safe_str(getattr(options, "name", "?"))
        return self.function_key(getattr(options, "function_cache", None),
                                 getattr(options, "python_function", None), name, starting)

    def function_key(self, cache: Any, python_function: Any, name: str,
                     starting: bool = False) -> FunctionKey:
        """One tf.function object: its trace cache, with the name and the source of its Python
        function."""
        target = python_function
        for _ in range(10):
            inner = getattr(target, "__wrapped__", None) or getattr(target, "__func__", None)
            if inner is None:
                break
            target = inner
        code = getattr(target, "__code__", None)
        serial = self.serial(cache, starting)
        if code is None:
            return (serial, name, "", 0)
        return (serial, name, code.co_filename, code.co_firstlineno)

    def serial(self, cache: Any, starting: bool) -> int:
        """The id of `cache`, with a generation above bit 48 once an id is reused (TF's caches
        take neither attributes nor weak references): a freed function's id is reused by the
        next one (tf.data makes many). `starting`: at a function's first call or first
        trace, where an empty cache under an id that already has traces is a new function's
        (not at the second trace of a first call, whose cache is empty still)."""
        ident = id(cache)
        generation = self._generations.get(ident, 0)
        serial = ident + (generation << 48)
        if starting and serial in self._traced_caches and not getattr(cache, "_primary", True):
            generation = self._generations[ident] = generation + 1
            serial = ident + (generation << 48)
        return serial

    # --- layers --------------------------------------------------------------------------

    def count_layer_run(self, layer: Any, args: tuple[Any, ...], frame: types.FrameType) -> None:
        """One run of a layer's `call`, by phase: building a functional model (it was given
        KerasTensors), eager, or tracing a tf.function (the outermost, when traces nest)."""
        eager = introspect.executing_eagerly()
        symbolic = introspect.has_keras_tensor(args)
        phase: FunctionKey | str
        if symbolic:
            phase = "model construction"
        elif eager:
            phase = "eager"
        else:
            phase = self.outermost_traced_function(frame) or "graph building"
        key = (
            type(layer).__name__,
            safe_str(getattr(layer, "name", "")),
            id(layer),
            "symbolic" if symbolic else introspect.graph_name(eager) or "?",
            phase,
        )
        self.layer_runs[key] = self.layer_runs.get(key, 0) + 1

    def outermost_traced_function(self, frame: types.FrameType) -> FunctionKey | None:
        """The tf.function whose trace is running `frame` (the outermost, when traces nest):
        None in a graph that no tf.function builds (Keras's shape-inference scratch graphs)."""
        found = None
        current: types.FrameType | None = frame
        for _ in range(MAX_STACK):
            if current is None:
                break
            code = current.f_code
            if code.co_name == "_maybe_define_function" and code.co_filename.endswith(
                    TRACING_FILE):
                options = current.f_locals.get("tracing_options")
                if options is not None:
                    found = self.traced_function_key(options)
            current = current.f_back
        return found

    # --- the summary ---------------------------------------------------------------------

    def summary(self, probe_hits: dict[str, int]) -> SummaryEvent:
        """Every counter (each dict copied first: the script may still run elsewhere)."""
        layer_runs, calls, unrun = dict(self.layer_runs), dict(self.calls), dict(self.unrun)
        traces, runners = dict(self.traces), dict(self.runners)
        runs: list[LayerRun] = [
            {
                "layer": layer,
                "name": name,
                "id": layer_id,
                "graph": graph,
                "function": function if isinstance(function, str) else function_id(function),
                "count": count,
            }
            for (layer, name, layer_id, graph, function), count in layer_runs.items()
        ]
        functions: list[FunctionCount] = [
            {
                "id": function_id(key),
                "function": key[1],
                "path": key[2],
                "line": key[3],
                "calls": calls.get(key, 0),
                "runs": calls.get(key, 0) - unrun.get(key, 0),
                "traces": traces.get(key, 0),
                "runner": "tf.data" if runners.get(key) else None,
            }
            for key in sorted(set(calls) | set(traces))
        ]
        return {"kind": "summary", "layer_runs": runs, "functions": functions,
                "probe_hits": dict(probe_hits)}
