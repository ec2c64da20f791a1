"""Helpers shared by TFI002, TFI009, TFI010, TFI011 and TFI015: scopes, datasets, the name a
file uses for Keras, and where a decorator is defined."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tf_insight import names
from tf_insight.context import ModuleContext
from tf_insight.imports import keyword
from tf_insight.index import FunctionInfo

# Keras utilities that return a `tf.data.Dataset` (canonical names, every Keras spelling).
KERAS_DATASET_FACTORIES = frozenset({
    f"keras.{package}.{name}"
    for package in ("utils", "preprocessing")
    for name in (
        "image_dataset_from_directory", "text_dataset_from_directory",
        "timeseries_dataset_from_array", "audio_dataset_from_directory",
    )
})


def scopes(module: ModuleContext) -> Iterator[tuple[FunctionInfo | None, list[ast.AST]]]:
    """The module scope (None) and every function scope, with the nodes of each."""
    yield None, module.index.module_nodes
    for function in module.index.functions:
        yield function, function.nodes


def first_parameter(function: FunctionInfo) -> str | None:
    args = function.node.args
    positional = [*args.posonlyargs, *args.args]
    return positional[0].arg if positional else None


def is_static(function: FunctionInfo) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in function.decorators)


def is_dataset(module: ModuleContext, node: ast.AST, scope: FunctionInfo | None) -> bool:
    """An expression that holds a `tf.data.Dataset`: a `tf.data...` call chain, a Keras utility
    that returns one (`keras.utils.image_dataset_from_directory(...)` and friends), dataset
    methods on one, or a name that every assignment in its scope binds to one."""
    return dataset_root(module, node, scope) is not None


def dataset_root(module: ModuleContext, node: ast.AST, scope: FunctionInfo | None,
                 depth: int = 0) -> ast.Call | None:
    """The call that creates the dataset an expression holds, following dataset methods and
    assignments (None when not known to be a dataset)."""
    while depth < 8:
        if isinstance(node, ast.Call):
            qualname = module.qualname(node.func)
            if qualname is not None:
                if qualname.startswith("tensorflow.data.") or qualname in KERAS_DATASET_FACTORIES:
                    return node
                split = keyword(node, "split")
                if qualname == "tensorflow_datasets.load" and isinstance(split, ast.Constant):
                    return node  # one split: a Dataset (several, or none: a list or dict)
                return None
            if isinstance(node.func, ast.Attribute) and node.func.attr in (
                names.DATASET_CHAIN_METHODS
            ):
                node = node.func.value
                continue
            return None
        if isinstance(node, ast.Name):
            return _name_root(module, node.id, scope, depth + 1)
        return None
    return None


def _name_root(module: ModuleContext, name: str, scope: FunctionInfo | None,
               depth: int) -> ast.Call | None:
    """A name is a dataset when every assignment to it in its scope is one (`ds = ds.batch(8)`
    counts), and nothing else (a loop, a `with`, a tuple target) binds it."""
    if scope is not None and name not in scope.local_names:
        scope = None  # a module-level dataset used inside a function
    nodes = scope.nodes if scope is not None else module.index.module_nodes
    values = [
        node.value for node in nodes
        if isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == name for t in node.targets)
    ]
    stores = sum(
        1 for node in nodes
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store)
    )
    if not values or stores != len(values):
        return None
    root: ast.Call | None = None
    for value in values:
        if _chains_on(value, name):
            continue
        found = dataset_root(module, value, scope, depth)
        if found is None:
            return None
        root = root or found
    return root


def _chains_on(node: ast.AST, name: str) -> bool:
    """`ds.batch(8).prefetch(1)` chains on `ds`."""
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and (
        node.func.attr in names.DATASET_CHAIN_METHODS
    ):
        node = node.func.value
    return isinstance(node, ast.Name) and node.id == name


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
    """The definition of the function a decorator names: in this module, or (through jedi) in
    another workspace module or an installed package."""
    if isinstance(target, ast.Name):
        local = module.index.module_functions().get(target.id)
        if local is not None and isinstance(local.node, ast.FunctionDef | ast.AsyncFunctionDef):
            return module, local.node
    definition = module.project.external_definition_path(module, target)
    if definition is None or definition.kind != "function" or definition.path == module.path:
        return None
    other = module.project.load_module(definition.path)
    if other is None:
        return None
    for candidate in ast.walk(other.tree):
        if (isinstance(candidate, ast.FunctionDef | ast.AsyncFunctionDef)
                and candidate.lineno == definition.line):
            return other, candidate
    return None


ERROR_EXPECTATIONS = frozenset({"assertRaises", "assertRaisesRegex", "assertRaisesRegexp",
                                "raises"})


def expects_error(module: ModuleContext, node: ast.AST) -> bool:
    """Inside `with self.assertRaises(...)` / `with pytest.raises(...)`: a test that checks the
    error on purpose."""
    current: ast.AST | None = module.index.parent(node)
    while current is not None:
        if isinstance(current, ast.With | ast.AsyncWith):
            for item in current.items:
                expr = item.context_expr
                func = expr.func if isinstance(expr, ast.Call) else expr
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                if name in ERROR_EXPECTATIONS:
                    return True
        if isinstance(current, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            return False
        current = module.index.parent(current)
    return False
