"""`tf.executing_eagerly()` called in code that TensorFlow traces into a graph.

## What it does
Finds calls to `tf.executing_eagerly()` inside a graph context: a `tf.function`, a Keras
`call`/`train_step`, a loss or metric, a `tf.data` function, or a helper called from one.
Reported: its value used as data (printed, logged, stored, returned, asserted) anywhere in
graph code, and any use in code that is always traced (a `tf.function`, `train_step`, a
`tf.data` function), where a branch on it is dead code.

Not reported: `assert not tf.executing_eagerly()` (the code asserts the graph mode it runs in),
its value given to `tf.print` (a probe written for graph code: `tf.print` runs at every step and
shows False there, which is what its author asks; `print` runs once per trace and is reported),
a branch on it in a Keras `call` or in a helper (`if not tf.executing_eagerly():
x.set_shape(...)`), a helper that returns it (`def in_tf_function(): return not
tf.executing_eagerly()`, also among other bool returns: `if JAX: return True`) and a flag made
of it that only decides branches (`is_xla = not tf.executing_eagerly() and ...; if is_xla:`) —
deliberate dual-mode code that handles both the eager call and the traced one; calls inside
`with tf.init_scope():` (they read True there) and in `tf.py_function` callbacks.
`tf.executing_eagerly_outside_functions()` is the right question inside a function and is never
reported.

## Why is this bad?
Eager execution is the default, so code often assumes `tf.executing_eagerly()` is True. In a
graph context it is False whenever the function is traced: always inside a `tf.function` or
`tf.data` function, and in a Keras `Layer.call` during `fit`/`evaluate`/`predict` and
functional model construction, while a direct `layer(x)` call reads True. Branches guarded by
it silently switch behaviour between debugging and training, and a value printed with it
describes the trace, not the step.

## Example
```python
import tensorflow as tf


class Fractal2D(tf.keras.layers.Layer):
    def call(self, inputs):
        print(f"call executes eagerly: {tf.executing_eagerly()}")
        return inputs
```

## Use instead
```python
import tensorflow as tf


class Fractal2D(tf.keras.layers.Layer):
    def call(self, inputs):
        with tf.init_scope():
            eager_program = tf.executing_eagerly()  # True: the program itself runs eagerly
        tf.print("call runs; eager program:", eager_program)
        return inputs
```

## References
- [tf.executing_eagerly](https://www.tensorflow.org/api_docs/python/tf/executing_eagerly)
- [tf.init_scope](https://www.tensorflow.org/api_docs/python/tf/init_scope)
- [tf.function guide](https://www.tensorflow.org/guide/function)
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tf_insight.check.context import ModuleContext
from tf_insight.check.graph_model import ContextKind, GraphContext
from tf_insight.check.guards import INIT_SCOPE
from tf_insight.check.index import FunctionInfo
from tf_insight.check.rules import Hit
from tf_insight.findings import Severity

CODE = "TFI007"
NAME = "executing-eagerly-in-graph"
SEVERITY = Severity.WARNING

# Always traced: a branch on tf.executing_eagerly() there is dead code.
ALWAYS_TRACED = frozenset({ContextKind.TF_FUNCTION, ContextKind.DATASET, ContextKind.KERAS_STEP})
EXECUTING_EAGERLY = frozenset({
    "tensorflow.executing_eagerly", "tensorflow.compat.v1.executing_eagerly",
    "tensorflow.python.eager.context.executing_eagerly",
})


def check(module: ModuleContext) -> Iterator[Hit]:
    if not module.mentions("executing_eagerly"):
        return
    for function, context in module.graph.focused_functions():
        lifted = _init_scope_nodes(module, function)
        for node in function.calls:
            if node not in lifted and module.refers_to(node.func, EXECUTING_EAGERLY):
                if _mode_check(module, function, node):
                    continue  # a helper or a flag made of it: deliberate dual-mode code
                if _asserts_graph_mode(module, node):
                    continue  # `assert not tf.executing_eagerly()`: right, and meant
                if _given_to_tf_print(module, node):
                    continue  # a graph-aware probe: it prints False at every step, as meant
                condition = _is_condition(module, node)
                if condition and context.kind not in ALWAYS_TRACED:
                    continue  # `if not tf.executing_eagerly(): set_shape(...)`: dual-mode code
                dead = ", so the branch it decides is fixed" if condition else ""
                when, why = _when_false(context)
                yield Hit(
                    node,
                    f"`{module.source.segment(node.func)}()` in `{function.qualname}` {when}",
                    detail=why + dead,
                    help="to ask whether the program runs eagerly, call it under "
                    "`with tf.init_scope():` (or use `tf.executing_eagerly_outside_functions()`)",
                )


def _given_to_tf_print(module: ModuleContext, node: ast.AST) -> bool:
    """`tf.print("eager:", tf.executing_eagerly())`: a probe written for graph code (`tf.print`
    runs at every step of the graph), whose author asks which mode runs."""
    parent = module.index.parent(node)
    while isinstance(parent, ast.FormattedValue | ast.JoinedStr):
        parent = module.index.parent(parent)
    return isinstance(parent, ast.Call) and module.qualname(parent.func) == "tensorflow.print"


def _asserts_graph_mode(module: ModuleContext, node: ast.AST) -> bool:
    """`assert not tf.executing_eagerly()`: the code says it runs in a graph, as it does."""
    negation = module.index.parent(node)
    return (isinstance(negation, ast.UnaryOp) and isinstance(negation.op, ast.Not)
            and isinstance(assertion := module.index.parent(negation), ast.Assert)
            and assertion.test is negation)


def _is_condition(module: ModuleContext, node: ast.AST) -> bool:
    """The call decides a branch (`if`, `while`, `x if ... else y`), maybe under not/and/or."""
    child = node
    parent = module.index.parent(child)
    while isinstance(parent, ast.UnaryOp | ast.BoolOp):
        child, parent = parent, module.index.parent(parent)
    return isinstance(parent, ast.If | ast.While | ast.IfExp) and parent.test is child


def _mode_check(module: ModuleContext, function: FunctionInfo, node: ast.AST) -> bool:
    """The check is what a predicate helper returns (`def in_tf_function(): return not
    tf.executing_eagerly()`; `def is_xla(): if JAX: return True; return not
    tf.executing_eagerly() and in_xla_context()`: every return gives a bool), or makes a local
    flag that only decides branches (`is_xla = not tf.executing_eagerly() and ...; if
    is_xla:`)."""
    expression = _outermost_boolean(module, node)
    parent = module.index.parent(expression)
    if isinstance(parent, ast.Return) and all(
            _boolean(returned.value) for returned in function.nodes.of(ast.Return)):
        return True
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(
            parent.targets[0], ast.Name):
        uses = [n for n in function.nodes.named(parent.targets[0].id)
                if n.ctx.__class__ is ast.Load]
        return bool(uses) and all(_is_condition(module, use) for use in uses)
    return False


def _boolean(node: ast.expr | None) -> bool:
    """A Python bool: `True`, `not ...`, `a and b` of such, a comparison, or a call (the check
    itself, another predicate)."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, bool)
    if isinstance(node, ast.BoolOp):
        return all(_boolean(value) for value in node.values)
    return (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)) or isinstance(
        node, ast.Compare | ast.Call)


def _outermost_boolean(module: ModuleContext, node: ast.AST) -> ast.AST:
    child = node
    parent = module.index.parent(child)
    while isinstance(parent, ast.UnaryOp | ast.BoolOp):
        child, parent = parent, module.index.parent(parent)
    return child


def _when_false(context: GraphContext) -> tuple[str, str]:
    """When the call returns False, and why."""
    kind = context.kind
    if kind is ContextKind.DATASET:
        return ("is always False", "tf.data traces it into a graph, even under "
                "`tf.config.run_functions_eagerly(True)`")
    if kind is ContextKind.TF_FUNCTION:
        return ("is False whenever it runs", "the tf.function traces it into a graph (unless "
                "`tf.config.run_functions_eagerly(True)` is set)")
    if kind is ContextKind.KERAS_STEP:
        return ("is False whenever it runs", "Keras traces the step into a graph (unless "
                "`compile(run_eagerly=True)`)")
    if kind in (ContextKind.KERAS_CALL, ContextKind.LOSS, ContextKind.METRIC):
        return ("is False while Keras traces it", "Keras traces it in fit/evaluate/predict and "
                "functional model construction; it is True only when called eagerly, e.g. "
                "`layer(x)`")
    return ("is False when it runs in graph mode", context.reason)


def _init_scope_nodes(module: ModuleContext, function: FunctionInfo) -> set[ast.AST]:
    lifted: set[ast.AST] = set()
    for node in function.nodes.of(ast.With, ast.AsyncWith):
        if any(
            isinstance(item.context_expr, ast.Call)
            and module.qualname(item.context_expr.func) in INIT_SCOPE
            for item in node.items
        ):
            for statement in node.body:
                lifted.update(ast.walk(statement))
    return lifted
