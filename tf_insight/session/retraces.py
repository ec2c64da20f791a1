"""Retrace explainer, from the debuggee's trace records and counters.

TensorFlow's retracing warning says *that* a function retraced; the trace records say *why*:
each one holds the argument signature TF keyed that trace on, so comparing consecutive traces
names the argument that changed (Python value 3→4, shape (2,)→(3,), dtype, a new object).
Not every retrace is a hazard: TF traces a first call that creates variables twice, and a
short last batch is one more trace for its shape (TF itself warns only at 5 traces in 10
calls); those are said, never blamed.
"""

from __future__ import annotations

import os
import re
from collections import defaultdict
from collections.abc import Mapping
from itertools import pairwise

from tf_insight.explain.frames import is_library_path
from tf_insight.session.annotation import place_text
from tf_insight.session.debuggee.messages import (
    FunctionCount,
    SignatureEntry,
    TraceEvent,
    UserFrame,
)
from tf_insight.session.model import Retrace

Change = tuple[str, str, str]  # (argument, cause, how it changed)
Spec = tuple[tuple[int | None, ...] | None, str]  # (dims, None: unknown rank; dtype)
_TENSOR_SPEC = re.compile(r"TensorSpec\(shape=(\([^)]*\)|<unknown>), dtype=tf\.(\w+)")
REMAINDER_NOTE = (
    "one more trace for a short last batch (its first dimension {sizes}): normal, TF traces "
    "once per input shape; `drop_remainder=True` in `batch()`, or an `input_signature` with a "
    "`None` first dimension, avoids it"
)


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
        if count > len(records) - for_variables:
            reasons.append(f"… {count - len(records) + for_variables} more traces (arguments "
                           "not recorded)")
        kept = [r for i, r in enumerate(records) if not (i and _for_variables(records[i - 1], r))]
        complete = count == len(kept)  # every trace's arguments are known
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
                variable_traces=for_variables,
                expected=_remainder_batch(kept) if complete else None,
                input_signature=input_signature(kept) if complete else None,
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
        return _spec_difference(old.get("tf_type", ""), new.get("tf_type", ""))
    return "object", f"a new Python {old['type']} object (tf.function keys on its identity)"


def _spec_difference(old: str, new: str) -> tuple[str, str]:
    """Two trace types of a structure (a tuple, a distributed `PerReplica` value...): when
    only the shapes of the tensors inside differ, say which."""
    before, after = _TENSOR_SPEC.findall(old), _TENSOR_SPEC.findall(new)
    if (before and len(before) == len(after) and _TENSOR_SPEC.sub("", old) == _TENSOR_SPEC.sub(
            "", new) and all(a[1] == b[1] for a, b in zip(before, after, strict=True))):
        pairs = dict.fromkeys(f"{a[0]}→{b[0]}" for a, b in zip(before, after, strict=True)
                              if a[0] != b[0])
        return "shape", f"{_structure(old)} with shapes {', '.join(pairs)}"
    return "object", f"{old} → {new}"


def _structure(tf_type: str) -> str:
    """`Tuple[PerReplicaSpec(...), ...]` → `Tuple of PerReplicaSpec`."""
    outer = re.match(r"(\w+)(?:\[(\w+))?", tf_type)
    if outer is None:
        return "structure"
    return outer[1] + (f" of {outer[2]}" if outer[2] and outer[2] != "TensorSpec" else "")


def _kind(entry: SignatureEntry) -> str:
    if entry["kind"] == "tensor":
        return f"Tensor {entry['shape']} {entry['dtype']}"
    return f"Python {entry.get('type')}"


# --- shapes across traces ----------------------------------------------------------------


def _specs(entry: SignatureEntry) -> list[Spec] | None:
    """The tensors an argument is keyed on, in order: one for a tensor, each inside a
    structure's trace type; None for a Python value or object."""
    if entry["kind"] == "tensor":
        return [(_dims(entry.get("shape", "")), entry.get("dtype", "?"))]
    found = _TENSOR_SPEC.findall(entry.get("tf_type", ""))
    return [(_dims(shape), dtype) for shape, dtype in found] or None


def _dims(shape: str) -> tuple[int | None, ...] | None:
    """`(32, None)` → (32, None); `<unknown>`/`<unknown rank>` → None."""
    if not shape.startswith("("):
        return None
    return tuple(None if part.strip() == "None" else int(part)
                 for part in shape.strip("()").split(",") if part.strip())


def _varying(records: list[TraceEvent]) -> dict[str, list[list[Spec]]] | None:
    """Argument → its tensors' specs in each trace, when every trace has the same arguments,
    with the same tensors of the same dtypes and ranks (only sizes vary); else None."""
    names = list(records[0]["signature"])
    table: dict[str, list[list[Spec]]] = {}
    for name in names:
        column = []
        for record in records:
            entry = record["signature"].get(name)
            specs = _specs(entry) if entry is not None and list(record["signature"]) == names \
                else None
            if specs is None:
                return None
            column.append(specs)
        shapes = {tuple((dtype, None if dims is None else len(dims)) for dims, dtype in specs)
                  for specs in column}
        if len(shapes) != 1:
            return None
        table[name] = column
    return table


def _remainder_batch(records: list[TraceEvent]) -> str | None:
    """The note for two traces that differ only in the first dimension of their tensors,
    with two sizes (a dataset's full batches and its short last one); None otherwise."""
    table = _varying(records)
    if table is None or len(records) != 2:
        return None
    sizes: set[int] = set()
    for column in table.values():
        for (before, _), (after, _) in zip(*column, strict=True):
            if before == after:
                continue
            if not before or not after or before[1:] != after[1:]:
                return None  # another dimension changed, or the rank is unknown
            if before[0] is None or after[0] is None:
                return None
            sizes.update((before[0], after[0]))
    if len(sizes) != 2:
        return None
    return REMAINDER_NOTE.format(sizes=" → ".join(str(size) for size in sorted(sizes)[::-1]))


def input_signature(records: list[TraceEvent]) -> str | None:
    """An `input_signature` that covers every traced call: one `tf.TensorSpec` per argument,
    with its rank and dtype and `None` only where the shapes differed; None when an argument
    is not a plain tensor (a Python value, a structure) or its rank is unknown."""
    table = _varying(records)
    if not table:
        return None
    specs = []
    for name, column in table.items():
        if records[0]["signature"][name]["kind"] != "tensor":
            return None
        shapes = [specs_of_trace[0][0] for specs_of_trace in column]
        first = shapes[0]
        if first is None:
            return None
        shape = [size if all(other is not None and other[i] == size for other in shapes)
                 else None for i, size in enumerate(first)]
        specs.append(f"tf.TensorSpec({_shape_text(shape)}, tf.{column[0][0][1]})")
    return f"input_signature=[{', '.join(specs)}]"


def _shape_text(shape: list[int | None]) -> str:
    return "[" + ", ".join("None" if size is None else str(size) for size in shape) + "]"
