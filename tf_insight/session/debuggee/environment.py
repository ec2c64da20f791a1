"""Environment probe: runs in the user's interpreter and resolves probe lines, importing nothing.

Started as `python -I environment.py [FOLDER]` (FOLDER: the editor extension's bundled debugpy,
which the session puts first on the debuggee's path). Reads probe specs (JSON list on stdin), prints one JSON object: interpreter, versions of
debugpy/TensorFlow/Keras, and for each spec found the (path, line) of its anchor statement.
Lines come from the source's AST (a statement's first line always has code); the client then
checks that debugpy verified each breakpoint on exactly that line. TensorFlow is never
imported (that takes seconds).
"""

from __future__ import annotations

import ast
import functools
import gc
import importlib.metadata
import importlib.util
import json
import os
import re
import sys
from typing import Any

DISTRIBUTIONS = {
    "debugpy": ("debugpy",),
    "tensorflow": ("tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tf-nightly"),
    "keras": ("keras",),
    "tf_keras": ("tf-keras", "tf_keras"),
}


def main() -> int:
    gc.disable()  # a short-lived process: collections over the big ASTs only cost time (~30%)
    sys.path[:0] = sys.argv[1:]  # the editor extension's own debugpy, looked for first
    specs: list[dict[str, str]] = json.load(sys.stdin)
    packages = {name: _package(name) for name in DISTRIBUTIONS}
    probes, problems = [], []
    for spec in specs:
        package = packages.get(spec["package"])
        if package is None:
            continue
        path = os.path.join(package["path"], *spec["file"].split("/"))
        try:
            line = _anchor_line(path, spec["function"], spec["anchor"])
        except (OSError, SyntaxError, LookupError) as error:
            problems.append(f"{spec['name']}: {error}")
            continue
        probes.append({"name": spec["name"], "path": path, "line": line})
    json.dump(
        {
            "python": sys.version.split()[0],
            "executable": sys.executable,
            "packages": packages,
            "probes": probes,
            "problems": problems,
        },
        sys.stdout,
    )
    return 0


def _package(name: str) -> dict[str, Any] | None:
    spec = importlib.util.find_spec(name)  # top-level: locates without importing
    if spec is None or not spec.submodule_search_locations:
        return None
    version = None
    for distribution in DISTRIBUTIONS[name]:
        try:
            version = importlib.metadata.version(distribution)
            break
        except importlib.metadata.PackageNotFoundError:
            continue
    return {
        "path": os.path.abspath(next(iter(spec.submodule_search_locations))),
        "version": version,
    }


@functools.cache
def _parsed(path: str) -> tuple[list[str], ast.Module]:
    """Source lines and AST of a file (several probes share a file)."""
    with open(path, encoding="utf-8") as file:
        source = file.read()
    return source.splitlines(), ast.parse(source, path)


def _anchor_line(path: str, qualname: str, anchor: str) -> int:
    """First line of the statement in function `qualname` whose first line matches `anchor`."""
    lines, tree = _parsed(path)
    function = _find_function(tree, qualname.split("."))
    pattern = re.compile(anchor)
    for node in _statements(function):
        if pattern.search(lines[node.lineno - 1]):
            return node.lineno
    raise LookupError(f"no statement matching {anchor!r} in {qualname}")


def _find_function(tree: ast.AST, parts: list[str]) -> ast.AST:
    scope = tree
    for part in parts:
        for node in ast.iter_child_nodes(scope):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and (
                node.name == part
            ):
                scope = node
                break
        else:
            raise LookupError(f"{'.'.join(parts)} not found")
    return scope


def _statements(function: ast.AST) -> list[ast.stmt]:
    """Statements of `function` in source order, not entering nested functions or classes."""
    found: list[ast.stmt] = []
    pending = list(ast.iter_child_nodes(function))
    while pending:
        node = pending.pop(0)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.stmt):
            found.append(node)
        pending.extend(ast.iter_child_nodes(node))
    return sorted(found, key=lambda node: node.lineno)


if __name__ == "__main__":
    sys.exit(main())
