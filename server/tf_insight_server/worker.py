"""The analysis worker process.

Analysis is CPU-bound Python. On a thread it holds the GIL for long stretches and starves the
event loop that reads the client's messages (1,000 quick edits took 26 s to drain that way);
in a separate process the loop stays responsive and a second core is used. The worker keeps the
projects (jedi, parsed neighbours, cross-module seeds) between jobs; every job carries the
settings and folders, so the worker rebuilds them when those change.

Everything here runs in the worker; the functions are module-level so they can be pickled.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import threading
import time
from typing import Any

from tf_insight_server.analysis import Result, analyze
from tf_insight_server.documents import Snapshot
from tf_insight_server.projects import Projects
from tf_insight_server.settings import Settings

_state: dict[str, Any] = {"key": None, "projects": None, "warnings": [], "generation": 0}


def watch_parent(parent: int) -> None:
    """Pool initializer: exit when the server dies. A killed server (SIGKILL from an editor
    restarting it) cannot shut the pool down, and the worker would wait for jobs forever."""

    def watch() -> None:
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:
                os._exit(0)

    threading.Thread(target=watch, name="tfi-watch-parent", daemon=True).start()


def _projects(settings: Settings, folders: tuple[str, ...]) -> Projects:
    key = (settings, folders)
    if _state["key"] != key or _state["projects"] is None:
        projects = Projects(warn=_state["warnings"].append)
        projects.set_folders(folders)
        projects.set_settings(settings)
        _state.update(key=key, projects=projects)
    projects = _state["projects"]
    assert isinstance(projects, Projects)
    return projects


def run(settings: Settings, folders: tuple[str, ...], snapshot: Snapshot, generation: int = 0,
        facts_known: bool = False) -> tuple[Result, list[str]]:
    """Analyse one snapshot: the result and new warnings (a bad pyproject.toml...) for the
    user. A new `generation` (the server's: every document is to be analysed afresh, since a
    file was saved or graph contexts were learnt) voids the findings kept for reuse. (The
    worker never imports lsprotocol or pygls: it starts faster without them.)"""
    projects = _projects(settings, folders)
    if generation != _state["generation"]:
        _state["generation"] = generation
        projects.forget_findings()
    result = analyze(snapshot, projects, facts_known)
    warnings, _state["warnings"] = list(_state["warnings"]), []
    # the server has the text: sending it back would copy the document once more
    return dataclasses.replace(result, snapshot=dataclasses.replace(
        snapshot, text="", lines=[], cells=())), warnings


def warm_up(settings: Settings, folders: tuple[str, ...]) -> None:
    """Import everything and build the projects before the first document arrives (jedi starts
    on first need: starting it here would delay the first diagnostics by seconds)."""
    _projects(settings, folders)


def merge_seeds(settings: Settings, folders: tuple[str, ...], root: str,
                seeds: dict[str, dict[str, Any]]) -> None:
    """Graph contexts a workspace check learnt across modules."""
    from pathlib import Path

    entry = _projects(settings, folders).entry(Path(root))
    with entry.lock:
        entry.project.merge_seeds(seeds)


def status() -> dict[str, Any]:
    return {"pid": os.getpid(), "tensorflowImported": "tensorflow" in sys.modules}
