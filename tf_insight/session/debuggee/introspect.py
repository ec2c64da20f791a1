"""What TensorFlow and Keras are doing at a probe: the layer being called, eager or which
graph, the Keras step a trainer function runs, the trace types TF keyed a trace on.

Read through `sys.modules` and the objects at hand: TensorFlow is never imported here, and a
failure reads as "unknown". Standard library only.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import types
from collections.abc import Callable
from typing import Any

from .messages import Layer
from .values import MAX_ITEMS, function_like, innermost, safe_str

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
                if name == "step_function":  # (tf-keras's is its own `step_function`)
                    step = safe_str(getattr(value, "__name__", None))
                    return step if step and step != "step_function" else None
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


STEP_METHODS = ("train_step", "test_step", "predict_step")
MODEL_NAMES = ("self", "model")


def traced_user_function(python_function: Any, is_library: Callable[[str], bool]) -> Any:
    """The function of the user's whose Python a trace of `python_function` runs: itself
    (through its decorators), a Keras trainer function's overridden `train_step`/`test_step`/
    `predict_step`, a `Dataset.map` function; None when the trace runs no code of the user's
    that is its own (a Keras 3 outer trainer function runs the step through an inner
    tf.function, traced apart)."""
    target = _undecorated(python_function)
    if _is_users(target, is_library):
        return target
    code = getattr(target, "__code__", None)
    cells = getattr(target, "__closure__", None) or ()
    for name, cell in zip(code.co_freevars if code else (), cells, strict=False):
        try:
            value = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        if name == "step_function" and _is_users(value, is_library):
            return value  # Keras 3: the model's bound step
        if name == "self" and type(value).__name__ == "StructuredFunctionWrapper":
            inner = innermost(getattr(value, "_func", None))  # tf.data's map function...
            return inner if _is_users(inner, is_library) else None
        if name in MODEL_NAMES and is_layer(value):
            step = _overridden_step(target, type(value), is_library)
            if step is not None:
                return step
    return None


def _undecorated(function: Any) -> Any:
    for _ in range(10):
        inner = getattr(function, "__wrapped__", None)
        if inner is None:
            break
        function = inner
    return function


def _is_users(function: Any, is_library: Callable[[str], bool]) -> bool:
    code = getattr(getattr(function, "__func__", function), "__code__", None)
    return code is not None and not is_library(code.co_filename)


def _overridden_step(function: Any, model_class: type, is_library: Callable[[str], bool]
                     ) -> Any:
    """The model class's own step that `function` (or a function it closes over) calls by
    name, when the user overrode it (tf-keras's `train_function` → `step_function` →
    `model.train_step`; Keras 3's `predict` → `self.predict_step`)."""
    names: set[str] = set()
    pending = [getattr(function, "__code__", None)]
    for cell in getattr(function, "__closure__", None) or ():
        with contextlib.suppress(ValueError):
            pending.append(getattr(cell.cell_contents, "__code__", None))
    while pending:
        code = pending.pop()
        if isinstance(code, types.CodeType):
            names.update(code.co_names)
            pending.extend(const for const in code.co_consts if isinstance(const, types.CodeType))
    for step in STEP_METHODS:
        method = getattr(model_class, step, None) if step in names else None  # the class's
        if method is not None and _is_users(method, is_library):
            return method
    return None


def is_scratch_graph(graph_name: str | None) -> bool:
    """Keras's shape-inference graphs (`scratch_graph`, `dense_scratch_graph`): built once to
    infer output shapes, never run."""
    return bool(graph_name) and "scratch_graph" in str(graph_name)


def replica_parent() -> types.FrameType | None:
    """In a `MirroredStrategy` replica thread, the innermost frame of the thread that runs
    `strategy.run` (blocked in `_call_for_each_replica` meanwhile): the function it traces and
    the user's line are there. None in any other thread."""
    if type(threading.current_thread()).__name__ != "_MirroredReplicaThread":
        return None
    for ident, frame in sys._current_frames().items():
        if ident == threading.get_ident():
            continue
        current: types.FrameType | None = frame
        while current is not None:
            if current.f_code.co_name == "_call_for_each_replica":
                return frame
            current = current.f_back
    return None
