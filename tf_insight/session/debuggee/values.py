"""Bounded, JSON-ready descriptions of the values a probe sees: arguments, callables and their
wrapper chains, what tf.function keys a trace on.

Pure functions that never raise on an odd object (a failing `repr` only degrades its text)
and never read a tensor's data. Standard library only (TensorFlow is recognised by name).
"""

from __future__ import annotations

import inspect
import types
from typing import Any

from .messages import CallableInfo, Link, Scalar, SignatureEntry, ValueSummary

MAX_REPR = 100
MAX_ITEMS = 4


def is_tensor(value: Any) -> bool:
    return hasattr(value, "shape") and hasattr(value, "dtype") and not isinstance(value, type)


def shape(value: Any) -> str:
    """`(2, 3)`, `(None, 4)`, `(5,)`; `<unknown rank>`."""
    try:
        found = value.shape
        dims = found.as_list() if hasattr(found, "as_list") else list(found)
        return (
            "("
            + ", ".join("None" if d is None else str(d) for d in dims)
            + ("," if len(dims) == 1 else "")
            + ")"
        )
    except Exception:
        return "<unknown rank>"


def dtype(value: Any) -> str:
    kind = getattr(value, "dtype", None)
    return safe_str(getattr(kind, "name", kind))


def summarize(value: Any) -> ValueSummary:
    """A bounded description of an argument (never the data of a tensor)."""
    if is_tensor(value):
        return {"type": type(value).__name__, "shape": shape(value), "dtype": dtype(value)}
    if value is None or isinstance(value, bool | int | float):
        return {"type": type(value).__name__, "value": value}
    if isinstance(value, list | tuple):
        return {
            "type": type(value).__name__,
            "len": len(value),
            "items": [summarize(item) for item in value[:MAX_ITEMS]],
        }
    if isinstance(value, dict):
        return {"type": "dict", "keys": [safe_str(k) for k in list(value)[:8]]}
    return {"type": qualified_type(value), "repr": safe_repr(value)}


def short_value(value: Any) -> Scalar:
    """JSON-native for small scalars, else a short string."""
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, str):
        return value[:MAX_REPR]
    if is_tensor(value):
        return f"{type(value).__name__}(shape={shape(value)}, dtype={dtype(value)})"
    return safe_repr(value)


def signature_entry(value: Any) -> SignatureEntry:
    """What tf.function keys a trace on: tensor shape/dtype, else the Python value/object."""
    if is_tensor(value):
        return {"kind": "tensor", "shape": shape(value), "dtype": dtype(value)}
    if value is None or isinstance(value, bool | int | float | str):
        return {"kind": "python", "type": type(value).__name__, "value": short_value(value)}
    return {"kind": "object", "type": type(value).__name__, "id": id(value)}


def parameter_names(function: Any, count: int) -> list[str]:
    """The names of the first `count` positional parameters (`arg2` where none is known)."""
    names: list[str] = []
    try:
        for parameter in inspect.signature(function).parameters.values():
            if parameter.kind in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD):
                names.append(parameter.name)
    except (TypeError, ValueError):
        pass
    return names[:count] + [f"arg{i}" for i in range(len(names), count)]


def describe_callable(value: Any) -> CallableInfo:
    """repr, type, id and the wrapper chain (outermost first) of a callable."""
    chain: list[Link] = []
    current = value
    seen: set[int] = set()
    while current is not None and id(current) not in seen and len(chain) < 8:
        seen.add(id(current))
        link: Link = {
            "kind": callable_kind(current),
            "type": qualified_type(current),
            "repr": safe_repr(current),
            "id": id(current),
        }
        code = getattr(current, "__code__", None)
        if code is not None:  # where it is defined: its first decorator's line
            link["path"], link["line"] = code.co_filename, code.co_firstlineno
        chain.append(link)
        current = unwrap_once(current)
    return {
        "repr": safe_repr(value),
        "type": qualified_type(value),
        "id": id(value),
        "chain": chain,
    }


def callable_kind(value: Any) -> str:
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


def unwrap_once(value: Any) -> Any:
    """The callable that `value` wraps, or None."""
    if type(value).__name__ == "Bind" and hasattr(value, "_f"):
        return value._f
    if isinstance(value, types.MethodType):
        return value.__func__ if callable_kind(value.__func__) != "function" else None
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


def innermost(value: Any) -> Any:
    """What `value` wraps, through at most 8 wrappers."""
    for _ in range(8):
        inner = unwrap_once(value)
        if inner is None:
            break
        value = inner
    return value


def function_like(value: Any) -> bool:
    """A Python function or a tf.function: never a model or layer (`self`), whose attribute
    look-ups can run code."""
    return isinstance(value, types.FunctionType) or type(value).__name__ == "Function"


def qualified_type(value: Any) -> str:
    cls = type(value)
    module = cls.__module__
    return cls.__qualname__ if module == "builtins" else f"{module}.{cls.__qualname__}"


def safe_repr(value: Any) -> str:
    try:
        text = repr(value)
    except Exception as error:
        text = f"<{type(value).__name__}: repr failed with {type(error).__name__}>"
    return text if len(text) <= MAX_REPR else text[: MAX_REPR - 1] + "…"


def safe_str(value: Any, limit: int = MAX_REPR) -> str:
    try:
        text = str(value)
    except Exception as error:
        text = f"<str failed with {type(error).__name__}>"
    return text if len(text) <= limit else text[: limit - 1] + "…"
