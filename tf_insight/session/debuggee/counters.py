"""The session's counters: tf.function calls, graph runs and traces per function object, and
layer runs per layer object and phase, sent once as the `summary` event.

A tf.function object is known by its trace cache (two functions sharing code, such as Keras's
train and test steps or two models' `train_step`s, keep apart), with the name and source of
its Python function. Standard library only.
"""

from __future__ import annotations

import dis
import types
from typing import Any

from . import introspect
from .frames import Library, is_generated
from .messages import (
    AttributeWrite,
    FunctionCount,
    LayerRun,
    StaleGlobal,
    SummaryEvent,
    TracePrint,
    UserFunction,
)
from .values import is_tensor, safe_repr, safe_str

# (serial of the tf.function's trace cache, which is one per tf.function object: `serial`;
# name; file; line)
FunctionKey = tuple[int, str, str, int]
TRACING_FILE = "tracing_compilation.py"
MAX_STACK = 400
SCALARS = (bool, int, float, str)  # what a trace freezes into the graph as a constant
GLOBAL_LOADS = frozenset({"LOAD_GLOBAL", "LOAD_NAME"})


class Reading:
    """A module-level Python scalar that a user function read while being traced."""

    __slots__ = ("name", "namespace", "reader", "value")

    def __init__(self, namespace: dict[str, Any], name: str, value: Any,
                 reader: UserFunction) -> None:
        self.namespace, self.name, self.value, self.reader = namespace, name, value, reader

    def changed(self) -> bool:
        now = self.namespace.get(self.name, self)
        return now is not self.value and (type(now) is not type(self.value) or now != self.value)


def function_id(key: FunctionKey) -> str:
    """A stable name for one tf.function object within a run, for the JSON records."""
    return f"{key[1]}@{key[0]:x}"


class Counters:
    """One per session. Hooks count here from several threads: each counter is one dict
    update, and `summary` copies each dict first (a copy is atomic)."""

    def __init__(self, library: Library) -> None:
        self._library = library
        # Layers by object: (class, name, id, graph, the key of the function traced or a phase)
        self.layer_runs: dict[tuple[str, str, int, str, FunctionKey | str], int] = {}
        self.layer_calls: dict[int, UserFunction | None] = {}  # layer id → the user's `call`
        self.calls: dict[FunctionKey, int] = {}
        self.unrun: dict[FunctionKey, int] = {}  # calls whose trace raised: no graph ran
        self.traces: dict[FunctionKey, int] = {}
        self.failed_traces: dict[FunctionKey, int] = {}
        self.total_traces = 0
        self.last_trace: FunctionKey | None = None  # the function traced last
        self.runners: dict[FunctionKey, str] = {}  # "tf.data": its graph runs in the pipeline
        self.contexts: dict[FunctionKey, str | None] = {}
        self.user_functions: dict[FunctionKey, UserFunction | None] = {}
        self.inside: dict[FunctionKey, set[FunctionKey]] = {}  # traced inside these traces
        # The scalars read while tracing, by the function whose eager calls run that graph.
        self.readings: dict[FunctionKey, dict[tuple[int, str], Reading]] = {}
        self.stale: dict[tuple[FunctionKey, int, str], tuple[Reading, str, int]] = {}
        self.prints: dict[tuple[str, int], list[int]] = {}  # (path, line) → [count, tensors]
        # (layer id, attribute) → (traces of its `call` that changed it, the layer's class)
        self.attribute_writes: dict[tuple[int, str], tuple[int, str]] = {}
        # the same, made while the layer built a functional model: counted only for the
        # attributes a trace changes too (setting `self.units = ...` once is no counter)
        self.construction_writes: dict[tuple[int, str], int] = {}
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

    def count_failed_trace(self, key: FunctionKey) -> None:
        self.failed_traces[key] = self.failed_traces.get(key, 0) + 1

    def count_trace(self, options: Any, caller: types.FrameType | None
                    ) -> tuple[FunctionKey, int]:
        """One trace of the function `options` (TF's tracing options) describes, made from
        `caller` (TF's `_maybe_define_function`): its key and how many traces it has had,
        this one included. Its first trace also says what it is (its context, the user's
        Python it runs); every trace, inside which other trace it runs and which module-level
        scalars the user's code read."""
        scope = safe_str(getattr(getattr(options, "scope_type", None), "name", None))
        key = self.traced_function_key(options, starting=scope == "VARIABLE_CREATION")
        index = self.traces.get(key, 0) + 1
        self.traces[key] = index
        self.total_traces += 1
        self.last_trace = key
        self._traced_caches.add(key[0])
        python_function = getattr(options, "python_function", None)
        users = introspect.traced_user_function(python_function, self._library.is_library)
        if index == 1:
            if key[2].startswith(self._library.tf_data_roots):
                self.runners[key] = "tf.data"
            self.contexts[key] = introspect.function_context(python_function)
            self.user_functions[key] = describe_function(users) if users is not None else None
        outer = self.outermost_traced_function(caller) if caller is not None else None
        if outer is not None and outer != key:
            self.inside.setdefault(key, set()).add(outer)
        if users is not None:
            self._read_globals(users, outer or key)
        return key, index

    def _read_globals(self, function: Any, runner: FunctionKey) -> None:
        """Record the module-level scalars the user's `function` reads (in its code and the
        code nested in it), as the trace freezes them, under the function whose calls run
        that graph."""
        function = getattr(function, "__func__", function)
        code, namespace = getattr(function, "__code__", None), getattr(function, "__globals__", None)
        if not isinstance(code, types.CodeType) or not isinstance(namespace, dict):
            return
        reader = describe_function(function)
        readings = self.readings.setdefault(runner, {})
        pending = [code]
        while pending:
            current = pending.pop()
            for instruction in dis.get_instructions(current):
                if instruction.opname in GLOBAL_LOADS:
                    name = str(instruction.argval)
                    value = namespace.get(name)
                    if type(value) in SCALARS:
                        readings[(id(code), name)] = Reading(namespace, name, value, reader)
            pending.extend(c for c in current.co_consts if isinstance(c, types.CodeType))

    def check_globals(self, key: FunctionKey) -> None:
        """`key`'s graph ran without tracing again: count each scalar its traces read that has
        changed since (the graph still holds the old value)."""
        readings = self.readings.get(key)
        for (code, name), reading in (readings or {}).items():
            if reading.changed():
                found = self.stale.get((key, code, name))
                now = safe_repr(reading.namespace.get(name))
                self.stale[(key, code, name)] = (reading, found[1] if found else now,
                                                 (found[2] if found else 0) + 1)

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

    def count_layer_run(self, layer: Any, args: tuple[Any, ...], frame: types.FrameType
                        ) -> tuple[dict[str, Any], bool] | None:
        """One run of a layer's `call`, by phase: building a functional model (it was given
        KerasTensors), eager, inferring shapes in a Keras scratch graph, or tracing a
        tf.function (the outermost, when traces nest). When it is a trace of a `call` of the
        user's, or a run building a functional model, its public number attributes before the
        call (`count_attribute_writes`) and whether it builds a model."""
        eager = introspect.executing_eagerly()
        symbolic = introspect.has_keras_tensor(args)
        graph = "symbolic" if symbolic else introspect.graph_name(eager) or "?"
        phase: FunctionKey | str
        if symbolic:
            phase = "model construction"
        elif eager:
            phase = "eager"
        elif introspect.is_scratch_graph(graph):
            phase = "graph building"
        else:
            phase = self.outermost_traced_function(frame) or "graph building"
        key = (type(layer).__name__, safe_str(getattr(layer, "name", "")), id(layer), graph,
               phase)
        count = self.layer_runs.get(key)
        if count is None and id(layer) not in self.layer_calls:
            call = getattr(type(layer), "call", None)
            code = getattr(call, "__code__", None)
            self.layer_calls[id(layer)] = (describe_function(call) if code is not None
                                           and not self._library.is_library(code.co_filename)
                                           else None)
        self.layer_runs[key] = (count or 0) + 1
        if (eager and not symbolic) or self.layer_calls.get(id(layer)) is None:
            return None
        return _numbers(layer), symbolic

    def count_attribute_writes(self, layer: Any, before: dict[str, Any],
                               construction: bool = False) -> None:
        """The number attributes a trace of the user's `call` (or, `construction`, its run
        building a functional model) changed: a counter kept in Python (`self.calls += 1`)
        counts these runs, not steps."""
        after = _numbers(layer)
        for name, value in before.items():
            now = after.get(name, value)
            if now is not value and now != value:
                key = (id(layer), name)
                if construction:
                    self.construction_writes[key] = self.construction_writes.get(key, 0) + 1
                    continue
                found = self.attribute_writes.get(key)
                self.attribute_writes[key] = (found[0] + 1 if found else 1, type(layer).__name__)

    def outermost_traced_function(self, frame: types.FrameType) -> FunctionKey | None:
        """The tf.function whose trace is running `frame` (the outermost, when traces nest),
        in this thread or, in a `MirroredStrategy` replica thread, in the thread that runs
        `strategy.run`: None in a graph that no tf.function builds."""
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
        if found is None:
            parent = introspect.replica_parent()
            if parent is not None:
                return self.outermost_traced_function(parent)
        return found

    # --- prints --------------------------------------------------------------------------

    def count_print(self, caller: types.FrameType, args: tuple[Any, ...]) -> None:
        """A `print` that ran while a graph was traced, called from `caller`: counted at the
        user's line (an AutoGraph-generated line mapped back to its source); a library's own
        prints are not counted."""
        path = caller.f_code.co_filename
        if self._library.is_library(path) and not is_generated(path):
            return
        user = self._library.user_frame(caller)
        if user is None:
            return
        tensors = any(is_tensor(arg) or (isinstance(arg, str) and "Tensor(" in arg)
                      for arg in args)
        found = self.prints.setdefault((user["path"], user["line"]), [0, 0])
        found[0] += 1
        found[1] = found[1] or tensors

    # --- the summary ---------------------------------------------------------------------

    def summary(self, probe_hits: dict[str, int]) -> SummaryEvent:
        """Every counter (each dict copied first: the script may still run elsewhere)."""
        layer_runs, calls, unrun = dict(self.layer_runs), dict(self.calls), dict(self.unrun)
        traces, runners, failed = dict(self.traces), dict(self.runners), dict(self.failed_traces)
        runs: list[LayerRun] = [
            {
                "layer": layer,
                "name": name,
                "id": layer_id,
                "graph": graph,
                "function": function if isinstance(function, str) else function_id(function),
                "count": count,
                "call": self.layer_calls.get(layer_id),
            }
            for (layer, name, layer_id, graph, function), count in layer_runs.items()
        ]
        functions: list[FunctionCount] = [
            {
                "id": function_id(key),
                "function": key[1],
                "context": self.contexts.get(key),
                "path": key[2],
                "line": key[3],
                "calls": calls.get(key, 0),
                "runs": calls.get(key, 0) - unrun.get(key, 0),
                "traces": traces.get(key, 0),
                "failed_traces": failed.get(key, 0),
                "runner": "tf.data" if runners.get(key) else None,
                "user_function": self.user_functions.get(key),
                "inside": sorted(function_id(outer) for outer in self.inside.get(key, ())),
            }
            for key in sorted(set(calls) | set(traces))
        ]
        stale: list[StaleGlobal] = [
            {"function": function_id(key), "reader": reading.reader, "name": name,
             "traced": safe_repr(reading.value), "now": now, "runs": count}
            for (key, _code, name), (reading, now, count) in dict(self.stale).items()
        ]
        writes: list[AttributeWrite] = [
            {"layer": layer, "id": layer_id, "name": name,
             "count": count + self.construction_writes.get((layer_id, name), 0), "call": call}
            for (layer_id, name), (count, layer) in dict(self.attribute_writes).items()
            if (call := self.layer_calls.get(layer_id)) is not None
        ]
        prints: list[TracePrint] = [
            {"path": path, "line": line, "count": count, "tensors": bool(tensors)}
            for (path, line), (count, tensors) in dict(self.prints).items()
        ]
        return {"kind": "summary", "layer_runs": runs, "functions": functions,
                "stale_globals": stale, "prints": prints, "attribute_writes": writes,
                "probe_hits": dict(probe_hits)}


def describe_function(function: Any) -> UserFunction:
    """A function's qualified name and where it is defined (its first decorator's line)."""
    function = getattr(function, "__func__", function)
    code = function.__code__
    return {"name": safe_str(getattr(function, "__qualname__", code.co_name)),
            "path": code.co_filename, "line": code.co_firstlineno}


def _numbers(layer: Any) -> dict[str, Any]:
    """A layer's public int and float attributes (not its bools: Keras sets `built`)."""
    try:
        return {name: value for name, value in vars(layer).items()
                if type(value) in (int, float) and not name.startswith("_")}
    except TypeError:  # no __dict__
        return {}
