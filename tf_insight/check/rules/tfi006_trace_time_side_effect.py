"""A Python side effect (print, logging, file I/O, outer list/dict writes, global mutation) in
code that TensorFlow traces into a graph.

## What it does
Finds, inside a graph context (a `tf.function`, a Keras `call`/`train_step`, a loss or
metric, a `tf.data` function, or a helper called from one):
- `print(...)`, `sys.stdout.write(...)`;
- logging meant to run per step: `logging.debug/info/log` (stdlib, absl, `tf.get_logger()`
  and loggers from `logging.getLogger`), and any logging call whose arguments hold a tensor;
- file I/O: `open(...)`, `tf.io.gfile.GFile(...)`, `np.save*`, `json.dump`, `pickle.dump`,
  `.write(...)` on a file object opened outside the function;
- writes to lists, dicts and sets that live outside the function (`history.append(loss)`,
  `cache[key] = x`, `seen.add(x)` on module-level or enclosing-function containers, or on a
  `tf.function`'s parameter: the caller's object), and
  `self.<attr> = ...`, `self.<attr>.append(...)`, `self.<attr>[k] = ...` of a tensor (it leaks
  out of the trace);
- assignments to `global`/`nonlocal` names.

Not reported: code that cannot see a symbolic tensor (see `tf_insight/check/guards.py`: under
`with tf.init_scope():`, `if tf.executing_eagerly():` or a helper that returns it, type guards
such as `isinstance(x, (list, np.ndarray))`), `tf.py_function` callbacks, writes to the function's own locals, one-off `logging.warning`
notices with constant text (these are meant to appear once), and logging of what is fixed at
trace time (`logging.info("input %s", x.shape)`: shapes, dtypes, names).

## Why is this bad?
Python code in a graph function runs only while TensorFlow traces it — once, or once per
retrace — not at every step. A `print` shows up once with a symbolic `Tensor("add:0", ...)`
instead of values; a counter incremented with `global step; step += 1` stops at 1; a loss
appended to a Python list is a graph tensor that leaks out of the trace, and using it later
raises `TypeError: <tf.Tensor ...> is out of scope and cannot be used here`.

## Example
```python
import tensorflow as tf

losses = []


@tf.function
def train_step(x):
    loss = tf.reduce_mean(x * x)
    print("loss", loss)
    losses.append(loss)
    return loss
```

## Use instead
```python
import tensorflow as tf

losses = []


@tf.function
def train_step(x):
    loss = tf.reduce_mean(x * x)
    tf.print("loss", loss)
    return loss


for batch in [tf.ones((2, 2))]:
    losses.append(float(train_step(batch)))
```

## References
- [tf.function: Python side effects](https://www.tensorflow.org/guide/function#executing_python_side_effects)
- [All outputs of a tf.function must be return values](https://www.tensorflow.org/guide/function#all_outputs_of_a_tffunction_must_be_return_values)
- [tf.print](https://www.tensorflow.org/api_docs/python/tf/print)
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator

from tf_insight.check.context import ContextKind, GraphContext, ModuleContext
from tf_insight.check.guards import guarded_nodes
from tf_insight.check.index import FunctionInfo, ScopeNodes
from tf_insight.check.rules import Hit
from tf_insight.check.rules._tensors import (
    TensorFacts,
    context_label,
    module_stores,
    tensor_facts,
    tensorflow_alias,
)
from tf_insight.findings import Edit, Fix, Severity

CODE = "TFI006"
NAME = "trace-time-side-effect"
SEVERITY = Severity.WARNING

PER_STEP_LEVELS = frozenset({"debug", "info", "log", "vlog", "log_every_n", "log_first_n",
                             "log_every_n_seconds", "log_if"})
ALL_LEVELS = PER_STEP_LEVELS | {"warning", "warn", "error", "exception", "critical", "fatal"}
LOGGING_MODULES = ("logging", "absl.logging", "tensorflow.compat.v1.logging")
LOGGER_FACTORIES = frozenset({"logging.getLogger", "tensorflow.get_logger",
                              "absl.logging.get_absl_logger"})
FILE_WRITERS = frozenset({
    "numpy.save", "numpy.savez", "numpy.savez_compressed", "numpy.savetxt", "json.dump",
    "pickle.dump", "tensorflow.io.gfile.GFile", "tensorflow.compat.v1.gfile.GFile",
    "tensorflow.compat.v1.gfile.Open",
})
MUTATORS = frozenset({"append", "extend", "insert", "add", "update", "setdefault", "pop",
                      "popitem", "remove", "discard", "clear", "appendleft", "extendleft"})
STANDARD_STREAM_WRITES = frozenset({"sys.stdout.write", "sys.stderr.write"})
# what the checks below can report: any other call is skipped at once
REPORTED_FUNCTIONS = FILE_WRITERS | STANDARD_STREAM_WRITES
REPORTED_METHODS = ALL_LEVELS | MUTATORS | {"write", "writelines"}
CONTAINER_FACTORIES = frozenset({"list", "dict", "set", "collections.defaultdict",
                                 "collections.deque", "collections.OrderedDict",
                                 "collections.Counter", "defaultdict", "deque",
                                 "OrderedDict", "Counter"})


def check(module: ModuleContext) -> Iterator[Hit]:
    loggers = _bound_names(module, lambda value: isinstance(value, ast.Call) and (
        module.qualname(value.func) in LOGGER_FACTORIES))
    files = _bound_names(module, lambda value: isinstance(value, ast.Call) and (
        isinstance(value.func, ast.Name) and value.func.id == "open"))
    tf_alias = tensorflow_alias(module)
    for function, context in module.focused_graph_functions():
        eager = guarded_nodes(module, function)
        where = context_label(function, context)
        for node in function.nodes.of(
                ast.Call, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete):
            if node in eager:
                continue
            if isinstance(node, ast.Call):
                yield from _call(module, function, context, node, where, loggers, files,
                                 tf_alias)
            elif isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Delete):
                yield from _assignment(module, function, context, node, where)


def _call(module: ModuleContext, function: FunctionInfo, context: GraphContext,
          node: ast.Call, where: str, loggers: set[str], files: set[str],
          tf_alias: str | None) -> Iterator[Hit]:
    func = node.func
    qualname = module.qualname(func)
    if isinstance(func, ast.Name) and func.id in ("print", "open") and qualname is None and (
            not _shadowed(module, function, func.id)):
        if func.id == "print":
            tensors = _tensor_arguments(tensor_facts(module, function, context), node)
            shows = (f"; it shows the symbolic tensor(s) {tensors}, not their values"
                     if tensors else "")
            yield Hit(
                node,
                f"`print(...)` in {where} runs once per trace, not at every step{shows}; "
                "use `tf.print(...)`",
                fix=_tf_print_fix(module, node, tf_alias),
            )
            return
        if func.id == "open":
            yield Hit(node, f"`open(...)` in {where} runs once per trace, not at every step: "
                            "the file is opened and written while tracing only; write from "
                            "eager code, or use `tf.io.write_file`/`tf.summary`")
            return
    if qualname not in REPORTED_FUNCTIONS and not (
        isinstance(func, ast.Attribute) and func.attr in REPORTED_METHODS
    ):
        return  # most calls: nothing to describe
    label = module.source.segment(func)
    if qualname in FILE_WRITERS:
        yield Hit(node, f"`{label}(...)` in {where} runs once per trace, not at every step "
                        "(file I/O happens while tracing only); write from eager code or use "
                        "`tf.io.write_file`/`tf.summary`")
        return
    if qualname in STANDARD_STREAM_WRITES:
        yield Hit(node, f"`{label}(...)` in {where} runs once per trace, not at every step; "
                        "use `tf.print(...)`")
        return
    if not isinstance(func, ast.Attribute):
        return
    level = func.attr
    is_logging = (
        qualname is not None and level in ALL_LEVELS
        and qualname.rsplit(".", 1)[0] in LOGGING_MODULES
    ) or (
        level in ALL_LEVELS and isinstance(func.value, ast.Name) and func.value.id in loggers
        and not _shadowed(module, function, func.value.id)
    ) or (
        level in ALL_LEVELS and isinstance(func.value, ast.Call)
        and module.qualname(func.value.func) in LOGGER_FACTORIES
    )
    if is_logging:
        tensors = _tensor_arguments(tensor_facts(module, function, context), node)
        if tensors:
            yield Hit(node, f"`{label}(...)` in {where} runs once per trace and logs the "
                            f"symbolic tensor(s) {tensors}, not their values; use "
                            "`tf.print(...)` to log values at every step")
        elif level in PER_STEP_LEVELS and not _logs_static_facts(node):
            yield Hit(node, f"`{label}(...)` in {where} runs once per trace, not at every "
                            "step; log from eager code (a callback) or use `tf.print(...)`")
        return
    receiver = func.value
    if level in ("write", "writelines") and isinstance(receiver, ast.Name) and (
        receiver.id in files and not _shadowed(module, function, receiver.id)
    ):
        yield Hit(node, f"`{label}(...)` in {where} writes to a file only while tracing, not "
                        "at every step; write from eager code or use `tf.io.write_file`")
        return
    if level in MUTATORS:
        facts = tensor_facts(module, function, context)
        target = _written_container(module, function, context, receiver)
        if target is not None:
            values = [a for a in node.args if facts.is_tensor(a)]
            yield Hit(node, _mutation_message(module, target, f"`{label}(...)`", where, values))
        elif _self_attribute(receiver) and level in ("append", "extend", "insert", "add",
                                                     "update", "setdefault", "appendleft"):
            values = [a for a in node.args if facts.is_tensor(a)]
            if values:
                yield Hit(node, _leak_message(module, f"`{label}(...)`", where, values))


def _assignment(module: ModuleContext, function: FunctionInfo, context: GraphContext,
                node: ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Delete,
                where: str) -> Iterator[Hit]:
    targets = node.targets if isinstance(node, ast.Assign | ast.Delete) else [node.target]
    value = getattr(node, "value", None)
    declared = _declared_outer(function)

    def is_tensor(expression: ast.expr) -> bool:  # most assignments never ask
        return tensor_facts(module, function, context).is_tensor(expression)

    for target in targets:
        if isinstance(target, ast.Name) and target.id in declared:
            yield Hit(node, f"`{module.source.segment(node)}` in {where} changes the "
                            f"{declared[target.id]} `{target.id}` once per trace, not at every "
                            "step; keep the state in a `tf.Variable` and `.assign(...)` it")
            return
        if isinstance(target, ast.Subscript):
            container = _written_container(module, function, context, target.value)
            if container is not None:
                values = [value] if value is not None and is_tensor(value) else []
                yield Hit(node, _mutation_message(
                    module, container, f"`{module.source.segment(target)} = ...`"
                    if not isinstance(node, ast.Delete) else f"`del {module.source.segment(target)}`",
                    where, values))
                return
            if _self_attribute(target.value) and value is not None and is_tensor(value):
                yield Hit(node, _leak_message(module, f"`{module.source.segment(target)} = ...`",
                                              where, [value]))
                return
        if (_self_attribute(target) and isinstance(node, ast.Assign) and value is not None
                and is_tensor(value)):
            yield Hit(node, _leak_message(module, f"`{module.source.segment(target)} = ...`",
                                          where, [value]))
            return


STATIC_FACTS = frozenset({"shape", "dtype", "name", "ndim", "rank", "as_list", "__name__"})


def _logs_static_facts(call: ast.Call) -> bool:
    """`logging.info("input %s", x.shape)`: what it logs is fixed at trace time (shapes,
    dtypes, names), so logging it once per trace is the point."""
    values: list[ast.expr] = [*call.args[1:], *(k.value for k in call.keywords)]
    if call.args and isinstance(call.args[0], ast.JoinedStr):
        values += [v.value for v in call.args[0].values if isinstance(v, ast.FormattedValue)]
    return bool(values) and all(_static_fact(value) for value in values)


def _static_fact(node: ast.expr) -> bool:
    if isinstance(node, ast.Call):
        node = node.func  # `x.shape.as_list()`
    if isinstance(node, ast.Subscript):
        node = node.value  # `x.shape[-1]`
    return isinstance(node, ast.Attribute) and node.attr in STATIC_FACTS


def _mutation_message(module: ModuleContext, container: str, what: str, where: str,
                      values: list[ast.expr]) -> str:
    text = f"{what} in {where} changes {container} once per trace, not at every step"
    if values:
        shown = ", ".join(f"`{module.source.segment(v)}`" for v in values)
        text += (f"; the graph tensor {shown} leaks out of the trace (using it later raises "
                 "`... is out of scope and cannot be used here`) — return it instead")
    else:
        text += "; return the values, or keep state in a `tf.Variable`/`tf.TensorArray`"
    return text


def _leak_message(module: ModuleContext, what: str, where: str, values: list[ast.expr]) -> str:
    shown = ", ".join(f"`{module.source.segment(v)}`" for v in values)
    return (f"{what} in {where} stores the graph tensor {shown} on the object once per trace: "
            "it leaks out of the trace (using it later raises `... is out of scope and cannot "
            "be used here`) and is not updated at each step — return it instead")


def _tensor_arguments(facts: TensorFacts, call: ast.Call) -> str:
    found: list[str] = []
    parts: list[ast.expr] = [*call.args, *(k.value for k in call.keywords)]
    for part in parts:
        candidates: list[ast.expr] = [part]
        if isinstance(part, ast.JoinedStr):
            candidates = [v.value for v in part.values if isinstance(v, ast.FormattedValue)]
        for candidate in candidates:
            if facts.is_tensor(candidate):
                found.append(f"`{facts.label(candidate)}`")
    return ", ".join(dict.fromkeys(found))


def _simple(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Name):
        return True
    if isinstance(node, ast.Attribute):
        return _simple(node.value)
    if isinstance(node, ast.Subscript):
        return _simple(node.value) and _simple(node.slice)
    if isinstance(node, ast.Slice):
        return all(part is None or _simple(part) for part in (node.lower, node.upper, node.step))
    if isinstance(node, ast.JoinedStr):
        return not any(isinstance(v, ast.FormattedValue) for v in node.values)
    if isinstance(node, ast.UnaryOp):
        return _simple(node.operand)
    return False


def _tf_print_fix(module: ModuleContext, call: ast.Call, tf_alias: str | None) -> Fix | None:
    """`print(a, b, sep=...)` → `tf.print(a, b, sep=...)`; only for simple arguments."""
    if tf_alias is None or not all(_simple(a) for a in call.args):
        return None
    for item in call.keywords:
        if item.arg not in ("sep", "end") or not isinstance(item.value, ast.Constant) or (
            not isinstance(item.value.value, str)
        ):
            return None  # file=, flush=, **kwargs: tf.print has no equivalent
    span = module.span(call.func)
    return Fix(f"Replace `print` with `{tf_alias}.print`",
               (Edit(span, f"{tf_alias}.print"),))


def _declared_outer(function: FunctionInfo) -> dict[str, str]:
    declared: dict[str, str] = {}
    for node in function.nodes.of(ast.Global, ast.Nonlocal):
        declared.update(dict.fromkeys(
            node.names, "global" if isinstance(node, ast.Global) else "nonlocal"))
    return declared


def _self_attribute(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and (
        node.value.id == "self"
    )


def _shadowed(module: ModuleContext, function: FunctionInfo, name: str) -> bool:
    """`name` is rebound in the function or an enclosing one (or, for the builtins `print`
    and `open`, at module level)."""
    scope: FunctionInfo | None = function
    while scope is not None:
        if name in scope.local_names:
            return True
        scope = scope.outer
    if name not in ("print", "open"):
        return False
    return name in module.index.module_functions() or name in module_stores(module)


def _parameter_container(function: FunctionInfo, context: GraphContext,
                         receiver: ast.AST) -> str | None:
    """A parameter of a `tf.function` that the body writes into (`xs.append(x)`, `xs[0] =
    x`): the caller's list or dict, changed once per trace."""
    if context.kind is not ContextKind.TF_FUNCTION or not isinstance(receiver, ast.Name):
        return None
    name = receiver.id
    if name in ("self", "cls") or name not in function.parameter_names:
        return None
    if any(node.ctx.__class__ is ast.Store for node in function.nodes.named(name)):
        return None  # rebound in the body: a local from then on
    return name


def _written_container(module: ModuleContext, function: FunctionInfo, context: GraphContext,
                       receiver: ast.AST) -> str | None:
    """Whose container a write changes, for the message: `the outer `x``, `the caller's `xs``."""
    outer = _outer_container(module, function, receiver)
    if outer is not None:
        return f"the outer `{outer}`"
    parameter = _parameter_container(function, context, receiver)
    return None if parameter is None else f"the caller's `{parameter}` (a parameter)"


def _outer_container(module: ModuleContext, function: FunctionInfo,
                     receiver: ast.AST) -> str | None:
    """The name of a list/dict/set bound outside `function` that `receiver` names."""
    if not isinstance(receiver, ast.Name):
        return None
    name = receiver.id
    if name in function.local_names:
        return None
    scope = function.outer
    while scope is not None:
        if name in scope.local_names:
            if module.in_graph(scope) is not None:
                return None  # a local of the traced enclosing function: per trace anyway
            return name if name in _containers_in(module, scope.nodes) else None
        scope = scope.outer
    if name in module.imports.aliases:
        return None
    return name if name in _containers_in(module, module.index.module_nodes) else None


def _containers_in(module: ModuleContext, nodes: ScopeNodes) -> set[str]:
    """The names a scope binds to a list, dict or set (once per scope)."""
    tables: dict[int, set[str]] = module.memo("tfi006.containers", dict)
    found = tables.get(id(nodes))
    if found is None:
        found = tables[id(nodes)] = set()
        for node in nodes.of(ast.Assign, ast.AnnAssign):
            if node.value is not None and _container_value(module, node.value):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                found.update(t.id for t in targets if isinstance(t, ast.Name))
    return found


def _container_value(module: ModuleContext, value: ast.AST) -> bool:
    if isinstance(value, ast.List | ast.Dict | ast.Set | ast.ListComp | ast.DictComp
                  | ast.SetComp):
        return True
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mult):
        return isinstance(value.left, ast.List) or isinstance(value.right, ast.List)
    if isinstance(value, ast.Call):
        if isinstance(value.func, ast.Name) and value.func.id in CONTAINER_FACTORIES:
            return True
        return (module.qualname(value.func) or "") in CONTAINER_FACTORIES
    return False


def _bound_names(module: ModuleContext, test: Callable[[ast.expr], bool]) -> set[str]:
    """Module-level names assigned from a value for which `test(value)` is true."""
    found: set[str] = set()
    for node in module.index.module_nodes.of(ast.Assign):
        if test(node.value):
            found.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return found

