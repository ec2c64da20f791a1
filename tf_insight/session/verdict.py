"""The verdict: the chain of probe steps that led to the failure, told in one sentence, linked
to the explain catalogue entry and rule, with its fix.

The explain engine reads only the printed traceback, which names the outermost Keras layer
and cannot see who wrapped `call`; the steps name the layer, the wrapper and the graph that
really failed, so they pick the catalogue entry when they can and tell the chain.
"""

from __future__ import annotations

import ast
import contextlib
import linecache
from pathlib import Path
from typing import Any

from tf_insight.explain.frames import is_library_path
from tf_insight.findings import Finding
from tf_insight.session.debuggee.messages import Layer, Link, UserFrame
from tf_insight.session.model import ExceptionRecord, Step, TraceResult, Verdict
from tf_insight.session.wire import VerdictFrame

GRAPH_MODE_DECORATOR = "custom_gradient._graph_mode_decorator"
REMAT_ENTRY = "remat-scope-keyword-arguments"
CUSTOM_GRADIENT_ENTRY = "custom-gradient-keyword-arguments"
RECOMPUTE_METHOD_ENTRY = "recompute-grad-on-method"
# Retrace cause → (title, fix) of the verdict on a completed run.
RETRACE_FIXES = {
    "python value": (
        "`{function}` retraced for each new Python value",
        "Pass `{argument}` as a tensor (`tf.constant(...)`, or a `tf.Variable` it reads), so "
        "one graph serves every value; keep Python values for what really changes the graph "
        "(a flag that picks a branch).",
    ),
    "shape": (
        "`{function}` retraced for each new input shape",
        "Give `{function}` an `input_signature` with `None` for the dimensions that vary "
        "(`@tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])`), or "
        "`@tf.function(reduce_retracing=True)` to let TF generalise the shapes.",
    ),
    "object": (
        "`{function}` retraced for each new Python object it is given",
        "tf.function keys a plain Python object on its identity: pass the tensors it holds "
        "instead, or create the object once outside the loop.",
    ),
}
CUSTOM_GRADIENT_FALLBACK = {
    "rule": "TFI001",
    "title": "`tf.custom_gradient` function called with keyword arguments in graph mode",
    "fix": "Call the decorated function with positional tensors only: decorate an inner "
    "function inside `call`, or keep `RematScope`/`tf.recompute_grad` away from layers "
    "that take `training`/`mask`.",
}


def build_verdict(result: TraceResult, root: Path | None = None) -> Verdict | None:
    """Why the script failed, or what hazard a completed run showed (a retrace on a Python
    value or new shapes); None for a clean run. `root`: the workspace, for static findings
    at the user's line."""
    if result.exception is None:
        return _retrace_verdict(result, root)
    explanation = _explain(result.exception, root)
    entry = _text(explanation, "id")
    chain = (custom_gradient_chain(result.steps)
             if entry in (None, CUSTOM_GRADIENT_ENTRY, REMAT_ENTRY) else None)
    if chain is not None:
        indices, sentence, entry_id, layer_type = chain
        known = _catalogue_entry(entry_id, layer_type)
        rule: str | None = known.get("rule") or CUSTOM_GRADIENT_FALLBACK["rule"]
        frame = _frame(result.steps[indices[-1]].user_frame)
        return Verdict(
            id=entry_id,
            rule=rule,
            title=known.get("title") or CUSTOM_GRADIENT_FALLBACK["title"],
            summary=sentence,
            cause=known.get("cause"),
            fix=known.get("fix") or CUSTOM_GRADIENT_FALLBACK["fix"],
            chain=indices,
            user_frame=frame,
            findings=_findings_at(frame, root, rule),
        )
    if explanation is None:
        first_line = (result.exception.message.strip().splitlines() or [""])[0]
        return Verdict(None, None, result.exception.type, first_line)
    rule = _text(explanation, "rule")
    frame = (_recomputed_method(result.steps) if entry == RECOMPUTE_METHOD_ENTRY else None)
    if frame is not None:  # the decorator on `call`, not the `fit` that ran the backward pass
        findings = _findings_at(frame, root, rule)
    else:
        frame = _frame(_frame_dict(explanation.user_frame))
        findings = [finding.to_dict() for finding in explanation.findings]
    return Verdict(
        id=entry,
        rule=rule,
        title=_text(explanation, "title") or result.exception.type,
        summary=_text(explanation, "summary") or result.exception.message,
        cause=_text(explanation, "cause"),
        fix=_text(explanation, "fix"),
        user_frame=frame,
        findings=findings,
    )


def _retrace_verdict(result: TraceResult, root: Path | None) -> Verdict | None:
    """A completed run whose own tf.function retraced on a Python value or on new shapes, or
    ran its graph more often than its Python side effects ran."""
    retrace = next((r for r in result.retraces
                    if r.cause in RETRACE_FIXES and not is_library_path(r.path)), None)
    if retrace is None:
        return _side_effect_verdict(result)
    prefix = f"`{retrace.argument}`: "
    changes = [reason.split(": ", 1)[-1].removeprefix(prefix) for reason in retrace.reasons
               if ": " in reason]
    shown = "; ".join(changes[:3]) + ("; …" if len(changes) > 3 else "")
    runs = f" in {retrace.calls} calls" if retrace.calls is not None else ""
    title, fix = RETRACE_FIXES[str(retrace.cause)]
    frame = _frame(retrace.call_site)
    rule = "TFI004" if retrace.cause == "python value" else None
    return Verdict(
        id="retracing-warning",
        rule=rule,
        title=title.format(function=retrace.function),
        summary=(f"`{retrace.function}` was traced {retrace.count}×{runs}, each time for a "
                 f"new `{retrace.argument}`: {shown}"),
        fix=fix.format(argument=retrace.argument, function=retrace.function),
        user_frame=frame,
        findings=_findings_at(frame, root, rule),
    )


def _side_effect_verdict(result: TraceResult) -> Verdict | None:
    """A tf.function of the user's whose graph ran more often than it was traced, with a
    Python side effect (TFI006) in its body: that `print` or write happened once per trace,
    not once per call, which the user rarely wants."""
    checked: dict[str, tuple[ast.Module | None, list[Finding]]] = {}  # a file is checked once
    for effect in result.side_effects:
        calls = effect.function_calls or 0
        if effect.path is None or effect.line is None or effect.cell or calls <= effect.python_runs:
            continue  # (a notebook's functions: the static check reads the notebook instead)
        if effect.path not in checked:
            checked[effect.path] = _checked(effect.path)
        findings = [f for f in _function_findings(*checked[effect.path], effect.line)
                    if f.code == "TFI006"]
        if not findings:
            continue
        first = findings[0]
        frame = _frame({"path": first.path, "line": first.span.line,
                        "function": str(effect.function)})
        return Verdict(
            id=None,
            rule="TFI006",
            title=f"Python side effects in `{effect.function}` ran at trace time only",
            summary=(f"`{effect.function}` was traced {effect.python_runs}× and its graph ran "
                     f"{calls}×, so `{(frame['source'] if frame else None) or 'its side effect'}` "
                     f"ran {effect.python_runs}×, not once per call"),
            fix=("Use `tf.print` for what should happen on every call (it is a graph op); keep "
                 "Python `print`, logging and file writes for what tracing should report, or "
                 "move them out of the function."),
            user_frame=frame,
            findings=[finding.to_dict() for finding in findings],
        )
    return None


def _checked(path: str) -> tuple[ast.Module | None, list[Finding]]:
    """A file's tree and static findings (none where it cannot be read)."""
    try:
        from tf_insight.check.analyzer import check_file
        from tf_insight.check.source import SourceFile
        return SourceFile.read(path).tree, check_file(path)
    except (ImportError, OSError):
        return None, []


def _function_findings(tree: ast.Module | None, findings: list[Finding],
                       line: int) -> list[Finding]:
    """The findings inside the function whose definition (first decorator) starts at `line`."""
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            if start == line:
                end = node.end_lineno or node.lineno
                return [f for f in findings if node.lineno <= f.span.line <= end]
    return []


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
                return _frame({"path": path, "line": inner.get("line", 0),
                               "function": _function_name(inner)})
    return None


def _function_name(link: Link) -> str:
    """`Block.call` from a function's repr `<function Block.call at 0x…>`."""
    text = link["repr"]
    return text.removeprefix("<function ").split(" at 0x")[0]


def _frame(frame: UserFrame | None) -> VerdictFrame | None:
    """A user frame with its source line, read from the file."""
    if not frame:
        return None
    path, line = frame["path"], frame["line"]
    source = frame.get("source") or linecache.getline(path, line).strip() or None
    placed: VerdictFrame = {"path": path, "line": line, "function": frame["function"],
                            "source": source}
    cell = frame.get("cell")
    if cell:
        placed["cell"] = cell
    return placed


def _frame_dict(frame: Any) -> UserFrame | None:
    """An explained traceback's frame (`tf_insight.explain.model.Frame`) as a user frame."""
    if frame is None:
        return None
    return {"path": frame.path, "line": frame.line, "function": frame.function,
            "source": frame.code}


def _findings_at(frame: VerdictFrame | None, root: Path | None,
                 rule: str | None) -> list[dict[str, Any]]:
    """Static findings at or near the user's line (and of the verdict's rule in that file)."""
    if frame is None:
        return []
    try:
        from tf_insight.explain.join import join_findings
        from tf_insight.explain.model import Frame
    except ImportError:
        return []
    where = Frame(path=frame["path"], line=frame["line"], function=frame["function"],
                  code=frame.get("source"), is_user=True)
    base = root or Path(frame["path"]).parent
    joined = join_findings([where], base, (rule,) if rule else ())
    return [finding.to_dict() for finding in joined.findings]


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
