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
    def build(cls, statements: list[ast.Import | ast.ImportFrom], tree: ast.Module) -> ImportMap:
        """From a module's import statements (collected by the index walk, at any depth)."""
        imports = cls()
        for node in statements:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    imports.modules.add(alias.name)
                    if alias.asname:
                        imports.aliases[alias.asname] = alias.name
                    else:  # `import a.b` binds `a`
                        top = alias.name.split(".", 1)[0]
                        imports.aliases.setdefault(top, top)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    for alias in node.names:
                        imports.relative[alias.asname or alias.name] = (
                            node.level,
                            f"{node.module}.{alias.name}" if node.module else alias.name,
                        )
                    continue
                module = node.module or ""
                imports.modules.add(module)
                for alias in node.names:
                    if alias.name != "*":
                        imports.aliases[alias.asname or alias.name] = f"{module}.{alias.name}"
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
