"""A tensor used as a Python bool (`if`, `while`, `assert`, `and`/`or`/`not`, `for`) where
AutoGraph does not convert the code.

## What it does
Finds Python control flow on tensor values in graph code that AutoGraph does not rewrite:
a Keras 3 `Layer.call`/`Loss.call` (Keras 3 calls them directly, without AutoGraph), a Keras
`train_step`/`test_step`/`predict_step` (Keras 3 and tf-keras run them from their own
`tf.function`, and AutoGraph does not convert code called from Keras), a
`tf.function(autograph=False)`, a function decorated with
`tf.autograph.experimental.do_not_convert`, `tf.custom_gradient` or `tf.recompute_grad`
(TensorFlow's wrapper calls it, and AutoGraph does not convert what TensorFlow's own code calls:
TF 2.21, under `tf.function` and in `Dataset.map` alike), and helpers called from them. Reported: the test
of an `if`/`while`/`assert`/conditional expression, operands of `and`/`or`/`not`, the
iterable of a `for` loop or comprehension, and a `range(...)` bound, when the value is a tensor — a comparison
involving a tensor (`tf.reduce_sum(x) > 0`, `inputs > 0`), the result of a `tf.*`/`keras.ops`
op, or a name assigned from one.
In code AutoGraph converts (a plain `@tf.function`), the iterable and the `if` of a comprehension
(`[f(i) for i in tf.range(n)]`): AutoGraph rewrites `for` and `if` statements, never
comprehensions.

Not reported: Python flags and checks (`if training:`, `if mask is not None:`, `if self.flag:`,
`if x.shape[0] > 1:`), a bare parameter or what is unpacked from one (`if inputs:`, `for x in
inputs:`, `a, b = inputs` — it may be a list or a dict; but `for x in inputs:` in a layer's
`call` is reported where the module applies the layer to one `keras.Input`), code that cannot
see a symbolic tensor (eager-only or type-guarded, see `tf_insight/check/guards.py`), and the
statements of code AutoGraph converts (a plain `@tf.function`, a tf-keras `Layer.call`), where
such control flow becomes `tf.cond`/`tf.while_loop`.

## Why is this bad?
While TensorFlow traces a function, a tensor has no value, so Python cannot decide the branch:
`bool(tensor)` raises `OperatorNotAllowedInGraphError: Using a symbolic tf.Tensor as a Python
bool is not allowed` and iterating raises `Iterating over a symbolic tf.Tensor is not allowed`.
A Keras 3 layer with such code works when called eagerly and fails in `fit`, in `predict` and
when a functional model is built.

## Example
```python
import keras
import tensorflow as tf


class Gate(keras.layers.Layer):
    def call(self, inputs):
        if tf.reduce_sum(inputs) > 0:
            return inputs
        return -inputs
```

## Use instead
```python
import keras
from keras import ops


class Gate(keras.layers.Layer):
    def call(self, inputs, training=None, mask=None):
        if mask is not None:
            inputs = inputs * ops.cast(mask, inputs.dtype)
        positive = ops.sum(inputs) > 0
        return ops.where(positive, inputs, -inputs)
```

## References
- [AutoGraph limitations](https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/g3doc/reference/limitations.md)
- [tf.cond](https://www.tensorflow.org/api_docs/python/tf/cond)
- [keras.ops.cond](https://keras.io/api/ops/core/#cond-function)
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tf_insight.check.context import ModuleContext
from tf_insight.check.graph_model import ContextKind, GraphContext
from tf_insight.check.guards import guarded_nodes
from tf_insight.check.index import FunctionInfo
from tf_insight.check.rules import Hit
from tf_insight.check.rules._keras import applied_to_input, traced_expecting_error
from tf_insight.check.rules._tensors import (
    TensorFacts,
    tensor_facts,
    tested_tensors,
    unpassed_parameters,
)
from tf_insight.findings import Severity

CODE = "TFI013"
NAME = "tensor-as-python-bool"
SEVERITY = Severity.ERROR
FAILS_TRACING = True  # TensorFlow raises while it traces the function
HOLDS_IN_TF1 = True  # a TF 1.x graph holds symbolic tensors too
FLAVOR_DEPENDENT = True  # Keras 2 and Keras 3 differ here

INSTEAD = {
    "if": "`tf.cond`/`keras.ops.cond`, or `tf.where`/`keras.ops.where`",
    "while": "`tf.while_loop`/`keras.ops.while_loop`",
    "assert": "`tf.debugging.assert_*`",
    "conditional expression": "`tf.where`/`keras.ops.where`",
    "and/or/not": "`tf.logical_and/or/not`/`keras.ops.logical_*`",
    "for": "`tf.map_fn`/`keras.ops.vectorized_map` or a vectorized op",
}


def check(module: ModuleContext) -> Iterator[Hit]:
    for function, context in module.graph.focused_functions():
        if traced_expecting_error(module, context):
            continue  # a test that expects the failure
        # AutoGraph rewrites statements, never comprehensions
        tests = _comprehension_tests(function) if context.autograph else _truth_tests(function)
        reported: set[ast.AST] = set()
        unpassed: frozenset[str] | None = None
        for node, construct in tests:  # most functions have none
            if node in guarded_nodes(module, function):
                continue
            facts = tensor_facts(module, function, context)
            if context.autograph and facts.through_parameters_only(node):
                continue  # a caller may give a Python value, and a comprehension takes it
            if construct == "for" and _range_of_tensor(facts, node):
                if node not in reported:
                    reported.add(node)
                    yield _hit(module, function, context, node, "range")
                continue
            if unpassed is None:
                unpassed = unpassed_parameters(module, function)
            if construct == "for" and node not in reported and _single_input_iterated(
                    module, function, node):
                reported.add(node)
                yield _hit(module, function, context, node, "for")
                continue
            for tested in tested_tensors(facts, node, construct == "for", unpassed):
                if tested in reported:
                    continue
                reported.add(tested)
                kind = construct
                if tested is not node and construct != "for":
                    kind = "and/or/not"
                yield _hit(module, function, context, tested, kind)


def _truth_tests(function: FunctionInfo) -> Iterator[tuple[ast.AST, str]]:
    for node in function.nodes.of(ast.If, ast.While, ast.Assert, ast.IfExp, ast.comprehension,
                                  ast.For, ast.AsyncFor, ast.BoolOp, ast.UnaryOp):
        if isinstance(node, ast.If):
            yield node.test, "if"
        elif isinstance(node, ast.While):
            yield node.test, "while"
        elif isinstance(node, ast.Assert):
            yield node.test, "assert"
        elif isinstance(node, ast.IfExp):
            yield node.test, "conditional expression"
        elif isinstance(node, ast.comprehension):
            yield from _comprehension_parts(node)
        elif isinstance(node, ast.For | ast.AsyncFor):
            yield node.iter, "for"
        elif isinstance(node, ast.BoolOp):
            for value in node.values[:-1]:
                yield value, "and/or/not"
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            yield node.operand, "and/or/not"


def _comprehension_tests(function: FunctionInfo) -> Iterator[tuple[ast.AST, str]]:
    for node in function.nodes.of(ast.comprehension):
        yield from _comprehension_parts(node)


def _comprehension_parts(node: ast.comprehension) -> Iterator[tuple[ast.AST, str]]:
    for condition in node.ifs:
        yield condition, "if"
    yield node.iter, "for"


def _single_input_iterated(module: ModuleContext, function: FunctionInfo, node: ast.AST) -> bool:
    """`for row in inputs:` in a layer's `call` where the module applies the layer to one
    `Input` (`Pool()(keras.Input((5, 8)))`): there `inputs` is a tensor, not a list."""
    cls = function.cls
    parameters = function.parameter_names[1:2]
    if cls is None or function.name != "call" or not (
            isinstance(node, ast.Name) and node.id in parameters):
        return False
    return applied_to_input(module, cls) is not None


def _range_of_tensor(facts: TensorFacts, node: ast.AST) -> bool:
    """`range(tf.shape(x)[0])`: `range` needs a Python int."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "range" and any(facts.is_tensor(a) for a in node.args))


def _hit(module: ModuleContext, function: FunctionInfo, context: GraphContext,
         tested: ast.AST, kind: str) -> Hit:
    text = module.source.segment(tested)
    not_converted = _why_not_converted(module, function, context)
    if kind == "range":
        loop = "a comprehension" if context.autograph else "a `for` loop"
        return Hit(tested, f"{loop} in `{function.qualname}` iterates over `{text}` with a "
                   "tensor bound",
                   detail=f"{not_converted}: tracing raises `TypeError: 'SymbolicTensor' object "
                   "cannot be interpreted as an integer`",
                   help=f"use a static bound (`x.shape[0]`), `tf.range` under AutoGraph, or "
                   f"{INSTEAD['while']}")
    use = "iterates over" if kind == "for" else "uses"
    as_what = "" if kind == "for" else " as a Python bool"
    error = ("`Iterating over a symbolic tf.Tensor is not allowed`" if kind == "for"
             else "`OperatorNotAllowedInGraphError: Using a symbolic tf.Tensor as a Python bool "
                  "is not allowed`")
    construct = {
        "and/or/not": "`and`/`or`/`not`", "for": "a `for` loop",
        "conditional expression": "a conditional expression (`a if test else b`)",
    }.get(kind, f"`{kind}`")
    if context.autograph:  # only comprehensions are reported there
        construct = "a comprehension" if kind == "for" else "a comprehension's `if`"
    return Hit(tested, f"{construct} in `{function.qualname}` {use} the tensor "
               f"`{text}`{as_what}",
               detail=f"{not_converted}: tracing raises {error}", help=f"use {INSTEAD[kind]}")


def _why_not_converted(module: ModuleContext, function: FunctionInfo,
                       context: GraphContext) -> str:
    if context.autograph:
        return "AutoGraph converts `for` and `if` statements but leaves comprehensions as Python"
    if function in module.graph.no_autograph:
        effects = set().union(*(module.decorator_effects(d) for d in function.decorators))
        wrapper = next((e for e in ("custom_gradient", "recompute_grad") if e in effects), None)
        if wrapper is not None:
            return (f"`{wrapper}` calls it from TensorFlow's own code, which AutoGraph never "
                    "converts")
        return "`do_not_convert` switches AutoGraph off for it"
    if context.kind is ContextKind.KERAS_STEP:
        return ("Keras runs it from its own tf.function without AutoGraph-converting it "
                "(AutoGraph never converts code called from Keras)")
    if context.kind in (ContextKind.KERAS_CALL, ContextKind.LOSS) and module.flavor == "3":
        return "Keras 3 does not AutoGraph-convert it"
    if context.kind is ContextKind.TF_FUNCTION:
        return "AutoGraph is off here (`autograph=False`)"
    return f"AutoGraph does not convert it: it is {context.reason}"
