"""The static checker: source → findings, for `tf-insight check` and the language server.

One walk per file: `source` (text → tree, incremental edits) → `imports`/`names` (what each
name refers to) → `index` (functions, classes, calls) → `context` (the semantic model rules
read) → `graph_model` (which functions run as a graph, and how) with `project`/`resolve` (the same across modules, jedi into site-packages)
and `guards` (code that cannot see a symbolic tensor) → `rules/` (one rule per module) →
`analyzer` (findings of a file or a tree) → `fixes`, `report` (text/JSON/SARIF), `cli`.
`keras_flavor` decides which Keras a file runs on. Shared with the other features:
`tf_insight.findings` and `tf_insight.config`.

`__all__` is what the language server may use of the checker (besides the rule catalogue,
`rules`); each name loads its module on first use, so a part of the core that needs one
module (the session runner reads notebooks) does not load the whole checker.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tf_insight import _lazy_exports

if TYPE_CHECKING:
    from tf_insight.check import rules
    from tf_insight.check.analyzer import Analysis, check_paths, paused_gc
    from tf_insight.check.discovery import iter_python_files
    from tf_insight.check.graph_model import GraphFact
    from tf_insight.check.notebook import CellLines, cell_at, join_cells
    from tf_insight.check.project import Project
    from tf_insight.check.source import NOQA, split_lines

__all__ = [
    "NOQA",
    "Analysis",
    "CellLines",
    "GraphFact",
    "Project",
    "cell_at",
    "check_paths",
    "iter_python_files",
    "join_cells",
    "paused_gc",
    "rules",
    "split_lines",
]

__getattr__ = _lazy_exports(__name__, {
    "Analysis": "tf_insight.check.analyzer",
    "check_paths": "tf_insight.check.analyzer",
    "iter_python_files": "tf_insight.check.discovery",
    "paused_gc": "tf_insight.check.analyzer",
    "GraphFact": "tf_insight.check.graph_model",
    "CellLines": "tf_insight.check.notebook",
    "cell_at": "tf_insight.check.notebook",
    "join_cells": "tf_insight.check.notebook",
    "Project": "tf_insight.check.project",
    "NOQA": "tf_insight.check.source",
    "split_lines": "tf_insight.check.source",
})
