"""A tensor passed as `training=` to a Keras 3 layer that tests it as a Python bool.

## What it does
Finds `training=` arguments that are tensors — the result of a TensorFlow op
(`tf.logical_and(training, self.trainable)`, `tf.constant(False)`, `tf.equal(mode, 1)`), or a
name assigned from one in the same function — given to a Keras 3 layer whose `call` tests
`training` with Python's `if`/`and`: `BatchNormalization`, the dropout and noise layers, the
random augmentation layers, a layer of the module whose `call` does so, and `super().call(...)`
in a subclass of one of these.

Not reported: tf-keras code (its layers take a tensor `training` through `smart_cond`), a
Python bool or `None`, and layers that ignore `training` (`Dense`) or whose class the analysis
cannot see.

## Why is this bad?
Keras 3's layers decide between training and inference with plain Python
(`if training and self.trainable:` in `BatchNormalization.call`, `if training and self.rate > 0`
in `Dropout.call`), and Keras 3 does not rewrite them with AutoGraph. Called eagerly a tensor
flag works (an eager tensor has a truth value), but while the layer is traced — building a
functional or Sequential model with an `Input`, `fit`, `predict` — it raises
`OperatorNotAllowedInGraphError: Using a symbolic tf.Tensor as a Python bool is not allowed`
(TF 2.21, Keras 3.15: `BatchNormalization` and `Dropout` fail, `Dense` does not; with tf-keras all
three work).

## Example
```python
import tensorflow as tf


class FrozenAwareNorm(tf.keras.layers.BatchNormalization):
    def call(self, inputs, training=None):
        training = tf.logical_and(bool(training), self.trainable)
        return super().call(inputs, training=training)
```

## Use instead
```python
import tensorflow as tf


class FrozenAwareNorm(tf.keras.layers.BatchNormalization):
    def call(self, inputs, training=None):
        training = bool(training) and self.trainable
        return super().call(inputs, training=training)
```

## References
- [keras.layers.BatchNormalization](https://keras.io/api/layers/normalization_layers/batch_normalization/)
- [Keras 3: the `training` argument](https://keras.io/guides/making_new_layers_and_models_via_subclassing/#privileged-training-argument-in-the-call-method)
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tf_insight.check.context import ModuleContext
from tf_insight.check.index import ClassInfo, FunctionInfo, self_attribute
from tf_insight.check.rules import Hit
from tf_insight.check.rules._attributes import attribute_stores
from tf_insight.findings import Related, Severity

CODE = "TFI030"
NAME = "tensor-as-training-flag"
SEVERITY = Severity.ERROR
FLAVOR_DEPENDENT = True  # tf-keras layers accept a tensor flag
# Keras 3.15 layers whose `call` tests `training` with Python `if`/`and`
TESTS_TRAINING = frozenset({
    "BatchNormalization", "Dropout", "SpatialDropout1D", "SpatialDropout2D", "SpatialDropout3D",
    "GaussianNoise", "GaussianDropout", "AlphaDropout", "RandomFlip", "RandomRotation",
    "RandomZoom", "RandomTranslation", "RandomContrast", "RandomCrop", "RandomBrightness",
})
# what is not a tensor though TensorFlow returns it
NOT_TENSORS = frozenset({"tensorflow.executing_eagerly", "tensorflow.is_tensor"})


def check(module: ModuleContext) -> Iterator[Hit]:
    if module.flavor != "3" or not module.mentions("training"):
        return
    for function in module.focused_functions():
        if isinstance(function.node, ast.Lambda):
            continue
        for call in function.calls:
            flag = next((k.value for k in call.keywords if k.arg == "training"), None)
            if flag is None:
                continue
            tensor = _tensor(module, function, flag, call)
            if tensor is None:
                continue
            layer = _tests_training(module, function, call.func)
            if layer is not None:
                yield _hit(module, flag, tensor, layer)


def _hit(module: ModuleContext, flag: ast.expr, tensor: ast.Call, layer: str) -> Hit:
    related: tuple[Related, ...] = ()
    if tensor is not flag:
        related = (Related(module.path, module.span(tensor), "where the flag becomes a tensor"),)
    return Hit(
        flag,
        f"`training={module.source.segment(flag)}` gives `{layer}` a tensor, which it tests as "
        "a Python bool",
        related=related,
        detail="Keras 3 layers decide with plain Python (`if training and ...`): traced by "
        "model building, fit or predict, this raises `OperatorNotAllowedInGraphError: Using a "
        "symbolic tf.Tensor as a Python bool is not allowed`",
        help="pass a Python bool (`bool(training) and self.trainable`), or `None` to let Keras "
        "decide",
    )


def _tensor(module: ModuleContext, function: FunctionInfo, value: ast.expr, before: ast.expr
            ) -> ast.Call | None:
    """The TensorFlow call that makes `value` a tensor: `value` itself, or the last assignment
    to the name `value` before `before` in `function`."""
    if isinstance(value, ast.Call):
        qualname = module.qualname(value.func) or ""
        if qualname.startswith("tensorflow.") and qualname not in NOT_TENSORS:
            return value
        return None
    if not isinstance(value, ast.Name):
        return None
    earlier = [a for a in function.nodes.assignments_to(value.id)
               if (a.lineno, a.col_offset) < (before.lineno, before.col_offset)]
    if not earlier or isinstance(earlier[-1], ast.AugAssign) or earlier[-1].value is None:
        return None
    assigned = earlier[-1].value
    return _tensor(module, function, assigned, before) if isinstance(assigned, ast.Call) else None


def _tests_training(module: ModuleContext, function: FunctionInfo, func: ast.expr) -> str | None:
    """The name of the layer `func` calls, when its `call` tests `training` as a Python bool."""
    if isinstance(func, ast.Attribute) and func.attr in ("call", "__call__") and isinstance(
            func.value, ast.Call) and isinstance(func.value.func, ast.Name) and (
            func.value.func.id == "super"):
        # `super().call(...)` in a subclass of a layer that tests it
        return next((base for base in _base_names(module, function.cls)
                     if base in TESTS_TRAINING), None) if function.cls else None
    if isinstance(func, ast.Call):
        return _layer_made(module, func)
    attribute = self_attribute(func)
    if attribute is not None and function.cls is not None:
        stores = attribute_stores(module, function.cls).get(attribute, [])
        made = {_layer_made(module, store.value) for store in stores}
        return made.pop() if len(made) == 1 else None
    return None


def _layer_made(module: ModuleContext, value: ast.AST | None) -> str | None:
    """`Dropout` for `keras.layers.Dropout(0.2)`; a layer class of the module whose `call` tests
    `training`."""
    if not isinstance(value, ast.Call):
        return None
    qualname = module.qualname(value.func) or ""
    last = qualname.rsplit(".", 1)[-1]
    if qualname.startswith("keras.layers.") and last in TESTS_TRAINING:
        return last
    cls = module.index.module_classes().get(getattr(value.func, "id", ""))
    if cls is not None and module.keras_kind(cls) == "layer" and _call_tests_training(cls):
        return cls.name
    return None


def _base_names(module: ModuleContext, cls: ClassInfo) -> Iterator[str]:
    for base in cls.node.bases:
        qualname = module.qualname(base) or ""
        if qualname.startswith("keras.layers."):
            yield qualname.rsplit(".", 1)[-1]


def _call_tests_training(cls: ClassInfo) -> bool:
    """`if training:` / `training and ...` / `x if training else y` in the class's `call`."""
    call = cls.methods.get("call")
    if call is None:
        return False
    tests = [node.test for node in call.nodes.of(ast.If, ast.IfExp)]
    tests += [value for node in call.nodes.of(ast.BoolOp) for value in node.values]
    return any((isinstance(test, ast.Name) and test.id == "training") or (
        isinstance(test, ast.UnaryOp) and isinstance(test.operand, ast.Name)
        and test.operand.id == "training") for test in tests)
