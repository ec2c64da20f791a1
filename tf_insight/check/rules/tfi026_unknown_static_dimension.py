"""The static batch size `x.shape[0]` used as a number, or tested to skip the work, in code that
Keras traces.

## What it does
Finds `x.shape[0]` of a tensor in a Keras `call`, `train_step`/`test_step`, loss or metric (and
helpers called from them) where the code computes with it as a Python number: in arithmetic
(`x.shape[0] // parts`), in `int(...)` or `float(...)`, or in the shape given to
`tf.reshape`/`tf.zeros`/`tf.ones`/`tf.fill`/`tf.random.*` — directly, through a name
assigned from it (`batch = x.shape[0]`), or through a loop's name that takes it in turn
(`for side in (height, width)`). Another dimension `x.shape[i]` likewise, where the file's
`keras.Input` leaves it `None`: written out (`keras.Input((None, None, 3))`) or passed to the
function that makes the `Input` (`build((None, None, 3))` for `keras.Input(image_shape)`). Also an early return when it is unknown (`if
x.shape[0] is None: return x`, a trick to let Keras build the model): Keras traces `fit` and
`predict` with the batch unknown too, so that branch is the only one that ever trains, and the
rest of the function (a sampling step, an `add_loss`) runs only in eager calls.

Reported only in a file that shows Keras a `None` batch: a `keras.Input` without a batch size,
or a `Dataset.batch(...)` without `drop_remainder=True` (library code tied to a pipeline with
a fixed batch size relies on it deliberately). Not reported: `range(x.shape[0])` (TFI018's),
code that checks for `None` first (`if x.shape[0] is None:`,
`x.shape[0] or tf.shape(x)[0]`), the shapes of weights (`self.kernel.shape[0]`, of a local
computed from weights alone: `W = tf.tensordot(self.A, self.kernel, ...)`, and of a helper's
parameter that every call gives such a weight or constant: `_conv(x, self.taps)`), other
dimensions when no `Input` of the file leaves them `None` (they are often fixed by the model's
`Input`), and a plain `tf.function`, which is
traced with the batch size of the call.

## Why is this bad?
Keras traces this code with the batch dimension unknown: a functional model is built with
`Input(shape=...)`, whose batch size is `None`, and `fit` on a batched `tf.data.Dataset` traces
its step with a `None` batch too. `x.shape[0]` is then `None`, and the arithmetic raises
`TypeError: unsupported operand type(s) for //: 'NoneType' and 'int'`, although the layer
works when called eagerly on a tensor (TF 2.21, Keras 3: a layer that splits its batch with
`x.shape[0] // 2` runs eagerly and fails in `fit` on a dataset). An early return on an unknown
batch fails silently instead: a VAE sampling layer that returns its mean when `shape[0]` is
`None` trains, on a batched dataset, on the mean alone, without noise or its KL loss (TF 2.21,
Keras 3: the loss `fit` reports equals the reconstruction error of the mean;
`tests/rules/real_users/round8_dev/bvae9_sampling_skipped_when_batch_unknown.py`).

## Example
```python
import tensorflow as tf


class HalfBatchMean(tf.keras.layers.Layer):
    def call(self, x):
        half = x.shape[0] // 2
        return tf.reduce_mean(x[:half], axis=0, keepdims=True)


model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), HalfBatchMean()])
```

## Use instead
```python
import tensorflow as tf


class HalfBatchMean(tf.keras.layers.Layer):
    def call(self, x):
        half = tf.shape(x)[0] // 2
        return tf.reduce_mean(x[:half], axis=0, keepdims=True)


model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), HalfBatchMean()])
```

## References
- [tf.shape: the dynamic shape](https://www.tensorflow.org/api_docs/python/tf/shape)
- [Keras: the functional API's batch dimension](https://keras.io/guides/functional_api/)
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field

from tf_insight.check.context import ModuleContext
from tf_insight.check.graph_model import ContextKind, GraphContext
from tf_insight.check.index import MANY_BINDINGS, FunctionInfo
from tf_insight.check.rules import Hit
from tf_insight.check.rules._keras import traced_expecting_error
from tf_insight.check.rules._tensors import graph_functions_named
from tf_insight.check.rules._tf_functions import arguments_given
from tf_insight.check.shared import Shared
from tf_insight.findings import Related, Severity

CODE = "TFI026"
NAME = "unknown-static-dimension"
SEVERITY = Severity.WARNING

# graph code Keras traces with a `None` batch dimension
KERAS_TRACED = frozenset({ContextKind.KERAS_CALL, ContextKind.KERAS_STEP, ContextKind.LOSS,
                          ContextKind.METRIC})
# functions whose argument (or `shape=`) is a shape: a `None` in it raises
SHAPE_TAKERS = frozenset({
    "tensorflow.reshape", "tensorflow.zeros", "tensorflow.ones", "tensorflow.fill",
    "tensorflow.random.uniform", "tensorflow.random.normal", "tensorflow.broadcast_to",
    "tensorflow.tile", "keras.ops.reshape", "keras.ops.zeros", "keras.ops.ones",
    "keras.ops.full", "keras.ops.broadcast_to", "numpy.broadcast_to", "numpy.zeros",
    "numpy.ones", "numpy.full", "numpy.empty", "numpy.reshape",
})
ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)


@dataclass
class Unknown:
    """What the file shows to be unknown when its code is traced."""

    keras_batch: str = ""  # why Keras traces with a None batch ("" if nothing says so)
    signature_batch: str = ""  # a TensorSpec with a None first dimension
    keras_dims: dict[int, str] = field(default_factory=dict)  # dimension -> the free Input

    def why(self, context: GraphContext, signed: bool, dimension: int) -> str:
        """Why `dimension` is None where code of this context is traced ("": it need not be);
        `signed`: the tf.function it starts from has an `input_signature`."""
        if context.origin_kind in KERAS_TRACED:
            return self.keras_batch if dimension == 0 else self.keras_dims.get(dimension, "")
        if signed and dimension == 0:
            return self.signature_batch
        return ""


def check(module: ModuleContext) -> Iterator[Hit]:
    if not module.mentions("shape"):
        return
    unknown = _unknown(module)
    if not (unknown.keras_batch or unknown.signature_batch or unknown.keras_dims):
        return
    for function, context in module.graph.focused_functions():
        if traced_expecting_error(module, context):
            continue
        signed = _signed(module, context)
        state = _state_parameters(module, function)
        sizes = [(node, dimension) for node in function.nodes.of(ast.Subscript)
                 if (dimension := _static_dimension(function, node, state)) is not None
                 and unknown.why(context, signed, dimension)]
        if sizes:  # only then ask the module's calls which parameters are filters
            state |= _weight_parameters(module, function)
            sizes = [(node, dimension) for node, dimension in sizes
                     if _static_dimension(function, node, state) is not None]
        for size, dimension in sizes:
            skip = _return_when_unknown(module, function, size) if dimension == 0 else None
            if skip is not None:
                yield _skipped_hit(module, function, context, skip,
                                   unknown.why(context, signed, dimension))
        if not sizes or _checks_for_none(module, function, [node for node, _ in sizes]):
            continue
        reported: set[ast.AST] = set()
        for size, dimension in sizes:
            found = _numeric_use(module, function, size)
            if found is None or found[0] in reported:
                continue  # (`for side in (height, width)`: one use of both)
            at, use = found
            reported.add(at)
            text = module.source.segment(size)
            what = "the batch size" if dimension == 0 else f"dimension {dimension}"
            through = "" if at is size else f" (`{module.source.segment(at)}` = `{text}`)"
            yield Hit(at, f"`{text}` in `{function.qualname}` is used as a number{through} "
                      f"{use}, but {what} is `None` when the code is traced",
                      related=() if at is size else (
                          Related(module.path, module.span(size), f"`{text}` read here"),),
                      detail=f"it is {context.reason}; "
                      f"{unknown.why(context, signed, dimension)}, so the static "
                      f"`shape[{dimension}]` is `None` there",
                      help=f"use the dynamic size `tf.shape(x)[{dimension}]` (a tensor), or "
                      "check for `None` first")


def _return_when_unknown(module: ModuleContext, function: FunctionInfo,
                         size: ast.Subscript) -> ast.If | None:
    """The `if size is None:` whose body ends in a `return`, with more of the function after
    it: the work an unknown batch skips."""
    test = module.index.parent(size)
    statement = module.index.parent(test) if test is not None else None
    if not (isinstance(test, ast.Compare) and test.left is size and len(test.ops) == 1
            and isinstance(test.ops[0], ast.Is) and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value is None and isinstance(statement, ast.If)
            and statement.test is test and not statement.orelse
            and isinstance(statement.body[-1], ast.Return)):
        return None
    body = function.node.body
    if isinstance(body, list) and statement in body and body.index(statement) < len(body) - 1:
        return statement
    return None


def _skipped_hit(module: ModuleContext, function: FunctionInfo, context: GraphContext,
                 branch: ast.If, why: str) -> Hit:
    test = module.source.segment(branch.test)
    return Hit(branch.test, f"`{function.qualname}` returns early when `{test}`, and that is how "
               "Keras traces it: the rest never runs in `fit` or `predict`",
               detail=f"it is {context.reason}; {why}, so the static batch size is `None` "
               "there and this branch is the one traced, while an eager call (a known batch) "
               "runs the rest",
               help="remove the early return: the rest must work on an unknown batch "
               "(`tf.shape(x)[0]` is the batch size as a tensor)")


def _signed(module: ModuleContext, context: GraphContext) -> bool:
    """Whether the code runs in a `tf.function` with an `input_signature`: its own, or that
    of the tf.function at the start of the chain of calls that reaches it."""
    seen: set[str] = set()
    while context.kind is ContextKind.CALLED and context.caller and context.caller not in seen:
        seen.add(context.caller)
        callers = graph_functions_named(module, context.caller)
        if not callers:
            return False
        context = callers[0][1]
    return context.kind is ContextKind.TF_FUNCTION and context.input_signature


UNKNOWN_BATCHES: Shared[Unknown] = Shared("unknown batch sizes")


def _batch_given(call: ast.Call) -> bool:
    """`keras.Input(shape, batch_size=n)`, `batch_shape=...`, or the batch size as its second
    argument (`Input((8,), 4)`, in Keras 3 and tf-keras alike)."""
    second = call.args[1] if len(call.args) > 1 else None
    return any(k.arg in ("batch_size", "batch_shape") for k in call.keywords) or not (
        second is None or (isinstance(second, ast.Constant) and second.value is None))


def _unknown(module: ModuleContext) -> Unknown:
    """The file's evidence of unknown dimensions (once per module)."""
    def find() -> Unknown:
        found = Unknown()
        for call, scope in module.calls_named("Input", "batch", "TensorSpec"):
            name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(
                call.func, "id", "")
            if name == "Input":
                if not _batch_given(call):
                    found.keras_batch = found.keras_batch or (
                        "a `keras.Input` without a batch size makes the batch `None`")
                for items, given in _shapes_given(module, call, scope):
                    for position, item in enumerate(items):
                        if isinstance(item, ast.Constant) and item.value is None:
                            found.keras_dims.setdefault(position + 1, (
                                f"`{module.source.segment(given)}` leaves it `None`"))
            elif name == "batch" and isinstance(call.func, ast.Attribute) and not any(
                    k.arg == "drop_remainder" and not (
                        isinstance(k.value, ast.Constant) and k.value.value is False)
                    for k in call.keywords) and len(call.args) < 2:
                found.keras_batch = found.keras_batch or (
                    "a dataset batched without `drop_remainder=True` has a `None` batch")
            elif name == "TensorSpec":
                items = _shape_items(call)
                if items and isinstance(items[0], ast.Constant) and items[0].value is None:
                    found.signature_batch = found.signature_batch or (
                        f"`{module.source.segment(call)}` gives it a `None` batch")
        return found

    return module.shared(UNKNOWN_BATCHES, find)


def _shape_items(call: ast.Call) -> list[ast.expr]:
    """The items of the shape a `keras.Input`/`TensorSpec` is given (first argument or
    `shape=`), when it is written out."""
    shape = _shape_of(call)
    return list(shape.elts) if isinstance(shape, ast.Tuple | ast.List) else []


def _shape_of(call: ast.Call) -> ast.expr | None:
    return call.args[0] if call.args else next(
        (k.value for k in call.keywords if k.arg == "shape"), None)


def _shapes_given(module: ModuleContext, call: ast.Call, scope: FunctionInfo | None
                  ) -> Iterator[tuple[list[ast.expr], ast.AST]]:
    """The shapes a `keras.Input` is given, each with where it is written: its own literal,
    or, when the shape is a parameter of the function that makes the `Input`
    (`def build(image_shape): inputs = keras.Input(image_shape)`), the literals the module's
    calls of that function pass for it (`build((None, None, 3))`)."""
    shape = _shape_of(call)
    if isinstance(shape, ast.Tuple | ast.List):
        yield list(shape.elts), call
        return
    if not (isinstance(shape, ast.Name) and scope is not None
            and not isinstance(scope.node, ast.Lambda) and scope.cls is None
            and shape.id in scope.parameter_names):
        return
    for caller, argument in arguments_given(module, scope, shape.id):
        if isinstance(argument, ast.Tuple | ast.List):
            yield list(argument.elts), caller


def _static_dimension(function: FunctionInfo, node: ast.Subscript,
                      state_parameters: frozenset[str] = frozenset()) -> int | None:
    """`i` of `x.shape[i]`, `x.get_shape()[i]`, or `shape[i]` with `shape = x.shape` (the
    one assignment of that name in the function): not of an attribute of `self` (a weight),
    nor of a parameter every caller gives such an attribute (`state_parameters`)."""
    if not (isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, int)
            and not isinstance(node.slice.value, bool) and node.slice.value >= 0):
        return None
    shape = node.value
    if isinstance(shape, ast.Name):
        assigned = function.nodes.assignments_to(shape.id)
        if len(assigned) != 1 or not isinstance(assigned[0], ast.Assign):
            return None
        shape = assigned[0].value
    if isinstance(shape, ast.Call) and not shape.args and isinstance(
            shape.func, ast.Attribute) and shape.func.attr == "get_shape":
        owner = shape.func.value
    elif isinstance(shape, ast.Attribute) and shape.attr == "shape":
        owner = shape.value
    else:
        return None
    while isinstance(owner, ast.Attribute | ast.Subscript):
        owner = owner.value
    if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
        return None
    if isinstance(owner, ast.Name) and owner.id in state_parameters:
        return None
    if isinstance(owner, ast.Name) and _from_weights(function, owner.id):
        return None
    return int(node.slice.value)


def _from_weights(function: FunctionInfo, name: str, seen: frozenset[str] = frozenset()) -> bool:
    """A local computed from the layer's own attributes and constants only, none of the
    inputs (`W = tf.tensordot(self.A, self.kernel, ...)`, then `W = tf.transpose(W, ...)`): its
    shape is a weight's, known."""
    assigned = function.nodes.assignments_to(name)
    if len(seen) > 4 or not assigned or not all(isinstance(a, ast.Assign) for a in assigned):
        return False
    inputs = set(function.parameter_names) - {"self", "cls"}
    seen = seen | {name}
    for assign in assigned:
        assert isinstance(assign, ast.Assign)
        for node in ast.walk(assign.value):
            if not isinstance(node, ast.Name) or node.id in ("self", "cls") or node.id in seen:
                continue
            if node.id in inputs or (node.id in function.local_names
                                     and not _from_weights(function, node.id, seen)):
                return False
    return True


def _state_parameters(module: ModuleContext, function: FunctionInfo) -> frozenset[str]:
    """The parameters of a layer's `call` that every call of the layer in the module gives an
    attribute of the caller (`self.attn(x, mask=self.attn_mask)`: a buffer made in `build`,
    whose first dimension is no batch)."""
    cls = function.cls
    if cls is None or function.name != "call":
        return frozenset()
    held = _instances_of(module, cls.name)
    calls = _calls_of_instances(module, cls.name, held)
    given: dict[str, bool] = {}
    for call, _scope in calls:
        func = call.func
        key = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if key not in held:
            continue
        for name, value in _arguments(function, call).items():
            state = isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and (
                value.value.id == "self")
            given[name] = given.get(name, True) and state
    return frozenset(name for name, state in given.items() if state)


def _weight_parameters(module: ModuleContext, function: FunctionInfo,
                       depth: int = 0) -> frozenset[str]:
    """The parameters of a helper that every call of it in the module gives a weight or a
    constant: an attribute of `self`, a literal, a local made from weights and constants alone
    (`k2d = _gauss5_2d()`), or such a parameter of the caller itself (`self._op(y,
    self.p_taps)`, whose `taps` goes on to `_depthwise_conv(x, taps)`): a filter's shape, not a
    batch."""
    calls = module.calls_of(function) if depth <= 3 else []
    given: dict[str, bool] = {}
    for call, scope in calls:
        for name, value in _arguments(function, call).items():
            given[name] = given.get(name, True) and _weight_value(module, scope, value, depth)
    return frozenset(name for name, weight in given.items() if weight)


def _arguments(function: FunctionInfo, call: ast.Call) -> dict[str, ast.expr | None]:
    """Each parameter of a method (past `self`) or function, and what `call` gives it (None:
    its default)."""
    arguments = function.node.args
    positional = [a.arg for a in [*arguments.posonlyargs, *arguments.args]]
    if function.cls is not None and positional[:1] in (["self"], ["cls"]):
        positional = positional[1:]
    values = {**dict(zip(positional, call.args, strict=False)),
              **{k.arg: k.value for k in call.keywords if k.arg}}
    return {name: values.get(name) for name in (*positional,
                                                 *(a.arg for a in arguments.kwonlyargs))}


def _weight_value(module: ModuleContext, scope: FunctionInfo | None, value: ast.expr | None,
                  depth: int) -> bool:
    """`value`, given in `scope`, is made of weights and constants alone: no name in it is an
    input of `scope` or a local made from one (`4.0 * _gaussian()`, `self.taps`)."""
    if value is None or scope is None:
        return isinstance(value, ast.Constant)
    weights: frozenset[str] | None = None
    for node in ast.walk(value):
        if not isinstance(node, ast.Name) or node.id in ("self", "cls"):
            continue
        if node.id in scope.parameter_names:
            if weights is None:
                weights = _weight_parameters(module, scope, depth + 1)
            if node.id not in weights:
                return False
        elif node.id in scope.local_names and not _from_weights(scope, node.id):
            return False
    return True


CLASS_CALLS: Shared[list[tuple[ast.Call, FunctionInfo | None]]] = Shared("calls of a class")


def _calls_of_instances(module: ModuleContext, class_name: str, held: frozenset[str]
                        ) -> list[tuple[ast.Call, FunctionInfo | None]]:
    """The calls spelled with the names `held` (once per class name; none past
    `MANY_BINDINGS`: each layer of a module with many would scan them all)."""
    def find() -> list[tuple[ast.Call, FunctionInfo | None]]:
        calls = module.calls_named(*held) if held else []
        return [] if len(calls) > MANY_BINDINGS else calls

    return module.shared(CLASS_CALLS, find, class_name)


INSTANCE_ATTRIBUTES: Shared[frozenset[str]] = Shared("attributes holding instances")


def _instances_of(module: ModuleContext, class_name: str) -> frozenset[str]:
    """Names and `self` attributes bound to `ClassName(...)` in the module (once per name)."""
    def find() -> frozenset[str]:
        found: set[str] = set()
        for call, _scope in module.calls_named(class_name):
            parent = module.index.parent(call)
            if isinstance(parent, ast.Assign) and parent.value is call:
                for target in parent.targets:
                    if isinstance(target, ast.Name):
                        found.add(target.id)
                    elif isinstance(target, ast.Attribute):
                        found.add(target.attr)
        return frozenset(found)

    return module.shared(INSTANCE_ATTRIBUTES, find, class_name)


def _checks_for_none(module: ModuleContext, function: FunctionInfo,
                     sizes: list[ast.Subscript]) -> bool:
    """The function tests a static size (or a name assigned from one) against `None`, or
    picks with `or` (`x.shape[0] or tf.shape(x)[0]`): it has a fallback for an unknown size."""
    names = {name for size in sizes for name in _names_given(module, size)}
    chosen = set(map(id, sizes))

    def is_size(node: ast.AST) -> bool:
        return id(node) in chosen or (isinstance(node, ast.Name) and node.id in names)

    for node in function.nodes.of(ast.BoolOp, ast.Compare):
        if isinstance(node, ast.BoolOp):
            if isinstance(node.op, ast.Or) and any(is_size(v) for v in node.values):
                return True
        elif any(isinstance(c, ast.Constant) and c.value is None for c in node.comparators) \
                and is_size(node.left):
            return True
    return False


def _names_given(module: ModuleContext, size: ast.Subscript) -> list[str]:
    """The names an assignment binds to `size`: `batch = x.shape[0]`, and the matching item
    of `height, width = x.shape[1], x.shape[2]`."""
    parent = module.index.parent(size)
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1:
        target = parent.targets[0]
        if isinstance(target, ast.Name):
            return [target.id]
    if isinstance(parent, ast.Tuple):
        statement = module.index.parent(parent)
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(
                statement.targets[0], ast.Tuple) and statement.value is parent and len(
                statement.targets[0].elts) == len(parent.elts):
            target = statement.targets[0].elts[parent.elts.index(size)]
            if isinstance(target, ast.Name):
                return [target.id]
    return []


def _numeric_use(module: ModuleContext, function: FunctionInfo, size: ast.Subscript
                 ) -> tuple[ast.AST, str] | None:
    """Where and how the code computes with `size` (or with the name assigned from it, or with
    a loop's name that takes it in turn, `for side in (height, width)`: the first such use),
    if it does."""
    use = _use_of(module, size)
    if use is not None:
        return size, use
    found: list[tuple[ast.AST, str]] = []
    for name in _names_given(module, size):
        for node in function.nodes.of(ast.Name):
            if node.id != name or not isinstance(node.ctx, ast.Load):
                continue
            use = _use_of(module, node)
            if use is not None:
                found.append((node, use))
                continue
            loop = _iterated_by(module, node)
            if loop is not None:
                target, body = loop
                found.extend((item, use) for item in body if isinstance(item, ast.Name)
                             and item.id == target and isinstance(item.ctx, ast.Load)
                             and (use := _use_of(module, item)) is not None)
    return min(found, key=lambda item: module.span(item[0]), default=None)


def _iterated_by(module: ModuleContext, node: ast.Name) -> tuple[str, list[ast.AST]] | None:
    """The loop name that takes `node`'s value in turn, and the nodes where it does:
    `for side in (height, width): ...`, `(ceil(side / 2) for side in (height, width))`."""
    items = module.index.parent(node)
    if not isinstance(items, ast.Tuple | ast.List):
        return None
    loop = module.index.parent(items)
    if isinstance(loop, ast.For) and loop.iter is items and isinstance(loop.target, ast.Name):
        return loop.target.id, [n for statement in loop.body for n in ast.walk(statement)]
    if isinstance(loop, ast.comprehension) and loop.iter is items and isinstance(
            loop.target, ast.Name):
        comprehension = module.index.parent(loop)
        return loop.target.id, list(ast.walk(comprehension)) if comprehension else []
    return None


def _use_of(module: ModuleContext, node: ast.AST) -> str | None:
    parent = module.index.parent(node)
    if isinstance(parent, ast.BinOp) and isinstance(parent.op, ARITHMETIC):
        return "in arithmetic"
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and (
            parent.func.id in ("int", "float")) and module.qualname(parent.func) is None:
        return f"in `{parent.func.id}()`"
    if isinstance(parent, ast.List | ast.Tuple):
        holder = module.index.parent(parent)
        if isinstance(holder, ast.keyword):
            holder = module.index.parent(holder)
        if isinstance(holder, ast.Call) and (module.qualname(holder.func) or "") in SHAPE_TAKERS:
            return f"in the shape given to `{module.source.segment(holder.func)}`"
    return None
