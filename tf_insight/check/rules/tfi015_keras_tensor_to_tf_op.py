"""A raw TensorFlow op, or a NumPy-library function, applied to a functional `KerasTensor`.

## What it does
Follows, through simple assignments in one function (or at module level), the symbolic
tensors of a Keras 3 functional model — the result of `keras.Input(...)`, of a layer or model
called on one, of `keras.ops.*`, arithmetic or a comparison on one, a list of them built by a
comprehension — and finds `tf.*` functions applied to them: `tf.reduce_sum(x)`,
`tf.concat([a, b], -1)`, `tf.nn.relu(Dense(8)(inputs))`, `tf.concat(embedded_fields, 1)`. A
module-level KerasTensor read by a function is followed into it, even into a loss or a `Lambda`
(`loss * weight_input` in a loss function fails in `fit`); in such traced code `keras.ops` on
it is reported too (it makes another KerasTensor, a placeholder where a value is needed).
That traced code fails in tf-keras as well, so there it is reported for tf-keras too (with
tf-keras's backend functions, `K.sum(...)`, which are TensorFlow ops), and so is a loss that a
factory makes from the model's tensors (`compile(loss=make_loss(weights_input))`, the loss
closing over `weights_input`), or a loss made in a method of a plain object whose `__init__`
built the model and kept some of its tensors on `self` (`self.mean = Dense(2)(hidden)`, read as
`self.mean` in a VAE's KL loss: davidADSP/GDL_code#100). A function of a library that needs
values (NumPy, SciPy, OpenCV, PyWavelets...: `pywt.dwt2(features, "haar")`), or a Python
builtin that needs one (`range`, `int`, `float`: `for i in range(lengths)` over an `Input`),
given a functional model's
KerasTensor fails on both Kerases, model building included
(`bench/precision/checks/numpy_on_keras_tensor.py`; `TypeError: 'KerasTensor' object cannot be
interpreted as an integer`), so it is reported for both; not `len` of a model's `outputs` or
of a layer's result, which may be a list. One finding per statement.

Not reported: tf-keras model building (it wraps such calls in a `TFOpLambda` layer),
`keras.ops.*` and operators on KerasTensors, TensorFlow code on the parameters of a `Lambda`
(a lambda that reads a KerasTensor of the code around it is reported), a
layer's `call` or a loss (there the inputs are real tensors), `tf.is_tensor`/`tf.print`/`tf.nest`,
and tensors whose origin the analysis cannot see (function parameters, results of user
functions).

## Why is this bad?
In Keras 3 a `KerasTensor` is only a placeholder for a shape and dtype; TensorFlow functions
cannot take it: `ValueError: A KerasTensor cannot be used as input to a TensorFlow function. A
KerasTensor is a symbolic placeholder for a shape and dtype, used when constructing Keras
Functional models or Keras Functions. You can only use it as input to a Keras layer or a Keras
operation (from the namespaces keras.layers and keras.ops).` Code written for tf-keras (TF ≤
2.15), where this worked, breaks on TF ≥ 2.16.

## Example
```python
import tensorflow as tf

inputs = tf.keras.Input(shape=(8,))
hidden = tf.keras.layers.Dense(4)(inputs)
total = tf.reduce_sum(hidden, axis=-1, keepdims=True)
model = tf.keras.Model(inputs, total)
```

## Use instead
```python
import tensorflow as tf

inputs = tf.keras.Input(shape=(8,))
hidden = tf.keras.layers.Dense(4)(inputs)
total = tf.keras.ops.sum(hidden, axis=-1, keepdims=True)
model = tf.keras.Model(inputs, total)
```

## References
- [Keras 3: keras.ops](https://keras.io/api/ops/)
- [Migrating to Keras 3: TensorFlow ops on KerasTensors](https://keras.io/guides/migrating_to_keras_3/)
- [keras.layers.Lambda](https://keras.io/api/layers/core_layers/lambda/)
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tf_insight.check import names
from tf_insight.check.context import ModuleContext
from tf_insight.check.index import ClassInfo, FunctionInfo, code_children, self_attribute
from tf_insight.check.rules import Hit
from tf_insight.check.rules._keras import name_for
from tf_insight.findings import Related, Severity

CODE = "TFI015"
NAME = "keras-tensor-to-tf-op"
SEVERITY = Severity.ERROR
FLAVOR_DEPENDENT = True  # Keras 2 and Keras 3 differ here
HOLDS_EAGERLY = True  # building a functional model, whatever the mode

INPUTS = frozenset({"keras.Input", "keras.layers.Input", "keras.src.layers.core.input_layer.Input"})
MODEL_TENSORS = frozenset({"input", "output", "inputs", "outputs"})
# keras.ops functions whose result is not a KerasTensor (shapes, Python values).
NOT_TENSOR_OPS = frozenset({"shape", "ndim", "size", "dtype", "is_tensor", "convert_to_numpy",
                            "standardize_dtype", "result_type", "core"})
# TensorFlow names that accept a KerasTensor (or aren't ops).
TF_ALLOWED = frozenset({
    "tensorflow.is_tensor", "tensorflow.print", "tensorflow.TensorShape", "tensorflow.TensorSpec",
    "tensorflow.name_scope", "tensorflow.device", "tensorflow.as_dtype", "tensorflow.DType",
    "tensorflow.function", "tensorflow.type_spec_from_value",
})
# Python builtins that need a value (a KerasTensor has none: TypeError on both Kerases); not
# `len`, which a layer's list of outputs (`return_state=True`) answers
VALUE_BUILTINS = frozenset({"range", "int", "float"})
TF_ALLOWED_PREFIXES = ("tensorflow.nest.", "tensorflow.autograph.", "tensorflow.debugging.")
# tf-keras backend functions that take a KerasTensor, or no tensor
LEGACY_BACKEND_NOT_OPS = frozenset({
    "int_shape", "ndim", "dtype", "floatx", "epsilon", "image_data_format", "is_keras_tensor",
    "learning_phase", "clear_session", "set_value", "get_value", "batch_get_value",
    "is_tensor", "name_scope", "set_floatx", "set_epsilon", "set_image_data_format",
})
# tf function (last name) → keras.ops equivalent
KERAS_OPS = {
    "reduce_sum": "sum", "reduce_mean": "mean", "reduce_max": "max", "reduce_min": "min",
    "reduce_prod": "prod", "reduce_logsumexp": "logsumexp", "reduce_std": "std",
    "reduce_variance": "var", "reduce_any": "any", "reduce_all": "all", "concat": "concatenate",
    "stack": "stack", "reshape": "reshape", "transpose": "transpose", "expand_dims": "expand_dims",
    "squeeze": "squeeze", "matmul": "matmul", "relu": "relu", "softmax": "softmax",
    "sigmoid": "sigmoid", "tanh": "tanh", "log": "log", "exp": "exp", "sqrt": "sqrt",
    "square": "square", "abs": "abs", "cast": "cast", "split": "split", "tile": "tile",
    "gather": "take", "where": "where", "maximum": "maximum", "minimum": "minimum",
    "add": "add", "subtract": "subtract", "multiply": "multiply", "divide": "divide",
    "one_hot": "one_hot", "clip_by_value": "clip", "pow": "power", "argmax": "argmax",
    "argmin": "argmin", "einsum": "einsum", "shape": "shape", "l2_normalize": "normalize",
    "cumsum": "cumsum", "ones_like": "ones_like", "zeros_like": "zeros_like", "sign": "sign",
    "gelu": "gelu", "silu": "silu", "swish": "silu", "elu": "elu", "selu": "selu",
    "softplus": "softplus", "leaky_relu": "leaky_relu", "log_softmax": "log_softmax",
    "top_k": "top_k", "range": "arange", "pad": "pad", "round": "round", "floor": "floor",
    "repeat": "repeat", "sort": "sort", "norm": "norm", "cos": "cos", "sin": "sin",
    "linspace": "linspace", "identity": "copy", "equal": "equal", "not_equal": "not_equal",
    "greater": "greater", "greater_equal": "greater_equal", "less": "less",
    "less_equal": "less_equal", "logical_and": "logical_and", "logical_or": "logical_or",
    "logical_not": "logical_not", "erf": "erf", "rsqrt": "rsqrt", "floormod": "mod",
}


def check(module: ModuleContext) -> Iterator[Hit]:
    legacy = module.flavor == "2"
    if not _mentions_inputs(module):
        return
    user_layers = {
        cls.name: cls for cls in module.index.classes
        if module.keras_kind(cls) in ("layer", "model")
    }
    top = _Scope(module, user_layers)
    model_building = _once(top.run(module.tree.body))
    if legacy:
        # tf-keras wraps TF ops on KerasTensors in layers while a model is built: only traced
        # code that reads the model's tensors fails (a loss a factory makes from them), and
        # a library that needs values fails anywhere
        yield from (hit for hit in model_building if _in_traced_code(module, hit.target)
                    or (isinstance(hit.target, ast.AST)
                        and _is_array_function(module, hit.target)))
    else:
        yield from model_building
    for function in module.focused_functions():
        if isinstance(function.node, ast.Lambda):
            continue
        graph = module.graph.in_graph(function) is not None
        if legacy and not graph:
            continue
        if not any(_is_tf_op(module, call) or _is_array_function(module, call)
                   or (graph and _is_keras_op(module, call)) for call in function.calls):
            continue  # no op to report
        scope = _Scope(module, user_layers)
        scope.graph = graph
        if function.outer is None:
            # a module-level KerasTensor read as a global stays symbolic, even in traced code
            scope.reads_from(top.symbolic, function)
        if not graph:
            # module-level layer and model instances (`augment = keras.Sequential([...])`)
            scope.layers = top.module_layers - function.local_names
        elif not scope.symbolic:
            continue  # traced code: its parameters are real tensors
        yield from _once(scope.run(function.node.body))
    yield from _kept_on_objects(module, user_layers)


def _kept_on_objects(module: ModuleContext, user_layers: dict[str, ClassInfo]) -> Iterator[Hit]:
    """A plain object that builds a functional model in `__init__` and keeps some of its
    tensors (`self.mean = Dense(2)(hidden)`), then gives `compile` a loss made in another of its
    methods that reads them (`def kl_loss(y_true, y_pred): ... self.mean ...`): traced, the
    loss gets the KerasTensors, not the batch's values (davidADSP/GDL_code#100)."""
    for cls in module.index.classes:
        init = cls.methods.get("__init__")
        if init is None or not isinstance(init.node, ast.FunctionDef) or (
                module.keras_kind(cls) is not None):
            continue
        builder = _Scope(module, user_layers, cls)
        for _hit in builder.run(init.node.body):
            pass  # the model building's own findings come from the per-function pass
        kept = {name: origin for name, origin in builder.symbolic.items()
                if name.startswith("self.")}
        if not kept:
            continue
        for method in cls.methods.values():
            for function in (method, *module.index.nested_in(method)):
                if function is init or isinstance(function.node, ast.Lambda) or (
                        not module.in_focus(function.node.lineno)
                        or module.graph.in_graph(function) is None):
                    continue
                reader = _Scope(module, user_layers, cls, depth=1)
                reader.symbolic = dict(kept)
                reader.globals = set(kept)
                reader.function = function
                reader.graph = True
                yield from _once(reader.run(function.node.body))


def _held_name(node: ast.AST) -> str | None:
    """How a scope keys what a node reads: `name`, or `self.attribute`."""
    if isinstance(node, ast.Name):
        return node.id
    attribute = self_attribute(node)
    return None if attribute is None else f"self.{attribute}"


def _in_traced_code(module: ModuleContext, node: ast.AST | object) -> bool:
    """Whether the node is in a function that runs in a graph."""
    parent = node if isinstance(node, ast.AST) else None
    while parent is not None and not isinstance(parent, ast.FunctionDef | ast.AsyncFunctionDef):
        parent = module.index.parent(parent)
    function = module.index.function_of(parent) if parent is not None else None
    return function is not None and module.graph.in_graph(function) is not None


def _once(hits: Iterator[Hit]) -> Iterator[Hit]:
    """Each op once, though several calls may pass a KerasTensor into its function."""
    seen: set[int] = set()
    for hit in hits:
        if id(hit.target) not in seen:
            seen.add(id(hit.target))
            yield hit


def _mentions_inputs(module: ModuleContext) -> bool:
    return module.mentions("Input") and any(
        module.refers_to(call.func, INPUTS) for call, _ in module.index.calls
    )


class _Scope:
    """One function (or the module): symbolic names in statement order."""

    def __init__(self, module: ModuleContext, user_layers: dict[str, ClassInfo],
                 owner: ClassInfo | None = None, depth: int = 0) -> None:
        self.module = module
        self.user_layers = user_layers
        self.owner = owner  # the class whose method this is (`self.helper(...)` calls)
        self.depth = depth  # how many user functions a KerasTensor was followed into
        self.symbolic: dict[str, ast.expr] = {}  # name → the keras.Input(...) it comes from
        self.layers: set[str] = set()  # names bound to layer or model instances
        self.module_layers: set[str] = set()  # module-level ones, whatever comes after
        self.instances: dict[str, ClassInfo] = {}  # names bound to plain (non-Keras) objects
        self.globals: set[str] = set()  # module-level KerasTensors a function reads
        self.function: FunctionInfo | None = None  # that function
        self.graph = False  # whether it is traced (a loss...): there `keras.ops` fails too

    def run(self, body: list[ast.stmt]) -> Iterator[Hit]:
        for statement in _statements(body):
            if isinstance(statement, ast.FunctionDef) and self.depth and self.symbolic:
                yield from self._into_closure(statement)
                continue
            reported = False  # one finding per statement: its ops have one fix
            for node in _own_nodes(statement):
                if isinstance(node, ast.Lambda):
                    if not reported:
                        for hit in self._in_lambda(node):
                            reported = True
                            yield hit
                elif isinstance(node, ast.Call):
                    if not reported:
                        for hit in self._tf_op(node):
                            reported = True
                            yield hit
                    yield from self._into_callee(node)
            self._assign(statement)

    def _in_lambda(self, node: ast.Lambda) -> Iterator[Hit]:
        """A lambda reading a KerasTensor of the code around it (`tf.Variable(lambda:
        tf.zeros_like(net))`, `Lambda(lambda x: tf.concat([x, net], -1))`): its TensorFlow ops
        get that KerasTensor when it runs. Its own parameters are other names."""
        arguments = node.args
        own = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                               arguments.vararg, arguments.kwarg) if a is not None}
        shadowed = {name: self.symbolic.pop(name) for name in own if name in self.symbolic}
        try:
            stack: list[ast.AST] = [node.body]
            while stack:
                inner = stack.pop()
                if isinstance(inner, ast.Lambda):
                    continue
                if isinstance(inner, ast.Call):
                    found = list(self._tf_op(inner))
                    if found:
                        yield found[0]
                        return
                stack.extend(code_children(inner))
        finally:
            self.symbolic.update(shadowed)

    # ---- into the user's own functions -------------------------------------------------------

    def _into_callee(self, call: ast.Call) -> Iterator[Hit]:
        """A KerasTensor passed to a function of the module, or to a plain class's `__call__`
        (a hand-written layer that is no Keras layer), is symbolic inside it too."""
        if self.depth >= 3:
            return
        passed = [(argument, self.origin(argument)) for argument in call.args]
        if not any(origin is not None for _argument, origin in passed):
            return
        callee = self._callee(call)
        if callee is None or isinstance(callee.node, ast.Lambda):
            return
        inner = _Scope(self.module, self.user_layers, callee.cls, self.depth + 1)
        names = [a.arg for a in [*callee.node.args.posonlyargs, *callee.node.args.args]]
        if callee.cls is not None and names:
            names = names[1:]  # self
        for name, (_argument, origin) in zip(names, passed, strict=False):
            if origin is not None:
                inner.symbolic[name] = origin
        yield from inner.run(callee.node.body)

    def _into_closure(self, node: ast.FunctionDef) -> Iterator[Hit]:
        """A traced function defined where KerasTensors were passed in (a loss factory's
        `loss`, given to `compile`): the names it reads from there are still symbolic."""
        function = self.module.index.function_of(node)
        if function is None or self.module.graph.in_graph(function) is None:
            return
        inner = _Scope(self.module, self.user_layers, self.owner, self.depth + 1)
        inner.reads_from(self.symbolic, function)
        inner.graph = True
        if inner.symbolic:
            yield from inner.run(node.body)

    def reads_from(self, outer: dict[str, ast.expr], function: FunctionInfo) -> None:
        """The outer scope's KerasTensors that `function` reads by name (a global, a closure's
        free name) are symbolic in it; the findings name them."""
        read = {n.id for n in function.nodes.of(ast.Name)} - function.local_names
        self.symbolic = {name: outer[name] for name in read if name in outer}
        self.globals = set(self.symbolic)
        self.function = function

    def _callee(self, call: ast.Call) -> FunctionInfo | None:
        func = call.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and (
                func.value.id == "self" and self.owner is not None):
            return self.owner.methods.get(func.attr)
        cls: ClassInfo | None = None
        if isinstance(func, ast.Call) and isinstance(func.func, ast.Name):
            cls = self.module.index.module_classes().get(func.func.id)  # `GraphDense(...)(x)`
        elif isinstance(func, ast.Name):
            cls = self.instances.get(func.id)
            if cls is None:
                found = self.module.function_named(func, None)
                return found if found is not None and found.cls is None else None
        if cls is None or self.module.keras_kind(cls) is not None:
            return None  # a Keras layer takes KerasTensors: that is what it is for
        return cls.methods.get("__call__")

    # ---- what is symbolic ------------------------------------------------------------------

    def origin(self, node: ast.AST) -> ast.expr | None:
        """The `keras.Input(...)` call a KerasTensor expression derives from, or None."""
        if isinstance(node, ast.Name):
            return self.symbolic.get(node.id)
        if isinstance(node, ast.BinOp):
            return self.origin(node.left) or self.origin(node.right)
        if isinstance(node, ast.UnaryOp):
            return self.origin(node.operand)
        if isinstance(node, ast.Subscript):
            return self.origin(node.value)
        if isinstance(node, ast.Compare):
            return next(filter(None, map(self.origin, [node.left, *node.comparators])), None)
        if isinstance(node, ast.ListComp | ast.GeneratorExp):
            return self._comprehension_origin(node)
        if isinstance(node, ast.Attribute):
            attribute = self_attribute(node)
            if attribute is not None:
                return self.symbolic.get(f"self.{attribute}")  # kept by `__init__`
            # `base_model.output`, `model.get_layer("x").output`: symbolic in Keras 3
            return node if node.attr in MODEL_TENSORS and self._of_layer(node.value) else None
        if not isinstance(node, ast.Call):
            return None
        qualname = self.module.qualname(node.func) or ""
        if qualname in INPUTS:
            return node
        if qualname.startswith("keras.ops.") and qualname.rsplit(".", 1)[-1] not in NOT_TENSOR_OPS:
            return self._first_origin(node)
        if self._is_layer(node.func):
            return self._first_origin(node)
        return None

    def _comprehension_origin(self, node: ast.ListComp | ast.GeneratorExp) -> ast.expr | None:
        """`[Embedding(9, 4)(i) for i in inputs]`: a list of KerasTensors, symbolic as a whole
        (`tf.concat` of it fails as one of them would)."""
        saved = dict(self.symbolic)
        try:
            for generator in node.generators:
                self._bind_item(generator.target, generator.iter)
            return self.origin(node.elt)
        finally:
            self.symbolic = saved

    def _bind_item(self, target: ast.AST, iterable: ast.AST) -> None:
        """A loop variable over a list of KerasTensors is one."""
        found = self.origin(iterable) if isinstance(target, ast.Name) else None
        if found is not None and isinstance(target, ast.Name):
            self.symbolic[target.id] = found
        else:
            for name in ast.walk(target):
                if isinstance(name, ast.Name):
                    self.symbolic.pop(name.id, None)

    def _of_layer(self, node: ast.AST) -> bool:
        """An expression rooted at a name bound to a layer or model instance."""
        while isinstance(node, ast.Attribute | ast.Subscript | ast.Call):
            node = node.func if isinstance(node, ast.Call) else node.value
        return isinstance(node, ast.Name) and node.id in self.layers

    def _first_origin(self, call: ast.Call) -> ast.expr | None:
        for argument in _arguments(call):
            found = self.origin(argument)
            if found is not None:
                return found
        return None

    def _is_layer(self, func: ast.AST) -> bool:
        """`Dense(4)` in `Dense(4)(x)`, or a name bound to a layer or model instance."""
        if isinstance(func, ast.Name):
            return func.id in self.layers
        return isinstance(func, ast.Call) and self._constructs_layer(func)

    def _constructs_layer(self, call: ast.Call) -> bool:
        qualname = self.module.qualname(call.func)
        if qualname in INPUTS:
            return False
        if qualname is not None:
            last = qualname.rsplit(".", 1)[-1]
            return (qualname.startswith(("keras.layers.", "keras.models.", "keras.applications."))
                    or qualname in ("keras.Model", "keras.Sequential")) and last[:1].isupper()
        return isinstance(call.func, ast.Name) and call.func.id in self.user_layers

    def _assign(self, statement: ast.stmt) -> None:
        if isinstance(statement, ast.Assign):
            for target in statement.targets:
                self._bind(target, statement.value)
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            self._bind(statement.target, statement.value)
        elif isinstance(statement, ast.AugAssign) and isinstance(statement.target, ast.Name):
            name = statement.target.id
            if name not in self.symbolic:
                found = self.origin(statement.value)
                if found is not None:
                    self.symbolic[name] = found
        elif isinstance(statement, ast.For | ast.AsyncFor):
            self._bind(statement.target, None)
            self._bind_item(statement.target, statement.iter)
        elif isinstance(statement, ast.With | ast.AsyncWith):
            for item in statement.items:
                if item.optional_vars is not None:
                    self._bind(item.optional_vars, None)

    def _bind(self, target: ast.AST, value: ast.AST | None) -> None:
        if isinstance(target, ast.Tuple | ast.List):
            values = (value.elts if isinstance(value, ast.Tuple | ast.List)
                      and len(value.elts) == len(target.elts) else [None] * len(target.elts))
            for one, part in zip(target.elts, values, strict=True):
                self._bind(one, part)
            return
        if isinstance(target, ast.Starred):
            self._bind(target.value, None)
            return
        attribute = self_attribute(target)
        if attribute is not None:
            kept = None if value is None else self.origin(value)
            if kept is not None:
                self.symbolic[f"self.{attribute}"] = kept
            else:
                self.symbolic.pop(f"self.{attribute}", None)
            return
        if not isinstance(target, ast.Name):
            return
        found = None if value is None or _is_tf_op(self.module, value) or (
            _is_array_function(self.module, value)) else self.origin(value)
        if found is not None:
            self.symbolic[target.id] = found
        else:
            self.symbolic.pop(target.id, None)
        if isinstance(value, ast.Call) and self._constructs_layer(value):
            self.layers.add(target.id)
            self.module_layers.add(target.id)
        else:
            self.layers.discard(target.id)
        cls = (self.module.index.module_classes().get(value.func.id)
               if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) else None)
        if cls is not None and self.module.keras_kind(cls) is None:
            self.instances[target.id] = cls
        else:
            self.instances.pop(target.id, None)

    # ---- the hazard ------------------------------------------------------------------------

    def _tf_op(self, call: ast.Call) -> Iterator[Hit]:
        if not (_is_tf_op(self.module, call) or _is_array_function(self.module, call)
                or (self.graph and _is_keras_op(self.module, call))):
            return
        for argument in _arguments(call):
            found = self.origin(argument)
            if found is None or (_is_value_builtin(self.module, call)
                                 and isinstance(found, ast.Attribute)):
                continue  # `len(model.outputs)`: a model's tensors may be a list
            yield self._hit(call, argument, found)
            return

    def _hit(self, call: ast.Call, argument: ast.AST, origin: ast.expr) -> Hit:
        segment = self.module.source.segment
        op = segment(call.func)
        text = segment(argument) or ""
        label = f"`{text}`" if len(text) <= 40 and "\n" not in text else "its argument"
        if _is_array_function(self.module, call):
            return self._array_hit(call, op, label, origin, argument)
        qualname = self.module.qualname(call.func) or ""
        equivalent = KERAS_OPS.get(qualname.rsplit(".", 1)[-1])
        keras = name_for(self.module, "keras") or "keras"
        if equivalent is not None and not qualname.startswith("tensorflow.image."):
            instead = (f"use `{keras}.ops.{equivalent}`, or wrap the TensorFlow code in a "
                       "`Lambda`/custom layer")
        else:
            instead = ("use the `keras.ops` equivalent, or wrap the TensorFlow code in a "
                       "`Lambda`/custom layer")
        read = next((key for n in ast.walk(argument) if (key := _held_name(n)) in self.globals),
                    None)
        if read is not None and self.function is not None:
            label = f"`{read}`"
            if self.module.graph.in_graph(self.function) is not None:
                instead = (f"`{self.function.name}` runs on real tensors, not on the model's "
                           "inputs: pass the values another way (`fit(sample_weight=...)`, or "
                           "compute the term inside the model with `add_loss`)")
        where, related = self._origin_note(origin, argument)
        if self.module.flavor == "2":
            return Hit(
                call, f"`{op}` is applied to {label}, a symbolic KerasTensor of the model, in "
                "traced code", related=related,
                detail=f"{where}when Keras traces it, tf-keras raises `TypeError: You are passing "
                "KerasTensor(...), an intermediate TF-Keras symbolic input/output, to a TF API "
                "that does not allow registering custom dispatchers`", help=instead)
        return Hit(
            call,
            f"`{op}` is applied to {label}, a Keras 3 symbolic KerasTensor",
            related=related,
            detail=f"{where}Keras 3 raises `ValueError: A KerasTensor cannot be used as input to "
            "a TensorFlow function`",
            help=instead,
        )

    def _array_hit(self, call: ast.Call, op: str, label: str, origin: ast.expr,
                   argument: ast.AST) -> Hit:
        where, related = self._origin_note(origin, argument)
        if _is_value_builtin(self.module, call):
            error = (f"`{op}` of a KerasTensor raises `TypeError` (Keras 3 and tf-keras: "
                     "\"'KerasTensor' object cannot be interpreted as an integer\" for `range`)")
        elif self.module.flavor == "2":
            error = "tf-keras raises `TypeError: You are passing KerasTensor(...) ... to a TF API`"
        else:
            error = ("Keras 3 raises `ValueError: A KerasTensor is symbolic ... You cannot "
                     "convert it to a NumPy array`")
        return Hit(call, f"`{op}` is given {label}, a symbolic KerasTensor of the model: it "
                   "needs values, and a KerasTensor has none", related=related,
                   detail=f"{where}{error}",
                   help="compute it in a layer with TensorFlow or `keras.ops` (a custom layer, "
                   "or `tf.numpy_function` inside one, with its output shape set), or on the "
                   "data before the model")

    def _origin_note(self, origin: ast.expr, argument: ast.AST
                     ) -> tuple[str, tuple[Related, ...]]:
        """Where the symbolic tensor an argument holds comes from, when not the argument."""
        if origin is argument:
            return "", ()
        segment = self.module.source.segment
        source = (f"{segment(origin.func)}(...)" if isinstance(origin, ast.Call)
                  else segment(origin))
        return (f"it comes from `{source}` on line {self.module.span(origin).line}; ",
                (Related(self.module.path, self.module.span(origin),
                         "where the symbolic tensor comes from"),))


def _is_tf_op(module: ModuleContext, node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    qualname = module.qualname(node.func) or ""
    if module.flavor == "2" and qualname.startswith("keras.backend."):
        # tf-keras's backend functions are TensorFlow ops (`K.sum` is `tf.reduce_sum`)
        return qualname.rsplit(".", 1)[-1] not in LEGACY_BACKEND_NOT_OPS
    return (qualname.startswith("tensorflow.") and qualname not in TF_ALLOWED
            and not qualname.startswith(TF_ALLOWED_PREFIXES))


def _is_array_function(module: ModuleContext, node: ast.AST) -> bool:
    """A function of a library that needs values: NumPy, SciPy, OpenCV, PyWavelets..., or a
    Python builtin that does (`range`, `int`, `float`)."""
    if not isinstance(node, ast.Call):
        return False
    if _is_value_builtin(module, node):
        return True
    qualname = module.qualname(node.func) or ""
    return qualname.startswith(names.ARRAY_LIBRARIES) and (
        qualname.rsplit(".", 1)[-1] not in names.NUMPY_SAFE)


def _is_value_builtin(module: ModuleContext, call: ast.Call) -> bool:
    """`range(x)`, `int(x)`, `float(x)`: Python's own, not a function the module defines."""
    return (isinstance(call.func, ast.Name) and call.func.id in VALUE_BUILTINS
            and module.qualname(call.func) is None
            and module.function_named(call.func, None) is None)


def _is_keras_op(module: ModuleContext, call: ast.Call) -> bool:
    qualname = module.qualname(call.func) or ""
    return qualname.startswith("keras.ops.") and qualname.rsplit(".", 1)[-1] not in NOT_TENSOR_OPS


def _arguments(call: ast.Call) -> Iterator[ast.AST]:
    """Positional and keyword arguments, and the elements of list/tuple arguments."""
    for argument in [*call.args, *(k.value for k in call.keywords)]:
        if isinstance(argument, ast.Starred):
            argument = argument.value
        if isinstance(argument, ast.List | ast.Tuple):
            yield from argument.elts
        else:
            yield argument


def _statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Statements in source order, into compound statements but not into nested scopes."""
    for statement in body:
        yield statement
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(statement, field, None)
            if isinstance(inner, list):
                yield from _statements([s for s in inner if isinstance(s, ast.stmt)])
        for handler in getattr(statement, "handlers", []):
            yield from _statements(handler.body)
        for case in getattr(statement, "cases", []):
            yield from _statements(case.body)


def _own_nodes(statement: ast.stmt) -> Iterator[ast.AST]:
    """The expression nodes of one statement (not of its sub-statements or nested scopes)."""
    if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return
    stack: list[ast.AST] = [
        child for child in code_children(statement)
        if not isinstance(child, ast.stmt | ast.excepthandler | ast.match_case)
    ]
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, ast.Lambda):  # its own scope: `_Scope._in_lambda`
            stack.extend(code_children(node))
