"""A `tf.function` method called on an object made in the same expression.

## What it does
Finds `Cls(...).method(...)` where `method` is a method of a class of the module decorated with
`@tf.function` (`@tf.function(...)` too): the instance exists only for that expression.

Not reported: methods without `tf.function`, and calls on an instance kept in a name or an
attribute (`smoother = Smoother(0.9)`, then `smoother.blend(old, new)`).

## Why is this bad?
A `tf.function` method holds its instance only through a weak reference, so that a traced
method does not keep its object alive. An instance made in the call expression has no other
reference: it can be collected before the traced method runs, and inside the method `self` is
then `None` (TF 2.21: the example below raises `AttributeError: 'NoneType' object has no
attribute 'weight'`, while the same call on a named instance returns 0.9;
tensorflow/tensorflow#50807).

## Example
```python
import tensorflow as tf


class Smoother:
    def __init__(self, weight):
        self.weight = weight

    @tf.function
    def blend(self, old, new):
        return self.weight * old + (1.0 - self.weight) * new


print(Smoother(0.9).blend(tf.constant(1.0), tf.constant(0.0)))
```

## Use instead
```python
import tensorflow as tf


class Smoother:
    def __init__(self, weight):
        self.weight = weight

    @tf.function
    def blend(self, old, new):
        return self.weight * old + (1.0 - self.weight) * new


smoother = Smoother(0.9)
print(smoother.blend(tf.constant(1.0), tf.constant(0.0)))
```

## References
- [tf.function: using with Python objects](https://www.tensorflow.org/guide/function#depending_on_python_global_and_free_variables)
- [tf.function](https://www.tensorflow.org/api_docs/python/tf/function)
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tf_insight.check.context import ModuleContext
from tf_insight.check.rules import Hit
from tf_insight.findings import Severity

CODE = "TFI039"
NAME = "tf-function-method-on-temporary"
SEVERITY = Severity.ERROR
HOLDS_IN_TF1 = False  # TF 2's tf.function
HOLDS_EAGERLY = True  # the call outside graph code fails in the trace it starts


def check(module: ModuleContext) -> Iterator[Hit]:
    classes = module.index.module_classes()
    if not classes or not module.mentions("function"):
        return
    for call, _scope in module.focused_calls():
        func = call.func
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call)
                and isinstance(func.value.func, ast.Name) and func.value.func.id in classes):
            continue
        method = module.method_of(classes[func.value.func.id], func.attr)
        if method is None or not isinstance(method.node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        if any("tf.function" in module.decorator_effects(d) for d in method.node.decorator_list):
            made = module.source.segment(func.value)
            yield Hit(
                call,
                f"the `tf.function` method `{method.qualname}` is called on `{made}`, an "
                "object made in the same expression",
                detail="a tf.function method keeps only a weak reference to its instance: "
                "nothing else holds this one, so it can be gone when the traced method runs, "
                "and `self` is then None (`AttributeError: 'NoneType' object has no "
                "attribute ...`)",
                help=f"keep the instance in a name first (`obj = {made}`), then call "
                f"`obj.{func.attr}(...)`",
            )
