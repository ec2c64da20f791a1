"""`workspace/executeCommand` helpers that are not sessions: explain an error, show a rule,
check the workspace. Each is a plain function run in a worker thread; the server module turns
them into commands."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tf_insight.check import rules
from tf_insight.check.analyzer import Analysis, check_paths, iter_python_files
from tf_insight.check.project import Project
from tf_insight.explain.render import render_markdown

EXPLAIN_ERROR = "tfInsight.explainError"
START_SESSION = "tfInsight.startSession"
STOP_SESSION = "tfInsight.stopSession"
CHECK_WORKSPACE = "tfInsight.checkWorkspace"
SHOW_RULE = "tfInsight.showRule"


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
    from tf_insight.explain import explain  # lazily: only this command needs it

    explanation = explain(text, root)
    return {"markdown": render_markdown(explanation), "explanation": explanation.to_dict()}


def count_files(targets: list[tuple[Path, Project]]) -> int:
    return sum(1 for root, project in targets for _ in iter_python_files([root], project.config))


def check_workspace(targets: list[tuple[Path, Project]], cancel: threading.Event) -> Iterator[Analysis]:
    """Every Python file of every folder, each with its own fresh project (the shared ones keep
    serving the open documents meanwhile). Stops early when `cancel` is set."""
    for root, project in targets:
        if cancel.is_set():
            return
        for analysis in check_paths([root], project):
            if cancel.is_set():
                return
            yield analysis
