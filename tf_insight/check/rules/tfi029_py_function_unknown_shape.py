"""A `tf.numpy_function`/`tf.py_function` result (or a `tf.image.decode_image` one) returned from a
`Dataset.map` function with no static shape, in a module that trains with Keras 3 `fit`; or from a
Keras 3 layer's `call`, where the layer is applied to a `keras.Input`.

## What it does
Finds, in a function passed to `Dataset.map`, the result of `tf.numpy_function`,
`tf.py_function` or `tf.compat.v1.py_func` returned (alone, or in the returned tuple or dict)
without its shape being set first, in a module that calls `fit`; and likewise the result of
`tf.image.decode_image` without `expand_animations=False` (it may be a 3-D image or a 4-D
animation, so its rank is unknown). Also such a result returned from the `call` of a Keras 3
layer that the module applies to a `keras.Input`, unless the layer defines
`compute_output_shape` (tensorflow/tensorflow#59726).

Not reported: a result given its shape (`x.set_shape(...)`, `tf.ensure_shape(x, ...)`,
`tf.reshape(x, ...)`, or any other op it is passed through before it is returned but arithmetic
and casts), modules where some other dataset function sets shapes (a later `.map` may do it),
modules that never call `fit`, and tf-keras code (a functional model there accepts the unknown
shape).

## Why is this bad?
TensorFlow cannot know what a Python function returns: the tensor it gives back has an unknown
shape (not even a rank), and so has every element of the dataset. `decode_image` is the same
unless told the file is no animation. Keras 3's `fit` needs the
element shapes and fails before the first step, whatever the model: `ValueError: as_list() is
not defined on an unknown TensorShape` (TF 2.21, Keras 3.15: a Sequential model, a functional
model with a known `Input` shape, and a Sequential model with an `Input` all fail; tf-keras
fails only for the Sequential model without an `Input`).

## Example
```python
import numpy as np
import tensorflow as tf


def jitter(image):
    return (image * np.random.uniform(0.9, 1.1)).astype("float32")


def augment(image, label):
    image = tf.numpy_function(jitter, [image], tf.float32)
    return image, label


images = np.random.rand(16, 24, 24, 3).astype("float32")
data = tf.data.Dataset.from_tensor_slices((images, np.zeros(16))).map(augment).batch(4)
model = tf.keras.Sequential([tf.keras.layers.Flatten(), tf.keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(data)
```

## Use instead
```python
import numpy as np
import tensorflow as tf


def jitter(image):
    return (image * np.random.uniform(0.9, 1.1)).astype("float32")


def augment(image, label):
    shape = image.shape
    image = tf.numpy_function(jitter, [image], tf.float32)
    image.set_shape(shape)
    return image, label


images = np.random.rand(16, 24, 24, 3).astype("float32")
data = tf.data.Dataset.from_tensor_slices((images, np.zeros(16))).map(augment).batch(4)
model = tf.keras.Sequential([tf.keras.layers.Flatten(), tf.keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(data)
```

## References
- [tf.numpy_function](https://www.tensorflow.org/api_docs/python/tf/numpy_function)
- [tf.data: applying arbitrary Python logic](https://www.tensorflow.org/guide/data#applying_arbitrary_python_logic)
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tf_insight.check.context import ModuleContext
from tf_insight.check.index import FunctionInfo
from tf_insight.check.rules import Hit, Reads
from tf_insight.check.rules._keras import applied_to_input, class_defines
from tf_insight.findings import Related, Severity

CODE = "TFI029"
NAME = "py-function-unknown-shape"
SEVERITY = Severity.ERROR
FLAVOR_DEPENDENT = True  # tf-keras accepts the unknown shape in more models
PY_FUNCTIONS = frozenset({"tensorflow.numpy_function", "tensorflow.py_function",
                          "tensorflow.compat.v1.py_func", "tensorflow.compat.v1.numpy_function",
                          "tensorflow.compat.v1.py_function"})
SHAPE_SETTERS = frozenset({"set_shape", "ensure_shape", "reshape"})
READS = Reads(calls=frozenset({"fit", "map", *SHAPE_SETTERS}))
# what a py-function result may pass through and still have no shape
SHAPELESS_OPS = frozenset({"tensorflow.cast", "tensorflow.identity", "tensorflow.clip_by_value",
                           "tensorflow.convert_to_tensor"})
# decoders whose result has no rank unless `expand_animations=False`
RANKLESS_DECODERS = frozenset({"tensorflow.image.decode_image", "tensorflow.io.decode_image"})


def check(module: ModuleContext) -> Iterator[Hit]:
    if module.flavor != "3" or not module.mentions("numpy_function", "py_function", "py_func",
                                                   "decode_image"):
        return
    yield from _layer_outputs(module)
    fits = [call for call, _ in module.calls_named("fit") if isinstance(call.func, ast.Attribute)]
    if not fits:
        return
    mapped = _map_functions(module)
    setters = {id(f) for f in mapped.values() if any(_sets_shape(module, c) for c in f.calls)}
    for map_call, function in mapped.items():
        if setters - {id(function)}:
            continue  # another dataset function sets shapes: maybe of these elements
        for py_call in _unshaped_returns(module, function):
            decoder = (module.qualname(py_call.func) or "") in RANKLESS_DECODERS
            yield Hit(
                py_call,
                f"`{module.source.segment(py_call.func)}` returns a tensor of unknown shape from "
                f"`{function.name}`, a `Dataset.map` function",
                related=(Related(module.path, module.span(map_call), "the dataset map"),
                         Related(module.path, module.span(fits[0]), "fit, which needs shapes")),
                detail=("`decode_image` may give a 3-D image or a 4-D animation, so"
                        if decoder else "TensorFlow cannot know what the Python function returns, "
                        "so") + " the dataset's elements have no shape; Keras 3 `fit` raises "
                "`ValueError: as_list() is not defined on an unknown TensorShape` (or `Cannot "
                "take the length of shape with unknown rank`)",
                help="pass `expand_animations=False` (with `channels=3`), or give the result its "
                "shape" if decoder else "give the result its shape before returning it: "
                "`x.set_shape(shape)` or `x = tf.ensure_shape(x, shape)` (`None` for sizes that "
                "vary)",
            )


def _layer_outputs(module: ModuleContext) -> Iterator[Hit]:
    """A Keras 3 layer whose `call` returns a py-function result with no shape, applied to a
    `keras.Input`: Keras infers the layer's output by running `call` on a symbolic tensor."""
    for cls in module.focused_classes():
        call = cls.methods.get("call")
        if call is None or module.keras_kind(cls) != "layer" or any(
                class_defines(module, cls, m) for m in ("compute_output_shape",
                                                        "compute_output_spec")):
            continue
        applied = applied_to_input(module, cls)
        if applied is None:
            continue
        for py_call in _unshaped_returns(module, call):
            yield Hit(
                py_call,
                f"`{module.source.segment(py_call.func)}` returns a tensor of unknown shape from "
                f"`{call.qualname}`, and the layer is applied to a `keras.Input`",
                related=(Related(module.path, module.span(applied), "the layer applied to a "
                                 "symbolic input"),),
                detail="Keras 3 finds a layer's output shape by running its `call` on a symbolic "
                "tensor, and TensorFlow cannot know what the Python function returns: `Could not "
                "automatically infer the output shape / dtype ... as_list() is not defined on an "
                "unknown TensorShape`",
                help="give the result its shape before returning it (`x.set_shape(inputs.shape)` "
                "or `tf.ensure_shape`), or define `compute_output_shape`",
            )


def _map_functions(module: ModuleContext) -> dict[ast.Call, FunctionInfo]:
    """`ds.map(f)` calls on datasets, with the function they map."""
    found: dict[ast.Call, FunctionInfo] = {}
    for call, scope in module.calls_named("map"):
        func = call.func
        if not isinstance(func, ast.Attribute) or not module.is_dataset(func.value, scope):
            continue
        argument = call.args[0] if call.args else next(
            (k.value for k in call.keywords if k.arg == "map_func"), None)
        function = module.function_named(argument, scope) if argument is not None else None
        if function is not None:
            found[call] = function
    return found


def _sets_shape(module: ModuleContext, call: ast.Call) -> bool:
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else (module.qualname(func) or "")
    return name.rsplit(".", 1)[-1] in SHAPE_SETTERS


def _unshaped_returns(module: ModuleContext, function: FunctionInfo) -> Iterator[ast.Call]:
    """The py-function calls whose result reaches a `return` of `function` with no shape."""
    unshaped: dict[str, ast.Call] = {}  # name → the py-function call its value comes from
    for node in sorted(function.nodes.of(ast.Assign, ast.Return, ast.Expr),
                       key=lambda node: (node.lineno, node.col_offset)):
        if isinstance(node, ast.Assign):
            origin = _origin(module, node.value, unshaped)
            for target in node.targets:
                names = target.elts if isinstance(target, ast.Tuple | ast.List) else [target]
                for name in names:
                    if isinstance(name, ast.Name):
                        if origin is not None:
                            unshaped[name.id] = origin
                        else:
                            unshaped.pop(name.id, None)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            func = node.value.func  # `x.set_shape(...)`
            if isinstance(func, ast.Attribute) and func.attr == "set_shape" and isinstance(
                    func.value, ast.Name):
                unshaped.pop(func.value.id, None)
        elif isinstance(node, ast.Return) and node.value is not None:
            values = (node.value.elts if isinstance(node.value, ast.Tuple | ast.List)
                      else [v for v in node.value.values if v is not None]
                      if isinstance(node.value, ast.Dict) else [node.value])
            yield from dict.fromkeys(filter(None, (_origin(module, value, unshaped)
                                                   for value in values)))


def _origin(module: ModuleContext, value: ast.AST, unshaped: dict[str, ast.Call]
            ) -> ast.Call | None:
    """The py-function (or rankless decoder) call whose shapeless result `value` is, or None."""
    if isinstance(value, ast.Name):
        return unshaped.get(value.id)
    if isinstance(value, ast.BinOp):
        return _origin(module, value.left, unshaped) or _origin(module, value.right, unshaped)
    if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Constant):
        return _origin(module, value.value, unshaped)  # `outputs[0]` of a list of results
    if not isinstance(value, ast.Call):
        return None
    qualname = module.qualname(value.func) or ""
    if qualname in PY_FUNCTIONS:
        return value
    if qualname in RANKLESS_DECODERS and not any(
            k.arg == "expand_animations" and isinstance(k.value, ast.Constant)
            and k.value.value is False for k in value.keywords) and len(value.args) < 4:
        return value
    if qualname in SHAPELESS_OPS and value.args:
        return _origin(module, value.args[0], unshaped)
    return None
