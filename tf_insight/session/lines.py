"""The user's lines a verdict names: with their source, the static findings there, and the
function defined at a line of a file (with its findings), for the verdicts of `verdict.py`
and `hazards.py`."""

from __future__ import annotations

import ast
import linecache
from pathlib import Path
from typing import Any

from tf_insight.findings import Finding
from tf_insight.session.debuggee.messages import UserFrame
from tf_insight.session.wire import VerdictFrame

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


def place(frame: UserFrame | None) -> VerdictFrame | None:
    """A user frame with its source line, read from the file."""
    if not frame:
        return None
    path, line = frame["path"], frame["line"]
    source = frame.get("source") or linecache.getline(path, line).strip() or None
    placed: VerdictFrame = {"path": path, "line": line, "function": frame["function"],
                            "source": source}
    cell = frame.get("cell")
    if cell:
        placed["cell"] = cell
    return placed


def findings_at(frame: VerdictFrame | None, root: Path | None,
                rule: str | None) -> list[dict[str, Any]]:
    """Static findings at or near the user's line (and of the verdict's rule in that file)."""
    if frame is None:
        return []
    try:
        from tf_insight.explain.join import join_findings
        from tf_insight.explain.model import Frame
    except ImportError:
        return []
    where = Frame(path=frame["path"], line=frame["line"], function=frame["function"],
                  code=frame.get("source"), is_user=True)
    base = root or Path(frame["path"]).parent
    joined = join_findings([where], base, (rule,) if rule else ())
    return [finding.to_dict() for finding in joined.findings]


class CheckedFiles:
    """Files read and checked once each (their tree and static findings; none where a file
    cannot be read)."""

    def __init__(self) -> None:
        self._files: dict[str, tuple[ast.Module | None, list[Finding]]] = {}

    def function_at(self, path: str, line: int) -> FunctionNode | None:
        """The function whose definition (its first decorator) starts at `line`."""
        tree, _ = self._checked(path)
        for node in ast.walk(tree) if tree is not None else ():
            if isinstance(node, FunctionNode) and _start(node) == line:
                return node
        return None

    def findings_in(self, path: str, node: FunctionNode, code: str) -> list[Finding]:
        """The static findings of rule `code` in `node`'s body."""
        _, findings = self._checked(path)
        end = node.end_lineno or node.lineno
        return [f for f in findings if f.code == code and node.lineno <= f.span.line <= end]

    def findings_on(self, path: str, line: int) -> list[dict[str, Any]]:
        """The static findings on `line` of `path` (`Finding.to_dict`)."""
        _, findings = self._checked(path)
        return [finding.to_dict() for finding in findings if finding.span.line == line]

    def _checked(self, path: str) -> tuple[ast.Module | None, list[Finding]]:
        if path not in self._files:
            try:
                from tf_insight.check.analyzer import check_file
                from tf_insight.check.source import SourceFile
                self._files[path] = SourceFile.read(path).tree, check_file(path)
            except (ImportError, OSError, SyntaxError, ValueError):
                self._files[path] = None, []
        return self._files[path]


def first_read(node: FunctionNode, name: str) -> int | None:
    """The first line of `node` that reads the name `name`."""
    lines = [child.lineno for child in ast.walk(node)
             if isinstance(child, ast.Name) and child.id == name
             and isinstance(child.ctx, ast.Load)]
    return min(lines) if lines else None


def first_store(node: FunctionNode, attribute: str) -> int | None:
    """The first line of `node` that assigns `self.<attribute>` (`=`, `+=`...)."""
    lines = [child.lineno for child in ast.walk(node)
             if isinstance(child, ast.Attribute) and child.attr == attribute
             and isinstance(child.ctx, ast.Store) and isinstance(child.value, ast.Name)
             and child.value.id == "self"]
    return min(lines) if lines else None


def _start(node: FunctionNode) -> int:
    return min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)])
