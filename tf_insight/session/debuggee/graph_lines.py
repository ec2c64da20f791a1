"""AutoGraph's rewrite of a graph function, run at the user's own file and lines.

AutoGraph does not trace the user's function: it generates a converted copy, writes it to
`<tmp>/__autograph_generated_file*.py` and traces that. A debugger watching the user's file
never sees a line of it run, so a breakpoint in a `@tf.function` body (or a `Dataset.map`
function, or a tf-keras `call`) never stops. Here every converted function is compiled again
from AutoGraph's own source, with each statement given the user's line (AutoGraph's source map
says which; a generated statement without one takes the line of the statement around it) and
the user's file as its file: the converted code then runs, for the debugger, at the user's
lines, so breakpoints there stop while TensorFlow traces the function, and stepping goes from
one of the user's lines to the next. Functions AutoGraph adds with none of the user's
statements (`get_state`, `set_state`, loop tests) keep the generated file and its lines, so a
debugger can leave them out of "my code" (`GENERATED_FILES`); converted functions get back
their own names (`step`, not `tf__step`).

Installed by `install()` before the user's code runs; it patches AutoGraph's loader as soon as
TensorFlow imports it. Anything unexpected leaves AutoGraph's own result untouched. Standard
library only (this runs in the user's interpreter).
"""

from __future__ import annotations

import ast
import contextlib
import importlib.abc
import importlib.machinery
import os
import sys
import tempfile
import types
from collections.abc import Iterator, Sequence
from typing import Any

LOADER = "tensorflow.python.autograph.pyct.loader"
PREFIX = "__autograph_generated_file"
CONVERTED_PREFIX = "tf__"  # AutoGraph's name for the converted copy of `f`: `tf__f`


def generated_files() -> str:
    """The glob of AutoGraph's generated files in this process (for a debugger's rules)."""
    return os.path.join(tempfile.gettempdir(), PREFIX + "*")


def install() -> None:
    """Patch AutoGraph's loader now if TensorFlow imported it, else when it does."""
    loader = sys.modules.get(LOADER)
    if loader is not None:
        _patch(loader)
    elif not any(isinstance(finder, _LoaderWatch) for finder in sys.meta_path):
        sys.meta_path.insert(0, _LoaderWatch())


class _LoaderWatch(importlib.abc.MetaPathFinder):
    """Finds nothing itself; wraps the real loader of AutoGraph's `loader` module so that
    the module is patched right after it runs."""

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: types.ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname != LOADER:
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is not None and spec.loader is not None:
            real = spec.loader

            class _Patching(importlib.abc.Loader):
                def create_module(self, spec: importlib.machinery.ModuleSpec
                                  ) -> types.ModuleType | None:
                    return real.create_module(spec)

                def exec_module(self, module: types.ModuleType) -> None:
                    real.exec_module(module)
                    _patch(module)

            spec.loader = _Patching()
        return spec


def _patch(loader: Any) -> None:
    original = loader.load_ast
    if getattr(original, "_tf_insight", False):
        return

    def load_ast(nodes: Any, indentation: str = "  ", include_source_map: bool = False,
                 delete_on_exit: bool = True) -> tuple[Any, str, Any]:
        module, source, source_map = original(nodes, indentation, True, delete_on_exit)
        with contextlib.suppress(Exception):  # anything unexpected: AutoGraph's result stands
            at_user_lines(module, source, source_map)
        return module, source, source_map if include_source_map else None

    load_ast._tf_insight = True  # type: ignore[attr-defined]
    loader.load_ast = load_ast


def at_user_lines(module: types.ModuleType, source: str, source_map: Any) -> bool:
    """Run the module's generated code again, compiled at the user's lines; False (and the
    module as AutoGraph made it) when the source map does not lead to one file."""
    origins = {location.lineno: origin for location, origin in source_map.items()}
    files = {origin.loc.filename for origin in origins.values()}
    if len(files) != 1 or not origins:
        return False
    (user_file,) = files
    tree = ast.parse(source)
    lines = _Lines({line: origin.loc.lineno for line, origin in origins.items()})
    first = min(lines.user.values())
    for statement in tree.body:
        lines.visit(statement, first, scaffolding=False)
    renames = {name: origins[line].function_name for name, line in lines.converted.items()
               if origins.get(line) is not None}
    code = compile(tree, user_file, "exec")
    exec(_relocated(code, module.__file__ or "", lines.scaffolding, renames), module.__dict__)
    return True


class _Lines:
    """Gives the generated statements their user lines, in place."""

    def __init__(self, user: dict[int, int]) -> None:
        self.user = user  # generated line → the user's line
        self.scaffolding: set[tuple[str, int]] = set()  # (name, a generated line of its body)
        self.converted: dict[str, int] = {}  # `tf__f` → its generated def line

    def visit(self, node: ast.AST, inherited: int, scaffolding: bool) -> None:
        line = getattr(node, "lineno", None)
        if line is not None and not scaffolding:
            if isinstance(node, ast.FunctionDef) and node.name.startswith(CONVERTED_PREFIX):
                self.converted.setdefault(node.name, line)
            inherited = self.user.get(line, inherited)
            node.lineno = node.end_lineno = inherited  # type: ignore[attr-defined]
            node.col_offset = node.end_col_offset = 0  # type: ignore[attr-defined]
        if isinstance(node, ast.FunctionDef) and not scaffolding and not any(
                statement.lineno in self.user for statement in _statements(node)):
            # none of the user's statements: its body keeps the generated lines (its `def`
            # line, where the enclosing function makes it, is the user's)
            scaffolding = True
            self.scaffolding.update((node.name, s.lineno) for s in _statements(node))
        for child in ast.iter_child_nodes(node):
            self.visit(child, inherited, scaffolding)


def _statements(function: ast.FunctionDef) -> Iterator[ast.stmt]:
    return (node for node in ast.walk(function) if node is not function
            and isinstance(node, ast.stmt))


def _relocated(code: types.CodeType, generated: str, scaffolding: set[tuple[str, int]],
               renames: dict[str, str]) -> types.CodeType:
    """Scaffolding functions' code in the generated file; converted functions named as the
    user's."""
    changes: dict[str, Any] = {"co_consts": tuple(
        _relocated(c, generated, scaffolding, renames) if isinstance(c, types.CodeType) else c
        for c in code.co_consts)}
    lines = {line for _start, _end, line in code.co_lines() if line}
    if any(name == code.co_name and line in lines for name, line in scaffolding):
        changes["co_filename"] = generated
    elif code.co_name in renames:
        name = renames[code.co_name]
        changes["co_name"] = name
        if hasattr(code, "co_qualname"):  # Python 3.11+
            changes["co_qualname"] = code.co_qualname.replace(code.co_name, name)
    return code.replace(**changes)
