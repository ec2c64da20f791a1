"""Shared by the retracing rules (TFI004, TFI005, TFI008, TFI014, TFI016, TFI018, TFI019):
which names are `tf.function`s and with what options, which `tf.function` a call calls, the
Python loops around a node, and whether an expression is a Python number that changes from one
iteration to the next.

A name is a tf.function when it is
- a `def` decorated with `tf.function` (any alias, with or without arguments, or a decorator
  built on it), called by its name or, for a method, as `self.name(...)`;
- bound to `tf.function(g, ...)` or `tf.function(...)(g)`: `step = tf.function(g)` in the same
  or an enclosing scope, or `self.step = tf.function(...)` in any method of the class.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

from tf_insight.check.context import ModuleContext, is_library
from tf_insight.check.graph_model import ContextKind
from tf_insight.check.index import MANY_BINDINGS, ClassInfo, FunctionInfo, code_children
from tf_insight.check.shared import Shared

Scope = FunctionInfo | None  # None: the module
NumberKind = Literal["int", "float"]
# attribute names that hold counts and sizes (`self.batch_size`, `config.num_steps`)
COUNT_LIKE = re.compile(
    r"(^|_)(num|n|size|count|steps?|len|length|dim|epochs?|batch_size|offset|stride|rate|lr|"
    r"scale|factor|total|index|idx)($|_)", re.I)
LOOP_NODES = (ast.For, ast.AsyncFor, ast.While)
COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
# TensorFlow warns about retracing from the 5th trace in the last 5 calls on: a loop over fewer
# values (`for k in range(3)`, `for flag in [True, False]`) makes a handful of variants, often
# deliberately
FEW_VALUES = 5
# what waits longer than a `predict`'s set-up: a recording, the clock, a figure's rendering
PACING = frozenset({"sounddevice.rec", "sounddevice.wait", "sounddevice.playrec", "time.sleep",
                    "matplotlib.pyplot.pause", "matplotlib.pyplot.savefig"})


@dataclass(frozen=True, eq=False)
class TfFunction:
    """A callable name that is a `tf.function`."""

    name: str  # as written at call sites: `step` or `self.step`
    info: FunctionInfo | None  # the traced Python function, when it is in this module
    origin: ast.expr  # the decorator, or the `tf.function(...)` call (this module's nodes)
    input_signature: bool
    reduce_retracing: bool
    autograph: bool
    defined_in: str | None = None  # the other module's path, for an imported tf.function

    @property
    def label(self) -> str:
        """The function's qualified name, or the name it is bound to when that differs
        (`fib = tf.function(_fib)` → `fib`)."""
        if self.info is None or self.name.rsplit(".", 1)[-1] != self.info.name:
            return self.name
        return self.info.qualname


def _is_tf_function_call(module: ModuleContext, call: ast.Call) -> bool:
    """`tf.function(g, ...)` or `tf.function(...)(g)`: a call whose first argument is `g`."""
    if not call.args:
        return False
    func = call.func.func if isinstance(call.func, ast.Call) else call.func
    return module.is_tf_function(func)


TF_FUNCTION_CALLS: Shared[list[tuple[ast.Call, Scope]]] = Shared("tf.function calls")


def tf_function_calls(module: ModuleContext) -> list[tuple[ast.Call, Scope]]:
    """Every `tf.function(g, ...)` and `tf.function(...)(g)` call of the module, with the
    scope it is in; found once per module for the rules that look for them."""

    def find() -> list[tuple[ast.Call, Scope]]:
        return [(call, scope) for call, scope in module.calls_named("function")
                if _is_tf_function_call(module, call)]

    return module.shared(TF_FUNCTION_CALLS, find)


class TfFunctions:
    """Every tf.function of a module, and which one a call calls."""

    def __init__(self, module: ModuleContext) -> None:
        self.module = module
        # (scope, name) → TfFunction for plain names; (class, attribute) for `self.x`
        self.names: dict[tuple[FunctionInfo | None, str], TfFunction] = {}
        self.attributes: dict[tuple[ClassInfo, str], TfFunction] = {}
        self._imported: dict[str, TfFunction | None] = {}
        self._instances: dict[tuple[str, FunctionInfo | None], ClassInfo | None] = {}
        self._collect()
        self._attribute_names = {name for _, name in self.attributes}

    def _collect(self) -> None:
        module = self.module
        for function in module.index.functions:
            if isinstance(function.node, ast.Lambda):
                continue
            for decorator in function.decorators:
                if not self.is_tf_function_decorator(function, decorator):
                    continue
                signature, relaxed, autograph = module.graph.tf_function_options(decorator)
                if function.cls is not None:
                    self.attributes[(function.cls, function.name)] = TfFunction(
                        f"self.{function.name}", function, decorator, signature, relaxed,
                        autograph)
                else:
                    self.names[(function.outer, function.name)] = TfFunction(
                        function.name, function, decorator, signature, relaxed, autograph)
                break
        by_scope: dict[Scope, list[ast.Call]] = {}
        for call, scope in tf_function_calls(module):
            by_scope.setdefault(scope, []).append(call)
        for scope in [None, *module.index.functions]:
            for call in by_scope.get(scope, ()):
                node = module.index.parent(call)  # `step = tf.function(g)`
                if not (isinstance(node, ast.Assign) and node.value is call
                        and len(node.targets) == 1):
                    continue
                target = node.targets[0]
                signature, relaxed, autograph = module.graph.tf_function_options(call)
                info = module.function_named(call.args[0], scope)
                if isinstance(target, ast.Name):
                    if isinstance(module.index.parent(node), ast.ClassDef):
                        continue
                    self.names[(scope, target.id)] = TfFunction(
                        target.id, info, call, signature, relaxed, autograph)
                elif (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                      and target.value.id == "self" and scope is not None):
                    cls = module.enclosing_class(scope)
                    if cls is not None:
                        self.attributes.setdefault((cls, target.attr), TfFunction(
                            f"self.{target.attr}", info, call, signature, relaxed, autograph))

    def is_tf_function_decorator(self, function: FunctionInfo, decorator: ast.expr) -> bool:
        """Whether a decorator makes a tf.function: `tf.function` itself (import map), or what
        the graph model found for the function (it already resolved decorators defined
        elsewhere; asking `decorator_effects` again would repeat those jedi look-ups)."""
        module = self.module
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if module.is_tf_function(target):
            return True
        context = module.graph.in_graph(function)
        return (context is not None and context.kind is ContextKind.TF_FUNCTION
                and context.origin == module.span(decorator))

    def __iter__(self) -> Iterator[TfFunction]:
        yield from self.names.values()
        yield from self.attributes.values()

    def __bool__(self) -> bool:
        """Whether any call can resolve to a tf.function (here, or imported from elsewhere)."""
        return bool(self.names or self.attributes or self._importable())

    def _importable(self) -> bool:
        imports = self.module.imports
        return bool(imports.relative) or not all(map(is_library, imports.aliases.values()))

    def resolve(self, func: ast.AST, scope: Scope, imported: bool = False) -> TfFunction | None:
        """The tf.function an expression (the `func` of a call) names, if any; with `imported`,
        also a tf.function defined in another module (resolved with jedi, so callers should
        ask only about calls they would report)."""
        if isinstance(func, ast.Name):
            current = scope
            while current is not None:
                if func.id in current.local_names:
                    return self.names.get((current, func.id)) or self._instance_call(
                        func.id, current)
                current = current.outer
            found = self.names.get((None, func.id)) or self._instance_call(func.id, None)
            if found is None and imported:
                found = self._from_import(func)
            return found
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and (
                func.attr in self._attribute_names):
            if func.value.id == "self":
                cls = self.module.enclosing_class(scope) if scope is not None else None
            else:
                cls = self.instance_class(func.value.id, scope)
            return self._method(cls, func.attr)
        return None

    def _instance_call(self, name: str, scope: Scope) -> TfFunction | None:
        """`scorer(x)` where `scorer = Scorer()` and `Scorer.__call__` is a tf.function."""
        if "__call__" not in self._attribute_names:
            return None
        return self._method(self.instance_class(name, scope), "__call__")

    def _method(self, cls: ClassInfo | None, name: str) -> TfFunction | None:
        """The tf.function `name` of `cls` or of the module classes it derives from."""
        seen: set[str] = set()
        classes = self.module.index.module_classes()
        while cls is not None and cls.name not in seen:
            seen.add(cls.name)
            found = self.attributes.get((cls, name))
            if found is not None:
                return found
            if name in cls.methods:
                return None
            bases = [b.id for b in cls.node.bases if isinstance(b, ast.Name)]
            cls = classes.get(bases[0]) if bases else None
        return None

    def instance_class(self, name: str, scope: Scope) -> ClassInfo | None:
        """The module class `name` is an instance of where it is read: `trainer = Trainer()` in
        the scope that binds the name (or at module level), when that is its only binding."""
        while scope is not None and name not in scope.local_names:
            scope = scope.outer
        key = (name, scope)
        if key not in self._instances:
            nodes = scope.nodes if scope is not None else self.module.index.module_nodes
            stores = [node for node in nodes.named(name) if isinstance(node.ctx, ast.Store)]
            made = _instances(self.module, scope).get(name, set())
            self._instances[key] = (self.module.index.module_classes().get(next(iter(made)))
                                    if len(stores) == 1 and len(made) == 1 else None)
        return self._instances[key]

    def importable(self, func: ast.AST) -> bool:
        """Whether a callee is a name imported from a module that may define tf.functions:
        one that `resolve(..., imported=True)` looks up there."""
        return isinstance(func, ast.Name) and self.module.is_imported(func)

    def _from_import(self, func: ast.Name) -> TfFunction | None:
        """`from train_lib import train_step` where train_lib defines a tf.function."""
        if func.id in self._imported:
            return self._imported[func.id]
        self._imported[func.id] = None
        module = self.module
        if not self.importable(func):
            return None
        if func.id in {n.id for n in module.index.module_nodes.of(ast.Name)
                       if n.ctx.__class__ is ast.Store}:
            return None  # rebound in this module
        definition = module.project.external_definition_path(module, func)
        if definition is None or definition.path == module.path:
            return None
        other = module.project.load_module(definition.path)
        if other is None:
            return None
        name = (definition.full_name or func.id).rsplit(".", 1)[-1]
        found = tf_functions(other).names.get((None, name))
        if found is not None:
            self._imported[func.id] = TfFunction(
                func.id, None, func, found.input_signature, found.reduce_retracing,
                found.autograph, defined_in=definition.path)
        return self._imported[func.id]


TF_FUNCTIONS: Shared[TfFunctions] = Shared("tf.functions")


def tf_functions(module: ModuleContext) -> TfFunctions:
    """The module's tf.functions, found once for the rules that share them."""
    return module.shared(TF_FUNCTIONS, lambda: TfFunctions(module))


# ---- scopes and loops ------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Loop:
    """A Python loop around a node, in the same function: `for`, `while` or a comprehension."""

    node: ast.AST  # For/AsyncFor/While, or the comprehension expression
    target: ast.expr | None  # the loop target (None for while)
    iter: ast.expr | None

    @cached_property
    def targets(self) -> set[str]:
        """The names the loop's target binds (`x`, `y` in `for x, y in pairs`)."""
        if self.target is None:
            return set()
        return {n.id for n in ast.walk(self.target) if isinstance(n, ast.Name)}

    @cached_property
    def body_nodes(self) -> list[ast.AST]:
        """The nodes of the body of a `for` or `while`, in its own scope (none for a
        comprehension)."""
        if not isinstance(self.node, LOOP_NODES):
            return []
        return [node for statement in self.node.body for node in walk_scope(statement)]

    @cached_property
    def bound(self) -> set[str]:
        """Names that change from one iteration to the next: the target and names assigned in
        the body."""
        return self.targets | {node.id for node in self.body_nodes
                               if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}

    @cached_property
    def from_item(self) -> set[str]:
        """The target's names and the names the body computes from them (`meta =
        load(todo)`, `path = meta["file"]`): what differs with each item."""
        return derived_from(self.body_nodes, self.targets)

    def header(self, module: ModuleContext) -> str:
        if isinstance(self.node, ast.For | ast.AsyncFor):
            return (f"for {module.source.segment(self.node.target)} in "
                    f"{module.source.segment(self.node.iter)}")
        if isinstance(self.node, ast.While):
            return f"while {module.source.segment(self.node.test)}"
        if self.target is not None and self.iter is not None:
            return (f"for {module.source.segment(self.target)} in "
                    f"{module.source.segment(self.iter)}")
        return "loop"


def derived_from(nodes: list[ast.AST], names: set[str]) -> set[str]:
    """`names` and the names the assignments among `nodes` compute from them, through any
    number of steps (in whatever order they are written: a loop body runs again)."""
    assigns = [node for node in nodes if isinstance(node, ast.Assign)]
    found = set(names)
    while True:
        more = {target.id for assign in assigns
                if any(isinstance(n, ast.Name) and n.id in found for n in ast.walk(assign.value))
                for node in assign.targets for target in ast.walk(node)
                if isinstance(target, ast.Name)} - found
        if not more:
            return found
        found |= more


def walk_scope(node: ast.AST) -> Iterator[ast.AST]:
    """ast.walk without descending into nested functions, lambdas and classes (nor into
    expression contexts and operators)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        for child in code_children(current):
            if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
                              | ast.ClassDef):
                stack.append(child)


def reached_functions(module: ModuleContext, start: FunctionInfo, depth: int = 3
                      ) -> list[FunctionInfo]:
    """`start` and the module's functions it calls, up to `depth` calls deep."""
    reached = [start]
    frontier = [start]
    for _ in range(depth):
        following: list[FunctionInfo] = []
        for function in frontier:
            for call in function.calls:
                callee = module.function_named(call.func, function)
                if callee is not None and callee not in reached:
                    reached.append(callee)
                    following.append(callee)
        frontier = following
    return reached


CALLS_IN_LOOPS: Shared[list[tuple[ast.Call, Scope, list[Loop]]]] = Shared("calls in loops")


def calls_in_loops(module: ModuleContext) -> list[tuple[ast.Call, Scope, list[Loop]]]:
    """Calls made inside loops by code that runs eagerly (graph code runs once per trace, not
    per step, so its loops don't repeat calls at run time), with their loops, in the focused
    statements; computed once per module and focus for the rules that share it."""

    def find() -> list[tuple[ast.Call, Scope, list[Loop]]]:
        found = []
        has_loops: dict[Scope, bool] = {}
        for call, scope in module.focused_calls():
            if scope not in has_loops:
                nodes = scope.nodes if scope is not None else module.index.module_nodes
                has_loops[scope] = nodes.has(*LOOP_NODES, *COMPREHENSIONS)
            if has_loops[scope] and module.graph.in_graph(scope) is None:
                loops = enclosing_loops(module, call)
                if loops:
                    found.append((call, scope, loops))
        return found

    return module.shared(CALLS_IN_LOOPS, find, module.focus)


LOOP_CALLS: Shared[dict[FunctionInfo, tuple[ast.AST, str]]] = Shared("functions called in loops")


def called_in_loop(module: ModuleContext, function: FunctionInfo) -> tuple[ast.AST, str] | None:
    """A call of `function` on every iteration of a loop that repeats per step (not
    `bounded_loop`), anywhere in the module, with what to say about it: `called in `for ...``."""
    return module.shared(LOOP_CALLS, lambda: _loop_calls(module)).get(function)


def _loop_calls(module: ModuleContext) -> dict[FunctionInfo, tuple[ast.AST, str]]:
    """The first call in a per-step loop of each function of the module (one pass over the
    calls: asking per function would be quadratic in a large file)."""
    found: dict[FunctionInfo, tuple[ast.AST, str]] = {}
    scopes: list[tuple[Scope, list[ast.Call]]] = [
        (None, module.index.module_nodes.of(ast.Call)),
        *((info, info.calls) for info in module.index.functions),
    ]
    for scope, calls in scopes:
        for node in calls:
            loops = enclosing_loops(module, node)
            if not loops or bounded_loop(module, loops[0]):
                continue
            for callee in _callees(module, node, scope):
                found.setdefault(callee, (node, f"called in `{loops[0].header(module)}`"))
    return found


def _callees(module: ModuleContext, call: ast.Call, scope: Scope) -> list[FunctionInfo]:
    """The functions of the module a call may run: the one it names, `self.run(...)` in a
    method of the class, `model.run(...)` with `model = Cls(...)` in the scope or the module."""
    named = module.function_named(call.func, scope)
    found = [named] if named is not None else []
    func = call.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        receiver = func.value.id
        classes = module.index.module_classes()
        if receiver == "self":
            owners = [scope.cls] if scope is not None and scope.cls is not None else []
        else:
            made = {*_instances(module, scope).get(receiver, ()),
                    *_instances(module, None).get(receiver, ())}
            owners = [classes[name] for name in made if name in classes]
        found += [method for owner in owners
                  if (method := owner.methods.get(func.attr)) is not None and method is not named]
    return found


INSTANCES: Shared[dict[str, set[str]]] = Shared("instances")


def _instances(module: ModuleContext, scope: Scope) -> dict[str, set[str]]:
    """`name = Cls(...)` in a scope's own statements: name -> the class names."""
    def table() -> dict[str, set[str]]:
        nodes = scope.nodes if scope is not None else module.index.module_nodes
        made: dict[str, set[str]] = {}
        for node in nodes.of(ast.Assign):
            if isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        made.setdefault(target.id, set()).add(node.value.func.id)
        return made
    return module.shared(INSTANCES, table, scope)


def bounded_loop(module: ModuleContext, loop: Loop) -> bool:
    """A loop that does not repeat per step: over the object's own structure
    (`for i in range(self.num_heads)`, `for layer in self.layers`: in library code it usually
    runs while an outer function is traced, so once per trace), or over a short literal
    (`for flag in [True, False]`: a fixed handful of iterations, as if written out), also one a
    module constant holds (`for name, load in DATASETS.items()`, `DATASETS = {...}`)."""
    literal = _short_literal(module, loop.iter) if loop.iter is not None else None
    if literal is not None:
        return literal
    return loop.iter is not None and any(
        isinstance(n, ast.Name) and n.id in ("self", "cls") for n in ast.walk(loop.iter))


def _short_literal(module: ModuleContext, iterable: ast.expr) -> bool | None:
    """Whether a literal collection (also through `.items()`/`.keys()`/`.values()` and a
    module-level name bound to one, once) has fewer than `FEW_VALUES` items; None when the
    iterable is not such a literal."""
    iterable = literal_behind(module, iterable)
    if isinstance(iterable, ast.Dict):
        return len(iterable.keys) < FEW_VALUES and None not in iterable.keys
    if isinstance(iterable, ast.List | ast.Tuple | ast.Set):
        return len(iterable.elts) < FEW_VALUES and not any(
            isinstance(e, ast.Starred) for e in iterable.elts)
    return None


def waits_each_step(module: ModuleContext, call: ast.Call, loop: Loop) -> bool:
    """The innermost block of the loop's body around `call` also asks the user
    (`input(...)`), or an `if` around it tests what the user typed (`command = input()`, then
    `if command == "predict":`, a menu): an interactive loop, which waits for a person at every
    step; or a statement of that block does slower work every step (`_paces`)."""
    block = loop.node.body if isinstance(loop.node, ast.For | ast.AsyncFor | ast.While) else []
    typed = derived_from(loop.body_nodes, {
        target.id for assign in loop.body_nodes if isinstance(assign, ast.Assign)
        and _asks_user(assign.value) for target in assign.targets if isinstance(target, ast.Name)})
    while True:
        around = next((s for s in block if any(n is call for n in ast.walk(s))), None)
        if around is None:
            return False
        if isinstance(around, ast.If) and any(
                isinstance(n, ast.Name) and n.id in typed for n in ast.walk(around.test)):
            return True
        inner = [part for field in ("body", "orelse", "finalbody")
                 if isinstance(part := getattr(around, field, None), list)
                 and any(n is call for s in part for n in ast.walk(s))]
        if not inner:
            return any(_asks_user(s) or _paces(module, s) for s in block)
        block = inner[0]


def _asks_user(node: ast.AST) -> bool:
    """`input(...)`, also in an expression (`input("> ").strip().lower()`)."""
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "input"
               for n in ast.walk(node))


def _paces(module: ModuleContext, statement: ast.stmt) -> bool:
    """A simple statement (not one under an `if` of its own: that may run now and then) that
    waits for a device or the clock, or renders a figure to a file (`sd.rec(...)`,
    `sd.wait()`, `time.sleep(1)`, `plt.savefig(path)`, `fig.savefig(path)`): each takes longer
    than a `predict`'s set-up or a model's loading."""
    if not isinstance(statement, ast.Expr | ast.Assign | ast.AnnAssign):
        return False
    return any(isinstance(n, ast.Call) and (
        module.qualname(n.func) in PACING
        or (isinstance(n.func, ast.Attribute) and n.func.attr == "savefig"))
        for n in ast.walk(statement))


def literal_behind(module: ModuleContext, iterable: ast.expr) -> ast.expr:
    """What a loop iterates over, seen through `.items()`/`.keys()`/`.values()` and a
    module-level name bound once (`for name, load in DATASETS.items()`: the dict literal)."""
    if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Attribute) and (
            iterable.func.attr in ("items", "keys", "values") and not iterable.args):
        iterable = iterable.func.value
    if isinstance(iterable, ast.Name):
        bound = module.index.module_nodes.assignments_to(iterable.id)
        if len(bound) == 1 and bound[0].value is not None:
            iterable = bound[0].value
    return iterable


ENCLOSING_LOOPS: Shared[dict[ast.AST, list[Loop]]] = Shared("enclosing loops")


def enclosing_loops(module: ModuleContext, node: ast.AST) -> list[Loop]:
    """Loops of the same function whose every iteration runs `node`, innermost first (a
    shared list). The nodes on the way up share their answers: each is worked out once."""
    known = module.shared(ENCLOSING_LOOPS, dict)
    path: list[tuple[ast.AST, list[Loop], ast.AST]] = []  # (node, its own loops, next up)
    child = node
    while child not in known:
        parent = module.index.parent(child)
        if parent is None or isinstance(
            parent, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef
        ):
            known[child] = []
            break
        own: list[Loop] = []
        above = parent
        if isinstance(parent, ast.For | ast.AsyncFor) and child in parent.body:
            own.append(_loop(module, parent, parent.target, parent.iter))
        elif isinstance(parent, ast.While) and child in parent.body:
            own.append(_loop(module, parent, None, None))
        elif isinstance(parent, COMPREHENSIONS) and not isinstance(child, ast.comprehension):
            for generator in reversed(parent.generators):
                own.append(_loop(module, parent, generator.target, generator.iter))
        elif isinstance(parent, ast.comprehension) and child is not parent.iter:
            outer = module.index.parent(parent)
            if isinstance(outer, COMPREHENSIONS):
                position = outer.generators.index(parent)
                for generator in reversed(outer.generators[: position + 1]):
                    own.append(_loop(module, outer, generator.target, generator.iter))
                above = outer  # its own generators are counted: go on from its parent
        path.append((child, own, above))
        child = above
    for child, own, above in reversed(path):
        known[child] = own + known[above]
    return known[node]


LOOPS: Shared[dict[tuple[ast.AST, ast.AST | None], Loop]] = Shared("loops")


def _loop(module: ModuleContext, node: ast.AST, target: ast.expr | None,
          iterable: ast.expr | None) -> Loop:
    """One Loop per loop (and generator) of the module: what it binds is found once."""
    made = module.shared(LOOPS, dict)
    key = (node, target)
    if key not in made:
        made[key] = Loop(node, target, iterable)
    return made[key]


def range_count(module: ModuleContext, node: ast.AST | None, local: set[str]) -> int | None:
    """The number of iterations of `range(...)` with constant bounds, else None."""
    if not is_range(module, node):
        return None
    assert isinstance(node, ast.Call)
    if node.keywords or not 1 <= len(node.args) <= 3:
        return None
    values = [constant_int(module, a, local) for a in node.args]
    if any(v is None for v in values) or (values[-1] == 0 and len(values) == 3):
        return None
    bounds = range(*[v for v in values if v is not None])
    try:
        return len(bounds)
    except OverflowError:  # more than sys.maxsize iterations
        return sys.maxsize


def is_range(module: ModuleContext, node: ast.AST | None) -> bool:
    """A call of Python's `range` (not shadowed by an import)."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "range" and module.qualname(node.func) is None)


def _int_loop_target(module: ModuleContext, loop: Loop, name: str) -> bool:
    """`name` is an int counter of the loop: `for i in range(..)`, `for i, x in enumerate(..)`,
    `for i in reversed(range(..))`."""
    target, source = loop.target, loop.iter
    if target is None or source is None:
        return False
    if isinstance(source, ast.Call) and isinstance(source.func, ast.Name) \
            and source.func.id == "reversed" and source.args:
        source = source.args[0]
    if is_range(module, source):
        return isinstance(target, ast.Name) and target.id == name
    if (isinstance(source, ast.Call) and isinstance(source.func, ast.Name)
            and source.func.id == "enumerate" and module.qualname(source.func) is None
            and isinstance(target, ast.Tuple) and target.elts):
        first = target.elts[0]
        return isinstance(first, ast.Name) and first.id == name
    return False


def python_bool_parameter(module: ModuleContext, function: FunctionInfo, parameter: str) -> bool:
    """Every call of the tf.function `function` in the module gives `parameter` a Python bool:
    `True`/`False`, or a loop counter compared with a number (`step(x, i == 0)` in `for i in
    range(n)`), so that an `if parameter:` in it is Python's, chosen per trace."""
    functions = tf_functions(module)
    given = [argument for call, scope in module.calls_named(function.name)
             if (found := functions.resolve(call.func, scope)) is not None
             and found.info is function
             for argument, name in call_arguments(call, function) if name == parameter]
    return bool(given) and all(_python_bool(module, argument) for argument in given)


def _python_bool(module: ModuleContext, node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, bool)
    if not (isinstance(node, ast.Compare) and isinstance(node.left, ast.Name)
            and all(isinstance(c, ast.Constant) and isinstance(c.value, int)
                    for c in node.comparators)):
        return False
    name = node.left.id
    return any(_int_loop_target(module, loop, name) for loop in enclosing_loops(module, node))


def _self_update(assignment: ast.AST, name: str) -> ast.expr | None:
    """The step of an update of `name` by a constant that changes it on every run: `step += 1`,
    `lr *= 0.9`, `weight = weight * 1.5` (not `x *= 1`), also clamped (`eps = max(0.05,
    eps * 0.95)`: new values until it reaches the bound)."""
    value = _unclamped(assignment.value) if isinstance(assignment, ast.Assign) else None
    if isinstance(assignment, ast.AugAssign):
        op, step = assignment.op, assignment.value
    elif isinstance(value, ast.BinOp) and isinstance(value.left, ast.Name) \
            and value.left.id == name:
        op, step = value.op, value.right
    else:
        return None
    if isinstance(op, ast.Add | ast.Sub):
        return step
    if isinstance(op, ast.Mult | ast.Div) and not (
            isinstance(step, ast.Constant) and step.value in (0, 1)):
        return step
    return None


def _unclamped(value: ast.expr) -> ast.expr:
    """`x * 0.95` of `max(0.05, x * 0.95)` / `min(x * 1.1, 10)`; any other value as it is."""
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) \
            and value.func.id in ("max", "min") and len(value.args) == 2 and not value.keywords:
        first, second = value.args
        if _is_number_constant(first):
            return second
        if _is_number_constant(second):
            return first
    return value


def _is_number_constant(node: ast.AST) -> bool:
    return (isinstance(node, ast.Constant) and isinstance(node.value, int | float)
            and not isinstance(node.value, bool))


@dataclass(frozen=True)
class VaryingNumber:
    kind: NumberKind | None  # None: a number, type unknown
    why: str  # "`i` (the loop variable of `for i in range(100)`)", "`len(batch)`", ...
    loop: Loop


class NumberAnalysis:
    """Is an expression a Python number that takes a new value on each iteration of a loop
    around it (in the same function)?"""

    def __init__(self, module: ModuleContext, scope: Scope, loops: list[Loop]) -> None:
        self.module = module
        self.scope = scope
        self.loops = loops
        self.nodes = scope.nodes if scope is not None else module.index.module_nodes

    def varying(self, node: ast.AST, depth: int = 0) -> VaryingNumber | None:
        if depth > 4 or not self.loops:
            return None
        if isinstance(node, ast.Name):
            return self._varying_name(node.id, depth)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and self.module.qualname(node.func) is None:
            function = node.func.id
            if function == "len" and len(node.args) == 1:
                loop = self._loop_changing(node.args[0])
                if loop is not None:
                    return VaryingNumber("int", f"`{self._text(node)}`", loop)
            if function in ("int", "round", "float") and len(node.args) == 1:
                inner = self.varying(node.args[0], depth + 1)
                if inner is not None:
                    return VaryingNumber("float" if function == "float" else "int",
                                         f"`{self._text(node)}`", inner.loop)
            return None
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
            return self.varying(node.operand, depth + 1)
        if isinstance(node, ast.BinOp) and isinstance(
            node.op, ast.Add | ast.Sub | ast.Mult | ast.Div | ast.FloorDiv | ast.Mod | ast.Pow
        ):
            left = self.varying(node.left, depth + 1)
            right = self.varying(node.right, depth + 1)
            found = left or right
            if found is None:
                return None
            other = node.right if found is left else node.left
            if (left is None or right is None) and not self._plain_number(other):
                return None
            kinds = {v.kind for v in (left, right) if v is not None}
            kinds |= {self._operand_kind(other)} if (left is None or right is None) else set()
            kind: NumberKind | None
            if isinstance(node.op, ast.Div) or "float" in kinds:
                kind = "float"
            elif kinds == {"int"}:
                kind = "int"
            else:
                kind = None
            return VaryingNumber(kind, f"`{self._text(node)}`", found.loop)
        return None

    def _constant_kind(self, node: ast.AST) -> NumberKind | None:
        if _is_number_constant(node):
            assert isinstance(node, ast.Constant)
            return "float" if isinstance(node.value, float) else "int"
        return None

    def _operand_kind(self, node: ast.AST) -> NumberKind | None:
        """int/float of a constant, or of a name annotated, defaulted or assigned as one."""
        kind = self._constant_kind(node)
        if kind is not None or not isinstance(node, ast.Name):
            return kind
        scope = self.scope
        while scope is not None and node.id not in scope.local_names:
            scope = scope.outer
        if scope is not None and node.id in scope.parameter_names:
            return _parameter_kind(scope, node.id)
        nodes = scope.nodes if scope is not None else self.module.index.module_nodes
        kinds = {
            self._constant_kind(n.value) for n in nodes.of(ast.Assign)
            if any(isinstance(t, ast.Name) and t.id == node.id for t in n.targets)
        }
        return kinds.pop() if len(kinds) == 1 else None

    def _plain_number(self, node: ast.AST) -> bool:
        """A numeric constant, or a name/attribute that holds a Python number: assigned only
        numbers, a parameter with a numeric default or an `int`/`float` annotation, a
        module-level number, or a count-like attribute (`self.batch_size`, `cfg.num_steps`)."""
        if _is_number_constant(node):
            return True
        if isinstance(node, ast.Name):
            return self._number_name(node.id)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            return self.module.qualname(node) is None and bool(COUNT_LIKE.search(node.attr))
        return False

    def _number_name(self, name: str) -> bool:
        scope = self.scope
        while scope is not None and name not in scope.local_names:
            scope = scope.outer
        if scope is not None and name in scope.parameter_names:
            return _numeric_parameter(scope, name)
        nodes = scope.nodes if scope is not None else self.module.index.module_nodes
        values = [
            n.value for n in nodes.of(ast.Assign, ast.AugAssign, ast.AnnAssign)
            if n.value is not None
            and any(isinstance(t, ast.Name) and t.id == name for t in _targets(n))
        ]
        return bool(values) and all(
            _is_number_constant(v) or (
                isinstance(v, ast.Call) and isinstance(v.func, ast.Name)
                and v.func.id in ("len", "int", "float", "round")
                and self.module.qualname(v.func) is None)
            for v in values)

    def _loop_changing(self, node: ast.AST) -> Loop | None:
        used = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        for loop in self.loops:
            if used & loop.bound:
                return loop
        return None

    def _varying_name(self, name: str, depth: int) -> VaryingNumber | None:
        for loop in self.loops:
            if _int_loop_target(self.module, loop, name):
                return VaryingNumber(
                    "int", f"`{name}` (the loop variable of `{loop.header(self.module)}`)", loop)
        for loop in self.loops:
            if name not in loop.bound or not isinstance(loop.node, LOOP_NODES):
                continue
            # a counter (`step += 1`) or a value computed in the body from varying numbers
            assignments = self.nodes.assignments_to(name)
            if not assignments or len(assignments) > MANY_BINDINGS:
                return None
            kinds: set[NumberKind | None] = set()
            counter = False
            for assignment in assignments:
                value = assignment.value
                if value is None:
                    return None
                step = _self_update(assignment, name)
                if step is not None or isinstance(assignment, ast.AugAssign):
                    if step is None or not _is_number_constant(step):
                        return None
                    counter = counter or self.module.index.inside(assignment, loop.node)
                    kinds.add(self._constant_kind(step))
                elif _is_number_constant(value):
                    kinds.add(self._constant_kind(value))
                elif self.module.index.inside(assignment, loop.node):
                    inner = self.varying(value, depth + 1)
                    if inner is None:
                        return None
                    kinds.add(inner.kind)
                    counter = True
                else:
                    return None
            if counter:
                kind: NumberKind | None = (
                    "float" if "float" in kinds else "int" if kinds == {"int"} else None
                )
                return VaryingNumber(kind, f"`{name}` (it changes on every iteration of "
                                     f"`{loop.header(self.module)}`)", loop)
            return None
        return None

    def _text(self, node: ast.AST) -> str:
        return self.module.source.segment(node)


def _parameter_kind(function: FunctionInfo, name: str) -> NumberKind | None:
    for arg in function.parameters:
        if arg.arg == name and isinstance(arg.annotation, ast.Name):
            if arg.annotation.id == "int":
                return "int"
            if arg.annotation.id == "float":
                return "float"
    return None


def _numeric_parameter(function: FunctionInfo, name: str) -> bool:
    node = function.node
    args = node.args
    positional = [*args.posonlyargs, *args.args]
    defaults: dict[str, ast.expr | None] = dict(
        zip([a.arg for a in positional][len(positional) - len(args.defaults):], args.defaults,
            strict=True))
    defaults.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)})
    for arg in [*positional, *args.kwonlyargs]:
        if arg.arg != name:
            continue
        annotation = arg.annotation
        if isinstance(annotation, ast.Name) and annotation.id in ("int", "float"):
            return True
        default = defaults.get(name)
        return default is not None and _is_number_constant(default)
    return False


def _targets(node: ast.Assign | ast.AugAssign | ast.AnnAssign) -> list[ast.expr]:
    return list(node.targets) if isinstance(node, ast.Assign) else [node.target]




def call_arguments(call: ast.Call, function: FunctionInfo | None,
                   ) -> Iterator[tuple[ast.expr, str | None]]:
    """Each argument of a call with the parameter of `function` it binds (None if unknown)."""
    parameters: list[str] = []
    if function is not None and not isinstance(function.node, ast.Lambda):
        args = function.node.args
        parameters = [a.arg for a in [*args.posonlyargs, *args.args]]
        if function.cls is not None and parameters and not any(
            isinstance(d, ast.Name) and d.id == "staticmethod" for d in function.decorators
        ):
            parameters = parameters[1:]
    elif function is not None:
        parameters = [a.arg for a in [*function.node.args.posonlyargs, *function.node.args.args]]
    for position, argument in enumerate(call.args):
        if isinstance(argument, ast.Starred):
            return
        yield argument, parameters[position] if position < len(parameters) else None
    for item in call.keywords:
        if item.arg is not None:
            yield item.value, item.arg


def arguments_given(module: ModuleContext, function: FunctionInfo, parameter: str
                    ) -> Iterator[tuple[ast.Call, ast.expr]]:
    """Each call of `function` in the module with what it passes for `parameter`."""
    for call, _scope in module.calls_of(function):
        for argument, bound in call_arguments(call, function):
            if bound == parameter:
                yield call, argument


def constant_int(module: ModuleContext, node: ast.AST, local: set[str],
                 depth: int = 0) -> int | None:
    """The value of an int expression made of literals and module-level int constants (names
    in `local` are the function's own and never resolved)."""
    if depth > 5:
        return None
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        value = constant_int(module, node.operand, local, depth + 1)
        return -value if value is not None else None
    if isinstance(node, ast.BinOp) and isinstance(
            node.op, ast.Add | ast.Sub | ast.Mult | ast.FloorDiv | ast.Pow):
        left = constant_int(module, node.left, local, depth + 1)
        right = constant_int(module, node.right, local, depth + 1)
        if left is None or right is None:
            return None
        if isinstance(node.op, ast.Add):
            return left + right
        if isinstance(node.op, ast.Sub):
            return left - right
        if isinstance(node.op, ast.Mult):
            return left * right
        if isinstance(node.op, ast.FloorDiv):
            return left // right if right else None
        return left ** right if 0 <= right <= 64 and abs(left) < 2 ** 16 else None
    if isinstance(node, ast.Name) and node.id not in local:
        values = [
            n.value for n in module.index.module_nodes.of(ast.Assign)
            if any(isinstance(t, ast.Name) and t.id == node.id for t in n.targets)
            and module.index.parent(n) is module.tree
        ]
        if len(values) == 1:
            return constant_int(module, values[0], local, depth + 1)
    return None
