"""The analysis worker's side of the diagnostics (it runs in the worker process, `worker.py`):
run the core on a snapshot and keep plain, picklable data (the findings and the graph-mode
facts hovers need), so the event loop never touches the AST, jedi or the project.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from tf_insight import Finding
from tf_insight.check import GraphFact, paused_gc
from tf_insight_server.documents import MAX_CHARS, MAX_LINES, Snapshot
from tf_insight_server.projects import Projects

MAX_FINDINGS_PER_RULE = 200  # per document: more is noise in an editor, and costs seconds


@dataclass
class Result:
    snapshot: Snapshot
    findings: list[Finding] = field(default_factory=list)
    graph: list[GraphFact] = field(default_factory=list)
    # the graph facts are those of the last result for this document, and were left out
    # (most keystrokes change none; the server keeps them, and asks for them when it has none)
    same_graph: bool = False
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # a limit was reached
    skipped: str | None = None  # why the file was not analysed (too large, binary)
    seconds: float = 0.0  # wall clock
    cpu_seconds: float = 0.0  # this thread's CPU time: what an unloaded machine would see


def unanalysable(path: str, text: str) -> str | None:
    """Why a document is not analysed (too large, binary), or None. Asked before a snapshot
    is made and sent to the worker: a 30 MB document would otherwise be split into lines and
    copied to the worker and back."""
    if len(text) > MAX_CHARS or text.count("\n") >= MAX_LINES:
        return (f"{path}: not analysed, too large ({text.count(chr(10)) + 1} lines, "
                f"{len(text)} characters; the limit is {MAX_LINES:,} lines, "
                f"{MAX_CHARS:,} characters)")
    if "\x00" in text:
        return f"{path}: not analysed, binary content (NUL bytes)"
    return None


def analyze(snapshot: Snapshot, projects: Projects, facts_known: bool = False) -> Result:
    """Never raises: whatever goes wrong ends up in `Result.errors`. `facts_known`: the server
    has the graph facts of this document's last result (see `Result.same_graph`)."""
    started, cpu_started = time.perf_counter(), time.thread_time()
    result = Result(snapshot)
    text = snapshot.text
    result.skipped = unanalysable(snapshot.path, text)
    if result.skipped is not None:
        return result
    try:
        entry = projects.entry_for(snapshot.path)
        with entry.lock, paused_gc():
            analysis = entry.analyze(snapshot.path, text, limit=MAX_FINDINGS_PER_RULE)
            result.findings = list(analysis.findings)
            result.errors = list(analysis.errors)
            result.notes = list(analysis.notes)
            if analysis.module is not None:
                if entry.facts_changed(snapshot.path, analysis.graph_facts) or not facts_known:
                    result.graph = analysis.graph_facts
                else:
                    result.same_graph = True
                # calls from here into other workspace modules give them graph contexts
                entry.project.learn_from(analysis.module)
    except (RecursionError, MemoryError, Exception) as error:
        result.errors.append(f"analysis of {snapshot.path} failed: {type(error).__name__}: {error}")
    result.seconds = time.perf_counter() - started
    result.cpu_seconds = time.thread_time() - cpu_started
    return result
