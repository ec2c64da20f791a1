"""Findings → LSP diagnostics, and the engine that keeps them fresh.

Push (`textDocument/publishDiagnostics`) for clients without pull support; pull
(`textDocument/diagnostic`, `resultId = f"{uri}@{version}"`) for the others — a client that
supports both would otherwise show every finding twice.

Scheduling (event loop side): per document, at most one analysis runs at a time, in one worker
process (see `worker`: a thread would starve the event loop of the GIL). A change starts the
analysis of the latest text at once (no debounce: an edit's diagnostics should arrive before
the next keystroke, and the worker parses only what changed); changes that arrive meanwhile
are coalesced: the newest text is analysed next. A result the user typed past is still
published, under its own version, when those edits moved no line (a typist faster than the
analysis would otherwise see no diagnostics until they pause); the last publish is always the
current version's.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

from lsprotocol import types

from tf_insight import Finding
from tf_insight.check import GraphFact, rules
from tf_insight_server import conversions as conv
from tf_insight_server import worker
from tf_insight_server.analysis import Result, unanalysable
from tf_insight_server.documents import CLOSED, Snapshot
from tf_insight_server.settings import Settings

SOURCE = "tf-insight"
# One document's analysis, in the worker process (never on a thread of the server: a thread
# cannot be stopped). A file that takes longer is crafted; the worker is killed and replaced.
ANALYSIS_TIMEOUT_S = 15.0
log = logging.getLogger(__name__)


def to_diagnostics(result: Result, encoding: str) -> dict[str, list[types.Diagnostic]]:
    """Diagnostics by document URI (one per cell for a notebook; every cell gets a list, empty
    ones included, so fixed findings disappear)."""
    snapshot = result.snapshot
    placer = conv.Placer(snapshot, encoding)
    by_uri: dict[str, list[types.Diagnostic]] = {
        cell.uri: [] for cell in snapshot.cells} if snapshot.is_notebook else {snapshot.key: []}
    for number, finding in enumerate(result.findings):
        located = placer.place(finding.span)
        by_uri.setdefault(located.uri, []).append(
            _diagnostic(finding, number, located, placer, result))
    return by_uri


def _diagnostic(finding: Finding, number: int, located: conv.Located, placer: conv.Placer,
                result: Result) -> types.Diagnostic:
    rule = rules.get(finding.code)
    related = []
    for item in finding.related:
        where = placer.place(item.span, item.path)
        related.append(types.DiagnosticRelatedInformation(
            location=types.Location(uri=where.uri, range=where.range), message=item.message))
    return types.Diagnostic(
        range=located.range,
        message=finding.message,
        severity=conv.SEVERITY[finding.severity],
        code=finding.code,
        code_description=types.CodeDescription(href=rule.url) if rule is not None else None,
        source=SOURCE,
        related_information=related or None,
        # `finding`: its index in the analysed result, where code actions find its fix.
        data={"code": finding.code, "name": finding.name, "uri": located.uri,
              "key": result.snapshot.key, "version": result.snapshot.version,
              "finding": number},
    )


# ---- the engine (event loop) -------------------------------------------------------------------


@dataclass
class Analysed:
    """A result and its diagnostics, as kept for pulls, hovers and code actions."""

    result: Result
    diagnostics: dict[str, list[types.Diagnostic]]
    generation: int
    stale: bool = False  # skipped: the document changed before the worker got to it

    @property
    def version(self) -> int | None:
        return self.result.snapshot.version


@dataclass
class _State:
    task: asyncio.Task[None] | None = None
    inflight: tuple[int | None, int, asyncio.Task[Analysed]] | None = None
    published: set[str] = field(default_factory=set)


def _lines_unmoved(analysed: Snapshot, now: Snapshot | None) -> bool:
    """Whether the diagnostics of `analysed` still sit on the right lines of `now` (the same
    cells, and no line added or removed)."""
    return (now is not None and analysed.cells == now.cells
            and analysed.text.count("\n") == now.text.count("\n"))


class DiagnosticsEngine:
    """Keeps the diagnostics of the open documents fresh (see above). What it asks of the
    server, on the event loop: `config()`, the settings and workspace folders to analyse with;
    `snapshot(key)`, a document's text now (None once closed); `version(key)`, its version,
    cheaply; `publish(uri, diagnostics, version)`; `log_message(kind, text)` for the output
    log and `warn(text)` for the user; `encoding()`, the client's position encoding."""

    def __init__(
        self,
        *,
        config: Callable[[], tuple[Settings, tuple[str, ...]]],
        snapshot: Callable[[str], Snapshot | None],
        version: Callable[[str], object],
        publish: Callable[[str, list[types.Diagnostic], int | None], None],
        log_message: Callable[[types.MessageType, str], None],
        warn: Callable[[str], None],
        encoding: Callable[[], str],
    ) -> None:
        self._config = config
        self._warn = warn
        self._snapshot = snapshot
        self._version = version  # asked before and after each analysis
        self._publish = publish
        self._log = log_message
        self._encoding = encoding
        self.push = True
        self.generation = 0  # bumped when every document must be analysed again
        self.results: dict[str, Analysed] = {}
        self._states: dict[str, _State] = {}
        self._logged: set[str] = set()
        self._executor: ProcessPoolExecutor | None = None
        self.timings: list[float] = []  # analysis seconds, the last 200 (debug request)
        # each document's graph facts, as the last result had them (later ones leave out
        # the facts that did not change: see `Result.same_graph`)
        self._facts: dict[str, list[GraphFact]] = {}
        self.cpu_timings: list[float] = []

    # ---- the worker process ---------------------------------------------------------------

    def pool(self) -> ProcessPoolExecutor:
        if self._executor is None:
            self._executor = ProcessPoolExecutor(
                max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                initializer=worker.watch_parent, initargs=(os.getpid(),))
        return self._executor

    async def start(self) -> None:
        """Spawn the worker and warm it up (imports, jedi) while the client opens files."""
        settings, folders = self._config()
        try:
            await asyncio.get_running_loop().run_in_executor(
                self.pool(), worker.warm_up, settings, folders)
        except Exception as error:
            self._log(types.MessageType.Warning, f"tf-insight: analysis worker warm-up: {error}")

    async def in_worker(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Run a module-level function in the worker; a crashed worker is replaced once."""
        loop = asyncio.get_running_loop()
        for attempt in (1, 2):
            pool = self.pool()
            try:
                return await loop.run_in_executor(pool, fn, *args)
            except BrokenProcessPool:
                if self._executor is pool:
                    self._executor = None
                    pool.shutdown(wait=False, cancel_futures=True)
                self._log(types.MessageType.Error,
                          "tf-insight: the analysis worker died; starting a new one")
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    # ---- events ---------------------------------------------------------------------------

    def changed(self, key: str) -> None:
        """A document (or notebook) was opened, edited or saved."""
        if not self.push:
            return
        state = self._states.setdefault(key, _State())
        if state.task is None or state.task.done():
            state.task = asyncio.get_running_loop().create_task(self._push_loop(key))

    def closed(self, key: str, uris: Sequence[str] = ()) -> None:
        state = self._states.pop(key, None)
        if state is not None and state.task is not None:
            state.task.cancel()
        self.results.pop(key, None)
        self._facts.pop(key, None)
        if self.push:
            for uri in {*(state.published if state else ()), *uris}:
                self._publish(uri, [], None)

    def invalidate_all(self, keys: Sequence[str]) -> None:
        """Settings or a neighbour changed: analyse every open document again."""
        self.generation += 1
        for key in keys:
            self.changed(key)

    # ---- analysis -------------------------------------------------------------------------

    async def analysed(self, key: str) -> Analysed | None:
        """The analysis of the document's current text (cached; in-flight work is shared and
        survives the cancellation of any one waiter)."""
        stale_version: object = CLOSED  # none yet
        while True:
            snapshot = self._snapshot(key)
            if snapshot is None:
                return None
            # the same version judged stale twice would spin forever: analyse it anyway
            force = snapshot.version == stale_version
            cached = self.results.get(key)
            if (cached is not None and cached.version == snapshot.version
                    and cached.generation == self.generation
                    and cached.result.snapshot.text == snapshot.text):
                return cached
            state = self._states.setdefault(key, _State())
            if (state.inflight is not None and state.inflight[0] == snapshot.version
                    and state.inflight[1] == self.generation and not force):
                task = state.inflight[2]
            else:
                task = asyncio.get_running_loop().create_task(
                    self._compute(key, snapshot, self.generation, force))
                state.inflight = (snapshot.version, self.generation, task)
            analysed = await asyncio.shield(task)
            if not analysed.stale:
                return analysed
            stale_version = snapshot.version

    async def _compute(self, key: str, snapshot: Snapshot, generation: int,
                       force: bool = False) -> Analysed:
        try:
            analysed = await self._work(key, snapshot, generation, force)
        finally:
            state = self._states.get(key)
            if state is not None and state.inflight is not None and \
                    state.inflight[2] is asyncio.current_task():
                state.inflight = None
        if not analysed.stale:
            self.report(analysed.result)
            if self._version(key) == snapshot.version and generation == self.generation:
                self.results[key] = analysed
        return analysed

    async def _work(self, key: str, snapshot: Snapshot, generation: int,
                    force: bool = False) -> Analysed:
        if not force and (self._version(key) != snapshot.version
                          or generation != self.generation):
            return Analysed(Result(snapshot), {}, generation, stale=True)
        settings, folders = self._config()
        try:
            skipped = unanalysable(snapshot.path, snapshot.text)
            try:
                if skipped is not None:
                    result, warnings = Result(snapshot, skipped=skipped), []
                else:
                    result, warnings = await asyncio.wait_for(
                        self.in_worker(worker.run, settings, folders,
                                       dataclasses.replace(snapshot, lines=[]), generation,
                                       key in self._facts),
                        ANALYSIS_TIMEOUT_S)
                    if result.same_graph:
                        result = dataclasses.replace(result, graph=self._facts.get(key, []),
                                                     same_graph=False)
                    else:
                        self._facts[key] = result.graph
                    result = dataclasses.replace(result, snapshot=snapshot)
            except TimeoutError:
                self.stop_worker()
                return Analysed(Result(snapshot, errors=[
                    f"analysis of {snapshot.path} (version {snapshot.version}) was stopped "
                    f"after {ANALYSIS_TIMEOUT_S:g} s; no new diagnostics for it"]), {}, generation)
            diagnostics = to_diagnostics(result, self._encoding())
        except Exception as error:  # a worker that keeps dying: no diagnostics, no crash
            log.exception("analysis of %s", snapshot.path)
            return Analysed(Result(snapshot, errors=[f"analysis of {snapshot.path} failed: "
                                                    f"{type(error).__name__}: {error}"]),
                            {}, generation)
        for warning in warnings:
            self._warn(warning)
        self.timings = [*self.timings[-199:], result.seconds]
        self.cpu_timings = [*self.cpu_timings[-199:], result.cpu_seconds]
        if settings.trace == "verbose":
            self._log(types.MessageType.Log,
                      f"tf-insight: analysed {snapshot.path} (version {snapshot.version}) in "
                      f"{result.seconds * 1000:.0f} ms: {len(result.findings)} findings")
        return Analysed(result, diagnostics, generation)

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        """Run a module-level function of `worker` in the worker process."""
        return self.pool().submit(fn, *args)

    async def _push_loop(self, key: str) -> None:
        """Analyse and publish until the published diagnostics are the document's current
        ones. While the user types faster than an analysis takes, each finished analysis is
        published too (one edit behind, under its own version) as long as the edits since
        moved no line: else nothing would be published until the typing stops."""
        while True:
            analysed = await self.analysed(key)
            if analysed is None:
                return
            state = self._states.get(key)
            if state is None:  # closed meanwhile
                return
            if analysed.generation != self.generation:
                continue  # settings changed meanwhile: every result is void
            current = self._version(key) == analysed.version
            if current or _lines_unmoved(analysed.result.snapshot, self._snapshot(key)):
                for uri, diagnostics in analysed.diagnostics.items():
                    self._publish(uri, diagnostics, analysed.version if uri == key else None)
                    state.published.add(uri)
            if current:
                return

    def report(self, result: Result) -> None:
        for error in result.errors:
            first = error.split(" ", 1)[0]
            is_rule = first.startswith("TFI")
            once = first if is_rule else error
            if once in self._logged:
                continue
            self._logged.add(once)
            suffix = " (reported once; that rule is skipped, the others still run)" if is_rule else ""
            self._log(types.MessageType.Error, f"tf-insight: {error}{suffix}")
        for notice in [result.skipped] if result.skipped else result.notes:
            if notice not in self._logged:
                self._logged.add(notice)
                self._log(types.MessageType.Warning, f"tf-insight: {notice}")

    def stop_worker(self) -> None:
        """End the worker process now, whatever it is doing (the next job starts a new one)."""
        pool, self._executor = self._executor, None
        if pool is None:
            return
        # The pool cannot interrupt a running job: its processes are killed instead.
        for process in list(getattr(pool, "_processes", {}).values()):
            with contextlib.suppress(OSError, ValueError):
                process.kill()
        pool.shutdown(wait=False, cancel_futures=True)

    def shutdown(self) -> None:
        """At once: analyses in flight are abandoned, the worker is killed."""
        for state in self._states.values():
            if state.task is not None:
                state.task.cancel()
        self.stop_worker()
