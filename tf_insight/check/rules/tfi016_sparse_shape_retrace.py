"""`SparseTensor`s with a changing `dense_shape` passed to a `tf.function` (one trace each).

## What it does
Finds calls of a `tf.function` declared without `input_signature` and without
`reduce_retracing=True`, made inside a Python loop, with a `SparseTensor` argument whose
`dense_shape` changes on each iteration:
- `tf.sparse.SparseTensor(indices, values, dense_shape)` / `tf.SparseTensor(...)` whose
  `dense_shape` is computed from the iteration (`[len(doc), vocab]`, `[n, 4]` for `n` in a
  `range`, a shape assigned in the loop body);
- `tf.sparse.from_dense(x)` of a tensor whose shape is built from the loop variable
  (`tf.eye(n)`, `tf.zeros([n, d])`, `x[:n]`).
The argument may be built inline or assigned earlier in the same function.

Not reported: a constant `dense_shape` (only the number of non-zeros changes, which does not
retrace), functions with an `input_signature` or `reduce_retracing=True`, and sparse tensors
whose shape the code does not show to vary (e.g. batches from a `tf.data` pipeline), and
calls made in graph code or in helpers it calls (once per trace, not per step).

## Why is this bad?
A `tf.function` keys its traces on the static `dense_shape` of each `SparseTensor` argument:
every new shape traces and compiles a new graph (TF 2.21: `dense_shape` [3,4], [5,4], [6,4],
[7,4], [3,5] → 5 traces, with the warning `5 out of the last 7 calls to <function ...>
triggered tf.function retracing`), while a changing number of non-zeros does not. Processing
variable-sized sparse inputs this way can be much slower than eager execution.

## Example
```python
import tensorflow as tf


@tf.function
def row_sums(sp):
    return tf.sparse.reduce_sum(sp, axis=1)


for n in range(3, 50):
    sp = tf.sparse.SparseTensor([[0, 0]], [1.0], dense_shape=[n, 4])
    row_sums(sp)
```

## Use instead
```python
import tensorflow as tf


@tf.function(input_signature=[tf.SparseTensorSpec([None, 4], tf.float32)])
def row_sums(sp):
    return tf.sparse.reduce_sum(sp, axis=1)


for n in range(3, 50):
    sp = tf.sparse.SparseTensor([[0, 0]], [1.0], dense_shape=[n, 4])
    row_sums(sp)
```

The safe fix adds `reduce_retracing=True` to the `tf.function` (TF 2.21: one extra trace, then
a shape-generic graph); an `input_signature` with `tf.SparseTensorSpec([None, ...])` gives one
trace.

## References
- [tf.function: controlling retracing](https://www.tensorflow.org/guide/function#controlling_retracing)
- [tf.SparseTensorSpec](https://www.tensorflow.org/api_docs/python/tf/SparseTensorSpec)
- [Working with sparse tensors](https://www.tensorflow.org/guide/sparse_tensor)
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tf_insight.check.context import ModuleContext
from tf_insight.check.imports import keyword
from tf_insight.check.index import MANY_BINDINGS
from tf_insight.check.rules import Hit
from tf_insight.check.rules._tf_functions import (
    Loop,
    NumberAnalysis,
    Scope,
    TfFunction,
    calls_in_loops,
    tf_functions,
)
from tf_insight.findings import Edit, Fix, Related, Severity

CODE = "TFI016"
NAME = "sparse-shape-retrace"
SEVERITY = Severity.WARNING

SPARSE_TENSOR = frozenset({"tensorflow.SparseTensor", "tensorflow.sparse.SparseTensor",
                           "tensorflow.compat.v1.SparseTensor"})
FROM_DENSE = frozenset({"tensorflow.sparse.from_dense", "tensorflow.compat.v1.sparse.from_dense"})


def check(module: ModuleContext) -> Iterator[Hit]:
    if not module.mentions("parse"):  # SparseTensor, tf.sparse
        return
    functions = tf_functions(module)
    if not functions:
        return
    for node, scope, loops in calls_in_loops(module):
        for argument in [*node.args, *(k.value for k in node.keywords)]:
            found = _varying_sparse(module, argument, scope, loops)
            if found is None:
                continue
            # only now ask whether the callee is a tf.function (jedi for imported names)
            target = functions.resolve(node.func, scope, imported=True)
            if target is not None and not (target.input_signature
                                           or target.reduce_retracing):
                yield _hit(module, target, argument, *found)
            break


def _hit(module: ModuleContext, target: TfFunction, argument: ast.expr, maker: ast.Call,
         shape: ast.expr, loop: Loop) -> Hit:
    text = module.source.segment(argument)
    made = "" if maker is argument else f"it is made by `{module.source.segment(maker)}`; "
    related = [Related(module.path, module.span(loop.node),
                       f"`{loop.header(module)}` changes the shape")]
    if maker is not argument:
        related.append(Related(module.path, module.span(maker), "the SparseTensor is made here"))
    return Hit(
        argument,
        f"the SparseTensor `{text}` passed to tf.function `{target.label}` changes dense shape "
        "each iteration",
        fix=_fix(module, target),
        related=tuple(related),
        detail=f"{made}its {_shape_text(module, maker, shape)} changes on every iteration of "
        f"`{loop.header(module)}`, and without `input_signature` or `reduce_retracing=True` "
        "each new dense shape traces a new graph",
        help="declare `input_signature=[tf.SparseTensorSpec([None, ...], dtype)]` or use "
        "`reduce_retracing=True`",
    )


def _shape_text(module: ModuleContext, maker: ast.Call, shape: ast.expr) -> str:
    if (module.qualname(maker.func) or "") in FROM_DENSE:
        return f"dense shape (the shape of `{module.source.segment(shape)}`)"
    return f"dense shape `{module.source.segment(shape)}`"


def _varying_sparse(module: ModuleContext, node: ast.expr, scope: Scope,
                    loops: list[Loop]) -> tuple[ast.Call, ast.expr, Loop] | None:
    makers: list[ast.Call] = []
    if isinstance(node, ast.Call):
        makers.append(node)
    elif isinstance(node, ast.Name):
        nodes = scope.nodes if scope is not None else module.index.module_nodes
        assignments = nodes.assignments_to(node.id)
        if len(assignments) <= MANY_BINDINGS:
            makers += [assignment.value for assignment in assignments
                       if isinstance(assignment, ast.Assign)
                       and isinstance(assignment.value, ast.Call)]
    for maker in makers:
        qualname = module.qualname(maker.func) or ""
        shape: ast.expr | None = None
        if qualname in SPARSE_TENSOR:
            shape = keyword(maker, "dense_shape") or (
                maker.args[2] if len(maker.args) > 2 else None)
            if shape is None or _constant(shape):
                continue
            for loop in loops:
                if module.index.inside(maker, loop.node) and _varies(module, shape, loop, scope, 0):
                    return maker, shape, loop
        elif qualname in FROM_DENSE and maker.args:
            dense = maker.args[0]
            for loop in loops:
                if module.index.inside(maker, loop.node) and _shape_from_loop(
                        module, dense, loop, scope, 0):
                    return maker, dense, loop
    return None


def _constant(node: ast.AST) -> bool:
    return all(isinstance(n, ast.Constant | ast.List | ast.Tuple | ast.Load | ast.UnaryOp
                          | ast.USub) for n in ast.walk(node))


def _assigned_in_loop(module: ModuleContext, name: str, loop: Loop,
                      scope: Scope) -> list[ast.expr]:
    nodes = scope.nodes if scope is not None else module.index.module_nodes
    return [
        n.value for n in nodes.of(ast.Assign)
        if module.index.inside(n, loop.node)
        and any(isinstance(t, ast.Name) and t.id == name for t in n.targets)
    ]


def _varies(module: ModuleContext, node: ast.AST, loop: Loop, scope: Scope, depth: int) -> bool:
    """The expression's value is computed from what the loop changes."""
    if depth > 3:
        return False
    targets = set()
    if loop.target is not None:
        targets = {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
    for name in (n for n in ast.walk(node) if isinstance(n, ast.Name)):
        if name.id in targets:
            return True
        if name.id in loop.bound and any(
                _varies(module, value, loop, scope, depth + 1)
                for value in _assigned_in_loop(module, name.id, loop, scope)):
            return True
    return False


def _shape_from_loop(module: ModuleContext, node: ast.AST, loop: Loop, scope: Scope,
                     depth: int) -> bool:
    """A dense tensor whose shape is built from a per-iteration Python number: `tf.eye(n)`,
    `tf.zeros([n, 4])`, `x[:n]`, or a name assigned such a value in the loop."""
    if depth > 3:
        return False
    numbers = NumberAnalysis(module, scope, [loop])
    for inner in ast.walk(node):
        parts: list[ast.AST] = []
        if isinstance(inner, ast.Call) and module.qualname(inner.func):
            parts = [*inner.args, *(k.value for k in inner.keywords)]
        elif isinstance(inner, ast.Slice):
            parts = [p for p in (inner.lower, inner.upper) if p is not None]
        for part in parts:
            elements = part.elts if isinstance(part, ast.List | ast.Tuple) else [part]
            if any(numbers.varying(e) is not None for e in elements):
                return True
        if isinstance(inner, ast.Name) and inner.id in loop.bound and any(
                _shape_from_loop(module, value, loop, scope, depth + 1)
                for value in _assigned_in_loop(module, inner.id, loop, scope)):
            return True
    return False


def _fix(module: ModuleContext, target: TfFunction) -> Fix | None:
    if target.defined_in is not None:
        return None  # the tf.function is declared in another file
    origin = target.origin
    func = origin.func if isinstance(origin, ast.Call) else origin
    if not module.is_tf_function(func):
        return None
    description = f"Add `reduce_retracing=True` to the tf.function `{target.label}`"
    # Every edit replaces text (never a bare insertion), so that several findings for the same
    # function overlap and `--fix` applies the change once.
    text = module.source.segment(origin)
    if not isinstance(origin, ast.Call):
        return Fix(description, (Edit(module.span(origin), f"{text}(reduce_retracing=True)"),))
    existing = keyword(origin, "reduce_retracing") or keyword(origin, "experimental_relax_shapes")
    if existing is not None:
        return Fix(description, (Edit(module.span(existing), "True"),))
    arguments: list[ast.AST] = [*origin.args, *origin.keywords]
    if not arguments:
        return Fix(description, (Edit(module.span(origin),
                                      f"{text[:-1]}reduce_retracing=True)"),))
    last = arguments[-1]
    return Fix(description, (Edit(module.span(last),
                                  f"{module.source.segment(last)}, reduce_retracing=True"),))
