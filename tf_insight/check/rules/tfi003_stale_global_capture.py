"""A graph function reads a module-level or closure Python variable that is reassigned or
mutated elsewhere: its value is frozen when the function is traced.

## What it does
Finds reads, inside a graph context (a `tf.function`, a Keras `call`/`train_step`, a loss or
metric, a `tf.data` function, or a helper called from one), of a Python variable defined
outside the function that changes *between two runs of the same trace*: after a call that
traced the function and before a later call that reuses that trace (or in the same loop as
the calls). The change can be:
- a module-level variable assigned again, assigned in a module-level loop, or augmented
  (`a += 1`);
- a module-level variable assigned in another function through `global a`, when that
  function is called between two calls of the graph function;
- a list/dict/set mutated (`items.append(...)`, `table[k] = v`, `.update(...)`,
  `del table[k]`), or an object attribute reassigned (`config.lr = ...`) that the function
  reads;
- a variable of the enclosing function reassigned between two calls of the graph function, or
  through `nonlocal` in another nested function called between them;
- a module-level variable reassigned through `global` in a function that calls the graph
  function itself, between two of those calls or in the same loop (`main()` decaying a global
  learning rate while it trains), or in a hook of a Keras callback (`on_epoch_begin`) when
  the graph function is one that `fit` runs (a loss, a metric, a Keras `call`) and the file
  calls `fit`;
- an attribute of the object whose method is traced (`self.rate` in a Keras `call`), set up
  in `__init__`/`build` and set anew after that: to a Python value by code outside the class
  (`layer.rate = 0.1` in a Keras callback), or by a setter of the class (`set_matrix(self,
  matrix)`, a property's setter) when it was set up as a Python value or a tensor
  (`self.matrix = tf.eye(3)`; not a layer or other object set up once, nor a `tf.Variable`);
  a setter that `__init__` calls to set the attribute up counts when it is called again
  afterwards (`likelihood.set_data(new)`);
- an attribute that a hook of a Keras callback of the module sets (`self.this_epoch = epoch` in
  `on_epoch_begin`), read through another object (`self.tracker.this_epoch`) by what `fit`
  runs (a loss, a metric, a Keras `call` or step), in a file that calls `fit`.

The calls that count are those this file shows: of the graph function (or of the function it
is nested in or called from), of a module function that mentions it (`main()`), of a module
variable (`model(x)`), and Keras's `fit`/`evaluate`/`predict`. Not reported: constants assigned
once (or in exclusive `if`/`else`/`try` branches), a setter or a lazy initialisation that runs
before the function is first called, a value changed after the last call (nothing reads it
stale), imports, functions and classes, `tf.Variable`s (their `.assign` is seen by the graph),
and variables the function itself declares `global` (see TFI006).

## Why is this bad?
TensorFlow runs the Python body only while tracing; a Python value the body reads is captured
as a constant in the graph. Later changes are silently ignored — until some call happens to
retrace (a new input shape or dtype, a new Python argument), which then picks up the new value
for that signature only. The function returns results computed with stale values, with no
warning (e.g. `a = 1; f(1)` → 1, then `a = 2; f(1)` → still 1, `f(2)` → 4).

## Example
```python
import tensorflow as tf


@tf.function
def scale(x):
    return a * x


a = 1
scale(tf.constant(1))
a = 2
scale(tf.constant(1))  # still 1: `a` was frozen at trace time
```

## Use instead
```python
import tensorflow as tf

a = tf.Variable(1)


@tf.function
def scale(x):
    return a * x


scale(tf.constant(1))
a.assign(2)
scale(tf.constant(1))  # 2: the graph reads the variable
```
Or pass the value as an argument (a tensor, so that it does not retrace per value).

## References
- [tf.function: depending on Python global and free variables](https://www.tensorflow.org/guide/function#depending_on_python_global_and_free_variables)
- [tf.Variable](https://www.tensorflow.org/api_docs/python/tf/Variable)
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Container, Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property

from tf_insight.check.context import ModuleContext
from tf_insight.check.graph_model import ContextKind, GraphContext
from tf_insight.check.index import ClassInfo, FunctionInfo, ScopeNodes, self_attribute
from tf_insight.check.rules import Hit, Reads
from tf_insight.check.rules._attributes import attribute_stores
from tf_insight.check.rules._keras import is_callback
from tf_insight.check.rules._tensors import context_label, module_stores, tensor_op
from tf_insight.check.rules._tf_functions import enclosing_loops
from tf_insight.check.shared import Shared
from tf_insight.findings import Related, Severity

CODE = "TFI003"
NAME = "stale-global-capture"
SEVERITY = Severity.WARNING

# the methods that set an object up before any of its methods is traced
SET_UP = frozenset({"__init__", "build"})

MUTATORS = frozenset({"append", "extend", "insert", "add", "update", "setdefault", "pop",
                      "popitem", "remove", "discard", "clear", "appendleft", "extendleft",
                      "sort", "reverse"})
STATEFUL = ("Variable", "Generator", "SeedGenerator", "StaticHashTable", "MutableHashTable",
            "TensorArray", "Counter")
BUILTINS = frozenset(dir(builtins))
TRACING_METHODS = frozenset({"fit", "evaluate", "predict", "train_on_batch", "test_on_batch",
                             "predict_on_batch", "fit_generator", "run"})
# What `fit` runs at every step, between which Keras calls its callbacks' hooks
FIT_RUNS = frozenset({ContextKind.LOSS, ContextKind.METRIC, ContextKind.KERAS_CALL,
                      ContextKind.KERAS_STEP, ContextKind.CALLED})
# Other functions' mutations of module-level variables change what a graph function reads, and
# so do other objects' writes to the attributes it reads (`callback.layer.rate = 0.1`).
READS = Reads(mutations=MUTATORS, attribute_stores=True)


@dataclass(frozen=True)
class Change:
    node: ast.AST
    what: str  # "reassigned", "mutated by `x.append(...)`", ...
    attribute: str | None = None  # `config.lr = ...`: only reads of `config.lr` are stale


def check(module: ModuleContext) -> Iterator[Hit]:
    graph = list(module.graph.focused_functions())
    if not graph:
        return
    module_changes: _ModuleChanges | None = None  # made when a function reads a global
    for function, context in graph:
        declared = _declared_outer(function)
        seen: set[str] = set()
        changes_of: dict[str, list[Change]] = {}  # a name is read many times
        for node in function.nodes.of(ast.Name):
            if node.ctx.__class__ is not ast.Load:
                continue
            name = node.id
            if name in seen or name in function.local_names or name in declared:
                continue
            changes = changes_of.get(name)
            if changes is None:
                changes = _closure_changes(module, function, name)
                if changes is None and _never_bound(module, name):
                    changes = []  # an import, a builtin, a function: nothing changes it
                elif changes is None:
                    module_changes = module_changes or _ModuleChanges(module)
                    changes = module_changes.after(function, name)
                changes_of[name] = changes
            if not changes:
                continue
            attribute = _read_attribute(module, node)
            changes = [c for c in changes if c.attribute is None or c.attribute == attribute]
            if not changes:
                continue
            seen.add(name)
            shown = f"{name}.{attribute}" if changes[0].attribute else name
            yield _stale_hit(module, function, context, node, shown, changes)
        yield from _stale_attributes(module, function, context)
        yield from _callback_state(module, function, context)


def _stale_hit(module: ModuleContext, function: FunctionInfo, context: GraphContext,
               node: ast.AST, shown: str, changes: list[Change]) -> Hit:
    lines = ", ".join(str(getattr(c.node, "lineno", "?")) for c in changes[:3])
    return Hit(
        node,
        f"`{shown}` is read in {context_label(function, context)}, but it {changes[0].what} "
        f"at line {lines}",
        related=tuple(Related(module.path, module.span(c.node), f"`{shown}` {c.what} here")
                      for c in changes[:3]),
        detail="its value is captured when the function is traced, and later changes are "
        "ignored until a retrace",
        help="pass it as an argument (a tensor) or keep it in a `tf.Variable`",
    )


def _stale_attributes(module: ModuleContext, function: FunctionInfo,
                      context: GraphContext) -> Iterator[Hit]:
    """`self.rate` read in a method traced into a graph, set up as a Python value and changed
    after that by code outside the set-up (a Keras callback's `layer.rate = 0.1`, a setter):
    the graph keeps the value it was traced with."""
    cls = function.cls
    if cls is None:
        return
    stores = attribute_stores(module, cls)
    reported: set[str] = set()
    for node in function.nodes.of(ast.Attribute):
        name = self_attribute(node)
        if name is None or name in reported or node.ctx.__class__ is not ast.Load:
            continue
        own = stores.get(name, [])
        if not (own or _class_setting(cls, name)) or any(
                _stateful(module, store.value) or store.method is function for store in own):
            continue  # not set up here, a variable, or per-call scratch of the reader
        changes = [Change(statement, f"is set to a new value by `{module.source.segment(target)} "
                                     f"= ...` in `{writer.qualname}`")
                   for writer, statement, target in _outside_writes(module, cls, name)]
        if any(_set_up(module, cls, store.method) and _captured_value(module, store.value)
               for store in own):
            changes += [Change(store.statement, "is set to a new value by the setter "
                                                f"`{store.method.qualname}`")
                        for store in own if _setter(store.method)
                        and module.graph.in_graph(store.method) is None
                        and _called_after_set_up(module, cls, store.method)]
        changes += [Change(store.statement, f"is set to a new value in "
                                            f"`{store.method.qualname}`, which then calls "
                                            f"`{function.name}`")
                    for store in own if not _set_up(module, cls, store.method)
                    and not _setter(store.method) and module.graph.in_graph(store.method) is None
                    and _calls_in_same_loop(module, store.method, store.statement,
                                            function.name)]
        if changes:
            reported.add(name)
            changes.sort(key=lambda c: getattr(c.node, "lineno", 0))
            yield _stale_hit(module, function, context, node, f"self.{name}", changes)


def _callback_state(module: ModuleContext, function: FunctionInfo,
                    context: GraphContext) -> Iterator[Hit]:
    """`self.tracker.this_epoch` read in a loss (or what else `fit` traces) where a Keras
    callback of the module sets `self.this_epoch` in a hook (`on_epoch_begin`): `fit` runs the
    hook between steps that reuse the trace, which keeps the value it was traced with."""
    if context.kind not in FIT_RUNS:
        return
    hooks = _callback_hook_stores(module)
    if not hooks or not any(isinstance(call.func, ast.Attribute)
                            for call, _ in module.calls_named("fit")):
        return
    reported: set[str] = set()
    for node in function.nodes.of(ast.Attribute):
        if node.attr not in hooks or node.attr in reported or node.ctx.__class__ is not ast.Load:
            continue
        if self_attribute(node) is not None or not isinstance(node.value, ast.Name | ast.Attribute):
            continue  # the traced object's own attribute: `_stale_attributes`
        reported.add(node.attr)
        writer, statement = hooks[node.attr]
        yield _stale_hit(module, function, context, node, module.source.segment(node) or node.attr,
                         [Change(statement, f"is set by `{writer.qualname}`, a callback hook "
                                            "`fit` runs between the steps")])


CALLBACK_HOOK_STORES: Shared[dict[str, tuple[FunctionInfo, ast.stmt]]] = Shared(
    "callback hook stores")


def _callback_hook_stores(module: ModuleContext) -> dict[str, tuple[FunctionInfo, ast.stmt]]:
    """Attribute name -> the hook of a Keras callback of the module that sets `self.<name>`
    (`on_epoch_begin`...), and the statement."""
    def find() -> dict[str, tuple[FunctionInfo, ast.stmt]]:
        found: dict[str, tuple[FunctionInfo, ast.stmt]] = {}
        for cls in module.index.classes:
            if not is_callback(module, cls):
                continue
            for name, method in cls.methods.items():
                if not name.startswith("on_"):
                    continue
                for statement in method.nodes.of(ast.Assign, ast.AugAssign):
                    targets = (statement.targets if isinstance(statement, ast.Assign)
                               else [statement.target])
                    for target in targets:
                        attribute = self_attribute(target)
                        if attribute is not None:
                            found.setdefault(attribute, (method, statement))
        return found
    return module.shared(CALLBACK_HOOK_STORES, find)


def _class_setting(cls: ClassInfo, name: str) -> bool:
    """`apply_now = False` in the class body: a Python setting every instance starts with."""
    return any(isinstance(statement, ast.Assign) and _python_number(statement.value)
               and any(isinstance(t, ast.Name) and t.id == name for t in statement.targets)
               for statement in cls.node.body)


def _outside_writes(module: ModuleContext, cls: ClassInfo, name: str
                    ) -> Iterator[tuple[FunctionInfo, ast.AST, ast.Attribute]]:
    """`<layer>.name = <Python number>` in functions that are not methods of `cls`, on what
    is a Keras layer or model there: `self.model.get_layer("x").name`, `model.layers[2].name`,
    an object a Keras callback keeps (`self.layer.name`), a name bound to `Cls(...)`."""
    for writer, statement, target in _number_writes(module).get(name, ()):
        if writer.cls is not cls and _names_a_layer(module, writer, target.value, cls):
            yield writer, statement, target


NUMBER_WRITES: Shared[dict[str, list[tuple[FunctionInfo, ast.AST, ast.Attribute]]]] = Shared("number attribute writes")


def _number_writes(module: ModuleContext
                   ) -> dict[str, list[tuple[FunctionInfo, ast.AST, ast.Attribute]]]:
    """Every `<x>.<attribute> = <Python number>` in a function, by attribute: made once per
    module, as every traced method asks about each attribute it reads."""
    def table() -> dict[str, list[tuple[FunctionInfo, ast.AST, ast.Attribute]]]:
        writes: dict[str, list[tuple[FunctionInfo, ast.AST, ast.Attribute]]] = {}
        for writer in module.index.functions:
            for statement in writer.nodes.of(ast.Assign, ast.AugAssign):
                if not _python_number(statement.value):
                    continue
                targets = (statement.targets if isinstance(statement, ast.Assign)
                           else [statement.target])
                for target in targets:
                    if isinstance(target, ast.Attribute):
                        writes.setdefault(target.attr, []).append((writer, statement, target))
        return writes
    return module.shared(NUMBER_WRITES, table)


def _names_a_layer(module: ModuleContext, writer: FunctionInfo, receiver: ast.expr,
                   cls: ClassInfo) -> bool:
    if any(isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
           and node.func.attr == "get_layer" for node in ast.walk(receiver)):
        return True
    if any(isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute)
           and node.value.attr == "layers" for node in ast.walk(receiver)):
        return True
    if isinstance(receiver, ast.Attribute) and isinstance(receiver.value, ast.Name) and (
            receiver.value.id == "self") and writer.cls is not None:
        return is_callback(module, writer.cls)
    if isinstance(receiver, ast.Name):
        return _bound_to(module, writer, receiver.id, cls)
    return False


def _python_number(value: ast.AST | None) -> bool:
    """A Python number, bool or string, arithmetic on one or a comparison with one (`0.25`,
    `rate * 0.5`, `float(x)`, `step % 4 == 0`): a value the graph captures as a constant
    (layers and other objects put in an attribute are set-up, not a setting that changes)."""
    if isinstance(value, ast.Constant):
        return value.value is not None
    if isinstance(value, ast.UnaryOp):
        return _python_number(value.operand)
    if isinstance(value, ast.BinOp):
        return _python_number(value.left) or _python_number(value.right)
    if isinstance(value, ast.Compare):  # `(batch + 1) % 4 == 0`: a Python bool
        return any(_python_number(side) for side in (value.left, *value.comparators))
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and (
        value.func.id in ("float", "int", "bool", "round", "max", "min"))


def _captured_value(module: ModuleContext, value: ast.AST | None) -> bool:
    """A value a graph captures as it is (a Python number or a tensor: `tf.eye(3)`), not an
    object set up once whose own state the graph reads (a layer, a model, a retriever)."""
    return _python_number(value) or (isinstance(value, ast.Call)
                                     and tensor_op(module, value) is not None)


def _set_up(module: ModuleContext, cls: ClassInfo, method: FunctionInfo) -> bool:
    """`__init__`/`build`, or a setter `__init__` calls (`self.set_data(data)`)."""
    if method.name in SET_UP:
        return True
    init = cls.methods.get("__init__")
    return _setter(method) and init is not None and any(
        isinstance(call.func, ast.Attribute) and call.func.attr == method.name
        and isinstance(call.func.value, ast.Name) and call.func.value.id == "self"
        for call in init.calls)


def _called_after_set_up(module: ModuleContext, cls: ClassInfo, setter: FunctionInfo) -> bool:
    """The setter is called other than from the class's set-up (a setter only `__init__`
    calls sets the attribute up, it changes nothing after)."""
    if not _set_up(module, cls, setter) or setter.name in SET_UP:
        return True
    for call, scope in module.calls_named(setter.name):
        receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
        if isinstance(receiver, ast.Name) and receiver.id == "self":
            if scope is not None and scope.cls is cls and scope.name not in SET_UP:
                return True  # another method of the class sets it again
        elif isinstance(receiver, ast.Name) and _bound_to(module, scope, receiver.id, cls):
            return True
    return False


def _bound_to(module: ModuleContext, scope: FunctionInfo | None, name: str,
              cls: ClassInfo) -> bool:
    """`name = Cls(...)` in the scope or at module level."""
    scopes = [module.index.module_nodes] if scope is None else [scope.nodes,
                                                                 module.index.module_nodes]
    return any(isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name)
               and node.value.func.id == cls.name
               and any(isinstance(t, ast.Name) and t.id == name for t in node.targets)
               for nodes in scopes for node in nodes.of(ast.Assign))


def _calls_in_same_loop(module: ModuleContext, caller: FunctionInfo, store: ast.AST,
                        name: str) -> bool:
    """`self.name(...)` in a loop of `caller` that also runs `store` (a training loop that
    changes `self.weight` at every step and calls the traced step that reads it; set once
    before the loop, it is what the first trace sees)."""
    loops = enclosing_loops(module, store)
    return bool(loops) and any(
        isinstance(call.func, ast.Attribute) and call.func.attr == name
        and isinstance(call.func.value, ast.Name) and call.func.value.id == "self"
        and any(loop in enclosing_loops(module, call) for loop in loops)
        for call in caller.calls)


def _setter(method: FunctionInfo) -> bool:
    """A method whose job is to change an attribute after set-up: `set_rate(self, rate)`, or a
    property's setter (not Keras's `set_weights`, which assigns variables: what an override
    resets beside is bookkeeping of its own)."""
    return (method.name.startswith("set_") and method.name != "set_weights") or any(
        isinstance(d, ast.Attribute) and d.attr == "setter" for d in method.decorators)


DECLARED_GLOBAL: Shared[set[str]] = Shared("names declared global")


def _never_bound(module: ModuleContext, name: str) -> bool:
    """A name no module-level statement assigns and no function declares `global`:
    `_ModuleChanges.after` finds no change of it (asked without making its table)."""
    if name in module_stores(module):
        return False
    if not module.mentions("global"):
        return True
    declared = module.shared(DECLARED_GLOBAL, lambda: {
        name for function in module.index.functions
        for node in function.nodes.of(ast.Global) for name in node.names})
    return name not in declared


def _read_attribute(module: ModuleContext, name: ast.Name) -> str | None:
    parent = module.index.parent(name)
    return parent.attr if isinstance(parent, ast.Attribute) and parent.value is name else None


def _declared_outer(function: FunctionInfo) -> set[str]:
    return {name for node in function.nodes.of(ast.Global, ast.Nonlocal) for name in node.names}


# ---- what changes a name ----------------------------------------------------------------------

def _assigned_names(target: ast.AST) -> Iterator[ast.Name]:
    if isinstance(target, ast.Name):
        yield target
    elif isinstance(target, ast.Tuple | ast.List):
        for item in target.elts:
            yield from _assigned_names(item)
    elif isinstance(target, ast.Starred):
        yield from _assigned_names(target.value)


BINDINGS = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor, ast.NamedExpr,
            ast.With, ast.AsyncWith)


def _bindings(nodes: Iterable[ast.AST]) -> Iterator[tuple[str, ast.AST, str]]:
    """(name, statement, how) for every plain rebinding among a scope's `BINDINGS` nodes."""
    for node in nodes:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                for name in _assigned_names(target):
                    yield name.id, node, "assign"
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            for name in _assigned_names(node.target):
                yield name.id, node, "assign"
        elif isinstance(node, ast.AugAssign):
            for name in _assigned_names(node.target):
                yield name.id, node, "augment"
        elif isinstance(node, ast.For | ast.AsyncFor):
            for name in _assigned_names(node.target):
                yield name.id, node, "loop"
        elif isinstance(node, ast.NamedExpr):
            yield node.target.id, node, "assign"
        elif isinstance(node, ast.With | ast.AsyncWith):
            for item in node.items:
                if item.optional_vars is not None:
                    for name in _assigned_names(item.optional_vars):
                        yield name.id, node, "assign"


Mutation = tuple[str, ast.AST, ast.expr]  # (name, the call or statement, what it changes)


def _mutations_in(nodes: ScopeNodes, names: Container[str]) -> list[Mutation]:
    """The mutations of these names in a scope, in walk order."""
    calls = [m for m in _mutations(nodes.of(ast.Call)) if m[0] in names]
    stores = [m for m in _mutations(nodes.of(ast.Assign, ast.AugAssign, ast.Delete))
              if m[0] in names]
    if calls and stores:
        return sorted([*calls, *stores], key=lambda mutation: nodes.position(mutation[1]))
    return calls or stores


def _mutations(nodes: Iterable[ast.AST]) -> Iterator[Mutation]:
    """`x.append(...)`, `x[k] = v`, `del x[k]`, `x.attr = v` among calls and assignments
    (see `_change` for what each does: most are not reported, so not described)."""
    for node in nodes:
        if isinstance(node, ast.Call):
            func = node.func
            if (isinstance(func, ast.Attribute) and func.attr in MUTATORS
                    and isinstance(func.value, ast.Name)):
                yield func.value.id, node, func
            continue
        assert isinstance(node, ast.Assign | ast.AugAssign | ast.Delete)
        targets = node.targets if isinstance(node, ast.Assign | ast.Delete) else [node.target]
        for target in targets:
            # `x[k] = v`, `del x[k]`, `x.attr = v` (deleting an attribute changes no read)
            if isinstance(target, ast.Subscript | ast.Attribute) and isinstance(
                target.value, ast.Name
            ) and not (isinstance(target, ast.Attribute) and isinstance(node, ast.Delete)):
                yield target.value.id, node, target


def _change(module: ModuleContext, mutation: Mutation) -> Change | None:
    """What a mutation does, None when the graph sees the new value anyway (`f.step =
    tf.Variable(0)`: a variable, whose state the graph reads)."""
    _name, node, target = mutation
    if isinstance(target, ast.Attribute) and isinstance(node, ast.Assign) and _stateful(
            module, node.value):
        return None
    text = module.source.segment(target)
    if isinstance(node, ast.Call):
        return Change(node, f"is mutated by `{text}(...)`")
    if isinstance(target, ast.Subscript):
        return Change(node, f"is mutated by `del {text}`" if isinstance(node, ast.Delete)
                      else f"is mutated by `{text} = ...`")
    assert isinstance(target, ast.Attribute)
    return Change(node, f"is reassigned by `{text} = ...`", attribute=target.attr)


def _stateful(module: ModuleContext, value: ast.AST | None) -> bool:
    """A tf.Variable, a random generator, a lookup table...: the graph reads its state."""
    if not isinstance(value, ast.Call):
        return False
    qualname = module.qualname(value.func) or ""
    if qualname.startswith(("tensorflow.", "keras.")):
        return any(part in STATEFUL for part in qualname.split("."))
    return isinstance(value.func, ast.Attribute) and value.func.attr in ("add_weight",
                                                                          "Variable")


def _in_loop(module: ModuleContext, node: ast.AST, stop: ast.AST | None = None) -> ast.AST | None:
    parent = module.index.parent(node)
    while parent is not None and parent is not stop and not isinstance(
        parent, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
    ):
        if isinstance(parent, ast.For | ast.AsyncFor | ast.While):
            return parent
        parent = module.index.parent(parent)
    return None


def _in_class_body(module: ModuleContext, node: ast.AST) -> bool:
    parent = module.index.parent(node)
    while parent is not None and not isinstance(parent, ast.Module):
        if isinstance(parent, ast.ClassDef):
            return True
        parent = module.index.parent(parent)
    return False


def _anchor(function: FunctionInfo) -> ast.AST:
    """The module-level statement that defines `function` (its outermost def or class)."""
    outer = function
    while outer.outer is not None:
        outer = outer.outer
    return outer.cls.node if outer.cls is not None else outer.node


class _ModuleChanges:
    """Rebindings and mutations of module-level names, computed once per module."""

    def __init__(self, module: ModuleContext) -> None:
        self.module = module
        self._trace_cache: dict[FunctionInfo, _TraceCalls] = {}
        self._calls: tuple[dict[str, list[ast.Call]], list[ast.Call], _TraceCalls] | None = None
        self._contexts = dict(module.graph.functions())
        self._graph_names = {f.name for f in self._contexts if f.outer is None and f.cls is None}
        self.fixed: set[str] = set()  # imports, defs, classes, stateful objects, dunders
        self.assignments: dict[str, list[tuple[ast.AST, str]]] = {}
        module_nodes = module.index.module_nodes
        for node in module_nodes.of(ast.Import, ast.ImportFrom):
            for alias in node.names:
                self.fixed.add((alias.asname or alias.name).split(".", 1)[0])
        for definition in module_nodes.of(ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            if not _in_class_body(module, definition):
                self.fixed.add(definition.name)
        for name, statement, how in _bindings(
                n for n in module_nodes.of(*BINDINGS) if not _in_class_body(module, n)):
            self.assignments.setdefault(name, []).append((statement, how))
            value = getattr(statement, "value", None)
            if _stateful(module, value) or name.startswith("__"):
                self.fixed.add(name)
        # `global x` assignments in functions
        self.global_writes: dict[str, list[tuple[FunctionInfo, ast.AST]]] = {}
        declared_global: dict[FunctionInfo, set[str]] = {}
        for function in module.index.functions:
            declared = {n for node in function.nodes.of(ast.Global) for n in node.names}
            if not declared:
                continue
            declared_global[function] = declared
            for name, statement, _how in _bindings(function.nodes.of(*BINDINGS)):
                if name in declared:
                    self.global_writes.setdefault(name, []).append((function, statement))
                    if _stateful(module, getattr(statement, "value", None)):
                        self.fixed.add(name)
        # mutations anywhere outside the reader, of module variables (`after` asks about no
        # other names)
        variables = self.assignments.keys() | self.global_writes.keys()
        self.mutations: dict[str, list[tuple[FunctionInfo | None, Mutation]]] = {}
        if not variables:
            return
        for mutation in _mutations_in(module_nodes, variables):
            if not _in_class_body(module, mutation[1]):
                self.mutations.setdefault(mutation[0], []).append((None, mutation))
        registrars = _registrars(module)
        for function in module.index.functions:
            if _registers(function, registrars):
                continue  # a decorator filling a registry at import time
            declared = declared_global.get(function, set())
            for mutation in _mutations_in(function.nodes, variables):
                name = mutation[0]
                if name in declared or name not in function.local_names:
                    self.mutations.setdefault(name, []).append((function, mutation))

    @cached_property
    def _by_qualname(self) -> dict[str, GraphContext]:
        return {f.qualname: c for f, c in reversed(self._contexts.items())}

    @cached_property
    def _local_names(self) -> set[str]:
        return set(self.assignments) | set(self.module.index.module_functions())

    def _trace_calls(self, reader: FunctionInfo) -> _TraceCalls:
        if reader not in self._trace_cache:
            self._trace_cache[reader] = self._find_trace_calls(reader)
        return self._trace_cache[reader]

    def _module_calls(self) -> tuple[dict[str, list[ast.Call]], list[ast.Call], _TraceCalls]:
        """Module-level calls by the name they call, and those that may trace any reader
        (calls of this module's non-graph functions and variables, `model.fit(...)`): built
        once, so each reader only adds the calls of its own graph function's chain."""
        if self._calls is None:
            module = self.module
            by_name: dict[str, list[ast.Call]] = {}
            tracing: list[ast.Call] = []
            for node in module.index.module_nodes.of(ast.Call):
                if _in_class_body(module, node):
                    continue
                func = node.func
                if isinstance(func, ast.Name):
                    by_name.setdefault(func.id, []).append(node)
                elif isinstance(func, ast.Attribute) and func.attr in TRACING_METHODS:
                    tracing.append(node)
            # calls of module variables (`model(x)`: it may run anything); calls of module
            # functions count for the readers they mention (`main()` calling `train_step`)
            untraced = (self._graph_names | _registrars(module)
                        | set(module.index.module_functions()))
            tracing += [call for name in self._local_names - untraced
                        for call in by_name.get(name, ())]
            self._calls = by_name, tracing, _TraceCalls.of(module, tracing)
        return self._calls

    @cached_property
    def _mentioned_by(self) -> dict[str, set[str]]:
        """Name → the module's plain (non-graph) functions whose bodies, nested functions
        included, mention it."""
        found: dict[str, set[str]] = {}
        for name, function in self.module.index.module_functions().items():
            if name in self._graph_names:
                continue
            for scope in (function, *self.module.index.nested_in(function)):
                for node in scope.nodes.of(ast.Name):
                    found.setdefault(node.id, set()).add(name)
        return found

    def _find_trace_calls(self, reader: FunctionInfo) -> _TraceCalls:
        """Module-level calls that may run (and so trace) `reader`: calls of the graph function
        it belongs to, of this module's other functions and variables (`main()`, `model(x)`)
        and Keras's `fit`/`evaluate`/`predict`...; not calls of imports, builtins and unrelated
        graph functions."""
        module = self.module
        contexts = self._contexts
        chain = {reader.name, getattr(_anchor(reader), "name", "")}
        current = contexts.get(reader)
        seen: set[str] = set()
        while current is not None and current.kind is ContextKind.CALLED:
            caller = current.reason[len("called from `"):].split("`", 1)[0]
            if caller in seen:
                break
            seen.add(caller)
            chain.add(caller.split(".")[0])
            current = self._by_qualname.get(caller)
        by_name, tracing, shared = self._module_calls()
        own = (chain & self._graph_names & self._local_names) - _registrars(module)
        own |= {caller for name in chain for caller in self._mentioned_by.get(name, ())}
        anchor = _anchor(reader)
        start, end = self._bound(anchor)
        if shared.first_line < start:  # a call made before the function exists runs other code
            shared = _TraceCalls.of(module, [c for c in tracing if _line(c) > start])
        return shared.plus(module, [
            call for name in sorted(own) for call in by_name.get(name, ())
            if name != getattr(anchor, "name", None) or start < _line(call) < end])

    def _bound(self, anchor: ast.AST) -> tuple[int, float]:
        """The lines where the module-level name that `anchor` defines is bound to it: from
        its definition to the next one of the name (a notebook that defines `train_step` anew
        further down: the calls after that run the new function, not this one)."""
        name = getattr(anchor, "name", "")
        later = [_line(statement) for statement in self._definitions.get(name, ())
                 if _line(statement) > _line(anchor)]
        later += [_line(statement) for statement, _how in self.assignments.get(name, ())
                  if _line(statement) > _line(anchor)]
        return _line(anchor), min(later, default=float("inf"))

    @cached_property
    def _definitions(self) -> dict[str, list[ast.AST]]:
        """Module-level defs and classes by name, in order."""
        found: dict[str, list[ast.AST]] = {}
        for definition in self.module.index.module_nodes.of(
                ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            if not _in_class_body(self.module, definition):
                found.setdefault(definition.name, []).append(definition)
        return found

    def between_traces(self, reader: FunctionInfo, node: ast.AST) -> bool:
        """A module-level statement that can run after `reader` was traced *and* before it
        is called again (the trace reused, with the old value): a call of it before and a
        call after, or both in one loop."""
        calls = self._trace_calls(reader)
        if calls.first_line < _line(node) < calls.last_line:
            return True
        return any(calls.in_loop(loop) for loop in _loops(self.module, node))

    def writer_between_traces(self, reader: FunctionInfo, writer: FunctionInfo) -> bool:
        """A module-level call of `writer` (which changes the variable) between traces."""
        if writer.outer is not None or writer.cls is not None:
            return False  # a nested function or a method: no call of it to go by
        by_name, _tracing, _shared = self._module_calls()
        return any(self.between_traces(reader, call) for call in by_name.get(writer.name, ()))

    def between_own_calls(self, reader: FunctionInfo, writer: FunctionInfo,
                          statement: ast.AST) -> bool:
        """`writer` calls `reader` itself, and writes between two of those calls or in a loop
        with one (a `main()` whose training loop decays a global learning rate)."""
        names = {reader.name, getattr(_anchor(reader), "name", "")}
        calls = [call for call in writer.calls
                 if isinstance(call.func, ast.Name) and call.func.id in names]
        if not calls:
            return False
        lines = [_line(call) for call in calls]
        if min(lines) < _line(statement) < max(lines):
            return True
        return any(_inside(self.module, call, loop) for loop in _loops(self.module, statement)
                   for call in calls)

    def hook_during_fit(self, reader: FunctionInfo, writer: FunctionInfo) -> bool:
        """`writer` is a hook of a Keras callback (`on_epoch_begin`...), which `fit` calls
        between the steps that reuse the trace of `reader`: a loss, a metric, a Keras `call` or
        step, or what they call, in a module that calls `fit`."""
        if writer.cls is None or not writer.name.startswith("on_") or not is_callback(
                self.module, writer.cls):
            return False
        context = self._contexts.get(reader)
        return context is not None and context.kind in FIT_RUNS and self._calls_fit

    @cached_property
    def _calls_fit(self) -> bool:
        """Whether the module calls a `fit` method (asked once, not per variable and writer)."""
        return any(isinstance(call.func, ast.Attribute) for call, _ in self.module.calls_named("fit"))

    def after(self, reader: FunctionInfo, name: str) -> list[Change]:
        """How module-level `name` changes after `reader` is defined (empty: it doesn't)."""
        module = self.module
        if name in self.fixed or (name in BUILTINS and name not in self.assignments):
            return []
        assignments = self.assignments.get(name, [])
        if not assignments and name not in self.global_writes:
            return []  # not a module variable (a builtin, a star import...)
        anchor = _anchor(reader)
        defined_at = _line(anchor)
        changes: list[Change] = []
        for index, (statement, how) in enumerate(assignments):
            if _line(statement) < defined_at or not self.between_traces(reader, statement):
                continue
            loop = _in_loop(module, statement)
            earlier = [s for s, _ in assignments[:index] if not module.index.exclusive(s, statement)]
            if how in ("augment", "loop") or loop is not None or earlier:
                changes.append(Change(statement, "is reassigned" if how != "augment"
                                      else "is updated"))
        for writer, statement in self.global_writes.get(name, []):
            if writer is not reader and (self.writer_between_traces(reader, writer)
                                         or self.between_own_calls(reader, writer, statement)
                                         or self.hook_during_fit(reader, writer)):
                changes.append(Change(statement, f"is reassigned (`global {name}` in "
                                                 f"`{writer.qualname}`)"))
        for function, mutation in self.mutations.get(name, []):
            if function is reader:
                continue  # the reader's own writes are TFI006's
            node = mutation[1]
            if function is None:
                if _line(node) < defined_at or not self.between_traces(reader, node):
                    continue  # filled in before the function exists or is first called
            elif not self.writer_between_traces(reader, function):
                continue
            if (change := _change(module, mutation)) is not None:
                changes.append(change)
        return sorted(changes, key=lambda c: getattr(c.node, "lineno", 0))


def _closure_changes(module: ModuleContext, reader: FunctionInfo,
                     name: str) -> list[Change] | None:
    """Changes of a variable of an enclosing function (None: `name` is not one)."""
    scope = reader.outer
    while scope is not None and name not in scope.local_names:
        scope = scope.outer
    if scope is None:
        return None
    if module.graph.in_graph(scope) is not None:
        return []  # the enclosing function is traced too: its locals are per trace
    # the nested function (a direct child of `scope`) that contains the reader
    holder = reader
    while holder.outer is not scope and holder.outer is not None:
        holder = holder.outer
    holder_loop = _in_loop(module, holder.node)
    end = getattr(holder.node, "end_lineno", None) or _line(holder.node)
    # `f.history = []`, `f.step = tf.Variable(0)`: set-up of the function object, not a run
    uses = [use for use in _uses(module, scope, holder) if not isinstance(
        module.index.parent(use), ast.Attribute)]
    first_use = min((_line(u) for u in uses), default=None)
    use_loops = {id(loop) for u in uses for loop in _loops(module, u)}

    last_use = max((_line(u) for u in uses), default=None)

    def after_a_call(node: ast.AST) -> bool:
        """`node` can run after the graph function was first called (so after a trace)."""
        if _line(node) <= end:
            return False
        if first_use is not None and _line(node) > first_use:
            return True
        return any(id(loop) in use_loops for loop in _loops(module, node))

    def before_another_call(node: ast.AST) -> bool:
        """...and before it is called again, reusing that trace."""
        if last_use is not None and _line(node) < last_use:
            return True
        return any(id(loop) in use_loops for loop in _loops(module, node))

    changes: list[Change] = []
    bound_before = name in scope.parameter_names
    for bound, statement, how in _bindings(scope.nodes.of(*BINDINGS)):
        if bound != name:
            continue
        if holder_loop is not None and _inside(module, statement, holder_loop):
            continue  # the graph function is re-created with each iteration
        if not after_a_call(statement):
            bound_before = True
        elif not before_another_call(statement):
            continue  # never read again by a call of the same trace
        elif bound_before or how in ("augment", "loop") or _in_loop(module, statement):
            changes.append(Change(statement, "is reassigned" if how != "augment"
                                  else "is updated"))
        else:
            bound_before = True  # the first binding, after the definition: not a change
    for mutation in _mutations_in(scope.nodes, {name}):
        node = mutation[1]
        if after_a_call(node) and before_another_call(node) and not (
            holder_loop is not None and _inside(module, node, holder_loop)
        ) and (change := _change(module, mutation)) is not None:
            changes.append(change)
    for other in module.index.nested_in(scope):
        if other is reader or not any(
                after_a_call(use) and before_another_call(use) and _called(module, use)
                for use in _uses(module, scope, other if other.outer is scope else holder)):
            continue  # the writer does not run between two calls of the graph function
        if any(name in n.names for n in other.nodes.of(ast.Nonlocal)):
            for bound, statement, _how in _bindings(other.nodes.of(*BINDINGS)):
                if bound == name:
                    changes.append(Change(statement, f"is reassigned (`nonlocal {name}` in "
                                                     f"`{other.qualname}`)"))
        if name not in other.local_names:
            for mutation in _mutations_in(other.nodes, {name}):
                if not _nested_in(reader, other) and (
                        change := _change(module, mutation)) is not None:
                    changes.append(change)
    return sorted(changes, key=lambda c: getattr(c.node, "lineno", 0))


@dataclass(frozen=True)
class _TraceCalls:
    """Where the calls that may trace a function are: the first line, and the loops they
    sit in (a change in the same loop may follow a trace)."""

    first_line: float
    last_line: float
    loops: tuple[frozenset[int], ...]  # ids of loop nodes, a set per group of calls (shared)

    @staticmethod
    def of(module: ModuleContext, calls: list[ast.Call]) -> _TraceCalls:
        return _TraceCalls(
            min((_line(call) for call in calls), default=float("inf")),
            max((_line(call) for call in calls), default=float("-inf")),
            (frozenset(id(loop) for call in calls for loop in _loops(module, call)),))

    def plus(self, module: ModuleContext, calls: list[ast.Call]) -> _TraceCalls:
        if not calls:
            return self
        more = _TraceCalls.of(module, calls)
        return _TraceCalls(min(self.first_line, more.first_line),
                           max(self.last_line, more.last_line), self.loops + more.loops)

    def in_loop(self, loop: ast.AST) -> bool:
        return any(id(loop) in loops for loops in self.loops)


REGISTRARS: Shared[set[str]] = Shared("registrars")


def _registrars(module: ModuleContext) -> set[str]:
    """Names of module functions used as decorators (`@register`, `@register("name")`)."""
    return module.shared(REGISTRARS, lambda: _find_registrars(module))


def _find_registrars(module: ModuleContext) -> set[str]:
    names: set[str] = set()
    for function in module.index.functions:
        for decorator in function.decorators:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            if isinstance(target, ast.Name):
                names.add(target.id)
    for cls in module.index.classes:
        for decorator in cls.node.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            if isinstance(target, ast.Name):
                names.add(target.id)
    return names


def _registers(function: FunctionInfo, registrars: set[str]) -> bool:
    """`function` is a decorator used in this module, or nested in one."""
    current: FunctionInfo | None = function
    while current is not None:
        if current.cls is None and current.name in registrars:
            return True
        current = current.outer
    return False


def _uses(module: ModuleContext, scope: FunctionInfo, holder: FunctionInfo) -> list[ast.AST]:
    """Where `scope` uses the nested function `holder` (a call, `tf.function(holder)`, a
    `return`), directly or through a sibling function or a name that wraps it."""
    names = {holder.name}
    for _ in range(2):
        for other in module.index.nested_in(scope):
            if other.outer is scope and other is not holder and any(
                other.nodes.named(name) for name in list(names)
            ):
                names.add(other.name)
        for node in scope.nodes.of(ast.Assign):
            if _wraps(node.value, names):
                names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return [node for node in scope.nodes.of(ast.Name)
            if node.ctx.__class__ is ast.Load and node.id in names]


def _called(module: ModuleContext, use: ast.AST) -> bool:
    """`fn(...)`, `fn.get_concrete_function()`: the name is run there (not just stored)."""
    parent = module.index.parent(use)
    if isinstance(parent, ast.Attribute):
        use, parent = parent, module.index.parent(parent)
    return isinstance(parent, ast.Call) and parent.func is use


def _wraps(value: ast.AST, names: set[str]) -> bool:
    """`alias = fn`, `fn_xla = tf.function(fn, jit_compile=True)`: a new name for the function
    (not what running it returns: `out = fn(x)`, `strategy.run(fn, args=(x,))`)."""
    if isinstance(value, ast.Name):
        return value.id in names
    return (isinstance(value, ast.Call) and len(value.args) == 1
            and isinstance(value.args[0], ast.Name) and value.args[0].id in names
            and not any(k.arg in ("args", "kwargs", None) for k in value.keywords))


def _loops(module: ModuleContext, node: ast.AST) -> list[ast.AST]:
    found: list[ast.AST] = []
    parent = module.index.parent(node)
    while parent is not None and not isinstance(
        parent, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
    ):
        if isinstance(parent, ast.For | ast.AsyncFor | ast.While):
            found.append(parent)
        parent = module.index.parent(parent)
    return found


def _line(node: ast.AST) -> int:
    return int(getattr(node, "lineno", 0))


def _nested_in(function: FunctionInfo, scope: FunctionInfo) -> bool:
    outer = function.outer
    while outer is not None:
        if outer is scope:
            return True
        outer = outer.outer
    return False


def _inside(module: ModuleContext, node: ast.AST, ancestor: ast.AST) -> bool:
    """`node` sits in `ancestor` (not `ancestor` itself)."""
    return node is not ancestor and module.index.inside(node, ancestor)
