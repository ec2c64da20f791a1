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
from typing import Any

from tf_insight.explain.frames import is_library_path
from tf_insight.session.model import Retrace, SideEffect, Step, TraceResult

FunctionKey = tuple[str, str, int]


def fill_retraces(
    result: TraceResult,
    steps: list[Step],
    traces: list[dict[str, Any]],
    summary: Mapping[str, Any],
) -> None:
    """Fill `result.steps`, `result.retraces` and `result.side_effects`."""
    result.steps = steps
    functions = {_key(entry): entry for entry in summary.get("functions", [])}
    result.retraces = explain_retraces(traces, functions)
    result.side_effects = side_effects(summary.get("layer_runs", []), functions)


def _key(record: Mapping[str, Any]) -> FunctionKey:
    return (str(record["function"]), str(record["path"]), int(record["line"]))


def explain_retraces(
    traces: list[dict[str, Any]], functions: Mapping[FunctionKey, Mapping[str, Any]]
) -> list[Retrace]:
    """One `Retrace` per function traced more than once."""
    by_function: dict[FunctionKey, list[dict[str, Any]]] = defaultdict(list)
    for record in traces:
        by_function[_key(record)].append(record)
    retraces: list[Retrace] = []
    for key, records in by_function.items():
        records.sort(key=lambda record: int(record["index"]))
        count = max(int(functions.get(key, {}).get("traces", 0)), len(records))
        if count < 2:
            continue
        reasons = [
            f"trace {current['index']}{_site(current.get('user_frame'))}: "
            f"{describe_change(previous['signature'], current['signature'])}"
            for previous, current in pairwise(records)
        ]
        if count > len(records):
            reasons.append(f"… {count - len(records)} more traces (arguments not recorded)")
        retraces.append(
            Retrace(
                function=key[0],
                path=key[1],
                line=key[2],
                count=count,
                reasons=reasons,
                call_site=records[-1].get("user_frame"),
            )
        )
    return retraces


def _site(frame: Mapping[str, Any] | None) -> str:
    """Where the user's code made the call that traced: ` (train.py:12)`."""
    if not frame:
        return ""
    return f" ({os.path.basename(str(frame['path']))}:{frame['line']})"


def describe_change(before: Mapping[str, Any], after: Mapping[str, Any]) -> str:
    """What differs between two trace signatures, argument by argument."""
    changes: list[str] = []
    for name in list(before) + [n for n in after if n not in before]:
        old, new = before.get(name), after.get(name)
        if old is None:
            changes.append(f"argument `{name}` added")
        elif new is None:
            changes.append(f"argument `{name}` removed")
        elif old != new:
            changes.append(f"`{name}`: {_difference(old, new)}")
    if not changes:
        return (
            "same argument signature (a new tf.function object, changed captures or "
            "variables created on the first trace)"
        )
    return "; ".join(changes)


def _difference(old: Mapping[str, Any], new: Mapping[str, Any]) -> str:
    if old["kind"] != new["kind"] or old.get("type") != new.get("type"):
        return f"{_kind(old)} → {_kind(new)}"
    if old["kind"] == "tensor":
        parts = []
        if old["shape"] != new["shape"]:
            parts.append(f"shape {old['shape']}→{new['shape']}")
        if old["dtype"] != new["dtype"]:
            parts.append(f"dtype {old['dtype']}→{new['dtype']}")
        return ", ".join(parts)
    if old["kind"] == "python":
        return f"Python {old['type']} value {old['value']!r}→{new['value']!r}"
    return f"a new Python {old['type']} object (tf.function keys on its identity)"


def _kind(entry: Mapping[str, Any]) -> str:
    if entry["kind"] == "tensor":
        return f"Tensor {entry['shape']} {entry['dtype']}"
    return f"Python {entry.get('type')}"


def side_effects(
    layer_runs: list[Mapping[str, Any]], functions: Mapping[FunctionKey, Mapping[str, Any]]
) -> list[SideEffect]:
    """Per layer: how often its Python `call` ran, by phase, against how often the traced
    graph ran; per user tf.function: Python traces against graph runs."""
    calls_by_name: dict[str, int] = defaultdict(int)
    for key, entry in functions.items():
        calls_by_name[key[0]] += int(entry.get("calls", 0))
    per_layer: dict[tuple[str, str], list[Mapping[str, Any]]] = defaultdict(list)
    for run in layer_runs:
        per_layer[(str(run["layer"]), str(run["name"]))].append(run)
    effects: list[SideEffect] = []
    for (layer, name), runs in per_layer.items():
        phases: list[str] = []
        traced: tuple[str, int] | None = None
        for run in runs:
            function, count = str(run["function"]), int(run["count"])
            if function == "model construction":
                phases.append(f"{count}× building the model")
            elif function == "eager":
                phases.append(f"{count}× eagerly")
            else:
                calls = calls_by_name.get(function, 0)
                phases.append(f"{count}× tracing `{function}` (its graph then ran {calls}×)")
                traced = traced or (function, calls)
        total = sum(int(run["count"]) for run in runs)
        subject = f"{layer}.call (layer '{name}')"
        summary = f"{subject}: Python ran {total}×: {', '.join(phases)}."
        if traced is not None and traced[1] > total:
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
    for key, entry in functions.items():
        traces, calls = int(entry.get("traces", 0)), int(entry.get("calls", 0))
        if traces and not is_library_path(key[1]):
            effects.append(
                SideEffect(
                    f"tf.function {key[0]}",
                    traces,
                    key[0],
                    calls,
                    f"tf.function `{key[0]}` ({key[1]}:{key[2]}): Python traced {traces}×, "
                    f"the graph ran {calls}×.",
                )
            )
    return effects
