"""`check --jobs N`: the files of one project checked by N worker processes, with the result of
one process.

The workers take the files one at a time, the largest first, as each is ready for the next (a
shared counter: the time a file takes is not its size), and each keeps its modules from the
first step to the last. Graph contexts cross modules,
so the check runs in the rounds of a serial one (`analyzer.check_paths`):

1. each worker reads and parses its files and builds their graph models, and sends back the
   calls they make into other modules;
2. the main process learns the contexts those calls give (`Project.add_seeds`: the same
   whatever order the calls arrive in) and sends every worker the project's seeds; the workers
   remake the modules whose contexts changed and model them again; up to `MODEL_ROUNDS` times;
3. each worker runs the rules on its reported files and sends back the analyses (findings,
   errors and notes; not the modules), which the main process puts in the serial order.

Workers are forked (they start with the project's settings and caches, nothing to send) and
are ended with the check, whatever happens. Where `fork` is unavailable the check is serial.
"""

from __future__ import annotations

import multiprocessing
import os
import traceback
from collections.abc import Iterable, Iterator
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from tf_insight.check import analyzer
from tf_insight.check.analyzer import (
    MODEL_ROUNDS,
    Analysis,
    build_models,
    fewer_collections,
    read_modules,
    reseed,
    run_rules,
)
from tf_insight.check.project import Project

MIN_FILES_PER_JOB = 16  # below this a worker's start costs more than it saves


def check_paths(paths: Iterable[Path], project: Project, context: Iterable[Path] = (),
                jobs: int | None = None) -> Iterator[Analysis]:
    """`analyzer.check_paths` over `jobs` worker processes (default: one per core), serial
    where workers would not pay off."""
    files, reported, unreadable = analyzer.files_to_check(paths, project, context)
    yield from unreadable
    jobs = default_jobs() if jobs is None else jobs
    if worth_it(len(files), jobs):
        yield from check_files(files, reported, project, jobs)
    else:
        yield from analyzer.check_files(files, reported, project)


def worth_it(files: int, jobs: int) -> bool:
    return (jobs > 1 and files >= 2 * MIN_FILES_PER_JOB
            and "fork" in multiprocessing.get_all_start_methods())


def default_jobs() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def check_files(files: list[Path], reported: set[str], project: Project,
                jobs: int) -> Iterator[Analysis]:
    """The analyses of the reported `files`, in the order a serial check gives them."""
    order = {str(path): index for index, path in enumerate(files)}
    largest_first = sorted(files, key=_size, reverse=True)
    context = multiprocessing.get_context("fork")
    taken = context.Value("i", 0)  # how many of `largest_first` the workers have taken
    workers: list[tuple[Any, Connection]] = []
    try:
        for _ in range(min(jobs, len(files) // MIN_FILES_PER_JOB)):
            ours, theirs = context.Pipe()
            process = context.Process(target=_work,
                                      args=(theirs, largest_first, taken, reported, project),
                                      name="tf-insight-check", daemon=True)
            process.start()
            theirs.close()
            workers.append((process, ours))
        connections = [connection for _, connection in workers]
        for round_ in range(MODEL_ROUNDS):
            for calls in _gather(connections):
                for name, outgoing in calls:
                    project.add_seeds(name, outgoing)
            for connection in connections:
                connection.send(project.seeds)
            last = not any(_gather(connections)) or round_ == MODEL_ROUNDS - 1
            for connection in connections:
                connection.send("rules" if last else "model")
            if last:
                break
        ranked = [item for batch in _gather(connections) for item in batch]
    finally:
        for process, connection in workers:
            connection.close()
            process.join(timeout=5)
            if process.is_alive():
                process.kill()
                process.join()
    # unreadable and unparsable files first, then the rules' analyses, each in file order
    ranked.sort(key=lambda item: (item[0], order.get(item[1].path, len(order))))
    for _rank, analysis in ranked:
        yield analysis


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _taken(files: list[Path], taken: Any) -> Iterator[Path]:
    """The files this worker takes: the next one not taken yet, until none is left."""
    while True:
        with taken.get_lock():
            position = taken.value
            taken.value += 1
        if position >= len(files):
            return
        yield files[position]


def _gather(connections: list[Connection]) -> list[Any]:
    """One reply from each worker; a worker's failure is raised here, with its traceback."""
    replies = []
    for connection in connections:
        try:
            kind, value = connection.recv()
        except EOFError:
            raise RuntimeError("a check worker ended without an answer") from None
        if kind == "error":
            raise RuntimeError(f"a check worker failed:\n{value}")
        replies.append(value)
    return replies


def _work(connection: Connection, files: list[Path], taken: Any, reported: set[str],
          project: Project) -> None:
    """A worker: the files it takes, then their modules through the rounds that the main
    process leads."""
    try:
        with fewer_collections():
            modules, analyses = read_modules(_taken(files, taken), reported, project)
            changed = set(modules)
            while True:
                connection.send(("calls", list(build_models(modules, changed))))
                project.seeds = connection.recv()
                changed = reseed(modules, project)
                connection.send(("seeded", bool(changed)))
                if connection.recv() == "rules":
                    break
            ranked = [(0, analysis) for analysis in analyses]
            ranked += [(1, _portable(run_rules(module))) for name, module in modules.items()
                       if name in reported]
            connection.send(("analyses", ranked))
    except Exception:
        connection.send(("error", traceback.format_exc()))
    finally:
        connection.close()


def _portable(analysis: Analysis) -> Analysis:
    """The analysis without its module: the trees stay in the worker."""
    return Analysis(analysis.path, analysis.findings, None, analysis.errors, analysis.notes)
