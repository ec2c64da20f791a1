"""A `tf.function` created anew each time it is about to be called.

## What it does
Finds `tf.function`s that are created and then called once per creation:
- created inside a loop (`@tf.function` on a nested `def` or `tf.function(g)` in the loop
  body) and called in that same iteration;
- created inside a function that runs repeatedly — called in a loop somewhere in the module,
  or a per-step helper (`train_step`, `eval_step`, `step`, `train_on_batch`...) — and called
  there (not returned, stored or cached);
- returned by a factory (`def make_step(): @tf.function def step(...): ...; return step`) that
  a loop calls on every iteration and whose result that iteration calls
  (`make_step()(x, y)`, or `step = make_step(); step(x, y)`).

Not reported: the factory pattern (the new function is returned, stored on `self` or in a
dict, or the factory is cached with `functools.lru_cache`) when the factory's result is kept
and reused; appending it to a list, from which
no call looks it up, is no cache), a function created once and then
called in a loop (`step = tf.function(f)` followed by `for batch in ds: step(batch)`), and
functions created inside code that is itself being traced (once per outer trace), loops
over the object's own structure (`for i in range(self.num_heads)`, `for layer in self.layers`),
which in library code usually run while an outer function is traced, and loops over a short
literal (`for flag in [True, False]`, or a module constant holding one): fewer than five
creations, as if written out once per value, which never reach TensorFlow's retracing warning
(unless an outer loop repeats it). Nor test modules (`test_*.py`, `*_test.py`): the cost is
at scale, a test makes a few calls.

## Why is this bad?
Each `tf.function` object keeps its own trace cache: a new object has none, so every call of a
freshly created one traces (and compiles) the Python function again. A training loop that
creates its step function per batch is slower than running eagerly, and TensorFlow can only log
`5 out of the last 5 calls to <function ...> triggered tf.function retracing ... (1) creating
@tf.function repeatedly in a loop`.

## Example
```python
import tensorflow as tf


def train(model, optimizer, dataset):
    for x, y in dataset:
        @tf.function
        def step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x) - y))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss

        step(x, y)
```

## Use instead
```python
import tensorflow as tf


def train(model, optimizer, dataset):
    @tf.function
    def step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x) - y))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    for x, y in dataset:
        step(x, y)
```

## References
- [tf.function: rules of tracing](https://www.tensorflow.org/guide/function#rules_of_tracing)
- [tf.function: controlling retracing](https://www.tensorflow.org/guide/function#controlling_retracing)
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass

from tf_insight.check.context import ModuleContext
from tf_insight.check.index import FunctionInfo
from tf_insight.check.rules import Hit
from tf_insight.check.rules._tf_functions import (
    Loop,
    Scope,
    bounded_loop,
    called_in_loop,
    enclosing_loops,
    tf_function_calls,
    tf_functions,
)
from tf_insight.findings import Related, Severity

CODE = "TFI014"
NAME = "function-recreated"
SEVERITY = Severity.WARNING

STEP_NAME = re.compile(
    r"(^|_)(train|training|test|eval|evaluate|evaluation|val|valid|validation|predict|"
    r"inference|update|optimi[sz]ation)_?step$|_on_batch$|^step$", re.I)


@dataclass(frozen=True)
class Creation:
    node: ast.expr  # the decorator or the tf.function(...) call
    statement: ast.AST  # the def, or the expression that creates it
    name: str | None  # the local name bound to it (None: called on the spot)
    scope: Scope
    label: str


def check(module: ModuleContext) -> Iterator[Hit]:
    if module.test_module:
        return
    for creation in _creations(module):
        if module.graph.in_graph(creation.scope) is not None:
            continue  # created while something is traced: once per trace
        calls = _calls_of(module, creation)
        if calls is None:  # escapes: returned, stored, passed on
            # reported where the loop calls the factory, which may be another statement
            yield from _factory_called_per_iteration(module, creation)
            continue
        if not module.in_focus(creation.node.lineno):
            continue
        loops = enclosing_loops(module, creation.statement)
        if loops:
            if all(bounded_loop(module, loop) for loop in loops):
                continue  # (a short literal inside a loop that repeats is made again each time)
            same_iteration = [c for c in calls if _innermost(module, c) is loops[0].node]
            if same_iteration:
                yield _in_loop(module, creation, loops[0], same_iteration[0])
            continue
        if creation.scope is None or creation.scope.cached:
            continue
        once = [c for c in calls if not enclosing_loops(module, c)]
        if not once:
            continue
        repeated = _repeated_call(module, creation.scope)
        if repeated is not None:
            yield _in_repeated_function(module, creation, once[0], repeated)


def _creations(module: ModuleContext) -> Iterator[Creation]:
    table = tf_functions(module)
    for function in module.index.functions:
        if isinstance(function.node, ast.Lambda) or function.cls is not None or (
                function.outer is None and not enclosing_loops(module, function.node)):
            continue  # a module-level def runs once, unless a loop of the script holds it
        for decorator in function.decorators:
            if table.is_tf_function_decorator(function, decorator):
                yield Creation(decorator, function.node, function.name, function.outer,
                               f"`@{module.source.segment(decorator)}` on `{function.name}`")
                break
    for call, scope in tf_function_calls(module):
        if scope is None and not enclosing_loops(module, call):
            continue
        parent = module.index.parent(call)
        label = f"`{module.source.segment(call)}`"
        if isinstance(parent, ast.Assign) and len(parent.targets) == 1 \
                and isinstance(parent.targets[0], ast.Name):
            yield Creation(call, parent, parent.targets[0].id, scope, label)
        elif isinstance(parent, ast.Call) and parent.func is call:
            yield Creation(call, call, None, scope, label)


def _calls_of(module: ModuleContext, creation: Creation) -> list[ast.AST] | None:
    """Where the new function is called in its scope; None if it escapes (a factory)."""
    if creation.name is None:
        parent = module.index.parent(creation.node)
        return [parent] if parent is not None else []
    nodes = creation.scope.nodes if creation.scope is not None else module.index.module_nodes
    calls: list[ast.AST] = []
    for node in nodes.named(creation.name):
        if node.ctx.__class__ is not ast.Load:
            continue
        parent = module.index.parent(node)
        if isinstance(parent, ast.Call) and parent.func is node:
            calls.append(parent)
        elif isinstance(parent, ast.Attribute) and parent.attr in (
                "get_concrete_function", "experimental_get_tracing_count", "__name__"):
            continue
        elif _appended(node, parent):
            continue  # kept in a list (to count them, keep them alive): no cache to look up
        else:
            return None  # returned, stored, passed to something else
    # used by a nested function (a closure that outlives this call): treat as escaping
    if creation.scope is not None:
        for function in module.index.nested_in(creation.scope):
            if function.outer is creation.scope and function.nodes.named(creation.name):
                return None
    return calls


def _factory_called_per_iteration(module: ModuleContext, creation: Creation) -> Iterator[Hit]:
    """A factory that returns the new tf.function, called by a loop whose iteration calls what
    it returned: `make_step()(x, y)`, or `step = make_step()` then `step(x, y)`."""
    factory = creation.scope
    if factory is None or creation.name is None or factory.cached or not any(
            isinstance(node, ast.Return) and isinstance(node.value, ast.Name)
            and node.value.id == creation.name for node in factory.nodes.of(ast.Return)):
        return
    for call, scope in module.calls_of(factory):
        if not module.in_focus(call.lineno):
            continue
        loops = enclosing_loops(module, call)
        if not loops or bounded_loop(module, loops[0]) or (
                scope is not None and module.graph.in_graph(scope) is not None):
            continue
        parent = module.index.parent(call)
        used: ast.AST | None = None
        if isinstance(parent, ast.Call) and parent.func is call:
            used = parent
        elif isinstance(parent, ast.Assign) and len(parent.targets) == 1 \
                and isinstance(parent.targets[0], ast.Name):
            nodes = scope.nodes if scope is not None else module.index.module_nodes
            used = next((use for name in nodes.named(parent.targets[0].id)
                         if isinstance(use := module.index.parent(name), ast.Call)
                         and use.func is name and _innermost(module, use) is loops[0].node),
                        None)
        if used is None:
            continue
        yield Hit(
            call,
            f"`{module.source.segment(call)}` makes a new tf.function on every iteration of "
            f"`{loops[0].header(module)}`, and the iteration calls it",
            related=(Related(module.path, module.span(creation.node),
                             f"{creation.label}: `{factory.qualname}` makes it anew per call"),
                     Related(module.path, module.span(used), "called here, once per creation")),
            detail="a new tf.function has an empty trace cache, so every iteration traces the "
            "Python function again",
            help=f"call `{factory.name}` once, before the loop, and reuse what it returns",
        )


def _appended(node: ast.AST, parent: ast.AST | None) -> bool:
    """`functions.append(step)`."""
    return (isinstance(parent, ast.Call) and parent.args == [node]
            and isinstance(parent.func, ast.Attribute) and parent.func.attr == "append")


def _innermost(module: ModuleContext, node: ast.AST) -> ast.AST | None:
    loops = enclosing_loops(module, node)
    return loops[0].node if loops else None


def _repeated_call(module: ModuleContext, function: FunctionInfo) -> tuple[ast.AST, str] | None:
    """A call of `function` inside a loop (with the loop's header), or its name if it is a
    per-step helper."""
    found = called_in_loop(module, function)
    if found is None and STEP_NAME.search(function.name):
        return function.node, f"`{function.name}` runs once per training step"
    return found


def _in_loop(module: ModuleContext, creation: Creation, loop: Loop, call: ast.AST) -> Hit:
    what = f"`{creation.name}` is called in that iteration" if creation.name \
        else "calls it on the spot"
    return Hit(
        creation.node,
        f"{creation.label} creates a new tf.function on every iteration of "
        f"`{loop.header(module)}`",
        related=(Related(module.path, module.span(call), "called here, once per creation"),),
        detail=f"{what}: a new tf.function has an empty trace cache, so every call traces the "
        "Python function again",
        help="create it once, before the loop",
    )


def _in_repeated_function(module: ModuleContext, creation: Creation, call: ast.AST,
                          repeated: tuple[ast.AST, str]) -> Hit:
    assert creation.scope is not None
    owner = creation.scope.qualname
    what = f"`{creation.name}`" if creation.name else "it"
    site, why = repeated
    return Hit(
        creation.node,
        f"{creation.label} creates a new tf.function on every call of `{owner}`",
        related=(Related(module.path, module.span(site), f"`{owner}` runs repeatedly"),
                 Related(module.path, module.span(call), "the new tf.function is called here")),
        detail=f"`{owner}` runs repeatedly ({why}), and {what} is called right there: every call "
        "traces the Python function again",
        help="create it once (at module level, in `__init__`, or cached on `self`) and reuse it",
    )
