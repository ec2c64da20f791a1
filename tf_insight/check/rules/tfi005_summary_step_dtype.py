"""A `tf.summary` step that is an int32 (or float) tensor instead of int64.

## What it does
Finds the `step` of `tf.summary.scalar/histogram/image/audio/text/write/trace_export(...)` and
the argument of `tf.summary.experimental.set_step(...)` when it is a tensor whose dtype is
known not to be int64:
- `tf.constant(i)` / `tf.convert_to_tensor(i)` of a Python int without `dtype=tf.int64` (int32);
- `tf.cast(x, tf.int32)` (or any dtype other than int64);
- `tf.Variable(0)` without `dtype=tf.int64` (an int32 variable);
- the loop variable of `for step in tf.range(n)` without `dtype=tf.int64` (int32);
directly or through a local variable or a `self.` attribute assigned from one of these.

Not reported: Python ints (TensorFlow converts them to int64 itself), int64 tensors and
variables, `optimizer.iterations` and other values whose dtype is unknown.

## Why is this bad?
Summary ops convert the step with `ops.convert_to_tensor(step, dtypes.int64)`, which refuses to
change a tensor's dtype: `ValueError: Tensor conversion requested dtype int64 for Tensor with
dtype int32: <tf.Tensor 'step:0' shape=() dtype=int32>` (`Incompatible type conversion
requested to type int64 for tf.Variable of type int32` for a variable). With
`tf.summary.experimental.set_step(int32 tensor)` the failure comes later, inside a
`tf.function`, as a bare `AssertionError: Unreachable` that names neither the step nor the
summary. `tf.constant(step)` looks like the recommended fix for retracing (TFI004), but the
default integer dtype is int32.

## Example
```python
import tensorflow as tf

writer = tf.summary.create_file_writer("/tmp/logs")


@tf.function
def log_metric(value, step):
    with writer.as_default():
        tf.summary.scalar("metric", value, step=step)


for step in range(100):
    log_metric(0.5, tf.constant(step))
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
    log_metric(0.5, tf.constant(step, dtype=tf.int64))
```

The safe fix adds `dtype=tf.int64` where the step tensor is made (or replaces the dtype it
names).

## References
- [tf.summary.scalar](https://www.tensorflow.org/api_docs/python/tf/summary/scalar)
- [tf.summary.experimental.set_step](https://www.tensorflow.org/api_docs/python/tf/summary/experimental/set_step)
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass

from tf_insight.check.context import ModuleContext
from tf_insight.check.imports import keyword
from tf_insight.check.index import ScopeNodes
from tf_insight.check.rules import Hit
from tf_insight.check.rules._tensors import tensorflow_alias
from tf_insight.check.rules._tf_functions import (
    Scope,
    call_arguments,
    enclosing_loops,
    is_range,
    tf_functions,
)
from tf_insight.findings import Edit, Fix, Related, Severity

CODE = "TFI005"
NAME = "summary-step-dtype"
SEVERITY = Severity.ERROR

# summary function → position of `step` among the positional arguments
STEP_POSITION = {
    "scalar": 2, "histogram": 2, "image": 2, "audio": 2, "text": 2, "write": 2,
    "trace_export": 1, "experimental.write_raw_pb": 1, "experimental.set_step": 0,
}
# tensor maker → (position of the dtype argument, keyword(s) naming it)
MAKERS = {
    "tensorflow.constant": (1, ("dtype",)),
    "tensorflow.convert_to_tensor": (1, ("dtype", "dtype_hint")),
    "tensorflow.Variable": (6, ("dtype",)),
    "tensorflow.range": (3, ("dtype",)),
    "tensorflow.cast": (1, ("dtype",)),
}
DTYPE_NAMES = {
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
    "bfloat16", "float32", "float64", "double", "half", "bool", "string",
}


@dataclass(frozen=True)
class StepTensor:
    dtype: str  # "int32", "float32", ...
    maker: ast.Call  # where the tensor is made
    fix: Fix | None


def check(module: ModuleContext) -> Iterator[Hit]:
    if not module.mentions("summary"):
        return
    for node, scope in module.focused_calls():
        qualname = module.qualname(node.func) or ""
        if not qualname.startswith("tensorflow.summary."):
            continue
        short = qualname.removeprefix("tensorflow.summary.")
        step = keyword(node, "step")
        position = STEP_POSITION.get(short)
        if step is None and position is not None and len(node.args) > position:
            step = node.args[position]
        if step is None:
            continue
        found = _step_tensor(module, step, scope, 0)
        if found is None:
            continue
        yield _hit(module, node, short, step, found)
        # `f(tf.constant(i))` where f's `step` parameter reaches this summary is
        # reported at the call below, where the tensor is made.
    yield from _steps_passed_to_tf_functions(module)


def _hit(module: ModuleContext, call: ast.Call, short: str, step: ast.expr,
         found: StepTensor, passed: str = "") -> Hit:
    text = module.source.segment(step)
    made = module.source.segment(found.maker)
    origin = "" if found.maker is step else f"it is made by `{made}`; "
    if short == "experimental.set_step":
        effect = ("summaries that use this default step then fail (`Tensor conversion "
                  "requested dtype int64...`, or `AssertionError: Unreachable` inside a "
                  "tf.function)")
    else:
        effect = (f"`tf.summary.{short}` fails with `Tensor conversion requested dtype int64 "
                  f"for Tensor with dtype {found.dtype}`")
    related: tuple[Related, ...] = ()
    if found.maker is not step:
        related = (Related(module.path, module.span(found.maker), f"the {found.dtype} step is "
                           "made here"),)
    if passed:
        subject = f"`{text}` is an {found.dtype} tensor {passed}"
    else:
        subject = f"the summary step `{text}` is an {found.dtype} tensor"
    return Hit(
        step,
        subject,
        fix=found.fix,
        related=related,
        detail=origin + effect,
        help="make it int64 (`dtype=tf.int64`) or pass a Python int",
    )


def _steps_passed_to_tf_functions(module: ModuleContext) -> Iterator[Hit]:
    """`log(value, tf.constant(step))` where `log` is a tf.function that writes a summary with
    that parameter as its step."""
    functions = tf_functions(module)
    if not functions:
        return
    for node, scope in module.focused_calls():
        target = functions.resolve(node.func, scope)
        if target is None or target.info is None:
            continue
        for argument, parameter in call_arguments(node, target.info):
            if parameter is None or not isinstance(argument, ast.Call | ast.Name):
                continue
            summary = _summary_step_parameter(module, target.info.nodes, parameter)
            if summary is None:
                continue
            found = _step_tensor(module, argument, scope, 0)
            if found is not None:
                passed = f"passed as the summary step `{parameter}` of tf.function " \
                    f"`{target.label}`"
                hit = _hit(module, summary, _short(module, summary), argument, found, passed)
                yield dataclasses.replace(hit, related=(
                    *hit.related,
                    Related(module.path, module.span(summary), "the summary using it")))


def _short(module: ModuleContext, call: ast.Call) -> str:
    return (module.qualname(call.func) or "").removeprefix("tensorflow.summary.")


def _summary_step_parameter(module: ModuleContext, nodes: ScopeNodes,
                            parameter: str) -> ast.Call | None:
    for node in nodes.of(ast.Call):
        short = _short(module, node)
        if short == (module.qualname(node.func) or ""):
            continue
        step = keyword(node, "step")
        position = STEP_POSITION.get(short)
        if step is None and position is not None and len(node.args) > position:
            step = node.args[position]
        if isinstance(step, ast.Name) and step.id == parameter:
            return node
    return None


def _step_tensor(module: ModuleContext, node: ast.AST, scope: Scope,
                 depth: int) -> StepTensor | None:
    if depth > 3:
        return None
    if isinstance(node, ast.Call):
        return _made_by(module, node, scope)
    if isinstance(node, ast.Name):
        return _from_name(module, node, scope, depth)
    if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and node.value.id == "self" and scope is not None):
        return _from_attribute(module, node.attr, scope, depth)
    return None


def _from_name(module: ModuleContext, node: ast.Name, scope: Scope,
               depth: int) -> StepTensor | None:
    for loop in enclosing_loops(module, node):
        if (isinstance(loop.target, ast.Name) and loop.target.id == node.id
                and isinstance(loop.iter, ast.Call)):
            found = _made_by(module, loop.iter, scope)
            if found is not None and (module.qualname(loop.iter.func) == "tensorflow.range"):
                return found
            return None
    if scope is not None and node.id not in scope.local_names:
        return None
    nodes = scope.nodes if scope is not None else module.index.module_nodes
    values = [
        n.value for n in nodes.of(ast.Assign)
        if any(isinstance(t, ast.Name) and t.id == node.id for t in n.targets)
    ]
    if _rebound(nodes, node.id):
        return None
    return _single(module, values, scope, depth)


def _rebound(nodes: ScopeNodes, name: str) -> bool:
    """`name` is also bound other than by `=`: `+=`, a loop or `with ... as` target."""
    for node in nodes.of(ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor, ast.withitem,
                         ast.NamedExpr):
        targets: list[ast.AST] = []
        if isinstance(node, ast.AugAssign | ast.AnnAssign | ast.For | ast.AsyncFor):
            targets = [node.target]
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            targets = [node.optional_vars]
        elif isinstance(node, ast.NamedExpr):
            targets = [node.target]
        for target in targets:
            if any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(target)):
                return True
    return False


def _from_attribute(module: ModuleContext, attribute: str, scope: Scope,
                    depth: int) -> StepTensor | None:
    assert scope is not None
    cls = module.enclosing_class(scope)
    if cls is None:
        return None
    values: list[ast.expr] = []
    for method in cls.methods.values():
        for node in method.nodes.of(ast.Assign, ast.AnnAssign, ast.AugAssign):
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets = list(node.targets)
            elif isinstance(node, ast.AnnAssign | ast.AugAssign):
                targets = [node.target]
            for target in targets:
                if (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                        and target.value.id == "self" and target.attr == attribute):
                    if not isinstance(node, ast.Assign):
                        return None
                    values.append(node.value)
    return _single(module, values, None, depth)


def _single(module: ModuleContext, values: list[ast.expr], scope: Scope,
            depth: int) -> StepTensor | None:
    """The step tensor every assigned value makes (the same dtype), else None."""
    found = [_step_tensor(module, value, scope, depth + 1) for value in values]
    if not found or any(f is None for f in found):
        return None
    dtypes = {f.dtype for f in found if f is not None}
    first = found[0]
    return first if len(dtypes) == 1 else None


def _made_by(module: ModuleContext, call: ast.Call, scope: Scope,
             asked: frozenset[tuple[int, str]] = frozenset()) -> StepTensor | None:
    qualname = module.qualname(call.func) or ""
    if qualname not in MAKERS:
        return None
    position, keywords = MAKERS[qualname]
    named: ast.expr | None = None
    for name in keywords:
        named = named or keyword(call, name)
    if named is None and len(call.args) > position:
        named = call.args[position]
    if named is not None:
        dtype = _dtype_name(module, named)
        if dtype is None or dtype == "int64":
            return None
        value_kind = _value_kind(module, call, qualname, scope, asked)
        fix = _replace_dtype(module, call, named) if (
            qualname == "tensorflow.cast" or value_kind == "int") else None
        return StepTensor(dtype, call, fix)
    if qualname == "tensorflow.cast":
        return None
    kind = _value_kind(module, call, qualname, scope, asked)
    if kind is None:
        return None
    dtype = "int32" if kind == "int" else "float32"
    return StepTensor(dtype, call, _add_dtype(module, call) if kind == "int" else None)


def _value_kind(module: ModuleContext, call: ast.Call, qualname: str, scope: Scope,
                asked: frozenset[tuple[int, str]]) -> str | None:
    """'int' or 'float' when the made tensor's value is a Python number of that type."""
    if qualname == "tensorflow.range":
        values: list[ast.AST] = [*call.args[:3]]
        values += [k.value for k in call.keywords if k.arg in ("start", "limit", "delta")]
    else:
        values = [*call.args[:1]] or [
            k.value for k in call.keywords if k.arg in ("value", "initial_value")]
    kinds = {_python_number(module, value, scope) or _int32_argument(module, value, scope, asked)
             for value in values}
    if not values or None in kinds:
        return None
    return "float" if "float" in kinds else "int"


def _int32_argument(module: ModuleContext, node: ast.AST, scope: Scope,
                    asked: frozenset[tuple[int, str]]) -> str | None:
    """"int" for a parameter of a tf.function that every call in the module gives a Python int
    or an int32 tensor (`tf.constant(10)`): what `tf.range(n)` makes of it is int32. A function
    that passes the parameter on to itself (`asked`: the parameters being resolved) says
    nothing more about it."""
    if scope is None or not isinstance(node, ast.Name) or node.id not in scope.parameter_names:
        return None
    question = (id(scope), node.id)
    if question in asked:
        return None
    asked |= {question}
    table = tf_functions(module)
    given: list[tuple[ast.expr, Scope]] = []
    for caller in (None, *module.index.functions):
        nodes = caller.nodes if caller is not None else module.index.module_nodes
        for call in nodes.of(ast.Call):
            target = table.resolve(call.func, caller)
            if target is not None and target.info is scope:
                given += [(argument, caller) for argument, name in call_arguments(call, scope)
                          if name == node.id]
    if not given:
        return None
    for argument, caller in given:
        made = _made_by(module, argument, caller, asked) if isinstance(
            argument, ast.Call) else None
        if _python_number(module, argument, caller) != "int" and (
                made is None or made.dtype != "int32"):
            return None
    return "int"


def _python_number(module: ModuleContext, node: ast.AST, scope: Scope) -> str | None:
    if isinstance(node, ast.Constant) and not isinstance(node.value, bool):
        if isinstance(node.value, int):
            return "int"
        if isinstance(node.value, float):
            return "float"
        return None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and module.qualname(node.func) is None and node.func.id in ("len", "int"):
        return "int"
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return _python_number(module, node.operand, scope)
    if isinstance(node, ast.BinOp) and isinstance(
            node.op, ast.Add | ast.Sub | ast.Mult | ast.FloorDiv | ast.Mod):
        left = _python_number(module, node.left, scope)
        right = _python_number(module, node.right, scope)
        if left is None or right is None:
            return None
        return "float" if "float" in (left, right) else "int"
    if isinstance(node, ast.Name):
        for loop in enclosing_loops(module, node):
            if loop.target is not None and node.id in {
                    n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}:
                if isinstance(loop.target, ast.Name) and is_range(module, loop.iter):
                    return "int"
                if (isinstance(loop.target, ast.Tuple) and loop.target.elts
                        and isinstance(loop.target.elts[0], ast.Name)
                        and loop.target.elts[0].id == node.id
                        and isinstance(loop.iter, ast.Call)
                        and isinstance(loop.iter.func, ast.Name)
                        and loop.iter.func.id == "enumerate"):
                    return "int"
                return None
        nodes = scope.nodes if scope is not None else module.index.module_nodes
        assigned = [
            n for n in nodes.of(ast.Assign, ast.AugAssign)
            if any(
                isinstance(t, ast.Name) and t.id == node.id
                for t in (n.targets if isinstance(n, ast.Assign) else [n.target]))
        ]
        if assigned and all(
            isinstance(n.value, ast.Constant) and type(n.value.value) is int for n in assigned
        ):
            return "int"
    return None


def _dtype_name(module: ModuleContext, node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value if node.value in DTYPE_NAMES else None
    qualname = module.qualname(node) or ""
    for prefix in ("tensorflow.dtypes.", "tensorflow.", "numpy."):
        if qualname.startswith(prefix) and qualname[len(prefix):] in DTYPE_NAMES:
            return qualname[len(prefix):]
    return None


def _alias(module: ModuleContext, call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
            and module.imports.aliases.get(func.value.id) in ("tensorflow",
                                                              "tensorflow.compat.v2"):
        return func.value.id
    return tensorflow_alias(module)


def _add_dtype(module: ModuleContext, call: ast.Call) -> Fix | None:
    alias = _alias(module, call)
    arguments: list[ast.AST] = [*call.args, *call.keywords]
    if alias is None or not arguments:
        return None
    last = max(arguments, key=lambda n: (getattr(n, "end_lineno", 0),
                                        getattr(n, "end_col_offset", 0)))
    # Replace the last argument (not a bare insertion): two findings about the same tensor
    # then overlap and `--fix` applies the change once.
    return Fix(
        f"Make `{module.source.segment(call)}` an int64 tensor",
        (Edit(module.span(last), f"{module.source.segment(last)}, dtype={alias}.int64"),),
    )


def _replace_dtype(module: ModuleContext, call: ast.Call, dtype: ast.expr) -> Fix | None:
    alias = _alias(module, call)
    if alias is None:
        return None
    return Fix(
        f"Make `{module.source.segment(call)}` an int64 tensor",
        (Edit(module.span(dtype), f"{alias}.int64"),),
    )
