"""A tensor passed, in traced code, where TensorFlow needs a Python value.

## What it does
Finds a tensor (the result of a `tf.*` op, a name assigned from one, a `tf.function`'s
positional parameter: as TFI013 decides) given, in graph code, to an argument that TensorFlow
reads as a Python value while it builds the graph: the seed of `tf.random.set_seed`, the
window (`ksize`) and `strides` of `tf.nn.max_pool*`/`tf.nn.avg_pool*`, the `strides` of
`tf.nn.conv*`, the `num` of `tf.unstack`, and the shape given to a tensor's `set_shape` (a
static shape set from `tf.shape(...)`).

Not reported: Python values (`ksize=3`, `x.shape[1]`, a parameter with a Python default), and
arguments that accept tensors (`tf.one_hot`'s `depth`, `tf.reshape`'s shape).

## Why is this bad?
These arguments are read when the op is made, not when it runs: while TensorFlow traces a
function a tensor has no value yet, so building the op fails (TF 2.21:
`OperatorNotAllowedInGraphError: Using a symbolic tf.Tensor as a Python bool is not allowed`
for `set_seed` and the pooling and convolution windows, `TypeError` for `tf.unstack`'s `num`).
Called eagerly, where the tensor has a value, the same code works: a `Dataset.map` function
that draws its pooling window with `tf.random.uniform` passes a quick test and fails in the
pipeline.

## Example
```python
import tensorflow as tf


def add_blur(image):
    window = tf.random.uniform((), 2, 5, dtype=tf.int32)
    return tf.nn.avg_pool2d(image[None], window, 1, "SAME")[0]


dataset = tf.data.Dataset.from_tensor_slices(tf.zeros((4, 16, 16, 3))).map(add_blur)
```

## Use instead
```python
import tensorflow as tf


def add_blur(image, window=3):
    return tf.nn.avg_pool2d(image[None], window, 1, "SAME")[0]


dataset = tf.data.Dataset.from_tensor_slices(tf.zeros((4, 16, 16, 3))).map(add_blur)
```

## References
- [Better performance with tf.function: Python values and tensors](https://www.tensorflow.org/guide/function#rules_of_tracing)
- [tf.random.set_seed](https://www.tensorflow.org/api_docs/python/tf/random/set_seed)
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tf_insight.check.context import ModuleContext
from tf_insight.check.graph_model import GraphContext
from tf_insight.check.imports import keyword
from tf_insight.check.index import FunctionInfo
from tf_insight.check.rules import Hit
from tf_insight.check.rules._keras import traced_expecting_error
from tf_insight.check.rules._tensors import tensor_facts
from tf_insight.findings import Severity

CODE = "TFI034"
NAME = "tensor-as-static-argument"
SEVERITY = Severity.ERROR
FAILS_TRACING = True  # TensorFlow raises while it traces the function
HOLDS_IN_TF1 = True  # a TF 1.x graph's tensors have no value either

_POOL = {"ksize": 1, "strides": 2}
_CONV = {"strides": 2}
# op -> {parameter: position} of the arguments read as Python values when the op is made
# (each checked on TF 2.21 under tf.function)
STATIC_ARGUMENTS: dict[str, dict[str, int]] = {
    "tensorflow.random.set_seed": {"seed": 0},
    "tensorflow.compat.v1.set_random_seed": {"seed": 0},
    "tensorflow.unstack": {"num": 1},
    **{f"tensorflow.nn.{pool}": _POOL for pool in (
        "max_pool", "max_pool1d", "max_pool2d", "max_pool3d",
        "avg_pool", "avg_pool1d", "avg_pool2d", "avg_pool3d")},
    **{f"tensorflow.nn.{conv}": _CONV for conv in ("conv2d", "conv3d", "depthwise_conv2d")},
}


def check(module: ModuleContext) -> Iterator[Hit]:
    if not module.mentions("set_seed", "set_random_seed", "pool", "conv", "unstack", "set_shape"):
        return
    for function, context in module.graph.focused_functions():
        if traced_expecting_error(module, context):
            continue
        for call in function.calls:
            if isinstance(call.func, ast.Attribute) and call.func.attr == "set_shape":
                yield from _set_shape(module, function, context, call)
                continue
            qualname = module.qualname(call.func)
            static = STATIC_ARGUMENTS.get(qualname or "")
            if static is None:
                continue
            facts = tensor_facts(module, function, context)
            for parameter, argument in _arguments(call, static):
                if not facts.is_tensor(argument):
                    continue
                op = module.source.segment(call.func)
                yield Hit(
                    argument,
                    f"`{op}` in `{function.qualname}` is given the tensor "
                    f"`{module.source.segment(argument)}` as `{parameter}`, which must be a "
                    "Python value",
                    detail=f"`{parameter}` is read when the op is made: while the function is "
                    f"traced ({context.reason}) the tensor has no value, so tracing fails",
                    help=f"pass a Python number as `{parameter}` (a constant, a static shape, "
                    "an argument with a Python default)")
                break


def _set_shape(module: ModuleContext, function: FunctionInfo, context: GraphContext,
               call: ast.Call) -> Iterator[Hit]:
    """`t.set_shape(tf.shape(image))`: a tensor's static shape set from a dynamic one."""
    assert isinstance(call.func, ast.Attribute)
    if len(call.args) > 1:
        return  # `shapes.set_shape(tensor, shape)`: a helper's, not `Tensor.set_shape(shape)`
    facts = tensor_facts(module, function, context)
    shape = call.args[0] if call.args else keyword(call, "shape")
    if shape is None or not facts.is_tensor(shape):
        return
    yield Hit(shape, f"`{module.source.segment(call.func)}` in `{function.qualname}` is given the "
              f"tensor `{module.source.segment(shape)}` as `shape`, which must be a static "
              "shape", detail="the static shape is set while the function is traced "
              f"({context.reason}), when the tensor has no value: `TypeError: Dimension value "
              "must be integer or None ...`",
              help="pass a static shape: numbers and `None` (`image.shape`, `[None, None, 3]`)")


def _arguments(call: ast.Call, static: dict[str, int]) -> Iterator[tuple[str, ast.expr]]:
    for parameter, position in static.items():
        if position < len(call.args) and not any(
                isinstance(a, ast.Starred) for a in call.args[:position + 1]):
            yield parameter, call.args[position]
        for given in call.keywords:
            if given.arg == parameter:
                yield parameter, given.value
