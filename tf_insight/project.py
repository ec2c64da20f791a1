"""Analysis state shared across the files of one workspace: settings, the jedi resolver, parsed
modules of other files (cached by path, size and mtime), and graph contexts that reach a module
from calls in another (`seeds`).
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass, field
from pathlib import Path

from tf_insight.config import Config
from tf_insight.context import CrossModuleCall, GraphContext, ModuleContext
from tf_insight.resolve import Definition, Resolver
from tf_insight.source import SourceFile

_MAX_EXTERNAL_DEPTH = 4


@dataclass
class Project:
    config: Config = field(default_factory=Config)
    root: Path | None = None
    resolver: Resolver | None = None
    seeds: dict[str, dict[str, GraphContext]] = field(default_factory=dict)
    _modules: dict[str, tuple[tuple[int, int], ModuleContext | None]] = field(default_factory=dict)
    _depth: int = 0

    def __post_init__(self) -> None:
        if self.resolver is None:
            self.resolver = Resolver(str(self.root) if self.root else None, self.config.python)

    # ---- other modules ---------------------------------------------------------------------

    def load_module(self, path: str) -> ModuleContext | None:
        """A parsed module from disk (library or workspace), cached until the file changes."""
        try:
            stat = os.stat(path)
        except OSError:
            return None
        stamp = (stat.st_size, stat.st_mtime_ns)
        cached = self._modules.get(path)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        context: ModuleContext | None = None
        try:
            text = Path(path).read_text(encoding="utf-8")
            source = SourceFile.parse(path, text)
            if source.tree is not None:
                context = ModuleContext(source, self)
        except (OSError, UnicodeDecodeError):
            context = None
        self._modules[path] = (stamp, context)
        return context

    def _definition(self, context: ModuleContext, node: ast.AST) -> Definition | None:
        """jedi's answer for the name at the end of `node` (`Base` in `pkg.mod.Base`)."""
        if self.resolver is None:
            return None
        line: int = getattr(node, "end_lineno", None) or getattr(node, "lineno", None) or 1
        end = context.source.column(line, getattr(node, "end_col_offset", None) or 0)
        return self.resolver.definition(context.path, context.source.text, line, max(end - 1, 0))

    def _external(self, context: ModuleContext, node: ast.AST, kind: str) -> tuple[
        ModuleContext, ast.AST
    ] | None:
        if self._depth >= _MAX_EXTERNAL_DEPTH:
            return None
        definition = self._definition(context, node)
        if definition is None or definition.kind != kind or definition.path == context.path:
            return None
        other = self.load_module(definition.path)
        if other is None:
            return None
        wanted = ast.ClassDef if kind == "class" else (ast.FunctionDef, ast.AsyncFunctionDef)
        for candidate in ast.walk(other.tree):
            if isinstance(candidate, wanted) and candidate.lineno == definition.line:
                return other, candidate
        # decorators shift `lineno` to the def line in 3.8+, jedi reports the name's line
        return None

    def external_keras_kind(self, context: ModuleContext, base: ast.AST) -> str | None:
        found = self._external(context, base, "class")
        if found is None:
            return None
        other, node = found
        self._depth += 1
        try:
            for cls in other.index.classes:
                if cls.node is node:
                    return other.keras_kind(cls)
        finally:
            self._depth -= 1
        return None

    def external_decorator_effects(self, context: ModuleContext, target: ast.AST) -> set[str]:
        found = self._external(context, target, "function")
        if found is None:
            return set()
        other, node = found
        self._depth += 1
        try:
            effects = other.body_effects(node)
            for decorator in getattr(node, "decorator_list", []):
                effects |= other.decorator_effects(decorator)
            return effects
        finally:
            self._depth -= 1

    def external_definition_path(self, context: ModuleContext, node: ast.AST) -> Definition | None:
        """Where an imported name is defined (for related information in findings)."""
        return self._definition(context, node)

    # ---- cross-module graph contexts ---------------------------------------------------------

    def module_file(self, module: str, importer: str) -> str | None:
        """The workspace file of a module imported by `importer` (absolute or relative)."""
        if module.startswith("."):
            level = len(module) - len(module.lstrip("."))
            base = Path(importer).resolve().parent
            for _ in range(level - 1):
                base = base.parent
            parts = [p for p in module.lstrip(".").split(".") if p]
            roots = [base]
        else:
            parts = module.split(".")
            roots = [r for r in (self.root, self.root / "src" if self.root else None) if r]
            roots.append(Path(importer).resolve().parent)
        for root in roots:
            candidate = root.joinpath(*parts)
            for path in (candidate.with_suffix(".py"), candidate / "__init__.py"):
                if path.is_file():
                    return str(path.resolve())
        return None

    def add_seeds(self, importer: str, calls: list[CrossModuleCall]) -> None:
        """Record the graph contexts that `importer`'s calls give functions of other modules."""
        for call in calls:
            path = self.module_file(call.module, importer)
            if path is not None:
                self.seeds.setdefault(path, {}).setdefault(call.function, call.context)

    def seeds_for(self, path: str) -> dict[str, GraphContext]:
        return self.seeds.get(str(Path(path).resolve()), {})

