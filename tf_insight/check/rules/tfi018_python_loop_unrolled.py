"""A Python `for ... in range(n)` in traced code whose bound is large or comes from a tensor.

## What it does
Finds Python `for` loops (and comprehensions) over `range(...)` in code that TensorFlow traces
into a graph (`tf.function`, Keras `call`/`train_step`, losses, metrics, `tf.data` functions
and the helpers they call) when:
- the bound is a constant above 100 iterations (`range(1000)`, `range(NUM_STEPS)`);
- the bound is a parameter of the `tf.function` itself (`range(n)`): called with a Python int
  it traces once per value and unrolls `n` copies of the body (unless the function has an
  `input_signature`, or the calls in the module pass only tensors or a few small constants);
- the bound is the static batch dimension `x.shape[0]` of an argument, which is `None` when
  the function is traced for an unknown batch size;
- the bound is a tensor (`tf.shape(x)[0]`, `tf.size(x)`) where AutoGraph does not convert the
  loop: `tf.function(autograph=False)`, `do_not_convert`, a Keras 3 `Layer.call`.

Why 100: AutoGraph itself only warns ("Large unrolled loop detected") after 50,000
iterations, far too late to help. Each iteration copies the loop body into the graph, so at a
hundred iterations even a ten-op body adds a thousand nodes, and trace and graph-optimisation
time grow with it; loops over model structure (layers, heads, scales) are almost always well
below that, while loops over time steps or data are above it.

Not reported: `for i in tf.range(...)` (AutoGraph builds a `tf.while_loop`), small constant
ranges, `range(len(self.layers))`-style structural loops, a parameter bound of a loop that
builds a Python list (`for _ in range(num_views): views.append(...)`: the list's length is the
output's structure), a parameter of a tf.function that only graph code calls (its traces
happen inside its callers' traces, once per value), a parameter that is only given tensors,
NumPy scalars (tf.function turns them into tensors) or a few small constants, one with a small
default that no call in view sets (`def infer(x, steps=40)` in a library: a setting, not a
value that changes per call), and `range(tf.shape(x)[0])` where AutoGraph converts the loop
(it becomes a `tf.while_loop`).

A loop whose body adds nothing to the graph (Python bookkeeping only: no TensorFlow or Keras
call, no call of another function, no arithmetic on a tensor) unrolls nothing and is not
reported.

## Why is this bad?
AutoGraph converts a `for` loop only when it iterates over a tensor; over a Python `range` it
runs the loop while tracing and pastes the body once per iteration. A 1000-step loop becomes a
graph with a thousand copies of its ops: tracing and compilation take minutes, memory grows,
and with a Python-int bound every new value traces again. `range(x.shape[0])` fails with
`TypeError: 'NoneType' object cannot be interpreted as an integer` when the batch size is
unknown, and `range(tensor)` without AutoGraph fails with `TypeError: 'SymbolicTensor' object
cannot be interpreted as an integer`.

## Example
```python
import tensorflow as tf


@tf.function
def simulate(state):
    for _ in range(1000):
        state = state * 0.99 + 0.01
    return state
```

## Use instead
```python
import tensorflow as tf


@tf.function
def simulate(state):
    for _ in tf.range(1000):
        state = state * 0.99 + 0.01
    return state
```

## References
- [AutoGraph: control flow](https://www.tensorflow.org/guide/function#autograph_transformations)
- [AutoGraph reference: for statements](https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/g3doc/reference/control_flow.md#for-statements)
- [AutoGraph common errors: large unrolled loop](https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/g3doc/reference/common_errors.md#warning-large-unrolled-loop-detected)
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import NamedTuple

from tf_insight.check.context import ModuleContext
from tf_insight.check.graph_model import ContextKind, GraphContext
from tf_insight.check.index import FunctionInfo
from tf_insight.check.rules import Hit
from tf_insight.check.rules._tensors import tensor_facts
from tf_insight.check.rules._tf_functions import (
    NumberAnalysis,
    call_arguments,
    constant_int,
    enclosing_loops,
    is_range,
    range_count,
    tf_functions,
)
from tf_insight.findings import Severity

CODE = "TFI018"
NAME = "python-loop-unrolled"
SEVERITY = Severity.WARNING

THRESHOLD = 100  # iterations; see the docstring for why
# TensorFlow functions that return Python values, not tensors
NOT_TENSORS = ("tensorflow.compat.dimension_value", "tensorflow.compat.v1.dimension_value",
               "tensorflow.get_static_value", "tensorflow.TensorShape", "tensorflow.nest.",
               "tensorflow.compat.v1.Dimension", "tensorflow.dtypes.", "tensorflow.as_dtype")


def check(module: ModuleContext) -> Iterator[Hit]:
    for function, context in module.graph.focused_functions():
        for node in function.nodes.of(ast.For, ast.AsyncFor, ast.comprehension):
            target, source = node.target, node.iter
            if not is_range(module, source):
                continue
            assert isinstance(source, ast.Call)
            if isinstance(node, ast.For | ast.AsyncFor) and not _graph_work(
                    module, function, context, node.body):
                continue  # Python only: nothing is unrolled into the graph
            header = f"for {module.source.segment(target)} in {module.source.segment(source)}"
            problem = _problem(module, function, context, source,
                               builds_list=_builds_a_list(function, node))
            if problem is not None:
                yield Hit(source, f"`{header}` in `{function.qualname}` {problem.what}",
                          detail=f"`{function.qualname}` runs as a graph ({_where(context)}); "
                          f"{problem.why}", help=problem.instead)


PYTHON_CALLS = frozenset({"len", "range", "int", "float", "str", "bool", "min", "max", "abs",
                          "sum", "print", "isinstance", "enumerate", "zip", "list", "tuple",
                          "dict", "set", "round", "sorted", "reversed", "divmod"})
CONTAINER_METHODS = frozenset({"append", "extend", "insert", "add", "update", "pop", "get",
                               "items", "keys", "values", "format", "join", "setdefault"})


def _graph_work(module: ModuleContext, function: FunctionInfo, context: GraphContext,
                body: list[ast.stmt]) -> bool:
    """Whether a loop body may add ops to the graph: a TensorFlow/Keras call, a call of any
    other function or method (it may), or arithmetic on a tensor."""
    facts = tensor_facts(module, function, context)
    for statement in body:
        for node in ast.walk(statement):
            if isinstance(node, ast.Call):
                func = node.func
                if isinstance(func, ast.Name) and func.id in PYTHON_CALLS and (
                        module.qualname(func) is None):
                    continue
                if isinstance(func, ast.Attribute) and func.attr in CONTAINER_METHODS and (
                        not (module.qualname(func) or "").startswith(("tensorflow", "keras"))):
                    continue
                return True
            if isinstance(node, ast.BinOp | ast.Compare | ast.Subscript | ast.UnaryOp) and (
                    facts.is_tensor(node)):
                return True
            if isinstance(node, ast.AugAssign) and (
                    facts.is_tensor(node.target) or facts.is_tensor(node.value)):
                return True  # `state += step`: an op per iteration
    return False


def _where(context: GraphContext) -> str:
    if context.kind is ContextKind.CALLED:
        return context.reason
    return str(context.kind.value)


def _builds_a_list(function: FunctionInfo, loop: ast.AST) -> bool:
    """The loop (or comprehension) makes a Python list of the function's: its length is the
    structure of what the function builds (`for _ in range(num_views): views.append(...)`),
    so the bound must be a Python int and the unrolling is the point."""
    if isinstance(loop, ast.comprehension):
        return True
    assert isinstance(loop, ast.For | ast.AsyncFor)
    return any(isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
               and node.func.attr in ("append", "extend") and isinstance(node.func.value, ast.Name)
               and node.func.value.id in function.local_names
               for statement in loop.body for node in ast.walk(statement))


class Problem(NamedTuple):
    """What is wrong with a loop's bound (for the message), why, and what to do instead."""

    what: str
    why: str
    instead: str


def _problem(module: ModuleContext, function: FunctionInfo, context: GraphContext,
             call: ast.Call, builds_list: bool = False) -> Problem | None:
    if call.keywords or not 1 <= len(call.args) <= 3:
        return None
    count = range_count(module, call, function.local_names)
    if count is not None:
        if count <= THRESHOLD:
            return None
        return Problem(f"is unrolled into {count} copies of its body",
                       "a Python loop is unrolled while tracing, pasting its body into the graph "
                       "once per iteration (slow tracing, a huge graph)",
                       _instead(context, call, module))
    if all(constant_int(module, a, function.local_names) is not None for a in call.args):
        return None  # range(0, 10, 0)
    for argument in call.args:
        problem = _tensor_bound(module, function, context, argument, builds_list)
        if problem is not None:
            return problem
    return None


def _instead(context: GraphContext, call: ast.Call, module: ModuleContext) -> str:
    args = ", ".join(module.source.segment(a) for a in call.args)
    if context.autograph:
        return f"loop over `tf.range({args})` so AutoGraph builds a tf.while_loop"
    return ("AutoGraph does not convert this code, so use `tf.while_loop` (or "
            "`keras.ops.fori_loop`) explicitly")


def _tensor_bound(module: ModuleContext, function: FunctionInfo, context: GraphContext,
                  node: ast.expr, builds_list: bool) -> Problem | None:
    text = module.source.segment(node)
    # the static batch dimension: x.shape[0] of a parameter
    if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute)
            and node.value.attr == "shape" and isinstance(node.value.value, ast.Name)
            and node.value.value.id in function.parameter_names
            and node.value.value.id not in ("self", "cls")
            and isinstance(node.slice, ast.Constant) and node.slice.value == 0
            and not _assigned(function, node.value.value.id)
            and not _checked(module, node, function)):
        tensor = node.value.value.id
        return Problem(f"loops over the static batch dimension `{text}`",
                       f"`{text}` is None when the function is traced for an unknown batch size "
                       "(`TypeError: 'NoneType' object cannot be interpreted as an integer`), "
                       "and otherwise unrolls the loop once per element",
                       f"loop over `tf.range(tf.shape({tensor})[0])`")
    if not context.autograph and _is_tensor(module, node, function):
        return Problem(f"has the tensor bound `{text}`, and no AutoGraph",
                       "AutoGraph does not convert this loop, so `range()` fails with "
                       "`TypeError: 'SymbolicTensor' object cannot be interpreted as an integer`",
                       "use `tf.while_loop` (or `keras.ops.fori_loop`)")
    if (context.kind is ContextKind.TF_FUNCTION and isinstance(node, ast.Name)
            and node.id in function.parameter_names and node.id not in ("self", "cls")
            and not _assigned(function, node.id) and not builds_list):
        return _parameter_bound(module, function, context, node.id)
    return None


def _parameter_bound(module: ModuleContext, function: FunctionInfo, context: GraphContext,
                     parameter: str) -> Problem | None:
    table = tf_functions(module)
    declared = [t for t in table if t.info is function]
    if any(t.input_signature for t in declared) or context.input_signature:
        return None
    tensors = varying = eager_calls = graph_calls = 0
    constants: set[int] = set()
    for scope, nodes in [(None, module.index.module_nodes),
                         *((f, f.nodes) for f in module.index.functions)]:
        for node in nodes.of(ast.Call):
            target = table.resolve(node.func, scope)
            if target is None or target.info is not function:
                continue
            if scope is not None and module.graph.in_graph(scope) is not None:
                graph_calls += 1
            else:
                eager_calls += 1
            for argument, name in call_arguments(node, function):
                if name != parameter:
                    continue
                local = scope.local_names if scope is not None else set()
                value = constant_int(module, argument, local)
                if _is_tensor(module, argument, None) or _numpy_scalar(module, scope, argument):
                    tensors += 1  # tf.function converts a NumPy scalar to a tensor too
                elif value is not None:
                    constants.add(value)
                elif NumberAnalysis(module, scope, enclosing_loops(module, node)).varying(
                        argument):
                    varying += 1
    if not varying and (tensors or constants) and len(constants) < 5 and all(
            c <= THRESHOLD for c in constants):
        return None  # tensors, or a few small constants: a few small traces
    if graph_calls and not eager_calls:
        return None  # traced inside its callers' traces: once per value, with them
    default = function.parameter_defaults.get(parameter)
    if not (varying or tensors or constants) and default is not None and (
            (value := constant_int(module, default, set())) is not None and value <= THRESHOLD):
        return None  # no call in view, and a small default: a setting, not a per-call value
    return Problem(f"is bounded by the Python int parameter `{parameter}`",
                   "called with a Python int, every new value traces a new graph and the loop is "
                   f"unrolled `{parameter}` times",
                   f"pass `{parameter}` as a tensor and loop over `tf.range({parameter})`")


def _numpy_scalar(module: ModuleContext, scope: FunctionInfo | None, node: ast.expr,
                  depth: int = 0) -> bool:
    """`np.max(...)`, a name the scope assigns one (`steps = np.max(sizes)`), or a parameter
    of the scope that its callers give one (`train_loop(obj, steps)`)."""
    def numpy_call(value: ast.AST | None) -> bool:
        return isinstance(value, ast.Call) and (
            module.qualname(value.func) or "").startswith("numpy.")

    if numpy_call(node):
        return True
    if not isinstance(node, ast.Name) or depth > 2:
        return False
    nodes = scope.nodes if scope is not None else module.index.module_nodes
    values = [assign.value for assign in nodes.of(ast.Assign)
              if any(isinstance(t, ast.Name) and t.id == node.id for t in assign.targets)]
    if values:
        return all(numpy_call(value) for value in values)
    if scope is None or node.id not in scope.parameter_names:
        return False
    given = [(caller, argument) for caller in module.index.functions
             for call in caller.calls if module.function_named(call.func, caller) is scope
             for argument, name in call_arguments(call, scope) if name == node.id]
    return bool(given) and all(_numpy_scalar(module, caller, argument, depth + 1)
                               for caller, argument in given)


def _checked(module: ModuleContext, node: ast.expr, function: FunctionInfo) -> bool:
    """The function tests the same expression (`if x.shape[0] is not None:`) before using it."""
    text = module.source.segment(node)
    for other in function.nodes.of(ast.If, ast.IfExp, ast.Assert, ast.While):
        if text in module.source.segment(other.test):
            return True
    return False


def _assigned(function: FunctionInfo, name: str) -> bool:
    return any(n.id == name and n.ctx.__class__ is ast.Store for n in function.nodes.of(ast.Name))


def _is_tensor(module: ModuleContext, node: ast.AST, function: FunctionInfo | None) -> bool:
    """An expression built by a TensorFlow op (`tf.shape(x)[0]`, `tf.size(x)`)."""
    while isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Call):
        qualname = module.qualname(node.func) or ""
        if qualname.startswith("tensorflow.") and not qualname.startswith(NOT_TENSORS):
            return True
    return False
