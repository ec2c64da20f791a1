"""Probe helper: runs inside the user's interpreter, called by debugger logpoints and hooks.

Each logpoint's message is `{__import__('_tf_insight_probe').hit('<probe name>')}`. `hit` finds
the probed frame on the stack (the logpoint is evaluated from the tracer, above that frame),
takes an annotation *in the frame at hit time* (so `executing_eagerly()` is still the value the
library code sees), and writes one JSON line to the annotation pipe. It returns '' so the
debugger sends no output event. Past the per-call-site limit a hit only counts; a probe that
is not needed for counting asks the client to remove its breakpoint.

Where every call counts (tf.function calls and traces, layer runs, Keras's traceback filter),
the probe is a hook instead: the library function is wrapped when its module is imported. A
hook costs one Python call; a logpoint needs the debugger's tracer, which slows every Python
call of the run. So once the run repeats itself (`QUIET_CALLS` tf.function or layer calls in a
row that record nothing new), the tracer is switched off, and the hooks switch it back on for
what can still be new: each trace of a tf.function, and an eager layer call at a call site
not yet seen `max_hits` times. Each thread's tracer goes off at its next hook call.

This module must stay standalone (only the standard library; TensorFlow only via `sys.modules`)
and must never raise: a failing `repr` or an odd object only degrades one annotation.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import re
import sys
import sysconfig
import threading
import traceback
import types
from collections.abc import Callable
from typing import Any

# (serial of the tf.function's trace cache, which is one per tf.function object: `_serial`;
# name; file; line)
FunctionKey = tuple[int, str, str, int]

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
TRACING_FILE = "tracing_compilation.py"
TF_DATA_DIR = os.path.join("tensorflow", "python", "data", "")
ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;]*m")
RETIRE_AFTER_SUPPRESSED = 200
MAX_TRACE_RECORDS = 50
MAX_REPR = 100
MAX_ITEMS = 4
MAX_STACK = 200
SEEN_MARK = "_tf_insight_recorded"
QUIET_CALLS = 3
# Hooked functions, by module: (class or None, attribute, probe). Wrapped as each is imported.
HOOKS: dict[str, tuple[tuple[str | None, str, str], ...]] = {
    "tensorflow.python.eager.polymorphic_function.polymorphic_function": (
        ("Function", "__call__", "tf.function.call"),),
    "tensorflow.python.eager.polymorphic_function.tracing_compilation": (
        (None, "_create_concrete_function", "tf.function.trace"),),
    "keras.src.layers.layer": (("Layer", "__call__", "keras.Layer.__call__"),),
    "tf_keras.src.engine.base_layer": (("Layer", "__call__", "keras.Layer.__call__"),),
    "keras.src.utils.traceback_utils": (
        (None, "_process_traceback_frames", "exception.unfiltered"),),
    "tf_keras.src.utils.traceback_utils": (
        (None, "_process_traceback_frames", "exception.unfiltered"),),
    "tensorflow.python.util.traceback_utils": (
        (None, "_process_traceback_frames", "exception.unfiltered"),),
    "tensorflow.python.autograph.impl.api": ((None, "_convert_actual", "autograph.transpile"),),
}

_lock = threading.Lock()
_fd: int | None = None
_max_hits = 3
_locations: dict[str, list[tuple[str, int]]] = {}
_library_roots: tuple[str, ...] = ()
_site_hits: dict[tuple[str, str, int], int] = {}
_suppressed: dict[str, int] = {}
_retired: set[str] = set()
# Layers by object: (class, name, id, graph, the key of the function being traced or a phase)
_layer_runs: dict[tuple[str, str, int, str, FunctionKey | str], int] = {}
_function_calls: dict[FunctionKey, int] = {}
_unrun_calls: dict[FunctionKey, int] = {}  # calls whose trace raised: no graph ran
_function_traces: dict[FunctionKey, int] = {}
_function_runners: dict[FunctionKey, str] = {}  # "tf.data": its graph runs in the pipeline
_errors: dict[str, str] = {}
_hits: dict[str, int] = {}
_library_cache: dict[str, bool] = {}
_real_paths: dict[str, str] = {}
_trace_to_end = False
_running = False  # hooks record only while the script runs, as logpoints do
_tracer_off = False
_quiet = 0  # tf.function and layer calls in a row that recorded nothing new
_recorded = 0  # steps and trace records so far
_generations: dict[int, int] = {}  # cache id → how many functions have had it
_traced_caches: set[int] = set()  # serials of caches with a trace


def open_pipe(fd: int) -> None:
    """Send annotations (and the bootstrap's own records) to the pipe `fd`."""
    global _fd
    _fd = fd


def configure(max_hits: int, locations: dict[str, list[tuple[str, int]]],
              trace_to_end: bool = False) -> None:
    """Set the per-call-site limit and each probe's (file, line)s; `trace_to_end` keeps the
    tracer on for the whole run."""
    global _max_hits, _library_roots, _trace_to_end
    _max_hits = max_hits
    _trace_to_end = trace_to_end
    for name, places in locations.items():
        _locations[name] = [(_real_path(path), line) for path, line in places]
    roots = {os.path.dirname(os.path.abspath(__file__))}
    paths = sysconfig.get_paths()
    for key in ("purelib", "platlib", "stdlib", "platstdlib"):
        path = paths.get(key)
        if path:
            roots.add(os.path.realpath(path))
            roots.add(os.path.abspath(path))
    debugpy = importlib.util.find_spec("debugpy")  # never count debugpy's frames as user code
    if debugpy is not None and debugpy.submodule_search_locations:
        roots.update(os.path.abspath(path) for path in debugpy.submodule_search_locations)
    _library_roots = tuple(sorted(roots))


def emit(record: dict[str, Any]) -> None:
    """Write one JSON line to the annotation pipe (silently off once the client is gone)."""
    global _fd
    if _fd is None:
        return
    data = (json.dumps(record, default=str, separators=(",", ":")) + "\n").encode()
    with _lock:
        try:
            while data:
                data = data[os.write(_fd, data) :]
        except OSError:
            _fd = None


def start() -> None:
    """The script starts: hooks record from now on."""
    global _running
    _running = True


def hit(probe: str) -> str:
    """Logpoint entry: annotate the probed frame; always returns '' (no output event)."""
    _hit_at(probe, lambda: _probed_frame(probe))
    return ""


def _hit_at(probe: str, find_frame: Callable[[], types.FrameType | None]) -> None:
    _hits[probe] = _hits.get(probe, 0) + 1
    try:
        frame = find_frame()
        if frame is not None:
            _on_hit(probe, frame)
    except Exception as error:  # never break the debuggee; report the first failure per probe
        _report_error(probe, error)


def _report_error(probe: str, error: Exception) -> None:
    if probe not in _errors:
        _errors[probe] = f"{type(error).__name__}: {error}"
        emit({"kind": "probe_error", "probe": probe, "error": _errors[probe]})


def summary() -> dict[str, Any]:
    """Counters for side effects and retraces, sent once when the script ends (or is stopped
    from another thread: each counter is copied first, a copy being atomic)."""
    layer_runs, calls, unrun = dict(_layer_runs), dict(_function_calls), dict(_unrun_calls)
    traces, runners = dict(_function_traces), dict(_function_runners)
    return {
        "kind": "summary",
        "layer_runs": [
            {
                "layer": layer,
                "name": name,
                "id": layer_id,
                "graph": graph,
                "function": function if isinstance(function, str) else _function_id(function),
                "count": count,
            }
            for (layer, name, layer_id, graph, function), count in layer_runs.items()
        ],
        "functions": [
            {
                "id": _function_id(key),
                "function": key[1],
                "path": key[2],
                "line": key[3],
                "calls": calls.get(key, 0),
                "runs": calls.get(key, 0) - unrun.get(key, 0),  # the graph ran
                "traces": traces.get(key, 0),
                "runner": runners.get(key),
            }
            for key in sorted(set(calls) | set(traces))
        ],
        "probe_hits": dict(_hits),
    }


def record_exception(error: BaseException) -> dict[str, Any]:
    """The exception record for an uncaught exception (type, message, traceback text)."""
    return {
        "kind": "exception",
        "type": _qualified_type(error),
        "message": ANSI_ESCAPE.sub("", _safe_str(error, limit=4000)),
        "traceback": ANSI_ESCAPE.sub(
            "", "".join(traceback.format_exception(type(error), error,
                                                   without_hooks(error.__traceback__)))
        ),
    }


# --- one hit ---------------------------------------------------------------------------


def _probed_frame(probe: str) -> types.FrameType | None:
    """The frame stopped at `probe`'s line: the logpoint's evaluation runs a few frames above."""
    wanted = _locations.get(probe, ())
    frame: types.FrameType | None = sys._getframe(2)
    for _ in range(40):
        if frame is None:
            return None
        if (_real_path(frame.f_code.co_filename), frame.f_lineno) in wanted:
            return frame
        frame = frame.f_back
    return None


def _real_path(path: str) -> str:
    """Symlinks resolved (a venv reached through a link still matches), cached per path."""
    real = _real_paths.get(path)
    if real is None:
        real = _real_paths[path] = os.path.realpath(path)
    return real


def _on_hit(probe: str, frame: types.FrameType) -> None:
    global _recorded
    if probe == "exception.unfiltered":
        _record_unfiltered(frame)
        return
    local = frame.f_locals
    layer = _probe_layer(probe, frame, local)
    if probe == "keras.Layer.__call__" and layer is None:
        return  # Keras 3 Operation.__call__ also runs non-layer ops
    user = _user_frame(frame)
    site = _site(probe, user)
    trace_record = _trace_record(local, user) if probe == "tf.function.trace" else None
    if trace_record is not None:
        _recorded += 1
        emit(trace_record)
    call_fn, args, kwargs, detail = _probe_values(probe, local)
    rejects_kwargs = probe == "custom_gradient._graph_mode_decorator" and bool(kwargs)
    if (probe in CONTEXT_PROBES and layer is None and not rejects_kwargs
            and not _is_user_code(call_fn)):
        # tf.data and Keras internals converting or tracing their own functions. AutoGraph
        # converts thousands of those calls in a big model: they count towards retirement.
        if probe != "tf.function.trace":
            _suppress(probe)
        return
    count = _site_hits.get(site, 0) + 1
    _site_hits[site] = count
    if count > _max_hits:
        _suppress(probe)
        return
    _suppressed[probe] = 0
    eager = _executing_eagerly()
    step: dict[str, Any] = {
        "kind": "step",
        "probe": probe,
        "location": {
            "path": frame.f_code.co_filename,
            "line": frame.f_lineno,
            "function": frame.f_code.co_name,
        },
        "user_frame": user,
        "executing_eagerly": eager,
        "graph": _graph_name(eager),
        "layer": _describe_layer(layer),
        "call_fn": _describe_callable(call_fn) if call_fn is not None else None,
        "args": [_summarize(value) for value in args[:MAX_ITEMS]],
        "kwargs": {str(k): _short_value(v) for k, v in list(kwargs.items())[:12]},
        "site_hit": count,
    }
    if trace_record is not None:
        detail["trace_index"] = trace_record["index"]
    if rejects_kwargs:
        detail["raises"] = "ValueError: custom_gradient rejects keyword arguments in graph mode"
        detail["stack"] = _stack(frame)
    if detail:
        step["detail"] = detail
    _recorded += 1
    emit(step)


def _is_user_code(value: Any) -> bool:
    """Whether the innermost function under `value`'s wrappers was written by the user."""
    innermost = value
    for _ in range(8):
        inner = _unwrap_once(innermost)
        if inner is None:
            break
        innermost = inner
    function = getattr(innermost, "__func__", innermost)
    code = getattr(function, "__code__", None)
    return code is not None and not _is_library(code.co_filename)


def _suppress(probe: str) -> None:
    if probe in COUNTING_PROBES or probe in _retired:
        return
    _suppressed[probe] = _suppressed.get(probe, 0) + 1
    if _suppressed[probe] >= RETIRE_AFTER_SUPPRESSED:
        _retired.add(probe)
        emit({"kind": "retire", "probe": probe})


def _layer_args(local: dict[str, Any]) -> tuple[Any, ...]:
    if "inputs" in local:  # tf-keras: call_fn(inputs, *args, **kwargs)
        return (local.get("inputs"), *tuple(local.get("args") or ()))
    return tuple(local.get("args") or ())


def _probe_values(
    probe: str, local: dict[str, Any]
) -> tuple[Any, tuple[Any, ...], dict[str, Any], dict[str, Any]]:
    """(call_fn, positional args, kwargs, extra detail) as each probed function names them."""
    detail: dict[str, Any] = {}
    if probe == "keras.Layer.__call__":
        return local.get("call_fn"), _layer_args(local), dict(local.get("kwargs") or {}), detail
    if probe == "autograph.tf_convert":
        given, returned = local.get("f_wrapper"), local.get("wrapper")
        detail["returned"] = _describe_callable(returned)
        detail["same_object"] = given is returned
        return given, (), {}, detail
    if probe == "autograph.converted_call":
        return (
            local.get("f"),
            tuple(local.get("args") or ()),
            dict(local.get("kwargs") or {}),
            detail,
        )
    if probe == "custom_gradient.Bind.__call__":
        return local.get("self"), tuple(local.get("a") or ()), dict(local.get("k") or {}), detail
    if probe == "custom_gradient.decorated":
        return (
            local.get("wrapped"),
            tuple(local.get("args") or ()),
            dict(local.get("kwargs") or {}),
            detail,
        )
    if probe in ("custom_gradient._graph_mode_decorator", "custom_gradient._eager_mode_decorator"):
        return (
            local.get("f"),
            tuple(local.get("args") or ()),
            dict(local.get("kwargs") or {}),
            detail,
        )
    if probe == "tf.function.trace":
        options = local.get("tracing_options")
        detail["function"] = str(getattr(options, "name", "?"))
        python_function = getattr(options, "python_function", None)
        return (
            python_function,
            tuple(local.get("args") or ()),
            dict(local.get("kwargs") or {}),
            detail,
        )
    return None, (), {}, detail


# --- layers, graphs, call sites ------------------------------------------------------


def _is_layer(value: Any) -> bool:
    for module_name, class_name in (
        ("keras.src.layers.layer", "Layer"),
        ("tf_keras.src.engine.base_layer", "Layer"),
    ):
        module = sys.modules.get(module_name)
        cls = getattr(module, class_name, None) if module is not None else None
        if isinstance(cls, type) and isinstance(value, cls):
            return True
    return False


def _probe_layer(probe: str, frame: types.FrameType, local: dict[str, Any]) -> Any:
    """The layer being called: `self` at the Keras probe, else the nearest Keras `__call__`."""
    if probe == "keras.Layer.__call__":
        candidate = local.get("self")
        return candidate if _is_layer(candidate) else None
    outer = frame.f_back
    for _ in range(60):
        if outer is None:
            return None
        if outer.f_code.co_name in ("__call__", "_infer_output_signature") and (
            "keras" in outer.f_code.co_filename
        ):
            candidate = outer.f_locals.get("self")
            if _is_layer(candidate):
                return candidate
        outer = outer.f_back
    return None


def _describe_layer(layer: Any) -> dict[str, Any] | None:
    if layer is None:
        return None
    described = {"class": type(layer).__name__, "name": _safe_str(getattr(layer, "name", ""))}
    remat = getattr(layer, "_remat_mode", None)  # Keras 3: set by RematScope at construction
    if remat is not None:
        described["remat"] = _safe_str(getattr(remat, "mode", remat))
    return described


def _executing_eagerly() -> bool | None:
    context = sys.modules.get("tensorflow.python.eager.context")
    try:
        return bool(context.executing_eagerly()) if context is not None else None
    except Exception:
        return None


def _default_graph() -> Any:
    ops = sys.modules.get("tensorflow.python.framework.ops")
    try:
        return ops.get_default_graph() if ops is not None else None
    except Exception:
        return None


def _graph_name(eager: bool | None) -> str | None:
    if eager:
        return "eager"
    graph = _default_graph()
    if graph is None:
        return None
    if type(graph).__name__ == "FuncGraph":
        return _safe_str(getattr(graph, "name", "FuncGraph"))
    return type(graph).__name__


def _is_library(path: str) -> bool:
    # Not `tf_insight.explain.frames.is_library_path`: this module runs in the user's
    # interpreter with the standard library only, and it knows that interpreter's real roots.
    known = _library_cache.get(path)
    if known is None:
        known = not path or path.startswith("<") or os.path.abspath(path).startswith(_library_roots)
        _library_cache[path] = known
    return known


def _user_frame(frame: types.FrameType) -> dict[str, Any] | None:
    """The nearest frame in the user's code; AutoGraph-generated frames map to their source."""
    current: types.FrameType | None = frame
    for _ in range(MAX_STACK):
        if current is None:
            return None
        path = current.f_code.co_filename
        if os.path.basename(path).startswith("__autograph_generated_file"):
            origin = _autograph_origin(current)
            if origin is not None and not _is_library(origin["path"]):
                return origin
        elif not _is_library(path):
            return {"path": path, "line": current.f_lineno, "function": current.f_code.co_name}
        current = current.f_back
    return None


def _autograph_origin(frame: types.FrameType) -> dict[str, Any] | None:
    """Look up the generated line in the `ag_source_map` of the caller's `converted_f`."""
    key = (frame.f_code.co_filename, frame.f_lineno)
    outer = frame.f_back
    for _ in range(12):  # loop bodies run through AutoGraph's for_stmt/while_stmt helpers
        if outer is None:
            return None
        converted = outer.f_locals.get("converted_f")
        source_map = getattr(converted, "ag_source_map", None)
        if source_map is not None:
            origin = source_map.get(key)
            if origin is not None:
                return {
                    "path": str(origin.loc.filename),
                    "line": int(origin.loc.lineno),
                    "function": str(origin.function_name),
                    "generated": f"{key[0]}:{key[1]}",
                }
        outer = outer.f_back
    return None


def _stack(frame: types.FrameType) -> list[str]:
    """The full, unfiltered stack at the probe, outermost first, as `path:function:line`
    (without our hooks' frames)."""
    entries: list[str] = []
    current: types.FrameType | None = frame
    while current is not None and len(entries) < MAX_STACK:
        code = current.f_code
        if code.co_filename != __file__:
            entries.append(f"{code.co_filename}:{code.co_name}:{current.f_lineno}")
        current = current.f_back
    return entries[::-1]


def without_hooks(tb: types.TracebackType | None) -> types.TracebackType | None:
    """`tb` without our hooks' frames, so that a traceback reads as under plain python."""
    entries: list[types.TracebackType] = []
    while tb is not None:
        entries.append(tb)
        tb = tb.tb_next
    rebuilt = None
    for entry in reversed(entries):
        if entry.tb_frame.f_code.co_filename != __file__:
            rebuilt = types.TracebackType(rebuilt, entry.tb_frame, entry.tb_lasti,
                                          entry.tb_lineno)
    return rebuilt


# --- counters ----------------------------------------------------------------------


def _count_layer_run(layer: Any, args: tuple[Any, ...], frame: types.FrameType) -> None:
    eager = _executing_eagerly()
    # Functional construction: both Keras versions pass KerasTensors to the layer.
    symbolic = _has_keras_tensor(args)
    phase: FunctionKey | str
    if symbolic:
        phase = "model construction"
    elif eager:
        phase = "eager"
    else:
        phase = _outermost_traced_function(frame) or "graph building"
    key = (
        type(layer).__name__,
        _safe_str(getattr(layer, "name", "")),
        id(layer),
        "symbolic" if symbolic else _graph_name(eager) or "?",
        phase,
    )
    _layer_runs[key] = _layer_runs.get(key, 0) + 1


def _has_keras_tensor(values: tuple[Any, ...]) -> bool:
    """A KerasTensor among `values`, or in a list, tuple or dict of them (`Add()([a, b])`)."""
    for value in values[:MAX_ITEMS]:
        if isinstance(value, dict):
            value = tuple(value.values())
        items = value[:MAX_ITEMS * 4] if isinstance(value, list | tuple) else (value,)
        if any(type(item).__name__ == "KerasTensor" for item in items):
            return True
    return False


def _outermost_traced_function(frame: types.FrameType) -> FunctionKey | None:
    """The tf.function whose trace is running `frame` (the outermost, when traces nest):
    None in a graph that no tf.function builds (Keras's shape-inference scratch graphs)."""
    found = None
    current: types.FrameType | None = frame
    for _ in range(MAX_STACK * 2):
        if current is None:
            break
        code = current.f_code
        if code.co_name == "_maybe_define_function" and code.co_filename.endswith(TRACING_FILE):
            options = current.f_locals.get("tracing_options")
            if options is not None:
                found = _traced_function_key(options)
        current = current.f_back
    return found


def _traced_function_key(options: Any, starting: bool = False) -> FunctionKey:
    """`starting`: this trace may be a new function's first (`_serial`)."""
    name = _safe_str(getattr(options, "name", "?"))
    return _function_key(getattr(options, "function_cache", None),
                         getattr(options, "python_function", None), name, starting)


def _function_id(key: FunctionKey) -> str:
    """A stable name for one tf.function object within a run, for the JSON records."""
    return f"{key[1]}@{key[0]:x}"


def _function_key(cache: Any, python_function: Any, name: str, starting: bool = False
                  ) -> FunctionKey:
    """One tf.function object: its trace cache is its own (two functions sharing code, such as
    Keras's train and test steps or two models' `train_step`s, keep apart), with the name and
    the source of its Python function. The cache is known by its id and a generation
    (`_serial`): a freed function's id is reused by the next one (tf.data makes many)."""
    target = python_function
    for _ in range(10):
        inner = getattr(target, "__wrapped__", None) or getattr(target, "__func__", None)
        if inner is None:
            break
        target = inner
    code = getattr(target, "__code__", None)
    serial = _serial(cache, starting)
    if code is None:
        return (serial, name, "", 0)
    return (serial, name, code.co_filename, code.co_firstlineno)


def _serial(cache: Any, starting: bool) -> int:
    """The id of `cache`, with a generation above bit 48 once an id is reused (TF's caches
    take neither attributes nor weak references). `starting`: at a function's first call or
    first trace, where an empty cache under an id that already has traces is a new
    function's (not at the second trace of a first call, whose cache is empty still)."""
    ident = id(cache)
    generation = _generations.get(ident, 0)
    serial = ident + (generation << 48)
    if starting and serial in _traced_caches and not getattr(cache, "_primary", True):
        generation = _generations[ident] = generation + 1
        serial = ident + (generation << 48)
    return serial


def _count_function_call(function: Any) -> FunctionKey:
    name = _safe_str(getattr(function, "_name", "?"))
    key = _function_key(getattr(function, "_function_cache", None),
                        getattr(function, "_python_function", None), name, starting=True)
    _function_calls[key] = _function_calls.get(key, 0) + 1
    return key


def _trace_record(local: dict[str, Any], user: dict[str, Any] | None) -> dict[str, Any] | None:
    """Count a trace; while few, also record the argument signature that caused it."""
    options = local.get("tracing_options")
    python_function = getattr(options, "python_function", None)
    scope = _safe_str(getattr(getattr(options, "scope_type", None), "name", None))
    key = _traced_function_key(options, starting=scope == "VARIABLE_CREATION")
    index = _function_traces.get(key, 0) + 1
    _function_traces[key] = index
    _traced_caches.add(key[0])
    if key[2].startswith(_tf_data_roots()):
        _function_runners[key] = "tf.data"
    if index > MAX_TRACE_RECORDS:
        return None
    args = tuple(local.get("args") or ())
    kwargs = dict(local.get("kwargs") or {})
    names = _parameter_names(python_function, len(args))
    signature = {names[i]: _signature_entry(value) for i, value in enumerate(args)}
    signature.update({str(k): _signature_entry(v) for k, v in kwargs.items()})
    for name, tf_type in _trace_types(local.get("lookup_func_type")).items():
        if name in signature:
            signature[name]["tf_type"] = tf_type
    return {
        "kind": "trace",
        "scope": scope,  # VARIABLE_CREATION, then NO_VARIABLE_CREATION: a first call's two
        "id": _function_id(key),
        "function": key[1],
        "context": _function_context(python_function),
        "path": key[2],
        "line": key[3],
        "index": index,
        "signature": signature,
        "user_frame": user,
    }


def _function_context(python_function: Any) -> str | None:
    """What tells apart functions of one name: the Keras step a Keras 3 trainer function runs
    (train, test and predict are all `multi_step_on_iterator`, made by one `_make_function`),
    else the function whose body defines it."""
    step = _keras_step(python_function)
    if step is not None:
        return f"running {step}"
    qualname = _safe_str(getattr(python_function, "__qualname__", ""))
    outer, _, _ = qualname.rpartition(".<locals>.")
    outer = outer.rpartition(".")[2]
    return f"in {outer}" if outer else None


def _keras_step(function: Any) -> str | None:
    """The name of the `step_function` (`train_step`...) in the closures under `function`,
    through the wrappers and tf.functions Keras puts around it."""
    pending, seen = [function], 0
    while pending and seen < 12:
        current = pending.pop()
        seen += 1
        code, cells = getattr(current, "__code__", None), getattr(current, "__closure__", None)
        for name, cell in zip(code.co_freevars if code else (), cells or (), strict=False):
            with contextlib.suppress(ValueError):  # an empty cell
                value = cell.cell_contents
                if name == "step_function":
                    return _safe_str(getattr(value, "__name__", None)) or None
                if _function_like(value):
                    pending.append(value)
        for attribute in ("__wrapped__", "_python_function"):
            inner = getattr(current, attribute, None)
            if _function_like(inner):
                pending.append(inner)
    return None


def _function_like(value: Any) -> bool:
    """A Python function or a tf.function: never a model or layer (`self`), whose attribute
    look-ups can run code."""
    return isinstance(value, types.FunctionType) or type(value).__name__ == "Function"


def _tf_data_roots() -> tuple[str, ...]:
    """Where tf.data's own function wrappers live (a map function is traced through them)."""
    return tuple(os.path.join(root, TF_DATA_DIR) for root in _library_roots) or ("\0",)


def _trace_types(function_type: Any) -> dict[str, str]:
    """Parameter → the trace type TF keyed this trace on (`TensorSpec(...)`, `Literal[3]`,
    `IteratorSpec(...)`): what decides whether a call reuses a trace."""
    types_by_name: dict[str, str] = {}
    parameters = getattr(function_type, "parameters", None)
    if parameters is None:
        return types_by_name
    with contextlib.suppress(Exception):
        for name, parameter in parameters.items():
            types_by_name[str(name)] = _safe_str(getattr(parameter, "type_constraint", None),
                                                 limit=300)
    return types_by_name


def _parameter_names(function: Any, count: int) -> list[str]:
    names: list[str] = []
    try:
        import inspect

        for parameter in inspect.signature(function).parameters.values():
            if parameter.kind in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD):
                names.append(parameter.name)
    except (TypeError, ValueError):
        pass
    return names[:count] + [f"arg{i}" for i in range(len(names), count)]


def _signature_entry(value: Any) -> dict[str, Any]:
    """What tf.function keys a trace on: tensor shape/dtype, else the Python value/object."""
    if _is_tensor(value):
        return {"kind": "tensor", "shape": _shape(value), "dtype": _dtype(value)}
    if value is None or isinstance(value, (bool, int, float, str)):
        return {"kind": "python", "type": type(value).__name__, "value": _short_value(value)}
    return {"kind": "object", "type": type(value).__name__, "id": id(value)}


def _record_unfiltered(frame: types.FrameType) -> None:
    """At a traceback-filtering handler: keep the innermost exception's full stack once."""
    error = frame.f_locals.get("e")
    if not isinstance(error, BaseException) or getattr(error, SEEN_MARK, False):
        return
    with contextlib.suppress(AttributeError):  # outer handlers see the same object again
        setattr(error, SEEN_MARK, True)
    outer = _stack(frame)
    inner = [
        f"{entry.filename}:{entry.name}:{entry.lineno}"
        for entry in traceback.extract_tb(error.__traceback__)[1:] if entry.filename != __file__
    ]
    emit(
        {
            "kind": "unfiltered_exception",
            "type": _qualified_type(error),
            "message": ANSI_ESCAPE.sub("", _safe_str(error, limit=4000)),
            "stack": outer + inner,
        }
    )


# --- hooks and the tracer ------------------------------------------------------------


class InstallHooks:
    """A `sys.meta_path` finder that wraps the `HOOKS` functions of each module as it is
    imported (modules imported before it are wrapped at once). Finds nothing itself."""

    def __init__(self) -> None:
        for name in HOOKS:
            if name in sys.modules:
                _install(name, sys.modules[name])

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name not in HOOKS:
            return None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            spec = find(name, path, target) if finder is not self and find else None
            if spec is not None:
                break
        else:
            return None
        execute = getattr(spec.loader, "exec_module", None)
        if execute is not None:
            def exec_module(module: types.ModuleType) -> None:
                execute(module)
                _install(name, module)

            spec.loader.exec_module = exec_module  # this module's own loader object
        return spec


def _install(module_name: str, module: types.ModuleType) -> None:
    for class_name, attribute, probe in HOOKS[module_name]:
        owner = getattr(module, class_name, None) if class_name else module
        original = getattr(owner, attribute, None)
        if owner is None or not callable(original):
            emit({"kind": "probe_error", "probe": probe,
                  "error": f"{module_name} has no {class_name or ''}.{attribute} to hook"})
            continue
        wrapper = _HOOK_MAKERS[probe](original)
        for name in ("__module__", "__name__", "__qualname__", "__doc__"):
            with contextlib.suppress(AttributeError, TypeError):
                setattr(wrapper, name, getattr(original, name))
        wrapper.__wrapped__ = original  # type: ignore[attr-defined]
        setattr(owner, attribute, wrapper)


def _function_call_hook(original: Callable[..., Any]) -> Callable[..., Any]:
    def __call__(self: Any, *args: Any, **kwargs: Any) -> Any:
        # A call while an outer function is traced is not an execution.
        if not _running or not _executing_eagerly():
            return original(self, *args, **kwargs)
        recorded = _recorded
        _hits["tf.function.call"] = _hits.get("tf.function.call", 0) + 1
        key: FunctionKey | None = None
        try:
            key = _count_function_call(self)
        except Exception as error:
            _report_error("tf.function.call", error)
        failed_traces = getattr(_local, "failed_traces", 0)
        try:
            return original(self, *args, **kwargs)
        except BaseException:
            if key is not None and getattr(_local, "failed_traces", 0) > failed_traces:
                _unrun_calls[key] = _unrun_calls.get(key, 0) + 1  # its trace raised
            raise
        finally:
            _after_call(recorded)

    return __call__


def _trace_hook(original: Callable[..., Any]) -> Callable[..., Any]:
    def _create_concrete_function(*args: Any, **kwargs: Any) -> Any:
        if not _running:
            return original(*args, **kwargs)
        caller = sys._getframe(1)  # _maybe_define_function
        _hit_at("tf.function.trace", lambda: caller)
        try:
            return _traced(original, args, kwargs)
        except BaseException:
            _local.failed_traces = getattr(_local, "failed_traces", 0) + 1
            raise

    return _create_concrete_function


def _layer_hook(original: Callable[..., Any]) -> Callable[..., Any]:
    def __call__(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not _running:
            return original(self, *args, **kwargs)
        recorded = _recorded
        frame = sys._getframe()
        new_site = False
        try:
            _count_layer_run(self, (*args, *kwargs.values()), frame)
            new_site = _tracer_off and _untraced() and not _seen_enough(frame)
        except Exception as error:
            _report_error("keras.Layer.__call__", error)
        try:
            if new_site:
                return _traced(original, (self, *args), kwargs)
            return original(self, *args, **kwargs)
        finally:
            _after_call(recorded)

    return __call__


def _unfiltered_hook(original: Callable[..., Any]) -> Callable[..., Any]:
    def _process_traceback_frames(*args: Any, **kwargs: Any) -> Any:
        if _running:
            handler = sys._getframe(1)  # the filter's error handler, with the exception `e`
            _hit_at("exception.unfiltered", lambda: handler)
        return original(*args, **kwargs)

    return _process_traceback_frames


def _untraced_hook(original: Callable[..., Any]) -> Callable[..., Any]:
    """AutoGraph's transpiler, TF's own Python rewriting a function's source: no probe is in
    it and no code of the user's runs, so the tracer is off for it (under `sys.settrace` it
    ran 3× slower: a third of a run converting Sonnet's modules)."""
    def _convert_actual(*args: Any, **kwargs: Any) -> Any:
        if not _running or _trace_to_end or _untraced():
            return original(*args, **kwargs)
        _trace_this_thread(False)
        try:
            return original(*args, **kwargs)
        finally:
            _trace_this_thread(True)

    return _convert_actual


_HOOK_MAKERS: dict[str, Callable[[Callable[..., Any]], Callable[..., Any]]] = {
    "tf.function.call": _function_call_hook,
    "tf.function.trace": _trace_hook,
    "keras.Layer.__call__": _layer_hook,
    "exception.unfiltered": _unfiltered_hook,
    "autograph.transpile": _untraced_hook,
}


def _seen_enough(frame: types.FrameType) -> bool:
    """Whether the layer call site of `frame` has had its `max_hits` steps."""
    return _site_hits.get(_site("keras.Layer.__call__", _user_frame(frame)), 0) >= _max_hits


def _site(probe: str, user: dict[str, Any] | None) -> tuple[str, str, int]:
    """A probe's call site in the user's code: what `max_hits` counts steps by."""
    return (probe, user["path"], user["line"]) if user else (probe, "", 0)


def _after_call(recorded: int) -> None:
    """A hooked call returned: count it as quiet if it recorded nothing, and switch the tracer
    off once the run repeats itself (in this thread now; in others at their next hook)."""
    global _quiet, _tracer_off
    if _trace_to_end:
        return
    _quiet = 0 if _recorded != recorded else _quiet + 1
    if _quiet >= QUIET_CALLS and not _tracer_off:
        _tracer_off = True
        emit({"kind": "tracer_off", "after_records": _recorded, "tracer": _tracer_kind()})
    if _tracer_off and not _untraced() and not getattr(_local, "traced", 0):
        _trace_this_thread(False)


# Per thread: `off`, whether we switched its tracer off; `traced`, how many `_traced` calls
# it is inside. Our own record, as `sys.gettrace()` says nothing under `sys.monitoring`.
_local = threading.local()


def _untraced() -> bool:
    return bool(getattr(_local, "off", False))


def _traced(function: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """Call `function` with the tracer on in this thread (switched back off after, if it was
    off before): a trace runs the user's Python code, the probes' code, for the first time."""
    switch = _tracer_off and _untraced()
    _local.traced = getattr(_local, "traced", 0) + 1
    if switch:
        _trace_this_thread(True)
    try:
        return function(*args, **kwargs)
    finally:
        _local.traced -= 1
        if switch:
            _trace_this_thread(False)


def _tracer_kind() -> str:
    """How debugpy traces this process: `sys.monitoring` (Python 3.12+), else `sys.settrace`."""
    monitoring = getattr(sys, "monitoring", None)
    if monitoring is not None and monitoring.get_tool(monitoring.DEBUGGER_ID) is not None:
        return "sys.monitoring"
    return "sys.settrace"


def _trace_this_thread(on: bool) -> None:
    """debugpy's own switch: `sys.settrace` in this thread, or `sys.monitoring` (3.12+)."""
    _local.off = not on
    debugpy = sys.modules.get("debugpy")
    with contextlib.suppress(Exception):  # no debugger: nothing to switch
        debugpy.trace_this_thread(on)  # type: ignore[union-attr]


# --- summaries ----------------------------------------------------------------------


def _describe_callable(value: Any) -> dict[str, Any]:
    """repr, type, id and the wrapper chain (outermost first) of a callable."""
    chain: list[dict[str, Any]] = []
    current = value
    seen: set[int] = set()
    while current is not None and id(current) not in seen and len(chain) < 8:
        seen.add(id(current))
        link: dict[str, Any] = {
            "kind": _callable_kind(current),
            "type": _qualified_type(current),
            "repr": _safe_repr(current),
            "id": id(current),
        }
        code = getattr(current, "__code__", None)
        if code is not None:  # where it is defined: its first decorator's line
            link["path"], link["line"] = code.co_filename, code.co_firstlineno
        chain.append(link)
        current = _unwrap_once(current)
    return {
        "repr": _safe_repr(value),
        "type": _qualified_type(value),
        "id": id(value),
        "chain": chain,
    }


def _callable_kind(value: Any) -> str:
    # By code first: tf_decorator copies names and __dict__ (autograph marks) onto wrappers.
    code = getattr(value, "__code__", None)
    code_name = str(getattr(code, "co_name", ""))
    filename = str(getattr(code, "co_filename", ""))
    if code_name == "error_handler" and "traceback_utils" in filename:
        return "Keras traceback wrapper"
    if code_name == "inner" and filename.endswith("custom_gradient.py"):
        return "tf.recompute_grad wrapper"
    type_name = type(value).__name__
    module = type(value).__module__ or ""
    if type_name == "Bind" and "custom_gradient" in module:
        return "custom_gradient Bind"
    if type_name == "Function" and "polymorphic_function" in module:
        return "tf.function"
    if isinstance(value, types.MethodType):
        return "bound method"
    if hasattr(value, "autograph_info__"):
        return "AutoGraph-converted function"
    if isinstance(value, types.FunctionType):
        return "function"
    return type_name


def _unwrap_once(value: Any) -> Any:
    """The callable that `value` wraps, or None."""
    if type(value).__name__ == "Bind" and hasattr(value, "_f"):
        return value._f
    if isinstance(value, types.MethodType):
        return value.__func__ if _callable_kind(value.__func__) != "function" else None
    wrapped = getattr(value, "__wrapped__", None)
    if wrapped is not None:
        return wrapped
    func = getattr(value, "func", None)  # functools.partial
    if func is not None and callable(func):
        return func
    code = getattr(value, "__code__", None)
    closure = getattr(value, "__closure__", None)
    if code is not None and closure:
        for name, cell in zip(code.co_freevars, closure, strict=False):
            if name in ("fn", "f", "func"):
                try:
                    return cell.cell_contents
                except ValueError:
                    return None
    return None


def _is_tensor(value: Any) -> bool:
    return hasattr(value, "shape") and hasattr(value, "dtype") and not isinstance(value, type)


def _shape(value: Any) -> str:
    try:
        shape = value.shape
        dims = shape.as_list() if hasattr(shape, "as_list") else list(shape)
        return (
            "("
            + ", ".join("None" if d is None else str(d) for d in dims)
            + ("," if len(dims) == 1 else "")
            + ")"
        )
    except Exception:
        return "<unknown rank>"


def _dtype(value: Any) -> str:
    dtype = getattr(value, "dtype", None)
    return _safe_str(getattr(dtype, "name", dtype))


def _summarize(value: Any) -> dict[str, Any]:
    """A bounded description of an argument (never the data of a tensor)."""
    if _is_tensor(value):
        return {"type": type(value).__name__, "shape": _shape(value), "dtype": _dtype(value)}
    if value is None or isinstance(value, (bool, int, float)):
        return {"type": type(value).__name__, "value": value}
    if isinstance(value, (list, tuple)):
        return {
            "type": type(value).__name__,
            "len": len(value),
            "items": [_summarize(item) for item in value[:MAX_ITEMS]],
        }
    if isinstance(value, dict):
        return {"type": "dict", "keys": [_safe_str(k) for k in list(value)[:8]]}
    return {"type": _qualified_type(value), "repr": _safe_repr(value)}


def _short_value(value: Any) -> Any:
    """JSON-native for small scalars, else a short string."""
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, str):
        return value[:MAX_REPR]
    if _is_tensor(value):
        return f"{type(value).__name__}(shape={_shape(value)}, dtype={_dtype(value)})"
    return _safe_repr(value)


def _qualified_type(value: Any) -> str:
    cls = type(value)
    module = cls.__module__
    return cls.__qualname__ if module == "builtins" else f"{module}.{cls.__qualname__}"


def _safe_repr(value: Any) -> str:
    try:
        text = repr(value)
    except Exception as error:
        text = f"<{type(value).__name__}: repr failed with {type(error).__name__}>"
    return text if len(text) <= MAX_REPR else text[: MAX_REPR - 1] + "…"


def _safe_str(value: Any, limit: int = MAX_REPR) -> str:
    try:
        text = str(value)
    except Exception as error:
        text = f"<str failed with {type(error).__name__}>"
    return text if len(text) <= limit else text[: limit - 1] + "…"
