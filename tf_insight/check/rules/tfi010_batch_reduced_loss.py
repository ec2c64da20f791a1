"""A custom loss `(y_true, y_pred)` that reduces over the batch axis and returns one number.

## What it does
Finds custom losses — functions passed to `compile(loss=...)` (also through a factory such as
`loss=focal_loss(2.0)` that returns an inner function) and `call` of `Loss` subclasses — whose
returned value is a reduction over every axis or over the batch axis: `tf.reduce_mean(x)`,
`keras.ops.mean(x)`, `K.sum(x)` without `axis`, or with `axis=None`, `axis=0`,
`axis=[0, ...]`, and arithmetic on such values (`0.5 * tf.reduce_mean(...)`).

Reported where weights reach the loss (without weights the numbers agree): a loss *function*
where the module that compiles it also passes `sample_weight=` or `class_weight=` to
`fit`/`evaluate`/`train_on_batch`; a `Loss` subclass (made to be reused, compiled anywhere)
where that module or any file of the project passes `sample_weight=` or `class_weight=` (a
value other than `None`) to `fit`/`evaluate`/`train_on_batch`, unless it or a base class of the
project overrides `Loss.__call__` and weighs samples itself.

Also reported without weights: a loss that adds up the batch (`K.sum(x)`, `-ops.sum(...)`, sums
added together or scaled by a constant) in a module that compiles with plain SGD, whose steps
then grow with the batch size (`bench/recall.py`'s focal loss summed over the batch: the
loss is 0.07 at batch size 1 and 4.57 at 64 for the same samples). Not a ratio of sums (a
masked mean, a Dice score), nor a sum the user chose (under `if ... reduction ...`), nor under
an adaptive optimizer (Adam, RMSprop...: the scale divides out).

Not reported: reductions over the last axes only (`axis=-1`, `axis=[1, 2]`), per-sample losses,
reductions used inside a per-sample result (`per_sample / tf.reduce_max(y_true)`), and
reductions whose `axis` is not a literal.

The fix, where one is right: the mean of a per-sample loss (`tf.reduce_mean(
keras.losses.binary_crossentropy(y_true, y_pred))`) is replaced by the per-sample values; an
axis-less mean (`tf.reduce_mean`, `keras.ops.mean`, `K.mean`) of element-wise values gets
`axis=-1`. Keras then averages the per-sample values, so unweighted training is unchanged. Sums
and other reductions get no fix (a per-sample sum changes the loss scale).

## Why is this bad?
Keras calls the loss, then weights its result per sample with `sample_weight` (and
`class_weight`) and averages over the batch. A loss that already averaged the batch returns a
scalar, which Keras multiplies by every weight and divides by the batch size: the loss becomes
`batch_mean × sum(weights) / batch_size`, silently wrong (Keras 3 and tf-keras alike, graph or
eager). In tf-keras a model with rank-1 outputs fails instead with `Can not squeeze dim[0],
expected a dimension of 1, got <batch size>`. Without weights the numbers agree, so nothing
shows until weights are used.

## Example
```python
import numpy as np
import tensorflow as tf


def scalar_loss(y_true, y_pred):
    return tf.reduce_mean(tf.square(y_true - y_pred))


model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss=scalar_loss)
model.fit(np.ones((8, 4)), np.ones((8, 1)), sample_weight=np.arange(8.0))
```

## Use instead
```python
import numpy as np
import tensorflow as tf


def per_sample_loss(y_true, y_pred):
    return tf.reduce_mean(tf.square(y_true - y_pred), axis=-1)


model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss=per_sample_loss)
model.fit(np.ones((8, 4)), np.ones((8, 1)), sample_weight=np.arange(8.0))
```

## References
- [Keras: losses (creating custom losses)](https://keras.io/api/losses/#creating-custom-losses)
- [keras.losses.Loss](https://keras.io/api/losses/#loss-class)
- [tf.keras.Model.fit: sample_weight](https://www.tensorflow.org/api_docs/python/tf/keras/Model#fit)
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tf_insight.check.context import ModuleContext
from tf_insight.check.graph_model import ContextKind
from tf_insight.check.imports import keyword
from tf_insight.check.index import FunctionInfo
from tf_insight.check.rules import Hit
from tf_insight.check.rules._keras import class_defines
from tf_insight.check.rules._tf_functions import call_arguments
from tf_insight.check.shared import Shared
from tf_insight.findings import Edit, Fix, Severity, Span

CODE = "TFI010"
NAME = "batch-reduced-loss"
SEVERITY = Severity.WARNING
HOLDS_IN_TF1 = True  # about how Keras is used, the same in TF 1.x code
HOLDS_EAGERLY = True  # how Keras weights a loss, whatever the mode

_REDUCE = ("mean", "sum", "max", "min", "prod", "logsumexp", "std", "variance", "var")
REDUCTIONS = frozenset(
    {f"tensorflow.reduce_{name}" for name in _REDUCE}
    | {f"tensorflow.math.reduce_{name}" for name in _REDUCE}
    | {f"keras.ops.{name}" for name in _REDUCE}
    | {f"keras.backend.{name}" for name in _REDUCE}
    | {f"keras.src.ops.numpy.{name}" for name in _REDUCE}
)
# Functions of one tensor whose result is reduced when their argument is.
ELEMENTWISE = frozenset(
    {f"tensorflow.{name}" for name in ("sqrt", "exp", "abs", "square", "cast", "identity",
                                       "negative", "stop_gradient")}
    | {f"tensorflow.math.{name}" for name in ("sqrt", "exp", "log", "abs", "square", "log1p",
                                              "negative", "rsqrt")}
    | {f"keras.ops.{name}" for name in ("sqrt", "exp", "log", "abs", "square", "log1p",
                                        "negative", "cast", "stop_gradient")}
    | {f"keras.backend.{name}" for name in ("sqrt", "exp", "log", "abs", "square", "cast",
                                            "stop_gradient")}
)
BINARY = frozenset(
    {f"tensorflow.{name}" for name in ("add", "subtract", "multiply", "divide", "maximum",
                                       "minimum", "pow")}
    | {f"tensorflow.math.{name}" for name in ("add", "subtract", "multiply", "divide",
                                              "divide_no_nan", "maximum", "minimum", "pow")}
    | {f"keras.ops.{name}" for name in ("add", "subtract", "multiply", "divide", "maximum",
                                        "minimum", "power")}
)

_SCALAR = "scalar"  # a Python number or hyper-parameter, not a tensor of the batch
# Losses that already give one value per sample (their mean is the batch mean).
PER_SAMPLE_LOSSES = frozenset(
    {f"keras.losses.{name}" for name in (
        "mean_squared_error", "mean_absolute_error", "mean_absolute_percentage_error",
        "mean_squared_logarithmic_error", "binary_crossentropy", "binary_focal_crossentropy",
        "categorical_crossentropy", "sparse_categorical_crossentropy", "categorical_hinge",
        "hinge", "squared_hinge", "huber", "log_cosh", "kl_divergence", "poisson",
        "cosine_similarity", "mse", "mae", "mape", "msle", "kld", "kullback_leibler_divergence")}
    | {"tensorflow.nn.softmax_cross_entropy_with_logits",
       "tensorflow.nn.sparse_softmax_cross_entropy_with_logits",
       "keras.backend.categorical_crossentropy", "keras.backend.sparse_categorical_crossentropy"}
)


def check(module: ModuleContext) -> Iterator[Hit]:
    weighted = _weights_used(module)
    sgd = _compiled_with_sgd(module)
    elsewhere = module.project.keras.weights  # a file of the project gives Keras weights
    for function, how, subclass in _losses(module):
        if not module.in_focus(function.node.lineno):
            continue
        if subclass:
            weights = weighted or bool(elsewhere)
        elif function.cls is not None:  # a method (a GAN's loss): not another class's weights
            weights = _weights_used(module, function.cls.node)
        else:
            weights = weighted
        seen: set[ast.Call] = set()
        returns: list[tuple[ast.AST, ast.expr]] = [
            (node, node.value) for node in function.nodes
            if isinstance(node, ast.Return) and node.value is not None
        ]
        if isinstance(function.node, ast.Lambda):
            returns = [(function.node.body, function.node.body)]
        for node, value in returns:
            found = _Reduced(module, function, node).of(value)
            if not isinstance(found, ast.Call) or found in seen or not (
                    weights or (sgd and _summed(module, function, value)
                                and not _chosen(function, node))):
                continue
            seen.add(found)
            name = module.source.segment(found.func)
            message = f"the loss `{function.qualname}` returns `{name}(...)` {_axis_text(found)}"
            if not weights:
                yield Hit(found, message, detail=f"the loss ({how}) adds up the batch's samples: "
                          "its value and every SGD step grow with the batch size, and a "
                          "smaller last batch counts less", help=_HELP)
                continue
            yield Hit(
                found, message, fix=_per_sample_fix(module, function, node, found),
                detail=f"the loss ({how}) no longer has one value per sample, so Keras applies "
                "`sample_weight`/`class_weight` to it wrongly (the loss is scaled by the sum of "
                "the batch's weights; tf-keras fails with `Can not squeeze dim[0]` on rank-1 "
                "outputs)", help=_HELP)


_HELP = "return one value per sample and let Keras average over the batch"


def _summed(module: ModuleContext, function: FunctionInfo, value: ast.expr, depth: int = 0
            ) -> bool:
    """The returned value adds up the batch: a sum over it (`K.sum(x)`, `tf.reduce_sum(x,
    axis=0)`), negated, scaled by a constant or hyper-parameter, or such sums added together.
    Unlike a mean, it changes with the batch size even when no sample is weighted; a ratio of
    sums (a masked mean, a Dice score) does not."""
    if depth > 8:
        return False
    if isinstance(value, ast.Name):
        stores = function.nodes.assignments_to(value.id)
        return len(stores) == 1 and isinstance(stores[0], ast.Assign) and _summed(
            module, function, stores[0].value, depth + 1)
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.USub):
        return _summed(module, function, value.operand, depth + 1)
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add | ast.Sub):
        return _summed(module, function, value.left, depth + 1) and _summed(
            module, function, value.right, depth + 1)
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mult):
        return any(_summed(module, function, one, depth + 1) and isinstance(
            other.operand if isinstance(other, ast.UnaryOp) else other,
            ast.Constant | ast.Name | ast.Attribute)
            for one, other in ((value.left, value.right), (value.right, value.left)))
    return isinstance(value, ast.Call) and (module.qualname(value.func) or "").rsplit(
        ".", 1)[-1] in ("reduce_sum", "sum") and _batch_axis(value)


SGD_COMPILED: Shared[bool] = Shared("a model compiled with SGD")


def _compiled_with_sgd(module: ModuleContext) -> bool:
    """Whether a `compile` of the module uses plain SGD (`optimizer="sgd"`, `SGD(...)`), whose
    step is proportional to the gradient: a loss summed over the batch then takes steps that
    grow with the batch size (Adam and the other adaptive optimizers divide that scale out)."""
    def sgd(node: ast.expr | None) -> bool:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value.lower() == "sgd"
        return isinstance(node, ast.Call) and (module.qualname(node.func) or module.source.segment(
            node.func) or "").rsplit(".", 1)[-1] == "SGD"
    return module.shared(SGD_COMPILED, lambda: any(
        sgd(keyword(call, "optimizer") or (call.args[0] if call.args else None))
        for call, _scope in module.calls_named("compile")))


def _chosen(function: FunctionInfo, ret: ast.AST) -> bool:
    """The sum is the reduction the user chose (`elif self.reduction == "sum": return ...`):
    the return sits under an `if` on a `reduction`."""
    return any(isinstance(node, ast.If) and any(ret is n for s in node.body + node.orelse
                                                 for n in ast.walk(s))
               and "reduction" in ast.unparse(node.test) for node in function.nodes.of(ast.If))


WEIGHT_KEYWORDS = frozenset({"sample_weight", "class_weight"})


WEIGHTED_CALLS: Shared[list[tuple[ast.Call, FunctionInfo | None]]] = Shared(
    "calls giving sample or class weights")


def _weights_used(module: ModuleContext, within: ast.ClassDef | None = None) -> bool:
    """Whether the module gives Keras sample or class weights (`fit(..., sample_weight=w)`);
    with `within`, only in that class or outside every class (a module with several GAN
    classes, one of which weighs its samples, gives the others' losses no weights)."""
    return any(within is None or scope is None or _outermost_class(scope) in (None, within)
               for _call, scope in module.shared(WEIGHTED_CALLS, lambda: [
                   (call, scope) for call, scope in module.calls_named(
                       "fit", "evaluate", "train_on_batch", "test_on_batch")
                   if any(k.arg in WEIGHT_KEYWORDS for k in call.keywords)]))


def _outermost_class(function: FunctionInfo) -> ast.ClassDef | None:
    while function.outer is not None:
        function = function.outer
    return function.cls.node if function.cls is not None else None


def _losses(module: ModuleContext) -> Iterator[tuple[FunctionInfo, str, bool]]:
    """Functions Keras uses as losses, with how we know, and whether each is the `call` of a
    `Loss` subclass (made to be reused, compiled anywhere)."""
    found: dict[FunctionInfo, tuple[str, bool]] = {}
    for function, context in module.graph.functions():
        if context.kind is not ContextKind.LOSS:
            continue
        if function.cls is not None:
            if function.name == "call" and not class_defines(module, function.cls, "__call__"):
                found[function] = f"`call` of the Loss subclass `{function.cls.name}`", True
        elif len(function.parameters) >= 2:
            found[function] = "passed to `compile(loss=...)`", False
    for function in _compiled_losses(module):
        found.setdefault(function, ("passed to `compile(loss=...)`", False))
    for function, (how, subclass) in found.items():
        yield function, how, subclass


def _compiled_losses(module: ModuleContext) -> Iterator[FunctionInfo]:
    """The losses of `compile(opt, fn)` (positional), of names assigned or looped over, and of
    the scope's parameters (`_functions`), which the graph model doesn't resolve."""
    for node, scope in module.calls_named("compile"):
        if not (isinstance(node.func, ast.Attribute) and node.func.attr == "compile"):
            continue
        loss = keyword(node, "loss") or (node.args[1] if len(node.args) > 1 else None)
        values: list[ast.expr] = [] if loss is None else [loss]
        if isinstance(loss, ast.List | ast.Tuple):
            values = list(loss.elts)
        elif isinstance(loss, ast.Dict):
            values = [v for v in loss.values if v is not None]
        for value in values:
            for function in _functions(module, value, scope, 0):
                if len(function.parameters) >= 2:
                    yield function


def _functions(module: ModuleContext, value: ast.expr, scope: FunctionInfo | None,
               depth: int) -> Iterator[FunctionInfo]:
    """The functions an expression can be: a function's name, a factory's product, a name
    assigned from one, a loop variable over a literal list of them
    (`for loss in (scalar_loss, per_sample_loss): model.compile(loss=loss)`), or a parameter
    of the scope, as this module's calls of the scope give it (`def build(loss): ...
    compile(loss=loss)` with `build(focal_loss)`)."""
    if depth > 3:
        return
    if isinstance(value, ast.Call):
        product = module.made_function(value, scope)
        if product is not None:
            yield product
        return
    function = module.function_named(value, scope)
    if function is not None:
        yield function
        return
    if not isinstance(value, ast.Name):
        return
    nodes = scope.nodes if scope is not None else module.index.module_nodes
    for node in nodes.of(ast.For, ast.Assign):
        if (isinstance(node, ast.For) and isinstance(node.target, ast.Name)
                and node.target.id == value.id and isinstance(node.iter, ast.List | ast.Tuple)):
            for element in node.iter.elts:
                yield from _functions(module, element, scope, depth + 1)
        elif (isinstance(node, ast.Assign) and len(node.targets) == 1
              and isinstance(node.targets[0], ast.Name) and node.targets[0].id == value.id
              and isinstance(node.value, ast.Name | ast.Call)):
            yield from _functions(module, node.value, scope, depth + 1)
    if scope is not None and value.id in scope.parameter_names:
        for call, caller in module.calls_named(scope.name):
            if module.function_named(call.func, caller) is scope:
                for argument, parameter in call_arguments(call, scope):
                    if parameter == value.id:
                        yield from _functions(module, argument, caller, depth + 1)


class _Reduced:
    """Is a returned expression reduced over the batch? `of` gives the reducing call, the
    marker `_SCALAR` for values that don't depend on the batch, or None."""

    def __init__(self, module: ModuleContext, function: FunctionInfo, before: ast.AST) -> None:
        self.module = module
        self.function = function
        self.line = getattr(before, "lineno", 0)
        self.depth = 0

    def of(self, node: ast.expr) -> ast.Call | str | None:
        self.depth += 1
        try:
            if self.depth > 20:
                return None
            return self._of(node)
        finally:
            self.depth -= 1

    def _of(self, node: ast.expr) -> ast.Call | str | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
            return _SCALAR
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and (
            node.value.id in ("self", "cls")
        ):
            return _SCALAR  # a hyper-parameter of the Loss
        if isinstance(node, ast.Name):
            return self._name(node.id)
        if isinstance(node, ast.UnaryOp):
            return self.of(node.operand)
        if isinstance(node, ast.BinOp):
            return _combine(self.of(node.left), self.of(node.right))
        if isinstance(node, ast.Call):
            qualname = self.module.qualname(node.func) or ""
            if qualname in REDUCTIONS and node.args:
                return node if _batch_axis(node) else None
            if qualname in ELEMENTWISE and node.args:
                return self.of(node.args[0])
            if qualname in BINARY and len(node.args) == 2:
                return _combine(self.of(node.args[0]), self.of(node.args[1]))
        return None

    def _name(self, name: str) -> ast.Call | str | None:
        if name in self.function.parameter_names:
            return None  # y_true / y_pred: tensors of the batch
        if name not in self.function.local_names:
            return _SCALAR  # a closure or global hyper-parameter (`alpha` of a loss factory)
        assignments = [
            n for n in self.function.nodes.of(ast.Assign, ast.AugAssign, ast.AnnAssign)
            if n.lineno < self.line and any(
                isinstance(t, ast.Name) and t.id == name
                for t in (n.targets if isinstance(n, ast.Assign) else [n.target]))
        ]
        if not assignments or any(not isinstance(n, ast.Assign | ast.AugAssign)
                                  for n in assignments):
            return None
        last = max(assignments, key=lambda n: (n.lineno, n.col_offset))
        if _in_branch(self.function, last) or last.value is None:
            return None
        previous, self.line = self.line, last.lineno
        try:
            value = self.of(last.value)
            if isinstance(last, ast.AugAssign):
                return _combine(self._name(name), value)
            return value
        finally:
            self.line = previous


def _elementwise(module: ModuleContext, node: ast.expr) -> bool:
    """Values of the shape of `y_true`/`y_pred` (rank ≥ 2 in Keras: a batch of outputs):
    arithmetic and element-wise ops on the loss's parameters and numbers."""
    if isinstance(node, ast.Name | ast.Constant | ast.Attribute):
        return True
    if isinstance(node, ast.UnaryOp):
        return _elementwise(module, node.operand)
    if isinstance(node, ast.BinOp):
        return _elementwise(module, node.left) and _elementwise(module, node.right)
    if isinstance(node, ast.Call):
        qualname = module.qualname(node.func) or ""
        return (qualname in ELEMENTWISE or qualname in BINARY
                or qualname.endswith((".log", ".binary_crossentropy"))
                ) and all(_elementwise(module, a) for a in node.args)
    return False


def _combine(left: ast.Call | str | None, right: ast.Call | str | None) -> ast.Call | str | None:
    if left is None or right is None:
        return None
    if isinstance(left, ast.Call):
        return left
    return right


def _in_branch(function: FunctionInfo, statement: ast.stmt) -> bool:
    """An assignment inside if/for/while/try/with: other paths may bind the name differently."""
    body = getattr(function.node, "body", [])
    return statement not in body


def _axis(call: ast.Call) -> ast.expr | None:
    found = keyword(call, "axis")
    if found is None and len(call.args) > 1:
        found = call.args[1]
    return found


def _batch_axis(call: ast.Call) -> bool:
    axis = _axis(call)
    if axis is None:
        return True
    if isinstance(axis, ast.Constant):
        return axis.value is None or (axis.value == 0 and not isinstance(axis.value, bool))
    if isinstance(axis, ast.List | ast.Tuple):
        return any(isinstance(e, ast.Constant) and e.value == 0 and not isinstance(e.value, bool)
                   for e in axis.elts)
    return False


def _axis_text(call: ast.Call) -> str:
    axis = _axis(call)
    if axis is None:
        return "without `axis` (over every axis, batch included)"
    if isinstance(axis, ast.Constant) and axis.value is None:
        return "with `axis=None` (over every axis, batch included)"
    return f"over the batch axis (`axis={ast.unparse(axis)}`)"


def _per_sample_fix(module: ModuleContext, function: FunctionInfo, ret: ast.AST,
                    reduction: ast.Call) -> Fix | None:
    """When a mean is clearly the returned value (`return mean(x)`, or `loss = mean(x);
    return loss` with `loss` used nowhere else): the mean of a per-sample loss becomes its
    per-sample values; a mean of element-wise values gets `axis=-1`. Keras then averages the
    per-sample values, so unweighted losses keep their value."""
    if _axis(reduction) is not None or len(reduction.args) != 1:
        return None
    if (module.qualname(reduction.func) or "").rsplit(".", 1)[-1] not in ("reduce_mean", "mean"):
        return None  # a sum or max per sample would change the loss scale: not mechanical
    value = ret.value if isinstance(ret, ast.Return) else ret
    if isinstance(value, ast.Name):
        uses = [n for n in function.nodes.of(ast.Name) if n.id == value.id]
        stores = [n for n in function.nodes.of(ast.Assign)
                  if any(isinstance(t, ast.Name) and t.id == value.id for t in n.targets)]
        if len(uses) != 2 or len(stores) != 1 or stores[0].value is not reduction:
            return None
    elif value is not reduction:
        return None
    inner = reduction.args[0]
    if isinstance(inner, ast.Call) and (module.qualname(inner.func) or "") in PER_SAMPLE_LOSSES:
        return Fix(description="Return the per-sample losses: one value per sample",
                   edits=(Edit(module.span(reduction), module.source.segment(inner) or ""),))
    if not _elementwise(module, inner):
        return None  # its rank is unknown: `axis=-1` may be the batch axis
    arguments: list[ast.AST] = [*reduction.args, *reduction.keywords]
    end = max((module.span(a) for a in arguments), key=lambda s: (s.end_line, s.end_column))
    return Fix(
        description="Reduce the last axis only (`axis=-1`): one loss value per sample",
        edits=(Edit(Span(end.end_line, end.end_column, end.end_line, end.end_column),
                    ", axis=-1"),),
    )
