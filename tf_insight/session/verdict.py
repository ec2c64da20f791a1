"""The verdict: the chain of probe steps that led to the failure, told in one sentence, linked
to the explain catalogue entry and rule, with its fix.

The explain engine reads only the printed traceback, which names the outermost Keras layer
and cannot see who wrapped `call`; the steps name the layer, the wrapper and the graph that
really failed, so they pick the catalogue entry when they can and tell the chain.
"""

from __future__ import annotations

import contextlib
from typing import Any

from tf_insight.session.model import ExceptionRecord, Step, TraceResult, Verdict

GRAPH_MODE_DECORATOR = "custom_gradient._graph_mode_decorator"
REMAT_ENTRY = "remat-scope-keyword-arguments"
CUSTOM_GRADIENT_ENTRY = "custom-gradient-keyword-arguments"
CUSTOM_GRADIENT_FALLBACK = {
    "rule": "TFI001",
    "title": "`tf.custom_gradient` function called with keyword arguments in graph mode",
    "fix": "Call the decorated function with positional tensors only: decorate an inner "
    "function inside `call`, or keep `RematScope`/`tf.recompute_grad` away from layers "
    "that take `training`/`mask`.",
}


def build_verdict(result: TraceResult) -> Verdict | None:
    """None when the script did not fail with an exception."""
    if result.exception is None:
        return None
    chain = custom_gradient_chain(result.steps)
    if chain is not None:
        indices, sentence, entry_id, layer_type = chain
        entry = _catalogue_entry(entry_id, layer_type)
        return Verdict(
            id=entry_id,
            rule=entry.get("rule") or CUSTOM_GRADIENT_FALLBACK["rule"],
            title=entry.get("title") or CUSTOM_GRADIENT_FALLBACK["title"],
            summary=sentence,
            cause=entry.get("cause"),
            fix=entry.get("fix") or CUSTOM_GRADIENT_FALLBACK["fix"],
            chain=indices,
        )
    explanation = _explain(result.exception)
    if explanation is None:
        first_line = (result.exception.message.strip().splitlines() or [""])[0]
        return Verdict(None, None, result.exception.type, first_line)
    return Verdict(
        id=_text(explanation, "id"),
        rule=_text(explanation, "rule"),
        title=_text(explanation, "title") or result.exception.type,
        summary=_text(explanation, "summary") or result.exception.message,
        cause=_text(explanation, "cause"),
        fix=_text(explanation, "fix"),
    )


def custom_gradient_chain(steps: list[Step]) -> tuple[list[int], str, str, str] | None:
    """(step indices, sentence, catalogue id, layer type) from the Keras call to the
    `_graph_mode_decorator` that rejected keyword arguments, or None."""
    failing = next(
        (s for s in reversed(steps) if s.probe == GRAPH_MODE_DECORATOR and s.kwargs), None
    )
    if failing is None:
        return None
    layer = failing.layer or {}
    same_layer = [s for s in steps[: failing.index] if layer and s.layer == failing.layer]
    keras_call = next((s for s in reversed(same_layer) if s.probe == "keras.Layer.__call__"), None)
    start = keras_call.index if keras_call is not None else failing.index
    conversion = next(
        (s for s in reversed(same_layer) if s.probe == "autograph.tf_convert" and s.index < start),
        None,
    )
    if conversion is not None:  # tf-keras converts call_fn just before calling it
        start = conversion.index
    chain = [s.index for s in same_layer if s.index >= start] + [failing.index]
    graph = failing.graph or "a graph"
    graph_text = f"FuncGraph `{graph}`" if graph not in ("Graph", "eager") else graph
    if graph.endswith("_scratch_graph"):
        graph_text += ", while building the functional model"
    kwargs = ", ".join(f"`{name}={value!r}`" for name, value in failing.kwargs.items())
    owner = f"`{layer['class']}.call`" if layer else "A `tf.custom_gradient` function"
    sentence = (
        f"{owner} was {_wrapping(keras_call or failing, layer)}, "
        f"{'Keras' if layer else 'its caller'} called it in graph mode ({graph_text}) "
        f"with {kwargs} → `_graph_mode_decorator` rejects keyword args"
    )
    entry_id = REMAT_ENTRY if layer.get("remat") else CUSTOM_GRADIENT_ENTRY
    return chain, sentence, entry_id, str(layer.get("class", "Layer"))


def _wrapping(step: Step, layer: dict[str, Any]) -> str:
    kinds = [str(link.get("kind")) for link in (step.call_fn or {}).get("chain", [])]
    if "tf.recompute_grad wrapper" in kinds:
        via = f", applied by `RematScope(mode={layer['remat']!r})`" if layer.get("remat") else ""
        return f"wrapped for recomputation (call_fn = Bind via `tf.recompute_grad`{via})"
    if "custom_gradient Bind" in kinds:
        return "wrapped by `tf.custom_gradient` (call_fn = Bind)"
    return "decorated with `tf.custom_gradient`"


def load_explain_engine() -> None:
    """Import the explain engine ahead of `build_verdict` (~0.1 s): worth doing on a thread
    as soon as the script records an exception, while the script is still running."""
    with contextlib.suppress(ImportError):
        import tf_insight.explain  # noqa: F401 (its engine imports the catalogue)


def _catalogue_entry(entry_id: str, layer_type: str) -> dict[str, str | None]:
    """Rule, title, cause and fix of a catalogue entry ({} if the catalogue is unavailable)."""
    try:
        from tf_insight.explain.catalogue import fill, get_entry
    except ImportError:
        return {}
    entry = get_entry(entry_id)
    if entry is None:
        return {}
    values = {"layer_type": layer_type, "layer": layer_type}
    return {
        "rule": entry.rule,
        "title": entry.title,
        "cause": fill(entry.cause, values),
        "fix": fill(entry.fix, values),
    }


def _explain(exception: ExceptionRecord) -> Any:
    """The explain engine's answer, or None if that engine is unavailable or fails."""
    try:
        from tf_insight.explain import explain
    except ImportError:
        return None
    try:
        return explain(exception.traceback or f"{exception.type}: {exception.message}")
    except Exception:  # a verdict without the catalogue link beats no result at all
        return None


def _text(explanation: Any, name: str) -> str | None:
    value = getattr(explanation, name, None)
    return str(value) if value else None
