"""Resolve names through a module's imports, so aliases work (`import tensorflow as tf`,
`from tensorflow import function as tff`, `from tensorflow.keras import layers`).

Qualified names are canonical: every Keras spelling (`tensorflow.keras`, `tf_keras`,
`tensorflow.python.keras`, `keras`) becomes `keras.…`, and `tensorflow.compat.v2` becomes
`tensorflow`. Which Keras a file really uses is decided separately (:mod:`tf_insight.check.keras_flavor`).
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tf_insight.check.index import ModuleIndex

_CANONICAL_PREFIXES = (
    ("tensorflow.python.keras", "keras"),
    ("tensorflow.keras", "keras"),
    ("tensorflow.compat.v2", "tensorflow"),
    ("tf_keras", "keras"),
)


@functools.lru_cache(maxsize=4096)
def canonical(name: str) -> str:
    for prefix, replacement in _CANONICAL_PREFIXES:
        if name == prefix or name.startswith(prefix + "."):
            return replacement + name[len(prefix) :]
    return name


@dataclass
class ImportMap:
    """Local name → fully qualified (raw, uncanonicalised) name, from every import in a file."""

    aliases: dict[str, str] = field(default_factory=dict)
    modules: set[str] = field(default_factory=set)
    relative: dict[str, tuple[int, str]] = field(default_factory=dict)

    @classmethod
    def build(cls, index: ModuleIndex, tree: ast.Module) -> ImportMap:
        """From a module's import statements (collected by the index walk, at any depth). A
        name the module imports outside its functions keeps that binding where a function
        imports the same name for itself (`from scipy.special import gammaln` in one function
        binds it there only; every other function calls the module's `gammaln`)."""
        imports, nested = cls(), cls()
        top = {id(node) for node in index.module_nodes.of(ast.Import, ast.ImportFrom)}
        for node in index.imports:
            (imports if id(node) in top else nested)._add(node)
        imports.modules |= nested.modules
        for name, qualified in nested.aliases.items():
            if name not in imports.relative:
                imports.aliases.setdefault(name, qualified)
        for name, relative in nested.relative.items():
            if name not in imports.aliases:
                imports.relative.setdefault(name, relative)
        # `keras = tf.keras`, `layers = keras.layers`: module-level aliases by assignment
        for statement in tree.body:
            if (
                isinstance(statement, ast.Assign)
                and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Name)
                and isinstance(statement.value, ast.Attribute | ast.Name)
            ):
                raw = imports.raw_name(statement.value)
                if raw is not None:
                    imports.aliases[statement.targets[0].id] = raw
        return imports

    def _add(self, node: ast.Import | ast.ImportFrom) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                self.modules.add(alias.name)
                if alias.asname:
                    self.aliases[alias.asname] = alias.name
                else:  # `import a.b` binds `a`
                    top = alias.name.split(".", 1)[0]
                    self.aliases.setdefault(top, top)
        elif node.level:
            for alias in node.names:
                self.relative[alias.asname or alias.name] = (
                    node.level, f"{node.module}.{alias.name}" if node.module else alias.name)
        else:
            module = node.module or ""
            self.modules.add(module)
            for alias in node.names:
                if alias.name != "*":
                    self.aliases[alias.asname or alias.name] = f"{module}.{alias.name}"

    def assume(self, name: str, module: str) -> None:
        """Take an unbound `name` for an import of `module` (`tf` in a notebook cell whose
        import is in a cell out of view)."""
        self.aliases[name] = module
        self.modules.add(module)

    def raw_name(self, node: ast.AST) -> str | None:
        """The dotted name an expression refers to, through the imports (None if unknown)."""
        root = node
        while isinstance(root, ast.Attribute):
            root = root.value
        base = self.aliases.get(root.id) if isinstance(root, ast.Name) else None
        if base is None or root is node:
            return base  # most expressions: a local name, `self.x`, a call's result
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        parts.append(base)
        return ".".join(reversed(parts))

    def qualname(self, node: ast.AST) -> str | None:
        """Canonical qualified name (see module docstring), or None for local/unknown names."""
        raw = self.raw_name(node)
        return canonical(raw) if raw is not None else None

    def imports_any(self, *prefixes: str) -> bool:
        return any(
            module == prefix or module.startswith(prefix + ".")
            for module in self.modules
            for prefix in prefixes
        )

    @property
    def uses_tensorflow_or_keras(self) -> bool:
        return self.imports_any("tensorflow", "keras", "tf_keras")


def callee(node: ast.AST) -> ast.AST:
    """`tf.function(...)` used as a decorator → `tf.function`; other nodes unchanged."""
    return node.func if isinstance(node, ast.Call) else node


def keyword(call: ast.Call, name: str) -> ast.expr | None:
    for item in call.keywords:
        if item.arg == name:
            return item.value
    return None
