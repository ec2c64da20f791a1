"""The verdict on a run that raised nothing: a function of the user's that retraced on a
Python value or on new shapes, a side effect that ran at trace time only, or a graph that kept
a module-level value after it changed. None when the run showed none of these (a short last
batch's one more trace is a note of the retrace, not a hazard)."""

from __future__ import annotations

from pathlib import Path

from tf_insight.explain.frames import is_library_path
from tf_insight.findings import Finding
from tf_insight.session.debuggee.messages import StaleGlobal, UserFrame
from tf_insight.session.lines import (
    CheckedFiles,
    FunctionNode,
    findings_at,
    first_read,
    first_store,
    place,
)
from tf_insight.session.model import Retrace, SideEffect, TraceResult, Verdict

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
        "{signature}`@tf.function(reduce_retracing=True)` to let TF generalise the shapes.",
    ),
    "object": (
        "`{function}` retraced for each new Python object it is given",
        "tf.function keys a plain Python object on its identity: pass the tensors it holds "
        "instead, or create the object once outside the loop.",
    ),
}
SIGNATURE_FIX = ("Give `{function}` an `input_signature` with `None` for the dimensions that "
                 "vary (`@tf.function({signature})`), or ")
PRINT_FIX = ("Use `tf.print` for what should happen on every call (it is a graph op); keep "
             "Python `print`, logging and file writes for what tracing should report, or move "
             "them out of the function.")
COUNTER_FIX = ("Keep what must change at every step in the graph: a `tf.Variable` (created once, "
               "in `__init__` or `build`) that `call` updates with `assign_add`; a Python "
               "attribute changes only when the function is traced.")
STALE_FIX = ("Make the value an input of the graph: pass it as an argument (a tensor, e.g. "
             "`tf.constant({name})`), or keep it in a `tf.Variable` and `{name}_var.assign(...)` "
             "the new value; a Python global is read once, when the function is traced.")


def completed_run_verdict(result: TraceResult, root: Path | None) -> Verdict | None:
    """The hazard a run that raised nothing showed, in this order: retraces, trace-time side
    effects, stale globals; None for a clean run."""
    retrace = next((r for r in result.retraces if r.cause in RETRACE_FIXES
                    and r.expected is None and not is_library_path(r.path)), None)
    if retrace is not None:
        return _retrace_verdict(retrace, root)
    checked = CheckedFiles()
    for effect in result.side_effects:
        verdict = _side_effect_verdict(effect, checked, result)
        if verdict is not None:
            return verdict
    stale = sorted(result.stale_globals, key=lambda use: -use["runs"])
    return _stale_global_verdict(stale[0], checked, root) if stale else None


def _retrace_verdict(retrace: Retrace, root: Path | None) -> Verdict:
    prefix = f"`{retrace.argument}`: "
    changes = [reason.split(": ", 1)[-1].removeprefix(prefix) for reason in retrace.reasons
               if ": " in reason]
    shown = "; ".join(changes[:3]) + ("; …" if len(changes) > 3 else "")
    runs = f" in {retrace.calls} calls" if retrace.calls is not None else ""
    again = (" (and once more on its first call, which created variables)"
             if retrace.variable_traces else "")
    title, fix = RETRACE_FIXES[str(retrace.cause)]
    frame = place(retrace.call_site)
    rule = "TFI004" if retrace.cause == "python value" else None
    signature = (SIGNATURE_FIX.format(function=retrace.function,
                                      signature=retrace.input_signature)
                 if retrace.input_signature else "Use ")
    return Verdict(
        id="retracing-warning",
        rule=rule,
        title=title.format(function=retrace.function),
        summary=(f"`{retrace.function}` was traced {retrace.count}×{runs}{again}, each time "
                 f"for a new `{retrace.argument}`: {shown}"),
        fix=fix.format(argument=retrace.argument, function=retrace.function,
                       signature=signature),
        user_frame=frame,
        findings=findings_at(frame, root, rule),
    )


def _side_effect_verdict(effect: SideEffect, checked: CheckedFiles,
                         result: TraceResult) -> Verdict | None:
    """A function of the user's whose graph ran more often than its Python (or per element,
    in a tf.data pipeline), with a Python side effect in its body: one the static check
    calls a trace-time side effect (TFI006), a `print` of a tensor that ran while the graph
    was traced, or a number attribute of the layer that its traces changed (a counter). It
    happened once per trace, not once per call."""
    per_element = effect.runner == "tf.data"
    calls = effect.function_calls or 0
    if effect.path is None or effect.line is None or effect.cell:
        return None  # (a notebook's functions: the static check reads the notebook instead)
    if not per_element and calls <= effect.python_runs:
        return None
    node = checked.function_at(effect.path, effect.line)
    if node is None:
        return None
    found = _side_effect_in(node, effect, checked, result)
    if found is None:
        return None
    line, runs, static = found
    frame = place({"path": effect.path, "line": line, "function": node.name})
    what = f"`{(frame['source'] if frame else None) or 'its side effect'}`"
    if per_element:
        summary = (f"`{node.name}` runs in the tf.data pipeline once per element, but its Python "
                   f"was traced {effect.python_runs}×, so {what} ran {runs}×, not once per "
                   "element")
    else:
        python = ("ran in Python" if "(layer " in effect.subject else "was traced")
        summary = (f"`{node.name}` {python} {effect.python_runs}× and its graph ran {calls}×, "
                   f"so {what} ran {runs}×, not once per call")
    return Verdict(
        id=None,
        rule="TFI006",
        title=f"Python side effects in `{node.name}` ran at trace time only",
        summary=summary,
        fix=PRINT_FIX if "print" in what else COUNTER_FIX,
        user_frame=frame,
        findings=([finding.to_dict() for finding in static] if static
                  else checked.findings_on(effect.path, line)),
    )


def _side_effect_in(node: FunctionNode, effect: SideEffect, checked: CheckedFiles,
                    result: TraceResult) -> tuple[int, int, list[Finding]] | None:
    """(line, how often it ran, the static findings) of the side effect in `node`: a counter
    ran as often as its layer's traces changed it (under `if training:`, not in every run of
    the layer's Python)."""
    assert effect.path is not None
    writes: dict[int, int] = {}  # the line that stores a changed attribute → its changes
    for write in result.attribute_writes:
        line = first_store(node, write["name"]) if (
            write["call"]["path"], write["call"]["line"]) == (effect.path, effect.line) else None
        if line is not None:
            writes.setdefault(line, write["count"])
    static = checked.findings_in(effect.path, node, "TFI006")
    if static:
        line = static[0].span.line
        return line, writes.get(line, effect.python_runs), static
    end = node.end_lineno or node.lineno
    for found in result.prints:
        if found["tensors"] and found["path"] == effect.path and (
                node.lineno <= found["line"] <= end):
            return found["line"], found["count"], []
    if writes:
        line, count = next(iter(writes.items()))
        return line, count, []
    return None


def _stale_global_verdict(stale: StaleGlobal, checked: CheckedFiles,
                          root: Path | None) -> Verdict | None:
    """A graph that ran on after a module-level value it was traced with had changed."""
    reader, name = stale["reader"], stale["name"]
    node = checked.function_at(reader["path"], reader["line"])
    line = (first_read(node, name) if node is not None else None) or reader["line"]
    function = reader["name"].rpartition(".")[2]
    where: UserFrame = {"path": reader["path"], "line": line, "function": function}
    if reader.get("cell"):
        where["cell"] = reader.get("cell")
    frame = place(where)
    return Verdict(
        id=None,
        rule="TFI003",
        title=f"`{function}` kept the value `{name}` had when it was traced",
        summary=(f"`{function}` read the global `{name}` = {stale['traced']} while it was "
                 f"traced; its graph then ran {stale['runs']}× after `{name}` had changed "
                 f"(to {stale['now']}), still computing with {stale['traced']}"),
        fix=STALE_FIX.format(name=name),
        user_frame=frame,
        findings=findings_at(frame, root, "TFI003"),
    )
