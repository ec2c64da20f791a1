"""`tf-insight trace nb.ipynb`: a notebook's code cells run in order in one process, as "Run All"
runs them, with the same probes as a script.

The code cells are joined as `check` joins them (`tf_insight.check.notebook`: magics and shell
escapes neutralised, each cell's line numbers kept) into a module in a private temporary
folder. The session runs that module with the notebook's folder as the working directory and
first on `sys.path` (where Jupyter would import the notebook's neighbours from), and every
place in that module that the session records — steps, traces, the verdict's line and the
static findings there, the traceback — is given back as (notebook, cell, line in the cell).
"""

from __future__ import annotations

import contextlib
import re
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path

from tf_insight.check.notebook import JoinedCells, Notebook
from tf_insight.findings import Span
from tf_insight.session.debuggee.messages import (
    FunctionCount,
    Link,
    StepEvent,
    SummaryEvent,
    TraceEvent,
    TracePrint,
    UserFrame,
    UserFunction,
)
from tf_insight.session.model import TraceResult
from tf_insight.session.wire import VerdictFrame


@dataclass(frozen=True)
class NotebookScript:
    notebook: Path
    script: Path  # the joined module that runs
    joined: JoinedCells

    @cached_property
    def lines(self) -> list[str]:
        """The joined module's lines (the source of a frame in it)."""
        return self.joined.text.splitlines()

    def place(self, path: str, line: int) -> tuple[str, int, int | None]:
        """(path, line, cell): the notebook's cell and line for a line of the joined module."""
        if path != str(self.script):
            return path, line, None
        cell, span = self.joined.to_cell(Span(line, 0, line, 0))
        return str(self.notebook), span.line, cell

    def frame(self, frame: UserFrame | None) -> UserFrame | None:
        """A recorded frame in the notebook's terms, with its source line."""
        if not frame or frame["path"] != str(self.script):
            return frame
        path, line, cell = self.place(frame["path"], frame["line"])
        return {**frame, "path": path, "line": line, "cell": cell,
                "source": self._source(frame["line"])}

    def verdict_frame(self, frame: VerdictFrame | None) -> VerdictFrame | None:
        """A verdict's line in the notebook's terms."""
        if not frame or frame["path"] != str(self.script):
            return frame
        path, line, cell = self.place(frame["path"], frame["line"])
        return {**frame, "path": path, "line": line, "cell": cell,
                "source": self._source(frame["line"])}

    def _source(self, joined_line: int) -> str | None:
        lines = self.lines
        return lines[joined_line - 1].strip() if 0 < joined_line <= len(lines) else None

    def record(self, event: StepEvent) -> StepEvent:
        """A step from the debuggee, before anything reads it (its `location` is a library
        line: never in the notebook)."""
        mapped: StepEvent = {**event, "user_frame": self.frame(event["user_frame"])}
        call_fn = event["call_fn"]
        if call_fn is not None:
            mapped["call_fn"] = {**call_fn, "chain": [self._link(link)
                                                      for link in call_fn["chain"]]}
        return mapped

    def trace(self, event: TraceEvent) -> TraceEvent:
        """A trace from the debuggee: its call site, and where its function is defined."""
        mapped: TraceEvent = {**event, "user_frame": self.frame(event["user_frame"])}
        if event["path"] == str(self.script):
            path, line, cell = self.place(event["path"], event["line"])
            mapped.update({"path": path, "line": line, "cell": cell})
        return mapped

    def summary(self, summary: SummaryEvent) -> SummaryEvent:
        """The debuggee's counters, its functions in the notebook's terms."""
        return {**summary,
                "functions": [self._definition(entry) for entry in summary["functions"]],
                "layer_runs": [{**run, "call": self._user(run["call"])}
                               for run in summary["layer_runs"]],
                "stale_globals": [{**stale, "reader": self._user(stale["reader"]) or
                                   stale["reader"]} for stale in summary["stale_globals"]],
                "prints": [self._print(found) for found in summary["prints"]],
                "attribute_writes": [{**write, "call": self._user(write["call"]) or write["call"]}
                                     for write in summary["attribute_writes"]]}

    def _print(self, found: TracePrint) -> TracePrint:
        if found["path"] != str(self.script):
            return found
        path, line, cell = self.place(found["path"], found["line"])
        return {**found, "path": path, "line": line, "cell": cell}

    def _definition(self, entry: FunctionCount) -> FunctionCount:
        mapped: FunctionCount = {**entry, "user_function": self._user(entry["user_function"])}
        if entry["path"] != str(self.script):
            return mapped
        path, line, cell = self.place(entry["path"], entry["line"])
        return {**mapped, "path": path, "line": line, "cell": cell}

    def _user(self, function: UserFunction | None) -> UserFunction | None:
        if function is None or function["path"] != str(self.script):
            return function
        path, line, cell = self.place(function["path"], function["line"])
        return {**function, "path": path, "line": line, "cell": cell}

    def _link(self, link: Link) -> Link:
        """A wrapper's definition in the notebook's terms."""
        if "path" not in link or link["path"] != str(self.script):
            return link
        path, line, cell = self.place(link["path"], link.get("line", 0))
        return {**link, "path": path, "line": line, "cell": cell}

    def result(self, result: TraceResult) -> None:
        """What was built from the joined module's places after the run: the verdict (its
        line, the findings there) and the traceback's text."""
        verdict = result.verdict
        if verdict is not None:
            findings = []
            for finding in verdict.findings:
                if finding.get("path") == str(self.script):
                    cell, span = self.joined.to_cell(Span(
                        int(finding["line"]), int(finding["column"]) - 1,
                        int(finding["end_line"]), int(finding["end_column"]) - 1))
                    finding = {**finding, "path": str(self.notebook), **span.to_dict(),
                               "cell": cell}
                findings.append(finding)
            result.verdict = replace(verdict, user_frame=self.verdict_frame(verdict.user_frame),
                                     findings=findings)
        if result.exception is not None:
            exception = result.exception
            result.exception = replace(
                exception, message=self.text(exception.message),
                traceback=self.text(exception.traceback),
                stack=[self._stack_entry(entry) for entry in exception.stack])

    def text(self, text: str) -> str:
        """A traceback or message in the notebook's terms: `File "<joined module>", line N`
        (Python's frames, AutoGraph's "in user code:") becomes the notebook's cell and line,
        and any other mention of the joined module names the notebook."""
        script = str(self.script)

        def in_cell(match: re.Match[str]) -> str:
            _path, line, cell = self.place(script, int(match[1]))
            return f'File "{self.notebook}", cell {cell}, line {line}'

        text = re.sub(rf'File "{re.escape(script)}", line (\d+)', in_cell, text)
        return text.replace(script, str(self.notebook))

    def _stack_entry(self, entry: str) -> str:
        """`path:function:line` of the unfiltered stack in the notebook's terms."""
        path, _, rest = entry.partition(":")
        function, _, line = rest.rpartition(":")
        if path != str(self.script) or not line.isdigit():
            return entry
        notebook, cell_line, cell = self.place(path, int(line))
        return f"{notebook}:cell {cell}:{function}:{cell_line}"


@contextlib.contextmanager
def notebook_script(notebook: Path) -> Iterator[NotebookScript]:
    """The notebook's code cells joined into a module, removed afterwards. Raises
    `NotebookError` (or OSError) for a file that is not a readable notebook."""
    joined = Notebook.parse(notebook.read_text(encoding="utf-8")).joined
    folder = Path(tempfile.mkdtemp(prefix="tf-insight-notebook-"))
    try:
        script = folder / f"{notebook.stem}.py"
        script.write_text(joined.text, encoding="utf-8")
        yield NotebookScript(notebook.resolve(), script.resolve(), joined)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
