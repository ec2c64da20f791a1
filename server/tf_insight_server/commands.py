"""`workspace/executeCommand` helpers that are not sessions: explain an error, show a rule,
check the workspace. Each runs on a command thread (the server's pool); the server module
registers them as commands."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Protocol

from lsprotocol import types

from tf_insight import read_text
from tf_insight.check import Analysis, Project, check_paths, iter_python_files, rules, split_lines
from tf_insight_server import conversions as conv
from tf_insight_server import worker
from tf_insight_server.analysis import Result
from tf_insight_server.diagnostics import DiagnosticsEngine, to_diagnostics
from tf_insight_server.documents import Snapshot
from tf_insight_server.projects import Projects
from tf_insight_server.settings import Settings

EXPLAIN_ERROR = "tfInsight.explainError"
START_SESSION = "tfInsight.startSession"
STOP_SESSION = "tfInsight.stopSession"
CHECK_WORKSPACE = "tfInsight.checkWorkspace"
SHOW_RULE = "tfInsight.showRule"
DEBUG_CONFIGURATION = "tfInsight.debugConfiguration"


class CommandError(ValueError):
    """Bad command arguments; the message is shown to the user."""


def first_object(args: tuple[Any, ...], command: str, example: str) -> dict[str, Any]:
    if len(args) == 1 and isinstance(args[0], dict):
        return args[0]
    raise CommandError(f"{command} expects one argument {example}, got {list(args)!r}"[:300])


def show_rule(args: tuple[Any, ...]) -> dict[str, str]:
    code = args[0] if args else None
    if isinstance(code, dict):
        code = code.get("code")
    if not isinstance(code, str):
        raise CommandError(f"{SHOW_RULE} expects a rule code such as \"TFI001\", got {list(args)!r}")
    rule = rules.get(code)
    if rule is None:
        known = ", ".join(r.code for r in rules.RULES)
        raise CommandError(f"unknown rule {code!r}; known rules: {known}")
    return {"markdown": rule.markdown(level=3)}


def explain_error(args: tuple[Any, ...], root: Path | None) -> dict[str, Any]:
    payload = first_object(args, EXPLAIN_ERROR, '{"text": "<traceback>"}')
    text = payload.get("text")
    if not isinstance(text, str) or not text.strip():
        raise CommandError(f"{EXPLAIN_ERROR}: `text` must be the error text, got {text!r}"[:300])
    # lazily: only this command needs the explain engine (~80 ms of the server's start)
    from tf_insight.explain import explain, render_markdown

    explanation = explain(text, root)
    return {"markdown": render_markdown(explanation), "explanation": explanation.to_dict()}


def count_files(targets: list[tuple[Path, Project]]) -> int:
    return sum(1 for root, project in targets
               for file in iter_python_files([root], project.config) if file.suffix != ".ipynb")


def check_workspace(targets: list[tuple[Path, Project]], cancel: threading.Event) -> Iterator[Analysis]:
    """Every Python file of every folder, each with its own fresh project (the shared ones keep
    serving the open documents meanwhile). Stops early when `cancel` is set."""
    for root, project in targets:
        if cancel.is_set():
            return
        for analysis in check_paths([root], project):
            if cancel.is_set():
                return
            if not analysis.path.endswith(".ipynb"):  # notebooks: cell by cell, once opened
                yield analysis


class WorkspaceClient(Protocol):
    """What the workspace check needs of the server (`TfInsightServer`)."""

    projects: Projects
    engine: DiagnosticsEngine
    encoding: str
    workspace_published: set[str]

    def analysis_config(self) -> tuple[Settings, tuple[str, ...]]: ...

    def post(self, fn: Callable[..., Any], *args: Any) -> None: ...

    def publish(self, uri: str, diagnostics: list[types.Diagnostic],
                version: int | None) -> None: ...

    def report_progress(self, token: str | None, message: str,
                        percentage: int | None = None) -> None: ...

    def open_keys(self) -> list[str]: ...


def run_workspace_check(ls: WorkspaceClient, token: str | None, cancel: threading.Event,
                        open_uris: set[str]) -> dict[str, Any]:
    """On a command thread: check every file, publish what closed files have, report
    progress; the graph contexts learnt across modules then reach the open documents."""
    roots = ls.projects.folders or [Path.cwd()]
    targets = [(root, ls.projects.fresh_project(root)) for root in roots]
    total = max(count_files(targets), 1)
    files = findings = 0
    last = 0.0
    published: set[str] = set()
    for analysis in check_workspace(targets, cancel):
        files += 1
        findings += len(analysis.findings)
        for error in analysis.errors:
            ls.engine.report(Result(Snapshot(key="", version=None, text="", path=analysis.path),
                                     errors=[error]))
        uri = conv.path_to_uri(analysis.path)
        if uri not in open_uris:
            text = analysis.module.source.text if analysis.module is not None else ""
            if not text and analysis.findings:
                try:
                    text = read_text(analysis.path)
                except OSError:
                    text = ""
            snapshot = Snapshot(key=uri, version=None, text=text, path=analysis.path,
                                lines=split_lines(text))
            diagnostics = to_diagnostics(Result(snapshot, findings=analysis.findings),
                                         ls.encoding).get(uri, [])
            if diagnostics or uri in ls.workspace_published:
                ls.publish(uri, diagnostics, None)
                published.add(uri)
        now = time.monotonic()
        if now - last > 0.2:
            last = now
            ls.report_progress(token, f"{files}/{total} files, {findings} findings",
                               min(100, files * 100 // total))
    ls.post(ls.workspace_published.update, published)
    if not cancel.is_set():
        # graph contexts learnt across modules now reach the open documents too
        settings, folders = ls.analysis_config()
        for root, project in targets:
            if project.seeds:
                ls.engine.submit(worker.merge_seeds, settings, folders, str(root),
                                 project.seeds).result()
        ls.post(ls.engine.invalidate_all, ls.open_keys())
    return {"files": files, "findings": findings, "cancelled": cancel.is_set()}
