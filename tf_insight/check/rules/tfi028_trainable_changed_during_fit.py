"""A layer's `trainable` set by a Keras callback while `fit` runs.

## What it does
Finds assignments to `<layer>.trainable` in the hooks a Keras callback runs during training
(`on_train_begin`, `on_epoch_begin`/`on_epoch_end`, `on_train_batch_begin`/`end`,
`on_batch_begin`/`end`) of a class derived from `keras.callbacks.Callback`: the "unfreeze the
backbone after N epochs" pattern.

Not reported: `on_train_end` (training is over), the test and predict hooks, and changes made
outside a callback (between two `fit` calls, with `compile` in between, is the way to do it).

## Why is this bad?
`fit` traces its train step once, with the list of trainable variables it had then; a change of
`trainable` during that `fit` is not seen by the traced step, so the unfrozen layer is not
trained for the rest of the run, silently (TF 2.21, Keras 3 and tf-keras: the backbone's kernel
does not change in the epochs after the callback sets `trainable = True`, although
`model.trainable_weights` lists it). Calling `self.model.compile(...)` inside the callback
does not help: `fit` then fails with `TypeError: 'NoneType' object is not callable`.

## Example
```python
import tensorflow as tf


class Unfreeze(tf.keras.callbacks.Callback):
    def __init__(self, backbone):
        super().__init__()
        self.backbone = backbone

    def on_epoch_end(self, epoch, logs=None):
        if epoch == 4:
            self.backbone.trainable = True
```

## Use instead
```python
import numpy as np
import tensorflow as tf

backbone = tf.keras.layers.Dense(8)
model = tf.keras.Sequential([tf.keras.Input((4,)), backbone, tf.keras.layers.Dense(1)])
x, y = np.random.rand(64, 4), np.random.rand(64, 1)

backbone.trainable = False
model.compile(optimizer="sgd", loss="mse")
model.fit(x, y, epochs=5)
backbone.trainable = True
model.compile(optimizer="sgd", loss="mse")  # a new train step, with the backbone's weights
model.fit(x, y, epochs=5)
```

## References
- [Keras: transfer learning and fine-tuning](https://keras.io/guides/transfer_learning/)
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tf_insight.check.context import ModuleContext
from tf_insight.check.rules import Hit
from tf_insight.check.rules._keras import callback_hooks
from tf_insight.findings import Severity

CODE = "TFI028"
NAME = "trainable-changed-during-fit"
SEVERITY = Severity.WARNING
HOLDS_IN_TF1 = True  # about how Keras is used, the same in TF 1.x code

TRAINING_HOOKS = frozenset({"on_train_begin", "on_epoch_begin", "on_epoch_end",
                            "on_train_batch_begin", "on_train_batch_end", "on_batch_begin",
                            "on_batch_end"})


def check(module: ModuleContext) -> Iterator[Hit]:
    if not module.mentions("trainable"):
        return
    for cls, name, method in callback_hooks(module, TRAINING_HOOKS):
        for assign in method.nodes.of(ast.Assign, ast.AugAssign):
            targets = assign.targets if isinstance(assign, ast.Assign) else [assign.target]
            for target in targets:
                if isinstance(target, ast.Attribute) and target.attr == "trainable":
                    yield Hit(target, f"`{module.source.segment(target)}` is set in "
                              f"`{cls.name}.{name}`, while `fit` runs",
                              detail="fit traced its train step with the trainable "
                              "variables it had then: the change is not seen for the rest "
                              "of this fit, and compiling again inside the callback makes "
                              "fit fail",
                              help="stop this fit, set `trainable`, call `compile()` "
                              "again, and continue with a second `fit`")
