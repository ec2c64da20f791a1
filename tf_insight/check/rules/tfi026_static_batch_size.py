"""The static batch size `x.shape[0]` used as a number in code that Keras traces.

## What it does
Finds `x.shape[0]` of a tensor in a Keras `call`, `train_step`/`test_step`, loss or metric (and
helpers called from them) where the code computes with it as a Python number: in arithmetic
(`x.shape[0] // parts`), in `int(...)`, or in the shape given to
`tf.reshape`/`tf.zeros`/`tf.ones`/`tf.fill`/`tf.random.*` — directly or through a name
assigned from it (`batch = x.shape[0]`).

Reported only in a file that shows Keras a `None` batch: a `keras.Input` without a batch size,
or a `Dataset.batch(...)` without `drop_remainder=True` (library code tied to a pipeline with
a fixed batch size relies on it deliberately). Not reported: `range(x.shape[0])` (TFI018's),
code that checks for `None` first (`if x.shape[0] is None:`,
`x.shape[0] or tf.shape(x)[0]`), the shapes of weights (`self.kernel.shape[0]`), other
dimensions (they are often fixed by the model's `Input`), and a plain `tf.function`, which is
traced with the batch size of the call.

## Why is this bad?
Keras traces this code with the batch dimension unknown: a functional model is built with
`Input(shape=...)`, whose batch size is `None`, and `fit` on a batched `tf.data.Dataset` traces
its step with a `None` batch too. `x.shape[0]` is then `None`, and the arithmetic raises
`TypeError: unsupported operand type(s) for //: 'NoneType' and 'int'`, although the layer
works when called eagerly on a tensor (TF 2.21, Keras 3: a layer that splits its batch with
`x.shape[0] // 2` runs eagerly and fails in `fit` on a dataset).

## Example
```python
import tensorflow as tf


class HalfBatchMean(tf.keras.layers.Layer):
    def call(self, x):
        half = x.shape[0] // 2
        return tf.reduce_mean(x[:half], axis=0, keepdims=True)


model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), HalfBatchMean()])
```

## Use instead
```python
import tensorflow as tf


class HalfBatchMean(tf.keras.layers.Layer):
    def call(self, x):
        half = tf.shape(x)[0] // 2
        return tf.reduce_mean(x[:half], axis=0, keepdims=True)


model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), HalfBatchMean()])
```

## References
- [tf.shape: the dynamic shape](https://www.tensorflow.org/api_docs/python/tf/shape)
- [Keras: the functional API's batch dimension](https://keras.io/guides/functional_api/)
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tf_insight.check.context import ContextKind, ModuleContext
from tf_insight.check.index import FunctionInfo
from tf_insight.check.rules import Hit
from tf_insight.check.rules._keras import traced_expecting_error
from tf_insight.findings import Severity

CODE = "TFI026"
NAME = "static-batch-size"
SEVERITY = Severity.WARNING

# graph code Keras traces with a `None` batch dimension
KERAS_TRACED = frozenset({ContextKind.KERAS_CALL, ContextKind.KERAS_STEP, ContextKind.LOSS,
                          ContextKind.METRIC})
# functions whose argument (or `shape=`) is a shape: a `None` in it raises
SHAPE_TAKERS = frozenset({
    "tensorflow.reshape", "tensorflow.zeros", "tensorflow.ones", "tensorflow.fill",
    "tensorflow.random.uniform", "tensorflow.random.normal", "tensorflow.broadcast_to",
    "tensorflow.tile", "keras.ops.reshape", "keras.ops.zeros", "keras.ops.ones",
    "keras.ops.full", "keras.ops.broadcast_to",
})
ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)


def check(module: ModuleContext) -> Iterator[Hit]:
    if not module.mentions("shape") or not _unknown_batch(module):
        return
    for function, context in module.focused_graph_functions():
        if context.origin_kind not in KERAS_TRACED or traced_expecting_error(module, context):
            continue
        sizes = [node for node in function.nodes.of(ast.Subscript) if _batch_size(node)]
        if not sizes or _checks_for_none(module, function, sizes):
            continue
        for size in sizes:
            use = _numeric_use(module, function, size)
            if use is None:
                continue
            assert isinstance(size.value, ast.Attribute)
            text = module.source.segment(size)
            tensor = module.source.segment(size.value.value)
            yield Hit(size, f"`{text}` in `{function.qualname}` is used as a number ({use}), "
                      "but it is `None` when Keras traces the code",
                      detail=f"it is {context.reason}: Keras traces it with an unknown batch "
                      "size (a functional model's `Input`, `fit` on a batched dataset), so "
                      "the static `shape[0]` is `None` there",
                      help=f"use the dynamic size `tf.shape({tensor})[0]` (a tensor), or "
                      "check for `None` first")


def _unknown_batch(module: ModuleContext) -> str | None:
    """What in the file makes Keras trace with a `None` batch: a `keras.Input` without a
    batch size (a functional model), or a dataset batched without `drop_remainder=True`.
    Without either, the code may well run with a known batch (library code tied to its own
    pipeline): too weak to report."""
    def find() -> str | None:
        for call, _scope in module.calls_named("Input", "batch"):
            fixed = {k.arg for k in call.keywords if k.arg in ("batch_size", "batch_shape")}
            name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(
                call.func, "id", "")
            if name == "Input" and not fixed:
                return "a `keras.Input` without a batch size"
            if name == "batch" and isinstance(call.func, ast.Attribute) and not any(
                    k.arg == "drop_remainder" and not (
                        isinstance(k.value, ast.Constant) and k.value.value is False)
                    for k in call.keywords) and len(call.args) < 2:
                return "a dataset batched without `drop_remainder=True`"
        return None

    return module.memo("tfi026.unknown_batch", find)


def _batch_size(node: ast.Subscript) -> bool:
    """`x.shape[0]` of a name or expression that is not an attribute of `self`."""
    if not (isinstance(node.slice, ast.Constant) and node.slice.value == 0
            and isinstance(node.value, ast.Attribute) and node.value.attr == "shape"):
        return False
    owner = node.value.value
    while isinstance(owner, ast.Attribute | ast.Subscript):
        owner = owner.value
    return not (isinstance(owner, ast.Name) and owner.id in ("self", "cls"))


def _checks_for_none(module: ModuleContext, function: FunctionInfo,
                     sizes: list[ast.Subscript]) -> bool:
    """The function tests a batch size (or a name assigned from one) against `None`, or
    picks with `or` (`x.shape[0] or tf.shape(x)[0]`): it has a fallback for an unknown size."""
    names = {target.id for size in sizes
             if isinstance(parent := module.index.parent(size), ast.Assign)
             for target in parent.targets if isinstance(target, ast.Name)}

    def is_size(node: ast.AST) -> bool:
        return (isinstance(node, ast.Subscript) and _batch_size(node)) or (
            isinstance(node, ast.Name) and node.id in names)

    for node in function.nodes.of(ast.BoolOp, ast.Compare):
        if isinstance(node, ast.BoolOp):
            if isinstance(node.op, ast.Or) and any(is_size(v) for v in node.values):
                return True
        elif any(isinstance(c, ast.Constant) and c.value is None for c in node.comparators) \
                and is_size(node.left):
            return True
    return False


def _numeric_use(module: ModuleContext, function: FunctionInfo, size: ast.Subscript
                 ) -> str | None:
    """How the code computes with `size` (or with the name assigned from it), if it does."""
    use = _use_of(module, size)
    if use is not None:
        return use
    parent = module.index.parent(size)
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(
            parent.targets[0], ast.Name):
        name = parent.targets[0].id
        for node in function.nodes.of(ast.Name):
            if node.id == name and isinstance(node.ctx, ast.Load) and (
                    use := _use_of(module, node)) is not None:
                return f"`{name}`, {use}"
    return None


def _use_of(module: ModuleContext, node: ast.AST) -> str | None:
    parent = module.index.parent(node)
    if isinstance(parent, ast.BinOp) and isinstance(parent.op, ARITHMETIC):
        return "in arithmetic"
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and (
            parent.func.id == "int") and module.qualname(parent.func) is None:
        return "in `int()`"
    if isinstance(parent, ast.List | ast.Tuple):
        holder = module.index.parent(parent)
        if isinstance(holder, ast.keyword):
            holder = module.index.parent(holder)
        if isinstance(holder, ast.Call) and (module.qualname(holder.func) or "") in SHAPE_TAKERS:
            return f"in the shape given to `{module.source.segment(holder.func)}`"
    return None
