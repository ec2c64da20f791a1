"""`len(x)` on a tensor where AutoGraph does not convert the code.

## What it does
Finds `len(...)` of a tensor — the result of a TensorFlow op (`len(tf.shape(y_true))`), a name
assigned from one, or what a loss or metric function is given (`y_true`, `y_pred`, and the
parameters of a helper they are passed to) — in graph code that AutoGraph does not rewrite: a
Keras 3 loss, metric or `Layer.call`, a Keras `train_step`, a `tf.function(autograph=False)`,
and helpers called from them.

Not reported: a bare parameter of a `call` or a step (`len(inputs)`: a layer with several
inputs gets a list), and code AutoGraph converts (a plain `@tf.function`, a tf-keras
`Layer.call`), where `len(x)` becomes the tensor `tf.shape(x)[0]`.

## Why is this bad?
While TensorFlow traces a function a tensor has no length Python can use:
`len(symbolic_tensor)` raises `TypeError: len is not well defined for a symbolic Tensor`. Called
eagerly the same function works (an eager tensor has a length), so a loss or metric that passes
a quick test fails in `fit` (TF 2.21, Keras 3: a metric that branches on
`len(tf.shape(y_true)) == 4` works in `update_state` and raises in `fit`).

## Example
```python
import keras
import tensorflow as tf


def mean_point_distance(y_true, y_pred):
    count = len(y_true)
    return tf.reduce_sum(tf.abs(y_true - y_pred)) / count


model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(3)])
model.compile(optimizer="sgd", loss=mean_point_distance)
```

## Use instead
```python
import keras
import tensorflow as tf


def mean_point_distance(y_true, y_pred):
    count = tf.cast(tf.shape(y_true)[0], y_pred.dtype)
    return tf.reduce_sum(tf.abs(y_true - y_pred)) / count


model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(3)])
model.compile(optimizer="sgd", loss=mean_point_distance)
```

## References
- [tf.shape and static shapes](https://www.tensorflow.org/guide/tensor#about_shapes)
- [AutoGraph: `len` of tensors](https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/g3doc/reference/operators.md)
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tf_insight.check.context import ModuleContext
from tf_insight.check.graph_model import ContextKind, GraphContext
from tf_insight.check.guards import guarded_nodes
from tf_insight.check.index import FunctionInfo
from tf_insight.check.rules import Hit
from tf_insight.check.rules._keras import traced_expecting_error
from tf_insight.check.rules._tensors import TensorFacts, tensor_facts
from tf_insight.findings import Severity

CODE = "TFI025"
NAME = "len-of-symbolic-tensor"
SEVERITY = Severity.ERROR
FAILS_TRACING = True  # TensorFlow raises while it traces the function
FLAVOR_DEPENDENT = True  # a Keras `call` is converted by AutoGraph in Keras 2 only

# graph code whose every parameter (but flags) is a tensor: Keras gives losses and metrics
# `y_true` and `y_pred`
TENSOR_ARGUMENTS = frozenset({ContextKind.LOSS, ContextKind.METRIC})


def check(module: ModuleContext) -> Iterator[Hit]:
    if not module.mentions("len"):
        return
    for function, context in module.graph.focused_functions():
        if context.autograph or traced_expecting_error(module, context):
            continue
        lengths = [call for call in function.calls if _builtin_len(module, call)]
        if not lengths:
            continue
        facts = tensor_facts(module, function, context)
        for call in lengths:
            measured = call.args[0]
            if call in guarded_nodes(module, function) or not _tensor(facts, function, context, measured):
                continue
            yield _hit(module, function, context, call, measured)


def _builtin_len(module: ModuleContext, call: ast.Call) -> bool:
    return (isinstance(call.func, ast.Name) and call.func.id == "len" and len(call.args) == 1
            and not call.keywords and module.qualname(call.func) is None)


def _tensor(facts: TensorFacts, function: FunctionInfo, context: GraphContext,
            node: ast.AST) -> bool:
    """A tensor, and not a parameter that may be a list (`inputs`), unless a loss or metric
    function gave it (a `Loss` or `Metric` class may take structures: Keras's own
    `CompileLoss` gets a list of outputs)."""
    return facts.is_tensor(node) and (not facts.rooted_in_parameter(node) or (
        context.origin_kind in TENSOR_ARGUMENTS and function.cls is None))


def _hit(module: ModuleContext, function: FunctionInfo, context: GraphContext, call: ast.Call,
         measured: ast.AST) -> Hit:
    text = module.source.segment(measured)
    if isinstance(measured, ast.Call) and module.qualname(measured.func) == "tensorflow.shape" \
            and measured.args:
        instead = f"the rank: `{module.source.segment(measured.args[0])}.shape.rank`"
    else:
        instead = (f"the static length `{text}.shape[0]`, or the tensor "
                   f"`tf.shape({text})[0]`")
    return Hit(call, f"`len({text})` in `{function.qualname}` takes the length of a tensor "
               "where AutoGraph does not convert the code",
               detail=f"it is {context.reason}: tracing raises `TypeError: len is not well "
               "defined for a symbolic Tensor` (eagerly it works)",
               help=f"use {instead}")
