"""A `tf.Variable` (or a Keras layer, with its weights) created on every call of a `tf.function`
or a Keras `call`.

## What it does
Finds `tf.Variable(...)` (and `keras.Variable(...)`, `K.variable(...)`, tf-keras's
`K.zeros(...)`/`K.ones(...)`/`K.eye(...)`, and optimizers such as `keras.optimizers.Adam(...)`,
which make variables too) calls in a function that TensorFlow runs as a graph — a
`tf.function`, a Keras `Layer.call`/`Model.call`, `train_step`, a
loss or metric, a `tf.data` function, or a helper they call — and Keras layers with weights
constructed in a layer's or model's `call` (or in a function a `Lambda` layer wraps), that are
not behind a create-once guard:
`if self.v is None:`, `if not hasattr(self, "v"):`, `if name not in self._cache:`,
`if not self.built:`, a check of a module-level or closure variable, an early
`if self.v is not None: return ...`, or an `except AttributeError:` handler. A helper is not
reported when every graph call of it is itself guarded.

Not reported: variables created in `__init__` or `build` (the right places), or in plain eager
functions; a variable a layer's `call` makes and then differentiates against
(`image = tf.Variable(x)`, `tape.gradient(loss, image)`): the input being optimised or
attributed, data of that call made per call on purpose; what a variable's initial-value function makes (`tf.Variable(lambda: K.zeros(...))`:
the variable is reported); the standalone Keras 2 package's `keras.backend.ones(K.shape(x))` (its
multi-backend versions give a plain tensor for a shape not known in advance); layers made in
the `call` of a class whose own `__call__` (or a project base's) runs `self.call(...)` by hand
instead of through Keras: a builder that wires new layers into a functional network once, each
time it is applied to a symbolic input.

## Why is this bad?
A `tf.function` allows variables to be created only on its first trace and then verifies that
a second trace creates none; a function that makes a new variable per call fails on its very
first call with `ValueError: tf.function only supports singleton tf.Variables created on the
first call. Make sure the tf.Variable is only created once or created outside tf.function.`
(`tf.init_scope()` around it does not help); when the initial value is computed from the
function's inputs the error is `Argument initial_value (...) could not be lifted out of a
tf.function` instead. In a Keras `call` the same errors come out of `fit`/`predict` and
functional model construction (which trace `call`); called eagerly, the layer gets a fresh, re-initialised
variable on every call that Keras never tracks, so it is not trained or saved.

## Example
```python
import tensorflow as tf


class Counter(tf.Module):
    @tf.function
    def __call__(self, x):
        self.total = tf.Variable(0.0)
        self.total.assign_add(tf.reduce_sum(x))
        return self.total
```

## Use instead
```python
import tensorflow as tf


class Counter(tf.Module):
    def __init__(self):
        self.total = None

    @tf.function
    def __call__(self, x):
        if self.total is None:
            self.total = tf.Variable(0.0)
        self.total.assign_add(tf.reduce_sum(x))
        return self.total
```

In a Keras layer, create weights in `build()` with `self.add_weight(...)`.

## References
- [tf.function: creating tf.Variables](https://www.tensorflow.org/guide/function#creating_tfvariables)
- [Keras: making new layers (build)](https://keras.io/guides/making_new_layers_and_models_via_subclassing/)
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterator, Sequence

from tf_insight.check.context import ModuleContext
from tf_insight.check.graph_model import ContextKind, GraphContext
from tf_insight.check.imports import keyword
from tf_insight.check.index import ClassInfo, FunctionInfo
from tf_insight.check.rules import Hit
from tf_insight.check.rules._attributes import VARIABLES, makes_keras_layer
from tf_insight.check.rules._keras import method_self_calls
from tf_insight.findings import Related, Severity

CODE = "TFI008"
NAME = "variable-created-per-call"
SEVERITY = Severity.ERROR
HOLDS_EAGERLY = True  # eagerly, each call makes a fresh variable: its state never carries over

CREATION_METHODS = frozenset({"__init__", "build", "_build", "__post_init__"})
KERAS_KINDS = frozenset({ContextKind.KERAS_CALL, ContextKind.LOSS, ContextKind.METRIC})
# tf-keras backend functions that make a variable (for a dynamic shape, a tensor made outside
# the graph under `init_scope`: "out of scope" in a trace); Keras 3 has none of them
# (`K.zeros_like`/`K.ones_like` make tensors, despite their docstrings)
BACKEND_VARIABLES = frozenset({"keras.backend.zeros", "keras.backend.ones", "keras.backend.eye",
                               "keras.backend.random_uniform_variable",
                               "keras.backend.random_normal_variable"})
OPTIMIZER_MODULES = ("keras.optimizers.", "tensorflow.optimizers.")
BUILTINS = frozenset(dir(builtins))
GUARD_CALLS = frozenset({"hasattr", "getattr", "isinstance", "callable"})


def check(module: ModuleContext) -> Iterator[Hit]:
    contexts = dict(module.graph.functions())
    for function, context in module.graph.focused_functions():
        if function.name in CREATION_METHODS or _initial_value_of_variable(module, function):
            continue
        creations = [
            node for node in function.calls
            if (module.refers_to(node.func, VARIABLES)
                or _makes_layer(module, node, function, context)
                or _makes_optimizer(module, node)
                or (module.flavor == "2" and module.refers_to(node.func, BACKEND_VARIABLES)
                    and not _multi_backend_tensor(module, node)))
            and not _guarded(module, node, function)
            and not _differentiated_here(module, node, function, context)
        ]
        if not creations:
            continue
        if context.kind is ContextKind.CALLED and _only_guarded_callers(
                module, function, contexts):
            continue
        for creation in creations:
            yield _hit(module, creation, function, context)


def _differentiated_here(module: ModuleContext, creation: ast.Call, function: FunctionInfo,
                         context: GraphContext) -> bool:
    """`image = tf.Variable(x)` in a Keras layer's `call` that then takes
    `tape.gradient(loss, image)`: the input being optimised or attributed (feature
    visualisation, saliency, an adversarial step), data of this call rather than a weight."""
    parent = module.index.parent(creation)
    if context.kind is not ContextKind.KERAS_CALL or not isinstance(parent, ast.Assign) or not (
            module.refers_to(creation.func, VARIABLES)):
        return False
    target = parent.targets[0]
    if len(parent.targets) != 1 or not isinstance(target, ast.Name):
        return False
    for call in function.calls:
        if isinstance(call.func, ast.Attribute) and call.func.attr == "gradient":
            sources = call.args[1] if len(call.args) > 1 else keyword(call, "sources")
            named = sources.elts if isinstance(sources, ast.List | ast.Tuple) else [sources]
            if any(isinstance(n, ast.Name) and n.id == target.id for n in named):
                return True
    return False


def _initial_value_of_variable(module: ModuleContext, function: FunctionInfo) -> bool:
    """`tf.Variable(lambda: K.zeros(...))`: the lambda makes the variable's initial value, once
    per variable; the variable itself is what is made per call (reported where it is)."""
    parent = module.index.parent(function.node)
    return (isinstance(function.node, ast.Lambda) and isinstance(parent, ast.Call)
            and module.refers_to(parent.func, VARIABLES))


def _multi_backend_tensor(module: ModuleContext, call: ast.Call) -> bool:
    """`K.ones(K.shape(x))` from the standalone Keras 2 package (`import keras.backend`: the
    multi-backend Keras of TF 1.x days, before Keras 2.4 became tf.keras): there a shape not
    known in advance gives a plain tensor, made in the graph being built, not a variable
    (keras-maskrcnn's and keras-importance-sampling's, judged in the precision corpus); tf-keras
    (`tensorflow.keras.backend`) makes it under `init_scope` and fails."""
    raw = module.imports.raw_name(call.func) or ""
    shape = call.args[0] if call.args else keyword(call, "shape")
    return raw.startswith("keras.backend.") and shape is not None and not _literal_shape(shape)


def _literal_shape(node: ast.expr) -> bool:
    """`(2, 3)`, `[4]`, `5`: a shape written out."""
    if isinstance(node, ast.Tuple | ast.List):
        return all(isinstance(e, ast.Constant) for e in node.elts)
    return isinstance(node, ast.Constant)


# Not `TimeDistributed` or `RNN`: they wrap a layer and have no weights of their own, so
# wrapping an existing `self.dense` per call makes nothing (a new layer inside is its own call).
WEIGHTED_LAYERS = frozenset({
    "Dense", "EinsumDense", "Embedding", "Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose",
    "Conv2DTranspose", "Conv3DTranspose", "SeparableConv1D", "SeparableConv2D",
    "DepthwiseConv1D", "DepthwiseConv2D", "ConvLSTM1D", "ConvLSTM2D", "ConvLSTM3D",
    "BatchNormalization", "LayerNormalization", "GroupNormalization", "UnitNormalization",
    "LSTM", "GRU", "SimpleRNN", "LSTMCell", "GRUCell", "SimpleRNNCell", "Bidirectional",
    "MultiHeadAttention", "GroupedQueryAttention", "PReLU",
})


def _makes_layer(module: ModuleContext, call: ast.Call, function: FunctionInfo,
                 context: GraphContext) -> bool:
    """A Keras layer with weights made in a Keras layer's or model's `call`, or in a function
    a `Lambda` layer wraps (a `Concatenate` or `Flatten` has none: making it per call costs
    nothing)."""
    wrapped = function.cls is None and context.kind is ContextKind.KERAS_CALL
    if not wrapped and (function.cls is None
                        or module.keras_kind(function.cls) not in ("layer", "model")):
        return False
    if not makes_keras_layer(module, call):
        return False
    if not wrapped and function.name == "call" and function.cls is not None and "call" in (
            method_self_calls(module, function.cls, "__call__")):
        return False  # the project's `__call__` runs `call` by hand, to build a network once
    qualname = module.qualname(call.func)
    if qualname is not None:
        return qualname.rsplit(".", 1)[-1] in WEIGHTED_LAYERS
    cls = module.index.module_classes().get(getattr(call.func, "id", ""))
    return cls is not None and _has_weights(module, cls)


def _makes_optimizer(module: ModuleContext, call: ast.Call) -> bool:
    """`keras.optimizers.Adam(...)` (any Keras or TF optimizer class): it makes variables (its
    step count, then its slots) when it is made, in Keras 3 and tf-keras alike."""
    qualname = module.qualname(call.func) or ""
    last = qualname.rsplit(".", 1)[-1]
    return last[:1].isupper() and ".schedules." not in qualname and (
        qualname.startswith(OPTIMIZER_MODULES) or (qualname.startswith(
            "tensorflow.compat.v1.train.") and last.endswith("Optimizer")))


def _has_weights(module: ModuleContext, cls: ClassInfo, depth: int = 0) -> bool:
    """A layer class of the module that makes weights: `add_weight`, `tf.Variable`, or a
    weighted layer made in its methods."""
    for method in cls.methods.values():
        for call in method.calls:
            if isinstance(call.func, ast.Attribute) and call.func.attr in ("add_weight",
                                                                           "add_variable"):
                return True
            if module.refers_to(call.func, VARIABLES):
                return True
            qualname = module.qualname(call.func)
            if qualname is not None and qualname.rsplit(".", 1)[-1] in WEIGHTED_LAYERS and (
                    makes_keras_layer(module, call)):
                return True
            inner = module.index.module_classes().get(getattr(call.func, "id", ""))
            if inner is not None and inner is not cls and depth < 3 and _has_weights(
                    module, inner, depth + 1):
                return True
    return False


def _hit(module: ModuleContext, creation: ast.Call, function: FunctionInfo,
         context: GraphContext) -> Hit:
    if makes_keras_layer(module, creation):
        return _layer_hit(module, creation, function, context)
    parent = module.index.parent(creation)
    what = f"`{module.source.segment(creation.func)}(...)`"
    optimizer = _makes_optimizer(module, creation)
    made = "a new optimizer, with new variables," if optimizer else "a new variable"
    if isinstance(parent, ast.Assign | ast.AnnAssign):
        targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
        what += f" assigned to `{module.source.segment(targets[0])}`"
    keras = context.kind in KERAS_KINDS or (context.kind is ContextKind.CALLED and any(
        f"({kind.value})" in context.reason for kind in KERAS_KINDS))
    used = {n.id for a in [*creation.args, *(k.value for k in creation.keywords)]
            for n in ast.walk(a) if isinstance(n, ast.Name)}
    from_inputs = sorted(used & (set(function.parameter_names) - {"self", "cls"}))
    error = ("`ValueError: tf.function only supports singleton tf.Variables created on the "
             "first call`")
    if from_inputs:
        error = ("`ValueError: Argument initial_value (...) could not be lifted out of a "
                 f"tf.function` (its initial value depends on `{from_inputs[0]}`)")
    if keras:
        why = (f"traced by fit/predict or a functional model it fails with {error}, and eagerly "
               "it is re-initialised on each call and never tracked by Keras")
        advice = "create it once in `build()` with `self.add_weight(...)`"
    else:
        why = f"it fails on the first call with {error}"
        advice = ("create it once outside the function (or in `__init__`), or behind "
                  "`if self.v is None:`")
    if optimizer:
        advice = "create the optimizer once, outside the function (or in `__init__`), and reuse it"
    related: tuple[Related, ...] = ()
    if context.origin is not None:
        related = (Related(module.path, context.origin, context.reason),)
    return Hit(
        creation,
        f"{what} in `{function.qualname}` creates {made} on every call",
        related=related,
        detail=f"`{function.qualname}` runs as a graph ({_how(context)}): {why}",
        help=advice,
    )


def _layer_hit(module: ModuleContext, creation: ast.Call, function: FunctionInfo,
               context: GraphContext) -> Hit:
    layer = module.source.segment(creation.func)
    return Hit(
        creation,
        f"`{layer}(...)` in `{function.qualname}` makes a new layer, with new weights, on every "
        "call",
        detail=f"`{function.qualname}` runs as a graph ({_how(context)}): Keras 3 never trains them (each trace makes fresh ones, outside the model's "
        "weights), and tf-keras fails with `ValueError: tf.function only supports singleton "
        "tf.Variables created on the first call`",
        help="create the layer once in `__init__` (or `build`) and call it here",
    )


def _how(context: GraphContext) -> str:
    if context.kind is ContextKind.CALLED:
        return context.reason
    return f"{context.kind.value}"


def _guarded(module: ModuleContext, node: ast.AST, function: FunctionInfo) -> bool:
    """Inside a create-once guard, or after an early-return guard, within `function`."""
    child: ast.AST = node
    parent = module.index.parent(node)
    statement: ast.AST = node
    while parent is not None and parent is not function.node:
        if isinstance(parent, ast.If | ast.IfExp) and child is not parent.test \
                and _guard_test(module, parent.test, function, _branch(parent)):
            return True
        if isinstance(parent, ast.ExceptHandler):
            return True
        if isinstance(parent, ast.stmt):
            statement = parent
        child, parent = parent, module.index.parent(parent)
    if isinstance(function.node, ast.Lambda):
        return False
    for earlier in function.node.body:
        if earlier is statement or earlier.lineno >= getattr(statement, "lineno", 0):
            break
        if isinstance(earlier, ast.If) and _guard_test(
                module, earlier.test, function, earlier.body) and any(
            isinstance(n, ast.Return | ast.Raise) for n in earlier.body
        ):
            return True
    return False


def _branch(node: ast.If | ast.IfExp) -> list[ast.AST]:
    return list(node.body) if isinstance(node, ast.If) else [node.body]


def _guard_test(module: ModuleContext, test: ast.expr, function: FunctionInfo,
                body: Sequence[ast.AST]) -> bool:
    """A test that can tell whether the variable already exists: None checks, hasattr, `in`
    a cache that the guarded code fills or reads back (`if key not in self._vars:
    self._vars[key] = tf.Variable(...)`; not `if "heads" in self.config:`), state on
    self/cls, or module-level/closure variables (not just the call's arguments)."""
    own = set(function.local_names) - {"self", "cls"}
    for node in ast.walk(test):
        if isinstance(node, ast.Compare):
            if any(isinstance(op, ast.Is | ast.IsNot) for op in node.ops):
                return True
            if any(isinstance(op, ast.In | ast.NotIn) for op in node.ops):
                return _cache_of(node.comparators[-1], body)
            if any(isinstance(c, ast.Constant) and c.value is None for c in node.comparators):
                return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in GUARD_CALLS:
            return True
        if (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
                and node.id not in own and node.id not in module.imports.aliases
                and node.id not in BUILTINS):
            return True
    return False


def _cache_of(container: ast.expr, body: Sequence[ast.AST]) -> bool:
    """Whether the guarded code fills `container` or reads an item of it back."""
    shape = ast.dump(container)
    for statement in body:
        for node in ast.walk(statement):
            if isinstance(node, ast.Subscript) and ast.dump(node.value) == shape:
                return True
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and (
                    node.func.attr in ("add", "append", "setdefault", "update", "get")
                    and ast.dump(node.func.value) == shape):
                return True
    return False


def _only_guarded_callers(module: ModuleContext, function: FunctionInfo,
                          contexts: dict[FunctionInfo, GraphContext]) -> bool:
    """Every graph function that calls `function` does so behind a guard; a nested function
    that its graph function only defines (returns or stores, never calls or passes on) does
    not run there either."""
    sites = 0
    for caller in contexts:
        if caller is function:
            continue
        for call in caller.calls:
            if module.function_named(call.func, caller) is not function:
                continue
            sites += 1
            if not _guarded(module, call, caller):
                return False
        if function.outer is caller and caller.name in CREATION_METHODS:
            return True
    if sites == 0 and function.outer is not None and function.outer in contexts:
        return not _passed_on(module, function)
    return sites > 0


def _passed_on(module: ModuleContext, function: FunctionInfo) -> bool:
    """A nested function handed to a call in its outer function (`tf.map_fn(fn, x)`,
    `strategy.run(fn)`): it runs in graph mode."""
    outer = function.outer
    assert outer is not None
    if isinstance(function.node, ast.Lambda):
        return isinstance(module.index.parent(function.node), ast.Call | ast.keyword)
    for node in outer.nodes.of(ast.Name):
        if node.id == function.name and node.ctx.__class__ is ast.Load:
            parent = module.index.parent(node)
            if isinstance(parent, ast.keyword) or (
                    isinstance(parent, ast.Call) and node in parent.args):
                return True
    return False
