"""A Keras callback reads `layer.losses` or `model.losses` while `fit` runs: it gets the
symbolic tensors of the traced step, not values.

## What it does
Finds reads of `<layer or model>.losses` in the hooks of a class derived from
`keras.callbacks.Callback` (`on_epoch_end`, `on_train_batch_end`, ..., `on_train_end`), or in
the functions given to a `LambdaCallback` for them (`on_train_batch_begin=lambda batch, logs:
...`), in a module that calls `fit` and whose layers add losses computed from their inputs
(`self.add_loss(tensor)` in `call`, an `activity_regularizer=`); `len(...)` of it (how many
there are) is not reported, nor are modules whose losses are weight regularizers' or
callables given to `add_loss` (those are computed when `losses` is read, eagerly in a
callback: `bench/precision/checks/callable_losses_read_in_callback.py`).

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
    hooks: list[tuple[str, list[ast.AST]]] = [
        (f"`{cls.name}.{name}`", list(hook.nodes))
        for cls, name, hook in callback_hooks(module, FIT_HOOKS)]
    hooks += list(_lambda_callback_hooks(module))
    for where, nodes in hooks:
        counted = {id(call.args[0]) for call in nodes if isinstance(call, ast.Call)
                   and isinstance(call.func, ast.Name) and call.func.id == "len" and call.args}
        for node in nodes:
            if not isinstance(node, ast.Attribute) or node.attr != "losses" or not isinstance(
                    node.ctx, ast.Load) or id(node) in counted or _is_self(node.value):
                continue
            yield Hit(
                node,
                f"`{module.source.segment(node)}` read in {where} holds the "
                "symbolic tensors of fit's traced step",
                detail="the losses `add_loss` adds in a traced `call` are tensors of that "
                "trace's graph, with no value: `float()` raises TypeError and printing shows "
                "`Tensor(\"...:0\")`",
                help="keep the value in a non-trainable weight the layer assigns in `call`, "
                "and read that weight in the callback",
            )


def _lambda_callback_hooks(module: ModuleContext) -> Iterator[tuple[str, list[ast.AST]]]:
    """The nodes of what a `LambdaCallback(on_train_batch_end=...)` runs for a hook `fit`
    calls after tracing: a lambda, or a function of the module."""
    for call, scope in module.calls_named("LambdaCallback"):
        if not (module.qualname(call.func) or "").endswith("callbacks.LambdaCallback"):
            continue
        for given in call.keywords:
            if given.arg not in FIT_HOOKS:
                continue
            where = f"the `LambdaCallback`'s `{given.arg}`"
            if isinstance(given.value, ast.Lambda):
                yield where, list(ast.walk(given.value.body))
            elif (function := module.function_named(given.value, scope)) is not None:
                yield where, list(function.nodes)


def _adds_tensor_losses(module: ModuleContext) -> bool:
    """`self.add_loss(<tensor>)` in a `call` of the module, or a layer made with an
    `activity_regularizer=` (its loss is computed from the layer's output in `call`): a loss of
    the trace. Weight regularizers' losses and callables given to `add_loss` are computed anew
    each time `losses` is read."""
    return any(call.args and not isinstance(call.args[0], ast.Lambda | ast.Name)
               and scope is not None and scope.name == "call"
               for call, scope in module.calls_named("add_loss")) or (
        module.mentions("activity_regularizer") and any(
            given.arg == "activity_regularizer" and not (
                isinstance(given.value, ast.Constant) and given.value.value is None)
            for call, _scope in module.index.calls for given in call.keywords))


def _is_self(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and node.id == "self"
