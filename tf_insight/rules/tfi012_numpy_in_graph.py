"""NumPy conversion of a tensor (`.numpy()`, `np.*`, `float()`/`int()`/`bool()`) in code that
TensorFlow traces into a graph.

## What it does
Finds, inside a graph context (a `tf.function`, a Keras `call`/`train_step`, a loss or
metric, a `tf.data` function, or a helper called from one):
- `.numpy()` calls;
- `np.*` functions applied to a tensor (a parameter that graph mode fills with a tensor, the
  result of a `tf.*`/`keras.ops` op, or a name assigned from one);
- `bool(tensor)`, and `float(tensor)`/`int(tensor)` where AutoGraph does not convert them
  (Keras 3 `Layer.call`, any Keras `train_step`, `tf.function(autograph=False)`,
  `do_not_convert`).

NumPy on Python values is fine and not reported: `np.sqrt(2.0)`, `np.prod(x.shape[1:])`,
`np.float32`, `int(x.shape[-1])`. Neither is code that cannot see a symbolic tensor (under
`with tf.init_scope():`, `if tf.executing_eagerly():` or a helper returning it, type guards:
see `tf_insight/guards.py`), nor `tf.py_function`/`tf.numpy_function` callbacks, where tensors
are eager.

## Why is this bad?
While TensorFlow traces a function, tensors are symbolic: they have a shape and a dtype but no
value. `.numpy()` raises `AttributeError: 'SymbolicTensor' object has no attribute 'numpy'`,
NumPy raises `NotImplementedError: Cannot convert a symbolic tf.Tensor to a numpy array` (or a
`TypeError` where it needs a number: `np.eye(tf.shape(x)[0])`), and
`bool()` (or `float()`/`int()` without AutoGraph) raises `OperatorNotAllowedInGraphError` or
`TypeError`. The same code works when the layer or function is called eagerly, so it breaks
only under `fit`, `tf.function` or `tf.data`.

## Example
```python
import numpy as np
import tensorflow as tf


@tf.function
def normalize(x):
    mean = np.mean(x)
    return (x - mean) / x.numpy().std()
```

## Use instead
```python
import numpy as np
import tensorflow as tf


@tf.function
def normalize(x):
    mean = tf.reduce_mean(x)
    scale = np.sqrt(2.0)  # NumPy on Python constants is fine
    return (x - mean) / (tf.math.reduce_std(x) * scale)
```

## References
- [tf.function guide](https://www.tensorflow.org/guide/function)
- [tf.numpy_function](https://www.tensorflow.org/api_docs/python/tf/numpy_function)
- [AutoGraph limitations](https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/g3doc/reference/limitations.md)
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tf_insight.context import GraphContext, ModuleContext
from tf_insight.findings import Severity
from tf_insight.guards import guarded_nodes
from tf_insight.index import FunctionInfo
from tf_insight.rules import Hit
from tf_insight.rules._tensors import (
    context_label,
    tensor_facts,
)

CODE = "TFI012"
NAME = "numpy-in-graph"
SEVERITY = Severity.ERROR

# NumPy functions that read only `.shape`/`.ndim`/`.dtype`, or take no array at all.
NUMPY_SAFE = frozenset({
    "shape", "ndim", "isscalar", "iterable", "dtype", "issubdtype", "iinfo", "finfo",
    "result_type", "promote_types", "can_cast", "broadcast_shapes", "errstate",
})


def check(module: ModuleContext) -> Iterator[Hit]:
    for function, context in module.graph_functions():
        where = context_label(function, context)
        for node in function.calls:
            for hit in _conversions(module, function, context, node, where):
                if node not in guarded_nodes(module, function):  # looked for around hits only
                    yield hit


def _conversions(module: ModuleContext, function: FunctionInfo, context: GraphContext,
                 node: ast.Call, where: str) -> Iterator[Hit]:
    func = node.func
    if (isinstance(func, ast.Attribute) and func.attr == "numpy" and not node.args
            and not node.keywords):
        yield Hit(node, f"`{module.source.segment(node)}` in {where}: tensors are "
                        "symbolic while the function is traced and have no value "
                        "(`AttributeError: 'SymbolicTensor' object has no attribute "
                        "'numpy'`); keep the computation in TensorFlow ops")
        return
    qualname = module.qualname(func)
    if qualname is not None and qualname.startswith("numpy."):
        if qualname.rsplit(".", 1)[-1] in NUMPY_SAFE:
            return
        facts = tensor_facts(module, function, context)
        tensors = [a for a in [*node.args, *(k.value for k in node.keywords)]
                   if facts.is_tensor(a)]
        if tensors:
            label = module.source.segment(func)
            yield Hit(node, f"`{label}(...)` in {where} is given the tensor "
                            f"`{facts.label(tensors[0])}`, which is symbolic while the "
                            "function is traced (NumPy raises `NotImplementedError: Cannot "
                            "convert a symbolic tf.Tensor to a numpy array`, or a `TypeError` "
                            "where it needs a number); use the `tf.*`/`keras.ops` equivalent")
        return
    if (isinstance(func, ast.Name) and qualname is None
            and func.id in ("float", "int", "bool") and len(node.args) == 1
            and not _rebound(module, func.id)):
        if func.id != "bool" and context.autograph:
            return  # AutoGraph turns float()/int() of a tensor into tf.cast
        if tensor_facts(module, function, context).is_tensor(node.args[0]):
            why = ("`bool()` of a symbolic tensor raises "
                   "`OperatorNotAllowedInGraphError`" if func.id == "bool" else
                   f"`{func.id}()` of a symbolic tensor raises `TypeError` (no "
                   "AutoGraph here to turn it into a cast)")
            yield Hit(node, f"`{module.source.segment(node)}` in {where}: {why}; use "
                            "`tf.cast(...)`/`keras.ops.cast(...)`, or a static shape "
                            "value")


def _rebound(module: ModuleContext, name: str) -> bool:
    return name in module.index.module_functions() or name in module.imports.aliases
