"""A `tf.function` called in a loop with tensors whose shape changes from call to call.

## What it does
Finds calls of a `tf.function` without `input_signature` or `reduce_retracing=True`, made
in a Python loop, with an argument whose shape changes from one iteration to the next:
- an item of a list whose arrays were made with a size that changes
  (`[np.random.rand(1, n, 4) for n in lengths]`), or padded batch by batch to each batch's
  own longest sequence (`pad_sequences(chunk)` without `maxlen`);
- a slice whose bound changes with the loop (`x[:t]`, `sequence[start:end]`);
- a batch of a dataset made with `padded_batch` (each batch is padded to its own longest
  element).

Not reported: `tf.function`s with an `input_signature` or `reduce_retracing=True`, the last
short batch of an ordinary `batch(...)` (one more trace: normal), arguments whose shape is
fixed (`tf.stack([spots, times], 1)` with `times = tf.constant([t] * n)`: the loop changes the
values, not the lengths), a window that moves but keeps its length (`x[start:start + size]`,
`x[i * k:(i + 1) * k]`, bounds the loop names once, `a = int(k * j)`, `b = int(k * j + k)`,
`x[a:b]`, an end cut at the data's, `min(a + k, n)`, `tf.slice`/`tf.sparse.slice` with a
moving begin and a fixed size: one trace, and one per shorter window where it runs past the
end of the data), and test modules (`test_*.py`, `*_test.py`): the cost
is at scale, a test makes a few calls.

## Why is this bad?
A `tf.function` traces a new graph for every new input shape (and keeps them all): a call
with a new sequence length pays the whole trace again — often more than the step itself — and
TensorFlow warns `5 out of the last 5 calls to <function ...> triggered tf.function
retracing`. A corpus of documents of 30 lengths traces the training step 30 times.

## Example
```python
import numpy as np
import tensorflow as tf


@tf.function
def step(tokens):
    return tf.reduce_sum(tokens)


documents = [np.random.rand(1, n, 4).astype("float32") for n in range(100, 130)]
for tokens in documents:
    step(tokens)
```

## Use instead
```python
import numpy as np
import tensorflow as tf


@tf.function(input_signature=[tf.TensorSpec([1, None, 4], tf.float32)])
def step(tokens):
    return tf.reduce_sum(tokens)


documents = [np.random.rand(1, n, 4).astype("float32") for n in range(100, 130)]
for tokens in documents:
    step(tokens)
```

## References
- [tf.function: controlling retracing](https://www.tensorflow.org/guide/function#controlling_retracing)
- [tf.function: reduce_retracing](https://www.tensorflow.org/api_docs/python/tf/function)
"""

from __future__ import annotations

import ast
import copy
import itertools
from collections.abc import Callable, Iterator

from tf_insight.check.context import ModuleContext
from tf_insight.check.index import SCOPE_KINDS, code_children
from tf_insight.check.rules import Hit
from tf_insight.check.rules._tf_functions import (
    Loop,
    Scope,
    call_arguments,
    calls_in_loops,
    enclosing_loops,
    tf_functions,
)
from tf_insight.check.shared import Shared
from tf_insight.findings import Severity

CODE = "TFI021"
NAME = "shape-retrace"
SEVERITY = Severity.WARNING

# Calls that turn their first argument into a tensor or array of the same shape.
CONVERSIONS = frozenset({
    "tensorflow.constant", "tensorflow.convert_to_tensor", "tensorflow.cast",
    "numpy.array", "numpy.asarray", "numpy.float32", "numpy.int32", "numpy.int64",
})
# Constructors whose arguments (or `size=`/`shape=`) are the shape of what they make.
SHAPED = frozenset({
    "numpy.zeros", "numpy.ones", "numpy.empty", "numpy.full", "numpy.random.rand",
    "numpy.random.randn", "numpy.random.random", "numpy.random.uniform", "numpy.random.normal",
    "numpy.random.randint", "tensorflow.zeros", "tensorflow.ones", "tensorflow.fill",
    "tensorflow.random.uniform", "tensorflow.random.normal",
})
# Calls that cut a window `(input, begin, size)`: the begin moves it, only the size shapes it.
SLICERS = frozenset({"tensorflow.slice", "tensorflow.sparse.slice"})
PADDERS = ("pad_sequences",)
SIZE_CALLS = frozenset({"int", "len", "round", "min", "max", "abs"})
# Calls whose list argument holds arrays to join or values, not a shape (`tf.stack([x, y], 1)`).
JOINERS = frozenset({"stack", "concat", "concatenate", "hstack", "vstack", "dstack",
                     "column_stack", "array", "asarray", "constant", "convert_to_tensor"})


def check(module: ModuleContext) -> Iterator[Hit]:
    table = tf_functions(module)
    if not table or module.test_module:
        return
    for call, scope, loops in calls_in_loops(module):
        target = table.resolve(call.func, scope)
        if target is None or target.input_signature or target.reduce_retracing:
            continue
        for argument, _name in call_arguments(call, target.info):
            why = _Shapes(module, scope, loops).varying(argument)
            if why is not None:
                shown = module.source.segment(argument)
                yield Hit(argument, f"tf.function `{target.label}` is called with `{shown}`, "
                          "whose shape changes from call to call",
                          detail=f"in `{loops[0].header(module)}`, {why}: every new shape traces "
                          "a new graph",
                          help="give it an `input_signature` with `None` for the dimensions that "
                          "change, or `reduce_retracing=True`")
                break


LOOP_ASSIGNS: Shared[dict[str, list[ast.expr]]] = Shared("assignments in a loop")
ASSIGNS: Shared[dict[str, list[ast.Assign]]] = Shared("assignments of a scope")
APPENDS: Shared[dict[str, list[ast.Call]]] = Shared("appends of a scope")


class _Shapes:
    """Whether an expression's shape changes from one iteration of `loops` to the next."""

    def __init__(self, module: ModuleContext, scope: Scope, loops: list[Loop]) -> None:
        self.module = module
        self.scope = scope
        self.loops = loops
        self.nodes = scope.nodes if scope is not None else module.index.module_nodes

    def varying(self, node: ast.AST, depth: int = 0) -> str | None:
        if depth > 4:
            return None
        if isinstance(node, ast.Call) and self._qualname(node) in CONVERSIONS and node.args:
            return self.varying(node.args[0], depth + 1)
        if isinstance(node, ast.Subscript):
            return self._slice(node)
        if not isinstance(node, ast.Name):
            return None
        for loop in self.loops:
            if loop.target is not None and node.id in _names(loop.target):
                return self._collection(loop.iter, depth)
        for value in self._assigned_in_loops(node.id):
            if isinstance(value, ast.Subscript):  # `tokens, labels = batches[i]`
                return self._collection(value.value, depth)
            if isinstance(value, ast.Call) and self._padded(value):
                return "padded to each batch's own longest sequence (no `maxlen`)"
            if isinstance(value, ast.Call) and self._sized_by(
                    value, {name for loop in self.loops for name in loop.bound}):
                return f"`{node.id}` is made on each iteration with a size that changes"
            found = self.varying(value, depth + 1)
            if found is not None:
                return found
        return None

    def _slice(self, node: ast.Subscript) -> str | None:
        bound = {name for loop in self.loops for name in loop.bound}
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        for part in parts:
            if isinstance(part, ast.Slice) and any(
                    isinstance(n, ast.Name) and n.id in bound
                    for edge in (part.lower, part.upper) if edge is not None
                    for n in ast.walk(edge)) and not _fixed_length(self._spelled_out(part), bound):
                return f"`{self.module.source.segment(node)}` is cut to a length the loop changes"
        return None

    def _spelled_out(self, part: ast.Slice) -> ast.Slice:
        """The slice with each name in its bounds that the loop assigns once replaced by its
        value (`a = int(size * j)`, `b = int(size * j + size)`, `x[a:b]`), on a copy."""
        spelled = _SpelledOut(self._assigned_in_loops)
        return ast.Slice(lower=spelled.copy(part.lower), upper=spelled.copy(part.upper),
                         step=part.step)

    def _collection(self, iterable: ast.AST | None, depth: int) -> str | None:
        """What makes the items of `iterable` differ in shape."""
        if iterable is None:
            return None
        if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Attribute) and (
                iterable.func.attr == "padded_batch"):
            return "`padded_batch` pads each batch to its own longest element"
        if not isinstance(iterable, ast.Name):
            return None
        name = iterable.id
        for value in self._assignments(name):
            if isinstance(value, ast.ListComp) and self._sized_by(
                    value.elt, {name for g in value.generators for name in _names(g.target)}):
                return f"the arrays of `{name}` are made with a size that changes"
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and (
                    value.func.attr == "padded_batch"):
                return "`padded_batch` pads each batch to its own longest element"
        for append, appended in self._appended(name):
            if self._padded_value(appended, self._near(append)):
                return (f"the batches of `{name}` are padded each to its own longest sequence "
                        "(no `maxlen`)")
        return None

    def _sized_by(self, element: ast.AST, changing: set[str]) -> bool:
        """`np.random.rand(1, n, 4)`, `rng.random((n, 3))`, `make(shape=[n, 4])` with `n` one
        of the `changing` names (a comprehension's or a loop's), or a random integer
        (`size=(1, rng.integers(20, 60))`): a size per item (any call given a shape that holds
        it; not the arrays a call joins, `tf.stack([x, times], 1)`, nor a list of arrays, nor
        the begin of a window, `tf.sparse.slice(adjacency, [start, start], [k, k])`)."""
        for node in ast.walk(element):
            if not isinstance(node, ast.Call):
                continue
            sizes = [k.value for k in node.keywords if k.arg in ("size", "shape")]
            qualname = self._qualname(node)
            if qualname in SLICERS:
                sizes += node.args[2:3]
            elif qualname in SHAPED:
                sizes += node.args
            elif qualname.rsplit(".", 1)[-1] not in JOINERS:
                sizes += [a for a in node.args if isinstance(a, ast.Tuple | ast.List)
                          and all(_size_like(item) for item in a.elts)]
            if any((isinstance(n, ast.Name) and n.id in changing) or _random_integer(n)
                   for size in sizes for n in ast.walk(size)):
                return True
        return False

    def _padded_value(self, node: ast.AST, near: list[ast.AST], depth: int = 0) -> bool:
        """An appended value that holds a per-batch padding: `(tf.constant(tokens), y)` with
        `tokens = pad_sequences(chunk)` in the loop that appends (`near`)."""
        if depth > 3:
            return False
        if isinstance(node, ast.Tuple | ast.List):
            return any(self._padded_value(item, near, depth + 1) for item in node.elts)
        if isinstance(node, ast.Call):
            if self._padded(node):
                return True
            if self._qualname(node) in CONVERSIONS and node.args:
                return self._padded_value(node.args[0], near, depth + 1)
        if isinstance(node, ast.Name):
            return any(isinstance(assign.value, ast.Call) and self._padded(assign.value)
                       for assign in self._assigns().get(node.id, ())
                       if any(self.module.index.inside(assign, loop) for loop in near))
        return False

    def _near(self, node: ast.AST) -> list[ast.AST]:
        """The loops around `node` (where the names it uses were just bound)."""
        return [loop.node for loop in enclosing_loops(self.module, node)]

    def _padded(self, call: ast.Call) -> bool:
        name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(
            call.func, "id", "")
        return name in PADDERS and not any(k.arg == "maxlen" for k in call.keywords) and (
            len(call.args) < 2)

    def _assignments(self, name: str) -> list[ast.expr]:
        return [node.value for node in self._assigns().get(name, ())]

    def _assigned_in_loops(self, name: str) -> list[ast.expr]:
        """Values given to `name` inside the loops (the outermost holds the others)."""
        outermost = self.loops[-1].node

        def table() -> dict[str, list[ast.expr]]:
            found: dict[str, list[ast.expr]] = {}
            stack = [outermost]
            while stack:  # the loop's own scope: nested functions and classes are not run here
                node = stack.pop()
                if isinstance(node, ast.Assign):
                    for bound in set().union(*(_names(target) for target in node.targets)):
                        found.setdefault(bound, []).append(node.value)
                stack.extend(reversed([child for child in code_children(node)
                                       if child.__class__ not in SCOPE_KINDS]))
            return found
        return self.module.shared(LOOP_ASSIGNS, table, id(outermost)).get(name, [])

    def _appended(self, name: str) -> list[tuple[ast.Call, ast.expr]]:
        return [(node, node.args[0]) for node in self._appends().get(name, ())]

    def _assigns(self) -> dict[str, list[ast.Assign]]:
        """The scope's assignments by the names they bind: made once per scope, as every call
        in a loop asks about its names (module-level scripts have many loops)."""
        def table() -> dict[str, list[ast.Assign]]:
            found: dict[str, list[ast.Assign]] = {}
            for node in self.nodes.of(ast.Assign):
                for name in set().union(*(_names(target) for target in node.targets)):
                    found.setdefault(name, []).append(node)
            return found
        return self.module.shared(ASSIGNS, table, id(self.nodes))

    def _appends(self) -> dict[str, list[ast.Call]]:
        """`name.append(value)` calls of the scope, by `name`."""
        def table() -> dict[str, list[ast.Call]]:
            found: dict[str, list[ast.Call]] = {}
            for node in self.nodes.of(ast.Call):
                if isinstance(node.func, ast.Attribute) and node.func.attr == "append" and (
                        isinstance(node.func.value, ast.Name) and node.args):
                    found.setdefault(node.func.value.id, []).append(node)
            return found
        return self.module.shared(APPENDS, table, id(self.nodes))

    def _qualname(self, call: ast.Call) -> str:
        return self.module.qualname(call.func) or ""


class _SpelledOut(ast.NodeTransformer):
    """Replaces each name that has one value (as `values` gives them) by that value."""

    def __init__(self, values: Callable[[str], list[ast.expr]]) -> None:
        self.values = values

    def copy(self, edge: ast.expr | None) -> ast.expr | None:
        return None if edge is None else self.visit(copy.deepcopy(edge))

    def visit_Name(self, node: ast.Name) -> ast.expr:
        values = self.values(node.id)
        return values[0] if len(values) == 1 else node


def _fixed_length(part: ast.Slice, bound: set[str]) -> bool:
    """`x[n:n + size]`, `x[i * k:(i + 1) * k]`: a slice whose upper bound less its lower one
    uses none of the `bound` names (a window that moves, always as long); also when the upper
    bound is cut at the end of the data (`min(n + size, len(x))`: only the last is shorter)."""
    if part.lower is None or part.upper is None or part.step is not None:
        return False
    ends = [part.upper]
    if isinstance(part.upper, ast.Call) and isinstance(part.upper.func, ast.Name) and (
            part.upper.func.id == "min" and not part.upper.keywords):
        ends = part.upper.args
    lower = _polynomial(part.lower)
    return lower is not None and any(_free_of(_polynomial(end), lower, bound) for end in ends)


def _free_of(upper: dict[Term, float] | None, lower: dict[Term, float],
             bound: set[str]) -> bool:
    """Whether `upper` less `lower` uses none of the `bound` names."""
    if upper is None:
        return False
    difference = dict(upper)
    for term, factor in lower.items():
        difference[term] = difference.get(term, 0) - factor
    return not any(factor and any(name in bound for atom in term for name in atom[1])
                   for term, factor in difference.items())


# a term of a polynomial: its atoms, each as (its dump, the names it uses), sorted
Term = tuple[tuple[str, frozenset[str]], ...]


def _polynomial(node: ast.expr, depth: int = 0) -> dict[Term, float] | None:
    """`node` as a sum of products of numbers and atoms (names, attributes, any other
    expression taken whole), for `+`, `-`, `*` and `int(...)`; None for what is too deep."""
    if depth > 8:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and (
            not isinstance(node.value, bool)):
        return {(): node.value}
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and (
            node.func.id == "int" and len(node.args) == 1 and not node.keywords):
        return _polynomial(node.args[0], depth + 1)  # an index made a whole number
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _polynomial(node.operand, depth + 1)
        return None if inner is None else {term: -factor for term, factor in inner.items()}
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub | ast.Mult):
        left, right = _polynomial(node.left, depth + 1), _polynomial(node.right, depth + 1)
        if left is None or right is None:
            return None
        found: dict[Term, float] = {}
        if isinstance(node.op, ast.Mult):
            for (term_a, a), (term_b, b) in itertools.product(left.items(), right.items()):
                term = tuple(sorted(term_a + term_b))
                found[term] = found.get(term, 0) + a * b
            return found
        sign = 1 if isinstance(node.op, ast.Add) else -1
        found.update(left)
        for term, factor in right.items():
            found[term] = found.get(term, 0) + sign * factor
        return found
    return {((ast.dump(node), frozenset(_names(node))),): 1}


def _names(target: ast.AST) -> set[str]:
    return {node.id for node in ast.walk(target) if isinstance(node, ast.Name)}


def _size_like(node: ast.AST) -> bool:
    """An item of a shape: a name, a number, `x.shape[0]`, arithmetic on them, `int(...)`,
    `len(...)` or a random integer; not an array (`tf.constant(...)`, `[t] * n`)."""
    if isinstance(node, ast.Constant | ast.Name | ast.Attribute | ast.Subscript):
        return True
    if isinstance(node, ast.UnaryOp):
        return _size_like(node.operand)
    if isinstance(node, ast.BinOp):
        return _size_like(node.left) and _size_like(node.right)
    return isinstance(node, ast.Call) and (
        (isinstance(node.func, ast.Name) and node.func.id in SIZE_CALLS) or _random_integer(node))


def _random_integer(node: ast.AST) -> bool:
    """`rng.integers(20, 60)`, `np.random.randint(5, 9)`, `random.randint(1, 4)`."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and (
        node.func.attr in ("integers", "randint"))
