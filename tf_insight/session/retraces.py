"""Retrace explainer and trace-time side effects, from the debuggee's trace records and counters.

TensorFlow's retracing warning says *that* a function retraced; the trace records say *why*:
each one holds the argument signature TF keyed that trace on, so comparing consecutive traces
names the argument that changed (Python value 3→4, shape (2,)→(3,), dtype, a new object).
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Mapping
from itertools import pairwise

from tf_insight.explain.frames import is_library_path
from tf_insight.session.annotation import place_text
from tf_insight.session.debuggee.messages import (
    FunctionCount,
    LayerRun,
    SignatureEntry,
    SummaryEvent,
    TraceEvent,
    UserFrame,
)
from tf_insight.session.model import Retrace, SideEffect, Step, TraceResult

Change = tuple[str, str, str]  # (argument, cause, how it changed)


def fill_retraces(
    result: TraceResult,
    steps: list[Step],
    traces: list[TraceEvent],
    summary: SummaryEvent | None,
) -> None:
    """Fill `result.steps`, `result.retraces` and `result.side_effects` (`summary`: the
    counters, None when the debuggee sent none)."""
    result.steps = steps
    functions = {entry["id"]: entry for entry in summary["functions"]} if summary else {}
    result.retraces = explain_retraces(traces, functions)
    result.side_effects = side_effects(summary["layer_runs"] if summary else [], functions)


def explain_retraces(
    traces: list[TraceEvent], functions: Mapping[str, FunctionCount]
) -> list[Retrace]:
    """One `Retrace` per tf.function object traced more than once. A library's function
    (Keras's train step, tf.data's) only when an argument of the user's changed its key."""
    by_function: dict[str, list[TraceEvent]] = defaultdict(list)
    for record in traces:
        by_function[record["id"]].append(record)
    retraces: list[Retrace] = []
    for key, records in by_function.items():
        records.sort(key=lambda record: record["index"])
        entry = functions.get(key)
        # A first call that creates variables is traced twice (once to create them, once to
        # run without creating any): that second trace is no retrace.
        for_variables = sum(_for_variables(previous, current)
                            for previous, current in pairwise(records))
        count = max(entry["traces"] if entry else 0, len(records)) - for_variables
        if count < 2:
            continue
        reasons: list[str] = []
        first_change: Change | None = None
        for previous, current in pairwise(records):
            if _for_variables(previous, current):
                continue
            changes = argument_changes(previous["signature"], current["signature"])
            first_change = first_change or (changes[0] if changes else None)
            reasons.append(f"trace {current['index']}{_site(current['user_frame'])}: "
                           f"{_describe(changes)}")
        first = records[0]
        if is_library_path(first["path"]) and first_change is None:
            continue  # the library's own business: no argument of the user's changed
        if count > len(records):
            reasons.append(f"… {count - len(records)} more traces (arguments not recorded)")
        retraces.append(
            Retrace(
                function=first["function"],
                context=first["context"],
                path=first["path"],
                line=first["line"],
                count=count,
                reasons=reasons,
                call_site=records[-1]["user_frame"],
                cell=first.get("cell"),
                id=key,
                calls=entry["calls"] if entry else None,
                cause=first_change[1] if first_change else None,
                argument=first_change[0] if first_change else None,
            )
        )
    return retraces


def _for_variables(previous: TraceEvent, current: TraceEvent) -> bool:
    """`current` is TF's trace again after a first trace that created variables."""
    return (previous["scope"] == "VARIABLE_CREATION"
            and current["scope"] == "NO_VARIABLE_CREATION"
            and not argument_changes(previous["signature"], current["signature"]))


def _site(frame: UserFrame | None) -> str:
    """Where the user's code made the call that traced: ` (train.py:12)`."""
    if not frame:
        return ""
    return f" ({place_text(os.path.basename(frame['path']), frame['line'], frame.get('cell'))})"


def describe_change(before: Mapping[str, SignatureEntry],
                    after: Mapping[str, SignatureEntry]) -> str:
    """What differs between two trace signatures, argument by argument."""
    return _describe(argument_changes(before, after))


def _describe(changes: list[Change]) -> str:
    if not changes:
        return ("the same arguments as for the trace before: what changed is not in them "
                "(a captured value, or the graph or device the call ran in)")
    return "; ".join(text for _name, _cause, text in changes)


def argument_changes(before: Mapping[str, SignatureEntry],
                     after: Mapping[str, SignatureEntry]) -> list[Change]:
    """The arguments whose trace key changed. Where TF's own trace type was recorded it
    decides (three iterators with one element spec are one key); else our view of them."""
    changes: list[Change] = []
    for name in list(before) + [n for n in after if n not in before]:
        old, new = before.get(name), after.get(name)
        if old is None:
            changes.append((name, "type", f"argument `{name}` added"))
        elif new is None:
            changes.append((name, "type", f"argument `{name}` removed"))
        elif "tf_type" in old and "tf_type" in new:
            if old["tf_type"] != new["tf_type"]:
                cause, text = _difference(old, new)
                changes.append((name, cause, f"`{name}`: {text}"))
        elif old != new:
            cause, text = _difference(old, new)
            changes.append((name, cause, f"`{name}`: {text}"))
    return changes


def _difference(old: SignatureEntry, new: SignatureEntry) -> tuple[str, str]:
    if old["kind"] != new["kind"] or old.get("type") != new.get("type"):
        return "type", f"{_kind(old)} → {_kind(new)}"
    if old["kind"] == "tensor":
        parts = []
        if old["shape"] != new["shape"]:
            parts.append(f"shape {old['shape']}→{new['shape']}")
        if old["dtype"] != new["dtype"]:
            parts.append(f"dtype {old['dtype']}→{new['dtype']}")
        return ("shape" if old["shape"] != new["shape"] else "dtype"), ", ".join(parts)
    if old["kind"] == "python":
        return "python value", f"Python {old['type']} value {old['value']!r}→{new['value']!r}"
    if "tf_type" in old:
        return "object", f"{old['tf_type']} → {new['tf_type']}"
    return "object", f"a new Python {old['type']} object (tf.function keys on its identity)"


def _kind(entry: SignatureEntry) -> str:
    if entry["kind"] == "tensor":
        return f"Tensor {entry['shape']} {entry['dtype']}"
    return f"Python {entry.get('type')}"


def side_effects(
    layer_runs: list[LayerRun], functions: Mapping[str, FunctionCount]
) -> list[SideEffect]:
    """Per layer object: how often its Python `call` ran, by phase, against how often the
    traced graph ran; per user tf.function object: Python traces against graph runs."""
    per_layer: dict[int, list[LayerRun]] = defaultdict(list)
    for run in layer_runs:
        per_layer[int(run["id"])].append(run)
    labels = _layer_labels(per_layer)
    effects: list[SideEffect] = []
    for layer_id, runs in per_layer.items():
        phases: list[str] = []
        traced: tuple[str, int] | None = None
        outran = False
        counts: dict[str, int] = defaultdict(int)  # one phase per function, whatever the graph
        for run in runs:
            counts[str(run["function"])] += int(run["count"])
        for function, count in counts.items():
            entry = functions.get(function)
            if function == "model construction":
                phases.append(f"{count}× building the model")
            elif function == "eager":
                phases.append(f"{count}× eagerly")
            elif entry is None:
                phases.append(f"{count}× in a graph no tf.function runs (Keras builds it once "
                              "to infer shapes)")
            elif entry.get("runner") == "tf.data":
                phases.append(f"{count}× tracing `{entry['function']}` (it runs inside the "
                              "tf.data pipeline, per element)")
            else:
                graph_runs = int(entry.get("runs", 0))
                phases.append(f"{count}× tracing `{entry['function']}` " + (
                    f"(its graph then ran {graph_runs}×)" if graph_runs
                    else "(its graph never ran)"))
                traced = traced or (str(entry["function"]), graph_runs)
                # The graph ran more often than the Python traced into it.
                outran = outran or graph_runs > count
        total = sum(int(run["count"]) for run in runs)
        subject = f"{runs[0]['layer']}.call (layer {labels[layer_id]})"
        summary = f"{subject}: Python ran {total}×: {', '.join(phases)}."
        if outran:
            summary += " print() and other Python side effects run at trace time, not per step."
        effects.append(
            SideEffect(
                subject,
                total,
                traced[0] if traced else None,
                traced[1] if traced else None,
                summary,
            )
        )
    for entry in functions.values():
        traces, graph_runs = int(entry.get("traces", 0)), int(entry.get("runs", 0))
        if traces and not is_library_path(str(entry["path"])):
            where = place_text(os.path.basename(str(entry["path"])), entry["line"],
                               entry.get("cell"))
            ran = ("it runs inside the tf.data pipeline" if entry.get("runner") == "tf.data"
                   else f"the graph ran {graph_runs}×" if graph_runs else "the graph never ran")
            effects.append(
                SideEffect(
                    f"tf.function {entry['function']}",
                    traces,
                    str(entry["function"]),
                    None if entry.get("runner") else graph_runs,
                    f"tf.function `{entry['function']}` ({where}): Python traced {traces}×, "
                    f"{ran}.",
                    str(entry["path"]),
                    int(entry["line"]),
                    entry.get("cell"),
                )
            )
    return effects


def _layer_labels(per_layer: Mapping[int, list[LayerRun]]) -> dict[int, str]:
    """`'dense'`, or `'dense' #2` for the second of two layer objects with one name."""
    seen: dict[tuple[str, str], int] = defaultdict(int)
    labels: dict[int, str] = {}
    for layer_id, runs in per_layer.items():
        key = (str(runs[0]["layer"]), str(runs[0]["name"]))
        seen[key] += 1
        labels[layer_id] = f"'{key[1]}'" + (f" #{seen[key]}" if seen[key] > 1 else "")
    return labels
