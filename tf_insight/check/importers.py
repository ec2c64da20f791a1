"""The project modules that import the files being checked, and their importers: the only
modules whose calls can give those files graph contexts, so that checking some files finds
what checking the whole project finds for them.

Found without parsing the project each time. What each project file imports is read from its
text once (`imported_names`: every module name an import statement of the file names, and a
few that only look like one, never fewer) and kept in the on-disk cache (`cache.FileFacts`),
keyed by the file's path, size and modification time: a later check reads only the files
that changed since. An index from the last part of each imported name to its importers then
gives the candidates for a module (`from pkg import utils` names `utils`), confirmed by
resolving the name as Python would from the importer (`Project.module_file`).

The project is what `discovery` says it is under the project's root (its ignored folders and
virtual environments are not searched); an installed environment's `site-packages` is many
projects side by side, and there only the checked files' own top-level packages are.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

from tf_insight.check import cache
from tf_insight.check.discovery import iter_python_files
from tf_insight.check.project import Project
from tf_insight.check.source import SourceFile
from tf_insight.files import read_regular

CACHE_KIND, CACHE_VERSION = "imports", 1
ENVIRONMENT_FOLDERS = ("site-packages", "dist-packages")
# what may precede `import` on its line: the start of a statement, or a `from` clause
_BEFORE_IMPORT = re.compile(
    rb"(?:.*[;:])?[ \t]*(?:from[ \t]+(\.[. \t]*[\w.]*|[\w.]+)[ \t]+)?")
_COMMENT = re.compile(rb"#[^\n]*")


def importers_of(files: list[Path], project: Project, hops: int = 3,
                 use_cache: bool = True) -> list[Path]:
    """The project's modules that import one of `files`, and their importers, `hops` deep
    (in the order of the project's walk)."""
    if project.root is None or not files:
        return []
    index = ImportIndex(project, _searched(project, files), use_cache)
    wanted = {str(path.resolve()) for path in files}
    seen = set(wanted)
    found: set[str] = set()  # the importers as the walk spelt them
    for _ in range(hops):
        new: dict[str, str] = {}  # resolved → as spelt
        for importer, name in index.naming(wanted):
            resolved = os.path.realpath(importer)
            if (resolved not in seen and resolved not in new
                    and project.module_file(name, importer) in wanted):
                new[resolved] = importer
        if not new:
            break
        seen |= new.keys()
        found |= set(new.values())
        wanted = set(new)
    return [path for path in index.files if str(path) in found]


def _searched(project: Project, files: list[Path]) -> list[Path]:
    """The folders whose files may import the checked ones: the project's root, or in an
    installed environment the checked files' top-level packages."""
    root = project.root
    assert root is not None
    if root.name not in ENVIRONMENT_FOLDERS:
        return [root]
    tops: dict[Path, None] = {}
    for path in files:
        try:
            top = root / path.resolve().relative_to(root.resolve()).parts[0]
        except (ValueError, IndexError, OSError):
            continue
        tops[top] = None
    return list(tops)


class ImportIndex:
    """What each file under the searched folders imports, by the last part of the name."""

    def __init__(self, project: Project, folders: list[Path], use_cache: bool) -> None:
        assert project.root is not None
        self.files: list[Path] = []  # in walk order
        self._by_last_part: dict[str, list[tuple[str, str]]] = {}  # → (importer, name)
        facts = cache.FileFacts(CACHE_KIND, CACHE_VERSION, project.root.resolve())
        kept = facts.load() if use_cache else {}
        base = str(project.root) + os.sep
        # the entries of folders not searched stay (other packages of an environment)
        tops = [] if folders == [project.root] else [
            str(folder).removeprefix(base) for folder in folders]
        entries = {key: entry for key, entry in kept.items() if tops and not any(
            key == top or key.startswith(top + os.sep) for top in tops)}
        for path in iter_python_files(folders, project.config):
            text = str(path)
            try:
                stamp = cache.stamp(os.stat(text))
            except OSError:
                continue
            key = text.removeprefix(base)
            entry = kept.get(key)
            if entry is None or tuple(entry[:2]) != stamp or not isinstance(entry[2], list):
                entry = [*stamp, sorted(_names_in(path, project.config.max_file_size))]
            entries[key] = entry
            self.files.append(path)
            for name in entry[2]:
                self._by_last_part.setdefault(name.rpartition(".")[2], []).append((text, name))
        if use_cache and entries != kept:
            facts.save(entries)

    def naming(self, modules: set[str]) -> Iterator[tuple[str, str]]:
        """(importer, imported name) for the names that may be one of `modules` (their last
        part is the module's name; a bare `.` is its package's `__init__`)."""
        for last in {_module_name(path) for path in modules} | {""}:
            yield from self._by_last_part.get(last, ())


def _module_name(path: str) -> str:
    file = Path(path)
    return file.parent.name if file.stem == "__init__" else file.stem


def _names_in(path: Path, limit: int) -> set[str]:
    """The module names a file's import statements name; none for a file that cannot be
    read (the check says so when it reads it)."""
    try:
        if path.suffix == ".ipynb":  # the code cells' text, not the JSON around them
            return imported_names(SourceFile.read(path, limit).text.encode("utf-8"))
        return imported_names(read_regular(path, limit))
    except (OSError, UnicodeError):
        return set()


def imported_names(data: bytes) -> set[str]:
    """Every name an import statement of `data` names, as `ast` would list them: `a.b` for
    `import a.b as c`; `pkg`, `pkg.x` for `from pkg import x`; `.`, `.x` for `from . import
    x`. Found without parsing (a file is scanned in microseconds, parsed in milliseconds): at
    each `import`, the text before it on its line must be the start of a statement or a `from`
    clause, and what follows up to the end of the statement is its list of names. Text that
    only looks like an import (in a string) adds names; no import is missed."""
    names: set[str] = set()
    position = data.find(b"import")
    while position >= 0:
        end = position + 6
        line_start = data.rfind(b"\n", 0, position) + 1
        before = _BEFORE_IMPORT.fullmatch(data, line_start, position)
        if before is not None and data[end:end + 1] in (b" ", b"\t", b"(", b"\\"):
            aliases = [word.split()[0] for word in (
                part.replace(b"\\", b" ").strip() for part in _statement_rest(data, end))
                if word]
            base = before[1]
            if base is None:
                names.update(alias.decode("utf-8", "replace") for alias in aliases)
            else:
                module = base.replace(b" ", b"").replace(b"\t", b"").decode("utf-8", "replace")
                names.add(module)
                joiner = "." if module.strip(".") else ""
                names.update(module + joiner + alias.decode("utf-8", "replace")
                             for alias in aliases)
        position = data.find(b"import", end)
    return names


def _statement_rest(data: bytes, start: int) -> list[bytes]:
    """The comma-separated parts of an import statement after `import`: up to the closing
    parenthesis, or the end of its (backslash-continued) line, comments left out."""
    after = data[start:start + 200].lstrip(b" \t\\\r\n")
    if after.startswith(b"("):
        opening = data.index(b"(", start)
        parts: list[bytes] = []
        line_start = opening + 1
        while True:
            line_end = data.find(b"\n", line_start)
            line = _COMMENT.sub(b"", data[line_start:line_end if line_end >= 0 else len(data)])
            closing = line.find(b")")
            parts.append(line[:closing] if closing >= 0 else line)
            if closing >= 0 or line_end < 0:
                return b",".join(parts).split(b",")
            line_start = line_end + 1
    end = start
    while True:
        line_end = data.find(b"\n", end)
        if line_end < 0:
            line_end = len(data)
        if not data[end:line_end].rstrip(b"\r").endswith(b"\\"):
            break
        end = line_end + 1
    return _COMMENT.sub(b"", data[start:line_end]).split(b";")[0].split(b",")
