"""Analysis state shared across the files of one workspace: settings, the jedi resolver, parsed
modules of other files (cached by path, size and mtime), and graph contexts that reach a module
from calls in another (`seeds`).
"""

from __future__ import annotations

import ast
import dataclasses
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from tf_insight import isolation
from tf_insight.check.context import ModuleContext
from tf_insight.check.graph_model import CrossModuleCall, GraphContext
from tf_insight.check.importers import (
    ENVIRONMENT_FOLDERS,
    ImportIndex,
    scan,
    top_package,
)
from tf_insight.check.index import self_calls
from tf_insight.check.keras_flavor import KerasUsage, ProjectKeras, project_keras
from tf_insight.check.resolve import Definition, Resolver, is_current_interpreter
from tf_insight.check.source import SourceFile
from tf_insight.check.trace_reach import Region
from tf_insight.config import Config, owned_by_user

_MAX_EXTERNAL_DEPTH = 4


@dataclass
class Project:
    config: Config = field(default_factory=Config)
    root: Path | None = None
    resolver: Resolver | None = None
    seeds: dict[str, dict[str, GraphContext]] = field(default_factory=dict)
    _modules: dict[str, tuple[tuple[int, int], ModuleContext | None]] = field(default_factory=dict)
    # imported name → (answer, the modules it was read from, as they were then)
    _answers: dict[tuple[str, str], tuple[str | frozenset[str] | None, dict[str, tuple[int, int]]]] = (
        field(default_factory=dict))
    _read: dict[str, tuple[int, int]] = field(default_factory=dict)  # modules read for an answer
    _seed_origins: dict[tuple[str, str], str] = field(default_factory=dict)  # who gave a seed
    # every module read from disk, as it was then: what an analysis read of other files
    stamps: dict[str, tuple[int, int]] = field(default_factory=dict)
    _loading: set[str] = field(default_factory=set)
    _depth: int = 0
    # what the project's files show of their Keras (None: not looked yet), noted by the
    # import index when it scans the project (`importers.scan`)
    keras_usage: KerasUsage | None = None
    # why the project's Keras code runs eagerly ("" when it may be traced; None: not looked
    # yet), noted by the same scan (`importers.ImportIndex.eager_training`)
    eager_training: str | None = None
    # resolved path → the regions of its definitions that run only eagerly, when the project
    # trains eagerly and its only traces are its own tf.functions (`trace_reach`), noted by
    # the same scan
    untraced: dict[str, list[Region]] = field(default_factory=dict)
    # top-level package folder → what its modules do as they are imported (`"eager"`,
    # `"legacy"`: `importers.ImportIndex.package_facts`), for the folders scanned so far (the
    # root, or an environment's packages one by one)
    package_facts: dict[str, dict[str, str]] = field(default_factory=dict)
    packages_scanned: set[str] = field(default_factory=set)
    # the last scan of the project's root (None: not scanned yet, or an installed environment)
    import_index: ImportIndex | None = None
    # the classes each of its files defines, by the file's stamp (`ImportIndex.class_homes`)
    _class_names: dict[str, tuple[tuple[int, int], list[str]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.resolver is None:
            self.resolver = Resolver(str(self.root) if self.root else None,
                                     lambda: self.sys_path)

    # ---- other modules ---------------------------------------------------------------------

    def load_module(self, path: str) -> ModuleContext | None:
        """A parsed module from disk (library or workspace), cached until the file changes."""
        stamp = _stamp(path)
        if stamp is None:
            return None
        self._read[path] = stamp
        self.stamps[path] = stamp
        cached = self._modules.get(path)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        if path in self._loading:
            return None  # modules that import each other: the first is still being read
        context: ModuleContext | None = None
        self._loading.add(path)
        try:
            source = SourceFile.read(path, self.config.max_file_size)
            if source.tree is not None:
                context = ModuleContext(source, self)
        except OSError:
            context = None
        finally:
            self._loading.discard(path)
        self._modules[path] = (stamp, context)
        return context

    def _definition(self, context: ModuleContext, node: ast.AST) -> Definition | None:
        """jedi's answer for an imported name (`Base` in `pkg.mod.Base`)."""
        root = node
        while isinstance(root, ast.Attribute):
            root = root.value
        if self.resolver is None or not isinstance(root, ast.Name):
            return None
        bound = root.id
        if bound in context.imports.relative:
            level, dotted = context.imports.relative[bound]
            module, _, name = dotted.rpartition(".")
            statement = f"from {'.' * level}{module} import {name} as {bound}"
        elif bound in context.imports.aliases:
            module, _, name = context.imports.aliases[bound].rpartition(".")
            statement = (f"from {module} import {name} as {bound}" if module
                         else f"import {name} as {bound}")
        else:
            return None
        return self.resolver.definition(context.path, statement, context.source.segment(node))

    def _external(self, context: ModuleContext, node: ast.AST, kind: str) -> tuple[
        ModuleContext, ast.AST
    ] | None:
        """The class or function an imported name refers to, in its own module: first by
        following imports through module files on the workspace and the target interpreter's
        sys.path (cheap), then by asking jedi (which also follows assignments)."""
        if self._depth >= _MAX_EXTERNAL_DEPTH:
            return None
        raw = context.imports.raw_name(node)
        if raw is not None:
            found = self._follow_import(raw, kind, depth=0)
            if found is not None:
                return found
        definition = self._definition(context, node)
        if definition is None or definition.kind != kind or definition.path == context.path:
            return None
        other = self.load_module(definition.path)
        if other is None:
            return None
        wanted = ast.ClassDef if kind == "class" else (ast.FunctionDef, ast.AsyncFunctionDef)
        for candidate in ast.walk(other.tree):
            if isinstance(candidate, wanted) and candidate.lineno == definition.line:
                return other, candidate
        return None

    def _follow_import(self, dotted: str, kind: str, depth: int) -> tuple[
        ModuleContext, ast.AST
    ] | None:
        """`pkg.mod.Name` → the `Name` def in pkg/mod.py, through re-exports."""
        module_name, _, name = dotted.rpartition(".")
        if not module_name or depth > 4:
            return None
        path = self._module_path(module_name)
        other = self.load_module(path) if path else None
        if other is None:
            return None
        wanted = ast.ClassDef if kind == "class" else (ast.FunctionDef, ast.AsyncFunctionDef)
        for statement in other.tree.body:
            if isinstance(statement, wanted) and statement.name == name:
                return other, statement
        forwarded = other.imports.aliases.get(name)
        if forwarded is not None and forwarded != dotted:
            return self._follow_import(forwarded, kind, depth + 1)
        return None

    def _module_path(self, module: str) -> str | None:
        parts = module.split(".")
        roots = [r for r in (self.root, self.root / "src" if self.root else None) if r]
        for root in [*roots, *map(Path, self.sys_path)]:
            candidate = root.joinpath(*parts)
            for path in (candidate.with_suffix(".py"), candidate / "__init__.py"):
                if path.is_file():
                    return str(path)
        return None

    def resolve_reexported_modules(self, context: ModuleContext) -> None:
        """`from pkg.utils.tensor_utils import tf`, where that project module does `import
        tensorflow as tf`: the file's `tf` is TensorFlow. Only the usual module names are
        followed (`tf`, `keras`, `tf_keras`...: a lookup per imported name would cost every
        file); a module binding one several ways (`try: import tf_keras` / `except: import
        tensorflow.keras as tf_keras`) counts by its first."""
        imports = context.imports
        for local, raw in list(imports.aliases.items()):
            module, _, name = raw.rpartition(".")
            if not module or name not in REEXPORTED_MODULES or module.split(".")[0] in (
                    "tensorflow", "keras", "tf_keras", "numpy", "jax"):
                continue
            path = self.module_file(module, context.path)
            other = self.load_module(path) if path else None
            if other is None:
                continue
            bound = next((alias.name for statement in other.index.imports
                          if isinstance(statement, ast.Import) for alias in statement.names
                          if (alias.asname or alias.name) == name), None)
            if bound is not None:
                imports.aliases[local] = bound
                imports.modules.add(bound)

    @cached_property
    def keras(self) -> ProjectKeras:
        """The Keras the project runs on, from its requirements or packages, else from its
        files (one that uses what Keras 3 removed: the project's code is Keras 2 code), else
        its installed packages; and whether its files give Keras sample weights. What the
        files show is read from the import index's cached scan."""
        found = project_keras(self.root, self.sys_path)
        if self.root is None:
            return found
        self._scan_files()
        assert self.keras_usage is not None
        return dataclasses.replace(found, weights=self.keras_usage.weights,
                                   idiom=self.keras_usage.idiom if found.undecided else "")

    def keras_of(self, path: str) -> ProjectKeras:
        """`keras`, for the module at `path`: tf-keras for its `tf.keras` when a module of
        its top-level package sets TF_USE_LEGACY_KERAS=1."""
        found = self.keras
        legacy = None if found.legacy else self._package_fact(path, "legacy")
        return dataclasses.replace(found, legacy=legacy) if legacy else found

    def runs_eagerly(self, path: str) -> str | None:
        """Why the module at `path` runs its tf.functions and Keras code eagerly: a module of
        its top-level package calls `tf.config.run_functions_eagerly(True)` as it is imported,
        or the project trains only in eager `GradientTape` loops and traces nothing
        (`importers.ImportIndex.eager_training`); None when neither holds."""
        found = self._package_fact(path, "eager")
        if found is not None or self.root is None:
            return found
        self._scan_files()
        return self.eager_training or None

    def untraced_regions(self, path: str) -> list[Region]:
        """The regions (first line, last line, why) of the module at `path` that the
        project's eager training uses and none of its tf.functions reaches
        (`trace_reach.untraced`)."""
        if self.root is None:
            return []
        self._scan_files()
        if not self.untraced:  # most projects: no path to resolve
            return []
        return self.untraced.get(os.path.realpath(path), [])

    def superseded(self, path: str, classes: Iterable[str]) -> str | None:
        """Why the module at `path` is a superseded copy, which never runs: it is in a
        package, nothing in the project imports it, and a module that is imported defines
        one of its `classes` too (`model_old.py` beside the `model.py` the package uses).
        None otherwise, and for a module outside a package (a script runs without being
        imported), `__init__`/`__main__`, or an installed environment."""
        name = os.path.basename(path)
        if (self.root is None or self.root.name in ENVIRONMENT_FOLDERS or not classes
                or name in ("__init__.py", "__main__.py") or top_package(path) is None):
            return None
        self._scan_files()
        index = self.import_index
        if index is None or index.importers(self, [path]):
            return None
        homes = index.class_homes(self._class_names)
        own = os.path.realpath(path)
        shared: dict[str, list[str]] = {}  # another module → the classes it defines too
        for cls in sorted(classes):
            for other in homes.get(cls, ()):
                if os.path.realpath(other) != own:
                    shared.setdefault(other, []).append(cls)
        # the module sharing the most classes first: the one this copies
        for other, names in sorted(shared.items(), key=lambda item: (-len(item[1]), item[0])):
            if index.importers(self, [other]):
                listed = ", ".join(f"`{name}`" for name in names[:3])
                more = f" and {len(names) - 3} more" if len(names) > 3 else ""
                kind = "class" if len(names) == 1 else "classes"
                return (f"nothing in the project imports it, and "
                        f"`{os.path.relpath(other, self.root)}`, which is imported, defines "
                        f"its {kind} {listed}{more} too: a superseded copy")
        return None

    def forget_scan(self) -> None:
        """A file of the project changed on disk: its Keras and what the scan of its files
        told (Keras usage, eager training, untraced regions, packages' facts) are read again
        when next asked (the import index keeps each unchanged file's facts)."""
        self.__dict__.pop("keras", None)  # the cached_property
        self.keras_usage = self.eager_training = self.import_index = None
        self.untraced = {}
        self.package_facts = {}
        self.packages_scanned = set()

    def _scan_files(self) -> None:
        """What the import index's scan of the project's files tells (`keras_usage`,
        `eager_training`, and the packages' facts), once; nothing for an installed environment,
        many projects side by side."""
        assert self.root is not None
        if self.keras_usage is not None and self.eager_training is not None:
            return
        if self.root.name in ENVIRONMENT_FOLDERS:
            self.keras_usage, self.eager_training = KerasUsage(), ""
        else:
            scan(self, [self.root])

    def _package_fact(self, path: str, kind: str) -> str | None:
        """What a module of the top-level package of `path` does as it is imported (see
        `importers.ImportIndex.package_facts`), scanned once per project (per package in an
        installed environment)."""
        top = top_package(path)
        if top is None or self.root is None:
            return None
        folder = self.root if self.root.name not in ENVIRONMENT_FOLDERS else Path(top)
        if str(folder) not in self.packages_scanned and (
                str(self.root) not in self.packages_scanned):
            scan(self, [folder])
        if not self.package_facts:  # most projects have none: no path to resolve
            return None
        return self.package_facts.get(os.path.realpath(top), {}).get(kind)

    @cached_property
    def sys_path(self) -> list[str]:
        """Where the target interpreter imports from (asked once; it may be another venv)."""
        python = self.config.python
        if python is None or is_current_interpreter(python):
            ours = isolation.bundle_folder("libs")  # the extension's libraries: not the user's
            return [p for p in sys.path if p and p != ours and Path(p).is_dir()]
        try:
            out = subprocess.run(
                [python, "-c", "import json, sys; print(json.dumps(sys.path))"],
                capture_output=True, text=True, timeout=20, check=True,
                cwd=isolation.private_dir(), env=isolation.python_env()).stdout
            return [p for p in json.loads(out) if p and Path(p).is_dir()]
        except (OSError, subprocess.SubprocessError, ValueError):
            return []

    def _answer(
        self, key: tuple[str, str], compute: Callable[[], str | frozenset[str] | None]
    ) -> str | frozenset[str] | None:
        """A cached answer, recomputed once a module it was read from changed on disk (the
        editor saved the decorator's file)."""
        cached = self._answers.get(key)
        if cached is not None and all(_stamp(p) == s for p, s in cached[1].items()):
            return cached[0]
        outer, self._read = self._read, {}
        try:
            value = compute()
            self._answers[key] = (value, self._read)
        finally:
            self._read = {**outer, **self._read}
        return value

    def _import_key(self, context: ModuleContext, node: ast.AST) -> str:
        """What an imported name refers to, the same in every file that imports it: answers
        are cached under it, so `pytest.mark.parametrize` is resolved once per project."""
        raw = context.imports.raw_name(node)
        if raw is not None:
            return raw
        return f"{Path(context.path).parent}:{context.source.segment(node)}"  # relative import

    def external_keras_kind(self, context: ModuleContext, base: ast.AST) -> str | None:
        key = ("class", self._import_key(context, base))
        kind = self._answer(key, lambda: self._external_keras_kind(context, base))
        return kind if isinstance(kind, str) else None

    def external_decorator_effects(self, context: ModuleContext, target: ast.AST) -> set[str]:
        key = ("decorator", self._import_key(context, target))
        effects = self._answer(
            key, lambda: frozenset(self._external_decorator_effects(context, target)))
        return set(effects) if isinstance(effects, frozenset) else set()

    def external_class_defines(self, context: ModuleContext, base: ast.AST, method: str) -> bool:
        """Whether an imported class, or a base of it outside Keras and TensorFlow, defines
        `method`."""
        key = (f"defines {method}", self._import_key(context, base))
        return self._answer(key, lambda: "yes" if self._external_method(context, base, method)
                            else None) == "yes"

    def external_method_self_calls(self, context: ModuleContext, base: ast.AST,
                                   method: str) -> frozenset[str]:
        """The methods that `method` of an imported class (or of a base of it outside Keras
        and TensorFlow) calls on `self` (`self.call(inputs)`: `call`)."""
        key = (f"self calls of {method}", self._import_key(context, base))
        found = self._answer(key, lambda: self_calls(self._external_method(context, base, method)))
        return found if isinstance(found, frozenset) else frozenset()

    def _external_method(self, context: ModuleContext, base: ast.AST, method: str
                         ) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        found = self._external(context, base, "class")
        if found is None:
            return None
        other, node = found
        if not isinstance(node, ast.ClassDef):
            return None
        for item in node.body:
            if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and item.name == method:
                return item
        self._depth += 1
        try:
            local = other.index.module_classes()
            for parent in node.bases:
                if (other.qualname(parent) or "").startswith(("keras.", "tensorflow.")):
                    continue
                inherited = None
                if isinstance(parent, ast.Name) and parent.id in local:
                    own = local[parent.id].methods.get(method)
                    inherited = self._external_method(other, parent, method) or (
                        own.node if own is not None else None)
                elif other.is_imported(parent):
                    inherited = self._external_method(other, parent, method)
                if isinstance(inherited, ast.FunctionDef | ast.AsyncFunctionDef):
                    return inherited
        finally:
            self._depth -= 1
        return None

    def _external_keras_kind(self, context: ModuleContext, base: ast.AST) -> str | None:
        found = self._external(context, base, "class")
        if found is None:
            return None
        other, node = found
        self._depth += 1
        try:
            for cls in other.index.classes:
                if cls.node is node:
                    return other.keras_kind(cls)
        finally:
            self._depth -= 1
        return None

    def _external_decorator_effects(self, context: ModuleContext, target: ast.AST) -> set[str]:
        found = self._external(context, target, "function")
        if found is None:
            return set()
        other, node = found
        self._depth += 1
        try:
            effects = other.body_effects(node)
            for decorator in getattr(node, "decorator_list", []):
                effects |= other.decorator_effects(decorator)
            return effects
        finally:
            self._depth -= 1

    def external_function(
        self, context: ModuleContext, node: ast.AST
    ) -> tuple[ModuleContext, ast.FunctionDef | ast.AsyncFunctionDef] | None:
        """The definition of an imported function, in the module that defines it."""
        found = self._external(context, node, "function")
        if found is None or not isinstance(found[1], ast.FunctionDef | ast.AsyncFunctionDef):
            return None
        return found[0], found[1]

    def external_definition_path(self, context: ModuleContext, node: ast.AST) -> Definition | None:
        """Where an imported name is defined (for related information in findings)."""
        return self._definition(context, node)

    # ---- cross-module graph contexts ---------------------------------------------------------

    def module_file(self, module: str, importer: str) -> str | None:
        """The workspace file of a module imported by `importer` (absolute or relative)."""
        # os.path, not pathlib: the importers of a file are looked for with it by the
        # ten thousand (`importers.importers_of`)
        parts = module.lstrip(".").split(".") if module.startswith(".") else module.split(".")
        for root in self.import_roots(module, os.path.dirname(os.path.realpath(importer))):
            candidate = os.path.join(root, *(part for part in parts if part))
            for path in (os.path.splitext(candidate)[0] + ".py",
                         os.path.join(candidate, "__init__.py")):
                if os.path.isfile(path):
                    return os.path.realpath(path)
        return None

    def import_roots(self, module: str, folder: str) -> list[str]:
        """The folders an import of `module` in a file of `folder` is looked for in, in order:
        the project's root, its `src`, the importer's folder; for a relative import, the
        importer's package, as many levels up as it has dots (less one)."""
        if module.startswith("."):
            for _ in range(len(module) - len(module.lstrip(".")) - 1):
                folder = os.path.dirname(folder)
            return [folder]
        if self.root is None:
            return [folder]
        return [str(self.root), str(self.root / "src"), folder]

    def add_seeds(self, importer: str, calls: list[CrossModuleCall]) -> None:
        """Record the graph contexts that `importer`'s calls give functions of other modules.
        A function called from several modules gets the context of the first importer by
        path (and its first call): the same whatever order the modules were analysed in."""
        for call in calls:
            path = self.module_file(call.module, importer)
            if path is None:
                continue
            key = (path, call.function)
            origin = self._seed_origins.get(key)
            if origin is None or importer < origin:
                self._seed_origins[key] = importer
                self.seeds.setdefault(path, {})[call.function] = call.context

    def learn_from(self, module: ModuleContext) -> None:
        """What an analysed module's calls tell of other workspace modules (see `add_seeds`)."""
        self.add_seeds(module.path, module.graph.outgoing)

    def merge_seeds(self, seeds: dict[str, dict[str, GraphContext]]) -> None:
        """Contexts another project of the same folder learnt (the server's workspace check)."""
        for path, contexts in seeds.items():
            self.seeds.setdefault(path, {}).update(contexts)

    def seeds_for(self, path: str) -> dict[str, GraphContext]:
        return self.seeds.get(str(Path(path).resolve()), {})


# names a project module may bind to a module and others import from it
REEXPORTED_MODULES = frozenset({"tf", "tensorflow", "keras", "tf_keras", "K", "layers", "np"})
ROOT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git", "PKG-INFO")
# an unpacked wheel or sdist, or an installed distribution beside its package
DISTRIBUTION_MARKERS = ("*.dist-info", "*.egg-info")


def project_root(path: Path) -> Path:
    """The root of the project a file (or folder) belongs to, found as ruff and jedi do: the
    nearest folder upward with a pyproject.toml, setup.py, setup.cfg, .git, PKG-INFO or a
    `*.dist-info`/`*.egg-info` folder; else the folder above the top of its `__init__.py`
    package chain (where its absolute imports start); else its own folder. The same file gets
    the same root however the tool was called. A marker that belongs to another user (a
    pyproject.toml planted in /tmp) marks no project: its settings must not apply here."""
    start = Path(os.path.abspath(path))  # not resolve(): it must look at every folder above
    folder = start if _is_dir(start) else start.parent
    for candidate in [folder, *folder.parents]:
        if any(_exists(candidate / marker) and owned_by_user(candidate / marker)
               for marker in ROOT_MARKERS) or any(
                _glob(candidate, marker) for marker in DISTRIBUTION_MARKERS):
            return candidate
    while _exists(folder / "__init__.py") and folder.parent != folder:
        folder = folder.parent
    return folder


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except OSError:
        return False


def _glob(folder: Path, pattern: str) -> bool:
    try:
        return any(True for _ in folder.glob(pattern))
    except OSError:
        return False


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:
        return False


def changed_on_disk(stamps: dict[str, tuple[int, int]]) -> bool:
    """Whether a file read then (`Project.stamps`) changed since."""
    return any(_stamp(path) != stamp for path, stamp in stamps.items())


def _stamp(path: str) -> tuple[int, int] | None:
    """(size, modification time) of a file, None if it cannot be read: a changed stamp is a
    changed file."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return (stat.st_size, stat.st_mtime_ns)
