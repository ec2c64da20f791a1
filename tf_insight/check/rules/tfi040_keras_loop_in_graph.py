"""A Keras model's `predict` (or `evaluate`, `fit`) called in code that runs as a graph.

## What it does
Finds `model.predict(...)`, `predict_on_batch`, `evaluate`, `fit` and `train_on_batch` called in
a graph context — a loss or metric, a Keras `call`/`train_step`, a `tf.function`, a `tf.data`
function, or a helper they call — on a Keras model: a module-level name bound to one
(`keras.Sequential(...)`, `keras.Model(...)`, `load_model(...)`...) or an attribute the class
sets to one (`self.teacher = load_model(path)`).

Not reported: the same calls in eager code, and calls on objects not known to be Keras models.

## Why is this bad?
`predict` and the others are whole Python loops over NumPy batches that manage their own
`tf.function`: they need values, and in traced code the batch is a symbolic tensor. A loss that
weights its samples with another model's `predict` works on a NumPy batch and fails in `fit`
(TF 2.21, Keras 3: `AttributeError: 'SymbolicTensor' object has no attribute 'numpy'` in a
`tf.function`, `TypeError` in `fit`; tf-keras: `RuntimeError: Detected a call to
Model.predict inside a tf.function`; tensorflow/tensorflow#37405).

## Example
```python
import keras
from keras import ops

weigher = keras.Sequential([keras.Input((1,)), keras.layers.Dense(1, activation="sigmoid")])


def weighted_loss(y_true, y_pred):
    weights = weigher.predict(y_true, verbose=0)
    return ops.mean(weights * ops.square(y_true - y_pred), axis=-1)


model = keras.Sequential([keras.Input((1,)), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss=weighted_loss)
```

## Use instead
```python
import keras
from keras import ops

weigher = keras.Sequential([keras.Input((1,)), keras.layers.Dense(1, activation="sigmoid")])


def weighted_loss(y_true, y_pred):
    weights = ops.stop_gradient(weigher(y_true, training=False))
    return ops.mean(weights * ops.square(y_true - y_pred), axis=-1)


model = keras.Sequential([keras.Input((1,)), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss=weighted_loss)
```

## References
- [Keras FAQ: predict vs __call__](https://keras.io/getting_started/faq/#whats-the-difference-between-model-methods-predict-and-call)
- [keras.Model.predict](https://keras.io/api/models/model_training_apis/#predict-method)
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tf_insight.check.context import ModuleContext
from tf_insight.check.index import ClassInfo
from tf_insight.check.rules import Hit
from tf_insight.check.rules._keras import makes_keras_model, model_bindings
from tf_insight.findings import Severity

CODE = "TFI040"
NAME = "keras-loop-in-graph"
SEVERITY = Severity.ERROR
HOLDS_IN_TF1 = False  # TF 1.x Keras ran predict on a session, outside the graph being built
HOLDS_EAGERLY = False  # called eagerly (run_eagerly=True), predict gets values and works

LOOPS = frozenset({"predict", "predict_on_batch", "evaluate", "fit", "train_on_batch"})


def check(module: ModuleContext) -> Iterator[Hit]:
    if not module.mentions(*LOOPS):
        return
    models = set(model_bindings(module, None))
    for function, context in module.graph.focused_functions():
        for call in function.calls:
            func = call.func
            if not isinstance(func, ast.Attribute) or func.attr not in LOOPS:
                continue
            receiver = func.value
            if not ((isinstance(receiver, ast.Name) and receiver.id in models
                     and receiver.id not in function.local_names)
                    or (function.cls is not None and _model_attribute(module, function.cls,
                                                                      receiver))):
                continue
            name = module.source.segment(receiver)
            yield Hit(
                call,
                f"`{name}.{func.attr}(...)` in `{function.qualname}` runs Keras's "
                f"`{func.attr}` loop in code that runs as a graph",
                detail=f"the function is traced ({context.reason}): `{func.attr}` needs values "
                "and manages its own tf.function, and here it gets symbolic tensors "
                "(`'SymbolicTensor' object has no attribute 'numpy'`, or `Detected a call to "
                "Model.predict inside a tf.function`)",
                help=f"call the model itself: `{name}(x, training=False)`"
                if func.attr.startswith("predict") else
                f"run `{func.attr}` outside the traced function",
            )


def _model_attribute(module: ModuleContext, cls: ClassInfo, node: ast.expr) -> bool:
    """`self.teacher` where a method of the class assigns a Keras model to it."""
    if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and node.value.id == "self"):
        return False
    return any(
        isinstance(target, ast.Attribute) and target.attr == node.attr
        and isinstance(target.value, ast.Name) and target.value.id == "self"
        and makes_keras_model(module, assign.value)
        for method in cls.methods.values() for assign in method.nodes.of(ast.Assign)
        for target in assign.targets)
