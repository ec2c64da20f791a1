"""NumPy conversion of a tensor (`.numpy()`, `np.*`, `float()`/`int()`/`bool()`) in code that
TensorFlow traces into a graph.

## What it does
Finds, inside a graph context (a `tf.function`, a Keras `call`/`train_step`, a loss or
metric, a `tf.data` function, or a helper called from one):
- `.numpy()` calls, `str`/`bytes` methods called on a tensor (`path.decode()` in a
  `Dataset.map` function, whose file name is a string tensor; given no argument, or names and
  constants, as those methods are: `decoder.decode(encode(x))` is another object's method),
  and NumPy array methods called
  on one (`volume.astype(np.float32)`, `.tolist()`, `.flatten()`: a tensor has none of them,
  unless the module turns on TF's NumPy behaviour);
- `np.*` functions, scikit-learn and SciPy functions (they work on NumPy arrays), and those of
  pure-Python metric, text and image libraries (seqeval, rouge, NLTK, jiwer, OpenCV, PIL...)
  and `re` (`re.findall(pattern, text)` on a string tensor),
  also as methods of an object such a library makes on the spot (`Rouge().get_scores(...)`),
  `keras.ops.convert_to_numpy` and `K.eval`/`K.get_value` applied to a tensor
  (a parameter that graph mode fills with a tensor, the result of a `tf.*`/`keras.ops` op, or a
  name assigned from one);
- a tensor passed to a helper of the module or the project that converts that parameter to
  NumPy, reported where the tensor is passed (the conversion as a related location);
- such a library's function given to `compile(loss=...)`/`compile(metrics=[...])`
  (`metrics=[f1_score]`): Keras calls it inside the traced step (not with `run_eagerly=True`);
- `bool(tensor)`, and `float(tensor)`/`int(tensor)` where AutoGraph does not convert them
  (Keras 3 `Layer.call`, any Keras `train_step`, `tf.function(autograph=False)`,
  `do_not_convert`).

NumPy on Python values is fine and not reported: `np.sqrt(2.0)`, `np.prod(x.shape[1:])`,
`np.float32`, `int(x.shape[-1])`, and the parameters of a module-level `tf.function` that every
call of it in the module gives a Python value (`position_table(max_length, self.width)` in a
layer's `__init__`, from its hyperparameters: traced with them as they are). Neither is code that cannot see a symbolic tensor (under
`with tf.init_scope():`, `if tf.executing_eagerly():` or a helper returning it, type guards:
see `tf_insight/check/guards.py`), nor `tf.py_function`/`tf.numpy_function` callbacks, where tensors
are eager, nor a conversion in a `try` whose handler catches what it raises and goes on (`try: n =
int(x.numpy()) except Exception: n = None`, a bare `except:`): the code's own probe for eager
mode, with a fallback for a graph (as for every rule whose finding fails tracing).

## Why is this bad?
While TensorFlow traces a function, tensors are symbolic: they have a shape and a dtype but no
value. `.numpy()` raises `AttributeError: 'SymbolicTensor' object has no attribute 'numpy'`,
NumPy raises `NotImplementedError: Cannot convert a symbolic tf.Tensor to a numpy array` (or a
`TypeError` where it needs a number: `np.eye(tf.shape(x)[0])`), and
`bool()` (or `float()`/`int()` without AutoGraph) raises `OperatorNotAllowedInGraphError` or
`TypeError`. The same code works when the layer or function is called eagerly, so it breaks
only under `fit`, `tf.function` or `tf.data`.

## Example
```python
import numpy as np
import tensorflow as tf


@tf.function
def normalize(x):
    mean = np.mean(x)
    return (x - mean) / x.numpy().std()
```

## Use instead
```python
import numpy as np
import tensorflow as tf


@tf.function
def normalize(x):
    mean = tf.reduce_mean(x)
    scale = np.sqrt(2.0)  # NumPy on Python constants is fine
    return (x - mean) / (tf.math.reduce_std(x) * scale)
```

## References
- [tf.function guide](https://www.tensorflow.org/guide/function)
- [tf.numpy_function](https://www.tensorflow.org/api_docs/python/tf/numpy_function)
- [AutoGraph limitations](https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/g3doc/reference/limitations.md)
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tf_insight.check import names
from tf_insight.check.context import ModuleContext
from tf_insight.check.graph_model import GraphContext, compiled_functions
from tf_insight.check.guards import guarded_nodes
from tf_insight.check.index import FunctionInfo
from tf_insight.check.rules import Hit
from tf_insight.check.rules._keras import traced_expecting_error
from tf_insight.check.rules._tensors import (
    asks_value,
    context_label,
    tensor_facts,
)
from tf_insight.check.rules._tf_functions import call_arguments
from tf_insight.check.shared import Shared
from tf_insight.findings import Related, Severity

CODE = "TFI012"
NAME = "numpy-in-graph"
SEVERITY = Severity.ERROR
FAILS_TRACING = True  # TensorFlow raises while it traces the function
HOLDS_IN_TF1 = True  # a TF 1.x graph holds symbolic tensors too
# array libraries whose tensors have a `.numpy()` of their own
OTHER_TENSOR_LIBRARIES = ("torch.", "jax.", "paddle.", "mxnet.", "cupy.")



def check(module: ModuleContext) -> Iterator[Hit]:
    yield from _library_compiled(module)
    for function, context in module.graph.focused_functions():
        if traced_expecting_error(module, context):
            continue  # a test that expects the failure
        where = context_label(function, context)
        for node in function.calls:
            hits = (list(_conversions(module, function, context, node, where))
                    or list(_helper_conversion(module, function, context, node, where)))
            if hits and node not in guarded_nodes(module, function):  # looked for around hits
                yield from hits


def _library_compiled(module: ModuleContext) -> Iterator[Hit]:
    """`compile(metrics=[f1_score])`: a function of such a library given to Keras as a loss or
    metric, which Keras calls inside the traced step with symbolic tensors."""
    if not module.mentions("compile"):
        return
    for call, scope in module.focused_calls():
        if not (isinstance(call.func, ast.Attribute) and call.func.attr == "compile") or any(
                k.arg == "run_eagerly" and isinstance(k.value, ast.Constant) and k.value.value
                for k in call.keywords):
            continue
        for argument, value in compiled_functions(call):
            qualname = module.qualname(value) if isinstance(
                value, ast.Name | ast.Attribute) else None
            if qualname is None or not qualname.startswith(names.ARRAY_LIBRARIES) or (
                    module.function_named(value, scope) is not None):
                continue
            yield Hit(value, f"`{module.source.segment(value)}` is given to "
                      f"`compile({argument}=...)`: Keras calls it on symbolic tensors",
                      detail="Keras calls a loss or metric inside its traced train step, "
                      "where `y_true` and `y_pred` have no value: a NumPy or pure-Python "
                      "function fails there (`Cannot convert a symbolic tf.Tensor to a numpy "
                      "array`, `Iterating over a symbolic tf.Tensor is not allowed`)",
                      help="use a Keras metric (`keras.metrics.*`), write it with "
                      "`tf`/`keras.ops`, or compute it in a callback on predictions")


MODULE_FILES: Shared[dict[str, str | None]] = Shared("module files")


def _helper_conversion(module: ModuleContext, function: FunctionInfo, context: GraphContext,
                       call: ast.Call, where: str) -> Iterator[Hit]:
    """`to_numpy(y_pred)` in graph code, where the helper (this module's or the project's)
    converts that parameter to NumPy: reported here, where the tensor is passed."""
    helper = module.function_named(call.func, function)
    helper_module = module
    if helper is None:  # a function imported from another module of the project
        raw = module.imports.raw_name(call.func)
        source, _, name = (raw or "").rpartition(".")
        if raw is None and isinstance(call.func, ast.Name) and (
                call.func.id in module.imports.relative):  # `from .utils import to_numpy`
            level, dotted = module.imports.relative[call.func.id]
            inner, _, name = dotted.rpartition(".")
            source = "." * level + inner
        files = module.shared(MODULE_FILES, dict)
        if source and source not in files:  # a look-up on disk: once per module named
            files[source] = module.project.module_file(source, module.path)
        path = files.get(source) if source else None
        other = module.project.load_module(path) if path else None
        helper = other.index.module_functions().get(name) if other is not None else None
        if other is None or helper is None:
            return  # not the project's own: a library's helpers are its business
        helper_module = other
    if helper is function:
        return
    converted = _converted_parameters(helper_module, helper)
    if not converted:
        return
    facts = tensor_facts(module, function, context)
    for argument, parameter in call_arguments(call, helper):
        conversion = converted.get(parameter or "")
        if conversion is not None and facts.is_tensor(argument):
            yield Hit(call, f"`{module.source.segment(call.func)}(...)` in {where} converts the "
                            f"tensor `{facts.label(argument)}` to NumPy",
                      related=(Related(helper_module.path, helper_module.span(conversion),
                                       "the conversion"),),
                      detail=f"`{helper.qualname}` calls "
                      f"`{helper_module.source.segment(conversion)}`, which fails while the "
                      "function is traced: the tensor is symbolic and has no value",
                      help=IN_TENSORFLOW)
            return


# Keras functions that give a tensor's value as NumPy: `K.eval(t)`, `K.get_value(t)`,
# `keras.ops.convert_to_numpy(t)`, `K.batch_get_value(ts)`.
KERAS_TO_NUMPY = ("convert_to_numpy", "eval", "get_value", "batch_get_value")
# methods of Python `str`/`bytes` that a tensor does not have
STRING_METHODS = frozenset({"decode", "encode", "startswith", "endswith", "lower", "upper",
                            "strip", "lstrip", "rstrip"})
# methods of NumPy arrays that a tensor does not have (TF 2.21, eager or symbolic; those
# NumPy behaviour adds, `tf.experimental.numpy.experimental_enable_numpy_behavior()`, left out)
ARRAY_METHODS = frozenset({"astype", "tolist", "flatten", "ravel", "item"})
NUMPY_BEHAVIOR = "enable_numpy_behavior"
IN_TENSORFLOW = "keep the computation in TensorFlow ops"


def _foreign_method(module: ModuleContext, call: ast.Call) -> tuple[str, str, str] | None:
    """For a method of Python strings or NumPy arrays that tensors lack: what it is a method
    of, why a tensor meets it, and what to do instead."""
    func = call.func
    if not isinstance(func, ast.Attribute):
        return None
    if func.attr in STRING_METHODS and _string_arguments(call):
        return ("`str`/`bytes`", "in graph code a file name or a text is a string tensor, not "
                "Python `bytes`", "use `tf.strings`/`tf.io` ops, or run the Python code in "
                "`tf.py_function`")
    if func.attr in ARRAY_METHODS and (func.attr == "item" or not module.mentions(NUMPY_BEHAVIOR)):
        return ("NumPy array", "code written for NumPy arrays gets tensors when TensorFlow traces "
                "it", "use the `tf.*` equivalent (`tf.cast`, `tf.reshape`...), or run the NumPy "
                "code in `tf.numpy_function`")
    return None


def _string_arguments(call: ast.Call) -> bool:
    """The call's arguments are what a `str`/`bytes` method takes: none, or names and
    constants (an encoding, a prefix, a tuple of prefixes). `decoder.decode(encode(x))`, given
    a computed value, is a method of another object of the same name."""
    def plain(node: ast.expr) -> bool:
        if isinstance(node, ast.Tuple):
            return all(plain(part) for part in node.elts)
        return isinstance(node, ast.Constant | ast.Name | ast.Attribute)
    return all(plain(node) for node in (*call.args, *(k.value for k in call.keywords)))


def _keras_to_numpy(qualname: str) -> bool:
    return qualname.startswith("keras.") and qualname.rsplit(".", 1)[-1] in KERAS_TO_NUMPY and (
        ".ops." in qualname or ".backend." in qualname)


CONVERTED: Shared[dict[FunctionInfo, dict[str, ast.Call]]] = Shared("names bound to conversions")


def _converted_parameters(module: ModuleContext, helper: FunctionInfo) -> dict[str, ast.Call]:
    """Parameters of a helper that its body hands straight to `.numpy()`, `np.*` or
    `convert_to_numpy` (outside guards), with the call that does."""
    def find() -> dict[str, ast.Call]:
        parameters = set(helper.parameter_names) - {"self", "cls"}
        guarded = guarded_nodes(module, helper)
        found: dict[str, ast.Call] = {}
        for node in helper.calls:
            if node in guarded:
                continue
            func = node.func
            if asks_value(node) and isinstance(func, ast.Attribute):
                target: ast.AST = func.value
            elif node.args and ((module.qualname(func) or "").startswith(names.ARRAY_LIBRARIES) or (
                    _keras_to_numpy(module.qualname(func) or ""))):
                if (module.qualname(func) or "").rsplit(".", 1)[-1] in names.NUMPY_SAFE:
                    continue
                target = node.args[0]
            else:
                continue
            if isinstance(target, ast.Name) and target.id in parameters:
                found.setdefault(target.id, node)
        return found

    tables = module.shared(CONVERTED, dict)
    if helper not in tables:
        tables[helper] = find()
    return tables[helper]


def _conversions(module: ModuleContext, function: FunctionInfo, context: GraphContext,
                 node: ast.Call, where: str) -> Iterator[Hit]:
    func = node.func
    if asks_value(node) and not _made_by_another_library(module, node):
        yield Hit(node, f"`{module.source.segment(node)}` in {where} asks a symbolic tensor "
                        "for its value",
                  detail="tensors are symbolic while the function is traced and have no value "
                  "(`AttributeError: 'SymbolicTensor' object has no attribute 'numpy'`)",
                  help=IN_TENSORFLOW)
        return
    foreign = _foreign_method(module, node)
    if foreign is not None and isinstance(func, ast.Attribute) and (
            tensor_facts(module, function, context).is_tensor(func.value)):
        kind, why, instead = foreign
        yield Hit(node, f"`{module.source.segment(node)}` in {where} calls the {kind} method "
                        f"`{func.attr}` on a symbolic tensor",
                  detail="a tensor has no such method (`AttributeError: 'SymbolicTensor' object "
                  f"has no attribute '{func.attr}'`): {why}", help=instead)
        return
    qualname = module.qualname(func) or _library_object_method(module, func)
    if qualname is not None and (qualname.startswith(names.ARRAY_LIBRARIES) or _keras_to_numpy(qualname)):
        if qualname.rsplit(".", 1)[-1] in names.NUMPY_SAFE:
            return
        facts = tensor_facts(module, function, context)
        tensors = [a for a in [*node.args, *(k.value for k in node.keywords)]
                   if facts.is_tensor(a)]
        if tensors:
            label = module.source.segment(func)
            strings = qualname.startswith("re.")
            yield Hit(node, f"`{label}(...)` in {where} is given the symbolic tensor "
                            f"`{facts.label(tensors[0])}`",
                      detail="the tensor is symbolic while the function is traced: " + (
                          "`re` needs a Python string (`TypeError: expected string or "
                          "bytes-like object`)" if strings else
                          "NumPy raises `NotImplementedError: Cannot convert a symbolic "
                          "tf.Tensor to a numpy array`, or a `TypeError` where it needs a "
                          "number"),
                      help="use the `tf.strings` ops" if strings
                      else "use the `tf.*`/`keras.ops` equivalent")
        return
    if (isinstance(func, ast.Name) and qualname is None
            and func.id in ("float", "int", "bool") and len(node.args) == 1
            and not _rebound(module, func.id)):
        if func.id != "bool" and context.autograph:
            return  # AutoGraph turns float()/int() of a tensor into tf.cast
        if tensor_facts(module, function, context).is_tensor(node.args[0]):
            why = ("`bool()` of a symbolic tensor raises "
                   "`OperatorNotAllowedInGraphError`" if func.id == "bool" else
                   f"`{func.id}()` of a symbolic tensor raises `TypeError` (no "
                   "AutoGraph here to turn it into a cast)")
            yield Hit(node, f"`{module.source.segment(node)}` in {where} converts a symbolic "
                            "tensor to a Python value",
                      detail=why,
                      help="use `tf.cast(...)`/`keras.ops.cast(...)`, or a static shape value")


def _made_by_another_library(module: ModuleContext, call: ast.Call) -> bool:
    """`torch.empty(0, dtype=d).numpy()`: the value asked is made by a call of another array
    library whose tensors have `.numpy()` too (PyTorch, JAX...), not a TensorFlow tensor."""
    assert isinstance(call.func, ast.Attribute)  # as `asks_value` found it
    made = call.func.value
    return isinstance(made, ast.Call) and (module.qualname(made.func) or "").startswith(
        OTHER_TENSOR_LIBRARIES)


def _library_object_method(module: ModuleContext, func: ast.expr) -> str | None:
    """`rouge.Rouge.get_scores` for `Rouge().get_scores`: a method of an object such a library
    makes on the spot."""
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call):
        maker = module.qualname(func.value.func)
        if maker is not None and maker.startswith(names.ARRAY_LIBRARIES):
            return f"{maker}.{func.attr}"
    return None


def _rebound(module: ModuleContext, name: str) -> bool:
    return name in module.index.module_functions() or name in module.imports.aliases
