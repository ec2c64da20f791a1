"""`x is True` / `x is False` (or `is not`) on a value that is a tensor in the graph.

## What it does
Finds identity comparisons with `True` or `False` in code that TensorFlow traces into a graph,
when the compared value is a tensor there: the result of a TensorFlow op (or a name assigned
from one), or — where AutoGraph converts the code (a `@tf.function`) — a Python flag that is
assigned under a tensor condition (`if signals[t] > 0.5: in_position = True`). AutoGraph turns
that `if` (or `while`) into `tf.cond` (`tf.while_loop`), and every variable it assigns comes out
of it as a tensor: after the statement, and on every later turn of a loop around it.

Not reported: flags assigned under Python conditions (`if training:`), parameters
(`if training is True:`), comparisons with `None`, and code AutoGraph does not convert (there
the flag stays a Python bool and TFI013 reports the tensor condition itself).

## Why is this bad?
`is` compares objects, not values. A tensor is never the object `True` or `False`, so
`flag is False` is always False (and `is not False` always True) once `flag` is a tensor,
whatever its value: the program takes the same branch at every step, silently. Called eagerly
the flag is a Python bool and the code works; under `tf.function` it gives other results
(TF 2.21: a backtest that tests its position flag with `is False` returns 1.333 eagerly and
6.0 as a `tf.function`).

## Example
```python
import tensorflow as tf


@tf.function
def clip(x):
    clipped = False
    if tf.reduce_max(x) > 1.0:
        x = tf.minimum(x, 1.0)
        clipped = True
    return x, clipped is True
```

## Use instead
```python
import tensorflow as tf


@tf.function
def clip(x):
    clipped = tf.reduce_max(x) > 1.0
    return tf.minimum(x, 1.0), clipped
```

## References
- [AutoGraph: control flow](https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/g3doc/reference/control_flow.md)
- [Python: identity comparisons](https://docs.python.org/3/reference/expressions.html#is-not)
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tf_insight.check.context import ModuleContext
from tf_insight.check.index import FunctionInfo
from tf_insight.check.rules import Hit
from tf_insight.check.rules._tensors import TensorFacts, tensor_facts
from tf_insight.check.rules._tf_functions import enclosing_loops
from tf_insight.findings import Severity

CODE = "TFI024"
NAME = "identity-comparison-on-tensor"
SEVERITY = Severity.WARNING
FLAVOR_DEPENDENT = True  # a Keras `call` is converted by AutoGraph in Keras 2 only


def check(module: ModuleContext) -> Iterator[Hit]:
    for function, context in module.graph.focused_functions():
        comparisons = [node for node in function.nodes.of(ast.Compare) if _bool_identity(node)]
        if not comparisons:
            continue  # most functions have none
        facts = tensor_facts(module, function, context)
        for node in comparisons:
            compared = node.left if _is_bool(node.comparators[0]) else node.comparators[0]
            text = module.source.segment(compared)
            if facts.is_tensor(compared):
                yield _hit(module, function, node, f"`{text}` is a tensor")
            elif context.autograph and isinstance(compared, ast.Name):
                condition = _tensor_condition_assigning(module, function, facts, compared, node)
                if condition is not None:
                    yield _hit(module, function, node,
                               f"`{text}` is assigned under the tensor condition "
                               f"`{module.source.segment(condition.test)}` (line "
                               f"{condition.lineno}), which AutoGraph turns into "
                               f"`{'tf.cond' if isinstance(condition, ast.If) else 'tf.while_loop'}`"
                               ": it comes out as a tensor")


def _bool_identity(node: ast.Compare) -> bool:
    """`x is True`, `False is not x`: one `is`/`is not` with a bool literal on one side."""
    return (len(node.ops) == 1 and isinstance(node.ops[0], ast.Is | ast.IsNot)
            and _is_bool(node.left) != _is_bool(node.comparators[0]))


def _is_bool(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, bool)


def _tensor_condition_assigning(module: ModuleContext, function: FunctionInfo,
                                facts: TensorFacts, name: ast.Name, comparison: ast.Compare
                                ) -> ast.If | ast.While | None:
    """The `if`/`while` on a tensor that assigns `name` where the comparison sees the result:
    the statement ends before the comparison, or a loop runs both again."""
    around = {id(loop.node) for loop in enclosing_loops(module, comparison)}
    for statement in function.nodes.of(ast.If, ast.While):
        if not facts.is_tensor(statement.test) or not _assigns(statement, name.id):
            continue
        ends = (statement.end_lineno or statement.lineno, statement.end_col_offset or 0)
        if ends <= (comparison.lineno, comparison.col_offset) or any(
                id(loop.node) in around for loop in enclosing_loops(module, statement)):
            return statement
    return None


def _assigns(statement: ast.If | ast.While, name: str) -> bool:
    return any(isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store)
               for part in (*statement.body, *statement.orelse) for node in ast.walk(part))


def _hit(module: ModuleContext, function: FunctionInfo, node: ast.Compare, why: str) -> Hit:
    negated = isinstance(node.ops[0], ast.IsNot)
    constant = node.comparators[0] if _is_bool(node.comparators[0]) else node.left
    assert isinstance(constant, ast.Constant)
    literal, always = str(constant.value), "True" if negated else "False"
    return Hit(node, f"`{module.source.segment(node)}` in `{function.qualname}` compares a "
               f"tensor with `{literal}` by identity: always {always} in the graph",
               detail=f"{why}; a tensor is never the object `{literal}`, so the test "
               "gives the same answer at every step, whatever the value",
               help="compare values, not objects: `tf.logical_not(x)` / `x` as the condition "
               "(AutoGraph converts it), or `tf.equal(x, True)`")
