"""`fit`/`evaluate`/`predict` given a `tf.data.Dataset` plus arguments that only apply to arrays.

## What it does
Finds `model.fit(...)`, `model.evaluate(...)` and `model.predict(...)` whose input `x` is a
`tf.data.Dataset` (a `tf.data...` chain, a Keras dataset utility such as
`keras.utils.image_dataset_from_directory`, a name assigned from one, or what a function of the
module returns, alone or in a tuple: `train, val = make_splits(root)`) and that also get:
- `batch_size=` — silently ignored: the dataset's own batching is used;
- `y=` (or a second positional argument to `fit`/`evaluate`) — `ValueError`;
- `sample_weight=` — `ValueError`;
- `validation_split=` — `ValueError`;
- `class_weight=` while the dataset already yields `(x, y, sample_weight)` — an error too.

Not reported: a model of a class of the project that defines its own `fit`/`evaluate`/
`predict` (its parameters are its own), arguments given as `None` (or `validation_split=0`),
a constant in `y`'s place (`fit(dataset, 1)`: another `fit`, such as a subclass's
`fit(batches, epochs)`), `class_weight` with a dataset of `(x, y)` pairs (supported),
`validation_data=`, `steps_per_epoch=`, a `batch_size=` the dataset is already batched with
(`.batch(BATCH_SIZE)` then `predict(dataset, batch_size=BATCH_SIZE)`, or `batch_size = 32`, then
`.batch(batch_size)` and `evaluate(dataset, batch_size=32)`: nothing changes), inputs
that are not known to be datasets (arrays, generators, `keras.utils.PyDataset`, a name that is
a dataset on one branch only), and calls
inside `with self.assertRaises(...)`/`pytest.raises(...)` (tests that expect the error).

## Why is this bad?
With a dataset, each element already is a batch of `(x, y[, sample_weight])`: Keras takes the
targets, weights and batching from it. A `batch_size=` is dropped without a warning in both
Keras 3 and tf-keras, so training runs with another batch size than the one written (or on an
unbatched dataset, fails later with a shape error). `y`, `sample_weight` and `validation_split`
raise `ValueError` (`When providing x as a tf.data.Dataset, y should not be passed...` in
Keras 3; `y argument is not supported when using dataset as input` in tf-keras).

## Example
```python
import numpy as np
import tensorflow as tf

x_train = np.zeros((64, 4), "float32")
y_train = np.zeros((64, 1), "float32")
weights = np.ones(64, "float32")
model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss="mse")

train_dataset = tf.data.Dataset.from_tensor_slices((x_train, y_train))
model.fit(train_dataset, batch_size=32, sample_weight=weights)
```

## Use instead
```python
import numpy as np
import tensorflow as tf

x_train = np.zeros((64, 4), "float32")
y_train = np.zeros((64, 1), "float32")
weights = np.ones(64, "float32")
model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss="mse")

train_dataset = tf.data.Dataset.from_tensor_slices((x_train, y_train, weights)).batch(32)
model.fit(train_dataset)
```

## References
- [keras.Model.fit](https://keras.io/api/models/model_training_apis/#fit-method)
- [tf.data: build TensorFlow input pipelines](https://www.tensorflow.org/guide/data)
- [Training & evaluation with the built-in methods: tf.data](https://keras.io/guides/training_with_built_in_methods/#training-amp-evaluation-using-tfdata-datasets)
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tf_insight.check import names
from tf_insight.check.context import ModuleContext
from tf_insight.check.imports import keyword
from tf_insight.check.index import FunctionInfo
from tf_insight.check.rules import Hit
from tf_insight.check.rules._keras import class_defines, expects_error
from tf_insight.findings import Severity

CODE = "TFI011"
NAME = "dataset-fit-arguments"
SEVERITY = Severity.ERROR
HOLDS_IN_TF1 = True  # about how Keras is used, the same in TF 1.x code
FLAVOR_DEPENDENT = True  # Keras 2 and Keras 3 differ here
HOLDS_EAGERLY = True  # Keras's fit arguments, whatever the mode

# The leading positional parameters of each method (same in Keras 3 and tf-keras).
POSITIONAL = {
    "fit": ("x", "y", "batch_size"),
    "evaluate": ("x", "y", "batch_size"),
    "predict": ("x", "batch_size"),
}
CHECKED = ("y", "batch_size", "sample_weight", "validation_split", "class_weight")


def check(module: ModuleContext) -> Iterator[Hit]:
    for node, scope in module.focused_calls():
        if isinstance(node.func, ast.Attribute) and node.func.attr in POSITIONAL:
            yield from _check_call(module, node, scope)


def _arguments(call: ast.Call, method: str) -> dict[str, ast.AST]:
    """Parameter name → the node that passes it (the keyword, or the positional argument)."""
    given: dict[str, ast.AST] = {}
    for name, argument in zip(POSITIONAL[method], call.args, strict=False):
        if isinstance(argument, ast.Starred):
            break
        given[name] = argument
    for item in call.keywords:
        if item.arg is not None:
            given[item.arg] = item
    return given


def _value(node: ast.AST) -> ast.AST:
    return node.value if isinstance(node, ast.keyword) else node


def _check_call(module: ModuleContext, call: ast.Call, scope: FunctionInfo | None) -> Iterator[Hit]:
    method = call.func.attr if isinstance(call.func, ast.Attribute) else ""
    given = _arguments(call, method)
    x = given.get("x")
    if x is None or not module.is_dataset(_value(x), scope) or expects_error(module, call) or (
            _own_method(module, call, scope)):
        return
    x_value = _value(x)
    label = module.source.segment(call.func)
    text = module.source.segment(x_value) or ""
    data = f"`{text}`" if len(text) <= 48 and "\n" not in text else "its `x`"
    prefix = f"`{label}` is given a tf.data.Dataset ({data}) and "
    keras3 = module.flavor == "3"
    for name in CHECKED:
        node = given.get(name)
        if node is None or _is_default(name, _value(node)):
            continue
        passed = (f"`{name}=`" if isinstance(node, ast.keyword)
                  else f"`{name}` (positional argument `{module.source.segment(node)}`)")
        message = prefix + passed
        if name == "batch_size":
            if _spellings(module, _value(node), scope) & _batch_sizes(module, x_value, scope):
                continue
            why = ("Keras ignores `batch_size` for datasets without a warning (each element "
                   "already is a batch)")
            advice = f"{_where_to_batch(module, x_value, scope)} and drop the argument"
        elif name == "y" and method != "predict":
            why = "it raises `ValueError: " + (
                "When providing x as a tf.data.Dataset, y should not be passed`" if keras3
                else "y argument is not supported when using dataset as input`")
            advice = "make the dataset yield `(x, y)` pairs"
        elif name == "sample_weight" and method != "predict":
            why = "it raises `ValueError: " + (
                "When providing x as a tf.data.Dataset, sample_weights should not be passed`"
                if keras3 else "sample_weight argument is not supported when using dataset as "
                "input`")
            advice = "make the dataset yield `(x, y, sample_weight)`"
        elif name == "validation_split" and method == "fit":
            why = ("it raises `ValueError` (validation_split is only supported for tensors or "
                   "NumPy arrays)")
            advice = ("split the dataset (`.take(n)`/`.skip(n)`) and pass the held-out part as "
                      "`validation_data=`")
        elif name == "class_weight" and method == "fit" and _yields_weights(
            module, x_value, scope
        ):
            message += " while the dataset already yields `(x, y, sample_weight)`"
            why = ("Keras 3 raises `ValueError: You cannot class_weight and sample_weight at the "
                   "same time`" if keras3 else "tf-keras fails with `ValueError: Tried to "
                   "convert 'shape' to a tensor`")
            advice = "fold the class weights into the dataset's sample weights"
        else:
            continue
        yield Hit(node, message, detail=why, help=advice)


def _own_method(module: ModuleContext, call: ast.Call, scope: FunctionInfo | None) -> bool:
    """`model.fit(...)` where `model` is made by a class of the project that defines its own
    `fit` (or a base of it does): its parameters are its own, not Keras's."""
    receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
    if not isinstance(receiver, ast.Name):
        return False
    nodes = scope.nodes if scope is not None else module.index.module_nodes
    local = module.index.module_classes()
    method = call.func.attr if isinstance(call.func, ast.Attribute) else ""
    for assign in nodes.assignments_to(receiver.id):
        made = assign.value.func if isinstance(assign.value, ast.Call) else None
        if isinstance(made, ast.Name) and made.id in local:
            if class_defines(module, local[made.id], method):
                return True
        elif made is not None and module.is_imported(made) and (
                module.project.external_class_defines(module, made, method)):
            return True
    return False


def _is_default(name: str, value: ast.AST) -> bool:
    """`None`, `validation_split=0`, or a constant where `y` would be: no targets are a
    number or a string, so the method is another `fit` (an override, `fit(batches, epochs)`)."""
    if not isinstance(value, ast.Constant):
        return False
    if value.value is None:
        return True
    return (name == "validation_split" and value.value == 0) or name == "y"


def _yields_weights(module: ModuleContext, node: ast.AST, scope: FunctionInfo | None) -> bool:
    """A dataset made by `from_tensor_slices((x, y, w))`, `from_tensors(...)` or
    `Dataset.zip((x, y, w))` with a 3-tuple."""
    root = module.dataset_root(node, scope)
    if root is None or not root.args:
        return False
    qualname = module.qualname(root.func) or ""
    if not qualname.endswith((".from_tensor_slices", ".from_tensors", ".zip")):
        return False
    structure = root.args[0]
    return isinstance(structure, ast.Tuple) and len(structure.elts) == 3


BATCHING = ("batch", "padded_batch", "ragged_batch")


def _batch_sizes(module: ModuleContext, node: ast.AST, scope: FunctionInfo | None) -> set[str]:
    """The batch sizes a dataset is batched with, as written (`.batch(BATCH_SIZE)`, a Keras
    dataset utility's `batch_size=`), through its chain and the assignments of its names."""
    found: set[str] = set()
    pending: list[ast.AST] = [node]
    seen: set[str] = set()
    while pending and len(seen) < 16:
        chain = pending.pop()
        while isinstance(chain, ast.Call):
            size = keyword(chain, "batch_size")
            if isinstance(chain.func, ast.Attribute) and chain.func.attr in BATCHING:
                size = chain.args[0] if chain.args else size
            if size is not None:
                found |= _spellings(module, size, scope)
            if not isinstance(chain.func, ast.Attribute):
                break
            chain = chain.func.value
        if isinstance(chain, ast.Name) and chain.id not in seen:
            seen.add(chain.id)
            pending += [a.value for a in _bindings(module, chain.id, scope)
                        if isinstance(a, ast.Assign)]
    return found


def _spellings(module: ModuleContext, node: ast.AST, scope: FunctionInfo | None) -> set[str]:
    """`node` as written, and the number it names when it is a name every assignment of
    which gives that number (`batch_size = 32`, then `.batch(batch_size)` and
    `evaluate(dataset, batch_size=32)`: the same size)."""
    found = {module.source.segment(node) or ""}
    if isinstance(node, ast.Name):
        assignments = _bindings(module, node.id, scope)
        numbers = [a.value.value for a in assignments
                   if isinstance(a, ast.Assign) and isinstance(a.value, ast.Constant)]
        if assignments and len(numbers) == len(assignments) and len(set(numbers)) == 1:
            found.add(repr(numbers[0]))
    return found


def _bindings(module: ModuleContext, name: str,
              scope: FunctionInfo | None) -> list[ast.Assign | ast.AugAssign | ast.AnnAssign]:
    """The assignments of `name` where it is bound: the function's, if local, else the
    module's."""
    local = scope if scope is not None and name in scope.local_names else None
    nodes = local.nodes if local is not None else module.index.module_nodes
    return nodes.assignments_to(name)


def _where_to_batch(module: ModuleContext, node: ast.AST, scope: FunctionInfo | None) -> str:
    root = module.dataset_root(node, scope)
    if root is not None and (module.qualname(root.func) or "") in names.KERAS_DATASET_FACTORIES:
        name = module.source.segment(root.func)
        return f"set the batch size where the dataset is made (`{name}(..., batch_size=n)`)"
    chain: ast.AST = node
    while isinstance(chain, ast.Call) and isinstance(chain.func, ast.Attribute):
        if chain.func.attr in ("batch", "padded_batch", "ragged_batch"):
            return "change the dataset's own `.batch(...)`"
        chain = chain.func.value
    return "batch the dataset itself (`.batch(n)`)"
