"""A Keras callback reads `layer.losses` or `model.losses` while `fit` runs: it gets the
symbolic tensors of the traced step, not values.

## What it does
Finds reads of `<layer or model>.losses` in the hooks of a class derived from
`keras.callbacks.Callback` (`on_epoch_end`, `on_train_batch_end`, ..., `on_train_end`), in a
module that calls `fit` and whose layers add losses of their own in `call`
(`self.add_loss(tensor)`); `len(...)` of it (how many there are) is not reported, nor are
modules whose losses are regularizers' or callables given to `add_loss` (those are computed
when `losses` is read, eagerly in a callback: `bench/precision/checks/
callable_losses_read_in_callback.py`).

## Why is this bad?
`fit` runs a traced train step: the losses a layer adds with `add_loss` in its `call` are
tensors of that trace's graph, and `losses` keeps the last ones it saw. Read from a callback,
they are symbolic tensors with no value: `float(...)` raises `TypeError: float() argument must
be a string or a real number, not 'SymbolicTensor'`, `.numpy()` raises `AttributeError`, and
printing shows `Tensor("sequential/sparse_code/mul:0", ...)` (TF 2.21, Keras 3 and tf-keras alike).

## Example
```python
import tensorflow as tf


class SparseCode(tf.keras.layers.Layer):
    def call(self, x):
        self.add_loss(0.01 * tf.reduce_mean(tf.abs(x)))
        return x


class ShowPenalty(tf.keras.callbacks.Callback):
    def on_epoch_end(self, epoch, logs=None):
        print("penalty:", float(self.model.losses[0]))


model = tf.keras.Sequential([tf.keras.Input((4,)), SparseCode(), tf.keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss="mse")
model.fit(tf.ones((8, 4)), tf.ones((8, 1)), callbacks=[ShowPenalty()])
```

## Use instead
```python
import tensorflow as tf


class SparseCode(tf.keras.layers.Layer):
    def build(self, input_shape):
        self.last_penalty = self.add_weight(shape=(), initializer="zeros", trainable=False)

    def call(self, x):
        penalty = 0.01 * tf.reduce_mean(tf.abs(x))
        self.last_penalty.assign(penalty)  # a value the callback can read
        self.add_loss(penalty)
        return x


class ShowPenalty(tf.keras.callbacks.Callback):
    def on_epoch_end(self, epoch, logs=None):
        print("penalty:", float(self.model.layers[0].last_penalty.numpy()))


model = tf.keras.Sequential([tf.keras.Input((4,)), SparseCode(), tf.keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss="mse")
model.fit(tf.ones((8, 4)), tf.ones((8, 1)), callbacks=[ShowPenalty()])
```

## References
- [Keras: the add_loss() API](https://keras.io/api/losses/#the-addloss-api)
- [Writing your own callbacks](https://keras.io/guides/writing_your_own_callbacks/)
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tf_insight.check.context import ModuleContext
from tf_insight.check.rules import Hit, Reads
from tf_insight.check.rules._keras import callback_hooks
from tf_insight.findings import Severity

CODE = "TFI031"
NAME = "traced-losses-read-in-callback"
SEVERITY = Severity.WARNING
READS = Reads(calls=frozenset({"fit", "add_loss"}))
# the hooks fit calls after its train step has been traced
FIT_HOOKS = frozenset({"on_epoch_begin", "on_epoch_end", "on_train_batch_begin",
                       "on_train_batch_end", "on_batch_begin", "on_batch_end", "on_train_end",
                       "on_test_begin", "on_test_end", "on_test_batch_end"})


def check(module: ModuleContext) -> Iterator[Hit]:
    if not module.mentions("losses") or not any(
            isinstance(call.func, ast.Attribute) for call, _ in module.calls_named("fit")):
        return
    if not _adds_tensor_losses(module):
        return  # regularizers and callable losses are computed when `losses` is read
    for cls, name, hook in callback_hooks(module, FIT_HOOKS):
        counted = {id(call.args[0]) for call in hook.calls
                   if isinstance(call.func, ast.Name) and call.func.id == "len" and call.args}
        for node in hook.nodes.of(ast.Attribute):
            if node.attr != "losses" or not isinstance(node.ctx, ast.Load) or (
                    id(node) in counted) or _is_self(node.value):
                continue
            yield Hit(
                node,
                f"`{module.source.segment(node)}` read in `{cls.name}.{name}` holds the "
                "symbolic tensors of fit's traced step",
                detail="the losses `add_loss` adds in a traced `call` are tensors of that "
                "trace's graph, with no value: `float()` raises TypeError and printing shows "
                "`Tensor(\"...:0\")`",
                help="keep the value in a non-trainable weight the layer assigns in `call`, "
                "and read that weight in the callback",
            )


def _adds_tensor_losses(module: ModuleContext) -> bool:
    """`self.add_loss(<tensor>)` in a `call` of the module: a loss of the trace. Regularizers'
    losses and callables given to `add_loss` are computed anew each time `losses` is read."""
    return any(call.args and not isinstance(call.args[0], ast.Lambda | ast.Name)
               and scope is not None and scope.name == "call"
               for call, scope in module.calls_named("add_loss"))


def _is_self(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and node.id == "self"
