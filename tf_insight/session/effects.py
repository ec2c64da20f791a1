"""Trace-time side effects: how often Python ran against how often the graph ran, per layer
object and per function of the user's that a trace runs (a tf.function, a Keras model's own
`train_step`/`test_step`, a `Dataset.map` function).

A `print`, a counter or a list append in that Python happens once per trace, while the graph
runs once per step: a graph that ran more often than its Python is where such a side effect
goes missing (`verdict.py` then looks for one in the function's body).
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Mapping

from tf_insight.session.annotation import place_text
from tf_insight.session.debuggee.messages import FunctionCount, LayerRun, UserFunction
from tf_insight.session.model import SideEffect

PIPELINE = "tf.data"


def side_effects(layer_runs: list[LayerRun],
                 functions: Mapping[str, FunctionCount]) -> list[SideEffect]:
    """Per layer object, then per function of the user's (`functions`: by id)."""
    return [*_layer_effects(layer_runs, functions), *_function_effects(functions)]


def graph_runs(entry: FunctionCount, functions: Mapping[str, FunctionCount]) -> int | None:
    """How often the graph that holds `entry`'s trace ran: its own runs, else those of the
    functions whose traces traced it (a tf.function called inside another); None: it runs
    inside a tf.data pipeline, per element."""
    if entry["runner"] == PIPELINE:
        return None
    if entry["runs"] or not entry["inside"]:
        return entry["runs"]
    return sum(functions[outer]["runs"] for outer in entry["inside"] if outer in functions)


def function_name(entry: FunctionCount) -> str:
    """`` `train_step` ``, or `` `multi_step_on_iterator` running train_step `` for a Keras
    function (train, test and predict share a name)."""
    context = entry["context"]
    return f"`{entry['function']}`" + (
        f" {context}" if context and context.startswith("running ") else "")


def _layer_effects(layer_runs: list[LayerRun],
                   functions: Mapping[str, FunctionCount]) -> list[SideEffect]:
    per_layer: dict[int, list[LayerRun]] = defaultdict(list)
    for run in layer_runs:
        per_layer[run["id"]].append(run)
    labels = _layer_labels(per_layer)
    effects: list[SideEffect] = []
    for layer_id, runs in per_layer.items():
        phases: list[str] = []
        traced: tuple[str, int] | None = None
        outran = False
        counts: dict[str, int] = defaultdict(int)  # one phase per function, whatever the graph
        for run in runs:
            counts[run["function"]] += run["count"]
        for function, count in counts.items():
            entry = functions.get(function)
            if function == "model construction":
                phases.append(f"{count}× building the model")
            elif function == "eager":
                phases.append(f"{count}× eagerly")
            elif entry is None:
                phases.append(f"{count}× in a graph no tf.function runs (Keras builds it once "
                              "to infer shapes)")
            elif entry["runner"] == PIPELINE:
                phases.append(f"{count}× tracing {function_name(entry)} (it runs inside the "
                              "tf.data pipeline, per element)")
            else:
                ran = graph_runs(entry, functions) or 0
                phases.append(f"{count}× tracing {function_name(entry)} " + (
                    f"(its graph then ran {ran}×)" if ran else "(its graph never ran)"))
                traced = traced or (entry["function"], ran)
                outran = outran or ran > count  # the graph ran more often than its Python
        total = sum(run["count"] for run in runs)
        subject = f"{runs[0]['layer']}.call (layer {labels[layer_id]})"
        summary = f"{subject}: Python ran {total}×: {', '.join(phases)}."
        if outran:
            summary += " print() and other Python side effects run at trace time, not per step."
        call = runs[0]["call"]
        effects.append(SideEffect(subject, total, traced[0] if traced else None,
                                  traced[1] if traced else None, summary,
                                  call["path"] if call else None,
                                  call["line"] if call else None))
    return effects


def _function_effects(functions: Mapping[str, FunctionCount]) -> list[SideEffect]:
    """One per function of the user's that traces ran: its traces against the graph's runs."""
    by_user: dict[tuple[str, int], list[FunctionCount]] = defaultdict(list)
    users: dict[tuple[str, int], UserFunction] = {}
    for entry in functions.values():
        user = entry["user_function"]
        if user is not None and entry["traces"]:
            by_user[(user["path"], user["line"])].append(entry)
            users[(user["path"], user["line"])] = user
    effects = []
    for place, entries in by_user.items():
        user, first = users[place], entries[0]
        traces = sum(entry["traces"] for entry in entries)
        ran = [graph_runs(entry, functions) for entry in entries]
        runs = None if None in ran else sum(r or 0 for r in ran)
        own = (first["path"], first["line"]) == place  # a tf.function of the user's
        where = place_text(os.path.basename(user["path"]), user["line"], first.get("cell"))
        if runs is None:
            graph = "it runs inside the tf.data pipeline, per element"
        elif not runs:
            graph = "the graph never ran"
        elif own and not first["runs"] and first["inside"]:
            outer = ", ".join(function_name(functions[i]) for i in first["inside"]
                              if i in functions)
            graph = f"inside the graph of {outer}, which ran {runs}×"
        else:
            graph = f"the graph ran {runs}×"
        if own:
            subject = f"tf.function {first['function']}"
            summary = f"tf.function `{first['function']}` ({where}): Python traced {traces}×, "
        else:
            subject = f"`{user['name']}`"
            how = (f" (traced into {function_name(first)})" if runs is not None else "")
            summary = f"`{user['name']}` ({where}): Python ran {traces}×{how}, "
        effects.append(SideEffect(subject, traces, first["function"], runs, summary + graph + ".",
                                  user["path"], user["line"], first.get("cell"),
                                  runner=first["runner"]))
    return effects


def _layer_labels(per_layer: Mapping[int, list[LayerRun]]) -> dict[int, str]:
    """`'dense'`, or `'dense' #2` for the second of two layer objects with one name."""
    seen: dict[tuple[str, str], int] = defaultdict(int)
    labels: dict[int, str] = {}
    for layer_id, runs in per_layer.items():
        key = (runs[0]["layer"], runs[0]["name"])
        seen[key] += 1
        labels[layer_id] = f"'{key[1]}'" + (f" #{seen[key]}" if seen[key] > 1 else "")
    return labels
