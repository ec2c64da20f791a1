"""One :class:`tf_insight.check.project.Project` per workspace folder, kept and reused: it holds the
jedi resolver, parsed neighbour modules and cross-module graph contexts, all expensive to build.

A project is rebuilt when the editor settings change or the folder's pyproject.toml changes.
Projects are not thread-safe (jedi is not): every use goes through `Entry.lock`.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from tf_insight import config as config_module
from tf_insight.check import incremental, rules
from tf_insight.check.analyzer import Analysis
from tf_insight.check.graph_model import GraphFact
from tf_insight.check.incremental import Memo
from tf_insight.check.project import Project, project_root
from tf_insight.check.source import SourceFile
from tf_insight.config import Config, ConfigError
from tf_insight_server.settings import Settings

MAX_KEPT_DOCUMENTS = 32
CODES = tuple(rule.code for rule in rules.RULES)  # what a rule selector may name


@dataclass
class Edited:
    """An open document as last analysed: its parse (the next version is parsed
    incrementally, `SourceFile.edited`) and what its analysis left for the next
    (`incremental.Memo`: the findings of the statements an edit leaves alone are reused)."""

    source: SourceFile
    memo: Memo | None = None
    facts: list[GraphFact] | None = None  # the graph facts of the last result sent


@dataclass
class Entry:
    root: Path
    project: Project
    stamp: tuple[int, int] | None  # the pyproject.toml it was built from (size, mtime)
    lock: threading.RLock = field(default_factory=threading.RLock)
    # recently analysed documents, most recent last
    documents: OrderedDict[str, Edited] = field(default_factory=OrderedDict)

    def analyze(self, path: str, text: str, limit: int | None = None) -> Analysis:
        """Analyse a version of an open document, from what its last analysis left."""
        document = self.documents.pop(path, None)
        if document is None:
            document = Edited(SourceFile.parse(path, text, editable=True))
        else:
            document.source = document.source.edited(text)
        analysis, document.memo = incremental.analyze(document.source, self.project,
                                                      document.memo, limit)
        self.documents[path] = document
        while len(self.documents) > MAX_KEPT_DOCUMENTS:
            self.documents.popitem(last=False)
        return analysis

    def facts_changed(self, path: str, facts: list[GraphFact]) -> bool:
        """Whether a document's graph facts differ from those last sent (now these)."""
        document = self.documents[path]
        changed = document.facts != facts
        document.facts = facts
        return changed

    def forget_findings(self) -> None:
        """Everything is to be analysed afresh (a file on disk or the seeds changed): the
        parses stay, the findings kept for reuse and what the project's files told go."""
        for document in self.documents.values():
            document.memo = None
        self.project.forget_scan()


class Projects:
    def __init__(self, warn: Callable[[str], None]) -> None:
        self._warn = warn
        self._folders: list[Path] = []
        self._entries: dict[Path, Entry] = {}
        self._settings = Settings()
        self._warned: set[str] = set()
        self._lock = threading.Lock()

    # ---- configuration ----------------------------------------------------------------------

    def set_folders(self, folders: Iterable[str]) -> None:
        with self._lock:
            self._folders = sorted({Path(f).resolve() for f in folders},
                                   key=lambda p: len(p.parts), reverse=True)

    @property
    def folders(self) -> list[Path]:
        return list(self._folders)

    def set_settings(self, settings: Settings) -> None:
        with self._lock:
            self._settings = settings
            self._entries.clear()

    @property
    def settings(self) -> Settings:
        return self._settings

    # ---- lookup -----------------------------------------------------------------------------

    def root_for(self, path: str) -> Path:
        """The workspace folder holding `path` (the innermost one), else the root of its own
        project (`project_root`)."""
        resolved = Path(path).resolve() if os.path.isabs(path) else Path(path).absolute()
        return self._workspace_folder(resolved) or project_root(resolved)

    def _workspace_folder(self, path: Path) -> Path | None:
        return next((folder for folder in self._folders
                     if folder == path or folder in path.parents), None)

    def entry_for(self, path: str) -> Entry:
        return self.entry(self.root_for(path))

    def entry(self, root: Path) -> Entry:
        stamp = _pyproject_stamp(root)
        with self._lock:
            entry = self._entries.get(root)
            if entry is not None and entry.stamp == stamp:
                return entry
            entry = Entry(root=root, project=Project(config=self.config(root), root=root),
                          stamp=stamp)
            self._entries[root] = entry
            return entry

    def config(self, root: Path) -> Config:
        """pyproject's `[tool.tf-insight]` with the editor settings on top; a bad pyproject or
        setting is reported once and replaced by the defaults. Trust is the workspace's: a
        project outside the workspace folders (a file opened from elsewhere) gets none."""
        trusted = self._settings.trusted_workspace and self._workspace_folder(root) is not None
        try:
            base = config_module.load(root, trust_workspace=trusted, codes=CODES)
        except ConfigError as error:
            self._warn_once(f"{error}; using the defaults")
            base = Config()
        if base.ignored_settings:
            self._warn_once(f"TF Insight: not reading the settings of {base.ignored_settings}")
        if base.ignored_python and self._settings.interpreter is None:
            self._warn_once(f"TF Insight: not running the interpreter {base.ignored_python}: "
                            "the workspace is not trusted. Trust it, or set tfInsight.interpreter "
                            "in your user settings.")
        try:
            return self._settings.apply(base).merged(CODES)  # merged: its rule codes checked
        except ConfigError as error:
            self._warn_once(f"tfInsight: {error}; ignoring the editor settings")
            return base

    def forget_findings(self) -> None:
        """See `Entry.forget_findings`: for every project."""
        with self._lock:
            entries = list(self._entries.values())
        for entry in entries:
            with entry.lock:
                entry.forget_findings()

    def fresh_project(self, root: Path) -> Project:
        """A new project for a long job (workspace check) that must not block the shared one."""
        return Project(config=self.config(root), root=root)

    def _warn_once(self, message: str) -> None:
        if message not in self._warned:
            self._warned.add(message)
            self._warn(message)


def _pyproject_stamp(root: Path) -> tuple[int, int] | None:
    try:
        stat = (root / "pyproject.toml").stat()
    except OSError:
        return None
    return stat.st_size, stat.st_mtime_ns
