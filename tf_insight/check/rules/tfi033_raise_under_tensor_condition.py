"""An `if` on a tensor whose branch raises, in code that AutoGraph converts.

## What it does
Finds an `if` whose test is a tensor (a comparison involving one, the result of a `tf.*` op, a
name assigned from one: as TFI013 decides) and one of whose branches has a `raise`, in graph
code that AutoGraph converts: a plain `@tf.function`, a `Dataset.map` function, a tf-keras
`Layer.call`, and helpers called from them.

Not reported: a test of a Python value (`if x.shape[-1] != 3:`, `if training:`, `if mask is
None:`: AutoGraph leaves it a Python `if`, and the `raise` runs only when it is true), code that
cannot see a symbolic tensor (eager-only or type-guarded), and code AutoGraph does not convert
(a Keras 3 `call`, a Keras `train_step`), where the `if` itself fails: TFI013.

## Why is this bad?
AutoGraph turns an `if` on a tensor into `tf.cond`, which traces *both* branches to build the
graph. A `raise` in either branch runs while tracing, whatever the tensor's value will be: the
function fails on every call, with the error meant for bad input (TF 2.21: a `tf.function`
with `if flag: raise ValueError(...)` raises `ValueError` when called with `flag=False`). In a
tf-keras layer the same check breaks `fit` and `predict` while the layer works eagerly.

## Example
```python
import tensorflow as tf


@tf.function
def normalized(x):
    if tf.reduce_any(x < 0):
        raise ValueError("x must be non-negative")
    return x / tf.reduce_sum(x)
```

## Use instead
```python
import tensorflow as tf


@tf.function
def normalized(x):
    tf.debugging.assert_non_negative(x, message="x must be non-negative")
    return x / tf.reduce_sum(x)
```

## References
- [AutoGraph: control flow](https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/g3doc/reference/control_flow.md)
- [tf.debugging](https://www.tensorflow.org/api_docs/python/tf/debugging)
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tf_insight.check.context import ModuleContext
from tf_insight.check.guards import guarded_nodes
from tf_insight.check.rules import Hit
from tf_insight.check.rules._keras import traced_expecting_error
from tf_insight.check.rules._tensors import tensor_facts, tested_tensors, unpassed_parameters
from tf_insight.findings import Severity

CODE = "TFI033"
NAME = "raise-under-tensor-condition"
SEVERITY = Severity.ERROR
FLAVOR_DEPENDENT = True  # whether a Keras `call` is converted


def check(module: ModuleContext) -> Iterator[Hit]:
    if not module.mentions("raise"):
        return
    for function, context in module.graph.focused_functions():
        if not context.autograph or traced_expecting_error(module, context):
            continue
        for node in function.nodes.of(ast.If):
            raised = _raised_in_branches(node)
            if raised is None or node.test in guarded_nodes(module, function):
                continue
            facts = tensor_facts(module, function, context)
            tested = next(tested_tensors(facts, node.test, False,
                                         unpassed_parameters(module, function)), None)
            if tested is None:
                continue
            text = module.source.segment(tested)
            yield Hit(
                tested,
                f"`if` in `{function.qualname}` tests the tensor `{text}` and a branch raises "
                f"`{raised}`",
                detail="AutoGraph turns the `if` into `tf.cond`, which traces both branches: "
                f"the `raise` runs while tracing, whatever `{text}` holds, so every call fails",
                help="check values with `tf.debugging.assert_*` (or `tf.debugging.Assert`), "
                "which fail only when the value is wrong; or test a Python value (a static "
                "shape)")


def _raised_in_branches(node: ast.If) -> str | None:
    """What a `raise` in the `if`'s own branches raises (`ValueError`; `an exception`), not in
    a function defined there or after a nested `if` of its own."""
    pending: list[ast.AST] = [*node.body, *node.orelse]
    while pending:
        statement = pending.pop()
        if isinstance(statement, ast.Raise):
            raised = statement.exc
            if isinstance(raised, ast.Call):
                raised = raised.func
            return ast.unparse(raised) if raised is not None else "the current exception"
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
                      | ast.If | ast.Try):
            continue  # a nested `if` is a test of its own; a `try` may catch it
        pending.extend(child for child in ast.iter_child_nodes(statement)
                       if isinstance(child, ast.stmt))
    return None
