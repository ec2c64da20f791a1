"""A Python list or dict filled inside a loop that AutoGraph turns into a `tf.while_loop`.

## What it does
Finds, in code that AutoGraph converts (a `tf.function`, a tf-keras `call`, a `tf.data`
function, and what they call), a loop over a tensor — `for i in tf.range(n)`, `for row in
tensor`, `while <tensor condition>` — whose body appends to, extends, inserts into or assigns an
item of a Python list or dict made before the loop (`outputs = []` … `outputs.append(y)`,
`totals[k] = totals[k] + g`), including from Python loops nested in its body.

Not reported: a container made inside the loop body, loops over Python values (`range(3)`,
a list: AutoGraph unrolls them, and appending works), loops over a parameter that may be a
Python list or dict (unless every call in the module passes a tensor op's result), and
`tf.TensorArray` writes.

## Why is this bad?
AutoGraph turns a loop over a tensor into a `tf.while_loop`, whose body is traced once, as a
graph of its own, not run once per iteration. The Python list gets one element, a tensor of the
loop body's graph; using it after the loop fails with `InaccessibleTensorError: The tensor ...
cannot be accessed from FuncGraph(...), because it was defined in
FuncGraph(while_body_...), which is out of scope` (or returns a list of the wrong length).

## Example
```python
import tensorflow as tf


@tf.function
def running_means(frames):
    means = []
    for i in tf.range(tf.shape(frames)[0]):
        means.append(tf.reduce_mean(frames[i]))
    return tf.stack(means)
```

## Use instead
```python
import tensorflow as tf


@tf.function
def running_means(frames):
    means = tf.TensorArray(tf.float32, size=tf.shape(frames)[0])
    for i in tf.range(tf.shape(frames)[0]):
        means = means.write(i, tf.reduce_mean(frames[i]))
    return means.stack()
```

## References
- [tf.function: loops and Python lists](https://www.tensorflow.org/guide/function#loops)
- [tf.TensorArray](https://www.tensorflow.org/api_docs/python/tf/TensorArray)
- [AutoGraph reference: limitations](https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/g3doc/reference/limitations.md)
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tf_insight.check.context import ModuleContext
from tf_insight.check.index import FunctionInfo
from tf_insight.check.rules import Hit
from tf_insight.check.rules._tensors import (
    TensorFacts,
    context_label,
    tensor_facts,
    tensor_op,
)
from tf_insight.check.rules._tf_functions import arguments_given
from tf_insight.findings import Severity

CODE = "TFI020"
NAME = "python-list-in-tensor-loop"
SEVERITY = Severity.ERROR

FILLERS = frozenset({"append", "extend", "insert", "update", "setdefault", "add"})
CONTAINERS = (ast.List, ast.Dict, ast.ListComp, ast.DictComp)


def check(module: ModuleContext) -> Iterator[Hit]:
    for function, context in module.graph.focused_functions():
        if not context.autograph:
            continue
        facts: TensorFacts | None = None
        reported: set[ast.AST] = set()  # a fill inside two nested graph loops: once
        for loop in function.nodes.of(ast.For, ast.While):
            facts = facts or tensor_facts(module, function, context)
            if not _tensor_loop(module, facts, function, loop):
                continue
            made_before = _containers_before(function, loop)
            if not made_before:
                continue
            for node, name in _fills(loop, made_before):
                if node in reported:
                    continue
                reported.add(node)
                yield Hit(node, f"{_filling(module, node)} fills the Python container "
                          f"`{name}` inside a graph loop",
                          detail=f"in {context_label(function, context)}, AutoGraph makes "
                          f"`{_header(module, loop)}` a `tf.while_loop` whose body is traced once, so the container "
                          "gets a tensor of the loop body's graph (`InaccessibleTensorError ... "
                          "out of scope` when used after the loop)",
                          help="write to a `tf.TensorArray`")


def _tensor_loop(module: ModuleContext, facts: TensorFacts, function: FunctionInfo,
                 loop: ast.For | ast.While) -> bool:
    """A loop AutoGraph turns into a `tf.while_loop`: over `tf.range(...)` or a tensor, or
    while a tensor condition holds."""
    if isinstance(loop, ast.While):
        test = loop.test
        return facts.is_tensor(test) or (
            isinstance(test, ast.Compare) and facts.tensor_comparison(test))
    iterable = loop.iter
    if isinstance(iterable, ast.Call) and (module.qualname(iterable.func) or "") in (
            "tensorflow.range", "tensorflow.data.Dataset.range"):
        return True
    if facts.structure_parameter(iterable):
        return False  # `for key in example["groups"]`: a tf.data element's dict
    # a parameter may be a Python list or dict (`for key in predictions`): a Python loop then,
    # unless every call in view passes a tensor
    return facts.is_tensor(iterable) and (not facts.rooted_in_parameter(iterable)
                                          or _tensor_at_every_call(module, function, iterable))


def _tensor_at_every_call(module: ModuleContext, function: FunctionInfo,
                          iterable: ast.expr) -> bool:
    """`iterable` is a parameter that each call of the function in this module (one at least)
    binds to what a TensorFlow op returns (`pairwise(tf.ones([2, 3]))`)."""
    if not isinstance(iterable, ast.Name) or iterable.id not in function.parameter_names:
        return False
    bound = [argument for _call, argument in arguments_given(module, function, iterable.id)]
    return bool(bound) and all(isinstance(argument, ast.Call) and tensor_op(module, argument)
                               for argument in bound)


def _containers_before(function: FunctionInfo, loop: ast.AST) -> set[str]:
    """The function's names bound to a list or dict before the loop starts, and not rebound
    in it."""
    start = getattr(loop, "lineno", 0)
    made = {target.id for node in function.nodes.of(ast.Assign) if node.lineno < start
            and isinstance(node.value, CONTAINERS)
            for target in node.targets if isinstance(target, ast.Name)}
    rebound = {node.id for statement in getattr(loop, "body", []) for node in ast.walk(statement)
               if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}
    return made - rebound


def _fills(loop: ast.For | ast.While, names: set[str]) -> Iterator[tuple[ast.AST, str]]:
    for statement in loop.body:
        for node in ast.walk(statement):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and (
                    node.func.attr in FILLERS and isinstance(node.func.value, ast.Name)
                    and node.func.value.id in names):
                yield node, node.func.value.id
            elif isinstance(node, ast.Assign | ast.AugAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) \
                            and target.value.id in names:
                        yield node, target.value.id


def _filling(module: ModuleContext, node: ast.AST) -> str:
    """`xs.append(...)`, `xs[k] = ...`: the write, without what is written."""
    if isinstance(node, ast.Call):
        return f"`{module.source.segment(node.func)}(...)`"
    if isinstance(node, ast.Assign):
        return f"`{module.source.segment(node.targets[0])} = ...`"
    return f"`{module.source.segment(node)}`"


def _header(module: ModuleContext, loop: ast.For | ast.While) -> str:
    if isinstance(loop, ast.For):
        return f"for {module.source.segment(loop.target)} in {module.source.segment(loop.iter)}"
    return f"while {module.source.segment(loop.test)}"
