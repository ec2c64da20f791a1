"""Eager execution turned off in a module whose Keras model overrides `train_step`.

## What it does
Finds `tf.compat.v1.disable_eager_execution()` (or `disable_v2_behavior()`) in a module that
defines a Keras model overriding `train_step`, `test_step` or `predict_step`.

Not reported: turning eager execution off in a module without such a model (TF 1.x-style code
that trains with sessions or with the built-in steps).

## Why is this bad?
The custom steps exist only in TF 2's `fit`, which runs them in a `tf.function`. With eager
execution off, tf-keras trains through its TF 1.x graph loop instead, which never calls
`train_step`: `fit` silently trains the compiled loss with the default step, and the custom
step's logic (gradient clipping, extra losses, its metrics) is skipped with no error (TF 2.21,
tf-keras: the history logs only `loss`, and a counter in `train_step` stays 0). Keras 3 does
not run at all without eager execution (`fit` raises `RuntimeError: tf.data.Dataset only
supports Python-style iteration in eager mode or within tf.function`).

## Example
```python
import tensorflow as tf

tf.compat.v1.disable_eager_execution()


class Clipped(tf.keras.Model):
    def train_step(self, data):
        features, target = data
        with tf.GradientTape() as tape:
            loss = self.compiled_loss(target, self(features, training=True))
        grads = tape.gradient(loss, self.trainable_variables)
        grads = [tf.clip_by_norm(g, 1.0) for g in grads]
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        return {"loss": loss}
```

## Use instead
```python
import tensorflow as tf


class Clipped(tf.keras.Model):
    def train_step(self, data):
        features, target = data
        with tf.GradientTape() as tape:
            loss = self.compiled_loss(target, self(features, training=True))
        grads = tape.gradient(loss, self.trainable_variables)
        grads = [tf.clip_by_norm(g, 1.0) for g in grads]
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        return {"loss": loss}
```

## References
- [Customizing what happens in fit()](https://www.tensorflow.org/guide/keras/customizing_what_happens_in_fit)
- [tf.compat.v1.disable_eager_execution](https://www.tensorflow.org/api_docs/python/tf/compat/v1/disable_eager_execution)
"""

from __future__ import annotations

from collections.abc import Iterator

from tf_insight.check.context import TF2_SWITCHES_OFF, ModuleContext
from tf_insight.check.rules import Hit
from tf_insight.findings import Related, Severity

CODE = "TFI037"
NAME = "custom-step-without-eager"
SEVERITY = Severity.ERROR
FLAVOR_DEPENDENT = True  # skipped on tf-keras, fails on Keras 3
HOLDS_IN_TF1 = True  # a hazard of TF 1.x graph mode itself

STEPS = ("train_step", "test_step", "predict_step")


def check(module: ModuleContext) -> Iterator[Hit]:
    if not module.mentions("disable_eager_execution", "disable_v2_behavior") or (
            not module.mentions(*STEPS)):
        return
    steps = [(cls, method) for cls in module.index.classes
             if module.keras_kind(cls) == "model"
             for name, method in cls.methods.items() if name in STEPS]
    if not steps:
        return
    cls, step = steps[0]
    for call, _scope in module.calls_named("disable_eager_execution", "disable_v2_behavior"):
        if not module.refers_to(call.func, TF2_SWITCHES_OFF):
            continue
        if module.flavor == "2":
            what = (f"tf-keras then trains through its TF 1.x graph loop, which never calls "
                    f"`{step.name}`: `fit` silently uses the default step")
        else:
            what = ("Keras 3 needs eager execution: `fit` raises `RuntimeError: tf.data.Dataset "
                    "only supports Python-style iteration in eager mode or within tf.function`")
        yield Hit(
            call,
            f"eager execution is turned off, and `{cls.name}` overrides `{step.name}`, which "
            "only eager TF 2 runs",
            related=(Related(module.path, module.span(step.node), f"`{step.name}` here"),),
            detail=what,
            help="leave eager execution on (TF 2's default): `fit` then runs the custom step in "
            "a `tf.function`")
