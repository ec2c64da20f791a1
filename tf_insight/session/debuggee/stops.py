"""What TensorFlow and Keras are doing where a debugger stopped: TF Insight at a breakpoint.

`here()` is evaluated by the debugger in the stopped frame (the VS Code client asks at every
stop; a user of another DAP client types `tfi()` in the debug console). It walks out from the
stopped frame and says: eager or tracing a graph (which FuncGraph); the `tf.function` being
traced, its trace number and what it was traced with before (why this is a retrace); the Keras
layers being called, outermost first, with their keyword arguments and the `call_fn` Keras
picked; a `custom_gradient` on the way; a tf.data function being traced or run.

Read through `sys.modules` and the frames: TensorFlow is never imported here, and anything that
fails reads as unknown. Standard library only (this runs in the user's interpreter).
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import types
from typing import Any

from .introspect import executing_eagerly, graph_name, is_layer, keras_step
from .values import describe_callable, safe_repr, short_value

MAX_FRAMES = 400
MAX_KWARGS = 8
MAX_TRACES = 4
# Frames of the debugger and of this package, between the helper and the stopped frame.
DEBUGGER_PARTS = (os.sep + "pydevd", os.sep + "debugpy" + os.sep, os.sep + "_pydev")
HERE = os.path.dirname(os.path.abspath(__file__)) + os.sep
FUNCTION_FILE = os.path.join("eager", "polymorphic_function", "polymorphic_function.py")
TRACING_FILE = os.path.join("eager", "polymorphic_function", "tracing_compilation.py")
CUSTOM_GRADIENT_FILE = os.path.join("ops", "custom_gradient.py")
KERAS_SCRATCH_GRAPH = "scratch_graph"  # Keras 3 compute_output_spec; tf-keras: "<layer>_scratch_graph"
DATA_FUNCTION_FILE = os.path.join("data", "ops", "structured_function.py")


class Raw:
    """Text the debugger shows as it is (its repr is the text itself): JSON for the client,
    lines for the console. Not a `str`: pydevd shows a str subclass as `<Raw, len() = N>`."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text

    __str__ = __repr__


def here() -> Raw:
    """TF Insight's annotations of the stopped frame, as JSON (for the editor), with the
    one-line `summary` an editor shows after the line and the `text` of `tfi()`."""
    found = describe(stopped_frame(sys._getframe(1)))
    return Raw(json.dumps({**found, "summary": summary(found), "text": render(found)}))


def tfi() -> Raw:
    """The same, as text (for the debug console of any DAP client)."""
    return Raw(render(describe(stopped_frame(sys._getframe(1)))))


def stopped_frame(frame: types.FrameType | None) -> types.FrameType | None:
    """The frame the debugger evaluates in, from `frame`, the evaluated expression's: the one
    pydevd's `evaluate_expression` was given (the debugger can be paused below it, returning
    from a call), else the first frame that is neither an expression, the debugger, nor this
    package (a plain call of `tfi()`)."""
    candidate = None
    while frame is not None:
        path = frame.f_code.co_filename
        if any(part in path for part in DEBUGGER_PARTS):
            target = frame.f_locals.get("frame")
            if frame.f_code.co_name == "evaluate_expression" and isinstance(
                    target, types.FrameType):
                return target
        elif not (path.startswith("<") or path.startswith(HERE)):
            candidate = candidate or frame
        frame = frame.f_back
    return candidate


def describe(frame: types.FrameType | None) -> dict[str, Any]:
    """The annotations of `frame` as a JSON-able dict (see the module's docstring)."""
    eager = executing_eagerly()
    found: dict[str, Any] = {
        "frame": _place(frame),
        "mode": "unknown" if eager is None else "eager" if eager else "graph",
        "graph": None if eager else graph_name(eager),
        "function": None,
        "layers": [],
        "custom_gradient": None,
        "data_function": None,
    }
    tracing = False
    layers_seen: list[Any] = []
    current, depth = frame, 0
    while current is not None and depth < MAX_FRAMES:
        path, name, local = current.f_code.co_filename, current.f_code.co_name, current.f_locals
        if path.endswith(TRACING_FILE):
            tracing = True
        elif path.endswith(FUNCTION_FILE) and found["function"] is None:
            function = local.get("self")
            if type(function).__name__ == "Function" and not _made_by_tf_data(function):
                found["function"] = _function(function, tracing)
        elif name == "__call__" and is_layer(local.get("self")):
            layer = _layer(local)
            if layers_seen and layers_seen[-1] is local.get("self"):
                # Keras 3's Operation.__call__ under Layer.__call__: one call, two frames
                found["layers"][0] = {**found["layers"][0], **layer}
            else:
                found["layers"].insert(0, layer)
            layers_seen.append(local.get("self"))
        elif path.endswith(CUSTOM_GRADIENT_FILE) and found["custom_gradient"] is None:
            found["custom_gradient"] = f"inside `{name}` of tf.custom_gradient"
        elif path.endswith(DATA_FUNCTION_FILE) and found["data_function"] is None:
            found["data_function"] = (
                "run eagerly by tf.data's debug mode, once per element" if eager
                else "traced by tf.data (Dataset.map / filter / flat_map ...): once per "
                "dataset, not once per element")
        current, depth = current.f_back, depth + 1
    found["note"] = _note(found)
    return found


def _place(frame: types.FrameType | None) -> dict[str, Any] | None:
    if frame is None:
        return None
    return {"path": frame.f_code.co_filename, "line": frame.f_lineno,
            "function": frame.f_code.co_name}


def _made_by_tf_data(function: Any) -> bool:
    """tf.data wraps a map/filter function in a tf.function of its own: not the user's."""
    code = getattr(getattr(function, "_python_function", None), "__code__", None)
    return code is not None and code.co_filename.endswith(DATA_FUNCTION_FILE)


def _function(function: Any, tracing: bool) -> dict[str, Any]:
    """The `tf.function` around the stop: its name, how often TF traced it, and (while it
    traces) this trace's number and the signatures of the traces before."""
    name = getattr(function, "__name__", None) or getattr(function, "name", "?")
    described: dict[str, Any] = {"name": str(name), "tracing": tracing}
    python_function = getattr(function, "_python_function", None)
    step = keras_step(python_function) if python_function is not None else None
    if step is not None:
        described["keras_step"] = step
    with contextlib.suppress(Exception):
        described["traces"] = int(function.experimental_get_tracing_count())
    previous: list[str] = []
    with contextlib.suppress(Exception):
        for concrete in function._list_all_concrete_functions()[:MAX_TRACES]:
            previous.append(_signature(concrete.structured_input_signature))
    described["previous"] = previous
    if tracing:
        described["trace"] = described.get("traces", 0) + 1
    return described


def _signature(structured: Any) -> str:
    args, kwargs = structured if isinstance(structured, tuple) and len(structured) == 2 else (
        structured, {})
    parts = [str(a) for a in (args or ())] + [f"{k}={v}" for k, v in (kwargs or {}).items()]
    return "(" + ", ".join(parts) + ")"


def _layer(local: dict[str, Any]) -> dict[str, Any]:
    """A Keras `Layer.__call__` on the stack: the layer, its keyword arguments, and the
    `call_fn` Keras 3 chose (a `custom_gradient` `Bind` under `RematScope`, for one)."""
    layer = local.get("self")
    described: dict[str, Any] = {"class": type(layer).__name__,
                                 "name": str(getattr(layer, "name", ""))}
    kwargs = local.get("kwargs")
    if isinstance(kwargs, dict):
        described["kwargs"] = {str(k): short_value(v)
                               for k, v in list(kwargs.items())[:MAX_KWARGS]}
    call_fn = local.get("call_fn")
    if call_fn is not None:
        chain = describe_callable(call_fn)["chain"]
        described["call_fn"] = " → ".join(link["kind"] for link in chain) or safe_repr(call_fn)
    return described


def _note(found: dict[str, Any]) -> str:
    function = found["function"]
    if found["mode"] == "graph" and function and function.get("tracing"):
        return ("TensorFlow is tracing this code into a graph: tensors here are symbolic "
                "(no values), and this line runs once per trace, not once per step. "
                "Debug eagerly to stop at every call with real values.")
    if str(found["graph"]).endswith(KERAS_SCRATCH_GRAPH):
        return ("Keras is working out output shapes on symbolic inputs (building a functional "
                "model or a layer): this runs once, not once per step.")
    if found["mode"] == "graph":
        return ("Graph mode: tensors here are symbolic (no values). Debug eagerly to stop at "
                "every call with real values.")
    if found["mode"] == "eager" and function:
        return ("This tf.function runs eagerly (debugging eagerly): values are real, but "
                "graph-only errors (the custom_gradient keyword error, for one) do not happen.")
    return ""


def summary(found: dict[str, Any]) -> str:
    """One line: the mode and what TF is doing (shown after the stopped line)."""
    function, layers = found.get("function"), found.get("layers") or ()
    parts = [found["mode"] if found["mode"] != "graph" else f"graph ({found['graph']})"]
    if function and function.get("tracing"):
        parts.append(f"tracing `{function['name']}`, trace #{function.get('trace', '?')}"
                     + (f" (traced before: {len(function['previous'])})"
                        if function.get("previous") else ""))
    elif function:
        parts.append(f"tf.function `{function['name']}`")
    if layers:
        parts.append(" → ".join(layer["class"] for layer in layers))
    if found.get("data_function"):
        parts.append("tf.data function")
    return " · ".join(parts)


def render(found: dict[str, Any]) -> str:
    """The annotations as text lines."""
    lines = [f"mode: {found['mode']}" + (f" (FuncGraph {found['graph']})"
                                          if found.get("graph") not in (None, "eager") else "")]
    function = found.get("function")
    if function:
        what = f"tf.function `{function['name']}`"
        if function.get("keras_step"):
            what += f" running {function['keras_step']}"
        if function.get("tracing"):
            what += f": tracing, trace #{function.get('trace', '?')}"
        elif found["mode"] == "eager":
            what += ": running eagerly"
        elif "traces" in function:
            what += f": traced {function['traces']}×"
        lines.append(what)
        for signature in function.get("previous") or ():
            lines.append(f"  traced before with {signature}")
    for layer in found.get("layers") or ():
        text = f"Keras {layer['class']} '{layer['name']}'.__call__"
        if layer.get("kwargs"):
            text += " " + ", ".join(f"{k}={v}" for k, v in layer["kwargs"].items())
        if layer.get("call_fn"):
            text += f"; call_fn: {layer['call_fn']}"
        lines.append(text)
    for key in ("custom_gradient", "data_function", "note"):
        if found.get(key):
            lines.append(found[key])
    return "\n".join(lines)
