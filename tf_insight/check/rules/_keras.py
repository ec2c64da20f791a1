"""Helpers shared by the Keras rules (TFI002, TFI003, TFI009-TFI013, TFI015, TFI023, TFI027,
TFI028): the name a file uses for Keras, where a decorator is defined, tests that expect an
error, calls that make a Keras model, callbacks."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator

from tf_insight.check.context import ModuleContext
from tf_insight.check.graph_model import GraphContext
from tf_insight.check.index import ClassInfo, FunctionInfo, self_calls
from tf_insight.check.names import keras_class_kind
from tf_insight.check.rules._tf_functions import Loop
from tf_insight.check.shared import Shared


def first_parameter(function: FunctionInfo) -> str | None:
    args = function.node.args
    positional = [*args.posonlyargs, *args.args]
    return positional[0].arg if positional else None


def is_static(function: FunctionInfo) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in function.decorators)


def name_for(module: ModuleContext, qualname: str, through_tf: bool = True) -> str | None:
    """How this file spells a module (`keras` → `keras`, or `tf.keras` when only TensorFlow is
    imported), None if it can't."""
    for local, raw in module.imports.aliases.items():
        if raw and module.qualname(ast.Name(id=local)) == qualname:
            return local
    if through_tf and qualname.startswith("keras"):
        tf = name_for(module, "tensorflow")
        if tf is not None:
            return f"{tf}.{qualname}"
    return None


def function_definition(module: ModuleContext, target: ast.AST) -> tuple[
    ModuleContext, ast.FunctionDef | ast.AsyncFunctionDef
] | None:
    """The definition of the function a decorator names: in this module, or in another
    workspace module or an installed package."""
    if isinstance(target, ast.Name):
        local = module.index.module_functions().get(target.id)
        if local is not None and isinstance(local.node, ast.FunctionDef | ast.AsyncFunctionDef):
            return module, local.node
    return module.project.external_function(module, target)


ERROR_EXPECTATIONS = frozenset({"assertRaises", "assertRaisesRegex", "assertRaisesRegexp",
                                "raises"})


def expects_error(module: ModuleContext, node: ast.AST) -> bool:
    """Inside `with self.assertRaises(...)` / `with pytest.raises(...)`: a test that checks the
    error on purpose."""
    current: ast.AST | None = module.index.parent(node)
    while current is not None:
        if isinstance(current, ast.With | ast.AsyncWith) and any(
                _expects(item.context_expr) for item in current.items):
            return True
        if isinstance(current, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            return False
        current = module.index.parent(current)
    return False


EXPECTING_ERROR_BLOCKS: Shared[list[tuple[int, int]]] = Shared("blocks expecting an error")


def traced_expecting_error(module: ModuleContext, context: GraphContext) -> bool:
    """The function is made a graph function inside `with self.assertRaises(...)` /
    `pytest.raises`: a test that expects tracing to fail (`tf.function(foo,
    autograph=False)(x)` to show why AutoGraph is needed)."""
    origin = context.origin
    if origin is None:
        return False

    def expecting_blocks() -> list[tuple[int, int]]:
        index = module.index  # its tables of `with` statements, not a walk of the whole tree
        scopes = (index.module_nodes, *(f.nodes for f in index.functions))
        withs: list[ast.With | ast.AsyncWith] = [
            *(node for nodes in scopes for node in nodes.of(ast.With)),
            *(node for nodes in scopes for node in nodes.of(ast.AsyncWith))]
        return [(node.lineno, node.end_lineno or node.lineno) for node in withs
                if any(_expects(item.context_expr) for item in node.items)]

    blocks = module.shared(EXPECTING_ERROR_BLOCKS, expecting_blocks)
    return any(start <= origin.line <= end for start, end in blocks)


def _expects(expr: ast.expr) -> bool:
    func = expr.func if isinstance(expr, ast.Call) else expr
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name in ERROR_EXPECTATIONS


MODEL_LOADERS = frozenset({"keras.models.load_model", "keras.saving.load_model"})


def class_defines(module: ModuleContext, cls: ClassInfo, method: str, depth: int = 0) -> bool:
    """Whether the class, or one of the project's classes it derives from (in this module or
    imported), defines `method` (Keras's and TensorFlow's own classes do not count)."""
    if method in cls.methods:
        return True
    if depth > 4:
        return False
    local = module.index.module_classes()
    for base in cls.node.bases:
        if (module.qualname(base) or "").startswith(("keras.", "tensorflow.")):
            continue
        if isinstance(base, ast.Name) and base.id in local:
            if class_defines(module, local[base.id], method, depth + 1):
                return True
        elif module.is_imported(base) and module.project.external_class_defines(
                module, base, method):
            return True
    return False


def method_self_calls(module: ModuleContext, cls: ClassInfo, method: str, depth: int = 0
                      ) -> frozenset[str]:
    """The methods that `method` of the class, or of the project's class it inherits it from,
    calls on `self` (empty when no class of the project defines it)."""
    if method in cls.methods:
        return self_calls(cls.methods[method].node) or frozenset()
    if depth > 4:
        return frozenset()
    local = module.index.module_classes()
    for base in cls.node.bases:
        if (module.qualname(base) or "").startswith(("keras.", "tensorflow.")):
            continue
        if isinstance(base, ast.Name) and base.id in local:
            found = method_self_calls(module, local[base.id], method, depth + 1)
        elif module.is_imported(base):
            found = module.project.external_method_self_calls(module, base, method)
        else:
            continue
        if found:
            return found
    return frozenset()


def applied_to_input(module: ModuleContext, cls: ClassInfo) -> ast.Call | None:
    """Where the module applies a layer of the class to one `keras.Input` (`Pool()(inputs)`,
    `inputs = keras.Input((5, 8))`): its `call` then runs on a symbolic tensor."""
    for call, scope in module.calls_named(cls.name):
        applied = module.index.parent(call)
        if isinstance(applied, ast.Call) and applied.func is call and len(applied.args) == 1 \
                and _an_input(module, applied.args[0], scope):
            return applied
    return None


def _an_input(module: ModuleContext, node: ast.AST, scope: FunctionInfo | None) -> bool:
    """`keras.Input(...)`, or a name bound once to it (where the name is bound: the scope or
    one it is nested in)."""
    if isinstance(node, ast.Name):
        while scope is not None and node.id not in scope.local_names:
            scope = scope.outer
        nodes = scope.nodes if scope is not None else module.index.module_nodes
        bound = nodes.assignments_to(node.id)
        node = bound[0].value if len(bound) == 1 and isinstance(bound[0], ast.Assign) else node
    return isinstance(node, ast.Call) and (module.qualname(node.func) or "").rsplit(
        ".", 1)[-1] == "Input"


def makes_keras_model(module: ModuleContext, value: ast.expr, depth: int = 0) -> bool:
    """A call that makes or loads a Keras model: `keras.Sequential(...)`, `keras.Model(...)`,
    a subclass of it, a `keras.applications` model, `load_model(...)`, or a function of the
    module that returns one (`make_classifier()`)."""
    if not isinstance(value, ast.Call):
        return False
    qualname = module.qualname(value.func)
    if qualname is not None:
        last = qualname.rsplit(".", 1)[-1]
        return qualname in MODEL_LOADERS or keras_class_kind(qualname) == "model" or (
            qualname.startswith("keras.applications.") and last[:1].isupper())
    if not isinstance(value.func, ast.Name):
        return False
    cls = module.index.module_classes().get(value.func.id)
    if cls is not None:
        return module.keras_kind(cls) == "model"
    factory = module.index.module_functions().get(value.func.id)
    return factory is not None and depth < 2 and _returns_model(module, factory, depth)


def _returns_model(module: ModuleContext, function: FunctionInfo, depth: int) -> bool:
    """Whether a function returns a Keras model it makes (directly, or bound to a name)."""
    made = {target.id for assign in function.nodes.of(ast.Assign)
            if makes_keras_model(module, assign.value, depth + 1)
            for target in assign.targets if isinstance(target, ast.Name)}
    return any(node.value is not None and (
        makes_keras_model(module, node.value, depth + 1)
        or (isinstance(node.value, ast.Name) and node.value.id in made))
        for node in function.nodes.of(ast.Return))


# Keras calls that train a model
TRAINING = frozenset({"fit", "fit_generator", "train_on_batch"})


def trains(nodes: Iterable[ast.AST]) -> bool:
    """A call among the nodes trains a model (`fit`, `train_on_batch`)."""
    return any(isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
               and node.func.attr in TRAINING for node in nodes)


def trains_each_iteration(module: ModuleContext, loop: Loop) -> bool:
    """Whether the loop's body trains a model (`fit`/`train_on_batch`, or a function of the
    module that does: `dae = create_dae(x, ...)`): what else each iteration does with Keras
    (makes a model, predicts once) is a small share beside a whole training run."""
    if trains(loop.body_nodes):
        return True
    functions = module.index.module_functions()
    return any(trains(functions[node.func.id].calls) for node in loop.body_nodes
               if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
               and node.func.id in functions)


MODEL_BINDINGS: Shared[dict[str, list[ast.Assign]]] = Shared("Keras model bindings")


def model_bindings(module: ModuleContext, scope: FunctionInfo | None
                   ) -> dict[str, list[ast.Assign]]:
    """The assignments a scope's own statements make of Keras models (`makes_keras_model`),
    by the name they bind (once per scope: several rules ask about many names)."""
    def find() -> dict[str, list[ast.Assign]]:
        nodes = scope.nodes if scope is not None else module.index.module_nodes
        found: dict[str, list[ast.Assign]] = {}
        for assign in nodes.of(ast.Assign):
            if makes_keras_model(module, assign.value):
                for target in assign.targets:
                    if isinstance(target, ast.Name):
                        found.setdefault(target.id, []).append(assign)
        return found

    return module.shared(MODEL_BINDINGS, find, scope)


def is_callback(module: ModuleContext, cls: ClassInfo) -> bool:
    """A class derived from `keras.callbacks.Callback` (any Keras)."""
    return any((module.qualname(base) or "").endswith("callbacks.Callback")
               for base in cls.node.bases)


def callback_hooks(module: ModuleContext, hooks: frozenset[str]
                   ) -> Iterator[tuple[ClassInfo, str, FunctionInfo]]:
    """(class, hook name, method) for the methods named in `hooks` of the module's Keras
    callbacks (in the focused statements)."""
    for cls in module.focused_classes():
        if is_callback(module, cls):
            for name, method in cls.methods.items():
                if name in hooks:
                    yield cls, name, method
