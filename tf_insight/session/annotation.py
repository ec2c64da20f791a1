"""What an editor shows for a step: its title, its mode, the one-line label after the line and
the full hover text (Markdown). Built here once, sent with every step (`Step.to_dict`), and
shown as they are by the VS Code client (decorations, the session tree) and by the language
server (inlay hints), so that every editor reads the same words.

    ⟵ Dropout.__call__ · graph (one_step_on_data) · call_fn=Bind(recompute_grad(Dropout.call))
      · kwargs: training=True
"""

from __future__ import annotations

import re
from typing import Any, Protocol

from tf_insight.session.debuggee.messages import (
    CallableInfo,
    Frame,
    Layer,
    Scalar,
    StepDetail,
    UserFrame,
    ValueSummary,
)
from tf_insight.session.wire import Annotation

PREFIX = "⟵ "
SEPARATOR = " · "
MAX_VALUE = 40
MAX_LABEL = 160
MAX_DETAIL = 200
WRAPPER_NAMES = {
    "custom_gradient Bind": "Bind",
    "tf.recompute_grad wrapper": "recompute_grad",
    "tf.function": "tf.function",
}
KERAS_WRAPPER = "Keras traceback wrapper"
GENERIC_NAMES = frozenset({"inner", "wrapper", "decorated", "fn", "f", "func", "wrapped", "call"})
_FUNCTION = re.compile(r"^<(?:function|built-in function)\s+(\S+)(?:\s+at\s+0x[0-9a-fA-F]+)?>$")
_BOUND_METHOD = re.compile(r"^<bound method\s+(\S+)\s+of\s")
_OBJECT = re.compile(r"^<([\w.]+) object at 0x[0-9a-fA-F]+>$")
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]<>|])")


class Step(Protocol):
    """What of a step (`tf_insight.session.model.Step`) the annotation reads."""

    @property
    def index(self) -> int: ...
    @property
    def probe(self) -> str: ...
    @property
    def location(self) -> Frame: ...
    @property
    def user_frame(self) -> UserFrame | None: ...
    @property
    def executing_eagerly(self) -> bool | None: ...
    @property
    def graph(self) -> str | None: ...
    @property
    def layer(self) -> Layer | None: ...
    @property
    def call_fn(self) -> CallableInfo | None: ...
    @property
    def args(self) -> list[ValueSummary]: ...
    @property
    def kwargs(self) -> dict[str, Scalar]: ...
    @property
    def detail(self) -> StepDetail: ...


def annotation(step: Step) -> Annotation:
    """The step's `title`, `mode` ("" when unknown), inline `label` and hover `markdown`."""
    return {"title": title(step), "mode": mode(step) or "", "label": label(step),
            "markdown": markdown(step)}


def title(step: Step) -> str:
    """`Dense.__call__` for a layer call, else the short probe name (with the layer)."""
    layer = step.layer["class"] if step.layer else None
    if layer and step.probe.endswith(("Layer.__call__", "Operation.__call__")):
        return f"{layer}.{step.probe.rsplit('.', 1)[-1]}"
    short = ".".join(step.probe.split(".")[-2:]) or "step"
    return f"{short} ({layer})" if layer else short


def mode(step: Step) -> str | None:
    """`eager`, `graph (one_step_on_data)`, `graph`, or None when unknown."""
    if step.executing_eagerly:
        return "eager"
    graph = step.graph if step.graph and step.graph != "eager" else None
    if step.executing_eagerly is False:
        return f"graph ({graph})" if graph else "graph"
    return f"graph ({graph})" if graph else None


def label(step: Step) -> str:
    """The one line shown after the code line."""
    parts = [title(step)]
    step_mode = mode(step)
    if step_mode:
        parts.append(step_mode)
    call_fn = call_fn_label(step.call_fn)
    if call_fn:
        parts.append(f"call_fn={call_fn}")
    kwargs = render_kwargs(step.kwargs)
    if kwargs:
        parts.append(f"kwargs: {', '.join(kwargs)}")
    raises = step.detail.get("raises")
    if isinstance(raises, str):
        parts.append(f"raises {raises.split(':')[0]}")
    return _shorten(PREFIX + SEPARATOR.join(parts), MAX_LABEL)


def markdown(step: Step) -> str:
    """The whole step, for the hover and the session tree's tooltip."""
    step_mode = mode(step)
    lines = [f"**TF Insight — step {step.index + 1}: {_escape(title(step))}**", "",
             f"- probe: {_code(step.probe)}",
             f"- mode: {step_mode or 'unknown'}"
             + (" — this code runs while a graph is traced" if step.executing_eagerly is False
                else "")]
    if step.layer:
        name = step.layer.get("name")
        lines.append(f"- layer: {_code(str(step.layer.get('class') or '?'))}"
                     + (f" named {_code(str(name))}" if name else ""))
    if step.call_fn:
        kind = step.call_fn.get("type")
        lines.append(f"- call_fn: {_code(str(step.call_fn.get('repr') or '?'))}"
                     + (f" ({_escape(str(kind))})" if kind else ""))
        chain = [link for link in step.call_fn.get("chain") or () if isinstance(link, dict)]
        if chain:
            links = [f"{link.get('kind') or '?'} "
                     f"{_code(_shorten(str(link.get('repr') or link.get('type') or ''), 80))}"
                     for link in chain]
            lines.append(f"- call_fn chain (outermost first): {' → '.join(links)}")
    args = [_shorten(render_value(value), MAX_DETAIL) for value in step.args]
    if args:
        lines.append(f"- args: {', '.join(_code(a) for a in args)}")
    kwargs = render_kwargs(step.kwargs, MAX_DETAIL)
    lines.append(f"- kwargs: {', '.join(_code(k) for k in kwargs) if kwargs else 'none'}")
    raises = step.detail.get("raises")
    if isinstance(raises, str):
        lines.append(f"- **raises:** {_code(raises)}")
    user = step.user_frame
    if user:
        function = user.get("function")
        lines.append(f"- your code: {_code(_place(user))}"
                     + (f" in {_code(str(function))}" if function else ""))
    if step.location:
        lines.append(f"- library: {_code(_place(step.location))}")
    return "\n".join(lines)


def _place(frame: Frame | UserFrame) -> str:
    return place_text(str(frame.get("path")), frame.get("line"), frame.get("cell"))


def place_text(path: str, line: object, cell: object = None) -> str:
    """`train.py:12`, or `nb.ipynb:cell 3:2` in a traced notebook."""
    return f"{path}:cell {cell}:{line}" if cell else f"{path}:{line}"


def call_fn_label(call_fn: CallableInfo | None) -> str | None:
    """The called function from its wrapper chain (outermost first), wrappers around what they
    wrap: `Bind(recompute_grad(Dense.call))`, `Functional.call`; Keras's traceback wrapper
    skipped."""
    if not call_fn:
        return None
    wrappers: list[str] = []
    leaf = None
    for link in call_fn.get("chain") or ():
        if not isinstance(link, dict) or link.get("kind") == KERAS_WRAPPER:
            continue
        wrapper = WRAPPER_NAMES.get(str(link.get("kind")))
        if wrapper is not None:
            wrappers.append(wrapper)
            continue
        leaf = short_repr(str(link["repr"])) if link.get("repr") else link.get("type")
        break
    if not wrappers:
        return leaf or (short_repr(str(call_fn["repr"])) if call_fn.get("repr") else None)
    opened = "(".join(wrappers)
    if leaf:
        return f"{opened}({leaf}{')' * len(wrappers)}"
    return opened + ")" * (len(wrappers) - 1)


def short_repr(text: str) -> str:
    """`<function Bind(recompute_grad) at 0x7f…>` → `Bind(recompute_grad)`; others shortened."""
    text = text.strip()
    if found := _FUNCTION.match(text):
        return _shorten(_function_name(found[1]))
    if found := _BOUND_METHOD.match(text):
        return _shorten(_function_name(found[1]))
    if found := _OBJECT.match(text):
        return _shorten(found[1].rsplit(".", 1)[-1])
    return _shorten(re.sub(r"\s+at\s+0x[0-9a-fA-F]+>$", ">", text))


def _function_name(qualname: str) -> str:
    """The innermost name, or the function around it when that says nothing (a decorator's
    `wrapper`): `make_step.<locals>.step` → `step`, `logged.<locals>.wrapper` → `logged`."""
    outer, _, innermost = qualname.rpartition(".<locals>.")
    if outer and innermost in GENERIC_NAMES:
        return outer.rpartition(".<locals>.")[2]
    return innermost


def render_value(value: Any) -> str:
    """A value as the probe summarised it (`{type, shape, dtype}`, `{type, value}`,
    `{type, len, items}`, `{type, keys}`, `{type, repr}`), or a JSON scalar, in Python's
    spelling."""
    if isinstance(value, str):
        return value
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, dict):
        kind = str(value["type"]) if isinstance(value.get("type"), str) else None
        if isinstance(value.get("shape"), str):
            dtype = f" {value['dtype']}" if isinstance(value.get("dtype"), str) else ""
            return f"{kind or 'Tensor'}{value['shape']}{dtype}"
        if "value" in value:
            return render_value(value["value"])
        if isinstance(value.get("repr"), str):
            return str(value["repr"])
        if isinstance(value.get("items"), list):
            items = [render_value(item) for item in value["items"]]
            more = ", …" if isinstance(value.get("len"), int) and value["len"] > len(items) else ""
            inner = ", ".join(items) + more
            return f"({inner})" if kind == "tuple" else f"[{inner}]"
        if isinstance(value.get("keys"), list):
            return "{" + ", ".join(str(key) for key in value["keys"]) + "}"
        if kind:
            return kind
    return str(value)


def render_kwargs(kwargs: dict[str, Any], limit: int = MAX_VALUE) -> list[str]:
    """`{"training": True}` → `["training=True"]`."""
    return [f"{name}={_shorten(render_value(value), limit)}" for name, value in kwargs.items()]


def _shorten(text: str, limit: int = MAX_VALUE) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _escape(text: str) -> str:
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)


def _code(text: str) -> str:
    fence = "``" if "`" in text else "`"
    return f"{fence}{text}{fence}"
