"""A Keras 3 layer keeps a tensor that its `build` computed, and reads it in `call`.

## What it does
Finds `self.<name> = <TensorFlow op>(...)` in the `build` of a Keras 3 layer or model
(`self.scale = tf.sqrt(tf.cast(d, tf.float32))`, `self.table = tf.constant(...)`), when a method
of the class reads `self.<name>`.

Not reported: variables (`self.add_weight`, `keras.Variable`, `tf.Variable`, also a tensor that
`build` then wraps in one: `self.w = tf.random.uniform(...); self.w = tf.Variable(self.w)`),
Python values (`self.scale = d ** -0.5`), `keras.ops` results, code under `with tf.init_scope():`, tf-keras
code (tf-keras runs `build` under `init_scope`, eagerly), and classes the module applies to a
`keras.Input` (a functional model builds them on symbolic inputs, outside any trace).

## Why is this bad?
Keras 3 builds a layer the first time it is called. In a subclassed model trained with `fit`
(or first run by `predict`), that first call is inside the step Keras traces, so `build` runs in
that trace's graph and the tensor it keeps belongs to it. The next trace (the step traced for
real after Keras's symbolic build, `evaluate`, `predict`) reads a tensor of another graph:
`InaccessibleTensorError: <tf.Tensor 'Sqrt:0' ...> is out of scope and cannot be used here`
(TF 2.21, Keras 3). The same layer in a functional model, or in tf-keras, works, which hides it.

## Example
```python
import keras
import tensorflow as tf


class Scaled(keras.layers.Layer):
    def build(self, input_shape):
        self.scale = tf.sqrt(tf.cast(input_shape[-1], tf.float32))

    def call(self, x):
        return x / self.scale
```

## Use instead
```python
import keras
import tensorflow as tf


class Scaled(keras.layers.Layer):
    def build(self, input_shape):
        self.scale = float(input_shape[-1]) ** 0.5

    def call(self, x):
        return x / self.scale
```

## References
- [Keras: making new layers and models via subclassing](https://keras.io/guides/making_new_layers_and_models_via_subclassing/)
- [tf.function: tensors out of scope](https://www.tensorflow.org/guide/function#accessing_variables_and_tensors)
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tf_insight.check.context import ModuleContext
from tf_insight.check.guards import eager_nodes
from tf_insight.check.index import ClassInfo, FunctionInfo, self_attribute
from tf_insight.check.rules import Hit
from tf_insight.check.rules._attributes import VARIABLES
from tf_insight.check.rules._keras import applied_to_input, first_parameter
from tf_insight.check.rules._tensors import tensor_op
from tf_insight.findings import Severity

CODE = "TFI041"
NAME = "tensor-made-in-build"
SEVERITY = Severity.WARNING
FLAVOR_DEPENDENT = True  # tf-keras builds under init_scope
HOLDS_IN_TF1 = False  # TF 1.x builds its graph once
HOLDS_EAGERLY = False  # run eagerly, every tensor is a value


def check(module: ModuleContext) -> Iterator[Hit]:
    if module.flavor != "3" or not module.mentions("def build"):
        return
    for cls in module.focused_classes():
        build = cls.methods.get("build")
        me = first_parameter(build) if build is not None else None
        if build is None or me is None or module.keras_kind(cls) not in ("layer", "model"):
            continue
        if applied_to_input(module, cls) is not None:
            continue  # built on a keras.Input, outside any trace
        eager = eager_nodes(module, build)
        for assign in build.nodes.of(ast.Assign):
            if assign in eager or not isinstance(assign.value, ast.Call):
                continue
            op = _tensorflow_op(module, assign.value)
            if op is None:
                continue
            for target in assign.targets:
                attribute = self_attribute(target, me)
                if attribute is None or not _read_elsewhere(cls, me, attribute) or (
                        _made_a_variable_after(module, build, me, attribute, assign)):
                    continue
                yield Hit(
                    assign.value,
                    f"`{me}.{attribute}` keeps the tensor `{op}` makes in `{cls.name}.build`, "
                    "and the layer reads it later",
                    detail="Keras 3 builds a layer at its first call: in a subclassed model that "
                    "call is inside the step `fit`/`predict` traces, so the tensor belongs to "
                    "that graph and the next trace raises `... is out of scope and cannot be "
                    "used here` (a functional model builds it eagerly, which hides it)",
                    help="keep a Python number, compute it in `call`, make it a non-trainable "
                    "`self.add_weight(...)`, or wrap the line in `with tf.init_scope():`",
                )


def _tensorflow_op(module: ModuleContext, call: ast.Call) -> str | None:
    """`tf.sqrt(...)`, `tf.constant(...)`: a TensorFlow op's tensor (not a variable, not a
    `keras.ops` result: Keras converts those for its own backend)."""
    qualname = module.qualname(call.func) or ""
    if not qualname.startswith("tensorflow.") or qualname in VARIABLES:
        return None
    return tensor_op(module, call) and module.source.segment(call.func)


def _made_a_variable_after(module: ModuleContext, build: FunctionInfo, me: str, attribute: str,
                           assign: ast.Assign) -> bool:
    """Whether `build` later stores a variable in `me.attribute` (`self.w = tf.Variable(self.w)`):
    the tensor was only its initial value."""
    return any(
        later.lineno > assign.lineno and isinstance(later.value, ast.Call)
        and ((module.qualname(later.value.func) or "") in VARIABLES or (
            isinstance(later.value.func, ast.Attribute) and later.value.func.attr == "add_weight"))
        and any(self_attribute(t, me) == attribute for t in later.targets)
        for later in build.nodes.of(ast.Assign))


def _read_elsewhere(cls: ClassInfo, me: str, attribute: str) -> bool:
    """Whether a method other than `build` reads `me.attribute`."""
    return any(
        isinstance(node.ctx, ast.Load) and self_attribute(node, me) == attribute
        for name, method in cls.methods.items() if name != "build"
        for node in method.nodes.of(ast.Attribute))
