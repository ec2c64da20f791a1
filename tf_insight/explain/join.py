"""Joining an explanation with the user's workspace: source files, static findings.

Tracebacks often come from another machine or a container (different prefix, Windows
paths), so frame paths are mapped onto the workspace by their longest matching tail. The
static analyzer is imported lazily and any failure in it becomes a note, never an error.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath, PureWindowsPath

from tf_insight.explain.model import Frame, FrameOrigin
from tf_insight.files import read_text
from tf_insight.findings import Finding

_MAX_FILES = 8
# Bounds on the search for a function's definition (the CLI's default root is the current
# directory, which may be a home folder).
_MAX_VISITED_FILES = 20_000
_SKIPPED_DIRECTORIES = frozenset(
    {
        ".git",
        ".hg",
        ".venv",
        "venv",
        "env",
        "node_modules",
        "__pycache__",
        "site-packages",
        "build",
        "dist",
    }
)


@dataclass
class Joined:
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def workspace_file(root: Path, path: str) -> Path | None:
    """The file under `root` that a traceback path refers to, if any."""
    if not path or path.startswith("<"):
        return None
    candidate = Path(path)
    if candidate.is_absolute() and _is_file_under(candidate, root):
        return candidate
    windows = "\\" in path or re.match(r"^[A-Za-z]:", path) is not None
    parts = (PureWindowsPath(path) if windows else PurePosixPath(path)).parts
    parts = tuple(
        part for part in parts if part not in ("/", "\\") and not part.endswith((":\\", ":"))
    )
    for start in range(len(parts)):  # longest tail first
        tail = root.joinpath(*parts[start:])
        if _is_file_under(tail, root):
            return tail
    return None


def _is_file_under(path: Path, root: Path) -> bool:
    try:
        return path.is_file() and path.resolve().is_relative_to(root.resolve())
    except (OSError, ValueError):
        return False


def join_findings(frames: Iterable[Frame], root: Path, rules: tuple[str, ...]) -> Joined:
    """Static findings on the user frames' lines, plus any finding of `rules`.

    `rules` are the rule codes related to the explained error: a finding of one of them
    anywhere in an involved file is kept (the RematScope traceback stops at `model.fit`,
    but the scope is elsewhere in the file). Other findings count only on a frame's own line
    (or the statement spanning it): a hazard a few lines away did not raise this error.
    """
    joined = Joined()
    lines_by_file: dict[Path, list[int]] = {}
    for frame in frames:
        if not frame.is_user:
            continue
        file = workspace_file(root, frame.path)
        if file is not None:
            lines_by_file.setdefault(file, []).append(frame.line)
    if not lines_by_file:
        return joined
    try:
        from tf_insight.check.analyzer import check_file
    except Exception as error:  # the analyzer is optional for explanations
        joined.notes.append(f"static analysis unavailable ({type(error).__name__}: {error})")
        return joined
    ranked: list[tuple[int, int, Finding]] = []
    for file, lines in list(lines_by_file.items())[:_MAX_FILES]:
        try:
            findings = check_file(file)
        except Exception as error:
            joined.notes.append(
                f"static analysis failed on {file}: {type(error).__name__}: {error}"
            )
            continue
        for finding in findings:
            distance = min(abs(finding.span.line - line) for line in lines)
            related = finding.code in rules
            there = any(finding.span.line <= line <= finding.span.end_line for line in lines)
            if related or there:
                ranked.append((0 if related else 1, distance, finding))
    ranked.sort(key=lambda item: (item[0], item[1], item[2].sort_key()))
    joined.findings = [finding for _, _, finding in ranked]
    return joined


def find_definition(root: Path, function: str) -> Frame | None:
    """Where `def <function>` is in the workspace (for warnings that only name a function)."""
    name = function.rsplit(".", 1)[-1]
    if not name.isidentifier():
        return None
    definition = re.compile(
        rf"^[ \t]*(?:async[ \t]+)?def[ \t]+{re.escape(name)}[ \t]*\(", re.MULTILINE
    )
    for file in _python_files(root):
        try:
            source = read_text(file)
        except OSError:
            continue
        match = definition.search(source)
        if match is not None:
            line = source.count("\n", 0, match.start()) + 1
            return Frame(
                path=str(file),
                line=line,
                function=name,
                code=match.group(0).strip(),
                is_user=True,
                origin=FrameOrigin.WORKSPACE,
            )
    return None


def _python_files(root: Path) -> Iterator[Path]:
    visited = 0
    for directory, subdirectories, files in os.walk(root):
        subdirectories[:] = sorted(
            name
            for name in subdirectories
            if name not in _SKIPPED_DIRECTORIES and not name.startswith(".")
        )
        visited += len(files) + 1
        if visited > _MAX_VISITED_FILES:
            return
        yield from (Path(directory, name) for name in sorted(files) if name.endswith(".py"))
