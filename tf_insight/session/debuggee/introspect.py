"""What TensorFlow and Keras are doing at a probe: the layer being called, eager or which
graph, the Keras step a trainer function runs, the trace types TF keyed a trace on.

Read through `sys.modules` and the objects at hand: TensorFlow is never imported here, and a
failure reads as "unknown". Standard library only.
"""

from __future__ import annotations

import contextlib
import sys
import types
from typing import Any

from .messages import Layer
from .values import MAX_ITEMS, function_like, safe_str

LAYER_CLASSES = (("keras.src.layers.layer", "Layer"), ("tf_keras.src.engine.base_layer", "Layer"))


def is_layer(value: Any) -> bool:
    for module_name, class_name in LAYER_CLASSES:
        module = sys.modules.get(module_name)
        cls = getattr(module, class_name, None) if module is not None else None
        if isinstance(cls, type) and isinstance(value, cls):
            return True
    return False


def probed_layer(probe: str, frame: types.FrameType, local: dict[str, Any]) -> Any:
    """The layer being called: `self` at the Keras probe, else the nearest Keras `__call__`."""
    if probe == "keras.Layer.__call__":
        candidate = local.get("self")
        return candidate if is_layer(candidate) else None
    outer = frame.f_back
    for _ in range(60):
        if outer is None:
            return None
        if outer.f_code.co_name in ("__call__", "_infer_output_signature") and (
            "keras" in outer.f_code.co_filename
        ):
            candidate = outer.f_locals.get("self")
            if is_layer(candidate):
                return candidate
        outer = outer.f_back
    return None


def describe_layer(layer: Any) -> Layer | None:
    if layer is None:
        return None
    described: Layer = {"class": type(layer).__name__, "name": safe_str(getattr(layer, "name", ""))}
    remat = getattr(layer, "_remat_mode", None)  # Keras 3: set by RematScope at construction
    if remat is not None:
        described["remat"] = safe_str(getattr(remat, "mode", remat))
    return described


def executing_eagerly() -> bool | None:
    context = sys.modules.get("tensorflow.python.eager.context")
    try:
        return bool(context.executing_eagerly()) if context is not None else None
    except Exception:
        return None


def default_graph() -> Any:
    ops = sys.modules.get("tensorflow.python.framework.ops")
    try:
        return ops.get_default_graph() if ops is not None else None
    except Exception:
        return None


def graph_name(eager: bool | None) -> str | None:
    """`eager`, a FuncGraph's name, `Graph`; None when unknown."""
    if eager:
        return "eager"
    graph = default_graph()
    if graph is None:
        return None
    if type(graph).__name__ == "FuncGraph":
        return safe_str(getattr(graph, "name", "FuncGraph"))
    return type(graph).__name__


def has_keras_tensor(values: tuple[Any, ...]) -> bool:
    """A KerasTensor among `values`, or in a list, tuple or dict of them (`Add()([a, b])`)."""
    for value in values[:MAX_ITEMS]:
        if isinstance(value, dict):
            value = tuple(value.values())
        items = value[:MAX_ITEMS * 4] if isinstance(value, list | tuple) else (value,)
        if any(type(item).__name__ == "KerasTensor" for item in items):
            return True
    return False


def function_context(python_function: Any) -> str | None:
    """What tells apart functions of one name: the Keras step a Keras 3 trainer function runs
    (train, test and predict are all `multi_step_on_iterator`, made by one `_make_function`),
    else the function whose body defines it."""
    step = keras_step(python_function)
    if step is not None:
        return f"running {step}"
    qualname = safe_str(getattr(python_function, "__qualname__", ""))
    outer, _, _ = qualname.rpartition(".<locals>.")
    outer = outer.rpartition(".")[2]
    return f"in {outer}" if outer else None


def keras_step(function: Any) -> str | None:
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
                    return safe_str(getattr(value, "__name__", None)) or None
                if function_like(value):
                    pending.append(value)
        for attribute in ("__wrapped__", "_python_function"):
            inner = getattr(current, attribute, None)
            if function_like(inner):
                pending.append(inner)
    return None


def trace_types(function_type: Any) -> dict[str, str]:
    """Parameter → the trace type TF keyed this trace on (`TensorSpec(...)`, `Literal[3]`,
    `IteratorSpec(...)`): what decides whether a call reuses a trace."""
    types_by_name: dict[str, str] = {}
    parameters = getattr(function_type, "parameters", None)
    if parameters is None:
        return types_by_name
    with contextlib.suppress(Exception):
        for name, parameter in parameters.items():
            types_by_name[str(name)] = safe_str(getattr(parameter, "type_constraint", None),
                                                limit=300)
    return types_by_name
