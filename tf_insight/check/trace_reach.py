"""Which of a project's functions and methods a trace can reach, for a project that trains in
an eager `GradientTape` loop, runs no Keras step (no `predict`, no `fit` or `evaluate` on a
compiled model, no TF 1 session or Estimator), and has `tf.function`s of its own.

Keras calls a layer's `call` in a graph when something traces it. In such a project only its
own traces do: the `tf.function`s (decorated, or wrapped as `tf.function(f)`) and the tf.data
functions (`.map(f)`). Everything else runs in the eager loop. A `tf.function` on a helper
(a rank, a distance) or on one layer's `call` does not put the model's other classes in a
graph: pyvitae's `LatentSpace.call` and bwmd's `Encoder.call` run eagerly although other
methods of the package are `tf.function`s.

What a trace reaches is found by name, over every file of the project, erring toward
"reached":
- a name the trace uses that the project defines: a function; a class, whose special methods
  and the methods Keras calls (`call`, `build`, `train_step`, `update_state`...) run; a module
  variable made from one (`model = build()`); `mod.f` on an imported module (not `np.pi`);
- `self.m` (`super().m`): the methods `m` of the class, its bases and its subclasses;
  `obj.m` on anything else: every method `m` of the project;
- `self.a`: what the project stores in `a` (`self.a = Decoder(...)`,
  `self.a = [Dense(k) for k in sizes]`, `self.a.append(...)`), and a local made from it
  (`for dense in self.a`). Those objects were built before the trace: their constructors
  are not traced;
- a function given to a dataset's `map` (a lambda only on what looks like a dataset:
  `ds.map(lambda x: ...)`, not pandas's `df["a"].map(lambda v: ...)`).
When a trace calls something it gets from outside (a parameter: `def step(model, x):
model(x)`, an attribute stored from one: `self.net = net`, an element of what the project
never stores: `self.layers[0](x)`), any class may be reached: nothing is said of the project.

What is left out is what the project's own eager training uses: the definitions the
functions (or scripts) with the `GradientTape` loop use, and those their callers use (three
calls up). A class the project never uses is API for its users, who may trace it: it keeps its
findings.
"""

from __future__ import annotations

import ast
import os
import types
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

# the dataset methods that trace the function they are given
_DATASET_TRACERS = frozenset({"map", "filter", "flat_map", "interleave", "reduce", "scan"})
# the methods Keras calls on a layer, model, loss or metric it is given
_RUN_BY_KERAS = frozenset({
    "call", "build", "compute_mask", "compute_output_shape", "compute_output_spec",
    "train_step", "test_step", "predict_step", "update_state", "result", "reset_state",
    "reset_states"})
_CONSTRUCTORS = frozenset({"__init__", "__new__", "__init_subclass__"})
# the names of a dataset's makers and methods, and what datasets are called
_DATASET_WORDS = frozenset({
    "data", "ds", "from_tensor_slices", "from_tensors", "from_generator", "batch",
    "padded_batch", "shuffle", "prefetch", "repeat", "cache", "take", "skip", "unbatch",
    "list_files", "tfrecorddataset", "textlinedataset", "with_options", "apply"})
_CALLERS_UP = 3  # how many calls up the eager training's callers are followed
Region = tuple[int, int, str]  # first line, last line, why it runs eagerly


class _Unknown(Exception):
    """A trace calls something from outside the project's view."""


@dataclass(eq=False)
class _Definition:
    path: str
    # `f`, `C.m`, `<module>` for a file's top-level statements, `<x>` for the values of a
    # module variable or of an attribute the project stores (read in `scope`)
    qualname: str
    node: ast.AST
    owner: str | None = None  # the class of a method
    params: frozenset[str] = frozenset()
    # locals → the expressions they are bound from (`for d in self.a`: `self.a`)
    bound: dict[str, list[ast.expr]] = field(default_factory=dict)
    scope: _Definition | None = None  # where a value's names are read
    # a value made before the trace that reads it (stored on `self`, in a module variable):
    # the objects in it were built eagerly, their constructors are not traced
    built: bool = False


@dataclass
class _Class:
    name: str
    bases: list[str]
    methods: dict[str, _Definition]


class _Project:
    """The definitions of the project's files, by name."""

    def __init__(self, trees: dict[str, ast.Module]) -> None:
        self.functions: dict[str, list[_Definition]] = {}  # top-level functions by name
        self.classes: dict[str, list[_Class]] = {}
        self.methods: dict[str, list[_Definition]] = {}  # methods by their name
        # attribute name → (the method that stores it, the value): `self.a = v`
        self.stored: dict[str, list[tuple[_Definition, ast.expr]]] = {}
        self.module_values: dict[tuple[str, str], list[ast.expr]] = {}  # (path, name) → values
        self.modules: dict[str, _Definition] = {}
        self.imported: dict[str, set[str]] = {}  # path → the names its imports bind
        self.tape_loops: list[_Definition] = []
        self._values: dict[tuple[str, str, str, bool], _Definition] = {}
        self._families: dict[str, frozenset[str]] = {}
        for path, tree in trees.items():
            self._add_module(path, tree)

    def definitions(self) -> list[_Definition]:
        return [*self.modules.values(), *(d for group in self.functions.values() for d in group),
                *(d for group in self.methods.values() for d in group)]

    def _add_module(self, path: str, tree: ast.Module) -> None:
        self.modules[path] = _Definition(path, "<module>", tree, bound=_bindings(tree))
        if _trains_with_tape(tree):  # a script's own loop
            self.tape_loops.append(self.modules[path])
        self.imported[path] = {(alias.asname or alias.name).partition(".")[0]
                               for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom)
                               for alias in node.names}
        for statement in tree.body:
            if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
                self._add_function(path, statement, None)
            elif isinstance(statement, ast.ClassDef):
                self._add_class(path, statement)
            else:
                for name, value in _assignments(statement):
                    self.module_values.setdefault((path, name), []).append(value)

    def _add_function(self, path: str, node: ast.FunctionDef | ast.AsyncFunctionDef,
                      owner: str | None) -> _Definition:
        arguments = node.args
        params = frozenset(a.arg for a in [*arguments.posonlyargs, *arguments.args,
                                            *arguments.kwonlyargs, arguments.vararg,
                                            arguments.kwarg] if a is not None)
        qualname = f"{owner}.{node.name}" if owner else node.name
        definition = _Definition(path, qualname, node, owner, params, _bindings(node))
        if owner is None:
            self.functions.setdefault(node.name, []).append(definition)
        else:
            self.methods.setdefault(node.name, []).append(definition)
        if _trains_with_tape(node):
            self.tape_loops.append(definition)
        return definition

    def _add_class(self, path: str, node: ast.ClassDef) -> None:
        methods = {}
        for statement in node.body:
            if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
                method = self._add_function(path, statement, node.name)
                methods[statement.name] = method
                for target, value in _self_stores(statement):
                    self.stored.setdefault(target, []).append((method, value))
        bases = [_last_name(base) for base in node.bases]
        self.classes.setdefault(node.name, []).append(
            _Class(node.name, [b for b in bases if b], methods))

    def family(self, name: str) -> frozenset[str]:
        """A class's name, its bases' and its subclasses' (by name, across the project; not
        its bases' other subclasses)."""
        if name not in self._families:
            every = [cls for group in self.classes.values() for cls in group]
            up, down = {name}, {name}
            for _ in range(len(every)):
                more_up = {base for cls in every if cls.name in up for base in cls.bases}
                more_down = {cls.name for cls in every if down & set(cls.bases)}
                if more_up <= up and more_down <= down:
                    break
                up |= more_up
                down |= more_down
            self._families[name] = frozenset(up | down)
        return self._families[name]

    def value(self, kind: str, name: str, scope: _Definition, values: list[ast.expr],
              built: bool) -> _Definition:
        """The values of a local, a module variable or a stored attribute, as a definition
        of their own (read in `scope`), so that a value made from itself (`x = x + 1`) is
        walked once."""
        key = (kind, name, f"{scope.path}:{scope.qualname}", built)
        if key not in self._values:
            self._values[key] = _Definition(
                scope.path, f"<{kind} {name}>", ast.Module(
                    body=[ast.Expr(value) for value in values], type_ignores=[]),
                scope=scope, built=built)
        return self._values[key]


def untraced(files: Iterable[tuple[str, str]]) -> dict[str, list[Region]]:
    """For each file (path, text) of the project, the regions of its functions and methods
    that its eager training uses and no trace reaches; nothing when a trace may call
    something from outside the project's view, or no function trains with a tape."""
    trees = {}
    for path, text in files:
        try:
            trees[path] = ast.parse(text)
        except (SyntaxError, ValueError):
            continue  # it cannot run: it reaches nothing
    project = _Project(trees)
    if not project.tape_loops:
        return {}
    try:
        traced = _reach(project, list(_trace_seeds(project)), strict=True)
    except _Unknown:
        return {}
    used = _reach(project, _eager_roots(project), strict=False)
    tape_file = os.path.basename(project.tape_loops[0].path)
    found: dict[str, list[Region]] = {}
    for definition in used - traced:
        node = definition.node
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue  # a module's statements, a value
        first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        found.setdefault(definition.path, []).append((
            first, node.end_lineno or node.lineno,
            f"`{tape_file}` trains in an eager `GradientTape` loop, and none of the project's "
            f"tf.functions reaches `{definition.qualname}`"))
    return {path: sorted(regions) for path, regions in found.items()}


def _trace_seeds(project: _Project) -> Iterator[tuple[_Definition, ast.AST]]:
    """(where, what) a trace starts: a `tf.function`'s body, the function given to
    `tf.function(...)` or to a dataset's `map`."""
    for definition in project.definitions():
        node = definition.node
        for function in _own_nodes(node, ast.FunctionDef | ast.AsyncFunctionDef):
            assert isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
            if any(_names_function(decorator) for decorator in function.decorator_list):
                yield definition, function  # itself, or one nested in it
        for call in _own_nodes(node, ast.Call):
            assert isinstance(call, ast.Call)
            if not call.args:
                continue
            given = call.args[0]
            if _names_function(call.func) or (
                    isinstance(call.func, ast.Attribute) and call.func.attr in _DATASET_TRACERS
                    and _dataset_function(project, definition, call.func.value, given)):
                yield definition, given


def _dataset_function(project: _Project, where: _Definition, receiver: ast.expr,
                      given: ast.expr) -> bool:
    """What a `map` is given is a function a dataset traces: a function or method of the
    project (`parse`, `self.augment`) or a parameter, given to any `map`; a lambda or
    `functools.partial(...)` given to one whose receiver looks like a dataset (`tf.data`,
    `ds`, `train_dataset`, `.batch(...)`), not pandas's (`df["a"].map(lambda v: ...)`)."""
    if isinstance(given, ast.Name):
        return given.id in project.functions or given.id in where.params
    if isinstance(given, ast.Attribute):
        return given.attr in project.methods
    words = set()
    for part in ast.walk(receiver):
        if isinstance(part, ast.Name):
            words.add(part.id.lower())
        elif isinstance(part, ast.Attribute):
            words.add(part.attr.lower())
    return bool(words & _DATASET_WORDS) or any(
        "dataset" in word or word.startswith("ds_") or word.endswith("_ds") for word in words)


def _eager_roots(project: _Project) -> list[tuple[_Definition, ast.AST]]:
    """The functions that train with a tape, and their callers, a few calls up."""
    roots = list(project.tape_loops)
    names = {d.qualname.rpartition(".")[2] for d in roots}
    named = [(d, _named(d.node)) for d in project.definitions()]  # once, for every hop
    for _ in range(_CALLERS_UP):
        callers = [d for d, uses in named if d not in roots and names & uses]
        roots.extend(callers)
        names = {d.qualname.rpartition(".")[2] for d in callers}
    return [(d, d.node) for d in roots]


def _reach(project: _Project, seeds: list[tuple[_Definition, ast.AST]],
           strict: bool) -> set[_Definition]:
    """The definitions the seeds reach (themselves included when they are definitions);
    `strict`: raise `_Unknown` when one calls something from outside the project's view."""
    reached: set[_Definition] = set()
    work = list(seeds)
    while work:
        where, node = work.pop()
        if node is where.node:
            reached.add(where)
        for found in _uses(project, where.scope or where, node, strict and not where.built,
                           where.built):
            if found not in reached:
                reached.add(found)
                work.append((found, found.node))
    return reached


def _uses(project: _Project, where: _Definition, node: ast.AST, strict: bool,
          built: bool = False) -> Iterator[_Definition]:
    """The definitions `node` (read in `where`) may run, and the values it reads; `built`:
    `node` was evaluated before the trace (see `_Definition.built`)."""
    for part in ast.walk(node):
        if isinstance(part, ast.Name) and isinstance(part.ctx, ast.Load):
            yield from _by_name(project, where, part.id, built)
        elif isinstance(part, ast.Attribute):
            yield from _by_attribute(project, where, part, built)
        if strict and isinstance(part, ast.Call):
            _check_callee(project, where, part.func, frozenset())


def _by_name(project: _Project, where: _Definition, name: str,
             built: bool) -> Iterator[_Definition]:
    if name in where.params:
        return
    if name in where.bound and where.qualname != "<module>":
        # a local: what it is made from
        yield project.value("local", name, where, where.bound[name], built)
        return
    yield from project.functions.get(name, ())
    for cls in project.classes.get(name, ()):
        yield from _class_methods(project, cls.name, built)
    values = project.module_values.get((where.path, name))
    if values:
        yield project.value("variable", name, project.modules[where.path], values, True)


def _class_methods(project: _Project, name: str, built: bool) -> Iterator[_Definition]:
    """What using a class runs by itself: its (and its family's) special methods and the
    methods Keras calls, its constructors only when it is not `built` before the trace; the
    others run when something names them (`obj.m`, `self.m`)."""
    for related in project.family(name):
        for cls in project.classes.get(related, ()):
            yield from (method for name, method in cls.methods.items()
                        if (name in _RUN_BY_KERAS or name.startswith("__"))
                        and not (built and name in _CONSTRUCTORS))


def _by_attribute(project: _Project, where: _Definition, node: ast.Attribute,
                  built: bool) -> Iterator[_Definition]:
    """`self.m`: the methods `m` and the stored values `m` of the class's family; `mod.f` on
    an imported module: the project's functions and classes `f` (none for `np.pi`); `obj.m`:
    every method and stored value `m` of the project."""
    root = node.value
    while isinstance(root, ast.Attribute):
        root = root.value
    if isinstance(root, ast.Name) and root.id in project.imported.get(where.path, ()) and (
            root.id not in where.bound and root.id not in where.params):
        yield from project.functions.get(node.attr, ())
        for cls in project.classes.get(node.attr, ()):
            yield from _class_methods(project, cls.name, built)
        return
    family = project.family(where.owner) if _on_self(node) and where.owner else None
    for method in project.methods.get(node.attr, ()):
        if family is None or method.owner in family:
            yield method
    for store, value in project.stored.get(node.attr, ()):
        if family is None or store.owner in family:
            yield project.value("attribute", node.attr, store, [value], True)


def _check_callee(project: _Project, where: _Definition, func: ast.expr,
                  seen: frozenset[str]) -> None:
    """Raise `_Unknown` when a callee may come from outside the project's view: a parameter
    (`model(x)`), an element of one (`fns[0](x)`, `model.layers[0](x)`), a local bound from
    one, an attribute stored from one (`self.net = net`), or an element of an attribute the
    project never stores (`self.layers[0](x)`)."""
    element = False
    while isinstance(func, ast.Subscript):
        func, element = func.value, True
    if isinstance(func, ast.Name):
        name = func.id
        if name in ("self", "cls") or name in seen:
            return
        if name in where.params:
            raise _Unknown
        if name in where.bound and where.qualname != "<module>":
            for value in where.bound[name]:
                if _names_parameter(where, value):
                    raise _Unknown
                _check_callee(project, where, value, seen | {name})
        return
    if not isinstance(func, ast.Attribute) or (
            isinstance(func.value, ast.Call) and not _on_self(func)):
        return  # `make()(x)`, `Dataset.range(3).batch(2)`: made where it is reached
    family = project.family(where.owner) if _on_self(func) and where.owner else None
    stores = [(store, value) for store, value in project.stored.get(func.attr, ())
              if family is None or store.owner in family]
    if any(_names_parameter(store, value) for store, value in stores):
        raise _Unknown
    if element and not stores and func.attr not in project.methods:
        raise _Unknown


def _on_self(node: ast.Attribute) -> bool:
    """`self.a`, `cls.a`, `super().a`."""
    value = node.value
    return (isinstance(value, ast.Name) and value.id in ("self", "cls")) or (
        isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
        and value.func.id == "super")


def _names_parameter(where: _Definition, value: ast.expr) -> bool:
    """The value is one of the function's parameters (`model`, `models[0]`, `layers or
    []`) or made by calling one (`make_net()`), not given to a call (`Dense(units)`)."""
    given = {id(part) for call in ast.walk(value) if isinstance(call, ast.Call)
             for argument in [*call.args, *(k.value for k in call.keywords)]
             for part in ast.walk(argument)}
    return any(isinstance(n, ast.Name) and n.id in where.params and n.id not in ("self", "cls")
               and id(n) not in given for n in ast.walk(value))


def _names_function(node: ast.expr) -> bool:
    """`tf.function`, `function`, `tf.function(jit_compile=True)` (a decorator or a callee)."""
    while isinstance(node, ast.Call):
        node = node.func
    return (isinstance(node, ast.Attribute) and node.attr == "function") or (
        isinstance(node, ast.Name) and node.id == "function")


def _trains_with_tape(node: ast.AST) -> bool:
    """A `tf.GradientTape` and an optimizer step that applies gradients, in a function's own
    body or a module's top-level statements."""
    tape = applies = False
    for part in _own_nodes(node, ast.AST):
        name = (part.attr if isinstance(part, ast.Attribute)
                else part.id if isinstance(part, ast.Name) else None)
        tape = tape or name == "GradientTape"
        applies = applies or name in ("apply_gradients", "minimize")
    return tape and applies


def _own_nodes(node: ast.AST, kind: type[ast.AST] | types.UnionType) -> Iterator[ast.AST]:
    """The nodes of `kind` in a function (its nested functions and lambdas included) or in a
    module's top-level statements (not in its functions and classes)."""
    if isinstance(node, ast.Module):
        for statement in node.body:
            if not isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                yield from (n for n in ast.walk(statement) if isinstance(n, kind))
        return
    yield from (n for n in ast.walk(node) if isinstance(n, kind))


def _named(node: ast.AST) -> set[str]:
    """The names and attribute names `node` uses."""
    found = set()
    for part in _own_nodes(node, ast.AST):
        if isinstance(part, ast.Name):
            found.add(part.id)
        elif isinstance(part, ast.Attribute):
            found.add(part.attr)
    return found


def _bindings(node: ast.AST) -> dict[str, list[ast.expr]]:
    """A function's (or module's) locals → what they are bound from: assignments, `for`
    targets (the iterated expression), `with ... as` targets."""
    bound: dict[str, list[ast.expr]] = {}
    for part in _own_nodes(node, ast.AST):
        pairs: list[tuple[ast.AST, ast.expr]] = []
        if isinstance(part, ast.Assign):
            pairs = [(target, part.value) for target in part.targets]
        elif isinstance(part, ast.AnnAssign | ast.AugAssign | ast.NamedExpr) and part.value:
            pairs = [(part.target, part.value)]
        elif isinstance(part, ast.For | ast.AsyncFor | ast.comprehension):
            pairs = [(part.target, part.iter)]
        elif isinstance(part, ast.withitem) and part.optional_vars is not None:
            pairs = [(part.optional_vars, part.context_expr)]
        for target, value in pairs:
            for name in ast.walk(target):
                if isinstance(name, ast.Name):
                    bound.setdefault(name.id, []).append(value)
    return bound


def _assignments(statement: ast.stmt) -> Iterator[tuple[str, ast.expr]]:
    """The module variables a top-level statement binds, with their values (`if`/`try`
    bodies included)."""
    for part in ast.walk(statement):
        if isinstance(part, ast.Assign):
            for target in part.targets:
                yield from ((n.id, part.value) for n in ast.walk(target)
                            if isinstance(n, ast.Name))
        elif isinstance(part, ast.AnnAssign) and part.value and isinstance(part.target, ast.Name):
            yield part.target.id, part.value


def _self_stores(method: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[
        tuple[str, ast.expr]]:
    """`self.a = v`, `self.a += [v]`, `self.a.append(v)` / `.extend(v)` / `.insert(i, v)`
    in a method: (a, v)."""
    for part in ast.walk(method):
        if isinstance(part, ast.Assign | ast.AugAssign | ast.AnnAssign) and part.value:
            targets = part.targets if isinstance(part, ast.Assign) else [part.target]
            for target in targets:
                for element in ast.walk(target):
                    if isinstance(element, ast.Attribute) and isinstance(
                            element.value, ast.Name) and element.value.id == "self":
                        yield element.attr, part.value
        elif isinstance(part, ast.Call) and isinstance(part.func, ast.Attribute) and (
                part.func.attr in ("append", "extend", "insert")) and part.args:
            owner = part.func.value
            if isinstance(owner, ast.Attribute) and isinstance(owner.value, ast.Name) and (
                    owner.value.id == "self"):
                yield owner.attr, part.args[-1]


def _last_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return None
