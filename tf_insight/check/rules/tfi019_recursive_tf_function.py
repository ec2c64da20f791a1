"""A `tf.function` that calls itself, directly or through other `tf.function`s of the module.

## What it does
Finds calls, inside the body of a `tf.function` (decorated, `f = tf.function(g)`, or
`self.f = tf.function(...)`), of that same function — by its name, as `self.method(...)`, or
through the undecorated Python function it wraps — and cycles of `tf.function`s in one module
that call each other (`a` calls `b`, `b` calls `a`).

Not reported: a call under a type guard (`if isinstance(x, (list, tuple)): return
tuple(f(v) for v in x)`): it walks a Python structure, each element a new input signature, and
ends with it at trace time.

## Why is this bad?
Tracing runs the Python body, so a recursive call traces the function again from inside its
own trace. With a tensor argument the base case is a graph condition, AutoGraph traces both
branches, and tracing never ends: `StagingError ... RecursionError: maximum recursion depth
exceeded` (TF 2.21, both for direct and mutual recursion). With Python arguments it works, but
every recursion depth is a separate trace and a separate graph, nested inside the caller's.
TensorFlow graphs have no recursion; the loop must be written as a loop.

## Example
```python
import tensorflow as tf


@tf.function
def countdown(n):
    if n <= 0:
        return tf.constant(0)
    return countdown(n - 1) + 1
```

## Use instead
```python
import tensorflow as tf


@tf.function
def countdown(n):
    total = tf.constant(0)
    for _ in tf.range(n):
        total += 1
    return total
```

## References
- [tf.function: tracing](https://www.tensorflow.org/guide/function#tracing)
- [tf.while_loop](https://www.tensorflow.org/api_docs/python/tf/while_loop)
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tf_insight.check.context import ModuleContext
from tf_insight.check.guards import guarded_nodes
from tf_insight.check.index import FunctionInfo, callee_name
from tf_insight.check.rules import Hit
from tf_insight.check.rules._tf_functions import tf_functions
from tf_insight.findings import Related, Severity

CODE = "TFI019"
NAME = "recursive-tf-function"
SEVERITY = Severity.WARNING

CONSEQUENCE = (
    "tracing runs the body again from inside its own trace: with a tensor argument it never "
    "reaches the base case (`RecursionError: maximum recursion depth exceeded`), with Python "
    "arguments every depth is traced as a separate graph")
INSTEAD = "write it as a loop (`tf.range`, `tf.while_loop`)"


def check(module: ModuleContext) -> Iterator[Hit]:
    table = tf_functions(module)
    traced = {t.info: t for t in table if t.info is not None}
    if not traced:
        return
    # a call that can close a cycle is spelled with the name of a traced function
    spelled = {t.name.rsplit(".", 1)[-1] for t in table} | {info.name for info in traced}
    edges: dict[FunctionInfo, list[tuple[ast.Call, FunctionInfo]]] = {}
    for info in traced:
        typed = guarded_nodes(module, info)
        for call in info.calls:
            if callee_name(call) not in spelled or call in typed:
                continue  # under `isinstance(x, tuple)`: a walk over a Python structure
            callee = table.resolve(call.func, info)
            target = callee.info if callee is not None else module.function_named(call.func, info)
            if target is not None and target in traced:
                edges.setdefault(info, []).append((call, target))
    for info, calls in edges.items():
        for call, target in calls:
            if target is info:
                label = traced[info].label
                text = module.source.segment(call.func)
                via = "" if text == label else f" (`{text}`)"
                yield Hit(call, f"tf.function `{label}` calls itself{via}", detail=CONSEQUENCE,
                          help=INSTEAD)
    for cycle in _cycles(edges):
        first = min(cycle, key=lambda f: f.node.lineno)
        for call, target in edges.get(first, []):
            if target in cycle and target is not first:
                path = " → ".join(f"`{traced[f].label}`" for f in _path(edges, target, first))
                yield Hit(
                    call,
                    f"tf.function `{traced[first].label}` calls `{traced[target].label}`, which "
                    "calls it back",
                    related=tuple(Related(module.path, module.span(c), "the call back")
                                  for f in cycle if f is not first
                                  for c, t in edges.get(f, []) if t is first),
                    detail=f"{path} → `{traced[first].label}`: {CONSEQUENCE}",
                    help=INSTEAD,
                )


def _cycles(edges: dict[FunctionInfo, list[tuple[ast.Call, FunctionInfo]]],
            ) -> list[list[FunctionInfo]]:
    """Strongly connected components with more than one function (Tarjan's algorithm), each
    in source order (the order the related calls are listed in)."""
    index: dict[FunctionInfo, int] = {}
    low: dict[FunctionInfo, int] = {}
    stack: list[FunctionInfo] = []
    on_stack: set[FunctionInfo] = set()
    found: list[list[FunctionInfo]] = []

    def visit(node: FunctionInfo) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for _, target in edges.get(node, []):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component: set[FunctionInfo] = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member is node:
                    break
            if len(component) > 1:
                found.append(sorted(component, key=lambda f: (f.node.lineno, f.node.col_offset)))

    for node in list(edges):
        if node not in index:
            visit(node)
    return found


def _path(edges: dict[FunctionInfo, list[tuple[ast.Call, FunctionInfo]]], start: FunctionInfo,
          goal: FunctionInfo) -> list[FunctionInfo]:
    """The functions from `start` up to (not including) `goal`, by breadth-first search."""
    previous: dict[FunctionInfo, FunctionInfo | None] = {start: None}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for _, target in edges.get(node, []):
            if target is goal:
                path = [node]
                back = previous[node]
                while back is not None:
                    path.append(back)
                    back = previous[back]
                return list(reversed(path))
            if target not in previous:
                previous[target] = node
                queue.append(target)
    return [start]
