"""A `tf.function` called with a Python number that changes from call to call.

## What it does
Finds calls of a `tf.function` (decorated, `f = tf.function(g)`, or `self.f = tf.function(...)`)
inside a Python loop, where an argument is a Python number that takes a new value on every
iteration: the loop variable of `for i in range(...)` or of `enumerate(...)`, a counter or
schedule (`step += 1`, `lr *= 0.9`), `len(batch)` of a per-iteration value, or arithmetic on
these (`epoch * 10`, `i / n`). The tf.function may be a method called on an instance made in
view (`trainer = Trainer()`, then `trainer.train_step(x, step)`). Also an attribute a method
updates from its own value each time it runs (`self.epsilon = max(0.05, self.epsilon * 0.99)`,
set to a number in `__init__`) and passes to a tf.function, when that method is called on every
iteration of a loop (an agent's `get_action`). And a bound method passed to a tf.function in a
loop (`run_step(trainer.update, batch)`, `trainer = Trainer()`): Python makes a new
bound-method object at every access, so every call traces anew (tensorflow/tensorflow#31175).

Not reported: constant arguments (the same value on every call), loops over fewer than five
constant values (`for k in range(3)`: a handful of deliberate variants), tensors, functions
declared with an `input_signature` (TensorFlow then converts the Python value to a tensor, one
trace), calls made in graph code or in helpers it calls (those run once per trace, not per
step), and an int the tf.function uses to pick an element of a Python container kept on the
object (`self.heads[i]`, `self.parameters[i]`): a tensor cannot index a list, so one trace per
element is what that design takes, bounded by the container. Nor test modules (`test_*.py`,
`*_test.py`): the cost is at scale, a test makes a few calls.

## Why is this bad?
A `tf.function` treats Python scalars as part of its cache key: each new value traces and
compiles a new graph. `for step in range(100): f(step)` traces 100 times (TF 2.21:
`experimental_get_tracing_count()` = 100), and keeps 100 concrete functions alive; each step is
then far slower than eager execution. After five retraces TensorFlow only logs
`5 out of the last 5 calls to <function ...> triggered tf.function retracing`.
`reduce_retracing=True` does not help for Python scalars (still 100 traces).

## Example
```python
import tensorflow as tf

writer = tf.summary.create_file_writer("/tmp/logs")


@tf.function
def log_metric(value, step):
    with writer.as_default():
        tf.summary.scalar("metric", value, step=step)


for step in range(100):
    log_metric(0.5, step)
```

## Use instead
```python
import tensorflow as tf

writer = tf.summary.create_file_writer("/tmp/logs")


@tf.function
def log_metric(value, step):
    with writer.as_default():
        tf.summary.scalar("metric", value, step=step)


for step in range(100):
    log_metric(0.5, tf.convert_to_tensor(step, tf.int64))
```

The safe fix wraps the argument in `tf.convert_to_tensor(x, tf.int64)` (`tf.float32` for a
float) when the value's type is clear and the function only uses the parameter where a tensor
of that dtype is accepted (a summary `step=`, `tf.cast`, comparisons and arithmetic with
constants...). Declaring an `input_signature` works too.

## References
- [tf.function: controlling retracing](https://www.tensorflow.org/guide/function#controlling_retracing)
- [Better performance with tf.function: Python or Tensor args](https://www.tensorflow.org/guide/function#python_or_tensor_args)
- [tf.summary.scalar](https://www.tensorflow.org/api_docs/python/tf/summary/scalar)
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tf_insight.check.context import ModuleContext
from tf_insight.check.index import FunctionInfo, self_attribute
from tf_insight.check.rules import Hit
from tf_insight.check.rules._attributes import attribute_stores
from tf_insight.check.rules._tensors import tensorflow_alias
from tf_insight.check.rules._tf_functions import (
    FEW_VALUES,
    Loop,
    NumberAnalysis,
    NumberKind,
    TfFunction,
    TfFunctions,
    VaryingNumber,
    call_arguments,
    called_in_loop,
    calls_in_loops,
    enclosing_loops,
    range_count,
    tf_functions,
    walk_scope,
)
from tf_insight.findings import Edit, Fix, Related, Severity

CODE = "TFI004"
NAME = "python-scalar-retrace"
SEVERITY = Severity.WARNING

DTYPES = {"int": "int64", "float": "float32"}
# Consumers that accept an int64/float32 tensor where the Python number was. Not `range()`:
# a tensor bound turns an unrolled Python loop into a tf.while_loop, which rejects bodies
# that append to Python lists; not `tf.range()`: its int64 counter breaks int32 arithmetic.
SAFE_CALLS = frozenset({
    "tensorflow.cast", "tensorflow.convert_to_tensor", "tensorflow.print",
    "tensorflow.summary.experimental.set_step", "tensorflow.identity", "tensorflow.constant",
})


def check(module: ModuleContext) -> Iterator[Hit]:
    functions = tf_functions(module)
    if not functions or module.test_module:
        return
    for node, scope, loops in calls_in_loops(module):
        defined_here = functions.resolve(node.func, scope)
        if defined_here is None and not functions.importable(node.func):
            continue  # a call of no tf.function
        numbers = NumberAnalysis(module, scope, loops)
        local = scope.local_names if scope is not None else set()
        candidates = []
        methods = []
        for position, (argument, _) in enumerate(call_arguments(node, None)):
            if _bound_method(module, functions, argument, scope):
                methods.append(position)
                continue
            found = numbers.varying(argument)
            if found is None:
                continue
            count = range_count(module, found.loop.iter, local)
            if count is None or count >= FEW_VALUES:
                candidates.append((position, found))
        if not candidates and not methods:
            continue
        # only now ask whether an imported callee is a tf.function (jedi)
        target = defined_here or functions.resolve(node.func, scope, imported=True)
        if target is None or target.input_signature:
            continue
        arguments = list(call_arguments(node, target.info))
        for position, found in candidates:
            argument, parameter = arguments[position]
            if parameter is not None and target.info is not None and _picks_from_object(
                    module, target.info, parameter):
                continue
            yield _hit(module, node, target, argument, parameter, found)
        for position in methods:
            yield _method_hit(module, node, target, arguments[position][0], loops[0])
    yield from _attributes_updated_per_call(module, functions)


def _attributes_updated_per_call(module: ModuleContext, functions: TfFunctions) -> Iterator[Hit]:
    """`self._act(state, self.epsilon)` in a method that decays `self.epsilon` each time it
    runs, itself called on every iteration of a loop (an agent's `get_action`)."""
    for node, scope in module.focused_calls():
        if scope is None or scope.cls is None or not any(
                self_attribute(argument) for argument, _ in call_arguments(node, None)) \
                or module.graph.in_graph(scope) is not None or enclosing_loops(module, node):
            continue
        target = functions.resolve(node.func, scope)
        if target is None or target.input_signature:
            continue
        for argument, parameter in call_arguments(node, target.info):
            name = self_attribute(argument)
            kind = _updated_per_call(module, scope, name) if name else None
            repeated = called_in_loop(module, scope) if kind else None
            if repeated is None:
                continue
            loops = enclosing_loops(module, repeated[0])
            found = VaryingNumber(kind, f"`self.{name}` (set anew each time "
                                        f"`{scope.qualname}` runs, and it is {repeated[1]})",
                                  loops[0])
            yield _hit(module, node, target, argument, parameter, found)


def _updated_per_call(module: ModuleContext, method: FunctionInfo, name: str | None
                      ) -> NumberKind | None:
    """The kind of number `self.<name>` is, if `method` (which passes it to a tf.function)
    updates it from its own value, before that call or after it (`self.eps = max(0.05,
    self.eps * 0.99)`, `self.step += n`), and `__init__` set it to a number."""
    stores = attribute_stores(module, method.cls).get(name or "", []) if method.cls else []
    initial = [s.value for s in stores if s.method.name == "__init__"]
    if len(initial) != 1 or not isinstance(initial[0], ast.Constant) \
            or not isinstance(initial[0].value, int | float) or isinstance(initial[0].value, bool):
        return None
    updated = any(  # after the call too: the next call sees the new value
        s.method is method
        and (isinstance(s.statement, ast.AugAssign) or (s.value is not None and any(
            self_attribute(n) == name for n in ast.walk(s.value))))
        for s in stores)
    if not updated:
        return None
    return "float" if isinstance(initial[0].value, float) else "int"


def _bound_method(module: ModuleContext, functions: TfFunctions, argument: ast.expr,
                  scope: FunctionInfo | None) -> bool:
    """`trainer.update` where `trainer = Trainer()` and `update` is a plain method: Python
    makes a new bound-method object at every access."""
    if not (isinstance(argument, ast.Attribute) and isinstance(argument.value, ast.Name)):
        return False
    cls = functions.instance_class(argument.value.id, scope)
    method = module.method_of(cls, argument.attr) if cls is not None else None
    return method is not None and isinstance(method.node, ast.FunctionDef) and not any(
        isinstance(d, ast.Name) and d.id in ("property", "staticmethod", "classmethod")
        for d in method.node.decorator_list)


def _method_hit(module: ModuleContext, call: ast.Call, target: TfFunction, argument: ast.expr,
                loop: Loop) -> Hit:
    assert isinstance(argument, ast.Attribute)  # as `_bound_method` found it
    text = module.source.segment(argument)
    return Hit(
        argument,
        f"`{text}` is a bound method passed to tf.function `{target.label}`: a new Python "
        "object at every access, so every call traces anew",
        related=(Related(module.path, module.span(loop.node),
                         f"`{loop.header(module)}` calls `{module.source.segment(call.func)}` "
                         f"with a new `{text}` each iteration"),),
        detail="a tf.function keys its traces on its Python arguments: each access of "
        f"`{text}` makes a new bound-method object, so no trace is reused (TensorFlow warns "
        "of retracing from the fifth call)",
        help=f"bind it once, before the loop (`{argument.attr} = {text}`), and pass that name",
    )


def _hit(module: ModuleContext, call: ast.Call, target: TfFunction, argument: ast.expr,
         parameter: str | None, found: VaryingNumber) -> Hit:
    kind = f"Python {found.kind}" if found.kind else "Python number"
    text = module.source.segment(argument)
    where = f" as `{parameter}`" if parameter else ""
    fix = _fix(module, target, argument, parameter, found)
    relaxed = " (`reduce_retracing=True` does not help for Python scalars)" \
        if target.reduce_retracing else ""
    dtype = DTYPES.get(found.kind or "", "int64")
    return Hit(
        argument,
        f"`{text}` is a {kind} passed{where} to tf.function `{target.label}`, a new value "
        "each iteration",
        fix=fix,
        related=(Related(module.path, module.span(found.loop.node),
                         f"`{found.loop.header(module)}` calls `{module.source.segment(call.func)}` "
                         "with a new value each iteration"),),
        detail=f"{found.why} changes on every iteration, and every new Python value traces a "
        f"new graph: one trace per iteration{relaxed}",
        help=f"pass a tensor instead, e.g. `tf.convert_to_tensor({text}, tf.{dtype})`",
    )


def _fix(module: ModuleContext, target: TfFunction, argument: ast.expr, parameter: str | None,
         found: VaryingNumber) -> Fix | None:
    alias = tensorflow_alias(module)
    if alias is None or found.kind is None or target.info is None or parameter is None:
        return None
    if not _accepts_tensor(module, target.info, parameter, found.kind):
        return None
    dtype = DTYPES[found.kind]
    text = module.source.segment(argument)
    return Fix(
        f"Pass `{text}` as a tf.{dtype} tensor",
        (Edit(module.span(argument), f"{alias}.convert_to_tensor({text}, {alias}.{dtype})"),),
    )


def _picks_from_object(module: ModuleContext, function: FunctionInfo, parameter: str,
                       hops: int = 1) -> bool:
    """Whether the traced method indexes state kept on its object with `parameter`
    (`self.transforms[idx]`, `self.factory.tables[idx]`), other than a tensor it made with
    TensorFlow (`self.table = tf.constant(...)`, which a tensor index would serve as well);
    or passes it on to a method of its class that does (`self.step(x, idx)`,
    `strategy.run(self.step, args=(x, idx))`), `hops` deep."""
    if function.cls is None or not function.parameter_names:
        return False
    owner = function.parameter_names[0]
    stores = attribute_stores(module, function.cls)
    for node in function.nodes.of(ast.Subscript):
        if not (isinstance(node.slice, ast.Name) and node.slice.id == parameter):
            continue
        chain = node.value
        while isinstance(chain, ast.Attribute) and isinstance(chain.value, ast.Attribute):
            chain = chain.value
        attribute = self_attribute(chain, owner)  # `transforms` of `self.transforms[...]`
        if attribute is not None and not any(
                isinstance(store.value, ast.Call)
                and (module.qualname(store.value.func) or "").startswith("tensorflow.")
                for store in stores.get(attribute, [])):
            return True
    if hops == 0:
        return False
    for call in function.calls:
        for method_name, arguments in _method_calls(call, owner):
            method = function.cls.methods.get(method_name)
            passed = [position for position, argument in enumerate(arguments)
                      if isinstance(argument, ast.Name) and argument.id == parameter]
            if method is None:
                continue
            names = method.parameter_names[1:]
            if any(position < len(names) and _picks_from_object(
                    module, method, names[position], hops - 1) for position in passed):
                return True
    return False


def _method_calls(call: ast.Call, owner: str) -> Iterator[tuple[str, list[ast.expr]]]:
    """The methods of `owner` a call runs, with their positional arguments: `self.step(x, i)`,
    and `strategy.run(self.step, args=(x, i))` (a distribution strategy runs it)."""
    called = self_attribute(call.func, owner)
    if called is not None:
        yield called, list(call.args)
    given = next((k.value for k in call.keywords if k.arg == "args"), None)
    for argument in call.args[:1]:
        name = self_attribute(argument, owner)
        if name is not None and isinstance(given, ast.Tuple | ast.List):
            yield name, list(given.elts)


def _accepts_tensor(module: ModuleContext, function: FunctionInfo, parameter: str,
                    kind: str) -> bool:
    """Every use of `parameter` in the traced function takes a tensor of the new dtype as well
    as the Python number (int64 in int32 arithmetic would fail: `x * step`)."""
    if parameter not in function.parameter_names:
        return False
    body = function.node.body if not isinstance(function.node, ast.Lambda) else [function.node.body]
    for statement in body:
        for node in walk_scope(statement):
            if isinstance(node, ast.Name) and node.id == parameter and (
                not isinstance(node.ctx, ast.Load) or not _safe_use(module, node, kind)
            ):
                return False
    return True


def _safe_use(module: ModuleContext, node: ast.expr, kind: str) -> bool:
    parent = module.index.parent(node)
    if isinstance(parent, ast.keyword):
        return parent.arg == "step"
    if isinstance(parent, ast.Call) and node in parent.args:
        return (module.qualname(parent.func) or "") in SAFE_CALLS
    if isinstance(parent, ast.Compare):
        return all(_number(o) or o is node for o in [parent.left, *parent.comparators])
    if isinstance(parent, ast.BinOp):
        other = parent.right if parent.left is node else parent.left
        if _number(other):
            return _safe_use(module, parent, kind)
        return kind == "float"
    return False


def _number(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, int | float)
