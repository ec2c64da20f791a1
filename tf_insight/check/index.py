"""One walk over a module's tree that every rule shares: its functions (with the nodes of each
function's own scope), classes and module-level nodes. Rules iterate these lists instead of
walking the tree again.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, TypeVar, overload

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
A = TypeVar("A", bound=ast.AST)
B = TypeVar("B", bound=ast.AST)
C = TypeVar("C", bound=ast.AST)


SCOPE_KINDS = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef})
# decorators that keep what a function returns for its arguments
CACHES = frozenset({"lru_cache", "cache", "cached_property", "memoize"})
# Fields that never hold code: names, numbers and flags, and the expression contexts and
# operators, which are shared singletons (not code, and they would corrupt the parent map).
_NOT_CODE = frozenset({"ctx", "op", "ops", "id", "attr", "arg", "asname", "module", "level",
                       "is_async", "conversion", "type_comment", "kind", "tag", "kwd_attrs"})


def _code_fields(kind: type[ast.AST]) -> tuple[str, ...]:
    """The fields of a node type that can hold code (a constant's value and the names of a
    `global` statement never do)."""
    if kind in (ast.Constant, ast.Global, ast.Nonlocal):
        return ()
    return tuple(f for f in kind._fields if f not in _NOT_CODE)


def _node_types(kind: type[ast.AST] = ast.AST) -> Iterator[type[ast.AST]]:
    """Every node type of this Python's `ast`."""
    for subclass in kind.__subclasses__():
        yield subclass
        yield from _node_types(subclass)


_CODE_FIELDS = {kind: _code_fields(kind) for kind in _node_types()}
# node type -> its fields that can hold code, last first (the walk pushes children on a
# stack); None for the scopes, whose parts the walk splits between them and the outer scope
_WALK: dict[type[ast.AST], tuple[str, ...] | None] = {
    kind: None if kind in SCOPE_KINDS else fields[::-1] for kind, fields in _CODE_FIELDS.items()
}


def callee_name(call: ast.Call) -> str | None:
    """The last name a callee is spelled with: `function` for `tf.function(g)`, `function(g)`
    and `tf.function(jit_compile=True)(g)`; None for other callees (`fns[0](x)`)."""
    func = call.func
    while isinstance(func, ast.Call):
        func = func.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return None


def code_children(node: ast.AST) -> list[ast.AST]:
    """Like `ast.iter_child_nodes`, several times faster, and without the shared context and
    operator singletons (`Load`, `Add`...: not code)."""
    found: list[ast.AST] = []
    for name in _CODE_FIELDS[node.__class__]:
        value = getattr(node, name, None)
        if value.__class__ is list:
            found.extend(item for item in value if isinstance(item, ast.AST))
        elif isinstance(value, ast.AST):
            found.append(value)
    return found


# A name bound more often than this in one scope is not followed through its assignments.
MANY_BINDINGS = 64


class ScopeNodes(list[ast.AST]):
    """The nodes of one scope in walk order, also by exact type: `nodes.of(ast.Assign,
    ast.AugAssign)` lists those, in order. Rules ask for the few kinds they look at instead of
    testing every node. The lists returned are shared: never change them."""

    __slots__ = ("_assigned", "_by_name", "_picked", "_positions", "by_kind")

    def __init__(self) -> None:
        super().__init__()
        self.by_kind: dict[type[ast.AST], list[Any]] = {}  # filled by the index walk
        self._positions: dict[ast.AST, int] | None = None
        self._picked: dict[tuple[type[ast.AST], ...], list[Any]] = {}
        self._by_name: dict[str, list[ast.Name]] | None = None
        self._assigned: dict[str, list[ast.Assign | ast.AugAssign | ast.AnnAssign]] | None = None

    @classmethod
    def joined(cls, parts: Iterable[ScopeNodes]) -> ScopeNodes:
        nodes = cls()
        for part in parts:
            nodes.add(part)
        return nodes

    def add(self, other: ScopeNodes) -> None:
        """Append the nodes of another stretch of the scope (its lists are copied, never
        shared). Only before the first question: the tables built for those are not updated."""
        self.extend(other)
        by_kind = self.by_kind
        for kind, nodes in other.by_kind.items():
            group = by_kind.get(kind)
            if group is None:
                by_kind[kind] = list(nodes)
            else:
                group += nodes

    def named(self, name: str) -> list[ast.Name]:
        """The `Name` nodes of this scope that spell `name`, in walk order (a table built on
        first need: rules ask this for many names, and a scan per name is quadratic)."""
        if self._by_name is None:
            self._by_name = {}
            for node in self.of(ast.Name):
                self._by_name.setdefault(node.id, []).append(node)
        return self._by_name.get(name, [])

    def assignments_to(self, name: str) -> list[ast.Assign | ast.AugAssign | ast.AnnAssign]:
        """The assignments of this scope (`=`, `+=`..., annotated) with `name` as one of their
        plain targets, in walk order. Rules that follow a name through its assignments give
        up on one bound more than `MANY_BINDINGS` times: each use would scan them all."""
        if self._assigned is None:
            self._assigned = {}
            for node in self.of(ast.Assign, ast.AugAssign, ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in dict.fromkeys(t.id for t in targets if isinstance(t, ast.Name)):
                    self._assigned.setdefault(target, []).append(node)
        return self._assigned.get(name, [])

    def has(self, *kinds: type[ast.AST]) -> bool:
        """Whether the scope has a node of one of these exact types."""
        return any(kind in self.by_kind for kind in kinds)

    @overload
    def of(self, kind: type[A], /) -> list[A]: ...
    @overload
    def of(self, kind: type[A], other: type[B], /) -> list[A | B]: ...
    @overload
    def of(self, kind: type[A], other: type[B], third: type[C], /) -> list[A | B | C]: ...
    @overload
    def of(self, *kinds: type[ast.AST]) -> list[Any]: ...

    def of(self, *kinds: type[ast.AST]) -> list[Any]:
        if len(kinds) == 1:
            return self.by_kind.get(kinds[0]) or []
        picked = self._picked.get(kinds)
        if picked is None:
            groups = [group for group in map(self.by_kind.get, kinds) if group]
            if len(groups) <= 1:
                picked = groups[0] if groups else []
            else:
                picked = [node for group in groups for node in group]
                picked.sort(key=self._walk_positions().__getitem__)
            self._picked[kinds] = picked
        return picked

    def position(self, node: ast.AST) -> int:
        """Where a node of this scope comes in walk order."""
        return self._walk_positions()[node]

    def _walk_positions(self) -> dict[ast.AST, int]:
        if self._positions is None:
            self._positions = dict(zip(self, range(len(self)), strict=True))
        return self._positions


@dataclass(eq=False)
class ClassInfo:
    node: ast.ClassDef
    outer: FunctionInfo | None
    methods: dict[str, FunctionInfo] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.node.name


@dataclass(eq=False)
class FunctionInfo:
    """A function or lambda; `nodes` are the nodes of its own scope (nested defs excluded)."""

    node: FunctionNode
    outer: FunctionInfo | None
    cls: ClassInfo | None
    nodes: ScopeNodes = field(default_factory=ScopeNodes)

    @property
    def name(self) -> str:
        return "<lambda>" if isinstance(self.node, ast.Lambda) else self.node.name

    @property
    def qualname(self) -> str:
        own = f"{self.cls.name}.{self.name}" if self.cls else self.name
        return f"{self.outer.qualname}.<locals>.{own}" if self.outer else own

    @property
    def parameters(self) -> list[ast.arg]:
        args = self.node.args
        return [*args.posonlyargs, *args.args, *args.kwonlyargs]

    @property
    def parameter_names(self) -> list[str]:
        return [arg.arg for arg in self.parameters]

    @property
    def parameter_defaults(self) -> dict[str, ast.expr]:
        """The default value of each parameter that has one (positional and keyword-only)."""
        args = self.node.args
        positional = [*args.posonlyargs, *args.args]
        found = {arg.arg: default for arg, default in zip(
            positional[len(positional) - len(args.defaults):], args.defaults, strict=True)}
        found.update((arg.arg, default) for arg, default in zip(
            args.kwonlyargs, args.kw_defaults, strict=True) if default is not None)
        return found

    calls: list[ast.Call] = field(default_factory=list)  # filled by the index walk
    decorators: list[ast.expr] = field(init=False)  # (asked often: an attribute, not a property)

    def __post_init__(self) -> None:
        self.decorators = [] if isinstance(self.node, ast.Lambda) else self.node.decorator_list

    @property
    def cached(self) -> bool:
        """Decorated with a cache (`functools.lru_cache`, `cache`, `cached_property`,
        `memoize`): a call returns what the first call with the same arguments made."""
        for decorator in self.decorators:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
            if name in CACHES:
                return True
        return False

    @cached_property
    def local_names(self) -> set[str]:
        """Names bound in this scope: parameters, assignment targets, loop and with targets."""
        bound = set(self.parameter_names)
        args = self.node.args
        if args.vararg:
            bound.add(args.vararg.arg)
        if args.kwarg:
            bound.add(args.kwarg.arg)
        nodes = self.nodes
        bound.update(node.id for node in nodes.of(ast.Name) if node.ctx.__class__ is ast.Store)
        bound.update(node.name for node in nodes.of(
            ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        bound.update((node.asname or node.name).split(".", 1)[0] for node in nodes.of(ast.alias))
        declared_outer = {name for node in nodes.of(ast.Global, ast.Nonlocal)
                          for name in node.names}
        return bound - declared_outer

    @cached_property
    def rebound_names(self) -> set[str]:
        """`local_names` less those bound only by an import: the names that are no import."""
        imported = {(node.asname or node.name).split(".", 1)[0]
                    for node in self.nodes.of(ast.alias)}
        return self.local_names - imported

    def binds(self, name: str) -> bool:
        """`name` is bound, other than by an import, in this function or one it is nested in:
        there it is not the module's import of that spelling (a parameter `metrics` is not
        `from sklearn import metrics`)."""
        scope: FunctionInfo | None = self
        while scope is not None:
            if name in scope.rebound_names:
                return True
            scope = scope.outer
        return False


@dataclass(eq=False)
class ModuleIndex:
    functions: list[FunctionInfo] = field(default_factory=list)
    classes: list[ClassInfo] = field(default_factory=list)
    module_nodes: ScopeNodes = field(default_factory=ScopeNodes)
    imports: list[ast.Import | ast.ImportFrom] = field(default_factory=list)
    calls: list[tuple[ast.Call, FunctionInfo | None]] = field(default_factory=list)
    # the positions in `calls` of the calls of each callee name (see `callee_name`): of the
    # statement's calls in a part, of the module's for the names asked about in a joined index
    _calls_by_name: dict[str, list[int]] = field(default_factory=dict)
    _by_node: dict[ast.AST, FunctionInfo] = field(default_factory=dict)
    _parents: dict[ast.AST, ast.AST] = field(default_factory=dict)
    _nested: dict[FunctionInfo, list[FunctionInfo]] | None = None  # built on first need
    # the index of each top-level statement alone, in order (an edited file's index is joined
    # from them): what an incremental analysis looks at when it looks at a few statements
    parts: list[ModuleIndex] | None = None

    @classmethod
    def build(cls, tree: ast.Module, parts: dict[int, ModuleIndex] | None = None
              ) -> ModuleIndex:
        """`parts`: statement id → the index of that top-level statement alone, from earlier
        versions of an edited file (`SourceFile.derived_facts`); reused where present, added
        where missing. Joining the parts costs a tenth of walking the whole tree."""
        if parts is None:
            index = cls._walk(tree.body)
        else:
            joined: list[ModuleIndex] = []
            index = cls(parts=joined)
            for statement in tree.body:
                part = parts.get(id(statement))
                if part is None:
                    part = parts[id(statement)] = cls._walk([statement])
                index._join(part)
                joined.append(part)
        for statement in tree.body:
            index._parents[statement] = tree
        return index

    def _join(self, part: ModuleIndex) -> None:
        """Append the index of the next statement (its lists are copied, never shared)."""
        self.functions += part.functions
        self.classes += part.classes
        self.module_nodes.add(part.module_nodes)
        self.imports += part.imports
        self.calls += part.calls
        self._by_node.update(part._by_node)
        self._parents.update(part._parents)

    @classmethod
    def _walk(cls, statements: list[ast.stmt]) -> ModuleIndex:
        index = cls()
        parents = index._parents
        # (node, the scope's nodes and those by kind, enclosing function, class whose body
        # holds the node)
        stack: list[tuple[ast.AST, ScopeNodes, dict[type[ast.AST], list[Any]],
                          FunctionInfo | None, ClassInfo | None]] = [
            (child, index.module_nodes, index.module_nodes.by_kind, None, None)
            for child in reversed(statements)
        ]
        push = stack.append
        walk_fields, call_kind, import_kinds = _WALK, ast.Call, (ast.Import, ast.ImportFrom)
        node_kind, name_kind, attribute_kind = ast.AST, ast.Name, ast.Attribute
        calls, imports, by_name = index.calls, index.imports, index._calls_by_name
        while stack:
            node, scope_nodes, by_kind, function, in_class = stack.pop()
            scope_nodes.append(node)
            kind = node.__class__  # exact-type dispatch: this loop visits every node
            group = by_kind.get(kind)
            if group is None:
                by_kind[kind] = [node]
            else:
                group.append(node)
            if kind is name_kind:
                continue  # a third of all nodes
            if kind is attribute_kind:  # a fifth: `self.x`, `tf.y`
                child = node.value  # type: ignore[attr-defined]
                parents[child] = node
                push((child, scope_nodes, by_kind, function, None))
                continue
            fields = walk_fields[kind]
            if fields is not None:
                if not fields:
                    continue  # constants...
                if kind is call_kind:
                    name = callee_name(node)  # type: ignore[arg-type]
                    if name is not None:
                        by_name.setdefault(name, []).append(len(calls))
                    calls.append((node, function))  # type: ignore[arg-type]
                    if function is not None:
                        function.calls.append(node)  # type: ignore[arg-type]
                elif kind in import_kinds:
                    imports.append(node)  # type: ignore[arg-type]
                for name in fields:  # pushed last first, so that they are visited in order
                    value = getattr(node, name)
                    if value.__class__ is list:
                        for child in reversed(value):
                            if child is not None:  # `{**a}` keys, keyword-only defaults
                                parents[child] = node
                                push((child, scope_nodes, by_kind, function, None))
                    elif isinstance(value, node_kind):
                        parents[value] = node
                        push((value, scope_nodes, by_kind, function, None))
                continue
            for child in code_children(node):
                parents[child] = node
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                info = FunctionInfo(node=node, outer=function, cls=in_class)
                index.functions.append(info)
                index._by_node[node] = info
                if in_class is not None and not isinstance(node, ast.Lambda):
                    in_class.methods.setdefault(node.name, info)
                outer_parts: list[ast.AST] = [*node.args.defaults]
                outer_parts += [d for d in node.args.kw_defaults if d is not None]
                inner_parts: list[ast.AST]
                if isinstance(node, ast.Lambda):
                    inner_parts = [node.body]
                else:
                    outer_parts += node.decorator_list
                    inner_parts = list(node.body)
                for part in reversed(inner_parts):
                    push((part, info.nodes, info.nodes.by_kind, info, None))
                for part in reversed(outer_parts):
                    push((part, scope_nodes, by_kind, function, None))
            elif isinstance(node, ast.ClassDef):
                class_info = ClassInfo(node=node, outer=function)
                index.classes.append(class_info)
                for statement in reversed(node.body):
                    push((statement, scope_nodes, by_kind, function, class_info))
                for expression in reversed([*node.decorator_list, *node.bases]):
                    push((expression, scope_nodes, by_kind, function, None))
                for kw in node.keywords:
                    push((kw.value, scope_nodes, by_kind, function, None))
        return index

    def calls_named(self, names: set[str]) -> list[tuple[ast.Call, FunctionInfo | None]]:
        """The calls whose callee is spelled with one of these names (`callee_name`), in walk
        order: what a rule looking for a few functions reads instead of every call."""
        positions = [position for name in names for position in self._positions_of(name)]
        if len(names) > 1:
            positions.sort()
        return [self.calls[position] for position in positions]

    def _positions_of(self, name: str) -> list[int]:
        found = self._calls_by_name.get(name)
        if found is None:  # a joined index: gather the statements' (once per name)
            found = self._calls_by_name[name] = []
            for part, offset in zip(self.parts or (), self._call_offsets, strict=True):
                positions = part._calls_by_name.get(name)
                if positions:
                    found += [offset + position for position in positions]
        return found

    @cached_property
    def _call_offsets(self) -> list[int]:
        """Where each statement's calls start in `calls` (a joined index)."""
        offsets, offset = [], 0
        for part in self.parts or ():
            offsets.append(offset)
            offset += len(part.calls)
        return offsets

    def function_of(self, node: FunctionNode) -> FunctionInfo | None:
        return self._by_node.get(node)

    def parent(self, node: ast.AST) -> ast.AST | None:
        """The syntactic parent of any node."""
        return self._parents.get(node)

    def statement_of(self, node: ast.AST) -> ast.AST:
        """The statement that holds `node` (`node` itself if it is one, or if none holds
        it)."""
        while not isinstance(node, ast.stmt):
            parent = self.parent(node)
            if parent is None:
                break
            node = parent
        return node

    def scope_of(self, node: ast.AST) -> FunctionInfo | None:
        """The function whose scope evaluates `node` (None: the module's). A default value, a
        decorator or an annotation is evaluated where the function is defined."""
        child, parent = node, self.parent(node)
        while parent is not None:
            if isinstance(parent, ast.Lambda):
                if child is parent.body:
                    return self.function_of(parent)
            elif isinstance(parent, ast.FunctionDef | ast.AsyncFunctionDef) \
                    and child in parent.body:
                return self.function_of(parent)
            child, parent = parent, self.parent(parent)
        return None

    def branches(self, node: ast.AST, tries: bool = True) -> dict[int, int]:
        """The branches `node` sits in, up to its function: id of an `if` (or, with `tries`,
        a `try`) → which branch (0: the body, 1: the `else` / an `except` handler)."""
        found: dict[int, int] = {}
        child, parent = node, self.parent(node)
        while parent is not None and not isinstance(
                parent, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            if isinstance(parent, ast.If) and child is not parent.test:
                found[id(parent)] = 0 if child in parent.body else 1
            elif tries and isinstance(parent, ast.Try):
                found[id(parent)] = 1 if child in parent.handlers else 0
            child, parent = parent, self.parent(parent)
        return found

    def exclusive(self, a: ast.AST, b: ast.AST, tries: bool = True) -> bool:
        """Whether `a` and `b` sit in different branches of one `if` (or `try`, with `tries`):
        one run never reaches both."""
        of_a = self.branches(a, tries)
        if not of_a:  # most nodes: no branch to differ in, no second walk
            return False
        of_b = self.branches(b, tries)
        return any(of_b.get(statement, branch) != branch for statement, branch in of_a.items())

    def left_before(self, a: ast.AST, b: ast.AST) -> bool:
        """Whether `a` sits in a branch of an `if` that ends in `return` or `raise` and `b` is
        outside that branch: a run that reaches `a` leaves before `b`."""
        child, parent = a, self.parent(a)
        while parent is not None and not isinstance(
                parent, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            if isinstance(parent, ast.If) and child is not parent.test:
                block = parent.body if child in parent.body else parent.orelse
                if isinstance(block[-1], ast.Return | ast.Raise) and not any(
                        self.inside(b, statement) for statement in block):
                    return True
            child, parent = parent, self.parent(parent)
        return False

    def inside(self, node: ast.AST, ancestor: ast.AST) -> bool:
        """Whether `node` is `ancestor` or sits in it."""
        current: ast.AST | None = node
        while current is not None:
            if current is ancestor:
                return True
            current = self.parent(current)
        return False

    def nested_in(self, function: FunctionInfo) -> list[FunctionInfo]:
        """The functions defined inside `function`, at any depth, in source order."""
        if self._nested is None:
            self._nested = {}
            for inner in self.functions:
                outer = inner.outer
                while outer is not None:
                    self._nested.setdefault(outer, []).append(inner)
                    outer = outer.outer
        return self._nested.get(function, [])

    def module_functions(self) -> dict[str, FunctionInfo]:
        """Module-level functions by name (last definition wins, as at run time)."""
        return self.nested_functions.get(None, {})

    @cached_property
    def nested_functions(self) -> dict[FunctionInfo | None, dict[str, FunctionInfo]]:
        """Enclosing function (None: the module) → the functions defined directly in it."""
        found: dict[FunctionInfo | None, dict[str, FunctionInfo]] = {}
        for info in self.functions:
            if info.cls is None and not isinstance(info.node, ast.Lambda):
                found.setdefault(info.outer, {})[info.name] = info
        return found

    def module_classes(self) -> dict[str, ClassInfo]:
        return self._module_classes

    @cached_property
    def _module_classes(self) -> dict[str, ClassInfo]:
        return {info.name: info for info in self.classes if info.outer is None}


def self_calls(function: ast.AST | None) -> frozenset[str] | None:
    """The methods a function calls on `self` (`self.call(x)`: `call`); None without one."""
    if function is None:
        return None
    return frozenset(node.func.attr for node in ast.walk(function)
                     if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                     and isinstance(node.func.value, ast.Name) and node.func.value.id == "self")


def self_attribute(node: ast.AST, me: str = "self") -> str | None:
    """`name` for `self.name` (`me` names the method's first parameter when it is not
    `self`)."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and (
            node.value.id == me):
        return node.attr
    return None
