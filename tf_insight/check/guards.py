"""Where a graph function's code cannot see a symbolic tensor: mode checks and type guards.

Two kinds of test decide it (a test "holds only eagerly" when its truth implies eager mode):

- **Mode checks**: `tf.executing_eagerly()`, `tf.inside_function()`, also through a helper
  whose body returns one (`def in_tf_function(): return not tf.executing_eagerly()`, in this
  module or imported from the project), through a local name assigned one once (`eager =
  tf.executing_eagerly()`, `is_xla = not tf.executing_eagerly() and ...`), under `not` and
  `and`. Code under `with tf.init_scope():` runs eagerly too.
- **Type guards** on a value: `isinstance(x, (list, tuple))` (`type(x) is tuple` too), `isinstance(x, np.ndarray)`,
  `isinstance(x, numbers.Real)`, `Mapping`, `dict`, `int`…, `hasattr(x, "numpy")` (only eager
  tensors have it; `"numpy" in dir(x)` too), the other Keras backends (`backend() == "jax"`, `"theano"`, `isinstance(x,
  torch.Tensor)`, the `else` of `backend() == "tensorflow"`), and, negated, `tf.is_tensor(x)` / `isinstance(x, tf.Tensor)`
  or a predicate helper of the project that returns True when not executing eagerly (`def
  is_tracing(x): ... if not tf.executing_eagerly(): return True`), also in an `or` of such
  tests (`if is_tracing(x) or is_tracing(y): return`); `all(...)` of
  such guards over several values (`all(isinstance(v, int) for v in (rows, cols))`); also
  through a local name assigned one once (`was_tensor = isinstance(x, tf.Tensor); if not was_tensor:`).
- **Mode parameters**: a parameter named for a NumPy or eager mode (`if return_numpy:`,
  `if eager:`): the function's caller chooses that mode, for eager use.

`eager_nodes` are the nodes that run only eagerly (the graph model does not follow calls made
there); `guarded_nodes` adds the branches under type guards (rules report nothing there). A
branch is guarded when its `if` (or `x if t else y`, or the operands after a guard in an
`and`) says so; after `if <graph only>: return` the rest of the body is guarded as well, and
after `if cache is not None:` whose body returns or raises in a graph (`if not
tf.executing_eagerly(): raise ...`), so is a later `if cache is not None:` on the same names.
After a statement of an undecorated function's body that calls `.numpy()` on a parameter (`xs =
x.numpy()`, which raises in a graph), the rest of the body runs only eagerly.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Hashable
from typing import Protocol, TypeVar

from tf_insight.check.index import FunctionInfo
from tf_insight.check.shared import Shared
from tf_insight.check.source import SourceFile

T = TypeVar("T")


class GuardedModule(Protocol):
    """What guards read of a module: a `tf_insight.check.context.ModuleContext` (a protocol,
    since that model asks guards which of its code runs eagerly)."""

    source: SourceFile

    def qualname(self, node: ast.AST) -> str | None: ...

    def shared(self, key: Shared[T], factory: Callable[[], T], *part: Hashable) -> T: ...

    def function_named(self, node: ast.AST, scope: FunctionInfo | None) -> FunctionInfo | None: ...

    def imported_function(self, node: ast.AST
                          ) -> tuple[GuardedModule, ast.FunctionDef | ast.AsyncFunctionDef] | None: ...

EXECUTING_EAGERLY = frozenset({
    "tensorflow.executing_eagerly", "tensorflow.compat.v1.executing_eagerly",
    "tensorflow.python.eager.context.executing_eagerly",
    "tensorflow.python.framework.ops.executing_eagerly_outside_functions",
    "tensorflow.executing_eagerly_outside_functions",
})
INIT_SCOPE = frozenset({
    "tensorflow.init_scope", "tensorflow.compat.v1.init_scope",
    "tensorflow.python.framework.ops.init_scope",
})
INSIDE_FUNCTION = frozenset({
    "tensorflow.inside_function", "tensorflow.python.framework.ops.inside_function",
})
IS_TENSOR = frozenset({"tensorflow.is_tensor", "tensorflow.is_symbolic_tensor",
                       "tensorflow.python.framework.tensor_util.is_tf_type",
                       "keras.ops.is_tensor"})
TENSOR_TYPES = frozenset({"tensorflow.Tensor", "tensorflow.Variable",
                          "tensorflow.SparseTensor", "tensorflow.RaggedTensor"})
TENSOR_CLASSES = frozenset({"Tensor", "RaggedTensor", "SparseTensor", "Variable",
                            "ResourceVariable"})  # also through a lazy `tf` of a library
# Types a symbolic tensor is never an instance of.
PYTHON_TYPES = frozenset({"list", "tuple", "dict", "set", "frozenset", "int", "float", "bool",
                          "str", "bytes", "complex", "type", "range"})
PYTHON_TYPE_MODULES = ("numbers.", "collections.", "collections.abc.", "typing.", "numpy.",
                       "torch.", "jax.", "jaxlib.")
OTHER_BACKENDS = ("torch", "jax", "numpy", "openvino", "mlx", "theano", "cntk")
_DEPTH = 3  # helpers calling helpers
# whose functions are no predicate helper of the project's
LIBRARIES = ("tensorflow", "keras", "tf_keras", "numpy", "jax", "torch", "builtins")


def eager_test(module: GuardedModule, test: ast.AST, scope: FunctionInfo | None = None,
               depth: int = 0) -> bool | None:
    """True when `test` holds only in eager mode, False when only in graph mode."""
    if depth > _DEPTH:
        return None
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = eager_test(module, test.operand, scope, depth)
        return None if inner is None else not inner
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        # its truth needs every operand: one that holds only eagerly is enough (one that holds
        # only in graph mode says nothing of the falsity of the whole)
        found = [eager_test(module, value, scope, depth) for value in test.values]
        return True if True in found else None
    if isinstance(test, ast.Call) and not test.args:
        qualname = module.qualname(test.func)
        if qualname in EXECUTING_EAGERLY:
            return True
        if qualname in INSIDE_FUNCTION:
            return False
        returned = _returned_by_helper(module, test.func, scope)
        if returned is not None:
            return eager_test(returned[0], returned[1], None, depth + 1)
    if isinstance(test, ast.Name) and scope is not None:
        assigned = scope.nodes.assignments_to(test.id)
        if len(assigned) == 1 and isinstance(assigned[0], ast.Assign):
            return eager_test(module, assigned[0].value, scope, depth + 1)
    return None


def guard(module: GuardedModule, test: ast.AST, scope: FunctionInfo | None = None) -> bool | None:
    """True when the code the test lets through (its truth) sees no symbolic tensor, False
    when the code it turns away (its falsity) sees none: eager mode, or a type guard."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = guard(module, test.operand, scope)
        return None if inner is None else not inner
    if isinstance(test, ast.BoolOp):
        found = [guard(module, value, scope) for value in test.values]
        if isinstance(test.op, ast.And):
            return True if True in found else None
        # `is_tracing(x) or is_tracing(y)`: its falsity needs every operand false
        return False if False in found else None
    mode = eager_test(module, test, scope)
    if mode is not None:
        return mode
    if isinstance(test, ast.Name) and scope is not None and _mode_parameter(test.id, scope):
        return True
    if isinstance(test, ast.Name) and scope is not None:  # `was_tensor = isinstance(x, ...)`
        assigned = scope.nodes.assignments_to(test.id)
        if len(assigned) == 1 and isinstance(assigned[0], ast.Assign):
            return _type_guard(module, assigned[0].value)
    return _type_guard(module, test)


def _mode_parameter(name: str, scope: FunctionInfo) -> bool:
    """`if return_numpy:` on a parameter named for a NumPy or eager mode: the function offers
    that mode to its eager callers, and code under it is that mode's."""
    lowered = name.lower()
    return ("numpy" in lowered or "eager" in lowered) and name in scope.parameter_names


def _type_guard(module: GuardedModule, test: ast.AST) -> bool | None:
    if isinstance(test, ast.Name):
        return True if any(f"{b}_backend" in test.id.lower() for b in OTHER_BACKENDS) else None
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        sides = (test.left, *test.comparators)
        if isinstance(test.left, ast.Constant) and test.left.value == "numpy" and (
                isinstance(test.ops[0], ast.In | ast.NotIn)) and _dir_of(test.comparators[0]):
            return isinstance(test.ops[0], ast.In)  # `"numpy" in dir(x)`, as hasattr
        if isinstance(test.ops[0], ast.Eq) and any(
                isinstance(side, ast.Constant) and side.value in OTHER_BACKENDS for side in sides):
            return True  # keras.config.backend() == "jax"
        if isinstance(test.ops[0], ast.NotEq) and any(
                isinstance(side, ast.Constant) and side.value == "tensorflow" for side in sides):
            return True
        if isinstance(test.ops[0], ast.Eq) and any(
                isinstance(side, ast.Constant) and side.value == "tensorflow" for side in sides):
            return False  # `backend() == "tensorflow"`: its `else` is the other backends'
        kind = test.comparators[0]
        if _type_of(test.left) and _python_type(module.qualname(kind) or module.source.segment(kind)):
            # `type(x) is tuple`, as `isinstance(x, tuple)`
            if isinstance(test.ops[0], ast.Is | ast.Eq):
                return True
            if isinstance(test.ops[0], ast.IsNot | ast.NotEq):
                return False
        return None
    if not isinstance(test, ast.Call):
        return None
    if isinstance(test.func, ast.Name) and test.func.id == "all" and len(test.args) == 1 and (
            isinstance(test.args[0], ast.ListComp | ast.GeneratorExp)):
        # `all(isinstance(v, int) for v in (rows, cols))`: as the test of each one
        return True if _type_guard(module, test.args[0].elt) is True else None
    qualname = module.qualname(test.func)
    if qualname in IS_TENSOR:
        return False  # tf.is_tensor(x): the branch that turns x away sees no tensor in it
    if test.args and not (qualname or "").startswith(LIBRARIES) and _true_when_tracing(
            module, test.func):
        return False  # `is_tracing(x)`: as tf.is_tensor, for a symbolic tensor
    if not isinstance(test.func, ast.Name) or len(test.args) != 2:
        return None
    if test.func.id == "hasattr":
        attribute = test.args[1]
        return True if isinstance(attribute, ast.Constant) and attribute.value == "numpy" else None
    if test.func.id != "isinstance":
        return None
    kinds = test.args[1]
    names = [module.qualname(k) or module.source.segment(k)
             for k in (kinds.elts if isinstance(kinds, ast.Tuple) else [kinds])]
    if any(name in TENSOR_TYPES or name.rsplit(".", 1)[-1] in TENSOR_CLASSES for name in names):
        return False  # what it turns away is no tf.Tensor (`not isinstance(x, (tf.Tensor, list))`)
    if names and all(_python_type(name) for name in names):
        return True
    return None


def _dir_of(node: ast.AST) -> bool:
    """`dir(x)`."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and (
        node.func.id == "dir") and len(node.args) == 1 and not node.keywords


def _type_of(node: ast.AST) -> bool:
    """`type(x)`."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and (
        node.func.id == "type") and len(node.args) == 1 and not node.keywords


def _python_type(name: str) -> bool:
    if name in PYTHON_TYPES or name.startswith(PYTHON_TYPE_MODULES):
        return True
    return name.split(".")[-1] in ("ndarray", "Mapping", "Sequence", "Number", "Real",
                                   "Integral", "MutableMapping", "Iterable", "generic")


def _returned_by_helper(module: GuardedModule, func: ast.AST, scope: FunctionInfo | None
                        ) -> tuple[GuardedModule, ast.expr] | None:
    """What a one-line helper (`def f(): return <expr>`) returns, and the module it is in."""
    found = _helper(module, func, scope)
    if found is None:
        return None
    body = [s for s in found[1].body
            if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if len(body) == 1 and isinstance(body[0], ast.Return) and body[0].value is not None:
        return found[0], body[0].value
    return None


def _true_when_tracing(module: GuardedModule, func: ast.AST) -> bool:
    """A predicate helper (`is_tracing(x)`) that returns True under a test that holds only in
    graph mode (`if not tf.executing_eagerly(): return True`, at any depth of its `if`s and
    `try`s): true for a symbolic tensor, so what its falsity lets through sees none."""
    found = _helper(module, func, None)
    return found is not None and any(
        isinstance(node, ast.If) and node.body and isinstance(node.body[0], ast.Return)
        and isinstance(node.body[0].value, ast.Constant) and node.body[0].value.value is True
        and eager_test(found[0], node.test) is False
        for node in ast.walk(found[1]))


def _helper(module: GuardedModule, func: ast.AST, scope: FunctionInfo | None
            ) -> tuple[GuardedModule, ast.FunctionDef | ast.AsyncFunctionDef] | None:
    """The definition of the function a call names (of the module, or imported from the
    project), and the module it is in."""
    local = module.function_named(func, scope)
    if local is not None:
        node = local.node
        return (module, node) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) else None
    return module.imported_function(func) if isinstance(func, ast.Name | ast.Attribute) else None


EAGER_NODES: Shared[dict[FunctionInfo, set[ast.AST]]] = Shared("nodes run only eagerly")


def eager_nodes(module: GuardedModule, function: FunctionInfo) -> set[ast.AST]:
    """The nodes of `function` that run only eagerly (found once per function)."""
    found: dict[FunctionInfo, set[ast.AST]] = module.shared(EAGER_NODES, dict)
    if function not in found:
        found[function] = _marked(module, function, eager_test)
    return found[function]


GUARDED_NODES: Shared[dict[FunctionInfo, set[ast.AST]]] = Shared("nodes under guards")


def guarded_nodes(module: GuardedModule, function: FunctionInfo) -> set[ast.AST]:
    """The nodes of `function` that never see a symbolic tensor: eager-only code and the
    branches under type guards (found once per function)."""
    found: dict[FunctionInfo, set[ast.AST]] = module.shared(GUARDED_NODES, dict)
    if function not in found:
        found[function] = _marked(module, function, guard)
    return found[function]


Decide = Callable[["GuardedModule", ast.AST, "FunctionInfo | None"], "bool | None"]


def _marked(module: GuardedModule, function: FunctionInfo, decide: Decide) -> set[ast.AST]:
    marked: set[ast.AST] = set()
    node = function.node
    if isinstance(node, ast.Lambda):
        return marked
    body = node.body
    eager_from = _eager_only_from(function)
    if eager_from is not None:
        for statement in body[eager_from:]:
            marked.update(ast.walk(statement))
        body = body[:eager_from]
    if not function.nodes.has(ast.With, ast.AsyncWith, ast.If, ast.IfExp, ast.BoolOp):
        return marked

    def mark(statements: list[ast.stmt]) -> None:
        for statement in statements:
            marked.update(ast.walk(statement))

    def visit(statements: list[ast.stmt]) -> None:
        # the `if`s without `else` so far, by their test: a later `if` on the same test runs
        # only eagerly when the first one's body returns or raises in a graph (looked at only
        # then: repeated tests are rare)
        earlier: dict[str, int] = {}
        for position, statement in enumerate(statements):
            if isinstance(statement, ast.If):
                test = ast.dump(statement.test)
                first = earlier.get(test)
                if first is not None and _false_in_graph(module, statements[first:position],
                                                         function, decide):
                    mark(statement.body)
                    visit(statement.orelse)
                    continue
                if not statement.orelse:
                    earlier.setdefault(test, position)
            if isinstance(statement, ast.With | ast.AsyncWith) and any(
                isinstance(item.context_expr, ast.Call)
                and module.qualname(item.context_expr.func) in INIT_SCOPE
                for item in statement.items
            ):
                mark(statement.body)
                continue
            if isinstance(statement, ast.If):
                branch = decide(module, statement.test, function)
                if branch is True:
                    mark(statement.body)
                    visit(statement.orelse)
                    if _exits(statement.orelse) and statement.orelse:
                        mark(statements[position + 1:])
                        return
                    continue
                if branch is False:
                    mark(statement.orelse)
                    visit(statement.body)
                    if _exits(statement.body):
                        mark(statements[position + 1:])
                        return
                    continue
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(statement, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                    visit(inner)
            for handler in getattr(statement, "handlers", None) or []:
                if isinstance(handler, ast.ExceptHandler):
                    visit(handler.body)

    visit(body)
    for inner in function.nodes.of(ast.IfExp):
        branch = decide(module, inner.test, function)
        if branch is True:
            marked.update(ast.walk(inner.body))
        elif branch is False:
            marked.update(ast.walk(inner.orelse))
    for operation in function.nodes.of(ast.BoolOp):
        if isinstance(operation.op, ast.And):  # `isinstance(x, dict) and not x`
            for position, value in enumerate(operation.values[:-1]):
                if decide(module, value, function) is True:
                    for later in operation.values[position + 1:]:
                        marked.update(ast.walk(later))
                    break
    return marked


def _eager_only_from(function: FunctionInfo) -> int | None:
    """Where the rest of the body runs only eagerly: after a statement of the body itself that
    calls `.numpy()` on a parameter (`xs = x.numpy()`), which raises in a graph. None when
    there is no such statement, or the function is decorated (a `tf.function` is meant for a
    graph: each of its NumPy uses is a hazard of its own)."""
    if not isinstance(function.node, ast.FunctionDef | ast.AsyncFunctionDef) or (
            function.node.decorator_list):
        return None
    parameters = set(function.parameter_names[1:] if function.parameter_names[:1] == ["self"]
                     else function.parameter_names)
    lines = sorted(call.lineno for call in function.nodes.of(ast.Call)
                   if not call.args and isinstance(call.func, ast.Attribute)
                   and call.func.attr == "numpy" and isinstance(call.func.value, ast.Name)
                   and call.func.value.id in parameters)
    if not lines:
        return None
    for position, statement in enumerate(function.node.body):
        if statement.lineno > lines[-1]:
            break
        if isinstance(statement, ast.Assign | ast.AnnAssign | ast.Expr) and any(
                statement.lineno <= line <= (statement.end_lineno or line) for line in lines):
            return position + 1
    return None


def _false_in_graph(module: GuardedModule, since: list[ast.stmt], function: FunctionInfo,
                    decide: Decide) -> bool:
    """Whether the test of `since[0]` (an `if` without `else`) is False in a graph after the
    statements `since`: its body returns or raises there, and none of them assigns a name of
    the test."""
    first = since[0]
    assert isinstance(first, ast.If)
    names = {node.id for node in ast.walk(first.test) if isinstance(node, ast.Name)}
    return _exits_in_graph(module, first.body, function, decide) and not any(
        names & _assigned_names(statement) for statement in since[1:])


def _exits_in_graph(module: GuardedModule, body: list[ast.stmt], function: FunctionInfo,
                    decide: Decide) -> bool:
    """Whether `body`, run in a graph, never goes on after itself: one of its statements
    returns or raises there (`if cached: return ...` / `else: if not tf.executing_eagerly():
    raise ...`)."""
    for statement in body:
        if isinstance(statement, ast.Return | ast.Raise):
            return True
        if isinstance(statement, ast.If):
            branch = decide(module, statement.test, function)
            taken = ([statement.orelse] if branch is True else [statement.body]
                     if branch is False else [statement.body, statement.orelse])
            if all(_exits_in_graph(module, part, function, decide) for part in taken):
                return True
    return False


def _assigned_names(statement: ast.stmt) -> set[str]:
    return {node.id for node in ast.walk(statement)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del)}


def _exits(body: list[ast.stmt]) -> bool:
    return bool(body) and isinstance(body[-1], ast.Return | ast.Raise | ast.Continue)
