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

The same scan keeps two more facts per file: the first use of what Keras 3 removed
(`keras_flavor.keras_2_idiom`: `fit_generator`, `lr=` in an optimizer...), and whether it
gives Keras sample or class weights (`keras_flavor.weights_given`). A project one of whose
files uses an idiom was written for Keras 2, and so were its other files; a loss of a project
that never weights samples is never weighted (never in an installed environment, many
projects side by side). And what in a file may trace (`trace_marks`: a `tf.function`, Keras
`predict`, `fit`/`evaluate` and the `compile` they need, a TF 1 session or Estimator) and
whether it trains in a `GradientTape` loop: a project that trains that way and traces nothing
calls its Keras code eagerly (`eager_training`); one whose only traces are its own
`tf.function`s calls eagerly what none of them reaches (`trace_reach`). One walk notes all of
them in the project (`scan`).

And two facts about what a package module does as it is imported, which hold for its whole
top-level package (`import pkg` runs its modules; `package_facts`): the line where it turns
tf.function off for the process (`eager_at_import`: `tf.config.run_functions_eagerly(True)`
as a statement of the module itself: the package's tf.functions and Keras steps run eagerly,
its tf.data functions are still traced), and whether it sets `TF_USE_LEGACY_KERAS=1` (an
entry point that does so before importing TensorFlow: the package's `tf.keras` is tf-keras).
A script's own settings are its own.

And, read from the files' text when first asked (a file again only once it changed), which
modules define each top-level class (`class_homes`): a package module that nothing imports,
while an imported one defines its classes too, is a superseded copy that never runs
(`project.Project.superseded`).
"""

from __future__ import annotations

import functools
import multiprocessing
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

from tf_insight.check import cache, keras_flavor, trace_reach
from tf_insight.check.discovery import walk
from tf_insight.check.keras_flavor import (
    KerasUsage,
    keras_2_idiom,
    sets_legacy_keras,
    weights_given,
)
from tf_insight.check.source import SourceFile
from tf_insight.config import Config
from tf_insight.files import read_regular

CACHE_KIND = "imports"
# the facts come from this module's scan and keras_flavor's idioms
CACHE_VERSION = cache.code_version(__file__, keras_flavor.__file__)
MIN_FILES_PER_JOB = 500  # below this, reading them is faster than starting a process
ENVIRONMENT_FOLDERS = ("site-packages", "dist-packages")
# what may precede `import` on its line: the start of a statement, or a `from` clause
_BEFORE_IMPORT = re.compile(
    rb"(?:.*[;:])?[ \t]*(?:from[ \t]+(\.[. \t]*[\w.]*|[\w.]+)[ \t]+)?")
_COMMENT = re.compile(rb"#[^\n]*")
_CLASS = re.compile(rb"^class[ \t]+(\w+)", re.M)
_CONTINUATION = re.compile(rb"\\\r?\n")
_SPACED_DOT = re.compile(rb"[ \t]*\.[ \t]*(?=\w)")
# what makes a project's Keras code run in a graph (`trace_marks`; a mention in a comment
# counts: never too few): XLA, Keras's own traced loops, TF 1 sessions and Estimators; Keras's
# `fit` and `evaluate`, which need a model compiled in the project or loaded compiled (a `fit`
# of a project that does neither is scikit-learn's, or its own); and a tf.function.
# Substrings: a regular expression over every file's text costs a tenth of a check.
_STEP_MARKS = ("jit_compile", "_on_batch(", "Session(", "stimator", ".predict(",
               ".predict_generator(")
_FIT_MARKS = (".fit(", ".fit_generator(", ".evaluate(", ".evaluate_generator(")
_COMPILED = re.compile(r"(?<!\bre)(?<!\bregex)\.compile\(|(?<!def )load_model\(")
# a module-level statement (at column 0: not in a function, a class or an `if`)
_EAGER_AT_IMPORT = re.compile(
    r"^(?:[A-Za-z_][\w.]*\.)?(?:experimental_)?run_functions_eagerly\([ \t]*True[ \t]*\)",
    re.MULTILINE)


class Project(Protocol):
    """What the index needs of the project (`project.Project`, which asks the index which of
    its files uses a Keras 2 idiom: a protocol, so that the two modules do not import each
    other)."""

    root: Path | None
    config: Config
    keras_usage: KerasUsage | None
    eager_training: str | None
    untraced: dict[str, list[trace_reach.Region]]
    package_facts: dict[str, dict[str, str]]
    packages_scanned: set[str]
    import_index: ImportIndex | None

    def module_file(self, module: str, importer: str) -> str | None: ...

    def import_roots(self, module: str, folder: str) -> list[str]: ...


def importers_of(files: list[Path], project: Project, hops: int = 3,
                 use_cache: bool = True, jobs: int = 1) -> list[Path]:
    """The project's modules that import one of `files`, and their importers, `hops` deep
    (in the order of the project's walk); `jobs`: processes that may read the files whose
    imports are not in the cache."""
    if project.root is None or not files:
        return []
    index = scan(project, _searched(project, files), use_cache, jobs)
    return index.importers(project, files, hops)


def scan(project: Project, folders: list[Path], use_cache: bool = True,
         jobs: int = 1) -> ImportIndex:
    """The index of `folders` (the project's root, or packages of an installed environment),
    noting in `project` what one scan tells of them all: what the project's files show of
    their Keras (`keras_usage`: the first file, in the walk's order, that uses what Keras 3
    removed, and that gives Keras sample weights; nothing for an installed environment, many
    projects), whether it trains only eagerly (`eager_training`, `untraced`), and what their
    packages' modules do as they are imported (`package_facts`)."""
    assert project.root is not None
    index = ImportIndex(project, folders, use_cache, jobs)
    project.keras_usage = (KerasUsage() if project.root.name in ENVIRONMENT_FOLDERS
                           else index.keras_usage())
    environment = project.root.name in ENVIRONMENT_FOLDERS
    project.eager_training = "" if environment else index.eager_training()
    project.untraced = {} if environment else index.untraced(project.config.max_file_size)
    project.package_facts.update(index.package_facts())
    project.packages_scanned.update(str(folder) for folder in folders)
    if not environment:
        project.import_index = index
    return index


def eager_at_import(text: str) -> int | None:
    """The line of the first module-level `tf.config.run_functions_eagerly(True)` in `text`
    (any alias of `tf.config`, or `experimental_run_functions_eagerly`), if any."""
    if "run_functions_eagerly" not in text:  # nearly every file: skip the expression
        return None
    found = _EAGER_AT_IMPORT.search(text)
    return None if found is None else text.count("\n", 0, found.start()) + 1


def trace_marks(text: str) -> str:
    """What in `text` may run code in a graph: "s" for one of `_STEP_MARKS`, "k" for a
    `fit`/`evaluate`, "c" for a `compile` or `load_model` (not `re.compile`), "f" for
    `tf.function` / `@function` / `function(...)`."""
    return "".join(mark for mark, found in (
        ("s", any(step in text for step in _STEP_MARKS)),
        ("k", any(fit in text for fit in _FIT_MARKS)),
        ("c", ("compile(" in text or "load_model(" in text) and bool(_COMPILED.search(text))),
        ("f", _names_function(text))) if found)


# what builds a Keras model by calling its layers on symbolic inputs: a functional model, a
# Sequential given its input, a model's `build` (tf-keras traces `call` there), not a layer's
# own `super().build(shape)`
_SYMBOLIC_BUILDS = re.compile(
    r"\bInput(?:Layer)?\(|\bSequential\(|\binput_shape\s*=|(?<!\))\.build\(")


def builds_on_symbolic_inputs(text: str) -> bool:
    """Whether `text` may build a Keras model on symbolic inputs, which traces its layers'
    `call` (`Input(...)`, `Sequential(...)`, `input_shape=`, `model.build(...)`)."""
    return _SYMBOLIC_BUILDS.search(text) is not None


def _names_function(text: str) -> bool:
    """`tf.function`, `@function` or `function(...)` in `text` (`function` as a word, after
    a `.` or `@`, or called)."""
    start = text.find("function")
    while start >= 0:
        end = start + len("function")
        before = text[start - 1] if start else " "
        after = text[end] if end < len(text) else " "
        if (before in ".@" and not (after.isalnum() or after == "_")) or (
                after == "(" and not (before.isalnum() or before == "_")):
            return True
        start = text.find("function", end)
    return False


def top_package(path: str) -> str | None:
    """The folder of the top-level package the module at `path` belongs to (the highest
    folder of a chain of folders with `__init__.py`), None for a module outside a package
    (a script)."""
    folder = os.path.dirname(os.path.abspath(path))
    top = None
    while os.path.isfile(os.path.join(folder, "__init__.py")):
        top, folder = folder, os.path.dirname(folder)
    return top


def _folders_of(modules: set[str]) -> dict[str, set[str]]:
    """For each dotted name that may name one of `modules` (the last parts of its path:
    `c`, `b.c`, `a.b.c` for `/a/b/c.py` and `/a/b/c/__init__.py`), the folders it would be
    found in (`/a/b`, `/a`, `/`); a bare `.` names its package's `__init__`."""
    folders: dict[str, set[str]] = {}
    for module in modules:
        stem, _ = os.path.splitext(module)
        parts = stem.split(os.sep)
        if parts[-1] == "__init__":
            parts.pop()
            folders.setdefault("", set()).add(os.sep.join(parts))
        folders.setdefault("", set()).add(stem)  # `from . import x` in a folder beside x.py
        for length in range(1, len(parts)):
            folders.setdefault(".".join(parts[-length:]), set()).add(
                os.sep.join(parts[:-length]) or os.sep)
    return folders


class _Real:
    """Resolved paths (`os.path.realpath`), each folder resolved once."""

    def __init__(self) -> None:
        self._paths: dict[str, str] = {}

    def path(self, path: str) -> str:
        if path not in self._paths:
            self._paths[path] = os.path.realpath(path)
        return self._paths[path]

    def folder_of(self, file: str) -> str:
        return self.path(os.path.dirname(file))


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
    """What each file under the searched folders imports. A cached entry is [size,
    modification time, "the names|their last parts"], space-separated: a string is read from
    JSON ten times faster than a list of them, and a query looks at the last parts first;
    then, each after a newline, the file's first Keras 2 idiom, the weights it gives Keras
    (`sample_weight=`), the line where it turns tf.function off at import, and "1" when it
    sets TF_USE_LEGACY_KERAS=1, when it has them."""

    def __init__(self, project: Project, folders: list[Path], use_cache: bool,
                 jobs: int = 1) -> None:
        assert project.root is not None
        facts = cache.FileFacts(CACHE_KIND, CACHE_VERSION, project.root.resolve())
        kept = facts.load() if use_cache else {}
        base = str(project.root) + os.sep
        # the entries of folders not searched stay (other packages of an environment)
        tops = [] if folders == [project.root] else [
            str(folder).removeprefix(base) for folder in folders]
        entries = {key: entry for key, entry in kept.items() if tops and not any(
            key == top or key.startswith(top + os.sep) for top in tops)}
        found: list[tuple[str, str, tuple[int, int]]] = []  # (path, key, stamp), walk order
        for folder in folders:
            for path in walk(folder, project.config):
                try:
                    found.append((path, path.removeprefix(base), cache.stamp(os.stat(path))))
                except OSError:
                    continue
        stale = [path for path, key, stamp in found if not _fresh(kept.get(key), stamp)]
        read = dict(zip(stale, _imports(stale, project.config.max_file_size, jobs),
                        strict=True))
        self.limit = project.config.max_file_size
        self.stamps = {path: stamp for path, _, stamp in found}
        self._class_homes: dict[str, list[str]] | None = None  # see `class_homes`
        self.files: list[tuple[str, str]] = []  # (path, what it imports), in walk order
        # the first file using a Keras 2 idiom, and giving weights: (key, what)
        self.keras_2: tuple[str, str] | None = None
        self.weights: tuple[str, str] | None = None
        self.eager: list[tuple[str, str, int]] = []  # (path, key, line), see eager_at_import
        self.legacy: list[tuple[str, str]] = []  # (path, key): they set TF_USE_LEGACY_KERAS=1
        # what the files may trace with (see `trace_marks`); the first that trains with a
        # GradientTape (and applies the gradients: not a gradient penalty helper)
        self.marks: set[str] = set()
        self.tape: str | None = None
        for path, key, stamp in found:
            entries[key] = [*stamp, read[path]] if path in read else kept[key]
            imported, _, usage = entries[key][2].partition("\n")
            self.files.append((path, imported))
            if usage:
                idiom, _, rest = usage.partition("\n")
                weights, _, rest = rest.partition("\n")
                eager, _, rest = rest.partition("\n")
                legacy, _, training = rest.partition("\n")
                self.marks.update(training.replace("g", ""))
                if "g" in training and self.tape is None:
                    self.tape = key
                if legacy:
                    self.legacy.append((path, key))
                if idiom and self.keras_2 is None:
                    self.keras_2 = (key, idiom)
                if weights and self.weights is None:
                    self.weights = (key, weights)
                if eager:
                    self.eager.append((path, key, int(eager)))
        if use_cache and entries != kept:
            facts.save(entries)

    def keras_usage(self) -> KerasUsage:
        """What the files show of their Keras, as reasons (see `KerasUsage`)."""
        idiom = weights = ""
        if self.keras_2 is not None:
            idiom = f"`{self.keras_2[0]}` uses `{self.keras_2[1]}`, which only Keras 2 accepts"
        if self.weights is not None:
            weights = f"`{self.weights[0]}` gives Keras `{self.weights[1]}`"
        return KerasUsage(idiom, weights)

    def eager_training(self) -> str:
        """Why the project's Keras code runs eagerly, if it does: a file trains in a
        `GradientTape` loop (it applies the gradients) and none traces anything
        (`trace_marks`: no `tf.function`, no Keras `predict`, no `fit`/`evaluate` of a
        compiled model, no TF 1 session or Estimator), so its layers, losses and metrics are
        called eagerly ("" otherwise)."""
        if not self._trains_on_tape() or "f" in self.marks:
            return ""
        return (f"`{self.tape}` trains in an eager `GradientTape` loop and no file of the "
                "project traces (no `tf.function`, no `predict`, no `fit` or `evaluate` of a "
                "compiled model)")

    def untraced(self, limit: int) -> dict[str, list[trace_reach.Region]]:
        """When the project trains in a `GradientTape` loop and its only traces are its own
        tf.functions: for each file (its path resolved), the regions of the definitions its
        eager training uses and none of them reaches (`trace_reach`); nothing otherwise."""
        if not self._trains_on_tape() or "f" not in self.marks:
            return {}
        real_folders: dict[str, str] = {}
        texts = ((os.path.realpath(path),
                  _read(path, limit, real_folders).decode("utf-8", "replace"))
                 for path, _ in self.files)
        return trace_reach.untraced(texts)

    def _trains_on_tape(self) -> bool:
        """A file trains in a `GradientTape` loop, and no Keras step, TF 1 session,
        Estimator or `fit` of a compiled model traces anything."""
        return self.tape is not None and "s" not in self.marks and not {"k", "c"} <= self.marks

    def package_facts(self) -> dict[str, dict[str, str]]:
        """For each top-level package (its folder, resolved) one of whose modules does so as
        it is imported, why its tf.functions run eagerly (`"eager"`) and why its `tf.keras`
        is tf-keras (`"legacy"`)."""
        found: dict[str, dict[str, str]] = {}
        for path, key, line in self.eager:
            top = top_package(path)
            if top is not None:
                found.setdefault(os.path.realpath(top), {}).setdefault("eager", (
                    f"`{key}:{line}` calls `tf.config.run_functions_eagerly(True)` when "
                    f"`{os.path.basename(top)}` is imported"))
        for path, key in self.legacy:
            top = top_package(path)
            if top is not None:
                found.setdefault(os.path.realpath(top), {}).setdefault(
                    "legacy", f"`{key}` sets TF_USE_LEGACY_KERAS=1 for `{os.path.basename(top)}`")
        return found

    def importers(self, project: Project, files: list[Path] | list[str],
                  hops: int = 1) -> list[Path]:
        """The indexed modules that import one of `files`, and their importers, `hops` deep,
        in the walk's order (see `importers_of`)."""
        real = _Real()
        wanted = {os.path.realpath(path) for path in files}
        seen = set(wanted)
        found: set[str] = set()  # the importers as the walk spelt them
        resolved: dict[tuple[str, str], str | None] = {}  # (name, importer's folder) → file
        for _ in range(hops):
            folders = _folders_of(wanted)
            new: dict[str, str] = {}  # resolved → as spelt
            for importer, name in self.naming(folders):
                folder = real.folder_of(importer)
                # cheap first: is one of the folders Python would look in the one it must be in?
                if not any(real.path(root) in folders[name.lstrip(".")]
                           for root in project.import_roots(name, folder)):
                    continue
                where = (name, folder)
                if where not in resolved:
                    resolved[where] = project.module_file(name, importer)
                if resolved[where] in wanted:
                    importer_file = os.path.realpath(importer)
                    if importer_file not in seen:
                        new[importer_file] = importer
            if not new:
                break
            seen |= new.keys()
            found |= set(new.values())
            wanted = set(new)
        return [Path(path) for path, _ in self.files if path in found]

    def class_homes(self, known: dict[str, tuple[tuple[int, int], list[str]]]
                    ) -> dict[str, list[str]]:
        """Each class name a module of the index defines at its top level → those modules
        (a class is `class Name` at the start of a line), read from the files' text; `known`
        keeps each file's names by its stamp, so that a later scan reads only what changed
        (an editor's project is scanned again after every save). Read once per index."""
        if self._class_homes is not None:
            return self._class_homes
        homes: dict[str, list[str]] = {}
        real_folders: dict[str, str] = {}
        for path, _ in self.files:
            stamp = self.stamps[path]
            entry = known.get(path)
            if entry is None or entry[0] != stamp:
                data = _read(path, self.limit, real_folders)
                entry = known[path] = (stamp, [name.decode("utf-8", "replace")
                                               for name in _CLASS.findall(data)])
            for name in entry[1]:
                homes.setdefault(name, []).append(path)
        self._class_homes = homes
        return homes

    def naming(self, names: dict[str, set[str]]) -> Iterator[tuple[str, str]]:
        """(importer, imported name) for the imported names among `names` (dotted, without
        their leading dots), looking at a file's names only when one of their last parts
        is the last part of one of them."""
        lasts = {name.rpartition(".")[2] for name in names}
        for path, imported in self.files:
            found, _, found_lasts = imported.partition("|")
            if not lasts.isdisjoint(found_lasts.split(" ")):
                yield from ((path, name) for name in found.split(" ")
                            if name.lstrip(".") in names)


def _fresh(entry: list[object] | None, stamp: tuple[int, int]) -> bool:
    return entry is not None and entry[:2] == list(stamp) and isinstance(entry[2], str)


def _imports(paths: list[str], limit: int, jobs: int) -> list[str]:
    """What each file imports, as a cached entry holds it, read over `jobs` forked processes
    when there are many (a first check of a large project)."""
    if jobs > 1 and len(paths) >= MIN_FILES_PER_JOB * jobs and (
            "fork" in multiprocessing.get_all_start_methods()):
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            # each chunk of files is sent with its own empty `real_folders`
            return pool.map(functools.partial(_imported, limit=limit, real_folders={}), paths,
                            chunksize=MIN_FILES_PER_JOB)
    real_folders: dict[str, str] = {}
    return [_imported(path, limit, real_folders) for path in paths]


def _imported(path: str, limit: int, real_folders: dict[str, str]) -> str:
    data = _read(path, limit, real_folders)
    names = sorted(imported_names(data))
    lasts = sorted({name.rpartition(".")[2] for name in names})
    text = data.decode("utf-8", "replace")
    # a file that imports tf-keras chose it; its idioms say nothing of the project's other
    # code (`tensorflow.python.keras`, TensorFlow's own Keras 2, is no such choice)
    legacy = any(name.split(".")[0] == "tf_keras" for name in names)
    idiom = None if legacy else keras_2_idiom(text)
    eager = eager_at_import(text)
    legacy_keras = "1" if sets_legacy_keras(text) else ""
    steps = "GradientTape" in text and ("apply_gradients" in text or ".minimize(" in text)
    training = trace_marks(text) + ("g" if steps else "")
    usage = (f"{idiom or ''}\n{weights_given(text) or ''}\n{eager or ''}\n{legacy_keras}\n"
             f"{training}")
    return f"{' '.join(names)}|{' '.join(lasts)}" + (f"\n{usage}" if usage.strip() else "")


def _read(path: str, limit: int, real_folders: dict[str, str]) -> bytes:
    """A file's text (a notebook's code cells, not the JSON around them); none for a file
    that cannot be read (the check says so when it reads it)."""
    try:
        if path.endswith(".ipynb"):
            return SourceFile.read(path, limit).text.encode("utf-8")
        return read_regular(path, limit, real_folders=real_folders)
    except (OSError, UnicodeError):
        return b""


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
        before = _BEFORE_IMPORT.fullmatch(_logical_line_before(data, position))
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


def _logical_line_before(data: bytes, position: int) -> bytes:
    """The text of the statement's line before `position`, with the lines it continues with a
    backslash joined (`from pkg.sub. \\` then `mod import x`) and a dotted name's spaces
    left out (`pkg.sub.mod`)."""
    line_start = data.rfind(b"\n", 0, position) + 1
    while data[max(line_start - 3, 0):line_start].endswith((b"\\\n", b"\\\r\n")):
        line_start = data.rfind(b"\n", 0, line_start - 2) + 1
    text = data[line_start:position]
    if b"\\" not in text:
        return text
    return _SPACED_DOT.sub(b".", _CONTINUATION.sub(b" ", text))


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
