"""The verdict: the chain of probe steps that led to the failure, told in one sentence, linked
to the explain catalogue entry and rule, with its fix.

The explain engine reads only the printed traceback, which names the outermost Keras layer
and cannot see who wrapped `call`; the steps name the layer, the wrapper and the graph that
really failed, so they pick the catalogue entry when they can and tell the chain.
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path
from typing import Any

from tf_insight.explain.frames import is_library_path
from tf_insight.session.debuggee.messages import Layer, Link, UserFrame
from tf_insight.session.hazards import completed_run_verdict
from tf_insight.session.lines import findings_at, place
from tf_insight.session.model import ExceptionRecord, Step, TraceResult, Verdict
from tf_insight.session.wire import VerdictFrame

GRAPH_MODE_DECORATOR = "custom_gradient._graph_mode_decorator"
REMAT_ENTRY = "remat-scope-keyword-arguments"
CUSTOM_GRADIENT_ENTRY = "custom-gradient-keyword-arguments"
RECOMPUTE_METHOD_ENTRY = "recompute-grad-on-method"
VARIABLE_PER_CALL_ENTRY = "variable-created-per-call"
CUSTOM_GRADIENT_FALLBACK = {
    "rule": "TFI001",
    "title": "`tf.custom_gradient` function called with keyword arguments in graph mode",
    "fix": "Call the decorated function with positional tensors only: decorate an inner "
    "function inside `call`, or keep `RematScope`/`tf.recompute_grad` away from layers "
    "that take `training`/`mask`.",
}
_FRAME = re.compile(r'^\s*File "(?P<path>[^"]+)", line (?P<line>\d+), in (?P<function>.+)$',
                    re.MULTILINE)
TRACEBACK_HEADER = "Traceback (most recent call last):"
_ROOT_ERRORS = re.compile(r"\d+ root error\(s\) found\.")
# Keras 3 + a distribution strategy: variables created in the first call of a tf.function
# (an optimizer's slots, made lazily by its first `apply_gradients`) cannot be lifted out of
# the graph; TF then runs it through `fn_with_cond`, whose untaken branch fails at run time.
PLACEHOLDER_FEED = "You must feed a value for placeholder tensor"
VARIABLES_IN_DISTRIBUTED_STEP = {
    "title": "A distributed `tf.function` created variables on its first call",
    "summary": ("The `tf.function` called here created variables while it was first traced "
                "(TF then ran it through `fn_with_cond`, which initialises them inside the "
                "graph), and under a distribution strategy that graph fails: \"{message}\""),
    "cause": ("Keras 3 optimizers create their slot variables lazily, on the first "
              "`apply_gradients`; inside a distributed step that is inside the traced graph, "
              "where the variables' initial values cannot be lifted out."),
    "fix": ("Create the variables before the first call, under the strategy's scope:\n\n"
            "```python\nwith strategy.scope():\n    model = create_model()\n"
            "    optimizer = tf.keras.optimizers.Adam()\n"
            "    optimizer.build(model.trainable_variables)  # the slots, now\n```"),
}


def build_verdict(result: TraceResult, root: Path | None = None) -> Verdict | None:
    """Why the script failed, or what hazard a completed run showed (`hazards.py`); None for
    a clean run. `root`: the workspace, for static findings at the user's line."""
    if result.exception is None:
        return completed_run_verdict(result, root)
    explanation = _explain(result.exception, root)
    entry = _text(explanation, "id")
    chain = (custom_gradient_chain(result.steps)
             if entry in (None, CUSTOM_GRADIENT_ENTRY, REMAT_ENTRY) else None)
    if chain is not None:
        indices, sentence, entry_id, layer_type = chain
        known = _catalogue_entry(entry_id, layer_type)
        rule: str | None = known.get("rule") or CUSTOM_GRADIENT_FALLBACK["rule"]
        failing = result.steps[indices[-1]]
        frame = _decorated_call(failing) or place(failing.user_frame)
        return Verdict(
            id=entry_id,
            rule=rule,
            title=known.get("title") or CUSTOM_GRADIENT_FALLBACK["title"],
            summary=sentence,
            cause=known.get("cause"),
            fix=known.get("fix") or CUSTOM_GRADIENT_FALLBACK["fix"],
            chain=indices,
            user_frame=frame,
            findings=findings_at(frame, root, rule),
        )
    if explanation is None or entry is None or _generic(entry):
        return _pitfall(result, root) or _unrecognised(result.exception, root)
    rule = _text(explanation, "rule")
    frame = (_recomputed_method(result.steps) if entry == RECOMPUTE_METHOD_ENTRY else None)
    if frame is not None:  # the decorator on `call`, not the `fit` that ran the backward pass
        findings = findings_at(frame, root, rule)
    else:
        frame = place(_frame_dict(explanation.user_frame))
        findings = [finding.to_dict() for finding in explanation.findings]
    summary = _text(explanation, "summary") or result.exception.message
    if entry == VARIABLE_PER_CALL_ENTRY:
        summary = _variables_per_call(frame)
    return Verdict(
        id=entry,
        rule=rule,
        title=_text(explanation, "title") or result.exception.type,
        summary=summary,
        cause=_text(explanation, "cause"),
        fix=_text(explanation, "fix"),
        user_frame=frame,
        findings=findings,
    )


def _generic(entry_id: str) -> bool:
    """Whether the catalogue's entry only says where the error happened, not what it is
    ("An op failed while the graph was running")."""
    try:
        from tf_insight.explain.catalogue import get_entry
    except ImportError:
        return False
    found = get_entry(entry_id)
    return bool(found is not None and found.generic)


def _pitfall(result: TraceResult, root: Path | None) -> Verdict | None:
    """A failure the run itself explains, which the traceback alone does not: a distributed
    step whose first call created variables (TF traced `fn_with_cond` for it)."""
    exception = result.exception
    if exception is None or PLACEHOLDER_FEED not in exception.message or not any(
            entry["function"] == "fn_with_cond" for entry in result.functions):
        return None
    frame = _deepest_user_frame(exception)
    message = next(line[line.index(PLACEHOLDER_FEED):].strip()
                   for line in exception.message.splitlines() if PLACEHOLDER_FEED in line)
    return Verdict(
        id=None,
        rule=None,
        title=VARIABLES_IN_DISTRIBUTED_STEP["title"],
        summary=VARIABLES_IN_DISTRIBUTED_STEP["summary"].format(message=message),
        cause=VARIABLES_IN_DISTRIBUTED_STEP["cause"],
        fix=VARIABLES_IN_DISTRIBUTED_STEP["fix"],
        user_frame=frame,
        findings=findings_at(frame, root, None),
    )


def _unrecognised(exception: ExceptionRecord, root: Path | None) -> Verdict:
    """A failure that is no hazard known here: said so, at the deepest line of the user's in
    the traceback, with no fix to guess."""
    frame = _deepest_user_frame(exception)
    name = exception.type.rpartition(".")[2]
    where = ("the deepest line of yours in the traceback is shown" if frame
             else "no line of yours is in the traceback")
    return Verdict(
        id=None,
        rule=None,
        title=f"{name}: not a graph-mode hazard TF Insight knows",
        summary=f"{_gist(exception.message)} ({where})",
        user_frame=frame,
        findings=findings_at(frame, root, None),
    )


def _gist(message: str) -> str:
    """The line of a message that says what failed: not TF's headers ("Graph execution
    error:", "Detected at node … defined at", "2 root error(s) found."), nor its frames."""
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    for line in lines:
        if not (line.endswith(":") or line.startswith(("File ", "Detected at node", "[["))
                or _ROOT_ERRORS.fullmatch(line)):
            return line
    return lines[0] if lines else ""


def _deepest_user_frame(exception: ExceptionRecord) -> VerdictFrame | None:
    """The innermost frame of the user's code in the exception's traceback (the last one
    printed, when exceptions are chained), not in the text of its message."""
    text = exception.traceback.rpartition(TRACEBACK_HEADER)[2]
    ending = re.search(r"^\S", text, re.MULTILINE)  # the exception's own line
    frames = [found for found in _FRAME.finditer(text[:ending.start()] if ending else text)
              if not is_library_path(found["path"])]
    if not frames:
        return None
    last = frames[-1]
    return place({"path": last["path"], "line": int(last["line"]),
                  "function": last["function"].strip()})


def _variables_per_call(frame: VerdictFrame | None) -> str:
    """TFI008 as the run shows it: the second trace of the first call fails."""
    function = (f"`{frame['function']}`" if frame and frame["function"] != "<module>"
                else "The `tf.function`")
    return (f"{function} creates a `tf.Variable` each time its Python runs. TF traces a first "
            "call that creates variables a second time, to check that it creates none then, "
            "and that second trace, still in the first call, created another.")


def _decorated_call(step: Step) -> VerdictFrame | None:
    """Where the user's function that `tf.custom_gradient` wraps is defined (its
    decorator's line), when the user wrote it (a layer's decorated `call`)."""
    for link in step.call_fn["chain"] if step.call_fn else []:
        path = link.get("path", "")
        if link["kind"] in ("bound method", "function") and path and not is_library_path(path):
            return place({"path": path, "line": link.get("line", 0),
                          "function": _function_name(link)})
    return None


def _recomputed_method(steps: list[Step]) -> VerdictFrame | None:
    """Where a method wrapped by `tf.recompute_grad` is defined (its decorator's line)."""
    for step in steps:
        links = step.call_fn["chain"] if step.call_fn else []
        kinds = [link["kind"] for link in links]
        if "tf.recompute_grad wrapper" not in kinds:
            continue
        for inner in links[kinds.index("tf.recompute_grad wrapper") + 1:]:
            path = inner.get("path", "")
            if path and not is_library_path(path) and "." in _function_name(inner):
                return place({"path": path, "line": inner.get("line", 0),
                              "function": _function_name(inner)})
    return None


def _function_name(link: Link) -> str:
    """`Block.call` from a function's repr `<function Block.call at 0x…>`."""
    text = link["repr"]
    return text.removeprefix("<function ").split(" at 0x")[0]


def _frame_dict(frame: Any) -> UserFrame | None:
    """An explained traceback's frame (`tf_insight.explain.model.Frame`) as a user frame."""
    if frame is None:
        return None
    return {"path": frame.path, "line": frame.line, "function": frame.function,
            "source": frame.code}


def custom_gradient_chain(steps: list[Step]) -> tuple[list[int], str, str, str] | None:
    """(step indices, sentence, catalogue id, layer type) from the Keras call to the
    `_graph_mode_decorator` that rejected keyword arguments, or None."""
    failing = next(
        (s for s in reversed(steps) if s.probe == GRAPH_MODE_DECORATOR and s.kwargs), None
    )
    if failing is None:
        return None
    layer: Layer | None = failing.layer
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
    if "scratch_graph" in graph:  # `sequential_scratch_graph`, `scratch_graph_2`, …
        graph_text += ", while building the functional model"
    kwargs = ", ".join(f"`{name}={value!r}`" for name, value in failing.kwargs.items())
    owner = f"`{layer['class']}.call`" if layer else "A `tf.custom_gradient` function"
    sentence = (
        f"{owner} was {_wrapping(keras_call or failing, layer)}, "
        f"{'Keras' if layer else 'its caller'} called it in graph mode ({graph_text}) "
        f"with {kwargs} → `_graph_mode_decorator` rejects keyword args"
    )
    entry_id = REMAT_ENTRY if layer and layer.get("remat") else CUSTOM_GRADIENT_ENTRY
    return chain, sentence, entry_id, layer["class"] if layer else "Layer"


def _wrapping(step: Step, layer: Layer | None) -> str:
    kinds = [link["kind"] for link in step.call_fn["chain"]] if step.call_fn else []
    remat = layer.get("remat") if layer else None
    if "tf.recompute_grad wrapper" in kinds:
        via = f", applied by `RematScope(mode={remat!r})`" if remat else ""
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


def _explain(exception: ExceptionRecord, root: Path | None) -> Any:
    """The explain engine's answer, or None if that engine is unavailable or fails."""
    try:
        from tf_insight.explain import explain
    except ImportError:
        return None
    try:
        return explain(exception.traceback or f"{exception.type}: {exception.message}", root)
    except Exception:  # a verdict without the catalogue link beats no result at all
        return None


def _text(explanation: Any, name: str) -> str | None:
    value = getattr(explanation, name, None)
    return str(value) if value else None
